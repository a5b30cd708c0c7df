/* prep.c - config-independent preparation of a graph for the rankers. */
#include "model/prep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/hash.h"
#include "base/index.h"
#include "base/rng.h"
#include "loader/hlo.h"
#include "loader/hlo_synth.h"
#include "model/cost.h"

/* A BFS that links configurable nodes stops after visiting this many nodes,
 * so a parameter feeding thousands of users cannot make preparation
 * quadratic.  Real graphs stay far below it within a few hops. */
#define LINK_VISIT_CAP 4096

float prep_t(float v)
{
	return v >= 0 ? log1pf(v) : -log1pf(-v);
}

int prep_ccols(int ncf_width)
{
	return PREP_BUCKETS * ncf_width + (ncf_width == HLO_LAYOUT_CONFIG_FEATURES ? PREP_DENSE : 0);
}

void prep_free(prep *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->name);
	free(p->node_of);
	free(p->x);
	free(p->op);
	free(p->op_off);
	free(p->op_idx);
	free(p->us_off);
	free(p->us_idx);
	free(p->runtime);
	free(p->uniq_rep);
	free(p->uniq_of);
	free(p->uniq_runtime);
	free(p->prior);
	free(p->cfg_enc);
	free(p->cfg_node);
	free(p->entry_base);
	free(p->entry_node);
	free(p->entry_val);
	free(p->entry_hot);
	free(p->entry_dense);
	free(p->entry_out);
	free(p->entry_in);
	free(p->rows);
	free(p->nop_off);
	free(p->nop_idx);
	free(p->nus_off);
	free(p->nus_idx);
	free(p->cfg);
	free(p);
}

static void *xcalloc(size_t n, size_t size, int *oom)
{
	void *q = calloc(n ? n : 1, size);

	if (!q)
		*oom = 1;
	return q;
}

static char *xstrdup(const char *s, int *oom)
{
	char *d = strdup(s ? s : "");

	if (!d)
		*oom = 1;
	return d;
}

/* ---- grouping equal byte strings ------------------------------------------ */

struct items {
	const uint8_t *base;
	size_t stride, len;
	const int64_t *rep;
};

static int same_item(const void *ctx, int32_t g, const void *key)
{
	const struct items *it = ctx;
	return memcmp(it->base + (size_t)it->rep[g] * it->stride, key, it->len) == 0;
}

/* Items are `len` bytes at base + i * stride.  Writes group_of[i] (groups
 * numbered in order of first appearance), rep[g] = first item of group g,
 * and returns the number of groups, or -1 when out of memory.  `ix` is
 * scratch, cleared. */
static int64_t group_items(const uint8_t *base, size_t stride, size_t len, int64_t n,
			   int64_t *group_of, int64_t *rep, hs_index *ix)
{
	struct items it = {base, stride, len, rep};
	int64_t groups = 0;

	hs_index_clear(ix);
	if (n > HS_INDEX_MAX || hs_index_reserve(ix, (size_t)n) != 0)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		const uint8_t *key = base + (size_t)i * stride;
		uint32_t h = (uint32_t)hs_fnv1a_bytes(key, len, HS_FNV_BASIS);
		int32_t g = hs_index_put(ix, h, (int32_t)groups, same_item, &it, key);

		if (g == groups)
			rep[groups++] = i;
		group_of[i] = g;
	}
	return groups;
}

/* Fills uniq_* from group_of over n_configs items. */
static int finish_uniq(prep *p, const int64_t *group_of, const int64_t *rep, int64_t groups)
{
	int64_t *count;

	p->n_uniq = groups;
	p->uniq_rep = malloc((size_t)(groups ? groups : 1) * sizeof *p->uniq_rep);
	p->uniq_of = malloc((size_t)(p->n_configs ? p->n_configs : 1) * sizeof *p->uniq_of);
	p->uniq_runtime = calloc((size_t)(groups ? groups : 1), sizeof *p->uniq_runtime);
	count = calloc((size_t)(groups ? groups : 1), sizeof *count);
	if (!p->uniq_rep || !p->uniq_of || !p->uniq_runtime || !count) {
		free(count);
		return -1;
	}
	memcpy(p->uniq_rep, rep, (size_t)groups * sizeof *rep);
	for (int64_t c = 0; c < p->n_configs; c++) {
		p->uniq_of[c] = group_of[c];
		p->uniq_runtime[group_of[c]] += p->runtime[c];
		count[group_of[c]]++;
	}
	for (int64_t u = 0; u < groups; u++)
		p->uniq_runtime[u] /= (double)count[u];
	free(count);
	return 0;
}

