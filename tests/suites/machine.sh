# machine: the machines the estimate costs for (model/machine.h,
# model/cost_gpu.c) and `hloscope profile` (model/profile.h), checked against
# numbers computed here independently:
#   - --help lists the machines; --machine names one, an unknown name is exit
#     1 with the list; info --json's machine object names the dump's GPU;
#   - on a GPU a tensor costs no TPU tile padding (a copy of f32[3000,3] is
#     its bytes over 85% of the bandwidth plus a launch; on tpu-v3 it pays
#     the (8, 128) tiles);
#   - a while body runs known_trip_count times in the step, its condition
#     once more;
#   - profile on the real A100 step and its measured profile
#     (tests/data/profile/pax_a100_step.csv.xz): Spearman, the share within
#     2x and the measured time recomputed in python from the per-node costs.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

D="$ROOT/tests/data/xla_dump/pax_fsdp4/dump"
STEP="$D/module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_optimizations.hlo.pb.xz"
PROF="$ROOT/tests/data/profile/pax_a100_step.csv.xz"

"$HLOSCOPE" --help >"$T/help" 2>&1
missing=""
for m in tpu-v3 tpu-v4 tpu-v5e v100 a100 a10 l4 h100; do
	grep -q "^  $m " "$T/help" || missing="$missing $m"
done
[ -z "$missing" ] && ok "--help lists the machines" || bad "--help lists the machines" "missing:$missing"

for cmd in info query explore predict compare dot repl diff profile; do
	"$HLOSCOPE" $cmd --help 2>&1 | grep -q -- "--machine NAME" || bad "$cmd --help has --machine" "no"
done
ok "every command that shows costs takes --machine"

expect_status 1 "an unknown machine is exit 1" "$HLOSCOPE" info --machine nosuch "$STEP"
grep -q "unknown machine 'nosuch' (machines: tpu-v3, tpu-v4, tpu-v5e, v100, a100, a10, l4, h100)" "$T/err" &&
	ok "an unknown machine: the list" || bad "an unknown machine: the list" "$(cat "$T/err")"

"$HLOSCOPE" info --json "$STEP" >"$T/a.json" 2>&1
"$HLOSCOPE" info --json --machine h100 "$STEP" >"$T/h.json" 2>&1
"$HLOSCOPE" info --json "$ROOT/tests/data/hlo/cut_alpa_xmap_train_step.57.hlo" >"$T/t.json" 2>&1
"$PY" - "$T/a.json" "$T/h.json" "$T/t.json" >"$T/out" 2>&1 <<'EOF' && ok "info --json: the machine object (the dump's GPU, --machine, the default)" || bad "info --json machine" "$(cat "$T/out")"
import json, sys
a, h, t = (json.load(open(p)) for p in sys.argv[1:])
m = a["machine"]
assert m["name"] == "a100" and m["device"] == "NVIDIA A100-SXM4-40GB", m
assert m["source"] == "the dump's gpu_target_config" and m["gpu"] is True, m
assert m["hbm_bytes_per_s"] == 1555.2e9 and m["sm_count"] == 108 and m["clock_ghz"] == 1.41, m
assert abs(m["vector_flops"]["f32"] - 108 * 64 * 2 * 1.41e9) < 1, m   # SMs x FPUs x FMA x clock
assert h["machine"]["name"] == "h100" and h["machine"]["source"] == "--machine", h["machine"]
assert h["analytic"]["total_ns"] < a["analytic"]["total_ns"], "an H100 is faster"
assert t["machine"]["name"] == "tpu-v3" and t["machine"]["gpu"] is False, t["machine"]
EOF

# no TPU tiles on a GPU
cat >"$T/copy.hlo" <<'EOF'
HloModule copy_narrow

ENTRY main {
  p = f32[3000,3]{1,0} parameter(0)
  ROOT c = f32[3000,3]{0,1} copy(p)
}
EOF
"$HLOSCOPE" query "$T/copy.hlo" --csv 'nodes where name = "c" show cost, bytes' --machine a100 >"$T/gpu.csv" 2>&1
"$HLOSCOPE" query "$T/copy.hlo" --csv 'nodes where name = "c" show cost, bytes' >"$T/tpu.csv" 2>&1
"$PY" - "$T/gpu.csv" "$T/tpu.csv" >"$T/out" 2>&1 <<'EOF' && ok "a GPU copy: bytes over the bandwidth and a launch, no tile padding" || bad "GPU copy cost" "$(cat "$T/out")"
import csv, sys
g = list(csv.DictReader(open(sys.argv[1])))[0]
t = list(csv.DictReader(open(sys.argv[2])))[0]
b = 2 * 3000 * 3 * 4
assert float(g["bytes"]) == b, g
want = b / (1555e9 * 0.85) + 1e-6 + 8 / 1.41e9   # launch, one instruction issued
assert abs(float(g["cost_ns"]) * 1e-9 - want) < 1e-12, (g, want)
# tpu-v3: the same bytes plus the padding of (8, 128) tiles (3 -> 128 lanes)
assert float(t["cost_ns"]) * 1e-9 > 10 * b / 450e9, t
EOF

# a while loop: its body known_trip_count times, its condition once more
cat >"$T/loop.hlo" <<'EOF'
HloModule loop

