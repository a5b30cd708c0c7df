/* vec.h - growable arrays whose element type is part of their type.
 *
 *     typedef HS_VEC(int64_t) hs_vec_i64;
 *     hs_vec_i64 v = {0};
 *     if (hs_vec_push(&v, x) != 0)
 *             ... out of memory ...
 *     ... v.v[0 .. v.n) ...
 *     hs_vec_free(&v);
 *
 * Every size a vector computes comes from its own element type (sizeof
 * *v.v), never from a number its caller passes, so a vector grown for one
 * type cannot be filled with another: hs_vec_push assigns the value to an
 * element, and a value of another type is a compile error or a checked
 * conversion, as for any assignment.  Two vectors declared with HS_VEC(T)
 * separately are distinct types; give the type a name (typedef) where
 * vectors are assigned or swapped.
 *
 * Growth doubles (16 elements first) and is overflow-checked; on failure
 * the vector is left as it was.  Out of memory is -1 from the push; the
 * caller reports it (HS_ENOMEM).
 */
#ifndef HS_VEC_H
#define HS_VEC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The untyped view of every vector, for the grow function only. */
struct hs_vec_raw {
	void *v;
	size_t n, cap;
};

#define HS_VEC(T)                                   \
	union {                                     \
		struct {                            \
			T *v;                       \
			size_t n, cap;              \
		};                                  \
		struct hs_vec_raw raw;              \
	}

/* Makes room for `need` elements of `elem` bytes: 0, or -1 when the size
 * overflows or memory runs out (then nothing changed). */
int hs_vec_grow_raw(struct hs_vec_raw *r, size_t elem, size_t need);

/* Room for `need` elements in all: 0 or -1 (out of memory). */
#define hs_vec_reserve(vec, need) \
	((size_t)(need) <= (vec)->cap ? 0 : hs_vec_grow_raw(&(vec)->raw, sizeof *(vec)->v, (need)))

/* Appends x: 0 or -1 (out of memory; the vector is unchanged). */
#define hs_vec_push(vec, x) \
	(hs_vec_reserve((vec), (vec)->n + 1) != 0 ? -1 : ((vec)->v[(vec)->n++] = (x), 0))

/* Appends count elements from src (an array of the vector's own type: a
 * pointer of another type is a compile error): 0 or -1 (out of memory;
 * the vector is unchanged). */
#define hs_vec_append(vec, src, count)                                                    \
	((void)sizeof((vec)->v[0] = (src)[0]),                                           \
	 hs_vec_reserve((vec), (vec)->n + (size_t)(count)) != 0                          \
		 ? -1                                                                     \
		 : ((count) ? (void)memcpy((vec)->v + (vec)->n, (src), (size_t)(count) * sizeof *(vec)->v) \
			    : (void)0,                                                    \
		    (vec)->n += (size_t)(count), 0))
/* Bytes the elements take. */
#define hs_vec_bytes(vec) ((vec)->n * sizeof *(vec)->v)

#define hs_vec_free(vec) \
	(free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)

#endif
