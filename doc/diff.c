/* diff.c - matching two modules' instructions (diff.h): names, then
 * fingerprints, then neighbourhoods; then each pair's changes. */
#include "doc/diff.h"

#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/hash.h"
#include "base/index.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "loader/hlo.h"
#include "loader/hlo_print.h"
#include "loader/hlo_module.h"

/* ---- uint64 keys with the nodes that have them ---------------------------- */

typedef struct key_entry {
	uint64_t key;
	int64_t first;     /* a node with the key, -1 for none */
	int64_t count;     /* nodes with the key */
} key_entry;

typedef struct key_table {
	hs_index ix;
	HS_VEC(key_entry) v;
	int failed;        /* out of memory */
} key_table;

static const key_entry no_key = {0, -1, 0};

/* Empty again, its memory kept for the next use. */
static void table_reset(key_table *t)
{
	hs_index_clear(&t->ix);
	t->v.n = 0;
	t->failed = 0;
}

static int same_key(const void *t, int32_t e, const void *key)
{
	return ((const key_table *)t)->v.v[e].key == *(const uint64_t *)key;
}

/* The entry of key (no_key when none). */
static const key_entry *table_get(const key_table *t, uint64_t key)
{
	int32_t e = hs_index_find(&t->ix, (uint32_t)(key ^ key >> 32), same_key, t, &key);
	return e < 0 ? &no_key : &t->v.v[e];
}

static void table_add(key_table *t, uint64_t key, int64_t v)
{
	uint32_t h = (uint32_t)(key ^ key >> 32);
	int32_t e = hs_index_find(&t->ix, h, same_key, t, &key);
	if (e < 0) {
		e = (int32_t)t->v.n;
		if (hs_vec_push(&t->v, ((key_entry){key, v, 0})) != 0 || hs_index_add(&t->ix, h, e) != 0) {
			t->v.n = (size_t)e;
			t->failed = 1;
			return;
		}
	}
	t->v.v[e].count++;
}

static void table_free(key_table *t)
{
	hs_index_free(&t->ix);
	hs_vec_free(&t->v);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return hs_splitmix64(&h);
}

static uint64_t str_hash(const char *s)
{
	return hs_fnv1a(s ? s : "", HS_FNV_BASIS);
}

/* ---- per side ------------------------------------------------------------ */

typedef struct side {
	const hs_graph *g;
	int64_t n;
	int64_t *order;    /* nodes, callees' computations before their callers' */
	uint64_t *content; /* node_hash */
	uint64_t *down, *up;
	uint64_t *key;     /* scratch: a key per node */
	int64_t *next;     /* the chains of a group table */
} side;

static void free_side(side *s)
{
	free(s->order);
	free(s->content);
	free(s->down);
	free(s->up);
	free(s->key);
	free(s->next);
}

/* Computations callees first (a depth-first post-order over the calls). */
static int comp_order(const hs_graph *g, int64_t *out)
{
	int64_t nc = g->n_hcomps, k = 0;
	uint8_t *state = calloc((size_t)nc + 1, 1);
	int64_t *stack = malloc(((size_t)nc + 1) * 2 * sizeof *stack);
	if (!state || !stack) {
		free(state);
		free(stack);
		return -1;
	}
	for (int64_t c0 = 0; c0 < nc; c0++) {
		if (state[c0])
			continue;
		int64_t sp = 0;
		stack[sp++] = c0;
		stack[sp++] = g->hcomps[c0].first;   /* next node to look at for calls */
		state[c0] = 1;
		while (sp) {
			int64_t c = stack[sp - 2], v = stack[sp - 1];
			const hs_hcomp *hc = &g->hcomps[c];
			int pushed = 0;
			for (; v < hc->first + hc->count && !pushed; v++)
				for (int64_t i = g->called_off[v]; i < g->called_off[v + 1]; i++) {
					int64_t cc = g->called_idx[i];
					if (!state[cc] && sp + 2 <= 2 * nc + 2) {
						stack[sp - 1] = v;
						state[cc] = 1;
						stack[sp++] = cc;
						stack[sp++] = g->hcomps[cc].first;
						pushed = 1;
						break;
					}
				}
			if (pushed)
				continue;
			out[k++] = c;
			sp -= 2;
		}
	}
	free(state);
	free(stack);
	return 0;
}

static uint64_t shape_hash(const hm_shape *s, int layout)
{
	uint64_t h = mix(0x51a9e, (uint64_t)s->element_type);
	for (int i = 0; i < s->rank; i++)
		h = mix(h, (uint64_t)s->dims[i]);
	if (layout) {
		for (int i = 0; i < s->layout_rank; i++)
			h = mix(h, (uint64_t)s->minor_to_major[i] + 101);
		h = mix(h, str_hash(s->layout_extra));
	}
	for (int i = 0; i < s->n_tuple; i++)
		h = mix(h, shape_hash(&s->tuple[i], layout));
	return h;
}

static int is_name_attr(const char *name)
{
	static const char *const refs[] = {"to_apply", "calls", "body", "condition", "true_computation",
					   "false_computation", "branch_computations", "called_computations",
					   "select", "scatter", "control-predecessors", NULL};
	for (const char *const *r = refs; *r; r++)
		if (strcmp(*r, name) == 0)
			return 1;
	return 0;
}

/* What a node is, apart from its neighbours and its name: opcode, shape,
 * the attributes that say what it computes, its metadata (op_name,
 * source_file:source_line). */