body {
  p = (s32[], f32[1024,1024]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[1024,1024]{1,0} get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[1024,1024]{1,0} exponential(x)
  ROOT t = (s32[], f32[1024,1024]{1,0}) tuple(j, y)
}

cond {
  p = (s32[], f32[1024,1024]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  x = f32[1024,1024]{1,0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[1024,1024]{1,0}) tuple(z, x)
  w = (s32[], f32[1024,1024]{1,0}) while(t), condition=cond, body=body, backend_config={"known_trip_count":{"n":"7"}}
  ROOT r = f32[1024,1024]{1,0} get-tuple-element(w), index=1
}
EOF
for m in a100 tpu-v3; do
	"$HLOSCOPE" info --json --machine $m "$T/loop.hlo" >"$T/loop_$m.json" 2>&1
	"$HLOSCOPE" query --machine $m "$T/loop.hlo" --csv 'nodes show cost, computation_role' >"$T/loop_$m.csv" 2>&1
done
"$PY" - "$T" >"$T/out" 2>&1 <<'EOF' && ok "a while body runs known_trip_count times in the step (a100, tpu-v3)" || bad "trip count" "$(cat "$T/out")"
import csv, json, sys
for m in ("a100", "tpu-v3"):
    info = json.load(open(f"{sys.argv[1]}/loop_{m}.json"))["analytic"]
    runs = {"entry": 1, "while-body": 7, "while-condition": 8}
    want = sum(float(r["cost_ns"]) * 1e-9 * runs[r["computation_role"]]
               for r in csv.DictReader(open(f"{sys.argv[1]}/loop_{m}.csv")))
    assert info["max_runs"] == 8, info
    assert abs(info["step_ns"] - want * 1e9) < 1e-6 * want * 1e9, (m, info, want)
    assert info["step_ns"] > 6 * info["total_ns"], (m, info)
EOF
"$HLOSCOPE" info --machine a100 "$T/loop.hlo" 2>&1 | grep -q "^step .*known_trip_count, at most 8" &&
	ok "info says the step counts loops" || bad "info's step line" "$("$HLOSCOPE" info "$T/loop.hlo" 2>&1 | grep step)"

# profile: the real step against its measured profile
expect_status 0 "profile on the real A100 step" "$HLOSCOPE" profile "$STEP" "$PROF" --json --measured-step "127.46 ms"
cp "$T/out" "$T/prof.json"
"$HLOSCOPE" query "$STEP" --csv 'nodes show name, cost, kernel_share' >"$T/costs.csv" 2>&1
"$PY" - "$T/prof.json" "$T/costs.csv" "$PROF" >"$T/out" 2>&1 <<'EOF' && ok "profile: Spearman, within 2x and the measured time as python computes them" || bad "profile figures" "$(cat "$T/out")"
import csv, io, json, lzma, sys
rep = json.load(open(sys.argv[1]))
# an instruction of a fusion body is measured as a kernel of its own (XLA's initializer of an atomic
# reduction): the profile compares its share of its fusion (kernel_share)
val = lambda r: r["kernel_share_ns"] if r["kernel_share_ns"] not in ("", "null") else r["cost_ns"]
cost = {r["name"]: float(val(r)) * 1e-9 for r in csv.DictReader(open(sys.argv[2])) if val(r) not in ("", "null")}
rows = [r for r in csv.DictReader(io.TextIOWrapper(lzma.open(sys.argv[3]))) if r["name"] in cost]
p = [cost[r["name"]] for r in rows]
y = [float(r["measured_ns"]) * 1e-9 for r in rows]
w = [float(r["measured_ns"]) * 1e-9 * int(r["calls"]) / 5 for r in rows]
def ranks(v):
    o = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v); i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and v[o[j + 1]] == v[o[i]]:
            j += 1
        for k in range(i, j + 1):
            r[o[k]] = (i + j) / 2
        i = j + 1
    return r
rp, ry = ranks(p), ranks(y); m = (len(p) - 1) / 2
num = sum((a - m) * (b - m) for a, b in zip(rp, ry))
rho = num / (sum((a - m) ** 2 for a in rp) * sum((b - m) ** 2 for b in ry)) ** 0.5
share = sum(x for a, b, x in zip(p, y, w) if 0.5 <= a / b <= 2) / sum(w)
assert rep["instructions"] == len(rows) == 2356 and rep["runs"] == 5, rep
assert abs(rep["spearman"] - rho) < 1e-9, (rep["spearman"], rho)
assert abs(rep["within_2x_share"] - share) < 1e-9, (rep["within_2x_share"], share)
assert abs(rep["measured_ns"] - sum(w) * 1e9) < 1e-3, rep["measured_ns"]
assert abs(rep["measured_step_ns"] - 127.46e6) < 1 and rep["machine"] == "a100", rep
assert rep["top"][0]["name"] == "input_convert_reduce_fusion.13", rep["top"][0]
EOF
expect_status 2 "profile: a data file without a time column is exit 2" "$HLOSCOPE" profile "$STEP" "$D/../../README.md"
printf 'name,foo\nfusion.1,3\n' >"$T/nocol.csv"
expect_status 2 "profile: no time column" "$HLOSCOPE" profile "$STEP" "$T/nocol.csv"
grep -q "no time column" "$T/err" && ok "profile: no time column, said" || bad "profile: no time column, said" "$(cat "$T/err")"
expect_status 1 "profile: one operand is a usage error" "$HLOSCOPE" profile "$STEP"

XENV="HLOSCOPE_MASK_MODEL=0" tui_run "the explorer's overview names the dump's GPU" "$D" "$(basename "$STEP")" <<'EOF'
resize 200 30
has the machine => on a100
Q
EOF
