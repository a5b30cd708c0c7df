/* hlo.c - the HLO tables: opcodes, categories, feature names. */
#include "hlo.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

/* ---- opcodes ------------------------------------------------------------ */

/* X(id, name, category): ids as tpu_graphs' LEARNED_HLO_OPCODE_LIST and
 * TOMBSTONE_HLO_OPCODE_LIST number them; categories follow XLA's graph
 * dumper (see STYLE.md), with its gray ops (fusion, map, domain, dimension
 * size ops) placed in CONTROL or OTHER, and async ops in CONTROL. */
#define HLO_OPCODES(X)                                            \
	X(0, "unknown", OTHER)                                    \
	X(1, "abs", ELEMENTWISE)                                  \
	X(2, "add", ELEMENTWISE)                                  \
	X(3, "add-dependency", OTHER)                             \
	X(4, "after-all", OTHER)                                  \
	X(5, "all-reduce", COLLECTIVE)                            \
	X(6, "all-to-all", COLLECTIVE)                            \
	X(7, "atan2", ELEMENTWISE)                                \
	X(8, "batch-norm-grad", REDUCTION)                        \
	X(9, "batch-norm-inference", REDUCTION)                   \
	X(10, "batch-norm-training", REDUCTION)                   \
	X(11, "bitcast", OTHER)                                   \
	X(12, "bitcast-convert", ELEMENTWISE)                     \
	X(13, "broadcast", DATA_MOVEMENT)                         \
	X(14, "call", CONTROL)                                    \
	X(15, "ceil", ELEMENTWISE)                                \
	X(16, "cholesky", CONVOLUTION)                            \
	X(17, "clamp", ELEMENTWISE)                               \
	X(18, "collective-permute", COLLECTIVE)                   \
	X(19, "count-leading-zeros", ELEMENTWISE)                 \
	X(20, "compare", ELEMENTWISE)                             \
	X(21, "complex", ELEMENTWISE)                             \
	X(22, "concatenate", DATA_MOVEMENT)                       \
	X(23, "conditional", CONTROL)                             \
	X(24, "constant", OTHER)                                  \
	X(25, "convert", ELEMENTWISE)                             \
	X(26, "convolution", CONVOLUTION)                         \
	X(27, "copy", DATA_MOVEMENT)                              \
	X(28, "copy-done", DATA_MOVEMENT)                         \
	X(29, "copy-start", DATA_MOVEMENT)                        \
	X(30, "cosine", ELEMENTWISE)                              \
	X(31, "custom-call", CONTROL)                             \
	X(32, "divide", ELEMENTWISE)                              \
	X(33, "domain", OTHER)                                    \
	X(34, "dot", CONVOLUTION)                                 \
	X(35, "dynamic-slice", DATA_MOVEMENT)                     \
	X(36, "dynamic-update-slice", DATA_MOVEMENT)              \
	X(37, "exponential", ELEMENTWISE)                         \
	X(38, "exponential-minus-one", ELEMENTWISE)               \
	X(39, "fft", CONVOLUTION)                                 \
	X(40, "floor", ELEMENTWISE)                               \
	X(41, "fusion", CONTROL)                                  \
	X(42, "gather", DATA_MOVEMENT)                            \
	X(43, "get-dimension-size", OTHER)                        \
	X(44, "set-dimension-size", OTHER)                        \
	X(45, "get-tuple-element", OTHER)                         \
	X(46, "imag", ELEMENTWISE)                                \
	X(47, "infeed", COLLECTIVE)                               \
	X(48, "iota", ELEMENTWISE)                                \
	X(49, "is-finite", ELEMENTWISE)                           \
	X(50, "log", ELEMENTWISE)                                 \
	X(51, "log-plus-one", ELEMENTWISE)                        \
	X(52, "and", ELEMENTWISE)                                 \
	X(53, "not", ELEMENTWISE)                                 \
	X(54, "or", ELEMENTWISE)                                  \
	X(55, "xor", ELEMENTWISE)                                 \
	X(56, "map", CONTROL)                                     \
	X(57, "maximum", ELEMENTWISE)                             \
	X(58, "minimum", ELEMENTWISE)                             \
	X(59, "multiply", ELEMENTWISE)                            \
	X(60, "negate", ELEMENTWISE)                              \
	X(61, "outfeed", COLLECTIVE)                              \
	X(62, "pad", DATA_MOVEMENT)                               \
	X(63, "parameter", PARAMETER)                             \
	X(64, "partition-id", COLLECTIVE)                         \
	X(65, "popcnt", ELEMENTWISE)                              \
	X(66, "power", ELEMENTWISE)                               \
	X(67, "real", ELEMENTWISE)                                \
	X(68, "recv", COLLECTIVE)                                 \
	X(69, "recv-done", COLLECTIVE)                            \
	X(70, "reduce", REDUCTION)                                \
	X(71, "reduce-precision", ELEMENTWISE)                    \
	X(72, "reduce-window", REDUCTION)                         \
	X(73, "remainder", ELEMENTWISE)                           \
	X(74, "replica-id", COLLECTIVE)                           \
	X(75, "reshape", DATA_MOVEMENT)                           \
	X(76, "reverse", DATA_MOVEMENT)                           \
	X(77, "rng", ELEMENTWISE)                                 \
	X(78, "rng-get-and-update-state", ELEMENTWISE)            \
	X(79, "rng-bit-generator", ELEMENTWISE)                   \
	X(80, "round-nearest-afz", ELEMENTWISE)                   \
	X(81, "rsqrt", ELEMENTWISE)                               \
	X(82, "scatter", REDUCTION)                               \
	X(83, "select", ELEMENTWISE)                              \
	X(84, "select-and-scatter", REDUCTION)                    \
	X(85, "send", COLLECTIVE)                                 \
	X(86, "send-done", COLLECTIVE)                            \
	X(87, "shift-left", ELEMENTWISE)                          \
	X(88, "shift-right-arithmetic", ELEMENTWISE)              \
	X(89, "shift-right-logical", ELEMENTWISE)                 \
	X(90, "sign", ELEMENTWISE)                                \
	X(91, "sine", ELEMENTWISE)                                \
	X(92, "slice", DATA_MOVEMENT)                             \
	X(93, "sort", ELEMENTWISE)                                \
	X(94, "sqrt", ELEMENTWISE)                                \
	X(95, "subtract", ELEMENTWISE)                            \
	X(96, "tanh", ELEMENTWISE)                                \
	X(97, "trace", OTHER)                                     \
	X(98, "transpose", DATA_MOVEMENT)                         \
	X(99, "triangular-solve", CONVOLUTION)                    \
	X(100, "tuple", OTHER)                                    \
	X(101, "tuple-select", OTHER)                             \
	X(102, "while", CONTROL)                                  \
	X(103, "cbrt", ELEMENTWISE)                               \
	X(104, "all-gather", COLLECTIVE)                          \
	X(105, "collective-permute-start", COLLECTIVE)            \
	X(106, "collective-permute-done", COLLECTIVE)             \
	X(107, "logistic", ELEMENTWISE)                           \
	X(108, "dynamic-reshape", DATA_MOVEMENT)                  \
	X(109, "all-reduce-start", COLLECTIVE)                    \
	X(110, "all-reduce-done", COLLECTIVE)                     \
	X(111, "reduce-scatter", COLLECTIVE)                      \
	X(112, "all-gather-start", COLLECTIVE)                    \
	X(113, "all-gather-done", COLLECTIVE)                     \
	X(114, "opt-barrier", OTHER)                              \
	X(115, "async-start", CONTROL)                            \
	X(116, "async-update", CONTROL)                           \
	X(117, "async-done", CONTROL)                             \
	X(118, "round-nearest-even", ELEMENTWISE)                 \
	X(119, "stochastic-convert", ELEMENTWISE)                 \
	X(120, "tan", ELEMENTWISE)