static uint64_t node_hash(const hs_graph *g, int64_t v)
{
	const hm_instr *in = graph_node_instr(g, v);
	uint64_t h = str_hash(graph_node_opcode_name(g, v));
	if (!(g->knows & HM_KNOWS_ATTRS)) {   /* a bare .npz: its features say what it computes */
		const float *f = g->feat_width ? graph_feat(g, v) : NULL;
		for (int i = 0; f && i < g->feat_width; i++)
			h = mix(h, (uint64_t)(int64_t)(f[i] * 1024.0f));
		return h;
	}
	h = mix(h, shape_hash(in->shape, 1));
	h = mix(h, (uint64_t)in->parameter_number);
	for (int i = 0; i < in->n_dimensions; i++)
		h = mix(h, (uint64_t)in->dimensions[i]);
	for (int i = 0; i < HM_X(in)->n_slice; i++)
		h = mix(mix(mix(h, (uint64_t)HM_X(in)->slice_start[i]), (uint64_t)HM_X(in)->slice_limit[i]),
			(uint64_t)HM_X(in)->slice_stride[i]);
	h = mix(h, str_hash(HM_X(in)->literal));
	h = mix(h, str_hash(HM_X(in)->custom_call_target));
	h = mix(h, str_hash(in->fusion_kind));
	h = mix(mix(h, str_hash(in->op_type)), str_hash(in->op_name));
	h = mix(mix(h, str_hash(in->source_file)), (uint64_t)in->source_line);
	for (int i = 0; i < in->n_attrs; i++)
		if (!is_name_attr(in->attrs[i].name))
			h = mix(mix(h, str_hash(in->attrs[i].name)), str_hash(in->attrs[i].value));
	return h | 1;
}

/* Content, bottom-up and top-down fingerprints in s->order. */
static int fingerprints(side *s)
{
	const hs_graph *g = s->g;
	int64_t n = s->n, nc = g->n_hcomps, k = 0;
	int64_t *comps = malloc(((size_t)nc + 1) * sizeof *comps);
	s->order = malloc(((size_t)n + 1) * sizeof *s->order);
	s->content = malloc(((size_t)n + 1) * sizeof *s->content);
	s->down = calloc((size_t)n + 1, sizeof *s->down);
	s->up = calloc((size_t)n + 1, sizeof *s->up);
	s->key = malloc(((size_t)n + 1) * sizeof *s->key);
	s->next = malloc(((size_t)n + 1) * sizeof *s->next);
	if (!comps || !s->order || !s->content || !s->down || !s->up || !s->key || !s->next ||
	    comp_order(g, comps) != 0) {
		free(comps);
		return -1;
	}
	for (int64_t i = 0; i < nc; i++) {
		const hs_hcomp *hc = &g->hcomps[comps[i]];
		for (int64_t v = hc->first; v < hc->first + hc->count; v++)
			s->order[k++] = v;
	}
	free(comps);
	for (int64_t i = 0; i < n; i++) {
		int64_t v = s->order[i];
		uint64_t h = s->content[v] = node_hash(g, v);
		for (int64_t j = 0; j < graph_hlo_n_operands(g, v); j++)
			h = mix(h, s->down[graph_hlo_operands(g, v)[j]]);
		for (int64_t j = g->called_off[v]; j < g->called_off[v + 1]; j++)
			h = mix(h, s->down[g->hcomps[g->called_idx[j]].root]);
		s->down[v] = h | 1;
	}
	for (int64_t i = n - 1; i >= 0; i--) {
		int64_t v = s->order[i];
		uint64_t acc = 0;
		for (int64_t j = 0; j < graph_hlo_n_users(g, v); j++) {
			int64_t u = graph_hlo_users(g, v)[j], pos = 0;
			while (pos < graph_hlo_n_operands(g, u) && graph_hlo_operands(g, u)[pos] != v)
				pos++;
			acc += mix(s->up[u], (uint64_t)pos);   /* users are a set: a sum */
		}
		const hs_hcomp *hc = &g->hcomps[g->hcomp_of[v]];
		if (hc->root == v)
			for (int64_t j = 0; j < hc->n_callers; j++)
				acc += mix(s->up[g->hcomp_callers[hc->callers_at + j]], 0xca11);
		s->up[v] = mix(s->content[v], acc) | 1;
	}
	return 0;
}

/* What an operand stands for: a parameter of a computation with one
 * caller is that caller's operand (an op moved into a fusion body reads the
 * same values through the body's parameters). */
static int64_t through_params(const hs_graph *g, int64_t v)
{
	for (int hops = 0; hops < 64; hops++) {
		const hs_hcomp *hc = &g->hcomps[g->hcomp_of[v]];
		if (hc->n_callers != 1 || graph_param_number(g, v) < 0)
			break;
		int64_t w = graph_param_source(g, v, g->hcomp_callers[hc->callers_at]);
		if (w < 0)
			break;
		v = w;
	}
	return v;
}

/* ---- pairing ------------------------------------------------------------- */

typedef struct matcher {
	module_diff *d;
	side a, b;
	HS_VEC(int64_t) queue;    /* A nodes in the order they were paired */
	size_t exact_done, loose_done;  /* queue entries propagated from */
	int forced;               /* exact propagation breaks ties now */
	HS_VEC(int64_t) params;   /* scratch: a body's parameters by number */
	key_table t[2];           /* scratch, reset after each use */
	int failed;
} matcher;

