# hlo_proto: HLO protobufs as inputs.  `convert` of the 15 real tile kernels
# of op_tuning_data.pb (a TuningData) must give, array for array, the
# reference .npz files beside it (numpy compares dtypes, shapes and values);
# the bare HloModuleProto of kernel 02 must give kernel 02's node arrays;
# `info` shows real names and counts; a file of several modules lists one
# row per module; usage errors exit 1, bad data exits 2; every byte
# truncation and a sample of byte flips of a real .pb fail cleanly with a
# byte offset (or read), never crash.
. tests/lib.sh

# The real files bundled with the source (tests/data/README.md).
D=$ROOT/tests/data
PB=$D/raw/op_tuning_data.pb
REF=$D/raw/op_tuning_data.reference
BARE=$D/hlo/tpu_op_fusion.261.HloModuleProto.pb

# ---- convert: every array of every kernel equals the reference ----
expect_status 0 "convert op_tuning_data.pb -o DIR" "$HLOSCOPE" convert "$PB" -o "$T/all"
expect_status 0 "convert FILE#2" "$HLOSCOPE" convert "$PB#2" -o "$T/k2.npz"
expect_status 0 "convert FILE#NAME" "$HLOSCOPE" convert "$PB#reshape.38" -o "$T/r38.npz"
expect_status 0 "convert a bare HloModuleProto" "$HLOSCOPE" convert "$BARE" -o "$T/bare.npz"
"$PY" - "$T" "$REF" <<'EOF'
import glob, os, sys
import numpy as np
out, ref = sys.argv[1], sys.argv[2]

def check(name, cond, why=""):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))

def same_arrays(a, b):
    """Keys, dtypes, shapes and values identical (a converted, b reference)."""
    if sorted(a.files) != sorted(b.files):
        return "keys %s vs %s" % (sorted(a.files), sorted(b.files))
    for k in b.files:
        x, y = a[k], b[k]
        if x.dtype != y.dtype or x.shape != y.shape:
            return "%s: %s%s vs %s%s" % (k, x.dtype, x.shape, y.dtype, y.shape)
        if not np.array_equal(x, y):
            return "%s: values differ at %s" % (k, np.argwhere(x != y)[:3].tolist())
    return ""

refs = sorted(glob.glob(os.path.join(ref, "op_tuning_data.*.npz")))
check("15 reference files", len(refs) == 15, str(len(refs)))
for r in refs:
    name = os.path.basename(r).split(".", 2)[2][:-4]     # op_tuning_data.NN.NAME.npz
    got = os.path.join(out, "all", name + ".npz")
    if not os.path.exists(got):
        check("convert %s" % name, False, "no %s" % got)
        continue
    with np.load(got, allow_pickle=False) as a, np.load(r, allow_pickle=False) as b:
        why = same_arrays(a, b)
    check("convert %s = reference, every array" % name, not why, why)

with np.load(os.path.join(out, "k2.npz")) as a, \
     np.load(os.path.join(out, "all", "fusion.261.npz")) as b:
    check("FILE#2 = the folder's fusion.261", not same_arrays(a, b), same_arrays(a, b))
with np.load(os.path.join(out, "r38.npz")) as a, \
     np.load(os.path.join(out, "all", "reshape.38.npz")) as b:
    check("FILE#NAME = the folder's module", not same_arrays(a, b), same_arrays(a, b))

k2 = [r for r in refs if ".02." in os.path.basename(r)][0]
with np.load(os.path.join(out, "bare.npz"), allow_pickle=False) as a, np.load(k2) as b:
    for k in ["node_opcode", "node_feat", "edge_index"]:
        check("bare module %s = kernel 02's" % k,
              a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k)
    n = a["node_opcode"].shape[0]
    s = a["node_splits"]
    check("bare module is a layout sample with 0 configs",
          a["node_config_feat"].shape == (0, 0, 18) and a["node_config_ids"].shape == (0,)
          and a["config_runtime"].shape == (0,) and s.shape[0] == 1 and s[0, 0] == 0
          and s[0, -1] == n and s.dtype == np.int64,
          str({k: a[k].shape for k in a.files}))
EOF

