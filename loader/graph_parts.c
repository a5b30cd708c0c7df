/* graph_parts.c - open a sample reading only the arrays a reader needs.
 *
 * The light path reads node_opcode and, when asked, the shapes of the other
 * arrays (their .npy headers), node_splits and the runtimes, and checks what
 * it reads as graph_open does.  Anything more (node features, edges, config
 * features) goes through graph_open, which reads and checks every array.
 */
#include "base/plural.h"
#include "graph_impl.h"
#include "graph.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "npz.h"

#define LIGHT_PARTS (GRAPH_PART_OPCODES | GRAPH_PART_SHAPES | GRAPH_PART_SPLITS | GRAPH_PART_RUNTIMES)

static int is_npz_name(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && strcasecmp(path + n - 4, ".npz") == 0;
}

/* An integer array of `ndim` dimensions (-1: any) as int64, C order. */
static int64_t *read_ints(npz *a, const char *name, int ndim, npy_header *h, hs_error *err)
{
	if (!npz_has(a, name)) {
		hs_fail(err, HS_EDATA, "%s: missing array '%s'", a->path, name);
		return NULL;
	}
	int64_t *out = graph_read_i64(a, name, h, err);
	if (out && ndim >= 0 && h->ndim != ndim) {
		free(out);
		hs_fail(err, HS_EDATA, "%s: %s.npy: %d dimension%s, expected %d", a->path, name, h->ndim,
			hs_s(h->ndim), ndim);
		return NULL;
	}
	return out;
}

/* node_opcode: one id 0..255 per node; gives the node count. */
static int read_opcodes(hs_graph *g, npz *a, hs_error *err)
{
	npz_array arr;

	if (!npz_has(a, "node_opcode"))
		return hs_fail(err, HS_EDATA, "%s: missing array '%s'", a->path, "node_opcode");
	if (npz_read(a, "node_opcode", &arr, err))
		return -1;
	if (arr.h.ndim != 1 || npy_dtype_is_float(arr.h.dtype)) {
		hs_fail(err, HS_EDATA, "%s: node_opcode.npy: %s of %d dimension(s), expected 1-d integers",
			a->path, npy_dtype_name(arr.h.dtype), arr.h.ndim);
		npz_array_free(&arr);
		return -1;
	}
	g->n_nodes = arr.h.shape[0];
	if (arr.h.dtype == NPY_U1) { /* as numpy writes it: the bytes are the ids */
		g->opcode = arr.data;
		return 0;
	}
	g->opcode = malloc(g->n_nodes ? (size_t)g->n_nodes : 1);
	if (!g->opcode) {
		npz_array_free(&arr);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", a->path);
	}
	for (int64_t i = 0; i < g->n_nodes; i++) {
		int64_t op = npy_get_i64(arr.h.dtype, arr.data, (uint64_t)i);
		if (op < 0 || op > 255) {
			npz_array_free(&arr);
			return hs_fail(err, HS_EDATA,
				       "%s: node_opcode.npy: node %lld has opcode %lld, expected 0..255",
				       a->path, (long long)i, (long long)op);
		}
		g->opcode[i] = (uint8_t)op;
	}
	npz_array_free(&arr);
	return 0;
}

static int header(npz *a, const char *name, int ndim, npy_header *h, hs_error *err)
{
	if (!npz_has(a, name))
		return hs_fail(err, HS_EDATA, "%s: missing array '%s'", a->path, name);
	if (npz_header(a, name, h, err))
		return -1;
	if (h->ndim != ndim)
		return hs_fail(err, HS_EDATA, "%s: %s.npy: %d dimensions, expected %d", a->path, name,
			       h->ndim, ndim);
	return 0;
}

