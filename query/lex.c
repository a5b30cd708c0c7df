/* lex.c - tokens of the query language, error positions and suggestions.
 *
 * Tokens are lexed on demand, so a command can take the rest of its line
 * raw (a file path) instead of as tokens.  Words are [A-Za-z_][A-Za-z0-9_]*
 * and, when the hyphenated whole is an HLO opcode name, may go on with
 * "-word" parts: `get-tuple-element` is one word, `users-operands` is a
 * subtraction.  '#' starts a comment that runs to the end of the line.  A
 * number may end in a unit ("12us", "12 us", "2.1 GB", "5%": a '%' that no
 * operand follows); the parser converts it to the unit of what it is
 * compared with.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "query/query_impl.h"

void query_parser_init(query_parser *p, query_session *s, const char *line,
		       hs_error *err)
{
	memset(p, 0, sizeof *p);
	p->src = line;
	p->n = strlen(line);
	p->s = s;
	p->err = err;
	p->scope = QS_NODE;
	s->err_col = 0;
}

void query_parser_done(query_parser *p)
{
	for (size_t i = 0; i < p->n_regexes; i++)
		hs_regex_free(p->regexes[i]);
	free(p->regexes);
	p->regexes = NULL;
	p->n_regexes = p->cap_regexes = 0;
	hs_arena_free(&p->arena);
}

int query_fail_at(query_parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = 1;
	va_start(ap, fmt);
	hs_vfail(p->err, HS_EUSAGE, fmt, ap);
	va_end(ap);
	p->s->err_col = (int)(pos < p->n ? pos : p->n) + 1;
	return -1;
}

int query_fail_oom(query_parser *p, const char *what)
{
	if (p->failed)
		return -1;
	p->failed = 1;
	hs_fail(p->err, HS_ENOMEM, "out of memory %s", what);
	p->s->err_col = 0;
	return -1;
}

static int is_word_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_word_char(int c)
{
	return isalnum(c) || c == '_';
}

/* Canonical opcode name match: hlo_opcode_id() is lenient ("opcode-N",
 * '_' for '-'); a hyphenated word must spell a real name. */
static int is_opcode_spelling(const char *w, size_t n)
{
	char buf[64];

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, w, n);
	buf[n] = '\0';
	int id = hlo_opcode_id(buf);
	if (id < 0 || id > HLO_MAX_OPCODE)
		return 0;
	return strcasecmp(hlo_opcode_name(id), buf) == 0;
}

static size_t lex_word_len(const char *s, size_t i, size_t n)
{
	size_t end = i;

	while (end < n && is_word_char((unsigned char)s[end]))
		end++;
	/* Try hyphen extensions; keep the longest that spells an opcode. */
	size_t best = end, j = end;
	while (j + 1 < n && s[j] == '-' && is_word_char((unsigned char)s[j + 1])) {
		j++;
		while (j < n && is_word_char((unsigned char)s[j]))
			j++;
		if (is_opcode_spelling(s + i, j - i))
			best = j;
	}
	return best - i;
}

/* Words that end an operand: they never start one. */
int query_clause_word(const char *w, size_t n)
{
	static const char *const words[] = {"and", "or", "sort", "limit", "show", "where", "by", "asc", "desc"};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && !strncasecmp(w, words[i], n))
			return 1;
	return 0;
}

/* 1 when no operand starts at s[i] (after spaces): the end, a closing or
 * comparing sign, or a clause word; so a '%' before it is a percentage. */
static int no_operand_at(const char *s, size_t i, size_t n)
{
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i >= n || strchr(")],=<>!~&|#", s[i]))
		return 1;
	if (!is_word_start((unsigned char)s[i]))
		return 0;
	size_t e = i;
	while (e < n && is_word_char((unsigned char)s[e]))
		e++;
	return query_clause_word(s + i, e - i);
}

/* The end of a unit after the number that ends at j ("12us", "12 us",
 * "5%"), or j when none follows. */
