/* dataset.c - index the .npz graphs under a folder from their headers. */
#include "base/plural.h"
#include "dataset.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"
#include "base/vec.h"
#include "base/walk.h"
#include "dump.h"
#include "graph_impl.h"
#include "hlo_featurize.h"
#include "hlo_proto.h"
#include "hlo_text.h"
#include "npz.h"
#include "target.h"

/* ---- path classification ------------------------------------------------ */

/* Copies the component at [s, s + n) into `field` when it is one of
 * `words` (case-insensitive, stored in lower case). */
static int take_word(const char *s, size_t n, const char *const *words, char *field, size_t cap)
{
	for (; *words; words++)
		if (strlen(*words) == n && strncasecmp(s, *words, n) == 0 && n < cap) {
			memcpy(field, *words, n + 1);
			return 1;
		}
	return 0;
}

void dataset_classify_path(const char *path, ds_entry *e)
{
	static const char *const collections[] = {"xla", "nlp", NULL};
	static const char *const searches[] = {"default", "random", NULL};
	static const char *const splits[] = {"train", "valid", "test", NULL};
	static const char *const tile[] = {"tile", NULL};
	static const char *const layout[] = {"layout", NULL};
	const char *last = path ? strrchr(path, '/') : NULL;
	char kind[8] = "";

	e->collection[0] = e->search[0] = e->split[0] = '\0';
	if (!last)
		return;
	/* Directory components only, the file name never counts; the component
	 * nearest the file wins. */
	for (const char *s = path; s < last;) {
		const char *slash = strchr(s, '/');
		size_t n = (size_t)(slash - s);
		take_word(s, n, collections, e->collection, sizeof e->collection);
		take_word(s, n, searches, e->search, sizeof e->search);
		take_word(s, n, splits, e->split, sizeof e->split);
		take_word(s, n, tile, kind, sizeof kind);
		take_word(s, n, layout, kind, sizeof kind);
		s = slash + 1;
	}
	if (strcmp(kind, "tile") == 0)
		e->kind = HS_KIND_TILE;
	else if (strcmp(kind, "layout") == 0)
		e->kind = HS_KIND_LAYOUT;
}

/* ---- indexing one file -------------------------------------------------- */

static int header_of(npz *a, const char *name, int ndim, npy_header *h, hs_error *err)
{
	if (!npz_has(a, name))
		return hs_fail(err, HS_EDATA, "missing array '%s'", name);
	if (npz_header(a, name, h, err))
		return -1;
	if (ndim >= 0 && h->ndim != ndim)
		return hs_fail(err, HS_EDATA, "%s.npy: %d dimensions, expected %d", name, h->ndim, ndim);
	return 0;
}

/* Reads a 1-d integer array of `n` entries as int64. */
static int64_t *read_ints(npz *a, const char *name, int64_t n, hs_error *err)
{
	npz_array arr;
	int64_t *out;

	if (!npz_has(a, name)) {
		hs_fail(err, HS_EDATA, "missing array '%s'", name);
		return NULL;
	}
	if (npz_read(a, name, &arr, err))
		return NULL;
	if (npy_dtype_is_float(arr.h.dtype) || arr.h.ndim != 1 || arr.h.shape[0] != n) {
		hs_fail(err, HS_EDATA, "%s.npy: %s of %lld dimension(s), expected %lld integers", name,
			npy_dtype_name(arr.h.dtype), (long long)arr.h.ndim, (long long)n);
		npz_array_free(&arr);
		return NULL;
	}
	out = malloc(n ? (size_t)n * sizeof *out : 1);
	if (!out) {
		npz_array_free(&arr);
		hs_fail(err, HS_ENOMEM, "%s.npy: out of memory reading its values", name);
		return NULL;
	}
	for (int64_t i = 0; i < n; i++)
		out[i] = npy_get_i64(arr.h.dtype, arr.data, (uint64_t)i);
	npz_array_free(&arr);
	return out;
}

