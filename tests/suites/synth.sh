# synth: `hloscope synth DIR [--seed N]` (synth/, cli/cmd_synth.c).
# numpy loads every file and checks names, dtypes, shapes and graph
# invariants; the documented runtime formulas (re-implemented here from
# DIR/README) reproduce every labeled runtime to within the 3% noise;
# `hloscope check` accepts the tree; same seed, same bytes; another seed
# differs; replacing a previous output; refusing foreign folders; write
# failures leave nothing behind.
. tests/lib.sh
need numpy || exit 0

D="$T/demo"

# Runs synth expecting status $1; stdout/stderr in $T/out, $T/err.
synth_case() {
	want=$1 name=$2; shift 2
	"$HLOSCOPE" synth "$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		bad "$name" "exit $got, wanted $want; stderr: $(head -c 300 "$T/err")"
		return 1
	elif ! no_sanitizer_report "$T/err"; then
		bad "$name" "sanitizer report: $(head -c 300 "$T/err")"
		return 1
	elif [ "$want" -ne 0 ] && [ ! -s "$T/err" ]; then
		bad "$name" "failed without a message"
		return 1
	fi
	ok "$name"
}

# Nothing but the listed names in $T (no temporary folders left).
only_in_T() {
	name=$1; shift
	left=$(cd "$T" && for f in * .[!.]*; do
		[ -e "$f" ] || continue
		keep=0
		for k in "$@"; do [ "$f" = "$k" ] && keep=1; done
		[ $keep = 1 ] || echo "$f"
	done)
	if [ -z "$left" ]; then ok "$name"; else bad "$name" "left behind: $left"; fi
}

synth_case 0 "synth writes the demo tree" "$D" || exit 1
if grep -q "16 tile and 10 layout files" "$T/out"; then ok "synth summary line"; else
	bad "synth summary line" "$(cat "$T/out")"
fi
if [ -f "$D/.hloscope-synth" ] && grep -q '^SYNTHETIC DATA' "$D/README" &&
	grep -q 'LAYOUT RUNTIME' "$D/README" && grep -q 'TILE RUNTIME' "$D/README" &&
	grep -q 'npz/layout/xla\|layout/xla/default/train' "$D/README"; then
	ok "synth README and marker"
else
	bad "synth README and marker" "missing marker or README sections"
fi

# numpy: format, invariants, the formulas with the constants DIR/README gives.
"$PY" - "$D" <<'PYEOF'
import sys, os, glob, re, numpy as np
root = sys.argv[1]
# Every constant of the formulas comes from DIR/README: the data must follow
# what the README documents.
readme = open(os.path.join(root, 'README')).read()
N = r'([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)'
def doc(pattern, n=1):
    m = re.search(pattern.replace('#', N), readme, re.S)
    if not m:
        print(f"FAIL synth README documents the formulas: no match for {pattern!r}")
        sys.exit(1)
    return [float(x) for x in m.groups()] if n > 1 else float(m.group(1))
OVH, BW, MXU, FUSE = doc(r'OVH = # ns'), doc(r'BW = # bytes/ns'), doc(r'MXU = # flop/ns'), \
    doc(r'FUSE = #')
STEP, LAUNCH, VPU = doc(r'STEP = # ns'), doc(r'LAUNCH = # ns'), doc(r'VPU = # flop/ns')
VMEM, SIGMA, BITCAST = doc(r'VMEM = # MiB') * 2**20, doc(r'exp\(# z\)'), doc(r'bitcast \? # : 1')
CONV = doc(r'P_k convolution = 1 \+ #\[in\.m0.*?\+ #\[out\.m0.*?\+ #\[kernel\.m0.*?'
           r'\+ #\[kernel\.m1', 4)
DOT = doc(r'P_k dot.*?= 1 \+ #\[lhs\.m0.*?\+ #\[rhs\.m0.*?\+ #\[out\.m0.*?\+ #\[rhs\.m1', 4)
ESIZE = {3: 1, 6: 4, 13: 4, 15: 2}   # one-hot index -> bytes: pred, s32, f32, bf16
TILE_KEYS = ['node_feat', 'node_opcode', 'edge_index', 'config_feat', 'config_runtime',
             'config_runtime_normalizers']
LAYOUT_KEYS = ['node_feat', 'node_opcode', 'edge_index', 'node_config_feat', 'node_config_ids',
               'config_runtime', 'node_splits']
