#!/usr/bin/python3
"""bench/model_logo.py - the three predictors measured the way users meet them.

Leave one graph out over every labeled file found under the given folders
(layout and tile .npz; a raw TuningData .pb is converted first):

  estimate   the analytic estimate (hloscope predict, no model);
  ranker     the learned ranker trained (hloscope train, --seed 1) on every
             other labeled file of its kind found, the held-out graph never
             seen: files of the same graph (one name, several searches or
             splits) are held out together;
  fit        hloscope fit on 10%, 20% and 50% of the graph's own configs
             (seeds 1, 2, 3), scored on the configs it did not train on,
             beside the estimate on those same configs.

Every metric is computed here with numpy from the scores hloscope writes:
Kendall tau-b, tau with the predictor's ties broken at random (the
expected tau-b; what the issue calls tie-broken), ordered-pair accuracy
(a tie in the scores counts as wrong), and for tile files the top-5
slowdown error on normalized runtimes.  Files whose runtimes are all equal
have no ranking to measure (n/a).

  bench/model_logo.py [--hloscope BIN] [--epochs N] [--markdown] [--update-doc FILE]
                      [--no-ranker] [--fractions 0.1,0.2,0.5] [--seeds 1,2,3] PATH...

--markdown prints the tables docs/model.md holds; --update-doc FILE rewrites
them there, between the lines "<!-- logo-table: start -->" and
"<!-- logo-table: end -->".  Everything is seeded: the same inputs give
the same numbers.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

FRACTIONS = (0.1, 0.2, 0.5)
SEEDS = (1, 2, 3)


def run(args, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args[:3]), p.returncode, p.stderr.strip()[:300]))
    return p.stdout


# ---- metrics ---------------------------------------------------------------

def taus(p, y):
    """tau-b, tie-broken tau, OPA of scores p (lower = faster) against y."""
    p = np.asarray(p, float)
    y = np.asarray(y, float)
    n = len(p)
    if n < 2:
        return (float("nan"),) * 3
    i, j = np.triu_indices(n, 1)
    dp = np.sign(p[i] - p[j])
    dy = np.sign(y[i] - y[j])
    s = float(np.sum(dp * dy))
    n0 = len(i)
    n1 = float(np.sum(dp == 0))
    n2 = float(np.sum(dy == 0))
    if n0 == n2:
        return (float("nan"),) * 3
    if n0 == n1:
        # One score for every config: nothing ranked.  tau-b is undefined;
        # with the ties broken at random it is 0 on average, and no pair is
        # ordered right.
        return float("nan"), 0.0, 0.0
    tb = s / np.sqrt((n0 - n1) * (n0 - n2))
    tt = s / np.sqrt(n0 * (n0 - n2))
    opa = float(np.mean((dp * dy)[dy != 0] > 0))
    return tb, tt, opa


def top_error(p, y, k=5):
    order = np.lexsort((np.arange(len(p)), p))
    return float(np.min(y[order[:k]]) / np.min(y) - 1)


# ---- files -----------------------------------------------------------------

class File:
    def __init__(self, path, shown):
        self.path = path
        self.shown = shown
        d = np.load(path)
        self.kind = "layout" if "node_config_feat" in d.files else "tile"
        rt = d["config_runtime"].astype(float)
        if self.kind == "tile":
            rt = rt / d["config_runtime_normalizers"].astype(float)
        self.runtime = rt
        self.labeled = bool(np.any(rt != 0))
        cf = d["node_config_feat"] if self.kind == "layout" else d["config_feat"]
        cf = cf.reshape(len(rt), -1)
        self.same_configs = len(np.unique(cf, axis=0)) < 2
        # Something to rank: runtimes that differ between configs that differ.
        self.varies = self.labeled and len(np.unique(rt)) > 1 and not self.same_configs
        base = os.path.basename(path)[:-4]
        # One graph, several files: unet_3d.4x4.bf16 under default/ and
        # random/, a demo graph under default/ and random/.
        self.graph = self.kind + ":" + base


def collect(paths, work, hs):
    """Labeled files under paths, each graph once (a .pb's modules are
    converted; a module found twice, as .pb and as .npz, counts once)."""
    files = []
    for top in paths:
        found = []
        if os.path.isfile(top):
            found = [top]
        else:
            for root, _, names in os.walk(top):
                found += [os.path.join(root, n) for n in sorted(names)]
        for f in sorted(found):
            if f.endswith(".npz"):
                files.append(File(f, f))
            elif f.endswith(".pb") and "raw" in f:
                out = os.path.join(work, "pb", os.path.basename(f)[:-3])
                os.makedirs(out, exist_ok=True)
                try:
                    run([hs, "convert", f, "-o", out])
                except RuntimeError:
                    continue
                for n in sorted(os.listdir(out)):
                    files.append(File(os.path.join(out, n), "%s#%s" % (f, n[:-4])))
    seen, out = set(), []
    for f in files:
        d = np.load(f.path)
        key = (f.kind, d["config_runtime"].tobytes(), d["node_opcode"].tobytes())
        if f.labeled and key not in seen:
            seen.add(key)
            out.append(f)
    return out


def origin(f):
    return "real" if "/demo" not in f.path and "synth_" not in f.path else "demo"


# ---- predictors ------------------------------------------------------------

def predict(hs, f, model=None):
    cmd = [hs, "predict", f.path, "--json"] + (["--model", model] if model else [])
    return np.array(json.loads(run(cmd))[0]["scores"], float)


def measure(f, scores, idx=None):
    y = f.runtime if idx is None else f.runtime[idx]
    s = scores if idx is None else scores[idx]
    tb, tt, opa = taus(s, y)
    return {"tau": tb, "tiebroken": tt, "opa": opa,
            "top5": top_error(s, y) if f.kind == "tile" else float("nan")}


def fit_runs(hs, f, est, fractions, seeds):
    out = {}
    for fr in fractions:
        rows = []
        for s in seeds:
            try:
                d = json.loads(run([hs, "fit", f.path, "--train-fraction", str(fr), "--seed", str(s), "--json"]))
            except RuntimeError:
                continue
            idx = np.array([h["config"] for h in d["heldout"]], int)
            sc = np.full(len(f.runtime), np.nan)
            sc[idx] = [h["score"] for h in d["heldout"]]
            m = measure(f, sc, idx)
            e = measure(f, est, idx)
            rows.append((m["tiebroken"], m["opa"], e["tiebroken"], d.get("model", "")))
        if rows:
            out[fr] = rows
    return out


def train_without(hs, files, held, kind, epochs, work):
    train = [f.path for f in files if f.kind == kind and f.graph != held and f.varies]
    if not train:
        return None
    model = os.path.join(work, "m.hsm")
    args = [hs, "train"] + train + ["-o", model, "--seed", "1", "--quiet"]
    if epochs:
        args += ["--epochs", str(epochs)]
    try:
        run(args)
    except RuntimeError as e:
        print("logo: train without %s failed: %s" % (held, e), file=sys.stderr)
        return None
    return model


# ---- report ----------------------------------------------------------------

def fmt(v):
    return "n/a" if v != v else "%.3f" % v


def mean(v):
    v = [x for x in v if x == x]
    return sum(v) / len(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--hloscope", default=os.environ.get("HLOSCOPE", "./hloscope"))
    ap.add_argument("--epochs", type=int, default=0, help="train --epochs (0: its default)")
    ap.add_argument("--fractions", default=",".join(str(x) for x in FRACTIONS))
    ap.add_argument("--seeds", default=",".join(str(x) for x in SEEDS))
    ap.add_argument("--no-ranker", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--update-doc")
    a = ap.parse_args()
    fractions = [float(x) for x in a.fractions.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]
    work = tempfile.mkdtemp(prefix="hloscope-logo.")
    try:
        rows = evaluate(a, fractions, seeds, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report(rows, fractions, seeds, a)
    if a.update_doc:
        update_doc(a.update_doc, text)
    print(text)


def evaluate(a, fractions, seeds, work):
    hs = a.hloscope
    files = collect(a.paths, work, hs)
    rows = []
    models = {}
    for f in files:
        est = predict(hs, f)
        r = {"file": f, "estimate": measure(f, est), "ranker": None, "fit": {}}
        if not f.varies:
            rows.append(r)
            continue
        if not a.no_ranker:
            key = f.graph
            if key not in models:
                models[key] = train_without(hs, files, f.graph, f.kind, a.epochs, work)
                if models[key]:
                    keep = os.path.join(work, "m%d.hsm" % len(models))
                    os.replace(models[key], keep)
                    models[key] = keep
            if models[key]:
                r["ranker"] = measure(f, predict(hs, f, models[key]))
        r["fit"] = fit_runs(hs, f, est, fractions, seeds)
        rows.append(r)
        print("logo: %s done" % f.shown, file=sys.stderr)
    return rows


def name_of(f):
    parts = f.shown.split("/")
    return "/".join(parts[-3:]) if len(parts) >= 3 else f.shown


def report(rows, fractions, seeds, a):
    out = []
    head = ["file", "configs", "estimate", "ranker (LOGO)"] + ["fit %d%%" % round(100 * x) for x in fractions]
    out.append("Tie-broken tau / OPA (fit: mean over seeds %s; in brackets the estimate on the same "
               "held-out configs)." % ",".join(str(s) for s in seeds))
    out.append("")
    for kind in ("layout", "tile"):
        sel = [r for r in rows if r["file"].kind == kind]
        if not sel:
            continue
        out.append("| %s | %s |" % (kind + " " + head[0], " | ".join(head[1:])))
        out.append("|" + "---|" * len(head))
        for r in sel:
            f = r["file"]
            e = r["estimate"]
            cells = [origin(f) + ": `" + name_of(f) + "`", str(len(f.runtime))]
            if not f.varies:
                cells += ["n/a (%s)" % ("configs identical" if f.same_configs else "runtimes equal")]
                cells += ["-"] * (len(head) - 3)
                out.append("| " + " | ".join(cells) + " |")
                continue
            extra = " top5 %s" % fmt(e["top5"]) if kind == "tile" else ""
            cells.append("%s / %s%s" % (fmt(e["tiebroken"]), fmt(e["opa"]), extra))
            k = r["ranker"]
            cells.append("-" if not k else "%s / %s%s" % (fmt(k["tiebroken"]), fmt(k["opa"]),
                                                           " top5 %s" % fmt(k["top5"]) if kind == "tile" else ""))
            for fr in fractions:
                runs = r["fit"].get(fr)
                if not runs:
                    cells.append("-")
                    continue
                cells.append("%s / %s (%s)" % (fmt(mean([x[0] for x in runs])), fmt(mean([x[1] for x in runs])),
                                               fmt(mean([x[2] for x in runs]))))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        for org in ("real", "demo"):
            sub = [r for r in sel if origin(r["file"]) == org and r["file"].varies]
            if not sub:
                continue
            line = "mean over %d %s %s file%s: estimate %s" % (
                len(sub), org, kind, "s" if len(sub) > 1 else "", fmt(mean([r["estimate"]["tiebroken"] for r in sub])))
            rk = [r["ranker"]["tiebroken"] for r in sub if r["ranker"]]
            if rk:
                line += ", ranker %s" % fmt(mean(rk))
            for fr in fractions:
                v = [mean([x[0] for x in r["fit"][fr]]) for r in sub if fr in r["fit"]]
                ev = [mean([x[2] for x in r["fit"][fr]]) for r in sub if fr in r["fit"]]
                if v:
                    line += ", fit %d%% %s (estimate %s)" % (round(100 * fr), fmt(mean(v)), fmt(mean(ev)))
            out.append(line + ".")
        out.append("")
    text = "\n".join(out).rstrip() + "\n"
    if not a.markdown and not a.update_doc:
        text = "\n".join("logo: " + l for l in text.splitlines()) + "\n"
    return text


def update_doc(path, text):
    start, end = "<!-- logo-table: start -->", "<!-- logo-table: end -->"
    with open(path) as fh:
        doc = fh.read()
    if start not in doc or end not in doc:
        raise SystemExit("%s: no %s ... %s block" % (path, start, end))
    a, rest = doc.split(start, 1)
    _, b = rest.split(end, 1)
    with open(path + ".tmp", "w") as fh:
        fh.write(a + start + "\n" + text + end + b)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
