/* eval.c - evaluation of query expressions, one row (a node or a config)
 * at a time or a block of rows at once, over the caches of session.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "loader/hlo_module.h"
#include "query/query_impl.h"

/* ---- evaluation ----------------------------------------------------- */

double query_field_num(query_session *s, const query_field *f, int64_t row)
{
	const hs_graph *g = s->g;

	switch (f->kind) {
	case QF_FEATURE:
		/* a folder's field may be past a graph's width */
		if (f->index >= g->feat_width || !graph_has_features(g))
			return NAN;
		return (double)graph_feat(g, row)[f->index];
	case QF_ID:
	case QF_CONFIG:
		return (double)row;
	case QF_OPCODE_ID:
		return (double)g->opcode[row];
	case QF_SPLIT:
		return g->comp_of ? (double)g->comp_of[row] : 0;
	case QF_OPERANDS:
		return (double)query_n_operands(g, row);
	case QF_USERS:
		return (double)query_n_users(g, row);
	case QF_RANK:
		return query_shape(s, row)->valid ? (double)query_shape(s, row)->rank : NAN;
	case QF_ELEMENTS:
		return query_shape(s, row)->valid ? query_shape(s, row)->elements : NAN;
	case QF_CONFIGURABLE:
		return g->kind == HS_KIND_LAYOUT && g->cfg_index && g->cfg_index[row] >= 0;
	case QF_COST:   /* what the instruction adds to the module's totals: */
	case QF_FLOPS:  /* a fusion body's or reducer's part is in its caller's */
	case QF_BYTES:
		if (s->cost[row].unknown)
			return NAN;
		if (!cost_role_executed(graph_node_role(g, row)))
			return 0;
		return f->kind == QF_COST ? s->cost[row].seconds : f->kind == QF_FLOPS ? s->cost[row].flops
										  : s->cost[row].bytes;
	case QF_KERNEL_SHARE:
		if (s->cost[row].unknown || cost_role_executed(graph_node_role(g, row)))
			return NAN;
		return s->cost[row].seconds;
	case QF_SOURCE_LINE: {
		const struct hm_instr *in = graph_node_instr(g, row);
		return in && in->source_line ? (double)in->source_line : NAN;
	}
	case QF_RUNTIME:
		return g->labeled ? g->runtime[row] : NAN;
	case QF_RUNTIME_NS:
		return g->labeled ? (double)g->runtime_raw[row] : NAN;
	case QF_NORMALIZER:
		return g->normalizer ? (double)g->normalizer[row] : NAN;
	case QF_PREDICTED:
		return s->active->time ? s->active->time[row] : s->active->score[row];
	case QF_SCORE:
		return s->active->score[row];
	case QF_RUNTIME_RANK:
		return g->labeled ? (double)s->rank[row] : NAN;
	case QF_PREDICTED_RANK:
		return (double)s->active->rank[row];
	case QF_OVERLAY: {
		const hs_overlay_col *c = &s->overlays[f->index >> 16].cols[f->index & 0xffff];
		return c->num ? c->num[row] : NAN;
	}
	case QF_COLUMN:
		return s->cells->num(s->cells->ctx, row, f->index);
	case QF_CONFIG_FEATURE:
		if (f->index >= g->config_width || !g->config_feat)
			return NAN;
		return (double)g->config_feat[(size_t)row * (size_t)g->config_width + (size_t)f->index];
	default:
		return f->kind >= QF_G_FILE ? query_graph_num(s, f) : NAN;
	}
}