# ---- layout and tile runs, HloProto (tests/fixtures/make_hlo_protos.py) ----
if "$PY" tests/fixtures/make_hlo_protos.py "$BARE" "$T/fx" >"$T/gen.log" 2>&1; then
	for k in layout hloproto tile; do
		expect_status 0 "convert crafted $k.pb" "$HLOSCOPE" convert "$T/fx/$k.pb" -o "$T/fx/$k.npz"
	done
	"$PY" - "$T/fx" "$(ls "$REF"/op_tuning_data.02.*.npz)" <<'EOF2'
import os, sys
import numpy as np
d, k2 = sys.argv[1], sys.argv[2]
def check(name, cond, why=""):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))
for k in ["layout", "tile"]:
    with np.load(os.path.join(d, k + ".npz")) as a, np.load(os.path.join(d, k + ".want.npz")) as w:
        for n in w.files:
            check("%s runs: %s follows the rules" % (k, n),
                  a[n].dtype == w[n].dtype and a[n].shape == w[n].shape and np.array_equal(a[n], w[n]),
                  "%s%s %s vs %s%s %s" % (a[n].dtype, a[n].shape, a[n].ravel()[:8], w[n].dtype, w[n].shape, w[n].ravel()[:8]))
with np.load(os.path.join(d, "hloproto.npz")) as a, np.load(k2) as b:
    check("HloProto wrapper: node arrays = kernel 02's",
          all(np.array_equal(a[n], b[n]) for n in ["node_opcode", "node_feat", "edge_index"]))
EOF2
	grep -q "no kept run is marked is_default" "$T/err" && ok "tile without a default run: a note" ||
		bad "tile note" "$(cat "$T/err")"
else
	bad "make_hlo_protos.py" "$(tail -3 "$T/gen.log" | tr '\n' '|')"
fi

# ---- the converted files open like any dataset file ----
expect_status 0 "check the converted folder" "$HLOSCOPE" check "$T/all"
expect_status 0 "info --json on a converted kernel" "$HLOSCOPE" info --json "$T/all/fusion.261.npz"

# ---- info on protobuf inputs ----
"$HLOSCOPE" info --json "$PB#2" >"$T/k2.json" 2>"$T/err"
"$PY" - "$T/k2.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
def check(name, cond):
    print(("PASS %s" % name) if cond else ("FAIL %s: %r" % (name, j)))
check("info FILE#2: module name", j.get("module") == "fusion.261")
check("info FILE#2: 4 real computations, 3 fusions, one split",
      j.get("computations") == 4 and j.get("fusions") == 3 and j.get("splits") == 1)
check("info FILE#2: names are real, entry named", j.get("names") == "real" and
      j.get("entry") not in (None, "", "entry"))
check("info FILE#2: tile, 52 nodes, 51 edges, 16 configs",
      j.get("kind") == "tile" and j.get("nodes") == 52 and j.get("edges") == 51 and j.get("configs") == 16)
EOF
"$HLOSCOPE" info "$PB" >"$T/list" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(grep -c 'op_tuning_data.pb#' "$T/list")" -eq 15 ] && grep -q '^15 graphs' "$T/list"; then
	ok "info on a file of 15 modules lists 15 rows"
else
	bad "info on a file of 15 modules" "exit $rc: $(head -c 300 "$T/list" "$T/err")"
fi
expect_status 1 "open a file of several modules without picking one" "$HLOSCOPE" query "$PB" 'count'
grep -q "#N" "$T/err" && grep -q "#NAME" "$T/err" && ok "the message says how to pick a module" ||
	bad "pick message" "$(cat "$T/err")"
expect_status 0 "query on FILE#N" "$HLOSCOPE" query "$PB#2" 'count by opcode'
expect_status 0 "check on a TuningData checks every module" "$HLOSCOPE" check "$PB"

