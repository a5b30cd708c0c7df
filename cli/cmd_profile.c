/* cmd_profile.c - `hloscope profile MODULE PROFILE`: how the analytic
 * estimate does against a measured per-instruction profile
 * (model/profile.h, docs/model.md "Against measured profiles"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/jsonw.h"
#include "base/units.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "loader/overlay.h"
#include "model/machine.h"
#include "model/profile.h"

static void fmt_s(char *b, size_t cap, double s)
{
	hs_unit_format(b, cap, HS_U_SECONDS, s, -1);
}

static void print_text(const hs_graph *g, const cost_machine *m, const profile_report *r, const char *prof,
		       double step)
{
	char a[48], b[48], c[48];
	printf("profile    %s: %lld instructions measured and costed (column %s)", prof, (long long)r->n, r->column);
	if (r->unknown)
		printf(", %lld of unknown cost left out", (long long)r->unknown);
	printf(", %g runs of the module\n", r->steps);
	printf("machine    %s: %s (%s)\n", m->name, m->device, machine_source(g));
	printf("spearman   %.4f (predicted and measured time per run, over the instructions)\n", r->spearman);
	printf("within 2x  %.1f%% of the measured time (%lld of %lld instructions)\n", 100 * r->within2x,
	       (long long)r->n_within2x, (long long)r->n);
	fmt_s(a, sizeof a, r->measured_step);
	fmt_s(b, sizeof b, r->predicted_same);
	printf("measured   %s a run in these instructions; predicted %s for them (%.2fx)\n", a, b,
	       r->predicted_same / r->measured_step);
	fmt_s(a, sizeof a, r->predicted_step);
	printf("step       predicted %s for the whole module", a);
	if (step > 0) {
		fmt_s(c, sizeof c, step);
		printf(", measured %s (%.2fx)", c, r->predicted_step / step);
	}
	printf("\n\ntop %d by measured time a run:\n  %-40s %12s %12s %7s %6s\n", r->n_top, "instruction", "measured",
	       "predicted", "ratio", "runs");
	for (int i = 0; i < r->n_top; i++) {
		const profile_row *w = &r->top[i];
		char name[160];
		fmt_s(a, sizeof a, w->measured);
		fmt_s(b, sizeof b, w->predicted);
		printf("  %-40s %12s %12s %6.2fx %6g\n", graph_node_name(g, w->node, name, sizeof name), a, b,
		       w->predicted / w->measured, w->calls);
	}
}

static int print_json(const hs_graph *g, const cost_machine *m, const profile_report *r, const char *prof,
		      double step)
{
	jsonw w;
	hs_error err = {0};
	char name[160];

	jsonw_init(&w, stdout, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "profile"), jsonw_str(&w, prof);
	jsonw_key(&w, "column"), jsonw_str(&w, r->column);
	jsonw_key(&w, "machine"), jsonw_str(&w, m->name);
	jsonw_key(&w, "instructions"), jsonw_int(&w, r->n);
	jsonw_key(&w, "unknown"), jsonw_int(&w, r->unknown);
	jsonw_key(&w, "runs"), jsonw_num(&w, r->steps);
	jsonw_key(&w, "spearman");
	isnan(r->spearman) ? jsonw_null(&w) : jsonw_num(&w, r->spearman);
	jsonw_key(&w, "within_2x_share"), jsonw_num(&w, r->within2x);
	jsonw_key(&w, "within_2x_instructions"), jsonw_int(&w, r->n_within2x);
	jsonw_key(&w, "measured_ns"), jsonw_num(&w, r->measured_step * 1e9);
	jsonw_key(&w, "predicted_same_ns"), jsonw_num(&w, r->predicted_same * 1e9);
	jsonw_key(&w, "predicted_step_ns"), jsonw_num(&w, r->predicted_step * 1e9);
	jsonw_key(&w, "measured_step_ns");
	step > 0 ? jsonw_num(&w, step * 1e9) : jsonw_null(&w);
	jsonw_key(&w, "top");
	jsonw_arr_begin(&w);
	for (int i = 0; i < r->n_top; i++) {
		jsonw_obj_begin(&w);
		jsonw_key(&w, "name"), jsonw_str(&w, graph_node_name(g, r->top[i].node, name, sizeof name));
		jsonw_key(&w, "measured_ns"), jsonw_num(&w, r->top[i].measured * 1e9);
		jsonw_key(&w, "predicted_ns"), jsonw_num(&w, r->top[i].predicted * 1e9);
		jsonw_key(&w, "runs"), jsonw_num(&w, r->top[i].calls);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	return jsonw_finish(&w, &err) < 0 ? cli_report(&err) : 0;
}

int cmd_profile(int argc, char **argv)
{
	int json = 0, rc;
	const char *step_text = NULL;
	double step = 0;
	const cli_opt opts[] = {
		{"--json", NULL, CLI_FLAG, &json, .help = "one JSON object"},
		{"--measured-step", "TIME", CLI_STR, &step_text, .help = "the module's measured time a run (\"127.46 ms\"),\n"
		 "set beside the predicted step"},
		CLI_MACHINE_OPT,
		{0}};
	const cli_spec spec = {"profile", "How the analytic estimate does against a measured profile of MODULE:\n"
			       "PROFILE is a CSV or JSON data file (as --data reads) naming instructions,\n"
			       "with their measured time a run (column measured_ns, time_ns, duration_ns,\n"
			       "ns, measured_us, time_us, us, measured_s, time_s or seconds) and how many\n"
			       "times each ran (calls; the module's runs are the entry's most common\n"
			       "calls).  Prints Spearman's rank correlation over the instructions, the\n"
			       "share of the measured time in instructions predicted within 2x, the\n"
			       "predicted and measured time a run, and the 10 largest by measured time.",
			       opts, .max_args = 2};
	cli_args args;

	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc < 0 ? 0 : rc;
	if (args.n < 2)
		return cli_usage_error("profile", "needs a MODULE and a PROFILE");
	if (step_text && (hs_unit_parse(step_text, HS_U_SECONDS, &step) < 0 || !(step > 0)))
		return cli_usage_error("profile", "--measured-step needs a time (\"127.46 ms\"), not '%s'", step_text);
	hs_error err = {0};
	hs_graph *g = graph_open(args.v[0], &err);
	if (!g)
		return cli_report(&err);
	cost_estimate *est = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *est);
	hs_overlay o = {0};
	profile_report r;
	cost_machine m;
	if (!est || cost_analytic(g, est) < 0)
		rc = cli_oom("costing %s", args.v[0]);
	else if (!cost_available(g) || !g->module)
		rc = cli_usage_error("profile", "%s: not an HLO module the estimate can cost", args.v[0]);
	else if (overlay_load(g, args.v[1], NULL, &o, &err) < 0 || profile_compare(g, est, &o, &r, &err) < 0)
		rc = cli_report(&err);
	else if (json)
		rc = print_json(g, machine_of(g, &m), &r, args.v[1], step);
	else
		print_text(g, machine_of(g, &m), &r, args.v[1], step);
	overlay_free(&o);
	free(est);
	graph_free(g);
	return rc;
}
