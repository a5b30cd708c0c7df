# xla_dump: XLA dump folders as XLA and nsys-jax write them (loader/dump.h,
# loader/dataset_kind.c, loader/target.h), checked against the files read
# independently (tests/hlo/xla_dump_check.py: lzma and the wire format by
# hand, hloref.py for HLO text):
#   - the real nsys-jax dump (tests/data/xla_dump): every .hlo.pb.xz stage with
#     its module, stage, instructions and fusions, in the compiler's order;
#     the target configs and autotune results as reports with what they say;
#   - a module opened from it names the GPU its folder's target config gives
#     (info --json "target"), found by the module's name or as the folder's
#     only config;
#   - a folder of module_NNNN.after_optimizations.txt (no module name, as some
#     XLA versions write) with other files: info, query and check read every
#     module, by name or by content, and list every other file with why;
#     check's counts add up to the lines it printed;
#   - an HloProto's buffer assignment: buffer_bytes of every instruction and
#     the module's memory (info) as the wire format gives them, and the same
#     buffer_bytes as the assignment printed as text (--data) gives.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

D="$ROOT/tests/data/xla_dump/pax_fsdp4/dump"
CHECK="$PY $ROOT/tests/hlo/xla_dump_check.py"
STEP=module_0040.pjit__wrapped_step_fn

expect_status 0 "info --json on the real dump folder" "$HLOSCOPE" info --json "$D"
$CHECK real "$D" "$T/out" || true
"$HLOSCOPE" info "$D" >"$T/info.txt" 2>&1
if grep -q '^7 files, 8 reports$' "$T/info.txt" &&
   [ "$(grep -n 'module_0028.*optimizations' "$T/info.txt" | cut -d' ' -f2- | sed 's/  */ /g' | cut -d' ' -f1-2)" = \
     "$(printf 'before optimizations\nafter optimizations')" ] &&
   grep -q '^  NVIDIA A100-SXM4-40GB (CUDA, compute capability 8.0)$' "$T/info.txt" &&
   grep -q '^  29 results$' "$T/info.txt"; then
	ok "info on the real dump folder: stages in the compiler's order, the GPU, the autotune results"
else
	bad "info on the real dump folder" "$(head -c 600 "$T/info.txt" | tr '\n' '|')"
fi

tui_run "the explorer on the real dump folder" "$D" . <<'EOF'
resize 200 30
has a stage row => module_0040.pjit__wrapped_
:write $T/dataset.csv
Q
EOF
grep -q "GPU target config: NVIDIA A100-SXM4-40GB (CUDA, compute capability 8.0)" "$T/dataset.csv" &&
	grep -q "autotune results: 29 results" "$T/dataset.csv" &&
	ok "the explorer's dataset view: the target config's GPU, the autotune results' count" ||
	bad "the explorer's dataset view of reports" "$(grep -i config "$T/dataset.csv" | head -3)"

# the target config beside a module
expect_status 0 "info --json on the step module" "$HLOSCOPE" info --json "$D/$STEP.sm_8.0_gpu_after_optimizations.hlo.pb.xz"
$CHECK target "$D/$STEP.gpu_target_config.pbtxt.xz" "$T/out" || true
"$HLOSCOPE" info "$D/module_0034.jit__unstack.before_optimizations.hlo.pb.xz" >"$T/unstack.txt" 2>&1
grep -q "^target          NVIDIA A100-SXM4-40GB (CUDA, compute capability 8.0): 108 SMs at 1.41 GHz, 1555.2 GB/s" \
	"$T/unstack.txt" && ok "info: the target line" || bad "info: the target line" "$(head -c 400 "$T/unstack.txt")"
# by the module's name alone, or as the folder's only config; none of two others
mkdir -p "$T/byname" "$T/only" "$T/two"
cp "$D/module_0001.jit__psum.before_optimizations.hlo.pb.xz" "$T/byname/"
cp "$D/module_0034.jit__unstack.gpu_target_config.pbtxt.xz" "$T/byname/"
xz -dc "$D/module_0001.jit__psum.gpu_target_config.pbtxt.xz" >"$T/byname/jit__psum.gpu_target_config.pbtxt" 2>/dev/null ||
	"$PY" -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' \
		"$D/module_0001.jit__psum.gpu_target_config.pbtxt.xz" >"$T/byname/jit__psum.gpu_target_config.pbtxt"
