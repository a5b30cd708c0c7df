/* node_head.c - the lines of the node detail above its panes: the node's
 * name, opcode and shape; its computation (and split); the HLO fields it
 * has (fusion kind and calls, metadata, source, custom-call target,
 * sharding); for a parameter or the root of a called computation, the
 * callers and the operand the parameter stands for; for a collective, its
 * replica groups, channel and bytes per device; its HLO line as written;
 * its operand and user counts; the analytic cost; the keys.  The optional
 * lines give way first when the screen is short. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "loader/hlo.h"
#include "tui/node_view.h"

/* " analytic time 2.41 ms = max(compute ..., memory ... + padding ...) +
 * copy ... + overhead ...; FLOP, bytes" under the recorded layouts. */
static void analytic_line(const hs_graph *g, int64_t n, const cost_estimate *c, char *buf, size_t cap)
{
	char t[6][32], b[256], fl[32], by[32];
	const double v[6] = {c ? c->seconds : NAN, c ? c->compute : NAN, c ? c->memory : NAN,
			     c ? c->padding : NAN, c ? c->copy : NAN, c ? c->overhead : NAN};

	if (!cost_available(g)) {
		snprintf(buf, cap, " analytic time: n/a (%s)", cost_unavailable_reason(g));
		return;
	}
	if (c && c->unknown) {
		const char *target = graph_node_text(g, n, HS_HF_CUSTOM_CALL_TARGET, b, sizeof b);
		if (target[0])
			snprintf(buf, cap, " analytic time: unknown (the model does not know what custom-call target %s"
				 " computes)", target);
		else
			snprintf(buf, cap, " analytic time: unknown (the model does not know what it computes)");
		return;
	}
	for (int i = 0; i < 6; i++)
		if (!tui_model_hidden(t[i], sizeof t[i]))
			hs_unit_format(t[i], sizeof t[i], HS_U_SECONDS, v[i], -1);
	if (tui_model_masked())
		snprintf(buf, cap, " analytic time %s = max(compute %s, memory %s + padding %s) + copy %s + overhead %s;"
			 " # FLOP, # bytes", t[0], t[1], t[2], t[3], t[4], t[5]);
	else {
		hs_unit_format(fl, sizeof fl, HS_U_FLOP, c ? c->flops : NAN, -1);
		hs_unit_format(by, sizeof by, HS_U_BYTES, c ? c->bytes : NAN, -1);
		snprintf(buf, cap, " analytic time %s = max(compute %s, memory %s + padding %s) + copy %s + overhead %s;"
			 " %s, %s", t[0], t[1], t[2], t[3], t[4], t[5], fl, by);
	}
}

/* Appends " LABEL VALUE" to line when the value is not empty. */
static void add_field(char *line, size_t cap, const char *label, const char *value)
{
	size_t len = strlen(line);
	if (value[0] && len < cap)
		snprintf(line + len, cap - len, "%s%s %s", len ? "  " : " ", label, value);
}

/* A line drawn when there is room: *room counts the rows left. */
static int put_line(WINDOW *win, int y, int x, int w, const char *line, attr_t a, int *room)
{
	if (!line[0] || *room <= 0)
		return 0;
	tui_put(win, y, x, w, line, a, 1);
	(*room)--;
	return 1;
}

/* The HLO fields: fusion kind and calls; op_type and op_name; source
 * file and line; custom-call target and sharding.  Returns the rows used. */
static int draw_hlo_fields(const hs_graph *g, int64_t n, WINDOW *win, int y, int x, int w, int *room)
{
	char line[1024], b[256], calls[512] = "";
	int rows = 0;
	size_t len = 0;

	for (int64_t k = 0; k < graph_n_called(g, n) && len < sizeof calls; k++) {
		int wr = snprintf(calls + len, sizeof calls - len, "%s%s", k ? ", " : "",
				  tui_hcomp_label(g, g->called_idx[g->called_off[n] + k], b, sizeof b));
		len += wr > 0 ? (size_t)wr : 0;
	}
	line[0] = '\0';
	add_field(line, sizeof line, "fusion kind", graph_node_text(g, n, HS_HF_FUSION_KIND, b, sizeof b));
	add_field(line, sizeof line, "calls", calls);
	rows += put_line(win, y + rows, x, w, line, 0, room);
	line[0] = '\0';
	add_field(line, sizeof line, "op_type", graph_node_text(g, n, HS_HF_OP_TYPE, b, sizeof b));
	const char *op = graph_node_text(g, n, HS_HF_OP_NAME, b, sizeof b);
	add_field(line, sizeof line, "op_name", op);
	rows += put_line(win, y + rows, x, w, line, tui_attr(TUI_C_SECTION), room);
	if (op[0]) { /* its layer (model/layers.h), and the key into the tree */
		char layer[300];
		size_t ll = layers_op_name_layer(op);
		snprintf(layer, sizeof layer, " layer %.*s  (y: in the layers tree)", (int)(ll ? ll : 11),
			 ll ? op : "(top level)");
		rows += put_line(win, y + rows, x, w, layer, 0, room);
	}
	line[0] = '\0';
	const char *file = graph_node_text(g, n, HS_HF_SOURCE_FILE, b, sizeof b);
	if (file[0]) {
		char src[512], lb[32];
		const char *ln = graph_node_text(g, n, HS_HF_SOURCE_LINE, lb, sizeof lb);
		snprintf(src, sizeof src, "%s%s%s", file, ln[0] ? ":" : "", ln);
		add_field(line, sizeof line, "source", src);
	}
	rows += put_line(win, y + rows, x, w, line, tui_attr(TUI_C_SECTION), room);
	line[0] = '\0';
	add_field(line, sizeof line, "custom-call target", graph_node_text(g, n, HS_HF_CUSTOM_CALL_TARGET, b, sizeof b));
	add_field(line, sizeof line, "sharding", graph_node_text(g, n, HS_HF_SHARDING, b, sizeof b));
	rows += put_line(win, y + rows, x, w, line, 0, room);
	return rows;
}

