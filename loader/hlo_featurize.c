/* hlo_featurize.c - an hm_module into the dataset's arrays. */
#include "hlo_featurize.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/hash.h"
#include "base/index.h"
#include "base/plural.h"
#include "hlo.h"

/* seq_k: the first k values (0 where missing), their sum and product, as
 * int64 with wrap-around (the reference accumulates in int64), then float.
 * zero_if_empty: the product of an empty list is 0 instead of 1. */
static float *seq(float *o, int k, const int64_t *v, int n, int zero_if_empty)
{
	uint64_t sum = 0, prod = 1;
	for (int i = 0; i < n; i++) {
		int64_t x = v[i];
		sum += (uint64_t)x;
		prod *= (uint64_t)x;
		if (i < k)
			o[i] = (float)x;
	}
	for (int i = n; i < k; i++)
		o[i] = 0;
	o[k] = (float)(int64_t)sum;
	o[k + 1] = n == 0 && zero_if_empty ? 0.0f : (float)(int64_t)prod;
	return o + k + 2;
}

static float *first(float *o, int k, const int64_t *v, int n)
{
	for (int i = 0; i < k; i++)
		o[i] = i < n ? (float)v[i] : 0.0f;
	return o + k;
}

static float none0(int64_t v)
{
	return v == HM_NONE ? 0.0f : (float)v;
}

/* seq_6 of one field of the window dimensions (at byte offset `off`). */
static float *seq_window(float *o, const hm_window_dim *w, int nw, size_t off)
{
	uint64_t sum = 0, prod = 1;
	for (int i = 0; i < nw; i++) {
		int64_t x;
		memcpy(&x, (const char *)&w[i] + off, sizeof x);
		sum += (uint64_t)x;
		prod *= (uint64_t)x;
		if (i < 6)
			o[i] = (float)x;
	}
	for (int i = nw; i < 6; i++)
		o[i] = 0;
	o[6] = (float)(int64_t)sum;
	o[7] = (float)(int64_t)prod;
	return o + 8;
}

void hf_node_features(const hm_instr *in, float out[140])
{
	float *o = out;
	const hm_shape *s = in->shape;
	memset(out, 0, 140 * sizeof *out);
	o[0] = in->is_root ? 1.0f : 0.0f;
	o += 2; /* 1: element_size_in_bits, always 0 */
	int oh = hm_element_type_onehot(s->element_type);
	if (oh >= 0)
		o[oh] = 1.0f;
	o += 19;
	o = seq(o, 6, s->dims, s->rank, 0);                       /* 21-28 */
	*o++ = (float)s->n_tuple;                                    /* 29 */
	*o++ = none0(in->parameter_number);                          /* 30 */
	o = first(o, 6, in->dimensions, in->n_dimensions);           /* 31-36 */
	const hm_window_dim *w = HM_X(in)->window;
	int nw = HM_X(in)->n_window;
	o = seq_window(o, w, nw, offsetof(hm_window_dim, size));     /* 37-44 */
	o = seq_window(o, w, nw, offsetof(hm_window_dim, stride));
	o = seq_window(o, w, nw, offsetof(hm_window_dim, padding_low));
	o = seq_window(o, w, nw, offsetof(hm_window_dim, padding_high));
	o = seq_window(o, w, nw, offsetof(hm_window_dim, window_dilation));
	o = seq_window(o, w, nw, offsetof(hm_window_dim, base_dilation)); /* -84 */
	int yes = 0;
	for (int i = 0; i < nw; i++) {
		if (i < 6)
			o[i] = w[i].window_reversal ? 1.0f : 0.0f;
		yes += w[i].window_reversal != 0;
	}
	o[6] = (float)yes;
	o[7] = (float)(nw - yes);
	o += 8;                                                      /* 85-92 */
	const hm_conv_dims *c = &HM_X(in)->conv;
	*o++ = (float)c->input_batch;                                /* 93 */
	*o++ = (float)c->input_feature;
	o = first(o, 4, c->input_spatial, c->n_input_spatial);
	*o++ = (float)c->kernel_input_feature;
	*o++ = (float)c->kernel_output_feature;
	o = first(o, 4, c->kernel_spatial, c->n_kernel_spatial);
	*o++ = (float)c->output_batch;
	*o++ = (float)c->output_feature;                             /* 106 */
	*o++ = none0(HM_X(in)->feature_group_count);                       /* 107 */
	*o++ = none0(HM_X(in)->batch_group_count);                         /* 108 */
	o = seq(o, 2, HM_X(in)->slice_start, HM_X(in)->n_slice, 0);           /* 109-112 */
	o = seq(o, 2, HM_X(in)->slice_stride, HM_X(in)->n_slice, 0);          /* 113-116 */
	o = seq(o, 2, HM_X(in)->slice_limit, HM_X(in)->n_slice, 0);           /* 117-120 */
	o = seq(o, 2, HM_X(in)->dynamic_slice_sizes, HM_X(in)->n_dynamic_slice_sizes, 0); /* 121-124 */
	o = seq(o, 2, HM_X(in)->pad_low, HM_X(in)->n_padding, 0);             /* 125-128 */
	o = seq(o, 2, HM_X(in)->pad_high, HM_X(in)->n_padding, 0);            /* 129-132 */
	*o++ = HM_X(in)->is_stable ? 1.0f : 0.0f;                          /* 133 */
	first(o, 6, s->minor_to_major, s->layout_rank);              /* 134-139 */
}