DT = {'node_feat': '<f4', 'config_feat': '<f4', 'node_config_feat': '<f4', 'node_opcode': '|u1'}
CONFIGURABLE = {26, 34, 75, 98, 27}   # convolution, dot, reshape, transpose, copy
nfail = 0

def result(name, errs):
    global nfail
    if errs:
        nfail += 1
        print(f"FAIL {name}: {'; '.join(errs[:3])}")
    else:
        print(f"PASS {name}")

def graph(d):
    nf, op, e = d['node_feat'], d['node_opcode'], d['edge_index']
    n = len(op)
    rank = (nf[:, 21:27] > 0).sum(1)
    dims = [tuple(int(x) for x in nf[i, 21:21 + rank[i]]) for i in range(n)]
    el = np.array([float(np.prod(x)) if x else 1.0 for x in dims])
    es = np.array([ESIZE.get(int(np.argmax(nf[i, 2:21])) + 2, 0) for i in range(n)])
    ops = [[] for _ in range(n)]
    for u, v in e:
        ops[u].append(int(v))
    return nf, op, n, rank, dims, el, el * es, es, ops

def operand_order(nf, op, x, dims, ops):
    """(input, kernel) of a convolution or (lhs, rhs) of a dot, from shapes."""
    a, b = ops[x]
    for l, r in ((a, b), (b, a)):
        L, R, O = dims[l], dims[r], dims[x]
        if op[x] == 26:
            f = nf[x]
            if (len(R) == 4 and len(L) == 4 and R[int(f[100])] == O[int(f[106])] and
                    R[int(f[99])] == L[int(f[94])] and R[int(f[101])] == f[37] and
                    R[int(f[102])] == f[38]):
                return l, r
        elif len(R) >= 2 and L[-1] == R[-2] and O == L[:-1] + (R[-1],):
            return l, r
    raise ValueError(f"node {x}: cannot tell the operands apart")

def residual(rt, pred):
    r = np.log(rt / pred)
    if abs(r.mean()) < SIGMA / 2 and SIGMA / 2 < r.std() < SIGMA * 1.5 and \
            abs(r).max() < SIGMA * 6.7:
        return []
    return [f"log(runtime / README formula): mean {r.mean():.4f} std {r.std():.4f} "
            f"max {abs(r).max():.3f}, wanted noise of sigma {SIGMA}"]

def tile_formula(d):
    nf, op, n, rank, dims, el, by, es, ops = graph(d)
    rootn = min(ops[n - 1])                 # the fusion node's fused root
    prev = [i for i in range(rootn) if nf[i, 0] == 1]
    body = range(prev[-1] + 1 if prev else 0, rootn + 1)
    out = rootn if op[rootn] != 100 else max(ops[rootn], key=lambda v: el[v])
    D, oe = dims[out], el[out]
    skip = {63, 24, 13, 75, 98, 100, 25, 26, 34}
    W = sum(max([el[x]] + [el[v] for v in ops[x]]) for x in body if op[x] not in skip) / oe
    B = (sum(by[x] for x in body if op[x] == 63) + by[out]) / oe
    con = [x for x in body if op[x] in (26, 34)]
    pred = []
    for row in d['config_feat']:
        t = row[8:8 + len(D)]
        steps = np.prod([np.ceil(a / b) for a, b in zip(D, t)])
        tile = np.prod(t)
        lane = np.ceil(t[-1] / 128) * 128 / t[-1]
        sub = np.ceil(t[-2] / 8) * 8 / t[-2] if len(D) >= 2 else 1
        ks, k, mxu, tf = 1, 0, 1, 0
        if con:
            x = con[0]
            l, r = operand_order(nf, op, x, dims, ops)
            if op[x] == 26:
                kout, ofeat = int(nf[x, 100]), int(nf[x, 106])
                K = nf[x, 44] * dims[l][int(nf[x, 94])]
            else:
                kout, ofeat, K = rank[r] - 1, rank[x] - 1, dims[r][-2]
            k = np.prod([row[i] for i in range(rank[r]) if i != kout])
            ks, mxu, tf = np.ceil(K / k), np.ceil(k / 128) * 128 / k, t[ofeat]
        comp = tile * W * lane * sub / VPU + ks * tile * 2 * k * mxu * lane / MXU
        mem = (tile * B + ks * k * tf * es[out]) / BW
        step = STEP * ks + max(comp, mem)
        ws = 2 * tile * B + k * tf * es[out]
        if ws > VMEM:
            step *= 1 + ws / VMEM
        pred.append(LAUNCH + steps * step)
    errs = []
    # output_bounds cover exactly the output's dims, within them
    ob = d['config_feat'][:, 8:14]
    if (ob[:, len(D):] != 0).any() or (ob[:, :len(D)] < 1).any() or \
            (ob[:, :len(D)] > np.array(D)).any():
        errs.append("output_bounds do not fit the output dims")
    return errs + residual(d['config_runtime'].astype(float), np.array(pred))

