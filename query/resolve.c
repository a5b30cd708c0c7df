/* resolve.c - the two sides of a comparison, once both are parsed: a bare
 * word becomes a text literal where text is expected (`opcode = dot`),
 * literals of opcodes, element types and categories are checked, a number
 * with a unit is converted to the unit of the other side (`cost < 12 us`:
 * seconds; `runtime > 23.3 s`: ns), a table's numeric column compared with
 * text reads its cells' text, and types are checked.  Called by parse.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "query/query_impl.h"

int query_fail_unknown_field(query_parser *p, const query_expr *w)
{
	const char *sug = query_suggest_field(p->s, p->scope, w->str);

	if (p->s->table && sug)
		return query_fail_at(p, w->pos, "no column '%s' in this table (did you mean '%s'?)", w->str, sug);
	if (p->s->table)
		return query_fail_at(p, w->pos, "no column '%s' in this table", w->str);

	if (sug)
		return query_fail_at(p, w->pos,
				     "unknown field '%s' at column %zu (did you mean '%s'?)",
				     w->str, w->pos + 1, sug);
	return query_fail_at(p, w->pos, "unknown field '%s' at column %zu (see 'help fields')",
			     w->str, w->pos + 1);
}

/* Describes an expression for messages: its source text, shortened. */
const char *query_expr_desc(query_parser *p, const query_expr *e, char *buf, size_t cap)
{
	int n = (int)(e->len > 40 ? 40 : e->len);

	snprintf(buf, cap, "'%.*s%s'", n, p->src + e->pos, e->len > 40 ? "..." : "");
	return buf;
}

/* e must be a number: a field, a number literal or a numeric operation. */
int query_need_num(query_parser *p, const query_expr *e, const char *what)
{
	char b[64];

	if (e->kind == QE_WORD)
		return query_fail_unknown_field(p, e);
	if (e->type != QUERY_NUM)
		return query_fail_at(p, e->pos, "%s needs a number, but %s at column %zu is text",
				     what, query_expr_desc(p, e, b, sizeof b), e->pos + 1);
	return 0;
}

/* 1 when `name` is the written opcode of a node of the graph whose opcode
 * is not a learned one (over a folder, see folder_opcode). */
static int written_opcode(const query_session *s, const char *name)
{
	const hs_graph *g = s->g;

	if (s->ix)
		return 0;
	for (int64_t v = 0; v < g->n_nodes; v++)
		if (g->opcode[v] == 0 && strcmp(graph_node_opcode_name(g, v), name) == 0)
			return 1;
	return 0;
}

/* Over a folder the graphs are not known while parsing: a name outside the
 * learned list is taken as written (it matches the nodes of HLO text that
 * write it, none of an npz file) when it is an XLA opcode or too far from
 * any learned name to be a misspelling of one. */
static int folder_opcode(const query_session *s, const char *name, const char *const *names,
			 size_t n)
{
	return s->ix && (hlo_opcode_is_unlearned(name) || !query_suggest(name, names, n));
}

int query_elem_id(const char *name)
{
	for (int t = 0; t < hm_element_type_count(); t++)
		if (strcasecmp(name, hm_element_type_name(t)) == 0)
			return t;
	/* the feature names' spellings */
	return !strcasecmp(name, "invalid_type") ? HM_INVALID : !strcasecmp(name, "opaque_type") ? HM_OPAQUE : -1;
}

/* 1 when every literal is a learned opcode (then `opcode` compares ids). */
int query_all_learned(query_expr *const *lits, int n)
{
	for (int i = 0; i < n; i++)
		if (lits[i]->kind != QE_STR || hlo_opcode_id(lits[i]->str) < 0)
			return 0;
	return 1;
}

