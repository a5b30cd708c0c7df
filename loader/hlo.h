/* hlo.h - facts about XLA HLO as TpuGraphs encodes them.
 *
 * One table each, used everywhere (explorer columns, query fields, help,
 * graph colors), so they cannot drift:
 *   - opcode names for XLA's learned opcode ids 0..120 (0 = unknown; the
 *     retired ids 97 and 101 have names too);
 *   - opcode categories, colored as XLA's graph dumper colors them;
 *   - the 140 node feature names and the group each belongs to;
 *   - the 24 tile config feature names and the 18 layout config names.
 * Widths other than the documented ones get generic names f0..fN / c0..cN.
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

/* "convolution", ...; ids outside 0..120 give "opcode-N" in a static buffer
 * rotating among a few, so treat the result as short-lived. */
const char *hlo_opcode_name(int id);
/* The id for a name, or -1. */
int hlo_opcode_id(const char *name);
hlo_category hlo_opcode_category(int id);
const char *hlo_category_name(hlo_category c);
/* Graphviz fill color ("#rrggbb") and a matching font color for a category. */
const char *hlo_category_fill(hlo_category c);
const char *hlo_category_font(hlo_category c);

/* Feature groups as the dataset documents them. */
typedef enum hlo_group {
	HLO_G_NODE,        /* is_root, element_count, ... */
	HLO_G_SHAPE,       /* output shape dims, element type, rank */
	HLO_G_WINDOW,      /* window sizes, strides, padding, dilation, reversal */
	HLO_G_CONVOLUTION, /* convolution dimension numbers */
	HLO_G_SLICE,       /* slice / dynamic slice */
	HLO_G_PADDING,     /* pad config */
	HLO_G_REDUCE,      /* reduce / gather / scatter dims and such */
	HLO_G_LAYOUT,      /* minor-to-major, tiles, ... */
	HLO_G_OTHER,
	HLO_NGROUPS
} hlo_group;

const char *hlo_group_name(hlo_group g);

/* Name of node feature i for a node_feat of the given width: the documented
 * name when width == 140, "f<i>" otherwise.  Returned strings are static
 * (generic names come from a table built once; safe for i < 4096). */
const char *hlo_node_feature_name(int i, int width);
hlo_group hlo_node_feature_group(int i, int width);
/* Index of a documented node feature name, or -1. */
int hlo_node_feature_index(const char *name);

const char *hlo_tile_config_name(int i, int width);
const char *hlo_layout_config_name(int i, int width);

/* Element types in the order of the node feature one-hot (pred, s8, ...). */
const char *hlo_element_type_name(int i);
int hlo_element_type_count(void);
/* Size in bytes of the element type (pred counts as 1). */
int hlo_element_type_bytes(int i);

/* The output shape of a node decoded from its 140 features. */
#define HLO_MAX_RANK 6
typedef struct hlo_shape {
	int element_type;          /* index into hlo_element_type_name, -1 if none */
	int rank;
	long long dims[HLO_MAX_RANK];
	int has_layout;
	int minor_to_major[HLO_MAX_RANK];
	int is_tuple;
	long long element_count;
} hlo_shape;

void hlo_decode_shape(const float *feat, int width, hlo_shape *out);
/* "bf16[8,56,56,64]{3,2,1,0}" as HLO writes it; "(tuple)" for tuples,
 * "?" when the width is not the documented one.  Returns the length. */
int hlo_shape_text(const hlo_shape *s, char *buf, size_t cap);

#endif