/* For a parameter or the root of a called computation (named on the line
 * above): who calls it and, for a parameter, the operand it stands for.
 * "" otherwise. */
static void caller_line(const struct nodeview *nv, char *line, size_t cap)
{
	const hs_graph *g = nv->doc->g;
	int64_t v = nv->node, num = graph_param_number(g, v);
	const hs_hcomp *hc = &g->hcomps[g->hcomp_of[v]];
	char tb[TUI_NAME_MAX * 4 + 8], sn[TUI_NAME_MAX * 4 + 8], more[64] = "";

	line[0] = '\0';
	if (hc->n_callers == 0 || (num < 0 && hc->root != v))
		return;
	int64_t caller = g->hcomp_callers[hc->callers_at];
	const char *cname = tui_name(graph_node_name(g, caller), tb, sizeof tb);
	if (hc->n_callers > 1)
		snprintf(more, sizeof more, " (and %lld more caller%s, listed)", (long long)hc->n_callers - 1,
			 hs_s(hc->n_callers - 1));
	if (num < 0) {
		snprintf(line, cap, " root: returns to %s%s", cname, more);
		return;
	}
	int64_t src = g->knows & HM_KNOWS_OPERAND_ORDER ? graph_param_source(g, v, caller) : -1;
	if (src >= 0)
		snprintf(line, cap, " parameter %lld: operand %lld of %s, %s%s", (long long)num,
			 (long long)graph_param_operand(g, v, caller), cname,
			 tui_name(graph_node_name(g, src), sn, sizeof sn), more);
	else
		snprintf(line, cap, " parameter %lld, called by %s%s: %s", (long long)num, cname, more,
			 !(g->knows & HM_KNOWS_OPERAND_ORDER) ? "the dataset's edges keep no operand order"
			 : hc->role == HS_ROLE_REDUCER ? "an element it combines, no operand"
						      : "no operand stands for it");
}

/* For a collective: its replica groups (a permute's pairs) as written, their number and size,
 * the channel and the bytes each device sends.  "" otherwise. */
static void collective_line(const hs_graph *g, int64_t v, char *line, size_t cap)
{
	hs_collective c;
	hs_strbuf b = {0};
	char groups[64] = "", ch[48] = "", by[32];

	line[0] = '\0';
	if (!graph_collective(g, v, &c))
		return;
	graph_node_attr(g, v, c.devices, &b);
	if (c.n_groups > 0)
		snprintf(groups, sizeof groups, "  %lld group%s of %lld", (long long)c.n_groups, hs_s(c.n_groups),
			 (long long)c.group_size);
	else if (c.n_pairs > 0)
		snprintf(groups, sizeof groups, "  %lld pair%s", (long long)c.n_pairs, hs_s(c.n_pairs));
	if (c.channel_id >= 0)
		snprintf(ch, sizeof ch, "  channel_id %lld", (long long)c.channel_id);
	hs_unit_format(by, sizeof by, HS_U_BYTES, c.bytes, -1);
	snprintf(line, cap, " collective  %s %s%s%s  %s per device", c.devices,
		 b.len ? hs_strbuf_str(&b) : c.devices[0] == 's' ? "none" : "none (every device)",
		 groups, ch, by);
	hs_strbuf_free(&b);
}

/* The HLO line, wrapped over up to `rows` rows; the rows used. */
static int draw_hlo_text(const struct nodeview *nv, WINDOW *win, int y, int x, int w, int rows)
{
	const char *s = hs_strbuf_str(&nv->hline);
	int used = 0;

	while (*s == ' ')
		s++;
	if (!*s || rows <= 0 || w <= 8)
		return 0;
	tui_put(win, y, x, 5, " HLO ", tui_attr(TUI_C_DIM), 1);
	for (; used < rows && *s; used++) {
		size_t n = tui_prefix_bytes(s, w - 5), len = strlen(s);
		char part[2048];
		if (used == rows - 1 || n >= sizeof part) { /* the rest, cut with an ellipsis */
			n = len < sizeof part ? len : sizeof part - 1;
		} else if (n < len) { /* break after a blank when one is in the second half */
			size_t b = n;
			while (b > n / 2 && s[b - 1] != ' ')
				b--;
			if (b > n / 2)
				n = b;
		}
		memcpy(part, s, n);
		part[n] = '\0';
		tui_put(win, y + used, x + 5, w - 5, part, 0, 1);
		s += n;
	}
	return used;
}