/* Config c's runtime `rt` (ns) and normalizer `norm` (0: none) into the
 * ranges of e: runtime_* normalized for tile files, ns_* as stored. */
static void range_add(ds_entry *e, int64_t c, int64_t rt, int64_t norm)
{
	double v = norm ? (double)rt / (double)norm : (double)rt;
	if (c == 0 || v < e->runtime_min)
		e->runtime_min = v;
	if (c == 0 || v > e->runtime_max)
		e->runtime_max = v;
	if (c == 0 || (double)rt < e->ns_min)
		e->ns_min = (double)rt;
	if (c == 0 || (double)rt > e->ns_max)
		e->ns_max = (double)rt;
	e->labeled |= rt != 0;
}

/* Runtimes: labeled when any is non-zero; the range over all configs,
 * divided by the normalizers for tile files (and as stored). */
static int index_runtimes(npz *a, ds_entry *e, hs_error *err)
{
	int64_t *rt = read_ints(a, "config_runtime", e->configs, err), *norm = NULL;
	int rc = 0;

	if (!rt)
		return -1;
	if (e->kind == HS_KIND_TILE &&
	    !(norm = read_ints(a, "config_runtime_normalizers", e->configs, err))) {
		free(rt);
		return -1;
	}
	e->labeled = 0;
	e->runtime_min = e->runtime_max = 0;
	for (int64_t c = 0; c < e->configs && rc == 0; c++) {
		if (rt[c] < 0) {
			rc = hs_fail(err, HS_EDATA, "config_runtime.npy: config %lld has runtime %lld",
				     (long long)c, (long long)rt[c]);
			break;
		}
		if (norm && norm[c] <= 0) {
			rc = hs_fail(err, HS_EDATA,
				     "config_runtime_normalizers.npy: config %lld has normalizer %lld, expected > 0",
				     (long long)c, (long long)norm[c]);
			break;
		}
		range_add(e, c, rt[c], norm ? norm[c] : 0);
	}
	if (!e->labeled)
		e->runtime_min = e->runtime_max = e->ns_min = e->ns_max = 0;
	free(rt);
	free(norm);
	return rc;
}

static int index_file(ds_entry *e, hs_error *err)
{
	npz *a = npz_open(e->path, err);
	npy_header h;
	int rc = -1;

	if (!a)
		return -1;
	if (npz_has(a, "node_config_feat") || npz_has(a, "node_config_ids"))
		e->kind = HS_KIND_LAYOUT;
	else if (npz_has(a, "config_feat"))
		e->kind = HS_KIND_TILE;
	else {
		hs_fail(err, HS_EDATA, "neither a tile sample (no config_feat) nor a layout sample (no node_config_feat)");
		goto out;
	}

	if (header_of(a, "node_feat", 2, &h, err))
		goto out;
	e->nodes = h.shape[0];
	if (header_of(a, "node_opcode", 1, &h, err))
		goto out;
	if (h.shape[0] != e->nodes) {
		hs_fail(err, HS_EDATA, "node_opcode.npy: %lld %s, node_feat has %lld node%s",
			(long long)h.shape[0], hs_plural(h.shape[0], "entry", "entries"), (long long)e->nodes,
			hs_s(e->nodes));
		goto out;
	}
	if (header_of(a, "edge_index", 2, &h, err))
		goto out;
	if (h.shape[1] != 2 && h.shape[0] != 0) {
		hs_fail(err, HS_EDATA, "edge_index.npy: shape (%lld, %lld), expected (edges, 2)",
			(long long)h.shape[0], (long long)h.shape[1]);
		goto out;
	}
	e->edges = h.shape[0];
	if (header_of(a, "config_runtime", 1, &h, err))
		goto out;
	e->configs = h.shape[0];

	if (e->kind == HS_KIND_TILE) {
		if (header_of(a, "config_feat", 2, &h, err))
			goto out;
		if (h.shape[0] > e->configs) { /* truncation: the shorter array is blamed */
			hs_fail(err, HS_EDATA, "config_runtime.npy: %lld %s, config_feat has %lld config%s",
				(long long)e->configs, hs_plural(e->configs, "entry", "entries"),
				(long long)h.shape[0], hs_s(h.shape[0]));
			goto out;
		}
		if (h.shape[0] != e->configs) {
			hs_fail(err, HS_EDATA, "config_feat.npy: %lld row%s, config_runtime has %lld",
				(long long)h.shape[0], hs_s(h.shape[0]), (long long)e->configs);
			goto out;
		}
		e->cfg_nodes = 0;
	} else {
		if (header_of(a, "node_config_ids", 1, &h, err))
			goto out;
		e->cfg_nodes = h.shape[0];
		if (header_of(a, "node_config_feat", 3, &h, err))
			goto out;
		if (h.shape[0] > e->configs && h.shape[1] == e->cfg_nodes) {
			hs_fail(err, HS_EDATA, "config_runtime.npy: %lld %s, node_config_feat has %lld config%s",
				(long long)e->configs, hs_plural(e->configs, "entry", "entries"),
				(long long)h.shape[0], hs_s(h.shape[0]));
			goto out;
		}
		if (h.shape[0] != e->configs || h.shape[1] != e->cfg_nodes) {
			hs_fail(err, HS_EDATA,
				"node_config_feat.npy: shape (%lld, %lld, %lld), expected (%lld, %lld, width) for %lld config%s x %lld configurable node%s",
				(long long)h.shape[0], (long long)h.shape[1], (long long)h.shape[2],
				(long long)e->configs, (long long)e->cfg_nodes, (long long)e->configs,
				hs_s(e->configs), (long long)e->cfg_nodes, hs_s(e->cfg_nodes));
			goto out;
		}
	}
	rc = index_runtimes(a, e, err);
out:
	npz_close(a);
	return rc;
}

