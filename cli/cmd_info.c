/* hloscope info PATH [--json]: a graph's summary, or one row per graph of a
 * dataset folder.  A plain HLO module (no compiler configs) is summarized
 * as a module: its computations by role, instructions, fusions,
 * collectives and analytic totals over the executed computations; a
 * dataset graph (an .npz, a raw protobuf with configs) by its arrays,
 * configs and runtimes.  Opcodes are named as the module writes them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/jsonw.h"
#include "base/plural.h"
#include "cli/cli.h"
#include "cli/info_data.h"
#include "cli/info_xla.h"
#include "cli/opts.h"
#include "loader/dataset.h"
#include "loader/dump.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/hlo_module.h"
#include "model/cost.h"
#include "model/machine.h"
#include "base/units.h"

/* min, median, max: of config_runtime as stored (ns); norm_*: of runtime /
 * normalizer (tile files; equal to the stored values for layout). */
struct rt_summary {
	double min, median, max;
	double norm_min, norm_median, norm_max;
	int64_t best;
};

/* The median of v[n] (sorted: hs_median) and its ends. */
static void min_median_max(double *v, size_t n, double *min, double *median, double *max)
{
	*median = hs_median(v, n);
	*min = v[0];
	*max = v[n - 1];
}

/* 0, 1 when the graph has no runtimes, -1 when out of memory. */
static int runtime_summary(const hs_graph *g, struct rt_summary *s)
{
	if (!g->labeled || g->n_configs == 0)
		return 1;
	size_t n = (size_t)g->n_configs;
	double *v = malloc(n * sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = (double)g->runtime_raw[i];
	min_median_max(v, n, &s->min, &s->median, &s->max);
	memcpy(v, g->runtime, n * sizeof *v);
	min_median_max(v, n, &s->norm_min, &s->norm_median, &s->norm_max);
	s->best = graph_best_config(g);
	free(v);
	return 0;
}

/* One opcode as the module writes it (unlearned ones included), with its
 * learned id for the order (0 for unlearned ones) and how many nodes have
 * it. */
struct op_count {
	const char *name;
	int id;
	int64_t count;
};

static int cmp_op_id(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_op_count_desc(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return strcmp(x->name, y->name);
}

/* The opcode histogram by name as written, in learned-id order (stable:
 * unlearned names in the order they first appear).  *n distinct; NULL
 * when out of memory. */
static struct op_count *opcode_counts(const hs_graph *g, int *n)
{
	struct op_count *c = NULL;
	int used = 0, cap = 0;

	*n = 0;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		const char *name = graph_node_opcode_name(g, v);
		int i = 0;
		while (i < used && strcmp(c[i].name, name) != 0)
			i++;
		if (i == used) {
			if (used == cap) {
				int ncap = cap ? 2 * cap : 64;
				struct op_count *t = realloc(c, (size_t)ncap * sizeof *t);
				if (!t) {
					free(c);
					return NULL;
				}
				c = t, cap = ncap;
			}
			c[used++] = (struct op_count){name, g->opcode[v], 0};
		}
		c[i].count++;
	}
	/* by id; an insertion sort is stable, so the unlearned names (id 0)
	 * keep the order they first appear in */
	for (int i = 1; i < used; i++)
		for (int j = i; j > 0 && cmp_op_id(&c[j - 1], &c[j]) > 0; j--) {
			struct op_count t = c[j];
			c[j] = c[j - 1], c[j - 1] = t;
		}
	*n = used;
	return c ? c : calloc(1, sizeof *c);
}

/* A runtime in ns: an integer, or a half for the median of an even count. */
static void ns_json(jsonw *w, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		jsonw_int(w, (int64_t)v);
	else
		jsonw_num(w, v);
}

/* What a module is made of and costs: computations by role, opcodes,
 * collectives, runtimes, the analytic totals over the executed
 * computations.  Everything that allocates is computed here, before
 * anything is printed, so that out of memory is exit 3, never a part left
 * out. */
struct module_facts {
	struct op_count *ops;  /* the opcode histogram (opcode_counts) */
	int n_ops;
	struct rt_summary rs;
	int has_rs;            /* the graph has runtimes */
	int64_t roles[HS_NROLES];
	int64_t n_collectives;
	struct op_count *coll; /* collectives by opcode */
	int n_coll;
	int costed;            /* the analytic estimate could read the graph */
	cost_estimate total;   /* over the executed computations */
	cost_step_parts step;  /* one execution (model/machine.h) */
};

static void facts_free(struct module_facts *f)
{
	free(f->ops);
	free(f->coll);
}

static int module_facts(const hs_graph *g, struct module_facts *f)
{
	memset(f, 0, sizeof *f);
	for (int64_t c = 0; c < g->n_hcomps; c++)
		f->roles[g->hcomps[c].role]++;
	struct op_count *ops = f->ops = opcode_counts(g, &f->n_ops);
	if (!ops)
		return -1;
	f->coll = calloc((size_t)(f->n_ops ? f->n_ops : 1), sizeof *f->coll);
	if (!f->coll)
		return -1;
	for (int i = 0; i < f->n_ops; i++)
		if (graph_is_collective_opcode(ops[i].name)) {
			f->coll[f->n_coll++] = ops[i];
			f->n_collectives += ops[i].count;
		}
	int rs = runtime_summary(g, &f->rs);
	if (rs < 0)
		return -1;
	f->has_rs = rs == 0;
	f->costed = cost_available(g);
	if (f->costed) {
		cost_estimate *est = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *est);
		if (!est || cost_analytic(g, est) < 0 || (g->module && cost_step(g, est, &f->step) < 0)) {
			free(est);
			return -1;
		}
		f->total = cost_executed_total(g, est);
		free(est);
	}
	return 0;
}

