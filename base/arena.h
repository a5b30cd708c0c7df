/* arena.h - a bump allocator: many small allocations that live and die
 * together.
 *
 *     hs_arena a = {0};
 *     char *s = hs_arena_strdup(&a, "name");
 *     int64_t *v = hs_arena_array(&a, n, sizeof *v);
 *     ...
 *     hs_arena_free(&a);   // everything at once
 *
 * Memory comes zeroed, 16-byte aligned (hs_arena_bytes and the string
 * copies: unaligned, packed), in blocks of 64 KB (a larger request gets a
 * block of its own).  Every size is checked for overflow:
 * NULL means out of memory or a size that cannot be.
 */
#ifndef HS_ARENA_H
#define HS_ARENA_H

#include <stddef.h>

typedef struct hs_arena_block hs_arena_block;
typedef struct hs_arena {
	hs_arena_block *head;
	size_t used_total;       /* bytes handed out, for limits and stats */
	struct hs_arena_adopted *adopted; /* malloc'd blocks freed with it */
} hs_arena;

void *hs_arena_alloc(hs_arena *a, size_t n);
/* count * size bytes; NULL when that overflows. */
void *hs_arena_array(hs_arena *a, size_t count, size_t size);
/* A terminated copy of s[0, n). */
char *hs_arena_strndup(hs_arena *a, const char *s, size_t n);
char *hs_arena_strdup(hs_arena *a, const char *s);
/* Unaligned bytes (for strings): packed one after another, no padding. */
void *hs_arena_bytes(hs_arena *a, size_t n);
/* Hands p (from malloc) to the arena: freed with it.  A large array
 * grown with realloc joins the arena this way instead of being copied.
 * -1 when out of memory (then p is freed at once and gone). */
int hs_arena_adopt(hs_arena *a, void *p);
/* Everything src holds now belongs to dst (freed with it); src is left
 * empty.  What one thread built in its own arena joins another's. */
void hs_arena_merge(hs_arena *dst, hs_arena *src);
void hs_arena_free(hs_arena *a);

#endif
