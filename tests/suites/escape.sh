# Nothing read from a file reaches the terminal raw (issue 28): names,
# metadata, attributes, data files' headers and cells, file names in a folder
# and in a zip, all holding ESC sequences (retitle, clear the screen), BEL,
# CR, TAB, a C1 control (U+009B, CSI) and invalid UTF-8, through every
# output: info, query (table, text, --json, --csv), the REPL (on a pipe and
# on a terminal), dot --text, SVG and DOT files, diff (report, JSON and the
# explorer's view), compare, predict, check, dump, messages, and the explorer
# (scripted; its screens).  Each is checked for the raw bytes (none may be
# there) and for the escaped form (base/escape.h: \x1b, \x07, \xc2\x9b, ...);
# JSON must parse and give back the original text (U+FFFD for invalid bytes),
# CSV must quote such a field and read back exact, SVG must be XML.
. tests/lib.sh
. tests/tui_lib.sh

ESC=$(printf '\033') BEL=$(printf '\007') CSI1=$(printf '\302\233') FF=$(printf '\377')
# clean NAME FILE...: no ESC, BEL, C1 CSI or 0xff byte in any FILE
clean() {
	name=$1
	shift
	if LC_ALL=C grep -lF -e "$ESC" -e "$BEL" -e "$CSI1" -e "$FF" "$@" >"$T/dirty" 2>/dev/null; then
		bad "$name" "raw control bytes in $(tr '\n' ' ' <"$T/dirty"): $(LC_ALL=C grep -hF -e "$ESC" -e "$BEL" "$@" | head -2 | cat -v)"
	else
		ok "$name"
	fi
}
# shows NAME FILE TEXT: FILE holds TEXT (the escaped form)
shows() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1" "no '$3' in: $(head -c 300 "$2" | cat -v)"; fi
}

# ---- inputs ----------------------------------------------------------------

# HLO text: names are words, but strings (metadata, custom-call target,
# backend config) carry any byte through their escapes.
cat >"$T/evil.hlo" <<'EOF'
HloModule evil_module

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0), metadata={op_name="jit(f)/\x1b]0;pwned\x07/layer_\xc2\x9b31m/dot" source_file="/src/\x1b[2Jmodel.py" source_line=3}
  p1 = f32[8,16]{1,0} parameter(1)
  d = f32[4,16]{1,0} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/\x1b[31mred\tTab/dot"}
  ROOT c = f32[4,16]{1,0} custom-call(d), custom_call_target="\x1b[2Jtarget\r\xff", backend_config="{\"k\":\"\x1b]0;bc\x07\"}"
}
EOF
# Protobufs: instruction names (and an op_name) of real modules patched in
# place, same lengths; a folder and a zip whose file names hold ESC.
"$PY" - "$T" <<'EOF' || bad "escape: inputs" "python could not write them"
import os, struct, sys, zipfile
t = sys.argv[1]
reps = [(b"multiply.200", b"mul\x1b[2J\x07.200"), (b"Dropout_1/dropout/Mul", b"Dropout_1/\x1b]0;T\x07t/Mul"),
        (b"param_0.355", b"param\xc2\x9b.\xff55")]
for src, dst in (("tests/data/hlo/tpu_op_fusion.261.HloModuleProto.pb", "evil.pb"),
                 ("tests/data/raw/op_tuning_data.pb", "evil_tuning.pb")):
    b = open(src, "rb").read()
    for a, c in reps:
        assert len(a) == len(c) and a in b
        b = b.replace(a, c)
    open(os.path.join(t, dst), "wb").write(b)
open(os.path.join(t, "data.csv"), "wb").write(
    b'name,time_us,note\np0,1.5,"\x1b]0;t\x07 hi, there"\n\x1b[2Jevil,2,x\n')
open(os.path.join(t, "bad.csv"), "wb").write(b"name,t\x1b]0;title\x07\np0,1\n")
open(os.path.join(t, "data.json"), "wb").write(
    b'{"d": {"label": "\\u001b[31mred\\u0007"}, "\\u001b[2Jevil": {"label": "x"}}')
os.makedirs(os.path.join(t, "dir"))
os.makedirs(os.path.join(t, "dir_bad"))
open(os.path.join(t, "dir", "m\x1b]0;f\x07.hlo"), "wb").write(open(os.path.join(t, "evil.hlo"), "rb").read())
open(os.path.join(t, "dir_bad", "bad\x1b[2J.hlo"), "wb").write(b"HloModule\n")
hdr = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }"
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + struct.pack("<2q", 1, 2)
with zipfile.ZipFile(os.path.join(t, "evil.npz"), "w") as z:
    z.writestr("\x1b]0;z\x07.npy", npy)
