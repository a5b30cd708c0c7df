/* cmd_count.c - `count by`: how many nodes (or configs) have each value.
 *
 * A fold (query_fold): each graph counts its rows by value into a tally of
 * its own (query_tally: text keys copied, so it outlives the graph), the
 * tallies are added up in path order, and the sum is sorted once: the
 * counts over a folder are exact and do not depend on the thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "query/commands.h"

struct groups {
	query_tally t;
	int64_t rows;      /* rows counted (that matched `where`) */
	int64_t total;     /* rows looked at */
};

static void groups_free(void *part)
{
	query_tally_free(&((struct groups *)part)->t);
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const query_tally_item *x = a, *y = b;
	int text = *(const int *)arg;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (text)
		return strcmp(x->text, y->text);
	if (isnan(x->num) || isnan(y->num))
		return isnan(x->num) - isnan(y->num);
	return (x->num > y->num) - (x->num < y->num);
}

/* ---- parse ----------------------------------------------------------- */

struct count_plan {
	query_expr *by, *where;
	long long limit;
	int configs;
};

/* count by EXPR [where EXPR] [limit N], after "count". */
static int parse_count(query_parser *p, struct count_plan *pl)
{
	pl->limit = -1;
	if (!query_accept_kw(p, "by"))
		return query_fail_expected(p, "'by' after 'count'");
	p->scope = QS_AUTO;
	pl->by = query_parse_expr(p);
	if (!pl->by)
		return -1;
	while (query_peek(p)->kind != TK_END && !p->failed) {
		size_t pos = query_peek(p)->pos;
		if (query_accept_kw(p, "where")) {
			if (pl->where)
				return query_dup_clause(p, pos, "where");
			pl->where = query_parse_expr(p);
			if (!pl->where || query_need_bool(p, pl->where, "where") < 0)
				return -1;
		} else if (query_accept_kw(p, "limit")) {
			if (pl->limit >= 0)
				return query_dup_clause(p, pos, "limit");
			pl->limit = query_parse_count(p, "a row count after 'limit'");
			if (pl->limit < 0)
				return -1;
		} else {
			return query_fail_expected(p, "where or limit");
		}
	}
	pl->configs = p->scope == QS_CONFIG;
	return p->failed ? -1 : 0;
}

/* ---- one graph ------------------------------------------------------- */

/* Counts the graph's rows that match `where` by the value of `by`. */
static int count_run(query_parser *ctx, const void *plan, void *part)
{
	const struct count_plan *pl = plan;
	struct groups *gs = part;
	const hs_graph *g = ctx->s->g;
	int64_t total = pl->configs ? g->n_configs : g->n_nodes, n = 0;
	int64_t *ids = query_filter_rows(ctx, pl->where, total, &n);
	int rc = -1;

	if (!ids)
		return -1;
	gs->t.text = pl->by->type == QUERY_TEXT;
	gs->rows = n;
	gs->total = total;
	if (query_prepare(ctx->s, pl->by, ctx->err) < 0) {
		query_data_fail(ctx, ctx->err);
		goto done;
	}
	if (pl->by->kind == QE_FIELD &&
	    (pl->by->field->kind == QF_OPCODE || pl->by->field->kind == QF_OPCODE_ID)) {
		/* The common case, without hashing rows: bucket by opcode id. */
		int64_t counts[256] = {0};
		for (int64_t i = 0; i < n; i++)
			counts[g->opcode[ids[i]]]++;
		for (int op = 0; op < 256; op++) {
			if (!counts[op])
				continue;
			if (op == 0 && gs->t.text) {
				/* not learned: by the name as written */
				for (int64_t i = 0; i < n; i++)
					if (g->opcode[ids[i]] == 0 &&
					    query_tally_add(&gs->t, 0, query_opcode_text(ctx->s, ids[i]), 1) < 0)
						goto oom;
				continue;
			}
			if (query_tally_add(&gs->t, (double)op, gs->t.text ? ctx->s->opcode_names[op] : NULL,
					    counts[op]) < 0)
				goto oom;
		}
	} else {
		for (int64_t i = 0; i < n; i++)
			if (gs->t.text ? query_tally_add(&gs->t, 0, query_eval_text(ctx->s, pl->by, ids[i]), 1) < 0
				       : query_tally_add(&gs->t, query_eval_num(ctx->s, pl->by, ids[i]), NULL, 1) < 0)
				goto oom;
	}
	rc = 0;
	goto done;
oom:
	query_oom(ctx);
done:
	free(ids);
	return rc;
}

