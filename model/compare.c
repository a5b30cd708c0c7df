/* compare.c - two configurations side by side (see compare.h): resolving
 * selectors, checking that two files hold the same graph, walking to the
 * configurable neighbours, predictions and contributions, the result.
 * The printers are in compare_text.c and compare_json.c. */
#include "model/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/parse.h"
#include "base/plural.h"
#include "loader/hlo.h"
#include "model/compare_impl.h"

/* Internal storage behind a result. */
struct compare_priv {
	float *values;           /* [n_rows * 2 * width] */
	unsigned char *changed;  /* [n_rows * width] or [width] for tile */
	compare_neighbor *nb;    /* every row's neighbours */
	predictor *own_a, *own_b; /* the predictors made here, or NULL */
	unsigned char *diff;     /* layout: [n_cfg] 1 where the node differs */
};

void compare_opts_init(compare_opts *o)
{
	memset(o, 0, sizeof *o);
	o->sort = COMPARE_SORT_ID;
	o->predict = 1;
}

int compare_sort_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "id") || !strcmp(s, "node"))
		return COMPARE_SORT_ID;
	if (!strcmp(s, "contribution") || !strcmp(s, "contrib"))
		return COMPARE_SORT_CONTRIBUTION;
	return -1;
}

const char *compare_group_name(int group)
{
	static const char *const names[] = {"output", "input", "kernel"};
	return group >= 0 && group < 3 ? names[group] : "?";
}

/* ---- selectors ------------------------------------------------------ */

const char *compare_file_label(const hs_graph *g)
{
	const char *s = strrchr(g->path, '/');
	return s ? s + 1 : g->path;
}

static int64_t worst_config(const hs_graph *g)
{
	if (!g->labeled || g->n_configs == 0)
		return -1;
	int64_t w = 0;
	for (int64_t c = 1; c < g->n_configs; c++)
		if (g->runtime[c] > g->runtime[w])
			w = c;
	return w;
}

int64_t compare_resolve(hs_graph *g, const char *sel, const char *what, hs_error *err)
{
	const char *side = what ? what : "config";
	const char *f = compare_file_label(g);

	if (!sel || !*sel)
		return hs_fail(err, HS_EUSAGE, "%s: empty config selector", side);
	if (g->n_configs == 0)
		return hs_fail(err, HS_EUSAGE, "%s: %s has no configs", side, f);
	if (!strcmp(sel, "best") || !strcmp(sel, "worst")) {
		if (!g->labeled)
			return hs_fail(err, HS_EUSAGE,
				       "%s: '%s' needs measured runtimes, but %s is unlabeled (a test-split "
				       "file: every runtime is 0); name a config by index (0..%lld)",
				       side, sel, f, (long long)g->n_configs - 1);
		return sel[0] == 'b' ? graph_best_config(g) : worst_config(g);
	}
	if (!strcmp(sel, "default")) {
		if (g->kind != HS_KIND_LAYOUT)
			return hs_fail(err, HS_EUSAGE,
				       "%s: 'default' names the layout config whose values are all -1; %s is "
				       "a tile file (its runtimes are already normalized by the default "
				       "config's)",
				       side, f);
		hs_error e = {0};
		int64_t c = graph_default_config(g, &e);
		if (c < -1 || e.status) {
			if (err)
				*err = e;
			return -1;
		}
		if (c < 0)
			return hs_fail(err, HS_EUSAGE,
				       "%s: %s has no default config (none of its %lld config%s has every "
				       "value -1)",
				       side, f, (long long)g->n_configs, hs_s(g->n_configs));

		return c;
	}
	int64_t v;
	if (hs_parse_i64(sel, &v) < 0) {
		size_t sign = sel[0] == '-' || sel[0] == '+';
		if (!sel[sign] || sel[sign + strspn(sel + sign, "0123456789")])
			return hs_fail(err, HS_EUSAGE,
				       "%s: '%s' is not a config: give an index, best, worst or default",
				       side, sel);
		v = -1; /* digits beyond int64_t: out of range below */
	}
	if (v < 0 || v >= g->n_configs)
		return hs_fail(err, HS_EUSAGE, "%s: config %s out of range: %s has %lld config%s (0..%lld)",
			       side, sel, f, (long long)g->n_configs, hs_s(g->n_configs),
			       (long long)g->n_configs - 1);
	return (int64_t)v;
}

/* ---- equal graphs --------------------------------------------------- */

static int64_t (*sorted_edges(const hs_graph *g))[2]
{
	int64_t(*e)[2] = malloc((size_t)(g->n_edges ? g->n_edges : 1) * sizeof *e);
	if (!e)
		return NULL;
	memcpy(e, g->edges, (size_t)g->n_edges * sizeof *e);
	qsort(e, (size_t)g->n_edges, sizeof *e, hs_cmp_i64_pair);
	return e;
}

