#!/bin/sh
# Predictions a user can trust: fit --measured/--top, the held-out list
# that lets anyone recompute tau (numpy), tie-broken tau, the track record
# and units that predict and eval print, OPA undefined like tau.
. "$ROOT/tests/lib.sh"
need numpy || exit 0

H=$HLOSCOPE
REAL=$DATA/npz
UNET=$REAL/layout/xla/default/train/unet3d.npz
RNN=$REAL/layout/xla/random/train/openai_v0_rnn_optimized.npz
NLP=$REAL/layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz

check() {
	want=$1 name=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		bad "$name" "exit $got, wanted $want; stderr: $(head -c 300 "$T/err")"
	elif ! no_sanitizer_report "$T/err"; then
		bad "$name" "sanitizer report: $(grep -m3 -E 'ERROR|runtime error' "$T/err")"
	else
		ok "$name"
	fi
}

expect_err() {
	want=$1 name=$2 text=$3; shift 3
	check "$want" "$name" "$@"
	grep -q -- "$text" "$T/err" && ok "$name: says '$text'" ||
		bad "$name: message" "wanted '$text' in: $(head -c 300 "$T/err")"
}

has() { grep -q -- "$2" "$T/out" && ok "$1" || bad "$1" "wanted '$2' in: $(head -c 400 "$T/out")"; }

# ---- fit: the held-out list recomputes both taus ------------------------------
check 0 "fit --json at 20% on unet3d" "$H" fit "$UNET" --train-fraction 0.2 --seed 3 --json
cp "$T/out" "$T/fit.json"
"$PY" - "$T/fit.json" <<'EOF' && ok "numpy recomputes tau-b, tie-broken tau and OPA from the held-out list" || bad "fit held-out list" "see above"
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
h = d["heldout"]
assert len(h) == d["heldout_configs"] == d["configs"] - d["train_configs"], len(h)
p = np.array([x["score"] for x in h]); y = np.array([x["runtime_ns"] for x in h], float)
sp = np.sign(p[:, None] - p[None, :]); sy = np.sign(y[:, None] - y[None, :])
iu = np.triu_indices(len(p), 1)
sp, sy = sp[iu], sy[iu]
s, n0 = (sp * sy).sum(), len(sp)
n1, n2 = (sp == 0).sum(), (sy == 0).sum()
taub = s / np.sqrt((n0 - n1) * (n0 - n2))
tb = s / np.sqrt(n0 * (n0 - n2))
opa = ((sp * sy) > 0).sum() / (sy != 0).sum()
for k, v in (("heldout_kendall_tau", taub), ("heldout_kendall_tau_tiebroken", tb), ("heldout_opa", opa)):
    if abs(d[k] - v) > 1e-9:
        sys.exit("%s: json %r, numpy %r" % (k, d[k], v))
# ranks are competition ranks over every config's score
assert all(x["rank"] >= 1 for x in h)
assert d["calibrated"] and all("predicted_ns" in x for x in h)
EOF

# ---- fit --measured ------------------------------------------------------------
check 0 "fit --measured 0-99 --top 5 --json" "$H" fit "$UNET" --measured 0-99 --top 5 --json
"$PY" -c "
import json, sys
d = json.load(open('$T/out'))
assert d['train_configs'] == 100 and d['heldout_configs'] == 1059, d['train_configs']
assert len(d['next']) == 5 and all(x['config'] >= 100 for x in d['next']), d['next']
r = [x['rank'] for x in d['next']]
assert r == sorted(r), r
" && ok "--measured trains on the configs named, --top lists unmeasured ones best first" || bad "--measured list" "$(head -c 300 "$T/out")"

printf 'config,runtime_ns\n3,2100000\n7,2300000\n9,1900000\n12,2500000\n40,2000000\n' >"$T/m.csv"
check 0 "fit --measured CSV on an unlabeled file" "$H" fit "$NLP" --measured "$T/m.csv" --top 4
has "an unlabeled file has nothing to check against" "no measured runtimes to check against"
has "the configs to try next are listed" "next to try"
n=$(awk '/^ *rank/ {on = 1; next} on && NF >= 3' "$T/out" | awk '$2 == 3 || $2 == 7 || $2 == 9 || $2 == 12 || $2 == 40' | wc -l)
[ "$n" -eq 0 ] && ok "no measured config is suggested again" || bad "--top with CSV" "$(cat "$T/out")"

