/* hlo_parse.c - the HLO text parser's plumbing: errors with their place,
 * token helpers, scratch vectors and name tables (see hlo_parse.h). */
#include "hlo_parse.h"

#include "base/hash.h"
#include "base/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors --------------------------------------------------------- */

static void fill_where(hp *p, int line, int col, size_t pos)
{
	hlo_text_where *w = p->where;
	if (!w)
		return;
	memset(w, 0, sizeof *w);
	w->line = line;
	w->col = col;
	if (pos > p->lx.n || (size_t)(col - 1) > pos)
		return;
	size_t ls = pos - (size_t)(col - 1);
	const char *nl = memchr(p->lx.buf + ls, '\n', p->lx.n - ls);
	size_t le = nl ? (size_t)(nl - p->lx.buf) : p->lx.n;
	size_t from = ls;
	if (pos - ls > 70)
		from = pos - 70;
	size_t k = 0;
	for (size_t i = from; i < le && k + 1 < sizeof w->text; i++) {
		unsigned char c = (unsigned char)p->lx.buf[i];
		w->text[k++] = c == '\t' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	w->text[k] = '\0';
	w->text_col = (int)(pos - from) + 1;
}

int hp_fail_at(hp *p, int line, int col, size_t pos, const char *fmt, ...)
{
	char msg[sizeof p->err->msg];
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hs_fail(p->err, HS_EDATA, "%s:%d:%d: %s", p->file, line, col, msg);
	fill_where(p, line, col, pos);
	return -1;
}

int hp_fail(hp *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hp_fail_at(p, p->tok.line, p->tok.col, p->tok.pos, "%s", msg);
}

int hp_stop_if_asked(hp *p)
{
	if (p->halt && *p->halt) {
		p->failed = 1;    /* the other half failed: the split is given up */
		return -1;
	}
	if (!hs_progress_tick("reading", (double)p->tok.pos, (double)p->lx.n))
		return 0;
	if (!p->failed) {
		p->failed = 1;
		hs_fail(p->err, HS_ESTOPPED, "%s: stopped while reading (line %d)", p->file, p->tok.line);
	}
	return -1;
}

int hp_oom(hp *p)
{
	if (p->failed)
		return -1;
	p->failed = 1;
	hs_fail(p->err, HS_ENOMEM, "%s: out of memory", p->file);
	return -1;
}

/* The current token as messages show it: 'text' (shortened) or what. */
static void tok_text(const hlo_tok *t, char *buf, size_t cap)
{
	if (t->kind == HT_EOF) {
		snprintf(buf, cap, "end of input");
		return;
	}
	size_t len = t->len > 40 ? 40 : t->len;
	snprintf(buf, cap, "'%s%.*s%s'", t->pct ? "%" : "", (int)len, t->text,
		 len < t->len ? "..." : "");
}

static int lex_error(hp *p)
{
	unsigned char c = (unsigned char)p->tok.text[0];
	if (p->tok.msg && strcmp(p->tok.msg, "unexpected character") == 0) {
		if (c > 0x20 && c < 0x7f)
			return hp_fail(p, "unexpected character '%c'", c);
		return hp_fail(p, "unexpected byte 0x%02x", c);
	}
	return hp_fail(p, "%s", p->tok.msg ? p->tok.msg : "bad input");
}

int hp_expected(hp *p, const char *what)
{
	char found[64];

	if (p->tok.kind == HT_ERROR)
		return lex_error(p);
	tok_text(&p->tok, found, sizeof found);
	return hp_fail(p, "expected %s, found %s", what, found);
}

/* ---- tokens --------------------------------------------------------- */

void hp_next(hp *p)
{
	p->prev_end = p->tok.end;
	hlo_lex_next(&p->lx, &p->tok);
}

int hp_accept(hp *p, hlo_tok_kind k)
{
	if (p->tok.kind != k)
		return 0;
	hp_next(p);
	return 1;
}

int hp_expect(hp *p, hlo_tok_kind k, const char *context)
{
	char what[128];

	if (hp_accept(p, k))
		return 0;
	snprintf(what, sizeof what, "%s%s%s", hlo_tok_kind_name(k),
		 context && *context ? " " : "", context ? context : "");
	return hp_expected(p, what);
}

int hp_is_word(const hp *p, const char *w)
{
	size_t n = strlen(w);
	return p->tok.kind == HT_WORD && !p->tok.pct && p->tok.len == n &&
	       memcmp(p->tok.text, w, n) == 0;
}

hlo_tok_kind hp_peek(const hp *p)
{
	hlo_lex copy = p->lx;
	hlo_tok t;
	hlo_lex_next(&copy, &t);
	return t.kind;
}

int hp_int(hp *p, int64_t *v, const char *what)
{
	if (p->tok.kind != HT_INT)
		return hp_expected(p, what);
	const char *s = p->tok.text;
	size_t n = p->tok.len, i = 0;
	int neg = 0;
	uint64_t x = 0;
	if (s[0] == '-') {
		neg = 1;
		i = 1;
	}
	for (; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return hp_fail(p, "number '%.*s' is out of range", (int)(n > 40 ? 40 : n), s);
		x = x * 10 + d;
	}
	if ((!neg && x > (uint64_t)INT64_MAX) || (neg && x > (uint64_t)INT64_MAX + 1))
		return hp_fail(p, "number '%.*s' is out of range", (int)(n > 40 ? 40 : n), s);
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	hp_next(p);
	return 0;
}

int hp_name(hp *p, const char **s, size_t *len, const char *what)
{
	if (p->tok.kind != HT_WORD)
		return hp_expected(p, what);
	*s = p->tok.text;
	*len = p->tok.len;
	hp_next(p);
	return 0;
}

int hp_string(hp *p, char **out, const char *what)
{
	size_t bad, n;

	if (p->tok.kind != HT_STRING)
		return hp_expected(p, what);
	const char *body = p->tok.text + 1;
	size_t blen = p->tok.len - 2;
	char *s = hs_arena_alloc(p->a, blen + 1);
	if (!s)
		return hp_oom(p);
	if (hlo_unescape(body, blen, s, &n, &bad) != 0)
		return hp_fail_at(p, p->tok.line, p->tok.col + 1 + (int)bad,
				  p->tok.pos + 1 + bad, "bad escape in string");
	if (memchr(s, '\0', n))
		return hp_fail(p, "string holds a NUL byte");
	s[n] = '\0';
	*out = s;
	hp_next(p);
	return 0;
}

int hp_raw(hp *p, int flags, char **out, const char *what)
{
	size_t bad_pos = 0;
	const char *bad_msg = NULL;

	if (p->tok.kind == HT_ERROR)
		return hp_expected(p, what);
	size_t start = p->tok.pos;
	long end = hlo_lex_scan(&p->lx, start, flags, HLO_TEXT_MAX_DEPTH, &bad_pos, &bad_msg);
	if (end < 0) {
		/* the bad place is at or after the current token, whose line
		 * start is known */
		int line = p->tok.line;
		size_t ls = p->tok.pos - (size_t)(p->tok.col - 1);
		for (size_t i = ls; i < bad_pos; i++)
			if (p->lx.buf[i] == '\n') {
				line++;
				ls = i + 1;
			}
		if (strcmp(bad_msg, "nesting too deep") == 0)
			return hp_fail_at(p, line, (int)(bad_pos - ls) + 1, bad_pos,
					  "brackets in %s nested deeper than %d levels", what,
					  HLO_TEXT_MAX_DEPTH);
		return hp_fail_at(p, line, (int)(bad_pos - ls) + 1, bad_pos, "%s in %s",
				  bad_msg, what);
	}
	if ((size_t)end == start)
		return hp_expected(p, what);
	*out = hs_arena_strndup(p->a, p->lx.buf + start, (size_t)end - start);
	if (!*out)
		return hp_oom(p);
	/* the lexer already stands after the current token; move on to the
	 * end of the value and take the next token from there */
	if ((size_t)end > p->lx.pos)
		hlo_lex_seek(&p->lx, (size_t)end);
	hp_next(p);
	p->prev_end = (size_t)end;
	return 0;
}

int hp_int_list(hp *p, int64_t **out, int *n, const char *what)
{
	p->ints.n = 0;
	if (hp_expect(p, HT_LBRACE, what) != 0)
		return -1;
	if (p->tok.kind != HT_RBRACE) {
		for (;;) {
			int64_t v;
			if (hp_int(p, &v, "an integer") != 0 || HP_PUSH(p, ints, v) != 0)
				return -1;
			if (!hp_accept(p, HT_COMMA))
				break;
		}
	}
	if (hp_expect(p, HT_RBRACE, what) != 0)
		return -1;
	*n = (int)p->ints.n;
	*out = hp_arena_copy(p, &p->ints);
	return p->ints.n && !*out ? -1 : 0;
}

/* ---- scratch vectors ------------------------------------------------ */

void *hp_arena_copy_raw(hp *p, const void *v, size_t n, size_t elem)
{
	if (n == 0)
		return NULL;
	void *a = hs_arena_array(p->a, n, elem);
	if (!a) {
		hp_oom(p);
		return NULL;
	}
	memcpy(a, v, n * elem);
	return a;
}

/* ---- what instructions share ------------------------------------------ */

/* Keeps v (of length n) under hash h; past HP_SHARED_MAX, or out of
 * memory, it is not kept (sharing is a saving, not a need). */
static void intern_add(hp_intern *t, uint32_t h, const void *v, size_t n)
{
	if (t->v.n >= HP_SHARED_MAX || hs_vec_push(&t->v, ((struct hp_interned){v, n})) != 0)
		return;
	if (hs_index_add(&t->ix, h, (int32_t)t->v.n - 1) != 0)
		t->v.n--;
}

void hp_intern_free(hp_intern *t)
{
	hs_index_free(&t->ix);
	hs_vec_free(&t->v);
}

static int same_i64s(const void *ctx, int32_t e, const void *key)
{
	const struct hp_interned *kept = &((const hp_intern *)ctx)->v.v[e], *k = key;
	return kept->n == k->n && memcmp(kept->v, k->v, k->n * sizeof(int64_t)) == 0;
}

int64_t *hp_shared_i64(hp *p, const int64_t *v, size_t n)
{
	if (n == 0)
		return NULL;
	uint32_t h = (uint32_t)hs_fnv1a_bytes(v, n * sizeof *v, HS_FNV_BASIS);
	int32_t e = hs_index_find(&p->arrays.ix, h, same_i64s, &p->arrays, &(struct hp_interned){v, n});
	if (e >= 0)
		return (int64_t *)p->arrays.v.v[e].v;   /* read only: the header says so */
	int64_t *copy = hp_arena_copy_raw(p, v, n, sizeof *v);
	if (copy)
		intern_add(&p->arrays, h, copy, n);
	return copy;
}

static uint64_t shape_hash(const hm_shape *s, int depth)
{
	uint64_t h = hs_fnv1a_bytes(&s->element_type, sizeof s->element_type, HS_FNV_BASIS);
	h = hs_fnv1a_bytes(s->dims, (size_t)s->rank * sizeof *s->dims, h ^ (uint64_t)s->rank);
	h = hs_fnv1a_bytes(s->minor_to_major, (size_t)s->layout_rank * sizeof *s->minor_to_major,
			   h ^ (uint64_t)s->layout_rank << 8 ^ (uint64_t)s->has_layout << 16);
	if (s->dynamic)
		h = hs_fnv1a_bytes(s->dynamic, (size_t)s->rank, h ^ 1);
	if (s->layout_extra)
		h = hs_fnv1a(s->layout_extra, h ^ 2);
	for (int i = 0; i < s->n_tuple && depth < 64; i++)
		h = (h ^ shape_hash(&s->tuple[i], depth + 1)) * HS_FNV_PRIME;
	return h ^ (uint64_t)s->n_tuple << 24;
}

static int shape_same(const hm_shape *a, const hm_shape *b, int depth)
{
	if (a->element_type != b->element_type || a->rank != b->rank || a->has_layout != b->has_layout ||
	    a->layout_rank != b->layout_rank || a->n_tuple != b->n_tuple || !a->dynamic != !b->dynamic ||
	    !a->layout_extra != !b->layout_extra || depth > 64)
		return 0;
	if ((a->rank && memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims)) ||
	    (a->layout_rank &&
	     memcmp(a->minor_to_major, b->minor_to_major, (size_t)a->layout_rank * sizeof *a->minor_to_major)) ||
	    (a->dynamic && memcmp(a->dynamic, b->dynamic, (size_t)a->rank)) ||
	    (a->layout_extra && strcmp(a->layout_extra, b->layout_extra)))
		return 0;
	for (int i = 0; i < a->n_tuple; i++)
		if (!shape_same(&a->tuple[i], &b->tuple[i], depth + 1))
			return 0;
	return 1;
}

