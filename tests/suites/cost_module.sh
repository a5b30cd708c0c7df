# cost_module: the analytic model on HLO modules (model/cost_module.c) and
# what `info` and `predict` say of a plain module.
#
# 1. Every bundled HLO text module and tests/hlo/cost_gpu.hlo (fusions in
#    fusions, a reducer inside a fusion body, sliced and in-place fusions in
#    a while body, cuDNN convolutions forward and backward, a cuBLASLt
#    gemm, erf, all-to-all-start, an unknown custom-call), checked per node
#    and in total against tests/hlo/cost_check.py, which reads the text with
#    regular expressions and computes the model again.  HLOSCOPE_REAL_HLO=DIR
#    adds the *.hlo files under DIR.
# 2. A few numbers worked out by hand, so that the model and its check cannot
#    agree on a wrong formula.
# 3. `info` on a plain module: kind module, its computations, instructions,
#    opcodes and collectives as the text has them (tests/hlo/hlo_counts.py),
#    no dataset wording; `predict` says there are no configs.
. tests/lib.sh
need "$PY" || exit 0

M=tests/hlo/cost_gpu.hlo
files="$(ls tests/data/hlo/*.hlo) $M"
if [ -n "${HLOSCOPE_REAL_HLO:-}" ]; then
	files="$files $(find "$HLOSCOPE_REAL_HLO" -type f -name '*.hlo' | sort)"
fi
# shellcheck disable=SC2086
HLOSCOPE="$HLOSCOPE" "$PY" tests/hlo/cost_check.py $files

# ---- 2. by hand -------------------------------------------------------------
# conv: y = f32[8,32,32,64], w = f32[3,3,16,64]: 2 * 524288 * 9216 / 64; the
# backward ones do the forward convolution's work.  gemm [64,256] x [256,128]:
# 2 * 64 * 128 * 256.  soft: exp 8192 + reduce 8192 + multiply 64 + divide
# 8192 FLOPs, reads 32768 + 256 bytes and writes 32768.  slice.f reads one
# [1,64,128] slab (32768) and the index (4), writes 32768; upd reads the
# update and the index and writes the update in place (not the buffer).
# sum (a reducer's) and e (in a fusion body) add nothing to the module's
# totals: their work is their callers' (cost_check.py checks kernel_share).
"$HLOSCOPE" query "$M" --csv \
	"nodes where name in ('conv', 'dx', 'dw', 'gemm', 'soft', 'slice.f', 'upd', 'erf.1', 'sum', 'e') show name, flops, bytes"  >"$T/hand" 2>"$T/err"
want='name,flops,bytes
sum,0,0
e,0,0
slice.f,0,65540
upd,8192,65540
conv,150994944,2658304
dx,150994944,2658304
dw,150994944,2658304
gemm,4194304,4423680
soft,24640,65792
erf.1,1024,8192'
if [ "$(cat "$T/hand")" = "$want" ]; then ok "cost by hand: cuDNN, cuBLASLt, fusions, reducer"; else
	bad "cost by hand: cuDNN, cuBLASLt, fusions, reducer" "$(tr '\n' '|' <"$T/hand") $(head -c 200 "$T/err")"
fi

# ---- 3. info and predict on a plain module ------------------------------------
for f in tests/data/hlo/cut_alpa_xmap_train_step.57.hlo tests/data/hlo/openxla_hlo_llama3_8b_cp_bf16_1x4.hlo $M; do
	n=$(basename "$f")
	if ! "$HLOSCOPE" info --json "$f" >"$T/info.json" 2>"$T/err" || ! "$HLOSCOPE" info "$f" >"$T/info.txt" 2>>"$T/err"; then
		bad "info $n" "$(head -c 300 "$T/err")"
		continue
	fi
	"$PY" tests/hlo/hlo_counts.py "$f" >"$T/counts" 2>>"$T/err"
	"$PY" - "$T/info.json" "$T/info.txt" "$T/counts" "$n" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
name = sys.argv[4]
counts = {}
for line in open(sys.argv[3]):
    w = line.split()
    if w[0] == "module":
        module = dict(x.split("=") for x in w[2:])
    elif w[0] == "opcode":
        counts[w[1]] = int(w[2])
