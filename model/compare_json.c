/* compare_json.c - a comparison as one JSON document, the one that
 * compare_print(..., COMPARE_JSON) writes (see compare.h).  Its keys:
 *
 *   kind                  "layout" | "tile"
 *   file_a, file_b        paths (the same file twice for one file)
 *   config_a, config_b    indices; selector_a, selector_b as given
 *   labeled_a, labeled_b  false for a test-split file (runtimes hidden)
 *   runtime_a, runtime_b  measured (layout ns, tile normalized); null when hidden
 *   runtime_raw_a/_b      config_runtime as stored (ns); null when hidden
 *   runtime_ratio         runtime_b / runtime_a; null when hidden
 *   rank_a, rank_b        1 = fastest in its file (ties share a rank); null when hidden
 *   configs_a, configs_b  number of configs in each file
 *   runtime_note          why runtimes are hidden (only then)
 *   predictor             model_describe(): "analytic estimate", ...
 *   prediction_unit       "ns", "normalized" (tile times) or "score"
 *   time_kind             "estimate", "calibrated", "learned" (predictor.h);
 *                         null for scores: the time predict --json gives
 *   predicted_a/_b, predicted_rank_a/_b, predicted_diff (B - A)   null when absent
 *   predicted_ratio       B / A; null also when a score is not positive
 *                         (learned heads give unitless scores)
 *   prediction_error      why predictions are absent (only then)
 *   summary               the summary line
 * layout:
 *   configurable_nodes, differing_count
 *   differing_opcodes     {"convolution": 43, ...}
 *   differing_computations [{"computation": "computation.61", "count": 40}, ...]
 *                         (HLO computations by name)
 *   differing_splits      [{"split": 0, "count": 40}, ...] (node_splits segments)
 *   mismatches_a/_b       layout mismatches between configurable neighbours
 *   contribution_note     why contributions are absent (only then)
 *   contribution_unit     "ns" (of the predicted times) or "score"
 *   contribution_total    sum of every configurable node's part (= predicted
 *                         B - A), contribution_differing that of the
 *                         differing nodes (only with contributions)
 *   value_names           the names of the values in "a" and "b"
 *   differing_nodes       [{"id", "name", "opcode" (as written), "op_name" (null
 *                           when the file has no metadata), "computation" (its
 *                           HLO computation's name), "split", "shape", "a": [..],
 *                           "b": [..], "changed": [value indices],
 *                           "contribution" (null when absent),
 *                           "operands": [neighbour], "users": [neighbour],
 *                           "more_operands", "more_users"}]
 *                         neighbour: {"id", "name", "opcode", "hops", "slot",
 *                           "layout": "output"|"input"|"kernel" (the
 *                           neighbour's layout facing this node),
 *                           "layout_a", "layout_b", "comparable",
 *                           "mismatch_a", "mismatch_b" (null = unknown)}
 *   unchanged_nodes       with --all: the same objects for the other nodes
 * tile:
 *   values                [{"index", "name", "a", "b", "differs"}] (all 24)
 *   differing_values      [{"index", "name", "a", "b"}]
 *   kernel_nodes          [{"id", "name", "opcode", "op_name", "shape"}]
 */
#include <math.h>
#include <stdio.h>

#include "base/jsonw.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "model/compare_impl.h"

static void j_num_or_null(jsonw *w, const char *key, int present, double v)
{
	jsonw_key(w, key);
	if (present && isfinite(v))
		jsonw_num(w, v);
	else
		jsonw_null(w);
}

static void j_int_or_null(jsonw *w, const char *key, int present, int64_t v)
{
	jsonw_key(w, key);
	if (present)
		jsonw_int(w, v);
	else
		jsonw_null(w);
}

/* A short array on one line inside a pretty document. */
static void j_values(jsonw *w, const char *key, const float *v, int n)
{
	int pretty = w->pretty;
	jsonw_key(w, key);
	w->pretty = 0;
	jsonw_arr_begin(w);
	for (int j = 0; j < n; j++) {
		if (v[j] == (float)(int64_t)v[j] && fabsf(v[j]) < 1e15f)
			jsonw_int(w, (int64_t)v[j]);
		else
			jsonw_num(w, v[j]);
	}
	jsonw_arr_end(w);
	w->pretty = pretty;
}

static void j_mismatch(jsonw *w, const char *key, int m)
{
	jsonw_key(w, key);
	if (m < 0)
		jsonw_null(w);
	else
		jsonw_bool(w, m);
}