/* ---- encoder graph ---------------------------------------------------------- */

/* Copies the nodes with keep[v] >= 0 (keep[v] = their new index, in node
 * order) with features, opcodes and the edges among them. */
static int build_encoder(prep *p, const hs_graph *g, const int64_t *keep, int64_t n)
{
	int oom = 0;
	int w = g->feat_width;

	p->n = n;
	p->feat_width = w;
	p->node_of = xcalloc((size_t)n, sizeof *p->node_of, &oom);
	p->x = xcalloc((size_t)n * (size_t)w, sizeof *p->x, &oom);
	p->op = xcalloc((size_t)n, 1, &oom);
	p->op_off = xcalloc((size_t)n + 1, sizeof *p->op_off, &oom);
	p->us_off = xcalloc((size_t)n + 1, sizeof *p->us_off, &oom);
	if (oom)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		int64_t i = keep[v];
		const float *f;

		if (i < 0)
			continue;
		p->node_of[i] = v;
		f = graph_feat(g, v);
		for (int j = 0; j < w; j++)
			p->x[(size_t)i * (size_t)w + (size_t)j] = prep_t(f[j]);
		p->op[i] = g->opcode[v] <= HLO_MAX_OPCODE ? g->opcode[v] : 0;
		for (int64_t e = g->operand_off[v]; e < g->operand_off[v + 1]; e++)
			if (keep[g->operand_idx[e]] >= 0)
				p->op_off[i + 1]++;
		for (int64_t e = g->user_off[v]; e < g->user_off[v + 1]; e++)
			if (keep[g->user_idx[e]] >= 0)
				p->us_off[i + 1]++;
	}
	for (int64_t i = 0; i < n; i++) {
		p->op_off[i + 1] += p->op_off[i];
		p->us_off[i + 1] += p->us_off[i];
	}
	p->op_idx = xcalloc((size_t)p->op_off[n], sizeof *p->op_idx, &oom);
	p->us_idx = xcalloc((size_t)p->us_off[n], sizeof *p->us_idx, &oom);
	if (oom)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t v = p->node_of[i], a = p->op_off[i], b = p->us_off[i];

		for (int64_t e = g->operand_off[v]; e < g->operand_off[v + 1]; e++)
			if (keep[g->operand_idx[e]] >= 0)
				p->op_idx[a++] = keep[g->operand_idx[e]];
		for (int64_t e = g->user_off[v]; e < g->user_off[v + 1]; e++)
			if (keep[g->user_idx[e]] >= 0)
				p->us_idx[b++] = keep[g->user_idx[e]];
	}
	return 0;
}

/* The configs to keep: NULL for all, else n sorted indices. */
static int64_t *pick_configs(const hs_graph *g, const prep_opts *o, int64_t *n, int *oom)
{
	int64_t *all, C = g->n_configs;
	hs_splitmix r;

	*n = C;
	if (!o || o->max_configs <= 0 || C <= o->max_configs)
		return NULL;
	all = malloc((size_t)C * sizeof *all);
	if (!all) {
		*oom = 1;
		return NULL;
	}
	r = hs_splitmix_seed(o->seed ^ 0x5eed);
	for (int64_t c = 0; c < C; c++)
		all[c] = c;
	/* A partial Fisher-Yates shuffle picks the first max_configs. */
	for (int64_t i = 0; i < o->max_configs; i++) {
		int64_t j = i + (int64_t)hs_splitmix_below(&r, (uint64_t)(C - i)), t = all[i];

		all[i] = all[j];
		all[j] = t;
	}
	*n = o->max_configs;
	qsort(all, (size_t)*n, sizeof *all, hs_cmp_i64);
	return all;
}

