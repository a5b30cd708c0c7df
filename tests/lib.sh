# Sourced by tests/suites/*.sh.  Helpers print PASS/FAIL lines for tests/run.sh.
#
#   ok NAME                 record a pass
#   bad NAME WHY            record a failure
#   expect_status N NAME CMD...   run CMD, compare its exit status to N
#   golden NAME FILE        compare FILE with tests/golden/NAME (or rewrite it
#                           when UPDATE_GOLDENS=1)
#   need TOOL...            print "SKIP SUITE: TOOL is not installed" and
#                           fail when one is missing (numpy: $PY cannot
#                           import it); use as `need tmux || exit 0`
#   T                       a fresh scratch folder for this suite
#   SUITE                   this suite's name
#   use_demo                set DEMO to the synthetic demo data
#   use_fixtures numpy|corrupt   set FIX_NUMPY / FIX_CORRUPT to the output of
#                           tests/fixtures/make_fixtures.py numpy / make_corrupt.py
# tests/run.sh makes these once for all suites (they are read-only: copy
# before changing anything); a suite run alone makes its own in $T.  Both
# print a FAIL line and fail when they cannot.
set -u
: "${HLOSCOPE:?run through tests/run.sh}" "${PASS:?run through tests/run.sh}"
T=$(mktemp -d "$WORK/suite.XXXXXX")
SUITE=$(basename "$0" .sh)
: "${DEMO:=}" "${FIX_NUMPY:=}" "${FIX_CORRUPT:=}"

need() {
	for tool in "$@"; do
		case $tool in
		numpy) [ "${HAVE_NUMPY:-}" = 1 ] || "$PY" -c 'import numpy' 2>/dev/null ;;
		*) command -v "$tool" >/dev/null 2>&1 ;;
		esac || {
			[ "$tool" = numpy ] && tool="python numpy ($PY)"
			echo "SKIP $SUITE: $tool is not installed"
			return 1
		}
	done
}

use_demo() {
	[ -n "$DEMO" ] && return 0
	DEMO="$T/demo"
	"$HLOSCOPE" synth "$DEMO" >"$T/synth.out" 2>&1 && return 0
	bad "$SUITE: demo data" "hloscope synth failed: $(head -c 300 "$T/synth.out")"
	DEMO=""
	return 1
}

use_fixtures() {
	case $1 in
	numpy) [ -n "$FIX_NUMPY" ] && return 0; FIX_NUMPY="$T/fix-numpy"; set -- "$1" make_fixtures.py numpy ;;
	corrupt) [ -n "$FIX_CORRUPT" ] && return 0; FIX_CORRUPT="$T/fix-corrupt"; set -- "$1" make_corrupt.py ;;
	esac
	name=$1; shift
	"$PY" "$ROOT/tests/fixtures/$@" "$T/fix-$name" >"$T/gen.log" 2>&1 && return 0
	bad "$SUITE: $name fixtures" "tests/fixtures/$1 failed: $(tail -3 "$T/gen.log" | tr '\n' '|')"
	return 1
}

ok() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; }

expect_status() {
	want=$1 name=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name"; else
		bad "$name" "exit $got, wanted $want; stderr: $(head -c 300 "$T/err")"
	fi
}

# A sanitizer report anywhere in stderr is a failure whatever the status.
# Only a sanitizer build can write one: the release pass does not look.
no_sanitizer_report() {
	[ "$PASS" = sanitizer ] || return 0
	if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$1"; then
		return 1
	fi
	return 0
}

golden() {
	name=$1 file=$2 g="$ROOT/tests/golden/$1"
	if [ "${UPDATE_GOLDENS:-0}" = 1 ]; then
		mkdir -p "$(dirname "$g")"; cp "$file" "$g"; ok "$name (golden updated)"; return
	fi
	if [ ! -f "$g" ]; then bad "$name" "no golden file tests/golden/$name"; return; fi
	if cmp -s "$g" "$file"; then ok "$name"; else
		bad "$name" "differs from golden: $(diff "$g" "$file" | head -20 | tr '\n' '|')"
	fi
}
