#!/usr/bin/env python3
"""Writes an HLO text module shaped like the after-optimization module of an
unrolled transformer training step, for measuring hloscope at any size
(make bench, issue 22).  Each of the L layers has, in the entry computation,
a layer-norm fusion, a dot, a GELU fusion, a second dot, an all-reduce of
its output and a residual add, with four weight parameters; each fusion
has a body of its own (as XLA writes them: fused_computation.N).  Every
instruction carries an op_name path jit(train_step)/transformer/layer_K/
{attention,mlp}/..., so layers and repeated blocks can be found.

About 23 instructions per layer, 130 bytes of text each: --layers 1000
gives 23k instructions (3.0 MB), 10000 gives 230k (31 MB), 50000 gives
1.15M (157 MB).

Usage: gen_transformer_hlo.py --layers L [-o FILE] [--batch B] [--seq S] [--model D]
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--model", type=int, default=1024)
    a = ap.parse_args()
    B, S, D, F = a.batch, a.seq, a.model, 4 * a.model
    act = "f32[%d,%d,%d]{2,1,0}" % (B, S, D)
    wide = "f32[%d,%d,%d]{2,1,0}" % (B, S, F)
    vec = "f32[%d]{0}" % D
    w1 = "f32[%d,%d]{1,0}" % (D, F)
    w2 = "f32[%d,%d]{1,0}" % (F, D)
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    w = out.write
    w("HloModule jit_train_step, is_scheduled=true, num_partitions=4\n\n")
    w("%sum (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %add.sum = f32[] add(%x, %y)\n}\n\n")
    for k in range(a.layers):
        meta = 'metadata={op_name="jit(train_step)/transformer/layer_%d/%%s"}'
        m = lambda what, line: meta % k % what
        w("%%fused_layernorm.%d (p0: %s, p1: %s) -> %s {\n" % (k, act.split("{")[0], vec.split("{")[0],
                                                           act.split("{")[0]))
        w("  %%p0.ln.%d = %s parameter(0)\n" % (k, act))
        w("  %%p1.ln.%d = %s parameter(1)\n" % (k, vec))
        w("  %%bc.ln.%d = %s broadcast(%%p1.ln.%d), dimensions={2}, %s\n" % (k, act, k, m("attention/layer_norm/broadcast", 10)))
        w("  %%mul.ln.%d = %s multiply(%%p0.ln.%d, %%p0.ln.%d), %s\n" % (k, act, k, k, m("attention/layer_norm/square", 11)))
        w("  %%rs.ln.%d = %s rsqrt(%%mul.ln.%d), %s\n" % (k, act, k, m("attention/layer_norm/rsqrt", 12)))
        w("  ROOT %%out.ln.%d = %s multiply(%%rs.ln.%d, %%bc.ln.%d), %s\n}\n\n" % (k, act, k, k, m("attention/layer_norm/mul", 13)))
        w("%%fused_gelu.%d (p0: %s, p1: %s) -> %s {\n" % (k, wide.split("{")[0], "f32[%d]" % F, wide.split("{")[0]))
        w("  %%p0.g.%d = %s parameter(0)\n" % (k, wide))
        w("  %%p1.g.%d = f32[%d]{0} parameter(1)\n" % (k, F))
        w("  %%bc.g.%d = %s broadcast(%%p1.g.%d), dimensions={2}, %s\n" % (k, wide, k, m("mlp/bias/broadcast", 20)))
        w("  %%add.g.%d = %s add(%%p0.g.%d, %%bc.g.%d), %s\n" % (k, wide, k, k, m("mlp/bias/add", 21)))
        w("  %%tanh.g.%d = %s tanh(%%add.g.%d), %s\n" % (k, wide, k, m("mlp/gelu/tanh", 22)))
        w("  ROOT %%out.g.%d = %s multiply(%%add.g.%d, %%tanh.g.%d), %s\n}\n\n" % (k, wide, k, k, m("mlp/gelu/mul", 23)))
    w("ENTRY %%main (x: %s) -> %s {\n" % (act.split("{")[0], act.split("{")[0]))
    w("  %%x.0 = %s parameter(0)\n" % act)
    prev, pnum = "x.0", 1
    for k in range(a.layers):
        meta = 'metadata={op_name="jit(train_step)/transformer/layer_%d/%%s"}'
        m = lambda what, line: meta % k % what
        for name, shape in (("gamma", vec), ("wq", "f32[%d,%d]{1,0}" % (D, D)), ("b1", "f32[%d]{0}" % F), ("w2", w2)):
            w("  %%%s.%d = %s parameter(%d)\n" % (name, k, shape, pnum))
            pnum += 1
        w("  %%ln.%d = %s fusion(%%%s, %%gamma.%d), kind=kLoop, calls=%%fused_layernorm.%d, %s\n"
          % (k, act, prev, k, k, m("attention/layer_norm", 30)))
        w("  %%q.%d = %s dot(%%ln.%d, %%wq.%d), lhs_contracting_dims={2}, rhs_contracting_dims={0}, %s\n"
          % (k, act, k, k, m("attention/query/dot_general", 31)))
        w("  %%up.%d = %s dot(%%q.%d, %%w2.%d), lhs_contracting_dims={2}, rhs_contracting_dims={1}, %s\n"
          % (k, wide, k, k, m("mlp/up/dot_general", 32)))
        w("  %%act.%d = %s fusion(%%up.%d, %%b1.%d), kind=kLoop, calls=%%fused_gelu.%d, %s\n"
          % (k, wide, k, k, k, m("mlp/gelu", 33)))
        w("  %%down.%d = %s dot(%%act.%d, %%w2.%d), lhs_contracting_dims={2}, rhs_contracting_dims={0}, %s\n"
          % (k, act, k, k, m("mlp/down/dot_general", 34)))
        w("  %%ar.%d = %s all-reduce(%%down.%d), channel_id=%d, replica_groups={{0,1,2,3}}, "
          "use_global_device_ids=true, to_apply=%%sum, %s\n" % (k, act, k, k + 1, m("mlp/psum", 35)))
        root = "ROOT " if k == a.layers - 1 else ""
        w("  %s%%res.%d = %s add(%%%s, %%ar.%d), %s\n" % (root, k, act, prev, k, m("residual/add", 36)))
        prev = "res.%d" % k
    w("}\n")
    if out is not sys.stdout:
        out.close()


main()
