#!/bin/sh
# Lists the C functions longer than a limit and the C files longer than
# another, so that "no function over 150 lines, no file over 1,000" can be
# checked on the whole tree at once.
#
#   tools/long-functions.sh [-n FUNC_LIMIT] [-f FILE_LIMIT] [PATH...]
#
# PATHs are files or folders (default: every module folder, that is the
# top-level folders holding C files, but not tests/).  Generated protobuf-c
# files (*.pb-c.c) are skipped.  Prints, file by file in line order:
#     FILE:LINE NAME LENGTH    a function of LENGTH lines starting at LINE
#     FILE:1 (file) LENGTH     a file of LENGTH lines
# and exits 1 when it printed anything, 0 otherwise (2 for bad usage).
#
# It reads the style used here: a function's signature starts at column 0
# (it may go on over indented lines), its body opens with "{" alone at
# column 0 and closes with "}" at column 0.  A "{" at the end of a signature
# line at column 0 is understood too.  LENGTH counts from the first line of
# the signature to the closing brace, both included.
func_limit=150
file_limit=1000
while getopts n:f:h opt; do
	case $opt in
	n) func_limit=$OPTARG ;;
	f) file_limit=$OPTARG ;;
	h) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "usage: $0 [-n FUNC_LIMIT] [-f FILE_LIMIT] [PATH...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $func_limit$file_limit in
*[!0-9]*|'') echo "$0: limits are line counts" >&2; exit 2 ;;
esac

if [ $# -eq 0 ]; then
	cd "$(dirname "$0")/.." || exit 2
	set --
	for d in */; do
		d=${d%/}
		[ "$d" = tests ] && continue
		ls "$d"/*.c >/dev/null 2>&1 && set -- "$@" "$d"
	done
fi

files=$(find "$@" -name '*.c' ! -name '*.pb-c.c' -type f | sort) || exit 2
[ -n "$files" ] || exit 0

# shellcheck disable=SC2086
awk -v flim="$func_limit" -v filim="$file_limit" '
function report(line) { print line; found = 1 }
function flush_file() {
	if (cur == "")
		return
	if (FNR_last > filim)
		report(cur ":1 (file) " FNR_last)
}
function name_of(s,    m) {
	# The first identifier directly followed by "(": the function name,
	# also for "int64_t (*f(args))[2]".
	if (match(s, /[A-Za-z_][A-Za-z_0-9]*\(/))
		return substr(s, RSTART, RLENGTH - 1)
	return "?"
}
FNR == 1 { flush_file(); cur = FILENAME; sig = ""; inbody = 0; incomment = 0 }
{ FNR_last = FNR }
# Skip block comments that start at column 0 (file headers and the like).
incomment { if (index($0, "*/")) incomment = 0; next }
/^\/\*/ { if (!index($0, "*/")) incomment = 1; next }
inbody {
	if ($0 ~ /^}/) {
		len = FNR - start + 1
		if (len > flim)
			report(cur ":" start " " fname " " len)
		inbody = 0
	}
	next
}
/^#/ { sig = ""; next }
/^{/ {
	if (sig != "") {
		inbody = 1; start = sigline; fname = name_of(sig)
	}
	sig = ""
	next
}
/^[A-Za-z_]/ {
	if ($0 ~ /\(/ && $0 !~ /=/ && $0 !~ /^(typedef|struct|union|enum)[ \t].*[{;][ \t]*$/) {
		sig = $0; sigline = FNR
		if ($0 ~ /\)[^;]*\{[ \t]*$/) {
			inbody = 1; start = FNR; fname = name_of(sig); sig = ""
		} else if ($0 ~ /;[ \t]*$/)
			sig = ""
	} else
		sig = ""
	next
}
# Indented lines continue a signature until it ends with ";" (a prototype).
sig != "" && /;[ \t]*$/ { sig = "" }
END { flush_file(); exit found ? 1 : 0 }
' $files
