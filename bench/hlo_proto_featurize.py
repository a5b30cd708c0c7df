#!/usr/bin/python3
"""A plain python + numpy featurizer of TpuGraphs raw protobufs, the
reference side of bench/hlo.sh (python's protobuf module is not installed:
the wire format is decoded here by hand).

    hlo_proto_featurize.py IN.pb OUT.npz     featurize a ModuleTuningData or
                                             a bare HloModuleProto, write the
                                             dataset's arrays (layout form)
    hlo_proto_featurize.py --make OUT.pb N   write a synthetic ModuleTuningData
                                             of about N instructions, and its
                                             bare HloModuleProto as OUT.module.pb

Rules: ../shared/docs/tpugraphs-featurization.md (node order, edges,
node_splits, the 140 features, layout configs).
"""
import sys

import numpy as np

# ---- wire format ------------------------------------------------------------


def fields(b):
    """(number, wire type, value) of every field of one message."""
    i, n, out = 0, len(b), []
    while i < n:
        t = s = 0
        while True:
            c = b[i]
            i += 1
            t |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                break
        f, w = t >> 3, t & 7
        if w == 0:
            v = s = 0
            while True:
                c = b[i]
                i += 1
                v |= (c & 0x7F) << s
                s += 7
                if c < 0x80:
                    break
        elif w == 2:
            ln = s = 0
            while True:
                c = b[i]
                i += 1
                ln |= (c & 0x7F) << s
                s += 7
                if c < 0x80:
                    break
            v = b[i:i + ln]
            i += ln
        elif w == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif w == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    return out


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def ints(w, v):
    """A repeated int64 field occurrence, packed or not."""
    if w == 0:
        return [s64(v)]
    out, i, n = [], 0, len(v)
    while i < n:
        x = s = 0
        while True:
            c = v[i]
            i += 1
            x |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                break
        out.append(s64(x))
    return out


# ---- messages -----------------------------------------------------------------


def shape(b):
    sh = {"type": 0, "dims": [], "tuple": 0, "m2m": []}
    for f, w, v in fields(b):
        if f == 2:
            sh["type"] = v
        elif f == 3:
            sh["dims"] += ints(w, v)
        elif f == 4:
            sh["tuple"] += 1
        elif f == 5:
            for g, gw, gv in fields(v):
                if g == 1:
                    sh["m2m"] += ints(gw, gv)
    return sh


def sub_ints(b, names):
    d = {k: 0 for k in names.values()}
    for f, w, v in fields(b):
        if f in names:
            d[names[f]] = s64(v) if w == 0 else 0
    return d


def instruction(b):
    ins = {"name": "", "opcode": "", "id": 0, "shape": shape(b""), "param": 0, "dims": [],
           "window": [], "conv": None, "fgc": 0, "bgc": 0, "slices": [], "dss": [], "pad": [],
           "stable": 0, "ops": [], "called": []}
    for f, w, v in fields(b):
        if f == 1:
            ins["name"] = v.decode()
        elif f == 2:
            ins["opcode"] = v.decode()
        elif f == 3:
            ins["shape"] = shape(v)
        elif f == 9:
            ins["param"] = s64(v)
        elif f == 14:
            ins["dims"] += ints(w, v)
        elif f == 15:
            ins["window"] += [sub_ints(d, {1: "size", 2: "stride", 3: "pl", 4: "ph", 5: "wd", 6: "bd", 7: "rev"})
                              for g, gw, d in fields(v) if g == 1]
        elif f == 16:
            c = {"ib": 0, "if": 0, "kif": 0, "kof": 0, "ob": 0, "of": 0, "is": [], "ks": []}
            for g, gw, gv in fields(v):
                key = {3: "kif", 4: "kof", 7: "ib", 8: "if", 9: "ob", 10: "of"}.get(g)
                if key:
                    c[key] = s64(gv)
                elif g == 11:
                    c["is"] += ints(gw, gv)
                elif g == 6:
                    c["ks"] += ints(gw, gv)
            ins["conv"] = c
        elif f == 17:
            ins["slices"].append(sub_ints(v, {1: "start", 2: "limit", 3: "stride"}))
        elif f == 20:
            ins["dss"] += ints(w, v)
        elif f == 21:
            ins["pad"] += [sub_ints(d, {1: "lo", 2: "hi", 3: "in"}) for g, gw, d in fields(v) if g == 1]
        elif f == 35:
            ins["id"] = s64(v)
        elif f == 36:
            ins["ops"] += ints(w, v)
        elif f == 38:
            ins["called"] += ints(w, v)
        elif f == 50:
            ins["fgc"] = s64(v)
        elif f == 58:
            ins["bgc"] = s64(v)
        elif f == 60:
            ins["stable"] = v
    return ins