static prep *prep_new(const hs_graph *g, const int64_t *sel, int64_t n)
{
	int oom = 0;
	prep *p = calloc(1, sizeof *p);

	if (!p)
		return NULL;
	p->kind = g->kind == HS_KIND_TILE ? HS_KIND_TILE : HS_KIND_LAYOUT; /* a module prepares as layout */
	p->path = xstrdup(g->path, &oom);
	p->name = xstrdup(g->name, &oom);
	p->n_configs = n;
	p->labeled = g->labeled;
	p->runtime = xcalloc((size_t)n, sizeof *p->runtime, &oom);
	if (oom) {
		prep_free(p);
		return NULL;
	}
	for (int64_t c = 0; c < n; c++)
		p->runtime[c] = g->runtime[sel ? sel[c] : c];
	return p;
}

/* The analytic prior of the configs kept (sel NULL: all of them) from
 * the estimate of every config of the graph, est[]: the log of each one's
 * estimate, standardized over them.  It stays NULL when an estimate is not
 * positive or all are the same.  -1 when out of memory. */
static int add_prior(prep *p, const double *est, const int64_t *sel)
{
	int64_t C = p->n_configs;
	double m = 0, v = 0;

	if (C < 2)
		return 0;
	if (!(p->prior = malloc((size_t)C * sizeof *p->prior)))
		return -1;
	for (int64_t c = 0; c < C; c++) {
		double e = est[sel ? sel[c] : c];

		if (!(e > 0))
			goto none;
		p->prior[c] = log(e);
		m += p->prior[c] / (double)C;
	}
	for (int64_t c = 0; c < C; c++)
		v += (p->prior[c] - m) * (p->prior[c] - m) / (double)C;
	if (!(v > 0))
		goto none;
	for (int64_t c = 0; c < C; c++)
		p->prior[c] = (p->prior[c] - m) / sqrt(v);
	return 0;
none:
	free(p->prior);
	p->prior = NULL;
	return 0;
}

/* add_prior with the layout estimate (nothing when it is n/a). */
static int layout_prior(prep *p, hs_graph *g, const int64_t *sel)
{
	double *est;
	hs_error ignored = {0};
	int rc = 0;

	if (!cost_available(g))
		return 0;
	if (!(est = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *est)))
		return -1;
	if (cost_predict_configs(g, est, &ignored) == 0)
		rc = add_prior(p, est, sel);
	free(est);
	return rc;
}

/* ---- layout ----------------------------------------------------------------- */

/* Code of a 6-value layout: -1 when unset (all -1), a packed value when
 * every entry is an integer in -1..14, else `unique` (a value < -1 that
 * never equals another entry's code). */
static int32_t layout_code(const float *l, int32_t unique)
{
	int32_t code = 0;
	int set = 0;

	for (int i = 0; i < 6; i++) {
		float v = l[i];

		if (v != floorf(v) || v < -1 || v > 14)
			return unique;
		if (v >= 0)
			set = 1;
		code = code * 16 + (int32_t)v + 1;
	}
	return set ? code : -1;
}

/* Dense features of one 6-value layout l (minor-to-major, -1 padded)
 * against the shape s it lays out (NULL when unknown):
 *   0 set (not all -1)         1 natural (r-1, ..., 1, 0)
 *   2 equals the layout the graph records for the tensor
 *   3 log2(1 + size of the most minor dim) / 8
 *   4 log2(1 + size of the second most minor dim) / 8
 *   5 share of an (8, 128) memory tile the two minor dims fill
 *   6 most minor dim is the last one (r-1)   7 second most minor is r-2
 *   8 most minor dim is `f0`, the tensor's feature dimension for a
 *     convolution (-1: not applicable)        9 second most minor is `f1` */