cp "$D/module_0001.jit__psum.before_optimizations.hlo.pb.xz" "$T/only/psum.pb.xz"
cp "$D/module_0034.jit__unstack.gpu_target_config.pbtxt.xz" "$T/only/"
cp "$D/module_0001.jit__psum.before_optimizations.hlo.pb.xz" "$T/two/psum.pb.xz"
cp "$D/module_0034.jit__unstack.gpu_target_config.pbtxt.xz" "$D/module_0028.jit__threefry_split_original.gpu_target_config.pbtxt.xz" "$T/two/"
target_file() { "$HLOSCOPE" info --json "$1" | "$PY" -c 'import json,sys; t=json.load(sys.stdin)["target"]; print(t and t["file"])'; }
[ "$(target_file "$T/byname/module_0001.jit__psum.before_optimizations.hlo.pb.xz")" = "$T/byname/jit__psum.gpu_target_config.pbtxt" ] &&
[ "$(target_file "$T/only/psum.pb.xz")" = "$T/only/module_0034.jit__unstack.gpu_target_config.pbtxt.xz" ] &&
[ "$(target_file "$T/two/psum.pb.xz")" = "None" ] &&
	ok "the target config: the module's own by name, else the folder's only one, else none" ||
	bad "finding the target config" "byname $(target_file "$T/byname/module_0001.jit__psum.before_optimizations.hlo.pb.xz"), only $(target_file "$T/only/psum.pb.xz"), two $(target_file "$T/two/psum.pb.xz")"
printf 'gpu_device_info {\n  core_count: many\n}\n' >"$T/only/module_0034.jit__unstack.gpu_target_config.pbtxt"
rm "$T/only/module_0034.jit__unstack.gpu_target_config.pbtxt.xz"
expect_status 0 "a damaged target config: the module opens all the same" "$HLOSCOPE" info "$T/only/psum.pb.xz"
grep -q "note: target config not read: $T/only/module_0034.jit__unstack.gpu_target_config.pbtxt: gpu_device_info.core_count: 'many' is not a number" "$T/err" &&
	ok "a damaged target config is named in a note" || bad "a damaged target config" "$(head -c 300 "$T/err")"

# the buffer assignment of an HloProto: buffer_bytes and the memory
for m in "$STEP" module_0001.jit__psum module_0028.jit__threefry_split_original module_0034.jit__unstack; do
	P="$D/$m.sm_8.0_gpu_after_optimizations.hlo.pb.xz"
	"$HLOSCOPE" query "$P" --csv 'nodes where buffer_bytes >= 0 show name, buffer_bytes' >"$T/bb.csv" 2>"$T/bb.err"
	"$HLOSCOPE" info --json "$P" >"$T/bb.json" 2>>"$T/bb.err"
	$CHECK buffers "$P" "$T/bb.csv" "$T/bb.json" || echo "FAIL buffers of $m: $(head -c 200 "$T/bb.err")"
done
"$HLOSCOPE" info "$D/$STEP.sm_8.0_gpu_after_optimizations.hlo.pb.xz" >"$T/mem.txt" 2>&1
grep -q "^memory          16.76 GB at most (16761243366 bytes: parameters 376927268, outputs 137306, constants 8, temporaries 16384178784)$" \
	"$T/mem.txt" && ok "info: the memory line of the step module" || bad "info: the memory line" "$(grep memory "$T/mem.txt")"
"$HLOSCOPE" info --json "$D/module_0001.jit__psum.before_optimizations.hlo.pb.xz" >"$T/before.json" 2>&1
"$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["memory"] is not None)' "$T/before.json" &&
	ok "a module before optimizations has no buffer assignment: memory null" || bad "memory before optimizations" "$(head -c 200 "$T/before.json")"
# the same assignment as text, laid over the module alone
$CHECK as_text "$D/module_0028.jit__threefry_split_original.sm_8.0_gpu_after_optimizations.hlo.pb.xz" "$T/threefry"
"$HLOSCOPE" query "$T/threefry.pb" --data "$T/threefry-buffer-assignment.txt" --csv \
	'nodes where buffer_bytes >= 0 show name, buffer_bytes' >"$T/text.csv" 2>"$T/text.err"
