# dataset_info: `hloscope info FOLDER` over the dataset index (loader/dataset.c).
# The real tree's --json equals what numpy computes from the same files; bad
# files are listed with their error and make the status 2; a missing folder
# is an error; an empty folder is not.
. tests/lib.sh

# 1. The real tree against numpy.
"$HLOSCOPE" info "$DATA" --json >"$T/real.json" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] || ! no_sanitizer_report "$T/err"; then
	bad "info real tree" "exit $rc: $(head -c 300 "$T/err")"
elif need numpy; then
	"$PY" - "$DATA" "$T/real.json" <<'PYEOF'
import glob, json, os, sys
import numpy as np
root, got = sys.argv[1], json.load(open(sys.argv[2]))
want = []
for p in sorted(glob.glob(os.path.join(root, "**", "*.npz"), recursive=True)):
    rel = os.path.relpath(p, root)
    d = np.load(p)
    parts = rel.split(os.sep)[:-1]
    pick = lambda words: ([w for w in parts if w in words] or [""])[-1]
    rt = d["config_runtime"].astype(float)
    e = {"file": rel, "kind": "layout" if "node_config_feat" in d.files else "tile",
         "collection": pick(("xla", "nlp")), "search": pick(("default", "random")),
         "split": pick(("train", "valid", "test")),
         "nodes": d["node_feat"].shape[0], "edges": d["edge_index"].shape[0],
         "configs": len(rt),
         "configurable_nodes": d["node_config_ids"].shape[0] if "node_config_ids" in d.files else 0,
         "labeled": bool((d["config_runtime"] != 0).any())}
    if e["labeled"]:  # ns as stored; tile files add runtime / normalizer
        e["runtime_min"], e["runtime_max"] = float(rt.min()), float(rt.max())
        if "config_runtime_normalizers" in d.files:
            nr = rt / d["config_runtime_normalizers"]
            e["normalized_min"], e["normalized_max"] = float(nr.min()), float(nr.max())
    want.append(e)
graphs = got.get("graphs", [])
print(("PASS" if len(graphs) == len(want) == 7 else "FAIL") + " info real tree: 7 graphs")
for w, g in zip(want, graphs):
    diff = [k for k in w if (abs(g.get(k, 0) - w[k]) > 1e-9 * abs(w[k])
                              if isinstance(w[k], float) else g.get(k) != w[k])]
    extra = [k for k in g if k not in w]
    name = "info real tree: " + os.path.basename(w["file"])
    if diff or extra:
        print("FAIL %s: differs in %s" % (name, ", ".join(diff + extra)))
    else:
        print("PASS " + name)
PYEOF
fi

# 2. A folder with a good file (a link to a real one) and bad ones.
mkdir -p "$T/mixed/layout/xla/random/train" "$T/mixed/junk"
ln -s "$DATA/npz/layout/xla/random/train/openai_v0_rnn_optimized.npz" \
	"$T/mixed/layout/xla/random/train/rnn.npz"
printf 'not a zip' >"$T/mixed/junk/garbage.npz"
: >"$T/mixed/junk/empty.npz"
expect_status 2 "info mixed folder: status 2" "$HLOSCOPE" info "$T/mixed"
if grep -q 'junk/garbage.npz' "$T/out" && grep -q 'junk/empty.npz' "$T/out" &&
	grep -q '^error' "$T/out"; then ok "info mixed folder: bad files named"; else
	bad "info mixed folder: bad files named" "$(head -c 300 "$T/out")"; fi
if grep -q 'layout.*1277.*2063.*layout/xla/random/train/rnn.npz' "$T/out"; then
	ok "info mixed folder: good file indexed"; else
	bad "info mixed folder: good file indexed" "$(head -c 300 "$T/out")"; fi
if no_sanitizer_report "$T/err"; then ok "info mixed folder: clean"; else
	bad "info mixed folder: clean" "$(head -c 300 "$T/err")"; fi
expect_status 2 "info mixed folder --json: status 2" "$HLOSCOPE" info "$T/mixed" --json
if "$PY" -c '
import json, sys
g = json.load(open(sys.argv[1]))["graphs"]
assert [x["file"] for x in g] == ["junk/empty.npz", "junk/garbage.npz", "layout/xla/random/train/rnn.npz"], g
assert "error" in g[0] and "error" in g[1] and "error" not in g[2]
assert g[2]["nodes"] == 1277 and g[2]["configurable_nodes"] == 62
' "$T/out" 2>"$T/pyerr"; then ok "info mixed folder --json: errors per file"; else
	bad "info mixed folder --json: errors per file" "$(tail -c 300 "$T/pyerr")"; fi

# 3. A symlink loop ends; every file is listed once.
mkdir -p "$T/loop/a"
ln -s "$DATA/npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz" "$T/loop/a/r.npz"
ln -s .. "$T/loop/a/up"
expect_status 0 "info symlink loop: status 0" "$HLOSCOPE" info "$T/loop"
n=$(grep -c 'r\.npz' "$T/out")
if [ "$n" -eq 1 ]; then ok "info symlink loop: file listed once"; else
	bad "info symlink loop: file listed once" "listed $n times"; fi

# 4. Missing and empty folders.
expect_status 2 "info missing folder" "$HLOSCOPE" info "$T/no/such/folder/"
mkdir -p "$T/empty"
expect_status 0 "info empty folder" "$HLOSCOPE" info "$T/empty"
if grep -q '^0 graphs' "$T/out"; then ok "info empty folder: 0 graphs"; else
	bad "info empty folder: 0 graphs" "$(head -c 200 "$T/out")"; fi

# A plain HLO module in a folder is a module: no dataset fields, in the
# table and in --json.
mkdir -p "$T/modules"
cp tests/data/hlo/i3d_tf_xla_cluster_1.hlo "$T/modules/"
expect_status 0 "info folder of a module" "$HLOSCOPE" info "$T/modules"
if grep -Eq '^module +1170 +1253 +i3d_tf_xla_cluster_1.hlo$' "$T/out"; then ok "info folder: a module row has no dataset fields"
else bad "info folder: a module row has no dataset fields" "$(head -c 300 "$T/out")"; fi
expect_status 0 "info --json folder of a module" "$HLOSCOPE" info --json "$T/modules"
if grep -q '"kind": "module"' "$T/out" && ! grep -Eq '"(collection|search|split|configs|configurable_nodes|labeled)"' "$T/out"
then ok "info --json folder: a module has no dataset fields"
else bad "info --json folder: a module has no dataset fields" "$(head -c 300 "$T/out")"; fi