/* A plain module: HLO without compiler configs to rank. */
static int is_module(const hs_graph *g)
{
	return g->module && g->n_configs == 0;
}

static const char *source_name(const hs_graph *g)
{
	switch (g->hlo ? g->hlo->source : HM_SRC_TEXT) {
	case HM_SRC_HLO_PROTO: return g->module && g->module->buffers ? "HloProto with its buffer assignment"
									: "HloModuleProto";
	case HM_SRC_MODULE_TUNING: return "TpuGraphs ModuleTuningData";
	case HM_SRC_TUNING: return "TpuGraphs TuningData";
	default: return "HLO text";
	}
}

static void analytic_json(jsonw *w, const struct module_facts *f)
{
	jsonw_key(w, "analytic");
	if (!f->costed) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_key(w, "total_ns"), jsonw_num(w, f->total.seconds * 1e9);
	jsonw_key(w, "flops"), jsonw_num(w, f->total.flops);
	jsonw_key(w, "bytes"), jsonw_num(w, f->total.bytes);
	jsonw_key(w, "unknown_instructions"), jsonw_int(w, f->total.unknown);
	if (f->step.seconds > 0) {
		jsonw_key(w, "step_ns"), jsonw_num(w, f->step.seconds * 1e9);
		jsonw_key(w, "step_async_ns"), jsonw_num(w, f->step.async * 1e9);
		jsonw_key(w, "step_exposed_ns"), jsonw_num(w, f->step.exposed * 1e9);
		jsonw_key(w, "max_runs"), jsonw_num(w, f->step.runs_max);
	}
	jsonw_obj_end(w);
}

static void opcodes_json(jsonw *w, const struct module_facts *f)
{
	jsonw_key(w, "opcodes");
	jsonw_obj_begin(w);
	for (int i = 0; i < f->n_ops; i++) {
		jsonw_key(w, f->ops[i].name);
		jsonw_int(w, f->ops[i].count);
	}
	jsonw_obj_end(w);
}

