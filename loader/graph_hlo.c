/* graph_hlo.c - the HLO structure of a graph, from its module (a reader's,
 * or synthesized from an .npz's arrays: hlo_synth.h): computations, calls,
 * roles, operands and users, names (see graph.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/plural.h"
#include "base/strbuf.h"
#include "graph_impl.h"
#include "hlo.h"
#include "hlo_featurize.h"
#include "hlo_print.h"

void graph_free_hlo(hs_graph *g)
{
	hm_file_free(g->hlo);
	free(g->hcomps);
	free(g->hcomp_of);
	free(g->hcomp_callers);
	free(g->called_off);
	free(g->called_idx);
	hs_index_free(&g->hcomp_index);
	if (g->hlo_operand_idx != g->operand_idx || !g->operand_idx) {   /* else shared: same_as_edges */
		free(g->hlo_operand_off);
		free(g->hlo_operand_idx);
		free(g->hlo_user_off);
		free(g->hlo_user_idx);
	}
	g->hlo_operand_off = g->hlo_operand_idx = g->hlo_user_off = g->hlo_user_idx = NULL;
	g->knows = 0;
	g->hlo = NULL;
	g->module = NULL;
	g->hcomps = NULL;
	g->hcomp_of = NULL;
	g->hcomp_callers = NULL;
	g->called_off = NULL;
	g->called_idx = NULL;
	g->n_hcomps = 0;
}

/* ---- roles ---------------------------------------------------------- */

static int is_one_of(const char *op, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(op, *list) == 0)
			return 1;
	return 0;
}

/* The role a caller with opcode `op` gives the k-th computation it calls;
 * pred_root tells a while's condition apart when the order is unknown
 * (k < 0). */
static hs_role role_for(const char *op, int k, int pred_root)
{
	static const char *const reducers[] = {
		"reduce", "reduce-window", "reduce-scatter", "all-reduce", "all-reduce-start", "scatter",
		"select-and-scatter", "map", "sort", "reduce-precision", NULL};
	if (strcmp(op, "fusion") == 0)
		return HS_ROLE_FUSION;
	if (strcmp(op, "while") == 0)
		return k >= 0 ? (k == 0 ? HS_ROLE_WHILE_BODY : HS_ROLE_WHILE_COND)
			      : (pred_root ? HS_ROLE_WHILE_COND : HS_ROLE_WHILE_BODY);
	if (strcmp(op, "conditional") == 0)
		return HS_ROLE_BRANCH;
	if (strcmp(op, "call") == 0)
		return HS_ROLE_CALL;
	if (is_one_of(op, reducers))
		return HS_ROLE_REDUCER;
	if (strncmp(op, "async-", 6) == 0)
		return HS_ROLE_ASYNC;
	if (strcmp(op, "unknown") == 0 || *op == '\0')
		return HS_ROLE_UNKNOWN;
	return HS_ROLE_OTHER;
}

const char *graph_role_name(hs_role r)
{
	static const char *const names[HS_NROLES] = {
		[HS_ROLE_UNKNOWN] = "unknown", [HS_ROLE_ENTRY] = "entry", [HS_ROLE_WHILE_BODY] = "while-body",
		[HS_ROLE_WHILE_COND] = "while-condition", [HS_ROLE_FUSION] = "fusion",
		[HS_ROLE_REDUCER] = "reducer", [HS_ROLE_BRANCH] = "branch", [HS_ROLE_CALL] = "call",
		[HS_ROLE_ASYNC] = "async", [HS_ROLE_OTHER] = "other"};
	return r >= 0 && r < HS_NROLES ? names[r] : "?";
}

/* ---- the structure, from the module ------------------------------------ */

static int oom(const hs_graph *g, hs_error *err)
{
	return hs_fail(err, HS_ENOMEM, "%s: out of memory", g->path);
}

/* With hcomps, hcomp_of, called_off/called_idx set: callers per
 * computation, then roles.  A while's body is the first computation it
 * calls when the module knows the order of its calls; else (a bare .npz)
 * its condition is the callee whose root is a pred scalar. */
