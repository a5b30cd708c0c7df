/* hlo_module.h - an XLA HLO module in memory, as the readers produce it.
 *
 * Two readers fill the same structures: the protobuf reader (TpuGraphs
 * TuningData / ModuleTuningData and XLA's binary HloModuleProto) and the
 * HLO text parser.  The featurizer (hlo_featurize.h) turns one module into
 * the dataset's arrays; the explorer, the query language and the drawing
 * read names and structure from here.
 *
 * What is kept is what hloscope shows or featurizes; anything else a
 * reader meets (an attribute it does not know) is kept as text in
 * hm_instr.attrs, never dropped with an error.
 *
 * Numbers: dimensions and attribute values are int64 as in the proto.
 * Huge dimensions are legal (s8[17179869184]); nothing is ever allocated by
 * a dimension's value.
 *
 * Element types use XLA's PrimitiveType numbers (the proto's; HM_* below,
 * the newer ones in the table of hm_element_type_name).
 *
 * Every reader finishes each module with hm_module_check(), which refuses
 * what is wrong by meaning and builds the id index the lookups and the
 * featurizer use.
 *
 * Ownership: everything a module holds (strings, arrays, nested shapes)
 * lives in the file's arena and is released at once by hm_file_free().
 * Pointers into a module stay valid until then; nothing in it is freed
 * alone.
 */
#ifndef HS_HLO_MODULE_H
#define HS_HLO_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

/* ---- arena: base/arena.h (hs_arena) ------------------------------------ */

/* ---- shapes --------------------------------------------------------- */

enum {
	HM_INVALID = 0, HM_PRED = 1, HM_S8 = 2, HM_S16 = 3, HM_S32 = 4,
	HM_S64 = 5, HM_U8 = 6, HM_U16 = 7, HM_U32 = 8, HM_U64 = 9, HM_F16 = 10,
	HM_F32 = 11, HM_F64 = 12, HM_TUPLE = 13, HM_OPAQUE = 14, HM_C64 = 15,
	HM_BF16 = 16, HM_TOKEN = 17, HM_C128 = 18
};

typedef struct hm_shape {
	int element_type;          /* PrimitiveType number (HM_*); -1 when not known
	                            * (node features with no type set) */
	int rank;                  /* arrays: number of dimensions; -1: the shape is
	                            * not known at all (features not the documented
	                            * 140), written "?" */
	int64_t *dims;             /* [rank]; for a dynamic dim, its bound */
	uint8_t *dynamic;          /* [rank] 1 where the dim is dynamic (<=N); NULL when none is */
	int has_layout;            /* a layout was given (text: {..}; proto: layout field) */
	int layout_rank;           /* entries in minor_to_major */
	int64_t *minor_to_major;   /* [layout_rank] */
	char *layout_extra;        /* text after ':' in a layout ("T(8,128)(2,1)S(1)"), or NULL */
	int n_tuple;               /* TUPLE: number of elements */
	struct hm_shape *tuple;    /* [n_tuple]; NULL when the elements are not known
	                            * (decoded from node features: "(tuple of 3)") */
} hm_shape;

/* An invalid shape of rank 0, for an instruction whose shape could not be
 * made (the reader fails then; never seen in a module that was read). */
extern const hm_shape hm_shape_none;

/* ---- instructions --------------------------------------------------- */

#define HM_NONE INT64_MIN      /* an int64 attribute that was not given */

typedef struct hm_window_dim {
	int64_t size, stride, padding_low, padding_high;
	int64_t window_dilation, base_dilation;
	int window_reversal;
} hm_window_dim;

typedef struct hm_conv_dims {
	int present;
	int64_t input_batch, input_feature;
	int64_t kernel_input_feature, kernel_output_feature;
	int64_t output_batch, output_feature;
	int n_input_spatial, n_kernel_spatial, n_output_spatial;
	int64_t *input_spatial, *kernel_spatial, *output_spatial;
} hm_conv_dims;

typedef struct hm_attr {       /* an attribute kept as written */
	char *name;
	char *value;
} hm_attr;

struct hm_instr;

/* The fields of an instruction that few instructions have, kept apart
 * so that a module of a million instructions stays small. */
typedef struct hm_instr_x {
	int n_window;
	hm_window_dim *window;     /* [n_window]; text defaults filled in */
	hm_conv_dims conv;
	int64_t feature_group_count; /* HM_NONE when not given */
	int64_t batch_group_count;   /* HM_NONE when not given */
	int n_slice;
	int64_t *slice_start, *slice_limit, *slice_stride;  /* [n_slice] */
	int n_dynamic_slice_sizes;
	int64_t *dynamic_slice_sizes;
	int n_padding;
	int64_t *pad_low, *pad_high, *pad_interior;         /* [n_padding] */
	int is_stable;
	char *backend_config;      /* as written (JSON, or escaped bytes) or NULL */
	char *literal;             /* constant(...) contents as written, or NULL */
	char *custom_call_target;  /* or NULL */
	int n_control_predecessors;
	int64_t *control_predecessor_ids;
} hm_instr_x;

