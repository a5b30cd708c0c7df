/* Unit tests of a graph's HLO relations (loader/graph_hlo.c) and of an
 * instruction's attributes (loader/hlo_print.c): operands in the module's
 * order with repeats, users from them, called computations apart,
 * parameters mapped to their callers' operands, the instruction's own line
 * and its attributes in XLA's order and form. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo_print.h"
#include "t.h"
#include "t_files.h"

static const char *const MODULE_TEXT =
	"HloModule m, entry_computation_layout={(f32[4]{0}, s32[])->f32[4]{0}}\n"
	"\n"
	"%add (x: f32[], y: f32[]) -> f32[] {\n"
	"  %x = f32[] parameter(0)\n"
	"  %y = f32[] parameter(1)\n"
	"  ROOT %s = f32[] add(%x, %y)\n"
	"}\n"
	"\n"
	"%fused (p0: f32[4], p1: f32[4]) -> f32[4] {\n"
	"  %p0 = f32[4]{0} parameter(0)\n"
	"  %p1 = f32[4]{0} parameter(1)\n"
	"  ROOT %m = f32[4]{0} multiply(%p1, %p0)\n"
	"}\n"
	"\n"
	"%cond (c: (s32[], f32[4])) -> pred[] {\n"
	"  %c = (s32[], f32[4]{0}) parameter(0)\n"
	"  %i = s32[] get-tuple-element(%c), index=0\n"
	"  %n = s32[] constant(3)\n"
	"  ROOT %lt = pred[] compare(%i, %n), direction=LT\n"
	"}\n"
	"\n"
	"%body (b: (s32[], f32[4])) -> (s32[], f32[4]) {\n"
	"  %b = (s32[], f32[4]{0}) parameter(0)\n"
	"  %j = s32[] get-tuple-element(%b), index=0\n"
	"  %v = f32[4]{0} get-tuple-element(%b), index=1\n"
	"  ROOT %t = (s32[], f32[4]{0}) tuple(%j, %v)\n"
	"}\n"
	"\n"
	"%yes (a: f32[4]) -> f32[4] {\n"
	"  ROOT %a = f32[4]{0} parameter(0)\n"
	"}\n"
	"\n"
	"%no (q: f32[4]) -> f32[4] {\n"
	"  %q = f32[4]{0} parameter(0)\n"
	"  ROOT %neg = f32[4]{0} negate(%q)\n"
	"}\n"
	"\n"
	"ENTRY %main (in: f32[4], k: s32[]) -> f32[4] {\n"
	"  %in = f32[4]{0} parameter(0)\n"
	"  %k = s32[] parameter(1)\n"
	"  %sq = f32[4]{0} multiply(%in, %in)\n"
	"  %f = f32[4]{0} fusion(%sq, %in), kind=kLoop, calls=%fused\n"
	"  %zero = f32[] constant(0)\n"
	"  %r = f32[] reduce(%f, %zero), dimensions={0}, to_apply=%add\n"
	"  %ar = f32[4]{0} all-reduce(%f), channel_id=7, replica_groups={{0,1,2,3},{4,5,6,7}}, "
	"to_apply=%add, metadata={op_name=\"jit(f)/psum\" source_file=\"a.py\" source_line=3}\n"
	"  %ag = f32[8]{0} all-gather(%f), dimensions={0}, replica_groups=[2,2]<=[4], channel_id=2\n"
	"  %init = (s32[], f32[4]{0}) tuple(%k, %ar)\n"
	"  %w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body\n"
	"  %p = pred[] constant(true)\n"
	"  ROOT %sel = f32[4]{0} conditional(%p, %f, %ar), true_computation=%yes, false_computation=%no\n"
	"}\n";

static int64_t node(const hs_graph *g, const char *name)
{
	return graph_find_node(g, name);
}

/* The operand names of v, ", "-separated. */
static const char *operand_names(const hs_graph *g, int64_t v)
{
	static char out[256];
	size_t k = 0;
	out[0] = '\0';
	for (int64_t i = 0; i < graph_hlo_n_operands(g, v); i++)
		k += (size_t)snprintf(out + k, sizeof out - k, "%s%s", i ? ", " : "",
				      graph_node_name(g, graph_hlo_operands(g, v)[i]));
	return out;
}