COLLECTIVE = {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
              "all-to-all", "all-to-all-start", "ragged-all-to-all", "collective-permute", "collective-permute-start",
              "collective-broadcast"}
fails = []
def want(key, value):
    if j.get(key) != value:
        fails.append("%s %r, the text has %r" % (key, j.get(key), value))
want("kind", "module")
want("format", "HLO text")
want("computations", int(module["computations"]))
want("instructions", int(module["instructions"]))
want("opcodes", counts)
want("fusions", counts.get("fusion", 0))
want("collectives", sum(c for o, c in counts.items() if o in COLLECTIVE))
want("collective_opcodes", {o: c for o, c in counts.items() if o in COLLECTIVE})
if sum(j.get("computation_roles", {}).values()) != j.get("computations"):
    fails.append("computation_roles do not add up")
a = j.get("analytic") or {}
if not (isinstance(a.get("total_ns"), (int, float)) and a["total_ns"] > 0):
    fails.append("analytic.total_ns %r" % a.get("total_ns"))
for k in ("runtime", "splits", "configs", "configurable_nodes", "edges", "node_feature_width"):
    if k in j:
        fails.append("dataset key %r" % k)
for w in ("runtime", "splits", "configurable", "configs ", "test-split", "layout", "node features"):
    if w in text.replace("no configs)", ""):
        fails.append("text says %r" % w)
for w in ("kind            module (HLO text, no configs)", "computations    ", "instructions    ",
          "collectives     ", "analytic        "):
    if w not in text:
        fails.append("text lacks %r" % w)
print(("FAIL info %s: %s" % (name, "; ".join(fails))) if fails else "PASS info %s: a module, as the text has it" % name)
PYEOF
done

# unlearned opcodes are named as written, in info's table too
if grep -q '^  all-to-all-start  ' "$T/info.txt" && grep -q '^  erf  ' "$T/info.txt" &&
	! grep -v '^analytic' "$T/info.txt" | grep -q unknown && grep -q '1 instruction of unknown cost left out' "$T/info.txt"; then
	ok "info: unlearned opcodes as written, the unknown custom-call left out of the total"
else
	bad "info: unlearned opcodes as written" "$(tr '\n' '|' <"$T/info.txt")"
fi

# a protobuf module is a module too
P=tests/data/hlo/nsysjax_module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb
if "$HLOSCOPE" info --json "$P" 2>"$T/err" | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if j["kind"] == "module" and j["format"] == "HloProto with its buffer assignment" and j["module"] == "jit__psum"
         and j["collective_opcodes"] == {"all-reduce-start": 1} and j["analytic"]["total_ns"] > 0 else 1)'; then
	ok "info: an HloProto is a module"
else
	bad "info: an HloProto is a module" "$("$HLOSCOPE" info --json "$P" 2>&1 | head -c 400)"
fi

# a dataset file stays one, with the analytic totals added
L="$DATA/npz/layout/xla/default/train/unet3d.npz"
if "$HLOSCOPE" info --json "$L" 2>"$T/err" | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if j["kind"] == "layout" and j["configs"] == 1159 and j["analytic"]["total_ns"] > 0
         and j["runtime"]["labeled"] else 1)'; then
	ok "info: an .npz stays a dataset graph, with analytic totals"
else
	bad "info: an .npz stays a dataset graph" "$(head -c 300 "$T/err")"
fi

expect_status 1 "predict on a plain module: no configs" "$HLOSCOPE" predict tests/data/hlo/cut_alpa_xmap_train_step.57.hlo
if grep -q 'no configs to rank: a plain HLO module' "$T/err" 2>/dev/null ||
	"$HLOSCOPE" predict tests/data/hlo/cut_alpa_xmap_train_step.57.hlo 2>&1 | grep -q 'no configs to rank: a plain HLO module'; then
	ok "predict says a module has no configs"
else
	bad "predict says a module has no configs" "$("$HLOSCOPE" predict tests/data/hlo/cut_alpa_xmap_train_step.57.hlo 2>&1 | head -c 300)"
fi
out=$("$HLOSCOPE" predict --csv tests/data/hlo/cut_alpa_xmap_train_step.57.hlo 2>/dev/null)
if [ -z "$out" ]; then ok "predict --csv on a module writes nothing"; else
	bad "predict --csv on a module writes nothing" "$out"
fi
exit 0
