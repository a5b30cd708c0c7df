/* derived.c - what a session derives about its graph, made on first use
 * and dropped when the session is rebound: texts per
 * node (in hashes by node id, so that showing 200 of 40,000 nodes touches
 * little memory), the analytic cost of every node, the runtime ranks (and
 * the runtimes' summary, cmd_graphs.c), the roots of the node_splits segments, the active predictor (the model's or
 * a fit) and the data laid over the nodes.  query/query.h says what the
 * explorer and the commands read of it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/index.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "loader/hlo_module.h"
#include "model/metrics.h"
#include "query/query_impl.h"

static void text_map_free(struct query_text_map *m);

/* attr('NAME') texts of the bound graph: one map per attribute name. */
struct query_attr_map {
	char *name;
	struct query_text_map *m;
};

static void drop_predictor(predictor **p)
{
	if (*p)
		predictor_free(*p);
	free(*p);
	*p = NULL;
}

/* The model's predictor and why it failed; the fit stays. */
void query_drop_prediction(query_session *s)
{
	drop_predictor(&s->pred);
	free(s->pred_error);
	s->pred_error = NULL;
	s->pred_status = 0;
	s->active = s->fit;
}

void query_drop_caches(query_session *s)
{
	for (int f = 0; f < HS_NHFIELDS; f++) {
		text_map_free(s->htext[f]);
		s->htext[f] = NULL;
	}
	for (int k = 0; k < QUERY_NDTEXT; k++) {
		text_map_free(s->dtext[k]);
		s->dtext[k] = NULL;
	}
	for (size_t i = 0; i < s->n_attrs; i++) {
		free(s->attrs[i].name);
		text_map_free(s->attrs[i].m);
	}
	free(s->attrs);
	s->attrs = NULL;
	s->n_attrs = 0;
	free(s->cost);
	s->cost = NULL;
	free(s->rank);
	s->rank = NULL;
	free(s->split_root);
	s->split_root = NULL;
	drop_predictor(&s->fit);
	query_drop_prediction(s);
	for (int i = 0; i < s->n_overlays; i++)
		overlay_free(&s->overlays[i]);
	free(s->overlays);
	s->overlays = NULL;
	s->n_overlays = 0;
	if (s->layers)
		layers_free(s->layers);
	free(s->layers);
	s->layers = NULL;
	s->rt_done = 0;
}

/* Node id -> text, made on first use. */
struct query_text_map {
	hs_index ix;
	HS_VEC(struct node_text {
		int64_t v;
		char *text;   /* malloc'd */
	}) v;
};

static void text_map_free(struct query_text_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->v.n; i++)
		free(m->v.v[i].text);
	hs_index_free(&m->ix);
	hs_vec_free(&m->v);
	free(m);
}

static int text_of_node(const void *m, int32_t e, const void *v)
{
	return ((const struct query_text_map *)m)->v.v[e].v == *(const int64_t *)v;
}

/* The text of node v in map *mp (made on first use), or NULL; *mp NULL
 * when out of memory. */
static const char *map_find(struct query_text_map **mp, int64_t v)
{
	if (!*mp && !(*mp = calloc(1, sizeof **mp)))
		return NULL;
	int32_t e = hs_index_find(&(*mp)->ix, (uint32_t)hs_mix64((uint64_t)v), text_of_node, *mp, &v);
	return e < 0 ? NULL : (*mp)->v.v[e].text;
}

/* Keeps text t (malloc'd, taken) for node v in m; NULL t or no room:
 * out of memory (query_eval_oom). */
static const char *map_keep(query_session *s, struct query_text_map *m, int64_t v, char *t)
{
	if (!t)
		return query_eval_oom(s, "keeping a node's text");
	if (m->v.n >= HS_INDEX_MAX || hs_vec_push(&m->v, ((struct node_text){v, t})) != 0) {
		free(t);
		return query_eval_oom(s, "keeping a node's text");
	}
	if (hs_index_add(&m->ix, (uint32_t)hs_mix64((uint64_t)v), (int32_t)m->v.n - 1) != 0) {
		m->v.n--;
		free(t);
		return query_eval_oom(s, "keeping a node's text");
	}
	return t;
}

