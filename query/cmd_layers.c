/* cmd_layers.c - `layers`: the model's own structure, one row per namespace
 * of op_name (model/layers.h), parents before children, with the numbers
 * of the instructions at or under it rolled up (query_layer_sums_make) and
 * a run of repeated sibling blocks folded into one row.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "query/commands.h"

enum { LC_LAYER, LC_PATH, LC_DEPTH, LC_NODES, LC_COST, LC_FLOPS, LC_BYTES, LC_CONFIGURABLE, LC_OPCODES,
       LC_GROUP, LC_REPEATS, LC_N };

static const char *const col_names[LC_N] = {"layer", "path", "depth", "nodes", "cost", "flops",
					    "bytes", "configurable", "opcodes", "repeat_group", "repeats"};

typedef struct layers_opts {
	int depth;            /* rows down to this depth; 0: all */
	query_expr *where;
	int sort_col;         /* a column of the result, -1: first-seen order */
	int desc;
	long long limit;      /* -1: none */
	int all;              /* every block of a run on its own row */
} layers_opts;

/* One row to come: a namespace, or a run of `len` repeated siblings
 * starting at k (their numbers summed). */
typedef struct entry {
	int64_t k, len;
	double key;           /* the sort key, numeric columns */
	const char *tkey;     /* ... text columns */
} entry;

typedef struct emit {
	query_parser *p;
	const layers_opts *o;
	const hs_layers *l;
	query_layer_sums *sums;
	query_tb b;
	int ncols;
	int64_t rows, runs;
	hs_strbuf text;
} emit;

/* ---- the clauses ------------------------------------------------------------ */

static int sort_column(query_parser *p, const query_layer_sums *sums, const char *w)
{
	for (int c = 0; c < LC_N; c++)
		if (strcasecmp(w, col_names[c]) == 0)
			return c;
	if (strcasecmp(w, "name") == 0)
		return LC_LAYER;
	for (int d = 0; d < sums->n_data; d++)
		if (strcasecmp(w, sums->data_name[d]) == 0)
			return LC_N + d;
	return -1;
}

static int parse_opts(query_parser *p, const query_layer_sums *sums, layers_opts *o)
{
	o->sort_col = -1;
	o->limit = -1;
	for (;;) {
		const query_token *t = query_peek(p);
		size_t pos = t->pos;
		if (p->failed)
			return -1;
		if (t->kind == TK_END)
			return 0;
		if (query_accept_kw(p, "depth")) {
			if (o->depth)
				return query_dup_clause(p, pos, "depth");
			long long d = query_parse_count(p, "a depth (1 = the top level) after 'depth'");
			if (d < 0)
				return -1;
			if (d == 0)
				return query_fail_at(p, pos, "depth 0 at column %zu: the top level is depth 1", pos + 1);
			o->depth = d > 1000 ? 1000 : (int)d;
		} else if (query_accept_kw(p, "where")) {
			if (o->where)
				return query_dup_clause(p, pos, "where");
			o->where = query_parse_expr(p);
			if (!o->where || query_need_bool(p, o->where, "where") < 0)
				return -1;
		} else if (query_accept_kw(p, "sort") || query_accept_kw(p, "order")) {
			if (o->sort_col >= 0)
				return query_dup_clause(p, pos, "sort by");
			if (!query_accept_kw(p, "by"))
				return query_fail_expected(p, "'by' after 'sort'");
			t = query_peek(p);
			if (t->kind != TK_WORD)
				return query_fail_expected(p, "a column of the layers table after 'sort by'");
			o->sort_col = sort_column(p, sums, t->str);
			if (o->sort_col < 0)
				return query_fail_at(p, t->pos, "no column '%s' at column %zu (sort by one of layer, path, "
						     "depth, nodes, cost, flops, bytes, configurable, opcodes, "
						     "repeat_group, repeats%s)", t->str, t->pos + 1,
						     sums->n_data ? " or a field of the data" : "");
			query_advance(p);
			if (query_accept_kw(p, "desc"))
				o->desc = 1;
			else
				query_accept_kw(p, "asc");
		} else if (query_accept_kw(p, "limit")) {
			if (o->limit >= 0)
				return query_dup_clause(p, pos, "limit");
			if ((o->limit = query_parse_count(p, "a row count after 'limit'")) < 0)
				return -1;
		} else if (query_accept_kw(p, "all")) {
			o->all = 1;
		} else {
			return query_fail_expected(p, "depth, where, sort by, limit, all or end of line");
		}
	}
}

/* ---- numbers of an entry ------------------------------------------------------ */