static int unmatched_a(const matcher *m, int64_t v) { return m->d->a2b[v] < 0; }
static int unmatched_b(const matcher *m, int64_t v) { return m->d->b2a[v] < 0; }

static void pair(matcher *m, int64_t va, int64_t vb, int how)
{
	module_diff *d = m->d;
	d->a2b[va] = vb;
	d->b2a[vb] = va;
	d->how[va] = (uint8_t)how;
	d->matched++;
	d->by_how[how]++;
	if (hs_vec_push(&m->queue, va) != 0)
		m->failed = 1;
}

static int same_opcode(const matcher *m, int64_t va, int64_t vb)
{
	return strcmp(graph_node_opcode_name(m->a.g, va), graph_node_opcode_name(m->b.g, vb)) == 0;
}

static int same_name(const matcher *m, int64_t va, int64_t vb)
{
	return (m->a.g->knows & m->b.g->knows & HM_KNOWS_NAMES) &&
	       strcmp(graph_node_name(m->a.g, va), graph_node_name(m->b.g, vb)) == 0;
}

static int same_comp_name(const matcher *m, int64_t va, int64_t vb)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	return (a->knows & b->knows & HM_KNOWS_NAMES) && strcmp(graph_hcomp_name(a, a->hcomp_of[va]),
						graph_hcomp_name(b, b->hcomp_of[vb])) == 0;
}

/* Exact (content equal) or loose (opcode equal) likeness of a and b. */
static int alike(const matcher *m, int64_t va, int64_t vb, int loose)
{
	return loose ? same_opcode(m, va, vb) : m->a.content[va] == m->b.content[vb];
}

/* B's unmatched nodes with a key (b.key[v], 0 for none) into t: each
 * entry's `first` heads a chain through b.next in B's order. */
static void group_b(matcher *m, key_table *t)
{
	side *s = &m->b;
	if (hs_index_reserve(&t->ix, (size_t)(s->n - m->d->matched)) != 0)
		t->failed = 1;
	for (int64_t i = s->n - 1; i >= 0 && !t->failed; i--) {
		int64_t v = s->order[i];
		uint64_t k = s->key[v], h = k ^ k >> 32;
		if (!k || !unmatched_b(m, v))
			continue;
		int32_t e = hs_index_find(&t->ix, (uint32_t)h, same_key, t, &k);
		if (e < 0) {
			e = (int32_t)t->v.n;
			if (hs_vec_push(&t->v, ((key_entry){k, -1, 0})) != 0 || hs_index_add(&t->ix, (uint32_t)h, e) != 0) {
				t->failed = 1;
				break;
			}
		}
		s->next[v] = t->v.v[e].first;
		t->v.v[e].first = v;
		t->v.v[e].count++;
	}
	if (t->failed)
		m->failed = 1;
}

/* The node of B's group `key` that pairs with A's va: the only unmatched
 * one when va is the only one of A (a_unique).  Else, with `force` (ties
 * broken), the one named as va, or the first one in a computation named
 * as va's (names break ties between equally good candidates), or the
 * first.  *how says which.  -1 when none. */
static int64_t pick(matcher *m, key_table *t, uint64_t key, int64_t va, int a_unique, int force, int *how)
{
	int32_t e = hs_index_find(&t->ix, (uint32_t)(key ^ key >> 32), same_key, t, &key);
	if (e < 0)
		return -1;
	key_entry *x = &t->v.v[e];
	while (x->first >= 0 && !unmatched_b(m, x->first))
		x->first = m->b.next[x->first];     /* skipped once for all */
	int64_t seen = 0, named = -1, in_comp = -1, steps = 0;
	for (int64_t w = x->first; w >= 0 && steps < 64 && (force || seen < 2); w = m->b.next[w], steps++)
		if (unmatched_b(m, w)) {
			seen++;
			if (force && named < 0 && same_name(m, va, w))
				named = w;
			if (force && in_comp < 0 && same_comp_name(m, va, w))
				in_comp = w;
		}
	*how = HD_BY_STRUCTURE;
	if (seen == 1 && a_unique)
		return x->first;
	if (!force)
		return -1;
	if (named >= 0 || in_comp >= 0) {
		*how = HD_BY_NAME;
		return named >= 0 ? named : in_comp;
	}
	return x->first;
}

static void propagate(matcher *m, int loose, int force);

/* Equal fingerprints (down or up): the only one in each module pairs;
 * with `force`, ties go to names, then to order: callers first, each
 * tie's pair propagated from before the next is broken, so that the
 * neighbours of a tie follow it rather than being broken apart. */
static void match_fingerprints(matcher *m, const uint64_t *fa, const uint64_t *fb, int force)
{
	key_table *ta = &m->t[0], *tb = &m->t[1];
	memcpy(m->b.key, fb, (size_t)m->b.n * sizeof *fb);
	group_b(m, tb);
	if (hs_index_reserve(&ta->ix, (size_t)(m->a.n - m->d->matched)) != 0)
		ta->failed = 1;
	for (int64_t v = 0; v < m->a.n && !ta->failed; v++)
		if (unmatched_a(m, v))
			table_add(ta, fa[v], v);
	for (int64_t i = 0; i < m->a.n && !m->failed && !ta->failed; i++) {
		int64_t v = m->a.order[force ? m->a.n - 1 - i : i];
		int how;
		if (!unmatched_a(m, v))
			continue;
		int64_t w = pick(m, tb, fa[v], v, table_get(ta, fa[v])->count == 1, force, &how);
		if (w >= 0)
			pair(m, v, w, how);
		if (w >= 0 && force)
			propagate(m, 0, 1);
	}
	if (ta->failed)
		m->failed = 1;
	table_reset(ta);
	table_reset(tb);
}

