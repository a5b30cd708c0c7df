/* hlo_module.c - the arena, element type names and lookups of hlo_module.h.
 *
 * Written by the HLO text reader's branch so that it can link before the
 * protobuf reader's branch (which owns this file) lands; the two versions
 * are reconciled at merge.
 */
#include "hlo_module.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---------------------------------------------------------- */

struct hm_arena_block {
	hm_arena_block *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
};

#define HM_ARENA_BLOCK (64u * 1024)
#define HM_ARENA_ALIGN 16u

static hm_arena_block *arena_block(size_t cap)
{
	if (cap > SIZE_MAX - sizeof(hm_arena_block))
		return NULL;
	hm_arena_block *b = malloc(sizeof *b + cap);
	if (b) {
		b->next = NULL;
		b->cap = cap;
		b->used = 0;
	}
	return b;
}

void *hm_arena_alloc(hm_arena *a, size_t n)
{
	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - HM_ARENA_ALIGN)
		return NULL;
	n = (n + HM_ARENA_ALIGN - 1) & ~(size_t)(HM_ARENA_ALIGN - 1);
	hm_arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		if (n > HM_ARENA_BLOCK / 4) {
			/* A large request gets a block of its own behind the
			 * current one, which keeps its free space. */
			hm_arena_block *big = arena_block(n);
			if (!big)
				return NULL;
			if (b) {
				big->next = b->next;
				b->next = big;
			} else {
				a->head = big;
			}
			big->used = n;
			memset(big->data, 0, n);
			a->used_total += n;
			return big->data;
		}
		b = arena_block(HM_ARENA_BLOCK);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	a->used_total += n;
	memset(p, 0, n);
	return p;
}

void *hm_arena_array(hm_arena *a, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return hm_arena_alloc(a, count * size);
}

char *hm_arena_strndup(hm_arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *p = hm_arena_alloc(a, n + 1);
	if (p && n)
		memcpy(p, s, n);
	return p;
}

char *hm_arena_strdup(hm_arena *a, const char *s)
{
	return hm_arena_strndup(a, s, strlen(s));
}

void hm_arena_free(hm_arena *a)
{
	hm_arena_block *b = a->head;
	while (b) {
		hm_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used_total = 0;
}

void hm_file_free(hm_file *f)
{
	if (!f)
		return;
	hm_arena_free(&f->arena);
	free(f);
}

/* ---- element types -------------------------------------------------- */

static const struct {
	int id;
	const char *name;
	int bytes;
} element_types[] = {
	{HM_PRED, "pred", 1},   {HM_S8, "s8", 1},       {HM_S16, "s16", 2},
	{HM_S32, "s32", 4},     {HM_S64, "s64", 8},     {HM_U8, "u8", 1},
	{HM_U16, "u16", 2},     {HM_U32, "u32", 4},     {HM_U64, "u64", 8},
	{HM_F16, "f16", 2},     {HM_F32, "f32", 4},     {HM_F64, "f64", 8},
	{HM_TUPLE, "tuple", 0}, {HM_OPAQUE, "opaque", 0}, {HM_C64, "c64", 8},
	{HM_BF16, "bf16", 2},   {HM_TOKEN, "token", 0}, {HM_C128, "c128", 16},
	{19, "f8e5m2", 1},      {20, "f8e4m3fn", 1},    {21, "s4", 1},
	{22, "u4", 1},          {23, "f8e4m3b11fnuz", 1}, {24, "f8e5m2fnuz", 1},
	{25, "f8e4m3fnuz", 1},
};
#define N_ELEMENT_TYPES (sizeof element_types / sizeof element_types[0])

const char *hm_element_type_name(int t)
{
	for (size_t i = 0; i < N_ELEMENT_TYPES; i++)
		if (element_types[i].id == t)
			return element_types[i].name;
	return "?";
}

int hm_element_type_id(const char *name, size_t len)
{
	if (len < 2 || len > 13)
		return -1;
	for (size_t i = 0; i < N_ELEMENT_TYPES; i++)
		if (element_types[i].name[0] == name[0] &&
		    strncmp(element_types[i].name, name, len) == 0 &&
		    element_types[i].name[len] == '\0')
			return element_types[i].id;
	return -1;
}

int hm_element_type_bytes(int t)
{
	for (size_t i = 0; i < N_ELEMENT_TYPES; i++)
		if (element_types[i].id == t)
			return element_types[i].bytes;
	return 0;
}

/* ---- lookups -------------------------------------------------------- */

/* Linear scans: enough for the text reader's tests; the protobuf branch's
 * version indexes. */
const hm_instr *hm_find_instr(const hm_module *m, int64_t id)
{
	for (int c = 0; c < m->n_comps; c++)
		for (int i = 0; i < m->comps[c].n_instrs; i++)
			if (m->comps[c].instrs[i].id == id)
				return &m->comps[c].instrs[i];
	return NULL;
}

const hm_comp *hm_find_comp(const hm_module *m, int64_t id)
{
	for (int c = 0; c < m->n_comps; c++)
		if (m->comps[c].id == id)
			return &m->comps[c];
	return NULL;
}

/* Stand-in: the protobuf branch's version checks and indexes the module;
 * here it only marks the roots and the entry as that one does. */
int hm_module_check(hm_arena *a, hm_module *m, hs_error *err)
{
	(void)a;
	(void)err;
	for (int c = 0; c < m->n_comps; c++) {
		hm_comp *comp = &m->comps[c];
		comp->is_entry = comp->id == m->entry_id;
		for (int i = 0; i < comp->n_instrs; i++)
			comp->instrs[i].is_root = comp->instrs[i].id == comp->root_id;
	}
	return 0;
}
