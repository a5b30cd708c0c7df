/* doc.c - an open graph shared by the views showing it, the numbers
 * computed about it on first use (shape texts, costs, predictions, ranks),
 * and its names as the views show them (nodes by id or name, opcode colours,
 * computation labels). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "loader/hlo_module.h"
#include "model/metrics.h"
#include "base/parse.h"
#include "query/query.h"
#include "tui/tui.h"

#define SHAPE_CAP 128 /* a shape decoded from a bare .npz's features fits */

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
	free(d->cost);
	for (int64_t v = 0; d->shape && v < d->g->n_nodes; v++)
		free(d->shape[v]);
	free(d->shape);
	if (d->pred)
		predictor_free(d->pred);
	free(d->pred);
	tui_doc_fit_off(d);
	free(d->rank);
	free(d->comp_root);
	graph_free(d->g);
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
	if (!d->shape && !(d->shape = calloc((size_t)d->g->n_nodes, sizeof *d->shape)))
		return "?";
	if (!d->shape[node]) {
		/* as written, layout included and a tuple whole, from HLO
		 * input; decoded from the features on a bare .npz */
		const hm_instr *in = graph_node_instr(d->g, node);
		char small[SHAPE_CAP];
		if (in) {
			int len = hm_shape_text(&in->shape, NULL, 0);
			if ((d->shape[node] = malloc((size_t)len + 1)))
				hm_shape_text(&in->shape, d->shape[node], (size_t)len + 1);
		} else {
			const char *txt = graph_node_text(d->g, node, HS_HF_SHAPE, small, sizeof small);
			d->shape[node] = strdup(txt);
		}
		if (!d->shape[node])
			return "?";
	}
	return d->shape[node][0] ? d->shape[node] : "?";
}

const int64_t *tui_doc_ranks(tui_doc *d)
{
	int64_t n = d->g->n_configs;

	if (!d->rank && d->g->labeled && n > 0) {
		d->rank = malloc((size_t)n * sizeof *d->rank);
		if (d->rank && metrics_ranks(d->g->runtime, (size_t)n, d->rank, NULL) < 0) {
			free(d->rank);
			d->rank = NULL;
		}
	}
	return d->rank;
}

const predictor *tui_doc_predictor(tui_doc *d)
{
	hs_error err = {0};

	if (d->fit)
		return d->fit;
	if (d->pred_tried)
		return d->pred;
	d->pred_tried = 1;
	snprintf(d->pred_label, sizeof d->pred_label, "%s", model_describe(d->model));
	if (d->g->n_configs <= 0) {
		snprintf(d->pred_error, sizeof d->pred_error, "no configs");
		return NULL;
	}
	if (tui_doc_configs_loaded(d, &err) < 0 || !(d->pred = calloc(1, sizeof *d->pred)) ||
	    predictor_from_model(d->pred, d->model, d->g, &err) < 0) {
		snprintf(d->pred_error, sizeof d->pred_error, "%s", d->pred ? err.msg : "out of memory");
		free(d->pred);
		d->pred = NULL;
	}
	return d->pred;
}

int tui_doc_fit(tui_doc *d, double fraction, hs_error *err)
{
	predictor *p;

	if (tui_doc_configs_loaded(d, err) < 0)
		return -1;
	if (!(p = calloc(1, sizeof *p)))
		return hs_fail(err, HS_ENOMEM, "out of memory fitting");
	if (predictor_from_fit(p, d->g, fraction, 1, err) < 0) {
		free(p);
		return -1;
	}
	tui_doc_fit_off(d);
	d->fit = p;
	return 0;
}

void tui_doc_fit_off(tui_doc *d)
{
	if (d->fit)
		predictor_free(d->fit);
	free(d->fit);
	d->fit = NULL;
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

int64_t tui_doc_node_arg(struct tui *t, const tui_doc *d, const char *what, const char *arg)
{
	int64_t id;
	char near[160];

	if (hs_parse_i64(arg, &id) == 0) {
		if (id >= 0 && id < d->g->n_nodes)
			return id;
	} else if (arg && arg[0] && (id = graph_find_node(d->g, arg)) >= 0) {
		return id;
	}
	if (arg && arg[0] && hs_parse_i64(arg, &id) != 0 && query_suggest_node(d->g, arg, near, sizeof near))
		tui_message(t, 1, "%s: no node '%s' (did you mean '%s'?)", what, arg, near);
	else
		tui_message(t, 1, "%s: no node '%s' (ids are 0..%lld, or a name such as %s)", what, arg ? arg : "",
			    (long long)d->g->n_nodes - 1,
			    d->g->n_nodes ? graph_node_name(d->g, 0, (char[64]){0}, 64) : "add.1");
	return -1;
}

int tui_doc_is_module(const tui_doc *d)
{
	return d->g->module && d->g->n_configs == 0;
}

/* By the learned opcode id: from HLO input it is already the written name's
 * id (the featurizer maps names exactly), 0 for a name not in the list. */
int tui_node_class(const hs_graph *g, int64_t v)
{
	return TUI_C_CAT + (int)hlo_opcode_category(g->opcode[v]);
}

const char *tui_hcomp_label(const hs_graph *g, int64_t c, char *buf, size_t cap)
{
	char nb[64], sb[TUI_NAME_MAX * 4 + 8];
	snprintf(buf, cap, "%s (%s)", tui_name(graph_hcomp_name(g, c, nb, sizeof nb), sb, sizeof sb),
		 graph_role_name(g->hcomps[c].role));
	return buf;
}
