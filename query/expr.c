/* parse.c - expressions of the query language: parsing, name resolution and
 * type checking.
 *
 *   or    := and (('or' | '||') and)*
 *   and   := not (('and' | '&&') not)*
 *   not   := ('not' | '!') not | cmp
 *   cmp   := sum [ ('=' | '==' | '!=' | '<>' | '<' | '<=' | '>' | '>=') sum
 *                | ['not'] 'in' '(' sum (',' sum)* ')'
 *                | ('~' | '!~') literal ]
 *   sum   := prod (('+' | '-') prod)*
 *   prod  := unary (('*' | '/' | '%') unary)*
 *   unary := '-' unary | '+' unary | NUMBER [UNIT] | STRING | WORD | '(' or ')'
 *          | '-'   (alone: no value, compared with = or !=)
 *
 * Values are numbers or text; booleans are numbers (0 / 1).  A bare word is
 * a field name, except where text is expected (compared with a text field,
 * in an `in` list of one, or right of `~`): there it is a text literal, so
 * `opcode = convolution` needs no quotes.  Literals compared with `opcode`,
 * `elem` and `category` must name a real opcode, element type or category
 * (a typo is an error with a suggestion, not an empty result).  A number
 * with a unit ("12 us") is converted to the unit of what it is compared
 * with (cost: seconds, runtime: ns); anywhere else it is an error.
 *
 * A table's filter (query_filter_new, s->table) reads the table's columns:
 * unknown names are "no column", text compares ignoring case (except
 * `==`), a numeric column compared with text reads its cells' text.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/plural.h"
#include "query/query_impl.h"

static query_expr *parse_or(query_parser *p);

static query_expr *new_expr(query_parser *p, int kind, size_t pos, size_t len)
{
	if (++p->nexpr > QUERY_MAX_TERMS) {
		query_fail_at(p, pos, "expression too long at column %zu (more than %d terms)", pos + 1,
			      QUERY_MAX_TERMS);
		return NULL;
	}
	query_expr *e = hs_arena_alloc(&p->arena, sizeof *e);

	if (!e) {
		query_fail_oom(p, "parsing the query");
		return NULL;
	}
	e->kind = kind;
	e->pos = pos;
	e->len = len;
	e->type = QUERY_NUM;
	return e;
}

static void span(query_expr *e, const query_expr *a, const query_expr *b)
{
	e->pos = a->pos;
	e->len = b->pos + b->len - a->pos;
}

static const char *op_text(int op)
{
	switch (op) {
	case TK_PLUS: return "+";
	case TK_MINUS: return "-";
	case TK_STAR: return "*";
	case TK_SLASH: return "/";
	case TK_PCT: return "%";
	case TK_EQ: return "=";
	case TK_NE: return "!=";
	case TK_LT: return "<";
	case TK_LE: return "<=";
	case TK_GT: return ">";
	case TK_GE: return ">=";
	case TK_MATCH: return "~";
	case TK_NMATCH: return "!~";
	case TK_AND: return "and";
	case TK_OR: return "or";
	case TK_NOT: return "not";
	default: return "?";
	}
}

/* ---- primaries ------------------------------------------------------ */

static int is_reserved(const char *w)
{
	static const char *const words[] = {"and", "or", "not", "in"};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(w, words[i]) == 0)
			return 1;
	return 0;
}

/* A field by name in the parser's scope; in QS_AUTO the first field found
 * locks the scope.  A field of the other scope is an error that says so. */