/* The text of node v in map *mp, computing it with `make` (into a buffer)
 * the first time; "?" when out of memory (query_eval_oom). */
static const char *cached_text(struct query_text_map **mp, int64_t v,
			       const char *(*make)(query_session *, int, int64_t, char *, size_t),
			       query_session *s, int f)
{
	const char *kept = map_find(mp, v);

	if (kept)
		return kept;
	if (!*mp)
		return query_eval_oom(s, "keeping a node's text");
	char buf[512];
	const char *made = make(s, f, v, buf, sizeof buf);
	if (made != buf)
		return made; /* stable already */
	return map_keep(s, *mp, v, strdup(buf));
}

/* The same for texts of any length: `make` appends to a string builder,
 * or returns a stable text of its own (then nothing is kept). */
static const char *cached_long(struct query_text_map **mp, int64_t v,
			       const char *(*make)(query_session *, const void *, int64_t, hs_strbuf *),
			       query_session *s, const void *arg)
{
	const char *kept = map_find(mp, v);

	if (kept)
		return kept;
	if (!*mp)
		return query_eval_oom(s, "keeping a node's text");
	hs_strbuf b = {0};
	const char *made = make(s, arg, v, &b);
	if (made) {
		hs_strbuf_free(&b);
		return made;
	}
	char *t = b.s ? hs_strbuf_take(&b) : strdup("");
	return map_keep(s, *mp, v, t);
}

/* The texts of any length (enum query_dtext_kind). */
static const char *make_dtext(query_session *s, const void *arg, int64_t v, hs_strbuf *b)
{
	const hs_graph *g = s->g;
	int kind = *(const int *)arg;

	switch (kind) {
	case QUERY_DT_SHAPE: {
		const hm_instr *in = graph_node_instr(g, v);
		int len = hm_shape_text(in->shape, NULL, 0);
		char *t = malloc((size_t)len + 1);
		if (!t)
			return query_eval_oom(s, "writing a shape");
		hm_shape_text(in->shape, t, (size_t)len + 1);
		hs_strbuf_puts(b, t);
		free(t);
		return NULL;
	}
	case QUERY_DT_HLO: {
		int rc = graph_node_hlo(g, v, b);
		return rc > 0 ? NULL : rc < 0 ? query_eval_oom(s, "writing an HLO line") : "";
	}
	case QUERY_DT_OPERAND_NAMES: {
		const int64_t *ops = query_operands(g, v);
		for (int64_t i = 0; ops && i < query_n_operands(g, v); i++) {
			if (i)
				hs_strbuf_puts(b, ", ");
			hs_strbuf_puts(b, graph_node_name(g, ops[i]));
		}
		return NULL;
	}
	default:
		return "";
	}
}

const char *query_dtext(query_session *s, int kind, int64_t v)
{
	static const int kinds[QUERY_NDTEXT] = {QUERY_DT_SHAPE, QUERY_DT_HLO, QUERY_DT_OPERAND_NAMES};

	if (kind < 0 || kind >= QUERY_NDTEXT || !s->g->module)
		return "";
	return cached_long(&s->dtext[kind], v, make_dtext, s, &kinds[kind]);
}

static const char *make_attr(query_session *s, const void *arg, int64_t v, hs_strbuf *b)
{
	int rc = graph_node_attr(s->g, v, (const char *)arg, b);
	return rc > 0 ? NULL : rc < 0 ? query_eval_oom(s, "reading an attribute") : "";
}