static const char *user_names(const hs_graph *g, int64_t v)
{
	static char out[256];
	size_t k = 0;
	out[0] = '\0';
	for (int64_t i = 0; i < graph_hlo_n_users(g, v); i++)
		k += (size_t)snprintf(out + k, sizeof out - k, "%s%s", i ? ", " : "",
				      graph_node_name(g, graph_hlo_users(g, v)[i]));
	return out;
}

static void test_operands(hs_graph *g)
{
	CHECK("operands: the module says the operands are exact", (g->knows & HM_KNOWS_OPERAND_ORDER) != 0);
	CHECK("operands: multiply(%in, %in) has %in twice", strcmp(operand_names(g, node(g, "sq")), "in, in") == 0);
	CHECK("operands: in the instruction's order, not sorted", strcmp(operand_names(g, node(g, "m")), "p1, p0") == 0);
	CHECK("operands: a fusion's are its arguments, not its body's root",
	      strcmp(operand_names(g, node(g, "f")), "sq, in") == 0);
	CHECK("operands: a while has its one operand", strcmp(operand_names(g, node(g, "w")), "init") == 0);
	CHECK("operands: a conditional's predicate and branch operands",
	      strcmp(operand_names(g, node(g, "sel")), "p, f, ar") == 0);
	CHECK("users: each user once, in node order", strcmp(user_names(g, node(g, "in")), "sq, f") == 0);
	CHECK("users: from real operands only (the body's root has none)",
	      graph_hlo_n_users(g, node(g, "m")) == 0 && graph_hlo_n_users(g, node(g, "s")) == 0);
	CHECK("users: of %f", strcmp(user_names(g, node(g, "f")), "r, ar, ag, sel") == 0);
	CHECK("calls: apart from operands", graph_n_called(g, node(g, "f")) == 1 && graph_n_called(g, node(g, "w")) == 2);
}

static void test_params(hs_graph *g)
{
	int64_t f = node(g, "f"), w = node(g, "w"), sel = node(g, "sel"), r = node(g, "r");
	CHECK("params: numbers", graph_param_number(g, node(g, "p1")) == 1 && graph_param_number(g, node(g, "sq")) == -1);
	CHECK("params: a fusion's parameter(N) is its operand N",
	      graph_param_source(g, node(g, "p0"), f) == node(g, "sq") &&
	      graph_param_source(g, node(g, "p1"), f) == node(g, "in"));
	CHECK("params: while body and condition take operand 0",
	      graph_param_source(g, node(g, "b"), w) == node(g, "init") &&
	      graph_param_source(g, node(g, "c"), w) == node(g, "init"));
	CHECK("params: branch k takes operand k + 1",
	      graph_param_source(g, node(g, "a"), sel) == node(g, "f") &&
	      graph_param_source(g, node(g, "q"), sel) == node(g, "ar"));
	CHECK("params: a reducer's parameters are no operand", graph_param_source(g, node(g, "x"), r) == -1);
	CHECK("params: a node that does not call it", graph_param_source(g, node(g, "p0"), w) == -1);
	CHECK("roles: from the computation", graph_node_role(g, node(g, "m")) == HS_ROLE_FUSION &&
	      graph_node_role(g, node(g, "j")) == HS_ROLE_WHILE_BODY && graph_node_role(g, f) == HS_ROLE_ENTRY);
	CHECK("computations: 'entry' names the entry", graph_find_hcomp(g, "entry") == g->entry &&
	      graph_find_hcomp(g, "main") == g->entry && graph_find_hcomp(g, "fused") >= 0 &&
	      graph_find_hcomp(g, "nothing") < 0);
}