/* An instruction's rare fields: its own, or all absent (group counts
 * HM_NONE) when it has none. */
extern const hm_instr_x hm_instr_x_none;
#define HM_X(in) ((const hm_instr_x *)((in)->x ? (in)->x : &hm_instr_x_none))
/* For a reader filling them in: the instruction's own, made (in arena a)
 * on first use; NULL when out of memory. */
hm_instr_x *hm_instr_x_make(hs_arena *a, struct hm_instr *in);

/* The attribute that names an instruction's called computations, as the
 * text reader found it (the roles of hm_instr.called_ids, in that order). */
enum hm_call_attr {
	HM_CALL_NONE, HM_CALL_TO_APPLY, HM_CALL_CALLS, HM_CALL_SELECT, HM_CALL_SCATTER, HM_CALL_BODY,
	HM_CALL_CONDITION, HM_CALL_TRUE, HM_CALL_FALSE, HM_CALL_BRANCHES, HM_CALL_CALLED
};

typedef struct hm_instr {
	char *name;                /* without '%' */
	char *opcode;              /* as written: "fusion", "all-reduce-start", "my-new-op" */
	int64_t id;                /* unique within the module (proto id, or assigned) */
	const hm_shape *shape;     /* never NULL; read only: instructions of equal shapes
	                            * may share one (the text reader's) */

	int64_t *operand_ids;      /* [n_operands] in order; may repeat */
	int64_t *called_ids;       /* [n_called] computation ids: to_apply, calls,
	                            * while body then condition, branches, ... */
	int64_t parameter_number;  /* parameters; HM_NONE otherwise */
	int64_t *dimensions;       /* [n_dimensions] the "dimensions" attribute */
	struct hm_instr_x *x;      /* what few instructions have (windows,
	                            * convolutions, slices, custom-call target,
	                            * control predecessors, ...): read it with
	                            * HM_X(in), NULL when it has none of it */

	char *fusion_kind;         /* "kLoop", ... or NULL */
	char *sharding;            /* as text ("{replicated}") or NULL */

	/* metadata */
	char *op_type, *op_name, *source_file;  /* NULL when absent */

	hm_attr *attrs;            /* [n_attrs] every other attribute, in order;
	                            * "metadata" holds the metadata fields
	                            * beyond the four above, as written
	                            * (deduplicated_name="f" preserve_layout=true) */

	/* where it came from: its bytes in hm_file.text ("ROOT %name = ...
	 * attributes", no newline; 0, 0 for proto) */
	int64_t src_off;

	int n_operands;
	int n_called;
	int n_dimensions;
	int n_attrs;
	int source_line;           /* metadata; 0 when absent */
	int line;                  /* text line (1-based), 0 for proto */
	int src_len;
	uint8_t is_root;
	uint8_t call_attr;         /* text: the attribute its callees were named
	                            * with (enum hm_call_attr), HM_CALL_NONE
	                            * otherwise (printed by opcode, as XLA does) */
	uint8_t bare_names;        /* text: its callees and control predecessors
	                            * named without '%', as JAX writes them */

	/* Filled by hm_module_check, not by the readers. */
	int comp;                  /* index of its computation in hm_module.comps */
	int32_t node;              /* position in module order (the node id) */
} hm_instr;

/* ---- computations and modules --------------------------------------- */

typedef struct hm_comp {
	char *name;
	int64_t id;
	int64_t root_id;           /* id of the ROOT instruction (a proto without
	                            * root_id says 0, as XLA's default) */
	int is_entry;
	int n_instrs;
	hm_instr *instrs;          /* [n_instrs] in order */
} hm_comp;

/* What a module knows for real (hm_module.knows): a reader of HLO knows
 * everything; a module synthesized from a dataset .npz (hlo_synth.h) knows
 * what its arrays keep, and a consumer that shows or uses more asks first. */