static const query_field *lookup_field(query_parser *p, const query_token *t)
{
	query_session *s = p->s;

	if (p->scope == QS_AUTO) {
		const query_field *f = query_find_field(s, QS_NODE, t->str);
		if (f) {
			p->scope = QS_NODE;
			return f;
		}
		f = query_find_field(s, QS_CONFIG, t->str);
		if (f)
			p->scope = QS_CONFIG;
		return f;
	}
	const query_field *f = query_find_field(s, p->scope, t->str);
	if (f)
		return f;
	if (p->scope == QS_GRAPH) {
		f = query_find_field(s, QS_NODE, t->str);
		if (f || query_find_field(s, QS_CONFIG, t->str))
			query_fail_at(p, t->pos, "'%s' at column %zu is a %s field: graphs reach them "
				      "through count(...), sum(...), min(...), max(...) or mean(...)",
				      t->str, t->pos + 1, f ? "node" : "config");
		return NULL;
	}
	int other = p->scope == QS_NODE ? QS_CONFIG : QS_NODE;
	if (query_find_field(s, other, t->str))
		query_fail_at(p, t->pos, "'%s' at column %zu is a %s field, but this query is about %s "
			      "(it uses %s fields)", t->str, t->pos + 1,
			      other == QS_NODE ? "node" : "config",
			      p->scope == QS_NODE ? "nodes" : "configs",
			      p->scope == QS_NODE ? "node" : "config");
	return NULL;
}

static query_expr *parse_unary_inner(query_parser *p);

/* At most this many aggregates in one command. */
#define QUERY_MAX_AGGS 64

static int agg_kind(const char *w)
{
	static const char *const names[] = {"count", "sum", "min", "max", "mean"};
	for (int i = 0; i < 5; i++)
		if (strcasecmp(w, names[i]) == 0)
			return i;
	return -1;
}

/* count(COND) or sum|min|max|mean(EXPR [where COND]) in graph scope, the
 * current token being the function's name: over the graph's nodes, or its
 * configs when the expression names config fields. */
static query_expr *parse_agg(query_parser *p, int agg)
{
	const query_token *t = query_peek(p);
	size_t pos = t->pos;
	char name[8];
	query_expr *a, *where = NULL, *e;

	snprintf(name, sizeof name, "%s", t->str);
	query_advance(p);
	if (!query_accept(p, TK_LP)) {
		char what[32];
		snprintf(what, sizeof what, "'(' after '%s'", name);
		query_fail_expected(p, what);
		return NULL;
	}
	if (p->naggs == QUERY_MAX_AGGS) {
		query_fail_at(p, pos, "more than %d aggregates at column %zu", QUERY_MAX_AGGS, pos + 1);
		return NULL;
	}
	p->scope = QS_AUTO;
	a = query_parse_expr(p);
	if (!a || query_need_num(p, a, agg == QA_COUNT ? "count(...)" : name) < 0)
		return NULL;
	if (query_accept_kw(p, "where")) {
		where = query_parse_expr(p);
		if (!where || query_need_num(p, where, "where") < 0)
			return NULL;
	}
	const query_token *r = query_peek(p);
	if (r->kind != TK_RP) {
		query_fail_expected(p, where ? "')'" : "where or ')'");
		return NULL;
	}
	int scope = p->scope == QS_CONFIG ? QS_CONFIG : QS_NODE;
	p->scope = QS_GRAPH;
	if (!(e = new_expr(p, QE_AGG, pos, r->pos + r->len - pos)))
		return NULL;
	if (p->naggs % 8 == 0) {
		query_expr **v = hs_arena_alloc(&p->arena, (size_t)(p->naggs + 8) * sizeof *v);
		if (!v) {
			query_fail_at(p, pos, "out of memory");
			return NULL;
		}
		if (p->naggs)
			memcpy(v, p->aggs, (size_t)p->naggs * sizeof *v);
		p->aggs = v;
	}
	e->op = agg;
	e->a = a;
	e->b = where;
	e->scope = scope;
	e->slot = p->naggs;
	p->aggs[p->naggs++] = e;
	query_advance(p);
	return e;
}

/* attr( right after the word `attr`: the attribute function (a field of
 * that name would be a field, but there is none). */
static int is_attr_call(query_parser *p, const query_token *t)
{
	size_t i = t->pos + t->len;

	if (strcasecmp(t->str, "attr") != 0)
		return 0;
	while (i < p->n && (p->src[i] == ' ' || p->src[i] == '\t'))
		i++;
	return i < p->n && p->src[i] == '(';
}