/* A node's content with its operands (through fusion parameters), each
 * named by its node in B (map: a2b for A's nodes, NULL for B's); 0 when
 * it has no operands or one is not matched. */
static uint64_t operands_key(const hs_graph *g, const uint64_t *content, int64_t v, const int64_t *map)
{
	int64_t n = graph_hlo_n_operands(g, v);
	uint64_t h = mix(content[v], (uint64_t)n);
	if (!n)
		return 0;
	for (int64_t k = 0; k < n; k++) {
		int64_t o = through_params(g, graph_hlo_operands(g, v)[k]);
		if (map && (o = map[o]) < 0)
			return 0;
		h = mix(h, (uint64_t)o);
	}
	return h | 1;
}

/* Bottom-up: an instruction whose operands are all matched pairs with the
 * instruction of B of the same content on the same operands. */
static void bottom_up(matcher *m, int force)
{
	key_table *tb = &m->t[1];
	for (int64_t v = 0; v < m->b.n; v++)
		m->b.key[v] = unmatched_b(m, v) ? operands_key(m->b.g, m->b.content, v, NULL) : 0;
	group_b(m, tb);
	for (int64_t i = 0; i < m->a.n && !m->failed; i++) {
		int64_t v = m->a.order[i];
		int how;
		if (!unmatched_a(m, v))
			continue;
		uint64_t k = operands_key(m->a.g, m->a.content, v, m->d->a2b);
		int64_t w = k ? pick(m, tb, k, v, 1, force, &how) : -1;
		if (w >= 0)
			pair(m, v, w, how);
	}
	table_reset(tb);
}

static int64_t operand_pos(const hs_graph *g, int64_t u, int64_t v)
{
	for (int64_t i = 0; i < graph_hlo_n_operands(g, u); i++)
		if (graph_hlo_operands(g, u)[i] == v)
			return i;
	return -1;
}

/* A called computation's root and parameters pair with the other call's. */
static void pair_bodies(matcher *m, int64_t ca, int64_t cb, int loose)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	const hs_hcomp *ha = &a->hcomps[ca], *hb = &b->hcomps[cb];
	if (unmatched_a(m, ha->root) && unmatched_b(m, hb->root) && alike(m, ha->root, hb->root, loose))
		pair(m, ha->root, hb->root, HD_BY_NEIGHBOURS);
	m->params.n = 0;
	for (int64_t w = hb->first; w < hb->first + hb->count; w++) {
		int64_t num = graph_param_number(b, w);
		if (num < 0 || num >= hb->count)
			continue;
		while (m->params.n <= (size_t)num)
			if (hs_vec_push(&m->params, -1) != 0) {
				m->failed = 1;
				return;
			}
		m->params.v[num] = w;
	}
	for (int64_t v = ha->first; v < ha->first + ha->count; v++) {
		int64_t num = graph_param_number(a, v), w = num >= 0 && (size_t)num < m->params.n ? m->params.v[num] : -1;
		if (w >= 0 && unmatched_a(m, v) && unmatched_b(m, w) && alike(m, v, w, loose))
			pair(m, v, w, HD_BY_NEIGHBOURS);
	}
}

/* Top-down and sideways from each pair not yet propagated from: operand k
 * with operand k, users using the pair at the same position (the only
 * one alike, or the one of the same name), called bodies; exact (content
 * equal) or loose (opcode equal). */
static void propagate(matcher *m, int loose, int force)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	size_t *done = loose ? &m->loose_done : &m->exact_done;
	for (; *done < m->queue.n && !m->failed; ++*done) {
		int64_t va = m->queue.v[*done], vb = m->d->a2b[va];
		int64_t na = graph_hlo_n_operands(a, va), nb = graph_hlo_n_operands(b, vb);
		for (int64_t k = 0; k < na && k < nb; k++) {
			int64_t oa = graph_hlo_operands(a, va)[k], ob = graph_hlo_operands(b, vb)[k];
			if (unmatched_a(m, oa) && unmatched_b(m, ob) && alike(m, oa, ob, loose))
				pair(m, oa, ob, HD_BY_NEIGHBOURS);
		}
		int64_t ka = graph_n_called(a, va), kb = graph_n_called(b, vb);
		for (int64_t k = 0; k < ka && k < kb; k++)
			pair_bodies(m, a->called_idx[a->called_off[va] + k], b->called_idx[b->called_off[vb] + k], loose);
		int64_t ua = graph_hlo_n_users(a, va), ub = graph_hlo_n_users(b, vb);
		if (ua > MODULE_DIFF_FANOUT || ub > MODULE_DIFF_FANOUT)
			continue;
		for (int64_t i = 0; i < ua; i++) {
			int64_t u = graph_hlo_users(a, va)[i], pos = operand_pos(a, u, va), only = -1, named = -1, hits = 0;
			if (!unmatched_a(m, u))
				continue;
			for (int64_t j = 0; j < ub; j++) {
				int64_t w = graph_hlo_users(b, vb)[j];
				if (unmatched_b(m, w) && alike(m, u, w, loose) && operand_pos(b, w, vb) == pos) {
					only = w;
					hits++;
					if (named < 0 && same_name(m, u, w))
						named = w;
				}
			}
			if (hits == 1 || (force && named >= 0))
				pair(m, u, hits == 1 ? only : named, hits == 1 ? HD_BY_NEIGHBOURS : HD_BY_NAME);
		}
	}
}

