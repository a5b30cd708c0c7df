# long_functions: "no function over 150 lines, no C file over 1,000"
# (outside tests/).  First tools/long-functions.sh, the check behind it, on
# small C files written here: the lengths it reports, the signatures it
# understands, its exit status.  Then the tree itself: one FAIL per offender,
# naming FILE:LINE, the function and its length.  A function that grows past
# the limit is split along what it does; a file, along its own sections, into
# files named for what they hold.
#
# pass: release (reads the source tree; runs no binary a sanitizer could watch)
. tests/lib.sh

LF="$ROOT/tools/long-functions.sh"
C="$T/src"
mkdir -p "$C"

# body N: N lines of statements.
body() {
	i=0
	while [ "$i" -lt "$1" ]; do
		echo "	x += $i;"
		i=$((i + 1))
	done
}

# A function of exactly N lines in all: signature, "{", N-3 statements, "}".
{
	echo "/* a file header"
	echo " * that spans lines */"
	echo "#include <stdint.h>"
	echo ""
	echo "static int fits(int x)"
	echo "{"
	body 147
	echo "}"
	echo ""
	echo "int too_long(int x)"
	echo "{"
	body 148
	echo "}"
	echo ""
	echo "static int64_t (*returns_array(const char *s,"
	echo "				int y))[2]"
	echo "{"
	body 200
	echo "}"
	echo ""
	echo "static int prototype(int a,"
	echo "		     int b);"
	echo "static const int table[] = {"
	body 300 | sed 's/.*/	1,/'
	echo "};"
	echo ""
	echo "int same_line(void) {"
	body 160
	echo "}"
} >"$C/a.c"

"$LF" "$C" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && ok "exit 1 when something is too long" || bad "exit status" "got $rc: $(cat "$T/err")"
grep -qx "$C/a.c:156 too_long 151" "$T/out" && ok "a 151-line function is reported with its line and length" ||
	bad "too_long" "$(cat "$T/out")"
grep -q "fits" "$T/out" && bad "fits" "a 150-line function was reported" || ok "a 150-line function is not"
grep -qx "$C/a.c:308 returns_array 204" "$T/out" && ok "a signature over two lines, returning a pointer to an array" ||
	bad "returns_array" "$(cat "$T/out")"
grep -q "prototype\|table" "$T/out" && bad "declarations" "reported: $(cat "$T/out")" ||
	ok "prototypes and initialized tables are not functions"
grep -qx "$C/a.c:818 same_line 162" "$T/out" && ok "an opening brace at the end of the signature line" ||
	bad "same_line" "$(cat "$T/out")"
grep -q "(file)" "$T/out" && bad "file limit" "a file under 1,000 lines reported: $(cat "$T/out")" ||
	ok "a file under the file limit is not reported"

"$LF" -f 800 -n 160 "$C" >"$T/out"
rc=$?
[ "$rc" -eq 1 ] && grep -qx "$C/a.c:1 (file) 979" "$T/out" && ok "-f sets the file limit" ||
	bad "-f" "exit $rc: $(cat "$T/out")"
[ "$(grep -c -v '(file)' "$T/out")" -eq 2 ] && ok "-n sets the function limit" || bad "-n" "$(cat "$T/out")"

{ echo "int small(void)"; echo "{"; echo "	return 0;"; echo "}"; } >"$C/b.c"
"$LF" "$C/b.c" >"$T/out" 2>&1 && [ ! -s "$T/out" ] && ok "exit 0 and no output when all is short" ||
	bad "clean file" "$(cat "$T/out")"
expect_status 2 "a bad limit is a usage error" "$LF" -n many "$C/b.c"

# The tree: every C file outside tests/ (the tool's default), one FAIL each.
(cd "$ROOT" && "$LF") >"$T/tree" 2>"$T/tree.err"
rc=$?
nfiles=$(cd "$ROOT" && for d in */; do
	[ "$d" = tests/ ] || [ "$d" = build/ ] || find "$d" -name '*.c' ! -name '*.pb-c.c' -type f
done | wc -l)
if [ "$rc" -eq 0 ] && [ "$nfiles" -gt 0 ]; then
	ok "tree: no function over 150 lines, no file over 1,000 in $nfiles C files outside tests/"
elif [ "$rc" -eq 1 ]; then
	while read -r where what size; do
		if [ "$what" = "(file)" ]; then
			bad "tree: ${where%:1} is $size lines" "over 1,000: split it along its sections"
		else
			bad "tree: $where $what is $size lines" "over 150: split it along what it does"
		fi
	done <"$T/tree"
else
	bad "tree" "tools/long-functions.sh exit $rc, $nfiles C files: $(head -c 300 "$T/tree.err")"
fi
