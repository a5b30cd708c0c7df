/* view_dataset.c - one row per graph file of a folder; Enter opens it.  A
 * plain HLO module (HLO text or a protobuf without configs) is of kind
 * "module", not a layout sample.
 *
 * An XLA dump folder (loader/dump.h) shows each module's stages in the
 * compiler's order, with the columns module, stage, instructions and
 * fusions; its buffer assignments, memory usage reports, target configs and
 * autotune results are rows too
 * (Enter opens one as text).  `d` diffs a stage with the one before it,
 * `:passes` lists the stages of the cursor's module (view_passes.c), and
 * opening a module after optimizations lays its buffer assignment over its
 * nodes (the field buffer_bytes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/plural.h"
#include "base/units.h"
#include "loader/dump.h"
#include "loader/hlo_module.h"
#include "loader/overlay.h"
#include "query/query.h"
#include "tui/tui.h"

struct dsview {
	tui_table tab;
	ds_index *ix;
	int64_t ntile, nlayout, nmodule, nbad, nstages;
	int dump;          /* the folder holds XLA dumps: module and stage columns, report rows */
	query_session *qs; /* `:` queries over every graph, made on first use */
};

enum { DC_COLLECTION, DC_SEARCH, DC_SPLIT, DC_KIND, DC_NAME, DC_NODES, DC_EDGES, DC_CONFIGS,
       DC_CFGNODES, DC_RTMIN, DC_RTMAX, DC_NORMMIN, DC_NORMMAX, DC_PATH, DC_STATUS, DC_MODULE, DC_STAGE,
       DC_FUSIONS, DC_BYTES };

/* Rows past the entries are the dump's reports. */
static const ds_report *report_at(const struct dsview *d, int64_t row)
{
	return row >= (int64_t)d->ix->n && row < (int64_t)(d->ix->n + d->ix->n_reports)
		       ? &d->ix->reports[row - (int64_t)d->ix->n] : NULL;
}

static int report_cell(const ds_report *r, const tui_col *c, char *buf, size_t cap)
{
	switch (c->key) {
	case DC_KIND:
		snprintf(buf, cap, "report");
		break;
	case DC_NAME:
	case DC_PATH:
		snprintf(buf, cap, "%s", r->rel);
		break;
	case DC_MODULE:
		snprintf(buf, cap, "%s", r->dump_module);
		break;
	case DC_STAGE: /* with what it says: a target config's GPU, the autotune results' count */
		snprintf(buf, cap, "%s%s%s", xla_dump_kind_name((xla_dump_kind)r->kind), r->note ? ": " : "",
			 r->note ? r->note : "");
		break;
	case DC_BYTES:
		hs_unit_format(buf, cap, HS_U_BYTES, (double)r->bytes, -1);
		break;
	case DC_STATUS:
		snprintf(buf, cap, "Enter opens it as text");
		return TUI_C_DIM;
	default:
		snprintf(buf, cap, "-");
		return TUI_C_DIM;
	}
	return TUI_C_DEFAULT;
}

/* The runtime columns, as `hloscope info` gives them: runtime_* is
 * config_runtime as stored (ns, both kinds), normalized_* is runtime /
 * config_runtime_normalizers (unitless, tile only).  NAN: no value. */
static double ds_runtime(const ds_entry *e, int key)
{
	if (e->error || !e->labeled)
		return NAN;
	switch (key) {
	case DC_RTMIN:
		return e->ns_min;
	case DC_RTMAX:
		return e->ns_max;
	case DC_NORMMIN:
		return e->kind == HS_KIND_TILE ? e->runtime_min : NAN;
	case DC_NORMMAX:
		return e->kind == HS_KIND_TILE ? e->runtime_max : NAN;
	}
	return NAN;
}