# ---- an .npz takes the names of its raw twin (pb/ beside npz/) ----
mkdir -p "$T/tree/npz/tile/xla/train" "$T/tree/pb/tile/xla/train"
cp "$T/all/fusion.261.npz" "$T/tree/npz/tile/xla/train/k2.npz"
cp "$BARE" "$T/tree/pb/tile/xla/train/k2.pb"
cp "$T/all/fusion.232.npz" "$T/tree/npz/tile/xla/train/other.npz"
cp "$BARE" "$T/tree/pb/tile/xla/train/other.pb"
"$HLOSCOPE" info --json "$T/tree/npz/tile/xla/train/k2.npz" >"$T/twin.json" 2>"$T/err"
"$HLOSCOPE" info --json "$T/tree/npz/tile/xla/train/other.npz" >"$T/other.json" 2>>"$T/err"
"$PY" - "$T/twin.json" "$T/other.json" <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def check(name, cond, j):
    print(("PASS %s" % name) if cond else ("FAIL %s: %r" % (name, j)))
check("an .npz with its raw twin has real names", a.get("names") == "real" and
      a.get("module") == "fusion.261" and "warning" not in a, a)
check("a twin that disagrees: derived names and a warning", b.get("names") == "derived" and
      "differ" in b.get("warning", ""), b)
EOF

# ---- usage and data errors ----
expect_status 0 "convert --help" "$HLOSCOPE" convert --help
grep -q "usage: hloscope convert" "$T/out" && ok "convert --help prints the usage" || bad "convert --help" "$(head -3 "$T/out")"
expect_status 1 "convert without -o" "$HLOSCOPE" convert "$BARE"
expect_status 1 "convert without IN" "$HLOSCOPE" convert -o "$T/x.npz"
expect_status 1 "convert with an unknown option" "$HLOSCOPE" convert "$BARE" -o "$T/x.npz" --frobnicate
expect_status 1 "convert an .npz" "$HLOSCOPE" convert "$T/bare.npz" -o "$T/x.npz"
expect_status 1 "convert several modules into a file" "$HLOSCOPE" convert "$PB" -o "$T/bare.npz"
head -c 1000 "$BARE" >"$T/cut.pb"
expect_status 2 "convert a truncated .pb" "$HLOSCOPE" convert "$T/cut.pb" -o "$T/cut.npz"
grep -q "byte " "$T/err" && ok "truncated .pb: the message has the byte offset" || bad "truncated message" "$(cat "$T/err")"
[ ! -e "$T/cut.npz" ] && ok "no output file on failure" || bad "partial output" "cut.npz exists"

# ---- every truncation of a real .pb, and byte flips ----
mkdir -p "$T/trunc"
"$PY" - "$BARE" "$T/trunc" <<'EOF'
import os, sys
data = open(sys.argv[1], "rb").read()
out = sys.argv[2]
for n in range(1, len(data)):
    with open(os.path.join(out, "t%05d.pb" % n), "wb") as f:
        f.write(data[:n])
# every 5th byte flipped (xor 0xff), and every 5th byte set to 0x80 (an endless varint)
for i in range(0, len(data), 5):
    for tag, val in (("x", data[i] ^ 0xff), ("v", 0x80)):
        b = bytearray(data)
        b[i] = val
        with open(os.path.join(out, "%s%05d.pb" % (tag, i)), "wb") as f:
            f.write(b)
EOF
(cd "$T/trunc" && ls | xargs "$HLOSCOPE" check) >"$T/trunc.out" 2>"$T/trunc.err"
if ! no_sanitizer_report "$T/trunc.err"; then
	bad "truncated and flipped .pb" "sanitizer report: $(grep -m2 -E 'ERROR|runtime error' "$T/trunc.err")"
else
	# Each line: OK, or the file's name with a byte offset (wire), a module
	# name (meaning), or the text reader's verdict with its line:column (a
	# prefix that is all text is read as HLO text).
	awk '
	/^OK / { good++; next }
	/^[txv][0-9]+\.pb:/ {
		if ($0 ~ /byte [0-9]+|module .*:|HLO text|\.pb:[0-9]+:[0-9]+: /) { failed++; next }
	}
	{ print "FAIL truncated/flipped .pb: unexpected line: " $0; bad++ }
	END { if (!bad) print "PASS truncated/flipped .pb: " failed " refused with a place, " good " read" }
	' "$T/trunc.out"
	n=$(grep -c '^t' "$T/trunc.out")
	[ "$n" -ge 6000 ] && ok "every truncation refused ($n)" || bad "truncations" "only $n refused"
fi