"$HLOSCOPE" query "$D/module_0028.jit__threefry_split_original.sm_8.0_gpu_after_optimizations.hlo.pb.xz" --csv \
	'nodes where buffer_bytes >= 0 show name, buffer_bytes' >"$T/proto.csv" 2>>"$T/text.err"
[ -s "$T/proto.csv" ] && [ "$(wc -l <"$T/proto.csv")" -gt 2 ] && cmp -s "$T/text.csv" "$T/proto.csv" &&
	ok "buffer_bytes from the HloProto is what its assignment printed as text gives" ||
	bad "buffer_bytes: proto against text" "$(diff "$T/text.csv" "$T/proto.csv" | head -5 | tr '\n' '|') $(head -c 200 "$T/text.err")"
expect_status 1 "--data of a buffer assignment over a module that has its own: refused" \
	"$HLOSCOPE" query "$D/module_0028.jit__threefry_split_original.sm_8.0_gpu_after_optimizations.hlo.pb.xz" \
	--data "$T/threefry-buffer-assignment.txt" nodes
grep -q "column 'buffer_bytes' is a field already" "$T/err" && ok "... naming the field it already has" ||
	bad "--data over buffer_bytes" "$(head -c 200 "$T/err")"

# a folder of module_NNNN.after_optimizations.txt and other files
F="$T/folder"
$CHECK make_folder "$ROOT" "$F"
expect_status 0 "info --json on a folder of name-less dumps and other files" "$HLOSCOPE" info --json "$F"
$CHECK folder "$F" "$T/out" >"$T/folder.check" || true
grep -v '^TOTAL' "$T/folder.check"
set -- $(grep '^TOTAL' "$T/folder.check")
NG=${2:-0} NN=${3:-0}
expect_status 0 "query on that folder" "$HLOSCOPE" query "$F" 'count by opcode limit 1'
grep -q "over $NN nodes in $NG graphs" "$T/out" && [ "$(grep -c '^hloscope query: left out ' "$T/err")" = 4 ] &&
	grep -q "^hloscope query: left out notes.txt: not HLO text: it starts with 'my notes'$" "$T/err" &&
	ok "query on that folder: every module ($NG, $NN nodes), the other files left out with why" ||
	bad "query on that folder" "$(cat "$T/out" "$T/err" | head -c 500 | tr '\n' '|')"
expect_status 0 "check on that folder" "$HLOSCOPE" check "$F"
lines=$(wc -l <"$T/out")
if [ "$(grep -c '^OK ' "$T/out")" = "$NG" ] && [ "$(grep -c '^left out ' "$T/out")" = 4 ] &&
   [ "$lines" = $((NG + 4)) ] && grep -qx "$((NG + 4)) files: $NG OK, 0 with problems, 4 left out" "$T/err"; then
	ok "check on that folder: one line per file, the count adds up"
else
	bad "check on that folder" "$lines lines; $(cat "$T/err")"
fi

# a junk folder: problems and files left out, counted as printed
J="$T/junk"
mkdir -p "$J/sub"
printf 'junk' >"$J/bad.pb"
ln -s "$T/nowhere" "$J/gone.npz"
ln -s "$T/nowhere" "$J/gone.txt"
printf 'notes\n' >"$J/sub/notes.txt"
cp "$ROOT/tests/data/hlo/hlo_text_mini_cluster_0.hlo" "$J/sub/m.hlo"
expect_status 2 "check on a junk folder: exit 2" "$HLOSCOPE" check "$J"
if [ "$(wc -l <"$T/out")" = 5 ] && grep -qx "5 files: 1 OK, 2 with problems, 2 left out" "$T/err" &&
   grep -q "^$J/gone.npz: No such file or directory$" "$T/out"; then
	ok "check on a junk folder: every file on a line of stdout, the count adds up"
else
	bad "check on a junk folder" "$(cat "$T/out" "$T/err" | tr '\n' '|')"
fi
expect_status 2 "info on a junk folder: exit 2" "$HLOSCOPE" info "$J"
grep -q "^left out  sub/notes.txt: not HLO text: it starts with 'notes'$" "$T/out" &&
	grep -q "^left out  gone.txt: a link to nothing: No such file or directory$" "$T/out" &&
	grep -q "^3 graphs, some could not be read; 2 files left out$" "$T/out" &&
	ok "info on a junk folder: what was left out and why" || bad "info on a junk folder" "$(head -c 500 "$T/out" | tr '\n' '|')"
exit 0
