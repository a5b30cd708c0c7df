/* view_collectives.c - every collective of a graph (`r` or `:collectives`):
 * the instructions that exchange data between devices (all-reduce,
 * all-gather, reduce-scatter, all-to-all, collective-permute, ... and
 * their -start halves: graph_is_collective_opcode), with their replica
 * groups as the module writes them (a permute's source_target_pairs), the
 * number of groups and the devices in one, the channel id and the bytes each device sends (its operands).
 * A bare .npz keeps no attributes: its collectives are listed by opcode,
 * their groups and channels unknown.  Enter opens a collective's node
 * detail, v draws around it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "tui/tui.h"

struct coll_row {
	int64_t node;
	hs_collective c;
	int known;    /* graph_collective had the module's attributes */
	char *groups; /* replica_groups (a permute's source_target_pairs) as written, "" when none (malloc'd) */
};

struct colls {
	tui_doc *doc;
	tui_table tab;
	struct coll_row *row;
	int64_t n;
	double bytes_total;
};

enum { CC_ID, CC_NAME, CC_OPCODE, CC_GROUPS_TEXT, CC_NGROUPS, CC_SIZE, CC_CHANNEL, CC_BYTES, CC_SHAPE,
       CC_COMPUTATION };

static double coll_value(void *ctx, int64_t row, const tui_col *c);

static int coll_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct colls *o = ctx;
	const hs_graph *g = o->doc->g;
	const struct coll_row *r = &o->row[row];
	const char *s;

	switch (c->key) {
	case CC_NAME:
		s = graph_node_name(g, r->node);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		return TUI_C_DEFAULT;
	case CC_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, r->node));
		return tui_node_class(g, r->node);
	case CC_GROUPS_TEXT:
		if (!r->known)
			snprintf(buf, cap, "?");
		else if (!r->groups[0])
			snprintf(buf, cap, "%s", r->c.devices[0] == 's' ? "(no pairs)" : "(none: every device)");
		else
			snprintf(buf, cap, "%s%s", r->c.devices[0] == 's' ? "pairs " : "", r->groups);
		return r->known && r->groups[0] ? TUI_C_DEFAULT : TUI_C_DIM;
	case CC_SHAPE:
		snprintf(buf, cap, "%s", query_session_shape(o->doc->qs, r->node));
		return TUI_C_DEFAULT;
	case CC_COMPUTATION:
		s = graph_hcomp_name(g, g->hcomp_of[r->node]);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		return TUI_C_DIM;
	case CC_BYTES:
		hs_unit_format(buf, cap, c->unit, coll_value(o, row, c), -1);
		return TUI_C_DEFAULT;
	default: {
		double v = coll_value(o, row, c);
		if (isnan(v))
			snprintf(buf, cap, "-");
		else
			snprintf(buf, cap, "%.0f", v);
		return isnan(v) ? TUI_C_DIM : TUI_C_DEFAULT;
	}
	}
}

static double coll_value(void *ctx, int64_t row, const tui_col *c)
{
	struct colls *o = ctx;
	const struct coll_row *r = &o->row[row];

	switch (c->key) {
	case CC_ID:
		return (double)r->node;
	case CC_NGROUPS:
		return r->known && r->c.n_groups > 0 ? (double)r->c.n_groups : NAN;
	case CC_SIZE:
		return r->known && r->c.group_size > 0 ? (double)r->c.group_size : NAN;
	case CC_CHANNEL:
		return r->known && r->c.channel_id >= 0 ? (double)r->c.channel_id : NAN;
	case CC_BYTES:
		return r->known ? r->c.bytes : NAN;
	default:
		return NAN;
	}
}

static const tui_table_ops coll_table_ops = {coll_cell, coll_value};

static const tui_col coll_cols[] = {
	{.name = "id", .key = CC_ID, .width = 6, .numeric = 1},
	{.name = "name", .key = CC_NAME, .width = 18, .mid = 1},
	{.name = "opcode", .key = CC_OPCODE, .width = 14},
	{.name = "groups/pairs", .key = CC_GROUPS_TEXT, .width = 24},
	{.name = "groups", .key = CC_NGROUPS, .width = 6, .numeric = 1},
	{.name = "group size", .key = CC_SIZE, .width = 10, .numeric = 1},
	{.name = "channel", .key = CC_CHANNEL, .width = 7, .numeric = 1},
	{.name = "bytes/device", .key = CC_BYTES, .width = 12, .numeric = 1, .unit = HS_U_BYTES},
	{.name = "shape", .key = CC_SHAPE, .width = 20},
};

