/* cmd_configs.c - the query commands about configs: `configs` (measured and
 * predicted runtimes with their ranks), `config N` (one config's values)
 * and `compare A B` (two configs side by side, through model/compare.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "query/commands.h"

/* ---- configs ------------------------------------------------------------ */

/* The default columns of `configs`: config, runtime, runtime_rank, and the
 * predictions when with_pred; their count or -1. */
static int default_config_cols(query_parser *p, query_colspec *cols, int with_pred)
{
	static const char *const names[] = {"config", "runtime", "runtime_rank", "predicted",
					    "predicted_rank"};
	int n = 0;

	for (int i = 0; i < (with_pred ? 5 : 3); i++, n++) {
		cols[n].name = names[i];
		cols[n].e = query_field_expr(p, QS_CONFIG, names[i]);
		if (!cols[n].e)
			return query_oom(p);
	}
	return n;
}

int query_cmd_configs(query_parser *p, query_result *out)
{
	static query_clauses zero;
	query_clauses *c = malloc(sizeof *c);
	hs_graph *g = p->s->g;
	query_colspec *cols = calloc(QUERY_MAX_COLS + 1, sizeof *cols);
	int ncols = 0, rc = -1;
	int64_t *ids = NULL, n = 0;
	hs_error perr;
	char *why = NULL;

	if (!c || !cols) {
		free(c);
		free(cols);
		return query_oom(p);
	}
	*c = zero;
	p->scope = QS_CONFIG;
	if (query_parse_clauses(p, c, 1, "where, sort by, limit or show") < 0)
		goto done;
	/* predicted is shown when it can be computed; asked for, it must be.
	 * Over a folder it is shown when asked for. */
	int fold = p->s->ix || p->plan_only, have_pred = !p->s->ix;
	if (!fold) {
		hs_error_clear(&perr);
		have_pred = query_need_predicted(p->s, &perr) == 0;
		if (!have_pred)
			why = strdup(perr.msg);
	}
	if (c->star)
		ncols = query_all_cols(p, QS_CONFIG, cols, QUERY_MAX_COLS);
	else if (c->nshow > 0) {
		memcpy(cols, c->show, (size_t)c->nshow * sizeof *cols);
		ncols = c->nshow;
	} else
		ncols = default_config_cols(p, cols, have_pred);
	if (ncols < 0)
		goto done;
	if (c->sort && c->nshow < 0 && !c->star && !query_has_col(cols, ncols, c->sort)) {
		cols[ncols].e = c->sort;
		cols[ncols].name = query_expr_source(p, c->sort);
		ncols++;
	}
	if (fold) {
		rc = query_fold_rows(p, out, c, cols, ncols, QS_CONFIG, "config");
		goto done;
	}
	ids = query_filter_rows(p, c->where, g->n_configs, &n);
	if (!ids)
		goto done;
	if (c->sort && query_sort_ids(p, ids, n, c->sort, c->desc) < 0)
		goto done;
	int64_t shown = c->limit >= 0 && c->limit < n ? c->limit : n;
	if (query_emit_rows(p, out, QS_CONFIG, cols, ncols, ids, shown, NULL, NULL) < 0)
		goto done;
	int64_t best = graph_best_config(g);
	char extra[512] = "";
	if (!g->labeled)
		snprintf(extra, sizeof extra, "; runtimes hidden (test file)");
	else
		snprintf(extra, sizeof extra, "; fastest measured: config %lld", (long long)best);
	if (have_pred)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; predicted by %s (%s%s)",
			 p->s->active->label, predictor_time_kind(p->s->active) ? "times: " : "scores",
			 predictor_time_kind(p->s->active) ? predictor_time_kind(p->s->active) : "");
	else if (why)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; %s", why);
	out->note = query_count_note(n, g->n_configs, shown, "config", c->where != NULL, extra);
	rc = 0;
done:
	free(why);
	free(ids);
	free(cols);
	free(c);
	return rc;
}