def layout_formula(d):
    nf, op, n, rank, dims, el, by, es, ops = graph(d)
    ids = [int(i) for i in d['node_config_ids']]
    kof = {v: k for k, v in enumerate(ids)}
    ncf, rt = d['node_config_feat'].astype(int), d['config_runtime'].astype(float)
    dflt = [(int(nf[i, 134]) if rank[i] > 0 else -1, int(nf[i, 135]) if rank[i] > 1 else -1)
            for i in range(n)]
    F = FUSE * sum(OVH + by[i] / BW for i in range(n)
                   if i not in kof and op[i] not in (63, 24, 100))
    users = {v: 0 for v in ids}
    for u in range(n):
        if u not in kof:
            for v in set(ops[u]):
                if v in kof:
                    users[v] += 1
    order = {x: operand_order(nf, op, x, dims, ops) if op[x] in (26, 34) else tuple(ops[x])
             for x in ids}
    pred = []
    for row in ncf:
        def actual(v):
            if v in kof and row[kof[v], 0] >= 0:
                return (row[kof[v], 0], row[kof[v], 1])
            return dflt[v]
        t = F
        for k, x in enumerate(ids):
            r, out, opnds, ins = row[k], actual(x), order[x], []
            for j, v in enumerate(opnds[:2]):
                e, have = r[6 + 6 * j: 8 + 6 * j], actual(v)
                if e[0] >= 0:
                    ins.append((e[0], e[1]))
                    if ins[-1] != have:
                        t += 2 * by[v] / BW
                else:
                    ins.append(have)
            io = by[x] + sum(by[v] for v in opnds)
            if op[x] == 26:
                f = nf[x]
                p = (1 + CONV[0] * (ins[0][0] != f[94]) + CONV[1] * (out[0] != f[106]) +
                     CONV[2] * (ins[1][0] != f[100]) + CONV[3] * (ins[1][1] != f[99]))
                fl = 2 * el[x] * f[44] * dims[opnds[0]][int(f[94])]
                t += (OVH + max(fl / MXU, io / BW)) * p
            elif op[x] == 34:
                rl, rr = rank[opnds[0]], rank[opnds[1]]
                p = (1 + DOT[0] * (ins[0][0] != rl - 1) + DOT[1] * (ins[1][0] != rr - 1) +
                     DOT[2] * (out[0] != rank[x] - 1) + DOT[3] * (ins[1][1] != rr - 2))
                t += (OVH + max(2 * el[x] * dims[opnds[0]][-1] / MXU, io / BW)) * p
            else:
                ri, ro = rank[opnds[0]], rank[x]
                if op[x] == 98:
                    perm = nf[x, 31:31 + ro].astype(int)
                    bc = perm[out[0]] == ins[0][0] and (ro < 2 or perm[out[1]] == ins[0][1])
                elif op[x] == 75:
                    bc = (ins[0] == (ri - 1, ri - 2 if ri > 1 else -1) and
                          out == (ro - 1, ro - 2 if ro > 1 else -1))
                else:
                    bc = ins[0] == out
                t += OVH + 2 * by[x] / BW * (BITCAST if bc else 1.0)
            if out != dflt[x]:
                t += users[x] * 2 * by[x] / BW
        pred.append(t)
    return residual(rt, np.array(pred))

