/* graph.c - open, validate and index one TpuGraphs sample. */
#include "graph.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cmp.h"
#include "base/hash.h"
#include "base/path.h"
#include "base/plural.h"
#include "graph_impl.h"
#include "hlo.h"
#include "hlo_featurize.h"
#include "npz.h"

const char *graph_kind_name(hs_kind k) { return k == HS_KIND_TILE ? "tile" : "layout"; }

static int build_csr(hs_graph *g, hs_error *err)
{
	int64_t n = g->n_nodes, e = g->n_edges;
	g->operand_off = calloc((size_t)n + 1, sizeof(int64_t));
	g->user_off = calloc((size_t)n + 1, sizeof(int64_t));
	g->operand_idx = malloc((e ? (size_t)e : 1) * sizeof(int64_t));
	g->user_idx = malloc((e ? (size_t)e : 1) * sizeof(int64_t));
	if (!g->operand_off || !g->user_off || !g->operand_idx || !g->user_idx)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory building the edge lists", g->path);
	for (int64_t i = 0; i < e; i++) {
		g->operand_off[g->edges[i][0] + 1]++;
		g->user_off[g->edges[i][1] + 1]++;
	}
	for (int64_t v = 0; v < n; v++) {
		g->operand_off[v + 1] += g->operand_off[v];
		g->user_off[v + 1] += g->user_off[v];
	}
	int64_t *po = malloc(((size_t)n + 1) * sizeof(int64_t));
	int64_t *pu = malloc(((size_t)n + 1) * sizeof(int64_t));
	if (!po || !pu) {
		free(po);
		free(pu);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory building the edge lists", g->path);
	}
	memcpy(po, g->operand_off, ((size_t)n + 1) * sizeof(int64_t));
	memcpy(pu, g->user_off, ((size_t)n + 1) * sizeof(int64_t));
	for (int64_t i = 0; i < e; i++) {
		int64_t u = g->edges[i][0], v = g->edges[i][1];
		g->operand_idx[po[u]++] = v;
		g->user_idx[pu[v]++] = u;
	}
	free(po);
	free(pu);
	return 0;
}

/* ---- validators, one per array -------------------------------------------
 *
 * Shared by the .npz reader and graph_from_arrays, so that both refuse the
 * same things with the same words.  Each takes the array already converted
 * (int64 or float32, C order) with its shape; arrays named "owned" belong to
 * the graph from the call on, whatever it returns. */

typedef struct src {
	const char *path;
	const char *ext;       /* ".npy" for an archive member, "" in memory */
	int strict;            /* `check`: also the rules a reader can live without */
} src;

#define AT(s, name) (s)->path, name, (s)->ext

static int v_rank(const src *s, const char *name, int ndim, int want, hs_error *err)
{
	if (ndim != want)
		return hs_fail(err, HS_EDATA, "%s: %s%s: %d dimensions, expected %d", AT(s, name), ndim, want);
	return 0;
}

/* node_feat (owned). */
static int v_node_feat(hs_graph *g, const src *s, float *feat, int ndim, const int64_t *shape,
		       hs_error *err)
{
	g->node_feat = feat;
	if (v_rank(s, "node_feat", ndim, 2, err))
		return -1;
	g->n_nodes = shape[0];
	g->feat_width = (int)(shape[1] > 100000 ? 0 : shape[1]);
	if (shape[1] > 100000)
		return hs_fail(err, HS_EDATA, "%s: %s%s: width %lld is not plausible", AT(s, "node_feat"),
			       (long long)shape[1]);
	if (g->n_nodes > INT32_MAX)
		return hs_fail(err, HS_EDATA, "%s: %s%s: %lld nodes is more than supported", AT(s, "node_feat"),
			       (long long)g->n_nodes);
	return 0;
}

/* node_opcode (not owned): ids 0..255, one per node.  Strict (`check`): only
 * the ids of the opcode list (0..HLO_MAX_OPCODE).  A reader opens an unknown
 * id (shown as "opcode-N"): numpy reads the file, and a newer dataset may
 * number an opcode hloscope does not know yet. */
