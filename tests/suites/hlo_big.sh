# hlo_big: a module of the size people open (tools/gen_transformer_hlo.py,
# the generator of make bench) read through a read-only mapping of the
# file: `info` counts what the generator wrote (computations, instructions,
# fusions, collectives: counted again here from the text with awk), and a
# file truncated by another program while hloscope reads it stops with
# status 2 and a message, never a signal (a mapped page past the new end
# is a SIGBUS; cli/main.c turns it into the message).
#
# pass: release (the sanitizer runtime takes SIGBUS for its own report
# before the program's handler in some versions; the read itself is covered
# under the sanitizers by hlo_text and hlo_stress)
. tests/lib.sh
G="$T/t.hlo"
"$PY" tools/gen_transformer_hlo.py --layers 3000 -o "$G" || { bad generator "exit $?"; exit 0; }

# counted from the text: every "name = shape opcode(" line of a computation
awk '
	/^(ENTRY )?%[^ ]+ .*->.*\{$/ { comps++; next }
	/^  (ROOT )?%[^ ]+ = / {
		instrs++
		if ($0 ~ / fusion\(/) fusions++
		if ($0 ~ / all-reduce\(/) ar++
	}
	END { printf "%d %d %d %d\n", comps, instrs, fusions, ar }' "$G" >"$T/want"
read -r comps instrs fusions ar <"$T/want"
"$HLOSCOPE" info "$G" >"$T/info" 2>"$T/err"
rc=$?
got=$(awk '/^computations/ { c = $2 } /^instructions/ { i = $2; f = $3 } /^collectives/ { a = $2 }
	END { printf "%s %s %s %s", c, i, f, a }' "$T/info" | tr -d ',:')
if [ "$rc" -eq 0 ] && [ "$got" = "$comps $instrs $fusions $ar" ]; then
	ok "a generated module of $instrs instructions: info counts what the text has"
else
	bad "info on a generated module" "status $rc, got '$got', the text has '$comps $instrs $fusions $ar'"
fi

# Truncated while read: 2 and the message (or, when the read won the race,
# 0 and the whole answer); a signal (status > 128) fails.
for delay in 0.01 0.03 0.06; do
	cp "$G" "$T/shrinks.hlo"
	"$HLOSCOPE" query "$T/shrinks.hlo" 'count by opcode' >"$T/q.out" 2>"$T/q.err" &
	pid=$!
	sleep "$delay"
	: >"$T/shrinks.hlo"
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q "shrank while it was being read" "$T/q.err"; then
		ok "truncated after ${delay}s: status 2, the file named as rewritten"
	elif [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && [ -s "$T/q.err" ]; }; then
		ok "truncated after ${delay}s: the read finished first (status $rc)"
	else
		bad "truncated after ${delay}s" "status $rc: $(head -c 300 "$T/q.err")"
	fi
done
exit 0