struct opcode_row {
	const char *name;
	hlo_category cat;
};

#define OPCODE_ROW(id, name, cat) [id] = {name, HLO_CAT_##cat},
static const struct opcode_row opcodes[HLO_MAX_OPCODE + 1] = {HLO_OPCODES(OPCODE_ROW)};
#undef OPCODE_ROW

/* Names made on demand ("opcode-200", "f5000") rotate among a few buffers
 * per thread, so that several can appear in one printf. */
static const char *rotating(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *rotating(const char *fmt, ...)
{
	static _Thread_local char bufs[8][32];
	static _Thread_local unsigned next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof bufs[0], fmt, ap);
	va_end(ap);
	return b;
}

const char *hlo_opcode_name(int id)
{
	if (id >= 0 && id <= HLO_MAX_OPCODE)
		return opcodes[id].name;
	return rotating("opcode-%d", id);
}

/* Compares a user-typed name with a table name: case-insensitive, and '_'
 * in the typed name matches '-' in the table. */
static int name_eq(const char *typed, const char *table)
{
	for (; *typed && *table; typed++, table++) {
		int c = tolower((unsigned char)*typed);
		if (c == '_')
			c = '-';
		if (c != *table)
			return 0;
	}
	return *typed == '\0' && *table == '\0';
}

