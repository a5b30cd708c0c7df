/* cmd_graphs.c - `graphs`: one row per graph, over the graph fields (file,
 * kind, counts, runtimes) and aggregates of its nodes or configs:
 *
 *   graphs where count(opcode = convolution and rank = 5) > 0 sort by nodes desc
 *   graphs show file, sum(cost where configurable), max(users) limit 10
 *
 * count(COND) counts the nodes for which COND holds; sum, min, max and mean
 * (EXPR [where COND]) reduce EXPR over the nodes where COND holds (missing
 * values left out); with config fields inside they work on configs.  A
 * graph session gives its one row; a folder session one per graph, through
 * query_fold and query_rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/plural.h"
#include "base/units.h"
#include "query/commands.h"

static const query_field graph_fields[] = {
	{"file", QF_G_FILE, 0, QUERY_TEXT, "the graph's file (relative to the folder)", HS_U_NONE},
	{"name", QF_G_NAME, 0, QUERY_TEXT, "file name without .npz", HS_U_NONE},
	{"collection", QF_G_COLLECTION, 0, QUERY_TEXT, "xla or nlp (as the path says; empty if it does not)", HS_U_NONE},
	{"search", QF_G_SEARCH, 0, QUERY_TEXT, "default or random (layout; as the path says)", HS_U_NONE},
	{"split", QF_G_SPLIT, 0, QUERY_TEXT, "train, valid or test (as the path says)", HS_U_NONE},
	{"kind", QF_G_KIND, 0, QUERY_TEXT, "tile or layout", HS_U_NONE},
	{"nodes", QF_G_NODES, 0, QUERY_NUM, "number of nodes", HS_U_NONE},
	{"edges", QF_G_EDGES, 0, QUERY_NUM, "number of edges", HS_U_NONE},
	{"configs", QF_G_CONFIGS, 0, QUERY_NUM, "number of configs", HS_U_NONE},
	{"configurable", QF_G_CONFIGURABLE, 0, QUERY_NUM, "configurable nodes (layout; 0 for tile)", HS_U_NONE},
	{"computations", QF_G_COMPUTATIONS, 0, QUERY_NUM, "HLO computations (entry, fusion bodies, reducers, ...; derived on a bare .npz)", HS_U_NONE},
	{"splits", QF_G_SPLITS, 0, QUERY_NUM, "node_splits segments (1 for tile graphs)", HS_U_NONE},
	{"labeled", QF_G_LABELED, 0, QUERY_NUM, "1 when runtimes are known (0: a test file)", HS_U_NONE},
	{"runtime_min", QF_G_RUNTIME_MIN, 0, QUERY_NUM, "fastest runtime (tile: normalized; layout: ns)", HS_U_NONE},
	{"runtime_median", QF_G_RUNTIME_MEDIAN, 0, QUERY_NUM, "median runtime (as numpy.median)", HS_U_NONE},
	{"runtime_max", QF_G_RUNTIME_MAX, 0, QUERY_NUM, "slowest runtime", HS_U_NONE},
	{"module", QF_G_MODULE, 0, QUERY_TEXT, "the HLO module's name (the file name on a bare .npz)", HS_U_NONE},
	{"hlo_computations", QF_G_HCOMPS, 0, QUERY_NUM, "the same as computations", HS_U_NONE},
	{"fusions", QF_G_FUSIONS, 0, QUERY_NUM, "nodes whose opcode is fusion", HS_U_NONE},
	{"cost", QF_G_COST, 0, QUERY_NUM, "the module's analytic seconds: its executed computations, each op once (fusion bodies and reducers counted in their callers)", HS_U_SECONDS},
	{"flops", QF_G_FLOPS, 0, QUERY_NUM, "the module's analytic FLOPs, counted as cost", HS_U_FLOP},
	{"bytes", QF_G_BYTES, 0, QUERY_NUM, "the module's analytic bytes read and written, counted as cost", HS_U_BYTES},
};

const query_field *query_graph_fields(size_t *n)
{
	*n = sizeof graph_fields / sizeof graph_fields[0];
	return graph_fields;
}

int query_need_runtime_summary(query_session *s, hs_error *err)
{
	const hs_graph *g = s->g;
	int64_t n = g->n_configs;

	if (s->rt_done)
		return 0;
	s->rt_summary[0] = s->rt_summary[1] = s->rt_summary[2] = NAN;
	if (g->labeled && n > 0 && g->runtime) {
		double *v = malloc((size_t)n * sizeof *v);
		if (!v)
			return hs_fail(err, HS_ENOMEM, "out of memory sorting %lld runtimes", (long long)n);
		memcpy(v, g->runtime, (size_t)n * sizeof *v);
		s->rt_summary[1] = hs_median(v, (size_t)n);
		s->rt_summary[0] = v[0];
		s->rt_summary[2] = v[n - 1];
		free(v);
	}
	s->rt_done = 1;
	return 0;
}

double query_graph_num(query_session *s, const query_field *f)
{
	const hs_graph *g = s->g;

	switch (f->kind) {
	case QF_G_NODES:
		return (double)g->n_nodes;
	case QF_G_EDGES:
		return (double)g->n_edges;
	case QF_G_CONFIGS:
		return (double)g->n_configs;
	case QF_G_CONFIGURABLE:
		return (double)g->n_cfg_nodes;
	case QF_G_SPLITS:
		return (double)g->n_comps;
	case QF_G_LABELED:
		return g->labeled;
	case QF_G_COMPUTATIONS:
	case QF_G_HCOMPS:
		return g->hcomps ? (double)g->n_hcomps : NAN;
	case QF_G_FUSIONS:
		return (double)graph_n_fusions(g);
	case QF_G_COST:
	case QF_G_FLOPS:
	case QF_G_BYTES: {
		if (!s->cost || !g->hcomps)
			return NAN;
		cost_estimate t = cost_executed_total(g, s->cost);
		return f->kind == QF_G_COST ? t.seconds : f->kind == QF_G_FLOPS ? t.flops : t.bytes;
	}
	case QF_G_RUNTIME_MIN:
	case QF_G_RUNTIME_MEDIAN:
	case QF_G_RUNTIME_MAX:
		return s->rt_done ? s->rt_summary[f->kind - QF_G_RUNTIME_MIN] : NAN;
	default:
		return NAN;
	}
}

const char *query_graph_text(query_session *s, const query_field *f)
{
	const query_graph_ref *r = s->ref;

	switch (f->kind) {
	case QF_G_FILE:
		return r ? r->rel : "";
	case QF_G_NAME:
		return s->g->name ? s->g->name : "";
	case QF_G_COLLECTION:
		return r ? r->collection : "";
	case QF_G_SEARCH:
		return r ? r->search : "";
	case QF_G_SPLIT:
		return r ? r->split : "";
	case QF_G_KIND:
		return graph_kind_name(s->g->kind);
	case QF_G_MODULE:
		return graph_module_name(s->g) ? graph_module_name(s->g) : "";
	default:
		return "";
	}
}

/* ---- aggregates ------------------------------------------------------ */

