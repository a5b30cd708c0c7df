/* graph.h - one graph: an HLO module and its dataset view (the TpuGraphs
 * arrays, configs and runtimes).
 *
 * graph_open() opens any input by its content (not its name): a dataset
 * .npz, a TpuGraphs TuningData / ModuleTuningData .pb, an XLA
 * HloModuleProto .pb, or HLO text; FILE#N (0-based) or FILE#NAME picks a
 * module of a file of several.  The module is the graph: a reader's, or
 * for a bare .npz one synthesized from its arrays (hlo_synth.h), and the
 * HLO structure is built from it the same way for every input; g->knows
 * says what it knows for real.  The dataset view is exact: an .npz's own
 * arrays, validated (node_config_feat read on demand and kept as int8 when
 * it fits, as in every real file), or the featurizer's from the module
 * (hlo_featurize.h; node features computed when asked):
 *
 *     HLO input --reader--> hm_module --hf_featurize--> dataset view
 *     .npz --------------> dataset view --hlo_synth--> hm_module
 *     either module --graph_set_module--> computations, calls, operands
 *
 * Edges: edge_index[e] = {u, v} means u consumes the output of v; so v is an
 * operand of u and u is a user of v.
 *
 * Ownership: the graph owns every array in it and its module's file;
 * graph_free() releases all.
 */
#ifndef HS_GRAPH_H
#define HS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/index.h"
#include "hlo_module.h"

/* What a graph is: a tile or layout sample of the dataset, or a plain HLO
 * module (HLO input without configs), whose dataset view is a layout
 * graph's without configs (what `convert` writes). */
typedef enum hs_kind { HS_KIND_TILE, HS_KIND_LAYOUT, HS_KIND_MODULE } hs_kind;

struct hf_arrays;

/* What a real HLO computation is for, from how it is called. */
typedef enum hs_role {
	HS_ROLE_UNKNOWN,      /* called only by nodes whose opcode is not known */
	HS_ROLE_ENTRY,
	HS_ROLE_WHILE_BODY,
	HS_ROLE_WHILE_COND,
	HS_ROLE_FUSION,
	HS_ROLE_REDUCER,      /* to_apply of reduce, all-reduce, scatter, sort, map, ... */
	HS_ROLE_BRANCH,       /* of a conditional */
	HS_ROLE_CALL,
	HS_ROLE_ASYNC,        /* wrapped by async-start / -update / -done */
	HS_ROLE_OTHER,        /* custom-call bodies, uncalled computations, ... */
	HS_NROLES
} hs_role;

/* A real HLO computation: nodes are laid out computation by computation, so
 * each one is a range of node ids. */
typedef struct hs_hcomp {
	const char *name;     /* the module's name of it (graph_hcomp_name) */
	hs_role role;
	int64_t first, count; /* nodes first .. first + count - 1 */
	int64_t root;         /* its root node (is_root) */
	int64_t callers_at;   /* its callers are hcomp_callers[callers_at ..] */
	int64_t n_callers;    /* nodes that call it, in node order */
} hs_hcomp;