static int v_node_opcode(hs_graph *g, const src *s, const int64_t *ops, int ndim, const int64_t *shape,
			 hs_error *err)
{
	if (v_rank(s, "node_opcode", ndim, 1, err))
		return -1;
	if (shape[0] != g->n_nodes)
		return hs_fail(err, HS_EDATA, "%s: %s%s: %lld %s, node_feat has %lld node%s",
			       AT(s, "node_opcode"), (long long)shape[0], hs_plural(shape[0], "entry", "entries"),
			       (long long)g->n_nodes, hs_s(g->n_nodes));
	g->opcode = malloc(g->n_nodes ? (size_t)g->n_nodes : 1);
	if (!g->opcode)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	for (int64_t i = 0; i < g->n_nodes; i++) {
		if (ops[i] < 0 || ops[i] > 255)
			return hs_fail(err, HS_EDATA, "%s: %s%s: node %lld has opcode %lld, expected 0..255",
				       AT(s, "node_opcode"), (long long)i, (long long)ops[i]);
		if (s->strict && ops[i] > HLO_MAX_OPCODE)
			return hs_fail(err, HS_EDATA,
				       "%s: %s%s: node %lld has opcode %lld, not a known opcode id (0..%d)",
				       AT(s, "node_opcode"), (long long)i, (long long)ops[i], HLO_MAX_OPCODE);
		g->opcode[i] = (uint8_t)ops[i];
	}
	return 0;
}

/* edge_index (owned): (edges, 2), nodes in range; builds the CSR.  Strict
 * (`check`): no self-loop.  An HLO instruction cannot be its own operand, so
 * [u, u] is damage, but every reader copes with it (the drawing routes it as
 * a loop), so opening the file is left to the user. */
static int v_edge_index(hs_graph *g, const src *s, int64_t *edges, int ndim, const int64_t *shape,
			hs_error *err)
{
	g->edges = (int64_t(*)[2])edges;
	if (v_rank(s, "edge_index", ndim, 2, err))
		return -1;
	if (shape[1] != 2 && !(shape[0] == 0))
		return hs_fail(err, HS_EDATA, "%s: %s%s: shape (%lld, %lld), expected (edges, 2)",
			       AT(s, "edge_index"), (long long)shape[0], (long long)shape[1]);
	g->n_edges = shape[0];
	for (int64_t i = 0; i < g->n_edges; i++)
		for (int j = 0; j < 2; j++)
			if (g->edges[i][j] < 0 || g->edges[i][j] >= g->n_nodes)
				return hs_fail(err, HS_EDATA,
					       "%s: %s%s: edge %lld [%lld, %lld]: node %lld is out of range 0..%lld",
					       AT(s, "edge_index"), (long long)i, (long long)g->edges[i][0],
					       (long long)g->edges[i][1], (long long)g->edges[i][j],
					       (long long)g->n_nodes - 1);
	for (int64_t i = 0; s->strict && i < g->n_edges; i++)
		if (g->edges[i][0] == g->edges[i][1])
			return hs_fail(err, HS_EDATA,
				       "%s: %s%s: edge %lld [%lld, %lld] is a self-loop: a node cannot be its own operand",
				       AT(s, "edge_index"), (long long)i, (long long)g->edges[i][0],
				       (long long)g->edges[i][1]);
	return build_csr(g, err);
}

/* node_splits (not owned; NULL when absent: one segment): shape (1, k) or
 * (k), increasing, ending with the node count. */
static int v_node_splits(hs_graph *g, const src *s, const int64_t *sp, int ndim, const int64_t *shape,
			 int64_t k, hs_error *err)
{
	if (sp && (ndim > 2 || (ndim == 2 && shape[0] != 1)))
		return hs_fail(err, HS_EDATA, "%s: %s%s: expected shape (1, k)", AT(s, "node_splits"));
	if (!sp)
		k = 0;
	int lead0 = k > 0 && sp[0] == 0;
	g->n_comps = sp ? (lead0 ? k - 1 : k) : 1;
	g->comp_start = malloc(((size_t)g->n_comps + 1) * sizeof(int64_t));
	g->comp_of = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof(int32_t));
	if (!g->comp_start || !g->comp_of)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	g->comp_start[0] = 0;
	if (!sp)
		g->comp_start[1] = g->n_nodes;
	for (int64_t i = lead0; sp && i < k; i++)
		g->comp_start[i - lead0 + 1] = sp[i];
	for (int64_t c = 0; c < g->n_comps; c++)
		if (g->comp_start[c + 1] <= g->comp_start[c])
			return hs_fail(err, HS_EDATA, "%s: %s%s: entry %lld (%lld) does not increase after %lld",
				       AT(s, "node_splits"), (long long)(c + lead0), (long long)g->comp_start[c + 1],
				       (long long)g->comp_start[c]);
	if (g->n_comps == 0 || g->comp_start[g->n_comps] != g->n_nodes)
		return hs_fail(err, HS_EDATA, "%s: %s%s: must end with the node count %lld, ends with %lld",
			       AT(s, "node_splits"), (long long)g->n_nodes,
			       g->n_comps ? (long long)g->comp_start[g->n_comps] : 0LL);
	for (int64_t c = 0; c < g->n_comps; c++)
		for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
			g->comp_of[v] = (int32_t)c;
	return 0;
}

