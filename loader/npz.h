/* npz.h - numpy .npz archives: named .npy members of a zip file.
 *
 * Array names are given without the ".npy" suffix, as numpy's NpzFile keys.
 *
 * Ownership: npz_open() returns an archive freed by npz_close().
 * npz_read() fills an npz_array whose data the caller frees with
 * npz_array_free().
 */
#ifndef HS_NPZ_H
#define HS_NPZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "npy.h"
#include "zip.h"

typedef struct npz {
	char *path;
	zip_archive *zip;
	size_t n_arrays;
	char **names;           /* array names, archive order */
	void *owned;            /* an .xz file's decompressed content (xz.h), freed by npz_close */
} npz;

typedef struct npz_array {
	npy_header h;           /* as stored in the file */
	void *data;             /* native byte order, C order, h.count elements */
} npz_array;

/* The largest array npz_read will allocate (bytes); protects against huge
 * shape claims.  Default 8 GiB; tests may lower it. */
extern uint64_t npz_max_array_bytes;

npz *npz_open(const char *path, hs_error *err);
npz *npz_open_mem(const void *mem, size_t n, const char *name, hs_error *err);
void npz_close(npz *a);

int npz_has(const npz *a, const char *name);

/* Reads only the .npy header of an array (decompresses its first bytes). */
int npz_header(npz *a, const char *name, npy_header *h, hs_error *err);

/* Reads the whole array.  Checks that the data size matches the header. */
int npz_read(npz *a, const char *name, npz_array *out, hs_error *err);
void npz_array_free(npz_array *arr);

/* Streams an array in chunks of whole elements, converted to native byte
 * order but in the file's array order: `first` is the flat index (in file
 * order) of the chunk's first element.  The callback returns 0 to go on or
 * -1 to stop (with err set).  Memory use is bounded by the chunk size. */
typedef int (*npz_chunk_fn)(void *ctx, const npy_header *h, const void *elems,
			    uint64_t first, uint64_t count, hs_error *err);
int npz_stream(npz *a, const char *name, npz_chunk_fn fn, void *ctx,
	       hs_error *err);

/* Writing: arrays are given in native order, C order. */
typedef struct npz_writer npz_writer;
npz_writer *npz_writer_open(const char *path, int compress, hs_error *err);
int npz_writer_add(npz_writer *w, const char *name, npy_dtype t, int ndim,
		   const int64_t *shape, const void *data, hs_error *err);
int npz_writer_finish(npz_writer *w, hs_error *err); /* renames into place */
void npz_writer_abort(npz_writer *w);

#endif
