"""hloref.py - the tests' one reading of HLO text, independent of hloscope's
C parser: line by line, with regular expressions and bracket counting.  The
checkers (tests/query/hlo_*_check.py, tests/render/dot_*_check.py,
tests/tui/*_check.py, tests/hlo/cost_check.py, tests/hlo/hlo_counts.py,
tests/layers_check.py, tests/hlo/make_dump.py) compare what hloscope says
with what this reads.  (tests/hlo/hlo_featurize.py keeps its own reader: it
is the speed reference.)

    m = Module(path)         every computation of the file, in file order
    m.comps                  {computation: [instruction]}, m.entry its ENTRY
    m.instrs                 every instruction, in file order
    m.by[(comp, name)]       an instruction by computation and name
    m.callers[comp]          [(caller instruction, key, position)], file order
    m.users[(comp, name)]    the names of the instructions using it, each once
    m.role(comp)             what the computation is for (loader/graph_hlo.c)
    m.executed(comp)         not a fusion body nor a reducer
    m.source(param, caller, key)  the caller's operand a parameter stands for
    m.root(comp)             the name of its ROOT (its last instruction if none)
    m.reachable(comp)        the computations it calls, at any depth, and itself
    modules(path)            [Module], one per HloModule of the file

An instruction is a dict: name, comp, root (bool), shape (as written, XLA's
/*index=N*/ comments kept; shape_text drops them), opcode, operands (names in
the order written, repeats kept), attrs ([(key, value)] as written, in
order), attr ({key: value}), calls ([(key, computation)]), param (its
parameter number, else -1), metadata, op_name (unescaped), line (stripped).
"""
import math
import re

HEADER = re.compile(r"^(ENTRY\s+)?%?([A-Za-z0-9_.\-]+)\s*(?:\(.*\)\s*->\s*.*)?\{\s*$")
INSTR = re.compile(r"^\s*(ROOT\s+)?%?([A-Za-z0-9_.\-]+)\s*=\s*(.*)$")
OPCODE = re.compile(r"\s*([a-z][a-z0-9\-]*)\(")
QUOTED = r'"((?:[^"\\]|\\.)*)"'
COMMENT = re.compile(r"/\*.*?\*/")
# the attributes that name computations, in the order the checkers list them
CALL_KEYS = ("calls", "to_apply", "body", "condition", "select", "scatter", "true_computation",
             "false_computation", "branch_computations", "called_computations")
COLLECTIVES = {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
               "all-to-all", "ragged-all-to-all", "collective-permute", "collective-permute-start",
               "collective-broadcast"}
# the callers whose called computation is a reducer (loader/graph_hlo.c)
REDUCERS = {"reduce", "reduce-window", "reduce-scatter", "all-reduce", "all-reduce-start", "scatter",
            "select-and-scatter", "map", "sort", "reduce-precision"}
# bytes per element; every narrow type (8-bit floats, 4-, 2- and 1-bit
# integers, f4) one byte, as loader/hlo_module.c counts them
ELEMENT_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4,
                 "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}
ELEMENT_BYTES.update({t: 1 for t in ("s4", "u4", "s2", "u2", "s1", "u1", "f4e2m1fn", "f8e5m2", "f8e4m3fn",
                                     "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e4m3", "f8e3m4",
                                     "f8e8m0fnu")})
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


# ---- text --------------------------------------------------------------------

def unescape(s):
    """C escapes as HLO text writes them: \\n, \\t, \\", \\', \\\\, octal \\NNN."""
    def one(m):
        e = m.group(1)
        return chr(int(e, 8)) if e[0] in "01234567" else ESCAPES.get(e, e)
    return re.sub(r"\\([0-7]{1,3}|.)", one, s)


def split_top(text):
    """text split at the commas at bracket depth 0 outside strings, and the
    index just past the first bracket group that closes at depth 0 (-1)."""
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


def items(text):
    """The stripped items between top-level commas, empty ones left out."""
    return [p.strip() for p in split_top(text)[0] if p.strip()]


def group_end(text, i):
    """The index just past the bracket group that opens at text[i]."""
    depth, quote, esc = 0, False, False
    for j in range(i, len(text)):
        c = text[j]
        if quote:
            esc, quote = (False, quote) if esc else (c == "\\", c != '"')
        elif c == '"':
            quote = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def split_shape(rest):
    """(the result shape as written, the text after it): a tuple is one
    (...) group, anything else the first word."""
    if rest.startswith("("):
        j = group_end(rest, 0)
        return rest[:j], rest[j:]
    parts = rest.split(None, 1)
    return (parts[0] if parts else ""), (parts[1] if len(parts) > 1 else "")