/* "op_name": the node's metadata, null when the file has none. */
static void j_op_name(jsonw *w, const hs_graph *g, int64_t v)
{
	char buf[1024];
	const char *s = graph_node_text(g, v, HS_HF_OP_NAME, buf, sizeof buf);

	jsonw_key(w, "op_name");
	if (*s)
		jsonw_str(w, s);
	else
		jsonw_null(w);
}

static void j_neighbors(jsonw *w, const compare_result *r, const compare_row *rw, int side)
{
	const hs_graph *g = r->ga, *gb = r->gb;
	char name[256];
	jsonw_key(w, side == COMPARE_OPERAND ? "operands" : "users");
	jsonw_arr_begin(w);
	for (int k = 0; k < rw->n_nb; k++) {
		const compare_neighbor *nb = &rw->nb[k];
		if (nb->side != side)
			continue;
		int grp = compare_facing_group(g, nb);
		float va[LAYOUT_GROUP], vb[LAYOUT_GROUP];
		for (int j = 0; j < LAYOUT_GROUP; j++) {
			va[j] = graph_ncf(g, r->A.config, g->cfg_index[nb->node], grp * LAYOUT_GROUP + j);
			vb[j] = graph_ncf(gb, r->B.config, gb->cfg_index[nb->node], grp * LAYOUT_GROUP + j);
		}
		jsonw_obj_begin(w);
		jsonw_key(w, "id"), jsonw_int(w, nb->node);
		jsonw_key(w, "name"), jsonw_str(w, graph_node_name(g, nb->node, name, sizeof name));
		jsonw_key(w, "opcode"), jsonw_str(w, graph_node_opcode_name(g, nb->node));
		jsonw_key(w, "hops"), jsonw_int(w, nb->hops);
		jsonw_key(w, "slot"), jsonw_int(w, nb->slot);
		jsonw_key(w, "layout"), jsonw_str(w, compare_group_name(grp));
		j_values(w, "layout_a", va, LAYOUT_GROUP);
		j_values(w, "layout_b", vb, LAYOUT_GROUP);
		jsonw_key(w, "comparable"), jsonw_bool(w, nb->comparable);
		j_mismatch(w, "mismatch_a", nb->mismatch_a);
		j_mismatch(w, "mismatch_b", nb->mismatch_b);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void j_rows(jsonw *w, const compare_result *r, const char *key, int differs)
{
	const hs_graph *g = r->ga;
	char sh[256], name[256];
	hlo_shape s;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (int64_t i = 0; i < r->n_rows; i++) {
		const compare_row *rw = &r->rows[i];
		if (rw->differs != differs)
			continue;
		hlo_decode_shape(graph_feat(g, rw->node), g->feat_width, &s);
		hlo_shape_text(&s, sh, sizeof sh);
		jsonw_obj_begin(w);
		jsonw_key(w, "id"), jsonw_int(w, rw->node);
		jsonw_key(w, "name"), jsonw_str(w, graph_node_name(g, rw->node, name, sizeof name));
		jsonw_key(w, "opcode"), jsonw_str(w, graph_node_opcode_name(g, rw->node));
		j_op_name(w, g, rw->node);
		jsonw_key(w, "computation"), jsonw_str(w, graph_hcomp_name(g, rw->hcomp, name, sizeof name));
		jsonw_key(w, "split"), jsonw_int(w, rw->comp);
		jsonw_key(w, "shape"), jsonw_str(w, sh);
		j_values(w, "a", rw->a, r->width);
		j_values(w, "b", rw->b, r->width);
		int pretty = w->pretty;
		jsonw_key(w, "changed");
		w->pretty = 0;
		jsonw_arr_begin(w);
		for (int j = 0; j < r->width; j++)
			if (rw->changed[j])
				jsonw_int(w, j);
		jsonw_arr_end(w);
		w->pretty = pretty;
		j_num_or_null(w, "contribution", 1, rw->contribution);
		if (r->width == HLO_LAYOUT_CONFIG_FEATURES) {
			j_neighbors(w, r, rw, COMPARE_OPERAND);
			j_neighbors(w, r, rw, COMPARE_USER);
			jsonw_key(w, "more_operands"), jsonw_int(w, rw->more_operands);
			jsonw_key(w, "more_users"), jsonw_int(w, rw->more_users);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* What both kinds share: the files, the configs, their runtimes and ranks,
 * the predictions and the one-line summary. */
static void j_header(jsonw *w, const compare_result *r)
{
	char buf[1024];
	const hs_graph *ga = r->ga, *gb = r->gb;

	jsonw_key(w, "kind"), jsonw_str(w, graph_kind_name(r->kind));
	jsonw_key(w, "file_a"), jsonw_str(w, ga->path);
	jsonw_key(w, "file_b"), jsonw_str(w, gb->path);
	jsonw_key(w, "config_a"), jsonw_int(w, r->A.config);
	jsonw_key(w, "config_b"), jsonw_int(w, r->B.config);
	jsonw_key(w, "selector_a"), jsonw_str(w, r->A.selector);
	jsonw_key(w, "selector_b"), jsonw_str(w, r->B.selector);
	jsonw_key(w, "labeled_a"), jsonw_bool(w, r->A.labeled);
	jsonw_key(w, "labeled_b"), jsonw_bool(w, r->B.labeled);
	j_num_or_null(w, "runtime_a", r->A.labeled, r->A.runtime);
	j_num_or_null(w, "runtime_b", r->B.labeled, r->B.runtime);
	j_int_or_null(w, "runtime_raw_a", r->A.labeled, r->A.runtime_raw);
	j_int_or_null(w, "runtime_raw_b", r->B.labeled, r->B.runtime_raw);
	j_num_or_null(w, "runtime_ratio", 1, r->runtime_ratio);
	j_int_or_null(w, "rank_a", r->A.labeled, r->A.rank);
	j_int_or_null(w, "rank_b", r->B.labeled, r->B.rank);
	jsonw_key(w, "configs_a"), jsonw_int(w, r->A.n_configs);
	jsonw_key(w, "configs_b"), jsonw_int(w, r->B.n_configs);
	if (!r->A.labeled || !r->B.labeled) {
		snprintf(buf, sizeof buf, "runtimes hidden: %s is unlabeled (a test-split file: every runtime is 0)",
			 compare_file_label(!r->A.labeled ? ga : gb));
		jsonw_key(w, "runtime_note"), jsonw_str(w, buf);
	}
	int pred = !r->pred_error[0];
	jsonw_key(w, "predictor"), jsonw_str(w, r->pred_label);
	jsonw_key(w, "prediction_unit");
	if (pred)
		jsonw_str(w, r->pred_ns ? "ns" : r->time_kind ? "normalized" : "score");
	else
		jsonw_null(w);
	jsonw_key(w, "time_kind");
	if (pred && r->time_kind)
		jsonw_str(w, r->time_kind);
	else
		jsonw_null(w);
	j_num_or_null(w, "predicted_a", pred, r->A.predicted);
	j_num_or_null(w, "predicted_b", pred, r->B.predicted);
	j_num_or_null(w, "predicted_ratio", pred, r->predicted_ratio);
	j_num_or_null(w, "predicted_diff", pred, r->predicted_diff);
	j_int_or_null(w, "predicted_rank_a", pred, r->A.pred_rank);
	j_int_or_null(w, "predicted_rank_b", pred, r->B.pred_rank);
	if (!pred)
		jsonw_key(w, "prediction_error"), jsonw_str(w, r->pred_error);
	compare_summary(r, buf, sizeof buf);
	jsonw_key(w, "summary"), jsonw_str(w, buf);
}

/* Layout: the differing nodes by opcode and computation, the contributions,
 * the rows of the differing (and with `all`, the unchanged) nodes. */
static void j_layout(jsonw *w, const compare_result *r, int all)
{
	jsonw_key(w, "configurable_nodes"), jsonw_int(w, r->n_cfg);
	jsonw_key(w, "differing_count"), jsonw_int(w, r->n_differ);
	jsonw_key(w, "differing_opcodes");
	jsonw_obj_begin(w);
	for (int i = 0; i < r->n_opcodes; i++) {
		jsonw_key(w, hlo_opcode_name((int)r->opcodes[i].key));
		jsonw_int(w, r->opcodes[i].count);
	}
	jsonw_obj_end(w);
	jsonw_key(w, "differing_computations");
	jsonw_arr_begin(w);
	for (int i = 0; i < r->n_hcomps; i++) {
		char name[160];
		int pretty = w->pretty;
		w->pretty = 0;
		jsonw_obj_begin(w);
		jsonw_key(w, "computation");
		jsonw_str(w, graph_hcomp_name(r->ga, r->hcomps[i].key, name, sizeof name));
		jsonw_key(w, "count"), jsonw_int(w, r->hcomps[i].count);
		jsonw_obj_end(w);
		w->pretty = pretty;
	}
	jsonw_arr_end(w);
	jsonw_key(w, "differing_splits");
	jsonw_arr_begin(w);
	for (int i = 0; i < r->n_comps; i++) {
		int pretty = w->pretty;
		w->pretty = 0;
		jsonw_obj_begin(w);
		jsonw_key(w, "split"), jsonw_int(w, r->comps[i].key);
		jsonw_key(w, "count"), jsonw_int(w, r->comps[i].count);
		jsonw_obj_end(w);
		w->pretty = pretty;
	}
	jsonw_arr_end(w);
	jsonw_key(w, "mismatches_a"), jsonw_int(w, r->A.mismatches);
	jsonw_key(w, "mismatches_b"), jsonw_int(w, r->B.mismatches);
	if (!r->has_contribution) {
		jsonw_key(w, "contribution_note"), jsonw_str(w, r->contrib_note);
	} else {
		jsonw_key(w, "contribution_unit"), jsonw_str(w, isnan(r->contrib_scale) ? "score" : "ns");
		jsonw_key(w, "contribution_total"), jsonw_num(w, r->contrib_total);
		jsonw_key(w, "contribution_differing"), jsonw_num(w, r->contrib_differ);
	}
	jsonw_key(w, "value_names");
	int pretty = w->pretty;
	w->pretty = 0;
	jsonw_arr_begin(w);
	for (int j = 0; j < r->width; j++)
		jsonw_str(w, hlo_layout_config_name(j, r->width));
	jsonw_arr_end(w);
	w->pretty = pretty;
	j_rows(w, r, "differing_nodes", 1);
	if (all)
		j_rows(w, r, "unchanged_nodes", 0);
}

/* Tile: the config values side by side, those that differ, the kernel's
 * nodes. */
/* The members every entry of a tile config value has: index, name, a, b. */
static void j_tile_value(jsonw *w, const compare_result *r, int j)
{
	jsonw_key(w, "index"), jsonw_int(w, j);
	jsonw_key(w, "name"), jsonw_str(w, hlo_tile_config_name(j, r->width));
	jsonw_key(w, "a"), jsonw_num(w, r->tile_a[j]);
	jsonw_key(w, "b"), jsonw_num(w, r->tile_b[j]);
}

static void j_tile(jsonw *w, const compare_result *r)
{
	const hs_graph *ga = r->ga;
	char sh[256], name[256];
	hlo_shape s;

	jsonw_key(w, "values");
	jsonw_arr_begin(w);
	for (int j = 0; j < r->width; j++) {
		jsonw_obj_begin(w);
		j_tile_value(w, r, j);
		jsonw_key(w, "differs"), jsonw_bool(w, r->tile_changed[j]);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "differing_values");
	jsonw_arr_begin(w);
	for (int j = 0; j < r->width; j++) {
		if (!r->tile_changed[j])
			continue;
		jsonw_obj_begin(w);
		j_tile_value(w, r, j);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "kernel_nodes");
	jsonw_arr_begin(w);
	for (int64_t i = 0; i < ga->n_nodes; i++) {
		hlo_decode_shape(graph_feat(ga, i), ga->feat_width, &s);
		hlo_shape_text(&s, sh, sizeof sh);
		jsonw_obj_begin(w);
		jsonw_key(w, "id"), jsonw_int(w, i);
		jsonw_key(w, "name"), jsonw_str(w, graph_node_name(ga, i, name, sizeof name));
		jsonw_key(w, "opcode"), jsonw_str(w, graph_node_opcode_name(ga, i));
		j_op_name(w, ga, i);
		jsonw_key(w, "shape"), jsonw_str(w, sh);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

int compare_print_json(FILE *out, const compare_result *r, int all, hs_error *err)
{
	jsonw w;

	jsonw_init(&w, out, 1);
	jsonw_obj_begin(&w);
	j_header(&w, r);
	if (r->kind == HS_KIND_LAYOUT)
		j_layout(&w, r, all);
	else
		j_tile(&w, r);
	jsonw_obj_end(&w);
	return jsonw_finish(&w, err);
}
