"""`hloscope diff` against mutated copies whose true diff is known
(tests/hlo/mutate_diff.py wrote them and want.json): for each copy, the
instructions only in the original and only in the copy, and the changed
pairs with their kinds (and the fusion a moved op went into) must be
exactly the ones the mutation made.  Prints PASS / FAIL lines.

Usage: check_diff.py HLOSCOPE ORIGINAL.hlo MUTATIONS_DIR
"""
import json
import os
import subprocess
import sys


def diff(hloscope, a, b, *flags):
    """The JSON report; its exit status must be diff(1)'s: 0 the same, 1 not."""
    p = subprocess.run([hloscope, "diff", a, b, "--json", *flags], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
    d = json.loads(p.stdout)
    if p.returncode != int(d["differ"]) or d["differ"] != bool(d["changed"] or d["unmatched_a"] or d["unmatched_b"]):
        raise RuntimeError("exit %d with differ %s" % (p.returncode, d["differ"]))
    return d


def check(label, ok, why=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + why))
    return ok


def main():
    hloscope, original, mdir = sys.argv[1:4]
    base = os.path.basename(original)
    want = json.load(open(os.path.join(mdir, "want.json")))
    ok = True
    try:
        d = diff(hloscope, original, original)
    except RuntimeError as e:
        check("%s: a module with itself" % base, False, str(e))
        sys.exit(1)
    ok &= check("%s: a module with itself: no change" % base,
                not d["changed"] and not d["unmatched_a"] and not d["unmatched_b"],
                "changed %d, only a %d, only b %d" % (len(d["changed"]), len(d["unmatched_a"]),
                                                      len(d["unmatched_b"])))
    for name, w in sorted(want.items()):
        copy = os.path.join(mdir, name + ".hlo")
        try:
            d = diff(hloscope, original, copy)
        except RuntimeError as e:
            ok &= check("%s %s" % (base, name), False, str(e))
            continue
        got_changed = sorted([c["a"], c["b"], sorted(c["changes"])] for c in d["changed"])
        want_changed = sorted([a, b, sorted(k)] for a, b, k in w["changed"])
        why = []
        if sorted(d["unmatched_a"]) != sorted(w["only_a"]):
            why.append("only in A %s, want %s" % (sorted(d["unmatched_a"])[:5], sorted(w["only_a"])))
        if sorted(d["unmatched_b"]) != sorted(w["only_b"]):
            why.append("only in B %s, want %s" % (sorted(d["unmatched_b"])[:5], sorted(w["only_b"])))
        if got_changed != want_changed:
            why.append("changed %s, want %s" % (got_changed[:4], want_changed))
        for a, f in w.get("fused_into", {}).items():
            got = [c.get("fused_into") for c in d["changed"] if c["a"] == a]
            if got != [f]:
                why.append("%s fused into %s, want %s" % (a, got, f))
        for a, attr in w.get("attributes", {}).items():
            got = [", ".join(x["name"] for x in c.get("attributes", [])) for c in d["changed"] if c["a"] == a]
            if got != [attr]:
                why.append("%s attributes %s, want %s" % (a, got, attr))
        summary = "%d matched, %d changed, %d only in A, %d only in B" % (
            d["matched"], len(d["changed"]), len(d["unmatched_a"]), len(d["unmatched_b"]))
        ok &= check("%s %s: %s, as the mutation made" % (base, name, summary), not why, "; ".join(why))
    # renamed: no name in common, so --names-only matches nothing
    d = diff(hloscope, original, os.path.join(mdir, "renamed.hlo"), "--names-only")
    ok &= check("%s renamed, --names-only: nothing matched" % base, d["matched"] == 0,
                "%d matched" % d["matched"])
    sys.exit(0 if ok else 1)


main()