def computation(b):
    c = {"name": "", "id": 0, "root": 0, "instrs": []}
    for f, w, v in fields(b):
        if f == 1:
            c["name"] = v.decode()
        elif f == 2:
            c["instrs"].append(instruction(v))
        elif f == 5:
            c["id"] = s64(v)
        elif f == 6:
            c["root"] = s64(v)
    return c


def read(path):
    data = open(path, "rb").read()
    top = fields(data)
    first = top[0][2] if top and top[0][0] == 1 and top[0][1] == 2 else b""
    try:
        first.decode("ascii")
        is_module = all(32 <= c < 127 for c in first)
    except UnicodeDecodeError:
        is_module = False
    if is_module:
        return [computation(v) for f, w, v in top if f == 3], [], []
    comps, runs, ids = [], [], []
    for f, w, v in top:
        if f == 1:
            comps += [computation(cv) for g, gw, cv in fields(v) if g == 3]
        elif f == 3:
            runs.append(v)
        elif f == 4:
            ids += ints(w, v)
    return comps, runs, ids


# ---- features -----------------------------------------------------------------

ONEHOT = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 15, 18, 13, 14, 17]


def seq(v, k):
    s, p = 0, 1
    for x in v:
        s += x
        p *= x
    head = list(v[:k]) + [0] * (k - len(v[:k]))
    return head + [s, p]


def first(v, k):
    return list(v[:k]) + [0] * (k - len(v[:k]))


def features(ins, root_id):
    sh = ins["shape"]
    f = [1 if ins["id"] == root_id else 0, 0]
    f += [1 if sh["type"] == t else 0 for t in ONEHOT]
    f += seq(sh["dims"], 6) + [sh["tuple"], ins["param"]] + first(ins["dims"], 6)
    win = ins["window"]
    for key in ["size", "stride", "pl", "ph", "wd", "bd"]:
        f += seq([d[key] for d in win], 6)
    rev = [1 if d["rev"] else 0 for d in win]
    f += first(rev, 6) + [sum(rev), len(rev) - sum(rev)]
    c = ins["conv"] or {"ib": 0, "if": 0, "kif": 0, "kof": 0, "ob": 0, "of": 0, "is": [], "ks": []}
    f += [c["ib"], c["if"]] + first(c["is"], 4) + [c["kif"], c["kof"]] + first(c["ks"], 4) + [c["ob"], c["of"]]
    f += [ins["fgc"], ins["bgc"]]
    for key in ["start", "stride", "limit"]:
        f += seq([s[key] for s in ins["slices"]], 2)
    f += seq(ins["dss"], 2)
    f += seq([p["lo"] for p in ins["pad"]], 2) + seq([p["hi"] for p in ins["pad"]], 2)
    f += [1 if ins["stable"] else 0] + first(sh["m2m"], 6)
    return f


def layout_row(run, k):
    row = np.full((k, 18), -1, np.float32)
    for f, w, v in fields(run):
        if f != 2:
            continue
        for g, gw, lc in fields(v):
            if g != 1:
                continue
            nodes = [nv for h, hw, nv in fields(lc) if h == 1]
            for n, node in enumerate(nodes[:k]):
                tensors = [tv for h, hw, tv in fields(node) if h == 1]
                for t, tensor in enumerate(tensors[:3]):
                    dims = []
                    for h, hw, dv in fields(tensor):
                        if h == 1:
                            dims += ints(hw, dv)
                    for d, x in enumerate(dims[:6]):
                        row[n, t * 6 + d] = x
    return row


def run_kept(run):
    has_cfg = has_prof = err = False
    time = 0
    for f, w, v in fields(run):
        if f == 2:
            has_cfg = any(g == 1 for g, gw, gv in fields(v))
        elif f == 3:
            err = v != 0
        elif f == 4:
            has_prof = True
            time = next((s64(pv) for p, pw, pv in fields(v) if p == 4), 0)
    return has_cfg and not err and has_prof, time