static int finish(hs_graph *g, hs_error *err)
{
	int ordered = (g->knows & HM_KNOWS_OPERAND_ORDER) != 0;
	int64_t total = g->called_off[g->n_nodes];
	g->hcomp_callers = malloc((total ? (size_t)total : 1) * sizeof *g->hcomp_callers);
	int64_t *fill = calloc((size_t)g->n_hcomps, sizeof *fill);
	if (!g->hcomp_callers || !fill) {
		free(fill);
		return oom(g, err);
	}
	for (int64_t i = 0; i < total; i++)
		g->hcomps[g->called_idx[i]].n_callers++;
	int64_t at = 0;
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		g->hcomps[c].callers_at = at;
		at += g->hcomps[c].n_callers;
	}
	for (int64_t v = 0; v < g->n_nodes; v++)
		for (int64_t i = g->called_off[v]; i < g->called_off[v + 1]; i++) {
			hs_hcomp *c = &g->hcomps[g->called_idx[i]];
			if (fill[g->called_idx[i]] == 0 || g->hcomp_callers[c->callers_at + fill[g->called_idx[i]] - 1] != v)
				g->hcomp_callers[c->callers_at + fill[g->called_idx[i]]++] = v;
		}
	for (int64_t c = 0; c < g->n_hcomps; c++)
		g->hcomps[c].n_callers = fill[c]; /* a node calling twice counts once */
	free(fill);
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		hs_hcomp *hc = &g->hcomps[c];
		if (c == g->entry) {
			hc->role = HS_ROLE_ENTRY;
			continue;
		}
		if (!hc->n_callers) {
			hc->role = HS_ROLE_OTHER;
			continue;
		}
		int64_t u = g->hcomp_callers[hc->callers_at];
		int k = -1;
		for (int64_t i = g->called_off[u]; ordered && i < g->called_off[u + 1]; i++)
			if (g->called_idx[i] == c) {
				k = (int)(i - g->called_off[u]);
				break;
			}
		const hm_shape *root = hm_instr_at(g->module, hc->root)->shape;
		hc->role = role_for(graph_node_opcode_name(g, u), k,
				    root->element_type == HM_PRED && root->rank == 0);
	}
	return 0;
}

/* The operands of every instruction in order (repeats kept), and the users
 * that follow from them (each once, in node order). */
static int hlo_operands(hs_graph *g, const hm_module *m)
{
	int64_t n = g->n_nodes, total = 0;
	g->hlo_operand_off = malloc(((size_t)n + 1) * sizeof *g->hlo_operand_off);
	g->hlo_user_off = calloc((size_t)n + 1, sizeof *g->hlo_user_off);
	if (!g->hlo_operand_off || !g->hlo_user_off)
		return -1;
	for (int64_t v = 0; v < n; v++) {
		g->hlo_operand_off[v] = total;
		total += hm_instr_at(m, v)->n_operands;
	}
	g->hlo_operand_off[n] = total;
	g->hlo_operand_idx = malloc((total ? (size_t)total : 1) * sizeof *g->hlo_operand_idx);
	g->hlo_user_idx = malloc((total ? (size_t)total : 1) * sizeof *g->hlo_user_idx);
	if (!g->hlo_operand_idx || !g->hlo_user_idx)
		return -1;
	/* users: each (user, operand) pair once; mark[o] holds the last user
	 * that counted o (v in the first pass, n + v in the second) */
	int64_t *mark = malloc(((size_t)n + 1) * sizeof *mark);
	int64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
	if (!mark || !fill) {
		free(mark);
		free(fill);
		return -1;
	}
	for (int64_t v = 0; v < n; v++)
		mark[v] = -1;
	for (int64_t v = 0; v < n; v++) {
		const hm_instr *in = hm_instr_at(m, v);
		int64_t *ops = g->hlo_operand_idx + g->hlo_operand_off[v];
		for (int k = 0; k < in->n_operands; k++) {
			ops[k] = hm_find_instr(m, in->operand_ids[k])->node;
			if (mark[ops[k]] != v) {
				mark[ops[k]] = v;
				g->hlo_user_off[ops[k] + 1]++;
			}
		}
	}
	for (int64_t v = 0; v < n; v++)
		g->hlo_user_off[v + 1] += g->hlo_user_off[v];
	memcpy(fill, g->hlo_user_off, ((size_t)n + 1) * sizeof *fill);
	for (int64_t v = 0; v < n; v++) {
		const int64_t *ops = g->hlo_operand_idx + g->hlo_operand_off[v];
		for (int64_t i = 0; i < g->hlo_operand_off[v + 1] - g->hlo_operand_off[v]; i++)
			if (mark[ops[i]] != n + v) {
				mark[ops[i]] = n + v;
				g->hlo_user_idx[fill[ops[i]]++] = v;
			}
	}
	free(mark);
	free(fill);
	return 0;
}

/* 1 when the module's operands are the dataset's lists themselves (a bare
 * .npz's module points into them where a node has no self-loop) and each
 * node's users are in node order without repeats (every real file): then
 * the graph shares them instead of a copy. */
