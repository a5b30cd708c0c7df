/* doc.c - an open graph shared by the views showing it, and the numbers
 * computed about it on first use (shape texts, costs, predictions, ranks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "tui/tui.h"

#define SHAPE_CAP 80

tui_doc *tui_doc_open(const char *path, const hs_model *m, hs_error *err)
{
	tui_doc *d = calloc(1, sizeof *d);

	if (!d) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it", path);
		return NULL;
	}
	d->g = graph_open(path, err);
	if (!d->g) {
		free(d);
		return NULL;
	}
	d->refs = 1;
	d->model = m;
	d->is_root_feat = d->g->feat_width == HLO_NODE_FEATURES ? hlo_node_feature_index("is_root") : -1;
	return d;
}

tui_doc *tui_doc_ref(tui_doc *d)
{
	if (d)
		d->refs++;
	return d;
}

void tui_doc_unref(tui_doc *d)
{
	if (!d || --d->refs > 0)
		return;
	tui_query_free(d);
	tui_drawing_cache_free(d);
	graph_free(d->g);
	free(d->cost);
	free(d->shape_arena);
	free(d->predicted);
	free(d->rank);
	free(d->pred_rank);
	free(d->comp_root);
	free(d);
}

const cost_estimate *tui_doc_cost(tui_doc *d)
{
	if (!d->cost && d->g->n_nodes > 0) {
		d->cost = calloc((size_t)d->g->n_nodes, sizeof *d->cost);
		if (d->cost)
			cost_analytic(d->g, d->cost);
	}
	return d->cost;
}

const char *tui_doc_shape(tui_doc *d, int64_t node)
{
	if (node < 0 || node >= d->g->n_nodes)
		return "";
	if (!d->shape_arena) {
		d->shape_arena = calloc((size_t)d->g->n_nodes, SHAPE_CAP);
		if (!d->shape_arena)
			return "?";
	}
	char *s = d->shape_arena + (size_t)node * SHAPE_CAP;
	if (!s[0]) {
		hlo_shape sh;
		hlo_decode_shape(graph_feat(d->g, node), d->g->feat_width, &sh);
		if (hlo_shape_text(&sh, s, SHAPE_CAP) <= 0 || !s[0])
			snprintf(s, SHAPE_CAP, "?");
	}
	return s;
}

static const double *rank_keys;
static int cmp_rank(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	double kx = rank_keys[x], ky = rank_keys[y];
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return (x > y) - (x < y);
}

/* rank[i] = 1 + position of config i when sorted by key (ties keep index order). */
static int64_t *make_ranks(const double *key, int64_t n)
{
	int64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
	int64_t *rank = malloc((size_t)(n ? n : 1) * sizeof *rank);

	if (!order || !rank) {
		free(order);
		free(rank);
		return NULL;
	}
	for (int64_t i = 0; i < n; i++)
		order[i] = i;
	rank_keys = key;
	qsort(order, (size_t)n, sizeof *order, cmp_rank);
	for (int64_t i = 0; i < n; i++)
		rank[order[i]] = i + 1;
	free(order);
	return rank;
}

const int64_t *tui_doc_ranks(tui_doc *d)
{
	if (!d->rank && d->g->labeled && d->g->n_configs > 0)
		d->rank = make_ranks(d->g->runtime, d->g->n_configs);
	return d->rank;
}

const double *tui_doc_predicted(tui_doc *d)
{
	hs_error err = {0};

	if (d->pred_tried)
		return d->predicted;
	d->pred_tried = 1;
	snprintf(d->pred_label, sizeof d->pred_label, "%s", model_describe(d->model));
	if (d->g->n_configs <= 0) {
		snprintf(d->pred_error, sizeof d->pred_error, "no configs");
		return NULL;
	}
	d->predicted = malloc((size_t)d->g->n_configs * sizeof *d->predicted);
	if (!d->predicted) {
		snprintf(d->pred_error, sizeof d->pred_error, "out of memory");
		return NULL;
	}
	if (model_predict_configs(d->model, d->g, d->predicted, &err) < 0) {
		snprintf(d->pred_error, sizeof d->pred_error, "%s", err.msg);
		free(d->predicted);
		d->predicted = NULL;
		return NULL;
	}
	d->pred_rank = make_ranks(d->predicted, d->g->n_configs);
	return d->predicted;
}

int tui_doc_configs_loaded(tui_doc *d, hs_error *err)
{
	if (d->g->kind != HS_KIND_LAYOUT || d->g->ncf_loaded)
		return 0;
	return graph_load_node_configs(d->g, err);
}

int64_t tui_doc_comp_root(tui_doc *d, int64_t c)
{
	const hs_graph *g = d->g;

	if (c < 0 || c >= g->n_comps)
		return -1;
	if (!d->comp_root) {
		d->comp_root = malloc((size_t)g->n_comps * sizeof *d->comp_root);
		if (!d->comp_root)
			return g->comp_start[c + 1] - 1;
		for (int64_t k = 0; k < g->n_comps; k++) {
			int64_t root = g->comp_start[k + 1] - 1;
			if (d->is_root_feat >= 0)
				for (int64_t v = g->comp_start[k + 1] - 1; v >= g->comp_start[k]; v--)
					if (graph_feat(g, v)[d->is_root_feat] != 0) {
						root = v;
						break;
					}
			d->comp_root[k] = root;
		}
	}
	return d->comp_root[c];
}
