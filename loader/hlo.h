/* hlo.h - facts about XLA HLO as TpuGraphs encodes them.
 *
 * One table each, used everywhere (explorer columns, query fields, help,
 * graph colors), so they cannot drift:
 *   - opcode names for XLA's learned opcode ids 0..120 (0 = unknown; the
 *     retired ids 97 and 101 have names too);
 *   - opcode categories, as XLA's graph dumper groups them (their colours
 *     are presentation: render/palette.h, tui/draw.c);
 *   - the 140 node feature names and the group each belongs to;
 *   - the 24 tile config feature names and the 18 layout config names.
 * Shapes decoded from the features: hlo_synth.h (hm_shape_decode).
 * Widths other than the documented ones get generic names f0..fN / c0..cN.
 *
 * Sources: tpu_graphs/process_data/xla/hlo_opcode.h (opcode ids), the
 * tpu_graphs README (feature order), XLA's hlo_graph_dumper.cc (categories).
 *
 * Ownership: every string returned here is static and must not be freed.
 * Functions are thread-safe; names built on demand ("opcode-200", "f4096")
 * live in small per-thread rotating buffers, valid until a few more calls.
 */
#ifndef HS_HLO_H
#define HS_HLO_H

#include <stddef.h>

#define HLO_MAX_OPCODE 120
#define HLO_NODE_FEATURES 140
#define HLO_TILE_CONFIG_FEATURES 24
#define HLO_LAYOUT_CONFIG_FEATURES 18

typedef enum hlo_category {
	HLO_CAT_OTHER,        /* white: tuple, get-tuple-element, bitcast, constant, unknown */
	HLO_CAT_ELEMENTWISE,  /* yellow */
	HLO_CAT_DATA_MOVEMENT,/* green: broadcast, reshape, transpose, slice, ... */
	HLO_CAT_CONVOLUTION,  /* dark blue: dot, convolution, fft, triangular-solve, cholesky */
	HLO_CAT_REDUCTION,    /* purple: reduce, reduce-window, scatter, select-and-scatter, batch-norm-* */
	HLO_CAT_PARAMETER,    /* orange */
	HLO_CAT_COLLECTIVE,   /* brown: all-reduce, send/recv, infeed/outfeed, ... */
	HLO_CAT_CONTROL,      /* dark green: while, call, conditional, custom-call, fusion */
	HLO_NCATEGORIES
} hlo_category;

/* "convolution", ...; 0 is "unknown", 97 "trace" and 101 "tuple-select"
 * (retired from HLO, ids kept by the dataset).  Ids outside 0..120 give
 * "opcode-N" in a rotating per-thread buffer: treat it as short-lived. */
const char *hlo_opcode_name(int id);
/* The id for a name, or -1.  Case-insensitive, '_' matches '-', and
 * "opcode-N" (0 <= N <= 255) gives N, so every name above maps back. */
int hlo_opcode_id(const char *name);
/* 1 for an XLA opcode outside the learned list ("erf", "topk", ...): HLO
 * text may hold it (id 0, the name kept as written). */
int hlo_opcode_is_unlearned(const char *name);
/* Retired ids (97, 101): real names, but no current HLO op has them. */
int hlo_opcode_is_retired(int id);
hlo_category hlo_opcode_category(int id);
/* "other", "elementwise", "data-movement", "convolution", "reduction",
 * "parameter", "collective", "control"; hlo_category_id() maps back (-1). */
const char *hlo_category_name(hlo_category c);
int hlo_category_id(const char *name);

