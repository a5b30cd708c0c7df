/* cmd_nodes.c - `nodes`: the nodes that match, sorted, with the columns
 * asked for; over a folder, the nodes of every graph (query_fold), led by
 * their file, collection and split.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "query/commands.h"

/* What the rows of one graph need from the parse. */
struct rows_plan {
	const query_clauses *c;
	const query_colspec *cols;
	int ncols;
	int scope;   /* QS_NODE or QS_CONFIG */
};

static void rows_setup(const struct rows_plan *pl, query_rows *rs)
{
	rs->ncols = pl->ncols;
	rs->sorted = pl->c->sort != NULL;
	rs->text_key = pl->c->sort && pl->c->sort->type == QUERY_TEXT;
	rs->desc = pl->c->desc;
	rs->limit = pl->c->limit;
}

/* One graph's rows: filtered, sorted, the first `limit`. */
static int rows_run(query_parser *ctx, const void *plan, void *part)
{
	const struct rows_plan *pl = plan;
	query_rows *rs = part;
	const hs_graph *g = ctx->s->g;
	int64_t total = pl->scope == QS_CONFIG ? g->n_configs : g->n_nodes, n = 0;
	int64_t *ids;
	int rc = -1;

	rows_setup(pl, rs);
	ids = query_filter_rows(ctx, pl->c->where, total, &n);
	if (!ids)
		return -1;
	if (pl->c->sort && query_sort_ids(ctx, ids, n, pl->c->sort, pl->c->desc) < 0)
		goto done;
	int64_t shown = pl->c->limit >= 0 && pl->c->limit < n ? pl->c->limit : n;
	rs->matched = n;
	rs->total = total;
	rc = query_rows_from_ids(ctx, rs, pl->scope, pl->cols, pl->ncols, ids, shown, pl->c->sort);
	query_rows_units(rs, ctx->s, pl->cols, pl->ncols);
done:
	free(ids);
	return rc;
}

static int rows_merge(const void *plan, void *acc, void *part, hs_error *err)
{
	return query_rows_merge(acc, part, err);
}

static void rows_free(void *part)
{
	query_rows_free(part);
}

static const query_fold_ops rows_ops = {sizeof(query_rows), rows_run, rows_merge, rows_free};

int query_fold_rows(query_parser *p, query_result *out, const query_clauses *c,
		    const query_colspec *cols, int ncols, int scope, const char *what)
{
	struct rows_plan pl = {c, cols, ncols, scope};
	unsigned parts = query_expr_parts(c->where) | query_expr_parts(c->sort);
	query_rows acc = {0};
	query_fold_info fi;
	const char *names[QUERY_MAX_COLS + 1];
	query_type types[QUERY_MAX_COLS + 1];

	for (int i = 0; i < ncols; i++) {
		parts |= query_expr_parts(cols[i].e);
		names[i] = cols[i].name;
		types[i] = cols[i].e->type;
	}
	if (scope == QS_CONFIG)
		parts |= GRAPH_PART_RUNTIMES;
	rows_setup(&pl, &acc);
	int rc = query_fold(p, &rows_ops, &pl, parts, &acc, out, &fi);
	if (rc != 0) {
		query_rows_free(&acc);
		return rc < 0 ? -1 : 0;
	}
	if (query_rows_table(&acc, fi.folder, names, types, out, p->err) < 0) {
		query_rows_free(&acc);
		return query_data_fail(p, p->err);
	}
	char head[160], tail[160] = "";
	if (c->where)
		snprintf(head, sizeof head, "%lld of %lld %s%s match%s", (long long)acc.matched,
			 (long long)acc.total, what, hs_s(acc.total), hs_plural(acc.matched, "es", ""));
	else
		snprintf(head, sizeof head, "%lld %s%s", (long long)acc.matched, what, hs_s(acc.matched));
	if ((int64_t)acc.n < acc.matched)
		snprintf(tail, sizeof tail, ", first %zu shown", acc.n);
	if (fi.cut)
		snprintf(tail + strlen(tail), sizeof tail - strlen(tail),
			 "; limit reached after %lld of %lld file%s", (long long)(fi.graphs + out->nskipped),
			 (long long)fi.files, hs_s(fi.files));

	out->note = query_asprintf("%s in %lld graph%s%s", head, (long long)fi.graphs,
				   hs_s(fi.graphs), tail);
	query_rows_free(&acc);
	return 0;
}

int query_cmd_nodes(query_parser *p, query_result *out)
{
	static query_clauses zero;
	query_clauses *c = malloc(sizeof *c);
	query_colspec *cols = NULL;
	int64_t *ids = NULL, n = 0;
	int ncols, rc = -1;
	hs_graph *g = p->s->g;

	if (!c)
		return query_oom(p);
	*c = zero;
	if (query_parse_clauses(p, c, 1, "where, sort by, limit or show") < 0)
		goto done;
	cols = calloc(QUERY_MAX_COLS + 1, sizeof *cols);
	if (!cols) {
		query_oom(p);
		goto done;
	}
	if (c->star) {
		ncols = query_all_cols(p, QS_NODE, cols, QUERY_MAX_COLS);
	} else if (c->nshow > 0) {
		memcpy(cols, c->show, (size_t)c->nshow * sizeof *cols);
		ncols = c->nshow;
	} else {
		ncols = query_default_node_cols(p, cols);
		if (ncols >= 0 && c->sort && !query_has_col(cols, ncols, c->sort)) {
			cols[ncols].e = c->sort;
			cols[ncols].name = query_expr_source(p, c->sort);
			ncols++;
		}
	}
	if (ncols < 0)
		goto done;
	if (p->s->ix || p->plan_only) {
		rc = query_fold_rows(p, out, c, cols, ncols, QS_NODE, "node");
		goto done;
	}
	ids = query_filter_rows(p, c->where, g->n_nodes, &n);
	if (!ids)
		goto done;
	if (c->sort && query_sort_ids(p, ids, n, c->sort, c->desc) < 0)
		goto done;
	int64_t shown = c->limit >= 0 && c->limit < n ? c->limit : n;
	if (query_emit_rows(p, out, QS_NODE, cols, ncols, ids, shown, NULL, NULL) < 0)
		goto done;
	out->note = query_count_note(n, g->n_nodes, shown, "node", c->where != NULL, "");
	rc = 0;
done:
	free(ids);
	free(cols);
	free(c);
	return rc;
}