os.symlink("evil.pb", os.path.join(t, "r\x1b]0;x\x07.pb"))
EOF
PB=tests/data/hlo/tpu_op_fusion.261.HloModuleProto.pb
EP=$(printf '%s/p\033]0;x\007.npz' "$T")  # a dataset file of configs, for predict
ER=$(printf '%s/r\033]0;x\007.pb' "$T")   # one module, for the REPL's prompt
"$HLOSCOPE" convert "$T/evil_tuning.pb#2" -o "$EP" >"$T/convert.out" 2>&1 ||
	bad "escape: inputs" "convert: $(head -c 300 "$T/convert.out")"

# ---- batch output ------------------------------------------------------------

run() { # run NAME CMD...: stdout in $T/NAME.out, stderr in $T/NAME.err
	n=$1
	shift
	"$@" >"$T/$n.out" 2>"$T/$n.err"
	echo $? >"$T/$n.rc"
}
run info "$HLOSCOPE" info "$T/evil.hlo" --data "$T/data.csv"
run info_json "$HLOSCOPE" info "$T/evil.hlo" --data "$T/data.csv" --json
run table "$HLOSCOPE" query "$T/evil.hlo" 'nodes show name, op_name, layer' 'show c'
run table_pb "$HLOSCOPE" query "$T/evil.pb" 'nodes where id < 6 show name, op_name'
run table_json "$HLOSCOPE" query "$T/evil.hlo" --data "$T/data.json" 'nodes show name, label'
run json "$HLOSCOPE" query "$T/evil.hlo" --data "$T/data.csv" --json 'nodes show name, op_name, note'
run json_pb "$HLOSCOPE" query "$T/evil.pb" --json 'nodes where id < 5 show name, op_name'
run csv "$HLOSCOPE" query "$T/evil.hlo" --data "$T/data.csv" --csv 'nodes show name, op_name, note'
run badcsv "$HLOSCOPE" query "$T/evil.hlo" --data "$T/bad.csv" 'count'
run repl_pipe sh -c 'printf "nodes where id < 6 show name, op_name\nshow 4\nnodes where shap = 1\n" | "$1" repl "$2"' sh "$HLOSCOPE" "$T/evil.pb"
run dot_text "$HLOSCOPE" dot "$T/evil.pb" --around 4 --radius 1 --text
run dot_layer "$HLOSCOPE" dot "$T/evil.hlo" --layer 'jit(f)' --text
run dot_svg "$HLOSCOPE" dot "$T/evil.pb" --around 4 --radius 1 -o "$T/around.svg"
run dot_lsvg "$HLOSCOPE" dot "$T/evil.hlo" --layer 'jit(f)' --data "$T/data.csv" --heat time_us -o "$T/layer.svg"
run dot_dot "$HLOSCOPE" dot "$T/evil.pb" --around 4 --radius 1 -o "$T/around.dot"
run diff "$HLOSCOPE" diff "$PB" "$T/evil.pb" --text
run diff_json "$HLOSCOPE" diff "$PB" "$T/evil.pb" --json
run compare "$HLOSCOPE" compare "$T/evil_tuning.pb#2" best worst
run predict "$HLOSCOPE" predict "$EP"
run check "$HLOSCOPE" check "$T/dir" "$T/dir_bad"
run info_dir "$HLOSCOPE" info "$T/dir"
run query_dir "$HLOSCOPE" query "$T/dir" 'graphs'
run dump "$HLOSCOPE" dump "$T/evil.npz" nothing

for n in info info_json table table_pb table_json json json_pb badcsv repl_pipe dot_text dot_layer dot_svg dot_lsvg \
	dot_dot diff diff_json compare predict check info_dir query_dir dump; do
	clean "escape: $n: no raw control byte on stdout or stderr" "$T/$n.out" "$T/$n.err"
