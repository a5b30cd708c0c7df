/* cmd_show.c - `show ID|NAME`: one node in detail.  Its name, opcode and
 * shape; its HLO computation (name, role, size) and what it calls; for a
 * parameter of a called computation, the caller's operand it stands for;
 * for the root of one, the callers it answers; its metadata; its operands
 * in HLO order (repeats kept) and users; configurability, analytic cost;
 * its HLO line and attributes as written; the features that are not zero.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/units.h"
#include "loader/hlo.h"
#include "loader/hlo_print.h"
#include "model/machine.h"
#include "query/commands.h"

/* Lists of nodes, callers and attributes stop after this many. */
#define SHOW_MAX 12

/* "N: id name, id name, ... (K more)"; on a bare .npz the opcode stands
 * for the derived name. */
static void list_nodes(query_session *s, hs_strbuf *b, const int64_t *idx, int64_t n)
{
	const hs_graph *g = s->g;

	hs_strbuf_printf(b, "%lld", (long long)n);
	for (int64_t i = 0; idx && i < n && i < SHOW_MAX; i++)
		hs_strbuf_printf(b, "%s%lld %s", i ? ", " : ": ", (long long)idx[i],
			      g->module ? graph_node_name(g, idx[i], NULL, 0) : query_opcode_text(s, idx[i]));
	if (n > SHOW_MAX)
		hs_strbuf_printf(b, ", ... (%lld more)", (long long)(n - SHOW_MAX));
	hs_strbuf_puts(b, "\n");
}

/* "name (node 12)" of a node, for callers. */
static void node_ref(query_session *s, hs_strbuf *b, int64_t v)
{
	hs_strbuf_printf(b, "%s (node %lld)", query_htext(s, HS_HF_NAME, v), (long long)v);
}

/* A parameter of a called computation: the operand each caller passes it
 * (graph_param_source); a reducer's parameters are the values it combines. */
static void show_parameter(query_session *s, hs_strbuf *b, int64_t v)
{
	const hs_graph *g = s->g;
	int64_t num = graph_param_number(g, v);
	const hs_hcomp *c = &g->hcomps[g->hcomp_of[v]];

	if (num < 0 || !c->n_callers || !query_operands_exact(g))
		return;
	const int64_t *callers = g->hcomp_callers + c->callers_at;
	if (graph_param_source(g, v, callers[0]) < 0) { /* a reducer's: a value */
		hs_strbuf_printf(b, "  parameter     %lld of a %s: a value its caller%s combine%s (", (long long)num,
			      graph_role_name(c->role), c->n_callers == 1 ? "" : "s",
			      c->n_callers == 1 ? "s" : "");
		for (int64_t i = 0; i < c->n_callers && i < SHOW_MAX; i++) {
			hs_strbuf_printf(b, "%s", i ? ", " : "");
			node_ref(s, b, callers[i]);
		}
		hs_strbuf_printf(b, "%s), not one of %s operands\n", c->n_callers > SHOW_MAX ? ", ..." : "",
			      c->n_callers == 1 ? "its" : "their");
		return;
	}
	for (int64_t i = 0; i < c->n_callers && i < SHOW_MAX; i++) {
		int64_t caller = callers[i], src = graph_param_source(g, v, caller);
		if (src < 0)
			continue;
		hs_strbuf_printf(b, "  parameter     %lld = operand %lld of ", (long long)num,
			      (long long)graph_param_operand(g, v, caller));
		node_ref(s, b, caller);
		hs_strbuf_printf(b, ": %lld %s\n", (long long)src, query_htext(s, HS_HF_NAME, src));
	}
	if (c->n_callers > SHOW_MAX)
		hs_strbuf_printf(b, "  parameter     ... (%lld more callers)\n",
			      (long long)(c->n_callers - SHOW_MAX));
}

/* The root of a computation: the module's result, or what its callers
 * return. */
static void show_root(query_session *s, hs_strbuf *b, int64_t v)
{
	const hs_graph *g = s->g;
	int64_t hc = g->hcomp_of[v];
	const hs_hcomp *c = &g->hcomps[hc];

	if (c->root != v)
		return;
	if (hc == g->entry) {
		hs_strbuf_puts(b, "  root of       the entry computation: the module's result\n");
		return;
	}
	hs_strbuf_printf(b, "  root of       %s, returned to ", query_htext(s, HS_HF_COMPUTATION, v));
	const int64_t *callers = g->hcomp_callers + c->callers_at;
	for (int64_t i = 0; i < c->n_callers && i < SHOW_MAX; i++) {
		hs_strbuf_printf(b, "%s", i ? ", " : "");
		node_ref(s, b, callers[i]);
	}
	if (!c->n_callers)
		hs_strbuf_puts(b, "no caller");
	if (c->n_callers > SHOW_MAX)
		hs_strbuf_printf(b, ", ... (%lld more)", (long long)(c->n_callers - SHOW_MAX));
	hs_strbuf_puts(b, "\n");
}