typedef struct hs_graph {
	char *path;
	char *name;              /* file name without directory and ".npz" */
	hs_kind kind;

	int64_t n_nodes;
	int64_t n_edges;
	uint8_t *opcode;         /* [n_nodes] */
	float *node_feat;        /* [n_nodes * feat_width]: an .npz's array; for an
	                          * HLO input NULL until graph_need_features (or
	                          * graph_feat) computes it from the module */
	int feat_width;
	int64_t (*edges)[2];     /* [n_edges] {user, operand} in file order */

	/* CSR both ways; neighbour lists in edge order. */
	int64_t *operand_off;    /* [n_nodes + 1] */
	int64_t *operand_idx;    /* [n_edges] */
	int64_t *user_off;       /* [n_nodes + 1] */
	int64_t *user_idx;       /* [n_edges] */

	/* The node_splits segments (named "splits" in the user interface; they
	 * are not HLO computations, see hcomps below): segment c holds nodes
	 * comp_start[c] .. comp_start[c + 1] - 1.  Tile graphs have one. */
	int64_t n_comps;
	int64_t *comp_start;     /* [n_comps + 1], comp_start[n_comps] == n_nodes */
	int32_t *comp_of;        /* [n_nodes] */

	/* Configs. */
	int64_t n_configs;
	int labeled;             /* 0 when every runtime is 0 (test split) */
	int64_t *runtime_raw;    /* [n_configs] config_runtime as stored (ns) */
	int64_t *normalizer;     /* tile: [n_configs]; NULL for layout */
	double *runtime;         /* [n_configs] tile: raw / normalizer; layout: raw */

	/* Tile. */
	float *config_feat;      /* [n_configs * config_width] */
	int config_width;

	/* Layout. */
	int64_t n_cfg_nodes;
	int64_t *cfg_node_ids;   /* [n_cfg_nodes] node ids, as stored */
	int32_t *cfg_index;      /* [n_nodes]: k with cfg_node_ids[k] == node, or -1 */
	int ncf_width;           /* 18 in real files; known before loading */
	int ncf_loaded;
	int8_t *ncf_i8;          /* [n_configs * n_cfg_nodes * ncf_width] when compact */
	float *ncf_f32;          /* same, when some value does not fit in int8 */

	/* The module (graph_hlo.c), in every graph graph_open makes: a
	 * reader's (HLO input, or the raw twin of an .npz), or synthesized
	 * from an .npz's arrays (hlo_synth.h: names "opcode.N",
	 * "computation.K", "entry"; shapes decoded from the features; the
	 * dataset's edges as operands).  `knows` (HM_KNOWS_*) says what of it
	 * is real: a consumer that shows names as written, operand order,
	 * attributes or tuple elements asks it.  The structure below is built
	 * from the module alone, the same way for every input.  A light open
	 * (graph_open_parts) has no module and no structure: module, hlo and
	 * hcomps NULL, knows 0. */
	struct hm_file *hlo;     /* owned: the module's file */
	const struct hm_module *module; /* the graph's module in hlo */
	unsigned knows;          /* module->knows; 0 without a module */
	uint64_t serial;         /* a number no other graph of the process has, given on
	                          * first need (graph_feat_slow's rows are kept by it) */
	int64_t n_hcomps;        /* >= 1 */
	hs_hcomp *hcomps;        /* [n_hcomps] in node order */
	int32_t *hcomp_of;       /* [n_nodes] */
	int64_t entry;           /* index of the entry computation */
	hs_index hcomp_index;    /* graph_find_hcomp's names, made on first use */
	int64_t *hcomp_callers;  /* caller nodes, grouped by computation */
	int64_t *called_off;     /* [n_nodes + 1]: node v calls the computations */
	int32_t *called_idx;     /*   called_idx[called_off[v] .. called_off[v + 1]) */
	/* HLO operands and users, the module's (graph_hlo.c): node v's
	 * operands are hlo_operand_idx[hlo_operand_off[v] ..
	 * hlo_operand_off[v + 1]) in the instruction's order, a repeated
	 * operand repeated (multiply(x, x) has x twice); called computations
	 * are not operands (called_off above).  Its users are
	 * hlo_user_idx[hlo_user_off[v] ..], each node that has v as an operand
	 * once, in node order.  Without HM_KNOWS_OPERAND_ORDER (a bare .npz)
	 * they are the dataset's edges (sorted, de-duplicated, call edges
	 * included, self-loops left out): say so where operands are shown;
	 * these four are then operand_off... themselves when equal (no
	 * self-loop, users in node order), freed with them. */
	int64_t *hlo_operand_off, *hlo_operand_idx;
	int64_t *hlo_user_off, *hlo_user_idx;
	char *warning;           /* a note for the caller (e.g. the raw twin of an
	                          * .npz disagreed, so the module stays synthesized; an
	                          * unknown opcode id or a self-loop, which only
	                          * `check` refuses), or NULL */
} hs_graph;

/* Opens and validates a sample, recognizing the input by content (see the
 * top of this file).  An .npz with a raw twin (the official tree keeps
 * pb/... beside npz/..., same relative path, .pb for .npz) takes the twin's
 * module after checking that opcodes and edges agree; when they do not, the
 * synthesized module stays and g->warning says why.  A file with
 * several modules needs FILE#N or FILE#NAME (HS_EUSAGE otherwise, the
 * message lists how to pick one). */
hs_graph *graph_open(const char *path, hs_error *err);
void graph_free(hs_graph *g);

