#!/bin/sh
# Every option that takes a number reads it with base/parse.h: the whole
# value is the number, or the command refuses it with exit 1 and a message
# naming the option; a list with an empty item is refused the same way.  ("12abc", " 5", "1,,2" were taken before, in part.)
. tests/lib.sh

H=$HLOSCOPE
use_demo || exit 1
D=$DEMO
LAY=$(find "$D/npz/layout/xla/default/train" -name '*.npz' | sort | head -1)
O="$T/out.svg"

# refuse NAME PATTERN ARGS...: exit 1, PATTERN in stderr, nothing written.
refuse() {
	name=$1 pat=$2
	shift 2
	rm -f "$O" "$T/m.hsm"
	"$H" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		bad "option_numbers: $name" "exit $rc, wanted 1; stderr: $(head -c 300 "$T/err")"
	elif ! grep -q -- "$pat" "$T/err"; then
		bad "option_numbers: $name" "message lacks '$pat': $(head -c 300 "$T/err")"
	elif [ -e "$O" ] || [ -e "$T/m.hsm" ]; then
		bad "option_numbers: $name" "left an output file"
	elif ! no_sanitizer_report "$T/err"; then
		bad "option_numbers: $name" "sanitizer: $(head -c 300 "$T/err")"
	else
		ok "option_numbers: $name"
	fi
}

refuse "dot --nodes 1,,2 (an empty item)" "node ids like 1,5,9-12, not '1,,2': item 2 is empty" \
	dot "$LAY" --nodes 1,,2 -o "$O"
refuse "dot --nodes 1, (a trailing comma)" "node ids like" dot "$LAY" --nodes 1, -o "$O"
refuse "dot --nodes ,1 (a leading comma)" "node ids like" dot "$LAY" --nodes ,1 -o "$O"
refuse "dot --nodes '1 2' (a space)" "node ids like" dot "$LAY" --nodes "1 2" -o "$O"
refuse "dot --nodes 3-1 (a backward range)" "node ids like" dot "$LAY" --nodes 3-1 -o "$O"
refuse "dot --nodes 1-2-3" "node ids like" dot "$LAY" --nodes 1-2-3 -o "$O"
refuse "dot --highlight 1,,2" "node ids like" dot "$LAY" --around 1 --highlight 1,,2 -o "$O"
# Every other list: an empty item is refused, not skipped.
refuse "fit --measured 1,,2" "--measured: '1,,2' .*: an empty item" fit "$LAY" --measured 1,,2
refuse "fit --measured 1, (a trailing comma)" "--measured: '1,' .*: an empty item" fit "$LAY" --measured 1,
refuse "fit --measured ''" "--measured: '' .*: an empty item" fit "$LAY" --measured ""
refuse "fit --measured ' 1,2' (a space: one list parser with dot's)" "--measured: ' 1,2' .* near ' 1,2'" \
	fit "$LAY" --measured " 1,2"
refuse "fit --measured 1,2-x" "--measured: '1,2-x' .* near '2-x'" fit "$LAY" --measured 1,2-x
refuse "eval --analytic-terms mxu,,copy" "--analytic-terms needs names joined by single commas" \
	eval "$LAY" --analytic-terms mxu,,copy
refuse "eval --analytic-terms mxu," "an empty item" eval "$LAY" --analytic-terms mxu,
refuse "eval --analytic-terms ''" "an empty item" eval "$LAY" --analytic-terms ""
refuse "dot --limit 12abc" "limit needs a number" dot "$LAY" --around 1 --limit 12abc -o "$O"
refuse "dot --max-work 2k" "max-work needs a number" dot "$LAY" --around 1 --max-work 2k -o "$O"
refuse "dot --radius ' 2'" "radius" dot "$LAY" --around 1 --radius " 2" -o "$O"
refuse "dot --around 99999999999999999999 (overflow)" "around needs a node id" \
	dot "$LAY" --around 99999999999999999999 -o "$O"
refuse "dump --limit 12abc" "--limit needs" dump "$LAY" node_opcode --limit 12abc
refuse "dump --limit ''" "--limit needs" dump "$LAY" node_opcode --limit ""
refuse "predict --top 3x" "--top needs a number" predict "$LAY" --top 3x
refuse "fit --seed 1e3" "--seed needs a number" fit "$LAY" --train-fraction 0.5 --seed 1e3
refuse "fit --train-fraction ' 0.5'" "--train-fraction needs a number" fit "$LAY" --train-fraction " 0.5"
refuse "fit --train-fraction nan" "--train-fraction needs a number" fit "$LAY" --train-fraction nan
refuse "train --epochs 5x" "--epochs needs a number" train "$LAY" -o "$T/m.hsm" --epochs 5x
refuse "train --lr 0x1p-4 (a hex float)" "--lr needs a number" train "$LAY" -o "$T/m.hsm" --lr 0x1p-4
refuse "synth --seed -1" "--seed must be 0 or more" synth "$T/s2" --seed -1
refuse "compare with config ' 1'" "is not a config" compare "$LAY" " 1" 2

# The same options still take plain numbers.
"$H" dot "$LAY" --nodes 1,3-4 --highlight 3 --limit 100 --text >"$T/out" 2>"$T/err" &&
	ok "option_numbers: dot --nodes 1,3-4 --highlight 3 --limit 100 works" ||
	bad "option_numbers: dot with good numbers" "$(head -c 300 "$T/err")"
"$H" dump "$LAY" node_opcode --limit +2 >"$T/out" 2>"$T/err" && [ "$(wc -l <"$T/out")" -eq 2 ] &&
	ok "option_numbers: dump --limit +2 prints 2 lines" ||
	bad "option_numbers: dump --limit +2" "$(head -c 300 "$T/err")"

# Every command reads its options by one table (cli/opts.h): a value after
# '=', a flag given one refused, a number out of range named with it, a
# word not in the list with the list, -- ending the options.
"$H" dump --limit=2 "$LAY" node_opcode >"$T/out" 2>"$T/err" && [ "$(wc -l <"$T/out")" -eq 2 ] &&
	ok "option_numbers: dump --limit=2 takes its value after '='" ||
	bad "option_numbers: --limit=2" "$(head -c 300 "$T/err")"
refuse "info --json=1 (a flag takes no value)" "--json takes no value" info "$LAY" --json=1
refuse "query --threads 0 (out of 1..256)" "--threads must be 1 to 256, not 0" query "$LAY" --threads 0 count
refuse "dot --direction up" "--direction must be operands, users or both, not 'up'" \
	dot "$LAY" --around 1 --direction up -o "$O"
refuse "predict --top (no value)" "--top needs a value" predict "$LAY" --top
refuse "eval --bogus" "unknown option '--bogus' (see hloscope eval --help)" eval "$LAY" --bogus
"$H" dump "$LAY" -- node_opcode >"$T/out" 2>"$T/err" && [ -s "$T/out" ] &&
	ok "option_numbers: -- ends the options" || bad "option_numbers: --" "$(head -c 300 "$T/err")"
exit 0