static const tui_col coll_extra_cols[] = {
	{.name = "computation", .key = CC_COMPUTATION, .width = 20, .mid = 1},
};

static const tui_table_spec coll_table = {
	.ops = &coll_table_ops, .cols = coll_cols, .ncols = TUI_N(coll_cols),
	.avail = coll_extra_cols, .navail = TUI_N(coll_extra_cols), .frozen = 2, .ccol = 1,
};

static void colls_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct colls *o = v->data;
	const hs_graph *g = o->doc->g;
	char line[512], b[32];

	if (!(g->knows & HM_KNOWS_ATTRS))
		snprintf(line, sizeof line,
			 " %lld collective%s by opcode; a bare .npz keeps no attributes: replica groups, channels"
			 " and bytes are unknown",
			 (long long)o->n, hs_s(o->n));
	else {
		hs_unit_format(b, sizeof b, HS_U_BYTES, o->bytes_total, -1);
		snprintf(line, sizeof line,
			 " %lld collective%s  %s per device in all (each one's operands)   Enter: node detail  v draws",
			 (long long)o->n, hs_s(o->n), b);
	}
	tui_put(win, y, x, w, line, tui_attr(TUI_C_DIM), 1);
	tui_table_draw(win, &o->tab, y + 1, x, h - 1, w, 1);
}

static int colls_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct colls *o = v->data;
	int64_t r = tui_table_row(&o->tab);

	switch (req) {
	case TUI_REQ_ENTER:
	case TUI_REQ_DETAIL:
		if (r >= 0)
			tui_open_node(t, o->doc, o->row[r].node);
		return 1;
	case TUI_REQ_DRAW:
		if (r >= 0 && !arg)
			tui_open_drawing(t, o->doc, o->row[r].node);
		return r >= 0 && !arg;
	case TUI_REQ_COLLECTIVES:
		tui_message(t, 0, "this is the collectives view");
		return 1;
	default:
		return 0;
	}
}

static void colls_done(tui_view *v)
{
	struct colls *o = v->data;
	tui_table_free(&o->tab);
	for (int64_t i = 0; i < o->n; i++)
		free(o->row[i].groups);
	free(o->row);
	free(o);
}

static const tui_view_ops colls_ops = {
	.name = "collectives", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS, .draw = colls_draw,
	.request = colls_request, .done = colls_done,
};

/* The collectives of d's graph into o->row; -1 when out of memory. */
static int find_collectives(struct colls *o)
{
	const hs_graph *g = o->doc->g;
	hs_strbuf b = {0};
	int64_t cap = 0;

	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!graph_is_collective_opcode(graph_node_opcode_name(g, v)))
			continue;
		if (o->n == cap) {
			cap = cap ? cap * 2 : 16;
			struct coll_row *p = realloc(o->row, (size_t)cap * sizeof *p);
			if (!p)
				goto oom;
			o->row = p;
		}
		struct coll_row *r = &o->row[o->n];
		memset(r, 0, sizeof *r);
		r->node = v;
		r->known = graph_collective(g, v, &r->c);
		hs_strbuf_reset(&b);
		if (r->known && graph_node_attr(g, v, r->c.devices, &b) < 0)
			goto oom;
		if (!(r->groups = strdup(hs_strbuf_str(&b))))
			goto oom;
		o->n++;
		if (r->known)
			o->bytes_total += r->c.bytes;
	}
	hs_strbuf_free(&b);
	return 0;
oom:
	hs_strbuf_free(&b);
	return -1;
}

int tui_open_collectives(tui *t, tui_doc *d)
{
	struct colls *o = calloc(1, sizeof *o);
	char title[160];

	if (!o) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	o->doc = d;
	if (find_collectives(o) < 0) {
		colls_done(&(tui_view){.data = o});
		tui_message(t, 1, "out of memory");
		return -1;
	}
	tui_table_init_spec(&o->tab, &coll_table, o, o->n);
	snprintf(o->tab.title, sizeof o->tab.title, "Collectives of %s", graph_module_name(d->g));
	snprintf(title, sizeof title, "Collectives");
	if (!tui_push(t, &colls_ops, o, d, title, &o->tab, NULL))
		return -1;
	if (o->n == 0)
		tui_message(t, 0, "%s has no collectives (all-reduce, all-gather, reduce-scatter, all-to-all, "
			    "collective-permute, ...)", graph_module_name(d->g));
	return 0;
}