/* The counts and widths of the arrays not read, from their headers. */
static int read_shapes(hs_graph *g, npz *a, hs_error *err)
{
	npy_header h;

	if (header(a, "node_feat", 2, &h, err))
		return -1;
	if (h.shape[0] != g->n_nodes)
		return hs_fail(err, HS_EDATA, "%s: node_opcode.npy: %lld %s, node_feat has %lld node%s",
			       a->path, (long long)g->n_nodes, hs_plural(g->n_nodes, "entry", "entries"),
			       (long long)h.shape[0], hs_s(h.shape[0]));
	g->feat_width = h.shape[1] > 100000 ? 0 : (int)h.shape[1];
	if (header(a, "edge_index", 2, &h, err))
		return -1;
	if (h.shape[1] != 2 && h.shape[0] != 0)
		return hs_fail(err, HS_EDATA, "%s: edge_index.npy: shape (%lld, %lld), expected (edges, 2)",
			       a->path, (long long)h.shape[0], (long long)h.shape[1]);
	g->n_edges = h.shape[0];
	if (!g->runtime_raw) { /* read whole already when the runtimes were asked for */
		if (header(a, "config_runtime", 1, &h, err))
			return -1;
		g->n_configs = h.shape[0];
	}
	if (g->kind == HS_KIND_TILE) {
		if (header(a, "config_feat", 2, &h, err))
			return -1;
		if (h.shape[0] > g->n_configs) /* truncation: the shorter array is blamed */
			return hs_fail(err, HS_EDATA, "%s: config_runtime.npy: %lld %s, config_feat has %lld config%s",
				       a->path, (long long)g->n_configs, hs_plural(g->n_configs, "entry", "entries"),
				       (long long)h.shape[0], hs_s(h.shape[0]));
		if (h.shape[0] != g->n_configs)
			return hs_fail(err, HS_EDATA, "%s: config_feat.npy: %lld row%s, config_runtime has %lld",
				       a->path, (long long)h.shape[0], hs_s(h.shape[0]), (long long)g->n_configs);
		g->config_width = h.shape[1] > 100000 ? 0 : (int)h.shape[1];
		return 0;
	}
	if (header(a, "node_config_ids", 1, &h, err))
		return -1;
	g->n_cfg_nodes = h.shape[0];
	if (header(a, "node_config_feat", 3, &h, err))
		return -1;
	if (h.shape[0] > g->n_configs && h.shape[1] == g->n_cfg_nodes)
		return hs_fail(err, HS_EDATA, "%s: config_runtime.npy: %lld %s, node_config_feat has %lld config%s",
			       a->path, (long long)g->n_configs, hs_plural(g->n_configs, "entry", "entries"),
			       (long long)h.shape[0], hs_s(h.shape[0]));
	if (h.shape[0] != g->n_configs || h.shape[1] != g->n_cfg_nodes)
		return hs_fail(err, HS_EDATA,
			       "%s: node_config_feat.npy: shape (%lld, %lld, %lld), expected (%lld, %lld, width)",
			       a->path, (long long)h.shape[0], (long long)h.shape[1], (long long)h.shape[2],
			       (long long)g->n_configs, (long long)g->n_cfg_nodes);
	g->ncf_width = h.shape[2] > 4096 ? 0 : (int)h.shape[2];
	return 0;
}

/* node_splits: increasing segment ends, the last one the node count. */
static int read_splits(hs_graph *g, npz *a, hs_error *err)
{
	npy_header h;
	int64_t *sp = NULL, k = 0;

	if (npz_has(a, "node_splits")) {
		if (!(sp = read_ints(a, "node_splits", -1, &h, err)))
			return -1;
		k = (int64_t)h.count;
		if (h.ndim > 2 || (h.ndim == 2 && h.shape[0] != 1)) {
			free(sp);
			return hs_fail(err, HS_EDATA, "%s: node_splits.npy: expected shape (1, k)", a->path);
		}
	}
	int lead0 = k > 0 && sp[0] == 0;
	g->n_comps = sp ? (lead0 ? k - 1 : k) : 1;
	g->comp_start = malloc(((size_t)g->n_comps + 1) * sizeof *g->comp_start);
	g->comp_of = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof *g->comp_of);
	if (!g->comp_start || !g->comp_of) {
		free(sp);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", a->path);
	}
	g->comp_start[0] = 0;
	if (!sp)
		g->comp_start[1] = g->n_nodes;
	for (int64_t i = lead0; i < k; i++)
		g->comp_start[i - lead0 + 1] = sp[i];
	free(sp);
	for (int64_t c = 0; c < g->n_comps; c++)
		if (g->comp_start[c + 1] <= g->comp_start[c])
			return hs_fail(err, HS_EDATA,
				       "%s: node_splits.npy: entry %lld (%lld) does not increase after %lld",
				       a->path, (long long)(c + lead0), (long long)g->comp_start[c + 1],
				       (long long)g->comp_start[c]);
	if (g->n_comps == 0 || g->comp_start[g->n_comps] != g->n_nodes)
		return hs_fail(err, HS_EDATA, "%s: node_splits.npy: must end with the node count %lld, ends with %lld",
			       a->path, (long long)g->n_nodes,
			       g->n_comps ? (long long)g->comp_start[g->n_comps] : 0LL);
	for (int64_t c = 0; c < g->n_comps; c++)
		for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
			g->comp_of[v] = (int32_t)c;
	return 0;
}

