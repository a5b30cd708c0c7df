/* view_diff_pair.c - one instruction of A and its match in B side by side
 * (Enter on a row of the diff view), and what the diff views share: both
 * documents and the diff, the rows in the order shown (view_diff.h).
 *
 * One row per field: name, how it was matched, the changes, computation,
 * opcode, shape, each operand (the names; marked when A's operand k is not
 * matched to B's), users, every attribute of either line as written (a
 * renaming inside calls= or to_apply= is no change), cost, FLOPs, bytes,
 * and the HLO lines.  Cells that differ are marked.  Enter on an operand
 * opens that operand's pair; on any other row, the node detail of the side
 * the cursor's column is on (as `i`); `v` draws that side.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/units.h"
#include "loader/hlo_print.h"
#include "tui/view_diff.h"

/* ---- shared with view_diff.c ---------------------------------------------- */

int tui_diff_docs_open(tui *t, tui_diff_docs *s, tui_doc *a, tui_doc *b, const char *path_a, const char *path_b,
		       hs_error *err)
{
	memset(s, 0, sizeof *s);
	if (!a)
		tui_status_now(t, "diff: reading %s...", path_a);
	s->da = a ? tui_doc_ref(a) : tui_doc_open(path_a, tui_model(t), err);
	if (!s->da)
		return -1;
	if (!b)
		tui_status_now(t, "diff: reading %s...", path_b);
	if (!(s->db = b ? tui_doc_ref(b) : tui_doc_open(path_b, tui_model(t), err))) {
		tui_doc_unref(s->da);
		s->da = NULL;
		return -1;
	}
	tui_status_now(t, "diff: matching %lld with %lld instructions...", (long long)s->da->g->n_nodes,
		       (long long)s->db->g->n_nodes);
	if (module_diff_run(&s->d, s->da->g, s->db->g, 0, err) != 0) {
		tui_doc_unref(s->da);
		tui_doc_unref(s->db);
		s->da = s->db = NULL;
		return -1;
	}
	return 0;
}

void tui_diff_docs_free(tui_diff_docs *s)
{
	if (s->da || s->db)
		module_diff_free(&s->d);
	tui_doc_unref(s->da);
	tui_doc_unref(s->db);
	memset(s, 0, sizeof *s);
}

typedef struct keyed {
	pair_row r;
	int group;     /* 0 changed, 1 only A, 2 only B, 3 unchanged */
	double key;    /* larger first */
	int64_t order;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
	const keyed *a = x, *b = y;
	if (a->group != b->group)
		return a->group - b->group;
	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	return (a->order > b->order) - (a->order < b->order);
}

int tui_diff_rows(const module_diff *d, pair_row **rows, int64_t *n)
{
	int64_t na = d->a->n_nodes, nb = d->b->n_nodes, k = 0;
	keyed *t = malloc(((size_t)(na + nb) + 1) * sizeof *t);
	*rows = malloc(((size_t)(na + nb) + 1) * sizeof **rows);
	if (!t || !*rows) {
		free(t);
		free(*rows);
		*rows = NULL;
		return -1;
	}
	for (int64_t v = 0; v < na; v++) {
		int64_t w = d->a2b[v];
		if (w < 0)
			t[k++] = (keyed){{v, -1}, 1, d->cost_a[v].seconds, v};
		else if (d->changes[v])
			t[k++] = (keyed){{v, w}, 0, fabs(d->cost_b[w].seconds - d->cost_a[v].seconds), v};
		else
			t[k++] = (keyed){{v, w}, 3, 0, v};
	}
	for (int64_t w = 0; w < nb; w++)
		if (d->b2a[w] < 0)
			t[k++] = (keyed){{-1, w}, 2, d->cost_b[w].seconds, w};
	qsort(t, (size_t)k, sizeof *t, cmp_keyed);
	for (int64_t i = 0; i < k; i++)
		(*rows)[i] = t[i].r;
	free(t);
	*n = k;
	return 0;
}

/* ---- the pair ------------------------------------------------------------------ */

enum { F_NAME, F_HOW, F_CHANGES, F_COMP, F_OPCODE, F_SHAPE, F_OPERAND, F_USERS, F_ATTR, F_COST, F_FLOPS,
       F_BYTES, F_LINE };