/* The value of one aggregate over the bound graph. */
static int aggregate(query_parser *ctx, const query_expr *e, double *out)
{
	const hs_graph *g = ctx->s->g;
	int64_t total = e->scope == QS_CONFIG ? g->n_configs : g->n_nodes, n = 0;
	int64_t *ids = query_filter_rows(ctx, e->b, total, &n);
	double v[QUERY_ROWS], sum = 0, comp = 0, lo = NAN, hi = NAN;
	int64_t count = 0;

	if (!ids)
		return -1;
	if (query_prepare(ctx->s, e->a, ctx->err) < 0) {
		free(ids);
		return query_data_fail(ctx, ctx->err);
	}
	for (int64_t r = 0; r < n; r += QUERY_ROWS) {
		int m = n - r < QUERY_ROWS ? (int)(n - r) : QUERY_ROWS;
		query_eval_rows(ctx->s, e->a, ids + r, m, v);
		for (int j = 0; j < m; j++) {
			double x = v[j];
			if (e->op == QA_COUNT) {
				count += query_truthy(x);
				continue;
			}
			if (isnan(x))
				continue;
			double t = sum + x; /* Neumaier, as stats */
			comp += fabs(sum) >= fabs(x) ? (sum - t) + x : (x - t) + sum;
			sum = t;
			if (count == 0 || x < lo)
				lo = x;
			if (count == 0 || x > hi)
				hi = x;
			count++;
		}
	}
	free(ids);
	switch (e->op) {
	case QA_COUNT:
		*out = (double)count;
		break;
	case QA_SUM:
		*out = sum + comp;
		break;
	case QA_MIN:
		*out = lo;
		break;
	case QA_MAX:
		*out = hi;
		break;
	default:
		*out = count ? (sum + comp) / (double)count : NAN;
		break;
	}
	return 0;
}

/* ---- the command -------------------------------------------------------- */

struct graphs_plan {
	const query_clauses *c;
	const query_colspec *cols;
	int ncols;
	query_expr *const *aggs;
	int naggs;
};

static void graphs_setup(const struct graphs_plan *pl, query_rows *rs)
{
	rs->ncols = pl->ncols;
	rs->sorted = pl->c->sort != NULL;
	rs->text_key = pl->c->sort && pl->c->sort->type == QUERY_TEXT;
	rs->desc = pl->c->desc;
	rs->limit = pl->c->limit;
}

