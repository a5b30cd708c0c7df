/* Unit tests of the analytic model on an HLO module (model/cost_module.c):
 * the cases the bundled modules lack.  A fused computation run by two
 * fusions (shares of both), a fusion whose body holds an unknown
 * custom-call (the fusion and its body unknown), select-and-scatter's two
 * computations splitting its cost, a reducer that moves nothing (shares by
 * compute), the executed total, and the dataset's view left alone on a
 * graph without a module. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/graph.h"
#include "model/cost.h"
#include "t.h"
#include "t_files.h"

static const char *const MODULE_TEXT =
	"HloModule m\n"
	"\n"
	"shared {\n"
	"  a = f32[256,128]{1,0} parameter(0)\n"
	"  b = f32[256,128]{1,0} parameter(1)\n"
	"  ROOT s = f32[256,128]{1,0} add(a, b)\n"
	"}\n"
	"\n"
	"holds_unknown {\n"
	"  u = f32[256,128]{1,0} parameter(0)\n"
	"  ROOT k = f32[256,128]{1,0} custom-call(u), custom_call_target=\"nobody_knows\"\n"
	"}\n"
	"\n"
	"ge {\n"
	"  g0 = f32[] parameter(0)\n"
	"  g1 = f32[] parameter(1)\n"
	"  ROOT ge.1 = pred[] compare(g0, g1), direction=GE\n"
	"}\n"
	"\n"
	"plus {\n"
	"  p0 = f32[] parameter(0)\n"
	"  p1 = f32[] parameter(1)\n"
	"  ROOT plus.1 = f32[] add(p0, p1)\n"
	"}\n"
	"\n"
	"ENTRY main {\n"
	"  x = f32[256,128]{1,0} parameter(0)\n"
	"  y = f32[256,128]{1,0} parameter(1)\n"
	"  f1 = f32[256,128]{1,0} fusion(x, y), kind=kLoop, calls=shared\n"
	"  f2 = f32[256,128]{1,0} fusion(f1, y), kind=kLoop, calls=shared\n"
	"  fu = f32[256,128]{1,0} fusion(f2), kind=kCustom, calls=holds_unknown\n"
	"  src = f32[128,64]{1,0} parameter(2)\n"
	"  zero = f32[] constant(0)\n"
	"  sas = f32[256,128]{1,0} select-and-scatter(f2, src, zero), window={size=2x2 stride=2x2}, "
	"select=ge, scatter=plus\n"
	"  ROOT out = (f32[256,128]{1,0}, f32[256,128]{1,0}) tuple(fu, sas)\n"
	"}\n";

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

/* est summed over computation `name`'s nodes. */
static cost_estimate comp_sum(const hs_graph *g, const cost_estimate *est, const char *name)
{
	int64_t c = graph_find_hcomp(g, name);
	return c < 0 ? (cost_estimate){0} : cost_total(est + g->hcomps[c].first, g->hcomps[c].count);
}

static void test_module(void)
{
	hs_graph *g = t_graph_of_text(MODULE_TEXT, strlen(MODULE_TEXT));
	CHECK("the module opens", g != NULL);
	if (!g)
		return;
	cost_estimate *est = calloc((size_t)g->n_nodes, sizeof *est);
	cost_estimate *feat = calloc((size_t)g->n_nodes, sizeof *feat);
	CHECK("cost_module runs", est && feat && cost_module(g, est) == 0);
	cost_analytic(g, feat);
	CHECK("cost_analytic gives the module's view", !memcmp(est, feat, (size_t)g->n_nodes * sizeof *est));
	int64_t f1 = graph_find_node(g, "f1"), f2 = graph_find_node(g, "f2"), fu = graph_find_node(g, "fu");
	int64_t sas = graph_find_node(g, "sas");

	/* f1 and f2: one add over 32768 elements each, reading two 128 KiB
	 * operands and writing one; their shared body holds both shares. */
	CHECK("a fusion's FLOPs are its body's", est[f1].flops == 32768 && est[f2].flops == 32768);
	CHECK("a fusion's bytes are what it reads and writes", est[f1].bytes == 3 * 131072.0);
	cost_estimate body = comp_sum(g, est, "shared");
	CHECK("a body run by two fusions holds both shares",
	      near(body.seconds, est[f1].seconds + est[f2].seconds) && near(body.flops, 65536) &&
		      near(body.bytes, 6 * 131072.0));
	int64_t a = graph_find_node(g, "a"), s = graph_find_node(g, "s");
	CHECK("a parameter's share is what the kernel reads of it", near(est[a].bytes, 2 * 131072.0));
	CHECK("the root's share is what the kernel writes, and the overhead",
	      near(est[s].bytes, 2 * 131072.0) && near(est[s].overhead, 2 * COST_OP_SECONDS));

	/* an unknown custom-call makes its fusion and the body unknown */
	cost_estimate hu = comp_sum(g, est, "holds_unknown");
	CHECK("a fusion of an unknown custom-call is unknown", est[fu].unknown == 1 && est[fu].seconds == 0 &&
								       est[fu].bytes == 0);
	CHECK("... and so is its body", hu.unknown == 2 && hu.seconds == 0);

	/* select-and-scatter runs two computations: each holds half its cost,
	 * which its compare and add take whole (their parameters do nothing) */
	cost_estimate ge = comp_sum(g, est, "ge"), plus = comp_sum(g, est, "plus");
	CHECK("select-and-scatter's cost is split between select and scatter",
	      est[sas].seconds > 0 && near(ge.seconds, est[sas].seconds / 2) &&
		      near(plus.seconds, est[sas].seconds / 2) && near(ge.flops + plus.flops, est[sas].flops));
	int64_t ge1 = graph_find_node(g, "ge.1"), g0 = graph_find_node(g, "g0");
	CHECK("a reducer's share goes by compute: the compare has it all",
	      near(est[ge1].seconds, ge.seconds) && est[g0].seconds == 0 && near(est[ge1].bytes, ge.bytes));

	/* the module's total counts the entry only */
	cost_estimate tot = cost_executed_total(g, est), entry = comp_sum(g, est, "main");
	CHECK("the executed total is the entry's", near(tot.seconds, entry.seconds) && tot.unknown == 1 &&
							  near(tot.flops, entry.flops));
	cost_estimate all = cost_total(est, g->n_nodes);
	CHECK("summing every node would count the bodies twice", all.seconds > tot.seconds * 1.5);

	/* the dataset's view does not depend on the module */
	cost_features(g, feat);
	CHECK("the dataset's view is another", feat[f1].flops == 0 && feat[f1].unknown == 0);
	free(est);
	free(feat);
	graph_free(g);
}

int main(void)
{
	test_module();
	T_DONE();
}