typedef struct field {
	int kind;
	int k;           /* operand index; attribute: index into A's (ia) and B's (ib) */
	int ia, ib;
} field;

struct pairview {
	const tui_diff_docs *s;  /* borrowed from the diff view below */
	int64_t a, b;
	field *f;
	int nf;
	hs_strbuf la, lb;        /* the HLO lines */
	hm_attr *xa, *xb;        /* the attributes (hm_instr_attr_list) */
	int na, nb;
	tui_table tab;
};

enum { PK_FIELD, PK_A, PK_B };

static void attr_text(const hm_attr *x, int i, char *buf, size_t cap)
{
	if (i < 0)
		buf[0] = '\0';
	else
		snprintf(buf, cap, "%s", x[i].value);
}

static const char *const how_names[] = {"", "by name (a tie)", "by structure", "by neighbours"};

/* The text of field f on side b (0 A, 1 B) into buf. */
static void side_text(const struct pairview *pv, const field *f, int b, char *buf, size_t cap)
{
	const module_diff *d = &pv->s->d;
	const hs_graph *g = b ? d->b : d->a;
	int64_t v = b ? pv->b : pv->a;
	const cost_estimate *c = v >= 0 ? (b ? &d->cost_b[v] : &d->cost_a[v]) : NULL;
	buf[0] = '\0';
	if (v < 0)
		return;
	switch (f->kind) {
	case F_NAME:
		snprintf(buf, cap, "%s", graph_node_name(g, v));
		break;
	case F_HOW:
		if (pv->a >= 0 && pv->b >= 0)
			snprintf(buf, cap, "%s", how_names[d->how[pv->a] & 3]);
		else
			snprintf(buf, cap, "only in %s", b ? "B" : "A");
		break;
	case F_CHANGES:
		if (pv->a >= 0 && pv->b >= 0)
			module_diff_change_list(d->changes[pv->a], buf, cap);
		break;
	case F_COMP: {
		char lb[TUI_NAME_MAX * 4 + 64], fz[160];
		const char *into = b ? module_diff_fused_into(d, v, fz, sizeof fz) : NULL;
		snprintf(buf, cap, "%s%s%s", tui_hcomp_label(g, g->hcomp_of[v], lb, sizeof lb),
			 into ? ", fused into " : "", into ? into : "");
		break;
	}
	case F_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, v));
		break;
	case F_SHAPE:
		snprintf(buf, cap, "%s", query_session_shape((b ? pv->s->db : pv->s->da)->qs, v));
		break;
	case F_OPERAND:
		if (f->k < graph_hlo_n_operands(g, v))
			snprintf(buf, cap, "%s", graph_node_name(g, graph_hlo_operands(g, v)[f->k]));
		break;
	case F_USERS:
		snprintf(buf, cap, "%lld", (long long)graph_hlo_n_users(g, v));
		break;
	case F_ATTR:
		attr_text(b ? pv->xb : pv->xa, b ? f->ib : f->ia, buf, cap);
		break;
	case F_COST:
		if (!tui_model_hidden(buf, cap))
			hs_unit_format(buf, cap, HS_U_SECONDS, c->seconds, -1);
		break;
	case F_FLOPS:
		hs_unit_format(buf, cap, HS_U_FLOP, c->flops, -1);
		break;
	case F_BYTES:
		hs_unit_format(buf, cap, HS_U_BYTES, c->bytes, -1);
		break;
	case F_LINE: {
		const hs_strbuf *l = b ? &pv->lb : &pv->la;
		snprintf(buf, cap, "%s", hs_strbuf_str(l));
		break;
	}
	}
}