def featurize(path, out, opcode_ids):
    comps, runs, ids = read(path)
    pos, roots, feat, ops = {}, {}, [], []
    for c in comps:
        roots[c["id"]] = c["root"]
        for ins in c["instrs"]:
            pos[ins["id"]] = len(pos)
    splits, count, edges = [0], 0, []
    for c in comps:
        for ins in c["instrs"]:
            u = pos[ins["id"]]
            ops.append(opcode_ids.get(ins["opcode"], 0))
            feat.append(features(ins, c["root"]))
            vs = sorted(set(pos[o] for o in ins["ops"]) | set(pos[roots[k]] for k in ins["called"]))
            edges += [(u, v) for v in vs]
        count += len(c["instrs"])
        if "cluster" in c["name"] or "while" in c["name"] or "cond" in c["name"]:
            splits.append(count)
    if splits[-1] < count:
        splits.append(count)
    k = len(ids)
    rows, times = [], []
    for r in runs:
        kept, t = run_kept(r)
        if kept:
            rows.append(layout_row(r, k))
            times.append(t)
    ncf = np.stack(rows) if rows else np.zeros((0, k, 18), np.float32)
    np.savez_compressed(out, node_feat=np.array(feat, dtype=np.float32),
                        node_opcode=np.array(ops, dtype=np.uint8),
                        edge_index=np.array(edges, dtype=np.int64).reshape(-1, 2),
                        node_config_feat=ncf, node_config_ids=np.array(ids, dtype=np.int64),
                        config_runtime=np.array(times, dtype=np.int64),
                        node_splits=np.array(splits, dtype=np.int64).reshape(1, -1))


# ---- a synthetic ModuleTuningData ----------------------------------------------


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | 0x80 if v else b)
        if not v:
            return bytes(out)


def fv(n, v):
    return varint(n << 3) + varint(v)


def fb(n, b):
    return varint((n << 3) | 2) + varint(len(b)) + b


def pk(n, vals):
    return fb(n, b"".join(varint(v) for v in vals))


