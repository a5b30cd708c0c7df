/* cmd_common.c - what the query commands share (declared in commands.h):
 * error helpers, the nodes/configs clauses (where, sort by, limit, show),
 * filtering and sorting rows, result columns and text building.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/plural.h"
#include "base/progress.h"
#include "query/commands.h"

int query_oom(query_parser *p)
{
	return hs_fail(p->err, HS_ENOMEM, "out of memory running the query");
}

/* A fail for a data problem found while running (no column). */
int query_data_fail(query_parser *p, const hs_error *e)
{
	p->failed = 1;
	p->s->err_col = 0;
	if (p->err && e != p->err)
		*p->err = *e;
	return -1;
}

int query_expect_end(query_parser *p, const char *what)
{
	if (query_peek(p)->kind == TK_END && !p->failed)
		return 0;
	return query_fail_expected(p, what);
}

char *query_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* An expression standing for one field by name (node or config scope). */
query_expr *query_field_expr(query_parser *p, int scope, const char *name)
{
	const query_field *f = query_find_field(p->s, scope, name);
	query_expr *e;

	if (!f)
		return NULL;
	e = hs_arena_alloc(&p->arena, sizeof *e);
	if (!e)
		return NULL;
	e->kind = QE_FIELD;
	e->field = f;
	e->type = f->type;
	return e;
}

const char *query_expr_source(query_parser *p, const query_expr *e)
{
	if (!e->len)
		return e->field ? e->field->name : "?";
	const char *s = hs_arena_strndup(&p->arena, p->src + e->pos, e->len);
	return s ? s : "?";
}

int query_default_node_cols(query_parser *p, query_colspec *cols)
{
	static const char *const names[] = {"id", "opcode", "shape", "operands", "users"};
	int n = 0;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		cols[n].name = names[i];
		cols[n].e = query_field_expr(p, QS_NODE, names[i]);
		if (!cols[n].e)
			return query_oom(p);
		n++;
		if (i == 0 && (p->s->g->knows & HM_KNOWS_NAMES)) { /* real names; else the opcode says it */
			cols[n].name = "name";
			cols[n].e = query_field_expr(p, QS_NODE, "name");
			if (!cols[n].e)
				return query_oom(p);
			n++;
		}
		if (i == 2 && p->s->g->n_comps > 1) {
			cols[n].name = "split";
			cols[n].e = query_field_expr(p, QS_NODE, "split");
			if (!cols[n].e)
				return query_oom(p);
			n++;
		}
	}
	return n;
}

/* Every field of a scope as columns (`show *`). */
int query_all_cols(query_parser *p, int scope, query_colspec *cols, int max)
{
	size_t nf = scope == QS_CONFIG ? p->s->n_config_fields : p->s->n_node_fields;
	const query_field *f = scope == QS_CONFIG ? p->s->config_fields : p->s->node_fields;
	int n = 0;

	if (scope == QS_GRAPH)
		f = query_graph_fields(&nf);
	for (size_t i = 0; i < nf && n < max; i++) {
		cols[n].name = f[i].name;
		cols[n].e = query_field_expr(p, scope, f[i].name);
		if (!cols[n].e)
			return query_oom(p);
		n++;
	}
	return n;
}

int query_prepare_cols(query_parser *p, const query_colspec *cols, int n)
{
	for (int i = 0; i < n; i++)
		if (query_prepare(p->s, cols[i].e, p->err) < 0)
			return query_data_fail(p, p->err);
	return 0;
}