/* The graph's row when it matches. */
static int graphs_run(query_parser *ctx, const void *plan, void *part)
{
	const struct graphs_plan *pl = plan;
	query_rows *rs = part;
	double *agg = NULL;
	int64_t one = 0, n = 0, *ids = NULL;
	int rc = -1;

	graphs_setup(pl, rs);
	if (pl->naggs && !(agg = calloc((size_t)pl->naggs, sizeof *agg)))
		return query_oom(ctx);
	for (int i = 0; i < pl->naggs; i++)
		if (aggregate(ctx, pl->aggs[i], &agg[i]) < 0)
			goto done;
	ctx->s->agg = agg;
	if (!(ids = query_filter_rows(ctx, pl->c->where, 1, &n)))
		goto done;
	rs->matched = n;
	rs->total = 1;
	rc = n ? query_rows_from_ids(ctx, rs, QS_GRAPH, pl->cols, pl->ncols, &one, 1, pl->c->sort) : 0;
	query_rows_units(rs, ctx->s, pl->cols, pl->ncols);
done:
	ctx->s->agg = NULL;
	free(ids);
	free(agg);
	return rc;
}

static int graphs_merge(const void *plan, void *acc, void *part, hs_error *err)
{
	return query_rows_merge(acc, part, err);
}

static void graphs_free(void *part)
{
	query_rows_free(part);
}

static const query_fold_ops graphs_ops = {sizeof(query_rows), graphs_run, graphs_merge, graphs_free};

/* The columns without `show`: these fields, the sort key and the
 * aggregates of `where`. */
static int graphs_default_cols(query_parser *p, const query_clauses *c, query_colspec *cols)
{
	static const char *const names[] = {"file", "kind", "collection", "split", "nodes",
					    "edges", "configs", "configurable"};
	int n = 0;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++, n++) {
		cols[n].name = names[i];
		if (!(cols[n].e = query_field_expr(p, QS_GRAPH, names[i])))
			return query_oom(p);
	}
	for (int i = 0; i < p->naggs && n < QUERY_MAX_COLS; i++) {
		cols[n].e = p->aggs[i];
		cols[n++].name = query_expr_source(p, p->aggs[i]);
	}
	if (c->sort && !query_has_col(cols, n, c->sort) && n < QUERY_MAX_COLS &&
	    !(c->sort->kind == QE_AGG && p->naggs)) {
		cols[n].e = c->sort;
		cols[n++].name = query_expr_source(p, c->sort);
	}
	return n;
}

int query_cmd_graphs(query_parser *p, query_result *out)
{
	query_clauses *c = calloc(1, sizeof *c);
	query_colspec *cols = calloc(QUERY_MAX_COLS + 1, sizeof *cols);
	const char *names[QUERY_MAX_COLS + 1];
	query_type types[QUERY_MAX_COLS + 1];
	query_rows acc = {0};
	query_fold_info fi;
	int ncols, rc = -1;

	if (!c || !cols) {
		free(c);
		free(cols);
		return query_oom(p);
	}
	p->scope = QS_GRAPH;
	if (query_parse_clauses(p, c, 1, "where, sort by, limit or show") < 0)
		goto done;
	ncols = c->nshow > 0 ? c->nshow : c->star ? query_all_cols(p, QS_GRAPH, cols, QUERY_MAX_COLS)
						  : graphs_default_cols(p, c, cols);
	if (ncols < 0)
		goto done;
	if (c->nshow > 0)
		memcpy(cols, c->show, (size_t)c->nshow * sizeof *cols);
	struct graphs_plan pl = {c, cols, ncols, p->aggs, p->naggs};
	unsigned parts = query_expr_parts(c->where) | query_expr_parts(c->sort);
	for (int i = 0; i < ncols; i++) {
		parts |= query_expr_parts(cols[i].e);
		names[i] = cols[i].name;
		types[i] = cols[i].e->type;
	}
	for (int i = 0; i < p->naggs; i++)
		parts |= query_expr_parts(p->aggs[i]);
	graphs_setup(&pl, &acc);
	int f = query_fold(p, &graphs_ops, &pl, parts, &acc, out, &fi);
	if (f != 0) {
		rc = f < 0 ? -1 : 0;
		goto done;
	}
	if (query_rows_table(&acc, 0, names, types, out, p->err) < 0) {
		query_data_fail(p, p->err);
		goto done;
	}
	char tail[128] = "";
	if ((int64_t)acc.n < acc.matched)
		snprintf(tail, sizeof tail, ", first %zu shown", acc.n);
	if (c->where)
		out->note = query_asprintf("%lld of %lld graph%s match%s%s", (long long)acc.matched,
					   (long long)fi.graphs, hs_s(fi.graphs), hs_plural(acc.matched, "es", ""),
					   tail);

	else
		out->note = query_asprintf("%lld graph%s%s", (long long)fi.graphs,
					   hs_s(fi.graphs), tail);
	rc = 0;
done:
	query_rows_free(&acc);
	free(cols);
	free(c);
	return rc;
}
