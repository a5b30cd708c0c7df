/* hlo_module.c - element type names, shape text, and the
 * checks and id index every HLO reader finishes with. */
#include "hlo_module.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hash.h"
#include "base/index.h"
#include "base/strbuf.h"

const hm_shape hm_shape_none;
const hm_instr_x hm_instr_x_none = {.feature_group_count = HM_NONE, .batch_group_count = HM_NONE};

hm_instr_x *hm_instr_x_make(hs_arena *a, hm_instr *in)
{
	if (!in->x && (in->x = hs_arena_alloc(a, sizeof *in->x)))
		*in->x = hm_instr_x_none;
	return in->x;
}

void hm_file_free(hm_file *f)
{
	if (!f)
		return;
	hs_arena_free(&f->arena);
	if (f->text_mapped) {
		munmap(f->text, f->text_mapped);
		close(f->text_fd);
	} else {
		free(f->text);
	}
	free(f);
}

const char *hm_file_text_at(const hm_file *f, int64_t off, int64_t len)
{
	if (!f || !f->text || off < 0 || len < 0 || (uint64_t)off + (uint64_t)len > f->text_len)
		return NULL;
	if (f->text_mapped) {
		/* the file's size, looked at again after 50 ms: a reader of a
		 * million lines makes no million fstat calls (a file cut within
		 * those 50 ms is the SIGBUS the command line reports) */
		hm_file *w = (hm_file *)f;   /* the cache of a const file */
		int64_t now = (int64_t)(hs_now_seconds() * 1e3);
		if (now - w->text_seen_ms >= 50 || w->text_size_seen < off + len) {
			struct stat st;
			w->text_size_seen = fstat(f->text_fd, &st) == 0 ? (int64_t)st.st_size : -1;
			w->text_seen_ms = now;
		}
		if (w->text_size_seen < off + len)
			return NULL;
	}
	return f->text + off;
}

/* ---- element types -------------------------------------------------- */

/* By XLA's PrimitiveType number: the name HLO text writes, bytes per
 * element, the position in the node features' one-hot (-1: newer than the
 * dataset). */
static const struct {
	const char *name;
	int8_t bytes, onehot;
} etypes[] = {
	[0] = {"invalid", 0, 0}, [1] = {"pred", 1, 1}, [2] = {"s8", 1, 2}, [3] = {"s16", 2, 3},
	[4] = {"s32", 4, 4}, [5] = {"s64", 8, 5}, [6] = {"u8", 1, 6}, [7] = {"u16", 2, 7},
	[8] = {"u32", 4, 8}, [9] = {"u64", 8, 9}, [10] = {"f16", 2, 10}, [11] = {"f32", 4, 11},
	[12] = {"f64", 8, 12}, [13] = {"tuple", 0, 16}, [14] = {"opaque", 0, 17}, [15] = {"c64", 8, 14},
	[16] = {"bf16", 2, 13}, [17] = {"token", 0, 18}, [18] = {"c128", 16, 15},
	[19] = {"f8e5m2", 1, -1}, [20] = {"f8e4m3fn", 1, -1}, [21] = {"s4", 1, -1}, [22] = {"u4", 1, -1},
	[23] = {"f8e4m3b11fnuz", 1, -1}, [24] = {"f8e5m2fnuz", 1, -1}, [25] = {"f8e4m3fnuz", 1, -1},
	[26] = {"s2", 1, -1}, [27] = {"u2", 1, -1}, [28] = {"f8e4m3", 1, -1}, [29] = {"f8e3m4", 1, -1},
	[30] = {"s1", 1, -1}, [31] = {"u1", 1, -1}, [32] = {"f4e2m1fn", 1, -1}, [33] = {"f8e8m0fnu", 1, -1},
};
#define N_ETYPES ((int)(sizeof etypes / sizeof *etypes))

const char *hm_element_type_name(int t)
{
	return t >= 0 && t < N_ETYPES ? etypes[t].name : "?";
}