/* Parses a decimal number that makes up the whole of `s`: 0..max, or -1. */
static int parse_small(const char *s, int max)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	return (int)v;
}

int hlo_opcode_id(const char *name)
{
	if (!name)
		return -1;
	for (int id = 0; id <= HLO_MAX_OPCODE; id++)
		if (name_eq(name, opcodes[id].name))
			return id;
	if (strncasecmp(name, "opcode-", 7) == 0 || strncasecmp(name, "opcode_", 7) == 0)
		return parse_small(name + 7, 255);
	return -1;
}

/* XLA opcodes that the learned list lacks: HLO text writes them, their
 * nodes get id 0 and keep the name as written. */
static const char *const unlearned_opcodes[] = {"erf", "topk", "collective-broadcast",
						"ragged-all-to-all"};

int hlo_opcode_is_unlearned(const char *name)
{
	for (size_t i = 0; name && i < sizeof unlearned_opcodes / sizeof *unlearned_opcodes; i++)
		if (strcmp(name, unlearned_opcodes[i]) == 0)
			return 1;
	return 0;
}

int hlo_opcode_is_retired(int id)
{
	return id == 97 || id == 101;
}

hlo_category hlo_opcode_category(int id)
{
	if (id >= 0 && id <= HLO_MAX_OPCODE)
		return opcodes[id].cat;
	return HLO_CAT_OTHER;
}

/* ---- categories ------------------------------------------------------- */

/* The kinds of XLA's hlo_graph_dumper; how each is painted is
 * presentation: render/palette.h (drawings), tui/draw.c (the explorer). */
static const char *const categories[HLO_NCATEGORIES] = {
	[HLO_CAT_OTHER] = "other",
	[HLO_CAT_ELEMENTWISE] = "elementwise",
	[HLO_CAT_DATA_MOVEMENT] = "data-movement",
	[HLO_CAT_CONVOLUTION] = "convolution",
	[HLO_CAT_REDUCTION] = "reduction",
	[HLO_CAT_PARAMETER] = "parameter",
	[HLO_CAT_COLLECTIVE] = "collective",
	[HLO_CAT_CONTROL] = "control",
};

const char *hlo_category_name(hlo_category c)
{
	return categories[(int)c < 0 || c >= HLO_NCATEGORIES ? HLO_CAT_OTHER : c];
}

int hlo_category_id(const char *name)
{
	if (!name)
		return -1;
	for (int c = 0; c < HLO_NCATEGORIES; c++)
		if (name_eq(name, categories[c]))
			return c;
	return -1;
}

/* ---- feature groups ----------------------------------------------------- */

static const char *const group_names[HLO_NGROUPS] = {
	[HLO_G_NODE] = "node",
	[HLO_G_SHAPE] = "shape",
	[HLO_G_WINDOW] = "window",
	[HLO_G_CONVOLUTION] = "convolution",
	[HLO_G_SLICE] = "slice",
	[HLO_G_PADDING] = "padding",
	[HLO_G_REDUCE] = "dimensions",
	[HLO_G_LAYOUT] = "layout",
	[HLO_G_OTHER] = "other",
};

