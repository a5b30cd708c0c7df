# layers: every `#include "..."` in the C sources follows the layer order.
#
# The folders are layers; a folder includes only folders of lower layers
# (and itself).  The order, as the code has it:
#
#   7  tests/                    may include anything
#   6  cli/                      main and the subcommands
#   5  tui/   repl/              the explorer; the readline front end
#   4  query/                    the query language (library)
#   3  doc/                      the document: a graph and what is derived
#                                about it (layers, the module diff)
#   2  render/ model/ synth/     drawing; cost models, training, compare;
#                                the synthetic demo dataset
#   1  loader/                   zip, npy, npz, the graph, HLO facts
#   0  base/                     the basics every layer uses: the error type,
#                                the JSON writer, the clocks, comparators,
#                                number parsing, the random streams, CSV
#
# Folders on the same layer do not include each other either (render/,
# model/ and synth/ are independent, so are tui/ and repl/), and only cli/
# includes repl/: the explorer's `:` line uses query/, never the readline
# front end.
# An include without a folder ("error.h") names a file of the including
# file's own folder.  A folder missing from this list fails: give a new
# module its layer here.
#
# Below cli/, nothing prints on its own: no folder but cli/ and tests/ names
# stdout or stderr or calls printf, puts or putchar (the front ends write
# to the streams cli/ gives them; ncurses is given the terminal in
# tui/app.c, the one exception).
#
# Each break is a FAIL naming the file and the line.  The checker also runs
# on a small made-up tree with known breaks, so that it is seen to fail.
#
# pass: release (reads the source tree; runs no binary a sanitizer could watch)
. tests/lib.sh

LAYERS="base:0 loader:1 render:2 model:2 synth:2 doc:3 query:4 tui:5 repl:5 cli:6 tests:7"

# check_tree DIR: prints "FILE:LINE: why" for every include under DIR that
# breaks the order (nothing when all is well).
check_tree() {
	(cd "$1" && find . -path ./build -prune -o -path './.*' -prune -o \
		-type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort |
		xargs -r awk -v layers="$LAYERS" '
		BEGIN {
			n = split(layers, kv, " ")
			for (i = 1; i <= n; i++) {
				split(kv[i], p, ":")
				layer[p[1]] = p[2] + 0
			}
		}
		FNR == 1 {
			k = split(FILENAME, parts, "/")
			from = k > 1 ? parts[1] : "."
			dir = FILENAME
			sub(/\/[^\/]*$/, "", dir)
			if (k == 1)
				dir = "."
			if (!(from in layer) && !(from in told)) {
				print FILENAME ":1: folder " from "/ has no layer (add it to tests/suites/layers.sh)"
				told[from] = 1
			}
		}
		/^[ \t]*#[ \t]*include[ \t]*"/ {
			match($0, /"[^"]*"/)
			inc = substr($0, RSTART + 1, RLENGTH - 2)
			where = FILENAME ":" FNR ": "
			if (from == "tests" || !(from in layer))
				next
			if (index(inc, "/") == 0) {
				path = dir "/" inc
				if ((getline line < path) < 0)
					print where "includes \"" inc "\", which is not in " dir "/"
				close(path)
				next
			}
			split(inc, q, "/")
			to = q[1]
			if (to == from)
				next
			if (to == "repl" && from != "cli")
				print where "includes " inc ": only cli/ includes the readline front end (repl/)"
			else if (!(to in layer))
				print where "includes " inc ": " to "/ is not a folder of the layer order"
			else if (layer[to] >= layer[from])
				print where from "/ (layer " layer[from] ") includes " inc " (layer " \
					layer[to] "): a folder includes only lower layers"
		}')
}

