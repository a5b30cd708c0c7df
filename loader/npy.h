/* npy.h - the .npy array format (numpy's format versions 1.0, 2.0 and 3.0).
 *
 * Parsing works on a byte buffer holding at least the header; the data that
 * follows is converted to native byte order and C order by npy_decode().
 * Writing produces version 1.0 headers (2.0 when the header needs it), which
 * every numpy reads.
 */
#ifndef HS_NPY_H
#define HS_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define NPY_MAXDIM 32

typedef enum npy_dtype {
	NPY_BOOL, /* b1 */
	NPY_I1,
	NPY_U1,
	NPY_I2,
	NPY_U2,
	NPY_I4,
	NPY_U4,
	NPY_I8,
	NPY_U8,
	NPY_F2,
	NPY_F4,
	NPY_F8,
	NPY_NDTYPES
} npy_dtype;

typedef struct npy_header {
	int major, minor;     /* format version */
	npy_dtype dtype;
	int big_endian;       /* data bytes are big-endian (only matters for itemsize > 1) */
	int fortran_order;
	int ndim;
	int64_t shape[NPY_MAXDIM];
	uint64_t count;       /* product of shape; 1 for a 0-d array */
	size_t itemsize;
	size_t data_offset;   /* bytes from the start of the .npy to the data */
} npy_header;

/* Size in bytes of one element, and numpy's descr string ("<f4", "|u1", ...). */
size_t npy_dtype_size(npy_dtype t);
const char *npy_dtype_name(npy_dtype t); /* "f4", "i8", "b1", ... */
int npy_dtype_is_float(npy_dtype t);

/* Parses the magic, version and header dictionary at the start of `buf`.
 * `n` may be larger than the header.  Returns 0, or -1 with `err` naming the
 * byte offset.  Refuses object and structured dtypes, and shapes whose element
 * count or byte size overflows 2^62. */
int npy_parse_header(const uint8_t *buf, size_t n, npy_header *h, hs_error *err);

/* How many bytes of header npy_parse_header needs at least: call with a
 * prefix of 10 bytes to learn the full header length (returns 0 if the
 * prefix itself is malformed, with err set). */
size_t npy_header_length(const uint8_t *buf, size_t n, hs_error *err);

/* Converts `h->count` elements of raw file data at `src` (in the file's byte
 * order and array order) to native byte order and C order at `dst`
 * (h->count * h->itemsize bytes; must not overlap `src`). */
void npy_decode(const npy_header *h, const void *src, void *dst);

/* Reads element i of native-order data of dtype t as a double / int64. */
double npy_get_f64(npy_dtype t, const void *data, uint64_t i);
int64_t npy_get_i64(npy_dtype t, const void *data, uint64_t i);

/* Converts the C-order flat index of an element to its index in a Fortran
 * order buffer of the same shape (and back: the map is an involution only for
 * 2-d; use the explicit direction). */
uint64_t npy_c_to_f_index(const npy_header *h, uint64_t c_index);

/* Builds a little-endian, C-order, version 1.0 header for writing into `out`
 * (at least 128 bytes + 24 per dim).  Returns its length (a multiple of 64). */
size_t npy_write_header(uint8_t *out, size_t cap, npy_dtype t, int ndim,
			const int64_t *shape);

#endif
