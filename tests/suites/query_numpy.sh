#!/bin/sh
# Query results against numpy on the same arrays (tests/query/numpy_check.py):
# the seven real files and two files of the synthetic demo data.
. tests/lib.sh
need numpy || exit 0

files=$(find "$DATA" -name '*.npz' | sort)
if use_demo; then
	files="$files $(find "$DEMO" -name 'synth_transformer_b4*.npz' | head -1)"
	files="$files $(find "$DEMO" -name 'synth_resnet_conv_bn_relu_8x28x32x128*.npz' | head -1)"
fi
[ -n "$files" ] || { bad "query-numpy: data" "no .npz under $DATA"; exit 0; }
# shellcheck disable=SC2086
"$PY" tests/query/numpy_check.py $files