static int same_as_edges(const hs_graph *g, const hm_module *m)
{
	for (int64_t v = 0; g->operand_idx && v < g->n_nodes; v++) {
		const hm_instr *in = hm_instr_at(m, v);
		if (in->operand_ids != g->operand_idx + g->operand_off[v] || in->n_operands != graph_n_operands(g, v))
			return 0;
		for (int64_t i = g->user_off[v] + 1; i < g->user_off[v + 1]; i++)
			if (g->user_idx[i] <= g->user_idx[i - 1])
				return 0;
	}
	return g->operand_idx != NULL;
}

int graph_set_module(hs_graph *g, hm_file *f, int module, hs_error *err)
{
	const hm_module *m = module >= 0 && module < f->n_modules ? &f->modules[module] : NULL;
	if (!m || m->n_instrs != g->n_nodes) {
		hm_file_free(f);
		return hs_fail(err, HS_EUSAGE, "%s: the module does not match the graph (%lld node%s)", g->path,
			       (long long)g->n_nodes, hs_s(g->n_nodes));
	}
	graph_free_hlo(g);
	g->hlo = f;
	g->module = m;
	g->knows = m->knows;
	g->n_hcomps = m->n_comps;
	g->entry = m->entry;
	g->hcomps = calloc((size_t)m->n_comps, sizeof *g->hcomps);
	g->hcomp_of = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof *g->hcomp_of);
	g->called_off = malloc(((size_t)g->n_nodes + 1) * sizeof *g->called_off);
	if (!g->hcomps || !g->hcomp_of || !g->called_off)
		return oom(g, err);
	int64_t total = 0, first = 0;
	for (int c = 0; c < m->n_comps; c++) {
		const hm_comp *cp = &m->comps[c];
		const hm_instr *root = hm_find_instr(m, cp->root_id);
		g->hcomps[c] = (hs_hcomp){cp->name, HS_ROLE_UNKNOWN, first, cp->n_instrs, root ? root->node : 0, 0, 0};
		for (int i = 0; i < cp->n_instrs; i++) {
			g->hcomp_of[first + i] = c;
			g->called_off[first + i] = total;
			total += cp->instrs[i].n_called;
		}
		first += cp->n_instrs;
	}
	g->called_off[g->n_nodes] = total;
	if (!(g->called_idx = malloc((total ? (size_t)total : 1) * sizeof *g->called_idx)))
		return oom(g, err);
	for (int64_t v = 0; v < g->n_nodes; v++) {
		const hm_instr *in = hm_instr_at(m, v);
		for (int k = 0; k < in->n_called; k++)
			g->called_idx[g->called_off[v] + k] = hm_find_comp_index(m, in->called_ids[k]);
	}
	if (same_as_edges(g, m)) {
		g->hlo_operand_off = g->operand_off;
		g->hlo_operand_idx = g->operand_idx;
		g->hlo_user_off = g->user_off;
		g->hlo_user_idx = g->user_idx;
	} else if (hlo_operands(g, m) != 0) {
		return oom(g, err);
	}
	return finish(g, err);
}

/* ---- names -------------------------------------------------------------- */

const hm_instr *graph_node_instr(const hs_graph *g, int64_t v)
{
	return g->module ? hm_instr_at(g->module, v) : NULL;
}

const char *graph_node_opcode_name(const hs_graph *g, int64_t v)
{
	const hm_instr *in = graph_node_instr(g, v);
	return in ? in->opcode : hlo_opcode_name(g->opcode[v]);
}

const char *graph_node_name(const hs_graph *g, int64_t v)
{
	const hm_instr *in = graph_node_instr(g, v);
	return in ? in->name : "";
}

const char *graph_hcomp_name(const hs_graph *g, int64_t c)
{
	return c >= 0 && c < g->n_hcomps ? g->hcomps[c].name : "";
}

const char *graph_module_name(const hs_graph *g)
{
	return g->module ? g->module->name : g->name;
}

int64_t graph_n_fusions(const hs_graph *g)
{
	int64_t n = 0;
	for (int64_t v = 0; v < g->n_nodes; v++)
		n += strcmp(graph_node_opcode_name(g, v), "fusion") == 0;
	return n;
}