hs_kind hf_kind(const hm_file *f, int i)
{
	if (f->source == HM_SRC_TUNING)
		return HS_KIND_TILE;
	const hm_tuning *t = f->tuning ? f->tuning[i] : NULL;
	if (!t)
		return HS_KIND_LAYOUT;
	int tile = 0, layout = t->n_config_nodes > 0;
	for (int r = 0; r < t->n_runs; r++) {
		tile |= t->runs[r].has_tile;
		layout |= t->runs[r].has_layout;
	}
	return tile && !layout ? HS_KIND_TILE : HS_KIND_LAYOUT;
}

void hf_arrays_free(hf_arrays *a)
{
	free(a->node_opcode);
	free(a->node_feat);
	free(a->edge_index);
	free(a->node_splits);
	free(a->config_runtime);
	free(a->config_runtime_normalizers);
	free(a->config_feat);
	free(a->node_config_ids);
	free(a->node_config_feat);
	memset(a, 0, sizeof *a);
}

/* Edges, sorted on [u, v]: instructions come in order, so sorting each
 * node's operand positions is enough. */
static int edges(const hm_module *m, hf_arrays *out, hs_error *err)
{
	int64_t cap = 0, n = 0, maxv = 0;
	for (int64_t u = 0; u < m->n_instrs; u++) {
		const hm_instr *in = hm_instr_at(m, u);
		cap += in->n_operands + in->n_called;
		if (in->n_operands + in->n_called > maxv)
			maxv = in->n_operands + in->n_called;
	}
	out->edge_index = malloc((cap ? (size_t)cap : 1) * sizeof *out->edge_index);
	int64_t *vs = malloc((maxv ? (size_t)maxv : 1) * sizeof *vs);
	if (!out->edge_index || !vs) {
		free(vs);
		return hs_fail(err, HS_ENOMEM, "out of memory for %lld edges", (long long)cap);
	}
	for (int64_t u = 0; u < m->n_instrs; u++) {
		const hm_instr *in = hm_instr_at(m, u);
		int k = 0;
		for (int i = 0; i < in->n_operands; i++)
			vs[k++] = hm_find_instr(m, in->operand_ids[i])->node;
		for (int i = 0; i < in->n_called; i++) {
			const hm_comp *c = hm_find_comp(m, in->called_ids[i]);
			vs[k++] = hm_find_instr(m, c->root_id)->node;
		}
		if (k > 1)
			qsort(vs, (size_t)k, sizeof *vs, hs_cmp_i64);
		for (int i = 0; i < k; i++) {
			if (i && vs[i] == vs[i - 1])
				continue;
			out->edge_index[n][0] = u;
			out->edge_index[n][1] = vs[i];
			n++;
		}
	}
	free(vs);
	out->n_edges = n;
	return 0;
}