/* config_runtime (owned): >= 0; labeled when any is not 0. */
static int v_config_runtime(hs_graph *g, const src *s, int64_t *rt, int ndim, const int64_t *shape,
			    hs_error *err)
{
	g->runtime_raw = rt;
	if (v_rank(s, "config_runtime", ndim, 1, err))
		return -1;
	g->n_configs = shape[0];
	g->runtime = malloc((g->n_configs ? (size_t)g->n_configs : 1) * sizeof(double));
	if (!g->runtime)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	for (int64_t c = 0; c < g->n_configs; c++) {
		if (rt[c] < 0)
			return hs_fail(err, HS_EDATA, "%s: %s%s: config %lld has a negative runtime",
				       AT(s, "config_runtime"), (long long)c);
		if (rt[c] != 0)
			g->labeled = 1;
		g->runtime[c] = (double)rt[c];
	}
	return 0;
}

/* config_runtime has fewer entries than `name` has configs (`what`): damage
 * truncates, so the shorter array is the one to blame. */
static int short_runtime(hs_graph *g, const src *s, const char *name, int64_t configs, hs_error *err)
{
	return hs_fail(err, HS_EDATA, "%s: %s%s: %lld %s, %s has %lld config%s", AT(s, "config_runtime"),
		       (long long)g->n_configs, hs_plural(g->n_configs, "entry", "entries"), name,
		       (long long)configs, hs_s(configs));
}

/* config_runtime_normalizers (owned, tile): > 0, one per config. */
static int v_normalizers(hs_graph *g, const src *s, int64_t *norm, int ndim, const int64_t *shape,
			 hs_error *err)
{
	g->normalizer = norm;
	if (v_rank(s, "config_runtime_normalizers", ndim, 1, err))
		return -1;
	if (shape[0] > g->n_configs)
		return short_runtime(g, s, "config_runtime_normalizers", shape[0], err);
	if (shape[0] != g->n_configs)
		return hs_fail(err, HS_EDATA, "%s: %s%s: %lld %s, config_runtime has %lld",
			       AT(s, "config_runtime_normalizers"), (long long)shape[0],
			       hs_plural(shape[0], "entry", "entries"), (long long)g->n_configs);
	for (int64_t c = 0; c < g->n_configs; c++) {
		if (norm[c] <= 0)
			return hs_fail(err, HS_EDATA, "%s: %s%s: config %lld has normalizer %lld, expected > 0",
				       AT(s, "config_runtime_normalizers"), (long long)c, (long long)norm[c]);
		g->runtime[c] = (double)g->runtime_raw[c] / (double)norm[c];
	}
	return 0;
}

/* config_feat (owned, tile): one row per config. */
static int v_config_feat(hs_graph *g, const src *s, float *cf, int ndim, const int64_t *shape,
			 hs_error *err)
{
	g->config_feat = cf;
	if (v_rank(s, "config_feat", ndim, 2, err))
		return -1;
	if (shape[0] > g->n_configs)
		return short_runtime(g, s, "config_feat", shape[0], err);
	if (shape[0] != g->n_configs)
		return hs_fail(err, HS_EDATA, "%s: %s%s: %lld row%s, config_runtime has %lld", AT(s, "config_feat"),
			       (long long)shape[0], hs_s(shape[0]), (long long)g->n_configs);

	g->config_width = (int)shape[1];
	return 0;
}

/* node_config_ids (owned, layout): nodes in range, each listed once. */
static int v_node_config_ids(hs_graph *g, const src *s, int64_t *ids, int ndim, const int64_t *shape,
			     hs_error *err)
{
	g->cfg_node_ids = ids;
	if (v_rank(s, "node_config_ids", ndim, 1, err))
		return -1;
	g->n_cfg_nodes = shape[0];
	g->cfg_index = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof(int32_t));
	if (!g->cfg_index)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	for (int64_t v = 0; v < g->n_nodes; v++)
		g->cfg_index[v] = -1;
	for (int64_t k = 0; k < g->n_cfg_nodes; k++) {
		int64_t id = ids[k];
		if (id < 0 || id >= g->n_nodes)
			return hs_fail(err, HS_EDATA, "%s: %s%s: entry %lld is node %lld, out of range 0..%lld",
				       AT(s, "node_config_ids"), (long long)k, (long long)id,
				       (long long)g->n_nodes - 1);
		if (g->cfg_index[id] >= 0)
			return hs_fail(err, HS_EDATA, "%s: %s%s: node %lld is listed twice (entries %d and %lld)",
				       AT(s, "node_config_ids"), (long long)id, g->cfg_index[id], (long long)k);
		g->cfg_index[id] = (int32_t)k;
	}
	return 0;
}