/* attr('NAME') (or attr(NAME)): the attribute NAME of a node's instruction
 * as the module writes it, text; the current token is `attr`. */
static query_expr *parse_attr(query_parser *p)
{
	const query_token *t = query_peek(p);
	size_t pos = t->pos;

	if (p->scope == QS_GRAPH || p->scope == QS_CONFIG) {
		query_fail_at(p, pos, "attr(...) at column %zu reads a node's attribute, but this query is "
			      "about %s%s", pos + 1, p->scope == QS_GRAPH ? "graphs" : "configs",
			      p->scope == QS_GRAPH ? " (reach nodes through count(...), sum(...), ...)" : "");
		return NULL;
	}
	if (p->scope == QS_AUTO)
		p->scope = QS_NODE;
	query_advance(p);
	query_accept(p, TK_LP);
	t = query_peek(p);
	if (t->kind != TK_STR && t->kind != TK_WORD) {
		query_fail_expected(p, "an attribute name in attr(...): attr('replica_groups')");
		return NULL;
	}
	const char *name = t->str;
	if (!*name) {
		query_fail_at(p, t->pos, "attr('') at column %zu names no attribute", t->pos + 1);
		return NULL;
	}
	query_advance(p);
	const query_token *r = query_peek(p);
	if (r->kind != TK_RP) {
		query_fail_expected(p, "')' after the attribute name");
		return NULL;
	}
	query_expr *e = new_expr(p, QE_ATTR, pos, r->pos + r->len - pos);
	if (!e)
		return NULL;
	e->str = name;
	e->type = QUERY_TEXT;
	query_advance(p);
	return e;
}

static query_expr *parse_unary(query_parser *p)
{
	const query_token *t = query_peek(p);

	if (p->failed)
		return NULL;
	if (p->depth >= QUERY_MAX_DEPTH) {
		query_fail_at(p, t->pos, "expression nested too deeply at column %zu (more than %d levels)",
			      t->pos + 1, QUERY_MAX_DEPTH);
		return NULL;
	}
	p->depth++;
	query_expr *e = parse_unary_inner(p);
	p->depth--;
	return e;
}

/* A table's column whose name is longer than the word at t and starts
 * there ("group size", "bytes/device", "sum(cost)"), the longest: it is
 * one field.  NULL when none is. */
static const query_field *long_column(query_parser *p, const query_token *t)
{
	const query_field *best = NULL;
	size_t best_len = t->len;

	for (size_t i = 0; p->s->table && i < p->s->n_node_fields; i++) {
		const query_field *f = &p->s->node_fields[i];
		size_t n = strlen(f->name), end = t->pos + n;
		if (n > best_len && end <= p->n && !strncasecmp(p->src + t->pos, f->name, n) &&
		    (end == p->n || !(isalnum((unsigned char)p->src[end]) || p->src[end] == '_'))) {
			best = f;
			best_len = n;
		}
	}
	return best;
}

/* `-` that no operand follows: no value (NaN), for = and !=. */
static int is_missing(query_parser *p, const query_token *minus)
{
	size_t i = minus->pos + minus->len;

	while (i < p->n && isspace((unsigned char)p->src[i]))
		i++;
	if (i >= p->n || strchr("),#", p->src[i]) || (p->src[i] == '&' && i + 1 < p->n && p->src[i + 1] == '&') ||
	    (p->src[i] == '|' && i + 1 < p->n && p->src[i + 1] == '|'))
		return 1;
	return query_word_len(p->src + i, p->n - i) > 0 && query_clause_word(p->src + i, query_word_len(p->src + i, p->n - i));
}