static void module_json(jsonw *w, const hs_graph *g, const struct module_facts *f)
{
	char entry[160];
	jsonw_key(w, "format"), jsonw_str(w, source_name(g));
	jsonw_key(w, "module"), jsonw_str(w, graph_module_name(g));
	jsonw_key(w, "entry"), jsonw_str(w, graph_hcomp_name(g, g->entry, entry, sizeof entry));
	jsonw_key(w, "computations"), jsonw_int(w, g->n_hcomps);
	jsonw_key(w, "computation_roles");
	jsonw_obj_begin(w);
	for (int r = 0; r < HS_NROLES; r++)
		if (f->roles[r])
			jsonw_key(w, graph_role_name((hs_role)r)), jsonw_int(w, f->roles[r]);
	jsonw_obj_end(w);
	jsonw_key(w, "instructions"), jsonw_int(w, g->n_nodes);
	jsonw_key(w, "fusions"), jsonw_int(w, graph_n_fusions(g));
	jsonw_key(w, "collectives"), jsonw_int(w, f->n_collectives);
	jsonw_key(w, "collective_opcodes");
	jsonw_obj_begin(w);
	for (int i = 0; i < f->n_coll; i++)
		jsonw_key(w, f->coll[i].name), jsonw_int(w, f->coll[i].count);
	jsonw_obj_end(w);
	jsonw_key(w, "names"), jsonw_str(w, "real");
	if (g->warning)
		jsonw_key(w, "warning"), jsonw_str(w, g->warning);
	info_target_json(w, g);
	info_memory_json(w, g);
	info_machine_json(w, g);
	analytic_json(w, f);
	opcodes_json(w, f);
}

static void dataset_json(jsonw *w, const hs_graph *g, const struct module_facts *f)
{
	const struct rt_summary rs = f->rs;
	char entry[160];

	jsonw_key(w, "module"), jsonw_str(w, graph_module_name(g));
	jsonw_key(w, "entry"), jsonw_str(w, graph_hcomp_name(g, g->entry, entry, sizeof entry));
	jsonw_key(w, "nodes"), jsonw_int(w, g->n_nodes);
	jsonw_key(w, "edges"), jsonw_int(w, g->n_edges);
	jsonw_key(w, "configs"), jsonw_int(w, g->n_configs);
	jsonw_key(w, "configurable_nodes"), jsonw_int(w, g->n_cfg_nodes);
	jsonw_key(w, "computations"), jsonw_int(w, g->n_hcomps);
	jsonw_key(w, "splits"), jsonw_int(w, g->n_comps);
	jsonw_key(w, "fusions"), jsonw_int(w, graph_n_fusions(g));
	jsonw_key(w, "names"), jsonw_str(w, g->module ? "real" : "derived");
	if (g->warning)
		jsonw_key(w, "warning"), jsonw_str(w, g->warning);
	jsonw_key(w, "node_feature_width"), jsonw_int(w, g->feat_width);
	jsonw_key(w, "config_feature_width");
	jsonw_int(w, g->kind == HS_KIND_TILE ? g->config_width : g->ncf_width);
	analytic_json(w, f);
	opcodes_json(w, f);
	jsonw_key(w, "runtime");
	jsonw_obj_begin(w);
	jsonw_key(w, "labeled"), jsonw_bool(w, g->labeled);
	if (f->has_rs) {
		jsonw_key(w, "min"), ns_json(w, rs.min);
		jsonw_key(w, "median"), ns_json(w, rs.median);
		jsonw_key(w, "max"), ns_json(w, rs.max);
		if (g->kind == HS_KIND_TILE) {
			jsonw_key(w, "normalized_min"), jsonw_num(w, rs.norm_min);
			jsonw_key(w, "normalized_median"), jsonw_num(w, rs.norm_median);
			jsonw_key(w, "normalized_max"), jsonw_num(w, rs.norm_max);
		}
		jsonw_key(w, "best_config"), jsonw_int(w, rs.best);
	}
	jsonw_obj_end(w);
}