"$PY" - "$T/cap.npz" <<'EOF' && ok "a tile file with 1,600 configs written" || bad "cap fixture" "python failed"
import sys
import numpy as np
rng = np.random.default_rng(1)
C = 1600
nf = np.zeros((3, 140), np.float32)
nf[:, 13] = 1; nf[:, 21] = 64; nf[:, 22] = 128; nf[:, 27] = 192; nf[:, 28] = 64 * 128; nf[:, 134] = 1
nf[2, 0] = 1
cf = np.zeros((C, 24), np.float32)
cf[:, 8] = rng.choice([1, 2, 4, 8, 16, 32, 64], C); cf[:, 9] = rng.choice([128, 256, 512], C)
rt = (1000 + 3200 / cf[:, 8] + rng.integers(0, 40, C)).astype(np.int64)
np.savez(sys.argv[1], node_feat=nf, node_opcode=np.array([63, 63, 2], np.uint8),
         edge_index=np.array([[2, 0], [2, 1]], np.int64), config_feat=cf, config_runtime=rt,
         config_runtime_normalizers=np.full(C, 1000, np.int64))
EOF
check 0 "fit at 95% of 1,600 configs" "$H" fit "$T/cap.npz" --train-fraction 0.95
has "fit says when its training-set cap applies" "1520 configs asked for; this graph trains on at most 1500"
check 0 "fit at 50% of 1,600 configs" "$H" fit "$T/cap.npz" --train-fraction 0.5
grep -q "training-set cap" "$T/out" && bad "cap note" "printed without the cap applying" || ok "no cap note when it does not apply"

expect_err 1 "fit --measured with a bad list" "neither a file nor a list" "$H" fit "$UNET" --measured 3,x
expect_err 1 "fit --measured out of range" "out of range 0..1158" "$H" fit "$UNET" --measured 5-2000
printf 'config,runtime\n3,abc\n' >"$T/bad.csv"
expect_err 1 "fit --measured CSV with a bad line" "bad.csv:2" "$H" fit "$UNET" --measured "$T/bad.csv"
# a missing file is bad input (2) and named, not a usage error (issue 23)
expect_err 2 "fit --measured with a missing file" "nope.csv: No such file or directory" \
	"$H" fit "$UNET" --measured "$T/nope.csv"
expect_err 2 "fit --measured with a folder" "$T: not a file of measured configs" "$H" fit "$UNET" --measured "$T"
expect_err 1 "fit with both --measured and --train-fraction" "one of --train-fraction" \
	"$H" fit "$UNET" --measured 0-9 --train-fraction 0.2
expect_err 1 "fit --measured with one config" "at least 2 measured" "$H" fit "$UNET" --measured 5

# ---- predict: predictor, track record, units, ties -----------------------------
check 0 "predict on unet3d" "$H" predict "$UNET" --top 3
has "predict names the predictor" "predictor: analytic estimate"
has "predict gives its track record on the file" "track record on this file: tau 0.[0-9]* (ties broken at random 0.[0-9]*), OPA 0.[0-9]* on 1159 measured configs"
has "predicted times carry a unit" " s  *[0-9.]* s "
has "tied ranks are marked" "^ *1= "
check 0 "predict --json on unet3d" "$H" predict "$UNET" --json
"$PY" -c "
import json
d = json.load(open('$T/out'))[0]
assert d['time_kind'] == 'calibrated' and d['calibration']['method'] == 'scale'
f = d['calibration']['factor']
assert all(abs(p - s * f) <= 1e-9 * p for p, s in zip(d['predicted_ns'], d['scores'])), 'the estimate times its factor'
r = d['ranks']; s = d['scores']
assert all(r[i] == 1 + sum(1 for t in s if t < s[i]) for i in range(0, len(s), 97)), 'competition ranks'
t = d['track_record']
assert t['configs'] == 1159 and t['kendall_tau_tiebroken'] <= t['kendall_tau'], t
" && ok "predict --json: predicted_ns, competition ranks, track record" || bad "predict json" "$(head -c 300 "$T/out")"
check 0 "predict on a file whose configs are identical" "$H" predict "$RNN" --top 2
has "undefined tau and OPA are n/a with the reason" "tau n/a, OPA n/a on 20 measured configs: every config gets the same score"
check 0 "predict on an unlabeled file" "$H" predict "$NLP" --top 2
has "no runtimes, no record" "no measured runtimes to check against"

# ---- eval: tie-broken tau, OPA undefined like tau, the analytic terms ----------
check 0 "eval --json on unet3d and the identical-config file" "$H" eval "$UNET" "$RNN" --json
"$PY" -c "
import json
d = json.load(open('$T/out'))
u, r = d['graphs']
assert r['kendall_tau'] is None and r['opa'] is None and r['kendall_tau_tiebroken'] is None, r
assert u['kendall_tau'] > 0.1 and 0.1 <= u['kendall_tau_tiebroken'] <= u['kendall_tau'], u
assert d['mean_kendall_tau_tiebroken'] == u['kendall_tau_tiebroken']
" && ok "eval: OPA is null where tau is (identical configs), tie-broken tau reported" || bad "eval json" "$(head -c 400 "$T/out")"
check 0 "eval text on the identical-config file" "$H" eval "$RNN"
grep "openai" "$T/out" | grep -q "0.0000" && bad "OPA n/a in text" "$(cat "$T/out")" || ok "eval text: no 0.0000 where OPA is undefined"
check 0 "eval --analytic-terms mxu" "$H" eval "$UNET" --analytic-terms mxu
has "eval names the terms it used" "with terms: mxu"
expect_err 1 "eval --analytic-terms with a typo" "unknown analytic term 'mxx'" "$H" eval "$UNET" --analytic-terms mxx

