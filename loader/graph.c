/* graph.c - open, validate and index one TpuGraphs sample. */
#include "graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "npz.h"

const char *graph_kind_name(hs_kind k) { return k == HS_KIND_TILE ? "tile" : "layout"; }

/* Reads an integer array of the expected rank as int64 (C order). */
static int64_t *read_i64(npz *a, const char *name, int ndim, npy_header *h, hs_error *err)
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
	if (ndim >= 0 && arr.h.ndim != ndim) {
		npz_array_free(&arr);
		hs_fail(err, HS_EDATA, "%s: %s.npy: %d dimensions, expected %d", a->path, name,
			arr.h.ndim, ndim);
		return NULL;
	}
	if (arr.h.dtype == NPY_I8)
		return arr.data;
	int64_t *out = malloc(arr.h.count ? (size_t)arr.h.count * 8 : 8);
	if (!out) {
		npz_array_free(&arr);
		hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory reading its values", a->path, name);
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

static float *read_f32(npz *a, const char *name, int ndim, npy_header *h, hs_error *err)
{
	npz_array arr;
	if (npz_read(a, name, &arr, err))
		return NULL;
	*h = arr.h;
	if (arr.h.ndim != ndim) {
		npz_array_free(&arr);
		hs_fail(err, HS_EDATA, "%s: %s.npy: %d dimensions, expected %d", a->path, name,
			arr.h.ndim, ndim);
		return NULL;
	}
	if (arr.h.dtype == NPY_F4)
		return arr.data;
	float *out = malloc(arr.h.count ? (size_t)arr.h.count * 4 : 4);
	if (!out) {
		npz_array_free(&arr);
		hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory reading its values", a->path, name);
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

static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".npz") == 0)
		n -= 4;
	return strndup(b, n);
}

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