/* Exact propagation and bottom-up matching until neither finds more. */
static void settle(matcher *m, int force)
{
	if (force && !m->forced) {
		m->exact_done = 0;   /* once again: ties go to names now */
		m->forced = 1;
	}
	for (int round = 0; round < 64 && !m->failed; round++) {
		propagate(m, 0, force);
		size_t n = m->queue.n;
		bottom_up(m, force);
		if (m->queue.n == n)
			break;
	}
}

/* An unmatched node between matched ones: operand k of a matched user,
 * whose counterpart's operand k is unmatched too and reads the same
 * (matched) operands in the same places.  Its opcode may differ: that is
 * how a changed op is found when nothing else names it. */
static void match_sandwiched(matcher *m)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	for (int64_t va = 0; va < a->n_nodes; va++) {
		if (!unmatched_a(m, va) || graph_hlo_n_users(a, va) == 0)
			continue;
		int64_t ua = graph_hlo_users(a, va)[0], ub = m->d->a2b[ua], k = operand_pos(a, ua, va);
		if (ub < 0 || k < 0 || k >= graph_hlo_n_operands(b, ub))
			continue;
		int64_t vb = graph_hlo_operands(b, ub)[k], n = graph_hlo_n_operands(a, va), agree = 0;
		if (!unmatched_b(m, vb) || graph_hlo_n_operands(b, vb) != n)
			continue;
		int ok = 1;
		for (int64_t i = 0; i < n && ok; i++) {
			int64_t oa = m->d->a2b[graph_hlo_operands(a, va)[i]];
			ok = oa < 0 || oa == graph_hlo_operands(b, vb)[i];
			agree += oa >= 0;
		}
		if (ok && (agree > 0 || same_opcode(m, va, vb)))
			pair(m, va, vb, HD_BY_NEIGHBOURS);
	}
}

/* What structure left: an unmatched instruction with the name and opcode
 * of an unmatched one of B. */
static void match_leftover_names(matcher *m)
{
	if (!(m->a.g->knows & m->b.g->knows & HM_KNOWS_NAMES))
		return;
	for (int64_t v = 0; v < m->b.n; v++)
		m->b.key[v] = str_hash(graph_node_name(m->b.g, v)) | 1;
	group_b(m, &m->t[1]);
	for (int64_t v = 0; v < m->a.n && !m->failed; v++) {
		int how;
		if (!unmatched_a(m, v))
			continue;
		int64_t w = pick(m, &m->t[1], str_hash(graph_node_name(m->a.g, v)) | 1, v, 0, 0, &how);
		if (w >= 0 && same_opcode(m, v, w))
			pair(m, v, w, HD_BY_NAME);
	}
	table_reset(&m->t[1]);
}

/* --names-only: names unique in each module, then (computation, name). */
static int match_names(matcher *m)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	key_table t[4];
	if (!(a->knows & b->knows & HM_KNOWS_NAMES))
		return 0;
	memset(t, 0, sizeof t);
	for (int s = 0; s < 2; s++) {
		const hs_graph *g = s ? b : a;
		for (int64_t v = 0; v < g->n_nodes; v++) {
			uint64_t h = str_hash(graph_node_name(g, v));
			table_add(&t[s], h, v);
			table_add(&t[2 + s], mix(h, str_hash(graph_hcomp_name(g, g->hcomp_of[v]))), v);
		}
	}
	for (int64_t v = 0; v < a->n_nodes; v++) {
		const char *name = graph_node_name(a, v);
		uint64_t h = str_hash(name);
		const key_entry *sa = table_get(&t[0], h), *sb = table_get(&t[1], h);
		int64_t w = -1;
		if (sa->count == 1 && sb->count == 1) {
			w = sb->first;
		} else {
			uint64_t hc = mix(h, str_hash(graph_hcomp_name(a, a->hcomp_of[v])));
			const key_entry *pa = table_get(&t[2], hc), *pb = table_get(&t[3], hc);
			if (pa->count == 1 && pb->count == 1)
				w = pb->first;
		}
		if (w >= 0 && unmatched_b(m, w) && same_name(m, v, w))
			pair(m, v, w, HD_BY_NAME);
	}
	int rc = 0;
	for (int i = 0; i < 4; i++) {
		rc |= t[i].failed;
		table_free(&t[i]);
	}
	return rc ? -1 : 0;
}

static int cmp_votes(const void *x, const void *y)
{
	const int64_t *p = x, *q = y;
	for (int i = 0; i < 3; i++)
		if (p[i] != q[i])
			return i == 0 ? (p[i] < q[i]) - (p[i] > q[i]) : (p[i] > q[i]) - (p[i] < q[i]);
	return 0;
}

/* Computations, one to one: each (A computation, B computation) with the
 * number of pairs between them, the most first, taken when neither is
 * taken yet; then a computation left on both sides by its name. */