static void layout_dense(const float *l, const hm_shape *s, int f0, int f1, float *out)
{
	int r = 0, natural = 1, recorded;
	double d0 = 0, d1 = 0;

	memset(out, 0, PREP_DENSE_T * sizeof *out);
	for (int i = 0; i < 6; i++)
		if (l[i] >= 0)
			r = i + 1;
	if (r == 0)
		return;
	for (int i = 0; i < r; i++)
		if ((int)l[i] != r - 1 - i)
			natural = 0;
	recorded = s && s->rank >= 0 && s->has_layout && s->rank == r;
	for (int i = 0; recorded && i < r; i++)
		if ((int)l[i] != s->minor_to_major[i])
			recorded = 0;
	if (s && s->rank >= 0) {
		int a = (int)l[0], b = r > 1 ? (int)l[1] : -1;

		if (a >= 0 && a < s->rank)
			d0 = (double)s->dims[a];
		if (b >= 0 && b < s->rank)
			d1 = (double)s->dims[b];
	}
	out[0] = 1;
	out[1] = (float)natural;
	out[2] = (float)recorded;
	out[3] = (float)(log2(1 + d0) / 8);
	out[4] = (float)(log2(1 + d1) / 8);
	if (d0 > 0) {
		double e = d0 / (ceil(d0 / 128) * 128);

		if (d1 > 0)
			e *= d1 / (ceil(d1 / 8) * 8);
		out[5] = (float)e;
	}
	out[6] = (int)l[0] == r - 1;
	out[7] = r > 1 && (int)l[1] == r - 2;
	out[8] = f0 >= 0 && (int)l[0] == f0;
	out[9] = f1 >= 0 && r > 1 && (int)l[1] == f1;
}

int prep_bucket(float v)
{
	if (v == -1)
		return 0;
	if (v >= 0 && v <= 5 && v == floorf(v))
		return (int)v + 1;
	return PREP_BUCKETS - 1;
}

/* Operand-ward (dir 0) or user-ward (dir 1) links of every configurable node. */
static int link_cfg(prep *p, const hs_graph *g, int hops, int dir)
{
	int64_t K = p->K, cap = 16, used = 0;
	int64_t *off = calloc((size_t)K + 1, sizeof *off);
	int64_t *idx = malloc((size_t)cap * sizeof *idx);
	int64_t *stamp = malloc((size_t)g->n_nodes * sizeof *stamp);
	int64_t *queue = malloc((LINK_VISIT_CAP + 1) * sizeof *queue);
	const int64_t *aoff = dir ? g->user_off : g->operand_off;
	const int64_t *aidx = dir ? g->user_idx : g->operand_idx;

	if (!off || !idx || !stamp || !queue)
		goto fail;
	for (int64_t v = 0; v < g->n_nodes; v++)
		stamp[v] = -1;
	for (int64_t k = 0; k < K; k++) {
		int64_t head = 0, tail = 0, level_end, visited = 1;
		int depth = 0;

		queue[tail++] = p->cfg_node[k];
		stamp[p->cfg_node[k]] = k;
		level_end = tail;
		while (head < tail && depth < hops) {
			int64_t v = queue[head++];

			for (int64_t e = aoff[v]; e < aoff[v + 1] && visited < LINK_VISIT_CAP; e++) {
				int64_t u = aidx[e];

				if (stamp[u] == k)
					continue;
				stamp[u] = k;
				visited++;
				if (g->cfg_index[u] >= 0) {
					if (used == cap) {
						int64_t *n2 = realloc(idx, (size_t)cap * 2 * sizeof *idx);

						if (!n2)
							goto fail;
						idx = n2;
						cap *= 2;
					}
					idx[used++] = g->cfg_index[u];
				} else {
					queue[tail++] = u;
				}
			}
			if (head == level_end) {
				depth++;
				level_end = tail;
			}
		}
		off[k + 1] = used;
	}
	free(stamp);
	free(queue);
	if (dir) {
		p->nus_off = off;
		p->nus_idx = idx;
	} else {
		p->nop_off = off;
		p->nop_idx = idx;
	}
	return 0;
fail:
	free(off);
	free(idx);
	free(stamp);
	free(queue);
	return -1;
}

/* Value j of node k in config c of a node_config_feat block. */
static float ncf_at(const uint8_t *data, size_t es, int64_t K, int W, int64_t c, int64_t k, int j)
{
	size_t i = ((size_t)c * (size_t)K + (size_t)k) * (size_t)W + (size_t)j;
	float f;

	if (es == 1)
		return (float)(int8_t)data[i];
	memcpy(&f, data + i * sizeof f, sizeof f);
	return f;
}

