/* cmd_stats.c - `stats`: count, min, max, mean, sum and the percentiles
 * numpy.percentile computes (linear interpolation) of number expressions.
 *
 * A fold (query_fold), exact over a folder: each graph keeps, per
 * expression, the count, a compensated (Neumaier) sum in row order, min,
 * max and every distinct value with its count; the graphs' parts add up in
 * path order, and the percentiles come from the sorted distinct values of
 * all rows, as numpy would find them in the whole array.  Memory is one
 * entry per distinct value, which for the dataset's integer features is
 * small whatever the number of rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "query/commands.h"

/* At most this many expressions in one `stats`. */
#define STATS_MAX 64
/* count, min, max, mean, sum, p25, p50, p75, p90, p99 */
#define STATS_NUMS 10

static int cmp_value(const void *a, const void *b, void *arg)
{
	double x = ((const query_tally_item *)a)->num, y = ((const query_tally_item *)b)->num;
	(void)arg;
	return (x > y) - (x < y);
}

/* numpy.percentile's linear method for qs[0..nq) (ascending) over the
 * values of m (`count` of them); sorts m (its last use). */
static void percentiles(query_tally *m, int64_t count, const double *qs, int nq, double *out)
{
	query_tally_sort(m, cmp_value, NULL);
	const query_tally_item *v = m->v.v;
	size_t at = 0;       /* v[at] holds the values of ranks [below, below + count) */
	int64_t below = 0;
	for (int i = 0; i < nq; i++) {
		if (count == 0) {
			out[i] = NAN;
			continue;
		}
		double h = (double)(count - 1) * qs[i] / 100.0;
		int64_t lo = (int64_t)floor(h);
		while (below + v[at].count <= lo)
			below += v[at++].count;
		double x = v[at].num, next = x;
		if (lo + 1 < count)
			next = lo + 1 < below + v[at].count ? x : v[at + 1].num;
		out[i] = lo + 1 < count ? x + (h - (double)lo) * (next - x) : x;
	}
}

/* ---- one expression's summary -------------------------------------- */

struct summary {
	int64_t count;
	double sum, comp; /* Neumaier: the sum is sum + comp */
	double lo, hi;
	query_tally vals;
};

static void neumaier(double *sum, double *comp, double x)
{
	double t = *sum + x;

	if (fabs(*sum) >= fabs(x))
		*comp += (*sum - t) + x;
	else
		*comp += (x - t) + *sum;
	*sum = t;
}

static int summary_add(struct summary *s, double x)
{
	if (isnan(x))
		return 0;
	neumaier(&s->sum, &s->comp, x);
	if (s->count == 0 || x < s->lo)
		s->lo = x;
	if (s->count == 0 || x > s->hi)
		s->hi = x;
	s->count++;
	return query_tally_add(&s->vals, x, NULL, 1);
}

static int summary_merge(struct summary *a, const struct summary *b)
{
	if (b->count == 0)
		return 0;
	neumaier(&a->sum, &a->comp, b->sum);
	a->comp += b->comp;
	if (a->count == 0 || b->lo < a->lo)
		a->lo = b->lo;
	if (a->count == 0 || b->hi > a->hi)
		a->hi = b->hi;
	a->count += b->count;
	for (size_t i = 0; i < b->vals.v.n; i++)
		if (query_tally_add(&a->vals, b->vals.v.v[i].num, NULL, b->vals.v.v[i].count) < 0)
			return -1;
	return 0;
}

static void summarize(struct summary *s, double out[STATS_NUMS])
{
	static const double qs[] = {25, 50, 75, 90, 99};
	double sum = s->sum + s->comp;

	out[0] = (double)s->count;
	out[1] = s->count ? s->lo : NAN;
	out[2] = s->count ? s->hi : NAN;
	out[3] = s->count ? sum / (double)s->count : NAN;
	out[4] = sum;
	percentiles(&s->vals, s->count, qs, 5, out + 5);
}

/* ---- the fold ---------------------------------------------------------- */

struct stats_plan {
	query_colspec cols[STATS_MAX];
	int ncols;
	query_expr *where;
	int configs;
};

struct stats_part {
	struct summary col[STATS_MAX];
	int64_t rows, total;
};

static void stats_free(void *part)
{
	struct stats_part *sp = part;

	for (int c = 0; c < STATS_MAX; c++)
		query_tally_free(&sp->col[c].vals);
}

static int stats_run(query_parser *ctx, const void *plan, void *part)
{
	const struct stats_plan *pl = plan;
	struct stats_part *sp = part;
	const hs_graph *g = ctx->s->g;
	int64_t total = pl->configs ? g->n_configs : g->n_nodes, n = 0;
	int64_t *ids = query_filter_rows(ctx, pl->where, total, &n);
	double v[QUERY_ROWS];
	int rc = -1;

	if (!ids)
		return -1;
	sp->rows = n;
	sp->total = total;
	if (query_prepare_cols(ctx, pl->cols, pl->ncols) < 0)
		goto done;
	for (int c = 0; c < pl->ncols; c++)
		for (int64_t r = 0; r < n; r += QUERY_ROWS) {
			int m = n - r < QUERY_ROWS ? (int)(n - r) : QUERY_ROWS;
			query_eval_rows(ctx->s, pl->cols[c].e, ids + r, m, v);
			for (int j = 0; j < m; j++)
				if (summary_add(&sp->col[c], v[j]) < 0) {
					query_oom(ctx);
					goto done;
				}
		}
	rc = 0;
done:
	free(ids);
	return rc;
}

