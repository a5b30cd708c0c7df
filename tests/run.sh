#!/bin/sh
# Runs every test suite, JOBS at a time, and prints one closing line:
#   check (BUILD): N passed, N failed, N skipped (why, for each skip)
#
# Environment: HLOSCOPE_BUILD (build dir holding hloscope and tests/), PY
# (python3 with numpy), DATA (the real TpuGraphs files), UPDATE_GOLDENS=1 to
# rewrite golden files instead of comparing, JOBS (suites at once; default:
# the number of CPUs), SLOTS (a FIFO of CPU slots shared with another run;
# see below), SUITES (names to run, e.g. "test_loader query"; default:
# all), FIXTURES (where generated fixtures are kept between runs; default:
# build/fixtures).
#
# Two kinds of suites:
#   $HLOSCOPE_BUILD/tests/test_*  C unit tests (tests/unit/test_*.c)
#   tests/suites/*.sh              shell suites, sourcing tests/lib.sh
# Every suite prints "PASS name", "FAIL name: why" or "SKIP name: why" (a
# missing optional tool) lines; anything else is shown as is.  A suite that
# exits non-zero without a FAIL line counts as one failure.  Each suite's
# report is printed whole when it finishes; the slowest suites (by the
# previous run's times, kept in $HLOSCOPE_BUILD/check-times) start first.
#
# Shared, written once before the suites and read-only for them:
#   $DEMO           the synthetic demo data (`hloscope synth`)
#   $FIX_NUMPY      tests/fixtures/make_fixtures.py numpy: every dtype/order
#   $FIX_CORRUPT    tests/fixtures/make_corrupt.py: the damaged-file corpus
# The fixtures depend only on their scripts, so they are kept in FIXTURES
# and made again when a script changes.  A suite that changes $DEMO fails.
set -u
: "${HLOSCOPE_BUILD:=build/release}"
# Suites name the build as "$ROOT/$HLOSCOPE_BUILD": an absolute build folder
# (make BUILD=/somewhere) becomes relative to the tree.
case $HLOSCOPE_BUILD in
/*) HLOSCOPE_BUILD=$(realpath -m --relative-to="$(pwd)" "$HLOSCOPE_BUILD") ;;
esac
: "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
: "${JOBS:=$(nproc 2>/dev/null || echo 2)}"
: "${SUITES:=}"
: "${FIXTURES:=$(pwd)/$(dirname "$HLOSCOPE_BUILD")/fixtures}"
ROOT=$(pwd)
# PASS: sanitizer on a sanitizer build (build/asan), else release; suites
# read it (tests/lib.sh) rather than guess from the build's name.
case $HLOSCOPE_BUILD in
*asan*) PASS=sanitizer ;;
*) PASS=release ;;
esac
HLOSCOPE="$ROOT/$HLOSCOPE_BUILD/hloscope"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-check.XXXXXX")
export HLOSCOPE_BUILD PY DATA ROOT HLOSCOPE WORK PASS
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
t_start=$(date +%s)

HAVE_NUMPY=0
"$PY" -c 'import numpy' 2>/dev/null && HAVE_NUMPY=1
export HAVE_NUMPY

# ---- shared inputs ----------------------------------------------------------
: >"$WORK/setup.out"
setup_fail() { echo "FAIL $1" >>"$WORK/setup.out"; }

# fixture NAME SCRIPT ARGS...: $FIXTURES/NAME.<checksum of the scripts>,
# made (in a temporary folder, then renamed) unless it is there.
fixture() {
	name=$1; shift
	sum=$(cat tests/fixtures/*.py | cksum | cut -d' ' -f1)
	dir="$FIXTURES/$name.$sum"
	if [ ! -f "$dir/manifest" ]; then
		mkdir -p "$FIXTURES" && tmp=$(mktemp -d "$FIXTURES/.$name.XXXXXX") || return 1
		if ! "$PY" "$@" "$tmp/d" >"$WORK/$name.gen" 2>&1; then
			rm -rf "$tmp"
			setup_fail "fixtures $name: $(tail -3 "$WORK/$name.gen" | tr '\n' '|')"
			return 1
		fi
		for old in "$FIXTURES/$name".*; do [ "$old" = "$dir" ] || rm -rf "$old"; done
		mv "$tmp/d" "$dir" 2>/dev/null # another run may have made it meanwhile
		rm -rf "$tmp"
	fi
	echo "$dir" >"$WORK/$name.dir"
}

DEMO="$WORK/demo"
{ "$HLOSCOPE" synth "$DEMO" >"$WORK/synth.out" 2>&1 ||
	setup_fail "demo data: hloscope synth failed: $(head -c 300 "$WORK/synth.out")"; } &
if [ "$HAVE_NUMPY" = 1 ]; then
	fixture numpy tests/fixtures/make_fixtures.py numpy &
	fixture corrupt tests/fixtures/make_corrupt.py &
fi
wait
FIX_NUMPY=$(cat "$WORK/numpy.dir" 2>/dev/null)
FIX_CORRUPT=$(cat "$WORK/corrupt.dir" 2>/dev/null)
[ -d "$DEMO" ] || DEMO=""
export DEMO FIX_NUMPY FIX_CORRUPT
demo_sum() { [ -z "$DEMO" ] || (cd "$DEMO" && find . -type f -exec cksum {} + | sort); }
demo_sum >"$WORK/demo.sum"
[ -z "$DEMO" ] || chmod -R a-w "$DEMO"

# ---- the suites ---------------------------------------------------------------
TIMES="$HLOSCOPE_BUILD/check-times"
{
	for t in "$HLOSCOPE_BUILD"/tests/test_*; do
		[ -x "$t" ] && basename "$t"
	done
	for s in tests/suites/*.sh; do
		[ -f "$s" ] && basename "$s" .sh
	done
} >"$WORK/all"
# A shell suite may belong to one pass only, said by a "# pass: release" or
# "# pass: sanitizer" line in its header: checks of the source tree, which
# run no binary, need no sanitizer; sweeps of damaged input, whose question
# is whether anything crashes or leaks, are the sanitizer's.  Named in
# SUITES, a suite runs whatever its pass.
other_pass() { # NAME: prints NAME when it belongs to the other pass only
	[ -f "tests/suites/$1.sh" ] &&
		sed -n '1,40{/^# pass: /{s/^# pass: \([a-z]*\).*/\1/p;q;}}' "tests/suites/$1.sh" | grep -qvx "$PASS" && echo "$1"
}
: >"$WORK/elsewhere"
if [ -n "$SUITES" ]; then
	for n in $SUITES; do grep -qx "$n" "$WORK/all" || echo "FAIL $n: no such suite" >>"$WORK/setup.out"; done
	printf '%s\n' $SUITES | grep -xF -f "$WORK/all" >"$WORK/list"