def shape_text(shape):
    """A shape as written without XLA's /*index=N*/ comments."""
    return COMMENT.sub("", shape)


def meta(md, key):
    """A quoted field of a metadata={...} value, unescaped ('' when none)."""
    m = re.search(r"(?<![\w])" + key + "=" + QUOTED, md)
    return unescape(m.group(1)) if m else ""


# ---- shapes ------------------------------------------------------------------


def frames_resolved(name, value, framed):
    """An attribute as hloscope gives it (hm_instr_attrs), for comparing
    with the text: a metadata stack_frame_id (framed: the written metadata
    has one) is given resolved, as source_file and source_line, so those
    are left out of the comparison."""
    if name == "metadata" and framed:
        value = re.sub(r'\s*(stack_frame_id=\d+|source_file="(?:[^"\\]|\\.)*"|source_line=\d+)', "", value)
        value = value.replace("{ ", "{")
    return value

def shape_bytes(shape):
    """Bytes of a shape text: elements times element bytes (a dynamic
    dimension at its bound), tuples summed; token and opaque 0."""
    total = 0
    for m in re.finditer(r"\b([a-z][a-z0-9]*)\[([0-9,<=]*)\]", shape):
        n = 1
        for d in m.group(2).split(","):
            if d:
                n *= int(d.replace("<=", ""))
        total += n * ELEMENT_BYTES.get(m.group(1), 0)
    return total


def parse_shape(text):
    """(shape, rest): shape = ("tuple", [elements]) or (type, dims, layout),
    layout the minor-to-major list or None."""
    text = text.lstrip()
    if text.startswith("("):
        end = group_end(text, 0) - 1
        return ("tuple", [parse_shape(p)[0] for p in items(text[1:end])]), text[end + 1:]
    m = re.match(r"([a-z0-9]+)\[([^\]]*)\](\{[^}]*\})?", text)
    dims = [int(d.replace("<=", "")) for d in m.group(2).split(",") if d.strip()]
    layout = None
    if m.group(3):
        layout = [int(x) for x in m.group(3)[1:-1].split(":")[0].split(",") if x.strip()]
    return (m.group(1), dims, layout), text[m.end():]


def is_array(s):
    return s[0] not in ("tuple", "token", "opaque") and s[0] in ELEMENT_BYTES


def elements(s):
    return math.prod(s[1]) if s is not None and is_array(s) else 0


def nbytes(s):
    """Bytes of a parsed shape, tuples summed."""
    if s is None:
        return 0
    if s[0] == "tuple":
        return sum(nbytes(e) for e in s[1])
    return elements(s) * ELEMENT_BYTES.get(s[0], 0)


# ---- op_name namespaces --------------------------------------------------------

def namespaces(op_name):
    """The namespaces an op_name lies in, outermost first: every prefix
    before a '/' ('/' inside brackets does not split)."""
    cuts, depth = [], 0
    for i, c in enumerate(op_name or ""):
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth > 0:
            depth -= 1
        elif c == "/" and depth == 0:
            cuts.append(i)
    return [op_name[:c] for c in cuts]


def layer_of(op_name):
    """An instruction's layer: its op_name without the last component;
    "(top level)" for one component, "(no op_name)" for none."""
    if not op_name:
        return "(no op_name)"
    ns = namespaces(op_name)
    return ns[-1] if ns else "(top level)"


# ---- instructions and modules ------------------------------------------------

def parse_instr(comp, line):
    """One instruction line of computation comp (INSTR matches it)."""
    m = INSTR.match(line)
    name, rest = m.group(2), m.group(3)
    shape, after = split_shape(rest)
    op = OPCODE.match(after)
    opcode, operands, attrs = (op.group(1) if op else ""), [], []
    if op:
        close = group_end(after, op.end() - 1)
        if opcode not in ("constant", "parameter"):
            inside = COMMENT.sub(" ", after[op.end():close - 1])
            operands = [p.split()[-1].lstrip("%") for p in split_top(inside)[0] if p.strip()]
        for part in split_top(after[close:])[0]:
            if "=" in part:
                k, v = part.split("=", 1)
                attrs.append((k.strip(), v.strip()))
    attr = dict(attrs)
    calls = [(k, c.strip().lstrip("%")) for k, v in attrs if k in CALL_KEYS
             for c in v.strip("{}").split(",") if c.strip()]
    number = re.match(r"\s*parameter\((\d+)\)", after)
    md = attr.get("metadata", "")
    return {"name": name, "comp": comp, "root": bool(m.group(1)), "shape": shape, "opcode": opcode,
            "operands": operands, "attrs": attrs, "attr": attr, "calls": calls,
            "param": int(number.group(1)) if number else -1, "metadata": md,
            "op_name": meta(md, "op_name"), "line": line.strip()}