static int match_comps(module_diff *d)
{
	const hs_graph *a = d->a, *b = d->b;
	int64_t (*v)[3] = malloc(((size_t)d->matched + 1) * sizeof *v), k = 0, runs = 0;
	int64_t *b2a = malloc(((size_t)b->n_hcomps + 1) * sizeof *b2a);
	if (!v || !b2a) {
		free(v);
		free(b2a);
		return -1;
	}
	for (int64_t x = 0; x < a->n_nodes; x++)
		if (d->a2b[x] >= 0) {
			v[k][0] = 0;
			v[k][1] = a->hcomp_of[x];
			v[k++][2] = b->hcomp_of[d->a2b[x]];
		}
	qsort(v, (size_t)k, sizeof *v, cmp_votes);
	for (int64_t i = 0, j; i < k; i = j) {   /* runs of one (A, B) into counts */
		for (j = i; j < k && v[j][1] == v[i][1] && v[j][2] == v[i][2]; j++)
			;
		v[runs][0] = j - i;
		v[runs][1] = v[i][1];
		v[runs++][2] = v[i][2];
	}
	qsort(v, (size_t)runs, sizeof *v, cmp_votes);
	for (int64_t c = 0; c < a->n_hcomps; c++)
		d->comp_a2b[c] = -1;
	for (int64_t c = 0; c < b->n_hcomps; c++)
		b2a[c] = -1;
	for (int64_t i = 0; i < runs; i++)
		if (d->comp_a2b[v[i][1]] < 0 && b2a[v[i][2]] < 0) {
			d->comp_a2b[v[i][1]] = v[i][2];
			b2a[v[i][2]] = v[i][1];
		}
	free(v);
	int rc = 0;
	if ((a->knows & b->knows & HM_KNOWS_NAMES)) {
		key_table tb = {0};
		for (int64_t c = 0; c < b->n_hcomps; c++)
			if (b2a[c] < 0)
				table_add(&tb, str_hash(graph_hcomp_name(b, c)), c);
		for (int64_t c = 0; c < a->n_hcomps; c++) {
			const key_entry *s = d->comp_a2b[c] < 0 ? table_get(&tb, str_hash(graph_hcomp_name(a, c))) : &no_key;
			int64_t w = s->count == 1 ? s->first : -1;
			if (w >= 0 && b2a[w] < 0 && strcmp(graph_hcomp_name(a, c), graph_hcomp_name(b, w)) == 0) {
				d->comp_a2b[c] = w;
				b2a[w] = c;
			}
		}
		rc = tb.failed ? -1 : 0;
		table_free(&tb);
	}
	free(b2a);
	return rc;
}

/* ---- changes --------------------------------------------------------------- */

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* 1 when the readers' fields of two instructions say their attributes are
 * the same (dimensions, fusion kind, sharding, metadata, every other
 * attribute as written; an instruction with rare fields is left to the
 * text): then their attributes need not be printed, which on a module of a million
 * instructions is most of the time spent on changes. */
static int attrs_surely_equal(const hm_instr *a, const hm_instr *b)
{
	if (!a || !b || a->x || b->x || a->n_dimensions != b->n_dimensions || a->n_attrs != b->n_attrs ||
	    a->source_line != b->source_line)
		return 0;
	if (a->n_dimensions && memcmp(a->dimensions, b->dimensions, (size_t)a->n_dimensions * sizeof *a->dimensions))
		return 0;
	if (!same_str(a->fusion_kind, b->fusion_kind) || !same_str(a->sharding, b->sharding) ||
	    !same_str(a->op_type, b->op_type) || !same_str(a->op_name, b->op_name) ||
	    !same_str(a->source_file, b->source_file))
		return 0;
	for (int i = 0; i < a->n_attrs; i++)
		if (!same_str(a->attrs[i].name, b->attrs[i].name) || !same_str(a->attrs[i].value, b->attrs[i].value))
			return 0;
	return 1;
}

/* The attributes of a pair that differ, each to fn (when not NULL) with
 * its values (NULL on the side that has none); 1 when any does.
 * Attributes that name computations are compared through the matching
 * (reported as "calls"). */
static int attrs_differ(const module_diff *d, int64_t va, module_diff_fn fn, void *ctx)
{
	const hs_graph *a = d->a, *b = d->b;
	int64_t vb = d->a2b[va];
	const hm_instr *ia = graph_node_instr(a, va), *ib = graph_node_instr(b, vb);
	hm_attr *xa = NULL, *xb = NULL;
	int rc = 0;
	if ((!fn && attrs_surely_equal(ia, ib)) || !ia || !ib)
		goto called;
	int na = hm_instr_attr_list(a->module, ia, &xa), nb = hm_instr_attr_list(b->module, ib, &xb);
	for (int pass = 0; pass < 2 && na >= 0 && nb >= 0; pass++) {
		const hm_attr *x = pass ? xb : xa, *y = pass ? xa : xb;
		int nx = pass ? nb : na, ny = pass ? na : nb;
		for (int i = 0; i < nx; i++) {
			int j = 0;
			while (j < ny && strcmp(y[j].name, x[i].name) != 0)
				j++;
			if (is_name_attr(x[i].name) || (j < ny && (pass || strcmp(x[i].value, y[j].value) == 0)))
				continue;
			rc = 1;
			if (fn)
				fn(ctx, HD_ATTRIBUTES, x[i].name, pass ? NULL : x[i].value,
				   pass ? x[i].value : j < ny ? y[j].value : NULL);
		}
	}
called:;
	/* computations called, through the matching */
	int64_t ka = graph_n_called(a, va), kb = graph_n_called(b, vb), differ = ka != kb;
	for (int64_t k = 0; k < ka && k < kb; k++)
		differ |= d->comp_a2b[a->called_idx[a->called_off[va] + k]] != b->called_idx[b->called_off[vb] + k];
	if (differ && fn) {
		hs_strbuf o = {0}, n = {0};
		for (int64_t k = 0; k < ka; k++) {
			int64_t c = a->called_idx[a->called_off[va] + k], w = d->comp_a2b[c];
			hs_strbuf_printf(&o, "%s%s%s", k ? ", " : "", w < 0 ? "A:" : "",
					 w < 0 ? graph_hcomp_name(a, c) : graph_hcomp_name(b, w));
		}
		for (int64_t k = 0; k < kb; k++)
			hs_strbuf_printf(&n, "%s%s", k ? ", " : "",
					 graph_hcomp_name(b, b->called_idx[b->called_off[vb] + k]));
		fn(ctx, HD_ATTRIBUTES, "calls", hs_strbuf_str(&o), hs_strbuf_str(&n));
		hs_strbuf_free(&o);
		hs_strbuf_free(&n);
	}
	free(xa);
	free(xb);
	return rc || differ;
}