int compare_graphs_equal(const hs_graph *ga, const hs_graph *gb, hs_error *err)
{
	const char *fa = compare_file_label(ga), *fb = compare_file_label(gb);
	const char *pre = "not the same graph";

	if (ga == gb)
		return 0;
	if (ga->kind != gb->kind)
		return hs_fail(err, HS_EUSAGE, "%s: %s is a %s file, %s a %s file", pre, fa,
			       graph_kind_name(ga->kind), fb, graph_kind_name(gb->kind));
	if (ga->n_nodes != gb->n_nodes)
		return hs_fail(err, HS_EUSAGE, "%s: %s has %lld node%s, %s has %lld", pre, fa,
			       (long long)ga->n_nodes, hs_s(ga->n_nodes), fb, (long long)gb->n_nodes);
	for (int64_t i = 0; i < ga->n_nodes; i++)
		if (ga->opcode[i] != gb->opcode[i])
			return hs_fail(err, HS_EUSAGE, "%s: node %lld is %s in %s but %s in %s", pre,
				       (long long)i, hlo_opcode_name(ga->opcode[i]), fa,
				       hlo_opcode_name(gb->opcode[i]), fb);
	if (ga->n_edges != gb->n_edges)
		return hs_fail(err, HS_EUSAGE, "%s: %s has %lld edge%s, %s has %lld", pre, fa,
			       (long long)ga->n_edges, hs_s(ga->n_edges), fb, (long long)gb->n_edges);
	int64_t(*ea)[2] = sorted_edges(ga), (*eb)[2] = sorted_edges(gb);
	int rc = 0;
	if (!ea || !eb) {
		rc = hs_fail(err, HS_ENOMEM, "comparing %s and %s: out of memory", fa, fb);
	} else {
		for (int64_t i = 0; i < ga->n_edges; i++) {
			if (ea[i][0] == eb[i][0] && ea[i][1] == eb[i][1])
				continue;
			/* The smaller of the two is missing from the other side. */
			int a_first = hs_cmp_i64_pair(ea[i], eb[i]) < 0;
			const int64_t *e = a_first ? ea[i] : eb[i];
			rc = hs_fail(err, HS_EUSAGE, "%s: edge %lld -> %lld (user -> operand) is in %s but not in %s",
				     pre, (long long)e[0], (long long)e[1], a_first ? fa : fb, a_first ? fb : fa);
			break;
		}
	}
	free(ea);
	free(eb);
	if (rc)
		return rc;
	if (ga->kind == HS_KIND_TILE) {
		if (ga->config_width != gb->config_width)
			return hs_fail(err, HS_EUSAGE, "%s: %s has %d config features, %s has %d", pre, fa,
				       ga->config_width, fb, gb->config_width);
		return 0;
	}
	if (ga->ncf_width != gb->ncf_width)
		return hs_fail(err, HS_EUSAGE, "%s: %s has %d values per configurable node, %s has %d", pre,
			       fa, ga->ncf_width, fb, gb->ncf_width);
	if (ga->n_cfg_nodes != gb->n_cfg_nodes)
		return hs_fail(err, HS_EUSAGE, "%s: %s has %lld configurable node%s, %s has %lld", pre, fa,
			       (long long)ga->n_cfg_nodes, hs_s(ga->n_cfg_nodes), fb, (long long)gb->n_cfg_nodes);

	for (int64_t k = 0; k < ga->n_cfg_nodes; k++)
		if (gb->cfg_index[ga->cfg_node_ids[k]] < 0)
			return hs_fail(err, HS_EUSAGE, "%s: node %lld is configurable in %s but not in %s", pre,
				       (long long)ga->cfg_node_ids[k], fa, fb);
	return 0;
}

/* ---- neighbours ----------------------------------------------------- */

static int is_convolution(const hs_graph *g, int64_t v)
{
	return hlo_opcode_id("convolution") == g->opcode[v];
}

/* Ops whose output numbers its dimensions differently from their operand
 * (or holds no array): a layout cannot be followed through them. */
static void renumbering_ops(unsigned char table[256])
{
	static const char *const names[] = {
		"reshape", "transpose", "broadcast", "bitcast", "reduce", "dot", "convolution",
		"gather", "scatter", "tuple", "get-tuple-element", "custom-call", "fusion", "while",
		"call", "conditional", "all-to-all", "fft", "sort", "iota", "parameter", "constant",
	};
	memset(table, 0, 256);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int id = hlo_opcode_id(names[i]);
		if (id >= 0 && id < 256)
			table[id] = 1;
	}
}

static int node_rank(const hs_graph *g, int64_t v)
{
	hlo_shape s;
	hlo_decode_shape(graph_feat(g, v), g->feat_width, &s);
	return s.valid && !s.is_tuple ? s.rank : -1;
}