const char *query_field_text(query_session *s, const query_field *f, int64_t row)
{
	const hs_graph *g = s->g;

	switch (f->kind) {
	case QF_OPCODE:
		return query_opcode_text(s, row);
	case QF_HTEXT:
		return query_htext(s, f->index, row);
	case QF_ROLE:
		return query_role_text(s, row);
	case QF_OPERAND_NAMES:
		return query_dtext(s, QUERY_DT_OPERAND_NAMES, row);
	case QF_HLO:
		return query_dtext(s, QUERY_DT_HLO, row);
	case QF_CATEGORY:
		return hlo_category_name(hlo_opcode_category(g->opcode[row]));
	case QF_ELEM: {
		const query_shape_info *sh = query_shape(s, row);
		if (!sh->valid || sh->elem < 0)
			return "";
		return hlo_element_type_name(sh->elem);
	}
	case QF_SHAPE:
		return query_shape_text(s, row);
	case QF_LAYER:
		return layers_node_path(s->layers, row);
	case QF_OVERLAY: {
		const hs_overlay_col *c = &s->overlays[f->index >> 16].cols[f->index & 0xffff];
		return c->text && c->text[row] ? c->text[row] : "";
	}
	case QF_COLUMN: { /* a buffer per column: two columns compare at once */
		char **buf = &s->colbuf[f->index];
		if (!*buf && !(*buf = malloc(s->cells->cap)))
			return query_eval_oom(s, "reading a column");
		return s->cells->text(s->cells->ctx, row, f->index, *buf, s->cells->cap);
	}
	default:
		return f->kind >= QF_G_FILE ? query_graph_text(s, f) : "";
	}
}

const char *query_eval_text(query_session *s, const query_expr *e, int64_t row)
{
	if (e->kind == QE_STR)
		return e->str;
	if (e->kind == QE_FIELD)
		return query_field_text(s, e->field, row);
	if (e->kind == QE_ATTR)
		return query_attr_text(s, e->str, row);
	return "";
}

/* ---- failures ------------------------------------------------------- */

int query_eval_failed(const query_session *s, hs_error *err)
{
	if (!s->eval_err.status)
		return 0;
	if (err)
		*err = s->eval_err;
	return -1;
}

void query_eval_reset(query_session *s)
{
	hs_error_clear(&s->eval_err);
}

const char *query_eval_oom(query_session *s, const char *what)
{
	if (!s->eval_err.status)
		hs_fail(&s->eval_err, HS_ENOMEM, "out of memory %s", what);
	return "?";
}

/* What the regex of e met on row (whose text is `text`), as the session's
 * failure: "regular expression 'X' needs more than the match limit
 * (1,000,000 steps) on node fusion.3". */
static void match_failed(query_session *s, const query_expr *e, int64_t row, const char *text,
			 const hs_error *why)
{
	char on[200], name[160];
	const query_field *f = e->a->kind == QE_FIELD ? e->a->field : NULL;

	if (why->status != HS_EUSAGE) {
		s->eval_err = *why;
		return;
	}
	if (s->table || !s->g)
		snprintf(on, sizeof on, "'%.60s%s'", text, strlen(text) > 60 ? "..." : "");
	else if (f && f->kind >= QF_G_FILE)
		snprintf(on, sizeof on, "graph %s", s->ref && s->ref->rel ? s->ref->rel : "?");
	else
		snprintf(on, sizeof on, "node %s", graph_node_name(s->g, row, name, sizeof name));
	hs_fail(&s->eval_err, HS_EUSAGE, "regular expression '%.200s%s' %s on %s", e->b->str,
		strlen(e->b->str) > 200 ? "..." : "", why->msg, on);
}

/* 1 when e's regular expression matches row's text, 0 when not; also 0
 * once something failed (s->eval_err: the command stops short of a wrong
 * answer), so that the rows left cost nothing. */
static int match(query_session *s, const query_expr *e, int64_t row)
{
	hs_error why;

	if (s->eval_err.status)
		return 0;
	if (!s->rx && !(s->rx = hs_regex_scratch_new(&s->eval_err)))
		return 0;
	const char *text = query_eval_text(s, e->a, row);
	int hit = hs_regex_match(e->re, text, strlen(text), s->rx, &why);
	if (hit < 0) {
		match_failed(s, e, row, text, &why);
		return 0;
	}
	return hit != e->negate;
}