static int info_file_json(const hs_graph *g, query_session *data)
{
	jsonw w;
	struct module_facts f;
	hs_error err;

	hs_error_clear(&err);
	if (module_facts(g, &f) < 0) {
		facts_free(&f);
		return cli_oom("summarizing %s", g->path);
	}
	jsonw_init(&w, stdout, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "file"), jsonw_str(&w, g->path);
	jsonw_key(&w, "kind"), jsonw_str(&w, is_module(g) ? "module" : graph_kind_name(g->kind));
	if (is_module(g))
		module_json(&w, g, &f);
	else
		dataset_json(&w, g, &f);
	if (data)
		info_data_json(&w, data);
	jsonw_obj_end(&w);
	facts_free(&f);
	return jsonw_finish(&w, &err) < 0 ? cli_report(&err) : 0;
}

static void print_opcodes(const hs_graph *g, const struct module_facts *f)
{
	int n = f->n_ops;
	struct op_count *ops = f->ops;

	qsort(ops, (size_t)n, sizeof *ops, cmp_op_count_desc);
	printf("opcodes         %d distinct\n", n);
	for (int i = 0; i < n; i++)
		printf("  %-24s %7lld  %5.1f%%\n", ops[i].name, (long long)ops[i].count,
		       g->n_nodes ? 100.0 * (double)ops[i].count / (double)g->n_nodes : 0.0);
}

/* "step  110.9 ms: while bodies times their known_trip_count (at most
 * 12 times), async collectives 2.1 ms of which 0.5 ms not hidden": when
 * a step is not the executed total. */
static void print_step(const cost_step_parts *p)
{
	char t[48], a[48], e[48];
	if (p->runs_max <= 1 && p->async <= 0)
		return;
	hs_unit_format(t, sizeof t, HS_U_SECONDS, p->seconds, 3);
	printf("step            %s", t);
	if (p->runs_max > 1)
		printf(": %d computation%s run more than once (while bodies times their known_trip_count, at most %.0f)",
		       p->loops, hs_s(p->loops), p->runs_max);
	if (p->async > 0) {
		hs_unit_format(a, sizeof a, HS_U_SECONDS, p->async, -1);
		hs_unit_format(e, sizeof e, HS_U_SECONDS, p->exposed, -1);
		printf("%s async collectives %s, %s of it not hidden by the kernels between start and done",
		       p->runs_max > 1 ? ";" : ":", a, e);
	}
	printf("\n");
}

/* "8.170 ms over the executed computations (344 GFLOP, 1.85 GB)" */
static void print_analytic(const struct module_facts *f, const hs_graph *g)
{
	char t[48], fl[48], by[48];
	if (!f->costed) {
		printf("analytic        n/a: %s\n", cost_unavailable_reason(g));
		return;
	}
	hs_unit_format(t, sizeof t, HS_U_SECONDS, f->total.seconds, 3);
	hs_unit_format(fl, sizeof fl, HS_U_FLOP, f->total.flops, -1);
	hs_unit_format(by, sizeof by, HS_U_BYTES, f->total.bytes, -1);
	printf("analytic        %s over the executed computations (%s, %s)", t, fl, by);
	if (f->total.unknown)
		printf("; %lld instruction%s of unknown cost left out", (long long)f->total.unknown,
		       hs_s(f->total.unknown));
	printf("\n");
	print_step(&f->step);
}

static void print_module(const hs_graph *g, const struct module_facts *f)
{
	char entry[160];
	printf("kind            module (%s, no configs)\n", source_name(g));
	printf("module          %s\n", graph_module_name(g));
	printf("computations    %lld (entry %s", (long long)g->n_hcomps,
	       graph_hcomp_name(g, g->entry, entry, sizeof entry));
	for (int r = 0; r < HS_NROLES; r++)
		if (f->roles[r] && r != HS_ROLE_ENTRY)
			printf(", %s %lld", graph_role_name((hs_role)r), (long long)f->roles[r]);
	printf(")\n");
	printf("instructions    %lld, %lld fusion%s\n", (long long)g->n_nodes, (long long)graph_n_fusions(g),
	       hs_s(graph_n_fusions(g)));
	printf("collectives     %lld", (long long)f->n_collectives);
	for (int i = 0; i < f->n_coll; i++)
		printf("%s %s %lld", i ? "," : ":", f->coll[i].name, (long long)f->coll[i].count);
	printf("\n");
	info_target_text(g);
	info_memory_text(g);
	info_machine_text(g);
	print_analytic(f, g);
}

