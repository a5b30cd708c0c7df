"""Checks the analytic model on HLO modules (model/cost_module.c) against an
independent reading of the HLO text: instructions, shapes, operands, called
computations and attributes are read with regular expressions
(tests/hlo/hloref.py), and the
model of docs/model.md ("On an HLO module") is computed again from them:
FLOPs per instruction, a fusion as one kernel (its body's FLOPs, the bytes
it moves in memory), the shares of the nodes inside fusion bodies and
reducers, and the module's total over the executed computations.

For each FILE.hlo it compares, per node, `flops`, `bytes` and `cost` of
`hloscope query FILE --csv 'nodes show id, name, flops, bytes, cost'`
(an unknown cost is empty), and `hloscope info --json FILE`'s
analytic totals; and checks that every fusion's body shares add up to the
fusion's own cost.  Prints PASS / FAIL lines for tests/run.sh.

Usage: cost_check.py FILE.hlo...   (environment: HLOSCOPE)
"""
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hloref import Module, elements as elems, is_array, nbytes, parse_shape, shape_text  # noqa: E402

HLOSCOPE = os.environ["HLOSCOPE"]

PEAK = 61.5e12          # FLOP/s (model/cost.h)
BW = 450e9              # bytes/s
OP_SECONDS = 1e-6       # per kernel on layout graphs (every plain module)

# The learned opcodes (tpu_graphs' hlo_opcode.h) and what they are.
LEARNED = set("""abs add add-dependency after-all all-reduce all-to-all atan2
batch-norm-grad batch-norm-inference batch-norm-training bitcast
bitcast-convert broadcast call ceil cholesky clamp collective-permute
count-leading-zeros compare complex concatenate conditional constant convert
convolution copy copy-done copy-start cosine custom-call divide domain dot
dynamic-slice dynamic-update-slice exponential exponential-minus-one fft
floor fusion gather get-dimension-size set-dimension-size get-tuple-element
imag infeed iota is-finite log log-plus-one and not or xor map maximum
minimum multiply negate outfeed pad parameter partition-id popcnt power real
recv recv-done reduce reduce-precision reduce-window remainder replica-id
reshape reverse rng rng-get-and-update-state rng-bit-generator
round-nearest-afz rsqrt scatter select select-and-scatter send send-done
shift-left shift-right-arithmetic shift-right-logical sign sine slice sort
sqrt subtract tanh transpose triangular-solve tuple while cbrt
all-gather collective-permute-start collective-permute-done logistic
dynamic-reshape all-reduce-start all-reduce-done reduce-scatter
all-gather-start all-gather-done opt-barrier async-start async-update
async-done round-nearest-even stochastic-convert tan""".split())
ELEMENTWISE = set("""abs add atan2 bitcast-convert ceil clamp count-leading-zeros
compare complex convert cosine divide exponential exponential-minus-one floor
imag iota is-finite log log-plus-one and not or xor maximum minimum multiply
negate popcnt power real reduce-precision remainder rng rng-get-and-update-state
rng-bit-generator round-nearest-afz rsqrt select shift-left
shift-right-arithmetic shift-right-logical sign sine sort sqrt subtract tanh
cbrt logistic round-nearest-even stochastic-convert tan""".split())
MATRIX_CATEGORY = {"cholesky", "convolution", "dot", "fft", "triangular-solve"}
REDUCTION = {"batch-norm-grad", "batch-norm-inference", "batch-norm-training", "reduce",
             "reduce-window", "scatter", "select-and-scatter"}
COLLECTIVE = set("""all-reduce all-to-all collective-permute infeed outfeed partition-id
recv recv-done replica-id send send-done all-gather collective-permute-start
collective-permute-done all-reduce-start all-reduce-done reduce-scatter
all-gather-start all-gather-done""".split())
MOVES_NOTHING = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "after-all",
                 "add-dependency", "domain", "opt-barrier", "while", "call", "conditional"}
REDUCER_CALLERS = {"reduce", "reduce-window", "reduce-scatter", "all-reduce", "all-reduce-start",
                   "scatter", "select-and-scatter", "map", "sort", "reduce-precision"}
GEMM = {"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8"}
CONV = {"__cudnn$convForward": "fwd", "__cudnn$convBiasActivationForward": "fwd",
        "__cudnn$convForwardGraph": "fwd", "__cudnn$convBackwardInput": "bwd_input",
        "__cudnn$convBackwardFilter": "bwd_filter"}