int hm_element_type_id(const char *name, size_t len)
{
	for (int t = 0; len >= 2 && len <= 13 && t < N_ETYPES; t++)
		if (strncmp(etypes[t].name, name, len) == 0 && etypes[t].name[len] == '\0')
			return t;
	return -1;
}

int hm_element_type_bytes(int t)
{
	return t >= 0 && t < N_ETYPES ? etypes[t].bytes : 0;
}

int hm_element_type_onehot(int t)
{
	return t >= 0 && t < N_ETYPES ? etypes[t].onehot : -1;
}

int hm_element_type_of_onehot(int i)
{
	for (int t = 0; i >= 0 && t < N_ETYPES; t++)
		if (etypes[t].onehot == i)
			return t;
	return -1;
}

int hm_element_type_count(void)
{
	return N_ETYPES;
}

double hm_shape_elements(const hm_shape *s)
{
	if (s->rank < 0 || s->element_type == HM_TUPLE || s->element_type == HM_TOKEN ||
	    s->element_type == HM_OPAQUE)
		return 0;
	double e = 1;
	for (int i = 0; i < s->rank; i++)
		e *= (double)s->dims[i];
	return e;
}

double hm_shape_bytes(const hm_shape *s)
{
	double b = 0;
	if (s->element_type != HM_TUPLE)
		return hm_shape_elements(s) * hm_element_type_bytes(s->element_type);
	for (int i = 0; s->tuple && i < s->n_tuple; i++)
		b += hm_shape_bytes(&s->tuple[i]);
	return b;
}

/* ---- shape text ----------------------------------------------------- */

static void shape_text(hs_strbuf *o, const hm_shape *s, int depth)
{
	if (s->rank < 0) {
		hs_strbuf_putc(o, '?');
		return;
	}
	if (s->element_type == HM_TUPLE) {
		if (!s->tuple && s->n_tuple > 0) {
			hs_strbuf_printf(o, "(tuple of %d)", s->n_tuple);
			return;
		}
		hs_strbuf_putc(o, '(');
		if (depth > 64)
			hs_strbuf_puts(o, "...");
		else
			for (int i = 0; i < s->n_tuple; i++) {
				if (i)
					hs_strbuf_puts(o, ", ");
				shape_text(o, &s->tuple[i], depth + 1);
			}
		hs_strbuf_putc(o, ')');
		return;
	}
	hs_strbuf_printf(o, "%s[", hm_element_type_name(s->element_type));
	for (int i = 0; i < s->rank; i++)
		hs_strbuf_printf(o, "%s%s%lld", i ? "," : "", s->dynamic && s->dynamic[i] ? "<=" : "",
				 (long long)s->dims[i]);
	hs_strbuf_putc(o, ']');
	if (s->has_layout && (s->layout_rank > 0 || s->layout_extra)) {
		hs_strbuf_putc(o, '{');
		for (int i = 0; i < s->layout_rank; i++)
			hs_strbuf_printf(o, "%s%lld", i ? "," : "", (long long)s->minor_to_major[i]);
		if (s->layout_extra && *s->layout_extra)
			hs_strbuf_printf(o, ":%s", s->layout_extra);
		hs_strbuf_putc(o, '}');
	}
}

int hm_shape_text(const hm_shape *s, char *buf, size_t cap)
{
	hs_strbuf o = hs_strbuf_fixed(buf, cap);
	if (s)
		shape_text(&o, s, 0);
	else
		hs_strbuf_putc(&o, '?');
	return o.len > INT_MAX ? INT_MAX : (int)o.len;
}

/* ---- the id index --------------------------------------------------- */

/* id -> position (of an instruction in the module, of a computation).
 * Ids that fill most of a range (the text reader numbers instructions 0,
 * 1, 2, ...) index an array directly (dense: vals[id - base], -1 where
 * none); others go through a hash index whose entries are the positions,
 * its slots handed to the arena. */