const char *query_attr_text(query_session *s, const char *name, int64_t v)
{
	size_t i = 0;

	if (!(s->g->knows & HM_KNOWS_ATTRS))   /* a bare .npz keeps none */
		return "";
	while (i < s->n_attrs && strcmp(s->attrs[i].name, name) != 0)
		i++;
	if (i == s->n_attrs) {
		struct query_attr_map *a = realloc(s->attrs, (s->n_attrs + 1) * sizeof *a);
		if (!a)
			return query_eval_oom(s, "reading an attribute");
		s->attrs = a;
		a[i].m = NULL;
		a[i].name = strdup(name);
		if (!a[i].name)
			return query_eval_oom(s, "reading an attribute");
		s->n_attrs++;
	}
	return cached_long(&s->attrs[i].m, v, make_attr, s, s->attrs[i].name);
}

const char *query_role_text(const query_session *s, int64_t v)
{
	const hs_graph *g = s->g;

	return g->hcomp_of && g->hcomps ? graph_role_name(graph_node_role(g, v)) : "";
}

/* Text that lives in the graph comes back as is; derived text (names of a
 * bare .npz, shapes, numbers) is written into buf. */
static const char *make_htext(query_session *s, int f, int64_t v, char *buf, size_t cap)
{
	const hs_graph *g = s->g;

	if (!g->module) /* no structure (graph_open_parts) */
		return "";
	return graph_node_text(g, v, (hs_hfield)f, buf, cap);
}

const char *query_htext(query_session *s, int f, int64_t v)
{
	if (f < 0 || f >= HS_NHFIELDS)
		return "";
	return cached_text(&s->htext[f], v, make_htext, s, f);
}

int query_need_cost(query_session *s, hs_error *err)
{
	if (s->cost)
		return 0;
	if (!graph_has_features(s->g) || !s->g->operand_off)
		return hs_fail(err, HS_EDATA, "%s: cost needs the node features and edges", s->g->name);
	size_t n = (size_t)s->g->n_nodes;
	s->cost = calloc(n ? n : 1, sizeof *s->cost);
	if (!s->cost)
		return hs_fail(err, HS_ENOMEM, "out of memory for the cost of %zu nodes", n);
	if (cost_analytic(s->g, s->cost) < 0) {
		free(s->cost);
		s->cost = NULL;
		if (hs_progress_stopped())
			return hs_fail(err, HS_ESTOPPED, "%s: stopped costing the nodes", s->g->name);
		return hs_fail(err, HS_ENOMEM, "out of memory for the cost of %zu nodes", n);
	}
	return 0;
}

static int need_runtime_rank(query_session *s, hs_error *err)
{
	const hs_graph *g = s->g;

	if (s->rank || !g->labeled)
		return 0;
	s->rank = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *s->rank);
	if (!s->rank || metrics_ranks(g->runtime, (size_t)g->n_configs, s->rank, NULL) < 0) {
		free(s->rank);
		s->rank = NULL;
		return hs_fail(err, HS_ENOMEM, "out of memory ranking %lld configs", (long long)g->n_configs);
	}
	return 0;
}

int query_session_ranks(query_session *s, const int64_t **rank, hs_error *err)
{
	*rank = NULL;
	if (need_runtime_rank(s, err) < 0)
		return -1;
	*rank = s->rank;
	return 0;
}

/* The model's predictor (the analytic estimate without a model); a failure
 * is kept, so that it is tried once. */
static int need_model_predictor(query_session *s, hs_error *err)
{
	hs_error e;

	if (s->pred)
		return 0;
	if (s->pred_error)
		return hs_fail(err, s->pred_status, "%s", s->pred_error);
	hs_error_clear(&e);
	s->pred = calloc(1, sizeof *s->pred);
	if (!s->pred)
		return hs_fail(err, HS_ENOMEM, "out of memory predicting runtimes");
	if (graph_load_node_configs(s->g, &e) == 0 && predictor_from_model(s->pred, s->model, s->g, &e) == 0)
		return 0;
	free(s->pred);
	s->pred = NULL;
	if (e.status == HS_ENOMEM) /* not kept: another try may find memory */
		return hs_fail(err, HS_ENOMEM, "%s", e.msg);
	s->pred_status = e.status ? e.status : HS_EDATA;
	s->pred_error = strdup(e.msg);
	if (!s->pred_error)
		return hs_fail(err, HS_ENOMEM, "out of memory predicting runtimes");
	return hs_fail(err, s->pred_status, "%s", e.msg);
}

