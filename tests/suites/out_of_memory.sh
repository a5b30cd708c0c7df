#!/bin/sh
# Out of memory is its own exit status (3), not "bad data" (2).
#
# Two ways to run out.  First a real one: the address space limited under a
# read that needs more.  Then every allocation of a command, one after the
# other: tests/tools/failalloc.c (preloaded) lets the first N allocations
# succeed and fails every later one; for each N tried the command must exit
# 3 saying so (out of memory, or the system's "Cannot allocate memory"), or
# finish as it does with memory to spare, the same output and status.
# Never a crash, a 2, or a 0 with a part of its output missing.
# Both ways also run the explorer in script mode (HLOSCOPE_SCRIPT, its
# screens compared), the SVG and PNG drawings through Graphviz and the
# regular expressions of the query language and the explorer's filter.
# big.npz holds one member, big.npy, whose npy header and zip directory
# agree on 256 MiB of int64, while the member holds only the deflated header
# and empty deflate blocks (enough compressed bytes not to look like a zip
# bomb).  Reading the array allocates 256 MiB before it can find the data
# short: with memory to spare that is a data error (2); with the address
# space limited to 64 MiB the allocation fails, every time, and the command
# says so and exits 3.  ASan reserves terabytes of address space at start,
# so the limited run is left to the release build.
. tests/lib.sh

"$PY" - "$T/big.npz" <<'EOF'
import struct, sys, zlib
n = (256 << 20) // 8
hdr = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
c = zlib.compressobj(6, zlib.DEFLATED, -15)
data = c.compress(npy) + c.flush(zlib.Z_SYNC_FLUSH)
size, name = len(npy) + 8 * n, b"big.npy"
data += b"\0\0\0\xff\xff" * ((size // 1000 - len(data)) // 5)  # empty stored blocks
local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0, 0, len(data), size,
                    len(name), 0) + name
cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0, 0, len(data), size,
                 len(name), 0, 0, 0, 0, 0, 0) + name
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(cd), len(local) + len(data), 0)
open(sys.argv[1], "wb").write(local + data + cd + end)
EOF

expect_status 2 "oom: a short member with memory to spare is bad data (2)" \
	"$HLOSCOPE" dump "$T/big.npz" big
grep -q "compressed data ends" "$T/err" && ok "oom: ... and says the data ends early" ||
	bad "oom: message with memory to spare" "$(cat "$T/err")"

[ "$PASS" = sanitizer ] && exit 0

(ulimit -v 65536 && exec "$HLOSCOPE" dump "$T/big.npz" big) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 3 ] && ok "oom: the same read in 64 MiB of address space exits 3" ||
	bad "oom: exit status" "exit $rc, wanted 3; stderr: $(head -c 300 "$T/err")"
want="hloscope dump: $T/big.npz: big.npy: out of memory for 268435456 bytes"
[ "$(cat "$T/err")" = "$want" ] && ok "oom: the message says out of memory, where and for what" ||
	bad "oom: message" "got '$(cat "$T/err")', wanted '$want'"
[ -s "$T/out" ] && bad "oom: stdout" "not empty: $(head -c 200 "$T/out")" ||
	ok "oom: nothing on stdout"