typedef struct id_map {
	int32_t *vals;             /* dense; NULL when sparse */
	int64_t base;              /* dense: the smallest id */
	size_t span;               /* dense: the number of slots */
	hs_index ix;               /* sparse */
} id_map;

struct hm_index {
	id_map instrs;             /* id -> module position */
	id_map comps;              /* id -> computation index */
	hm_instr **at;             /* [n_instrs] by module position */
	const hm_comp *comp;       /* the module's computations */
};

static uint32_t id_hash(int64_t id)
{
	return (uint32_t)hs_mix64((uint64_t)id);
}

static int instr_has_id(const void *ctx, int32_t e, const void *key)
{
	return ((const struct hm_index *)ctx)->at[e]->id == *(const int64_t *)key;
}

static int comp_has_id(const void *ctx, int32_t e, const void *key)
{
	return ((const struct hm_index *)ctx)->comp[e].id == *(const int64_t *)key;
}

/* A map for n ids in [lo, hi]. */
static int map_init(hs_arena *a, id_map *m, size_t n, int64_t lo, int64_t hi)
{
	if (n && lo <= hi && (uint64_t)hi - (uint64_t)lo < 2 * (uint64_t)n + 64) {
		m->span = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
		m->base = lo;
		if (!(m->vals = hs_arena_array(a, m->span, sizeof *m->vals)))
			return -1;
		memset(m->vals, 0xff, m->span * sizeof *m->vals);
		return 0;
	}
	return hs_index_reserve(&m->ix, n) != 0 || hs_arena_adopt(a, m->ix.slot) != 0 ? -1 : 0;
}

/* Adds id -> pos (init reserved room for every id); returns the position
 * already there (>= 0) or -1. */
static int32_t map_put(id_map *m, int64_t id, int32_t pos, hs_index_eq eq, const struct hm_index *ix)
{
	if (m->vals) {
		int32_t *slot = &m->vals[(uint64_t)id - (uint64_t)m->base];
		if (*slot >= 0)
			return *slot;
		*slot = pos;
		return -1;
	}
	int32_t prev = hs_index_put(&m->ix, id_hash(id), pos, eq, ix, &id);
	return prev == pos ? -1 : prev;
}

static int32_t map_get(const id_map *m, int64_t id, hs_index_eq eq, const struct hm_index *ix)
{
	if (m->vals) {
		uint64_t k = (uint64_t)id - (uint64_t)m->base;
		return k < m->span ? m->vals[k] : -1;
	}
	return hs_index_find(&m->ix, id_hash(id), eq, ix, &id);
}

const hm_instr *hm_instr_at(const hm_module *m, int64_t node)
{
	if (!m->index || node < 0 || node >= m->n_instrs)
		return NULL;
	return m->index->at[node];
}

const hm_instr *hm_find_instr(const hm_module *m, int64_t id)
{
	if (!m->index)
		return NULL;
	int32_t v = map_get(&m->index->instrs, id, instr_has_id, m->index);
	return v < 0 ? NULL : m->index->at[v];
}

int hm_find_comp_index(const hm_module *m, int64_t id)
{
	return m->index ? map_get(&m->index->comps, id, comp_has_id, m->index) : -1;
}

const hm_comp *hm_find_comp(const hm_module *m, int64_t id)
{
	int c = hm_find_comp_index(m, id);
	return c < 0 ? NULL : &m->comps[c];
}

/* ---- names used twice ------------------------------------------------ */

/* Names used twice: a hash index over positions, keyed by a name and a
 * scope (computation names: one scope; instruction names: their
 * computation, as XLA scopes them). */
typedef struct name_set {
	hs_index ix;
	const char *(*name_of)(const void *ctx, int32_t i);
	int (*scope_of)(const void *ctx, int32_t i);
	const void *ctx;
} name_set;