else
	while read -r n; do other_pass "$n"; done <"$WORK/all" >"$WORK/elsewhere"
	grep -vxF -f "$WORK/elsewhere" "$WORK/all" >"$WORK/list"
fi
# Longest first; a suite not timed yet counts as long.
[ -f "$TIMES" ] || : >"$TIMES"
awk 'FILENAME == ARGV[1] { t[$1] = $2; next } { print ($1 in t ? t[$1] : 1e9), $1 }' "$TIMES" "$WORK/list" |
	sort -k1,1nr -k2 | cut -d' ' -f2 >"$WORK/order"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# CPU time (user + system) of each suite, where GNU time is installed.
TIME=""
[ -x /usr/bin/time ] && /usr/bin/time -f %U true 2>/dev/null && TIME=/usr/bin/time

# run_one NAME: runs it with its output in $WORK/NAME.out, then
# "STATUS MILLISECONDS" in $WORK/NAME.rc and "USER SYS" in $WORK/NAME.cpu.
run_one() {
	t0=$(now_ms)
	if [ -x "$HLOSCOPE_BUILD/tests/$1" ] && [ ! -f "tests/suites/$1.sh" ]; then
		set -- "$1" "$HLOSCOPE_BUILD/tests/$1"
	else
		set -- "$1" sh "tests/suites/$1.sh"
	fi
	if [ -n "$TIME" ]; then
		name=$1; shift
		$TIME -f '%U %S' -o "$WORK/$name.cpu" "$@" <"/dev/null" >"$WORK/$name.out" 2>&1 3>&-
	else
		name=$1; shift
		"$@" <"/dev/null" >"$WORK/$name.out" 2>&1 3>&-
	fi
	echo "$? $(($(now_ms) - t0))" >"$WORK/$name.rc"
}

