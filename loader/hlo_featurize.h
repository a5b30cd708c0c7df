/* hlo_featurize.h - one HLO module (and its tuning runs) into the arrays of
 * a TpuGraphs .npz, exactly as the dataset's featurizer makes them
 * (../shared/docs/tpugraphs-featurization.md):
 *
 *   nodes    every instruction of every computation, computations in the
 *            module's order, instructions in theirs; node_opcode is
 *            hlo_opcode_id() of the opcode name (0 when not learned).
 *   edges    for instruction u: its operand ids sorted and de-duplicated,
 *            then [u, root of c] for each called computation c; ids mapped
 *            to positions, the list sorted on [u, v] (duplicates dropped).
 *   splits   0, the running count after each computation whose name holds
 *            "cluster", "while" or "cond", the total; layout only (tile
 *            files have none).
 *   features 140 per node (hf_node_features); int64 sums and products
 *            (wrapping as the reference's do), then float32.
 *   configs  tile: runs without error and with compute_time_ns > 1, 24
 *            features each (seq_6 of kernel, output and input bounds, an
 *            empty list's product is 0), normalizers = the runtime of the
 *            first kept run marked is_default; layout: runs with a layout
 *            config, no error and a profile, 18 values per configurable node
 *            (3 tensors x 6 dims of minor_to_major, -1 where absent),
 *            node_config_ids = config_index_to_node.
 *
 * Defaults: fields a proto leaves out count as 0 (HM_NONE counts as 0 for
 * parameter_number, feature_group_count and batch_group_count).  A text
 * reader fills what XLA's own text parser fills (window stride and
 * dilations 1, convolution dimension numbers from dim_labels,
 * feature_group_count and batch_group_count 1 on convolutions), so text and
 * proto of one module featurize alike.
 *
 * Ownership: hf_featurize fills `out` with malloc'd arrays that
 * hf_arrays_free releases (or that a caller takes over, setting the
 * pointers to NULL).
 */
#ifndef HS_HLO_FEATURIZE_H
#define HS_HLO_FEATURIZE_H

#include <stdint.h>

#include "base/error.h"
#include "graph.h"
#include "hlo_module.h"

typedef struct hf_arrays {
	hs_kind kind;
	int64_t n_nodes, n_edges;
	uint8_t *node_opcode;        /* [n_nodes] */
	float *node_feat;            /* [n_nodes * 140]; NULL with HF_NO_FEATURES */
	int64_t (*edge_index)[2];    /* [n_edges] */
	int64_t n_splits;
	int64_t *node_splits;        /* [n_splits]; layout only, NULL for tile */
	int64_t n_configs;
	int64_t *config_runtime;     /* [n_configs] */
	int64_t *config_runtime_normalizers; /* tile: [n_configs]; NULL for layout */
	float *config_feat;          /* tile: [n_configs * 24] */
	int64_t n_cfg_nodes;
	int64_t *node_config_ids;    /* layout: [n_cfg_nodes] */
	float *node_config_feat;     /* layout: [n_configs * n_cfg_nodes * 18] */
	const char *note;            /* static text about a departure from the
	                              * dataset's rules (e.g. no default run), or NULL */
} hf_arrays;

enum {
	HF_NO_FEATURES = 1,          /* skip node_feat (indexing a dataset) */
	HF_NO_CONFIGS = 2,           /* skip the config arrays (0 configs) */
};

/* The dataset's collection for module i of f: tile for a TuningData kernel
 * and for a ModuleTuningData whose runs carry tile configs only; layout
 * otherwise (also for a module without tuning data). */
hs_kind hf_kind(const hm_file *f, int i);

/* The kind of the graph of arrays a: HS_KIND_MODULE for a plain module (no
 * configs; its arrays are a layout graph's without any), else a's. */
static inline hs_kind hf_graph_kind(const hf_arrays *a)
{
	return a->n_configs ? a->kind : HS_KIND_MODULE;
}

/* m must have passed hm_module_check; t may be NULL (no configs). */
int hf_featurize(const hm_module *m, const hm_tuning *t, hs_kind kind, int flags, hf_arrays *out,
		 hs_error *err);
void hf_arrays_free(hf_arrays *a);

/* The 140 features of one instruction. */
void hf_node_features(const hm_instr *in, float out[140]);

#endif