/* node_config_feat's header (layout): (configs, configurable nodes, width). */
static int v_node_config_feat(hs_graph *g, const src *s, npy_dtype dtype, int ndim, const int64_t *shape,
			      hs_error *err)
{
	if (ndim == 3 && shape[0] > g->n_configs && shape[1] == g->n_cfg_nodes)
		return short_runtime(g, s, "node_config_feat", shape[0], err);
	if (ndim != 3 || shape[0] != g->n_configs || shape[1] != g->n_cfg_nodes)
		return hs_fail(err, HS_EDATA,
			       "%s: %s%s: shape %s, expected (%lld, %lld, width) for %lld config%s x %lld "
			       "configurable node%s",
			       AT(s, "node_config_feat"), ndim == 3 ? "mismatch" : "of the wrong rank",
			       (long long)g->n_configs, (long long)g->n_cfg_nodes, (long long)g->n_configs,
			       hs_s(g->n_configs), (long long)g->n_cfg_nodes, hs_s(g->n_cfg_nodes));
	if (shape[2] > 4096)
		return hs_fail(err, HS_EDATA, "%s: %s%s: width %lld is not plausible", AT(s, "node_config_feat"),
			       (long long)shape[2]);
	if (npy_dtype_is_float(dtype) == 0 && dtype != NPY_I1 && dtype != NPY_I2 && dtype != NPY_I4 &&
	    dtype != NPY_I8)
		return hs_fail(err, HS_EDATA, "%s: %s%s: dtype %s, expected float or signed int",
			       AT(s, "node_config_feat"), npy_dtype_name(dtype));
	g->ncf_width = (int)shape[2];
	return 0;
}

/* ---- reading an .npz --------------------------------------------------- */

int64_t *graph_read_i64(npz *a, const char *name, npy_header *h, hs_error *err)
{
	npz_array arr;
	if (npz_read(a, name, &arr, err))
		return NULL;
	*h = arr.h;
	if (npy_dtype_is_float(arr.h.dtype)) {
		npz_array_free(&arr);
		hs_fail(err, HS_EDATA, "%s: %s.npy: dtype %s, expected an integer array", a->path, name,
			npy_dtype_name(arr.h.dtype));
		return NULL;
	}
	if (arr.h.dtype == NPY_I8)
		return arr.data;
	int64_t *out = malloc(arr.h.count ? (size_t)arr.h.count * 8 : 8);
	if (!out) {
		npz_array_free(&arr);
		hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory", a->path, name);
		return NULL;
	}
	for (uint64_t i = 0; i < arr.h.count; i++) {
		if (arr.h.dtype == NPY_U8 && ((const uint64_t *)arr.data)[i] > INT64_MAX) {
			free(out);
			npz_array_free(&arr);
			hs_fail(err, HS_EDATA, "%s: %s.npy: element %llu does not fit in int64", a->path,
				name, (unsigned long long)i);
			return NULL;
		}
		out[i] = npy_get_i64(arr.h.dtype, arr.data, i);
	}
	npz_array_free(&arr);
	return out;
}

static float *read_f32(npz *a, const char *name, npy_header *h, hs_error *err)
{
	npz_array arr;
	if (npz_read(a, name, &arr, err))
		return NULL;
	*h = arr.h;
	if (arr.h.dtype == NPY_F4)
		return arr.data;
	float *out = malloc(arr.h.count ? (size_t)arr.h.count * 4 : 4);
	if (!out) {
		npz_array_free(&arr);
		hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory", a->path, name);
		return NULL;
	}
	for (uint64_t i = 0; i < arr.h.count; i++)
		out[i] = (float)npy_get_f64(arr.h.dtype, arr.data, i);
	npz_array_free(&arr);
	return out;
}

static int require(npz *a, const char *name, hs_error *err)
{
	if (!npz_has(a, name))
		return hs_fail(err, HS_EDATA, "%s: missing array '%s'", a->path, name);
	return 0;
}

static int load_nodes_edges(hs_graph *g, npz *a, const src *s, hs_error *err)
{
	npy_header h;
	float *feat = read_f32(a, "node_feat", &h, err);
	if (!feat || v_node_feat(g, s, feat, h.ndim, h.shape, err))
		return -1;
	int64_t *ops = graph_read_i64(a, "node_opcode", &h, err);
	if (!ops)
		return -1;
	int rc = v_node_opcode(g, s, ops, h.ndim, h.shape, err);
	free(ops);
	if (rc)
		return -1;
	int64_t *edges = graph_read_i64(a, "edge_index", &h, err);
	if (!edges || v_edge_index(g, s, edges, h.ndim, h.shape, err))
		return -1;
	if (!npz_has(a, "node_splits"))
		return v_node_splits(g, s, NULL, 0, NULL, 0, err);
	int64_t *sp = graph_read_i64(a, "node_splits", &h, err);
	if (!sp)
		return -1;
	rc = v_node_splits(g, s, sp, h.ndim, h.shape, (int64_t)h.count, err);
	free(sp);
	return rc;
}

