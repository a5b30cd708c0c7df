/* rows.c - result rows gathered from one graph or many (query_rows, see
 * commands.h): each row a copy of its cells with its sort key and where it
 * came from, ordered by the key with ties in path order, then in its
 * graph's order.  With a sort and a limit the rows are a bounded heap
 * whose top is the worst row kept, so a folder of any size keeps `limit`
 * rows; with a limit and no sort, the first `limit` rows in path order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "query/commands.h"

struct query_row {
	double knum;
	const char *ktext;      /* text key (in the row's storage) or NULL */
	int64_t file, seq;      /* graph in path order, row in the graph's order */
	int64_t node, config;
	/* the graph's file: strings of the folder index or of the graph, which
	 * outlive the command */
	const char *path, *rel, *collection, *split;
	query_cell cells[];     /* text in the storage after the cells */
};

/* <0 when a goes before b. */
static int row_cmp(const query_rows *rs, const query_row *a, const query_row *b)
{
	int r = 0;

	if (rs->sorted && rs->text_key) {
		r = strcmp(a->ktext, b->ktext);
		if (rs->desc)
			r = -r;
	} else if (rs->sorted) {
		int na = isnan(a->knum), nb = isnan(b->knum);
		if (na || nb)
			r = na - nb; /* missing last either way */
		else {
			r = (a->knum > b->knum) - (a->knum < b->knum);
			if (rs->desc)
				r = -r;
		}
	}
	if (r == 0)
		r = (a->file > b->file) - (a->file < b->file);
	if (r == 0)
		r = (a->seq > b->seq) - (a->seq < b->seq);
	return r;
}

static char *put_text(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = *at;

	memcpy(d, s, n);
	*at += n;
	return d;
}

int query_rows_add(query_rows *rs, const query_session *s, int scope, int64_t id,
		   const query_cell *cells, const query_type *types, double knum,
		   const char *ktext, int64_t seq, hs_error *err)
{
	size_t bytes = sizeof(query_row) + (size_t)rs->ncols * sizeof(query_cell);

	for (int i = 0; i < rs->ncols; i++)
		if (types[i] == QUERY_TEXT)
			bytes += strlen(cells[i].text ? cells[i].text : "") + 1;
	if (rs->text_key)
		bytes += strlen(ktext ? ktext : "") + 1;
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		query_row **v = realloc(rs->v, cap * sizeof *v);
		if (!v)
			return hs_fail(err, HS_ENOMEM, "out of memory for result rows");
		rs->v = v;
		rs->cap = cap;
	}
	query_row *r = malloc(bytes);
	if (!r)
		return hs_fail(err, HS_ENOMEM, "out of memory for result rows");
	char *text = (char *)&r->cells[rs->ncols];
	for (int i = 0; i < rs->ncols; i++) {
		r->cells[i] = cells[i];
		if (types[i] == QUERY_TEXT)
			r->cells[i].text = put_text(&text, cells[i].text ? cells[i].text : "");
	}
	r->knum = knum;
	r->ktext = rs->text_key ? put_text(&text, ktext ? ktext : "") : NULL;
	r->file = s->ref ? s->ref->index : 0;
	r->seq = seq;
	r->node = scope == QS_NODE ? id : -1;
	r->config = scope == QS_CONFIG ? id : -1;
	r->path = s->ref ? s->ref->path : "";
	r->rel = s->ref ? s->ref->rel : "";
	r->collection = s->ref ? s->ref->collection : "";
	r->split = s->ref ? s->ref->split : "";
	rs->v[rs->n++] = r;
	return 0;
}

/* ---- the heap: v[0] is the worst row kept ------------------------------ */

static void sift_down(query_rows *rs, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		if (l < rs->n && row_cmp(rs, rs->v[l], rs->v[w]) > 0)
			w = l;
		if (r < rs->n && row_cmp(rs, rs->v[r], rs->v[w]) > 0)
			w = r;
		if (w == i)
			return;
		query_row *t = rs->v[i];
		rs->v[i] = rs->v[w];
		rs->v[w] = t;
		i = w;
	}
}

static void sift_up(query_rows *rs, size_t i)
{
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (row_cmp(rs, rs->v[i], rs->v[up]) <= 0)
			return;
		query_row *t = rs->v[i];
		rs->v[i] = rs->v[up];
		rs->v[up] = t;
		i = up;
	}
}

static int append(query_rows *rs, query_row *r, hs_error *err)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		query_row **v = realloc(rs->v, cap * sizeof *v);
		if (!v) {
			free(r);
			return hs_fail(err, HS_ENOMEM, "out of memory for result rows");
		}
		rs->v = v;
		rs->cap = cap;
	}
	rs->v[rs->n++] = r;
	return 0;
}

/* Offers one row to a bounded heap (sorted, limit >= 0); takes it. */
static int heap_offer(query_rows *rs, query_row *r, hs_error *err)
{
	if ((long long)rs->n < rs->limit) {
		if (append(rs, r, err))
			return -1;
		sift_up(rs, rs->n - 1);
		return 0;
	}
	if (rs->n == 0 || row_cmp(rs, r, rs->v[0]) >= 0) {
		free(r);
		return 0;
	}
	free(rs->v[0]);
	rs->v[0] = r;
	sift_down(rs, 0);
	return 0;
}

