/* cmp.h - qsort comparators of the plain element types, ascending; the
 * median of doubles. */
#ifndef HS_CMP_H
#define HS_CMP_H

/* int64_t elements. */
int hs_cmp_i64(const void *a, const void *b);
/* int64_t[2] elements (edges, pairs): by the first, then the second. */
int hs_cmp_i64_pair(const void *a, const void *b);
/* double elements; a NaN compares equal to everything (keep NaNs out). */
int hs_cmp_double(const void *a, const void *b);
/* char * elements (an array of string pointers), by strcmp. */
int hs_cmp_str(const void *a, const void *b);

#include <stddef.h>
/* Sorts v[0..n) (n > 0, no NaN) and returns its median as numpy.median
 * does: the mean of the two middle values when n is even. */
double hs_median(double *v, size_t n);

#endif