/* 1 when the field differs between A and B (as the diff judges it). */
static int field_differs(const struct pairview *pv, const field *f)
{
	const module_diff *d = &pv->s->d;
	if (pv->a < 0 || pv->b < 0)
		return f->kind != F_HOW;
	uint32_t ch = d->changes[pv->a];
	switch (f->kind) {
	case F_CHANGES: return ch != 0;
	case F_COMP: return (ch & HD_COMPUTATION) != 0;
	case F_OPCODE: return (ch & HD_OPCODE) != 0;
	case F_SHAPE: return (ch & (HD_SHAPE | HD_LAYOUT)) != 0;
	case F_OPERAND: {
		const hs_graph *a = d->a, *b = d->b;
		if (f->k >= graph_hlo_n_operands(a, pv->a) || f->k >= graph_hlo_n_operands(b, pv->b))
			return 1;
		/* as the diff judges: a parameter of a fusion body stands for the
		 * caller's operand, so an op moved into a fusion reads the same */
		return (ch & HD_OPERANDS) && d->a2b[graph_hlo_operands(a, pv->a)[f->k]] != graph_hlo_operands(b, pv->b)[f->k];
	}
	case F_ATTR: {
		if (f->ia < 0 || f->ib < 0)
			return 1;
		char x[TUI_CELL], y[TUI_CELL];
		attr_text(pv->xa, f->ia, x, sizeof x);
		attr_text(pv->xb, f->ib, y, sizeof y);
		return strcmp(x, y) != 0 && (ch & HD_ATTRIBUTES);
	}
	case F_COST: return d->cost_a[pv->a].seconds != d->cost_b[pv->b].seconds;
	default: return 0;
	}
}

static const char *const field_names[] = {"name", "matched", "changes", "computation", "opcode", "shape",
					  "operand", "users", "", "cost", "flops", "bytes", "HLO"};

static int pair_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct pairview *pv = ctx;
	const field *f = &pv->f[row];
	if (c->key == PK_FIELD) {
		if (f->kind == F_OPERAND)
			snprintf(buf, cap, "operand %d", f->k);
		else if (f->kind == F_ATTR)
			snprintf(buf, cap, "%s", f->ia >= 0 ? pv->xa[f->ia].name : pv->xb[f->ib].name);
		else
			snprintf(buf, cap, "%s", field_names[f->kind]);
		return TUI_C_HEADER;
	}
	side_text(pv, f, c->key == PK_B, buf, cap);
	return field_differs(pv, f) ? TUI_C_MARK : TUI_C_DEFAULT;
}

static double pair_value(void *ctx, int64_t row, const tui_col *c)
{
	return NAN;
}

static const tui_table_ops pair_ops = {pair_cell, pair_value};

static const tui_col pair_cols[] = {
	{.name = "field", .key = PK_FIELD, .width = 14},
	{.name = "A", .key = PK_A, .width = 40},
	{.name = "B", .key = PK_B, .width = 40},
};

static const tui_table_spec pair_table = {
	.ops = &pair_ops, .cols = pair_cols, .ncols = TUI_N(pair_cols), .frozen = 1, .ccol = 1,
};

static int add_field(struct pairview *pv, int cap, field f)
{
	if (pv->nf >= cap)
		return -1;
	pv->f[pv->nf++] = f;
	return 0;
}

/* The rows: fixed fields, operands, the union of both lines' attributes. */
static int build_fields(struct pairview *pv)
{
	const module_diff *d = &pv->s->d;
	int64_t oa = pv->a >= 0 ? graph_hlo_n_operands(d->a, pv->a) : 0;
	int64_t ob = pv->b >= 0 ? graph_hlo_n_operands(d->b, pv->b) : 0;
	int64_t nops = oa > ob ? oa : ob;
	if (nops > 4096)
		nops = 4096;
	if ((pv->a >= 0 && graph_node_hlo(d->a, pv->a, &pv->la) < 0) ||
	    (pv->b >= 0 && graph_node_hlo(d->b, pv->b, &pv->lb) < 0))
		return -1;
	const hm_instr *ia = pv->a >= 0 ? graph_node_instr(d->a, pv->a) : NULL;
	const hm_instr *ib = pv->b >= 0 ? graph_node_instr(d->b, pv->b) : NULL;
	if ((ia && (pv->na = hm_instr_attr_list(d->a->module, ia, &pv->xa)) < 0) ||
	    (ib && (pv->nb = hm_instr_attr_list(d->b->module, ib, &pv->xb)) < 0))
		return -1;
	int cap = 16 + (int)nops + pv->na + pv->nb;
	if (!(pv->f = calloc((size_t)cap, sizeof *pv->f)))
		return -1;
	static const int head[] = {F_NAME, F_HOW, F_CHANGES, F_COMP, F_OPCODE, F_SHAPE};
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		add_field(pv, cap, (field){head[i], 0, -1, -1});
	for (int k = 0; k < (int)nops; k++)
		add_field(pv, cap, (field){F_OPERAND, k, -1, -1});
	add_field(pv, cap, (field){F_USERS, 0, -1, -1});
	for (int i = 0; i < pv->na; i++) {
		int j = 0;
		while (j < pv->nb && strcmp(pv->xb[j].name, pv->xa[i].name) != 0)
			j++;
		add_field(pv, cap, (field){F_ATTR, 0, i, j < pv->nb ? j : -1});
	}
	for (int j = 0; j < pv->nb; j++) {
		int i = 0;
		while (i < pv->na && strcmp(pv->xa[i].name, pv->xb[j].name) != 0)
			i++;
		if (i == pv->na)
			add_field(pv, cap, (field){F_ATTR, 0, -1, j});
	}
	static const int tail[] = {F_COST, F_FLOPS, F_BYTES, F_LINE};
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		add_field(pv, cap, (field){tail[i], 0, -1, -1});
	return 0;
}