static void print_dataset(const hs_graph *g, const struct module_facts *f)
{
	const struct rt_summary rs = f->rs;
	char entry[160];

	printf("kind            %s\n", graph_kind_name(g->kind));
	printf("module          %s%s\n", graph_module_name(g), g->module ? "" : " (names derived from the arrays)");
	printf("nodes           %lld\n", (long long)g->n_nodes);
	printf("edges           %lld\n", (long long)g->n_edges);
	printf("computations    %lld (entry %s), %lld fusion%s\n", (long long)g->n_hcomps,
	       graph_hcomp_name(g, g->entry, entry, sizeof entry), (long long)graph_n_fusions(g),
	       hs_s(graph_n_fusions(g)));
	printf("splits          %lld\n", (long long)g->n_comps);
	printf("configs         %lld\n", (long long)g->n_configs);
	if (g->kind == HS_KIND_LAYOUT)
		printf("configurable    %lld node%s x %d value%s\n", (long long)g->n_cfg_nodes,
		       hs_s(g->n_cfg_nodes), g->ncf_width, hs_s(g->ncf_width));
	else
		printf("config features %d\n", g->config_width);
	printf("node features   %d%s\n", g->feat_width,
	       g->feat_width == HLO_NODE_FEATURES ? "" : " (not the documented 140: generic names)");
	if (f->has_rs) {
		char lo[32], mid[32], hi[32];
		double v[3] = {rs.min, rs.median, rs.max};
		int d = hs_unit_decimals(HS_U_NS, v, 3, 3, 9);
		hs_unit_format(lo, sizeof lo, HS_U_NS, rs.min, d);
		hs_unit_format(mid, sizeof mid, HS_U_NS, rs.median, d);
		hs_unit_format(hi, sizeof hi, HS_U_NS, rs.max, d);
		printf("runtime         min %s  median %s  max %s\n", lo, mid, hi);
		if (g->kind == HS_KIND_TILE)
			printf("normalized      min %.6g  median %.6g  max %.6g (runtime / normalizer)\n",
			       rs.norm_min, rs.norm_median, rs.norm_max);
		printf("best config     %lld\n", (long long)rs.best);
	} else {
		printf("runtime         unlabeled (every runtime is 0: a test-split file)\n");
	}
	print_analytic(f, g);
}

static int info_file_text(const hs_graph *g, query_session *data)
{
	struct module_facts f;
	if (module_facts(g, &f) < 0) {
		facts_free(&f);
		return cli_oom("summarizing %s", g->path);
	}
	printf("file            %s\n", g->path);
	if (is_module(g))
		print_module(g, &f);
	else
		print_dataset(g, &f);
	if (data)
		info_data_text(data);
	print_opcodes(g, &f);
	facts_free(&f);
	return 0;
}

static void fmt_range(const ds_entry *e, char *buf, size_t cap)
{
	if (e->error)
		snprintf(buf, cap, "-");
	else if (!e->labeled)
		snprintf(buf, cap, "unlabeled");
	else
		snprintf(buf, cap, "%.0f..%.0f", e->ns_min, e->ns_max);
}

/* The facts of a dump folder's file (loader/dump.h): its module, stage
 * and sizes. */
static void dump_json(jsonw *w, const ds_entry *e)
{
	jsonw_key(w, "module"), jsonw_str(w, e->dump_module);
	jsonw_key(w, "stage"), jsonw_str(w, e->stage);
	jsonw_key(w, "bytes"), jsonw_int(w, e->file_bytes);
	if (!e->error) {
		jsonw_key(w, "instructions"), jsonw_int(w, e->nodes);
		jsonw_key(w, "fusions"), jsonw_int(w, e->fusions);
	}
}

