# The explorer on the real HLO text modules (tests/data/hlo) against the
# text itself, read with regular expressions by tests/tui/explorer_hlo_check.py:
# node detail (operands in order with repeats and their index, users, calls,
# callers and the operand a parameter stands for, attributes as written, `u`),
# the node table's operand and user counts, the collectives view, F on whole
# op_name values and a plain module's overview with its total over the
# executed computations.  One explorer session per file and view.  The
# sanitizer pass takes the files whose features those checks meet (fusions,
# collectives, while, call, conditional, sort, long op_names, /*index=N*/),
# the release pass every file.
. "$ROOT/tests/lib.sh"

H=tests/data/hlo
if [ "$PASS" = sanitizer ]; then
	files="$H/jit_f_softmax_allreduce_gpu_before_fusion.hlo $H/cut_alpa_xmap_train_step.57.hlo
$H/cut_openxla_hlo_isolation_multiply_reduce_fusion.94.hlo $H/openxla_cpu_jax.issue.33666.linx.frag_0100.module_0005.hlo
$H/openxla_cpu_argsort_axis_1024x512_bf16.hlo $H/cut_jax_custom_op_gpus_pjit_custom_p_loss.hlo"
else
	files=$(find $H -name '*.hlo' | sort)
fi
[ -n "$files" ] || { bad "tui-hlo-check: data" "no .hlo under $H"; exit 0; }
# shellcheck disable=SC2086
HLOSCOPE="$HLOSCOPE" PASS="$PASS" "$PY" tests/tui/explorer_hlo_check.py "$T" $files