/* Can a layout be followed from `prod`'s output through node `via`?  Same
 * rank and an op that keeps the dimension numbering (elementwise, convert,
 * concatenate, slice, pad, ...): then the producer's and the consumer's
 * layouts number the same dimensions. */
static int passes_layout(const hs_graph *g, const unsigned char *renumber, int64_t prod, int64_t via)
{
	if (g->feat_width != HLO_NODE_FEATURES || renumber[g->opcode[via]])
		return 0;
	int r = node_rank(g, prod);
	return r >= 0 && r == node_rank(g, via);
}

/* The consumer's layout group facing operand `slot`: 1 input, 2 kernel, -1
 * unknown.  The README documents the kernel layout for convolutions; the
 * real files set it for dots too, where it can only be the right-hand
 * operand's.  Other operands have no layout in the data. */
int compare_consumer_group(const hs_graph *g, int64_t consumer, int slot)
{
	if (slot == 0)
		return 1;
	if (slot == 1 && (is_convolution(g, consumer) || g->opcode[consumer] == hlo_opcode_id("dot")))
		return 2;
	return -1;
}

/* The neighbour's layout group facing the row's node. */
int compare_facing_group(const hs_graph *g, const compare_neighbor *nb)
{
	if (nb->side == COMPARE_OPERAND)
		return 0;
	int grp = compare_consumer_group(g, nb->node, nb->slot);
	return grp < 0 ? 1 : grp;
}

/* Position of `operand` among v's operands, or -1. */
static int operand_slot(const hs_graph *g, int64_t v, int64_t operand)
{
	for (int64_t i = g->operand_off[v]; i < g->operand_off[v + 1]; i++)
		if (g->operand_idx[i] == operand)
			return (int)(i - g->operand_off[v]);
	return -1;
}

/* 1 mismatch, 0 agree, -1 unknown: compares the entries set in both. */
static int layout_mismatch(const float *x, const float *y)
{
	int xset = 0, yset = 0, compared = 0;
	for (int i = 0; i < LAYOUT_GROUP; i++) {
		xset |= x[i] != -1;
		yset |= y[i] != -1;
	}
	if (!xset || !yset)
		return -1;
	for (int i = 0; i < LAYOUT_GROUP; i++) {
		if (x[i] < 0 || y[i] < 0)
			continue;
		if (x[i] != y[i])
			return 1;
		compared++;
	}
	return compared ? 0 : -1;
}

struct walk {
	const hs_graph *g;
	int32_t *stamp;   /* [n_nodes] */
	int32_t cur;
	int64_t *q_node;  /* queue: node, depth, slot, dims-ok */
	int *q_depth, *q_slot, *q_ok;
	int64_t *q_from;  /* the node it was reached from */
	int64_t cap;
	unsigned char renumber[256]; /* opcodes a layout cannot pass */
};

#define WALK_MAX_VISIT 256

static int walk_init(struct walk *w, const hs_graph *g)
{
	memset(w, 0, sizeof *w);
	w->g = g;
	w->cap = WALK_MAX_VISIT;
	renumbering_ops(w->renumber);
	w->stamp = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *w->stamp);
	w->q_node = malloc((size_t)w->cap * sizeof *w->q_node);
	w->q_from = malloc((size_t)w->cap * sizeof *w->q_from);
	w->q_depth = malloc((size_t)w->cap * sizeof *w->q_depth);
	w->q_slot = malloc((size_t)w->cap * sizeof *w->q_slot);
	w->q_ok = malloc((size_t)w->cap * sizeof *w->q_ok);
	return w->stamp && w->q_node && w->q_from && w->q_depth && w->q_slot && w->q_ok ? 0 : -1;
}

static void walk_done(struct walk *w)
{
	free(w->stamp);
	free(w->q_node);
	free(w->q_from);
	free(w->q_depth);
	free(w->q_slot);
	free(w->q_ok);
}

/* Nearest configurable nodes on one side of v (breadth first through
 * non-configurable nodes).  Writes at most `max` into out; returns how many
 * were found in all (found - written = left out). */