const char *hlo_group_name(hlo_group g)
{
	if ((int)g < 0 || g >= HLO_NGROUPS)
		g = HLO_G_OTHER;
	return group_names[g];
}

int hlo_group_id(const char *name)
{
	if (!name)
		return -1;
	for (int g = 0; g < HLO_NGROUPS; g++)
		if (name_eq(name, group_names[g]))
			return g;
	return -1;
}

/* ---- node features ------------------------------------------------------ */

/* X(index, name, group, help): the 140 node features in the order of the
 * tpu_graphs README ("Node Features"); names exactly as documented. */
#define HLO_NODE_FEATURE_TABLE(X) \
	X(  0, "is_root", NODE, "1 when the node is its computation's output") \
	X(  1, "element_size_in_bits", NODE, "deprecated, always 0") \
	X(  2, "shape_element_type_is_invalid_type", SHAPE, "one-hot: output element type is invalid_type") \
	X(  3, "shape_element_type_is_pred", SHAPE, "one-hot: output element type is pred") \
	X(  4, "shape_element_type_is_s8", SHAPE, "one-hot: output element type is s8") \
	X(  5, "shape_element_type_is_s16", SHAPE, "one-hot: output element type is s16") \
	X(  6, "shape_element_type_is_s32", SHAPE, "one-hot: output element type is s32") \
	X(  7, "shape_element_type_is_s64", SHAPE, "one-hot: output element type is s64") \
	X(  8, "shape_element_type_is_u8", SHAPE, "one-hot: output element type is u8") \
	X(  9, "shape_element_type_is_u16", SHAPE, "one-hot: output element type is u16") \
	X( 10, "shape_element_type_is_u32", SHAPE, "one-hot: output element type is u32") \
	X( 11, "shape_element_type_is_u64", SHAPE, "one-hot: output element type is u64") \
	X( 12, "shape_element_type_is_f16", SHAPE, "one-hot: output element type is f16") \
	X( 13, "shape_element_type_is_f32", SHAPE, "one-hot: output element type is f32") \
	X( 14, "shape_element_type_is_f64", SHAPE, "one-hot: output element type is f64") \
	X( 15, "shape_element_type_is_bf16", SHAPE, "one-hot: output element type is bf16") \
	X( 16, "shape_element_type_is_c64", SHAPE, "one-hot: output element type is c64") \
	X( 17, "shape_element_type_is_c128", SHAPE, "one-hot: output element type is c128") \
	X( 18, "shape_element_type_is_tuple", SHAPE, "one-hot: output element type is tuple") \
	X( 19, "shape_element_type_is_opaque_type", SHAPE, "one-hot: output element type is opaque_type") \
	X( 20, "shape_element_type_is_token", SHAPE, "one-hot: output element type is token") \
	X( 21, "shape_dimensions_0", SHAPE, "output size (0 past the rank), dimension 0") \
	X( 22, "shape_dimensions_1", SHAPE, "output size (0 past the rank), dimension 1") \
	X( 23, "shape_dimensions_2", SHAPE, "output size (0 past the rank), dimension 2") \
	X( 24, "shape_dimensions_3", SHAPE, "output size (0 past the rank), dimension 3") \
	X( 25, "shape_dimensions_4", SHAPE, "output size (0 past the rank), dimension 4") \
	X( 26, "shape_dimensions_5", SHAPE, "output size (0 past the rank), dimension 5") \
	X( 27, "shape_dimensions_sum", SHAPE, "output size (0 past the rank), summed over dimensions") \
	X( 28, "shape_dimensions_product", SHAPE, "output size (0 past the rank), multiplied over dimensions") \
	X( 29, "shape_tuple_shapes_size", SHAPE, "number of tuple elements (tuples only)") \
	X( 30, "parameter_number", NODE, "parameter index in its computation (parameters only)") \
	X( 31, "dimensions_0", REDUCE, "dimensions attribute (reshape, reduce, reverse, broadcast, ...), dimension 0") \
	X( 32, "dimensions_1", REDUCE, "dimensions attribute (reshape, reduce, reverse, broadcast, ...), dimension 1") \
	X( 33, "dimensions_2", REDUCE, "dimensions attribute (reshape, reduce, reverse, broadcast, ...), dimension 2") \
	X( 34, "dimensions_3", REDUCE, "dimensions attribute (reshape, reduce, reverse, broadcast, ...), dimension 3") \
	X( 35, "dimensions_4", REDUCE, "dimensions attribute (reshape, reduce, reverse, broadcast, ...), dimension 4") \
	X( 36, "dimensions_5", REDUCE, "dimensions attribute (reshape, reduce, reverse, broadcast, ...), dimension 5") \
	X( 37, "window_size_0", WINDOW, "window size, dimension 0") \
	X( 38, "window_size_1", WINDOW, "window size, dimension 1") \
	X( 39, "window_size_2", WINDOW, "window size, dimension 2") \
	X( 40, "window_size_3", WINDOW, "window size, dimension 3") \
	X( 41, "window_size_4", WINDOW, "window size, dimension 4") \
	X( 42, "window_size_5", WINDOW, "window size, dimension 5") \
	X( 43, "window_size_sum", WINDOW, "window size, summed over dimensions") \
	X( 44, "window_size_product", WINDOW, "window size, multiplied over dimensions") \
	X( 45, "window_stride_0", WINDOW, "window stride, dimension 0") \
	X( 46, "window_stride_1", WINDOW, "window stride, dimension 1") \
	X( 47, "window_stride_2", WINDOW, "window stride, dimension 2") \
	X( 48, "window_stride_3", WINDOW, "window stride, dimension 3") \
	X( 49, "window_stride_4", WINDOW, "window stride, dimension 4") \
	X( 50, "window_stride_5", WINDOW, "window stride, dimension 5") \
	X( 51, "window_stride_sum", WINDOW, "window stride, summed over dimensions") \
	X( 52, "window_stride_product", WINDOW, "window stride, multiplied over dimensions") \
	X( 53, "window_padding_low_0", WINDOW, "window low padding, dimension 0") \
	X( 54, "window_padding_low_1", WINDOW, "window low padding, dimension 1") \
	X( 55, "window_padding_low_2", WINDOW, "window low padding, dimension 2") \
	X( 56, "window_padding_low_3", WINDOW, "window low padding, dimension 3") \
	X( 57, "window_padding_low_4", WINDOW, "window low padding, dimension 4") \
	X( 58, "window_padding_low_5", WINDOW, "window low padding, dimension 5") \
	X( 59, "window_padding_low_sum", WINDOW, "window low padding, summed over dimensions") \
	X( 60, "window_padding_low_product", WINDOW, "window low padding, multiplied over dimensions") \
	X( 61, "window_padding_high_0", WINDOW, "window high padding, dimension 0") \
	X( 62, "window_padding_high_1", WINDOW, "window high padding, dimension 1") \
	X( 63, "window_padding_high_2", WINDOW, "window high padding, dimension 2") \
	X( 64, "window_padding_high_3", WINDOW, "window high padding, dimension 3") \
	X( 65, "window_padding_high_4", WINDOW, "window high padding, dimension 4") \
	X( 66, "window_padding_high_5", WINDOW, "window high padding, dimension 5") \
	X( 67, "window_padding_high_sum", WINDOW, "window high padding, summed over dimensions") \
	X( 68, "window_padding_high_product", WINDOW, "window high padding, multiplied over dimensions") \
	X( 69, "window_window_dilation_0", WINDOW, "window (kernel) dilation, dimension 0") \
	X( 70, "window_window_dilation_1", WINDOW, "window (kernel) dilation, dimension 1") \
	X( 71, "window_window_dilation_2", WINDOW, "window (kernel) dilation, dimension 2") \
	X( 72, "window_window_dilation_3", WINDOW, "window (kernel) dilation, dimension 3") \
	X( 73, "window_window_dilation_4", WINDOW, "window (kernel) dilation, dimension 4") \
	X( 74, "window_window_dilation_5", WINDOW, "window (kernel) dilation, dimension 5") \
	X( 75, "window_window_dilation_sum", WINDOW, "window (kernel) dilation, summed over dimensions") \
	X( 76, "window_window_dilation_product", WINDOW, "window (kernel) dilation, multiplied over dimensions") \
	X( 77, "window_base_dilation_0", WINDOW, "base (input) dilation, dimension 0") \
	X( 78, "window_base_dilation_1", WINDOW, "base (input) dilation, dimension 1") \
	X( 79, "window_base_dilation_2", WINDOW, "base (input) dilation, dimension 2") \
	X( 80, "window_base_dilation_3", WINDOW, "base (input) dilation, dimension 3") \
	X( 81, "window_base_dilation_4", WINDOW, "base (input) dilation, dimension 4") \
	X( 82, "window_base_dilation_5", WINDOW, "base (input) dilation, dimension 5") \
	X( 83, "window_base_dilation_sum", WINDOW, "base (input) dilation, summed over dimensions") \
	X( 84, "window_base_dilation_product", WINDOW, "base (input) dilation, multiplied over dimensions") \
	X( 85, "window_window_reversal_0", WINDOW, "window reversed, dimension 0") \
	X( 86, "window_window_reversal_1", WINDOW, "window reversed, dimension 1") \
	X( 87, "window_window_reversal_2", WINDOW, "window reversed, dimension 2") \
	X( 88, "window_window_reversal_3", WINDOW, "window reversed, dimension 3") \
	X( 89, "window_window_reversal_4", WINDOW, "window reversed, dimension 4") \
	X( 90, "window_window_reversal_5", WINDOW, "window reversed, dimension 5") \
	X( 91, "window_window_reversal_true_count", WINDOW, "number of reversed window dimensions") \
	X( 92, "window_window_reversal_false_count", WINDOW, "number of window dimensions not reversed") \
	X( 93, "convolution_dim_numbers_input_batch_dim", CONVOLUTION, "input batch dimension") \
	X( 94, "convolution_dim_numbers_input_feature_dim", CONVOLUTION, "input feature dimension") \
	X( 95, "convolution_dim_numbers_input_spatial_dims_0", CONVOLUTION, "input spatial dimension 0") \
	X( 96, "convolution_dim_numbers_input_spatial_dims_1", CONVOLUTION, "input spatial dimension 1") \
	X( 97, "convolution_dim_numbers_input_spatial_dims_2", CONVOLUTION, "input spatial dimension 2") \
	X( 98, "convolution_dim_numbers_input_spatial_dims_3", CONVOLUTION, "input spatial dimension 3") \
	X( 99, "convolution_dim_numbers_kernel_input_feature_dim", CONVOLUTION, "kernel input feature dimension") \
	X(100, "convolution_dim_numbers_kernel_output_feature_dim", CONVOLUTION, "kernel output feature dimension") \
	X(101, "convolution_dim_numbers_kernel_spatial_dims_0", CONVOLUTION, "kernel spatial dimension 0") \
	X(102, "convolution_dim_numbers_kernel_spatial_dims_1", CONVOLUTION, "kernel spatial dimension 1") \
	X(103, "convolution_dim_numbers_kernel_spatial_dims_2", CONVOLUTION, "kernel spatial dimension 2") \
	X(104, "convolution_dim_numbers_kernel_spatial_dims_3", CONVOLUTION, "kernel spatial dimension 3") \
	X(105, "convolution_dim_numbers_output_batch_dim", CONVOLUTION, "output batch dimension") \
	X(106, "convolution_dim_numbers_output_feature_dim", CONVOLUTION, "output feature dimension") \
	X(107, "feature_group_count", CONVOLUTION, "convolution feature groups (1 = none)") \
	X(108, "batch_group_count", CONVOLUTION, "convolution batch groups") \
	X(109, "slice_dims_start_0", SLICE, "slice start, dimension 0") \
	X(110, "slice_dims_start_1", SLICE, "slice start, dimension 1") \
	X(111, "slice_dims_start_sum", SLICE, "slice start, summed over dimensions") \
	X(112, "slice_dims_start_product", SLICE, "slice start, multiplied over dimensions") \
	X(113, "slice_dims_stride_0", SLICE, "slice stride, dimension 0") \
	X(114, "slice_dims_stride_1", SLICE, "slice stride, dimension 1") \
	X(115, "slice_dims_stride_sum", SLICE, "slice stride, summed over dimensions") \
	X(116, "slice_dims_stride_product", SLICE, "slice stride, multiplied over dimensions") \
	X(117, "slice_dims_limit_0", SLICE, "slice limit (exclusive end), dimension 0") \
	X(118, "slice_dims_limit_1", SLICE, "slice limit (exclusive end), dimension 1") \
	X(119, "slice_dims_limit_sum", SLICE, "slice limit (exclusive end), summed over dimensions") \
	X(120, "slice_dims_limit_product", SLICE, "slice limit (exclusive end), multiplied over dimensions") \
	X(121, "dynamic_slice_sizes_0", SLICE, "dynamic-slice size, dimension 0") \
	X(122, "dynamic_slice_sizes_1", SLICE, "dynamic-slice size, dimension 1") \
	X(123, "dynamic_slice_sizes_sum", SLICE, "dynamic-slice size, summed over dimensions") \
	X(124, "dynamic_slice_sizes_product", SLICE, "dynamic-slice size, multiplied over dimensions") \
	X(125, "padding_config_edge_padding_low_0", PADDING, "pad low edge padding, dimension 0") \
	X(126, "padding_config_edge_padding_low_1", PADDING, "pad low edge padding, dimension 1") \
	X(127, "padding_config_edge_padding_low_sum", PADDING, "pad low edge padding, summed over dimensions") \
	X(128, "padding_config_edge_padding_low_product", PADDING, "pad low edge padding, multiplied over dimensions") \
	X(129, "padding_config_edge_padding_high_0", PADDING, "pad high edge padding, dimension 0") \
	X(130, "padding_config_edge_padding_high_1", PADDING, "pad high edge padding, dimension 1") \
	X(131, "padding_config_edge_padding_high_sum", PADDING, "pad high edge padding, summed over dimensions") \
	X(132, "padding_config_edge_padding_high_product", PADDING, "pad high edge padding, multiplied over dimensions") \
	X(133, "is_stable", OTHER, "1 for a stable sort") \
	X(134, "layout_minor_to_major_0", LAYOUT, "output layout: the most minor dimension") \
	X(135, "layout_minor_to_major_1", LAYOUT, "output layout: the 2nd most minor dimension") \
	X(136, "layout_minor_to_major_2", LAYOUT, "output layout: the 3rd most minor dimension") \
	X(137, "layout_minor_to_major_3", LAYOUT, "output layout: the 4th most minor dimension") \
	X(138, "layout_minor_to_major_4", LAYOUT, "output layout: the 5th most minor dimension") \
	X(139, "layout_minor_to_major_5", LAYOUT, "output layout: the 6th most minor dimension")