/* ---- the walk ----------------------------------------------------------- */

struct walk {
	ds_index *ix;
	size_t cap;
	const char *real_root; /* for classification; may be NULL */
	hs_error *err;
	int index;             /* 0: list the files without opening them */
	HS_VEC(ds_report) reports;
	HS_VEC(ds_left_out) left_out;
};

static int out_of_memory(struct walk *w)
{
	return hs_fail(w->err, HS_ENOMEM, "%s: out of memory scanning the folder", w->ix->root);
}

/* A new entry at the end of the index; path, rel and name are copied. */
static ds_entry *new_entry(struct walk *w, const char *path, const char *rel, const char *name,
			   size_t name_len)
{
	ds_entry *e;
	if (w->ix->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		ds_entry *p = realloc(w->ix->entries, cap * sizeof *p);
		if (!p) {
			out_of_memory(w);
			return NULL;
		}
		w->ix->entries = p;
		w->cap = cap;
	}
	e = &w->ix->entries[w->ix->n];
	memset(e, 0, sizeof *e);
	e->path = strdup(path);
	e->rel = strdup(rel);
	e->name = strndup(name, name_len);
	if (!e->path || !e->rel || !e->name) {
		free(e->path);
		free(e->rel);
		free(e->name);
		out_of_memory(w);
		return NULL;
	}
	w->ix->n++;
	return e;
}

static int classify(struct walk *w, ds_entry *e, const char *path, const char *rel)
{
	if (w->real_root) {
		char *full = hs_path_join(w->real_root, rel);
		if (!full)
			return out_of_memory(w);
		dataset_classify_path(full, e);
		free(full);
	} else {
		dataset_classify_path(path, e);
	}
	return 0;
}

