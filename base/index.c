/* index.c - growing, clearing and freeing the hash index (index.h). */
#include "base/index.h"

#include <stdlib.h>
#include <string.h>

int hs_index_reserve(hs_index *x, size_t n)
{
	if (n > HS_INDEX_MAX)
		return -1;
	size_t cap = 16;
	int bits = 4;
	while (cap < 2 * n) {
		cap *= 2;
		bits++;
	}
	if (x->slot && cap <= x->mask + 1)
		return 0;
	hs_index_slot *slot = malloc(cap * sizeof *slot);
	if (!slot)
		return -1;
	memset(slot, 0xff, cap * sizeof *slot);
	hs_index old = *x;
	x->slot = slot;
	x->mask = cap - 1;
	x->shift = 32 - bits;
	for (size_t i = 0; old.n && i <= old.mask; i++) {   /* the stored hashes: no key is read */
		if (old.slot[i].entry < 0)
			continue;
		size_t j = hs_index_home_(x, old.slot[i].hash);
		while (slot[j].entry >= 0)
			j = (j + 1) & x->mask;
		slot[j] = old.slot[i];
	}
	free(old.slot);
	return 0;
}

void hs_index_clear(hs_index *x)
{
	if (x->n)
		memset(x->slot, 0xff, (x->mask + 1) * sizeof *x->slot);
	x->n = 0;
}

void hs_index_free(hs_index *x)
{
	free(x->slot);
	*x = (hs_index){0};
}