static int same_name(const void *ctx, int32_t j, const void *key)
{
	const name_set *ns = ctx;
	int32_t i = *(const int32_t *)key;
	return ns->scope_of(ns->ctx, j) == ns->scope_of(ns->ctx, i) &&
	       strcmp(ns->name_of(ns->ctx, j), ns->name_of(ns->ctx, i)) == 0;
}

/* Adds i; returns an earlier index with the same name and scope, or -1
 * (also when out of memory: init reserved room for all). */
static int32_t name_set_put(name_set *ns, int32_t i)
{
	uint32_t h = (uint32_t)hs_mix64(hs_fnv1a(ns->name_of(ns->ctx, i), HS_FNV_BASIS) ^
					(uint64_t)ns->scope_of(ns->ctx, i));
	int32_t prev = hs_index_put(&ns->ix, h, i, same_name, ns, &i);
	return prev == i ? -1 : prev;
}

static const char *comp_name_of(const void *ctx, int32_t i)
{
	return ((const hm_module *)ctx)->comps[i].name;
}

static int one_scope(const void *ctx, int32_t i)
{
	(void)ctx;
	(void)i;
	return 0;
}

static const char *instr_name_of(const void *ctx, int32_t i)
{
	return ((hm_instr *const *)ctx)[i]->name;
}

static int instr_scope(const void *ctx, int32_t i)
{
	return ((hm_instr *const *)ctx)[i]->comp;
}

/* Computation names are unique in the module; instruction names in their
 * computation (XLA's parser scopes them so; XLA itself makes them unique
 * module-wide when it builds a module, so protos never repeat one). */
static int check_names(const hm_module *m, hm_instr **at, hs_error *err)
{
	name_set ns = {{0}, comp_name_of, one_scope, m};
	if (hs_index_reserve(&ns.ix, (size_t)m->n_comps))
		return hs_fail(err, HS_ENOMEM, "out of memory");
	for (int c = 0; c < m->n_comps; c++) {
		int32_t prev = name_set_put(&ns, c);
		if (prev >= 0) {
			hs_index_free(&ns.ix);
			return hs_fail(err, HS_EDATA, "computation name '%s' is used twice (computations %d and %d)",
				       m->comps[c].name, prev, c);
		}
	}
	hs_index_free(&ns.ix);
	ns = (name_set){{0}, instr_name_of, instr_scope, at};
	if (hs_index_reserve(&ns.ix, (size_t)m->n_instrs))
		return hs_fail(err, HS_ENOMEM, "out of memory");
	for (int64_t i = 0; i < m->n_instrs; i++) {
		int32_t prev = name_set_put(&ns, (int32_t)i);
		if (prev >= 0) {
			hs_index_free(&ns.ix);
			return hs_fail(err, HS_EDATA, "instruction name '%s' is used twice in computation '%s'",
				       at[i]->name, m->comps[at[i]->comp].name);
		}
	}
	hs_index_free(&ns.ix);
	return 0;
}

/* ---- call cycles ----------------------------------------------------- */

/* Depth-first over the call graph with an explicit stack (a hostile chain
 * of computations must not exhaust the C stack).  callee lists come from
 * the instructions' called ids. */