static query_expr *parse_unary_inner(query_parser *p)
{
	const query_token *t = query_peek(p);
	query_expr *e;

	switch (t->kind) {
	case TK_NUM:
		e = new_expr(p, QE_NUM, t->pos, t->len);
		if (e) {
			e->num = t->num;
			e->unit_lit = (uint8_t)t->unit;
		}
		query_advance(p);
		return e;
	case TK_STR:
		e = new_expr(p, QE_STR, t->pos, t->len);
		if (e) {
			e->str = t->str;
			e->type = QUERY_TEXT;
		}
		query_advance(p);
		return e;
	case TK_WORD: {
		const query_field *lf = long_column(p, t);
		if (lf) {
			e = new_expr(p, QE_FIELD, t->pos, strlen(lf->name));
			if (e) {
				e->field = lf;
				e->type = lf->type;
			}
			p->pos = t->pos + strlen(lf->name);
			p->have = 0;
			return e;
		}
		if (is_reserved(t->str)) {
			query_fail_expected(p, "a value");
			return NULL;
		}
		int agg = p->scope == QS_GRAPH ? agg_kind(t->str) : -1;
		if (agg >= 0)
			return parse_agg(p, agg);
		if (is_attr_call(p, t) && p->s->table) {
			query_fail_at(p, t->pos, "attr(...) at column %zu reads a node's attribute; a table's "
				      "filter reads its columns", t->pos + 1);
			return NULL;
		}
		if (is_attr_call(p, t))
			return parse_attr(p);
		const query_field *f = lookup_field(p, t);
		if (p->failed)
			return NULL;
		e = new_expr(p, f ? QE_FIELD : QE_WORD, t->pos, t->len);
		if (e) {
			e->str = t->str;
			e->field = f;
			e->type = f ? f->type : QUERY_TEXT;
		}
		query_advance(p);
		return e;
	}
	case TK_LP: {
		size_t pos = t->pos;
		query_advance(p);
		e = parse_or(p);
		if (!e)
			return NULL;
		const query_token *r = query_peek(p);
		if (r->kind != TK_RP) {
			query_fail_expected(p, "')'");
			return NULL;
		}
		e->pos = pos;
		e->len = r->pos + r->len - pos;
		if (e->kind == QE_FIELD)
			e->str = NULL; /* (field) is a field, never a literal */
		query_advance(p);
		return e;
	}
	case TK_MINUS:
	case TK_PLUS: {
		int neg = t->kind == TK_MINUS;
		size_t pos = t->pos;
		if (neg && is_missing(p, t)) {
			e = new_expr(p, QE_NUM, pos, 1);
			if (e) {
				e->num = NAN;
				e->missing = 1;
			}
			query_advance(p);
			return e;
		}
		query_advance(p);
		query_expr *a = parse_unary(p);
		if (!a || query_need_num(p, a, neg ? "'-'" : "'+'") < 0)
			return NULL;
		if (!neg)
			return a;
		if (a->kind == QE_NUM) {
			a->num = -a->num;
			a->len += a->pos - pos;
			a->pos = pos;
			return a;
		}
		e = new_expr(p, QE_NEG, pos, a->pos + a->len - pos);
		if (e)
			e->a = a;
		return e;
	}
	default:
		query_fail_expected(p, "a value (a number, a field, a string or '(')");
		return NULL;
	}
}

/* One left-associative arithmetic level: operands from `next`, joined by
 * any of the `nops` token kinds in `ops`, both sides numeric. */
static query_expr *parse_arith(query_parser *p, const int *ops, int nops,
			       query_expr *(*next)(query_parser *))
{
	query_expr *a = next(p);

	while (a) {
		int op = query_peek(p)->kind, found = 0;
		for (int i = 0; i < nops; i++)
			found |= op == ops[i];
		if (!found)
			break;
		char what[16];
		snprintf(what, sizeof what, "'%s'", op_text(op));
		if (query_need_num(p, a, what) < 0)
			return NULL;
		query_advance(p);
		query_expr *b = next(p);
		if (!b || query_need_num(p, b, what) < 0)
			return NULL;
		query_expr *e = new_expr(p, QE_ARITH, 0, 0);
		if (!e)
			return NULL;
		e->op = op;
		e->a = a;
		e->b = b;
		span(e, a, b);
		a = e;
	}
	return a;
}

