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

void *hs_arena_alloc(hs_arena *a, size_t n)
{
	if (n > SIZE_MAX - 2 * ARENA_ALIGN - sizeof(hs_arena_block))
		return NULL;
	size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (need == 0)
		need = ARENA_ALIGN;
	hs_arena_block *b = a->head;
	if (!b || b->cap - b->used < need) {
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
	}
	void *p = b->data + b->used;
	b->used += need;
	a->used_total += need;
	return p;
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
	char *p = hs_arena_alloc(a, n + 1);
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

void hs_arena_free(hs_arena *a)
{
	hs_arena_block *b = a->head;
	while (b) {
		hs_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used_total = 0;
}
