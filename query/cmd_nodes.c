/* cmd_nodes.c - the query commands over many nodes (or configs): `nodes`
 * (filter, sort, pick columns), `count by` (a frequency table) and `stats`
 * (count, min, max, mean, sum and percentiles as numpy computes them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/commands.h"

/* ---- nodes ---------------------------------------------------------- */

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

/* ---- count by ------------------------------------------------------- */

struct group {
	double num;
	const char *text;
	int64_t count;
	int used;
};

struct groups {
	struct group *g;
	size_t cap, n;
	int text;
};

static uint64_t hash_num(double v)
{
	uint64_t u;

	if (v == 0)
		v = 0; /* -0 and 0 together */
	if (isnan(v))
		v = NAN;
	memcpy(&u, &v, sizeof u);
	u ^= u >> 33;
	u *= 0xff51afd7ed558ccdull;
	u ^= u >> 33;
	return u;
}

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int same_key(const struct groups *gs, const struct group *g, double num, const char *text)
{
	if (gs->text)
		return g->text == text || strcmp(g->text, text) == 0;
	if (isnan(num))
		return isnan(g->num);
	return g->num == num;
}

static struct group *group_find(struct groups *gs, double num, const char *text)
{
	if (gs->n * 2 >= gs->cap) {
		size_t cap = gs->cap ? gs->cap * 2 : 64;
		struct group *ng = calloc(cap, sizeof *ng);
		if (!ng)
			return NULL;
		for (size_t i = 0; i < gs->cap; i++) {
			if (!gs->g[i].used)
				continue;
			uint64_t h = gs->text ? hash_text(gs->g[i].text) : hash_num(gs->g[i].num);
			size_t j = h & (cap - 1);
			while (ng[j].used)
				j = (j + 1) & (cap - 1);
			ng[j] = gs->g[i];
		}
		free(gs->g);
		gs->g = ng;
		gs->cap = cap;
	}
	uint64_t h = gs->text ? hash_text(text) : hash_num(num);
	size_t j = h & (gs->cap - 1);
	while (gs->g[j].used) {
		if (same_key(gs, &gs->g[j], num, text))
			return &gs->g[j];
		j = (j + 1) & (gs->cap - 1);
	}
	gs->g[j].used = 1;
	gs->g[j].num = num;
	gs->g[j].text = text;
	gs->n++;
	return &gs->g[j];
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct group *x = a, *y = b;
	int text = *(const int *)arg;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (text)
		return strcmp(x->text, y->text);
	if (isnan(x->num) || isnan(y->num))
		return isnan(x->num) - isnan(y->num);
	return (x->num > y->num) - (x->num < y->num);
}

/* count by EXPR [where EXPR] [limit N], after "count". */
static int parse_count(query_parser *p, query_expr **by, query_expr **where, long long *limit)
{
	if (!query_accept_kw(p, "by"))
		return query_fail_expected(p, "'by' after 'count'");
	p->scope = QS_AUTO;
	*by = query_parse_expr(p);
	if (!*by)
		return -1;
	while (query_peek(p)->kind != TK_END && !p->failed) {
		size_t pos = query_peek(p)->pos;
		if (query_accept_kw(p, "where")) {
			if (*where)
				return query_dup_clause(p, pos, "where");
			*where = query_parse_expr(p);
			if (!*where || query_need_bool(p, *where, "where") < 0)
				return -1;
		} else if (query_accept_kw(p, "limit")) {
			if (*limit >= 0)
				return query_dup_clause(p, pos, "limit");
			*limit = query_parse_count(p, "a row count after 'limit'");
			if (*limit < 0)
				return -1;
		} else {
			return query_fail_expected(p, "where or limit");
		}
	}
	return p->failed ? -1 : 0;
}

/* Counts ids[0..n) by the value of `by` (prepared) into gs, then compacts
 * and sorts the groups (most frequent first); their number or -1. */
static int64_t group_rows(query_parser *p, const query_expr *by, const int64_t *ids, int64_t n,
			  struct groups *gs)
{
	hs_graph *g = p->s->g;