static query_expr *parse_prod(query_parser *p)
{
	static const int ops[] = {TK_STAR, TK_SLASH, TK_PCT};
	return parse_arith(p, ops, 3, parse_unary);
}

static query_expr *parse_sum(query_parser *p)
{
	static const int ops[] = {TK_PLUS, TK_MINUS};
	return parse_arith(p, ops, 2, parse_prod);
}

/* ---- comparisons ---------------------------------------------------- */

static int is_opcode_field(const query_expr *e)
{
	return e->kind == QE_FIELD && e->field->kind == QF_OPCODE;
}

/* opcode = lit / opcode in (lits) become a set of ids. */
static query_expr *make_opset(query_parser *p, query_expr *field, query_expr **lits, int n,
			      int negate, size_t pos, size_t len)
{
	uint8_t *set = hs_arena_alloc(&p->arena, 256);
	query_expr *e = new_expr(p, QE_OPSET, pos, len);

	if (!set || !e)
		return NULL;
	for (int i = 0; i < n; i++) {
		int id = hlo_opcode_id(lits[i]->str);
		if (id >= 0 && id < 256)
			set[id] = 1;
	}
	e->opset = set;
	e->negate = negate;
	e->a = field;
	return e;
}

/* The column of byte `where` of regex token lit's pattern: exact when the
 * token is the pattern as written (unquoted, or quoted without escapes),
 * else the token's start. */
static size_t regex_column(const query_parser *p, const query_expr *lit, size_t where)
{
	size_t n = strlen(lit->str);

	if (where > n)
		where = n;
	if (lit->len == n)
		return lit->pos + where;
	if (lit->len == n + 2 && (p->src[lit->pos] == '"' || p->src[lit->pos] == '\''))
		return lit->pos + 1 + where;
	return lit->pos;
}

static int compile_regex(query_parser *p, query_expr *lit)
{
	hs_error why;
	size_t where;
	hs_regex *re = hs_regex_new(lit->str, p->s->table ? HS_REGEX_ICASE : 0, &where, &why);

	if (!re) {
		if (why.status == HS_ENOMEM)
			return query_fail_oom(p, "compiling a regular expression");
		size_t col = regex_column(p, lit, where);
		const char *cut = strlen(lit->str) > 60 ? "..." : "";
		if (p->s->table) /* the filter's caret says where */
			return query_fail_at(p, col, "bad regular expression '%.60s%s': %s", lit->str,
					     cut, why.msg);
		return query_fail_at(p, col, "bad regular expression '%.60s%s' at column %zu: %s",
				     lit->str, cut, col + 1, why.msg);
	}
	if (p->n_regexes == p->cap_regexes) {
		size_t cap = p->cap_regexes ? p->cap_regexes * 2 : 4;
		hs_regex **v = realloc(p->regexes, cap * sizeof *v);
		if (!v) {
			hs_regex_free(re);
			return query_fail_oom(p, "compiling a regular expression");
		}
		p->regexes = v;
		p->cap_regexes = cap;
	}
	p->regexes[p->n_regexes++] = re;
	lit->re = re;
	return 0;
}

