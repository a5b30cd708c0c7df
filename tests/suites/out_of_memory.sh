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

# sweep NAME CMD...: CMD with allocation N failing, for about 40 N spread
# over all it makes and the last 8 (where the output is written).
FAIL=$ROOT/$HLOSCOPE_BUILD/tests/failalloc.so
sweep() {
	name=$1
	shift
	LD_PRELOAD=$FAIL HS_FAILALLOC_COUNT=$T/count "$HLOSCOPE" "$@" >"$T/ref.out" 2>"$T/ref.err"
	rc0=$? total=$(cat "$T/count" 2>/dev/null || echo 0)
	if [ "$total" -lt 2 ]; then
		bad "oom sweep: $name" "no allocations counted (exit $rc0): $(head -c 200 "$T/ref.err")"
		return
	fi
	step=$((total / 40 + 1)) wrong=""
	tail=$((total > 8 ? total - 8 : 0))
	for n in $(seq 0 "$step" $((tail - 1))) $(seq "$tail" $((total - 1))); do
		LD_PRELOAD=$FAIL HS_FAILALLOC_AFTER=$n "$HLOSCOPE" "$@" >"$T/o.out" 2>"$T/o.err"
		rc=$?
		if [ "$rc" -eq 3 ] && grep -Eq "out of memory|Cannot allocate memory" "$T/o.err"; then
			:
		elif [ "$rc" -eq "$rc0" ] && cmp -s "$T/o.out" "$T/ref.out"; then
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
exit 0
