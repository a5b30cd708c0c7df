"""Checks the query language's HLO fields against the HLO text itself: for
each file, the instruction names, computation names and metadata are read
line by line with regular expressions (not with the C parser), and compared
with what `hloscope query FILE --csv` answers:

  nodes show name, computation_name, opcode, fusion_kind, op_type, op_name,
             source_file, source_line, custom_call_target, sharding
  count by source_file / computation_name / op_type
  show NAME        for the first and last instruction (id and name agree)

Prints PASS / FAIL lines for tests/run.sh.

Usage: hlo_names_check.py FILE.hlo...   (environment: HLOSCOPE)
"""
import csv
import io
import os
import re
import subprocess
import sys
from collections import Counter

HLOSCOPE = os.environ["HLOSCOPE"]
HEADER = re.compile(r"^(?:ENTRY\s+)?%?([A-Za-z0-9_.\-]+)\s*(?:\(.*\)\s*->\s*.*)?\{\s*$")
INSTR = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z0-9_.\-]+)\s*=\s*(.*)$")
OPCODE = re.compile(r"\s*([a-z][a-z0-9\-]*)\(")
QUOTED = r'"((?:[^"\\]|\\.)*)"'
FIELDS = ("name", "computation_name", "opcode", "fusion_kind", "op_type", "op_name",
          "source_file", "source_line", "custom_call_target", "sharding")


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


def unescape(s):
    """C escapes as HLO text writes them: \\n, \\t, \\", \\', \\\\, octal \\NNN."""
    def one(m):
        e = m.group(1)
        if e[0] in "01234567":
            return chr(int(e, 8))
        return ESCAPES.get(e, e)
    return re.sub(r"\\([0-7]{1,3}|.)", one, s)


def frames_resolved(name, value, framed):
    """An attribute as hloscope gives it (hm_instr_attrs), for comparing
    with the text: a metadata stack_frame_id (framed: the written metadata
    has one) is given resolved, as source_file and source_line, so those
    are left out of the comparison."""
    if name == "metadata" and framed:
        value = re.sub(r'\s*(stack_frame_id=\d+|source_file="(?:[^"\\]|\\.)*"|source_line=\d+)', "", value)
        value = value.replace("{ ", "{")
    return value


def split_top(text):
    """text split at the commas at bracket depth 0 outside strings, and
    the index just past the first bracket group that closes at depth 0."""
    parts, cur, depth, quote, esc, closed = [], "", 0, False, False, -1
    for i, c in enumerate(text):
        if quote:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0 and closed < 0:
                closed = i + 1
        elif c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += c
    parts.append(cur)
    return parts, closed


def top_attrs(rest):
    """The instruction's own attributes (name -> value as written): after
    the result shape and the operand list, at bracket depth 0."""
    after = skip_shape(rest)
    _, closed = split_top(after)
    if closed < 0:
        return {}
    out = {}
    for part in split_top(after[closed:])[0]:
        if "=" in part:
            name, value = part.split("=", 1)
            out[name.strip()] = value.strip()
    return out


def attr_braces(text, key):
    """The {...} value of key=, braces included, or ''."""
    m = re.search(r"(?<![\w\-])" + key + r"=\{", text)
    if not m:
        return ""
    i, depth = m.end() - 1, 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i:j + 1]
    return ""


def skip_shape(rest):
    """The text after the result shape: a tuple shape is a (...) group."""
    if rest.startswith("("):
        depth = 0
        for j, c in enumerate(rest):
            depth += c == "("
            depth -= c == ")"
            if depth == 0:
                return rest[j + 1:]
    return rest.split(None, 1)[1] if " " in rest else ""


def meta(md, key):
    """A quoted field of a metadata={...} value."""
    m = re.search(r"(?<![\w])" + key + "=" + QUOTED, md)
    return unescape(m.group(1)) if m else ""


