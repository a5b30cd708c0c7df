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
	uint64_t *down, *up;
} side;

static void free_side(side *s)
{
	free(s->order);
	free(s->down);
	free(s->up);
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

/* What a node is, apart from its neighbours: opcode, shape, and the
 * attributes that say what it computes (never a name). */
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
	for (int i = 0; i < in->n_attrs; i++)
		h = mix(mix(h, str_hash(in->attrs[i].name)), str_hash(in->attrs[i].value));
	return h;
}

/* Bottom-up and top-down fingerprints in s->order. */
static int fingerprints(side *s)
{
	const hs_graph *g = s->g;
	int64_t n = s->n, nc = g->n_hcomps, k = 0;
	int64_t *comps = malloc(((size_t)nc + 1) * sizeof *comps);
	s->order = malloc(((size_t)n + 1) * sizeof *s->order);
	s->down = calloc((size_t)n + 1, sizeof *s->down);
	s->up = calloc((size_t)n + 1, sizeof *s->up);
	if (!comps || !s->order || !s->down || !s->up || comp_order(g, comps) != 0) {
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
		uint64_t h = node_hash(g, v);
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
		s->up[v] = mix(node_hash(g, v), acc) | 1;
	}
	return 0;
}

/* ---- pairing ------------------------------------------------------------- */

typedef struct matcher {
	module_diff *d;
	side a, b;
	HS_VEC(int64_t) queue;    /* A nodes whose pair is new */
	key_table t[4];           /* for each step, reset by it */
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

/* Step 1: names unique in each module, then (computation, name). */
static int match_names(matcher *m)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	key_table *ta = &m->t[0], *tb = &m->t[1], *ca = &m->t[2], *cb = &m->t[3];
	if (!(a->knows & b->knows & HM_KNOWS_NAMES))   /* derived names match nothing */
		return 0;
	for (int64_t v = 0; v < a->n_nodes; v++) {
		uint64_t h = str_hash(graph_node_name(a, v));
		table_add(ta, h, v);
		table_add(ca, mix(h, str_hash(graph_hcomp_name(a, a->hcomp_of[v]))), v);
	}
	for (int64_t v = 0; v < b->n_nodes; v++) {
		uint64_t h = str_hash(graph_node_name(b, v));
		table_add(tb, h, v);
		table_add(cb, mix(h, str_hash(graph_hcomp_name(b, b->hcomp_of[v]))), v);
	}
	for (int64_t v = 0; v < a->n_nodes; v++) {
		const char *name = graph_node_name(a, v);
		uint64_t h = str_hash(name);
		const key_entry *sa = table_get(ta, h), *sb = table_get(tb, h);
		int64_t w = -1;
		if (sa->count == 1 && sb->count == 1) {
			w = sb->first;
		} else {
			uint64_t hc = mix(h, str_hash(graph_hcomp_name(a, a->hcomp_of[v])));
			const key_entry *pa = table_get(ca, hc), *pb = table_get(cb, hc);
			if (pa->count == 1 && pb->count == 1)
				w = pb->first;
		}
		/* the hashes agree; the names must too */
		if (w >= 0 && unmatched_b(m, w) && strcmp(name, graph_node_name(b, w)) == 0)
			pair(m, v, w, HD_BY_NAME);
	}
	int rc = ta->failed || tb->failed || ca->failed || cb->failed ? -1 : 0;
	for (int i = 0; i < 4; i++)
		table_reset(&m->t[i]);
	return rc;
}

/* Step 2: equal fingerprints, as many in A as in B, pair in node order. */
static int match_fingerprints(matcher *m, const uint64_t *fa, const uint64_t *fb)
{
	const side *A = &m->a, *B = &m->b;
	key_table *ta = &m->t[0], *tb = &m->t[1];
	for (int64_t i = 0; i < A->n; i++)
		if (unmatched_a(m, A->order[i]))
			table_add(ta, fa[A->order[i]], A->order[i]);
	for (int64_t i = 0; i < B->n; i++)
		if (unmatched_b(m, B->order[i]))
			table_add(tb, fb[B->order[i]], B->order[i]);
	/* walk B in order once per key: next[] threads B's nodes of a key */
	int64_t *next = malloc(((size_t)B->n + 1) * sizeof *next), *tail = NULL;
	int64_t *head = malloc((tb->v.n + 1) * sizeof *head);
	tail = malloc((tb->v.n + 1) * sizeof *tail);
	int rc = !next || !head || !tail || ta->failed || tb->failed ? -1 : 0;
	for (size_t i = 0; rc == 0 && i < tb->v.n; i++)
		head[i] = tail[i] = -1;
	for (int64_t i = 0; rc == 0 && i < B->n; i++) {
		int64_t v = B->order[i];
		next[v] = -1;
		if (!unmatched_b(m, v))
			continue;
		size_t k = (size_t)(table_get(tb, fb[v]) - tb->v.v);
		if (tail[k] < 0)
			head[k] = v;
		else
			next[tail[k]] = v;
		tail[k] = v;
	}
	for (int64_t i = 0; rc == 0 && i < A->n; i++) {
		int64_t v = A->order[i];
		if (!unmatched_a(m, v))
			continue;
		const key_entry *sa = table_get(ta, fa[v]), *sb = table_get(tb, fa[v]);
		if (sb->first < 0 || sa->count != sb->count)
			continue;
		size_t k = (size_t)(sb - tb->v.v);
		while (head[k] >= 0 && !unmatched_b(m, head[k]))
			head[k] = next[head[k]];
		if (head[k] >= 0) {
			int64_t w = head[k];
			head[k] = next[w];
			pair(m, v, w, HD_BY_STRUCTURE);
		}
	}
	free(next);
	free(head);
	free(tail);
	table_reset(ta);
	table_reset(tb);
	return rc;
}

