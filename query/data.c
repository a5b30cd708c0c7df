/* data.c - what a session knows beyond the graph's own arrays: the data
 * files laid over its nodes (loader/overlay.h) and the namespaces of
 * op_name (model/layers.h) with every number rolled up per namespace
 * (query/query.h: query_session_load_data, query_session_layers,
 * query_layer_sums_make).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "loader/hlo.h"
#include "query/query_impl.h"

/* ---- data laid over the nodes ---------------------------------------------- */

int query_session_load_data(query_session *s, const char *path, hs_error *err)
{
	hs_overlay o;

	if (s->ix)
		return hs_fail(err, HS_EUSAGE, "%s: data is laid over one graph, not over a folder", path);
	if (overlay_load(s->g, path, &o, err) != 0)
		return -1;
	if (query_session_add_overlay(s, &o, err) != 0) {
		overlay_free(&o);
		return -1;
	}
	return 0;
}

int query_session_data_count(const query_session *s)
{
	return s->n_overlays;
}

const hs_overlay *query_session_data(const query_session *s, int k)
{
	return k >= 0 && k < s->n_overlays ? &s->overlays[k] : NULL;
}

char *query_session_data_note(const query_session *s, int k)
{
	const hs_overlay *o = query_session_data(s, k);
	hs_strbuf b = {0};

	if (!o)
		return NULL;
	hs_strbuf_printf(&b, "%s: %lld row%s, %lld instruction%s matched", o->path, (long long)o->rows,
			 hs_s(o->rows), (long long)o->matched, hs_s(o->matched));
	for (int c = 0; c < o->n_cols; c++)
		hs_strbuf_printf(&b, "%s%s (%s)", c ? ", " : o->n_cols > 1 ? ", fields " : ", field ",
				 o->cols[c].name, o->cols[c].numeric ? "number" : "text");
	if (o->unmatched) {
		hs_strbuf_printf(&b, "; %lld row%s name%s no instruction: ", (long long)o->unmatched,
				 hs_s(o->unmatched), o->unmatched == 1 ? "s" : "");
		int64_t kept = o->unmatched < OVERLAY_UNMATCHED_KEPT ? o->unmatched : OVERLAY_UNMATCHED_KEPT;
		for (int64_t i = 0; i < kept; i++)
			hs_strbuf_printf(&b, "%s%s", i ? ", " : "", o->unmatched_names[i] ? o->unmatched_names[i] : "?");
		if (o->unmatched > kept)
			hs_strbuf_puts(&b, ", ...");
	}
	if (b.failed) {
		hs_strbuf_free(&b);
		return NULL;
	}
	return hs_strbuf_take(&b);
}

int query_session_data_nums(const query_session *s)
{
	int n = 0;
	for (int k = 0; k < s->n_overlays; k++)
		for (int c = 0; c < s->overlays[k].n_cols; c++)
			n += s->overlays[k].cols[c].numeric;
	return n;
}

const char *query_session_data_num(const query_session *s, int i, const double **values)
{
	for (int k = 0; k < s->n_overlays; k++)
		for (int c = 0; c < s->overlays[k].n_cols; c++)
			if (s->overlays[k].cols[c].numeric && i-- == 0) {
				*values = s->overlays[k].cols[c].num;
				return s->overlays[k].cols[c].name;
			}
	*values = NULL;
	return NULL;
}

/* ---- namespaces ------------------------------------------------------------- */

const hs_layers *query_session_layers(query_session *s, hs_error *err)
{
	if (s->layers)
		return s->layers;
	if (query_need_cost(s, err) < 0)
		return NULL;
	hs_layers *l = calloc(1, sizeof *l);
	if (!l) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory finding the layers", s->g->name);
		return NULL;
	}
	if (layers_build(s->g, s->cost, l, err) != 0) {
		free(l);
		return NULL;
	}
	s->layers = l;
	return l;
}

void query_layer_sums_free(query_layer_sums *sums)
{
	if (sums->mix)
		for (int64_t k = 0; k < sums->n; k++)
			free(sums->mix[k]);
	free(sums->mix);
	free(sums->nodes);
	free(sums->configurable);
	free(sums->cost);
	free(sums->flops);
	free(sums->bytes);
	free(sums->data_name);
	free(sums->data);
	memset(sums, 0, sizeof *sums);
}