enum {
	HM_KNOWS_NAMES = 1u << 0,          /* instruction and computation names as written
	                                    * (else "opcode.N", "computation.K", "entry") */
	HM_KNOWS_OPERAND_ORDER = 1u << 1,  /* operands and called computations in the
	                                    * instruction's order, repeats kept (else the
	                                    * dataset's edges: sorted, de-duplicated, call
	                                    * edges among the operands) */
	HM_KNOWS_ATTRS = 1u << 2,          /* attributes, metadata, the HLO line */
	HM_KNOWS_TUPLE_ELEMENTS = 1u << 3, /* the element shapes of a tuple */
	HM_KNOWS_SHAPES = 1u << 4,         /* output shapes (decoded from the 140 features:
	                                    * at most 6 dims, no dynamic dims) */
	HM_KNOWS_ALL = 0x1fu,
};

/* An xla.HloProto's buffer assignment (hlo_buffers.c), as XLA made it for
 * the optimized module. */
typedef struct hm_buffers {
	int64_t *node_bytes;       /* [n_instrs] by node: the bytes the allocations hold
	                            * for the logical buffers defined at the instruction
	                            * (a tuple's elements added; thread-local ones too, as
	                            * a *-buffer-assignment.txt lists them); -1 where no
	                            * allocation holds one */
	int64_t peak_bytes;        /* every allocation's size added, thread-local ones
	                            * left out: what the module holds in device memory
	                            * while it runs (docs/model.md) */
	int64_t parameter_bytes;   /* of that: entry computation parameters, */
	int64_t constant_bytes;    /* constants, */
	int64_t output_bytes;      /* outputs (maybe live out), */
	int64_t temp_bytes;        /* and the rest, temporaries */
	int64_t thread_local_bytes;
	int64_t n_allocations, n_logical, n_assigned;
	int64_t n_unplaced;        /* logical buffers defined at no instruction of the module */
} hm_buffers;

typedef struct hm_module {
	char *name;
	unsigned knows;            /* HM_KNOWS_*: HM_KNOWS_ALL from a reader */
	int64_t id;
	char *entry_name;          /* NULL when the source did not say */
	int64_t entry_id;          /* HM_NONE when the source did not say */
	int n_comps;
	hm_comp *comps;            /* [n_comps] in the source's order */
	int64_t n_instrs;          /* over all computations */
	int n_attrs;               /* header attributes as written (text:
	                            * is_scheduled, entry_computation_layout,
	                            * input_output_alias, ...), in order */
	hm_attr *attrs;
	int entry;                 /* index of the entry computation; set by hm_module_check */
	int refs_checked;          /* set by a reader that has refused already
	                            * names used twice and references to no
	                            * instruction (the text parser resolves
	                            * names as it reads): hm_module_check
	                            * skips those two checks */
	struct hm_index *index;    /* id lookups, built by hm_module_check (NULL before) */
	const hm_buffers *buffers; /* an HloProto's buffer assignment, or NULL */
} hm_module;

/* ---- tuning data (TpuGraphs raw protobufs) -------------------------- */

typedef struct hm_layout_tensor {  /* one tensor of a configurable node */
	int n_dims;
	int64_t *dims;             /* minor_to_major */
} hm_layout_tensor;

typedef struct hm_layout_node {
	int n_tensors;
	hm_layout_tensor *tensors; /* output, operand 0, operand 1, ... */
} hm_layout_node;

typedef struct hm_run {            /* one ConfigProfile */
	int has_tile;              /* op_config with a TileSizeConfig */
	int n_kernel_bounds, n_output_bounds, n_input_bounds, n_iteration_bounds;
	int64_t *kernel_bounds, *output_bounds, *input_bounds, *iteration_bounds;
	int has_layout;            /* module_config with a LayoutConfig */
	int n_layout_nodes;
	hm_layout_node *layout_nodes;
	int has_error;             /* error field set (non-empty) */
	int has_profile;
	int64_t compute_time_ns;   /* profile.compute_time_ns; 0 when absent */
	int is_default;
} hm_run;

typedef struct hm_tuning {
	int n_runs;
	hm_run *runs;
	int n_config_nodes;
	int64_t *config_index_to_node; /* flattened node positions */
	char *fingerprint;         /* or NULL */
} hm_tuning;

/* ---- files ---------------------------------------------------------- */

typedef enum hm_source {
	HM_SRC_TEXT,               /* HLO text */
	HM_SRC_HLO_PROTO,          /* binary xla.HloModuleProto */
	HM_SRC_MODULE_TUNING,      /* TpuGraphs ModuleTuningData */
	HM_SRC_TUNING,             /* TpuGraphs TuningData (several modules) */
	HM_SRC_NPZ,                /* synthesized from a dataset .npz's arrays (hlo_synth.h) */
} hm_source;