static query_expr *parse_in(query_parser *p, query_expr *a, int negate)
{
	query_expr *items[1024];
	int n = 0;

	if (!query_accept(p, TK_LP)) {
		query_fail_expected(p, "'(' after 'in'");
		return NULL;
	}
	if (a->kind == QE_WORD) {
		query_fail_unknown_field(p, a);
		return NULL;
	}
	for (;;) {
		if (n == (int)(sizeof items / sizeof items[0])) {
			query_fail_at(p, query_peek(p)->pos, "more than %d values in a list at column %zu",
				      n, query_peek(p)->pos + 1);
			return NULL;
		}
		query_expr *b = parse_sum(p);
		if (!b || query_resolve_pair(p, a, b, TK_EQ) < 0)
			return NULL;
		items[n++] = b;
		if (query_accept(p, TK_COMMA))
			continue;
		break;
	}
	const query_token *r = query_peek(p);
	if (r->kind != TK_RP) {
		query_fail_expected(p, "',' or ')' in the list");
		return NULL;
	}
	size_t end = r->pos + r->len;
	query_advance(p);

	int all_lit = 1;
	for (int i = 0; i < n; i++)
		all_lit &= items[i]->kind == QE_STR;
	if (is_opcode_field(a) && all_lit && query_all_learned(items, n))
		return make_opset(p, a, items, n, negate, a->pos, end - a->pos);
	query_expr *e = new_expr(p, QE_IN, a->pos, end - a->pos);
	query_expr **list = hs_arena_alloc(&p->arena, (size_t)n * sizeof *list);
	if (!e || !list)
		return NULL;
	e->icase = p->s->table && a->type == QUERY_TEXT;
	memcpy(list, items, (size_t)n * sizeof *list);
	e->a = a;
	e->list = list;
	e->nlist = n;
	e->negate = negate;
	return e;
}

/* a = - or a != - (either side): a has no value, or has one. */
static query_expr *parse_missing(query_parser *p, query_expr *a, query_expr *b, int op)
{
	query_expr *m = a->missing ? a : b, *x = m == a ? b : a;

	if (x->kind == QE_WORD) {
		query_fail_unknown_field(p, x);
		return NULL;
	}
	if (x->missing || (op != TK_EQ && op != TK_NE)) {
		query_fail_at(p, m->pos, "'-' at column %zu is no value: it compares only with = and != "
			      "(cost = -)", m->pos + 1);
		return NULL;
	}
	if (x->type == QUERY_TEXT && !p->s->table) {
		query_fail_at(p, m->pos, "'-' at column %zu is no value, but %s is text (quote it: '-')",
			      m->pos + 1, x->field ? x->field->name : "that");
		return NULL;
	}
	query_expr *e = new_expr(p, x->type == QUERY_TEXT ? QE_CMP : QE_MISSING, 0, 0);
	if (!e)
		return NULL;
	span(e, a, b);
	if (x->type == QUERY_TEXT) { /* a table's text cell that shows "-" */
		query_make_literal(m);
		m->missing = 0;
		m->str = "-";
		e->op = op;
		e->a = x;
		e->b = m;
		e->icase = 1;
		return e;
	}
	e->a = x;
	e->negate = op == TK_NE;
	return e;
}

