#!/bin/sh
# make fuzz: runs every libFuzzer target of build/fuzz for FUZZ_SECONDS
# seconds each (default 60), on its corpus tests/fuzz/corpus/TARGET, its
# real seeds (tests/fuzz/seeds.sh; for hlo_text also the modules of
# tests/hlo/gen_stress.py) and its dictionary tests/fuzz/TARGET.dict when
# there is one, then prints one row per target:
#
#   target  seconds  executions  exec/s  coverage (edges)  features  new inputs  crashes
#
# coverage is at the start (the seeds read) and at the end; new inputs are
# those the run added to build/fuzz/new/TARGET (kept between runs, so a
# second run goes on from the first).  A crash (or leak, or timeout) is
# copied into the target's corpus as crash-<sha1>, to be replayed by every
# `make check` from then on, and named at the end; then the exit status is 1.
#
# Usage: tests/fuzz/run.sh FUZZ_DIR [TARGET...]   (default: every fuzz_* in FUZZ_DIR)
set -u
dir=$1; shift
secs=${FUZZ_SECONDS:-60}
. tests/fuzz/seeds.sh
targets=$*
# default: every target with a source here, and its _zlib twin when built
if [ -z "$targets" ]; then
	for src in tests/fuzz/fuzz_*.c; do
		t=$(basename "$src" .c)
		t=${t#fuzz_}
		[ -x "$dir/fuzz_$t" ] && targets="$targets $t"
		[ -x "$dir/fuzz_${t}_zlib" ] && targets="$targets ${t}_zlib"
	done
fi
crashes=""
rows=""
for t in $targets; do
	bin=$dir/fuzz_$t
	base=${t%_zlib}                 # npz_zlib: the npz target on zlib
	new=$dir/new/$t seeds=$dir/seeds/$t art=$dir/crash/$t
	rm -rf "$seeds" "$art"
	mkdir -p "$new" "$seeds" "$art"
	for f in $(real_seeds "$base"); do
		cp "$f" "$seeds/real-$(basename "$f")"
	done
	# the text target also starts from the generated stress modules
	if [ "$base" = hlo_text ] && [ -x "${PY:-/usr/bin/python3}" ]; then
		"${PY:-/usr/bin/python3}" tests/hlo/gen_stress.py "$seeds/gen" 24 25 &&
			for g in "$seeds"/gen/*.hlo; do mv "$g" "$seeds/stress-$(basename "$g")"; done
		rm -rf "$seeds/gen"
	fi
	dict=""
	[ -f "tests/fuzz/$base.dict" ] && dict="-dict=tests/fuzz/$base.dict"
	log=$dir/$t.log
	echo "fuzz_$t: $secs s on tests/fuzz/corpus/$base and $(ls "$seeds" | wc -l) real files" >&2
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -print_final_stats=1 -max_len=16384 -timeout=20 \
		-rss_limit_mb=4096 -artifact_prefix="$art/" $dict \
		"$new" "tests/fuzz/corpus/$base" "$seeds" >"$log" 2>&1
	row=$(awk -v t="$t" -v s="$secs" '
		/INITED/ { for (i = 1; i <= NF; i++) { if ($i == "cov:") c0 = $(i + 1); if ($i == "ft:") f0 = $(i + 1) } }
		/^#[0-9]+/ { for (i = 1; i <= NF; i++) { if ($i == "cov:") c1 = $(i + 1); if ($i == "ft:") f1 = $(i + 1) } }
		/stat::number_of_executed_units:/ { n = $2 }
		/stat::average_exec_per_sec:/ { r = $2 }
		/stat::new_units_added:/ { u = $2 }
		END { if (c1 == "") { c1 = c0; f1 = f0 }
		      printf "%-10s %7s %11s %7s %8s -> %-7s %8s -> %-8s %5s", t, s, n, r, c0, c1, f0, f1, u }' "$log")
	found=0
	for a in "$art"/*; do
		[ -f "$a" ] || continue
		sum=$(sha1sum "$a" | cut -c1-16)
		cp "$a" "tests/fuzz/corpus/$base/crash-$sum"
		crashes="$crashes tests/fuzz/corpus/$base/crash-$sum($(basename "$a" | cut -d- -f1))"
		found=$((found + 1))
	done
	rows="$rows$row $found
"
done
printf '\n%-10s %7s %11s %7s %19s %20s %5s %s\n' target seconds executions exec/s "coverage (edges)" features new crashes
printf '%s' "$rows"
if [ -n "$crashes" ]; then
	echo "crashes, kept as seeds (replay one: build/asan/tests/fuzz/replay_TARGET FILE):"
	for c in $crashes; do echo "  $c"; done
	exit 1
fi
echo "no crash; logs in $dir/TARGET.log"
