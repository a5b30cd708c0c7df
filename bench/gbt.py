"""bench/gbt.py - a gradient-boosted trees baseline for `hloscope fit`, in numpy.

Usage: gbt.py FIT.json FILE.npz  ->  prints one JSON line:
  {"gbt_tau": ..., "gbt_tau_tiebroken": ..., "fit_tau": ..., "fit_tau_tiebroken": ...,
   "features": d, "params": "..."}

The split is fit's own: FIT.json is `hloscope fit FILE --json` output, whose
"heldout" list names the held-out configs; every other config was trained
on.  The trees see the same inputs fit sees, in raw form:
  layout  each configurable node's 18 layout values (nodes and positions
          that never change dropped), plus per (opcode, position, value) the
          number of nodes taking it;
  tile    the config features.
Boosting: squared loss on the standardized log runtime or on its rank
(chosen by 3-fold CV on the training configs, like fit's own choices),
depth 2 to 4, 50 to 400 trees at learning rate 0.1, row subsampling 0.8,
features cut into at most 32 quantile bins (histogram splits).
"""
import json
import sys

import numpy as np


def tau_b(p, y):
    p = np.asarray(p, float)
    y = np.asarray(y, float)
    i, j = np.triu_indices(len(p), 1)
    a, b = np.sign(p[i] - p[j]), np.sign(y[i] - y[j])
    n0 = len(a)
    s = (a * b).sum()
    n1, n2 = (a == 0).sum(), (b == 0).sum()
    tb = s / np.sqrt((n0 - n1) * (n0 - n2)) if n0 > n1 and n0 > n2 else float("nan")
    tt = s / np.sqrt(n0 * (n0 - n2)) if n0 > n1 and n0 > n2 else float("nan")
    return tb, tt


def features(d):
    if "node_config_feat" in d:
        cf = d["node_config_feat"].astype(np.float64)
        C, K, W = cf.shape
        X = cf.reshape(C, K * W)
        op = d["node_opcode"][d["node_config_ids"]]
        cols = [X]
        for o in np.unique(op):
            sel = cf[:, op == o, :]
            for v in range(-1, 6):
                cols.append((sel == v).sum(axis=1))
        X = np.concatenate(cols, axis=1)
    else:
        X = d["config_feat"].astype(np.float64)
    keep = X.std(axis=0) > 0
    return X[:, keep]


def binned(X, nb=32):
    B = np.zeros(X.shape, np.int64)
    for j in range(X.shape[1]):
        qs = np.unique(np.quantile(X[:, j], np.linspace(0, 1, nb + 1)[1:-1]))
        B[:, j] = np.searchsorted(qs, X[:, j], side="right")
    return B


class Trees:
    def __init__(self, depth, n_trees, lr=0.1, sub=0.8, seed=1, min_leaf=3):
        self.depth, self.n_trees, self.lr, self.sub, self.min_leaf = depth, n_trees, lr, sub, min_leaf
        self.rng = np.random.default_rng(seed)

    def _split(self, B, g, idx):
        n, d = len(idx), B.shape[1]
        nb = B.max() + 1
        flat = (B[idx] + np.arange(d) * nb).ravel()
        cnt = np.bincount(flat, minlength=d * nb).reshape(d, nb)
        sg = np.bincount(flat, weights=np.repeat(g[idx], d), minlength=d * nb).reshape(d, nb)
        cl, gl = cnt.cumsum(1)[:, :-1], sg.cumsum(1)[:, :-1]
        cr, gr = n - cl, sg.sum() - gl
        ok = (cl >= self.min_leaf) & (cr >= self.min_leaf)
        gain = np.where(ok, gl ** 2 / np.maximum(cl, 1) + gr ** 2 / np.maximum(cr, 1), -np.inf)
        j, b = np.unravel_index(np.argmax(gain), gain.shape)
        if not np.isfinite(gain[j, b]):
            return None
        return j, b

    def _tree(self, B, g, idx, depth):
        if depth == self.depth or len(idx) < 2 * self.min_leaf:
            return ("leaf", g[idx].mean())
        s = self._split(B, g, idx)
        if s is None:
            return ("leaf", g[idx].mean())
        j, b = s
        left = idx[B[idx, j] <= b]
        right = idx[B[idx, j] > b]
        return ("node", j, b, self._tree(B, g, left, depth + 1), self._tree(B, g, right, depth + 1))

    @staticmethod
    def _eval(t, B):
        out = np.empty(len(B))
        stack = [(t, np.arange(len(B)))]
        while stack:
            node, idx = stack.pop()
            if node[0] == "leaf":
                out[idx] = node[1]
                continue
            _, j, b, l, r = node
            m = B[idx, j] <= b
            stack.append((l, idx[m]))
            stack.append((r, idx[~m]))
        return out

    def fit(self, B, y):
        self.base = y.mean()
        f = np.full(len(y), self.base)
        self.trees = []
        for _ in range(self.n_trees):
            g = y - f
            idx = np.flatnonzero(self.rng.random(len(y)) < self.sub)
            if len(idx) < 2 * self.min_leaf:
                idx = np.arange(len(y))
            t = self._tree(B, g, idx, 0)
            self.trees.append(t)
            f += self.lr * self._eval(t, B)
        return self

    def predict(self, B):
        f = np.full(len(B), self.base)
        for t in self.trees:
            f += self.lr * self._eval(t, B)
        return f


def target(rt, rank):
    if rank:
        r = np.argsort(np.argsort(rt, kind="stable"), kind="stable").astype(float)
        return r / max(len(r) - 1, 1)
    y = np.log(np.maximum(rt, 1e-12))
    return (y - y.mean()) / (y.std() or 1)


def choose(B, rt):
    grid = [(d, n, r) for d in (2, 3, 4) for n in (50, 150, 400) for r in (1, 0)]
    if len(rt) < 9:
        return grid[4]
    folds = np.arange(len(rt)) % 3
    best, arg = -np.inf, grid[0]
    for d, n, r in grid:
        taus = []
        for f in range(3):
            tr, te = folds != f, folds == f
            m = Trees(d, n).fit(B[tr], target(rt[tr], r))
            t, _ = tau_b(m.predict(B[te]), rt[te])
            if np.isfinite(t):
                taus.append(t)
        if taus and np.mean(taus) > best:
            best, arg = np.mean(taus), (d, n, r)
    return arg


def main():
    fit = json.load(open(sys.argv[1]))
    d = np.load(sys.argv[2])
    rt = d["config_runtime"].astype(float)
    if "config_runtime_normalizers" in d:
        rt = rt / d["config_runtime_normalizers"]
    held = np.array([h["config"] for h in fit["heldout"]])
    train = np.setdiff1d(np.arange(len(rt)), held)
    X = features(d)
    B = binned(X) if X.shape[1] else np.zeros((len(rt), 1), np.int64)
    dep, n, r = choose(B[train], rt[train])
    m = Trees(dep, n).fit(B[train], target(rt[train], r))
    p = m.predict(B[held])
    gt, gtt = tau_b(p, rt[held])
    fs = np.array([h["score"] for h in fit["heldout"]])
    ft, ftt = tau_b(fs, rt[held])
    print(json.dumps({"gbt_tau": gt, "gbt_tau_tiebroken": gtt, "fit_tau": ft, "fit_tau_tiebroken": ftt,
                      "features": int(X.shape[1]), "train": int(len(train)), "heldout": int(len(held)),
                      "params": "depth %d, %d trees, %s target" % (dep, n, "rank" if r else "log")}))


if __name__ == "__main__":
    main()