/* Column c of the entry (a run: summed over its blocks). */
static double entry_num(const emit *e, const entry *en, int c)
{
	const query_layer_sums *s = e->sums;
	double sum = 0;
	int any = 0;
	int64_t k = en->k;
	if (c == LC_DEPTH)
		return e->l->v[k].depth;
	if (c == LC_GROUP)
		return (double)e->l->v[k].repeat_group;
	if (c == LC_REPEATS)
		return (double)en->len;
	for (int64_t i = 0; i < en->len && k >= 0; i++, k = layers_next_sibling(e->l, k)) {
		double x;
		switch (c) {
		case LC_NODES: x = (double)s->nodes[k]; break;
		case LC_COST: x = s->cost[k]; break;
		case LC_FLOPS: x = s->flops[k]; break;
		case LC_BYTES: x = s->bytes[k]; break;
		case LC_CONFIGURABLE: x = (double)s->configurable[k]; break;
		default: x = s->data[(size_t)k * (size_t)s->n_data + (size_t)(c - LC_N)]; break;
		}
		if (!isnan(x)) {
			sum += x;
			any = 1;
		}
	}
	return any ? sum : NAN;
}

static const char *entry_text(const emit *e, const entry *en, int c)
{
	if (c == LC_PATH)
		return e->l->v[en->k].path;
	if (c == LC_OPCODES)
		return query_layer_sums_mix(e->p->s, e->sums, en->k);
	return e->l->v[en->k].name;
}

static const emit *sort_ctx;

static int cmp_entry(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	int c = sort_ctx->o->sort_col, r;
	int text = c == LC_LAYER || c == LC_PATH || c == LC_OPCODES;
	if (text) {
		r = strcmp(x->tkey, y->tkey);
	} else {
		if (isnan(x->key) || isnan(y->key)) /* missing last either way */
			return isnan(x->key) != isnan(y->key) ? (isnan(x->key) ? 1 : -1)
							      : (x->k > y->k) - (x->k < y->k);
		r = (x->key > y->key) - (x->key < y->key);
	}
	if (sort_ctx->o->desc)
		r = -r;
	return r ? r : (x->k > y->k) - (x->k < y->k);
}

/* ---- rows ----------------------------------------------------------------------- */

static int emit_row(emit *e, const entry *en)
{
	const hs_layer *L = &e->l->v[en->k];
	char label[512];
	hs_strbuf_reset(&e->text);
	for (int d = 1; d < L->depth; d++)
		hs_strbuf_puts(&e->text, "  ");
	if (en->len > 1) {
		layers_run_label(e->l, en->k, en->len, label, sizeof label);
		hs_strbuf_puts(&e->text, label);
	} else {
		hs_strbuf_puts(&e->text, L->name);
	}
	if (e->text.failed)
		return hs_fail(e->p->err, HS_ENOMEM, "out of memory listing the layers");
	int64_t row = query_tb_row(&e->b, L->first_node, -1, e->p->err);
	if (row < 0 || query_tb_text(&e->b, row, LC_LAYER, hs_strbuf_str(&e->text), e->p->err) < 0 ||
	    query_tb_text(&e->b, row, LC_PATH, L->path, e->p->err) < 0 ||
	    query_tb_text(&e->b, row, LC_OPCODES, query_layer_sums_mix(e->p->s, e->sums, en->k), e->p->err) < 0)
		return -1;
	for (int c = 0; c < e->ncols; c++)
		if (c != LC_LAYER && c != LC_PATH && c != LC_OPCODES)
			query_tb_num(&e->b, row, c, entry_num(e, en, c));
	e->rows++;
	e->runs += en->len > 1;
	return 0;
}

/* The rows of the namespaces listed among the siblings from `first` (a
 * top-level list when top), runs folded, sorted, each followed by its
 * children (a run: those of its first block). */
static int emit_level(emit *e, int64_t first, int top)
{
	HS_VEC(entry) v = {0};
	const hs_layers *l = e->l;
	int rc = -1;
	int prev_listed = 0;
	for (int64_t k = first; k >= 0; k = top ? layers_next_sibling(l, k) : l->v[k].next_sibling) {
		if (!e->sums->nodes[k]) {
			prev_listed = 0;
			continue;
		}
		entry *last = v.n ? &v.v[v.n - 1] : NULL;
		int64_t grp = l->v[k].repeat_group;
		if (!e->o->all && last && prev_listed && grp && grp == l->v[last->k].repeat_group) {
			last->len++; /* the block before is the run's last */
			continue;
		}
		prev_listed = 1;
		if (hs_vec_push(&v, ((entry){k, 1, 0, NULL})) != 0)
			goto oom;
	}
	if (e->o->sort_col >= 0) {
		for (size_t i = 0; i < v.n; i++) {
			int c = e->o->sort_col;
			if (c == LC_LAYER || c == LC_PATH || c == LC_OPCODES)
				v.v[i].tkey = entry_text(e, &v.v[i], c);
			else
				v.v[i].key = entry_num(e, &v.v[i], c);
		}
		sort_ctx = e;
		qsort(v.v, v.n, sizeof *v.v, cmp_entry);
	}
	for (size_t i = 0; i < v.n; i++) {
		if (e->o->limit >= 0 && e->rows >= e->o->limit)
			break;
		if (emit_row(e, &v.v[i]) != 0)
			goto done;
		int64_t k = v.v[i].k;
		if ((!e->o->depth || l->v[k].depth < e->o->depth) && l->v[k].first_child >= 0 &&
		    emit_level(e, l->v[k].first_child, 0) != 0)
			goto done;
	}
	rc = 0;
	goto done;
oom:
	hs_fail(e->p->err, HS_ENOMEM, "out of memory listing the layers");
done:
	hs_vec_free(&v);
	return rc;
}