done
for f in "$T"/*.err; do
	no_sanitizer_report "$f" || bad "escape: $(basename "$f" .err)" "sanitizer report: $(grep -m3 -E 'ERROR|runtime error' "$f")"
done
clean "escape: SVG and DOT files hold none either" "$T/around.svg" "$T/layer.svg" "$T/around.dot"
for n in info table table_pb table_json json json_pb repl_pipe dot_text dot_layer compare predict info_dir query_dir; do
	[ "$(cat "$T/$n.rc")" = 0 ] || bad "escape: $n exits 0" "exit $(cat "$T/$n.rc"): $(head -c 300 "$T/$n.err")"
done
# an op_name changed: the modules differ (diff exits 1, as diff(1))
[ "$(cat "$T/diff.rc")" = 1 ] || bad "escape: diff exits 1" "exit $(cat "$T/diff.rc"): $(head -c 300 "$T/diff.err")"
[ "$(cat "$T/badcsv.rc")" = 2 ] && ok "escape: a bad data header is still bad data (2)" ||
	bad "escape: bad data header" "exit $(cat "$T/badcsv.rc")"

shows "escape: info: the unmatched data name, escaped" "$T/info.out" 'no instruction: \x1b[2Jevil'
shows "escape: info: the note on stderr too" "$T/info.err" 'no instruction: \x1b[2Jevil'
shows "escape: table: op_name with ESC, BEL and C1" "$T/table.out" 'jit(f)/\x1b]0;pwned\x07/layer_\xc2\x9b31m/dot'
shows "escape: table: a TAB in a cell is escaped" "$T/table.out" 'red\x09Tab/dot'
shows "escape: show: the custom-call target with CR and a bad byte" "$T/table.out" 'target        \x1b[2Jtarget\x0d\xff'
shows "escape: table: names from a protobuf" "$T/table_pb.out" 'mul\x1b[2J\x07.200'
shows "escape: table: invalid UTF-8 in a name" "$T/table_pb.out" 'param\xc2\x9b.\xff55'
shows "escape: table: a JSON data file's text" "$T/table_json.out" '\x1b[31mred\x07'
if awk 'NR > 1 && /mul\\x1b\[2J\\x07\.200/ { i = index($0, "Dropout_1/\\x1b"); print i }' "$T/table_pb.out" |
	grep -qx "$(awk 'NR == 1 { print index($0, "op_name") }' "$T/table_pb.out")"; then
	ok "escape: table: columns are as wide as the escaped text"
else
	bad "escape: table: column widths" "$(head -8 "$T/table_pb.out")"
fi
shows "escape: a bad data header's message" "$T/badcsv.err" "'t\\x1b]0;title\\x07' is not a field name"
shows "escape: repl on a pipe: the table" "$T/repl_pipe.out" 'mul\x1b[2J\x07.200'
shows "escape: repl on a pipe: show" "$T/repl_pipe.out" 'op_name       Dropout_1/\x1b]0;T\x07t/Mul'
shows "escape: dot --text: the node's name" "$T/dot_text.out" 'mul\x1b[2J\x07.200'
shows "escape: dot --text: a layer box named from op_name, whole" "$T/dot_layer.out" '│ \x1b]0;pwned\x07 │'
shows "escape: diff: the renamed instruction" "$T/diff.out" 'multiply.200                     mul\x1b[2J\x07.200'
shows "escape: compare: names and op_names" "$T/compare.out" 'Dropout_1/\x1b]0;T\x07t/Mul'
shows "escape: predict: the file's name" "$T/predict.out" 'p\x1b]0;x\x07.npz: tile'
shows "escape: check: a file name in a folder" "$T/check.out" 'bad\x1b[2J.hlo'
shows "escape: info on a folder: file names" "$T/info_dir.out" 'm\x1b]0;f\x07.hlo'
shows "escape: query on a folder: graph names" "$T/query_dir.out" 'm\x1b]0;f\x07'
shows "escape: dump: a zip member's name" "$T/dump.err" '\x1b]0;z\x07'

# JSON parses and gives the text back (U+FFFD for invalid bytes); CSV quotes
# and reads back exact; SVG is XML and shows the escaped form.
"$PY" - "$T" <<'EOF'
import csv, io, json, sys, xml.etree.ElementTree as ET
t = sys.argv[1]
def check(name, cond, why=""):
    print(("PASS " if cond else "FAIL ") + "escape: " + name + ("" if cond else ": " + why))
def strings(v):
    if isinstance(v, dict):
        return [s for k, x in v.items() for s in [k] + strings(x)]
    if isinstance(v, list):
        return [s for x in v for s in strings(x)]
    return [v] if isinstance(v, str) else []
def load(n):
    try:
        return json.loads(open(f"{t}/{n}.out", "rb").read().decode("utf-8"))
    except Exception as e:
        check(n + " is valid JSON", False, repr(e)[:200])
rows = load("json")
if rows:
    by = {r["name"]: r for r in rows}
    check("json gives back op_name with ESC, BEL and C1",
          by["p0"]["op_name"] == "jit(f)/\x1b]0;pwned\x07/layer_\x9b31m/dot", repr(by["p0"]))
    check("json gives back a TAB", by["d"]["op_name"] == "jit(f)/\x1b[31mred\tTab/dot", repr(by["d"]))
    check("json gives back a data file's text", by["p0"]["note"] == "\x1b]0;t\x07 hi, there", repr(by["p0"]))
rows = load("json_pb")
if rows:
    check("json: invalid UTF-8 becomes U+FFFD", rows[0]["name"] == "param\x9b.\ufffd55", repr(rows[0]))
    check("json: a name from a protobuf", rows[4]["name"] == "mul\x1b[2J\x07.200", repr(rows[4]))
info = load("info_json")
if info:
    check("info --json: the unmatched data name", "\x1b[2Jevil" in strings(info), repr(strings(info))[:300])
d = load("diff_json")
if d:
    check("diff --json: the renamed instruction", "mul\x1b[2J\x07.200" in strings(d), repr(strings(d))[:300])
raw = open(f"{t}/csv.out", "rb").read()
check("csv: a field with ESC is quoted, its bytes exact", b'"jit(f)/\x1b]0;pwned\x07/layer_\xc2\x9b31m/dot"' in raw,
      repr(raw[:200]))
rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
by = {r[0]: r for r in rows[1:]}
check("csv reads back exact", rows[0] == ["name", "op_name", "note"] and
      by["p0"][1:] == ["jit(f)/\x1b]0;pwned\x07/layer_\x9b31m/dot", "\x1b]0;t\x07 hi, there"] and
      by["d"][1] == "jit(f)/\x1b[31mred\tTab/dot", repr(rows)[:300])
for f, want in (("around.svg", "mul\\x1b[2J\\x07.200"), ("layer.svg", "\\x1b]0;pwned\\x07")):
    try:
        root = ET.parse(f"{t}/{f}").getroot()
        texts = "".join(root.itertext())
        titles = " ".join(e.get("{http://www.w3.org/1999/xlink}title") or "" for e in root.iter())
        check(f + " is XML and shows the escaped name", want in texts, texts[:300])
        check(f + ": tooltips too", want in titles, titles[:300])
    except ET.ParseError as e:
        check(f + " is XML", False, str(e))
EOF

# ---- a terminal --------------------------------------------------------------

# The REPL and query --csv on a pseudo-terminal: what reaches it, bytes.
"$PY" - "$HLOSCOPE" "$T" "$ER" <<'EOF'
import os, pty, select, struct, sys, fcntl, termios, time
hs, t, er = sys.argv[1:]
def check(name, cond, why=""):
    print(("PASS " if cond else "FAIL ") + "escape: " + name + ("" if cond else ": " + why))
def on_tty(argv, typed=b""):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(TERM="dumb", LANG="C.UTF-8", LC_ALL="C.UTF-8", HOME=t, XDG_STATE_HOME=t)
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    out, end = b"", time.time() + 60
    if typed:
        os.write(fd, typed)
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    os.waitpid(pid, 0)
    return out
out = on_tty([hs, "repl", er], b"nodes where id < 6 show name, op_name\nshow 4\nquit\n")
for seq in (b"\x1b]0;", b"\x1b[2J", b"\x07", b"\xc2\x9b", b"\xff"):
    check("repl on a terminal: no raw " + repr(seq), seq not in out, repr(out[-400:]))
check("repl on a terminal: the prompt names the file escaped", b"r\\x1b]0;x\\x07> " in out, repr(out[:300]))
check("repl on a terminal: the table escaped", b"mul\\x1b[2J\\x07.200" in out, repr(out[-600:]))
out = on_tty([hs, "query", t + "/evil.hlo", "--csv", "nodes show name, op_name"])
check("query --csv on a terminal: no raw ESC", b"\x1b" not in out and b"\x07" not in out, repr(out))
check("query --csv on a terminal: escaped", b'"jit(f)/\\x1b]0;pwned\\x07/layer_\\xc2\\x9b31m/dot"' in out, repr(out))
EOF

# ---- the explorer ------------------------------------------------------------

tui_run "escape: explorer session ends cleanly" "$T" evil.pb --data data.csv <<'EOF'
resize 200 30
t
has explorer: names in the node table => mul\x1b[2J\x07.200
has explorer: invalid UTF-8 in a name => param\xc2\x9b.\xff55
:goto 4
i
has explorer: the node's detail => op_name Dropout_1/\x1b]0;T\x07t/Mul
q
v
has explorer: the drawing's title line => around mul\x1b[2J\x07.200
q
:nodes where id < 6 show name, op_name
has explorer: a query's table => Dropout_1/\x1b]0;T\x07t/Mul
q
:data bad.csv
has explorer: the message line => 't\x1b]0;title\x07' is not a field name
save last
Q
EOF
clean "escape: explorer: no raw control byte on the screens" "$S"/*.txt
tui_run "escape: explorer diff session ends cleanly" "$ROOT" diff "$PB" "$T/evil.pb" <<'EOF'
has explorer: the diff view's renamed instruction => mul\x1b[2J\x07.200
Q
EOF
clean "escape: explorer diff: no raw control byte on the screen" "$S"/*.txt