static void pair_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct pairview *pv = v->data;
	char line[256];
	snprintf(line, sizeof line, " Enter: an operand's pair, else the node detail of the cursor's side (as i);"
				    " v draws that side; q back");
	tui_put(win, y, x, w, line, tui_attr(TUI_C_DIM), 1);
	tui_table_draw(win, &pv->tab, y + 1, x, h - 1, w, 1);
}

static int cursor_b(const struct pairview *pv)
{
	const tui_table *tb = &pv->tab;
	int b = tb->ccol >= 0 && tb->ccol < tb->ncols && tb->cols[tb->ccol].key == PK_B;
	if (b ? pv->b < 0 : pv->a < 0)
		b = !b;
	return b;
}

static int pair_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct pairview *pv = v->data;
	const module_diff *d = &pv->s->d;
	int b = cursor_b(pv);
	int64_t node = b ? pv->b : pv->a;
	switch (req) {
	case TUI_REQ_ENTER: {
		int64_t r = tui_table_row(&pv->tab);
		const field *f = r >= 0 ? &pv->f[r] : NULL;
		if (f && f->kind == F_OPERAND) {
			const hs_graph *g = b ? d->b : d->a;
			if (f->k >= graph_hlo_n_operands(g, node)) {
				tui_message(t, 1, "%s has no operand %d", b ? "B" : "A", f->k);
				return 1;
			}
			int64_t o = graph_hlo_operands(g, node)[f->k];
			tui_open_diff_pair(t, pv->s, b ? d->b2a[o] : o, b ? o : d->a2b[o]);
			return 1;
		}
		tui_open_node(t, b ? pv->s->db : pv->s->da, node);
		return 1;
	}
	case TUI_REQ_DETAIL:
		tui_open_node(t, b ? pv->s->db : pv->s->da, node);
		return 1;
	case TUI_REQ_DRAW:
		tui_diff_draw_side(t, pv->s, b, node);
		return 1;
	default:
		return 0;
	}
}

static void pair_done(tui_view *v)
{
	struct pairview *pv = v->data;
	tui_table_free(&pv->tab);
	hs_strbuf_free(&pv->la);
	hs_strbuf_free(&pv->lb);
	free(pv->xa);
	free(pv->xb);
	free(pv->f);
	free(pv);
}

static const tui_view_ops pair_view_ops = {
	.name = "diff pair", .scope = TUI_S_TABLE | TUI_S_OPENS | TUI_S_DIFF, .draw = pair_draw,
	.request = pair_request, .done = pair_done,
};

int tui_open_diff_pair(tui *t, const tui_diff_docs *s, int64_t a, int64_t b)
{
	if (a < 0 && b < 0) {
		tui_message(t, 1, "no instruction");
		return -1;
	}
	struct pairview *pv = calloc(1, sizeof *pv);
	if (!pv) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	pv->s = s;
	pv->a = a;
	pv->b = b;
	if (build_fields(pv) != 0) {
		pair_done(&(tui_view){.data = pv});
		tui_message(t, 1, "out of memory");
		return -1;
	}
	tui_table_init_spec(&pv->tab, &pair_table, pv, pv->nf);
	char title[200];
	snprintf(title, sizeof title, "Pair %s | %s", a >= 0 ? graph_node_name(s->d.a, a) : "-",
		 b >= 0 ? graph_node_name(s->d.b, b) : "-");
	return tui_push(t, &pair_view_ops, pv, NULL, title, &pv->tab, NULL) ? 0 : -1;
}