static size_t unit_end(const char *s, size_t j, size_t n)
{
	size_t k = j;

	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	size_t u = hs_unit_suffix(s + k, n - k);
	if (!u || (s[k] == '%' && !no_operand_at(s, k + 1, n)))
		return j;
	return k + u;
}

static int lex_number(query_parser *p, size_t i, query_token *t)
{
	const char *s = p->src;
	size_t j = i;

	while (j < p->n && isdigit((unsigned char)s[j]))
		j++;
	if (j < p->n && s[j] == '.') {
		j++;
		while (j < p->n && isdigit((unsigned char)s[j]))
			j++;
	}
	if (j < p->n && (s[j] == 'e' || s[j] == 'E')) {
		size_t k = j + 1;
		if (k < p->n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < p->n && isdigit((unsigned char)s[k])) {
			while (k < p->n && isdigit((unsigned char)s[k]))
				k++;
			j = k;
		}
	}
	size_t end = unit_end(s, j, p->n);
	if (end == j && j < p->n && (is_word_char((unsigned char)s[j]) || s[j] == '.')) {
		size_t k = j;
		while (k < p->n && (is_word_char((unsigned char)s[k]) || s[k] == '.'))
			k++;
		return query_fail_at(p, i, "bad number '%.*s' at column %zu", (int)(k - i),
				     s + i, i + 1);
	}
	char buf[128];
	if (j - i >= sizeof buf)
		return query_fail_at(p, i, "number too long at column %zu", i + 1);
	memcpy(buf, s + i, j - i);
	buf[j - i] = '\0';
	t->kind = TK_NUM;
	t->num = strtod(buf, NULL);
	t->unit = end > j;
	t->len = end - i;
	return 0;
}

static int lex_string(query_parser *p, size_t i, query_token *t)
{
	const char *s = p->src;
	char q = s[i];
	size_t j = i + 1;
	char *out = hs_arena_alloc(&p->arena, p->n - i + 1);
	size_t o = 0;

	if (!out)
		return query_fail_oom(p, "reading a string");
	while (j < p->n && s[j] != q) {
		char c = s[j];
		if (c == '\\' && j + 1 < p->n) {
			j++;
			switch (s[j]) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '\\':
			case '"':
			case '\'':
				c = s[j];
				break;
			default:
				/* Other escapes stay as written, so regexes read
				 * naturally: "f32\[" is the regex f32\[. */
				out[o++] = '\\';
				c = s[j];
				break;
			}
		}
		out[o++] = c;
		j++;
	}
	if (j >= p->n)
		return query_fail_at(p, i, "unterminated string starting at column %zu", i + 1);
	out[o] = '\0';
	t->kind = TK_STR;
	t->str = out;
	t->len = j + 1 - i;
	return 0;
}

