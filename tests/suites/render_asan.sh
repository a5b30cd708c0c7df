#!/bin/sh
# Under ASan only: the render code's leak check with full stacks.
#
# Graphviz 2.43 leaks inside its dot layout (cluster skeletons, edges between clusters, HTML label
# tables), so render/dot.c tells LeakSanitizer to ignore blocks allocated by
# libgvc.  Here that blanket rule is replaced by four Graphviz functions
# (HLOSCOPE_LSAN_PRECISE) and stacks are unwound fully, so a leak of ours
# that happens to pass through libgvc would still be reported.
. tests/lib.sh

[ "$PASS" = sanitizer ] || exit 0 # nothing to check without the sanitizer

D="$DATA/npz"
UNET="$D/layout/xla/default/train/unet3d.npz"
RNN="$D/layout/xla/random/train/openai_v0_rnn_optimized.npz"
T2="$D/tile/xla/test/0ac539372cc77cc6791794b369b984e1.npz"
export HLOSCOPE_LSAN_PRECISE=1
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:fast_unwind_on_malloc=0"

precise() { # NAME CMD...
	pr=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	pr_rc=$?
	if [ "$pr_rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "precise leak check: $pr" "exit $pr_rc: $(grep -m1 -A12 'ERROR' "$T/err" | tr '\n' '|' | head -c 900)"
	else
		ok "precise leak check: $pr"
	fi
}
precise "clusters, svg" "$HLOSCOPE" dot "$UNET" --around 1026 --radius 2 -o "$T/a.svg"
precise "heat legend, png, text" "$HLOSCOPE" dot "$RNN" --computation 1 --heat 28 \
	--highlight 220,230 -o "$T/b.png" --text
precise "configurable, dot" "$HLOSCOPE" dot "$RNN" --configurable -o "$T/c.dot"
precise "error path" sh -c "\"$HLOSCOPE\" dot \"$T2\" --path 0 1 -o \"$T/d.svg\"; [ \$? -eq 1 ]"
# (test_render itself runs in the normal sanitizer pass: under full
# unwinding it took 10 s of the pass for no path the commands above miss.)