static int same_shapes(const void *ctx, int32_t e, const void *key)
{
	return shape_same(((const hp_intern *)ctx)->v.v[e].v, key, 0);
}

const hm_shape *hp_shared_shape(hp *p, const hm_shape *s)
{
	uint32_t h = (uint32_t)shape_hash(s, 0);
	int32_t e = hs_index_find(&p->shapes.ix, h, same_shapes, &p->shapes, s);
	if (e >= 0)
		return p->shapes.v.v[e].v;
	hm_shape *copy = hs_arena_alloc(p->a, sizeof *copy);
	if (!copy) {
		hp_oom(p);
		return NULL;
	}
	*copy = *s;   /* its arrays are in the arena already */
	intern_add(&p->shapes, h, copy, 0);
	return copy;
}

/* ---- name tables ---------------------------------------------------- */

static uint32_t name_hash(const char *s, size_t n)
{
	return hs_fnv1a32_bytes(s, n, HS_FNV32_BASIS);
}

struct name_key {
	const hp *p;
	const char *name;
	size_t len;
};

/* Whether entry e of the names (a computation, or an instruction: one
 * being added is not in p->instrs yet, but is never looked at before it
 * is) is key's name. */
static int comp_named(const void *ctx, int32_t e, const void *key)
{
	const struct name_key *k = key;
	const char *n = k->p->comps.v[e].name;
	return strncmp(n, k->name, k->len) == 0 && n[k->len] == '\0';
}

static int instr_named(const void *ctx, int32_t e, const void *key)
{
	const struct name_key *k = key;
	const char *n = k->p->instrs.v[e].name;
	return strncmp(n, k->name, k->len) == 0 && n[k->len] == '\0';
}

int hp_names_find(const hp *p, const hp_names *t, const char *name, size_t len)
{
	struct name_key k = {p, name, len};
	uint32_t h = name_hash(name, len);
	return t->comps ? hs_index_find(&t->ix, h, comp_named, NULL, &k)
			: hs_index_find(&t->ix, h, instr_named, NULL, &k);
}

int hp_names_add(hp *p, hp_names *t, const char *name, size_t len, int idx)
{
	return hs_index_add(&t->ix, name_hash(name, len), idx) == 0 ? 0 : hp_oom(p);
}

void hp_names_clear(hp_names *t)
{
	hs_index_clear(&t->ix);
}