static int64_t operand_pos(const hs_graph *g, int64_t u, int64_t v)
{
	for (int64_t i = 0; i < graph_hlo_n_operands(g, u); i++)
		if (graph_hlo_operands(g, u)[i] == v)
			return i;
	return -1;
}

/* A called computation's root and parameters pair with the other call's. */
static void pair_bodies(matcher *m, int64_t ca, int64_t cb)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	const hs_hcomp *ha = &a->hcomps[ca], *hb = &b->hcomps[cb];
	if (unmatched_a(m, ha->root) && unmatched_b(m, hb->root) && same_opcode(m, ha->root, hb->root))
		pair(m, ha->root, hb->root, HD_BY_NEIGHBOURS);
	for (int64_t v = ha->first; v < ha->first + ha->count; v++) {
		int64_t num = graph_param_number(a, v);
		if (num < 0 || !unmatched_a(m, v))
			continue;
		for (int64_t w = hb->first; w < hb->first + hb->count; w++)
			if (graph_param_number(b, w) == num) {
				if (unmatched_b(m, w))
					pair(m, v, w, HD_BY_NEIGHBOURS);
				break;
			}
	}
}

/* Step 3: from each new pair to its operands, users and called bodies. */
static void propagate(matcher *m, size_t from)
{
	const hs_graph *a = m->a.g, *b = m->b.g;
	for (size_t qi = from; qi < m->queue.n && !m->failed; qi++) {
		int64_t va = m->queue.v[qi], vb = m->d->a2b[va];
		int64_t na = graph_hlo_n_operands(a, va), nb = graph_hlo_n_operands(b, vb);
		for (int64_t k = 0; k < na && k < nb; k++) {
			int64_t oa = graph_hlo_operands(a, va)[k], ob = graph_hlo_operands(b, vb)[k];
			if (unmatched_a(m, oa) && unmatched_b(m, ob) && same_opcode(m, oa, ob))
				pair(m, oa, ob, HD_BY_NEIGHBOURS);
		}
		int64_t ka = a->called_off[va + 1] - a->called_off[va], kb = b->called_off[vb + 1] - b->called_off[vb];
		for (int64_t k = 0; k < ka && k < kb; k++)
			pair_bodies(m, a->called_idx[a->called_off[va] + k], b->called_idx[b->called_off[vb] + k]);
		int64_t ua = graph_hlo_n_users(a, va), ub = graph_hlo_n_users(b, vb);
		if (ua > MODULE_DIFF_FANOUT || ub > MODULE_DIFF_FANOUT)
			continue;
		for (int64_t i = 0; i < ua; i++) {
			int64_t u = graph_hlo_users(a, va)[i], pos = operand_pos(a, u, va), only = -1, hits = 0;
			if (!unmatched_a(m, u))
				continue;
			for (int64_t j = 0; j < ub; j++) {
				int64_t w = graph_hlo_users(b, vb)[j];
				if (unmatched_b(m, w) && same_opcode(m, u, w) && operand_pos(b, w, vb) == pos) {
					only = w;
					hits++;
				}
			}
			if (hits == 1)
				pair(m, u, only, HD_BY_NEIGHBOURS);
		}
	}
}

/* Step 4: an unmatched node between matched ones: operand k of a matched
 * user, whose counterpart's operand k is unmatched too and reads the same
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

/* Computations: by name, else the one of B that most of its matched
 * instructions went to (a vote: (A computation, B computation) of every
 * pair, sorted, the longest run per A computation). */