static int load_configs(hs_graph *g, npz *a, const src *s, hs_error *err)
{
	npy_header h;
	int64_t *rt = graph_read_i64(a, "config_runtime", &h, err);
	if (!rt || v_config_runtime(g, s, rt, h.ndim, h.shape, err))
		return -1;
	if (g->kind == HS_KIND_TILE) {
		if (require(a, "config_runtime_normalizers", err))
			return -1;
		int64_t *norm = graph_read_i64(a, "config_runtime_normalizers", &h, err);
		if (!norm || v_normalizers(g, s, norm, h.ndim, h.shape, err))
			return -1;
		float *cf = read_f32(a, "config_feat", &h, err);
		return !cf || v_config_feat(g, s, cf, h.ndim, h.shape, err) ? -1 : 0;
	}
	if (require(a, "node_config_ids", err) || require(a, "node_config_feat", err))
		return -1;
	int64_t *ids = graph_read_i64(a, "node_config_ids", &h, err);
	if (!ids || v_node_config_ids(g, s, ids, h.ndim, h.shape, err))
		return -1;
	if (npz_header(a, "node_config_feat", &h, err))
		return -1;
	return v_node_config_feat(g, s, h.dtype, h.ndim, h.shape, err);
}

static int load(hs_graph *g, npz *a, int strict, hs_error *err)
{
	src s = {a->path, ".npy", strict};
	if (npz_has(a, "node_config_feat") || npz_has(a, "node_config_ids"))
		g->kind = HS_KIND_LAYOUT;
	else if (npz_has(a, "config_feat"))
		g->kind = HS_KIND_TILE;
	else
		return hs_fail(err, HS_EDATA,
			       "%s: neither a tile sample (no config_feat) nor a layout sample (no node_config_feat)",
			       a->path);
	if (require(a, "node_feat", err) || require(a, "node_opcode", err) ||
	    require(a, "edge_index", err) || require(a, "config_runtime", err))
		return -1;
	return load_nodes_edges(g, a, &s, err) || load_configs(g, a, &s, err) ? -1 : 0;
}

hs_graph *graph_new(const char *path, const char *name, hs_error *err)
{
	hs_graph *g = calloc(1, sizeof *g);
	if (!g) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening the graph", path);
		return NULL;
	}
	g->path = strdup(path);
	g->name = name ? strdup(name) : hs_path_stem(path);
	if (!g->path || !g->name) {
		graph_free(g);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening the graph", path);
		return NULL;
	}
	return g;
}

/* What a reader opens but `check` refuses (see v_node_opcode, v_edge_index),
 * said in g->warning: the first unknown opcode id and the first self-loop. */
static int note_tolerated(hs_graph *g, hs_error *err)
{
	char op[160] = "", loop[160] = "";
	for (int64_t v = 0; v < g->n_nodes && !op[0]; v++)
		if (g->opcode[v] > HLO_MAX_OPCODE)
			snprintf(op, sizeof op, "node_opcode: node %lld has opcode %d, not a known opcode id (0..%d)",
				 (long long)v, g->opcode[v], HLO_MAX_OPCODE);
	for (int64_t i = 0; i < g->n_edges && !loop[0]; i++)
		if (g->edges[i][0] == g->edges[i][1])
			snprintf(loop, sizeof loop, "edge_index: edge %lld [%lld, %lld] is a self-loop", (long long)i,
				 (long long)g->edges[i][0], (long long)g->edges[i][1]);
	if (!op[0] && !loop[0])
		return 0;
	if (asprintf(&g->warning, "%s%s%s (hloscope check reports it as damage)", op, op[0] && loop[0] ? "; " : "",
		     loop) < 0) {
		g->warning = NULL;
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", g->path);
	}
	return 0;
}

/* strict: `check`'s rules too (see src). */
static hs_graph *open_npz(const char *path, int strict, hs_error *err)
{
	hs_graph *g = graph_new(path, NULL, err);
	if (!g)
		return NULL;
	npz *a = npz_open(path, err);
	if (!a) {
		graph_free(g);
		return NULL;
	}
	int rc = load(g, a, strict, err);
	npz_close(a);
	if (rc || (!strict && note_tolerated(g, err)) || graph_derive_hlo(g, err)) {
		graph_free(g);
		return NULL;
	}
	return g;
}