# prints_below_cli DIR: "FILE:LINE: prints" for every use of the standard
# streams below cli/ (outside comments).
prints_below_cli() {
	(cd "$1" && find base loader model render synth doc query tui repl -name '*.[ch]' 2>/dev/null | sort |
		xargs -r awk '
		/^[ \t]*(\/\*|\*|\/\/)/ { next }
		/newterm\(.*stdout, stdin\)/ && FILENAME == "tui/app.c" { next }
		/(^|[^a-z_])(stdout|stderr)([^a-z_]|$)|(^|[^a-z_])(printf|puts|putchar)\(/ {
			print FILENAME ":" FNR ": prints (give it a FILE * from cli/)"
		}')
}

# The checker on a made-up tree: it must find exactly these breaks.
S="$T/tree"
mkdir -p "$S/base" "$S/loader" "$S/render" "$S/model" "$S/query" "$S/tui" "$S/repl" "$S/cli" \
	"$S/tests/unit" "$S/newmod" "$S/build/release"
printf '#include <stdio.h>\n#include "error.h"\n' >"$S/loader/npz.c"
printf '/* x */\n' >"$S/loader/error.h"
printf '#include "loader/error.h"\n  #  include "query/query.h"\n' >"$S/loader/graph.c"
printf '/* #include "tui/tui.h" in a comment */\n#include "model/cost.h"\n' >"$S/render/dot.c"
printf '#include "render/dot.h"\n#include "loader/npz.h"\n' >"$S/query/eval.c"
printf '#include "nosuch.h"\n' >"$S/query/parse.c"
printf '#include "query/query.h"\n#include "repl/repl.h"\n' >"$S/tui/query.c"
printf '#include "tui/tui.h"\n' >"$S/repl/repl.c"
printf '#include "repl/repl.h"\n#include "tui/tui.h"\n#include "query/query.h"\n' >"$S/cli/main.c"
printf '#include "tests/unit/t.h"\n' >"$S/model/fit.c"
printf '#include "cli/cli.h"\n#include "repl/repl.h"\n' >"$S/tests/unit/test_x.c"
printf '#include "loader/error.h"\n' >"$S/newmod/x.c"
printf '#include "base/error.h"\n#include "loader/npz.h"\n' >"$S/base/json.c"
printf '#include "repl/repl.h"\n' >"$S/build/release/skip.c"
check_tree "$S" >"$T/made_up"
cat >"$T/made_up.want" <<'EOF'
base/json.c:2: base/ (layer 0) includes loader/npz.h (layer 1): a folder includes only lower layers
loader/graph.c:2: loader/ (layer 1) includes query/query.h (layer 4): a folder includes only lower layers
model/fit.c:1: model/ (layer 2) includes tests/unit/t.h (layer 7): a folder includes only lower layers
newmod/x.c:1: folder newmod/ has no layer (add it to tests/suites/layers.sh)
query/parse.c:1: includes "nosuch.h", which is not in query/
render/dot.c:2: render/ (layer 2) includes model/cost.h (layer 2): a folder includes only lower layers
repl/repl.c:1: repl/ (layer 5) includes tui/tui.h (layer 5): a folder includes only lower layers
tui/query.c:2: includes repl/repl.h: only cli/ includes the readline front end (repl/)
EOF
if diff "$T/made_up.want" "$T/made_up" >"$T/made_up.diff"; then
	ok "layers: the checker finds the 8 breaks of a made-up tree"
else
	bad "layers: checker on a made-up tree" "$(tr '\n' '|' <"$T/made_up.diff")"
fi

printf '/* printf("x") in a comment */\nint f(FILE *o) { return fprintf(o, "x"); }\n' >"$S/query/ok.c"
printf 'static void f(void)\n{\n\tprintf("x");\n\tfputs("y", stderr);\n}\n' >"$S/repl/x.c"
prints_below_cli "$S" >"$T/made_up"
printf 'repl/x.c:3: prints (give it a FILE * from cli/)\nrepl/x.c:4: prints (give it a FILE * from cli/)\n' >"$T/made_up.want"
cmp -s "$T/made_up.want" "$T/made_up" && ok "layers: the print checker finds the 2 of a made-up tree" ||
	bad "layers: print checker on a made-up tree" "$(tr '\n' '|' <"$T/made_up")"
prints_below_cli "$ROOT" >"$T/prints"
[ -s "$T/prints" ] && bad "layers: library code prints" "$(tr '\n' '|' <"$T/prints")" ||
	ok "layers: nothing below cli/ prints to stdout or stderr"

# The real tree.
check_tree "$ROOT" >"$T/real"
files=$(cd "$ROOT" && find . -path ./build -prune -o -path './.*' -prune -o \
	-type f \( -name '*.c' -o -name '*.h' \) -print | wc -l)
if [ -s "$T/real" ]; then
	while IFS= read -r line; do
		bad "layers" "$line"
	done <"$T/real"
else
	ok "layers: the includes of $files C files follow the layer order"
fi
exit 0