/* ---- the opcode mix ------------------------------------------------------------ */

/* Opcodes as keys: a learned one by its id, one the dataset never learned
 * by its name (256 + its place among the names seen; the 64th and later
 * share one key). */
#define MIX_KEYS (256 + 64)

typedef struct mix_map {
	uint64_t *key;       /* namespace * MIX_KEYS + opcode key + 1; 0 empty */
	int64_t *count;
	size_t cap, n;
} mix_map;

static int mix_grow(mix_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 4096;
	uint64_t *key = calloc(cap, sizeof *key);
	int64_t *count = calloc(cap, sizeof *count);
	if (!key || !count) {
		free(key);
		free(count);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->key[i])
			continue;
		size_t j = (size_t)(m->key[i] * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
		while (key[j])
			j = (j + 1) & (cap - 1);
		key[j] = m->key[i];
		count[j] = m->count[i];
	}
	free(m->key);
	free(m->count);
	m->key = key;
	m->count = count;
	m->cap = cap;
	return 0;
}

static int mix_add(mix_map *m, uint64_t key, int64_t n)
{
	if ((m->n + 1) * 2 > m->cap && mix_grow(m) != 0)
		return -1;
	key++;
	size_t j = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
	while (m->key[j] && m->key[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->key[j]) {
		m->key[j] = key;
		m->n++;
	}
	m->count[j] += n;
	return 0;
}

typedef struct mix_row {
	int64_t ns, count;
	int op;
} mix_row;

static int cmp_mix_row(const void *a, const void *b)
{
	const mix_row *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

/* The opcode names behind the keys, as query_opcode_text reads them. */
typedef struct mix_names {
	const char *unlearned[64];
	int n;
} mix_names;

static int opcode_key(query_session *s, mix_names *nm, int64_t v)
{
	if (s->g->opcode[v] != 0 || !s->g->module)
		return s->g->opcode[v];
	const char *op = query_opcode_text(s, v);
	for (int i = 0; i < nm->n; i++)
		if (strcmp(nm->unlearned[i], op) == 0)
			return 256 + i;
	if (nm->n < 64)
		nm->unlearned[nm->n++] = op;
	return 256 + nm->n - 1;
}

static const char *key_name(const query_session *s, const mix_names *nm, int key)
{
	return key < 256 ? s->opcode_names[key] : nm->unlearned[key - 256];
}

/* The three commonest opcodes of each namespace, with their share. */
static int opcode_mix(query_session *s, const uint8_t *keep, query_layer_sums *out)
{
	const hs_layers *l = s->layers;
	mix_map own = {0}, all = {0};
	mix_names nm = {.n = 0};
	mix_row *rows = NULL;
	int rc = -1;

	for (int64_t v = 0; v < s->g->n_nodes; v++)
		if ((!keep || keep[v]) &&
		    mix_add(&own, (uint64_t)l->layer_of[v] * MIX_KEYS + (uint64_t)opcode_key(s, &nm, v), 1) != 0)
			goto done;
	for (size_t i = 0; i < own.cap; i++) {
		if (!own.key[i])
			continue;
		int64_t ns = (int64_t)((own.key[i] - 1) / MIX_KEYS);
		uint64_t op = (own.key[i] - 1) % MIX_KEYS;
		for (int64_t a = ns; a >= 0; a = l->v[a].parent)
			if (mix_add(&all, (uint64_t)a * MIX_KEYS + op, own.count[i]) != 0)
				goto done;
	}
	rows = malloc((all.n + 1) * sizeof *rows);
	if (!rows)
		goto done;
	size_t n = 0;
	for (size_t i = 0; i < all.cap; i++)
		if (all.key[i])
			rows[n++] = (mix_row){(int64_t)((all.key[i] - 1) / MIX_KEYS), all.count[i],
					      (int)((all.key[i] - 1) % MIX_KEYS)};
	qsort(rows, n, sizeof *rows, cmp_mix_row);
	for (size_t i = 0, j; i < n; i = j) {
		char buf[256];
		size_t at = 0;
		int64_t ns = rows[i].ns;
		for (j = i; j < n && rows[j].ns == ns; j++)
			;
		for (size_t r = i; r < j && r < i + 3; r++) {
			int64_t pct = (200 * rows[r].count / out->nodes[ns] + 1) / 2; /* rounded */
			at += (size_t)snprintf(buf + at, at < sizeof buf ? sizeof buf - at : 0, "%s%s %s%lld%%",
					       r > i ? ", " : "", key_name(s, &nm, rows[r].op), pct ? "" : "<",
					       (long long)(pct ? pct : 1));
		}
		if (!(out->mix[ns] = strdup(buf)))
			goto done;
	}
	rc = 0;
done:
	free(own.key);
	free(own.count);
	free(all.key);
	free(all.count);
	free(rows);
	return rc;
}

/* ---- sums ------------------------------------------------------------------- */

static int sums_alloc(query_layer_sums *out, int64_t n, int nd)
{
	size_t k = (size_t)n + 1;
	out->n = n;
	out->n_data = nd;
	out->nodes = calloc(k, sizeof *out->nodes);
	out->configurable = calloc(k, sizeof *out->configurable);
	out->cost = calloc(k, sizeof *out->cost);
	out->flops = calloc(k, sizeof *out->flops);
	out->bytes = calloc(k, sizeof *out->bytes);
	out->mix = calloc(k, sizeof *out->mix);
	out->data_name = calloc((size_t)nd + 1, sizeof *out->data_name);
	out->data = malloc(k * ((size_t)nd + 1) * sizeof *out->data);
	return out->nodes && out->configurable && out->cost && out->flops && out->bytes && out->mix &&
			       out->data_name && out->data
		       ? 0
		       : -1;
}

int query_layer_sums_make(query_session *s, const uint8_t *keep, query_layer_sums *out, hs_error *err)
{
	const hs_graph *g = s->g;
	memset(out, 0, sizeof *out);
	const hs_layers *l = query_session_layers(s, err);
	if (!l)
		return -1;
	int nd = query_session_data_nums(s);
	if (sums_alloc(out, l->n, nd) != 0)
		goto oom;
	for (int64_t i = 0; i < l->n * nd; i++)
		out->data[i] = NAN;
	for (int d = 0; d < nd; d++) {
		const double *val;
		out->data_name[d] = query_session_data_num(s, d, &val);
		for (int64_t v = 0; v < g->n_nodes; v++)
			if ((!keep || keep[v]) && !isnan(val[v])) {
				double *x = &out->data[(size_t)l->layer_of[v] * (size_t)nd + (size_t)d];
				*x = isnan(*x) ? val[v] : *x + val[v];
			}
	}
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (keep && !keep[v])
			continue;
		int64_t k = l->layer_of[v];
		out->nodes[k]++;
		out->configurable[k] += g->kind == HS_KIND_LAYOUT && g->cfg_index && g->cfg_index[v] >= 0;
		if (cost_role_executed(graph_node_role(g, v)) && !s->cost[v].unknown) {
			out->cost[k] += s->cost[v].seconds;
			out->flops[k] += s->cost[v].flops;
			out->bytes[k] += s->cost[v].bytes;
		}
	}
	for (int64_t k = l->n - 1; k >= 0; k--) { /* children after parents */
		int64_t p = l->v[k].parent;
		if (p < 0)
			continue;
		out->nodes[p] += out->nodes[k];
		out->configurable[p] += out->configurable[k];
		out->cost[p] += out->cost[k];
		out->flops[p] += out->flops[k];
		out->bytes[p] += out->bytes[k];
		for (int d = 0; d < nd; d++) {
			double x = out->data[(size_t)k * (size_t)nd + (size_t)d], *y = &out->data[(size_t)p * (size_t)nd + (size_t)d];
			if (!isnan(x))
				*y = isnan(*y) ? x : *y + x;
		}
	}
	if (opcode_mix(s, keep, out) != 0)
		goto oom;
	for (int64_t k = 0; k < l->n; k++)
		if (!out->mix[k] && !(out->mix[k] = strdup("")))
			goto oom;
	return 0;
oom:
	query_layer_sums_free(out);
	return hs_fail(err, HS_ENOMEM, "%s: out of memory rolling numbers up per layer", g->name);
}