# sweep NAME CMD...: CMD with allocation N failing, for about $RUNS N (40
# unless set) spread over all it makes and the last 8 (where the output is
# written).  Its output is stdout and the files $OUTS names (screens,
# drawings: compared, and removed before each run); $SPARE names the
# libraries whose allocations never fail (tests/tools/failalloc.c).
FAIL=$ROOT/$HLOSCOPE_BUILD/tests/failalloc.so
OUTS='' SPARE='' RUNS=40
outs_rm() { for f in $OUTS; do rm -f "$f"; done; }
outs_made() { for f in $OUTS; do [ -e "$f" ] || : >"$f"; done; }
outs_same() { # SUFFIX: the outputs match those saved with it
	for f in $OUTS; do cmp -s "$f" "$f.$1" || return 1; done
}
sweep() {
	name=$1
	shift
	outs_rm
	LD_PRELOAD=$FAIL HS_FAILALLOC_COUNT=$T/count HS_FAILALLOC_SPARE=$SPARE "$HLOSCOPE" "$@" \
		>"$T/ref.out" 2>"$T/ref.err"
	rc0=$? total=$(cat "$T/count" 2>/dev/null || echo 0)
	outs_made
	for f in $OUTS; do cp "$f" "$f.ref"; done
	if [ "$total" -lt 2 ]; then
		bad "oom sweep: $name" "no allocations counted (exit $rc0): $(head -c 200 "$T/ref.err")"
		return
	fi
	step=$((total / RUNS + 1)) wrong=""
	tail=$((total > 8 ? total - 8 : 0))
	for n in $(seq 0 "$step" $((tail - 1))) $(seq "$tail" $((total - 1))); do
		outs_rm
		LD_PRELOAD=$FAIL HS_FAILALLOC_AFTER=$n HS_FAILALLOC_SPARE=$SPARE "$HLOSCOPE" "$@" \
			>"$T/o.out" 2>"$T/o.err"
		rc=$?
		outs_made
		if [ "$rc" -eq 3 ] && grep -Eq "out of memory|Cannot allocate memory" "$T/o.err"; then
			:
		elif [ "$rc" -eq "$rc0" ] && cmp -s "$T/o.out" "$T/ref.out" && outs_same ref; then
			:
		else
			wrong="$wrong N=$n: exit $rc, $(head -c 120 "$T/o.err" | tr '\n' ' ')"
		fi
	done
	[ -z "$wrong" ] && ok "oom sweep: $name: every allocation of $total failing exits 3 or changes nothing" ||
		bad "oom sweep: $name" "$(echo "$wrong" | head -c 600)"
}

L=$DATA/npz/layout/xla/default/train/unet3d.npz
TL=$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz
P=$ROOT/tests/data/hlo/tpu_op_fusion.261.HloModuleProto.pb
mkdir -p "$T/two" "$T/cv"
ln -s "$P" "$T/two/a.pb"
ln -s "$TL" "$T/two/b.npz"
sweep "info of a dataset graph" info "$L"
sweep "info of an HloModuleProto" info "$P"
sweep "info of a folder" info "$T/two"
sweep "predict" predict "$TL"
sweep "predict --csv" predict "$L" --csv
sweep "predict --json" predict "$TL" --json
sweep "fit" fit "$TL" --train-fraction 0.5
sweep "eval" eval "$L"
sweep "compare" compare "$TL" 0 1
sweep "convert" convert "$P" -o "$T/cv/x.npz"
sweep "check of a folder" check "$T/two"
sweep "dump" dump "$L" node_opcode --limit 3
sweep "diff" diff "$P" "$ROOT/tests/data/raw/op_tuning_data.pb#2"
# changes old -> new, renames: every multiply a subtract, one name swapped
G=$ROOT/tests/data/hlo/graphsage_tf_cpu_benchmark.hlo
sed -e 's/ multiply(/ subtract(/' -e 's/%Mean\.52\b/%Mean.swap/g' "$G" >"$T/sub.hlo"
sweep "diff with changes, text" diff "$G" "$T/sub.hlo" --text --limit 0
sweep "diff with changes, JSON" diff "$G" "$T/sub.hlo" --json
sweep "query" query "$TL" 'nodes where opcode = convolution limit 3' 'count by opcode limit 3'
# an XLA dump as nsys-jax writes it: xz, an HloProto's buffer assignment, the
# target config beside it, reports and a file left out
X=$ROOT/tests/data/xla_dump/pax_fsdp4/dump
mkdir -p "$T/dump"
for f in module_0028.jit__threefry_split_original.sm_8.0_gpu_after_optimizations.hlo.pb.xz \
	module_0028.jit__threefry_split_original.gpu_target_config.pbtxt.xz \
	module_0040.pjit__wrapped_step_fn.autotune_results.pbtxt.xz; do ln -s "$X/$f" "$T/dump/$f"; done