def stack_frames(lines):
    """The module's FileNames, FileLocations and StackFrames tables: frame
    id -> (file, line as written)."""
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
    return {fid: (files[locs[lid][0]], locs[lid][1]) for fid, lid in frames.items()
            if lid in locs and locs[lid][0] in files}


class Module:
    def __init__(self, path=None, lines=None):
        if lines is None:
            lines = open(path, encoding="utf-8").read().split("\n")
        self.name, self.comps, self.entry, comp = "", {}, None, None
        for line in lines:
            if line.startswith("HloModule"):
                self.name = self.name or re.split(r"[,\s]", line[len("HloModule"):].strip())[0].lstrip("%")
                continue
            h = HEADER.match(line)
            if h and "=" not in line.split("(")[0]:
                comp = h.group(2)
                self.comps[comp] = []
                self.entry = comp if h.group(1) else self.entry
                continue
            if comp is not None and INSTR.match(line):
                self.comps[comp].append(parse_instr(comp, line))
        self.entry = self.entry or (list(self.comps)[-1] if self.comps else None)
        self.frames = stack_frames(lines)
        self.instrs = [i for c in self.comps.values() for i in c]
        self.by = {(i["comp"], i["name"]): i for i in self.instrs}
        self.callers = {c: [] for c in self.comps}
        for i in self.instrs:
            for pos, (k, c) in enumerate(i["calls"]):
                if c in self.callers:
                    self.callers[c].append((i, k, pos))
        self.users = {}
        for i in self.instrs:
            for o in i["operands"]:
                self.users.setdefault((i["comp"], o), set()).add(i["name"])

    def role(self, comp):
        """What a computation is for, from its first caller in file order,
        as loader/graph_hlo.c's role_for gives it."""
        if comp == self.entry:
            return "entry"
        if not self.callers.get(comp):
            return "other"
        caller, key, _ = self.callers[comp][0]
        op = caller["opcode"]
        if op == "fusion":
            return "fusion"
        if op == "while":
            return "while-body" if key == "body" else "while-condition"
        if op == "conditional":
            return "branch"
        if op == "call":
            return "call"
        if op in REDUCERS:
            return "reducer"
        if op.startswith("async-"):
            return "async"
        return "other"

    def executed(self, comp):
        return self.role(comp) not in ("fusion", "reducer")

    def source(self, param, caller, key):
        """The operand index of `caller` that parameter `param` stands for
        (fusion, call, custom-call, map, async-start: operand N; while:
        operand 0; conditional branch k: operand k + 1; sort: N / 2), or -1."""
        op, n = caller["opcode"], param["param"]
        if op in ("fusion", "call", "async-start", "custom-call", "map"):
            k = n
        elif op == "while":
            k = 0 if n == 0 else -1
        elif op == "conditional":  # true is branch 0, false branch 1
            if key == "branch_computations":
                branch = [c for kk, c in caller["calls"] if kk == key].index(param["comp"])
            else:
                branch = 1 if key == "false_computation" else 0
            k = branch + 1 if n == 0 else -1
        elif op == "sort":
            k = n // 2
        else:
            k = -1
        return k if 0 <= k < len(caller["operands"]) else -1

    def root(self, comp):
        roots = [i["name"] for i in self.comps[comp] if i["root"]]
        return roots[0] if roots else self.comps[comp][-1]["name"]

    def reachable(self, comp):
        seen, todo = {comp}, [comp]
        while todo:
            for i in self.comps[todo.pop()]:
                for _, c in i["calls"]:
                    if c in self.comps and c not in seen:
                        seen.add(c)
                        todo.append(c)
        return seen

    def source_location(self, i):
        """(source_file, source_line) of an instruction: its metadata's, or
        its stack frame's."""
        md = i["metadata"]
        line = re.search(r"(?<![\w])source_line=(\d+)", md)
        where = (meta(md, "source_file"), line.group(1) if line else "")
        frame = re.search(r"(?<![\w])stack_frame_id=(\d+)", md)
        if not where[0] and frame and int(frame.group(1)) in self.frames:
            where = self.frames[int(frame.group(1))]
        return where


def modules(path):
    """One Module per HloModule line of the file (a file of several)."""
    out, cur = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("HloModule"):
            cur = [line]
            out.append(cur)
        elif cur is not None:
            cur.append(line)
    return [Module(lines=lines) for lines in out]