static void lex(query_parser *p)
{
	const char *s = p->src;
	size_t i = p->pos;
	query_token *t = &p->tok;

	while (i < p->n && isspace((unsigned char)s[i]))
		i++;
	memset(t, 0, sizeof *t);
	t->pos = i;
	p->have = 1;
	if (i >= p->n || s[i] == '#') {
		t->kind = TK_END;
		t->pos = p->n;
		return;
	}
	int c = (unsigned char)s[i];
	int c2 = i + 1 < p->n ? (unsigned char)s[i + 1] : 0;
	int rc = 0;
	t->len = 1;
	if (isdigit(c) || (c == '.' && isdigit(c2))) {
		rc = lex_number(p, i, t);
	} else if (c == '"' || c == '\'') {
		rc = lex_string(p, i, t);
	} else if (is_word_start(c)) {
		t->kind = TK_WORD;
		t->len = lex_word_len(s, i, p->n);
		t->str = hs_arena_strndup(&p->arena, s + i, t->len);
		if (!t->str)
			rc = query_fail_oom(p, "reading a word");
	} else {
		switch (c) {
		case '(': t->kind = TK_LP; break;
		case ')': t->kind = TK_RP; break;
		case ',': t->kind = TK_COMMA; break;
		case '*': t->kind = TK_STAR; break;
		case '+': t->kind = TK_PLUS; break;
		case '-': t->kind = TK_MINUS; break;
		case '/': t->kind = TK_SLASH; break;
		case '%': t->kind = TK_PCT; break;
		case '~': t->kind = TK_MATCH; break;
		case '=':
			t->kind = TK_EQ;
			if (c2 == '=')
				t->len = 2;
			break;
		case '!':
			if (c2 == '=') {
				t->kind = TK_NE;
				t->len = 2;
			} else if (c2 == '~') {
				t->kind = TK_NMATCH;
				t->len = 2;
			} else {
				t->kind = TK_NOT;
			}
			break;
		case '<':
			t->kind = TK_LT;
			if (c2 == '=') {
				t->kind = TK_LE;
				t->len = 2;
			} else if (c2 == '>') {
				t->kind = TK_NE;
				t->len = 2;
			}
			break;
		case '>':
			t->kind = TK_GT;
			if (c2 == '=') {
				t->kind = TK_GE;
				t->len = 2;
			}
			break;
		case '&':
			if (c2 == '&') {
				t->kind = TK_AND;
				t->len = 2;
				break;
			}
			rc = -1;
			break;
		case '|':
			if (c2 == '|') {
				t->kind = TK_OR;
				t->len = 2;
				break;
			}
			rc = -1;
			break;
		default:
			rc = -1;
			break;
		}
		if (rc < 0) {
			if (isprint(c))
				query_fail_at(p, i, "unexpected character '%c' at column %zu", c, i + 1);
			else
				query_fail_at(p, i, "unexpected byte 0x%02x at column %zu", c, i + 1);
		}
	}
	if (rc < 0 || p->failed) {
		t->kind = TK_END;
		t->pos = i;
		t->len = 0;
		p->pos = p->n;
		return;
	}
	p->pos = i + t->len;
}

const query_token *query_peek(query_parser *p)
{
	if (!p->have)
		lex(p);
	return &p->tok;
}

void query_advance(query_parser *p)
{
	if (!p->have)
		lex(p);
	p->have = 0;
}

int query_at_kw(query_parser *p, const char *kw)
{
	const query_token *t = query_peek(p);

	return t->kind == TK_WORD && strcasecmp(t->str, kw) == 0;
}

int query_accept_kw(query_parser *p, const char *kw)
{
	if (!query_at_kw(p, kw))
		return 0;
	query_advance(p);
	return 1;
}

int query_accept(query_parser *p, int kind)
{
	if (query_peek(p)->kind != kind)
		return 0;
	query_advance(p);
	return 1;
}

/* Start of the unconsumed text: the current token when one is lexed. */
static size_t rest_start(query_parser *p)
{
	size_t i = p->have ? p->tok.pos : p->pos;

	while (i < p->n && isspace((unsigned char)p->src[i]))
		i++;
	return i;
}

static char *unquote(query_parser *p, const char *s, size_t n)
{
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	return hs_arena_strndup(&p->arena, s, n);
}

char *query_rest(query_parser *p)
{
	size_t i = rest_start(p), e = p->n;

	while (e > i && isspace((unsigned char)p->src[e - 1]))
		e--;
	p->pos = p->n;
	p->have = 0;
	return unquote(p, p->src + i, e - i);
}

char *query_raw_word(query_parser *p, size_t *pos)
{
	size_t i = rest_start(p), e = i;

	if (pos)
		*pos = i;
	if (i < p->n && (p->src[i] == '"' || p->src[i] == '\'')) {
		char q = p->src[i];
		e = i + 1;
		while (e < p->n && p->src[e] != q)
			e++;
		if (e >= p->n) {
			query_fail_at(p, i, "unterminated string starting at column %zu", i + 1);
			return NULL;
		}
		e++;
	} else {
		while (e < p->n && !isspace((unsigned char)p->src[e]))
			e++;
	}
	p->pos = e;
	p->have = 0;
	return unquote(p, p->src + i, e - i);
}

/* An unquoted regular expression from the next non-space byte: up to a
 * space, or a ')' or ',' that no bracket of its own opened (a backslash
 * escapes the byte after it); -1 with an error when there is none. */