printf 'notes\n' >"$T/dump/notes.txt"
sweep "info --json of an xz HloProto beside its target config" info --json \
	"$T/dump/module_0028.jit__threefry_split_original.sm_8.0_gpu_after_optimizations.hlo.pb.xz"
sweep "info of a dump folder" info "$T/dump"
sweep "check of a dump folder" check "$T/dump"
# --data: a JSON array of records after a byte-order mark, a repeat merged
printf '\357\273\277[{"name": "convolution.306", "t": 1.5, "k": "x"}, {"name": "convolution.306", "t": 2},\n {"name": "nowhere", "t": 3}]' >"$T/rec.json"
sweep "info --data --data-merge sum" info "$ROOT/tests/data/hlo/i3d_tf_xla_cluster_1.hlo" --data "$T/rec.json" --data-merge sum
sweep "query of the session's numbers" query "$L" 'configs where runtime < 23.3 s sort by predicted_rank limit 3' \
	'nodes where cost > 12 us or opcode = dot limit 3' 'compare best worst'
# dot up to its refusal (Graphviz is not reached: 2.43's agopen crashes
# when an allocation fails inside it, which no caller can catch)
sweep "dot refusing a region over the limit" dot "$L" --around 1000 --radius 100 --limit 500 \
	--collapse none -o "$T/x.dot"
# and through what comes before the refusal of a region over the work
# budget: the layers, the region collapsed by layer, its long edges cut
sweep "dot collapsing by layer, cutting edges, then refusing" dot \
	"$ROOT/tests/data/hlo/i3d_tf_xla_cluster_1.hlo" --computation entry --collapse layer --max-work 40 \
	-o "$T/x.dot"
sweep "dot cutting long edges, then refusing" dot "$ROOT/tests/data/hlo/llama2_dp1_tp1_pp1_SyncTensorsGraph.hlo" \
	--computation entry --limit 5000 --max-work 3000 -o "$T/x.dot"

# Regular expressions (base/regex.h): compiled and matched by PCRE2, a
# failed allocation as out of memory (issue 28: glibc's regcomp said "Memory
# exhausted" as a bad pattern, exit 1).
I3D=$ROOT/tests/data/hlo/i3d_tf_xla_cluster_1.hlo
RUNS=12
sweep "query with regular expressions" query "$I3D" 'nodes where name ~ "^conv\w*\.\d+$" limit 3' \
	'count by opcode where hlo ~ "f32\[1,(8|16)," and op_name !~ Mixed_[45]'

# Graphviz (render/dot.c, "when Graphviz runs out of memory"): 2.43 faults
# when an allocation fails inside it, which the guard there makes exit 3.
# PNG is left to the limited address space below: each run loads gd's
# libraries (0.5 s), and some of them cannot be helped when every
# allocation fails (fontconfig's start retries for minutes, libnuma's
# constructor exits 1, glibc ends a process whose libstdc++ cannot get its
# thread-local data at exit with status 127; HS_FAILALLOC_SPARE=
# fontconfig:stdc++:numa spares them by hand).
OUTS="$T/x.svg" RUNS=16
sweep "dot to SVG, through Graphviz" dot "$L" --around 603 --radius 2 -o "$T/x.svg"

# The explorer in script mode, its screens compared: views, a filter and a
# search, a frequency table, the layers, a query, a drawing.  ncurses 6.4
# faults when an allocation fails inside it (tparm's cache) and exits from
# its terminfo reader: its allocations are spared.
{
	printf 't\n\\\ntype name~^(convolution|fusion)\\.[0-9]+$\nEnter\n/\ntype 652\nEnter\nF\nq\nEnter\n'
	printf ':save-display %s\nq\ny\n*\n:nodes where name ~ "^conv" limit 3\n' "$T/screen1.txt"
	printf ':save-display %s\nq\nv\n:save-display %s\n' "$T/screen2.txt" "$T/screen3.txt"
} >"$T/tui.script"
OUTS="$T/screen1.txt $T/screen2.txt $T/screen3.txt" SPARE=ncurses:tinfo RUNS=20
COLUMNS=100 LINES=30 HLOSCOPE_SCRIPT=$T/tui.script
export COLUMNS LINES HLOSCOPE_SCRIPT
sweep "the explorer" "$I3D"
unset HLOSCOPE_SCRIPT
OUTS='' SPARE=''

