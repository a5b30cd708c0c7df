/* layers.c - namespaces from op_name, rolled up, and repeated blocks
 * (layers.h). */
#include "doc/layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/index.h"
#include "base/progress.h"
#include "base/rng.h"
#include "base/vec.h"
#include "loader/hlo.h"

/* ---- the tree ---------------------------------------------------------- */

typedef struct builder {
	hs_layers *l;
	HS_VEC(hs_layer) v;
	HS_VEC(size_t) len;    /* each namespace's path length */
	hs_index paths;        /* the namespaces by path */
	hs_error *err;
} builder;

/* Long work ticks base/progress.h every 4,096 nodes of a pass: the first
 * pass (placing the nodes) is the first half, the hashing passes the
 * second.  1 when asked to stop. */
static int layers_tick(int64_t v, int64_t n, int pass, int passes)
{
	if (v & 4095)
		return 0;
	double done = pass ? n + ((double)(pass - 1) * (double)n + (double)v) / passes : (double)v;
	return hs_progress_tick("finding the layers", done, 2.0 * (double)n);
}

static uint64_t path_hash(const char *s, size_t n)
{
	return hs_fnv1a_bytes(s, n, HS_FNV_BASIS);
}

struct path_key {
	const char *s;
	size_t n;
};

static int same_path(const void *ctx, int32_t k, const void *key)
{
	const builder *b = ctx;
	const struct path_key *p = key;
	return b->len.v[k] == p->n && memcmp(b->v.v[k].path, p->s, p->n) == 0;
}

/* The namespace with path s[0, n) whose hash is h, made (under `parent`)
 * when new. */
static int64_t namespace_at(builder *b, const char *s, size_t n, uint64_t h, int64_t parent, int depth)
{
	uint32_t h32 = (uint32_t)(h ^ h >> 32);
	int32_t found = hs_index_find(&b->paths, h32, same_path, b, &(struct path_key){s, n});
	if (found >= 0)
		return found;
	char *path = hs_arena_strndup(&b->l->arena, s, n);
	if (!path)
		return -1;
	const char *name = path;
	for (size_t i = 0, d = 0; i < n; i++) {      /* the last component at depth 0 */
		d += path[i] == '[' || path[i] == '(' || path[i] == '{';
		d -= (path[i] == ']' || path[i] == ')' || path[i] == '}') && d > 0;
		if (path[i] == '/' && d == 0)
			name = path + i + 1;
	}
	hs_layer e = {path, name, parent, depth, -1, -1, 0, 0, 0, 0, 0, 0, 0, -1, 0};
	if (hs_vec_push(&b->v, e) != 0 || hs_vec_push(&b->len, n) != 0 ||
	    hs_index_add(&b->paths, h32, (int32_t)b->v.n - 1) != 0)
		return -1;
	return (int64_t)b->v.n - 1;
}

static int64_t namespace_of(builder *b, const char *s, size_t n, int64_t parent, int depth)
{
	return namespace_at(b, s, n, path_hash(s, n), parent, depth);
}

/* Where op_name's layer ends (before its last '/' at bracket depth 0),
 * and the ends of its components, into cuts[] (at most max). */
static int components(const char *s, size_t *layer_len, size_t *cuts, int max)
{
	int k = 0, depth = 0;
	size_t last = 0;
	int any = 0;
	for (size_t i = 0; s[i]; i++) {
		char c = s[i];
		depth += c == '[' || c == '(' || c == '{';
		depth -= (c == ']' || c == ')' || c == '}') && depth > 0;
		if (c == '/' && depth == 0) {
			if (k < max)
				cuts[k++] = i;
			last = i;
			any = 1;
		}
	}
	*layer_len = any ? last : 0;
	return k;
}

/* Every node's namespace, making the tree.  Neighbours share most of
 * their path: the namespaces of the components the previous op_name had
 * alike are taken again without a lookup.  0, -1 out of memory, 1
 * stopped. */