/* Vocabulary a literal compared with a field must belong to. */
static int check_vocabulary(query_parser *p, const query_expr *field, const query_expr *lit)
{
	const char *names[256];
	size_t n = 0;
	const char *kind;

	if (field->kind != QE_FIELD)
		return 0;
	switch (field->field->kind) {
	case QF_OPCODE:
		if (hlo_opcode_id(lit->str) >= 0 || written_opcode(p->s, lit->str))
			return 0;
		for (int i = 0; i <= HLO_MAX_OPCODE; i++)
			names[n++] = hlo_opcode_name(i);
		if (folder_opcode(p->s, lit->str, names, n))
			return 0;
		kind = "opcode";
		break;
	case QF_ELEM:
		if (query_elem_id(lit->str) >= 0 || !*lit->str)
			return 0;
		for (int i = 0; i < hm_element_type_count(); i++)
			names[n++] = hm_element_type_name(i);
		kind = "element type";
		break;
	case QF_CATEGORY:
		if (hlo_category_id(lit->str) >= 0)
			return 0;
		for (int i = 0; i < HLO_NCATEGORIES; i++)
			names[n++] = hlo_category_name((hlo_category)i);
		kind = "category";
		break;
	default:
		return 0;
	}
	const char *sug = query_suggest(lit->str, names, n);
	if (sug && field->field->kind == QF_OPCODE && p->s->ix) /* an opcode written so: ~ */
		return query_fail_at(p, lit->pos,
				     "unknown opcode '%s' at column %zu (did you mean '%s'? "
				     "for nodes whose HLO text writes it: opcode ~ '^%s$')",
				     lit->str, lit->pos + 1, sug, lit->str);
	if (sug)
		return query_fail_at(p, lit->pos, "unknown %s '%s' at column %zu (did you mean '%s'?)",
				     kind, lit->str, lit->pos + 1, sug);
	return query_fail_at(p, lit->pos, "unknown %s '%s' at column %zu", kind, lit->str,
			     lit->pos + 1);
}

/* A bare word (or a field named by a bare word) on the literal side of a
 * comparison with text turns into a text literal. */
static int is_bare(const query_expr *e)
{
	return e->kind == QE_WORD || (e->kind == QE_FIELD && e->str);
}

void query_make_literal(query_expr *e)
{
	e->kind = QE_STR;
	e->type = QUERY_TEXT;
	e->field = NULL;
}

/* `computation` (the HLO computation's name) compared with a number means
 * the node_splits segment, as it did before computations had names:
 * `computation = 2` is `split = 2`.  1 when e was turned into `split`. */
static int as_split(query_parser *p, query_expr *e)
{
	if (e->kind != QE_FIELD || e->field->kind != QF_HTEXT || e->field->index != HS_HF_COMPUTATION ||
	    strcmp(e->field->name, "computation") != 0)
		return 0;
	const query_field *f = query_find_field(p->s, QS_NODE, "split");
	if (!f)
		return 0;
	e->field = f;
	e->type = f->type;
	return 1;
}

/* The unit of what e computes: a field's, kept by a sign, by + and - of
 * two numbers of one unit and by * and / with a plain number. */
static int expr_unit(const query_expr *e)
{
	int plain_a = e->a && e->a->kind == QE_NUM && !e->a->unit_lit;
	int plain_b = e->b && e->b->kind == QE_NUM && !e->b->unit_lit;

	switch (e->kind) {
	case QE_FIELD:
		return e->field->unit;
	case QE_NEG:
		return expr_unit(e->a);
	case QE_ARITH:
		if (e->op == TK_PLUS || e->op == TK_MINUS)
			return expr_unit(e->a) == expr_unit(e->b) ? expr_unit(e->a) : HS_U_NONE;
		if (e->op == TK_STAR)
			return plain_b ? expr_unit(e->a) : plain_a ? expr_unit(e->b) : HS_U_NONE;
		return e->op == TK_SLASH && plain_b ? expr_unit(e->a) : HS_U_NONE;
	default:
		return HS_U_NONE;
	}
}

/* A number written with a unit, compared with `other`: into other's unit
 * (read again from the text, as a cell of that unit would be). */
static int convert_unit(query_parser *p, query_expr *lit, query_expr *other, int op)
{
	int u = expr_unit(other);
	char text[64], b[64];
	int n = (int)(lit->len < sizeof text ? lit->len : sizeof text - 1);
	double v;

	snprintf(text, sizeof text, "%.*s", n, p->src + lit->pos);
	if (u == HS_U_NONE || hs_unit_parse(text, u, &v) < 0) {
		if (p->s->table && other->kind == QE_FIELD)
			return query_fail_at(p, lit->pos, "'%s' is not %s (column %s; e.g. %s)", text,
					     hs_unit_what(u), other->field->name, hs_unit_example(u));
		if (u == HS_U_NONE)
			return query_fail_at(p, lit->pos, "'%s' at column %zu is not a number (%s has no unit)",
					     text, lit->pos + 1, query_expr_desc(p, other, b, sizeof b));
		return query_fail_at(p, lit->pos, "'%s' at column %zu is not %s (%s is; e.g. %s)", text,
				     lit->pos + 1, hs_unit_what(u), query_expr_desc(p, other, b, sizeof b),
				     hs_unit_example(u));
	}
	lit->num = v;
	lit->unit_lit = 0;
	/* "t = 1.23 ms": the rows whose cell shows 1.23 ms */
	if (p->s->table && (op == TK_EQ || op == TK_NE) && other->kind == QE_FIELD)
		other->shown = 1;
	return 0;
}