typedef struct hm_file {
	char *path;
	hm_source source;
	int n_modules;
	hm_module *modules;        /* [n_modules] */
	hm_tuning **tuning;        /* [n_modules]; entries NULL without tuning data */
	int total;                 /* modules in the file, when a reader read only
	                            * one by selection (hlo_proto_read_sel) */
	int selected;              /* then: the file's index of modules[0]; both
	                            * mean something only when total > n_modules */
	char *text;                /* HLO text input: the whole text as read,
	                            * NUL-terminated, for each instruction's own
	                            * line; NULL for protobufs.  A regular file's
	                            * text is its pages mapped read-only
	                            * (text_mapped: the mapping's length), which
	                            * the reader gives back behind it as it goes
	                            * and which come back from the page cache
	                            * when a line is read; else malloc'd. */
	size_t text_len;
	size_t text_mapped;
	int text_fd;               /* mapped: the file, open (to see it shrink) */
	_Atomic int64_t text_size_seen; /* mapped: its size when last looked at, */
	_Atomic int64_t text_seen_ms;   /* and when (hm_file_text_at looks at most
	                                 * every 50 ms) */
	struct hs_target *target;  /* the GPU target config found beside the file
	                            * (target.h; graph_open looks), or NULL */
	hs_arena arena;            /* owns everything above */
} hm_file;

void hm_file_free(hm_file *f);

/* The text input's bytes [off, off + len), NULL when there are none: no
 * text, out of range, or a mapped file that has shrunk since it was read
 * (reading its pages would be a SIGBUS; the size is looked at again after
 * 50 ms, so a file cut in between is still a SIGBUS, which the command line
 * turns into a message and exit status 2). */
const char *hm_file_text_at(const hm_file *f, int64_t off, int64_t len);

/* Element types: one table by PrimitiveType.  The name HLO text writes
 * ("f32", "pred", "token", "f8e4m3fn"), "?" when unknown, and back (-1 when
 * unknown; exact spelling); the bytes per element (pred 1; s4/u4 count 1;
 * 0 for tuple, token, opaque, invalid); the position in the node features'
 * one-hot at feature 2 (hlo.h HLO_ET_*, -1 for a type newer than the
 * dataset) and back; hm_element_type_count() numbers 0 .. count - 1. */
const char *hm_element_type_name(int t);
int hm_element_type_id(const char *name, size_t len);
int hm_element_type_bytes(int t);
int hm_element_type_onehot(int t);
int hm_element_type_of_onehot(int i);
int hm_element_type_count(void);
/* Elements of an array shape (the product of its dims); 0 for a tuple, a
 * token, an opaque value or an unknown shape. */
double hm_shape_elements(const hm_shape *s);
/* Bytes of a shape: elements times element bytes, a tuple's elements
 * summed (0 when they are not known; a double: huge shapes stay finite). */
double hm_shape_bytes(const hm_shape *s);

/* Shape text as HLO writes it: "bf16[8,56,56,64]{3,2,1,0}", dynamic dims
 * "f32[<=8,2]", TPU layouts "{1,0:T(8,128)(2,1)S(1)}", tuples
 * "(f32[], s32[2]{0})" ("(tuple of 3)" when the elements are not known),
 * "token[]", "?" for an unknown shape.  Like snprintf: writes at most cap
 * bytes (terminated when cap > 0), returns the full length. */
int hm_shape_text(const hm_shape *s, char *buf, size_t cap);

/* Checks a module that a reader filled and indexes it; every reader calls
 * it last.  Refuses (HS_EDATA, the message names what is wrong by name):
 * a computation name used twice, an instruction name used twice in its
 * computation (XLA scopes them so), an instruction id used
 * twice, an operand or control predecessor id that names no instruction or
 * the instruction itself, a called computation id that names nothing, a
 * computation that calls itself directly or through others, a root id that
 * is not one of its computation's instructions, an empty computation, an
 * entry id or name that names nothing, more than 2^31 - 1 instructions.
 * Sets every hm_instr's comp, node and is_root (id == root_id, as the
 * dataset's featurizer decides), hm_comp.is_entry and hm_module.entry (the
 * entry id, else the entry name, else the last computation), knows to
 * HM_KNOWS_ALL (the synthesizer lowers it after), and builds
 * the index used by the lookups below in the arena `a`. */
int hm_module_check(hs_arena *a, hm_module *m, hs_error *err);

/* Lookups by id, O(1); the module must have passed hm_module_check (they
 * return NULL / -1 before).  NULL or -1 when nothing has the id. */
const hm_instr *hm_find_instr(const hm_module *m, int64_t id);
const hm_comp *hm_find_comp(const hm_module *m, int64_t id);
int hm_find_comp_index(const hm_module *m, int64_t id);
/* The instruction at module position `node` (0 .. n_instrs - 1), or NULL. */
const hm_instr *hm_instr_at(const hm_module *m, int64_t node);

#endif