/* The three tensors a configurable node's layout config sets: its output
 * and its first two operands.  have[t] says whether tensor t's shape is
 * known (sh[t]); fdim[t] are the feature dimensions of a convolution's
 * output, input and kernel: convolution_dim_numbers output_feature (106),
 * input_feature (94), kernel_output_feature (100) and kernel_input_feature
 * (99); -1 elsewhere. */
struct node_tensors {
	hm_decoded sh[3];    /* not copied: dims point into it */
	int have[3];
	int fdim[3][2];
};

static void node_tensors_of(const hs_graph *g, int64_t v, int conv_op, struct node_tensors *nt)
{
	for (int t = 0; t < 3; t++) {
		nt->have[t] = 0;
		nt->fdim[t][0] = nt->fdim[t][1] = -1;
	}
	if (g->ncf_width != HLO_LAYOUT_CONFIG_FEATURES || g->feat_width != HLO_NODE_FEATURES)
		return;
	int64_t no = graph_n_operands(g, v);

	hm_decode(graph_feat(g, v), g->feat_width, &nt->sh[0]);
	nt->have[0] = 1;
	if (g->opcode[v] == conv_op) {
		const float *f = graph_feat(g, v);

		nt->fdim[0][0] = (int)f[HLO_F_CONV_DIMS + 13];
		nt->fdim[1][0] = (int)f[HLO_F_CONV_DIMS + 1];
		nt->fdim[2][0] = (int)f[HLO_F_CONV_DIMS + 7];
		nt->fdim[2][1] = (int)f[HLO_F_CONV_DIMS + 6];
	}
	for (int t = 1; t < 3; t++) {
		if (no >= t) {
			int64_t u = g->operand_idx[g->operand_off[v] + t - 1];

			hm_decode(graph_feat(g, u), g->feat_width, &nt->sh[t]);
			nt->have[t] = 1;
		}
	}
}

/* The entries of configurable node k (p->entry_base[k] up to the next),
 * whose tensors are nt: their values, taken from the entry's first config
 * (first[e]) in data (node_config_feat, int8 or float32), one-hot buckets,
 * dense layout features and layout codes. */
static void fill_entries(prep *p, const hs_graph *g, int64_t k, const struct node_tensors *nt,
			 const uint8_t *data, const int64_t *first)
{
	int64_t K = p->K;
	int W = g->ncf_width;
	size_t es = g->ncf_i8 ? 1 : sizeof(float);

	for (int64_t e = p->entry_base[k]; e < p->entry_base[k + 1]; e++) {
		float *val = p->entry_val + (size_t)e * (size_t)W;

		p->entry_node[e] = (int32_t)k;
		for (int j = 0; j < W; j++) {
			val[j] = ncf_at(data, es, K, W, first[e], k, j);
			p->entry_hot[(size_t)e * (size_t)W + (size_t)j] =
				(int16_t)(j * PREP_BUCKETS + prep_bucket(val[j]));
		}
		if (W == HLO_LAYOUT_CONFIG_FEATURES) {
			for (int t = 0; t < 3; t++)
				layout_dense(val + 6 * t, nt->have[t] ? &nt->sh[t].s : NULL, nt->fdim[t][0],
					     nt->fdim[t][1],
					     p->entry_dense + (size_t)e * PREP_DENSE + PREP_DENSE_T * t);
			p->entry_out[e] = layout_code(val, (int32_t)(-2 - e));
			p->entry_in[e] = layout_code(val + 6, (int32_t)(-2 - e));
		} else {
			p->entry_out[e] = (int32_t)(-2 - e);
			p->entry_in[e] = (int32_t)(-2 - e);
		}
	}
}