FREE_TARGETS = {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"}


def pad_factor(s):
    """The (8, 128) tile factor of s under its layout (row-major when none)."""
    if s is None or not is_array(s) or len(s[1]) > 6:
        return 1.0
    dims, lay = s[1], s[2]
    order = lay if lay is not None and len(lay) == len(dims) else list(range(len(dims)))[::-1]
    minor = [d for d in order if dims[d] != 1][:2]
    f = 1.0
    for d, t in zip(minor, (128, 8)):
        if dims[d] > 0:
            f *= math.ceil(dims[d] / t) * t / dims[d]
    return f


# ---- reading the text ---------------------------------------------------------

def read_module(path):
    """The computations in file order: name, entry, nodes (name, root, the
    parsed shape, opcode, operands, attrs), read by tests/hlo/hloref.py."""
    mod = Module(path)
    return [{"name": c, "entry": c == mod.entry,
             "nodes": [{"name": i["name"], "root": i["root"], "shape": parse_shape(shape_text(i["shape"]))[0],
                        "opcode": i["opcode"], "operands": i["operands"], "attrs": i["attr"]} for i in nodes]}
            for c, nodes in mod.comps.items()]


def callees(node):
    a = node["attrs"]
    out = []
    for k in ("calls", "to_apply", "body", "condition", "select", "scatter", "true_computation",
              "false_computation"):
        if k in a:
            out += [x.strip().lstrip("%") for x in a[k].strip("{}").split(",") if x.strip()]
    for k in ("branch_computations", "called_computations"):
        if k in a:
            out += [x.strip().lstrip("%") for x in a[k].strip("{}").split(",") if x.strip()]
    if node["opcode"] == "while":  # body first, then condition
        out = [a["body"].lstrip("%"), a["condition"].lstrip("%")]
    return out


# ---- the model --------------------------------------------------------------

def product_of_dims(text, shape):
    m = re.search(r"[\[{]([^\]}]*)[\]}]", text or "")
    if not m or shape is None or not is_array(shape):
        return None
    idx = [int(x) for x in re.findall(r"\d+", m.group(1))]
    if not idx or any(i >= len(shape[1]) for i in idx):
        return None
    return math.prod(shape[1][i] for i in idx)


def guess_contracted(l, r, o):
    el, er, eo = elems(l), elems(r), elems(o)
    if min(el, er, eo) <= 0:
        return 0
    bt, lim = 1, min(len(l[1]), len(r[1]), len(o[1]))
    for i in range(lim - 2):
        if not l[1][i] == r[1][i] == o[1][i]:
            break
        bt *= l[1][i]
    return math.sqrt(el * er / (eo * bt))


def kernel_output_dim(node):
    """The filter's output feature dimension, from dim_labels (..._01io->...)."""
    lab = node["attrs"].get("dim_labels")
    if not lab:
        return None
    kernel = lab.split("_")[1].split("->")[0]
    return kernel.index("o")


class Model:
    def __init__(self, comps):
        self.comps = comps
        self.nodes = [n for c in comps for n in c["nodes"]]
        for c_i, c in enumerate(comps):
            for n in c["nodes"]:
                n["comp"] = c_i
        self.by_comp_name = {c["name"]: i for i, c in enumerate(comps)}
        self.index = {}
        for i, n in enumerate(self.nodes):
            n["id"] = i
            self.index[(n["comp"], n["name"])] = i
        for n in self.nodes:
            n["ops"] = [self.index[(n["comp"], o)] for o in n["operands"]]
            n["calls"] = [self.by_comp_name[c] for c in callees(n) if c in self.by_comp_name]
        self.users = [[] for _ in self.nodes]
        for n in self.nodes:
            for o in dict.fromkeys(n["ops"]):
                self.users[o].append(n["id"])
        self.callers = [[] for _ in comps]
        self.role = ["executed"] * len(comps)
        for n in self.nodes:
            for c in n["calls"]:
                self.callers[c].append(n["id"])
                if n["opcode"] == "fusion":
                    self.role[c] = "fusion"
                elif n["opcode"] in REDUCER_CALLERS:
                    self.role[c] = "reducer"
        for i, c in enumerate(comps):
            c["root"] = next((n["id"] for n in c["nodes"] if n["root"]), c["nodes"][-1]["id"])

    def shape(self, i):
        return self.nodes[i]["shape"]

    def op_shape(self, n, k):
        return self.shape(n["ops"][k]) if k < len(n["ops"]) else None

    def stand_in(self, op):
        if op in LEARNED:
            return op
        if op == "erf":
            return "tanh"
        if op == "topk":
            return "sort"
        if op in ("collective-broadcast", "ragged-all-to-all"):
            return "all-to-all"
        if op.endswith("-done") or op.endswith("-update"):
            return "all-reduce-done"
        if op.endswith("-start") and op[:-6] in LEARNED:
            return op[:-6]
        return None

    def plain_flops(self, n, op):
        out, in0 = n["shape"], self.op_shape(n, 0)
        eo, e0 = elems(out), elems(in0)
        win = math.prod(int(x) for x in re.findall(r"size=([\dx]+)", n["attrs"].get("window", ""))[0]
                        .split("x")) if "size=" in n["attrs"].get("window", "") else 1
        if op == "convolution":
            w, k = self.op_shape(n, 1), kernel_output_dim(n)
            return 2 * eo * elems(w) / w[1][k] if k is not None and w[1][k] else 2 * eo * win
        if op == "dot":
            k = product_of_dims(n["attrs"].get("lhs_contracting_dims"), in0)
            return 2 * eo * (k if k is not None else guess_contracted(in0, self.op_shape(n, 1), out))
        if op in ("reduce", "all-reduce", "all-reduce-start", "reduce-scatter"):
            return e0
        if op == "reduce-window":
            return eo * win
        if op == "select-and-scatter":
            return e0 * win
        if op.startswith("batch-norm-"):
            return 5 * e0
        if op == "fft":
            return 5 * eo * math.log2(eo) if eo > 1 else 0
        return eo if op in ELEMENTWISE else 0

    def custom_call(self, n):
        """(kind, flops, given bytes or None); kind None when unknown."""
        target = n["attrs"].get("custom_call_target", "").strip('"')
        res = n["shape"][1][0] if n["shape"][0] == "tuple" and n["shape"][1] else n["shape"]
        op0, op1 = self.op_shape(n, 0), self.op_shape(n, 1)
        cfg = n["attrs"].get("backend_config", "")
        if target in FREE_TARGETS:
            return "free", 0, None
        if target in GEMM:
            m = re.search(r'lhs_contracting_dimensions\\?"\s*:\s*(\[[^\]]*\])', cfg)
            k = product_of_dims(m.group(1), op0) if m else None
            if k is None:
                k = guess_contracted(op0, op1, res)
            return "matrix", 2 * elems(res) * k, None
        if target in CONV:
            y, w = {"fwd": (res, op1), "bwd_input": (op0, op1), "bwd_filter": (op1, res)}[CONV[target]]
            k = kernel_output_dim(n)
            if k is None:
                return None, 0, None
            return "matrix", (2 * elems(y) * elems(w) / w[1][k]) if w[1][k] else 0, None
        if target == "tpu_custom_call":
            m = re.search(r'cost_estimate\\?"\s*:\s*\{([^}]*)\}', cfg)
            if m:
                f = re.search(r'flops\\?"\s*:\s*\\?"?([0-9.eE+]+)', m.group(1))
                b = re.search(r'bytes_accessed\\?"\s*:\s*\\?"?([0-9.eE+]+)', m.group(1))
                if f and b:
                    return "plain", float(f.group(1)), float(b.group(1))
        return None, 0, None

    def read(self, n, k, in_place):
        full = nbytes(self.op_shape(n, k))
        if k == 0 and n["opcode"] in ("slice", "dynamic-slice", "gather"):
            return min(full, nbytes(n["shape"]))
        if k == 0 and in_place and self.in_place_op(n):
            return 0
        return full

    def in_place_op(self, n):
        return n["opcode"] == "dynamic-update-slice" or (n["opcode"] == "scatter" and len(n["ops"]) == 3)

    def write(self, n, in_place):
        if in_place and self.in_place_op(n):
            return nbytes(self.op_shape(n, 2 if n["opcode"] == "scatter" else 1))
        return nbytes(n["shape"])

    def unit_reshape(self, n):
        a, b = n["shape"], self.op_shape(n, 0)
        if not (is_array(a) and b is not None and is_array(b)):
            return False
        return [d for d in a[1] if d != 1] == [d for d in b[1] if d != 1]

    def own(self, n, sums):
        """Node n as a kernel of its own: a dict of the estimate's fields."""
        e = dict(flops=0.0, bytes=0.0, compute=0.0, memory=0.0, padding=0.0, overhead=0.0,
                 seconds=0.0, unknown=0)
        op = n["opcode"]
        if op == "fusion":
            s = [sums[c] for c in n["calls"]]
            if any(x["unknown"] for x in s):
                e["unknown"] = 1
                return e
            e["flops"] = sum(x["flops"] for x in s)
            e["compute"] = sum(x["compute"] for x in s)
            e["bytes"] = sum(x["hbm"] for x in s)
            e["padding"] = sum(x["pad"] for x in s if x["tiled"]) / BW
            e["memory"] = e["bytes"] / BW
            e["overhead"] = OP_SECONDS
            e["seconds"] = max(e["compute"], e["memory"] + e["padding"]) + e["overhead"]
            return e
        base = self.stand_in(op)
        if base is None:
            e["unknown"] = 1
            return e
        matrix = base in ("convolution", "dot")
        given = None
        if op == "custom-call":
            kind, e["flops"], given = self.custom_call(n)
            if kind is None:
                e["unknown"] = 1
                e["flops"] = 0
            if kind in (None, "free"):
                return e
            matrix = kind == "matrix"
        else:
            e["flops"] = self.plain_flops(n, base)
        free = base in MOVES_NOTHING or op.endswith("-done") or op in ("async-start", "async-update") or \
            (op == "reshape" and self.unit_reshape(n))
        tiled = base in ("convolution", "dot", "copy", "transpose") or base in REDUCTION
        kernel = (base in MATRIX_CATEGORY or base in REDUCTION or base in COLLECTIVE or
                  base in ("copy", "transpose", "sort", "gather", "custom-call")) and not free
        if not free:
            pad = self.write(n, True) * (pad_factor(n["shape"]) - 1)
            total = self.write(n, True)
            seen = set()
            for k, o in enumerate(n["ops"]):
                if o in seen:
                    continue
                seen.add(o)
                b = self.read(n, k, True)
                total += b
                if not matrix:
                    pad += b * (pad_factor(self.shape(o)) - 1)
            e["bytes"] = given if given is not None else total
            e["padding"] = pad / BW if tiled else 0
        res = n["shape"][1][0] if n["shape"][0] == "tuple" and n["shape"][1] else n["shape"]
        e["compute"] = e["flops"] * (pad_factor(res) if matrix else 1) / PEAK
        e["memory"] = e["bytes"] / BW
        e["overhead"] = OP_SECONDS if kernel else 0
        e["seconds"] = max(e["compute"], e["memory"] + e["padding"]) + e["overhead"]
        return e

    def traffic(self, c):
        """Bytes each node of fusion body c moves in memory."""
        comp = self.comps[c]
        root = self.nodes[comp["root"]]
        out_set = {root["id"]} | (set(root["ops"]) if root["opcode"] == "tuple" else set())
        h = {}
        for n in comp["nodes"]:
            if n["opcode"] != "parameter":
                h[n["id"]] = 0.0
                continue
            full, total = nbytes(n["shape"]), 0.0
            for u in self.users[n["id"]]:
                un = self.nodes[u]
                for k, o in enumerate(un["ops"]):
                    if o == n["id"]:
                        total += self.read(un, k, u in out_set)
            h[n["id"]] = min(full, total)
        if root["opcode"] == "tuple":
            h[root["id"]] += sum(self.write(self.nodes[o], True) for o in root["ops"])
        else:
            h[root["id"]] += self.write(root, True)
        return h

    def order(self):
        """Computations, callees first."""
        seen, out = set(), []

        def visit(c):
            if c in seen:
                return
            seen.add(c)
            for n in self.comps[c]["nodes"]:
                for k in n["calls"]:
                    visit(k)
            out.append(c)
        for c in range(len(self.comps)):
            visit(c)
        return out

    def run(self):
        own, hbm, sums = {}, {}, {}
        for c in self.order():
            comp = self.comps[c]
            for n in comp["nodes"]:
                own[n["id"]] = self.own(n, sums)
            h = self.traffic(c) if self.role[c] == "fusion" else {n["id"]: 0.0 for n in comp["nodes"]}
            hbm.update(h)
            tiled = False
            for n in comp["nodes"]:
                base = self.stand_in(n["opcode"])
                tiled |= base in ("convolution", "dot", "copy", "transpose") or base in REDUCTION
                if n["opcode"] == "fusion":
                    tiled |= any(sums[k]["tiled"] for k in n["calls"])
            sums[c] = dict(flops=sum(own[n["id"]]["flops"] for n in comp["nodes"]),
                           compute=sum(own[n["id"]]["compute"] for n in comp["nodes"]),
                           hbm=sum(h.values()),
                           pad=sum(h[n["id"]] * (pad_factor(n["shape"]) - 1) for n in comp["nodes"]),
                           unknown=sum(own[n["id"]]["unknown"] for n in comp["nodes"]), tiled=tiled)
        est = {}
        for c in reversed(self.order()):  # callers first
            comp = self.comps[c]
            if self.role[c] == "executed":
                for n in comp["nodes"]:
                    est[n["id"]] = dict(own[n["id"]])
                continue
            for n in comp["nodes"]:
                est[n["id"]] = dict(flops=0.0, bytes=0.0, compute=0.0, memory=0.0, padding=0.0,
                                    overhead=0.0, seconds=0.0, unknown=0)
            for caller in self.callers[c]:
                inner = sum(1 for k in self.nodes[caller]["calls"] if self.role[k] != "executed")
                self.share(est[caller], 1.0 / max(inner, 1), c, own, hbm, est)
        self.est, self.own_est, self.sums = est, own, sums
        return est

    def share(self, s, frac, c, own, hbm, est):
        comp = self.comps[c]
        ids = [n["id"] for n in comp["nodes"]]
        h = {i: hbm[i] if self.role[c] == "fusion" else 0.0 for i in ids}
        tf = sum(own[i]["flops"] for i in ids)
        tc = sum(own[i]["compute"] for i in ids)
        tb = sum(h.values())

        def weight(i, order):
            for vals, tot in order:
                if tot > 0:
                    return vals[i] / tot
            return 1.0 if i == comp["root"] else 0.0
        f = {i: own[i]["flops"] for i in ids}
        cc = {i: own[i]["compute"] for i in ids}
        by_compute = s["compute"] >= s["memory"] + s["padding"]
        run = s["seconds"] - s["overhead"]
        for i in ids:
            e = est[i]
            if s["unknown"]:
                e["unknown"] = 1
                continue
            wf = weight(i, [(f, tf), (cc, tc), (h, tb)])
            wc = weight(i, [(cc, tc), (f, tf), (h, tb)])
            wb = weight(i, [(h, tb), (cc, tc), (f, tf)])
            root = i == comp["root"]
            e["flops"] += frac * s["flops"] * wf
            e["compute"] += frac * s["compute"] * wc
            e["bytes"] += frac * s["bytes"] * wb
            e["memory"] += frac * s["memory"] * wb
            e["padding"] += frac * s["padding"] * wb
            e["overhead"] += frac * s["overhead"] if root else 0
            e["seconds"] += frac * (run * (wc if by_compute else wb) + (s["overhead"] if root else 0))


# ---- the comparison ------------------------------------------------------------

def close(a, b, rel=1e-6, abs_tol=1e-15):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def hloscope(*args):
    return subprocess.run([HLOSCOPE, *args], capture_output=True, text=True, check=False)


def check(path):
    base = os.path.basename(path)
    fails = []
    try:
        model = Model(read_module(path))
        est = model.run()
    except Exception as ex:  # a reading this script cannot do is a failure of the test
        import traceback
        print("FAIL cost %s: the independent reading failed: %r %s" % (base, ex, traceback.format_exc(limit=-2).replace("\n", "|")))
        return
    r = hloscope("query", path, "--csv", "nodes show id, name, flops, bytes, cost, kernel_share")
    if r.returncode != 0:
        print("FAIL cost %s: query exit %d: %s" % (base, r.returncode, r.stderr[:200]))
        return
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    # --csv writes times as ns, the unit in the column's name: back to seconds
    for row in rows:
        for k in ("cost", "kernel_share"):
            v = row.pop(k + "_ns")
            row[k] = repr(float(v) / 1e9) if v not in ("", "unknown", "null") else v
    if len(rows) != len(model.nodes):
        fails.append("%d rows for %d instructions" % (len(rows), len(model.nodes)))
    for row in rows:
        i = int(row["id"])
        n, e = model.nodes[i], est[i]
        if row["name"] != n["name"]:
            fails.append("node %d is %s, the text has %s" % (i, row["name"], n["name"]))
            break
        got_unknown = row["cost"] in ("", "unknown", "null")
        if got_unknown != bool(e["unknown"]):
            fails.append("%s: unknown %s, expected %s" % (n["name"], got_unknown, bool(e["unknown"])))
            continue
        if got_unknown:
            continue
        # cost, flops and bytes: what the instruction adds to the module's
        # totals; a fusion body's or reducer's node has its share of the
        # kernel's time as kernel_share instead
        own = model.role[n["comp"]] == "executed"
        for key in ("flops", "bytes", "cost", "kernel_share"):
            if key == "kernel_share":
                want = None if own else e["seconds"]
            else:
                want = (e["seconds"] if key == "cost" else e[key]) if own else 0.0
            if want is None:
                if row[key] not in ("", "null"):
                    fails.append("%s kernel_share: %r for an instruction that runs on its own" % (n["name"], row[key]))
                continue
            got = float(row[key])
            if not close(got, want, rel=1e-5, abs_tol=1e-12 if key == "cost" else 1e-6):
                fails.append("%s %s: hloscope %r, expected %r" % (n["name"], key, got, want))
    # a fusion's body shares add up to the fusion (bodies with one caller)
    for c, comp in enumerate(model.comps):
        if model.role[c] != "fusion" or len(model.callers[c]) != 1:
            continue
        f = model.callers[c][0]
        if est[f]["unknown"]:
            continue
        total = 0.0
        for row in rows:
            if model.nodes[int(row["id"])]["comp"] == c:
                total += float(row["kernel_share"]) if row["kernel_share"] not in ("", "unknown", "null") else 0.0
        frow = rows[f]
        if frow["cost"] not in ("", "unknown", "null") and not close(total, float(frow["cost"]), rel=1e-6, abs_tol=1e-12):
            fails.append("body %s: kernel_share of its nodes sum to %r, %s costs %r" %
                         (comp["name"], total, model.nodes[f]["name"], float(frow["cost"])))
    # the module's total: executed computations only
    info = hloscope("info", "--json", path)
    try:
        a = json.loads(info.stdout)["analytic"]
        ex = [est[n["id"]] for c, comp in enumerate(model.comps) if model.role[c] == "executed"
              for n in comp["nodes"]]
        want_ns = sum(x["seconds"] for x in ex) * 1e9
        if not close(a["total_ns"], want_ns, rel=1e-6, abs_tol=1e-6):
            fails.append("analytic.total_ns %r, expected %r" % (a["total_ns"], want_ns))
        # stats cost is info's total: every node's cost adds to it once
        summed = {k: sum(float(r[k]) for r in rows if r[k] not in ("", "unknown", "null")) for k in ("cost", "flops", "bytes")}
        if not close(summed["cost"] * 1e9, a["total_ns"], rel=1e-6, abs_tol=1e-6):
            fails.append("the nodes' cost sums to %r ns, info says %r" % (summed["cost"] * 1e9, a["total_ns"]))
        for k in ("flops", "bytes"):
            if not close(summed[k], a[k], rel=1e-6, abs_tol=1e-6):
                fails.append("the nodes' %s sum to %r, info says %r" % (k, summed[k], a[k]))
        if not close(a["flops"], sum(x["flops"] for x in ex), rel=1e-9, abs_tol=1e-6):
            fails.append("analytic.flops %r" % a["flops"])
        if not close(a["bytes"], sum(x["bytes"] for x in ex), rel=1e-9, abs_tol=1e-6):
            fails.append("analytic.bytes %r" % a["bytes"])
        if a["unknown_instructions"] != sum(x["unknown"] for x in ex):
            fails.append("analytic.unknown_instructions %r" % a["unknown_instructions"])
    except (ValueError, KeyError, TypeError) as ex:
        fails.append("info --json: %r" % ex)
    if fails:
        print("FAIL cost %s: %d difference(s): %s" % (base, len(fails), "; ".join(fails[:6])))
    else:
        print("PASS cost %s: %d nodes, %d fusion bodies, total %.6g ns" %
              (base, len(rows), sum(1 for r in model.role if r == "fusion"),
               sum(est[n["id"]]["seconds"] for c, comp in enumerate(model.comps)
                   if model.role[c] == "executed" for n in comp["nodes"]) * 1e9))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        check(p)
