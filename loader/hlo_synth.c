/* hlo_synth.c - the module of a dataset .npz, from its arrays (hlo_synth.h). */
#include "hlo_synth.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/index.h"
#include "hlo.h"

/* ---- shapes from features ------------------------------------------------- */

/* A feature value as a whole number; NaN and negatives give 0, huge values
 * saturate. */
static long long whole(float v)
{
	if (!(v > 0))
		return 0;
	if (v >= 9.2e18f)
		return LLONG_MAX;
	long long w = (long long)v;   /* then halves away from zero, as llroundf */
	return v - (float)w >= 0.5f ? w + 1 : w;
}

/* Rank and layout from the dims (21-26), their product (28) and the
 * minor_to_major entries (134-139); see hm_shape_decode. */
static void decode_dims(const float *feat, hm_shape *out, int64_t *dims, int64_t *m2m)
{
	long long lay[6];
	int rank = 0, lay_rank = 0, lay_any = 0;

	for (int i = 0; i < 6; i++) {
		dims[i] = whole(feat[HLO_F_DIMS + i]);
		if (dims[i] != 0)
			rank = i + 1;
		lay[i] = feat[HLO_F_LAYOUT + i] >= 0 ? whole(feat[HLO_F_LAYOUT + i]) : -1;
		lay_any |= lay[i] != 0;
		if (lay[i] >= lay_rank && lay[i] < 6)
			lay_rank = (int)lay[i] + 1;
	}
	if (lay_any && lay_rank > rank)
		rank = lay_rank; /* trailing zero-sized dimensions */
	if (feat[HLO_F_DIMS_PRODUCT] == 0.0f && rank < 6) {
		int has_zero = 0;
		for (int i = 0; i < rank; i++)
			has_zero |= dims[i] == 0;
		if (!has_zero)
			rank++; /* the product says some dimension is 0 */
	}
	for (int i = rank; i < 6; i++)
		dims[i] = 0;
	out->rank = rank;
	out->dims = dims;
	out->minor_to_major = m2m;
	if (rank == 1 && !lay_any) {
		m2m[0] = 0;
		out->has_layout = 1;
	} else if (rank >= 2) {
		int seen = 0, ok = 1;
		for (int i = 0; i < 6; i++) {
			if (i >= rank)
				ok &= lay[i] == 0;
			else if (lay[i] < 0 || lay[i] >= rank || (seen >> lay[i]) & 1)
				ok = 0;
			else
				seen |= 1 << lay[i];
		}
		for (int i = 0; ok && i < rank; i++)
			m2m[i] = lay[i];
		out->has_layout = ok;
	}
	out->layout_rank = out->has_layout ? rank : 0;
}

void hm_shape_decode(const float *feat, int width, hm_shape *out, int64_t store[HM_DECODE_STORE])
{
	float best = 0.5f;
	int onehot = -1;

	memset(out, 0, sizeof *out);
	out->element_type = -1;
	out->rank = -1;
	if (!feat || width != HLO_NODE_FEATURES)
		return;
	out->rank = 0;
	for (int i = 0; i < HLO_NELEMENT_TYPES; i++)
		if (feat[HLO_F_ELEMENT_TYPE + i] > best) {
			best = feat[HLO_F_ELEMENT_TYPE + i];
			onehot = i;
		}
	out->element_type = hm_element_type_of_onehot(onehot);
	if (out->element_type == HM_TUPLE) {
		long long n = whole(feat[HLO_F_TUPLE_SIZE]);
		out->n_tuple = n > INT_MAX ? INT_MAX : (int)n;
	} else if (out->element_type != HM_TOKEN && out->element_type != HM_OPAQUE) {
		decode_dims(feat, out, store, store + 6);
	}
}

/* ---- the synthesis ------------------------------------------------------------ */

typedef struct synth {
	const hs_graph *g;
	hs_arena *a;
	int64_t n_comps;
	int64_t *first, *root;    /* [n_comps]: a computation's first node and root */
	int32_t *comp_of;         /* [n_nodes] */
	hs_index shapes;          /* the shapes met so far: their first node, by features */
	const hm_instr *ins;      /* the instructions made so far */
} synth;