def make(out, n_target):
    """Fused computations, a reducer and an entry of convolutions, fusions,
    reduces, slices and pads: about n_target instructions."""
    next_id = [1]

    def nid():
        next_id[0] += 1
        return next_id[0]

    def shp(dims, t=11):
        lay = fb(5, pk(1, list(range(len(dims)))[::-1]) + fb(6, pk(1, [8, 128])))
        return fb(3, fv(2, t) + pk(3, dims) + lay)

    def meta(i):
        return fb(7, fb(1, b"Conv2D") + fb(2, b"model/block_%d/conv/Conv2D" % i) +
                  fb(3, b"model.py") + fv(4, 100 + i))

    def ins(name, op, iid, dims, ops=(), called=(), extra=b""):
        b = fb(1, name.encode()) + fb(2, op.encode()) + shp(dims) + fv(35, iid) + extra
        if ops:
            b += pk(36, ops)
        if called:
            b += pk(38, called)
        return b

    comps = []
    # reducer
    a, b_, r = nid(), nid(), nid()
    red = [ins("x", "parameter", a, [], extra=fv(9, 0)), ins("y", "parameter", b_, [], extra=fv(9, 1)),
           ins("add.r", "add", r, [], [a, b_])]
    red_id = nid()
    comps.append(fb(1, b"add_reducer") + b"".join(fb(2, x) for x in red) + fv(5, red_id) + fv(6, r))
    fused = []
    n_fused = max(1, n_target // 75)
    for k in range(n_fused):
        body, prev = [], []
        for p in range(3):
            i = nid()
            body.append(ins("p%d.%d" % (p, k), "parameter", i, [128, 256], extra=fv(9, p)))
            prev.append(i)
        for j in range(12):
            i = nid()
            op = ["multiply", "add", "subtract", "exponential"][j % 4]
            body.append(ins("%s.f%d.%d" % (op, k, j), op, i, [128, 256], [prev[-1], prev[-2]]))
            prev.append(i)
        cid = nid()
        comps.append(fb(1, b"fused_computation.%d" % k) + b"".join(fb(2, x) for x in body) +
                     fv(5, cid) + fv(6, prev[-1]))
        fused.append(cid)
    entry, live = [], []
    for p in range(8):
        i = nid()
        entry.append(ins("arg%d" % p, "parameter", i, [8, 56, 56, 64], extra=fv(9, p) + meta(p)))
        live.append(i)
    k = 0
    while len(entry) + 15 * n_fused + 3 < n_target:
        k += 1
        i = nid()
        win = fb(15, b"".join(fb(1, fv(1, 3) + fv(2, 1) + fv(3, 1) + fv(4, 1) + fv(5, 1) + fv(6, 1))
                              for _ in range(2)))
        conv = fb(16, fv(3, 2) + fv(4, 3) + pk(6, [0, 1]) + fv(7, 0) + fv(8, 3) + fv(9, 0) + fv(10, 3) +
                  pk(11, [1, 2]) + pk(12, [1, 2]))
        entry.append(ins("convolution.%d" % k, "convolution", i, [8, 56, 56, 64], [live[-1], live[-2]],
                         extra=win + conv + fv(50, 1) + fv(58, 1) + meta(k)))
        live.append(i)
        i = nid()
        entry.append(ins("fusion.%d" % k, "fusion", i, [8, 56, 56, 64], [live[-1], live[-3], live[-4]],
                         [fused[k % n_fused]], fb(11, b"kLoop") + meta(k)))
        live.append(i)
        i = nid()
        entry.append(ins("reduce.%d" % k, "reduce", i, [8, 64], [live[-1], live[0]], [red_id],
                         pk(14, [1, 2])))
        live.append(i)
        i = nid()
        sl = b"".join(fb(17, fv(1, 0) + fv(2, 28) + fv(3, 1)) for _ in range(4))
        entry.append(ins("slice.%d" % k, "slice", i, [8, 28, 28, 64], [live[-2]], extra=sl))
        live.append(i)
        i = nid()
        pad = fb(21, b"".join(fb(1, fv(1, 0) + fv(2, 14) + fv(3, 0)) for _ in range(4)))
        entry.append(ins("pad.%d" % k, "pad", i, [8, 56, 56, 64], [live[-1], live[0]], extra=pad))
        live.append(i)
    root = live[-1]
    eid = nid()
    comps.append(fb(1, b"cluster_0__XlaCompiledKernel_true") + b"".join(fb(2, x) for x in entry) +
                 fv(5, eid) + fv(6, root))
    module = fb(1, b"synthetic_bench") + fb(2, b"cluster_0__XlaCompiledKernel_true") + \
        b"".join(fb(3, c) for c in comps) + fv(6, eid)
    # 300 layout runs over 60 configurable nodes
    n_nodes = 3 + 15 * n_fused + len(entry)
    ids = list(range(n_nodes - 1, 0, -(n_nodes // 60)))[:60][::-1]
    body = fb(1, module) + fv(2, 42)
    for r in range(300):
        nodes = b"".join(fb(1, b"".join(fb(1, pk(1, [(r + t + j) % 4 for j in range(4)])) for t in range(3)))
                         for _ in ids)
        run = fb(2, fb(1, nodes)) + fb(4, fv(4, 10**6 + r)) + (fv(5, 1) if r == 0 else b"")
        body += fb(3, run)
    body += pk(4, ids)
    open(out, "wb").write(body)
    open(out[:-3] + ".module.pb", "wb").write(module)
    return n_nodes


OPCODES = ["unknown", "abs", "add", "add-dependency", "after-all", "all-reduce", "all-to-all", "atan2",
           "batch-norm-grad", "batch-norm-inference", "batch-norm-training", "bitcast", "bitcast-convert",
           "broadcast", "call", "ceil", "cholesky", "clamp", "collective-permute", "count-leading-zeros",
           "compare", "complex", "concatenate", "conditional", "constant", "convert", "convolution", "copy",
           "copy-done", "copy-start", "cosine", "custom-call", "divide", "domain", "dot", "dynamic-slice",
           "dynamic-update-slice", "exponential", "exponential-minus-one", "fft", "floor", "fusion",
           "gather", "get-dimension-size", "set-dimension-size", "get-tuple-element", "imag", "infeed",
           "iota", "is-finite", "log", "log-plus-one", "and", "not", "or", "xor", "map", "maximum",
           "minimum", "multiply", "negate", "outfeed", "pad", "parameter", "partition-id", "popcnt",
           "power", "real", "recv", "recv-done", "reduce", "reduce-precision", "reduce-window",
           "remainder", "replica-id", "reshape", "reverse", "rng", "rng-get-and-update-state",
           "rng-bit-generator", "round-nearest-afz", "rsqrt", "scatter", "select", "select-and-scatter",
           "send", "send-done", "shift-left", "shift-right-arithmetic", "shift-right-logical", "sign",
           "sine", "slice", "sort", "sqrt", "subtract", "tanh"]

if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--make":
        print(make(sys.argv[2], int(sys.argv[3])))
    elif len(sys.argv) == 3:
        # Ids 0..96 of the learned list in order (enough for the bench module).
        featurize(sys.argv[1], sys.argv[2], {name: i for i, name in enumerate(OPCODES)})
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