static int check_calls(const hm_module *m, hs_error *err)
{
	int n = m->n_comps;
	uint8_t *state = calloc((size_t)n ? (size_t)n : 1, 1); /* 0 new, 1 open, 2 done */
	int64_t *stk_c = malloc(((size_t)n + 1) * sizeof *stk_c);
	int64_t *stk_i = malloc(((size_t)n + 1) * sizeof *stk_i); /* next (instr << 20 | call) */
	int rc = 0;
	if (!state || !stk_c || !stk_i) {
		rc = hs_fail(err, HS_ENOMEM, "out of memory");
		goto out;
	}
	for (int root = 0; root < n && !rc; root++) {
		if (state[root])
			continue;
		int sp = 0;
		stk_c[0] = root;
		stk_i[0] = 0;
		state[root] = 1;
		while (sp >= 0 && !rc) {
			const hm_comp *c = &m->comps[stk_c[sp]];
			int64_t pos = stk_i[sp];
			int64_t ii = pos >> 20, k = pos & 0xfffff;
			int pushed = 0;
			for (; ii < c->n_instrs && !pushed; ii++, k = 0) {
				const hm_instr *in = &c->instrs[ii];
				for (; k < in->n_called; k++) {
					int callee = hm_find_comp_index(m, in->called_ids[k]);
					if (state[callee] == 1) {
						rc = callee == stk_c[sp]
							? hs_fail(err, HS_EDATA,
								  "computation '%s' calls itself (instruction '%s')",
								  c->name, in->name)
							: hs_fail(err, HS_EDATA,
								  "computations call each other in a cycle: '%s' calls '%s' (instruction '%s'), which leads back to it",
								  c->name, m->comps[callee].name, in->name);
						break;
					}
					if (state[callee] == 0) {
						stk_i[sp] = (ii << 20) | (k + 1);
						state[callee] = 1;
						sp++;
						stk_c[sp] = callee;
						stk_i[sp] = 0;
						pushed = 1;
						break;
					}
				}
				if (rc || pushed)
					break;
			}
			if (rc || pushed)
				continue;
			state[stk_c[sp]] = 2;
			sp--;
		}
	}
out:
	free(state);
	free(stk_c);
	free(stk_i);
	return rc;
}

/* ---- the check ------------------------------------------------------- */

static int check_refs(const hm_module *m, const hm_instr *in, const char *what, int n,
		      const int64_t *ids, hs_error *err)
{
	for (int k = 0; k < n; k++) {
		if (ids[k] == in->id)
			return hs_fail(err, HS_EDATA, "instruction '%s' names itself as its %s", in->name, what);
		if (!hm_find_instr(m, ids[k]))
			return hs_fail(err, HS_EDATA, "instruction '%s': %s id %lld names no instruction",
				       in->name, what, (long long)ids[k]);
	}
	return 0;
}

static int index_module(hs_arena *a, hm_module *m, hs_error *err)
{
	struct hm_index *ix = hs_arena_alloc(a, sizeof *ix);
	int64_t total = 0;
	if (!ix)
		return hs_fail(err, HS_ENOMEM, "out of memory");
	*ix = (struct hm_index){.comp = m->comps};
	for (int c = 0; c < m->n_comps; c++) {
		if (m->comps[c].n_instrs <= 0)
			return hs_fail(err, HS_EDATA, "computation '%s' has no instructions", m->comps[c].name);
		total += m->comps[c].n_instrs;
		if (total > INT32_MAX)
			return hs_fail(err, HS_EDATA, "more than %d instructions", INT32_MAX);
	}
	m->n_instrs = total;
	int64_t lo = INT64_MAX, hi = INT64_MIN, clo = INT64_MAX, chi = INT64_MIN;
	for (int c = 0; c < m->n_comps; c++) {
		const hm_comp *cp = &m->comps[c];
		clo = cp->id < clo ? cp->id : clo;
		chi = cp->id > chi ? cp->id : chi;
		for (int i = 0; i < cp->n_instrs; i++) {
			lo = cp->instrs[i].id < lo ? cp->instrs[i].id : lo;
			hi = cp->instrs[i].id > hi ? cp->instrs[i].id : hi;
		}
	}
	if (map_init(a, &ix->instrs, (size_t)total, lo, hi) ||
	    map_init(a, &ix->comps, (size_t)m->n_comps, clo, chi) ||
	    !(ix->at = hs_arena_array(a, (size_t)total ? (size_t)total : 1, sizeof *ix->at)))
		return hs_fail(err, HS_ENOMEM, "out of memory");
	int64_t node = 0;
	for (int c = 0; c < m->n_comps; c++) {
		hm_comp *cp = &m->comps[c];
		int32_t prev = map_put(&ix->comps, cp->id, c, comp_has_id, ix);
		if (prev >= 0)
			return hs_fail(err, HS_EDATA, "computation id %lld is used twice ('%s' and '%s')",
				       (long long)cp->id, m->comps[prev].name, cp->name);
		for (int i = 0; i < cp->n_instrs; i++, node++) {
			hm_instr *in = &cp->instrs[i];
			in->comp = c;
			in->node = node;
			ix->at[node] = in;
			prev = map_put(&ix->instrs, in->id, (int32_t)node, instr_has_id, ix);
			if (prev >= 0)
				return hs_fail(err, HS_EDATA, "instruction id %lld is used twice ('%s' and '%s')",
					       (long long)in->id, ix->at[prev]->name, in->name);
		}
	}
	m->index = ix;
	return 0;
}

