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

int query_session_load_data(query_session *s, const char *path, const overlay_opts *opts, hs_error *err)
{
	hs_overlay o;

	if (s->ix)
		return hs_fail(err, HS_EUSAGE, "%s: data is laid over one graph, not over a folder", path);
	if (overlay_load(s->g, path, opts, &o, err) != 0)
		return -1;
	if (query_session_add_overlay(s, &o, err) != 0) {
		overlay_free(&o);
		return -1;
	}
	return 0;
}

int query_session_module_data(query_session *s, hs_error *err)
{
	hs_overlay o;
	if (s->ix || !s->g || overlay_from_module(s->g, &o, err) != 0)
		return s->ix || !s->g ? 0 : -1;
	if (!o.n_cols)
		return 0;
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
	for (int c = 0; c < o->n_cols && c < QUERY_DATA_NOTE_FIELDS; c++)
		hs_strbuf_printf(&b, "%s%s (%s)", c ? ", " : o->n_cols > 1 ? ", fields " : ", field ",
				 o->cols[c].name, o->cols[c].numeric ? "number" : "text");
	if (o->n_cols > QUERY_DATA_NOTE_FIELDS)
		hs_strbuf_printf(&b, " and %d more", o->n_cols - QUERY_DATA_NOTE_FIELDS);
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
	free(sums->own_off);
	free(sums->own_idx);
	memset(sums, 0, sizeof *sums);
}

/* ---- the opcode mix ------------------------------------------------------------ */

/* Opcodes as keys: a learned one by its id, one the dataset never learned
 * by its name (256 + its place among the names seen; the 64th and later
 * share one key). */
#define MIX_KEYS (256 + 64)

typedef struct mix_names {
	const char *unlearned[64];
	int n;
} mix_names;

static int opcode_key(query_session *s, mix_names *nm, int64_t v)
{
	if (s->g->opcode[v] != 0)
		return s->g->opcode[v];
	const char *op = query_opcode_text(s, v);
	for (int i = 0; i < nm->n; i++)
		if (strcmp(nm->unlearned[i], op) == 0)
			return 256 + i;
	if (nm->n < 64)
		nm->unlearned[nm->n++] = op;
	return 256 + nm->n - 1;
}

/* Counts the opcodes of the kept nodes at or under k into count[]. */
static void count_under(query_session *s, query_layer_sums *sums, mix_names *nm, int64_t k, int64_t *count)
{
	const hs_layers *l = s->layers;
	for (int64_t i = sums->own_off[k]; i < sums->own_off[k + 1]; i++)
		count[opcode_key(s, nm, sums->own_idx[i])]++;
	for (int64_t c = l->v[k].first_child; c >= 0; c = l->v[c].next_sibling)
		count_under(s, sums, nm, c, count);
}

const char *query_layer_sums_mix(query_session *s, query_layer_sums *sums, int64_t k)
{
	if (sums->mix[k])
		return sums->mix[k];
	int64_t count[MIX_KEYS] = {0};
	mix_names nm = {.n = 0};
	char buf[256];
	size_t at = 0;
	buf[0] = '\0';
	count_under(s, sums, &nm, k, count);
	for (int r = 0; r < 3 && sums->nodes[k]; r++) {
		int best = -1;
		for (int i = 0; i < MIX_KEYS; i++)
			if (count[i] && (best < 0 || count[i] > count[best]))
				best = i;
		if (best < 0)
			break;
		int64_t pct = (200 * count[best] / sums->nodes[k] + 1) / 2; /* rounded */
		at += (size_t)snprintf(buf + at, at < sizeof buf ? sizeof buf - at : 0, "%s%s %s%lld%%", r ? ", " : "",
				       best < 256 ? s->opcode_names[best] : nm.unlearned[best - 256], pct ? "" : "<",
				       (long long)(pct ? pct : 1));
		count[best] = 0;
	}
	sums->mix[k] = strdup(buf);
	return sums->mix[k] ? sums->mix[k] : "";
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
	out->own_off = calloc(k + 1, sizeof *out->own_off);
	return out->nodes && out->configurable && out->cost && out->flops && out->bytes && out->mix &&
			       out->data_name && out->data && out->own_off
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
		out->configurable[k] += g->kind != HS_KIND_TILE && g->cfg_index && g->cfg_index[v] >= 0;
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
	/* the kept nodes by their own namespace, for the opcode mixes */
	for (int64_t v = 0; v < g->n_nodes; v++)
		if (!keep || keep[v])
			out->own_off[l->layer_of[v] + 1]++;
	for (int64_t k = 0; k < l->n; k++)
		out->own_off[k + 1] += out->own_off[k];
	if (!(out->own_idx = malloc(((size_t)out->own_off[l->n] + 1) * sizeof *out->own_idx)))
		goto oom;
	int64_t *at = calloc((size_t)l->n + 1, sizeof *at);
	if (!at)
		goto oom;
	for (int64_t v = 0; v < g->n_nodes; v++)
		if (!keep || keep[v]) {
			int64_t k = l->layer_of[v];
			out->own_idx[out->own_off[k] + at[k]++] = v;
		}
	free(at);
	return 0;
oom:
	query_layer_sums_free(out);
	return hs_fail(err, HS_ENOMEM, "%s: out of memory rolling numbers up per layer", g->name);
}