void query_rows_units(query_rows *rs, const query_session *s, const query_colspec *cols, int ncols)
{
	for (int i = 0; i < ncols && i < QUERY_MAX_COLS; i++) {
		int u = query_expr_unit(s, cols[i].e);
		rs->units[i] = !rs->units_set || rs->units[i] == u ? (unsigned char)u : HS_U_NONE;
	}
	rs->units_set = 1;
}

int query_rows_merge(query_rows *acc, query_rows *part, hs_error *err)
{
	int rc = 0;

	for (int i = 0; part->units_set && i < part->ncols && i < QUERY_MAX_COLS; i++)
		acc->units[i] = !acc->units_set || acc->units[i] == part->units[i] ? part->units[i] : HS_U_NONE;
	acc->units_set |= part->units_set;

	acc->matched += part->matched;
	acc->total += part->total;
	acc->graphs_matched += part->matched > 0;
	for (size_t i = 0; i < part->n; i++) {
		query_row *r = part->v[i];
		part->v[i] = NULL;
		if (rc < 0) {
			free(r);
		} else if (acc->sorted && acc->limit >= 0) {
			rc = heap_offer(acc, r, err);
		} else if (!acc->sorted && acc->limit >= 0 && (long long)acc->n >= acc->limit) {
			free(r);
		} else {
			rc = append(acc, r, err);
		}
	}
	part->n = 0;
	if (rc < 0)
		return -1;
	return !acc->sorted && acc->limit >= 0 && (long long)acc->n >= acc->limit;
}

void query_rows_free(query_rows *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->v[i]);
	free(rs->v);
	rs->v = NULL;
	rs->n = rs->cap = 0;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	return row_cmp(arg, *(query_row *const *)a, *(query_row *const *)b);
}

int query_rows_table(query_rows *rs, int lead, const char *const *names, const query_type *types,
		     query_result *out, hs_error *err)
{
	const char *all[QUERY_MAX_COLS + 3];
	query_type alltypes[QUERY_MAX_COLS + 3];
	int off = lead ? 3 : 0, k = 0;
	query_tb b;

	if (lead) {
		static const char *const lead_names[] = {"file", "collection", "split"};
		for (; k < 3; k++) {
			all[k] = lead_names[k];
			alltypes[k] = QUERY_TEXT;
		}
	}
	for (int i = 0; i < rs->ncols; i++, k++) {
		all[k] = names[i];
		alltypes[k] = types[i];
	}
	if (rs->n > 1)
		qsort_r(rs->v, rs->n, sizeof *rs->v, cmp_rows, rs);
	if (query_tb_init(&b, out, k, all, alltypes, err) < 0)
		return -1;
	for (int i = 0; i < rs->ncols && i < QUERY_MAX_COLS; i++)
		query_tb_unit(&b, i + off, rs->units[i]);
	if (query_tb_reserve(&b, rs->n, err) < 0)
		goto fail;
	out->table.path = calloc(rs->n ? rs->n : 1, sizeof *out->table.path);
	if (!out->table.path) {
		hs_fail(err, HS_ENOMEM, "out of memory for result rows");
		goto fail;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const query_row *r = rs->v[i];
		int64_t row = query_tb_row(&b, r->node, r->config, err);
		if (row < 0 || !(out->table.path[row] = query_tb_str(&b, r->path, err)))
			goto fail;
		if (lead && (query_tb_text(&b, row, 0, r->rel, err) < 0 ||
			     query_tb_text(&b, row, 1, r->collection, err) < 0 ||
			     query_tb_text(&b, row, 2, r->split, err) < 0))
			goto fail;
		for (int c = 0; c < rs->ncols; c++) {
			if (types[c] == QUERY_NUM)
				query_tb_num(&b, row, c + off, r->cells[c].num);
			else if (query_tb_text(&b, row, c + off, r->cells[c].text, err) < 0)
				goto fail;
		}
	}
	query_tb_done(&b);
	return 0;
fail:
	query_tb_done(&b);
	return -1;
}

int query_rows_from_ids(query_parser *ctx, query_rows *rs, int scope, const query_colspec *cols,
			int ncols, const int64_t *ids, int64_t n, const query_expr *sort)
{
	query_result tmp;
	double kv[QUERY_ROWS];
	int rc = 0;

	memset(&tmp, 0, sizeof tmp);
	if (query_emit_rows(ctx, &tmp, scope, cols, ncols, ids, n, NULL, NULL) < 0)
		return -1;
	if (sort && query_prepare(ctx->s, sort, ctx->err) < 0) {
		query_result_free(&tmp);
		return query_data_fail(ctx, ctx->err);
	}
	for (int64_t r = 0; r < n && rc == 0; r += QUERY_ROWS) {
		int m = n - r < QUERY_ROWS ? (int)(n - r) : QUERY_ROWS;
		if (sort && sort->type == QUERY_NUM)
			query_eval_rows(ctx->s, sort, ids + r, m, kv);
		for (int j = 0; j < m && rc == 0; j++) {
			const char *kt = sort && sort->type == QUERY_TEXT
						 ? query_eval_text(ctx->s, sort, ids[r + j])
						 : NULL;
			rc = query_rows_add(rs, ctx->s, scope, ids[r + j],
					    &tmp.table.cells[(size_t)(r + j) * (size_t)ncols], tmp.table.types,
					    sort && sort->type == QUERY_NUM ? kv[j] : NAN, kt, r + j, ctx->err);
		}
	}
	query_result_free(&tmp);
	return rc < 0 ? query_data_fail(ctx, ctx->err) : 0;
}