/* A table's numeric column compared with text: a string, or a word that
 * names no column (= and != only), compares with the text its cells show. */
static int table_pair(query_parser *p, query_expr *a, query_expr *b, int op)
{
	query_expr *col = a->kind == QE_FIELD && a->type == QUERY_NUM ? a
			  : b->kind == QE_FIELD && b->type == QUERY_NUM ? b : NULL;
	query_expr *other = col == a ? b : a;

	if (!col || (other->kind != QE_STR && other->kind != QE_WORD))
		return 0;
	if (other->kind == QE_WORD && op != TK_EQ && op != TK_NE)
		return query_fail_at(p, other->pos, "'%s' is not %s (column %s; e.g. %s)", other->str,
				     hs_unit_what(col->field->unit), col->field->name,
				     hs_unit_example(col->field->unit));
	if (other->kind == QE_WORD)
		query_make_literal(other);
	col->type = QUERY_TEXT;
	return 0;
}

/* Resolves `lit` against `other` for equality-like use; checks types. */
int query_resolve_pair(query_parser *p, query_expr *a, query_expr *b, int op)
{
	char ba[64], bb[64];

	if (a->missing || b->missing)
		return query_fail_at(p, (a->missing ? a : b)->pos, "'-' at column %zu is no value: it "
				     "compares only with = and != (cost = -)", (a->missing ? a : b)->pos + 1);
	if (a->kind == QE_WORD && b->unit_lit)
		return query_fail_unknown_field(p, a);
	if (b->kind == QE_WORD && a->unit_lit)
		return query_fail_unknown_field(p, b);
	if (a->unit_lit != b->unit_lit && convert_unit(p, a->unit_lit ? a : b, a->unit_lit ? b : a, op) < 0)
		return -1;
	if (p->s->table && table_pair(p, a, b, op) < 0)
		return -1;

	/* Text on one side makes a bare word on the other a literal; a word
	 * that names a text field stays a field unless it is an opcode name
	 * compared with `opcode`. */
	if (a->type == QUERY_TEXT && a->kind != QE_WORD && is_bare(b)) {
		if (b->kind == QE_WORD ||
		    (b->type == QUERY_TEXT && a->kind == QE_FIELD &&
		     a->field->kind == QF_OPCODE && hlo_opcode_id(b->str) >= 0))
			query_make_literal(b);
	} else if (b->type == QUERY_TEXT && b->kind != QE_WORD && is_bare(a)) {
		if (a->kind == QE_WORD ||
		    (a->type == QUERY_TEXT && b->kind == QE_FIELD &&
		     b->field->kind == QF_OPCODE && hlo_opcode_id(a->str) >= 0))
			query_make_literal(a);
	}
	if (a->kind == QE_WORD)
		return query_fail_unknown_field(p, a);
	if (b->kind == QE_WORD)
		return query_fail_unknown_field(p, b);
	if (a->type != b->type && (as_split(p, a) || as_split(p, b)))
		return 0;
	if (a->type != b->type) {
		const query_expr *t = a->type == QUERY_TEXT ? a : b;
		int hint = t->kind == QE_FIELD && t->field->kind == QF_OPCODE;
		return query_fail_at(p, b->pos, "cannot compare %s (%s) with %s (%s) at column %zu%s",
				     query_expr_desc(p, a, ba, sizeof ba),
				     a->type == QUERY_TEXT ? "text" : "a number",
				     query_expr_desc(p, b, bb, sizeof bb),
				     b->type == QUERY_TEXT ? "text" : "a number", b->pos + 1,
				     hint ? " (opcode_id is the numeric id)" : "");
	}
	if (a->type == QUERY_TEXT && (op == TK_EQ || op == TK_NE)) {
		if (b->kind == QE_STR && check_vocabulary(p, a, b) < 0)
			return -1;
		if (a->kind == QE_STR && check_vocabulary(p, b, a) < 0)
			return -1;
	}
	return 0;
}