hs_graph *graph_open_npz(const char *path, hs_error *err)
{
	return open_npz(path, 0, err);
}

void graph_free(hs_graph *g)
{
	if (!g)
		return;
	free(g->path);
	free(g->name);
	free(g->opcode);
	free(g->node_feat);
	free(g->edges);
	free(g->operand_off);
	free(g->operand_idx);
	free(g->user_off);
	free(g->user_idx);
	free(g->comp_start);
	free(g->comp_of);
	free(g->runtime_raw);
	free(g->normalizer);
	free(g->runtime);
	free(g->config_feat);
	free(g->cfg_node_ids);
	free(g->cfg_index);
	free(g->ncf_i8);
	free(g->ncf_f32);
	graph_free_hlo(g);
	free(g->warning);
	free(g);
}

/* ---- node_config_feat, streamed into a compact buffer ---- */

struct ncf_ctx {
	hs_graph *g;
	uint64_t total;
	int8_t *i8;
	float *f32;
	const char *path;
};

static int ncf_chunk(void *vctx, const npy_header *h, const void *elems, uint64_t first,
		     uint64_t count, hs_error *err)
{
	struct ncf_ctx *c = vctx;
	if (c->i8 && h->dtype == NPY_F4 && !h->fortran_order) {
		/* The common case: small integral floats, C order. */
		const float *f = elems;
		uint64_t i = 0;
		for (; i < count; i++) {
			float v = f[i];
			if (!(v >= -128.0f && v <= 127.0f) || v != (float)(int8_t)v)
				break;
			c->i8[first + i] = (int8_t)v;
		}
		if (i == count)
			return 0;
		elems = f + i;
		first += i;
		count -= i;
	}
	for (uint64_t i = 0; i < count; i++) {
		double v = npy_get_f64(h->dtype, elems, i);
		uint64_t at = h->fortran_order ? 0 : first + i;
		if (h->fortran_order) {
			/* Map the file (Fortran) index to the C index. */
			uint64_t f = first + i, cidx = 0, mul = 1;
			uint64_t idx[3];
			for (int k = 0; k < 3; k++) {
				idx[k] = f % (uint64_t)h->shape[k];
				f /= (uint64_t)h->shape[k];
			}
			for (int k = 2; k >= 0; k--) {
				cidx += idx[k] * mul;
				mul *= (uint64_t)h->shape[k];
			}
			at = cidx;
		}
		if (!isfinite(v))
			return hs_fail(err, HS_EDATA, "%s: node_config_feat.npy: element %llu is not finite",
				       c->path, (unsigned long long)at);
		if (c->i8) {
			if (v == (double)(int8_t)v && v >= -128 && v <= 127) {
				c->i8[at] = (int8_t)v;
				continue;
			}
			/* Switch to floats, converting what was read so far. */
			c->f32 = malloc((size_t)c->total * sizeof(float));
			if (!c->f32)
				return hs_fail(err, HS_ENOMEM, "%s: node_config_feat.npy: out of memory",
					       c->path);
			for (uint64_t j = 0; j < c->total; j++)
				c->f32[j] = c->i8[j];
			free(c->i8);
			c->i8 = NULL;
		}
		c->f32[at] = (float)v;
	}
	return 0;
}

int graph_load_node_configs(hs_graph *g, hs_error *err)
{
	if (g->kind != HS_KIND_LAYOUT || g->ncf_loaded)
		return 0;
	npz *a = npz_open(g->path, err);
	if (!a)
		return -1;
	struct ncf_ctx c = {g, (uint64_t)g->n_configs * (uint64_t)g->n_cfg_nodes * (uint64_t)g->ncf_width,
			    NULL, NULL, g->path};
	c.i8 = calloc(c.total ? (size_t)c.total : 1, 1);
	if (!c.i8) {
		npz_close(a);
		return hs_fail(err, HS_ENOMEM, "%s: node_config_feat.npy: out of memory for %llu values",
			       g->path, (unsigned long long)c.total);
	}
	int rc = npz_stream(a, "node_config_feat", ncf_chunk, &c, err);
	npz_close(a);
	if (rc) {
		free(c.i8);
		free(c.f32);
		return -1;
	}
	g->ncf_i8 = c.i8;
	g->ncf_f32 = c.f32;
	g->ncf_loaded = 1;
	return 0;
}

/* ---- arrays built in memory ---------------------------------------------- */

/* Moves an int64 array out of the arrays struct (an empty one when it has
 * none, as with HF_NO_CONFIGS). */
static int64_t *take_i64(int64_t **p)
{
	int64_t *v = *p ? *p : calloc(1, sizeof *v);
	*p = NULL;
	return v;
}