static int ds_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct dsview *d = ctx;
	const ds_report *rp = report_at(d, row);
	if (rp)
		return report_cell(rp, c, buf, cap);
	const ds_entry *e = &d->ix->entries[row];
	int bad = e->error != NULL;

	switch (c->key) {
	case DC_MODULE:
		snprintf(buf, cap, "%s", e->dump_module ? e->dump_module : "-");
		return bad ? TUI_C_DIM : TUI_C_DEFAULT;
	case DC_STAGE:
		snprintf(buf, cap, "%s", e->stage ? e->stage : "-");
		return bad ? TUI_C_ERROR : TUI_C_DEFAULT;
	case DC_BYTES:
		hs_unit_format(buf, cap, HS_U_BYTES, (double)e->file_bytes, -1);
		return TUI_C_DEFAULT;
	case DC_COLLECTION:
		snprintf(buf, cap, "%s", e->collection[0] ? e->collection : "-");
		break;
	case DC_SEARCH:
		snprintf(buf, cap, "%s", e->search[0] ? e->search : "-");
		break;
	case DC_SPLIT:
		snprintf(buf, cap, "%s", e->split[0] ? e->split : "-");
		break;
	case DC_KIND:
		snprintf(buf, cap, "%s", bad ? "?" : graph_kind_name(e->kind));
		break;
	case DC_NAME:
		snprintf(buf, cap, "%s", e->name);
		return bad ? TUI_C_ERROR : TUI_C_DEFAULT;
	case DC_PATH:
		snprintf(buf, cap, "%s", e->rel);
		break;
	case DC_STATUS:
		snprintf(buf, cap, "%s", bad ? e->error : e->labeled ? "labeled" : e->dump_module ? "" : "unlabeled");
		return bad ? TUI_C_ERROR : e->labeled ? TUI_C_DEFAULT : TUI_C_DIM;
	case DC_RTMIN:
	case DC_RTMAX:
	case DC_NORMMIN:
	case DC_NORMMAX: {
		double v = ds_runtime(e, c->key);
		if (isnan(v))
			snprintf(buf, cap, "-");
		else if (c->unit == HS_U_NS)
			hs_unit_format(buf, cap, HS_U_NS, v, -1);
		else
			snprintf(buf, cap, "%.4g", v);
		break;
	}
	default:
		if (bad)
			snprintf(buf, cap, "-");
		else
			snprintf(buf, cap, "%lld",
				 (long long)(c->key == DC_NODES ? e->nodes
					     : c->key == DC_EDGES ? e->edges
					     : c->key == DC_CONFIGS ? e->configs
					     : c->key == DC_FUSIONS ? e->fusions
								    : e->cfg_nodes));
		break;
	}
	return bad ? TUI_C_DIM : TUI_C_DEFAULT;
}

static double ds_value(void *ctx, int64_t row, const tui_col *c)
{
	struct dsview *d = ctx;
	const ds_report *rp = report_at(d, row);
	if (rp)
		return c->key == DC_BYTES ? (double)rp->bytes : NAN;
	const ds_entry *e = &d->ix->entries[row];

	if (c->key == DC_BYTES)
		return (double)e->file_bytes;
	if (e->error)
		return NAN;
	switch (c->key) {
	case DC_FUSIONS:
		return (double)e->fusions;
	case DC_NODES:
		return (double)e->nodes;
	case DC_EDGES:
		return (double)e->edges;
	case DC_CONFIGS:
		return (double)e->configs;
	case DC_CFGNODES:
		return (double)e->cfg_nodes;
	case DC_RTMIN:
	case DC_RTMAX:
	case DC_NORMMIN:
	case DC_NORMMAX:
		return ds_runtime(e, c->key);
	}
	return NAN;
}

static const tui_table_ops ds_table_ops = {ds_cell, ds_value};

static const tui_col ds_cols[] = {
	{.name = "coll", .key = DC_COLLECTION, .width = 4},
	{.name = "search", .key = DC_SEARCH, .width = 7},
	{.name = "split", .key = DC_SPLIT, .width = 5},
	{.name = "kind", .key = DC_KIND, .width = 6},
	{.name = "name", .key = DC_NAME, .width = 24}, /* widened to the names */
	{.name = "nodes", .key = DC_NODES, .width = 6, .numeric = 1},
	{.name = "edges", .key = DC_EDGES, .width = 6, .numeric = 1},
	{.name = "configs", .key = DC_CONFIGS, .width = 7, .numeric = 1},
	{.name = "cfgnodes", .key = DC_CFGNODES, .width = 8, .numeric = 1},
	{.name = "runtime_min", .key = DC_RTMIN, .width = 11, .numeric = 1, .unit = HS_U_NS},
	{.name = "runtime_max", .key = DC_RTMAX, .width = 11, .numeric = 1, .unit = HS_U_NS},
	/* tile only: runtime / normalizer, no unit */
	{.name = "normalized_min", .key = DC_NORMMIN, .width = 14, .numeric = 1},
	{.name = "normalized_max", .key = DC_NORMMAX, .width = 14, .numeric = 1},
	{.name = "status", .key = DC_STATUS, .width = 24},
};

static const tui_col ds_extra_cols[] = {
	{.name = "path", .key = DC_PATH, .width = 48},
	{.name = "bytes", .key = DC_BYTES, .width = 8, .numeric = 1, .unit = HS_U_BYTES},
};