/* Keeps the place inside the file of an error about it. */
static int set_error(struct walk *w, ds_entry *e, const char *file, const hs_error *ferr)
{
	const char *msg = ferr->msg;
	size_t np = strlen(file);
	if (strncmp(msg, file, np) == 0 && strncmp(msg + np, ": ", 2) == 0)
		msg += np + 2;
	else if (strncmp(msg, file, np) == 0 && msg[np] == ':' && msg[np + 1] >= '0' && msg[np + 1] <= '9')
		msg += np + 1; /* "FILE:3:1: ..." keeps "3:1: ..." */
	e->error = strdup(*msg ? msg : "could not be read");
	if (!e->error)
		return out_of_memory(w);
	e->nodes = e->edges = e->configs = e->cfg_nodes = e->fusions = 0;
	e->labeled = 0;
	e->runtime_min = e->runtime_max = e->ns_min = e->ns_max = 0;
	return 0;
}

static int add_file(struct walk *w, const char *path, const char *rel, const char *name)
{
	hs_error ferr = {0};
	ds_entry *e = new_entry(w, path, rel, name, hs_path_stem_len(name));
	if (!e || classify(w, e, path, rel))
		return -1;
	if (w->index && index_file(e, &ferr))
		return set_error(w, e, e->path, &ferr);
	return 0;
}

/* One module's counts and runtime range, from its featurized arrays. */
static int index_module(ds_entry *e, const hm_file *f, int i, hs_error *err)
{
	hf_arrays a;
	if (hf_featurize(&f->modules[i], f->tuning ? f->tuning[i] : NULL, hf_kind(f, i), HF_NO_FEATURES, &a,
			 err)) {
		hs_error_prefix(err, "module '%s'", f->modules[i].name);
		return -1;
	}
	e->kind = hf_graph_kind(&a);
	e->fusions = 0;
	for (int c = 0; c < f->modules[i].n_comps; c++)
		for (int k = 0; k < f->modules[i].comps[c].n_instrs; k++)
			e->fusions += strcmp(f->modules[i].comps[c].instrs[k].opcode, "fusion") == 0;
	e->nodes = a.n_nodes;
	e->edges = a.n_edges;
	e->configs = a.n_configs;
	e->cfg_nodes = a.n_cfg_nodes;
	e->labeled = 0;
	for (int64_t c = 0; c < a.n_configs; c++)
		range_add(e, c, a.config_runtime[c],
			  a.config_runtime_normalizers ? a.config_runtime_normalizers[c] : 0);
	if (!e->labeled)
		e->runtime_min = e->runtime_max = e->ns_min = e->ns_max = 0;
	hf_arrays_free(&a);
	return 0;
}

/* A raw protobuf or HLO text: one entry, or one per module (FILE#N, named
 * after the module) when the file holds several. */
static int add_hlo_file(struct walk *w, const char *path, const char *rel, const char *name)
{
	hs_error ferr = {0};
	hm_file *f = graph_read_hlo_file(path, 0, &ferr);
	if (!f || f->n_modules == 1) {
		ds_entry *e = new_entry(w, path, rel, name, hs_path_stem_len(name));
		if (!e || classify(w, e, path, rel)) {
			hm_file_free(f);
			return -1;
		}
		int rc = !f || (w->index && index_module(e, f, 0, &ferr)) ? set_error(w, e, path, &ferr) : 0;
		hm_file_free(f);
		return rc;
	}
	for (int i = 0; i < f->n_modules; i++) {
		char *mpath = NULL, *mrel = NULL;
		if (asprintf(&mpath, "%s#%d", path, i) < 0 || asprintf(&mrel, "%s#%d", rel, i) < 0) {
			free(mpath);
			hm_file_free(f);
			return out_of_memory(w);
		}
		const char *mname = f->modules[i].name;
		ds_entry *e = new_entry(w, mpath, mrel, mname, strlen(mname));
		free(mpath);
		free(mrel);
		if (!e || classify(w, e, path, rel)) {
			hm_file_free(f);
			return -1;
		}
		hs_error merr = {0};
		if (w->index && index_module(e, f, i, &merr) && set_error(w, e, path, &merr)) {
			hm_file_free(f);
			return -1;
		}
	}
	hm_file_free(f);
	return 0;
}