static void test_lines(hs_graph *g)
{
	hs_strbuf b = {0};
	int64_t ar = node(g, "ar");
	CHECK("hlo: the line as written", graph_node_hlo(g, ar, &b) == 1 &&
	      strncmp(hs_strbuf_str(&b), "%ar = f32[4]{0} all-reduce(%f), channel_id=7", 44) == 0 &&
	      b.s[b.len - 1] == '}');
	hs_strbuf_reset(&b);
	CHECK("hlo: ROOT included", graph_node_hlo(g, node(g, "sel"), &b) == 1 &&
	      strncmp(hs_strbuf_str(&b), "ROOT %sel = ", 12) == 0);
	hs_strbuf_reset(&b);
	CHECK("attr: replica_groups as written", graph_node_attr(g, ar, "replica_groups", &b) == 1 &&
	      strcmp(hs_strbuf_str(&b), "{{0,1,2,3},{4,5,6,7}}") == 0);
	hs_strbuf_reset(&b);
	CHECK("attr: metadata whole", graph_node_attr(g, ar, "metadata", &b) == 1 &&
	      strcmp(hs_strbuf_str(&b), "{op_name=\"jit(f)/psum\" source_file=\"a.py\" source_line=3}") == 0);
	hs_strbuf_reset(&b);
	CHECK("attr: to_apply and channel_id", graph_node_attr(g, ar, "to_apply", &b) == 1 &&
	      strcmp(hs_strbuf_str(&b), "%add") == 0);
	hs_strbuf_reset(&b);
	CHECK("attr: absent is 0", graph_node_attr(g, ar, "dimensions", &b) == 0 && b.len == 0);
	CHECK("attr: index of a get-tuple-element", graph_node_attr(g, node(g, "v"), "index", &b) == 1 &&
	      strcmp(hs_strbuf_str(&b), "1") == 0);
	hs_strbuf_free(&b);
}

static void test_collectives(hs_graph *g)
{
	hs_collective c;
	int64_t ar = node(g, "ar");
	CHECK("collective: all-reduce is one", graph_collective(g, ar, &c) == 1);
	CHECK("collective: groups, size, channel, bytes (4 f32 per device)",
	      c.n_groups == 2 && c.group_size == 4 && c.channel_id == 7 && c.bytes == 16);
	CHECK("collective: iota groups [2,2]<=[4]", graph_collective(g, node(g, "ag"), &c) == 1 &&
	      c.n_groups == 2 && c.group_size == 2 && c.channel_id == 2 && c.bytes == 16);
	CHECK("collective: a multiply is none", graph_collective(g, node(g, "sq"), &c) == 0);
	CHECK("collective: opcodes", graph_is_collective_opcode("all-gather-start") &&
	      !graph_is_collective_opcode("all-gather-done") && !graph_is_collective_opcode("add"));
}

/* The attributes of node `name` as "k=v; k=v". */
static const char *attr_text(const hs_graph *g, const char *name)
{
	static char out[512];
	hm_attr *a;
	int n = hm_instr_attr_list(g->module, graph_node_instr(g, node(g, name)), &a);
	size_t k = 0;
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(out + k, sizeof out - k, "%s%s=%s", i ? "; " : "", a[i].name, a[i].value);
	free(a);
	return out;
}

static void test_attrs(hs_graph *g)
{
	CHECK("attrs: XLA's order, kept ones as written, metadata last",
	      !strcmp(attr_text(g, "ar"), "channel_id=7; replica_groups={{0,1,2,3},{4,5,6,7}}; to_apply=%add; "
					   "metadata={op_name=\"jit(f)/psum\" source_file=\"a.py\" source_line=3}"));
	CHECK("attrs: a collective's dimensions after its replica groups, as XLA prints them",
	      !strcmp(attr_text(g, "ag"), "replica_groups=[2,2]<=[4]; dimensions={0}; channel_id=2"));
	CHECK("attrs: the condition before the body", !strcmp(attr_text(g, "w"), "condition=%cond; body=%body"));
	CHECK("attrs: true and false computations",
	      !strcmp(attr_text(g, "sel"), "true_computation=%yes; false_computation=%no"));
	CHECK("attrs: a fusion's kind and calls", !strcmp(attr_text(g, "f"), "kind=kLoop; calls=%fused"));
	CHECK("attrs: none", !strcmp(attr_text(g, "sq"), ""));
}

/* What the printer cannot tell from the opcode is recorded as read: the
 * attribute that names the callees, the metadata fields hloscope does not
 * read. */