static int splits(const hm_module *m, hf_arrays *out, hs_error *err)
{
	out->node_splits = malloc(((size_t)m->n_comps + 2) * sizeof *out->node_splits);
	if (!out->node_splits)
		return hs_fail(err, HS_ENOMEM, "out of memory");
	int64_t k = 0, count = 0;
	out->node_splits[k++] = 0;
	for (int c = 0; c < m->n_comps; c++) {
		const char *name = m->comps[c].name;
		count += m->comps[c].n_instrs;
		if (strstr(name, "cluster") || strstr(name, "while") || strstr(name, "cond"))
			out->node_splits[k++] = count;
	}
	if (out->node_splits[k - 1] < count)
		out->node_splits[k++] = count;
	out->n_splits = k;
	return 0;
}

static int tile_configs(const hm_tuning *t, hf_arrays *out, hs_error *err)
{
	int64_t n = 0, norm = 0;
	int found = 0;
	for (int r = 0; r < t->n_runs; r++) {
		const hm_run *run = &t->runs[r];
		if (run->has_error || run->compute_time_ns <= 1)
			continue;
		if (run->is_default && !found) {
			norm = run->compute_time_ns;
			found = 1;
		}
		n++;
	}
	if (!found) {
		norm = 1;
		out->note = "no kept run is marked is_default: normalizers are 1 (the dataset skips such kernels)";
	}
	out->config_runtime = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	out->config_runtime_normalizers = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	out->config_feat = malloc((n ? (size_t)n : 1) * HLO_TILE_CONFIG_FEATURES * sizeof(float));
	if (!out->config_runtime || !out->config_runtime_normalizers || !out->config_feat)
		return hs_fail(err, HS_ENOMEM, "out of memory for %lld configs", (long long)n);
	int64_t i = 0;
	for (int r = 0; r < t->n_runs; r++) {
		const hm_run *run = &t->runs[r];
		if (run->has_error || run->compute_time_ns <= 1)
			continue;
		float *o = out->config_feat + (size_t)i * HLO_TILE_CONFIG_FEATURES;
		o = seq(o, 6, run->kernel_bounds, run->n_kernel_bounds, 1);
		o = seq(o, 6, run->output_bounds, run->n_output_bounds, 1);
		seq(o, 6, run->input_bounds, run->n_input_bounds, 1);
		out->config_runtime[i] = run->compute_time_ns;
		out->config_runtime_normalizers[i] = norm;
		i++;
	}
	out->n_configs = n;
	return 0;
}