/* Marks the entries added since `from` as stage `dn` of a dump module. */
static int mark_dump(struct walk *w, size_t from, const xla_dump_name *dn)
{
	for (size_t i = from; i < w->ix->n; i++) {
		ds_entry *e = &w->ix->entries[i];
		if (!(e->dump_module = strdup(dn->module)) || !(e->stage = strdup(dn->stage)))
			return out_of_memory(w);
		e->stage_order = dn->order;
	}
	return 0;
}

/* What a target config or autotune results say (target.h), read when
 * indexing; -1 when out of memory. */
static int report_note(const struct walk *w, ds_report *r)
{
	if (!w->index || (r->kind != XD_TARGET_CONFIG && r->kind != XD_AUTOTUNE))
		return 0;
	return (r->note = target_file_note(r->path, (xla_dump_kind)r->kind)) ? 0 : -1;
}

static int add_report(struct walk *w, const char *path, const char *rel, const xla_dump_name *dn,
		      const struct stat *st)
{
	if (hs_vec_reserve(&w->reports, w->reports.n + 1) != 0)
		return out_of_memory(w);
	ds_report *r = &w->reports.v[w->reports.n];
	*r = (ds_report){strdup(path), strdup(rel), strdup(dn->module), (int)dn->kind, (int64_t)st->st_size, NULL};
	if (!r->path || !r->rel || !r->dump_module || report_note(w, r) < 0) {
		free(r->path);
		free(r->rel);
		free(r->dump_module);
		return out_of_memory(w);
	}
	w->reports.n++;
	return 0;
}

/* A file the walk leaves out, with why. */
static int add_left_out(struct walk *w, const char *path, const char *rel, const char *why, int64_t bytes)
{
	if (hs_vec_reserve(&w->left_out, w->left_out.n + 1) != 0)
		return out_of_memory(w);
	ds_left_out *l = &w->left_out.v[w->left_out.n];
	*l = (ds_left_out){strdup(path), strdup(rel), strdup(why), bytes};
	if (!l->path || !l->rel || !l->why) {
		free(l->path);
		free(l->rel);
		free(l->why);
		return out_of_memory(w);
	}
	w->left_out.n++;
	return 0;
}

/* A regular file: a graph (an .npz, a module, a stage of a dump module), a
 * report, or left out (dataset_file_kind). */
static int add_any(struct walk *w, const hs_walk_entry *we)
{
	xla_dump_name dn;
	char why[600];
	size_t from = w->ix->n;
	int rc;
	switch (dataset_file_kind(we->path, we->name, &dn, why, sizeof why, w->err)) {
	case -1:
		return -1;
	case DS_FILE_REPORT:
		return add_report(w, we->path, we->rel, &dn, we->st);
	case DS_FILE_LEFT_OUT:
		return add_left_out(w, we->path, we->rel, why, (int64_t)we->st->st_size);
	default:
		break;
	}
	if (dataset_is_npz_name(we->name))
		rc = add_file(w, we->path, we->rel, we->name);
	else if ((rc = add_hlo_file(w, we->path, we->rel, we->name)) == 0 && dn.module[0])
		rc = mark_dump(w, from, &dn);
	for (size_t i = from; rc == 0 && i < w->ix->n; i++)
		w->ix->entries[i].file_bytes = (int64_t)we->st->st_size;
	return rc;
}

/* A folder the walk could not enter (unreadable, or nested too deep): an
 * entry whose error says so, so that it is seen, not silently left out. */
static int add_folder_error(struct walk *w, const hs_walk_entry *we)
{
	ds_entry *e = new_entry(w, we->path, we->rel, we->name, strlen(we->name));
	if (!e || classify(w, e, we->path, we->rel))
		return -1;
	char msg[160];
	if (we->kind == HS_WALK_TOO_DEEP)
		snprintf(msg, sizeof msg, "a folder nested more than %d deep: not entered", HS_WALK_MAX_DEPTH);
	else
		snprintf(msg, sizeof msg, "cannot read folder: %s", strerror(we->errnum));
	if (!(e->error = strdup(msg)))
		return out_of_memory(w);
	return 0;
}

