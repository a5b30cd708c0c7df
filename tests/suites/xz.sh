# xz: a file compressed with xz is read by its content, whatever its name, by
# every command (loader/xz.h): the same answers as from the file decompressed
# by python's lzma (tests/hlo/make_xz.py); a damaged or truncated one is
# refused with exit 2 naming the file and the byte, a bomb (2 GiB of zeros in
# 350 KB) at once naming the limit, and one whose data outgrows its index at
# the first byte too many.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

X="$T/xz"
"$PY" tests/hlo/make_xz.py "$ROOT" "$X" >"$T/make.log" 2>&1 || { bad "xz inputs" "$(tail -3 "$T/make.log")"; exit 0; }
D="$ROOT/tests/data/xla_dump/pax_fsdp4/dump"
I3D="$ROOT/tests/data/hlo/i3d_tf_xla_cluster_1.hlo"
UNET="$DATA/npz/layout/xla/default/train/unet3d.npz"

# same NAME A B: the outputs of a command on the compressed and the plain file
# agree (the path itself taken out)
same() {
	name=$1 a=$2 b=$3
	if [ -s "$a" ] && sed "s|$X/[^ \"]*||g; s|$ROOT/[^ \"]*||g" "$a" >"$a.n" &&
	   sed "s|$X/[^ \"]*||g; s|$ROOT/[^ \"]*||g" "$b" >"$b.n" && cmp -s "$a.n" "$b.n"; then
		ok "$name"
	else
		bad "$name" "$(diff "$a.n" "$b.n" 2>&1 | head -5 | tr '\n' '|')"
	fi
}

"$HLOSCOPE" info --json "$X/i3d.hlo.xz" >"$T/a.json" 2>&1
"$HLOSCOPE" info --json "$I3D" >"$T/b.json" 2>&1
same "info --json on HLO text compressed with xz" "$T/a.json" "$T/b.json"
"$HLOSCOPE" info --json "$X/two.hlo.xz" >"$T/a2.json" 2>&1
same "info on two concatenated xz streams" "$T/a2.json" "$T/b.json"
"$HLOSCOPE" info --json "$X/psum.bin" >"$T/a.json" 2>&1
"$HLOSCOPE" info --json "$X/psum.pb" >"$T/b.json" 2>&1
same "info --json on an xz HloProto named neither .xz nor .pb" "$T/a.json" "$T/b.json"
Q='nodes where opcode = convolution sort by flops desc limit 5 show name, shape, flops'
"$HLOSCOPE" query "$X/i3d.hlo.xz" "$Q" 'count by opcode' >"$T/a.q" 2>&1
"$HLOSCOPE" query "$I3D" "$Q" 'count by opcode' >"$T/b.q" 2>&1
same "query on an .xz" "$T/a.q" "$T/b.q"
"$HLOSCOPE" dot "$D/module_0034.jit__unstack.sm_8.0_gpu_after_optimizations.hlo.pb.xz" --computation entry --text \
	>"$T/a.dot" 2>&1
xz -dc "$D/module_0034.jit__unstack.sm_8.0_gpu_after_optimizations.hlo.pb.xz" >"$T/unstack.pb" 2>/dev/null ||
	"$PY" -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' \
		"$D/module_0034.jit__unstack.sm_8.0_gpu_after_optimizations.hlo.pb.xz" >"$T/unstack.pb"
"$HLOSCOPE" dot "$T/unstack.pb" --computation entry --text >"$T/b.dot" 2>&1
sed -i '1s/^[^:]*: //' "$T/a.dot" "$T/b.dot"   # the graph's name is its file's
same "dot on an .xz" "$T/a.dot" "$T/b.dot"
expect_status 0 "diff of an .xz and its content: no change" "$HLOSCOPE" diff --text "$X/psum.bin" "$X/psum.pb"
grep -q "^no change" "$T/out" || bad "diff of an .xz and its content" "$(head -3 "$T/out" | tr '\n' '|')"
"$HLOSCOPE" convert "$X/i3d.hlo.xz" -o "$T/a.npz" >/dev/null 2>&1 && "$HLOSCOPE" convert "$I3D" -o "$T/b.npz" >/dev/null 2>&1
for arr in node_opcode node_feat edge_index node_splits; do
	"$HLOSCOPE" dump "$T/a.npz" "$arr" >"$T/a.$arr" 2>&1
	"$HLOSCOPE" dump "$T/b.npz" "$arr" >"$T/b.$arr" 2>&1
	cmp -s "$T/a.$arr" "$T/b.$arr" || bad "convert of an .xz: $arr" "differs"