/* lazy: the arrays come without node features, which graph_need_features
 * computes from the module the caller attaches. */
static int from_arrays(hs_graph *g, hf_arrays *a, const src *s, int lazy, hs_error *err)
{
	int64_t sh[3];
	if ((!a->node_feat && !lazy) || !a->node_opcode || !a->edge_index)
		return hs_fail(err, HS_EUSAGE, "%s: arrays without node features", s->path);
	g->kind = a->kind;
	float *feat = a->node_feat;
	int64_t(*edges)[2] = a->edge_index;
	a->node_feat = NULL;
	a->edge_index = NULL;
	sh[0] = a->n_nodes, sh[1] = HLO_NODE_FEATURES;
	if (v_node_feat(g, s, feat, 2, sh, err)) {   /* feat may be NULL (lazy) */
		free(edges);
		return -1;
	}
	int64_t *ops = malloc((a->n_nodes ? (size_t)a->n_nodes : 1) * sizeof *ops);
	if (!ops) {
		free(edges);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	}
	for (int64_t v = 0; v < a->n_nodes; v++)
		ops[v] = a->node_opcode[v];
	sh[0] = a->n_nodes;
	int rc = v_node_opcode(g, s, ops, 1, sh, err);
	free(ops);
	sh[0] = a->n_edges, sh[1] = 2;
	if (rc) {
		free(edges);
		return -1;
	}
	if (v_edge_index(g, s, &edges[0][0], 2, sh, err))
		return -1;
	sh[0] = 1, sh[1] = a->n_splits;
	if (v_node_splits(g, s, a->node_splits, 2, sh, a->n_splits, err))
		return -1;
	int64_t nc = a->n_configs;
	int64_t *rt = take_i64(&a->config_runtime);
	if (!rt || v_config_runtime(g, s, rt, 1, &nc, err))
		return rt ? -1 : hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	if (g->kind == HS_KIND_TILE) {
		int64_t *norm = take_i64(&a->config_runtime_normalizers);
		float *cf = a->config_feat ? a->config_feat : calloc(1, sizeof *cf);
		a->config_feat = NULL;
		sh[0] = nc, sh[1] = HLO_TILE_CONFIG_FEATURES;
		if (!norm || !cf) {
			free(norm);
			free(cf);
			return hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
		}
		if (v_normalizers(g, s, norm, 1, &nc, err)) {
			free(cf);
			return -1;
		}
		return v_config_feat(g, s, cf, 2, sh, err);
	}
	int64_t nk = a->n_cfg_nodes;
	int64_t *ids = take_i64(&a->node_config_ids);
	if (!ids || v_node_config_ids(g, s, ids, 1, &nk, err))
		return ids ? -1 : hs_fail(err, HS_ENOMEM, "%s: out of memory", s->path);
	sh[0] = nc, sh[1] = nk, sh[2] = HLO_LAYOUT_CONFIG_FEATURES;
	if (v_node_config_feat(g, s, NPY_F4, 3, sh, err))
		return -1;
	/* Kept compactly, through the same code as a streamed archive member. */
	npy_header h = {.dtype = NPY_F4, .ndim = 3, .shape = {nc, nk, HLO_LAYOUT_CONFIG_FEATURES}};
	struct ncf_ctx c = {g, (uint64_t)nc * (uint64_t)nk * HLO_LAYOUT_CONFIG_FEATURES, NULL, NULL, s->path};
	h.count = c.total;
	if (!(c.i8 = calloc(c.total ? (size_t)c.total : 1, 1)))
		return hs_fail(err, HS_ENOMEM, "%s: node_config_feat: out of memory", s->path);
	if (c.total && ncf_chunk(&c, &h, a->node_config_feat, 0, c.total, err)) {
		free(c.i8);
		free(c.f32);
		return -1;
	}
	g->ncf_i8 = c.i8;
	g->ncf_f32 = c.f32;
	g->ncf_loaded = 1;
	return 0;
}

hs_graph *graph_from_arrays(hf_arrays *a, const char *path, const char *name, hs_error *err)
{
	hs_graph *g = graph_new(path, name, err);
	if (!g)
		return NULL;
	src s = {path, "", 0};
	if (from_arrays(g, a, &s, 0, err) || graph_derive_hlo(g, err)) {
		graph_free(g);
		return NULL;
	}
	return g;
}

hs_graph *graph_from_module(hf_arrays *a, const char *path, const char *name, hs_error *err)
{
	hs_graph *g = graph_new(path, name, err);
	if (!g)
		return NULL;
	src s = {path, "", 0};
	if (from_arrays(g, a, &s, 1, err)) {
		graph_free(g);
		return NULL;
	}
	return g;
}