# Out of memory for real: the address space limited (ulimit -v) to four
# sizes between the least that starts hloscope at all and one that is
# enough; each run exits 3 saying so, or succeeds with the whole output.
# (issue 28: the explorer quit at once with status 0 or 1 opening a big
# module at some sizes; a PNG said it needed the gd plugin, exit 2, or was
# written cut with exit 0.)  Sizes in KiB.
runs_in() { # KiB CMD...: the exit status of CMD in that much address space
	_kib=$1
	shift
	(ulimit -v "$_kib" && exec "$@") >"$T/u.out" 2>"$T/u.err"
}
base=16384
while ! runs_in $base "$HLOSCOPE" --version && [ $base -lt 4194304 ]; do
	base=$((base * 2))
done
lo=$((base / 2))
while [ $((base - lo)) -gt 4096 ]; do # the least that starts, within 4 MiB
	mid=$(((lo + base) / 2))
	if runs_in $mid "$HLOSCOPE" --version; then base=$mid; else lo=$mid; fi
done
# limits NAME CMD...: CMD at 4 sizes from base up to one that is enough
limits() {
	name=$1
	shift
	outs_rm
	"$@" >"$T/lim.ref" 2>"$T/lim.err" || {
		bad "oom ulimit: $name" "fails without a limit: $(head -c 200 "$T/lim.err")"
		return
	}
	for f in $OUTS; do cp "$f" "$f.lim"; done
	hi=$base
	until outs_rm && runs_in $hi "$@" || [ $hi -gt 8388608 ]; do
		hi=$((hi * 2))
	done
	wrong="" k=0
	while [ $k -lt 4 ]; do
		kib=$((base + (hi - base) * k / 4))
		outs_rm
		runs_in $kib "$@"
		rc=$?
		outs_made
		if [ $rc -eq 3 ] && grep -q "out of memory" "$T/u.err"; then
			:
		elif [ $rc -eq 0 ] && cmp -s "$T/u.out" "$T/lim.ref" && outs_same lim; then
			:
		else
			wrong="$wrong ${kib} KiB: exit $rc, $(head -c 120 "$T/u.err" | tr '\n' ' ')"
		fi
		k=$((k + 1))
	done
	[ -z "$wrong" ] && ok "oom ulimit: $name: 4 sizes from $base to $hi KiB exit 3 or change nothing" ||
		bad "oom ulimit: $name" "$(echo "$wrong" | head -c 600)"
}
"$PY" "$ROOT/tools/gen_transformer_hlo.py" --layers 1000 -o "$T/big.hlo" >/dev/null 2>&1 ||
	bad "oom ulimit" "cannot write a module with tools/gen_transformer_hlo.py"
printf 't\n\\\ntype name~^fusion\\.[0-9]*7$\nEnter\n:save-display %s\n' "$T/screen1.txt" >"$T/tui2.script"
OUTS="$T/screen1.txt" HLOSCOPE_SCRIPT=$T/tui2.script
export HLOSCOPE_SCRIPT
limits "the explorer on a module of $(grep -c ' = ' "$T/big.hlo") instructions" "$HLOSCOPE" "$T/big.hlo"
unset HLOSCOPE_SCRIPT
OUTS=''
limits "a regular expression over the module" "$HLOSCOPE" query "$T/big.hlo" \
	'count by opcode where op_name ~ "layer_1\d\d/" and name !~ "^(get-tuple|param)"'
OUTS="$T/x.png"
limits "dot to PNG" "$HLOSCOPE" dot "$L" --around 603 --radius 2 -o "$T/x.png"
exit 0