static const char *const hfield_names[HS_NHFIELDS] = {
	[HS_HF_NAME] = "name", [HS_HF_OPCODE] = "opcode_name", [HS_HF_COMPUTATION] = "computation_name",
	[HS_HF_SHAPE] = "shape", [HS_HF_FUSION_KIND] = "fusion_kind", [HS_HF_OP_TYPE] = "op_type",
	[HS_HF_OP_NAME] = "op_name", [HS_HF_SOURCE_FILE] = "source_file",
	[HS_HF_SOURCE_LINE] = "source_line", [HS_HF_CUSTOM_CALL_TARGET] = "custom_call_target",
	[HS_HF_SHARDING] = "sharding"};

const char *graph_hfield_name(hs_hfield f)
{
	return f >= 0 && f < HS_NHFIELDS ? hfield_names[f] : "?";
}

int graph_hfield_id(const char *name)
{
	for (int f = 0; f < HS_NHFIELDS; f++)
		if (strcmp(hfield_names[f], name) == 0)
			return f;
	return -1;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

const char *graph_node_text(const hs_graph *g, int64_t v, hs_hfield f, char *buf, size_t cap)
{
	const hm_instr *in = graph_node_instr(g, v);
	if (cap)
		buf[0] = '\0';
	switch (f) {
	case HS_HF_NAME:
		return graph_node_name(g, v);
	case HS_HF_OPCODE:
		return graph_node_opcode_name(g, v);
	case HS_HF_COMPUTATION:
		return graph_hcomp_name(g, g->hcomp_of[v]);
	case HS_HF_SHAPE:
		if (in)
			hm_shape_text(in->shape, buf, cap);
		return cap ? buf : "";
	case HS_HF_SOURCE_LINE:
		if (in && in->source_line && cap)
			snprintf(buf, cap, "%d", in->source_line);
		return cap ? buf : "";
	default:
		break;
	}
	if (!in)
		return "";
	switch (f) {
	case HS_HF_FUSION_KIND: return or_empty(in->fusion_kind);
	case HS_HF_OP_TYPE: return or_empty(in->op_type);
	case HS_HF_OP_NAME: return or_empty(in->op_name);
	case HS_HF_SOURCE_FILE: return or_empty(in->source_file);
	case HS_HF_CUSTOM_CALL_TARGET: return or_empty(HM_X(in)->custom_call_target);
	case HS_HF_SHARDING: return or_empty(in->sharding);
	default: return "";
	}
}

int64_t graph_find_node(const hs_graph *g, const char *name)
{
	for (int64_t v = 0; g->module && v < g->n_nodes; v++)
		if (strcmp(hm_instr_at(g->module, v)->name, name) == 0)
			return v;
	return -1;
}

/* ---- parameters, computations and instructions by name ------------------ */

int64_t graph_param_number(const hs_graph *g, int64_t v)
{
	const hm_instr *in = graph_node_instr(g, v);
	return in && strcmp(in->opcode, "parameter") == 0 && in->parameter_number != HM_NONE
	       ? in->parameter_number : -1;
}

int64_t graph_param_source(const hs_graph *g, int64_t param, int64_t caller)
{
	int64_t at = graph_param_operand(g, param, caller);
	return at >= 0 ? graph_hlo_operands(g, caller)[at] : -1;
}

int64_t graph_param_operand(const hs_graph *g, int64_t param, int64_t caller)
{
	int64_t num = graph_param_number(g, param), c = g->hcomp_of[param], k = -1;
	if (num < 0 || caller < 0 || caller >= g->n_nodes)
		return -1;
	for (int64_t i = g->called_off[caller]; i < g->called_off[caller + 1] && k < 0; i++)
		if (g->called_idx[i] == c)
			k = i - g->called_off[caller];
	if (k < 0)
		return -1;
	const char *op = graph_node_opcode_name(g, caller);
	int64_t at;
	if (strcmp(op, "while") == 0)
		at = num == 0 ? 0 : -1;
	else if (strcmp(op, "conditional") == 0)
		at = num == 0 ? k + 1 : -1;
	else if (strcmp(op, "sort") == 0)
		at = num / 2;
	else if (!strcmp(op, "fusion") || !strcmp(op, "call") || !strcmp(op, "async-start") ||
		 !strcmp(op, "custom-call") || !strcmp(op, "map"))
		at = num;
	else
		return -1;
	return at >= 0 && at < graph_hlo_n_operands(g, caller) ? at : -1;
}

static int hcomp_named(const void *g, int32_t c, const void *name)
{
	return strcmp(graph_hcomp_name(g, c), name) == 0;
}

int64_t graph_find_hcomp(const hs_graph *g, const char *name)
{
	hs_index *x = (hs_index *)&g->hcomp_index;   /* a cache made on first use: g is const for its callers */
	uint32_t h = (uint32_t)hs_fnv1a(name, HS_FNV_BASIS);
	if (!x->n && g->n_hcomps <= HS_INDEX_MAX && hs_index_reserve(x, (size_t)g->n_hcomps) == 0)
		for (int64_t c = 0; c < g->n_hcomps; c++)
			hs_index_add(x, (uint32_t)hs_fnv1a(graph_hcomp_name(g, c), HS_FNV_BASIS), (int32_t)c);
	int64_t c = x->n ? hs_index_find(x, h, hcomp_named, g, name) : -1;
	for (int64_t i = 0; !x->n && i < g->n_hcomps && c < 0; i++)   /* no index: out of memory */
		if (strcmp(graph_hcomp_name(g, i), name) == 0)
			c = i;
	return c < 0 && g->hcomps && strcmp(name, "entry") == 0 ? g->entry : c;
}

int graph_node_hlo(const hs_graph *g, int64_t v, hs_strbuf *out)
{
	const hm_instr *in = graph_node_instr(g, v);
	if (!in || !(g->knows & HM_KNOWS_ATTRS))   /* a bare .npz keeps no HLO line */
		return 0;
	const char *line = in->src_len > 0 ? hm_file_text_at(g->hlo, in->src_off, in->src_len) : NULL;
	if (line) {
		hs_strbuf_putn(out, line, (size_t)in->src_len);
		return out->failed ? -1 : 1;
	}
	FILE *mem = hs_strbuf_open(out);
	if (!mem)
		return -1;
	int rc = hm_instr_print(mem, g->module, in);
	if (fclose(mem) != 0 || rc != 0) {
		out->failed = 1;
		return -1;
	}
	return out->failed ? -1 : 1;
}

int graph_node_attr(const hs_graph *g, int64_t v, const char *name, hs_strbuf *out)
{
	const hm_instr *in = graph_node_instr(g, v);
	return in ? hm_instr_attr(g->module, in, name, out) : 0;
}

/* ---- node features, computed when asked -------------------------------- */

int graph_has_features(const hs_graph *g)
{
	return g->node_feat || (g->module && g->feat_width == HLO_NODE_FEATURES);
}

int graph_need_features(const hs_graph *g, hs_error *err)
{
	if (g->node_feat || !g->module || g->feat_width != HLO_NODE_FEATURES)
		return 0;
	float *f = malloc(((size_t)g->n_nodes ? (size_t)g->n_nodes : 1) * HLO_NODE_FEATURES * sizeof *f);
	if (!f)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory for the node features of %lld nodes",
			       g->path, (long long)g->n_nodes);
	for (int64_t v = 0; v < g->n_nodes; v++)
		hf_node_features(hm_instr_at(g->module, v), f + (size_t)v * HLO_NODE_FEATURES);
	((hs_graph *)g)->node_feat = f;   /* a cache: computed once, then kept */
	return 0;
}