/* sel (n sorted configs) or NULL for all. */
static int layout_entries(prep *p, const hs_graph *g, const int64_t *sel)
{
	int64_t C = p->n_configs, K = p->K;
	int W = g->ncf_width;
	size_t es = g->ncf_i8 ? 1 : sizeof(float), row = (size_t)K * (size_t)W * es;
	const uint8_t *data = g->ncf_i8 ? (const uint8_t *)g->ncf_i8 : (const uint8_t *)g->ncf_f32;
	uint8_t *sub = NULL;
	hs_index table = {0};
	int64_t *group = malloc((size_t)(C ? C : 1) * sizeof *group);
	int64_t *rep = malloc((size_t)(C ? C : 1) * sizeof *rep);
	int64_t *first = NULL; /* [n_entries] first config of each entry */
	int64_t total = 0, cap = 0;
	int oom = 0, conv_op = hlo_opcode_id("convolution");

	p->entry_base = calloc((size_t)K + 1, sizeof *p->entry_base);
	p->rows = malloc((size_t)(C * K > 0 ? C * K : 1) * sizeof *p->rows);
	if (!group || !rep || !p->entry_base || !p->rows)
		goto fail;
	if (sel && data) {
		/* Gather the kept configs so that they are contiguous. */
		sub = malloc(row * (size_t)(C ? C : 1));
		if (!sub)
			goto fail;
		for (int64_t c = 0; c < C; c++)
			memcpy(sub + (size_t)c * row, data + (size_t)sel[c] * row, row);
		data = sub;
	}
	for (int64_t k = 0; k < K; k++) {
		int64_t groups = 0;

		if (C > 0 && data)
			groups = group_items(data + (size_t)k * (size_t)W * es,
					     (size_t)K * (size_t)W * es, (size_t)W * es, C, group,
					     rep, &table);
		if (groups < 0)
			goto fail;
		if (total + groups > cap) {
			int64_t nc = (total + groups) * 2 + 16;
			int64_t *f2 = realloc(first, (size_t)nc * sizeof *first);

			if (!f2)
				goto fail;
			first = f2;
			cap = nc;
		}
		for (int64_t i = 0; i < groups; i++)
			first[total + i] = rep[i];
		for (int64_t c = 0; c < C; c++)
			p->rows[(size_t)c * (size_t)K + (size_t)k] = (int32_t)(total + group[c]);
		total += groups;
		p->entry_base[k + 1] = total;
		if (total > INT32_MAX / 2)
			goto fail;
	}
	p->n_entries = total;
	p->entry_node = xcalloc((size_t)total, sizeof *p->entry_node, &oom);
	p->entry_val = xcalloc((size_t)total * (size_t)W, sizeof *p->entry_val, &oom);
	p->entry_hot = xcalloc((size_t)total * (size_t)W, sizeof *p->entry_hot, &oom);
	p->entry_dense = xcalloc((size_t)total * PREP_DENSE, sizeof *p->entry_dense, &oom);
	p->entry_out = xcalloc((size_t)total, sizeof *p->entry_out, &oom);
	p->entry_in = xcalloc((size_t)total, sizeof *p->entry_in, &oom);
	if (oom)
		goto fail;
	for (int64_t k = 0; k < K; k++) {
		struct node_tensors nt;

		node_tensors_of(g, p->cfg_node[k], conv_op, &nt);
		fill_entries(p, g, k, &nt, data, first);
	}
	/* Duplicate configs: equal entry vectors. */
	if (K > 0) {
		int64_t groups = group_items((const uint8_t *)p->rows, (size_t)K * sizeof *p->rows,
					     (size_t)K * sizeof *p->rows, C, group, rep, &table);

		if (groups < 0 || finish_uniq(p, group, rep, groups) < 0)
			goto fail;
	} else {
		for (int64_t c = 0; c < C; c++)
			group[c] = 0;
		rep[0] = 0;
		if (finish_uniq(p, group, rep, C > 0 ? 1 : 0) < 0)
			goto fail;
	}
	hs_index_free(&table);
	free(group);
	free(rep);
	free(first);
	free(sub);
	return 0;
fail:
	hs_index_free(&table);
	free(group);
	free(rep);
	free(first);
	free(sub);
	return -1;
}

