/* graph_open.c - open any input by content: .npz, HLO protobufs, HLO
 * text; FILE#N / FILE#NAME picks a module; an .npz takes its raw twin's
 * names. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"
#include "base/progress.h"
#include "graph_impl.h"
#include "hlo_featurize.h"
#include "hlo_proto.h"
#include "hlo_text.h"
#include "target.h"
#include "xz.h"

graph_src graph_source_of(const char *path)
{
	unsigned char b[4096];
	long n = xz_peek(path, b, sizeof b); /* an xz file by its content (xz.h) */
	size_t len = strlen(path);
	if (n < 0)
		return GRAPH_SRC_MISSING;
	if ((n >= 2 && b[0] == 'P' && b[1] == 'K') || n == 0 ||
	    (len >= 4 && strcasecmp(path + len - 4, ".npz") == 0))
		return GRAPH_SRC_NPZ;
	for (long i = 0; i < n; i++)
		if ((b[i] < 0x20 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r') || b[i] == 0x7f)
			return GRAPH_SRC_PROTO;
	return GRAPH_SRC_TEXT;
}

hm_file *graph_read_hlo_file(const char *path, int proto_flags, hs_error *err)
{
	if (graph_source_of(path) == GRAPH_SRC_TEXT) {
		return hlo_text_read(path, err);
	}
	return hlo_proto_read(path, proto_flags, err);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* FILE#SEL when the whole path is not a file but FILE is; *file is malloc'd. */
static int split_selector(const char *path, char **file, const char **sel, hs_error *err)
{
	const char *hash = strrchr(path, '#');
	*sel = NULL;
	if (hash && !exists(path)) {
		*file = strndup(path, (size_t)(hash - path));
		if (*file && exists(*file)) {
			*sel = hash + 1;
			return 0;
		}
		free(*file);
	}
	*file = strdup(path);
	return *file ? 0 : hs_fail(err, HS_ENOMEM, "%s: out of memory", path);
}

static int pick_module(const hm_file *f, const char *file, const char *sel, hs_error *err)
{
	if (!sel) {
		if (f->n_modules == 1)
			return 0;
		return hs_fail(err, HS_EUSAGE,
			       "%s holds %d modules: open one as %s#N (N = 0..%d) or %s#NAME, e.g. %s#0 (module '%s')",
			       file, f->n_modules, file, f->n_modules - 1, file, file, f->modules[0].name);
	}
	int digits = *sel != '\0';
	for (const char *p = sel; *p; p++)
		digits &= isdigit((unsigned char)*p) != 0;
	if (digits) {
		long i = strtol(sel, NULL, 10);
		if (i >= 0 && i < f->n_modules && strlen(sel) < 10)
			return (int)i;
	}
	for (int i = 0; i < f->n_modules; i++)
		if (strcmp(f->modules[i].name, sel) == 0)
			return i;
	return hs_fail(err, HS_EUSAGE, "%s has no module '%s' (modules 0..%d, e.g. %s#0 is '%s')", file, sel,
		       f->n_modules - 1, file, f->modules[0].name);
}

/* Reads FILE for the module SEL names (NULL: the file's only module, or -1
 * in *module when it holds several).  A selected module of a TuningData is
 * read alone. */
static hm_file *read_module_of(const char *file, const char *sel, int *module, hs_error *err)
{
	hm_file *f;
	*module = -1;
	if (sel && graph_source_of(file) == GRAPH_SRC_PROTO) {
		f = hlo_proto_read_sel(file, sel, 0, err);
		if (f && f->total > f->n_modules) {
			*module = 0;
			return f;
		}
	} else {
		f = graph_read_hlo_file(file, 0, err);
	}
	if (!f || (!sel && f->n_modules > 1))
		return f;
	if ((*module = pick_module(f, file, sel, err)) < 0) {
		hm_file_free(f);
		return NULL;
	}
	return f;
}

hm_file *graph_read_hlo(const char *path, int *module, hs_error *err)
{
	char *file;
	const char *sel;
	*module = -1;
	if (split_selector(path, &file, &sel, err))
		return NULL;
	graph_src src = graph_source_of(file);
	hm_file *f = NULL;
	if (src == GRAPH_SRC_NPZ)
		hs_fail(err, HS_EUSAGE, "%s: an .npz, not an HLO module", file);
	else if (src == GRAPH_SRC_MISSING)
		hs_fail(err, HS_EDATA, "%s: %s", file, strerror(access(file, R_OK) ? errno : EIO));
	else
		f = read_module_of(file, sel, module, err);
	free(file);
	return f;
}

static hs_graph *open_hlo(const char *path, const char *file, const char *sel, hs_error *err)
{
	int i;
	hm_file *f = read_module_of(file, sel, &i, err);
	if (!f)
		return NULL;
	if (i < 0) {
		pick_module(f, file, NULL, err); /* says how to pick one */
		hm_file_free(f);
		return NULL;
	}
	hf_arrays a;
	/* the features wait until something asks (graph_need_features) */
	if (hf_featurize(&f->modules[i], f->tuning ? f->tuning[i] : NULL, hf_kind(f, i), HF_NO_FEATURES, &a,
			 err)) {
		hs_error_prefix(err, "%s: module '%s'", file, f->modules[i].name);
		hm_file_free(f);
		return NULL;
	}
	char *name = sel ? strdup(f->modules[i].name) : hs_path_stem(file);
	hs_graph *g = name ? graph_from_module(&a, path, name, f, i, err) : NULL;
	if (!name) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory", path);
		hm_file_free(f);
	}
	free(name);
	const char *note = a.note;
	if (g)
		g->kind = hf_graph_kind(&a);
	hf_arrays_free(&a);
	if (!g)
		return NULL;
	if (note && !(g->warning = strdup(note))) {
		graph_free(g);
		hs_fail(err, HS_ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	return g;
}

/* ---- the raw twin of an .npz ------------------------------------------- */

/* ".../npz/REST.npz" -> ".../pb/REST.pb", or NULL. */
static char *twin_path(const char *path)
{
	size_t n = strlen(path);
	if (n < 4 || strcasecmp(path + n - 4, ".npz") != 0)
		return NULL;
	const char *at = NULL;
	for (const char *p = path; (p = strstr(p, "npz/")); p++)
		if (p == path || p[-1] == '/')
			at = p;
	if (!at)
		return NULL;
	char *t = malloc(n + 1);
	if (!t)
		return NULL;
	size_t pre = (size_t)(at - path);
	memcpy(t, path, pre);
	memcpy(t + pre, "pb/", 3);
	size_t rest = n - 4 - (pre + 4);
	memcpy(t + pre + 3, at + 4, rest);
	memcpy(t + pre + 3 + rest, ".pb", 4);
	return t;
}

/* Whether module m featurizes to g's opcodes and edges. */
static int agrees(const hs_graph *g, const hm_module *m)
{
	if (m->n_instrs != g->n_nodes)
		return 0;
	hf_arrays a;
	if (hf_featurize(m, NULL, HS_KIND_TILE, HF_NO_FEATURES | HF_NO_CONFIGS, &a, NULL))
		return 0;
	int ok = a.n_edges == g->n_edges && memcmp(a.node_opcode, g->opcode, (size_t)g->n_nodes) == 0 &&
		 (!a.n_edges || memcmp(a.edge_index, g->edges, (size_t)a.n_edges * sizeof *a.edge_index) == 0);
	hf_arrays_free(&a);
	return ok;
}

__attribute__((format(printf, 2, 3))) static void set_warning(hs_graph *g, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char *old = g->warning; /* a note of the reader's comes first */
	if (old && asprintf(&g->warning, "%s; %s", old, msg) < 0)
		g->warning = NULL;
	else if (!old)
		g->warning = strdup(msg);
	free(old);
}

/* The twin's module replaces the synthesized one when it agrees; a note
 * otherwise.  -1 only when out of memory making the arrays' module again. */
static int adopt_twin(hs_graph *g, hs_error *err)
{
	char *t = twin_path(g->path);
	hs_error e = {0};
	hm_file *f = t && exists(t) ? hlo_proto_read(t, HLO_PROTO_NO_RUNS, &e) : NULL;
	int pick = -1, rc = 0;
	if (!f && e.status)
		set_warning(g, "raw twin not used: %s", e.msg);
	for (int i = 0; f && i < f->n_modules && pick < 0; i++)
		if (agrees(g, &f->modules[i]))
			pick = i;
	if (f && pick < 0) {
		set_warning(g, "raw twin %s not used: its opcodes or edges differ from the .npz's", t);
		hm_file_free(f);
	} else if (f && graph_set_module(g, f, pick, &e)) {
		rc = graph_synth_module(g, err);   /* back to the arrays' module */
		set_warning(g, "raw twin not used: %s", e.msg);
	}
	free(t);
	return rc;
}

/* The GPU target config beside a module's file (target.h); a note when
 * the one found cannot be read (the module stands alone); -1 only when out
 * of memory. */
static int attach_target(hs_graph *g, const char *file, hs_error *err)
{
	hs_error e = {0};
	if (target_attach(g->hlo, file, &e) == 0)
		return 0;
	if (e.status == HS_ENOMEM) {
		*err = e;
		return -1;
	}
	set_warning(g, "target config not read: %s", e.msg);
	return 0;
}

hs_graph *graph_open(const char *path, hs_error *err)
{
	char *file;
	const char *sel;
	if (split_selector(path, &file, &sel, err))
		return NULL;
	graph_src src = graph_source_of(file);
	hs_graph *g = NULL;
	if (src == GRAPH_SRC_NPZ || src == GRAPH_SRC_MISSING) {
		if (sel)
			hs_fail(err, HS_EUSAGE, "%s: an .npz holds one graph; '#%s' selects nothing", file, sel);
		else if ((g = graph_open_npz(file, err)) && adopt_twin(g, err)) {
			graph_free(g);
			g = NULL;
		}
	} else if ((g = open_hlo(path, file, sel, err)) && attach_target(g, file, err)) {
		graph_free(g);
		g = NULL;
	}
	free(file);
	hs_progress_end();
	return g;
}

int graph_check_hlo(const char *path, hs_error *err)
{
	int module;
	hm_file *f = graph_read_hlo(path, &module, err);
	if (!f)
		return -1;
	int rc = 0;
	for (int i = module < 0 ? 0 : module; i < (module < 0 ? f->n_modules : module + 1) && !rc; i++) {
		hf_arrays a;
		rc = hf_featurize(&f->modules[i], f->tuning ? f->tuning[i] : NULL, hf_kind(f, i), 0, &a, err);
		if (rc) {
			hs_error_prefix(err, "%s: module '%s'", f->path, f->modules[i].name);
			break;
		}
		hs_graph *g = graph_from_arrays(&a, path, f->modules[i].name, err);
		hf_arrays_free(&a);
		rc = g ? 0 : -1;
		graph_free(g);
	}
	hm_file_free(f);
	return rc;
}