static int walk_side(struct walk *w, int64_t v, int side, compare_neighbor *out, int max)
{
	const hs_graph *g = w->g;
	int64_t head = 0, tail = 0;
	int found = 0;

	w->cur++;
	w->stamp[v] = w->cur;
#define PUSH(node, from, depth, slot, ok)                                                           \
	do {                                                                                       \
		if (tail < w->cap && w->stamp[node] != w->cur) {                                   \
			w->stamp[node] = w->cur;                                                   \
			w->q_node[tail] = (node), w->q_from[tail] = (from);                        \
			w->q_depth[tail] = (depth), w->q_slot[tail] = (slot), w->q_ok[tail] = (ok); \
			tail++;                                                                    \
		}                                                                                  \
	} while (0)

	if (side == COMPARE_OPERAND) {
		for (int64_t i = g->operand_off[v]; i < g->operand_off[v + 1]; i++)
			PUSH(g->operand_idx[i], v, 1, (int)(i - g->operand_off[v]), 1);
	} else {
		for (int64_t i = g->user_off[v]; i < g->user_off[v + 1]; i++) {
			int64_t u = g->user_idx[i];
			PUSH(u, v, 1, operand_slot(g, u, v), 1);
		}
	}
	while (head < tail) {
		int64_t n = w->q_node[head];
		int depth = w->q_depth[head], slot = w->q_slot[head], ok = w->q_ok[head];
		head++;
		if (g->cfg_index[n] >= 0) {
			if (found < max) {
				compare_neighbor *nb = &out[found];
				memset(nb, 0, sizeof *nb);
				nb->node = n;
				nb->side = side;
				nb->hops = depth;
				nb->slot = slot;
				nb->comparable = ok;
				nb->mismatch_a = nb->mismatch_b = -1;
			}
			found++;
			continue;
		}
		if (depth >= COMPARE_MAX_HOPS)
			continue;
		if (side == COMPARE_OPERAND) {
			/* v <- n <- m: the layout of m must pass through n. */
			for (int64_t i = g->operand_off[n]; i < g->operand_off[n + 1]; i++) {
				int64_t m = g->operand_idx[i];
				PUSH(m, n, depth + 1, slot, ok && passes_layout(g, w->renumber, m, n));
			}
		} else {
			/* v -> n -> m: v's layout must pass through n; m's slot is n's place. */
			int keep = ok && passes_layout(g, w->renumber, v, n);
			for (int64_t i = g->user_off[n]; i < g->user_off[n + 1]; i++) {
				int64_t m = g->user_idx[i];
				PUSH(m, n, depth + 1, operand_slot(g, m, n), keep);
			}
		}
	}
#undef PUSH
	return found;
}

/* Fills mismatch_a/b of a neighbour of row node v. */
static void neighbor_mismatch(const hs_graph *ga, const hs_graph *gb, int64_t ca, int64_t cb,
			      int64_t v, compare_neighbor *nb)
{
	int64_t prod, cons;
	if (nb->side == COMPARE_OPERAND)
		prod = nb->node, cons = v;
	else
		prod = v, cons = nb->node;
	int grp = compare_consumer_group(ga, cons, nb->slot);
	if (!nb->comparable || grp < 0 || ga->ncf_width != HLO_LAYOUT_CONFIG_FEATURES)
		return;
	float po[LAYOUT_GROUP], ci[LAYOUT_GROUP];
	for (int s = 0; s < 2; s++) {
		const hs_graph *g = s ? gb : ga;
		int64_t c = s ? cb : ca;
		int64_t kp = g->cfg_index[prod], kc = g->cfg_index[cons];
		for (int i = 0; i < LAYOUT_GROUP; i++) {
			po[i] = graph_ncf(g, c, kp, i);
			ci[i] = graph_ncf(g, c, kc, grp * LAYOUT_GROUP + i);
		}
		int m = layout_mismatch(po, ci);
		if (s)
			nb->mismatch_b = m;
		else
			nb->mismatch_a = m;
	}
}

/* ---- running a comparison ------------------------------------------- */

/* 1 + the number of values strictly smaller than v[c]. */
static int64_t rank_of(const double *v, int64_t n, int64_t c)
{
	int64_t r = 1;
	for (int64_t i = 0; i < n; i++)
		if (v[i] < v[c])
			r++;
	return r;
}

static void side_info(const hs_graph *g, int64_t c, const char *sel, compare_side_info *s)
{
	memset(s, 0, sizeof *s);
	s->config = c;
	snprintf(s->selector, sizeof s->selector, "%s", sel);
	s->labeled = g->labeled;
	s->n_configs = g->n_configs;
	s->predicted = NAN;
	s->runtime = NAN;
	if (g->labeled) {
		s->runtime = g->runtime[c];
		s->runtime_raw = g->runtime_raw[c];
		s->rank = rank_of(g->runtime, g->n_configs, c);
	}
}