static int place_nodes(builder *b, const hs_graph *g)
{
	hs_layers *l = b->l;
	int64_t top = -1, none = -1, prev_ns[64];
	const char *prev = NULL;
	size_t prev_cuts[64], cuts[64];
	int prev_nc = 0;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (layers_tick(v, g->n_nodes, 0, 0))
			return 1;
		const char *op = graph_node_text(g, v, HS_HF_OP_NAME, NULL, 0);
		size_t len = 0;
		int64_t ns = -1;
		int nc = *op ? components(op, &len, cuts, 64) : 0;
		if (!*op || len == 0) {
			int64_t *which = *op ? &top : &none;
			if (*which < 0) {
				const char *p = *op ? LAYER_TOP : LAYER_NONE;
				*which = namespace_of(b, p, strlen(p), -1, 1);
			}
			ns = *which;
		} else {
			int i = 0, same = prev != NULL;
			uint64_t h = HS_FNV_BASIS; /* of op[0, cuts[i]), grown a component at a time */
			for (; i < nc && cuts[i] <= len; i++) {
				size_t from = i ? cuts[i - 1] : 0;
				h = hs_fnv1a_bytes(op + from, cuts[i] - from, h);
				/* component i is the previous one's when every byte up to its end is */
				same = same && i < prev_nc && prev_cuts[i] == cuts[i] &&
				       memcmp(prev + (i ? cuts[i - 1] : 0), op + (i ? cuts[i - 1] : 0),
					      cuts[i] - (i ? cuts[i - 1] : 0)) == 0;
				if (same)
					ns = prev_ns[i];
				else if ((ns = namespace_at(b, op, cuts[i], h, ns, i + 1)) < 0)
					return -1;
				prev_ns[i] = ns;
				prev_cuts[i] = cuts[i];
			}
			prev = op;
			prev_nc = i;
		}
		if (ns < 0)
			return -1;
		l->layer_of[v] = (int32_t)ns;
		b->v.v[ns].nodes_own++;
	}
	return 0;
}

/* Children in the order they were first seen (the namespaces' order). */
static int link_children(hs_layers *l)
{
	int64_t *last = malloc(((size_t)l->n + 1) * sizeof *last);
	if (!last)
		return -1;
	for (int64_t k = 0; k < l->n; k++)
		last[k] = -1;
	for (int64_t k = 0; k < l->n; k++) {
		int64_t p = l->v[k].parent;
		if (p < 0)
			continue;
		if (last[p] < 0)
			l->v[p].first_child = k;
		else
			l->v[last[p]].next_sibling = k;
		last[p] = k;
	}
	free(last);
	return 0;
}

/* ---- rolled-up numbers ------------------------------------------------- */

/* Children before parents: namespaces were made parents first. */
static void roll_up(const hs_graph *g, const cost_estimate *est, hs_layers *l)
{
	for (int64_t k = 0; k < l->n; k++) {
		l->v[k].nodes = l->v[k].nodes_own;
		l->v[k].first_node = -1;
	}
	for (int64_t v = 0; v < g->n_nodes; v++) {
		hs_layer *e = &l->v[l->layer_of[v]];
		if (e->first_node < 0)
			e->first_node = v;
		if (g->cfg_index && g->cfg_index[v] >= 0)
			e->configurable++;
		if (est && cost_role_executed(graph_node_role(g, v)) && !est[v].unknown) {
			e->cost += est[v].seconds;
			e->flops += est[v].flops;
			e->bytes += est[v].bytes;
		}
	}
	for (int64_t k = l->n - 1; k >= 0; k--) {
		hs_layer *e = &l->v[k];
		if (e->parent < 0)
			continue;
		hs_layer *p = &l->v[e->parent];
		p->nodes += e->nodes;
		p->cost += e->cost;
		p->flops += e->flops;
		p->bytes += e->bytes;
		p->configurable += e->configurable;
		if (e->first_node >= 0 && (p->first_node < 0 || e->first_node < p->first_node))
			p->first_node = e->first_node;
	}
}

/* ---- repeated blocks ------------------------------------------------------- */