struct feature_row {
	const char *name;
	hlo_group group;
	const char *help;
};

#define FEATURE_ROW(i, name, group, help) [i] = {name, HLO_G_##group, help},
static const struct feature_row features[HLO_NODE_FEATURES] = {
	HLO_NODE_FEATURE_TABLE(FEATURE_ROW)};
#undef FEATURE_ROW

/* Generic names "f0".."f4095" and "c0".."c4095", built once. */
#define GENERIC_NAMES 4096
static char generic_f[GENERIC_NAMES][8], generic_c[GENERIC_NAMES][8];
static pthread_once_t generic_once = PTHREAD_ONCE_INIT;

static void generic_build(void)
{
	for (unsigned short i = 0; i < GENERIC_NAMES; i++) {
		snprintf(generic_f[i], sizeof generic_f[i], "f%hu", i);
		snprintf(generic_c[i], sizeof generic_c[i], "c%hu", i);
	}
}

static const char *generic_name(char prefix, int i)
{
	if (i >= GENERIC_NAMES)
		return rotating("%c%d", prefix, i);
	pthread_once(&generic_once, generic_build);
	return prefix == 'f' ? generic_f[i] : generic_c[i];
}

/* "f12" / "c3" (any case) -> 12 / 3 when below width, else -1. */
static int generic_index(const char *name, char prefix, int width)
{
	int i;

	if (!name || tolower((unsigned char)name[0]) != prefix)
		return -1;
	i = parse_small(name + 1, INT_MAX / 10);
	return i >= 0 && i < width ? i : -1;
}