static int oom(const synth *s, hs_error *err)
{
	return hs_fail(err, HS_ENOMEM, "%s: out of memory making its module", s->g->path);
}

static int is_root(const hs_graph *g, int64_t v)
{
	return g->feat_width == HLO_NODE_FEATURES && graph_feat(g, v)[HLO_F_IS_ROOT] != 0.0f;
}

/* Computation boundaries from is_root (hlo_synth.h states the rule). */
static int derive_comps(synth *s, hs_error *err)
{
	const hs_graph *g = s->g;
	int64_t n = g->n_nodes, nroots = 0;
	for (int64_t v = 0; v < n; v++)
		nroots += is_root(g, v);
	s->n_comps = nroots ? nroots : 1;
	s->first = malloc((size_t)s->n_comps * sizeof *s->first);
	s->root = malloc((size_t)s->n_comps * sizeof *s->root);
	s->comp_of = malloc((n ? (size_t)n : 1) * sizeof *s->comp_of);
	if (!s->first || !s->root || !s->comp_of)
		return oom(s, err);
	s->first[0] = 0;
	s->root[0] = n ? n - 1 : 0;
	memset(s->comp_of, 0, (size_t)n * sizeof *s->comp_of);
	for (int64_t c = 0, start = 0, v = 0; c < nroots; c++) {
		while (!is_root(g, v))
			v++;
		int64_t r = v, end = r, next = r + 1;
		while (next < n && !is_root(g, next))
			next++;
		if (c == nroots - 1)
			end = n - 1;
		for (int64_t p = r + 1; p < next && c < nroots - 1; p++)
			for (int64_t i = g->operand_off[p]; i < g->operand_off[p + 1]; i++) {
				int64_t o = g->operand_idx[i];
				if (o >= start && o <= end && o != r) {
					end = p;
					break;
				}
			}
		s->first[c] = start;
		s->root[c] = r;
		for (int64_t u = start; u <= end; u++)
			s->comp_of[u] = (int32_t)c;
		start = end + 1;
		v = r + 1;
	}
	return 0;
}

/* 1 when operand o of node v is a call: the root of an earlier
 * computation (computations come callees first, so a call into a later
 * one is damage and would close a cycle: it stays an operand only). */