static int cmp_count(const void *x, const void *y)
{
	const compare_count *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* Counts of `keys` (values 0..nkeys-1) as a list, count descending. */
static compare_count *count_list(const int64_t *hist, int64_t nkeys, int *n)
{
	int m = 0;
	for (int64_t i = 0; i < nkeys; i++)
		m += hist[i] != 0;
	compare_count *out = malloc((size_t)(m ? m : 1) * sizeof *out);
	if (!out)
		return NULL;
	m = 0;
	for (int64_t i = 0; i < nkeys; i++)
		if (hist[i])
			out[m].key = i, out[m].count = hist[i], m++;
	qsort(out, (size_t)m, sizeof *out, cmp_count);
	*n = m;
	return out;
}

/* A predictor of our own for graph g (*out), made when the caller gave
 * none that fits; 0, -1 with e set. */
static int own_predictor(predictor **out, const hs_model *m, hs_graph *g, hs_error *e)
{
	if (!(*out = calloc(1, sizeof **out)))
		return hs_fail(e, HS_ENOMEM, "%s: out of memory predicting", g->name);
	return predictor_from_model(*out, m, g, e);
}

/* The predictions of A and B: the caller's predictors (compare_opts.pred_a,
 * pred_b) when both are there for the graphs and say the same thing, else
 * our own.  Each is the predictor's time where it has one, its score
 * otherwise: the number predict, query and the explorer show.  A model that
 * cannot predict leaves them absent, with its reason; -1 (err set) only
 * when memory runs out. */
static int predictions(compare_result *r, const compare_opts *o, hs_error *err)
{
	struct compare_priv *p = r->priv;
	const predictor *pa = o->pred_a, *pb = r->gb == r->ga ? o->pred_a : o->pred_b;

	snprintf(r->pred_label, sizeof r->pred_label, "%s", model_describe(o->model));
	r->contrib_scale = NAN;
	if (!o->predict) {
		snprintf(r->pred_error, sizeof r->pred_error, "not requested");
		return 0;
	}
	if (!pa || !pb || pa->n != r->ga->n_configs || pb->n != r->gb->n_configs || strcmp(pa->label, pb->label)) {
		hs_error e = {0};
		if (own_predictor(&p->own_a, o->model, r->ga, &e) < 0 ||
		    (r->gb != r->ga && own_predictor(&p->own_b, o->model, r->gb, &e) < 0)) {
			if (e.status == HS_ENOMEM)
				return hs_fail(err, HS_ENOMEM, "%s", e.msg);
			snprintf(r->pred_error, sizeof r->pred_error, "%s", e.msg);
			return 0;
		}
		pa = p->own_a;
		pb = r->gb == r->ga ? pa : p->own_b;
	}
	snprintf(r->pred_label, sizeof r->pred_label, "%s", pa->label);
	r->time_kind = predictor_time_kind(pa);
	r->pred_ns = predictor_time_ns(pa, r->ga) && predictor_time_ns(pb, r->gb);
	/* the contributions are the estimate's ns: the calibrated times scale them */
	if (pa->time_kind == PRED_TIME_NS || (pa->time_kind == PRED_TIME_CALIBRATED && !isnan(pa->calib_factor)))
		r->contrib_scale = pa->time_kind == PRED_TIME_NS ? 1 : pa->calib_factor;
	const double *va = pa->time ? pa->time : pa->score, *vb = pb->time ? pb->time : pb->score;
	r->A.predicted = va[r->A.config];
	r->B.predicted = vb[r->B.config];
	r->A.pred_rank = pa->rank[r->A.config];
	r->B.pred_rank = pb->rank[r->B.config];
	r->A.pred_tied = pa->tied[r->A.config];
	r->B.pred_tied = pb->tied[r->B.config];
	r->predicted_diff = r->B.predicted - r->A.predicted;
	/* a learned model's scores map to times monotonically, not linearly:
	 * its contributions are shared out in proportion to the difference */
	double ds = pb->score[r->B.config] - pa->score[r->A.config];
	if (pa->time_kind == PRED_TIME_CALIBRATED && isnan(pa->calib_factor) && r->pred_ns && ds != 0)
		r->contrib_scale = r->predicted_diff / ds;
	if (isfinite(r->A.predicted) && isfinite(r->B.predicted) && r->A.predicted > 0 && r->B.predicted > 0)
		r->predicted_ratio = r->B.predicted / r->A.predicted;
	return 0;
}

/* The model's per-node share of the predicted difference (B - A), from
 * model_node_contributions(); absent across two files, where no single
 * graph holds both configs, and when the model cannot give it. */
static int contributions(compare_result *r, const compare_opts *o, hs_error *err)
{
	struct compare_priv *p = r->priv;
	hs_error e = {0};
	double *out;

	for (int64_t i = 0; i < r->n_rows; i++)
		r->rows[i].contribution = NAN;
	r->has_contribution = 0;
	if (!o->predict) {
		snprintf(r->contrib_note, sizeof r->contrib_note, "absent: predictions not requested");
		return 0;
	}
	if (r->gb != r->ga) {
		snprintf(r->contrib_note, sizeof r->contrib_note,
			 "absent: per-node contributions need A and B in one file");
		return 0;
	}
	if (o->pred_a && o->pred_a->trained && !strcmp(r->pred_label, o->pred_a->label)) {
		snprintf(r->contrib_note, sizeof r->contrib_note, "absent: a fit gives no per-node contributions");
		return 0;
	}
	out = malloc((size_t)(r->n_cfg ? r->n_cfg : 1) * sizeof *out);
	if (!out)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory computing contributions", r->ga->name);
	if (model_node_contributions(o->model, r->ga, r->A.config, r->B.config, out, &e)) {
		free(out);
		if (e.status == HS_ENOMEM)
			return hs_fail(err, HS_ENOMEM, "%s: out of memory computing contributions", r->ga->name);
		snprintf(r->contrib_note, sizeof r->contrib_note, "absent: %s", e.msg);
		return 0;
	}
	if (!isnan(r->contrib_scale))  /* in the predicted times' ns */
		for (int64_t k = 0; k < r->n_cfg; k++)
			out[k] *= r->contrib_scale;
	for (int64_t i = 0; i < r->n_rows; i++)
		r->rows[i].contribution = out[r->rows[i].k_a];
	r->contrib_total = r->contrib_differ = 0;
	for (int64_t k = 0; k < r->n_cfg; k++) {
		r->contrib_total += out[k];
		if (p->diff[k])
			r->contrib_differ += out[k];
	}
	r->has_contribution = 1;
	free(out);
	return 0;
}

static int run_layout(compare_result *r, const compare_opts *o, hs_error *err)
{
	hs_graph *ga = r->ga, *gb = r->gb;
	struct compare_priv *p = r->priv;
	int w = ga->ncf_width;
	int64_t n = ga->n_cfg_nodes;

	if (graph_load_node_configs(ga, err) || graph_load_node_configs(gb, err))
		return -1;
	r->width = w;
	r->n_cfg = n;

	/* Which nodes differ. */
	unsigned char *diff = p->diff = calloc((size_t)(n ? n : 1), 1);
	if (!diff)
		return hs_fail(err, HS_ENOMEM, "out of memory comparing two layout configs");
	for (int64_t k = 0; k < n; k++) {
		int64_t kb = gb->cfg_index[ga->cfg_node_ids[k]];
		for (int j = 0; j < w; j++)
			if (graph_ncf(ga, r->A.config, k, j) != graph_ncf(gb, r->B.config, kb, j)) {
				diff[k] = 1;
				break;
			}
		r->n_differ += diff[k];
	}
	r->n_rows = o->all ? n : r->n_differ;
	r->all = o->all != 0;

	size_t nr = (size_t)(r->n_rows ? r->n_rows : 1);
	r->rows = calloc(nr, sizeof *r->rows);
	p->values = malloc(nr * 2 * (size_t)(w ? w : 1) * sizeof *p->values);
	p->changed = calloc(nr * (size_t)(w ? w : 1), 1);
	p->nb = malloc(nr * 2 * COMPARE_MAX_NEIGHBORS * sizeof *p->nb);
	int64_t *hist_op = calloc(256, sizeof *hist_op);
	int64_t *hist_comp = calloc((size_t)(ga->n_comps ? ga->n_comps : 1), sizeof *hist_comp);
	int64_t *hist_hcomp = calloc((size_t)(ga->n_hcomps ? ga->n_hcomps : 1), sizeof *hist_hcomp);
	compare_neighbor *tmp = malloc(2 * COMPARE_MAX_NEIGHBORS * sizeof *tmp);
	struct walk wk;
	int wk_ok = walk_init(&wk, ga) == 0;
	int rc = 0;
	if (!r->rows || !p->values || !p->changed || !p->nb || !hist_op || !hist_comp || !hist_hcomp || !tmp ||
	    !wk_ok) {
		rc = hs_fail(err, HS_ENOMEM, "%s: out of memory comparing configs", compare_file_label(ga));
		goto out;
	}

	int64_t row = 0;
	for (int64_t k = 0; k < n; k++) {
		int64_t v = ga->cfg_node_ids[k], kb = gb->cfg_index[v];
		compare_neighbor *nb = tmp;
		int nop = walk_side(&wk, v, COMPARE_OPERAND, nb, COMPARE_MAX_NEIGHBORS);
		int kop = nop < COMPARE_MAX_NEIGHBORS ? nop : COMPARE_MAX_NEIGHBORS;
		int nus = walk_side(&wk, v, COMPARE_USER, nb + kop, COMPARE_MAX_NEIGHBORS);
		int kus = nus < COMPARE_MAX_NEIGHBORS ? nus : COMPARE_MAX_NEIGHBORS;
		for (int i = 0; i < kop + kus; i++)
			neighbor_mismatch(ga, gb, r->A.config, r->B.config, v, &nb[i]);
		/* Mismatches counted once per pair: on the consumer's side. */
		for (int i = 0; i < kop; i++) {
			r->A.mismatches += nb[i].mismatch_a == 1;
			r->B.mismatches += nb[i].mismatch_b == 1;
		}
		if (diff[k]) {
			hist_op[ga->opcode[v]]++;
			hist_comp[ga->comp_of[v]]++;
			if (ga->hcomp_of)
				hist_hcomp[ga->hcomp_of[v]]++;
		}
		if (!diff[k] && !o->all)
			continue;
		compare_row *rw = &r->rows[row];
		float *va = p->values + (size_t)row * 2 * (size_t)w, *vb = va + w;
		rw->node = v;
		rw->k_a = k;
		rw->k_b = kb;
		rw->opcode = ga->opcode[v];
		rw->comp = ga->comp_of[v];
		rw->hcomp = ga->hcomp_of ? ga->hcomp_of[v] : -1;
		rw->differs = diff[k];
		rw->a = va;
		rw->b = vb;
		rw->changed = p->changed + (size_t)row * (size_t)w;
		for (int j = 0; j < w; j++) {
			va[j] = graph_ncf(ga, r->A.config, k, j);
			vb[j] = graph_ncf(gb, r->B.config, kb, j);
			rw->changed[j] = va[j] != vb[j];
		}
		rw->nb = p->nb + (size_t)row * 2 * COMPARE_MAX_NEIGHBORS;
		memcpy(rw->nb, nb, (size_t)(kop + kus) * sizeof *nb);
		rw->n_nb = kop + kus;
		rw->more_operands = nop - kop;
		rw->more_users = nus - kus;
		rw->contribution = NAN;
		row++;
	}
	r->opcodes = count_list(hist_op, 256, &r->n_opcodes);
	r->comps = count_list(hist_comp, ga->n_comps, &r->n_comps);
	r->hcomps = count_list(hist_hcomp, ga->n_hcomps, &r->n_hcomps);
	if (!r->opcodes || !r->comps || !r->hcomps)
		rc = hs_fail(err, HS_ENOMEM, "%s: out of memory comparing configs", compare_file_label(ga));
out:
	free(hist_op);
	free(hist_comp);
	free(hist_hcomp);
	free(tmp);
	if (wk_ok)
		walk_done(&wk);
	else
		free(wk.stamp), free(wk.q_node), free(wk.q_from), free(wk.q_depth), free(wk.q_slot),
			free(wk.q_ok);
	return rc;
}

static int run_tile(compare_result *r, hs_error *err)
{
	struct compare_priv *p = r->priv;
	int w = r->ga->config_width;

	r->width = w;
	r->tile_a = r->ga->config_feat + (size_t)r->A.config * (size_t)w;
	r->tile_b = r->gb->config_feat + (size_t)r->B.config * (size_t)w;
	p->changed = calloc((size_t)(w ? w : 1), 1);
	if (!p->changed)
		return hs_fail(err, HS_ENOMEM, "out of memory comparing two tile configs");
	r->tile_changed = p->changed;
	for (int j = 0; j < w; j++) {
		p->changed[j] = r->tile_a[j] != r->tile_b[j];
		r->tile_n_differ += p->changed[j];
	}
	return 0;
}

compare_result *compare_run(hs_graph *ga, hs_graph *gb, const char *sel_a, const char *sel_b,
			    const compare_opts *o, hs_error *err)
{
	compare_opts def;
	if (!o) {
		compare_opts_init(&def);
		o = &def;
	}
	if (!gb)
		gb = ga;
	if (compare_graphs_equal(ga, gb, err))
		return NULL;
	int64_t a = compare_resolve(ga, sel_a, "A", err);
	if (a < 0)
		return NULL;
	int64_t b = compare_resolve(gb, sel_b, "B", err);
	if (b < 0)
		return NULL;

	compare_result *r = calloc(1, sizeof *r);
	struct compare_priv *p = calloc(1, sizeof *p);
	if (!r || !p) {
		free(r);
		free(p);
		hs_fail(err, HS_ENOMEM, "out of memory comparing two configs");
		return NULL;
	}
	r->priv = p;
	r->ga = ga;
	r->gb = gb;
	r->kind = ga->kind;
	side_info(ga, a, sel_a, &r->A);
	side_info(gb, b, sel_b, &r->B);
	r->runtime_ratio = NAN;
	r->predicted_ratio = NAN;
	r->predicted_diff = NAN;
	if (r->A.labeled && r->B.labeled && r->A.runtime != 0)
		r->runtime_ratio = r->B.runtime / r->A.runtime;
	if ((r->kind == HS_KIND_LAYOUT ? run_layout(r, o, err) : run_tile(r, err)) != 0) {
		compare_free(r);
		return NULL;
	}
	if (predictions(r, o, err) < 0 || (r->kind == HS_KIND_LAYOUT && contributions(r, o, err) < 0)) {
		compare_free(r);
		return NULL;
	}
	if (r->kind == HS_KIND_LAYOUT)
		compare_sort_rows(r, o->sort);
	return r;
}

void compare_free(compare_result *r)
{
	if (!r)
		return;
	struct compare_priv *p = r->priv;
	if (p) {
		free(p->values);
		free(p->changed);
		free(p->nb);
		free(p->diff);
		for (predictor **q = &p->own_a; q <= &p->own_b; q++)
			if (*q) {
				predictor_free(*q);
				free(*q);
			}
		free(p);
	}
	free(r->rows);
	free(r->opcodes);
	free(r->comps);
	free(r->hcomps);
	free(r);
}

static int cmp_row_id(const void *x, const void *y)
{
	const compare_row *a = x, *b = y;
	return (a->node > b->node) - (a->node < b->node);
}

static int cmp_row_contrib(const void *x, const void *y)
{
	const compare_row *a = x, *b = y;
	int na = isnan(a->contribution), nb = isnan(b->contribution);
	if (na != nb)
		return na - nb;
	if (!na) {
		double fa = fabs(a->contribution), fb = fabs(b->contribution);
		if (fa != fb)
			return fa > fb ? -1 : 1;
	}
	return cmp_row_id(x, y);
}

void compare_sort_rows(compare_result *r, compare_sort s)
{
	if (r->kind != HS_KIND_LAYOUT || !r->n_rows)
		return;
	qsort(r->rows, (size_t)r->n_rows, sizeof *r->rows,
	      s == COMPARE_SORT_CONTRIBUTION ? cmp_row_contrib : cmp_row_id);
	r->sort = s;
}

int64_t compare_changed_nodes(const compare_result *r, int64_t **ids)
{
	int64_t n = 0;
	*ids = NULL;
	if (r->kind == HS_KIND_TILE) {
		if (!r->tile_n_differ || !r->ga->n_nodes)
			return 0;
		*ids = malloc((size_t)r->ga->n_nodes * sizeof **ids);
		if (!*ids)
			return -1;
		for (int64_t i = 0; i < r->ga->n_nodes; i++)
			(*ids)[i] = i;
		return r->ga->n_nodes;
	}
	if (!r->n_differ)
		return 0;
	*ids = malloc((size_t)r->n_differ * sizeof **ids);
	if (!*ids)
		return -1;
	for (int64_t i = 0; i < r->n_rows; i++)
		if (r->rows[i].differs)
			(*ids)[n++] = r->rows[i].node;
	qsort(*ids, (size_t)n, sizeof **ids, hs_cmp_i64);
	return n;
}

int compare_highlight(hs_graph *g, const char *sel_a, const char *sel_b, int64_t **ids, size_t *n,
		      hs_error *err)
{
	compare_opts o;
	compare_opts_init(&o);
	o.predict = 0;
	compare_result *r = compare_run(g, NULL, sel_a, sel_b, &o, err);
	if (!r)
		return -1;
	int64_t *ch;
	int64_t m = compare_changed_nodes(r, &ch);
	compare_free(r);
	if (m < 0)
		return hs_fail(err, HS_ENOMEM, "out of memory finding the changed nodes");
	if (m == 0)
		return 0;
	int64_t *grown = realloc(*ids, (*n + (size_t)m) * sizeof *grown);
	if (!grown) {
		free(ch);
		return hs_fail(err, HS_ENOMEM, "out of memory finding the changed nodes");
	}
	memcpy(grown + *n, ch, (size_t)m * sizeof *ch);
	*ids = grown;
	*n += (size_t)m;
	free(ch);
	return 0;
}

/* ---- output --------------------------------------------------------- */

int compare_print(FILE *out, const compare_result *r, int format, hs_error *err)
{
	int all = r->kind == HS_KIND_LAYOUT && r->all;
	clearerr(out);
	if (format == COMPARE_JSON) {
		if (compare_print_json(out, r, all, err) < 0)
			return -1;
	} else {
		compare_print_text(out, r, all);
	}
	if (fflush(out) != 0 || ferror(out)) /* a stream into memory that ran out is out of memory */
		return hs_fail(err, hs_errno_status(errno), "writing the comparison: %s", strerror(errno));
	return 0;
}

int compare_write(FILE *out, hs_graph *ga, hs_graph *gb, const char *sel_a, const char *sel_b,
		  const compare_opts *o, int format, hs_error *err)
{
	compare_result *r = compare_run(ga, gb, sel_a, sel_b, o, err);
	if (!r)
		return -1;
	int rc = compare_print(out, r, format, err);
	compare_free(r);
	return rc;
}