const char *hlo_node_feature_name(int i, int width)
{
	if (i < 0 || i >= width)
		return "?";
	if (width == HLO_NODE_FEATURES)
		return features[i].name;
	return generic_name('f', i);
}

hlo_group hlo_node_feature_group(int i, int width)
{
	if (width == HLO_NODE_FEATURES && i >= 0 && i < width)
		return features[i].group;
	return HLO_G_OTHER;
}

const char *hlo_node_feature_help(int i, int width)
{
	if (width == HLO_NODE_FEATURES && i >= 0 && i < width)
		return features[i].help;
	return "";
}

int hlo_node_feature_index(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < HLO_NODE_FEATURES; i++)
		if (strcasecmp(name, features[i].name) == 0)
			return i;
	return -1;
}

int hlo_node_feature_index_w(const char *name, int width)
{
	if (width == HLO_NODE_FEATURES) {
		int i = hlo_node_feature_index(name);
		if (i >= 0)
			return i;
	}
	return generic_index(name, 'f', width);
}

/* ---- config features ---------------------------------------------------- */

/* Tile config_feat (README "Tile Config Features") and layout
 * node_config_feat (README "Layout Config Features"). */
static const char *const tile_names[HLO_TILE_CONFIG_FEATURES] = {
	"kernel_bounds_0", "kernel_bounds_1", "kernel_bounds_2",
	"kernel_bounds_3", "kernel_bounds_4", "kernel_bounds_5",
	"kernel_bounds_sum", "kernel_bounds_product",
	"output_bounds_0", "output_bounds_1", "output_bounds_2",
	"output_bounds_3", "output_bounds_4", "output_bounds_5",
	"output_bounds_sum", "output_bounds_product",
	"input_bounds_0", "input_bounds_1", "input_bounds_2",
	"input_bounds_3", "input_bounds_4", "input_bounds_5",
	"input_bounds_sum", "input_bounds_product",
};

