"""Runs the data-driven query tests, tests/query/*.test (see README there).

Each group is a query line, the expected output lines and a blank line;
`%%FAIL [STATUS]` groups hold the expected stderr of a query that must fail
(status 1 unless given).  Directives between groups: `%%FILE PATH` (relative
to $DATA, or demo:PATH relative to $DEMO, the synthetic demo data) and
`%%FORMAT table|csv|json`.  Lines starting with '#' between groups are
comments.

Prints PASS / FAIL lines for tests/run.sh.  With UPDATE_GOLDENS=1 the
expected lines are rewritten from the actual output (review the diff).

Usage: runner.py FILE.test...   (environment: HLOSCOPE, DATA, DEMO)
"""
import os
import subprocess
import sys

HLOSCOPE = os.environ["HLOSCOPE"]
DATA = os.environ["DATA"]
DEMO = os.environ.get("DEMO", "")
UPDATE = os.environ.get("UPDATE_GOLDENS") == "1"
SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def parse(lines):
    """Yields ('directive', i, text) / ('comment', i, text) / ('blank', i) and
    ('test', start, end, query, expected, fail_status) where lines[start:end]
    are the group's lines (header and expected output)."""
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.strip() == "":
            yield ("blank", i)
            i += 1
            continue
        if line.startswith("#"):
            yield ("comment", i, line)
            i += 1
            continue
        if line.startswith("%%FILE") or line.startswith("%%FORMAT"):
            yield ("directive", i, line)
            i += 1
            continue
        start = i
        fail = None
        if line.startswith("%%FAIL"):
            parts = line.split()
            fail = int(parts[1]) if len(parts) > 1 else 1
            i += 1
            if i >= n:
                raise SystemExit("%%FAIL at the end of the file")
        query = lines[i]
        i += 1
        expected = []
        while i < n and lines[i].strip() != "":
            expected.append(lines[i])
            i += 1
        yield ("test", start, i, query, expected, fail)


def resolve(path):
    if path.startswith("demo:"):
        if not DEMO:
            return None
        return os.path.join(DEMO, path[5:])
    return os.path.join(DATA, path)


def run(file, fmt, query):
    args = [HLOSCOPE, "query", file]
    if fmt != "table":
        args.append("--" + fmt)
    args.append(query)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def lines_of(text):
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


def main():
    passed = failed = 0
    for path in sys.argv[1:]:
        with open(path) as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        out_lines = []
        last = 0
        file = None
        fmt = "table"
        name = os.path.basename(path)
        for item in parse(lines):
            if item[0] == "directive":
                words = item[2].split(None, 1)
                if words[0] == "%%FILE":
                    file = resolve(words[1].strip())
                else:
                    fmt = words[1].strip()
                continue
            if item[0] != "test":
                continue
            _, start, end, query, expected, fail = item
            label = "query %s:%d: %s" % (name, start + 1, query)
            if file is None:
                print("SKIP %s (no demo data)" % label)
                continue
            rc, out, err = run(file, fmt, query)
            bad = None
            if any(s in err for s in SANITIZER):
                bad = "sanitizer report: " + err[:400].replace("\n", "|")
            elif fail is None:
                got = lines_of(out)
                if rc != 0:
                    bad = "exit %d: %s" % (rc, err.strip()[:300])
                elif err:
                    bad = "unexpected stderr: " + err[:300].replace("\n", "|")
                elif got != expected:
                    bad = diff(expected, got)
            else:
                got = lines_of(err)
                if rc != fail:
                    bad = "exit %d, wanted %d; stderr: %s" % (rc, fail, err.strip()[:300])
                elif out:
                    bad = "unexpected stdout: " + out[:200].replace("\n", "|")
                elif got != expected:
                    bad = diff(expected, got)
            if UPDATE and (fail is None and rc == 0 or fail is not None and rc == fail):
                header = lines[start:start + (2 if fail is not None else 1)]
                out_lines.extend(lines[last:start])
                out_lines.extend(header)
                out_lines.extend(got)
                last = end
                print("PASS %s (updated)" % label)
                passed += 1
                continue
            if bad:
                print("FAIL %s: %s" % (label, bad))
                failed += 1
            else:
                print("PASS %s" % label)
                passed += 1
        if UPDATE:
            out_lines.extend(lines[last:])
            with open(path + ".tmp", "w") as f:
                f.write("\n".join(out_lines) + "\n")
            os.replace(path + ".tmp", path)
    return 1 if failed else 0


def diff(expected, got):
    for k in range(max(len(expected), len(got))):
        e = expected[k] if k < len(expected) else "<none>"
        g = got[k] if k < len(got) else "<none>"
        if e != g:
            return "line %d: expected %r, got %r" % (k + 1, e, g)
    return "differs"


if __name__ == "__main__":
    sys.exit(main())