static int match_comps(module_diff *d)
{
	const hs_graph *a = d->a, *b = d->b;
	int64_t (*votes)[2] = malloc(((size_t)d->matched + 1) * sizeof *votes), k = 0;
	int64_t *best_n = calloc((size_t)a->n_hcomps + 1, sizeof *best_n);
	if (!votes || !best_n) {
		free(votes);
		free(best_n);
		return -1;
	}
	for (int64_t v = 0; v < a->n_nodes; v++)
		if (d->a2b[v] >= 0) {
			votes[k][0] = a->hcomp_of[v];
			votes[k++][1] = b->hcomp_of[d->a2b[v]];
		}
	qsort(votes, (size_t)k, sizeof *votes, hs_cmp_i64_pair);
	for (int64_t c = 0; c < a->n_hcomps; c++)
		d->comp_a2b[c] = -1;
	for (int64_t i = 0, j; i < k; i = j) {
		for (j = i; j < k && votes[j][0] == votes[i][0] && votes[j][1] == votes[i][1]; j++)
			;
		if (j - i > best_n[votes[i][0]]) {
			best_n[votes[i][0]] = j - i;
			d->comp_a2b[votes[i][0]] = votes[i][1];
		}
	}
	free(votes);
	free(best_n);
	if (!(a->knows & b->knows & HM_KNOWS_NAMES))   /* derived names match nothing */
		return 0;
	/* by name: B's names in a table (a search per computation would be
	 * quadratic: 100,000 computations took a minute) */
	key_table tb = {0};
	for (int64_t c = 0; c < b->n_hcomps; c++)
		table_add(&tb, str_hash(graph_hcomp_name(b, c)), c);
	for (int64_t c = 0; c < a->n_hcomps; c++) {
		const char *name = graph_hcomp_name(a, c);
		const key_entry *s = table_get(&tb, str_hash(name));
		int64_t w = s->count == 1 ? s->first : s->count > 1 ? graph_find_hcomp(b, name) : -1;
		if (w >= 0 && strcmp(name, graph_hcomp_name(b, w)) == 0)
			d->comp_a2b[c] = w;
	}
	int rc = tb.failed ? -1 : 0;
	table_free(&tb);
	return rc;
}

/* ---- changes --------------------------------------------------------------- */

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

/* The attributes of a pair that differ: their names into out (when not
 * NULL); 1 when any does.  Attributes that name computations or
 * instructions are compared through the matching. */
static int attrs_differ(const module_diff *d, int64_t va, hs_strbuf *out)
{
	const hm_instr *ia = graph_node_instr(d->a, va), *ib = graph_node_instr(d->b, d->a2b[va]);
	hm_attr *xa = NULL, *xb = NULL;
	int rc = 0;
	if ((!out && attrs_surely_equal(ia, ib)) || !ia || !ib)
		goto called;
	int na = hm_instr_attr_list(d->a->module, ia, &xa), nb = hm_instr_attr_list(d->b->module, ib, &xb);
	for (int pass = 0; pass < 2 && na >= 0 && nb >= 0; pass++) {
		const hm_attr *x = pass ? xb : xa, *y = pass ? xa : xb;
		int nx = pass ? nb : na, ny = pass ? na : nb;
		for (int i = 0; i < nx; i++) {
			int j = 0;
			while (j < ny && strcmp(y[j].name, x[i].name) != 0)
				j++;
			int differs = j == ny;
			if (!differs && pass == 0 && !is_name_attr(x[i].name))
				differs = strcmp(x[i].value, y[j].value) != 0;
			if (!differs)
				continue;
			rc = 1;
			if (out)
				hs_strbuf_printf(out, "%s%s", out->len ? ", " : "", x[i].name);
		}
	}
called:;
	/* computations called, through the matching */
	const hs_graph *a = d->a, *b = d->b;
	int64_t vb = d->a2b[va], ka = graph_n_called(a, va), kb = graph_n_called(b, vb);
	for (int64_t k = 0; k < ka && k < kb; k++)
		if (d->comp_a2b[a->called_idx[a->called_off[va] + k]] != b->called_idx[b->called_off[vb] + k]) {
			rc = 1;
			if (out)
				hs_strbuf_printf(out, "%scalled computation %lld", out->len ? ", " : "", (long long)k);
		}
	free(xa);
	free(xb);
	return rc;
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
		if (attrs_differ(d, va, NULL))
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

void module_diff_attr_changes(const module_diff *d, int64_t va, char *buf, size_t cap)
{
	hs_strbuf b = {0};
	if (cap)
		buf[0] = '\0';
	if (d->a2b[va] >= 0)
		attrs_differ(d, va, &b);
	if (cap)
		snprintf(buf, cap, "%s", hs_strbuf_str(&b));
	hs_strbuf_free(&b);
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
	matcher m = {.d = d, .a = {a, a->n_nodes, 0, 0, 0}, .b = {b, b->n_nodes, 0, 0, 0}};
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
	if (match_names(&m) != 0)
		goto done;
	if (!(flags & HD_NAMES_ONLY)) {
		if (fingerprints(&m.a) != 0 || fingerprints(&m.b) != 0)
			goto done;
		size_t seen = 0;
		propagate(&m, seen);
		seen = m.queue.n;
		for (int round = 0; round < 2 && !m.failed; round++) {
			if (match_fingerprints(&m, m.a.down, m.b.down) != 0 ||
			    match_fingerprints(&m, m.a.up, m.b.up) != 0)
				goto done;
			propagate(&m, seen);
			seen = m.queue.n;
		}
		for (int round = 0; round < 16 && !m.failed; round++) {
			match_sandwiched(&m);
			if (m.queue.n == seen)
				break;
			propagate(&m, seen);
			seen = m.queue.n;
		}
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
	}
	d->only_b = b->n_nodes - d->matched;
	rc = 0;
done:
	free_side(&m.a);
	free_side(&m.b);
	hs_vec_free(&m.queue);
	for (int i = 0; i < 4; i++)
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