static void test_recorded(void)
{
	static const char text[] =
		"HloModule n\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
		"  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\n"
		"ENTRY %e (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
		"  ROOT %c = f32[4]{0} custom-call(%a), custom_call_target=\"foo\", to_apply=add, "
		"metadata={op_name=\"x\" deduplicated_name=\"y\", source_line=3 profile_type={RELU}}\n}\n";
	hs_graph *g = t_graph_of_text(text, strlen(text));
	CHECK("recorded: open", g != NULL);
	if (!g)
		return;
	CHECK("recorded: to_apply of a custom call stays to_apply, named as written; metadata's other fields "
	      "after the four", !strcmp(attr_text(g, "c"), "custom_call_target=\"foo\"; to_apply=add; "
					  "metadata={op_name=\"x\" source_line=3 deduplicated_name=\"y\" profile_type={RELU}}"));
	hs_strbuf b = {0};
	const hm_instr *in = graph_node_instr(g, node(g, "c"));
	CHECK("recorded: one attribute by name", hm_instr_attr(g->module, in, "to_apply", &b) == 1 &&
	      !strcmp(hs_strbuf_str(&b), "add"));
	hs_strbuf_reset(&b);
	CHECK("recorded: metadata by name is the whole of it",
	      hm_instr_attr(g->module, in, "metadata", &b) == 1 && !strncmp(hs_strbuf_str(&b), "{op_name=", 9));
	hs_strbuf_reset(&b);
	CHECK("recorded: an attribute it has not is 0", hm_instr_attr(g->module, in, "window", &b) == 0 && !b.len);
	hs_strbuf_free(&b);
	graph_free(g);
}

/* A bare graph's module: its operands are the dataset's edges, shared with
 * the graph's own lists; a self-loop is left out of the module's (a list of
 * its own then), and freeing either graph is clean (ASan). */
static hs_graph *arrays_graph(const int64_t (*edges)[2], int64_t n_edges)
{
	hf_arrays a = {.kind = HS_KIND_LAYOUT, .n_nodes = 3, .n_edges = n_edges};
	hs_error err = {0};
	a.node_opcode = calloc(3, 1);
	a.node_feat = calloc(3 * HLO_NODE_FEATURES, sizeof(float));
	a.edge_index = malloc((size_t)n_edges * sizeof *a.edge_index);
	if (!a.node_opcode || !a.node_feat || !a.edge_index) {
		hf_arrays_free(&a);
		return NULL;
	}
	memcpy(a.edge_index, edges, (size_t)n_edges * sizeof *a.edge_index);
	for (int v = 0; v < 3; v++)
		a.node_opcode[v] = (uint8_t)hlo_opcode_id(v < 2 ? "parameter" : "add");
	hs_graph *g = graph_from_arrays(&a, "mem.npz", "mem", &err);
	hf_arrays_free(&a);   /* what it did not take over (node_opcode) */
	return g;
}

static void test_bare_operands(void)
{
	static const int64_t plain[][2] = {{2, 0}, {2, 1}}, loop[][2] = {{2, 0}, {2, 1}, {2, 2}};
	hs_graph *g = arrays_graph(plain, 2), *h = arrays_graph(loop, 3);
	CHECK("bare: both open with a module", g && h && g->module && h->module);
	if (g && h) {
		CHECK("bare: the module's operands are the graph's edges, shared",
		      g->hlo_operand_idx == g->operand_idx && g->hlo_user_idx == g->user_idx &&
		      graph_hlo_n_operands(g, 2) == 2 && hm_instr_at(g->module, 2)->operand_ids == g->operand_idx);
		CHECK("bare: a self-loop stays an edge, not an operand (lists of their own)",
		      graph_n_operands(h, 2) == 3 && graph_hlo_n_operands(h, 2) == 2 &&
		      h->hlo_operand_idx != h->operand_idx && hm_instr_at(h->module, 2)->n_operands == 2 &&
		      graph_hlo_operands(h, 2)[0] == 0 && graph_hlo_operands(h, 2)[1] == 1);
	}
	graph_free(g);
	graph_free(h);
}

int main(void)
{
	hs_graph *g = t_graph_of_text(MODULE_TEXT, strlen(MODULE_TEXT));
	CHECK("open the module", g != NULL);
	if (g) {
		test_operands(g);
		test_params(g);
		test_lines(g);
		test_collectives(g);
		test_attrs(g);
		graph_free(g);
	}
	test_recorded();
	test_bare_operands();
	T_DONE();
}