/* The rows graph_feat_slow computed last in this thread: a ring (the
 * oldest is overwritten) found through a small index by node. */
enum { FEAT_RING = 256, FEAT_INDEX = 1024 };
struct feat_row {
	uint64_t serial;
	int64_t node;
	float f[HLO_NODE_FEATURES];
};
static _Thread_local struct feat_row feat_ring[FEAT_RING];   /* 147 KB a thread */
static _Thread_local int16_t feat_index[FEAT_INDEX]; /* node % FEAT_INDEX -> slot + 1 */
static _Thread_local int feat_next;
static _Atomic uint64_t graph_serials;

const float *graph_feat_slow(const hs_graph *g, int64_t node)
{
	static const float zeros[HLO_NODE_FEATURES];
	if (g->node_feat)
		return g->node_feat + (size_t)node * (size_t)g->feat_width;
	if (!g->module || g->feat_width != HLO_NODE_FEATURES || node < 0 || node >= g->n_nodes)
		return g->feat_width <= HLO_NODE_FEATURES ? zeros : NULL;
	if (!g->serial)
		((hs_graph *)g)->serial = ++graph_serials;   /* a cache key: g stays const */
	int slot = feat_index[node % FEAT_INDEX] - 1;
	if (slot >= 0 && feat_ring[slot].serial == g->serial && feat_ring[slot].node == node)
		return feat_ring[slot].f;
	slot = feat_next;
	feat_next = (feat_next + 1) % FEAT_RING;
	feat_ring[slot].serial = g->serial;
	feat_ring[slot].node = node;
	hf_node_features(hm_instr_at(g->module, node), feat_ring[slot].f);
	feat_index[node % FEAT_INDEX] = (int16_t)(slot + 1);
	return feat_ring[slot].f;
}