/* Each namespace's structure hash, depth by depth: per node a hash of
 * its opcode and of its operands' hashes inside the namespace of that
 * depth; the namespace's hash is a sum of its nodes' (mixed), which does
 * not depend on their order.  0, -1 out of memory, 1 stopped. */
static int shape_hashes(const hs_graph *g, hs_layers *l)
{
	int64_t n = g->n_nodes;
	uint64_t *fp = malloc(((size_t)n + 1) * sizeof *fp);
	int64_t *anc_ns = malloc(((size_t)l->n + 1) * sizeof *anc_ns);
	uint64_t *op_h = malloc(((size_t)n + 1) * sizeof *op_h);
	if (!fp || !anc_ns || !op_h) {
		free(fp);
		free(anc_ns);
		free(op_h);
		return -1;
	}
	for (int64_t v = 0; v < n; v++)
		op_h[v] = hs_fnv1a(graph_node_opcode_name(g, v), HS_FNV_BASIS);
	int rc = 0;
	for (int d = 1; d <= l->max_depth && rc == 0; d++) {
		/* the ancestor at depth d of each namespace (parents come first) */
		for (int64_t k = 0; k < l->n; k++) {
			const hs_layer *e = &l->v[k];
			anc_ns[k] = e->depth == d ? k : e->depth < d ? -1 : anc_ns[e->parent];
			if (e->depth == d)
				l->v[k].shape = 0x1a7e25ULL;
		}
		for (int64_t v = 0; v < n && rc == 0; v++) {
			if (layers_tick(v, n, d, l->max_depth)) {
				rc = 1;
				break;
			}
			int64_t a = anc_ns[l->layer_of[v]];
			uint64_t h = op_h[v];
			const int64_t *ops = g->hlo_operand_off ? graph_hlo_operands(g, v) : NULL;
			for (int64_t i = 0, no = ops ? graph_hlo_n_operands(g, v) : 0; i < no; i++) {
				int64_t o = ops[i];
				uint64_t x = o < v && a >= 0 && anc_ns[l->layer_of[o]] == a ? fp[o] : 0x0075151deULL;
				h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
				h = hs_splitmix64(&h);
			}
			fp[v] = h;
			if (a >= 0) {
				uint64_t m = h;
				l->v[a].shape += hs_splitmix64(&m);
			}
		}
	}
	free(fp);
	free(anc_ns);
	free(op_h);
	return rc;
}

typedef struct sib {
	int64_t parent, nodes, k;
	uint64_t shape;
} sib;