files = sorted(glob.glob(os.path.join(root, 'npz', '**', '*.npz'), recursive=True))
kinds = {'tile': 0, 'layout': 0}
default_rank = {}
for f in files:
    rel = os.path.relpath(f, os.path.join(root, 'npz'))
    parts = rel.split(os.sep)
    kind, split = parts[0], parts[-2]
    kinds[kind] += 1
    errs = []
    d = np.load(f)
    keys = TILE_KEYS if kind == 'tile' else LAYOUT_KEYS
    if d.files != keys:
        result(f"synth numpy {rel}", [f"arrays {d.files}, wanted {keys}"])
        continue
    a = {k: d[k] for k in keys}
    for k, v in a.items():
        if v.dtype.str != DT.get(k, '<i8'):
            errs.append(f"{k} dtype {v.dtype.str}")
    nf, op, e = a['node_feat'], a['node_opcode'], a['edge_index']
    n = len(op)
    if nf.shape != (n, 140) or e.ndim != 2 or e.shape[1] != 2 or len(e) == 0:
        result(f"synth numpy {rel}", errs + [f"shapes {nf.shape} {e.shape}"])
        continue
    if not ((e[:, 1] >= 0) & (e[:, 1] < e[:, 0]) & (e[:, 0] < n)).all():
        errs.append("edge endpoints not 0 <= v < u < n (u consumes v, topological)")
    key = e[:, 0] * n + e[:, 1]
    if not (np.diff(key) > 0).all():
        errs.append("edges not sorted by (u, v) and unique")
    if not ((op >= 1) & (op <= 120)).all():
        errs.append("opcode outside 1..120")
    et = nf[:, 2:21]
    if not (((et == 0) | (et == 1)).all(1) & (et.sum(1) == 1)).all():
        errs.append("element type not one-hot")
    dm = nf[:, 21:27]
    rank = (dm > 0).sum(1)
    prod = np.prod(np.where(dm > 0, dm, 1), axis=1)
    if not np.allclose(dm.sum(1), nf[:, 27]) or not np.allclose(prod, nf[:, 28], rtol=1e-6):
        errs.append("shape_dimensions sum/product inconsistent")
    for i in range(n):
        if nf[i, 18] == 0 and rank[i] > 0 and \
                sorted(nf[i, 134:134 + rank[i]].astype(int)) != list(range(rank[i])):
            errs.append(f"node {i}: minor_to_major is not a permutation")
            break
    nowin = nf[:, 37] == 0
    if not (nf[nowin][:, [44, 52, 60, 68, 76, 84, 112, 116, 120, 124, 128, 132]] == 1).all():
        errs.append("empty-list products not 1 as in the real files")
    win = ~nowin
    if not np.allclose(nf[win, 43], nf[win, 37:43].sum(1)) or \
            not np.allclose(nf[win, 92], (nf[win, 37:43] > 0).sum(1)):
        errs.append("window sums or reversal counts inconsistent")
    conv = op == 26
    if conv.any() and not ((nf[conv, 107] == 1) & (nf[conv, 108] == 1)).all():
        errs.append("convolution group counts not 1")
    if (rank[op == 24] != 0).any():
        errs.append("non-scalar constant")
    if nf[n - 1, 0] != 1:
        errs.append("the last node is not a root")
    if np.isin(e[:, 0], np.nonzero(op == 63)[0]).any():
        errs.append("a parameter has operands")
    rt = a['config_runtime']
    labeled = split != 'test'
    if kind == 'tile':
        cf, nz = a['config_feat'], a['config_runtime_normalizers']
        c = len(cf)
        if cf.shape != (c, 24) or rt.shape != (c,) or nz.shape != (c,) or c < 5:
            errs.append("config shapes")
        if not 15 <= n <= 60:
            errs.append(f"{n} nodes in a fused kernel")
        if op[n - 1] != 41:
            errs.append("a tile graph does not end in its fusion")
        for lo in (0, 8, 16):
            blk = cf[:, lo:lo + 6]
            p = np.where((blk > 0).any(1), np.prod(np.where(blk > 0, blk, 1), axis=1), 0)
            if not np.allclose(blk.sum(1), cf[:, lo + 6]) or not np.allclose(p, cf[:, lo + 7]):
                errs.append(f"config_feat {lo}..{lo + 7}: sum/product inconsistent")
        if (cf[:, 16:24] != 0).any():
            errs.append("input_bounds not 0")
        if len(np.unique(cf, axis=0)) != c:
            errs.append("duplicate configs")
        if labeled:
            if not (rt > 0).all() or not (nz == rt[0]).all():
                errs.append("runtimes not positive or normalizers not config 0's runtime")
            else:
                result(f"synth formula {rel}", tile_formula(a))
        elif not ((rt == 0).all() and (nz == 1).all()):
            errs.append("test labels not hidden (runtimes 0, normalizers 1)")
    else:
        ncf, ids, sp = a['node_config_feat'], a['node_config_ids'], a['node_splits']
        c, nc = len(rt), len(ids)
        if ncf.shape != (c, nc, 18) or sp.ndim != 2 or sp.shape[0] != 1:
            result(f"synth numpy {rel}", errs + [f"config shapes {ncf.shape} {sp.shape}"])
            continue
        if not (20 <= nc <= 60 and 100 <= c <= 1000 and 200 <= n <= 5000):
            errs.append(f"sizes: {n} nodes, {nc} configurable, {c} configs")
        s = sp[0]
        if s[0] != 0 or s[-1] != n or not (np.diff(s) > 0).all() or len(s) < 3:
            errs.append(f"node_splits {s}")
        elif not (nf[s[1:] - 1, 0] == 1).all() or nf[:, 0].sum() != len(s) - 1:
            errs.append("computations do not each end in their one root")
        if not (np.diff(ids) > 0).all() or ids[0] < 0 or ids[-1] >= n:
            errs.append("node_config_ids not sorted, unique and in range")
        if not set(op[ids].tolist()) <= CONFIGURABLE:
            errs.append(f"configurable opcodes {sorted(set(op[ids].tolist()))}")
        if (ncf != np.round(ncf)).any() or ncf.min() < -1:
            errs.append("node_config_feat values not integers >= -1")
        ops_of = {}
        for u, v in e:
            ops_of.setdefault(int(u), []).append(int(v))
        for k, node in enumerate(ids):
            lim_in = max(rank[v] for v in ops_of[int(node)])
            for seg, lim in ((0, rank[node]), (6, lim_in), (12, lim_in)):
                x = np.unique(ncf[:, k, seg:seg + 6].astype(int), axis=0)
                set_ = x >= 0
                if (np.diff(set_.astype(int), axis=1) > 0).any() or (x >= lim).any() or \
                        any(len(set(r[r >= 0].tolist())) != int((r >= 0).sum()) for r in x):
                    errs.append(f"node {node}, features {seg}..{seg + 5}: not a layout "
                                f"of -1..{lim - 1} values")
                    break
        flat = ncf.reshape(c, -1)
        if len(np.unique(flat, axis=0)) != c:
            errs.append("duplicate configs")
        ndef = int((flat == -1).all(1).sum())
        search = parts[2]
        if ndef != (1 if search == 'default' else 0):
            errs.append(f"{ndef} all -1 configs in a {search}-search file")
        if labeled:
            if not (rt > 0).all():
                errs.append("runtimes not positive")
            else:
                result(f"synth formula {rel}", layout_formula(a))
                if ndef:
                    de = int(np.nonzero((flat == -1).all(1))[0][0])
                    default_rank[os.path.basename(f)] = (rt < rt[de]).mean()
        elif not (rt == 0).all():
            errs.append("test labels not hidden (runtimes 0)")
    result(f"synth numpy {rel}", errs)