	gs->text = by->type == QUERY_TEXT;
	if (by->kind == QE_FIELD && by->field->kind == QF_OPCODE) {
		/* The common case, without hashing: bucket by opcode id. */
		int64_t counts[256] = {0};
		for (int64_t i = 0; i < n; i++)
			counts[g->opcode[ids[i]]]++;
		for (int op = 0; op < 256; op++) {
			if (!counts[op])
				continue;
			struct group *gr = group_find(gs, 0, p->s->opcode_names[op]);
			if (!gr)
				return query_oom(p);
			gr->count = counts[op];
		}
	} else {
		for (int64_t i = 0; i < n; i++) {
			struct group *gr;
			if (gs->text)
				gr = group_find(gs, 0, query_eval_text(p->s, by, ids[i]));
			else
				gr = group_find(gs, query_eval_num(p->s, by, ids[i]), NULL);
			if (!gr)
				return query_oom(p);
			gr->count++;
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < gs->cap; i++)
		if (gs->g[i].used)
			gs->g[k++] = gs->g[i];
	if (k)
		qsort_r(gs->g, k, sizeof *gs->g, cmp_group, &gs->text);
	return (int64_t)k;
}

/* The table: value, count, share of the first `shown` groups of n rows. */
static int count_table(query_parser *p, query_result *out, const query_expr *by,
		       const struct groups *gs, size_t shown, int64_t n)
{
	const char *names[3] = {query_expr_source(p, by), "count", "share"};
	query_type types[3] = {by->type, QUERY_NUM, QUERY_NUM};
	query_tb b;

	if (query_tb_init(&b, out, 3, names, types, p->err) < 0 ||
	    query_tb_reserve(&b, shown, p->err) < 0)
		goto fail;
	for (size_t i = 0; i < shown; i++) {
		int64_t row = query_tb_row(&b, -1, -1, p->err);
		if (row < 0 || (gs->text && query_tb_text(&b, row, 0, gs->g[i].text, p->err) < 0))
			goto fail;
		if (!gs->text)
			query_tb_num(&b, row, 0, gs->g[i].num);
		query_tb_num(&b, row, 1, (double)gs->g[i].count);
		query_tb_num(&b, row, 2, n ? (double)gs->g[i].count / (double)n : NAN);
	}
	query_tb_done(&b);
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

int query_cmd_count(query_parser *p, query_result *out)
{
	query_expr *by = NULL, *where = NULL;
	long long limit = -1;
	struct groups gs = {0};
	int64_t *ids, n = 0, k;
	hs_graph *g = p->s->g;
	int rc = -1;

	if (parse_count(p, &by, &where, &limit) < 0)
		return -1;
	int configs = p->scope == QS_CONFIG;
	ids = query_filter_rows(p, where, configs ? g->n_configs : g->n_nodes, &n);
	if (!ids)
		return -1;
	if (query_prepare(p->s, by, p->err) < 0) {
		query_data_fail(p, p->err);
		goto done;
	}
	k = group_rows(p, by, ids, n, &gs);
	if (k < 0)
		goto done;
	size_t shown = limit >= 0 && limit < k ? (size_t)limit : (size_t)k;
	if (count_table(p, out, by, &gs, shown, n) < 0)
		goto done;
	out->note = query_asprintf("%lld distinct value%s over %lld %s%s%s", (long long)k,
				   k == 1 ? "" : "s", (long long)n, configs ? "config" : "node",
				   n == 1 ? "" : "s", shown < (size_t)k ? ", most frequent shown" : "");
	rc = 0;
done:
	free(gs.g);
	free(ids);
	return rc;
}

/* ---- stats ---------------------------------------------------------- */

/* Moves the k-th smallest of v[lo..hi) to v[k], no larger ones before it
 * and no smaller ones after (quickselect, median of three; no NaN in v). */
static void select_kth(double *v, size_t lo, size_t hi, size_t k)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		double a = v[lo], b = v[mid], c = v[hi - 1];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		/* Three-way partition: [lo, lt) < pivot, [lt, gt) == pivot,
		 * [gt, hi) > pivot; the middle part is never empty. */
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			double x = v[i];
			if (x < pivot) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > pivot) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/* numpy.percentile's default (linear) method for the quantiles qs[0..nq)
 * (ascending) of v[0..n); reorders v. */
static void percentiles(double *v, size_t n, const double *qs, int nq, double *out)
{
	size_t done = 0; /* v[0..done) holds the smallest values, in place */

	for (int i = 0; i < nq; i++) {
		if (n == 0) {
			out[i] = NAN;
			continue;
		}
		double h = (double)(n - 1) * qs[i] / 100.0;
		size_t lo = (size_t)floor(h);
		if (lo >= done) {
			select_kth(v, done, n, lo);
			done = lo + 1;
		}
		if (lo + 1 >= n) {
			out[i] = v[lo];
			continue;
		}
		/* The next larger value is the smallest of what follows. */
		if (done <= lo + 1) {
			select_kth(v, lo + 1, n, lo + 1);
			done = lo + 2;
		}
		double f = h - (double)lo;
		out[i] = v[lo] + f * (v[lo + 1] - v[lo]);
	}
}

/* At most this many expressions in one `stats`. */
#define STATS_MAX 64

/* stats EXPR[, EXPR...] [where EXPR], after "stats": the expressions into
 * cols[0..STATS_MAX), their number into *ncols. */
static int parse_stats(query_parser *p, query_colspec *cols, int *ncols, query_expr **where)
{
	p->scope = QS_AUTO;
	do {
		if (*ncols == STATS_MAX)
			return query_fail_at(p, query_peek(p)->pos, "more than %d expressions at column %zu",
					     STATS_MAX, query_peek(p)->pos + 1);
		query_expr *e = query_parse_expr(p);
		if (!e || query_need_number(p, e, "stats") < 0)
			return -1;
		cols[*ncols].e = e;
		cols[*ncols].name = query_expr_source(p, e);
		(*ncols)++;
	} while (query_accept(p, TK_COMMA));
	if (query_accept_kw(p, "where")) {
		*where = query_parse_expr(p);
		if (!*where || query_need_bool(p, *where, "where") < 0)
			return -1;
	}
	return query_expect_end(p, "',' or where");
}

/* The numbers of one stats row for the values v[0..n) (NaN: missing):
 * count, min, max, mean, sum, p25, p50, p75, p90, p99.  Reorders v. */
#define STATS_NUMS 10
static void summarize(double *v, int64_t n, double out[STATS_NUMS])
{
	static const double qs[] = {25, 50, 75, 90, 99};
	size_t k = 0;
	double sum = 0, comp = 0;

	for (int64_t i = 0; i < n; i++) {
		double x = v[i];
		if (isnan(x))
			continue;
		v[k++] = x;
		/* Neumaier summation: the mean stays exact enough to compare
		 * with numpy's pairwise sum. */
		double t = sum + x;
		if (fabs(sum) >= fabs(x))
			comp += (sum - t) + x;
		else
			comp += (x - t) + sum;
		sum = t;
	}
	sum += comp;
	double lo = k ? v[0] : NAN, hi = lo;
	for (size_t i = 1; i < k; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	out[0] = (double)k;
	out[1] = lo;
	out[2] = hi;
	out[3] = k ? sum / (double)k : NAN;
	out[4] = sum;
	percentiles(v, k, qs, 5, out + 5);
}

int query_cmd_stats(query_parser *p, query_result *out)
{
	static const char *const names[1 + STATS_NUMS] = {
		"field", "count", "min", "max", "mean", "sum", "p25", "p50", "p75", "p90", "p99"};
	query_type types[1 + STATS_NUMS];
	query_colspec cols[STATS_MAX];
	int ncols = 0;
	query_expr *where = NULL;
	hs_graph *g = p->s->g;
	int64_t *ids = NULL, n = 0;
	double *v = NULL;
	int rc = -1;
	query_tb b;

	if (parse_stats(p, cols, &ncols, &where) < 0)
		return -1;
	int configs = p->scope == QS_CONFIG;
	int64_t total = configs ? g->n_configs : g->n_nodes;
	ids = query_filter_rows(p, where, total, &n);
	if (!ids)
		return -1;
	if (query_prepare_cols(p, cols, ncols) < 0)
		goto done;
	v = malloc((size_t)(n ? n : 1) * sizeof *v);
	if (!v) {
		query_oom(p);
		goto done;
	}
	for (int i = 0; i < 1 + STATS_NUMS; i++)
		types[i] = i ? QUERY_NUM : QUERY_TEXT;
	if (query_tb_init(&b, out, 1 + STATS_NUMS, names, types, p->err) < 0)
		goto fail;
	for (int c = 0; c < ncols; c++) {
		double nums[STATS_NUMS];
		query_eval_rows(p->s, cols[c].e, ids, n, v);
		summarize(v, n, nums);
		int64_t row = query_tb_row(&b, -1, -1, p->err);
		if (row < 0 || query_tb_text(&b, row, 0, cols[c].name, p->err) < 0)
			goto fail;
		for (int j = 0; j < STATS_NUMS; j++)
			query_tb_num(&b, row, 1 + j, nums[j]);
	}
	query_tb_done(&b);
	out->note = query_asprintf("over %lld of %lld %s", (long long)n, (long long)total,
				   configs ? "configs" : "nodes");
	rc = 0;
	goto done;
fail:
	query_tb_done(&b);
	query_data_fail(p, p->err);
done:
	free(v);
	free(ids);
	return rc;
}