done
[ -s "$T/a.node_feat" ] && ok "convert of an .xz: the arrays of the text it holds"
"$HLOSCOPE" dump "$X/unet3d.npz.xz" edge_index node_feat --limit 50 >"$T/a.npzd" 2>&1
"$HLOSCOPE" dump "$UNET" edge_index node_feat --limit 50 >"$T/b.npzd" 2>&1
same "an .npz compressed with xz: its arrays" "$T/a.npzd" "$T/b.npzd"
expect_status 0 "check on .xz files" "$HLOSCOPE" check "$X/i3d.hlo.xz" "$X/unet3d.npz.xz" "$X/psum.bin"
[ "$(grep -c '^OK ' "$T/out")" = 3 ] || bad "check on .xz files" "$(cat "$T/out" | tr '\n' '|')"

# a buffer assignment compressed, laid over a module as --data
"$HLOSCOPE" query "$X/graphsage.hlo" --data "$X/ba.txt.xz" --csv \
	'nodes where buffer_bytes >= 0 show name, buffer_bytes' >"$T/ba.csv" 2>"$T/ba.err"
"$PY" - "$X/ba-want.json" "$T/ba.csv" <<'PYEOF' && ok "--data FILE.txt.xz: a compressed buffer assignment" || bad "--data FILE.txt.xz" "$(head -c 300 "$T/ba.err")"
import csv, json, sys
want = json.load(open(sys.argv[1]))
got = {r["name"]: int(float(r["buffer_bytes"])) for r in csv.DictReader(open(sys.argv[2]))}
if got != want:
    print("got %d values, want %d; first differences: %s" % (len(got), len(want),
          [(k, got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)][:3]))
    sys.exit(1)
PYEOF

# the explorer opens an .xz like any file
tui_run "the explorer on an .xz" "$X" i3d.hlo.xz <<'EOF'
has the overview of the module it holds => cluster_1__XlaCompiledKernel_true
Q
EOF

# damaged files: exit 2, the file and the byte; a bomb: the limit, at once
refused() {
	name=$1 file=$2 pattern=$3
	for cmd in info query check; do
		case $cmd in query) set -- query "$X/$file" 'count by opcode' ;; *) set -- "$cmd" "$X/$file" ;; esac
		"$HLOSCOPE" "$@" >"$T/r.out" 2>"$T/r.err"
		rc=$?
		if [ $rc -eq 2 ] && grep -qE "$X/$file: $pattern" "$T/r.out" "$T/r.err"; then :; else
			bad "$name ($cmd)" "exit $rc: $(cat "$T/r.out" "$T/r.err" | head -c 300 | tr '\n' '|')"
			return
		fi
	done
	no_sanitizer_report "$T/r.err" || { bad "$name" "sanitizer report"; return; }
	ok "$name: exit 2 naming the file and where (info, query, check)"
}
refused "a corrupt .xz" corrupt.pb.xz "byte [0-9]+: xz: the compressed data is corrupt"
refused "a truncated .xz" truncated.pb.xz "byte 552: xz: the data ends inside a stream \(a truncated file\?\)"
refused "an xz bomb" bomb.xz "xz: decompresses to 2155872256 bytes, more than the limit of 2147483648"
refused "an .xz whose data outgrows its index" liar.xz \
	"byte [0-9]+: xz: the data decompresses to more than the 70000 bytes its index declares"
start=$(date +%s)
"$HLOSCOPE" info "$X/bomb.xz" >/dev/null 2>&1
[ $(($(date +%s) - start)) -le 2 ] && ok "an xz bomb is refused before decompressing" ||
	bad "an xz bomb" "took $(($(date +%s) - start)) s"
exit 0