static int stats_merge(const void *plan, void *acc, void *part, hs_error *err)
{
	const struct stats_plan *pl = plan;
	struct stats_part *a = acc, *b = part;

	a->rows += b->rows;
	a->total += b->total;
	for (int c = 0; c < pl->ncols; c++)
		if (summary_merge(&a->col[c], &b->col[c]) < 0)
			return hs_fail(err, HS_ENOMEM, "out of memory for the values of stats");
	return 0;
}

static const query_fold_ops stats_ops = {sizeof(struct stats_part), stats_run, stats_merge,
					 stats_free};

/* stats EXPR[, EXPR...] [where EXPR], after "stats". */
static int parse_stats(query_parser *p, struct stats_plan *pl)
{
	p->scope = QS_AUTO;
	do {
		if (pl->ncols == STATS_MAX)
			return query_fail_at(p, query_peek(p)->pos, "more than %d expressions at column %zu",
					     STATS_MAX, query_peek(p)->pos + 1);
		query_expr *e = query_parse_expr(p);
		if (!e || query_need_number(p, e, "stats") < 0)
			return -1;
		pl->cols[pl->ncols].e = e;
		pl->cols[pl->ncols].name = query_expr_source(p, e);
		pl->ncols++;
	} while (query_accept(p, TK_COMMA));
	if (query_accept_kw(p, "where")) {
		pl->where = query_parse_expr(p);
		if (!pl->where || query_need_bool(p, pl->where, "where") < 0)
			return -1;
	}
	pl->configs = p->scope == QS_CONFIG;
	return query_expect_end(p, "',' or where");
}

static int stats_table(query_parser *p, const struct stats_plan *pl, struct stats_part *acc,
		       query_result *out)
{
	static const char *const names[1 + STATS_NUMS] = {
		"field", "count", "min", "max", "mean", "sum", "p25", "p50", "p75", "p90", "p99"};
	query_type types[1 + STATS_NUMS];
	query_tb b;

	for (int i = 0; i < 1 + STATS_NUMS; i++)
		types[i] = i ? QUERY_NUM : QUERY_TEXT;
	if (query_tb_init(&b, out, 1 + STATS_NUMS, names, types, p->err) < 0)
		return query_data_fail(p, p->err);
	for (int j = 1; j < STATS_NUMS; j++)   /* not count: the values', in the field's unit */
		query_tb_unit(&b, 1 + j, QUERY_UNIT_ROW);
	for (int c = 0; c < pl->ncols; c++) {
		double nums[STATS_NUMS];
		summarize(&acc->col[c], nums);
		int64_t row = query_tb_row(&b, -1, -1, p->err);
		if (row < 0 || query_tb_text(&b, row, 0, pl->cols[c].name, p->err) < 0 ||
		    query_tb_row_unit(&b, row, query_expr_unit(p->s, pl->cols[c].e), p->err) < 0) {
			query_tb_done(&b);
			return query_data_fail(p, p->err);
		}
		for (int j = 0; j < STATS_NUMS; j++)
			query_tb_num(&b, row, 1 + j, nums[j]);
	}
	query_tb_done(&b);
	return 0;
}

int query_cmd_stats(query_parser *p, query_result *out)
{
	struct stats_plan *pl = calloc(1, sizeof *pl);
	struct stats_part *acc = calloc(1, sizeof *acc);
	query_fold_info fi;
	int rc = -1;

	if (!pl || !acc) {
		free(pl);
		free(acc);
		return query_oom(p);
	}
	if (parse_stats(p, pl) < 0)
		goto done;
	unsigned parts = query_expr_parts(pl->where);
	for (int c = 0; c < pl->ncols; c++)
		parts |= query_expr_parts(pl->cols[c].e);
	if (pl->configs)
		parts |= GRAPH_PART_RUNTIMES;
	int f = query_fold(p, &stats_ops, pl, parts, acc, out, &fi);
	if (f != 0) {
		rc = f < 0 ? -1 : 0;
		goto done;
	}
	if (stats_table(p, pl, acc, out) < 0)
		goto done;
	const char *what = pl->configs ? "configs" : "nodes";
	if (fi.folder)
		out->note = query_asprintf("over %lld of %lld %s in %lld graph%s", (long long)acc->rows,
					   (long long)acc->total, what, (long long)fi.graphs,
					   hs_s(fi.graphs));
	else
		out->note = query_asprintf("over %lld of %lld %s", (long long)acc->rows,
					   (long long)acc->total, what);
	rc = 0;
done:
	stats_free(acc);
	free(acc);
	free(pl);
	return rc;
}