static void reports_json(jsonw *w, const ds_index *ix)
{
	jsonw_key(w, "reports");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ix->n_reports; i++) {
		const ds_report *r = &ix->reports[i];
		jsonw_obj_begin(w);
		jsonw_key(w, "file"), jsonw_str(w, r->rel);
		jsonw_key(w, "module"), jsonw_str(w, r->dump_module);
		jsonw_key(w, "kind"), jsonw_str(w, xla_dump_kind_name((xla_dump_kind)r->kind));
		jsonw_key(w, "bytes"), jsonw_int(w, r->bytes);
		if (r->note)
			jsonw_key(w, "note"), jsonw_str(w, r->note);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* A folder of XLA dumps as text: each stage of each module, then the
 * reports; a file that could not be read is listed with why. */
static int dump_text(const ds_index *ix)
{
	int bad = 0;
	printf("%-32s %-44s %8s %8s %10s  %s\n", "module", "stage", "instrs", "fusions", "bytes", "file");
	for (size_t i = 0; i < ix->n; i++) {
		const ds_entry *e = &ix->entries[i];
		char n[32] = "-", f[32] = "-";
		if (!e->error) {
			snprintf(n, sizeof n, "%lld", (long long)e->nodes);
			snprintf(f, sizeof f, "%lld", (long long)e->fusions);
		}
		printf("%-32s %-44s %8s %8s %10lld  %s\n", e->dump_module ? e->dump_module : "-",
		       e->stage ? e->stage : "-", n, f, (long long)e->file_bytes, e->rel);
		if (e->error) {
			printf("  skipped: %s\n", e->error);
			bad++;
		}
	}
	for (size_t i = 0; i < ix->n_reports; i++) {
		const ds_report *r = &ix->reports[i];
		printf("%-32s %-44s %8s %8s %10lld  %s\n", r->dump_module,
		       xla_dump_kind_name((xla_dump_kind)r->kind), "-", "-", (long long)r->bytes, r->rel);
		if (r->note)
			printf("  %s\n", r->note);
	}
	info_left_out_text(ix);
	printf("%zu file%s, %zu report%s", ix->n, hs_s((long long)ix->n), ix->n_reports,
	       hs_s((long long)ix->n_reports));
	if (ix->n_left_out)
		printf(", %zu left out", ix->n_left_out);
	if (bad)
		printf("; %d skipped (could not be read)", bad);
	printf("\n");
	return bad;
}

static int has_dumps(const ds_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		if (ix->entries[i].dump_module)
			return 1;
	return ix->n_reports > 0;
}

static int info_folder(const char *dir, int json)
{
	hs_error err = {0};
	ds_index *ix = dataset_scan(dir, &err);
	if (!ix)
		return cli_report(&err);
	int bad = 0;
	if (json) {
		jsonw w;
		jsonw_init(&w, stdout, 1);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "folder"), jsonw_str(&w, dir);
		jsonw_key(&w, "graphs");
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < ix->n; i++) {
			const ds_entry *e = &ix->entries[i];
			jsonw_obj_begin(&w);
			jsonw_key(&w, "file"), jsonw_str(&w, e->rel);
			if (e->dump_module)
				dump_json(&w, e);
			if (e->error) {
				jsonw_key(&w, "error"), jsonw_str(&w, e->error);
				bad++;
			} else {
				jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(e->kind));
				jsonw_key(&w, "collection"), jsonw_str(&w, e->collection);
				jsonw_key(&w, "search"), jsonw_str(&w, e->search);
				jsonw_key(&w, "split"), jsonw_str(&w, e->split);
				jsonw_key(&w, "nodes"), jsonw_int(&w, e->nodes);
				jsonw_key(&w, "edges"), jsonw_int(&w, e->edges);
				jsonw_key(&w, "configs"), jsonw_int(&w, e->configs);
				jsonw_key(&w, "configurable_nodes"), jsonw_int(&w, e->cfg_nodes);
				jsonw_key(&w, "labeled"), jsonw_bool(&w, e->labeled);
				if (e->labeled) { /* ns as stored, as for one file */
					jsonw_key(&w, "runtime_min"), jsonw_num(&w, e->ns_min);
					jsonw_key(&w, "runtime_max"), jsonw_num(&w, e->ns_max);
				}
				if (e->labeled && e->kind == HS_KIND_TILE) {
					jsonw_key(&w, "normalized_min"), jsonw_num(&w, e->runtime_min);
					jsonw_key(&w, "normalized_max"), jsonw_num(&w, e->runtime_max);
				}
			}
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		if (has_dumps(ix))
			reports_json(&w, ix);
		info_left_out_json(&w, ix);
		jsonw_obj_end(&w);
		if (jsonw_finish(&w, &err) < 0) {
			dataset_free(ix);
			return cli_report(&err);
		}
	} else if (has_dumps(ix)) {
		bad = dump_text(ix);
	} else {
		printf("%-6s %-4s %-7s %-5s %8s %8s %7s %6s  %-24s %s\n", "kind", "coll", "search",
		       "split", "nodes", "edges", "configs", "cfgn", "runtime", "file");
		for (size_t i = 0; i < ix->n; i++) {
			const ds_entry *e = &ix->entries[i];
			char range[64];
			if (e->error) {
				printf("%-6s %s: %s\n", "error", e->rel, e->error);
				bad++;
				continue;
			}
			fmt_range(e, range, sizeof range);
			printf("%-6s %-4s %-7s %-5s %8lld %8lld %7lld %6lld  %-24s %s\n",
			       graph_kind_name(e->kind), e->collection[0] ? e->collection : "-",
			       e->search[0] ? e->search : "-", e->split[0] ? e->split : "-",
			       (long long)e->nodes, (long long)e->edges, (long long)e->configs,
			       (long long)e->cfg_nodes, range, e->rel);
		}
		info_left_out_text(ix);
		printf("%zu graph%s%s", ix->n, hs_s((long long)ix->n), bad ? ", some could not be read" : "");
		if (ix->n_left_out)
			printf("; %zu file%s left out", ix->n_left_out, hs_s((long long)ix->n_left_out));
		printf("\n");
	}
	dataset_free(ix);
	return bad ? 2 : 0;
}