/* The node's HLO context: its computation, the node_splits segment when
 * there are several, what it calls, parameters and roots, its metadata
 * (lines only for what it has). */
static void show_hlo(query_session *s, hs_strbuf *b, int64_t v)
{
	static const struct {
		int f;
		const char *label;
	} meta[] = {
		{HS_HF_FUSION_KIND, "fusion_kind"}, {HS_HF_CUSTOM_CALL_TARGET, "target"},
		{HS_HF_OP_TYPE, "op_type"}, {HS_HF_OP_NAME, "op_name"},
		{HS_HF_SOURCE_FILE, "source"}, {HS_HF_SHARDING, "sharding"},
	};
	const hs_graph *g = s->g;
	char buf[160];

	if (g->hcomp_of) {
		const hs_hcomp *c = &g->hcomps[g->hcomp_of[v]];
		hs_strbuf_printf(b, "  computation   %s (%s, %lld node%s)\n",
			      query_htext(s, HS_HF_COMPUTATION, v), graph_role_name(c->role),
			      (long long)c->count, c->count == 1 ? "" : "s");
	}
	int comp = g->comp_of ? g->comp_of[v] : 0;
	if (g->comp_start && g->n_comps > 1 && comp >= 0 && comp < g->n_comps)
		hs_strbuf_printf(b, "  split         %d of %lld (nodes %lld..%lld)\n", comp,
			      (long long)g->n_comps, (long long)g->comp_start[comp],
			      (long long)g->comp_start[comp + 1] - 1);
	if (!g->hcomp_of)
		return;
	for (int64_t i = g->called_off[v]; i < g->called_off[v + 1]; i++) {
		const hs_hcomp *k = &g->hcomps[g->called_idx[i]];
		hs_strbuf_printf(b, "  calls         %s (%s, %lld node%s)\n",
			      graph_hcomp_name(g, g->called_idx[i], buf, sizeof buf),
			      graph_role_name(k->role), (long long)k->count, k->count == 1 ? "" : "s");
	}
	show_parameter(s, b, v);
	show_root(s, b, v);
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
		const char *t = query_htext(s, meta[i].f, v);
		if (!*t)
			continue;
		hs_strbuf_printf(b, "  %-12s  %s", meta[i].label, t);
		if (meta[i].f == HS_HF_SOURCE_FILE && *query_htext(s, HS_HF_SOURCE_LINE, v))
			hs_strbuf_printf(b, ":%s", query_htext(s, HS_HF_SOURCE_LINE, v));
		hs_strbuf_puts(b, "\n");
	}
}

/* Operands and users, and on a bare .npz what they are. */
static void show_edges(query_session *s, hs_strbuf *b, int64_t v)
{
	const hs_graph *g = s->g;

	hs_strbuf_puts(b, "  operands      ");
	if (!query_operands_exact(g))
		hs_strbuf_puts(b, "(the dataset's edges: sorted, repeats merged, called roots included) ");
	list_nodes(s, b, query_operands(g, v), query_n_operands(g, v));
	hs_strbuf_puts(b, "  users         ");
	list_nodes(s, b, query_users(g, v), query_n_users(g, v));
}

/* The analytic estimate, or why there is none. */
static void show_cost(query_session *s, hs_strbuf *b, int64_t v)
{
	const hs_graph *g = s->g;
	const cost_estimate *c = &s->cost[v];
	char num[64];

	if (c->unknown) {
		const char *target = query_htext(s, HS_HF_CUSTOM_CALL_TARGET, v);
		hs_strbuf_printf(b, "  cost          unknown (the model does not know what %s%s%s computes)\n",
			      *target ? "custom-call target \"" : "this ", *target ? target : "op",
			      *target ? "\"" : "");
		return;
	}
	hs_unit_format(num, sizeof num, HS_U_SECONDS, c->seconds, -1);
	hs_strbuf_printf(b, "  cost          %s", num);
	hs_unit_format(num, sizeof num, HS_U_FLOP, c->flops, -1);
	hs_strbuf_printf(b, " (%s", num);
	hs_unit_format(num, sizeof num, HS_U_BYTES, c->bytes, -1);
	hs_strbuf_printf(b, ", %s; analytic", num);
	hs_role role = g->hcomp_of && g->module ? graph_node_role(g, v) : HS_ROLE_ENTRY;
	if (role == HS_ROLE_FUSION || role == HS_ROLE_REDUCER)
		hs_strbuf_puts(b, "; its share of its caller's kernel");
	hs_strbuf_puts(b, ")\n");
	cost_machine m;
	double *runs = g->module ? malloc((size_t)g->n_nodes * sizeof *runs) : NULL;
	machine_of(g, &m);
	if (g->module && (m.gpu || m.link > 0)) /* not the dataset's tpu-v3 */
		hs_strbuf_printf(b, "  machine       %s (%s)\n", m.name, machine_source(g));
	if (c->network > 0) {
		hs_unit_format(num, sizeof num, HS_U_SECONDS, c->network, -1);
		hs_strbuf_printf(b, "  network       %s on the interconnect (in the cost)\n", num);
	}
	if (runs && cost_runs(g, runs) == 0 && runs[v] != 1)
		hs_strbuf_printf(b, "  runs          %g times a step (while loops' known_trip_count): %s in the step\n",
				 runs[v], (hs_unit_format(num, sizeof num, HS_U_SECONDS, c->seconds * runs[v], -1), num));
	free(runs);
}