# ---- train keeps the head that trained (issue 11, fault 6) ----------------------
RETINA=$REAL/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz
check 0 "train on unet3d and a tile file that cannot train a head" "$H" train "$UNET" "$RETINA" \
	-o "$T/keep.hsm" --epochs 1 --hidden 8 --batch 8 --quiet
grep -q "warning: no tile head" "$T/err" && ok "train warns about the head it could not train" ||
	bad "train warning" "$(cat "$T/err")"
[ -s "$T/keep.hsm" ] && grep -q "sage-ranker v2 (layout)" "$T/out" && ok "train keeps the layout head it trained" ||
	bad "train kept nothing" "$(cat "$T/out")"
expect_err 1 "train on only a tile file that cannot train a head" "fewer than 2 distinct configs" \
	"$H" train "$RETINA" -o "$T/none.hsm" --epochs 1 --hidden 8 --quiet
[ -e "$T/none.hsm" ] && bad "no model when no head trained" "a file was written" || ok "no model file when no head trained"

# ---- a learned ranker's scores: calibrated where runtimes exist, else scores ----
use_demo || exit 0
check 0 "train a small model" "$H" train "$DEMO/npz/layout/xla/default/train" -o "$T/m.hsm" \
	--epochs 3 --hidden 8 --batch 8 --quiet
V=$(ls "$DEMO"/npz/layout/xla/default/valid/*.npz | head -1)
check 0 "predict with a model on a labeled file" "$H" predict "$V" --model "$T/m.hsm" --top 3
has "a learned ranker's scores are calibrated and say so" "times: learned, its scores mapped to times on the measured configs"
has "calibrated times carry a unit" " s \| ms \| us "
check 0 "predict --json with a model" "$H" predict "$V" --model "$T/m.hsm" --json
"$PY" -c "
import json
d = json.load(open('$T/out'))[0]
s, c = d['scores'], d['predicted_ns']
assert d['time_kind'] == 'learned', d['time_kind']
o1 = sorted(range(len(s)), key=lambda i: (s[i], i)); o2 = sorted(range(len(c)), key=lambda i: (c[i], i))
assert o1 == o2, 'calibration keeps the ranking'
assert all(v > 0 for v in c)
" && ok "calibrated times keep the scores' ranking" || bad "calibrated json" "$(head -c 300 "$T/out")"
TEST=$(ls "$DEMO"/npz/layout/xla/default/test/*.npz | head -1)
check 0 "predict with a model on an unlabeled file" "$H" predict "$TEST" --model "$T/m.hsm" --top 2
has "without runtimes, scores stay scores" "unitless scores, lower is faster"
has "without runtimes, no record" "no measured runtimes to check against"

# ---- one predicted time per config, wherever it is shown (issue 29) ------------
# Config 1806 of unet3d (or its last config): predict's table, predict --json,
# compare --json and query configs --json give the same number in ns.
"$H" predict "$UNET" --json >"$T/p.json" 2>"$T/err" &&
"$H" predict "$UNET" --top 2000 >"$T/p.txt" 2>>"$T/err" &&
"$H" compare "$UNET" 0 17 --json >"$T/c.json" 2>>"$T/err" &&
"$H" query --json "$UNET" 'configs where config = 0 or config = 17 show config, predicted, score' >"$T/q.json" 2>>"$T/err" &&
"$PY" - "$T" <<'PYEOF' && ok "one predicted time: predict, predict --json, compare --json and query configs agree" || bad "one predicted time" "$(head -c 300 "$T/err")"
import json, re, sys
t = sys.argv[1]
p = json.load(open(t + "/p.json"))[0]
c = json.load(open(t + "/c.json"))
q = {r["config"]: r for r in json.load(open(t + "/q.json"))}
assert p["time_kind"] == c["time_kind"] == "calibrated", (p["time_kind"], c["time_kind"])
assert c["prediction_unit"] == "ns"
for cfg, key in ((0, "predicted_a"), (17, "predicted_b")):
    want = p["predicted_ns"][cfg]
    assert abs(c[key] - want) <= 1e-9 * want, (cfg, c[key], want)
    assert abs(q[cfg]["predicted_ns"] - want) <= 1e-9 * want, (cfg, q[cfg]["predicted_ns"], want)
    assert q[cfg]["score_ns"] == p["scores"][cfg]
    row = [l for l in open(t + "/p.txt") if re.match(r"\s*\d+=?\s+%d\s" % cfg, l)][0].split()
    shown = float(row[2]) * {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[row[3]]
    assert abs(shown - want) <= 1e-6 * want, (cfg, row, want)
PYEOF