errs = []
if kinds['tile'] != 16 or kinds['layout'] != 10:
    errs.append(f"files: {kinds}")
total = sum(os.path.getsize(f) for f in files)
if total > 5e6:
    errs.append(f"{total} bytes, wanted under 5 MB")
result("synth tree size and file counts", errs)
# Layout matters as designed: the NCHW net's default layouts are slow (search
# pays off), the NHWC net's default is among the fastest.
nchw = default_rank.get('synth_resnet_nchw_b8_s28.npz', -1)
nhwc = default_rank.get('synth_resnet_nhwc_b8_s28.npz', -1)
result("synth default layouts: NCHW slow, NHWC fast",
       [] if nchw > 0.6 and 0 <= nhwc < 0.1 else
       [f"default config faster than {nchw:.2f} (NCHW) and {nhwc:.2f} (NHWC) of configs"])
sys.exit(1 if nfail else 0)
PYEOF

# hloscope's own loader accepts every file.
"$HLOSCOPE" check "$D/npz" >"$T/check.out" 2>"$T/check.err"
rc=$?
nok=$(grep -c '^OK ' "$T/check.out")
if [ $rc -eq 0 ] && [ "$nok" -eq 26 ] && no_sanitizer_report "$T/check.err"; then
	ok "synth hloscope check"
else
	bad "synth hloscope check" "exit $rc, $nok OK: $(grep -v '^OK' "$T/check.out" "$T/check.err" | head -c 300)"
fi
"$HLOSCOPE" info "$D" >"$T/info.out" 2>&1
if grep -q '^26 graphs' "$T/info.out" && ! grep -qi 'error' "$T/info.out"; then
	ok "synth info lists the tree"
else
	bad "synth info lists the tree" "$(tail -3 "$T/info.out")"
fi