/* A graph from arrays built in memory (hlo_featurize.h), validated by the
 * same code as an .npz's arrays, with the module synthesized from them as
 * for a bare .npz; takes the arrays over (a's pointers are set to NULL).
 * `path` and `name` are copied. */
hs_graph *graph_from_arrays(struct hf_arrays *a, const char *path, const char *name, hs_error *err);

/* The HLO behind a path (FILE, FILE#N, FILE#NAME): reads FILE, a protobuf
 * or HLO text (by content), and sets *module to the module the path names
 * (as graph_open picks it), or to -1 when FILE holds several modules and the
 * path names none.  NULL for an .npz (HS_EUSAGE) or a bad file.  Free the
 * result with hm_file_free(). */
struct hm_file *graph_read_hlo(const char *path, int *module, hs_error *err);

/* Loads node_config_feat (layout only; no-op when loaded or tile). */
int graph_load_node_configs(hs_graph *g, hs_error *err);

/* node_config_feat[c, k, j]; the graph must have its node configs loaded. */
static inline float graph_ncf(const hs_graph *g, int64_t c, int64_t k, int j)
{
	size_t i = ((size_t)c * (size_t)g->n_cfg_nodes + (size_t)k) *
		   (size_t)g->ncf_width + (size_t)j;
	return g->ncf_i8 ? (float)g->ncf_i8[i] : g->ncf_f32[i];
}

/* Computes an HLO input's node features (the dataset's 140 per node) from
 * its module, once; a no-op when the graph has them.  0, or -1 and err
 * (out of memory).  A cache: g is const for its callers. */
int graph_need_features(const hs_graph *g, hs_error *err);
/* 1 when node features can be had: the array, or a module to compute it
 * from (graph_open_parts may open an .npz without them). */
int graph_has_features(const hs_graph *g);

/* Node `node`'s features.  An HLO input whose whole array has not been
 * computed (graph_need_features) computes the one row, kept in the calling
 * thread's ring of the last 256 rows asked for: the pointer stays good
 * until 255 other rows have been computed in that thread (a loop over
 * every node should call graph_need_features first).  A graph without
 * features gives a row of zeros. */
const float *graph_feat_slow(const hs_graph *g, int64_t node);
static inline const float *graph_feat(const hs_graph *g, int64_t node)
{
	if (!g->node_feat)
		return graph_feat_slow(g, node);
	return g->node_feat + (size_t)node * (size_t)g->feat_width;
}

static inline int64_t graph_n_operands(const hs_graph *g, int64_t v)
{
	return g->operand_off[v + 1] - g->operand_off[v];
}

static inline int64_t graph_n_users(const hs_graph *g, int64_t v)
{
	return g->user_off[v + 1] - g->user_off[v];
}

/* Index of the config with the smallest runtime (-1 if unlabeled). */
int64_t graph_best_config(const hs_graph *g);
/* A hash of what the sample is, not where it lies: kind, opcodes, edges,
 * configurable nodes, tile config features and runtimes (node_config_feat
 * is not loaded for it).  A copy under another name has the same digest. */
uint64_t graph_digest(const hs_graph *g);
/* Index of the layout config whose values are all -1 (the compiler's
 * default), or -1 when there is none.  Loads node configs if needed. */
int64_t graph_default_config(hs_graph *g, hs_error *err);

const char *graph_kind_name(hs_kind k); /* "tile" / "layout" / "module" */

/* Full validation beyond what graph_open checks: every value of
 * node_config_feat, CRCs of every member (graph_open checks the ones it
 * reads), and the rules a reader can live without but a sound file keeps:
 * opcode ids from the opcode list (0..HLO_MAX_OPCODE; graph_open takes any
 * 0..255), no self-loop edge [u, u].  Used by `hloscope check`; streams, so
 * memory stays small.  HLO inputs are fully checked by graph_open. */
int graph_check_file(const char *path, hs_error *err);

/* ---- Opening only some arrays (graph_parts.c) ---- */

/* The parts of a sample a reader needs (a mask); graph_open reads them all
 * but node_config_feat's values, which graph_load_node_configs adds. */