static const char *const layout_names[HLO_LAYOUT_CONFIG_FEATURES] = {
	"output_layout_0", "output_layout_1", "output_layout_2",
	"output_layout_3", "output_layout_4", "output_layout_5",
	"input_layout_0", "input_layout_1", "input_layout_2",
	"input_layout_3", "input_layout_4", "input_layout_5",
	"kernel_layout_0", "kernel_layout_1", "kernel_layout_2",
	"kernel_layout_3", "kernel_layout_4", "kernel_layout_5",
};

static const char *config_name(const char *const *names, int documented, int i, int width)
{
	if (i < 0 || i >= width)
		return "?";
	if (width == documented)
		return names[i];
	return generic_name('c', i);
}

static int config_index(const char *const *names, int documented, const char *name, int width)
{
	if (!name)
		return -1;
	if (width == documented)
		for (int i = 0; i < documented; i++)
			if (strcasecmp(name, names[i]) == 0)
				return i;
	return generic_index(name, 'c', width);
}

const char *hlo_tile_config_name(int i, int width)
{
	return config_name(tile_names, HLO_TILE_CONFIG_FEATURES, i, width);
}

const char *hlo_layout_config_name(int i, int width)
{
	return config_name(layout_names, HLO_LAYOUT_CONFIG_FEATURES, i, width);
}

int hlo_tile_config_index(const char *name, int width)
{
	return config_index(tile_names, HLO_TILE_CONFIG_FEATURES, name, width);
}

int hlo_layout_config_index(const char *name, int width)
{
	return config_index(layout_names, HLO_LAYOUT_CONFIG_FEATURES, name, width);
}