int cmd_info(int argc, char **argv)
{
	cli_data data = {0};
	int json = 0, rc;
	const cli_opt opts[] = {
		{"--json", NULL, CLI_FLAG, &json, .help = "one JSON object instead of the text summary"},
		CLI_DATA_OPTS(&data),
		CLI_MACHINE_OPT,
		{0}};
	const cli_spec spec = {"info", "PATH is a graph file (.npz, a raw .pb, an HloModuleProto, HLO text, FILE#N of\n"
			       "a file of several modules) or a folder; for a folder or a file of several\n"
			       "modules, one row per graph, read from the array headers only.  With --data,\n"
			       "the data's rows, the instructions matched and each field's sum.",
			       opts, .max_args = 1};
	cli_args args;

	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc < 0 ? 0 : rc;
	const char *path = args.n ? args.v[0] : NULL;
	if (!path || (data.files.n && dataset_is_collection(path))) {
		free(data.files.v);
		return cli_usage_error("info", path ? "--data lays data over one graph, not over a folder"
						    : "needs a PATH (a graph file or a folder)");
	}
	if (dataset_is_collection(path)) {
		free(data.files.v);
		return info_folder(path, json);
	}
	hs_error err = {0};
	hs_graph *g = graph_open(path, &err);
	query_session *s = NULL;
	if (!g) {
		free(data.files.v);
		return cli_report(&err);
	}
	if (g->warning && !json)
		fprintf(stderr, "hloscope: note: %s\n", g->warning);
	rc = info_data_open(g, &data, &s);
	if (!rc)
		rc = json ? info_file_json(g, s) : info_file_text(g, s);
	query_session_free(s);
	graph_free(g);
	free(data.files.v);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "hloscope info: write error on standard output\n");
		return 2;
	}
	return rc;
}