/* keep[v] for the nodes `where` holds for; NULL (and no error) without one. */
static uint8_t *kept_nodes(query_parser *p, const query_expr *where, int64_t *n_kept)
{
	int64_t n = p->s->g->n_nodes, count;
	*n_kept = n;
	if (!where)
		return NULL;
	int64_t *ids = query_filter_rows(p, where, n, &count);
	if (!ids)
		return NULL;
	uint8_t *keep = calloc((size_t)n + 1, 1);
	if (!keep) {
		free(ids);
		query_oom(p);
		return NULL;
	}
	for (int64_t i = 0; i < count; i++)
		keep[ids[i]] = 1;
	free(ids);
	*n_kept = count;
	return keep;
}

static int make_table(emit *e, query_result *out)
{
	const char *names[LC_N + 256];
	query_type types[LC_N + 256];
	e->ncols = LC_N + (e->sums->n_data < 256 ? e->sums->n_data : 256);
	for (int c = 0; c < e->ncols; c++) {
		names[c] = c < LC_N ? col_names[c] : e->sums->data_name[c - LC_N];
		types[c] = c == LC_LAYER || c == LC_PATH || c == LC_OPCODES ? QUERY_TEXT : QUERY_NUM;
	}
	if (query_tb_init(&e->b, out, e->ncols, names, types, e->p->err) < 0)
		return -1;
	query_tb_unit(&e->b, LC_COST, HS_U_SECONDS);
	query_tb_unit(&e->b, LC_FLOPS, HS_U_FLOP);
	query_tb_unit(&e->b, LC_BYTES, HS_U_BYTES);
	return 0;
}

int query_cmd_layers(query_parser *p, query_result *out)
{
	query_session *s = p->s;
	layers_opts o = {0};
	query_layer_sums sums = {0};
	emit e = {.p = p, .o = &o, .sums = &sums};
	uint8_t *keep = NULL;
	int64_t n_kept;
	int rc = -1;

	/* the data fields name sort columns: the session knows them already */
	sums.n_data = query_session_data_nums(s);
	const char *dn[256];
	for (int d = 0; d < sums.n_data && d < 256; d++) {
		const double *val;
		dn[d] = query_session_data_num(s, d, &val);
	}
	sums.data_name = dn;
	if (parse_opts(p, &sums, &o) < 0)
		return -1;
	memset(&sums, 0, sizeof sums);
	if (!(e.l = query_session_layers(s, p->err)))
		return query_data_fail(p, p->err);
	keep = kept_nodes(p, o.where, &n_kept);
	if (o.where && !keep)
		return -1;
	if (query_layer_sums_make(s, keep, &sums, p->err) != 0) {
		query_data_fail(p, p->err);
		goto done;
	}
	if (make_table(&e, out) < 0) {
		query_data_fail(p, p->err);
		goto done;
	}
	int failed = emit_level(&e, 0, 1) != 0;
	query_tb_done(&e.b);
	if (failed) {
		query_data_fail(p, p->err);
		goto done;
	}
	int64_t listed = 0;
	for (int64_t k = 0; k < e.l->n; k++)
		listed += sums.nodes[k] > 0 && (!o.depth || e.l->v[k].depth <= o.depth);
	out->note = query_asprintf("%lld row%s: %lld of %lld namespace%s (depth %d), %lld repeat group%s%s%s; "
				   "%lld of %lld instruction%s%s",
				   (long long)e.rows, hs_s(e.rows), (long long)listed, (long long)e.l->n,
				   hs_s(e.l->n), e.l->max_depth, (long long)e.l->n_groups, hs_s(e.l->n_groups),
				   e.runs ? ", runs of repeats folded (all: every block)" : "",
				   o.limit >= 0 && e.rows >= o.limit ? ", limited" : "", (long long)n_kept,
				   (long long)s->g->n_nodes, hs_s(s->g->n_nodes),
				   o.where ? " match" : "");
	rc = out->note ? 0 : query_oom(p);
done:
	hs_strbuf_free(&e.text);
	query_layer_sums_free(&sums);
	free(keep);
	return rc;
}