static int text_cmp(query_session *s, const query_expr *e, int64_t row)
{
	const char *x = query_eval_text(s, e->a, row), *y = query_eval_text(s, e->b, row);

	return e->icase ? strcasecmp(x, y) : strcmp(x, y);
}

/* A table column's number as its cell shows it, read back in its unit. */
static double shown_num(query_session *s, const query_field *f, int64_t row)
{
	double v;

	return hs_unit_parse(query_field_text(s, f, row), f->unit, &v) == 0 ? v : NAN;
}

static double compare(int op, double c)
{
	switch (op) {
	case TK_EQ: return c == 0;
	case TK_NE: return c != 0;
	case TK_LT: return c < 0;
	case TK_LE: return c <= 0;
	case TK_GT: return c > 0;
	case TK_GE: return c >= 0;
	default: return 0;
	}
}

static double compare_num(int op, double x, double y)
{
	switch (op) {
	case TK_EQ: return x == y;
	case TK_NE: return x != y;
	case TK_LT: return x < y;
	case TK_LE: return x <= y;
	case TK_GT: return x > y;
	case TK_GE: return x >= y;
	default: return 0;
	}
}

double query_eval_num(query_session *s, const query_expr *e, int64_t row)
{
	switch (e->kind) {
	case QE_NUM:
		return e->num;
	case QE_FIELD:
		return e->shown ? shown_num(s, e->field, row) : query_field_num(s, e->field, row);
	case QE_NEG:
		return -query_eval_num(s, e->a, row);
	case QE_NOT:
		return !query_truthy(query_eval_num(s, e->a, row));
	case QE_ARITH: {
		double x = query_eval_num(s, e->a, row), y = query_eval_num(s, e->b, row);
		switch (e->op) {
		case TK_PLUS: return x + y;
		case TK_MINUS: return x - y;
		case TK_STAR: return x * y;
		case TK_SLASH: return x / y;
		default: return fmod(x, y);
		}
	}
	case QE_CMP:
		if (e->a->type == QUERY_TEXT)
			return compare(e->op, text_cmp(s, e, row));
		return compare_num(e->op, query_eval_num(s, e->a, row),
				   query_eval_num(s, e->b, row));
	case QE_AND:
		return query_truthy(query_eval_num(s, e->a, row)) &&
		       query_truthy(query_eval_num(s, e->b, row));
	case QE_OR:
		return query_truthy(query_eval_num(s, e->a, row)) ||
		       query_truthy(query_eval_num(s, e->b, row));
	case QE_IN: {
		int hit = 0;
		if (e->a->type == QUERY_TEXT) {
			const char *x = query_eval_text(s, e->a, row);
			for (int i = 0; i < e->nlist && !hit; i++)
				hit = (e->icase ? strcasecmp(x, query_eval_text(s, e->list[i], row))
						: strcmp(x, query_eval_text(s, e->list[i], row))) == 0;
		} else {
			double x = query_eval_num(s, e->a, row);
			for (int i = 0; i < e->nlist && !hit; i++)
				hit = x == query_eval_num(s, e->list[i], row);
		}
		return hit != e->negate;
	}
	case QE_MATCH:
		return match(s, e, row);
	case QE_OPSET:
		return (e->opset[s->g->opcode[row]] != 0) != e->negate;
	case QE_AGG:
		return s->agg ? s->agg[e->slot] : NAN;
	case QE_MISSING:
		return isnan(query_eval_num(s, e->a, row)) != e->negate;
	default:
		return NAN;
	}
}

/* ---- evaluation by blocks ------------------------------------------- */

/* Trees deeper than this (long chains of + or and) are evaluated one row
 * at a time: each level of the block walk keeps a block of numbers on the
 * stack. */
#define BLOCK_MAX_DEPTH 32

static int expr_depth(const query_expr *e, int limit)
{
	if (!e || limit <= 0)
		return 0;
	int d = expr_depth(e->a, limit - 1);
	int db = expr_depth(e->b, limit - 1);
	if (db > d)
		d = db;
	for (int i = 0; i < e->nlist && d < limit; i++) {
		int di = expr_depth(e->list[i], limit - 1);
		if (di > d)
			d = di;
	}
	return d + 1;
}