# Same seed, same bytes; replacing a previous output; another seed differs.
synth_case 0 "synth second run" "$T/demo2"
if diff -r "$D" "$T/demo2" >/dev/null; then ok "synth deterministic"; else
	bad "synth deterministic" "$(diff -rq "$D" "$T/demo2" | head -3)"
fi
synth_case 0 "synth replaces its own output" "$T/demo2" --seed 5
if [ "$(cd "$D" && find . | sort)" = "$(cd "$T/demo2" && find . | sort)" ]; then
	ok "synth same file names for another seed"
else
	bad "synth same file names for another seed" "trees differ"
fi
ndiff=$(diff -rq "$D" "$T/demo2" | grep -c '\.npz differ')
if [ "$ndiff" -ge 20 ] && grep -q 'seed 5' "$T/demo2/.hloscope-synth"; then
	ok "synth another seed differs"
else
	bad "synth another seed differs" "$ndiff .npz files differ"
fi
synth_case 0 "synth --seed=N form" "$T/demo2" --seed=20230813
if diff -r "$D" "$T/demo2" >/dev/null; then ok "synth default seed is 20230813"; else
	bad "synth default seed is 20230813" "differs"
fi
mkdir "$T/empty"
synth_case 0 "synth into an empty folder" "$T/empty/"
[ -f "$T/empty/README" ] && ok "synth empty folder filled" || bad "synth empty folder filled" "no README"
only_in_T "synth leaves no temporary folders" demo demo2 empty out err check.out check.err info.out

# Refusals and failures.
mkdir "$T/mine" && echo keep >"$T/mine/notes.txt"
synth_case 1 "synth refuses a foreign folder" "$T/mine"
if [ "$(cat "$T/mine/notes.txt")" = keep ] && [ "$(ls -A "$T/mine")" = notes.txt ]; then
	ok "synth foreign folder untouched"
else
	bad "synth foreign folder untouched" "$(ls -A "$T/mine")"
fi
grep -q 'not a previous synth output' "$T/err" && ok "synth refusal message" ||
	bad "synth refusal message" "$(cat "$T/err")"
echo x >"$T/afile"
synth_case 1 "synth refuses a file" "$T/afile"
synth_case 2 "synth parent is a file" "$T/afile/sub"
synth_case 2 "synth unwritable place" /proc/hloscope-synth-test/demo
( trap '' XFSZ; ulimit -f 20; "$HLOSCOPE" synth "$T/small" >"$T/out" 2>"$T/err" ); rc=$?
if [ $rc -eq 2 ] && grep -q 'write failed\|cannot' "$T/err" && no_sanitizer_report "$T/err"; then
	ok "synth write failure exits 2"
else
	bad "synth write failure exits 2" "exit $rc: $(head -c 300 "$T/err")"
fi
only_in_T "synth write failure leaves nothing" demo demo2 empty mine afile out err \
	check.out check.err info.out

# Killed part-way (as soon as its temporary folder shows, or after it ended
# if it was quicker): no temporary folder, and the tree is either complete
# or absent.
"$HLOSCOPE" synth "$T/killed" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 2000 ] && kill -0 $pid 2>/dev/null && ! ls -d "$T"/*.tmp.* >/dev/null 2>&1; do
	sleep 0.005
	i=$((i + 1))
done
kill -TERM $pid 2>/dev/null
{ wait $pid; } 2>/dev/null
n=$(find "$T/killed" -name '*.npz' 2>/dev/null | wc -l)
if ls -d "$T"/*.tmp.* "$T"/*.old.* >/dev/null 2>&1; then
	bad "synth killed leaves no temporary folder" "$(ls -d "$T"/*.tmp.* "$T"/*.old.*)"
elif [ -e "$T/killed" ] && { [ "$n" -ne 26 ] || [ ! -f "$T/killed/README" ]; }; then
	bad "synth killed leaves no temporary folder" "partial tree: $n files"
else
	ok "synth killed leaves no temporary folder"
fi
rm -rf "$T/killed"

synth_case 1 "synth without a folder"
synth_case 1 "synth bad seed" "$T/x" --seed abc
synth_case 1 "synth negative seed" "$T/x" --seed -3
synth_case 1 "synth seed without value" "$T/x" --seed
synth_case 1 "synth two folders" "$T/x" "$T/y"
synth_case 1 "synth unknown option" "$T/x" --fast
synth_case 0 "synth --help" --help
[ ! -e "$T/x" ] && [ ! -e "$T/y" ] && ok "synth usage errors write nothing" ||
	bad "synth usage errors write nothing" "folder created"