static const tui_table_spec ds_table = {
	.ops = &ds_table_ops, .cols = ds_cols, .ncols = TUI_N(ds_cols),
	.avail = ds_extra_cols, .navail = TUI_N(ds_extra_cols), .ccol = 4,
};

/* A folder of XLA dumps: its modules' stages in the compiler's order. */
static const tui_col dump_cols[] = {
	{.name = "kind", .key = DC_KIND, .width = 6},
	{.name = "module", .key = DC_MODULE, .width = 24, .mid = 1},
	{.name = "stage", .key = DC_STAGE, .width = 28},
	{.name = "instrs", .key = DC_NODES, .width = 7, .numeric = 1},
	{.name = "fusions", .key = DC_FUSIONS, .width = 7, .numeric = 1},
	{.name = "bytes", .key = DC_BYTES, .width = 8, .numeric = 1, .unit = HS_U_BYTES},
	{.name = "status", .key = DC_STATUS, .width = 24},
};

static const tui_col dump_extra_cols[] = {
	{.name = "name", .key = DC_NAME, .width = 24},
	{.name = "path", .key = DC_PATH, .width = 48},
	{.name = "edges", .key = DC_EDGES, .width = 6, .numeric = 1},
};

static const tui_table_spec dump_table = {
	.ops = &ds_table_ops, .cols = dump_cols, .ncols = TUI_N(dump_cols),
	.avail = dump_extra_cols, .navail = TUI_N(dump_extra_cols), .ccol = 1,
};

static void ds_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct dsview *d = v->data;
	char line[512];

	snprintf(line, sizeof line, " %zu graph%s under %s: %lld tile, %lld layout", d->ix->n,
		 hs_s((long long)d->ix->n), d->ix->root, (long long)d->ntile, (long long)d->nlayout);
	if (d->nmodule) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, ", %lld HLO module%s", (long long)d->nmodule,
			 hs_s(d->nmodule));
	}

	if (d->dump) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, "; XLA dumps: %lld stage%s, %zu report%s", (long long)d->nstages,
			 hs_s(d->nstages), d->ix->n_reports, hs_s((long long)d->ix->n_reports));
	}
	tui_put(win, y, x, w, line, A_BOLD, 1);
	if (d->dump && !d->nbad) {
		tui_put(win, y + 1, x, w,
			" Enter opens a stage (a report as text); d diffs a stage with the one before; :passes lists a module's",
			tui_attr(TUI_C_DIM), 0);
	} else if (d->nbad) {
		snprintf(line, sizeof line, " %lld could not be read (status column)", (long long)d->nbad);
		tui_put(win, y + 1, x, w, line, tui_attr(TUI_C_ERROR), 0);
	} else {
		tui_put(win, y + 1, x, w,
			" Enter opens a graph; [ ] sort, \\ filter, F counts a column; : queries every graph",
			tui_attr(TUI_C_DIM), 0);
	}
	tui_table_draw(win, &d->tab, y + 2, x, h - 2, w, 1);
}

/* Two relative paths in one folder (two dumps under one root are two
 * compilations). */
static int same_folder(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
	return na == nb && strncmp(a, b, na) == 0;
}

const ds_entry *tui_stage_before(const ds_index *ix, const ds_entry *e)
{
	const ds_entry *best = NULL;
	if (!e->dump_module)
		return NULL;
	for (size_t i = 0; i < ix->n; i++) {
		const ds_entry *o = &ix->entries[i];
		if (o != e && o->dump_module && !strcmp(o->dump_module, e->dump_module) &&
		    !o->error && o->stage_order < e->stage_order && (!best || o->stage_order > best->stage_order) &&
		    same_folder(o->rel, e->rel))
			best = o;
	}
	return best;
}