/* The instruction's HLO line and its attributes, as written. */
static int show_line(query_session *s, hs_strbuf *b, int64_t v)
{
	const char *line = query_dtext(s, QUERY_DT_HLO, v);
	size_t n = strlen(line);

	if (!n)
		return 0;
	hs_strbuf_printf(b, "  hlo           %s\n", line);
	hm_attr *a;
	int k = hm_instr_attr_list(s->g->module, graph_node_instr(s->g, v), &a);
	if (k <= 0) {
		free(a);
		return k;
	}
	int width = 0;
	for (int i = 0; i < k; i++)
		if ((int)strlen(a[i].name) > width)
			width = (int)strlen(a[i].name);
	hs_strbuf_printf(b, "  attributes    %d\n", k);
	for (int i = 0; i < k; i++)
		hs_strbuf_printf(b, "    %-*s  %s\n", width, a[i].name, a[i].value);
	free(a);
	return 0;
}

/* Features that are not zero, by group, in feature order. */
static void show_features(const hs_graph *g, hs_strbuf *b, int64_t v)
{
	const float *f = graph_feat(g, v);
	int w = g->feat_width, nz = 0, width = 0;
	char num[64];

	for (int i = 0; i < w; i++) {
		if (f[i] == 0)
			continue;
		nz++;
		int len = (int)strlen(hlo_node_feature_name(i, w));
		if (len > width)
			width = len;
	}
	hs_strbuf_printf(b, "features that are not zero: %d of %d\n", nz, w);
	for (int grp = 0; grp < HLO_NGROUPS; grp++) {
		int header = 0;
		for (int i = 0; i < w; i++) {
			if (f[i] == 0 || (int)hlo_node_feature_group(i, w) != grp)
				continue;
			if (!header) {
				hs_strbuf_printf(b, "  %s\n", hlo_group_name((hlo_group)grp));
				header = 1;
			}
			hs_num_exact(num, sizeof num, (double)f[i]);
			hs_strbuf_printf(b, "    %-*s  %s\n", width, hlo_node_feature_name(i, w), num);
		}
	}
}

int query_cmd_show(query_parser *p, query_result *out)
{
	long long v = query_parse_node(p);
	query_session *s = p->s;
	hs_graph *g = s->g;
	hs_strbuf b = {0};

	if (v < 0 || query_expect_end(p, "end of line after the node id") < 0)
		return -1;
	if (query_need_cost(s, p->err) < 0)
		return query_data_fail(p, p->err);
	int op = g->opcode[v];
	hs_strbuf_printf(&b, "node %lld %s: %s (%s)\n", v, query_htext(s, HS_HF_NAME, v),
		      query_opcode_text(s, v), hlo_category_name(hlo_opcode_category(op)));
	hs_strbuf_printf(&b, "  shape         %s\n", query_shape_text(s, v));
	show_hlo(s, &b, v);
	show_edges(s, &b, v);
	if (g->kind == HS_KIND_LAYOUT && g->n_configs > 0) {
		if (g->cfg_index && g->cfg_index[v] >= 0)
			hs_strbuf_printf(&b, "  configurable  yes (row %d of %lld in node_config_ids)\n",
				      g->cfg_index[v], (long long)g->n_cfg_nodes);
		else
			hs_strbuf_puts(&b, "  configurable  no\n");
	}
	show_cost(s, &b, v);
	if (show_line(s, &b, v) < 0)
		b.failed = 1;
	if (graph_has_features(g))
		show_features(g, &b, v);
	if (b.failed) {
		hs_strbuf_free(&b);
		return query_oom(p);
	}
	out->kind = QUERY_BLOCK;
	out->text = hs_strbuf_take(&b);
	return out->text ? 0 : query_oom(p);
}
