# docs_hacking: docs/hacking.md names real things.  Every file or folder it
# names in backquotes exists, and every C identifier it names in backquotes
# (a word with an underscore, or a word followed by "(") occurs in the
# source, so that the guide cannot drift from the tree unnoticed.  Names
# with placeholders (NAME, TARGET, <variant>, *, {a,b}) and build outputs are
# left out.  A made-up page with one wrong name of each kind is checked too.
#
# pass: release (reads the source tree; runs no binary a sanitizer could watch)
. tests/lib.sh

# Every word of the source (C files and headers, test scripts but this one).
grep -rhoE --include='*.c' --include='*.h' --include='*.sh' --exclude="$SUITE.sh" '[A-Za-z_][A-Za-z0-9_]*' \
	"$ROOT/base" "$ROOT/loader" "$ROOT/render" "$ROOT/model" "$ROOT/synth" "$ROOT/query" \
	"$ROOT/tui" "$ROOT/repl" "$ROOT/cli" "$ROOT/tests" | sort -u >"$T/words"

# check_doc DOC: prints "DOC: `x`: why" for each name that is not real.
check_doc() {
	grep -o '`[^`]*`' "$1" | tr -d '`' | sort -u | while IFS= read -r w; do
		case $w in
		*[A-Z][A-Z]* | *'<'* | *'*'* | *'{'* | build/* | *' '*) continue ;;
		esac
		w=${w%%(*}
		case $w in
		.*) continue ;; # a suffix
		*/*)
			[ -e "$ROOT/${w%/}" ] || echo "$1: \`$w\`: no such file or folder" ;;
		*.c | *.h | *.sh | *.py | *.md | *.proto | Makefile) # a file named alone: somewhere
			[ -n "$(find "$ROOT" -path "$ROOT/build" -prune -o -name "$w" -print | head -1)" ] ||
				echo "$1: \`$w\`: no such file" ;;
		*_* | *'('*)
			case $w in *[!A-Za-z0-9_]*) continue ;; esac
			grep -qxF -e "$w" "$T/words" || echo "$1: \`$w\`: not in the source" ;;
		esac
	done
}

cat >"$T/page.md" <<'X'
Real: `loader/graph_open.c`, `graph_source_of`, `tests/suites/`, `hs_fail(err, ...)`.
Placeholders: `tui/view_NAME.c`, `build/release/tests/test_x`, `tests/golden/{a,b}/`.
Alone: `base_once.sh`, `.npz`.
Wrong: `loader/no_such_file.c`, `no_such_function_xyz`, `graph_sniff(path)`, `nowhere_at_all.py`.
X
check_doc "$T/page.md" >"$T/made_up"
cat >"$T/made_up.want" <<X
$T/page.md: \`graph_sniff\`: not in the source
$T/page.md: \`loader/no_such_file.c\`: no such file or folder
$T/page.md: \`no_such_function_xyz\`: not in the source
$T/page.md: \`nowhere_at_all.py\`: no such file
X
if diff "$T/made_up.want" "$T/made_up" >"$T/made_up.diff"; then
	ok "docs_hacking: the checker finds the 4 wrong names of a made-up page"
else
	bad "docs_hacking: checker on a made-up page" "$(tr '\n' '|' <"$T/made_up.diff")"
fi

check_doc "$ROOT/docs/hacking.md" >"$T/real"
n=$(grep -o '`[^`]*`' "$ROOT/docs/hacking.md" | sort -u | wc -l)
if [ -s "$T/real" ]; then
	while IFS= read -r line; do bad "docs_hacking" "$line"; done <"$T/real"
else
	ok "docs_hacking: the $n names in backquotes of docs/hacking.md are real"
fi
grep -q '(docs/hacking.md)' "$ROOT/README.md" && ok "docs_hacking: README links the guide" ||
	bad "docs_hacking" "README.md does not link docs/hacking.md"
