"""Runs the data-driven HLO text tests, tests/hlo/*.test (see README there).

Each test is

    %%TEST title
    <HLO text, any number of lines>
    %%DUMP | %%PRINT | %%FAIL
    <expected output: the structural dump, the printed HLO text, or for
     %%FAIL the error message and its caret lines>

The input goes to `hlo_tool batch` (one process for every test: dump or
print, and for %%DUMP tests also roundtrip), named input.hlo in messages.  %%FAIL wants exit status 2; the others status 0.
Lines starting with '#' right before a %%TEST line are comments; blank
lines at the end of an expected block are ignored.

Prints PASS / FAIL lines for tests/run.sh.  With UPDATE_GOLDENS=1 the
expected blocks are rewritten from the actual output (review the diff).

Usage: runner.py HLO_TOOL FILE.test...
"""
import os
import subprocess
import sys

UPDATE = os.environ.get("UPDATE_GOLDENS") == "1"
SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
MODES = ("%%DUMP", "%%PRINT", "%%FAIL")


def parse(lines):
    """Returns (prefix lines, tests); a test is a dict with title, the input
    lines, mode and expected lines, and `tail`: comment lines that follow it
    (they belong to the next test)."""
    tests, i, n = [], 0, len(lines)
    prefix = []
    while i < n and not lines[i].startswith("%%TEST"):
        prefix.append(lines[i])
        i += 1
    while i < n:
        title = lines[i][len("%%TEST"):].strip()
        i += 1
        inp = []
        while i < n and lines[i] not in MODES:
            if lines[i].startswith("%%TEST"):
                raise SystemExit("test '%s' has no %%DUMP, %%PRINT or %%FAIL line" % title)
            inp.append(lines[i])
            i += 1
        if i >= n:
            raise SystemExit("test '%s' has no %%DUMP, %%PRINT or %%FAIL line" % title)
        mode = lines[i]
        i += 1
        block = []
        while i < n and not lines[i].startswith("%%TEST"):
            block.append(lines[i])
            i += 1
        # trailing blank and comment lines belong to the next test
        k = len(block)
        while k > 0 and (block[k - 1].strip() == "" or block[k - 1].startswith("#")):
            k -= 1
        tests.append({"title": title, "input": inp, "mode": mode,
                      "expected": block[:k], "tail": block[k:]})
    return prefix, tests


class Tool:
    """One `hlo_tool batch` process for all the tests (see hlo_tool.c)."""

    def __init__(self, path):
        self.p = subprocess.Popen([path, "batch"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def run(self, cmd, text):
        """(status, output, error output) of dump, print or roundtrip."""
        data = text.encode("utf-8")
        self.p.stdin.write(b"%s %d\n" % (cmd.encode(), len(data)) + data)
        self.p.stdin.flush()
        head = self.p.stdout.readline().split()
        if len(head) != 3:
            err = self.p.stderr.read().decode("utf-8", "replace")
            raise SystemExit("hlo_tool batch stopped: %s" % err[:500])
        status, olen, elen = (int(x) for x in head)
        out, err = self.p.stdout.read(olen), self.p.stdout.read(elen)
        return status, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

    def close(self):
        """The process's own error output (a sanitizer report lands there)."""
        self.p.stdin.close()
        err = self.p.stderr.read().decode("utf-8", "replace")
        self.p.wait()
        return self.p.returncode, err


def lines_of(text):
    out = text.split("\n")
    if out and out[-1] == "":
        out.pop()
    return out


def round_trip(tool, name, text):
    """The printer's text reads back to the same structure, and printing
    that again gives the same text (hlo_tool roundtrip)."""
    rc, out, err = tool.run("roundtrip", text)
    if rc != 0:
        print("FAIL %s (round trip): %s" % (name, err[:300].replace("\n", "|")))
        return 1
    print("PASS %s (round trip)" % name)
    return 0


def check_file(tool, path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    prefix, tests = parse(lines)
    failed = 0
    for t in tests:
        name = "%s: %s" % (os.path.basename(path), t["title"])
        text = "\n".join(t["input"]) + "\n"
        rc, out, err = tool.run("print" if t["mode"] == "%%PRINT" else "dump", text)
        want_rc = 2 if t["mode"] == "%%FAIL" else 0
        got = lines_of(err if t["mode"] == "%%FAIL" else out)
        if UPDATE and rc == want_rc:
            t["expected"] = got
            print("PASS %s (updated)" % name)
        elif rc != want_rc:
            print("FAIL %s: exit %d, wanted %d: %s" % (name, rc, want_rc,
                                                        (err or out)[:300].replace("\n", "|")))
            failed += 1
        elif got != t["expected"]:
            diff = [("- " + a, "+ " + b) for a, b in zip(t["expected"], got) if a != b]
            first = diff[0] if diff else ("- %d lines" % len(t["expected"]),
                                          "+ %d lines" % len(got))
            print("FAIL %s: output differs: %s | %s" % (name, first[0], first[1]))
            failed += 1
        else:
            print("PASS %s" % name)
        if t["mode"] == "%%DUMP" and rc == 0:
            failed += round_trip(tool, name, text)
    if UPDATE:
        out = list(prefix)
        for t in tests:
            out.append("%%TEST " + t["title"])
            out.extend(t["input"])
            out.append(t["mode"])
            out.extend(t["expected"])
            out.extend(t["tail"] if t["tail"] else [""])
        while out and out[-1] == "":
            out.pop()
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
    return failed


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: runner.py HLO_TOOL FILE.test...")
    tool = Tool(sys.argv[1])
    for path in sys.argv[2:]:
        check_file(tool, path)
    rc, err = tool.close()
    if rc != 0 or any(s in err for s in SANITIZER):
        print("FAIL hlo_tool batch: exit %d: %s" % (rc, err[:400].replace("\n", "|")))


main()
