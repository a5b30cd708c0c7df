/* table.c - the result tables and number formatting of the query language.
 *
 * A result table's cells live in one block that starts with a hidden header
 * holding the arena (base/arena.h) where its text cells are stored, so that
 * query_table_free() can release everything from the public struct alone.
 * Text cells are interned while a table is built: a column of 40,000 opcode
 * names stores each name once.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/index.h"
#include "base/vec.h"
#include "query/query_impl.h"

/* ---- tables --------------------------------------------------------- */

/* The block behind query_table.cells. */
struct cell_block {
	hs_arena strings;
	size_t pad;
	query_cell cells[];
};

static struct cell_block *block_of(const query_table *t)
{
	if (!t->cells)
		return NULL;
	return (struct cell_block *)((char *)t->cells - offsetof(struct cell_block, cells));
}

/* Interning: the texts kept, found by content. */
struct query_strpool {
	hs_index ix;
	HS_VEC(const char *) s;
};

static int same_text(const void *p, int32_t e, const void *text)
{
	return strcmp(((const struct query_strpool *)p)->s.v[e], text) == 0;
}

int query_tb_init(query_tb *b, query_result *r, int ncols,
		  const char *const *names, const query_type *types,
		  hs_error *err)
{
	query_table *t = &r->table;

	memset(b, 0, sizeof *b);
	b->r = r;
	r->kind = QUERY_TABLE;
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->cols = calloc((size_t)ncols + 1, sizeof *t->cols);
	t->types = calloc((size_t)ncols + 1, sizeof *t->types);
	t->units = calloc((size_t)ncols + 1, sizeof *t->units);
	struct cell_block *blk = calloc(1, sizeof *blk);
	b->pool = calloc(1, sizeof *b->pool);
	if (!t->cols || !t->types || !t->units || !blk || !b->pool) {
		free(blk);
		goto oom;
	}
	t->cells = blk->cells;
	for (int i = 0; i < ncols; i++) {
		t->cols[i] = strdup(names[i]);
		if (!t->cols[i])
			goto oom;
		t->types[i] = types[i];
	}
	return 0;
oom:
	query_tb_done(b);
	query_table_free(t);
	return hs_fail(err, HS_ENOMEM, "out of memory building a table of %d columns", ncols);
}

void query_tb_unit(query_tb *b, int col, int unit)
{
	b->r->table.units[col] = (unsigned char)unit;
}

int query_tb_row_unit(query_tb *b, int64_t row, int unit, hs_error *err)
{
	query_table *t = &b->r->table;

	if (!t->row_unit) {
		t->row_unit = calloc(b->cap ? b->cap : 1, 1);
		if (!t->row_unit)
			return hs_fail(err, HS_ENOMEM, "out of memory for a table's units");
	}
	t->row_unit[row] = (unsigned char)unit;
	return 0;
}

void query_tb_done(query_tb *b)
{
	if (b->pool) {
		hs_index_free(&b->pool->ix);
		hs_vec_free(&b->pool->s);
		free(b->pool);
		b->pool = NULL;
	}
}

int query_tb_reserve(query_tb *b, size_t n, hs_error *err)
{
	query_table *t = &b->r->table;

	if (n <= b->cap)
		return 0;
	size_t ncols = (size_t)t->ncols;
	struct cell_block *blk = block_of(t);
	if (n > (SIZE_MAX - sizeof *blk) / (ncols ? ncols : 1) / sizeof(query_cell) ||
	    n > SIZE_MAX / sizeof(int64_t))
		return hs_fail(err, HS_ENOMEM, "out of memory for a table of %zu rows", n);
	size_t bytes = sizeof *blk + n * ncols * sizeof(query_cell);
	struct cell_block *nb = realloc(blk, bytes);
	if (!nb)
		return hs_fail(err, HS_ENOMEM, "out of memory for a table of %zu rows", n);
	t->cells = nb->cells;
	int64_t *node = realloc(t->node, n * sizeof *node);
	if (node)
		t->node = node;
	int64_t *config = realloc(t->config, n * sizeof *config);
	if (config)
		t->config = config;
	unsigned char *ru = t->row_unit ? realloc(t->row_unit, n) : NULL;
	if (ru) {
		memset(ru + b->cap, 0, n - b->cap);
		t->row_unit = ru;
	}
	if (!node || !config || (t->row_unit && !ru))
		return hs_fail(err, HS_ENOMEM, "out of memory for a table of %zu rows", n);
	b->cap = n;
	return 0;
}

int64_t query_tb_row(query_tb *b, int64_t node, int64_t config, hs_error *err)
{
	query_table *t = &b->r->table;

	if ((size_t)t->nrows == b->cap &&
	    query_tb_reserve(b, b->cap ? b->cap * 2 : 16, err) < 0)
		return -1;
	int64_t r = t->nrows++;
	query_cell *c = &t->cells[(size_t)r * (size_t)t->ncols];
	for (int i = 0; i < t->ncols; i++) {
		c[i].num = t->types[i] == QUERY_NUM ? NAN : 0;
		c[i].text = "";
	}
	t->node[r] = node;
	t->config[r] = config;
	return r;
}

int query_tb_num(query_tb *b, int64_t row, int col, double v)
{
	query_table *t = &b->r->table;

	t->cells[(size_t)row * (size_t)t->ncols + (size_t)col].num = v;
	return 0;
}

const char *query_tb_str(query_tb *b, const char *text, hs_error *err)
{
	struct query_strpool *p = b->pool;
	struct cell_block *blk = block_of(&b->r->table);

	if (!text || !*text)
		return "";
	uint32_t h = (uint32_t)hs_fnv1a(text, HS_FNV_BASIS);
	int32_t e = hs_index_find(&p->ix, h, same_text, p, text);
	if (e >= 0)
		return p->s.v[e];
	char *copy = hs_arena_strndup(&blk->strings, text, strlen(text));
	if (!copy || p->s.n >= HS_INDEX_MAX || hs_vec_push(&p->s, copy) != 0 ||
	    hs_index_add(&p->ix, h, (int32_t)p->s.n - 1) != 0)
		goto oom;
	return copy;
oom:
	hs_fail(err, HS_ENOMEM, "out of memory storing table text");
	return NULL;
}

int query_tb_text(query_tb *b, int64_t row, int col, const char *text,
		  hs_error *err)
{
	query_table *t = &b->r->table;
	const char *s = query_tb_str(b, text, err);

	if (!s)
		return -1;
	t->cells[(size_t)row * (size_t)t->ncols + (size_t)col].text = s;
	return 0;
}

void query_table_free(query_table *t)
{
	struct cell_block *blk = block_of(t);

	if (t->cols)
		for (int i = 0; i < t->ncols; i++)
			free(t->cols[i]);
	free(t->cols);
	free(t->types);
	free(t->units);
	free(t->row_unit);
	if (blk) {
		hs_arena_free(&blk->strings);
		free(blk);
	}
	free(t->node);
	free(t->config);
	free(t->path);
	memset(t, 0, sizeof *t);
}