static void field_block(query_session *s, const query_field *f, const int64_t *r, int n,
			double *out)
{
	const hs_graph *g = s->g;

	switch (f->kind) {
	case QF_FEATURE: {
		if (f->index >= g->feat_width || graph_need_features(g, NULL) != 0 || !g->node_feat)
			break;
		const float *base = g->node_feat + f->index;
		size_t w = (size_t)g->feat_width;
		for (int i = 0; i < n; i++)
			out[i] = (double)base[(size_t)r[i] * w];
		return;
	}
	case QF_ID:
	case QF_CONFIG:
		for (int i = 0; i < n; i++)
			out[i] = (double)r[i];
		return;
	case QF_OPCODE_ID:
		for (int i = 0; i < n; i++)
			out[i] = (double)g->opcode[r[i]];
		return;
	case QF_OPERANDS:
		for (int i = 0; i < n; i++)
			out[i] = (double)query_n_operands(g, r[i]);
		return;
	case QF_USERS:
		for (int i = 0; i < n; i++)
			out[i] = (double)query_n_users(g, r[i]);
		return;
	default:
		break;
	}
	for (int i = 0; i < n; i++)
		out[i] = query_field_num(s, f, r[i]);
}

static void eval_block(query_session *s, const query_expr *e, const int64_t *r, int n,
		       double *out)
{
	double tmp[QUERY_ROWS];

	switch (e->kind) {
	case QE_NUM:
		for (int i = 0; i < n; i++)
			out[i] = e->num;
		return;
	case QE_FIELD:
		if (e->shown)
			break;
		field_block(s, e->field, r, n, out);
		return;
	case QE_NEG:
		eval_block(s, e->a, r, n, out);
		for (int i = 0; i < n; i++)
			out[i] = -out[i];
		return;
	case QE_NOT:
		eval_block(s, e->a, r, n, out);
		for (int i = 0; i < n; i++)
			out[i] = !query_truthy(out[i]);
		return;
	case QE_ARITH:
		eval_block(s, e->a, r, n, out);
		eval_block(s, e->b, r, n, tmp);
		switch (e->op) {
		case TK_PLUS:
			for (int i = 0; i < n; i++)
				out[i] += tmp[i];
			return;
		case TK_MINUS:
			for (int i = 0; i < n; i++)
				out[i] -= tmp[i];
			return;
		case TK_STAR:
			for (int i = 0; i < n; i++)
				out[i] *= tmp[i];
			return;
		case TK_SLASH:
			for (int i = 0; i < n; i++)
				out[i] /= tmp[i];
			return;
		default:
			for (int i = 0; i < n; i++)
				out[i] = fmod(out[i], tmp[i]);
			return;
		}
	case QE_CMP:
		if (e->a->type == QUERY_TEXT)
			break;
		eval_block(s, e->a, r, n, out);
		eval_block(s, e->b, r, n, tmp);
		switch (e->op) {
		case TK_EQ:
			for (int i = 0; i < n; i++)
				out[i] = out[i] == tmp[i];
			return;
		case TK_NE:
			for (int i = 0; i < n; i++)
				out[i] = out[i] != tmp[i];
			return;
		case TK_LT:
			for (int i = 0; i < n; i++)
				out[i] = out[i] < tmp[i];
			return;
		case TK_LE:
			for (int i = 0; i < n; i++)
				out[i] = out[i] <= tmp[i];
			return;
		case TK_GT:
			for (int i = 0; i < n; i++)
				out[i] = out[i] > tmp[i];
			return;
		default:
			for (int i = 0; i < n; i++)
				out[i] = out[i] >= tmp[i];
			return;
		}
	case QE_AND:
	case QE_OR: {
		/* The right side only for the rows the left side leaves open
		 * (a selection vector), so a selective first term saves the
		 * loads of the others. */
		int want = e->kind == QE_AND; /* rows whose left value is this go on */
		int64_t sub[QUERY_ROWS];
		int pos[QUERY_ROWS], m = 0;
		eval_block(s, e->a, r, n, out);
		for (int i = 0; i < n; i++) {
			int t = query_truthy(out[i]);
			out[i] = t;
			if (t == want) {
				sub[m] = r[i];
				pos[m++] = i;
			}
		}
		if (m == 0)
			return;
		eval_block(s, e->b, sub, m, tmp);
		for (int j = 0; j < m; j++)
			out[pos[j]] = query_truthy(tmp[j]);
		return;
	}
	case QE_OPSET: {
		const uint8_t *op = s->g->opcode;
		for (int i = 0; i < n; i++)
			out[i] = (e->opset[op[r[i]]] != 0) != e->negate;
		return;
	}
	default:
		break;
	}
	for (int i = 0; i < n; i++)
		out[i] = query_eval_num(s, e, r[i]);
}