/* The first two lines: name, opcode, shape; computation and split. */
static void draw_head(const struct nodeview *nv, WINDOW *win, int y, int x, int w)
{
	const hs_graph *g = nv->doc->g;
	int64_t n = nv->node, hc = g->hcomp_of[n], sp = g->comp_of[n];
	const hs_hcomp *c = &g->hcomps[hc];
	char line[1024], sb[TUI_NAME_MAX * 4 + 8];

	snprintf(line, sizeof line, " node %lld  ", (long long)n);
	int used = tui_put(win, y, x, w, line, 0, 0);
	snprintf(line, sizeof line, "%s  ", tui_name(graph_node_name(g, n), sb, sizeof sb));
	used += tui_put(win, y, x + used, w - used, line, A_BOLD, 0);
	used += tui_put(win, y, x + used, w - used, graph_node_opcode_name(g, n),
			tui_attr(tui_node_class(g, n)) | A_BOLD, 0);
	snprintf(line, sizeof line, "  %s", query_session_shape(nv->doc->qs, n));
	tui_put(win, y, x + used, w - used, line, 0, 1);
	snprintf(line, sizeof line, " computation %s (%s, nodes %lld..%lld)%s",
		 tui_name(graph_hcomp_name(g, hc), sb, sizeof sb), graph_role_name(c->role),
		 (long long)c->first, (long long)(c->first + c->count - 1), c->root == n ? ", its root" : "");
	if (g->n_comps > 1 && !(nv->doc->g->kind == HS_KIND_MODULE)) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, "   split %lld (nodes %lld..%lld)%s", (long long)sp,
			 (long long)g->comp_start[sp], (long long)g->comp_start[sp + 1] - 1,
			 query_session_split_root(nv->doc->qs, sp, NULL) == n ? ", its root" : "");
	}
	tui_put(win, y + 1, x, w, line, 0, 1);
}

/* Operand and user counts (on a bare .npz, said once: the dataset's
 * edges), and whether the node is configurable. */
static void counts_line(const struct nodeview *nv, char *line, size_t cap)
{
	const hs_graph *g = nv->doc->g;
	int64_t n = nv->node, np = graph_hlo_n_operands(g, n), nu = graph_hlo_n_users(g, n);
	size_t len;

	snprintf(line, cap, " %lld operand%s  %lld user%s", (long long)np, hs_s(np), (long long)nu, hs_s(nu));
	len = strlen(line);
	if (g->cfg_index && g->cfg_index[n] >= 0 && len < cap)
		snprintf(line + len, cap - len, "  configurable #%d of %lld", g->cfg_index[n], (long long)g->n_cfg_nodes);
	len = strlen(line);
	if (!(g->knows & HM_KNOWS_OPERAND_ORDER) && len < cap)
		snprintf(line + len, cap - len, "  (operands: the dataset's edges, sorted, no repeats, calls included)");
}

int node_head_draw(struct nodeview *nv, WINDOW *win, int y, int x, int w, int h, int keep)
{
	const hs_graph *g = nv->doc->g;
	int64_t n = nv->node;
	char line[1024];
	const cost_estimate *ce = query_session_cost(nv->doc->qs, NULL); /* made by tui_open_node */
	int room = h - keep - 5, rows = 2; /* 5: the lines always drawn */

	draw_head(nv, win, y, x, w);
	rows += draw_hlo_fields(g, n, win, y + rows, x, w, &room);
	caller_line(nv, line, sizeof line);
	rows += put_line(win, y + rows, x, w, line, tui_attr(TUI_C_MARK), &room);
	collective_line(g, n, line, sizeof line);
	rows += put_line(win, y + rows, x, w, line, tui_attr(TUI_C_CAT + HLO_CAT_COLLECTIVE), &room);
	rows += draw_hlo_text(nv, win, y + rows, x, w, room < 2 ? room : 2);
	counts_line(nv, line, sizeof line);
	tui_put(win, y + rows++, x, w, line, 0, 1);
	analytic_line(g, n, ce ? &ce[n] : NULL, line, sizeof line);
	tui_put(win, y + rows++, x, w, line, 0, 1);
	snprintf(line, sizeof line,
		 " jump %d/%d  < back  > forward  Enter: the row's node or call  u: to the caller  Tab: pane  v: draw",
		 nv->hpos + 1, nv->nhist);
	tui_put(win, y + rows++, x, w, line, tui_attr(TUI_C_DIM), 1);
	return rows;
}