pass=0 fail=0 skip=0
: >"$WORK/skips"
: >"$WORK/times.new"
# report NAME: prints the suite's report and adds up its counts.
report() {
	name=$1 out="$WORK/$1.out"
	read -r rc ms <"$WORK/$name.rc"
	echo "$name $ms" >>"$WORK/times.new"
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^SKIP ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc" >>"$out"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	sed -n 's/^SKIP //p' "$out" >>"$WORK/skips"
	line="--- $name: $p passed"
	[ "$f" -eq 0 ] || line="$line, $f failed"
	[ "$s" -eq 0 ] || line="$line, $s skipped"
	secs=$(printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)))
	[ -s "$WORK/$name.cpu" ] && secs="$secs, cpu $(awk 'END { printf "%.1f s", $1 + $2 }' "$WORK/$name.cpu")"
	if [ "$f" -ne 0 ]; then
		printf '%s (%s)\n%s\n' "$line" "$secs" "$(grep -v '^PASS ' "$out" | head -60)"
	elif [ "$s" -ne 0 ]; then
		printf '%s (%s)\n%s\n' "$line" "$secs" "$(grep '^SKIP ' "$out")"
	else
		printf '%s (%s)\n' "$line" "$secs"
	fi
}

if [ -s "$WORK/setup.out" ]; then
	echo "0 0" >"$WORK/setup.rc"
	report setup
fi

mkfifo "$WORK/done"
exec 3<>"$WORK/done"
# SLOTS: a FIFO holding one line per CPU, shared with another run at the
# same time (make check runs the release and the sanitizer passes
# together): a suite starts once it has taken a line and puts it back when
# it ends, so that both runs together keep the CPUs busy and no busier.
if [ -n "${SLOTS:-}" ]; then
	exec 9<>"$SLOTS" || exit 1
fi
take_slot() { [ -z "${SLOTS:-}" ] || read -r _ <&9; }
give_slot() { [ -z "${SLOTS:-}" ] || echo t >&9; }
running=0
while read -r next; do
	if [ "$running" -ge "$JOBS" ]; then
		read -r fin <&3
		report "$fin"
		running=$((running - 1))
	fi
	{ take_slot; run_one "$next"; give_slot; echo "$next" >&3; } &
	running=$((running + 1))
done <"$WORK/order"
while [ "$running" -gt 0 ]; do
	read -r fin <&3
	report "$fin"
	running=$((running - 1))
done
exec 3>&-

# The times of this run replace the old ones of the same suites.
awk 'FILENAME == ARGV[1] { new[$1] = $2; next } !($1 in new) { print } END { for (n in new) print n, new[n] }' \
	"$WORK/times.new" "$TIMES" >"$WORK/times" && cp "$WORK/times" "$TIMES" 2>/dev/null

[ -z "$DEMO" ] || chmod -R u+w "$DEMO"
if ! demo_sum | cmp -s - "$WORK/demo.sum"; then
	echo "FAIL shared demo data: a suite changed $DEMO (suites must copy it first)"
	fail=$((fail + 1))
fi

# Skips grouped by reason: "(tmux is not installed: query_repl, tui_terminal)".
why=""
[ "$skip" -eq 0 ] || why=" ($(awk '{
		p = index($0, ": "); who = p ? substr($0, 1, p - 1) : $0; w = p ? substr($0, p + 2) : "skipped"
		if (!(w in s)) order[n++] = w
		s[w] = s[w] (s[w] != "" ? ", " : "") who
	} END { for (i = 0; i < n; i++) printf "%s%s: %s", (i ? "; " : ""), order[i], s[order[i]] }' "$WORK/skips"))"
[ -s "$WORK/elsewhere" ] && echo "not in the $PASS pass: $(tr '\n' ' ' <"$WORK/elsewhere" | sed 's/ $//; s/ /, /g')"
echo "check ($HLOSCOPE_BUILD, $JOBS at once, $(($(date +%s) - t_start)) s): $pass passed, $fail failed, $skip skipped$why"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