static int load(hs_graph *g, npz *a, hs_error *err)
{
	npy_header h;

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

	/* Nodes. */
	if (!(g->node_feat = read_f32(a, "node_feat", 2, &h, err)))
		return -1;
	g->n_nodes = h.shape[0];
	g->feat_width = (int)h.shape[1];
	if (h.shape[1] > 100000)
		return hs_fail(err, HS_EDATA, "%s: node_feat.npy: width %lld is not plausible", a->path,
			       (long long)h.shape[1]);
	if (g->n_nodes > INT32_MAX)
		return hs_fail(err, HS_EDATA, "%s: node_feat.npy: %lld nodes is more than supported",
			       a->path, (long long)g->n_nodes);
	int64_t *ops = read_i64(a, "node_opcode", 1, &h, err);
	if (!ops)
		return -1;
	if (h.shape[0] != g->n_nodes) {
		free(ops);
		return hs_fail(err, HS_EDATA, "%s: node_opcode.npy: %lld entries, node_feat has %lld nodes",
			       a->path, (long long)h.shape[0], (long long)g->n_nodes);
	}
	g->opcode = malloc(g->n_nodes ? (size_t)g->n_nodes : 1);
	if (!g->opcode) {
		free(ops);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory reading node_opcode.npy", a->path);
	}
	for (int64_t i = 0; i < g->n_nodes; i++) {
		if (ops[i] < 0 || ops[i] > 255) {
			int64_t bad = ops[i];
			free(ops);
			return hs_fail(err, HS_EDATA, "%s: node_opcode.npy: node %lld has opcode %lld, expected 0..255",
				       a->path, (long long)i, (long long)bad);
		}
		g->opcode[i] = (uint8_t)ops[i];
	}
	free(ops);

	/* Edges. */
	int64_t *edges = read_i64(a, "edge_index", 2, &h, err);
	if (!edges)
		return -1;
	g->edges = (int64_t(*)[2])edges;
	if (h.shape[1] != 2 && !(h.shape[0] == 0))
		return hs_fail(err, HS_EDATA, "%s: edge_index.npy: shape (%lld, %lld), expected (edges, 2)",
			       a->path, (long long)h.shape[0], (long long)h.shape[1]);
	g->n_edges = h.shape[0];
	for (int64_t i = 0; i < g->n_edges; i++)
		for (int j = 0; j < 2; j++)
			if (g->edges[i][j] < 0 || g->edges[i][j] >= g->n_nodes)
				return hs_fail(err, HS_EDATA,
					       "%s: edge_index.npy: edge %lld [%lld, %lld]: node %lld is out of range 0..%lld",
					       a->path, (long long)i, (long long)g->edges[i][0],
					       (long long)g->edges[i][1], (long long)g->edges[i][j],
					       (long long)g->n_nodes - 1);
	if (build_csr(g, err))
		return -1;

	/* Computations. */
	if (npz_has(a, "node_splits")) {
		int64_t *sp = read_i64(a, "node_splits", -1, &h, err);
		if (!sp)
			return -1;
		int64_t k = (int64_t)h.count;
		if (h.ndim > 2 || (h.ndim == 2 && h.shape[0] != 1)) {
			free(sp);
			return hs_fail(err, HS_EDATA, "%s: node_splits.npy: expected shape (1, k)", a->path);
		}
		int lead0 = k > 0 && sp[0] == 0;
		g->n_comps = lead0 ? k - 1 : k;
		g->comp_start = malloc(((size_t)g->n_comps + 1) * sizeof(int64_t));
		if (!g->comp_start) {
			free(sp);
			return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the computations", a->path);
		}
		g->comp_start[0] = 0;
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
	} else {
		g->n_comps = 1;
		g->comp_start = malloc(2 * sizeof(int64_t));
		if (!g->comp_start)
			return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the computations", a->path);
		g->comp_start[0] = 0;
		g->comp_start[1] = g->n_nodes;
	}
	g->comp_of = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof(int32_t));
	if (!g->comp_of)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the computations", a->path);
	for (int64_t c = 0; c < g->n_comps; c++)
		for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
			g->comp_of[v] = (int32_t)c;

	/* Runtimes. */
	if (!(g->runtime_raw = read_i64(a, "config_runtime", 1, &h, err)))
		return -1;
	g->n_configs = h.shape[0];
	g->runtime = malloc((g->n_configs ? (size_t)g->n_configs : 1) * sizeof(double));
	if (!g->runtime)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory reading config_runtime.npy", a->path);
	for (int64_t c = 0; c < g->n_configs; c++) {
		if (g->runtime_raw[c] < 0)
			return hs_fail(err, HS_EDATA, "%s: config_runtime.npy: config %lld has a negative runtime",
				       a->path, (long long)c);
		if (g->runtime_raw[c] != 0)
			g->labeled = 1;
		g->runtime[c] = (double)g->runtime_raw[c];
	}

	if (g->kind == HS_KIND_TILE) {
		if (require(a, "config_runtime_normalizers", err))
			return -1;
		if (!(g->normalizer = read_i64(a, "config_runtime_normalizers", 1, &h, err)))
			return -1;
		if (h.shape[0] != g->n_configs)
			return hs_fail(err, HS_EDATA,
				       "%s: config_runtime_normalizers.npy: %lld entries, config_runtime has %lld",
				       a->path, (long long)h.shape[0], (long long)g->n_configs);
		for (int64_t c = 0; c < g->n_configs; c++) {
			if (g->normalizer[c] <= 0)
				return hs_fail(err, HS_EDATA,
					       "%s: config_runtime_normalizers.npy: config %lld has normalizer %lld, expected > 0",
					       a->path, (long long)c, (long long)g->normalizer[c]);
			g->runtime[c] = (double)g->runtime_raw[c] / (double)g->normalizer[c];
		}
		if (!(g->config_feat = read_f32(a, "config_feat", 2, &h, err)))
			return -1;
		if (h.shape[0] != g->n_configs)
			return hs_fail(err, HS_EDATA, "%s: config_feat.npy: %lld rows, config_runtime has %lld",
				       a->path, (long long)h.shape[0], (long long)g->n_configs);
		g->config_width = (int)h.shape[1];
	} else {
		if (require(a, "node_config_ids", err) || require(a, "node_config_feat", err))
			return -1;
		if (!(g->cfg_node_ids = read_i64(a, "node_config_ids", 1, &h, err)))
			return -1;
		g->n_cfg_nodes = h.shape[0];
		g->cfg_index = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof(int32_t));
		int64_t *sorted = malloc((g->n_cfg_nodes ? (size_t)g->n_cfg_nodes : 1) * sizeof(int64_t));
		if (!g->cfg_index || !sorted) {
			free(sorted);
			return hs_fail(err, HS_ENOMEM, "%s: out of memory indexing the configurable nodes",
				       a->path);
		}
		for (int64_t v = 0; v < g->n_nodes; v++)
			g->cfg_index[v] = -1;
		for (int64_t k = 0; k < g->n_cfg_nodes; k++) {
			int64_t id = g->cfg_node_ids[k];
			if (id < 0 || id >= g->n_nodes) {
				free(sorted);
				return hs_fail(err, HS_EDATA,
					       "%s: node_config_ids.npy: entry %lld is node %lld, out of range 0..%lld",
					       a->path, (long long)k, (long long)id, (long long)g->n_nodes - 1);
			}
			if (g->cfg_index[id] >= 0) {
				free(sorted);
				return hs_fail(err, HS_EDATA,
					       "%s: node_config_ids.npy: node %lld is listed twice (entries %d and %lld)",
					       a->path, (long long)id, g->cfg_index[id], (long long)k);
			}
			g->cfg_index[id] = (int32_t)k;
			sorted[k] = id;
		}
		qsort(sorted, (size_t)g->n_cfg_nodes, sizeof *sorted, hs_cmp_i64);
		free(sorted);
		if (npz_header(a, "node_config_feat", &h, err))
			return -1;
		if (h.ndim != 3 || h.shape[0] != g->n_configs || h.shape[1] != g->n_cfg_nodes)
			return hs_fail(err, HS_EDATA,
				       "%s: node_config_feat.npy: shape %s, expected (%lld, %lld, width) for %lld configs x %lld configurable nodes",
				       a->path, h.ndim == 3 ? "mismatch" : "of the wrong rank",
				       (long long)g->n_configs, (long long)g->n_cfg_nodes,
				       (long long)g->n_configs, (long long)g->n_cfg_nodes);
		if (h.shape[2] > 4096)
			return hs_fail(err, HS_EDATA, "%s: node_config_feat.npy: width %lld is not plausible",
				       a->path, (long long)h.shape[2]);
		if (npy_dtype_is_float(h.dtype) == 0 && h.dtype != NPY_I1 && h.dtype != NPY_I2 &&
		    h.dtype != NPY_I4 && h.dtype != NPY_I8)
			return hs_fail(err, HS_EDATA, "%s: node_config_feat.npy: dtype %s, expected float or signed int",
				       a->path, npy_dtype_name(h.dtype));
		g->ncf_width = (int)h.shape[2];
	}
	return 0;
}

hs_graph *graph_open(const char *path, hs_error *err)
{
	hs_graph *g = calloc(1, sizeof *g);
	if (!g) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening the graph", path);
		return NULL;
	}
	g->path = strdup(path);
	g->name = base_name(path);
	if (!g->path || !g->name) {
		graph_free(g);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening the graph", path);
		return NULL;
	}
	npz *a = npz_open(path, err);
	if (!a) {
		graph_free(g);
		return NULL;
	}
	int rc = load(g, a, err);
	npz_close(a);
	if (rc) {
		graph_free(g);
		return NULL;
	}
	return g;
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
	hs_graph *g = graph_open(path, err);
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