static uint32_t pair_changes(const module_diff *d, int64_t va)
{
	const hs_graph *a = d->a, *b = d->b;
	int64_t vb = d->a2b[va];
	uint32_t ch = 0;
	if (strcmp(graph_node_opcode_name(a, va), graph_node_opcode_name(b, vb)) != 0)
		ch |= HD_OPCODE;
	const hm_instr *ia = graph_node_instr(a, va), *ib = graph_node_instr(b, vb);
	if (a->knows & b->knows & HM_KNOWS_ATTRS) {   /* else the features stand for shape and attributes */
		if (shape_hash(ia->shape, 0) != shape_hash(ib->shape, 0))
			ch |= HD_SHAPE;
		else if (shape_hash(ia->shape, 1) != shape_hash(ib->shape, 1))
			ch |= HD_LAYOUT;
		if (attrs_differ(d, va, NULL, NULL))
			ch |= HD_ATTRIBUTES;
	} else if (node_hash(a, va) != node_hash(b, vb)) {
		ch |= HD_SHAPE;
	}
	int64_t na = graph_hlo_n_operands(a, va), nb = graph_hlo_n_operands(b, vb);
	int ops = na != nb;
	for (int64_t k = 0; k < na && !ops; k++) {
		int64_t oa = through_params(a, graph_hlo_operands(a, va)[k]);
		int64_t ob = through_params(b, graph_hlo_operands(b, vb)[k]);
		ops = d->a2b[oa] != ob;
	}
	if (ops)
		ch |= HD_OPERANDS;
	if (d->comp_a2b[a->hcomp_of[va]] != b->hcomp_of[vb])
		ch |= HD_COMPUTATION;
	return ch;
}

/* An operand list as "x, y", each named as in B (A:name without one); a
 * fusion body's parameter with the caller's operand it stands for. */
static void operand_list(const module_diff *d, int in_b, int64_t v, hs_strbuf *out)
{
	const hs_graph *g = in_b ? d->b : d->a;
	for (int64_t k = 0; k < graph_hlo_n_operands(g, v); k++) {
		int64_t o = graph_hlo_operands(g, v)[k], t = through_params(g, o);
		for (int pass = 0; pass < 1 + (t != o); pass++) {   /* a body's parameter: "p(caller's operand)" */
			int64_t x = pass ? t : o, w = in_b ? x : d->a2b[x];
			hs_strbuf_printf(out, "%s%s%s", pass ? "(" : k ? ", " : "", w < 0 ? "A:" : "",
					 w < 0 ? graph_node_name(g, x) : graph_node_name(d->b, w));
		}
		if (t != o)
			hs_strbuf_putc(out, ')');
	}
}

int module_diff_details(const module_diff *d, int64_t va, module_diff_fn fn, void *ctx)
{
	int64_t vb = d->a2b[va];
	uint32_t ch = vb >= 0 ? d->changes[va] : 0;
	const hm_instr *ia = graph_node_instr(d->a, va), *ib = vb >= 0 ? graph_node_instr(d->b, vb) : NULL;
	hs_strbuf o = {0}, n = {0};
	if (ch & HD_OPCODE)
		fn(ctx, HD_OPCODE, NULL, graph_node_opcode_name(d->a, va), graph_node_opcode_name(d->b, vb));
	if ((ch & (HD_SHAPE | HD_LAYOUT)) && ia && ib) {
		size_t la = (size_t)hm_shape_text(ia->shape, NULL, 0), lb = (size_t)hm_shape_text(ib->shape, NULL, 0);
		char *sa = malloc(la + 1), *sb = malloc(lb + 1);
		if (sa && sb) {
			hm_shape_text(ia->shape, sa, la + 1);
			hm_shape_text(ib->shape, sb, lb + 1);
			fn(ctx, ch & HD_SHAPE ? HD_SHAPE : HD_LAYOUT, NULL, sa, sb);
		}
		free(sa);
		free(sb);
		if (!sa || !sb)
			return -1;
	}
	if (ch & HD_OPERANDS) {
		operand_list(d, 0, va, &o);
		operand_list(d, 1, vb, &n);
		fn(ctx, HD_OPERANDS, NULL, hs_strbuf_str(&o), hs_strbuf_str(&n));
	}
	if (ch & HD_ATTRIBUTES)
		attrs_differ(d, va, fn, ctx);
	if (ch & HD_COMPUTATION)
		fn(ctx, HD_COMPUTATION, NULL, graph_hcomp_name(d->a, d->a->hcomp_of[va]),
		   graph_hcomp_name(d->b, d->b->hcomp_of[vb]));
	int rc = o.failed || n.failed ? -1 : 0;
	hs_strbuf_free(&o);
	hs_strbuf_free(&n);
	return rc;
}

