/* filter.c - conditions over a table the caller holds (the explorer's `\`
 * filter): the query language's expressions over the table's columns, as
 * query/query.h describes them ("Filters over a table").  A session in
 * table mode (query_session_new_table) gives the parser the columns as its
 * fields and the evaluator their cells (through query_cells); rows are
 * selected by blocks as `nodes where` selects them.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "query/query_impl.h"

struct query_filter {
	query_session *s;
	query_parser p;   /* owns the expression (its arena and regexes) */
	query_expr *e;
	char *src;        /* what was parsed: the text, or COL~REGEX for plain text */
	char *text;       /* src as it reads back */
	size_t colcap;    /* the size of the session's column buffers */
};

static int word_char(int c)
{
	return isalnum(c) || c == '_';
}

/* 1 when s holds, outside quotes, a comparison (= < >), a match (~) or
 * `in (`: a condition; else it is plain text to look for. */
static int is_condition(const char *s)
{
	char q = 0;

	for (size_t i = 0; s[i]; i++) {
		if (q) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			else if (s[i] == q)
				q = 0;
			continue;
		}
		if (s[i] == '"' || s[i] == '\'')
			q = s[i];
		else if (strchr("=<>~", s[i]))
			return 1;
		else if ((i == 0 || !word_char((unsigned char)s[i - 1])) && !strncasecmp(s + i, "in", 2) &&
			 !word_char((unsigned char)s[i + 2])) {
			size_t j = i + 2;
			while (isspace((unsigned char)s[j]))
				j++;
			if (s[j] == '(')
				return 1;
		}
	}
	return 0;
}

/* Appends text as a string the lexer reads back: "..." with \ and " escaped. */
static void put_quoted(hs_strbuf *b, const char *s, size_t n)
{
	hs_strbuf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' || s[i] == '"')
			hs_strbuf_putc(b, '\\');
		hs_strbuf_putc(b, s[i]);
	}
	hs_strbuf_putc(b, '"');
}

/* Plain text s[0, n) as COL~REGEX: the regex matches it literally, a
 * backslash before each of PCRE2's metacharacters outside a class (\ ^ $ .
 * [ | ( ) ? * + {, and ] } alike; PCRE2 reads a backslash before any
 * other sign as that sign too), quoted when it would not read back as one
 * unquoted chunk. */
static void plain_condition(hs_strbuf *b, const char *col, const char *s, size_t n)
{
	hs_strbuf re = {0};
	int quote = 0;

	for (size_t i = 0; i < n; i++) {
		if (strchr("\\.[]()*+?{}|^$", s[i]))
			hs_strbuf_putc(&re, '\\');
		hs_strbuf_putc(&re, s[i]);
		quote |= isspace((unsigned char)s[i]) || s[i] == ',' || s[i] == '"' || s[i] == '\'' || s[i] == '#';
	}
	hs_strbuf_puts(b, col);
	hs_strbuf_putc(b, '~');
	if (quote)
		put_quoted(b, hs_strbuf_str(&re), re.len);
	else
		hs_strbuf_putn(b, hs_strbuf_str(&re), re.len);
	if (re.failed)
		b->failed = 1;
	hs_strbuf_free(&re);
}

/* Copies the quoted string at s[*i] (escapes kept) to b. */
static void copy_quoted(hs_strbuf *b, const char *s, size_t *i)
{
	char q = s[*i];

	hs_strbuf_putc(b, s[(*i)++]);
	while (s[*i] && s[*i] != q) {
		if (s[*i] == '\\' && s[*i + 1])
			hs_strbuf_putc(b, s[(*i)++]);
		hs_strbuf_putc(b, s[(*i)++]);
	}
	if (s[*i])
		hs_strbuf_putc(b, s[(*i)++]);
}

/* s as it reads back: no spaces around comparisons, after '(' or before
 * ')' and ',', others single; strings and unquoted regexes as written. */
static char *normalize(const char *s)
{
	hs_strbuf b = {0};
	size_t i = 0;
	int space = 0;

	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		if (isspace(c)) {
			space = 1;
			i++;
			continue;
		}
		char last = b.len ? hs_strbuf_str(&b)[b.len - 1] : 0;
		int glue = strchr("=<>~),", c) || (c == '!' && (s[i + 1] == '=' || s[i + 1] == '~')) ||
			   (last && strchr("=<>~(", last));
		if (space && b.len && !glue)
			hs_strbuf_putc(&b, ' ');
		space = 0;
		if (c == '"' || c == '\'') {
			copy_quoted(&b, s, &i);
			continue;
		}
		hs_strbuf_putc(&b, s[i++]);
		if (c != '~')
			continue;
		while (isspace((unsigned char)s[i])) /* the regex: as written */
			i++;
		if (s[i] == '"' || s[i] == '\'')
			copy_quoted(&b, s, &i);
		else
			while (s[i] && !isspace((unsigned char)s[i]))
				hs_strbuf_putc(&b, s[i++]);
	}
	if (!b.len)
		hs_strbuf_puts(&b, "");
	return hs_strbuf_take(&b);
}

void query_filter_free(query_filter *f)
{
	if (!f)
		return;
	query_parser_done(&f->p);
	query_session_free(f->s);
	free(f->src);
	free(f->text);
	free(f);
}

/* The text to parse: s itself when it is a condition, else plain text in
 * column `plain` (trimmed, one pair of quotes around it taken off). */