/* One name of the folder walk (base/walk.h). */
static int visit(const hs_walk_entry *we, void *ctx, hs_error *err)
{
	struct walk *w = ctx;
	char why[300];

	(void)err; /* w->err is the same */
	switch (we->kind) {
	case HS_WALK_BROKEN:
		/* A dangling link named *.npz is a file that fails. */
		if (dataset_is_npz_name(we->name))
			return add_file(w, we->path, we->rel, we->name);
		snprintf(why, sizeof why, "a link to nothing: %s", strerror(we->errnum));
		return add_left_out(w, we->path, we->rel, why, 0);
	case HS_WALK_UNREADABLE:
	case HS_WALK_TOO_DEEP:
		return add_folder_error(w, we);
	case HS_WALK_FILE:
		break;
	}
	if (!S_ISREG(we->st->st_mode))
		return add_left_out(w, we->path, we->rel, "not a regular file", 0);
	return add_any(w, we);
}

/* By relative path; the modules of one file (FILE#N) by N; the stages of
 * one dump module in the compiler's order. */
static int cmp_rel(const void *a, const void *b)
{
	const ds_entry *ea = a, *eb = b;
	const char *x = ea->rel, *y = eb->rel;
	if (ea->dump_module && eb->dump_module && strcmp(ea->dump_module, eb->dump_module) == 0) {
		const char *sx = strrchr(x, '/'), *sy = strrchr(y, '/');
		size_t dx = sx ? (size_t)(sx - x) : 0, dy = sy ? (size_t)(sy - y) : 0;
		if (dx == dy && strncmp(x, y, dx) == 0 && ea->stage_order != eb->stage_order)
			return ea->stage_order < eb->stage_order ? -1 : 1;
	}
	const char *hx = strrchr(x, '#'), *hy = strrchr(y, '#');
	if (hx && hy && hx - x == hy - y && strncmp(x, y, (size_t)(hx - x)) == 0) {
		long nx = strtol(hx + 1, NULL, 10), ny = strtol(hy + 1, NULL, 10);
		if (nx != ny)
			return nx < ny ? -1 : 1;
	}
	return strcmp(x, y);
}

static int cmp_report(const void *a, const void *b)
{
	return strcmp(((const ds_report *)a)->rel, ((const ds_report *)b)->rel);
}

static int cmp_left_out(const void *a, const void *b)
{
	return strcmp(((const ds_left_out *)a)->rel, ((const ds_left_out *)b)->rel);
}

/* The modules of one file, as an index rooted at the file. */
static ds_index *scan_modules(const char *file, int index, hs_error *err)
{
	struct walk w = {.index = index};
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	ds_index *ix = calloc(1, sizeof *ix);
	if (!ix || !(ix->root = strdup(file))) {
		free(ix);
		hs_fail(err, HS_ENOMEM, "%s: out of memory", file);
		return NULL;
	}
	w.ix = ix;
	w.err = err;
	if (add_hlo_file(&w, file, base, base)) {
		dataset_free(ix);
		return NULL;
	}
	if (ix->n < 2) {
		hs_fail(err, HS_EUSAGE, "%s: not a folder%s", file,
			ix->n && ix->entries[0].error ? "" : " (a file of one module: open it directly)");
		dataset_free(ix);
		return NULL;
	}
	return ix;
}

int dataset_is_collection(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return 1;
	graph_src src = S_ISREG(st.st_mode) ? graph_source_of(path) : GRAPH_SRC_MISSING;
	if (src == GRAPH_SRC_NPZ || src == GRAPH_SRC_MISSING)
		return 0;
	/* A protobuf: only its first module is decoded, f->total counts them
	 * all (the explorer opens the file right after, so a whole read here
	 * would decode a large TuningData twice). */
	if (src == GRAPH_SRC_TEXT)   /* counted, not parsed: it is opened next */
		return hlo_text_count_modules(path) > 1;
	hm_file *f = hlo_proto_read_sel(path, "0", HLO_PROTO_NO_RUNS, NULL);
	int several = f && (f->total > f->n_modules ? f->total : f->n_modules) > 1;
	hm_file_free(f);
	return several;
}