prep *prep_layout(hs_graph *g, const prep_opts *o, hs_error *err)
{
	prep *p = NULL;
	int64_t *keep = NULL, *queue = NULL, *sel = NULL, n = 0, nsel;
	int *dist = NULL, oom = 0;

	if (g->kind == HS_KIND_TILE) {
		hs_fail(err, HS_EUSAGE, "%s: not a layout graph", g->name);
		return NULL;
	}
	if (graph_load_node_configs(g, err) < 0)
		return NULL;
	sel = pick_configs(g, o, &nsel, &oom);
	if (oom)
		goto oom;
	p = prep_new(g, sel, nsel);
	if (!p)
		goto oom;
	p->K = g->n_cfg_nodes;
	p->ncf_width = g->ncf_width;
	p->ccols = prep_ccols(g->ncf_width);
	keep = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *keep);
	dist = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *dist);
	queue = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *queue);
	p->cfg_node = malloc((size_t)(p->K ? p->K : 1) * sizeof *p->cfg_node);
	p->cfg_enc = malloc((size_t)(p->K ? p->K : 1) * sizeof *p->cfg_enc);
	if (!keep || !dist || !queue || !p->cfg_node || !p->cfg_enc)
		goto oom;
	/* Multi-source BFS from the configurable nodes, both directions. */
	{
		int64_t head = 0, tail = 0;

		for (int64_t v = 0; v < g->n_nodes; v++)
			dist[v] = -1;
		for (int64_t k = 0; k < p->K; k++) {
			int64_t v = g->cfg_node_ids[k];

			p->cfg_node[k] = v;
			if (dist[v] < 0) {
				dist[v] = 0;
				queue[tail++] = v;
			}
		}
		while (head < tail) {
			int64_t v = queue[head++];

			if (dist[v] >= o->radius)
				continue;
			for (int d = 0; d < 2; d++) {
				const int64_t *off = d ? g->user_off : g->operand_off;
				const int64_t *idx = d ? g->user_idx : g->operand_idx;

				for (int64_t e = off[v]; e < off[v + 1]; e++) {
					int64_t u = idx[e];

					if (dist[u] < 0) {
						dist[u] = dist[v] + 1;
						queue[tail++] = u;
					}
				}
			}
		}
		for (int64_t v = 0; v < g->n_nodes; v++)
			keep[v] = dist[v] >= 0 ? n++ : -1;
	}
	if (build_encoder(p, g, keep, n) < 0)
		goto oom;
	for (int64_t k = 0; k < p->K; k++)
		p->cfg_enc[k] = keep[p->cfg_node[k]];
	if (link_cfg(p, g, o->cfg_hops, 0) < 0 || link_cfg(p, g, o->cfg_hops, 1) < 0)
		goto oom;
	if (layout_entries(p, g, sel) < 0 || (o->prior && layout_prior(p, g, sel) < 0))
		goto oom;
	free(keep);
	free(dist);
	free(queue);
	free(sel);
	return p;
oom:
	free(keep);
	free(dist);
	free(queue);
	free(sel);
	prep_free(p);
	hs_fail(err, HS_ENOMEM, "%s: out of memory preparing the graph", g->name);
	return NULL;
}

prep *prep_tile(const hs_graph *g, const prep_opts *o, hs_error *err)
{
	prep *p = NULL;
	int64_t *keep = NULL, *group = NULL, *rep = NULL, *sel = NULL, C;
	int gw = g->config_width, w = gw + PREP_TILE_EXTRA, oom = 0;
	float *cf = NULL;
	double *pad = NULL, *tiles = NULL, base = 0;
	hs_index table = {0};

	if (g->kind != HS_KIND_TILE) {
		hs_fail(err, HS_EUSAGE, "%s: not a tile graph", g->name);
		return NULL;
	}
	sel = pick_configs(g, o, &C, &oom);
	if (oom)
		goto oom;
	p = prep_new(g, sel, C);
	if (!p)
		goto oom;
	cf = malloc((size_t)(C * w > 0 ? C * w : 1) * sizeof *cf);
	pad = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *pad);
	tiles = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *tiles);
	if (!cf || !pad || !tiles || cost_tile_terms(g, pad, tiles, &base) < 0)
		goto oom;
	for (int64_t c = 0; c < C; c++) {
		int64_t src = sel ? sel[c] : c;
		float *x = cf + (size_t)c * (size_t)w;

		for (int j = 0; j < gw; j++)
			x[j] = prep_t(g->config_feat[(size_t)src * (size_t)gw + (size_t)j]);
		x[gw] = (float)log(pad[src]);
		x[gw + 1] = (float)log1p(tiles[src]);
		x[gw + 2] = (float)log(1 + (base * pad[src] + tiles[src] * COST_TILE_STEP_SECONDS) * 1e9);
	}
	keep = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *keep);
	if (!keep)
		goto oom;
	for (int64_t v = 0; v < g->n_nodes; v++)
		keep[v] = v;
	if (build_encoder(p, g, keep, g->n_nodes) < 0)
		goto oom;
	p->config_width = w;
	p->cfg = malloc((size_t)(C * w > 0 ? C * w : 1) * sizeof *p->cfg);
	group = malloc((size_t)(C ? C : 1) * sizeof *group);
	rep = malloc((size_t)(C ? C : 1) * sizeof *rep);
	if (!p->cfg || !group || !rep)
		goto oom;
	memcpy(p->cfg, cf, (size_t)(C * w) * sizeof *cf);
	{
		/* Duplicates: equal config_feat rows (the analytic columns
		 * follow from them). */
		int64_t groups = group_items((const uint8_t *)cf, (size_t)w * sizeof(float),
					     (size_t)w * sizeof(float), C, group, rep, &table);

		if (groups < 0 || finish_uniq(p, group, rep, groups) < 0)
			goto oom;
	}
	if (o && o->prior && cost_available(g)) {
		/* The tile estimate (cost_config.c) from the terms above. */
		for (int64_t c = 0; c < g->n_configs; c++)
			pad[c] = (base * pad[c] + tiles[c] * COST_TILE_STEP_SECONDS) * 1e9;
		if (add_prior(p, pad, sel) < 0)
			goto oom;
	}
	free(keep);
	free(group);
	free(rep);
	hs_index_free(&table);
	free(sel);
	free(cf);
	free(pad);
	free(tiles);
	return p;