enum {
	GRAPH_PART_OPCODES = 1u << 0,      /* node_opcode: n_nodes, opcode (always read) */
	GRAPH_PART_SHAPES = 1u << 1,       /* the other arrays' shapes: n_edges, n_configs,
					    * n_cfg_nodes, feat_width, config_width, ncf_width */
	GRAPH_PART_SPLITS = 1u << 2,       /* node_splits: n_comps, comp_start, comp_of */
	GRAPH_PART_RUNTIMES = 1u << 3,     /* config_runtime (+ tile normalizers): n_configs,
					    * runtime_raw, normalizer, runtime, labeled */
	GRAPH_PART_FEATURES = 1u << 4,     /* node_feat */
	GRAPH_PART_EDGES = 1u << 5,        /* edge_index and the CSR */
	GRAPH_PART_CONFIGS = 1u << 6,      /* config_feat (tile), node_config_ids (layout) */
	GRAPH_PART_NODE_CONFIGS = 1u << 7, /* node_config_feat's values */
	GRAPH_PART_ALL = 0xffu,
};

/* Opens a sample reading what `parts` asks for, and node_opcode.  A .npz
 * file asked for no more than OPCODES, SHAPES, SPLITS and RUNTIMES has only
 * those members read and checked (the others are not looked at); arrays not
 * read are NULL and their counts 0 (SHAPES fills the counts and widths from
 * the .npy headers alone).  Any other part, or another kind of file, opens
 * it whole with graph_open (and loads the node configs for NODE_CONFIGS).
 * Errors and ownership as graph_open. */
hs_graph *graph_open_parts(const char *path, unsigned parts, hs_error *err);

/* ---- HLO names and structure (graph_hlo.c) ------------------------------ */

/* Per-node HLO fields, one table for views and queries. */
typedef enum hs_hfield {
	HS_HF_NAME,                /* instruction name, or "opcode.N" */
	HS_HF_OPCODE,              /* opcode as written (also when not learned) */
	HS_HF_COMPUTATION,         /* its real computation's name */
	HS_HF_SHAPE,               /* "bf16[8,56]{1,0}" */
	HS_HF_FUSION_KIND,         /* "kLoop", ... */
	HS_HF_OP_TYPE,             /* metadata */
	HS_HF_OP_NAME,
	HS_HF_SOURCE_FILE,
	HS_HF_SOURCE_LINE,         /* decimal; "" when absent */
	HS_HF_CUSTOM_CALL_TARGET,
	HS_HF_SHARDING,
	HS_NHFIELDS
} hs_hfield;

/* "name", "opcode_name", "computation_name", "shape", "fusion_kind",
 * "op_type", "op_name", "source_file", "source_line",
 * "custom_call_target", "sharding"; graph_hfield_id maps back (-1). */
const char *graph_hfield_name(hs_hfield f);
int graph_hfield_id(const char *name);

/* Field f of node v as text: a string inside the module, or `buf` (cap
 * bytes, truncated) for shapes and numbers; "" when absent (fields a bare
 * .npz does not have, or a graph opened without its module).  Never NULL. */
const char *graph_node_text(const hs_graph *g, int64_t v, hs_hfield f, char *buf, size_t cap);
/* Shorthands: the module's name of node v ("dot.42", or "convolution.603"
 * on a bare .npz; "" without a module) and its opcode as written. */
const char *graph_node_name(const hs_graph *g, int64_t v);
const char *graph_node_opcode_name(const hs_graph *g, int64_t v);
/* The instruction behind node v, or NULL on a graph opened without its
 * module (graph_open_parts). */
const struct hm_instr *graph_node_instr(const hs_graph *g, int64_t v);
/* A node by name ("dot.42", or "convolution.603" on a bare .npz); -1 if
 * none.  Names are unique in their computation: the first node in node
 * order. */
int64_t graph_find_node(const hs_graph *g, const char *name);

/* Computation c's name: as written, or "entry" and "computation.K" on a
 * bare .npz. */
const char *graph_hcomp_name(const hs_graph *g, int64_t c);
/* "entry", "while-body", "while-condition", "fusion", "reducer", "branch",
 * "call", "async", "other", "unknown". */