static char *source(const char *s, const query_column *cols, int ncols, int plain)
{
	size_t n;
	hs_strbuf b = {0};

	if (is_condition(s))
		return strdup(s);
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	plain_condition(&b, plain >= 0 && plain < ncols ? cols[plain].name : "", s, n);
	return hs_strbuf_take(&b);
}

query_filter *query_filter_new(const char *text, const query_column *cols, int ncols, int plain_col,
			       hs_error *err, int *err_col)
{
	query_filter *f = calloc(1, sizeof *f);

	*err_col = 0;
	if (!f || !(f->s = query_session_new_table(cols, ncols, err)) ||
	    !(f->src = source(text, cols, ncols, plain_col)) || !(f->text = normalize(f->src))) {
		if (f && f->s)
			hs_fail(err, HS_ENOMEM, "out of memory reading a filter");
		else if (!f)
			hs_fail(err, HS_ENOMEM, "out of memory reading a filter");
		query_filter_free(f);
		return NULL;
	}
	query_parser_init(&f->p, f->s, f->src, err);
	f->e = query_parse_expr(&f->p);
	if (f->e && query_peek(&f->p)->kind != TK_END)
		query_fail_expected(&f->p, "'and', 'or' or the end of the filter");
	if (!f->e && !f->p.failed)
		query_fail_expected(&f->p, "a condition");
	if (f->p.failed) {
		/* plain text was made here: its columns are none of the user's */
		*err_col = is_condition(text) ? query_error_column(f->s) : 0;
		query_filter_free(f);
		return NULL;
	}
	return f;
}

const char *query_filter_text(const query_filter *f)
{
	return f->text;
}

/* The top-level terms of e joined by `and`, in order, into v (up to cap);
 * returns how many there are. */
static int terms(const query_expr *e, const query_expr **v, int cap, int n)
{
	if (e->kind == QE_AND)
		return terms(e->b, v, cap, terms(e->a, v, cap, n));
	if (n < cap)
		v[n] = e;
	return n + 1;
}

int query_filter_terms(const query_filter *f)
{
	return terms(f->e, NULL, 0, 0);
}

void query_filter_join(const query_filter *f, const char *term, hs_strbuf *out)
{
	int wrap = f->e->kind == QE_OR || (f->e->kind == QE_IN && f->e->op == TK_OR);

	hs_strbuf_printf(out, "%s%s%s and %s", wrap ? "(" : "", f->text, wrap ? ")" : "", term);
}

int64_t query_filter_range(query_filter *f, const query_cells *src, int64_t first, int64_t n,
			   int64_t *keep, hs_error *err)
{
	int64_t rows[QUERY_ROWS], m = 0;

	if (src->cap != f->colcap) { /* buffers of another size: made again on use */
		for (size_t i = 0; i < f->s->n_node_fields; i++) {
			free(f->s->colbuf[i]);
			f->s->colbuf[i] = NULL;
		}
		f->colcap = src->cap;
	}
	f->s->cells = src;
	query_eval_reset(f->s);
	for (int64_t i = 0; i < n && !f->s->eval_err.status; i += QUERY_ROWS) {
		int k = n - i < QUERY_ROWS ? (int)(n - i) : QUERY_ROWS;
		for (int j = 0; j < k; j++)
			rows[j] = first + i + j;
		m += query_select_rows(f->s, f->e, rows, k, keep + m);
	}
	f->s->cells = NULL;
	return query_eval_failed(f->s, err) < 0 ? -1 : m;
}

static int reads_column(const query_expr *e, int col)
{
	if (!e)
		return 0;
	if (e->kind == QE_FIELD && e->field->kind == QF_COLUMN && e->field->index == col)
		return 1;
	if (reads_column(e->a, col) || reads_column(e->b, col))
		return 1;
	for (int i = 0; i < e->nlist; i++)
		if (reads_column(e->list[i], col))
			return 1;
	return 0;
}

char *query_filter_without(const query_filter *f, int col)
{
	int n = query_filter_terms(f), kept = 0;
	const query_expr **v = malloc((size_t)n * sizeof *v);
	hs_strbuf b = {0};

	if (!v)
		return NULL;
	terms(f->e, v, n, 0);
	for (int i = 0; i < n; i++) {
		if (reads_column(v[i], col))
			continue;
		if (kept++)
			hs_strbuf_puts(&b, " and ");
		hs_strbuf_putn(&b, f->src + v[i]->pos, v[i]->len);
	}
	free(v);
	if (!b.len)
		hs_strbuf_puts(&b, "");
	return hs_strbuf_take(&b);
}

int query_filter_term(const query_column *cols, int ncols, int col, const char *op, const char *value,
		      hs_strbuf *out)
{
	size_t n = strlen(value);
	int bare = n && query_word_len(value, n) == n && !query_clause_word(value, n) &&
		   strcasecmp(value, "not") && strcasecmp(value, "in");

	for (int i = 0; bare && i < ncols; i++)
		bare = strcasecmp(cols[i].name, value) != 0;
	hs_strbuf_puts(out, col >= 0 && col < ncols ? cols[col].name : "");
	hs_strbuf_puts(out, op);
	if (bare)
		hs_strbuf_puts(out, value);
	else
		put_quoted(out, value, n);
	return out->failed ? -1 : 0;
}