static int is_call(const synth *s, int64_t v, int64_t o)
{
	int32_t c = s->comp_of[o];
	return c < s->comp_of[v] && s->root[c] == o;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* The features a shape is decoded from: the element type, dims, tuple
 * size (2-29) and the layout (134-139); nodes equal there share a shape. */
static uint64_t shape_key(const float *f, const float *other)
{
	uint64_t h = 0;
	uint32_t w;
	if (other)
		return !memcmp(f + HLO_F_ELEMENT_TYPE, other + HLO_F_ELEMENT_TYPE,
			       (HLO_F_PARAMETER_NUMBER - HLO_F_ELEMENT_TYPE) * sizeof *f) &&
		       !memcmp(f + HLO_F_LAYOUT, other + HLO_F_LAYOUT, 6 * sizeof *f);
	for (int i = HLO_F_ELEMENT_TYPE; i < HLO_F_PARAMETER_NUMBER; i++)
		memcpy(&w, f + i, sizeof w), h = mix(h, w);
	for (int i = HLO_F_LAYOUT; i < HLO_F_LAYOUT + 6; i++)
		memcpy(&w, f + i, sizeof w), h = mix(h, w);
	return h;
}

static int same_shape(const void *ctx, int32_t node, const void *feat)
{
	const synth *s = ctx;
	return (int)shape_key(graph_feat(s->g, node), feat);
}

/* Node v's shape: decoded once per distinct one, kept in the arena. */
static const hm_shape *node_shape(synth *s, int64_t v)
{
	static const hm_shape unknown = {.element_type = -1, .rank = -1};
	if (s->g->feat_width != HLO_NODE_FEATURES)
		return &unknown;
	const float *f = graph_feat(s->g, v);
	int64_t first = v >= HS_INDEX_MAX ? v   /* past the index's entries: a shape of its own */
			: hs_index_put(&s->shapes, (uint32_t)shape_key(f, NULL), (int32_t)v, same_shape, s, f);
	if (first < 0)
		return NULL;
	if (first != v)   /* the first node of these features has their shape */
		return s->ins[first].shape;
	hm_decoded d;
	const hm_shape *sh = hm_decode(f, HLO_NODE_FEATURES, &d);
	int nd = sh->rank > 0 ? sh->rank : 0;   /* a tuple, token or scalar has no dims */
	hm_shape *c = hs_arena_alloc(s->a, sizeof *c + (size_t)(nd + sh->layout_rank) * sizeof(int64_t));
	if (!c)
		return NULL;
	*c = *sh;   /* then its dims and layout after it */
	c->dims = (int64_t *)(c + 1);
	c->minor_to_major = c->dims + nd;
	if (nd)
		memcpy(c->dims, sh->dims, (size_t)nd * sizeof *c->dims);
	if (sh->layout_rank)
		memcpy(c->minor_to_major, sh->minor_to_major, (size_t)sh->layout_rank * sizeof *c->dims);
	return c;
}

/* A zeroed array of n elements in the arena, on huge pages when it is
 * large and the system gives them: a page fault costs about what making
 * one instruction does. */
static void *big_array(hs_arena *a, size_t n, size_t size)
{
	const size_t huge = (size_t)2 << 20;
	void *p;

	if (n < huge / size)
		return hs_arena_array(a, n ? n : 1, size);
	if (n > SIZE_MAX / size || posix_memalign(&p, huge, n * size) != 0)
		return NULL;
	madvise(p, n * size, MADV_HUGEPAGE);
	memset(p, 0, n * size);
	return hs_arena_adopt(a, p) == 0 ? p : NULL;
}

/* "opcode.N" at b, terminated; its length. */
static size_t put_name(char *b, const char *op, size_t oplen, int64_t v)
{
	char t[24];
	int n = 0;
	memcpy(b, op, oplen);
	b[oplen] = '.';
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (int i = 0; i < n; i++)
		b[oplen + 1 + i] = t[n - 1 - i];
	b[oplen + 1 + n] = '\0';
	return oplen + 1 + (size_t)n;
}

/* Node v's operands: its edges in the graph's own lists (the module lives
 * and dies with its graph), or a copy without a self-loop. */
static int node_operands(synth *s, hm_instr *in, int64_t v)
{
	const hs_graph *g = s->g;
	int64_t n = g->operand_off[v + 1] - g->operand_off[v], loops = 0;
	in->operand_ids = g->operand_idx + g->operand_off[v];
	for (int64_t i = 0; i < n; i++)
		loops += in->operand_ids[i] == v;
	if (loops) {
		int64_t *ops = hs_arena_array(s->a, (size_t)n, sizeof *ops);
		if (!ops)
			return -1;
		for (int64_t i = 0, k = 0; i < n; i++)
			if (in->operand_ids[i] != v)
				ops[k++] = in->operand_ids[i];
		in->operand_ids = ops;
	}
	in->n_operands = (int)(n - loops);
	return 0;
}

/* The computations "computation.K" and "entry" over ins[]. */
static int make_comps(synth *s, hm_module *m, hm_instr *ins, hs_error *err)
{
	if (!(m->comps = hs_arena_array(s->a, (size_t)s->n_comps, sizeof *m->comps)))
		return oom(s, err);
	m->n_comps = (int)s->n_comps;
	for (int64_t c = 0; c < s->n_comps; c++) {
		char name[40];
		hm_comp *cp = &m->comps[c];
		snprintf(name, sizeof name, "computation.%lld", (long long)c);
		cp->name = hs_arena_strdup(s->a, c == s->n_comps - 1 ? "entry" : name);
		cp->id = c;
		cp->root_id = s->root[c];
		cp->instrs = ins + s->first[c];
		cp->n_instrs = (int)((c + 1 < s->n_comps ? s->first[c + 1] : s->g->n_nodes) - s->first[c]);
		cp->is_entry = c == s->n_comps - 1;
		if (!cp->name)
			return oom(s, err);
	}
	return 0;
}

static int make_instrs(synth *s, hm_module *m, hs_error *err)
{
	const hs_graph *g = s->g;
	int64_t n = g->n_nodes, n_calls = 0;
	const char *op[256] = {0};
	size_t oplen[256] = {0}, names = 0;
	int param = hlo_opcode_id("parameter"), digits = snprintf(NULL, 0, "%lld", (long long)n);
	for (int64_t v = 0; v < n; v++) {
		uint8_t k = g->opcode[v];
		if (!op[k] && (!(op[k] = hs_arena_strdup(s->a, hlo_opcode_name(k))) || !(oplen[k] = strlen(op[k]))))
			return oom(s, err);
		names += oplen[k] + (size_t)digits + 2;
		for (int64_t i = g->operand_off[v]; i < g->operand_off[v + 1]; i++)
			n_calls += is_call(s, v, g->operand_idx[i]);
	}
	char *name = hs_arena_bytes(s->a, names ? names : 1);
	hm_instr *ins = big_array(s->a, (size_t)n, sizeof *ins);
	int64_t *calls = hs_arena_array(s->a, n_calls ? (size_t)n_calls : 1, sizeof *calls);
	if (!name || !ins || !calls)
		return oom(s, err);
	s->ins = ins;
	for (int64_t v = 0; v < n; v++) {
		hm_instr *in = &ins[v];
		in->name = name;
		in->opcode = (char *)op[g->opcode[v]];
		name += put_name(name, in->opcode, oplen[g->opcode[v]], v) + 1;
		in->id = v;
		if (!(in->shape = node_shape(s, v)))
			return oom(s, err);
		if (node_operands(s, in, v) < 0)
			return oom(s, err);
		in->called_ids = calls;
		for (int64_t i = g->operand_off[v]; i < g->operand_off[v + 1]; i++)
			if (is_call(s, v, g->operand_idx[i]))
				calls[in->n_called++] = s->comp_of[g->operand_idx[i]];
		calls += in->n_called;
		in->parameter_number = g->opcode[v] == param && g->feat_width == HLO_NODE_FEATURES
				       ? (int64_t)graph_feat(g, v)[HLO_F_PARAMETER_NUMBER] : HM_NONE;
	}
	return make_comps(s, m, ins, err);
}

hm_file *hlo_synth(const hs_graph *g, hs_error *err)
{
	synth s = {.g = g};
	hm_file *f = calloc(1, sizeof *f);
	hm_module *m = f ? hs_arena_alloc(&f->arena, sizeof *m) : NULL;
	int rc = -1;
	if (f && m) {
		s.a = &f->arena;
		f->source = HM_SRC_NPZ;
		f->n_modules = 1;
		f->modules = m;
		m->entry_id = HM_NONE;
		m->refs_checked = 1;   /* names unique by their node id; operands are nodes */
		if (!(f->path = hs_arena_strdup(s.a, g->path)) || !(m->name = hs_arena_strdup(s.a, g->name)))
			oom(&s, err);
		else if (derive_comps(&s, err) == 0 && make_instrs(&s, m, err) == 0)
			rc = g->n_nodes ? hm_module_check(s.a, m, err) : 0;   /* the index, and its checks */
		m->knows = g->feat_width == HLO_NODE_FEATURES ? HM_KNOWS_SHAPES : 0;
	} else {
		oom(&s, err);
	}
	free(s.first);
	free(s.root);
	free(s.comp_of);
	hs_index_free(&s.shapes);
	if (rc) {
		hm_file_free(f);
		return NULL;
	}
	return f;
}
