# cli_help: `hloscope --help` lists the commands; `hloscope COMMAND --help`
# prints that command's usage and options on stdout and exits 0, for every
# command listed; `hloscope --version` names the libraries.
. tests/lib.sh

expect_status 0 "--help exits 0" "$HLOSCOPE" --help
cp "$T/out" "$T/help"
cmds=$(sed -n 's/^ *\(usage: \)\{0,1\}hloscope \([a-z][a-z0-9_-]*\) .*/\2/p' "$T/help")
n=$(echo "$cmds" | wc -w)
[ "$n" -ge 12 ] && ok "--help lists $n commands" || bad "--help lists the commands" "only: $cmds"

for c in $cmds explore; do
	"$HLOSCOPE" "$c" --help >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$T/err" ]; then
		bad "$c --help" "exit $rc, stderr: $(head -c 200 "$T/err")"
		continue
	fi
	head -1 "$T/out" | grep -q "^usage: hloscope $c \|^usage: hloscope PATH" ||
		{ bad "$c --help" "first line: $(head -1 "$T/out")"; continue; }
	# Every option of the usage line in --help is explained below it: its
	# line has text after the option's name (and value), and the command
	# takes it (the help and the parser are one table, cli/opts.h).
	opts=$(grep "hloscope $c " "$T/help" | grep -o -- '-[-a-zA-Z0-9]*' | sort -u)
	missing=""
	for o in $opts; do
		tail -n +2 "$T/out" | grep -E -- "^ +(-[a-zA-Z], )?$o( |,|$)" | grep -qE -- '^ +-.*[^ ]  +[^ ]' ||
			missing="$missing $o"
		"$HLOSCOPE" "$c" "$o" </dev/null >/dev/null 2>"$T/err2"
		grep -q "unknown option" "$T/err2" && missing="$missing $o(refused)"
	done
	[ -z "$missing" ] && ok "$c --help: usage and every option" ||
		bad "$c --help" "options not explained:$missing"
	# -h is the same, also after other arguments.
	"$HLOSCOPE" "$c" x.npz -h >"$T/out2" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/out2" && ok "$c FILE -h" || bad "$c FILE -h" "exit $rc"
done

# `hloscope help CMD` is `hloscope CMD --help`, for every command.
for c in $cmds explore; do
	"$HLOSCOPE" "$c" --help >"$T/want" 2>&1
	"$HLOSCOPE" help "$c" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$T/want" "$T/out" && ok "help $c is $c --help" ||
		bad "help $c" "exit $rc: $(head -2 "$T/out" "$T/err")"
done
expect_status 0 "help alone: the commands" "$HLOSCOPE" help
cmp -s "$T/out" "$T/help" && ok "help alone is --help" || bad "help alone" "$(head -2 "$T/out")"
expect_status 1 "help of no command" "$HLOSCOPE" help frobnicate

# After --, --help is an argument (a query here), not a request for help.
"$HLOSCOPE" query "$DATA/npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz" -- --help \
	>"$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -q -- '--help' "$T/err" && ok "query -- --help is a query" ||
	bad "query -- --help is a query" "$(head -c 200 "$T/out" "$T/err")"

expect_status 0 "--version exits 0" "$HLOSCOPE" --version
head -1 "$T/out" | grep -qE '^hloscope [0-9]+\.[0-9]+' && ok "--version: version line" ||
	bad "--version: version line" "$(head -1 "$T/out")"
for lib in ncurses Graphviz zlib readline PCRE2 inflater regex; do
	grep -qE "^ *$lib:? +[0-9a-zA-Z]" "$T/out" && ok "--version names $lib" ||
		bad "--version names $lib" "$(tr '\n' '|' <"$T/out")"
done
expect_status 1 "unknown option: exit 1" "$HLOSCOPE" --frobnicate
exit 0