static int check_entry(hm_module *m, hs_error *err)
{
	int entry = m->n_comps - 1;
	if (m->entry_id != HM_NONE) {
		entry = hm_find_comp_index(m, m->entry_id);
		if (entry < 0)
			return hs_fail(err, HS_EDATA, "entry computation id %lld names no computation",
				       (long long)m->entry_id);
	} else if (m->entry_name) {
		for (entry = m->n_comps - 1; entry >= 0; entry--)
			if (strcmp(m->comps[entry].name, m->entry_name) == 0)
				break;
		if (entry < 0)
			return hs_fail(err, HS_EDATA, "entry computation '%s' names no computation",
				       m->entry_name);
	}
	for (int c = 0; c < m->n_comps; c++)
		m->comps[c].is_entry = c == entry;
	m->entry = entry;
	return 0;
}

int hm_module_check(hs_arena *a, hm_module *m, hs_error *err)
{
	m->index = NULL;
	if (m->n_comps <= 0)
		return hs_fail(err, HS_EDATA, "module '%s' has no computations", m->name ? m->name : "");
	for (int c = 0; c < m->n_comps; c++)
		if (!m->comps[c].name)
			m->comps[c].name = "";
	if (index_module(a, m, err))
		return -1;
	struct hm_index *ix = m->index;
	m->index = NULL; /* published only when every check passed */
	hm_module tmp = *m;
	tmp.index = ix;
	for (int64_t i = 0; i < m->n_instrs; i++)
		if (!ix->at[i]->name)
			ix->at[i]->name = "";
	if (!m->refs_checked && check_names(&tmp, ix->at, err))
		return -1;
	for (int c = 0; c < m->n_comps; c++) {
		hm_comp *cp = &m->comps[c];
		const hm_instr *root = hm_find_instr(&tmp, cp->root_id);
		if (!root || root->comp != c)
			return hs_fail(err, HS_EDATA, "computation '%s': root id %lld is not one of its instructions%s%s%s",
				       cp->name, (long long)cp->root_id, root ? " (it is '" : "",
				       root ? root->name : "", root ? "')" : "");
		for (int i = 0; i < cp->n_instrs; i++) {
			hm_instr *in = &cp->instrs[i];
			in->is_root = in->id == cp->root_id;
			if (!m->refs_checked &&
			    (check_refs(&tmp, in, "operand", in->n_operands, in->operand_ids, err) ||
			     check_refs(&tmp, in, "control predecessor", HM_X(in)->n_control_predecessors,
					HM_X(in)->control_predecessor_ids, err)))
				return -1;
			for (int k = 0; k < in->n_called; k++)
				if (hm_find_comp_index(&tmp, in->called_ids[k]) < 0)
					return hs_fail(err, HS_EDATA,
						       "instruction '%s': called computation id %lld names no computation",
						       in->name, (long long)in->called_ids[k]);
			if (in->n_called > 0xfffff)
				return hs_fail(err, HS_EDATA, "instruction '%s' calls %d computations",
					       in->name, in->n_called);
		}
	}
	if (check_calls(&tmp, err) || check_entry(&tmp, err))
		return -1;
	m->knows = HM_KNOWS_ALL;
	m->entry = tmp.entry;
	m->index = ix;
	return 0;
}