static int layout_configs(const hm_tuning *t, hf_arrays *out, hs_error *err)
{
	int64_t n = 0, k = t ? t->n_config_nodes : 0;
	for (int r = 0; t && r < t->n_runs; r++) {
		const hm_run *run = &t->runs[r];
		if (!run->has_layout || run->has_error || !run->has_profile)
			continue;
		if (run->n_layout_nodes > k)
			return hs_fail(err, HS_EDATA,
				       "run %d: its layout config has %d node%s, config_index_to_node names %lld",
				       r, run->n_layout_nodes, hs_s(run->n_layout_nodes), (long long)k);

		n++;
	}
	size_t w = HLO_LAYOUT_CONFIG_FEATURES, total = (size_t)n * (size_t)k * w;
	out->node_config_ids = malloc((k ? (size_t)k : 1) * sizeof(int64_t));
	out->config_runtime = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	out->node_config_feat = malloc((total ? total : 1) * sizeof(float));
	if (!out->node_config_ids || !out->config_runtime || !out->node_config_feat)
		return hs_fail(err, HS_ENOMEM, "out of memory for %lld configs x %lld nodes", (long long)n,
			       (long long)k);
	if (k)
		memcpy(out->node_config_ids, t->config_index_to_node, (size_t)k * sizeof(int64_t));
	for (size_t j = 0; j < total; j++)
		out->node_config_feat[j] = -1.0f;
	int64_t i = 0;
	for (int r = 0; t && r < t->n_runs; r++) {
		const hm_run *run = &t->runs[r];
		if (!run->has_layout || run->has_error || !run->has_profile)
			continue;
		float *row = out->node_config_feat + (size_t)i * (size_t)k * w;
		for (int nd = 0; nd < run->n_layout_nodes; nd++) {
			const hm_layout_node *ln = &run->layout_nodes[nd];
			for (int ti = 0; ti < ln->n_tensors && ti < 3; ti++)
				for (int d = 0; d < ln->tensors[ti].n_dims && d < 6; d++)
					row[(size_t)nd * w + (size_t)ti * 6 + (size_t)d] =
						(float)ln->tensors[ti].dims[d];
		}
		out->config_runtime[i++] = run->compute_time_ns;
	}
	out->n_configs = n;
	out->n_cfg_nodes = k;
	return 0;
}

/* Exact opcode names -> learned ids (hlo_opcode_id is linear and also takes
 * other spellings): an index over the ids, built per call (121 names). */
static int opcode_named(const void *ctx, int32_t id, const void *name)
{
	return strcmp(hlo_opcode_name(id), name) == 0;
}

static uint32_t name_hash(const char *s)
{
	return hs_fnv1a32(s, HS_FNV32_BASIS);
}

int hf_featurize(const hm_module *m, const hm_tuning *t, hs_kind kind, int flags, hf_arrays *out,
		 hs_error *err)
{
	hs_index om = {0};
	memset(out, 0, sizeof *out);
	out->kind = kind;
	if (!m->index)
		return hs_fail(err, HS_EUSAGE, "module '%s' was not checked", m->name);
	int64_t n = m->n_instrs;
	out->n_nodes = n;
	out->node_opcode = malloc(n ? (size_t)n : 1);
	if (!(flags & HF_NO_FEATURES))
		out->node_feat = malloc((n ? (size_t)n : 1) * HLO_NODE_FEATURES * sizeof(float));
	int bad = !out->node_opcode || (!(flags & HF_NO_FEATURES) && !out->node_feat) ||
		  hs_index_reserve(&om, HLO_MAX_OPCODE) != 0;
	for (int id = 1; !bad && id <= HLO_MAX_OPCODE; id++)
		bad = hs_index_add(&om, name_hash(hlo_opcode_name(id)), id) != 0;
	if (bad) {
		hs_index_free(&om);
		hf_arrays_free(out);
		return hs_fail(err, HS_ENOMEM, "out of memory for %lld nodes", (long long)n);
	}
	for (int64_t v = 0; v < n; v++) {
		const hm_instr *in = hm_instr_at(m, v);
		int32_t id = hs_index_find(&om, name_hash(in->opcode), opcode_named, NULL, in->opcode);
		out->node_opcode[v] = id > 0 ? (uint8_t)id : 0;
		if (out->node_feat)
			hf_node_features(in, out->node_feat + (size_t)v * HLO_NODE_FEATURES);
	}
	hs_index_free(&om);
	int rc = edges(m, out, err);
	if (!rc && kind == HS_KIND_LAYOUT)
		rc = splits(m, out, err);
	if (!rc && !(flags & HF_NO_CONFIGS)) {
		if (kind == HS_KIND_TILE && t)
			rc = tile_configs(t, out, err);
		else if (kind == HS_KIND_TILE)
			rc = tile_configs(&(hm_tuning){0}, out, err);
		else
			rc = layout_configs(t, out, err);
	}
	if (rc)
		hf_arrays_free(out);
	return rc;
}