static int cmp_sib(const void *a, const void *b)
{
	const sib *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* Siblings (or top-level namespaces) of the same shape and size share a
 * group, numbered in the order of the group's first namespace. */
static int repeat_groups(hs_layers *l)
{
	sib *s = malloc(((size_t)l->n + 1) * sizeof *s);
	int64_t *first = malloc(((size_t)l->n + 1) * sizeof *first);
	if (!s || !first) {
		free(s);
		free(first);
		return -1;
	}
	for (int64_t k = 0; k < l->n; k++) {
		s[k] = (sib){l->v[k].parent, l->v[k].nodes, k, l->v[k].shape};
		first[k] = -1;
	}
	qsort(s, (size_t)l->n, sizeof *s, cmp_sib);
	/* runs of two or more: mark their members with the run's first k */
	for (int64_t i = 0, j; i < l->n; i = j) {
		for (j = i + 1; j < l->n && s[j].parent == s[i].parent && s[j].shape == s[i].shape &&
				s[j].nodes == s[i].nodes; j++)
			;
		if (j - i >= 2)
			for (int64_t t = i; t < j; t++)
				first[s[t].k] = s[i].k;
	}
	l->n_groups = 0;
	for (int64_t k = 0; k < l->n; k++) {
		if (first[k] < 0)
			continue;
		if (first[k] == k)
			l->v[k].repeat_group = ++l->n_groups;
		else
			l->v[k].repeat_group = l->v[first[k]].repeat_group;
	}
	free(s);
	free(first);
	return 0;
}

/* ---- the whole ------------------------------------------------------------ */

int layers_build(const hs_graph *g, const cost_estimate *est, hs_layers *out, hs_error *err)
{
	memset(out, 0, sizeof *out);
	builder b = {.l = out, .err = err};
	int rc = -1;
	out->layer_of = hs_arena_array(&out->arena, (size_t)g->n_nodes + 1, sizeof *out->layer_of);
	if (!out->layer_of || (rc = place_nodes(&b, g)) != 0)
		goto done;
	rc = -1;
	out->n = (int64_t)b.v.n;
	out->v = hs_arena_array(&out->arena, b.v.n + 1, sizeof *out->v);
	if (!out->v)
		goto done;
	memcpy(out->v, b.v.v, hs_vec_bytes(&b.v));
	for (int64_t k = 0; k < out->n; k++)
		if (out->v[k].depth > out->max_depth)
			out->max_depth = out->v[k].depth;
	if (link_children(out) != 0)
		goto done;
	roll_up(g, est, out);
	if ((rc = shape_hashes(g, out)) != 0 || (rc = repeat_groups(out)) != 0)
		goto done;
done:
	hs_index_free(&b.paths);
	hs_vec_free(&b.v);
	hs_vec_free(&b.len);
	if (rc) {
		layers_free(out);
		if (rc > 0)
			return hs_fail(err, HS_ESTOPPED, "%s: stopped finding the layers", g->path);
		hs_fail(err, HS_ENOMEM, "%s: out of memory finding the layers", g->path);
	}
	return rc;
}

void layers_free(hs_layers *l)
{
	hs_arena_free(&l->arena);
	memset(l, 0, sizeof *l);
}

int64_t layers_find(const hs_layers *l, const char *path)
{
	for (int64_t k = 0; k < l->n; k++)
		if (strcmp(l->v[k].path, path) == 0)
			return k;
	return -1;
}

const char *layers_node_path(const hs_layers *l, int64_t v)
{
	return l->v[l->layer_of[v]].path;
}

int64_t layers_next_sibling(const hs_layers *l, int64_t k)
{
	if (l->v[k].parent >= 0)
		return l->v[k].next_sibling;
	for (int64_t s = k + 1; s < l->n; s++)
		if (l->v[s].parent < 0)
			return s;
	return -1;
}

/* The runs among the siblings that start at `first`. */
static void runs_of(const hs_layers *l, int64_t first, int top, int64_t *len)
{
	int64_t run = -1;
	for (int64_t s = first, prev = -1; s >= 0; prev = s, s = top ? s + 1 : l->v[s].next_sibling) {
		if (top) {
			while (s < l->n && l->v[s].parent >= 0)
				s++;
			if (s >= l->n)
				break;
		}
		len[s] = 1;
		int64_t grp = l->v[s].repeat_group;
		if (grp && prev >= 0 && run >= 0 && l->v[run].repeat_group == grp) {
			len[run]++;
			len[s] = 0;
		} else {
			run = s;
		}
	}
}

void layers_runs(const hs_layers *l, int64_t *len)
{
	for (int64_t k = 0; k < l->n; k++)
		len[k] = 1;
	runs_of(l, 0, 1, len);
	for (int64_t k = 0; k < l->n; k++)
		if (l->v[k].first_child >= 0)
			runs_of(l, l->v[k].first_child, 0, len);
}

void layers_run_label(const hs_layers *l, int64_t k, int64_t len, char *buf, size_t cap)
{
	int64_t last = k;
	for (int64_t i = 1; i < len; i++) {
		int64_t nx = layers_next_sibling(l, last);
		if (nx < 0)
			break;
		last = nx;
	}
	snprintf(buf, cap, "%s ... %s: %lld repeats of one block", l->v[k].name, l->v[last].name, (long long)len);
}

size_t layers_op_name_layer(const char *op_name)
{
	size_t len, cuts[1];
	components(op_name, &len, cuts, 1);
	return len;
}