def stack_tables(lines):
    """FileNames, FileLocations and StackFrames: frame id -> (file, line)."""
    files, locs, frames, table = {}, {}, {}, None
    for line in lines:
        word = line.strip()
        if word in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            table = word
            continue
        if not word or not word[0].isdigit():
            table = None if not word else table
            continue
        ident = int(word.split()[0])
        if table == "FileNames":
            files[ident] = unescape(re.search(QUOTED, word).group(1))
        elif table == "FileLocations":
            f = re.search(r"file_name_id=(\d+)", word)
            ln = re.search(r"\bline=(\d+)", word)
            locs[ident] = (int(f.group(1)) if f else -1, ln.group(1) if ln else "")
        elif table == "StackFrames":
            fl = re.search(r"file_location_id=(\d+)", word)
            frames[ident] = int(fl.group(1)) if fl else -1
    out = {}
    for fid, lid in frames.items():
        if lid in locs and locs[lid][0] in files:
            out[fid] = (files[locs[lid][0]], locs[lid][1])
    return out


def read_hlo(path):
    rows, comp = [], None
    lines = open(path, encoding="utf-8").read().split("\n")
    frames = stack_tables(lines)
    for line in lines:
        if line.startswith("HloModule"):
            continue
        h = HEADER.match(line)
        if h and "=" not in line.split("(")[0]:
            comp = h.group(1)
            continue
        m = INSTR.match(line)
        if not m or comp is None:
            continue
        name, rest = m.group(1), m.group(2)
        op = OPCODE.match(skip_shape(rest))
        attrs = top_attrs(rest)
        md = attrs.get("metadata", "")
        kind = re.match(r"(k[A-Za-z]+)$", attrs.get("kind", ""))
        target = re.match(QUOTED, attrs.get("custom_call_target", ""))
        line_no = re.search(r"(?<![\w])source_line=(\d+)", md)
        source_file = meta(md, "source_file")
        source_line = line_no.group(1) if line_no else ""
        frame = re.search(r"(?<![\w])stack_frame_id=(\d+)", md)
        if not source_file and frame and int(frame.group(1)) in frames:
            source_file, source_line = frames[int(frame.group(1))]
        rows.append({
            "name": name, "computation_name": comp, "opcode": op.group(1) if op else "",
            "fusion_kind": kind.group(1) if kind else "",
            "op_type": meta(md, "op_type"), "op_name": meta(md, "op_name"),
            "source_file": source_file, "source_line": source_line,
            "custom_call_target": unescape(target.group(1)) if target else "",
            "sharding": attrs.get("sharding", ""),
        })
    return rows


def query(path, *queries):
    out = subprocess.run([HLOSCOPE, "query", path, "--csv", *queries], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return out.stdout


def check(label, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + detail))
    return ok


def check_file(path):
    base = os.path.basename(path)
    want = read_hlo(path)
    text = query(path, "nodes show " + ", ".join(FIELDS))
    got = list(csv.DictReader(io.StringIO(text)))
    good = check("%s: %d instructions" % (base, len(want)), len(got) == len(want),
                 "hloscope has %d" % len(got))
    # Nodes are laid out computation by computation; the file's order is
    # kept within a computation, so compare as multisets per field.
    for f in FIELDS:
        a, b = Counter(r[f] for r in want), Counter(r[f] for r in got)
        diff = [(k, a[k], b[k]) for k in set(a) | set(b) if a[k] != b[k]][:3]
        good &= check("%s: %s" % (base, f), not diff, "value, text count, hloscope count: %r" % diff)
    pairs = Counter((r["name"], r["computation_name"]) for r in want)
    gpairs = Counter((r["name"], r["computation_name"]) for r in got)
    good &= check("%s: name in computation" % base, pairs == gpairs)
    for f in ("source_file", "computation_name", "op_type"):
        text = query(path, "count by " + f)
        counts = {r[f]: int(r["count"]) for r in csv.DictReader(io.StringIO(text))}
        good &= check("%s: count by %s" % (base, f), counts == dict(Counter(r[f] for r in want)),
                      repr(counts)[:200])
    for r in (got[0], got[-1]):
        text = query(path, "show " + r["name"])
        head = text.splitlines()[0] if text else ""
        good &= check("%s: show %s" % (base, r["name"]), (" %s: " % r["name"]) in head, head)
    return good


def main():
    ok = True
    for path in sys.argv[1:]:
        try:
            ok &= check_file(path)
        except RuntimeError as e:
            ok &= check("%s" % os.path.basename(path), False, str(e))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