int query_emit_rows(query_parser *p, query_result *out, int scope, const query_colspec *cols,
		    int ncols, const int64_t *rows, int64_t n, const char *lead_name,
		    const double *lead)
{
	const char *names[QUERY_MAX_COLS + 1];
	query_type types[QUERY_MAX_COLS + 1];
	int k = 0, off = lead ? 1 : 0;
	query_tb b;

	if (query_prepare_cols(p, cols, ncols) < 0)
		return -1;
	if (lead) {
		names[k] = lead_name;
		types[k++] = QUERY_NUM;
	}
	for (int i = 0; i < ncols; i++) {
		names[k] = cols[i].name;
		types[k++] = cols[i].e->type;
	}
	if (query_tb_init(&b, out, k, names, types, p->err) < 0 ||
	    query_tb_reserve(&b, (size_t)n, p->err) < 0)
		goto fail;
	for (int i = 0; i < ncols; i++)
		query_tb_unit(&b, i + off, query_expr_unit(p->s, cols[i].e));
	for (int64_t r = 0; r < n; r++) {
		int64_t id = rows[r];
		if (query_tb_row(&b, scope == QS_NODE ? id : -1, scope == QS_CONFIG ? id : -1,
				 p->err) < 0)
			goto fail;
		if (lead)
			query_tb_num(&b, r, 0, lead[r]);
	}
	/* Column by column: numbers a block of rows at a time. */
	for (int i = 0; i < ncols; i++) {
		const query_expr *e = cols[i].e;
		double v[QUERY_ROWS];
		for (int64_t r = 0; r < n; r += QUERY_ROWS) {
			int m = n - r < QUERY_ROWS ? (int)(n - r) : QUERY_ROWS;
			if (e->type == QUERY_NUM) {
				query_eval_rows(p->s, e, rows + r, m, v);
				for (int j = 0; j < m; j++)
					query_tb_num(&b, r + j, i + off, v[j]);
			} else {
				for (int j = 0; j < m; j++)
					if (query_tb_text(&b, r + j, i + off,
							  query_eval_text(p->s, e, rows[r + j]), p->err) < 0)
						goto fail;
			}
		}
	}
	query_tb_done(&b);
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

/* Sorting row ids by a key (numbers or text), stable, missing values last. */
struct sort_ctx {
	const double *num;
	const char *const *text;
	const int64_t *ids;
	int desc;
};

static int cmp_sort(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int r = 0;

	if (c->num) {
		double x = c->num[i], y = c->num[j];
		int nx = isnan(x), ny = isnan(y);
		if (nx || ny)
			r = nx - ny; /* missing last, whatever the direction */
		else {
			r = (x > y) - (x < y);
			if (c->desc)
				r = -r;
		}
	} else {
		r = strcmp(c->text[i], c->text[j]);
		if (c->desc)
			r = -r;
	}
	if (r == 0)
		r = (c->ids[i] > c->ids[j]) - (c->ids[i] < c->ids[j]);
	return r;
}

/* Sorts ids[0..n) by expression e evaluated on each id. */
int query_sort_ids(query_parser *p, int64_t *ids, int64_t n, const query_expr *e, int desc)
{
	size_t *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
	int64_t *copy = malloc((size_t)(n ? n : 1) * sizeof *copy);
	double *num = NULL;
	const char **text = NULL;
	struct sort_ctx c = {0};

	if (!perm || !copy)
		goto oom;
	if (query_prepare(p->s, e, p->err) < 0) {
		free(perm);
		free(copy);
		return query_data_fail(p, p->err);
	}
	if (e->type == QUERY_NUM) {
		num = malloc((size_t)(n ? n : 1) * sizeof *num);
		if (!num)
			goto oom;
		query_eval_rows(p->s, e, ids, n, num);
	} else {
		text = malloc((size_t)(n ? n : 1) * sizeof *text);
		if (!text)
			goto oom;
		for (int64_t i = 0; i < n; i++)
			text[i] = query_eval_text(p->s, e, ids[i]);
	}
	for (int64_t i = 0; i < n; i++)
		perm[i] = (size_t)i;
	c.num = num;
	c.text = text;
	c.ids = ids;
	c.desc = desc;
	qsort_r(perm, (size_t)n, sizeof *perm, cmp_sort, &c);
	memcpy(copy, ids, (size_t)n * sizeof *ids);
	for (int64_t i = 0; i < n; i++)
		ids[i] = copy[perm[i]];
	free(perm);
	free(copy);
	free(num);
	free(text);
	return 0;
oom:
	free(perm);
	free(copy);
	free(num);
	free(text);
	return query_oom(p);
}

/* The ids of rows 0..n-1 for which `where` holds (all when NULL). */
int64_t *query_filter_rows(query_parser *p, const query_expr *where, int64_t n,
			   int64_t *count)
{
	/* Grown as rows match: a selective filter touches little memory. */
	size_t cap = where ? 1024 : (size_t)(n ? n : 1);
	int64_t *ids = malloc(cap * sizeof *ids);
	int64_t k = 0;

	if (!ids) {
		query_oom(p);
		return NULL;
	}
	if (where && query_prepare(p->s, where, p->err) < 0) {
		free(ids);
		query_data_fail(p, p->err);
		return NULL;
	}
	if (!where) {
		for (int64_t i = 0; i < n; i++)
			ids[k++] = i;
	} else {
		int64_t rows[QUERY_ROWS];
		for (int64_t i = 0; i < n; i += QUERY_ROWS) {
			int b = n - i < QUERY_ROWS ? (int)(n - i) : QUERY_ROWS;
			if (hs_progress_tick("querying", (double)i, (double)n)) {
				free(ids);
				hs_fail(p->err, HS_ESTOPPED, "stopped after %lld of %lld rows", (long long)i, (long long)n);
				query_data_fail(p, p->err);
				return NULL;
			}
			for (int j = 0; j < b; j++)
				rows[j] = i + j;
			int m = query_select_rows(p->s, where, rows, b, rows);
			if ((size_t)k + (size_t)m > cap) {
				size_t ncap = cap * 2 > (size_t)n ? (size_t)n : cap * 2;
				int64_t *nids = realloc(ids, ncap * sizeof *ids);
				if (!nids) {
					free(ids);
					query_oom(p);
					return NULL;
				}
				ids = nids;
				cap = ncap;
			}
			memcpy(ids + k, rows, (size_t)m * sizeof *ids);
			k += m;
		}
	}
	*count = k;
	return ids;
}

int query_need_bool(query_parser *p, const query_expr *e, const char *clause)
{
	if (e->type == QUERY_NUM)
		return 0;
	return query_fail_at(p, e->pos,
			     "'%s' needs a condition, but '%.*s' at column %zu is text "
			     "(compare it: %.*s = ...)", clause, (int)e->len, p->src + e->pos,
			     e->pos + 1, (int)e->len, p->src + e->pos);
}

int query_need_number(query_parser *p, const query_expr *e, const char *what)
{
	if (e->type == QUERY_NUM)
		return 0;
	return query_fail_at(p, e->pos, "%s needs a number, but '%.*s' at column %zu is text",
			     what, (int)e->len, p->src + e->pos, e->pos + 1);
}

int query_dup_clause(query_parser *p, size_t pos, const char *kw)
{
	return query_fail_at(p, pos, "'%s' given twice at column %zu", kw, pos + 1);
}

int query_parse_clauses(query_parser *p, query_clauses *c, int allow_show,
			const char *expected)
{
	c->limit = -1;
	c->nshow = -1;
	for (;;) {
		const query_token *t = query_peek(p);
		size_t pos = t->pos;
		if (p->failed)
			return -1;
		if (t->kind == TK_END)
			return 0;
		if (query_accept_kw(p, "where")) {
			if (c->where)
				return query_dup_clause(p, pos, "where");
			c->where = query_parse_expr(p);
			if (!c->where || query_need_bool(p, c->where, "where") < 0)
				return -1;
		} else if (query_accept_kw(p, "sort") || query_accept_kw(p, "order")) {
			/* "order by" reads like SQL; both work */
			if (c->sort)
				return query_dup_clause(p, pos, "sort by");
			if (!query_accept_kw(p, "by"))
				return query_fail_expected(p, "'by' after 'sort'");
			c->sort = query_parse_expr(p);
			if (!c->sort)
				return -1;
			if (query_accept_kw(p, "desc"))
				c->desc = 1;
			else
				query_accept_kw(p, "asc");
		} else if (query_accept_kw(p, "limit")) {
			if (c->limit >= 0)
				return query_dup_clause(p, pos, "limit");
			c->limit = query_parse_count(p, "a row count after 'limit'");
			if (c->limit < 0)
				return -1;
		} else if (allow_show && query_accept_kw(p, "show")) {
			if (c->nshow >= 0)
				return query_dup_clause(p, pos, "show");
			if (query_accept(p, TK_STAR)) {
				c->star = 1;
				c->nshow = 0;
				continue;
			}
			c->nshow = 0;
			do {
				if (c->nshow == QUERY_MAX_COLS)
					return query_fail_at(p, query_peek(p)->pos,
							     "more than %d columns at column %zu",
							     QUERY_MAX_COLS, query_peek(p)->pos + 1);
				query_expr *e = query_parse_expr(p);
				if (!e)
					return -1;
				c->show[c->nshow].e = e;
				c->show[c->nshow].name = query_expr_source(p, e);
				c->nshow++;
			} while (query_accept(p, TK_COMMA));
		} else {
			return query_fail_expected(p, expected);
		}
	}
}

char *query_count_note(int64_t n, int64_t total, int64_t shown, const char *what,
		       int filtered, const char *extra)
{
	char head[128], tail[64] = "";

	if (filtered)
		snprintf(head, sizeof head, "%lld of %lld %s%s match%s", (long long)n,
			 (long long)total, what, hs_s(total), hs_plural(n, "es", ""));

	else
		snprintf(head, sizeof head, "%lld %s%s", (long long)n, what, hs_s(n));
	if (shown < n)
		snprintf(tail, sizeof tail, ", first %lld shown", (long long)shown);
	return query_asprintf("%s%s%s", head, tail, extra);
}

int query_has_col(const query_colspec *cols, int n, const query_expr *e)
{
	for (int i = 0; i < n; i++)
		if (cols[i].e->kind == QE_FIELD && e->kind == QE_FIELD && cols[i].e->field == e->field)
			return 1;
	return 0;
}

/* ---- tallies ------------------------------------------------------------- */

static uint32_t num_hash(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return (uint32_t)hs_mix64(u);
}

static int same_value(const void *ctx, int32_t e, const void *key)
{
	const query_tally *t = ctx;
	const query_tally_item *it = &t->v.v[e];
	const query_tally_item *k = key;
	if (t->text)
		return strcmp(it->text, k->text) == 0;
	return isnan(k->num) ? isnan(it->num) : it->num == k->num;
}

int query_tally_add(query_tally *t, double num, const char *text, int64_t n)
{
	if (num == 0)
		num = 0; /* -0 and 0 together */
	if (isnan(num))
		num = NAN;
	query_tally_item key = {num, text, 0};
	uint32_t h = t->text ? (uint32_t)hs_fnv1a(text, HS_FNV_BASIS) : num_hash(num);
	int32_t e = hs_index_find(&t->ix, h, same_value, t, &key);
	if (e < 0) {
		if (t->text && !(key.text = hs_arena_strdup(&t->keys, text)))
			return -1;
		if (t->v.n >= HS_INDEX_MAX || hs_vec_push(&t->v, key) != 0)
			return -1;
		e = (int32_t)t->v.n - 1;
		if (hs_index_add(&t->ix, h, e) != 0) {
			t->v.n--;
			return -1;
		}
	}
	t->v.v[e].count += n;
	return 0;
}

void query_tally_sort(query_tally *t, int (*cmp)(const void *, const void *, void *), void *arg)
{
	hs_index_free(&t->ix);
	if (t->v.n > 1)
		qsort_r(t->v.v, t->v.n, sizeof *t->v.v, cmp, arg);
}

void query_tally_free(query_tally *t)
{
	hs_vec_free(&t->v);
	hs_index_free(&t->ix);
	hs_arena_free(&t->keys);
}
