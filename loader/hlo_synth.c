/* hlo_synth.c - the module of a dataset .npz, from its arrays (hlo_synth.h). */
#include "hlo_synth.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
	hm_file *f;
	hm_module *m;
	hs_arena *a;
	int64_t n_comps;
	int64_t *first, *root;    /* [n_comps]: a computation's first node and root */
	int32_t *comp_of;         /* [n_nodes] */
	int64_t *call_off;        /* [n_nodes + 1] into call_comp */
	int64_t *call_comp;       /* called computations, -1 once dropped */
	const hm_shape **shape_slot;  /* the shape table (open addressing) */
	size_t shape_mask;
	int64_t n_shapes;
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
	if (!nroots) {
		s->first[0] = 0;
		s->root[0] = n ? n - 1 : 0;
		memset(s->comp_of, 0, (size_t)n * sizeof *s->comp_of);
		return 0;
	}
	int64_t start = 0, v = 0;
	for (int64_t c = 0; c < nroots; c++) {
		while (!is_root(g, v))
			v++;
		int64_t r = v, end = r, next = r + 1;
		while (next < n && !is_root(g, next))
			next++;
		if (c == nroots - 1) {
			end = n - 1;
		} else {
			for (int64_t p = r + 1; p < next; p++)
				for (int64_t i = g->operand_off[p]; i < g->operand_off[p + 1]; i++) {
					int64_t o = g->operand_idx[i];
					if (o >= start && o <= end && o != r) {
						end = p;
						break;
					}
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

/* Calls from edges into another computation's root, in edge order. */
static int derive_calls(synth *s, hs_error *err)
{
	const hs_graph *g = s->g;
	int64_t n = g->n_nodes, total = 0;
	if (!(s->call_off = malloc(((size_t)n + 1) * sizeof *s->call_off)))
		return oom(s, err);
	for (int pass = 0; pass < 2; pass++) {
		total = 0;
		for (int64_t u = 0; u < n; u++) {
			if (pass == 0)
				s->call_off[u] = total;
			for (int64_t i = g->operand_off[u]; i < g->operand_off[u + 1]; i++) {
				int64_t o = g->operand_idx[i];
				int32_t c = s->comp_of[o];
				if (c == s->comp_of[u] || s->root[c] != o)
					continue;
				if (pass == 1)
					s->call_comp[total] = c;
				total++;
			}
		}
		if (pass == 0) {
			s->call_off[n] = total;
			if (!(s->call_comp = malloc((total ? (size_t)total : 1) * sizeof *s->call_comp)))
				return oom(s, err);
		}
	}
	return 0;
}

/* The calls of computation c are call_comp[call_off[first] .. call_off[end]). */
static int64_t comp_end(const synth *s, int64_t c)
{
	return c + 1 < s->n_comps ? s->first[c + 1] : s->g->n_nodes;
}

/* Drops the calls that close a cycle (damaged edges): depth first over the
 * computations with a stack of its own, a call to a computation still
 * open on the stack is dropped. */
static int break_cycles(synth *s, hs_error *err)
{
	int64_t nc = s->n_comps;
	uint8_t *state = calloc((size_t)nc, 1); /* 0 new, 1 open, 2 done */
	int64_t *stk = malloc((size_t)nc * sizeof *stk), *at = malloc((size_t)nc * sizeof *at);
	if (!state || !stk || !at) {
		free(state);
		free(stk);
		free(at);
		return oom(s, err);
	}
	for (int64_t c0 = 0; c0 < nc; c0++) {
		if (state[c0])
			continue;
		int64_t sp = 0;
		stk[0] = c0;
		at[0] = s->call_off[s->first[c0]];
		state[c0] = 1;
		while (sp >= 0) {
			int64_t c = stk[sp], end = s->call_off[comp_end(s, c)];
			while (at[sp] < end && (s->call_comp[at[sp]] < 0 || state[s->call_comp[at[sp]]] == 2))
				at[sp]++;
			if (at[sp] == end) {
				state[c] = 2;
				sp--;
				continue;
			}
			int64_t k = s->call_comp[at[sp]];
			if (state[k] == 1) {
				s->call_comp[at[sp]++] = -1;   /* back to an open one: a cycle */
				continue;
			}
			state[k] = 1;
			at[sp]++;
			stk[++sp] = k;
			at[sp] = s->call_off[s->first[k]];
		}
	}
	free(state);
	free(stk);
	free(at);
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t shape_hash(const hm_shape *sh)
{
	uint64_t h = mix(mix((uint64_t)sh->element_type, (uint64_t)sh->rank), (uint64_t)sh->n_tuple);
	h = mix(h, (uint64_t)sh->layout_rank);
	for (int i = 0; i < sh->rank; i++)
		h = mix(h, (uint64_t)sh->dims[i]);
	for (int i = 0; i < sh->layout_rank; i++)
		h = mix(h, (uint64_t)sh->minor_to_major[i]);
	return h;
}

static int shape_eq(const hm_shape *a, const hm_shape *b)
{
	return a->element_type == b->element_type && a->rank == b->rank && a->n_tuple == b->n_tuple &&
	       a->has_layout == b->has_layout && a->layout_rank == b->layout_rank &&
	       (a->rank <= 0 || !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims)) &&
	       (a->layout_rank <= 0 ||
		!memcmp(a->minor_to_major, b->minor_to_major, (size_t)a->layout_rank * sizeof *a->minor_to_major));
}

/* The shape table twice as large (it is kept under half full). */
static int grow_shapes(synth *s)
{
	size_t cap = s->shape_mask ? 4 * (s->shape_mask + 1) : 1024;
	const hm_shape **t = calloc(cap, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; s->shape_slot && i <= s->shape_mask; i++) {
		if (!s->shape_slot[i])
			continue;
		size_t j = (size_t)shape_hash(s->shape_slot[i]) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = s->shape_slot[i];
	}
	free(s->shape_slot);
	s->shape_slot = t;
	s->shape_mask = cap - 1;
	return 0;
}

/* Node v's shape: one copy in the arena per distinct shape. */
static const hm_shape *intern_shape(synth *s, int64_t v)
{
	hm_decoded d;
	const hm_shape *sh = hm_decode(s->g->feat_width == HLO_NODE_FEATURES ? graph_feat(s->g, v) : NULL,
				       s->g->feat_width, &d);
	if ((size_t)(s->n_shapes + 1) * 2 > s->shape_mask && grow_shapes(s) < 0)
		return NULL;
	size_t i = (size_t)shape_hash(sh) & s->shape_mask;
	for (; s->shape_slot[i]; i = (i + 1) & s->shape_mask)
		if (shape_eq(s->shape_slot[i], sh))
			return s->shape_slot[i];
	hm_shape *c = hs_arena_alloc(s->a, sizeof *c);
	int64_t *store = sh->rank > 0 ? hs_arena_array(s->a, (size_t)sh->rank * 2, sizeof *store) : NULL;
	if (!c || (sh->rank > 0 && !store))
		return NULL;
	*c = *sh;
	c->dims = c->minor_to_major = NULL;
	if (sh->rank > 0) {
		memcpy(store, sh->dims, (size_t)sh->rank * sizeof *store);
		memcpy(store + sh->rank, sh->minor_to_major, (size_t)sh->layout_rank * sizeof *store);
		c->dims = store;
		c->minor_to_major = store + sh->rank;
	}
	s->n_shapes++;
	s->shape_slot[i] = c;
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

/* v in decimal at b, terminated; its length. */
static int put_decimal(char *b, int64_t v)
{
	char t[24];
	int n = 0, len;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (len = n; n > 0; n--)
		*b++ = t[n - 1];
	*b = '\0';
	return len;
}

/* Room for the instruction names "opcode.N", one block of the arena. */
static char *names_block(synth *s, const size_t *oplen, hs_error *err)
{
	const hs_graph *g = s->g;
	size_t total = 0;
	for (int64_t v = 0, p10 = 10, digits = 1; v < g->n_nodes; v++) {
		if (v == p10)
			digits++, p10 *= 10;
		total += oplen[g->opcode[v]] + (size_t)digits + 2;
	}
	char *b = hs_arena_bytes(s->a, total ? total : 1);
	if (!b)
		oom(s, err);
	return b;
}

static int make_instrs(synth *s, hs_error *err)
{
	const hs_graph *g = s->g;
	int64_t n = g->n_nodes;
	const char *op[256] = {0};
	size_t oplen[256] = {0};
	for (int64_t v = 0; v < n; v++)
		if (!op[g->opcode[v]]) {
			if (!(op[g->opcode[v]] = hs_arena_strdup(s->a, hlo_opcode_name(g->opcode[v]))))
				return oom(s, err);
			oplen[g->opcode[v]] = strlen(op[g->opcode[v]]);
		}
	char *name = names_block(s, oplen, err);
	hm_instr *ins = big_array(s->a, (size_t)n, sizeof *ins);
	int64_t *ops = hs_arena_array(s->a, g->n_edges ? (size_t)g->n_edges : 1, sizeof *ops);
	int64_t *calls = hs_arena_array(s->a, s->call_off[n] ? (size_t)s->call_off[n] : 1, sizeof *calls);
	if (!name || !ins || !ops || !calls)
		return name ? oom(s, err) : -1;
	int param = hlo_opcode_id("parameter");
	for (int64_t v = 0; v < n; v++) {
		hm_instr *in = &ins[v];
		in->name = name;
		in->opcode = (char *)op[g->opcode[v]];
		memcpy(name, in->opcode, oplen[g->opcode[v]]);
		name += oplen[g->opcode[v]];
		*name++ = '.';
		name += put_decimal(name, v) + 1;
		in->id = v;
		if (!(in->shape = intern_shape(s, v)))
			return oom(s, err);
		in->operand_ids = ops;
		for (int64_t i = g->operand_off[v]; i < g->operand_off[v + 1]; i++)
			if (g->operand_idx[i] != v)
				ops[in->n_operands++] = g->operand_idx[i];
		ops += in->n_operands;
		in->called_ids = calls;
		for (int64_t i = s->call_off[v]; i < s->call_off[v + 1]; i++)
			if (s->call_comp[i] >= 0)
				calls[in->n_called++] = s->call_comp[i];
		calls += in->n_called;
		in->parameter_number = g->opcode[v] == param && g->feat_width == HLO_NODE_FEATURES
				       ? (int64_t)graph_feat(g, v)[HLO_F_PARAMETER_NUMBER] : HM_NONE;
	}
	hm_comp *comps = hs_arena_array(s->a, (size_t)s->n_comps, sizeof *comps);
	if (!comps)
		return oom(s, err);
	for (int64_t c = 0; c < s->n_comps; c++) {
		char cname[40];
		snprintf(cname, sizeof cname, "computation.%lld", (long long)c);
		comps[c].name = hs_arena_strdup(s->a, c == s->n_comps - 1 ? "entry" : cname);
		comps[c].id = c;
		comps[c].root_id = s->root[c];
		comps[c].instrs = ins + s->first[c];
		comps[c].n_instrs = (int)(comp_end(s, c) - s->first[c]);
		if (!comps[c].name)
			return oom(s, err);
	}
	s->m->comps = comps;
	s->m->n_comps = (int)s->n_comps;
	return 0;
}

hm_file *hlo_synth(const hs_graph *g, hs_error *err)
{
	synth s = {.g = g};
	hm_file *f = calloc(1, sizeof *f);
	int rc = -1;
	if (!f) {
		oom(&s, err);
		return NULL;
	}
	s.f = f;
	s.a = &f->arena;
	f->source = HM_SRC_NPZ;
	f->n_modules = 1;
	f->modules = s.m = hs_arena_alloc(s.a, sizeof *s.m);
	f->path = hs_arena_strdup(s.a, g->path);
	if (!s.m || !f->path || !(s.m->name = hs_arena_strdup(s.a, g->name))) {
		oom(&s, err);
	} else if (derive_comps(&s, err) == 0 && derive_calls(&s, err) == 0 && break_cycles(&s, err) == 0 &&
		   make_instrs(&s, err) == 0) {
		s.m->entry_id = HM_NONE;
		s.m->refs_checked = 1;   /* names unique by their node id; operands are nodes */
		rc = hm_module_check(s.a, s.m, err);
		s.m->knows = g->feat_width == HLO_NODE_FEATURES ? HM_KNOWS_SHAPES : 0;
	}
	free(s.first);
	free(s.root);
	free(s.comp_of);
	free(s.call_off);
	free(s.call_comp);
	free(s.shape_slot);
	if (rc) {
		hm_file_free(f);
		return NULL;
	}
	return f;
}
