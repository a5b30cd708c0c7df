/* arena.c - see arena.h. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

struct hs_arena_block {
	hs_arena_block *next;
	size_t cap, used;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

struct hs_arena_adopted {
	struct hs_arena_adopted *next;
	void *p;
};

/* n bytes at an offset of the current block that is a multiple of align
 * (a power of two). */
static void *take(hs_arena *a, size_t n, size_t align)
{
	if (n > SIZE_MAX - 2 * ARENA_ALIGN - sizeof(hs_arena_block))
		return NULL;
	size_t need = (n + align - 1) & ~(align - 1);
	if (need == 0)
		need = align;
	hs_arena_block *b = a->head;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || at > b->cap || b->cap - at < need) {
		/* Large requests get a block of their own behind the current one,
		 * so the current block's free space is not wasted. */
		size_t cap = need > ARENA_BLOCK / 4 ? need : ARENA_BLOCK;
		hs_arena_block *nb = calloc(1, sizeof *nb + cap);
		if (!nb)
			return NULL;
		nb->cap = cap;
		if (b && cap != ARENA_BLOCK) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			a->head = nb;
		}
		b = nb;
		at = 0;
	}
	void *p = b->data + at;
	a->used_total += need + (at - b->used);
	b->used = at + need;
	return p;
}

void *hs_arena_alloc(hs_arena *a, size_t n)
{
	return take(a, n, ARENA_ALIGN);
}

void *hs_arena_bytes(hs_arena *a, size_t n)
{
	return take(a, n, 1);
}

int hs_arena_adopt(hs_arena *a, void *p)
{
	struct hs_arena_adopted *d = p ? take(a, sizeof *d, ARENA_ALIGN) : NULL;
	if (!d) {
		free(p);
		return p ? -1 : 0;
	}
	d->p = p;
	d->next = a->adopted;
	a->adopted = d;
	return 0;
}

void *hs_arena_array(hs_arena *a, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return hs_arena_alloc(a, count * size);
}

char *hs_arena_strndup(hs_arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *p = hs_arena_bytes(a, n + 1);
	if (p) {
		if (n)
			memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *hs_arena_strdup(hs_arena *a, const char *s)
{
	return hs_arena_strndup(a, s, strlen(s));
}

void hs_arena_merge(hs_arena *dst, hs_arena *src)
{
	/* src's blocks go behind dst's current one (whose free space stays
	 * in use); src's adopted list ahead of dst's */
	if (src->head) {
		hs_arena_block *last = src->head;
		while (last->next)
			last = last->next;
		if (dst->head) {
			last->next = dst->head->next;
			dst->head->next = src->head;
		} else {
			dst->head = src->head;
		}
	}
	if (src->adopted) {
		struct hs_arena_adopted *last = src->adopted;
		while (last->next)
			last = last->next;
		last->next = dst->adopted;
		dst->adopted = src->adopted;
	}
	dst->used_total += src->used_total;
	src->head = NULL;
	src->adopted = NULL;
	src->used_total = 0;
}

void hs_arena_free(hs_arena *a)
{
	for (struct hs_arena_adopted *d = a->adopted; d; d = d->next)
		free(d->p);
	a->adopted = NULL;
	hs_arena_block *b = a->head;
	while (b) {
		hs_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used_total = 0;
}