const predictor *query_session_predictor(query_session *s, hs_error *err)
{
	if (!s->fit && need_model_predictor(s, err) < 0)
		return NULL;
	s->active = s->fit ? s->fit : s->pred;
	return s->active;
}

int query_need_predicted(query_session *s, hs_error *err)
{
	hs_error e;

	hs_error_clear(&e);
	if (query_session_predictor(s, &e))
		return 0;
	return hs_fail(err, e.status, "predicted: %s", e.msg);
}

int query_session_fit(query_session *s, double fraction, uint64_t seed, hs_error *err)
{
	predictor *p;

	if (graph_load_node_configs(s->g, err) < 0)
		return -1;
	if (!(p = calloc(1, sizeof *p)))
		return hs_fail(err, HS_ENOMEM, "out of memory fitting");
	if (predictor_from_fit(p, s->g, fraction, seed, err) < 0) {
		free(p);
		return -1;
	}
	drop_predictor(&s->fit);
	s->fit = p;
	s->active = p;
	return 0;
}

void query_session_fit_off(query_session *s)
{
	drop_predictor(&s->fit);
	s->active = s->pred;
}

const cost_estimate *query_session_cost(query_session *s, hs_error *err)
{
	return query_need_cost(s, err) < 0 ? NULL : s->cost;
}

const char *query_session_shape(query_session *s, int64_t v)
{
	if (v < 0 || v >= s->g->n_nodes)
		return "";
	return query_dtext(s, QUERY_DT_SHAPE, v);
}

int query_session_runtime_summary(query_session *s, double out[3], hs_error *err)
{
	if (query_need_runtime_summary(s, err) < 0)
		return -1;
	memcpy(out, s->rt_summary, sizeof s->rt_summary);
	return 0;
}

int64_t query_session_split_root(query_session *s, int64_t k, hs_error *err)
{
	const hs_graph *g = s->g;

	if (k < 0 || k >= g->n_comps) {
		hs_fail(err, HS_EUSAGE, "no node_splits segment %lld (there are %lld)", (long long)k,
			(long long)g->n_comps);
		return -1;
	}
	if (!s->split_root) {
		int feat = g->feat_width == HLO_NODE_FEATURES && graph_has_features(g)
				   ? hlo_node_feature_index("is_root") : -1;
		int64_t *root = malloc((size_t)g->n_comps * sizeof *root);
		if (!root) {
			hs_fail(err, HS_ENOMEM, "out of memory finding the roots of %lld segments",
				(long long)g->n_comps);
			return -1;
		}
		for (int64_t c = 0; c < g->n_comps; c++) {
			root[c] = g->comp_start[c + 1] - 1;
			for (int64_t v = g->comp_start[c + 1] - 1; feat >= 0 && v >= g->comp_start[c]; v--)
				if (graph_feat(g, v)[feat] != 0) {
					root[c] = v;
					break;
				}
		}
		s->split_root = root;
	}
	return s->split_root[k];
}

int query_prepare_field(query_session *s, const query_field *f, hs_error *err)
{
	switch (f->kind) {
	case QF_COST:
	case QF_KERNEL_SHARE:
	case QF_FLOPS:
	case QF_BYTES:
	case QF_G_COST:
	case QF_G_FLOPS:
	case QF_G_BYTES:
		return query_need_cost(s, err);
	case QF_PREDICTED:
	case QF_SCORE:
	case QF_PREDICTED_RANK:
		return query_need_predicted(s, err);
	case QF_LAYER:
		return query_session_layers(s, err) ? 0 : -1;
	case QF_RUNTIME_RANK:
		return need_runtime_rank(s, err);
	case QF_G_RUNTIME_MIN:
	case QF_G_RUNTIME_MEDIAN:
	case QF_G_RUNTIME_MAX:
		return query_need_runtime_summary(s, err);
	default:
		return 0;
	}
}