int64_t graph_best_config(const hs_graph *g)
{
	if (!g->labeled || g->n_configs == 0)
		return -1;
	int64_t best = 0;
	for (int64_t c = 1; c < g->n_configs; c++)
		if (g->runtime[c] < g->runtime[best])
			best = c;
	return best;
}

uint64_t graph_digest(const hs_graph *g)
{
	uint64_t h = hs_fnv1a_bytes(&g->kind, sizeof g->kind, HS_FNV_BASIS);
	const struct {
		const void *p;
		size_t n;
	} part[] = {
		{&g->n_nodes, sizeof g->n_nodes}, {g->opcode, (size_t)g->n_nodes},
		{g->edges, (size_t)g->n_edges * sizeof *g->edges}, {&g->n_configs, sizeof g->n_configs},
		{g->runtime_raw, (size_t)g->n_configs * sizeof *g->runtime_raw},
		{g->cfg_node_ids, (size_t)g->n_cfg_nodes * sizeof *g->cfg_node_ids},
		{g->config_feat, (size_t)g->n_configs * (size_t)g->config_width * sizeof *g->config_feat},
	};

	for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
		if (part[i].p)
			h = hs_fnv1a_bytes(part[i].p, part[i].n, h);
	return h;
}

int64_t graph_default_config(hs_graph *g, hs_error *err)
{
	if (g->kind != HS_KIND_LAYOUT)
		return -1;
	if (graph_load_node_configs(g, err))
		return -2;
	for (int64_t c = 0; c < g->n_configs; c++) {
		int all = 1;
		for (int64_t k = 0; k < g->n_cfg_nodes && all; k++)
			for (int j = 0; j < g->ncf_width; j++)
				if (graph_ncf(g, c, k, j) != -1) {
					all = 0;
					break;
				}
		if (all)
			return c;
	}
	return -1;
}

/* ---- full check ---- */

static int discard_chunk(void *ctx, const npy_header *h, const void *elems, uint64_t first,
			 uint64_t count, hs_error *err)
{
	return 0;
}

/* node_config_feat values must be finite; checked without keeping them.
 * The float cases test exponent bits directly: this loop runs over hundreds
 * of millions of values in `check`. */
static int finite_chunk(void *ctx, const npy_header *h, const void *elems, uint64_t first,
			uint64_t count, hs_error *err)
{
	uint64_t bad = count;
	if (h->dtype == NPY_F4) {
		const uint32_t *u = elems;
		uint32_t any = 0;
		for (uint64_t i = 0; i < count; i++)
			any |= ((u[i] & 0x7f800000u) == 0x7f800000u);
		if (any)
			for (bad = 0; bad < count; bad++)
				if ((u[bad] & 0x7f800000u) == 0x7f800000u)
					break;
	} else if (npy_dtype_is_float(h->dtype)) {
		for (bad = 0; bad < count; bad++)
			if (!isfinite(npy_get_f64(h->dtype, elems, bad)))
				break;
	}
	if (bad < count)
		return hs_fail(err, HS_EDATA,
			       "%s: node_config_feat.npy: element %llu (file order) is not finite",
			       (const char *)ctx, (unsigned long long)(first + bad));
	return 0;
}

int graph_check_file(const char *path, hs_error *err)
{
	graph_src how = graph_source_of(path);
	if ((how != GRAPH_SRC_NPZ && how != GRAPH_SRC_MISSING) || (how == GRAPH_SRC_MISSING && strchr(path, '#')))
		return graph_check_hlo(path, err);
	hs_graph *g = open_npz(path, 1, err);
	if (!g)
		return -1;
	npz *a = npz_open(path, err);
	if (!a) {
		graph_free(g);
		return -1;
	}
	int rc = 0;
	/* Every member decompresses and matches its CRC: graph_open read the
	 * small arrays whole (which checks them), so stream the others. */
	static const char *const read_by_open[] = {
		"node_feat", "node_opcode", "edge_index", "node_splits", "config_runtime",
		"config_runtime_normalizers", "config_feat", "node_config_ids"};
	for (size_t i = 0; i < a->n_arrays && !rc; i++) {
		int seen = 0;
		for (size_t j = 0; j < sizeof read_by_open / sizeof *read_by_open; j++)
			seen |= !strcmp(a->names[i], read_by_open[j]);
		if (seen)
			continue;
		int ncf = !strcmp(a->names[i], "node_config_feat");
		rc = npz_stream(a, a->names[i], ncf ? finite_chunk : discard_chunk, (void *)path, err);
	}
	npz_close(a);
	graph_free(g);
	return rc;
}
