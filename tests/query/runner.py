"""Runs the data-driven query tests, tests/query/*.test (see README there).

Each group is a query line, the expected output lines and a blank line;
`%%FAIL [STATUS]` groups hold the expected stderr of a query that must fail
(status 1 unless given).  Directives between groups: `%%FILE PATH` (relative
to $DATA, demo:PATH relative to $DEMO, the synthetic demo data, or
repo:PATH relative to the source tree, for tests/data/hlo) and
`%%FORMAT table|csv|json`.  Lines starting with '#' between groups are
comments.

Prints PASS / FAIL lines for tests/run.sh.  With UPDATE_GOLDENS=1 the
expected lines are rewritten from the actual output (review the diff).

Queries that must succeed run in one hloscope process per file and format
(`hloscope query FILE Q1 Q2 ...`, the results split at their boundaries);
when that process fails, prints to stderr or the results do not split into
one per query, they run one by one.  `%%FAIL` queries and those that change the session (open,
format, quit, exit) always run alone.

Usage: runner.py FILE.test...   (environment: HLOSCOPE, DATA, DEMO)
"""
import json
import os
import subprocess
import sys

HLOSCOPE = os.environ["HLOSCOPE"]
DATA = os.environ["DATA"]
DEMO = os.environ.get("DEMO", "")
UPDATE = os.environ.get("UPDATE_GOLDENS") == "1"
ALONE = ("open", "format", "quit", "exit")  # commands that change the session
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
    if path.startswith("repo:"):
        return os.path.join(os.environ.get("ROOT", os.getcwd()), path[5:])
    if path.startswith("demo:"):
        if not DEMO:
            return None
        return os.path.join(DEMO, path[5:])
    return os.path.join(DATA, path)


def run(file, fmt, *queries):
    args = [HLOSCOPE, "query", file]
    if fmt != "table":
        args.append("--" + fmt)
    args.append("--")
    args.extend(queries)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def split_results(fmt, text):
    """The output of several queries, one string per result (each ending
    with a newline): JSON documents follow each other, tables and CSV are
    separated by a blank line."""
    if fmt != "json":
        return [p + "\n" for p in text[:-1].split("\n\n")] if text.endswith("\n") else None
    dec, i, parts = json.JSONDecoder(), 0, []
    while i < len(text):
        try:
            _, j = dec.raw_decode(text, i)
        except ValueError:
            return None
        if text[j:j + 1] != "\n":
            return None
        parts.append(text[i:j + 1])
        i = j + 1
    return parts


def prefetch(tests):
    """{(file, fmt, query): (rc, out, err)} for the queries that must
    succeed, one process per file and format when that works."""
    groups, done = {}, {}
    for file, fmt, query in tests:
        groups.setdefault((file, fmt), []).append(query)
    for (file, fmt), queries in groups.items():
        queries = list(dict.fromkeys(queries))
        rc, out, err = run(file, fmt, *queries)
        parts = split_results(fmt, out) if rc == 0 and not err else None
        if parts is not None and len(parts) == len(queries):
            for q, part in zip(queries, parts):
                done[(file, fmt, q)] = (0, part, "")
    return done


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
        name = os.path.basename(path)
        tests = []  # (file, fmt, item) for every test
        file = None
        fmt = "table"
        for item in parse(lines):
            if item[0] == "directive":
                words = item[2].split(None, 1)
                if words[0] == "%%FILE":
                    file = resolve(words[1].strip())
                else:
                    fmt = words[1].strip()
            elif item[0] == "test":
                tests.append((file, fmt, item))
        done = prefetch([(f, m, it[3]) for f, m, it in tests
                         if f is not None and it[5] is None and it[3].split()[:1] != [] and
                         it[3].split()[0] not in ALONE])
        for file, fmt, item in tests:
            _, start, end, query, expected, fail = item
            label = "query %s:%d: %s" % (name, start + 1, query)
            if file is None:
                print("SKIP %s (no demo data)" % label)
                continue
            rc, out, err = done.get((file, fmt, query)) or run(file, fmt, query)
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
