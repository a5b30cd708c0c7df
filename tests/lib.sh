# Sourced by tests/suites/*.sh.  Helpers print PASS/FAIL lines for tests/run.sh.
#
#   ok NAME                 record a pass
#   bad NAME WHY            record a failure
#   expect_status N NAME CMD...   run CMD, compare its exit status to N
#   golden NAME FILE        compare FILE with tests/golden/NAME (or rewrite it
#                           when UPDATE_GOLDENS=1)
#   T                       a fresh scratch folder for this suite
set -u
: "${HLOSCOPE:?run through tests/run.sh}"
T=$(mktemp -d "$WORK/suite.XXXXXX")

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
no_sanitizer_report() {
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