const char *graph_role_name(hs_role r);
static inline int64_t graph_n_called(const hs_graph *g, int64_t v)
{
	return g->called_off[v + 1] - g->called_off[v];
}
/* Node v's HLO operands (see hlo_operand_off): how many, and the list. */
static inline int64_t graph_hlo_n_operands(const hs_graph *g, int64_t v)
{
	return g->hlo_operand_off[v + 1] - g->hlo_operand_off[v];
}
static inline const int64_t *graph_hlo_operands(const hs_graph *g, int64_t v)
{
	return g->hlo_operand_idx + g->hlo_operand_off[v];
}
static inline int64_t graph_hlo_n_users(const hs_graph *g, int64_t v)
{
	return g->hlo_user_off[v + 1] - g->hlo_user_off[v];
}
static inline const int64_t *graph_hlo_users(const hs_graph *g, int64_t v)
{
	return g->hlo_user_idx + g->hlo_user_off[v];
}

/* The computation node v belongs to, and what that computation is for. */
static inline hs_role graph_node_role(const hs_graph *g, int64_t v)
{
	return g->hcomps[g->hcomp_of[v]].role;
}

/* A parameter's number (feature 30 on a bare .npz); -1 when v is not a
 * parameter. */
int64_t graph_param_number(const hs_graph *g, int64_t v);

/* What parameter node `param` stands for when node `caller` runs its
 * computation: the caller's operand that becomes it.  fusion, call,
 * async-start, custom-call and map pass operand N to parameter(N); while
 * passes its operand 0 to the body's and the condition's parameter(0);
 * conditional passes operand k + 1 to branch k's parameter(0) (true is
 * branch 0, false branch 1); sort passes operand N to its comparator's
 * parameters 2N and 2N + 1.  -1 otherwise (a reducer's parameters are
 * elements, not operands) or when the caller does not call it. */
int64_t graph_param_source(const hs_graph *g, int64_t param, int64_t caller);
/* The same as the operand's index in the caller's operand list, or -1. */
int64_t graph_param_operand(const hs_graph *g, int64_t param, int64_t caller);

/* A computation by name (graph_hcomp_name), or "entry" for the entry
 * computation on every input; -1 when none. */
int64_t graph_find_hcomp(const hs_graph *g, const char *name);

/* Node v's instruction as HLO text, appended to out: the line as the file
 * writes it (HLO text input), or as XLA prints it (a protobuf), from ROOT
 * or the name to the last attribute.  1 when appended, 0 when the module
 * does not know it (a bare .npz), -1 when out of memory (out->failed). */
struct hs_strbuf;
int graph_node_hlo(const hs_graph *g, int64_t v, struct hs_strbuf *out);
/* Attribute `name` of node v's instruction (hm_instr_attr: its value as
 * XLA writes it, e.g. "{{0,1,2,3},{4,5,6,7}}" for replica_groups) appended
 * to out: 1 when it has one, 0 when not (or on a bare .npz), -1 when out of
 * memory. */
int graph_node_attr(const hs_graph *g, int64_t v, const char *name, struct hs_strbuf *out);

/* ---- collectives (graph_collective.c) --------------------------------- */

/* all-reduce(-start), all-gather(-start), reduce-scatter, all-to-all(-start),
 * ragged-all-to-all, collective-permute(-start), collective-broadcast: the
 * instructions that exchange data between devices (their -done halves only
 * wait). */
int graph_is_collective_opcode(const char *opcode);

typedef struct hs_collective {
	int64_t channel_id;  /* -1 when none is given */
	int64_t n_groups;    /* replica groups; 0 when none are given (every device) */
	int64_t group_size;  /* devices in a group (the largest one); 0 as above */
	double bytes;        /* per device: the bytes of its operands */
	/* the attribute naming the devices: "replica_groups", or
	 * "source_target_pairs" for collective-permute(-start) */
	const char *devices;
	int64_t n_pairs;     /* source_target_pairs; 0 for the others */
} hs_collective;

/* 1 and *out for a collective instruction (replica_groups read in both
 * forms, {{0,1},{2,3}} and [2,2]<=[4]; a permute's pairs counted); 0 for
 * any other node or a module that does not know its attributes (a bare
 * .npz).  The text itself:
 * graph_node_attr(g, v, out->devices, ...). */
int graph_collective(const hs_graph *g, int64_t v, hs_collective *out);

/* The module's name (on a bare .npz the file's). */
const char *graph_module_name(const hs_graph *g);
/* Nodes whose opcode is "fusion". */
int64_t graph_n_fusions(const hs_graph *g);

#endif