const char *module_diff_change_name(unsigned bit)
{
	switch (bit) {
	case HD_OPCODE: return "opcode";
	case HD_SHAPE: return "shape";
	case HD_LAYOUT: return "layout";
	case HD_OPERANDS: return "operands";
	case HD_ATTRIBUTES: return "attributes";
	case HD_COMPUTATION: return "computation";
	default: return "?";
	}
}

/* ---- the whole -------------------------------------------------------------- */

static int costs(module_diff *d)
{
	d->cost_a = calloc((size_t)d->a->n_nodes + 1, sizeof *d->cost_a);
	d->cost_b = calloc((size_t)d->b->n_nodes + 1, sizeof *d->cost_b);
	if (!d->cost_a || !d->cost_b)
		return -1;
	return cost_analytic(d->a, d->cost_a) < 0 || cost_analytic(d->b, d->cost_b) < 0 ? -1 : 0;
}

int module_diff_run(module_diff *d, const hs_graph *a, const hs_graph *b, unsigned flags, hs_error *err)
{
	memset(d, 0, sizeof *d);
	d->a = a;
	d->b = b;
	matcher m = {.d = d, .a = {.g = a, .n = a->n_nodes}, .b = {.g = b, .n = b->n_nodes}};
	d->a2b = malloc(((size_t)a->n_nodes + 1) * sizeof *d->a2b);
	d->b2a = malloc(((size_t)b->n_nodes + 1) * sizeof *d->b2a);
	d->how = calloc((size_t)a->n_nodes + 1, 1);
	d->changes = calloc((size_t)a->n_nodes + 1, sizeof *d->changes);
	d->comp_a2b = malloc(((size_t)a->n_hcomps + 1) * sizeof *d->comp_a2b);
	int rc = -1;
	if (!d->a2b || !d->b2a || !d->how || !d->changes || !d->comp_a2b)
		goto done;
	for (int64_t v = 0; v < a->n_nodes; v++)
		d->a2b[v] = -1;
	for (int64_t v = 0; v < b->n_nodes; v++)
		d->b2a[v] = -1;
	if (flags & HD_NAMES_ONLY) {
		if (match_names(&m) != 0)
			goto done;
	} else {
		if (fingerprints(&m.a) != 0 || fingerprints(&m.b) != 0)
			goto done;
		uint64_t *both_a = malloc(((size_t)a->n_nodes + 1) * sizeof *both_a);
		uint64_t *both_b = malloc(((size_t)b->n_nodes + 1) * sizeof *both_b);
		for (int64_t v = 0; both_a && v < a->n_nodes; v++)
			both_a[v] = mix(m.a.down[v], m.a.up[v]) | 1;
		for (int64_t v = 0; both_b && v < b->n_nodes; v++)
			both_b[v] = mix(m.b.down[v], m.b.up[v]) | 1;
		for (int force = 0; force < 2 && both_a && both_b; force++) {   /* unique first, then ties */
			match_fingerprints(&m, m.a.down, m.b.down, force);
			match_fingerprints(&m, m.a.up, m.b.up, force);
			match_fingerprints(&m, both_a, both_b, force);
			settle(&m, force);
		}
		m.failed |= !both_a || !both_b;
		free(both_a);
		free(both_b);

		for (int round = 0; round < 16 && !m.failed; round++) {
			size_t n = m.queue.n;
			propagate(&m, 1, 1);
			match_sandwiched(&m);
			settle(&m, 1);
			if (m.queue.n == n)
				break;
		}
		match_leftover_names(&m);
		propagate(&m, 1, 1);
	}
	if (m.failed || match_comps(d) != 0 || costs(d) != 0)
		goto done;
	for (int64_t v = 0; v < a->n_nodes; v++) {
		if (d->a2b[v] < 0) {
			d->only_a++;
			continue;
		}
		d->changes[v] = pair_changes(d, v);
		d->changed += d->changes[v] != 0;
		d->renamed += (a->knows & b->knows & HM_KNOWS_NAMES) && strcmp(graph_node_name(a, v),
								graph_node_name(b, d->a2b[v])) != 0;
	}
	d->only_b = b->n_nodes - d->matched;
	rc = 0;
done:
	free_side(&m.a);
	free_side(&m.b);
	hs_vec_free(&m.queue);
	hs_vec_free(&m.params);
	for (int i = 0; i < 2; i++)
		table_free(&m.t[i]);
	if (rc) {
		module_diff_free(d);
		hs_fail(err, HS_ENOMEM, "out of memory comparing %s with %s", a->path, b->path);
	}
	return rc;
}

void module_diff_free(module_diff *d)
{
	free(d->a2b);
	free(d->b2a);
	free(d->how);
	free(d->changes);
	free(d->comp_a2b);
	free(d->cost_a);
	free(d->cost_b);
	memset(d, 0, sizeof *d);
}