static ds_index *scan(const char *dir, int index, hs_error *err)
{
	struct walk w = {.index = index};
	struct stat st;
	ds_index *ix;
	char *real;
	int rc;

	if (!dir || !*dir) {
		hs_fail(err, HS_EUSAGE, "no folder given");
		return NULL;
	}
	if (stat(dir, &st) != 0) {
		hs_fail(err, HS_EDATA, "%s: cannot read folder: %s", dir, strerror(errno));
		return NULL;
	}
	if (S_ISREG(st.st_mode) && graph_source_of(dir) != GRAPH_SRC_NPZ)
		return scan_modules(dir, index, err);
	if (!S_ISDIR(st.st_mode)) {
		hs_fail(err, HS_EUSAGE, "%s: not a folder", dir);
		return NULL;
	}
	ix = calloc(1, sizeof *ix);
	if (!ix || !(ix->root = strdup(dir))) {
		free(ix);
		hs_fail(err, HS_ENOMEM, "%s: out of memory scanning the folder", dir);
		return NULL;
	}
	/* Strip trailing slashes so that paths read "root/rel". */
	for (size_t n = strlen(ix->root); n > 1 && ix->root[n - 1] == '/'; n--)
		ix->root[n - 1] = '\0';
	real = realpath(ix->root, NULL);
	w.ix = ix;
	w.real_root = real;
	w.err = err;
	rc = hs_walk(ix->root, HS_WALK_MAX_DEPTH, visit, &w, err);
	ix->reports = w.reports.v;
	ix->n_reports = w.reports.n;
	ix->left_out = w.left_out.v;
	ix->n_left_out = w.left_out.n;
	free(real);
	if (rc != 0) {
		dataset_free(ix);
		return NULL;
	}
	if (ix->n > 1)
		qsort(ix->entries, ix->n, sizeof *ix->entries, cmp_rel);
	if (ix->n_reports > 1)
		qsort(ix->reports, ix->n_reports, sizeof *ix->reports, cmp_report);
	if (ix->n_left_out > 1)
		qsort(ix->left_out, ix->n_left_out, sizeof *ix->left_out, cmp_left_out);
	return ix;
}

ds_index *dataset_scan(const char *dir, hs_error *err)
{
	return scan(dir, 1, err);
}

ds_index *dataset_list(const char *dir, hs_error *err)
{
	return scan(dir, 0, err);
}

void dataset_free(ds_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->entries[i].path);
		free(ix->entries[i].rel);
		free(ix->entries[i].name);
		free(ix->entries[i].error);
		free(ix->entries[i].dump_module);
		free(ix->entries[i].stage);
	}
	free(ix->entries);
	for (size_t i = 0; i < ix->n_reports; i++) {
		free(ix->reports[i].path);
		free(ix->reports[i].rel);
		free(ix->reports[i].dump_module);
		free(ix->reports[i].note);
	}
	free(ix->reports);
	for (size_t i = 0; i < ix->n_left_out; i++) {
		free(ix->left_out[i].path);
		free(ix->left_out[i].rel);
		free(ix->left_out[i].why);
	}
	free(ix->left_out);
	free(ix->root);
	free(ix);
}

const ds_report *dataset_dump_report(const ds_index *ix, const ds_entry *e, int kind)
{
	if (!e->dump_module)
		return NULL;
	const char *slash = strrchr(e->rel, '/');
	size_t dir = slash ? (size_t)(slash - e->rel) + 1 : 0;
	for (size_t i = 0; i < ix->n_reports; i++) {
		const ds_report *r = &ix->reports[i];
		if (r->kind == kind && strcmp(r->dump_module, e->dump_module) == 0 &&
		    strncmp(r->rel, e->rel, dir) == 0 && !strchr(r->rel + dir, '/'))
			return r;
	}
	return NULL;
}