int query_cmd_config(query_parser *p, query_result *out)
{
	hs_graph *g = p->s->g;
	size_t pos = query_peek(p)->pos;
	long long k = query_parse_count(p, "a config index");
	query_tb b;
	char rt[64] = "hidden";

	if (k < 0 || query_expect_end(p, "end of line after the config index") < 0)
		return -1;
	if (k >= g->n_configs)
		return query_fail_at(p, pos, "config %lld at column %zu is out of range (the graph "
				     "has %lld config%s, 0..%lld)", k, pos + 1,
				     (long long)g->n_configs, hs_s(g->n_configs), (long long)g->n_configs - 1);
	if (g->labeled && g->kind == HS_KIND_TILE)   /* normalized, without a unit */
		hs_num_short(rt, sizeof rt, g->runtime[k]);
	else if (g->labeled)
		hs_unit_format(rt, sizeof rt, HS_U_NS, g->runtime[k], -1);

	if (g->kind == HS_KIND_TILE) {
		static const char *const names[] = {"feature", "value"};
		query_type types[2] = {QUERY_TEXT, QUERY_NUM};
		if (query_tb_init(&b, out, 2, names, types, p->err) < 0)
			goto fail;
		for (int j = 0; j < g->config_width; j++) {
			int64_t row = query_tb_row(&b, -1, k, p->err);
			if (row < 0 ||
			    query_tb_text(&b, row, 0, hlo_tile_config_name(j, g->config_width),
					  p->err) < 0)
				goto fail;
			query_tb_num(&b, row, 1,
				     g->config_feat[(size_t)k * (size_t)g->config_width + (size_t)j]);
		}
		query_tb_done(&b);
		out->note = query_asprintf("config %lld of %lld; runtime %s (normalized)", k,
					   (long long)g->n_configs, rt);
		return 0;
	}
	if (graph_load_node_configs(g, p->err) < 0)
		return query_data_fail(p, p->err);
	const char *names[3 + 64];
	query_type types[3 + 64];
	int w = g->ncf_width > 64 ? 64 : g->ncf_width;
	names[0] = "node";
	names[1] = "opcode";
	names[2] = "shape";
	types[0] = QUERY_NUM;
	types[1] = types[2] = QUERY_TEXT;
	for (int j = 0; j < w; j++) {
		names[3 + j] = hlo_layout_config_name(j, g->ncf_width);
		types[3 + j] = QUERY_NUM;
	}
	if (query_tb_init(&b, out, 3 + w, names, types, p->err) < 0 ||
	    query_tb_reserve(&b, (size_t)g->n_cfg_nodes, p->err) < 0)
		goto fail;
	for (int64_t i = 0; i < g->n_cfg_nodes; i++) {
		int64_t v = g->cfg_node_ids[i];
		int64_t row = query_tb_row(&b, v, k, p->err);
		if (row < 0)
			goto fail;
		query_tb_num(&b, row, 0, (double)v);
		if (v >= 0 && v < g->n_nodes) {
			if (query_tb_text(&b, row, 1, query_opcode_text(p->s, v), p->err) < 0 ||
			    query_tb_text(&b, row, 2, query_shape_text(p->s, v), p->err) < 0)
				goto fail;
		}
		for (int j = 0; j < w; j++)
			query_tb_num(&b, row, 3 + j, graph_ncf(g, k, i, j));
	}
	query_tb_done(&b);
	if (query_need_predicted(p->s, NULL) == 0)
		out->note = query_asprintf("config %lld of %lld; runtime %s; predicted rank %.0f",
					   k, (long long)g->n_configs, rt, (double)p->s->active->rank[k]);
	else
		out->note = query_asprintf("config %lld of %lld; runtime %s", k,
					   (long long)g->n_configs, rt);
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

int query_cmd_compare(query_parser *p, query_result *out)
{
	char *sel[2];
	size_t pos[2];
	compare_opts o;
	FILE *f;
	hs_strbuf text = {0};

	for (int i = 0; i < 2; i++) {
		const query_token *t = query_peek(p);
		pos[i] = t->pos;
		if (t->kind == TK_NUM || t->kind == TK_WORD) {
			sel[i] = hs_arena_strndup(&p->arena, p->src + t->pos, t->len);
			if (!sel[i])
				return query_oom(p);
			query_advance(p);
		} else {
			return query_fail_expected(p, i ? "config B (an index, best, worst or default)"
							 : "config A (an index, best, worst or default)");
		}
	}
	compare_opts_init(&o);
	o.model = p->s->model;
	if (!p->s->ix && !p->plan_only && query_need_predicted(p->s, NULL) == 0)
		o.pred_a = o.pred_b = p->s->active; /* the session's: a fit in the explorer */
	while (query_peek(p)->kind != TK_END && !p->failed) {
		if (query_accept_kw(p, "all")) {
			o.all = 1;
		} else if (query_accept_kw(p, "sort")) {
			if (!query_accept_kw(p, "by"))
				return query_fail_expected(p, "'by' after 'sort'");
			const query_token *t = query_peek(p);
			int s = t->kind == TK_WORD ? compare_sort_parse(t->str) : -1;
			if (s < 0)
				return query_fail_expected(p, "id or contribution");
			o.sort = (compare_sort)s;
			query_advance(p);
		} else {
			return query_fail_expected(p, "all, sort by or end of line");
		}
	}
	if (p->failed)
		return -1;
	for (int i = 0; i < 2; i++) {
		hs_error e;
		hs_error_clear(&e);
		if (compare_resolve(p->s->g, sel[i], i ? "B" : "A", &e) < 0) {
			if (e.status == HS_EUSAGE)
				return query_fail_at(p, pos[i], "%s (column %zu)", e.msg, pos[i] + 1);
			return query_data_fail(p, &e);
		}
	}
	if (!(f = hs_strbuf_open(&text)))
		return query_oom(p);
	int rc = compare_write(f, p->s->g, NULL, sel[0], sel[1], &o, COMPARE_TEXT, p->err);
	if (fclose(f) != 0 && rc == 0) {
		hs_strbuf_free(&text);
		return query_oom(p);
	}
	if (rc < 0) {
		hs_strbuf_free(&text);
		return query_data_fail(p, p->err);
	}
	out->kind = QUERY_BLOCK;
	out->text = hs_strbuf_take(&text);
	return out->text ? 0 : query_oom(p);
}