static int count_merge(const void *plan, void *acc, void *part, hs_error *err)
{
	struct groups *a = acc, *b = part;

	a->t.text = b->t.text;
	a->rows += b->rows;
	a->total += b->total;
	for (size_t i = 0; i < b->t.v.n; i++) {
		const query_tally_item *it = &b->t.v.v[i];
		if (query_tally_add(&a->t, it->num, it->text, it->count) < 0)
			return hs_fail(err, HS_ENOMEM, "out of memory counting values");
	}
	return 0;
}

static const query_fold_ops count_ops = {sizeof(struct groups), count_run, count_merge, groups_free};

/* ---- the table ------------------------------------------------------- */

/* value, count, share of the first `shown` groups (sorted) of gs. */
static int count_table(query_parser *p, query_result *out, const query_expr *by,
		       const struct groups *gs, size_t shown)
{
	const char *names[3] = {query_expr_source(p, by), "count", "share"};
	query_type types[3] = {by->type, QUERY_NUM, QUERY_NUM};
	int64_t n = gs->rows;
	query_tb b;

	if (query_tb_init(&b, out, 3, names, types, p->err) < 0 ||
	    query_tb_reserve(&b, shown, p->err) < 0)
		goto fail;
	for (size_t i = 0; i < shown; i++) {
		int64_t row = query_tb_row(&b, -1, -1, p->err);
		const query_tally_item *it = &gs->t.v.v[i];
		if (row < 0 || (gs->t.text && query_tb_text(&b, row, 0, it->text, p->err) < 0))
			goto fail;
		if (!gs->t.text)
			query_tb_num(&b, row, 0, it->num);
		query_tb_num(&b, row, 1, (double)it->count);
		query_tb_num(&b, row, 2, n ? (double)it->count / (double)n : NAN);
	}
	query_tb_done(&b);
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

int query_cmd_count(query_parser *p, query_result *out)
{
	struct count_plan pl = {0};
	struct groups acc = {0};
	query_fold_info fi;
	int rc = -1;

	if (parse_count(p, &pl) < 0)
		return -1;
	unsigned parts = query_expr_parts(pl.by) | query_expr_parts(pl.where);
	if (pl.configs)
		parts |= GRAPH_PART_RUNTIMES;
	acc.t.text = pl.by->type == QUERY_TEXT;
	int f = query_fold(p, &count_ops, &pl, parts, &acc, out, &fi);
	if (f != 0) {
		rc = f < 0 ? -1 : 0;
		goto done;
	}
	size_t k = acc.t.v.n;
	query_tally_sort(&acc.t, cmp_group, &acc.t.text);
	size_t shown = pl.limit >= 0 && (size_t)pl.limit < k ? (size_t)pl.limit : k;
	if (count_table(p, out, pl.by, &acc, shown) < 0)
		goto done;
	const char *what = pl.configs ? "config" : "node";
	if (fi.folder)
		out->note = query_asprintf("%zu distinct value%s over %lld %s%s in %lld graph%s%s", k,
					   hs_s(k), (long long)acc.rows, what,
					   hs_s(acc.rows), (long long)fi.graphs,
					   hs_s(fi.graphs), shown < k ? ", most frequent shown" : "");
	else
		out->note = query_asprintf("%zu distinct value%s over %lld %s%s%s", k, hs_s(k),
					   (long long)acc.rows, what, hs_s(acc.rows),
					   shown < k ? ", most frequent shown" : "");
	rc = 0;
done:
	groups_free(&acc);
	return rc;
}