int tui_open_entry(tui *t, const ds_index *ix, const ds_entry *e)
{
	hs_error err = {0};
	if (e->error) {
		tui_message(t, 1, "%s: %s", e->rel, e->error);
		return -1;
	}
	tui_doc *doc = tui_doc_open(e->path, tui_model(t), &err);
	if (!doc) {
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	/* the buffer assignment describes the optimized module; one an HloProto
	 * carries is laid over it already (buffer_bytes) */
	const ds_report *r = e->stage_order == XD_AFTER_OPTIMIZATIONS && !(doc->g->module && doc->g->module->buffers)
				     ? dataset_dump_report(ix, e, XD_BUFFER_ASSIGNMENT) : NULL;
	char note[600] = "";
	if (r) {
		hs_overlay o;
		int64_t matched = 0;
		if (overlay_load(doc->g, r->path, NULL, &o, &err) != 0 || ((matched = o.matched), 0) ||
		    query_session_add_overlay(doc->qs, &o, &err) != 0)
			snprintf(note, sizeof note, "buffer assignment not laid over: %s", err.msg);
		else
			snprintf(note, sizeof note, "buffer_bytes from %s: %lld instruction%s (: nodes sort by buffer_bytes desc)",
				 r->rel, (long long)matched, hs_s(matched));
		overlay_free(&o); /* emptied when the session took it */
	}
	int rc = tui_open_overview(t, doc);
	tui_doc_unref(doc);
	if (rc == 0 && note[0])
		tui_message(t, !strncmp(note, "buffer assignment not", 21), "%s", note);
	return rc;
}

/* `d`: the stage under the cursor with the one before it. */
static void diff_stage(tui *t, const ds_index *ix, const ds_entry *e)
{
	const ds_entry *p = e ? tui_stage_before(ix, e) : NULL;
	if (!e || !e->dump_module) {
		tui_message(t, 1, "diff: the cursor is on no stage of an XLA dump (in a module, :diff FILE)");
		return;
	}
	if (!p) {
		tui_message(t, 1, "diff: %s is the first stage of %s", e->stage, e->dump_module);
		return;
	}
	if (e->error || p->error) {
		tui_message(t, 1, "diff: %s: %s", e->error ? e->rel : p->rel, e->error ? e->error : p->error);
		return;
	}
	tui_open_diff(t, NULL, NULL, p->path, e->path);
}

static int ds_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct dsview *d = v->data;
	int64_t r = tui_table_row(&d->tab);
	const ds_report *rp = report_at(d, r);
	const ds_entry *e = r >= 0 && r < (int64_t)d->ix->n ? &d->ix->entries[r] : NULL;

	switch (req) {
	case TUI_REQ_ENTER:
		if (rp)
			tui_open_text(t, rp->path, rp->rel);
		else if (e)
			tui_open_entry(t, d->ix, e);
		return 1;
	case TUI_REQ_DIFF:
		if (arg && e) {
			char path[2048];
			snprintf(path, sizeof path, "%s", arg);
			tui_open_diff(t, NULL, NULL, e->path, path);
		} else {
			diff_stage(t, d->ix, e);
		}
		return 1;
	case TUI_REQ_PASSES: {
		const char *m = arg ? arg : e ? e->dump_module : rp ? rp->dump_module : NULL;
		if (!m)
			tui_message(t, 1, "passes: the cursor is on no module of an XLA dump (passes MODULE)");
		else
			tui_open_passes(t, d->ix, m);
		return 1;
	}
	default:
		return 0;
	}
}

static void ds_done(tui_view *v)
{
	struct dsview *d = v->data;
	query_session_free(d->qs);
	tui_table_free(&d->tab);
	dataset_free(d->ix);
	free(d);
}

static const tui_view_ops ds_ops = {
	.name = "dataset", .scope = TUI_S_TABLE | TUI_S_OPENS | TUI_S_DATASET, .draw = ds_draw, .request = ds_request,
	.done = ds_done,
};

query_session *tui_dataset_session(tui *t, tui_view *v)
{
	struct dsview *d;
	hs_error err = {0};

	if (!v || v->ops != &ds_ops)
		return NULL;
	d = v->data;
	if (!d->qs) {
		d->qs = query_session_new_dataset(d->ix, &err);
		if (!d->qs)
			tui_message(t, 1, "query: %s", err.msg);
		else
			query_session_set_model(d->qs, tui_model(t));
	}
	return d->qs;
}

int tui_open_dataset(tui *t, ds_index *ix)
{
	struct dsview *d = calloc(1, sizeof *d);
	int namew = 24;

	if (!d) {
		dataset_free(ix);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	d->ix = ix;
	for (size_t i = 0; i < ix->n; i++) {
		const ds_entry *e = &ix->entries[i];
		if (e->dump_module) {
			d->dump = 1;
			d->nstages++;
		}
		if (e->error)
			d->nbad++;
		else if (e->kind == HS_KIND_MODULE)
			d->nmodule++;
		else if (e->kind == HS_KIND_TILE)
			d->ntile++;
		else
			d->nlayout++;
		int nw = tui_width(e->name);
		if (nw > namew)
			namew = nw;
	}
	if (namew > 36)
		namew = 36;
	d->dump |= ix->n_reports > 0;
	tui_table_init_spec(&d->tab, d->dump ? &dump_table : &ds_table, d, (int64_t)(ix->n + ix->n_reports));
	tui_col *name = tui_table_col_by_key(&d->tab, DC_NAME);
	if (name)
		name->width = namew;
	return tui_push(t, &ds_ops, d, NULL, "Dataset", &d->tab, NULL) ? 0 : -1;
}