/* Feature groups as the dataset documents them. */
typedef enum hlo_group {
	HLO_G_NODE,        /* is_root, element_size_in_bits, parameter_number */
	HLO_G_SHAPE,       /* output element type one-hot, dims, sum, product, tuple size */
	HLO_G_WINDOW,      /* window sizes, strides, padding, dilation, reversal */
	HLO_G_CONVOLUTION, /* convolution dimension numbers, feature/batch group counts */
	HLO_G_SLICE,       /* slice start/stride/limit, dynamic slice sizes */
	HLO_G_PADDING,     /* pad config */
	HLO_G_REDUCE,      /* the "dimensions" attribute (reduce, reshape, reverse, ...) */
	HLO_G_LAYOUT,      /* minor-to-major */
	HLO_G_OTHER,       /* is_stable; every feature of an undocumented width */
	HLO_NGROUPS
} hlo_group;

/* "node", "shape", "window", "convolution", "slice", "padding",
 * "dimensions", "layout", "other"; hlo_group_id() maps back (-1). */
const char *hlo_group_name(hlo_group g);
int hlo_group_id(const char *name);

/* Indices of the features that code reads by meaning. */
enum {
	HLO_F_IS_ROOT = 0,
	HLO_F_ELEMENT_TYPE = 2,       /* 19 one-hot values, see hlo_element_type */
	HLO_F_DIMS = 21,              /* 6 output dims, then sum and product */
	HLO_F_DIMS_SUM = 27,
	HLO_F_DIMS_PRODUCT = 28,
	HLO_F_TUPLE_SIZE = 29,
	HLO_F_PARAMETER_NUMBER = 30,
	HLO_F_DIMENSIONS = 31,        /* 6 */
	HLO_F_WINDOW_SIZE = 37,       /* 6, sum, product; strides etc. follow */
	HLO_F_CONV_DIMS = 93,
	HLO_F_FEATURE_GROUP_COUNT = 107,
	HLO_F_BATCH_GROUP_COUNT = 108,
	HLO_F_SLICE = 109,
	HLO_F_PADDING = 125,
	HLO_F_IS_STABLE = 133,
	HLO_F_LAYOUT = 134            /* 6 minor_to_major entries */
};

/* Name of node feature i for a node_feat of the given width: the documented
 * name when width == 140, "f<i>" otherwise.  Returned strings are static
 * (generic names come from a table built once; safe for i < 4096; larger i
 * use the rotating buffer).  "?" when i < 0 or i >= width. */
const char *hlo_node_feature_name(int i, int width);
hlo_group hlo_node_feature_group(int i, int width);
/* A one-line description of documented feature i (width 140), "" otherwise. */
const char *hlo_node_feature_help(int i, int width);
/* Index of a documented node feature name, or -1.  With width != 140,
 * "f<i>" names are accepted too (and checked against the width). */
int hlo_node_feature_index(const char *name);
int hlo_node_feature_index_w(const char *name, int width);

/* Config feature names: documented for width 24 (tile: kernel_bounds_*,
 * output_bounds_*, input_bounds_*) and 18 (layout: output_layout_*,
 * input_layout_*, kernel_layout_*), "c<i>" otherwise; "?" out of range. */
const char *hlo_tile_config_name(int i, int width);
const char *hlo_layout_config_name(int i, int width);
/* Index of a config feature name for that width, or -1 (accepts "c<i>"). */
int hlo_tile_config_index(const char *name, int width);
int hlo_layout_config_index(const char *name, int width);

/* Element types in the order of the node feature one-hot, which starts at
 * feature 2 with "invalid": index i is feature HLO_F_ELEMENT_TYPE + i.
 * Their names and sizes: hlo_module.h (hm_element_type_of_onehot). */
typedef enum hlo_element_type {
	HLO_ET_INVALID, HLO_ET_PRED, HLO_ET_S8, HLO_ET_S16, HLO_ET_S32,
	HLO_ET_S64, HLO_ET_U8, HLO_ET_U16, HLO_ET_U32, HLO_ET_U64, HLO_ET_F16,
	HLO_ET_F32, HLO_ET_F64, HLO_ET_BF16, HLO_ET_C64, HLO_ET_C128,
	HLO_ET_TUPLE, HLO_ET_OPAQUE, HLO_ET_TOKEN,
	HLO_NELEMENT_TYPES
} hlo_element_type;

#endif