static int raw_regex(query_parser *p, query_token *t)
{
	const char *s = p->src;
	size_t i = p->pos, e;
	int depth = 0;

	while (i < p->n && isspace((unsigned char)s[i]))
		i++;
	for (e = i; e < p->n && !isspace((unsigned char)s[e]); e++) {
		if (s[e] == '\\' && e + 1 < p->n) {
			e++;
			continue;
		}
		if (strchr("([{", s[e]))
			depth++;
		else if (strchr(")]}", s[e]) && depth > 0)
			depth--;
		else if ((s[e] == ')' || s[e] == ',') && depth == 0)
			break;
	}
	memset(t, 0, sizeof *t);
	t->kind = TK_STR;
	t->pos = i;
	t->len = e - i;
	if (e == i || s[i] == '#')
		return -1;
	t->str = hs_arena_strndup(&p->arena, s + i, e - i);
	if (!t->str)
		return query_fail_oom(p, "reading a regular expression");
	p->pos = e;
	p->have = 0;
	return 0;
}

int query_regex_token(query_parser *p, query_token *t)
{
	size_t i = p->have ? p->tok.pos : p->pos;

	while (i < p->n && isspace((unsigned char)p->src[i]))
		i++;
	if (p->have || (i < p->n && (p->src[i] == '"' || p->src[i] == '\''))) {
		*t = *query_peek(p);
		if (t->kind != TK_STR && t->kind != TK_WORD)
			return query_fail_expected(p, "a regular expression (a string or a word)");
		query_advance(p);
		return 0;
	}
	if (raw_regex(p, t) == 0)
		return 0;
	if (p->failed)
		return -1;
	return query_fail_expected(p, "a regular expression (a string or a word)");
}

size_t query_word_len(const char *s, size_t n)
{
	return n && is_word_start((unsigned char)s[0]) ? lex_word_len(s, 0, n) : 0;
}

const char *query_tok_desc(query_parser *p, char *buf, size_t cap)
{
	const query_token *t = query_peek(p);

	if (t->kind == TK_END)
		return "end of line";
	int n = (int)(t->len > 40 ? 40 : t->len);
	snprintf(buf, cap, "'%.*s%s'", n, p->src + t->pos, t->len > 40 ? "..." : "");
	return buf;
}

int query_fail_expected(query_parser *p, const char *what)
{
	char d[64];
	const query_token *t = query_peek(p);
	const char *desc = query_tok_desc(p, d, sizeof d);

	if (t->kind == TK_END)
		return query_fail_at(p, t->pos, "expected %s at column %zu, found end of line",
				     what, t->pos + 1);
	return query_fail_at(p, t->pos, "unexpected %s at column %zu (expected %s)", desc,
			     t->pos + 1, what);
}

/* ---- suggestions ---------------------------------------------------- */

static int same_char(char x, char y)
{
	return tolower((unsigned char)x) == tolower((unsigned char)y);
}

/* Optimal string alignment distance (a swap of two neighbours costs 1),
 * case-insensitive; anything over `limit` is reported as limit + 1. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t na = strlen(a), nb = strlen(b);
	size_t d[64][64];

	if (na >= 63 || nb >= 63)
		return limit + 1;
	if ((na > nb ? na - nb : nb - na) > limit)
		return limit + 1;
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++) {
		for (size_t j = 1; j <= nb; j++) {
			size_t v = d[i - 1][j - 1] + !same_char(a[i - 1], b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) &&
			    same_char(a[i - 2], b[j - 1]) && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[na][nb] > limit ? limit + 1 : d[na][nb];
}

const char *query_suggest(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word);
	size_t limit = len <= 3 ? 1 : len <= 8 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = limit + 1;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, names[i], limit);
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	if (best)
		return best;
	/* The first name that starts with the word ("shape_dim" and friends). */
	if (len >= 3) {
		for (size_t i = 0; i < n; i++)
			if (strncasecmp(names[i], word, len) == 0)
				return names[i];
	}
	return NULL;
}