static query_expr *parse_cmp(query_parser *p)
{
	query_expr *a = parse_sum(p);

	if (!a)
		return NULL;
	const query_token *t = query_peek(p);
	int op = t->kind;

	if (op >= TK_EQ && op <= TK_GE) {
		int exact = op == TK_EQ && t->len == 2; /* `==`: a table's exact text */
		query_advance(p);
		query_expr *b = parse_sum(p);
		if (b && (a->missing || b->missing))
			return parse_missing(p, a, b, op);
		if (!b || query_resolve_pair(p, a, b, op) < 0)
			return NULL;
		if ((op == TK_EQ || op == TK_NE) &&
		    ((is_opcode_field(a) && query_all_learned(&b, 1)) ||
		     (is_opcode_field(b) && query_all_learned(&a, 1)))) {
			query_expr *f = is_opcode_field(a) ? a : b;
			query_expr *l = f == a ? b : a;
			return make_opset(p, f, &l, 1, op == TK_NE, a->pos, b->pos + b->len - a->pos);
		}
		query_expr *e = new_expr(p, QE_CMP, 0, 0);
		if (!e)
			return NULL;
		e->op = op;
		e->a = a;
		e->b = b;
		e->icase = p->s->table && a->type == QUERY_TEXT && !exact;
		span(e, a, b);
		return e;
	}
	if (t->kind == TK_WORD && strcasecmp(t->str, "in") == 0) {
		query_advance(p);
		return parse_in(p, a, 0);
	}
	if (t->kind == TK_WORD && strcasecmp(t->str, "not") == 0) {
		/* "not in": look one token further, else leave "not" alone. */
		query_token save = p->tok;
		size_t save_pos = p->pos;
		query_advance(p);
		if (query_at_kw(p, "in")) {
			query_advance(p);
			return parse_in(p, a, 1);
		}
		p->tok = save;
		p->pos = save_pos;
		p->have = 1;
		return a;
	}
	if (op == TK_MATCH || op == TK_NMATCH) {
		char b1[64];
		if (a->kind == QE_WORD) {
			query_fail_unknown_field(p, a);
			return NULL;
		}
		if (a->type != QUERY_TEXT && p->s->table && a->kind == QE_FIELD)
			a->type = QUERY_TEXT; /* a table's numbers as their cells show them */
		if (a->type != QUERY_TEXT) {
			query_fail_at(p, a->pos, "'%s' matches text, but %s at column %zu is a number",
				      op_text(op), query_expr_desc(p, a, b1, sizeof b1), a->pos + 1);
			return NULL;
		}
		query_advance(p);
		query_token r;
		if (query_regex_token(p, &r) < 0)
			return NULL;
		query_expr *lit = new_expr(p, QE_STR, r.pos, r.len);
		if (!lit)
			return NULL;
		lit->str = r.str;
		lit->type = QUERY_TEXT;
		if (compile_regex(p, lit) < 0)
			return NULL;
		query_expr *e = new_expr(p, QE_MATCH, 0, 0);
		if (!e)
			return NULL;
		e->op = op;
		e->negate = op == TK_NMATCH;
		e->a = a;
		e->b = lit;
		e->re = lit->re;
		span(e, a, lit);
		return e;
	}
	return a;
}

static query_expr *parse_not(query_parser *p)
{
	const query_token *t = query_peek(p);

	if (t->kind == TK_NOT || (t->kind == TK_WORD && strcasecmp(t->str, "not") == 0)) {
		size_t pos = t->pos;
		if (p->depth >= QUERY_MAX_DEPTH) {
			query_fail_at(p, pos, "expression nested too deeply at column %zu (more than %d "
				      "levels)", pos + 1, QUERY_MAX_DEPTH);
			return NULL;
		}
		query_advance(p);
		p->depth++;
		query_expr *a = parse_not(p);
		p->depth--;
		if (!a || query_need_num(p, a, "'not'") < 0)
			return NULL;
		query_expr *e = new_expr(p, QE_NOT, pos, a->pos + a->len - pos);
		if (e)
			e->a = a;
		return e;
	}
	return parse_cmp(p);
}

/* The literals e compares a text field with for equality (x = 'a', or x
 * in ('a', ...)) into *lits, their number as the result; 0 when e is no
 * such comparison. */
static int text_choices(const query_expr *e, query_expr *const **lits)
{
	const query_expr *x = e->a;

	if (!x || x->kind != QE_FIELD || x->type != QUERY_TEXT || x->shown)
		return 0;
	if (e->kind == QE_CMP && e->op == TK_EQ && e->b->kind == QE_STR) {
		*lits = &e->b;
		return 1;
	}
	if (e->kind != QE_IN || e->negate)
		return 0;
	for (int i = 0; i < e->nlist; i++)
		if (e->list[i]->kind != QE_STR)
			return 0;
	*lits = e->list;
	return e->nlist;
}

/* x = 'a' or x = 'b' (or x in (...)) of one text field becomes x in ('a',
 * 'b'), which reads x once per row: a table's `opcode = convolution or
 * opcode = dot` formats each cell once.  NULL when a or b is no such
 * comparison, or they read different fields. */