/* config_runtime (>= 0) and, for tile samples, the normalizers (> 0). */
static int read_runtimes(hs_graph *g, npz *a, hs_error *err)
{
	npy_header h;

	if (!(g->runtime_raw = read_ints(a, "config_runtime", 1, &h, err)))
		return -1;
	g->n_configs = h.shape[0];
	g->runtime = malloc((g->n_configs ? (size_t)g->n_configs : 1) * sizeof *g->runtime);
	if (!g->runtime)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", a->path);
	for (int64_t c = 0; c < g->n_configs; c++) {
		if (g->runtime_raw[c] < 0)
			return hs_fail(err, HS_EDATA, "%s: config_runtime.npy: config %lld has a negative runtime",
				       a->path, (long long)c);
		g->labeled |= g->runtime_raw[c] != 0;
		g->runtime[c] = (double)g->runtime_raw[c];
	}
	if (g->kind != HS_KIND_TILE)
		return 0;
	if (!(g->normalizer = read_ints(a, "config_runtime_normalizers", 1, &h, err)))
		return -1;
	if (h.shape[0] != g->n_configs)
		return hs_fail(err, HS_EDATA,
			       "%s: config_runtime_normalizers.npy: %lld %s, config_runtime has %lld",
			       a->path, (long long)h.shape[0], hs_plural(h.shape[0], "entry", "entries"),
			       (long long)g->n_configs);

	for (int64_t c = 0; c < g->n_configs; c++) {
		if (g->normalizer[c] <= 0)
			return hs_fail(err, HS_EDATA,
				       "%s: config_runtime_normalizers.npy: config %lld has normalizer %lld, expected > 0",
				       a->path, (long long)c, (long long)g->normalizer[c]);
		g->runtime[c] = (double)g->runtime_raw[c] / (double)g->normalizer[c];
	}
	return 0;
}

static int load_light(hs_graph *g, npz *a, unsigned parts, hs_error *err)
{
	if (npz_has(a, "node_config_feat") || npz_has(a, "node_config_ids"))
		g->kind = HS_KIND_LAYOUT;
	else if (npz_has(a, "config_feat"))
		g->kind = HS_KIND_TILE;
	else
		return hs_fail(err, HS_EDATA,
			       "%s: neither a tile sample (no config_feat) nor a layout sample (no node_config_feat)",
			       a->path);
	if (read_opcodes(g, a, err))
		return -1;
	if ((parts & GRAPH_PART_RUNTIMES) && read_runtimes(g, a, err))
		return -1;
	if ((parts & GRAPH_PART_SHAPES) && read_shapes(g, a, err))
		return -1;
	if ((parts & GRAPH_PART_SPLITS) && read_splits(g, a, err))
		return -1;
	return 0;
}

hs_graph *graph_open_parts(const char *path, unsigned parts, hs_error *err)
{
	if ((parts & ~LIGHT_PARTS) || !is_npz_name(path)) {
		hs_graph *g = graph_open(path, err);
		if (g && (parts & GRAPH_PART_NODE_CONFIGS) && graph_load_node_configs(g, err)) {
			graph_free(g);
			return NULL;
		}
		return g;
	}
	hs_graph *g = graph_new(path, NULL, err);
	if (!g)
		return NULL;
	npz *a = npz_open(path, err);
	if (!a) {
		graph_free(g);
		return NULL;
	}
	int rc = load_light(g, a, parts, err);
	npz_close(a);
	if (rc) {
		graph_free(g);
		return NULL;
	}
	return g;
}