oom:
	free(keep);
	free(group);
	free(rep);
	hs_index_free(&table);
	free(sel);
	free(cf);
	free(pad);
	free(tiles);
	prep_free(p);
	hs_fail(err, HS_ENOMEM, "%s: out of memory preparing the graph", g->name);
	return NULL;
}

prep *prep_graph(hs_graph *g, const prep_opts *o, hs_error *err)
{
	return g->kind != HS_KIND_TILE ? prep_layout(g, o, err) : prep_tile(g, o, err);
}

void prep_standardize(prep *p, const float *mean, const float *sd, const float *cmean,
		      const float *csd)
{
	int w = p->feat_width;

	if (p->standardized)
		return;
	for (int64_t i = 0; i < p->n; i++) {
		float *x = p->x + (size_t)i * (size_t)w;

		for (int j = 0; j < w; j++)
			x[j] = (x[j] - mean[j]) / (sd[j] > 0 ? sd[j] : 1);
	}
	if (p->kind == HS_KIND_TILE && cmean && csd) {
		int cw = p->config_width;

		for (int64_t c = 0; c < p->n_configs; c++) {
			float *x = p->cfg + (size_t)c * (size_t)cw;

			for (int j = 0; j < cw; j++)
				x[j] = (x[j] - cmean[j]) / (csd[j] > 0 ? csd[j] : 1);
		}
	}
	p->standardized = 1;
}

void prep_edge_feats(const prep *p, const int32_t *row, int64_t k, float *out)
{
	int32_t ek = row[k], ok = p->entry_out[ek], ik = p->entry_in[ek];
	int64_t a = p->nop_off[k], b = p->nop_off[k + 1];

	memset(out, 0, PREP_EDGE * sizeof *out);
	for (int64_t i = a; i < b; i++) {
		int32_t oj = p->entry_out[row[p->nop_idx[i]]];

		if (oj != -1 && ik != -1) {
			out[0] += oj == ik;
			out[1] += oj != ik;
		}
		out[2] += oj != -1 && oj == ok;
	}
	if (b > a)
		for (int t = 0; t < 3; t++)
			out[t] /= (float)(b - a);
	a = p->nus_off[k];
	b = p->nus_off[k + 1];
	for (int64_t i = a; i < b; i++) {
		int32_t ej = row[p->nus_idx[i]], ij = p->entry_in[ej], oj = p->entry_out[ej];

		if (ok != -1 && ij != -1) {
			out[3] += ok == ij;
			out[4] += ok != ij;
		}
		out[5] += oj != -1 && oj == ok;
	}
	if (b > a)
		for (int t = 3; t < 6; t++)
			out[t] /= (float)(b - a);
}