static query_expr *fold_or(query_parser *p, query_expr *a, query_expr *b)
{
	query_expr *const *la, *const *lb;
	int na = text_choices(a, &la), nb = text_choices(b, &lb);

	if (!na || !nb || a->a->field != b->a->field || a->icase != b->icase)
		return NULL;
	query_expr *e = new_expr(p, QE_IN, 0, 0);
	query_expr **list = hs_arena_alloc(&p->arena, (size_t)(na + nb) * sizeof *list);
	if (!e || !list)
		return NULL;
	memcpy(list, la, (size_t)na * sizeof *list);
	memcpy(list + na, lb, (size_t)nb * sizeof *list);
	e->a = a->a;
	e->op = TK_OR; /* written as an `or` */
	e->list = list;
	e->nlist = na + nb;
	e->icase = a->icase;
	span(e, a, b);
	return e;
}

/* One left-associative level of `and` / `or`: operands from `next`, joined
 * by the token kind `tk` or the keyword `word`, both sides numeric. */
static query_expr *parse_logical(query_parser *p, int tk, const char *word, int op,
				 query_expr *(*next)(query_parser *))
{
	char what[16];
	query_expr *a = next(p);

	snprintf(what, sizeof what, "'%s'", word);
	while (a) {
		const query_token *t = query_peek(p);
		if (!((int)t->kind == tk || (t->kind == TK_WORD && strcasecmp(t->str, word) == 0)))
			break;
		if (query_need_num(p, a, what) < 0)
			return NULL;
		query_advance(p);
		query_expr *b = next(p);
		if (!b || query_need_num(p, b, what) < 0)
			return NULL;
		query_expr *e = op == QE_OR ? fold_or(p, a, b) : NULL;
		if (e) {
			a = e;
			continue;
		}
		if (p->failed)
			return NULL;
		e = new_expr(p, op, 0, 0);
		if (!e)
			return NULL;
		e->a = a;
		e->b = b;
		span(e, a, b);
		a = e;
	}
	return a;
}

static query_expr *parse_and(query_parser *p)
{
	return parse_logical(p, TK_AND, "and", QE_AND, parse_not);
}

static query_expr *parse_or(query_parser *p)
{
	return parse_logical(p, TK_OR, "or", QE_OR, parse_and);
}

/* A number with a unit or a `-` that no comparison took: the first one. */
static const query_expr *stray_literal(const query_expr *e)
{
	const query_expr *s = NULL;

	if (!e)
		return NULL;
	if (e->kind == QE_NUM && (e->unit_lit || e->missing))
		return e;
	if ((s = stray_literal(e->a)) || (s = stray_literal(e->b)))
		return s;
	for (int i = 0; i < e->nlist && !s; i++)
		s = stray_literal(e->list[i]);
	return s;
}

query_expr *query_parse_expr(query_parser *p)
{
	query_expr *e = parse_or(p);
	const query_expr *s;

	if (!e || p->failed)
		return NULL;
	if (e->kind == QE_WORD) {
		query_fail_unknown_field(p, e);
		return NULL;
	}
	if ((s = stray_literal(e)) && s->missing) {
		query_fail_at(p, s->pos, "'-' at column %zu is no value: it compares only with = and != "
			      "(cost = -)", s->pos + 1);
		return NULL;
	}
	if (s) {
		query_fail_at(p, s->pos, "'%.*s' at column %zu has a unit: compare it with a field that has "
			      "one (cost < 12 us)", (int)s->len, p->src + s->pos, s->pos + 1);
		return NULL;
	}
	return e;
}

long long query_parse_count(query_parser *p, const char *what)
{
	const query_token *t = query_peek(p);

	if (p->failed)
		return -1;
	if (t->kind != TK_NUM) {
		query_fail_expected(p, what);
		return -1;
	}
	if (t->unit || t->num < 0 || t->num != floor(t->num) || t->num > 9e15) {
		query_fail_at(p, t->pos, "expected %s at column %zu, found '%.*s'", what,
			      t->pos + 1, (int)t->len, p->src + t->pos);
		return -1;
	}
	long long v = (long long)t->num;
	query_advance(p);
	return v;
}
