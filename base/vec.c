#include "vec.h"

#include <stdint.h>

int hs_vec_grow_raw(struct hs_vec_raw *r, size_t elem, size_t need)
{
	if (need <= r->cap)
		return 0;
	size_t cap = r->cap ? r->cap : 16;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if (elem && cap > SIZE_MAX / elem)
		return -1;
	void *nv = realloc(r->v, cap * elem);
	if (!nv)
		return -1;
	r->v = nv;
	r->cap = cap;
	return 0;
}