void query_eval_rows(query_session *s, const query_expr *e, const int64_t *rows, int64_t n,
		     double *out)
{
	if (expr_depth(e, BLOCK_MAX_DEPTH + 1) > BLOCK_MAX_DEPTH) {
		for (int64_t i = 0; i < n; i++)
			out[i] = query_eval_num(s, e, rows[i]);
		return;
	}
	for (int64_t i = 0; i < n; i += QUERY_ROWS) {
		int k = n - i < QUERY_ROWS ? (int)(n - i) : QUERY_ROWS;
		eval_block(s, e, rows + i, k, out + i);
	}
}

/* Keeps the rows of r[0..n) for which e holds, in order, in keep[] (which
 * may be r itself); returns how many.  `and` narrows the rows term by term
 * and `opcode in (...)` and numeric comparisons select without
 * materializing truth values. */
static int select_block(query_session *s, const query_expr *e, const int64_t *r, int n,
			int64_t *keep)
{
	double x[QUERY_ROWS], y[QUERY_ROWS];
	int m = 0;

	switch (e->kind) {
	case QE_AND:
		m = select_block(s, e->a, r, n, keep);
		return m ? select_block(s, e->b, keep, m, keep) : 0;
	case QE_OPSET: {
		const uint8_t *op = s->g->opcode;
		for (int i = 0; i < n; i++) {
			int64_t v = r[i];
			if ((e->opset[op[v]] != 0) != e->negate)
				keep[m++] = v;
		}
		return m;
	}
	case QE_CMP:
		if (e->a->type == QUERY_TEXT)
			break;
		eval_block(s, e->a, r, n, x);
		eval_block(s, e->b, r, n, y);
		for (int i = 0; i < n; i++) {
			int64_t v = r[i];
			int t;
			switch (e->op) {
			case TK_EQ: t = x[i] == y[i]; break;
			case TK_NE: t = x[i] != y[i]; break;
			case TK_LT: t = x[i] < y[i]; break;
			case TK_LE: t = x[i] <= y[i]; break;
			case TK_GT: t = x[i] > y[i]; break;
			default: t = x[i] >= y[i]; break;
			}
			if (t)
				keep[m++] = v;
		}
		return m;
	default:
		break;
	}
	eval_block(s, e, r, n, x);
	for (int i = 0; i < n; i++) {
		int64_t v = r[i];
		if (query_truthy(x[i]))
			keep[m++] = v;
	}
	return m;
}

int query_select_rows(query_session *s, const query_expr *e, const int64_t *rows, int n,
		      int64_t *keep)
{
	int m = 0;

	if (expr_depth(e, BLOCK_MAX_DEPTH + 1) > BLOCK_MAX_DEPTH) {
		for (int i = 0; i < n; i++) {
			int64_t v = rows[i];
			if (query_truthy(query_eval_num(s, e, v)))
				keep[m++] = v;
		}
		return m;
	}
	return select_block(s, e, rows, n, keep);
}
