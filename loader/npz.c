/* npz.c - named arrays in a zip archive, read whole or streamed. */
#include "npz.h"

#include <stdlib.h>
#include <string.h>

#include "xz.h"

uint64_t npz_max_array_bytes = UINT64_C(8) << 30;

static npz *wrap(zip_archive *z, hs_error *err)
{
	if (!z)
		return NULL;
	npz *a = calloc(1, sizeof *a);
	if (!a || !(a->names = calloc(z->n_entries ? z->n_entries : 1, sizeof *a->names))) {
		free(a);
		zip_close(z);
		hs_fail(err, HS_ENOMEM, "out of memory listing the arrays of an npz archive");
		return NULL;
	}
	a->zip = z;
	a->path = z->path;
	for (size_t i = 0; i < z->n_entries; i++) {
		const char *n = z->entries[i].name;
		size_t len = strlen(n);
		if (len < 4 || strcmp(n + len - 4, ".npy") != 0)
			continue; /* numpy ignores nothing, but other members carry no arrays */
		a->names[a->n_arrays] = strndup(n, len - 4);
		if (!a->names[a->n_arrays]) {
			npz_close(a);
			hs_fail(err, HS_ENOMEM, "out of memory listing the arrays of an npz archive");
			return NULL;
		}
		a->n_arrays++;
	}
	return a;
}

npz *npz_open(const char *path, hs_error *err)
{
	if (!xz_is_file(path))
		return wrap(zip_open(path, err), err);
	size_t n; /* an .npz compressed with xz: read from its content in memory */
	char *d = xz_read_file(path, xz_max_bytes, &n, err);
	npz *a = d ? npz_open_mem(d, n, path, err) : NULL;
	if (a)
		a->owned = d;
	else
		free(d);
	return a;
}

npz *npz_open_mem(const void *mem, size_t n, const char *name, hs_error *err)
{
	return wrap(zip_open_mem(mem, n, name, err), err);
}

void npz_close(npz *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_arrays; i++)
		free(a->names[i]);
	free(a->names);
	zip_close(a->zip);
	free(a->owned);
	free(a);
}

static const zip_entry *entry_of(const npz *a, const char *name)
{
	char member[512];
	snprintf(member, sizeof member, "%s.npy", name);
	return zip_find(a->zip, member);
}

int npz_has(const npz *a, const char *name) { return entry_of(a, name) != NULL; }

/* Reads the header through an open reader; leaves the reader at the data. */
static int read_header(npz *a, const char *name, zip_reader *r, npy_header *h, hs_error *err)
{
	uint8_t pre[12];
	const zip_entry *e = entry_of(a, name);
	size_t want = e->size < sizeof pre ? (size_t)e->size : sizeof pre;
	size_t got = 0;
	while (got < want) {
		long long k = zip_reader_read(r, pre + got, want - got, err);
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	size_t total = npy_header_length(pre, got, err);
	if (!total) {
		hs_error_prefix(err, "%s: %s.npy", a->path, name);
		return -1;
	}
	if (total < got) /* a 1.0 header length below 2: shorter than what was read */
		return hs_fail(err, HS_EDATA, "%s: %s.npy: byte 8: header length %zu is too short",
			       a->path, name, total - 10);
	if (total > e->size)
		return hs_fail(err, HS_EDATA, "%s: %s.npy: byte %zu: header claims %zu bytes, member has %llu",
			       a->path, name, got, total, (unsigned long long)e->size);
	uint8_t *buf = malloc(total);
	if (!buf)
		return hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory reading a header of %zu bytes",
			       a->path, name, total);
	memcpy(buf, pre, got);
	while (got < total) {
		long long k = zip_reader_read(r, buf + got, total - got, err);
		if (k <= 0) {
			free(buf);
			if (k == 0)
				hs_fail(err, HS_EDATA, "%s: %s.npy: header ends early", a->path, name);
			return -1;
		}
		got += (size_t)k;
	}
	int rc = npy_parse_header(buf, total, h, err);
	free(buf);
	if (rc) {
		hs_error_prefix(err, "%s: %s.npy", a->path, name);
		return -1;
	}
	uint64_t data = e->size - total;
	if (data != h->count * h->itemsize)
		return hs_fail(err, HS_EDATA,
			       "%s: %s.npy: byte %zu: shape claims %llu elements (%llu bytes) but the member holds %llu data bytes",
			       a->path, name, total, (unsigned long long)h->count,
			       (unsigned long long)(h->count * h->itemsize), (unsigned long long)data);
	return 0;
}

static zip_reader *open_array(npz *a, const char *name, hs_error *err)
{
	const zip_entry *e = entry_of(a, name);
	if (!e) {
		hs_fail(err, HS_EDATA, "%s: no array named '%s'", a->path, name);
		return NULL;
	}
	return zip_reader_open(a->zip, e, err);
}

int npz_header(npz *a, const char *name, npy_header *h, hs_error *err)
{
	zip_reader *r = open_array(a, name, err);
	if (!r)
		return -1;
	int rc = read_header(a, name, r, h, err);
	zip_reader_close(r);
	return rc;
}

static int read_exact_part(zip_reader *r, void *buf, uint64_t n, hs_error *err)
{
	uint8_t *p = buf;
	while (n > 0) {
		long long k = zip_reader_read(r, p, n > (1u << 30) ? (1u << 30) : (size_t)n, err);
		if (k < 0)
			return -1;
		if (k == 0)
			return hs_fail(err, HS_EDATA, "member ends early");
		p += k;
		n -= (uint64_t)k;
	}
	return 0;
}

/* Reads n bytes, then reaches the end of the member, which verifies the CRC. */
static int read_exact(zip_reader *r, void *buf, uint64_t n, hs_error *err)
{
	uint8_t probe;
	if (read_exact_part(r, buf, n, err))
		return -1;
	return zip_reader_read(r, &probe, 1, err) < 0 ? -1 : 0;
}

int npz_read(npz *a, const char *name, npz_array *out, hs_error *err)
{
	memset(out, 0, sizeof *out);
	zip_reader *r = open_array(a, name, err);
	if (!r)
		return -1;
	npy_header *h = &out->h;
	if (read_header(a, name, r, h, err)) {
		zip_reader_close(r);
		return -1;
	}
	uint64_t bytes = h->count * h->itemsize;
	if (bytes > npz_max_array_bytes) {
		zip_reader_close(r);
		return hs_fail(err, HS_EDATA, "%s: %s.npy: %llu bytes is more than the limit of %llu",
			       a->path, name, (unsigned long long)bytes,
			       (unsigned long long)npz_max_array_bytes);
	}
	void *raw = malloc(bytes ? (size_t)bytes : 1);
	if (!raw) {
		zip_reader_close(r);
		return hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory for %llu bytes", a->path, name,
			       (unsigned long long)bytes);
	}
	if (read_exact(r, raw, bytes, err)) {
		zip_reader_close(r);
		free(raw);
		return -1;
	}
	zip_reader_close(r);
	const uint16_t one = 1;
	int native = h->itemsize == 1 || h->big_endian == (*(const uint8_t *)&one == 0);
	if (native && (!h->fortran_order || h->ndim < 2)) {
		out->data = raw;
		return 0;
	}
	void *dst = malloc(bytes ? (size_t)bytes : 1);
	if (!dst) {
		free(raw);
		return hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory", a->path, name);
	}
	npy_decode(h, raw, dst);
	free(raw);
	out->data = dst;
	return 0;
}

void npz_array_free(npz_array *arr)
{
	if (arr) {
		free(arr->data);
		arr->data = NULL;
	}
}

#define STREAM_CHUNK (1u << 20)

int npz_stream(npz *a, const char *name, npz_chunk_fn fn, void *ctx, hs_error *err)
{
	zip_reader *r = open_array(a, name, err);
	if (!r)
		return -1;
	npy_header h;
	if (read_header(a, name, r, &h, err)) {
		zip_reader_close(r);
		return -1;
	}
	size_t per = STREAM_CHUNK / h.itemsize;
	if (per > h.count) /* a small array gets a small buffer */
		per = h.count ? (size_t)h.count : 1;
	uint8_t *buf = malloc(per * h.itemsize);
	if (!buf) {
		zip_reader_close(r);
		return hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory for a read buffer", a->path, name);
	}
	npy_header flat = h; /* decode as a 1-d run: order is the file's */
	flat.ndim = 1;
	flat.fortran_order = 0;
	uint8_t *conv = NULL;
	const uint16_t one = 1;
	int swap = h.itemsize > 1 && h.big_endian != (*(const uint8_t *)&one == 0);
	if (swap && !(conv = malloc(per * h.itemsize))) {
		free(buf);
		zip_reader_close(r);
		return hs_fail(err, HS_ENOMEM, "%s: %s.npy: out of memory for a read buffer", a->path, name);
	}
	int rc = 0;
	uint64_t done = 0;
	while (done < h.count) {
		uint64_t n = h.count - done < per ? h.count - done : per;
		if (read_exact_part(r, buf, n * h.itemsize, err)) {
			rc = -1;
			break;
		}
		const void *elems = buf;
		if (swap) {
			flat.count = n;
			flat.shape[0] = (int64_t)n;
			npy_decode(&flat, buf, conv);
			elems = conv;
		}
		if (fn(ctx, &h, elems, done, n, err)) {
			rc = -1;
			break;
		}
		done += n;
	}
	if (!rc) {
		uint8_t probe;
		if (zip_reader_read(r, &probe, 1, err) < 0)
			rc = -1;
	}
	if (rc && err && err->msg[0] && !strstr(err->msg, a->path))
		hs_error_prefix(err, "%s: %s.npy", a->path, name);
	free(conv);
	free(buf);
	zip_reader_close(r);
	return rc;
}

/* ---- writing ---- */

struct npz_writer {
	zip_writer *zw;
	int compress;
	char *path;
};

npz_writer *npz_writer_open(const char *path, int compress, hs_error *err)
{
	npz_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->path = strdup(path))) {
		free(w);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
		return NULL;
	}
	w->compress = compress;
	if (!(w->zw = zip_writer_open(path, err))) {
		free(w->path);
		free(w);
		return NULL;
	}
	return w;
}

int npz_writer_add(npz_writer *w, const char *name, npy_dtype t, int ndim, const int64_t *shape,
		   const void *data, hs_error *err)
{
	uint64_t count = 1;
	for (int i = 0; i < ndim; i++)
		count *= (uint64_t)shape[i];
	size_t bytes = (size_t)count * npy_dtype_size(t);
	uint8_t hdr[256 + NPY_MAXDIM * 24];
	size_t hl = npy_write_header(hdr, sizeof hdr, t, ndim, shape);
	if (!hl)
		return hs_fail(err, HS_EDATA, "%s: %s: header too large", w->path, name);
	/* Data is written little-endian: a big-endian host writes a swapped
	 * copy; a little-endian one the caller's array as it is. */
	const uint16_t one = 1;
	size_t is = npy_dtype_size(t);
	uint8_t *swapped = NULL;
	if (is > 1 && *(const uint8_t *)&one == 0 && bytes) {
		swapped = malloc(bytes);
		if (!swapped)
			return hs_fail(err, HS_ENOMEM, "%s: out of memory writing %s.npy", w->path, name);
		memcpy(swapped, data, bytes);
		for (size_t i = 0; i < count; i++)
			for (size_t x = 0, y = is - 1; x < y; x++, y--) {
				uint8_t c = swapped[i * is + x];
				swapped[i * is + x] = swapped[i * is + y];
				swapped[i * is + y] = c;
			}
	}
	char member[512];
	snprintf(member, sizeof member, "%s.npy", name);
	zip_part parts[2] = {{hdr, hl}, {swapped ? swapped : data, bytes}};
	int rc = zip_writer_addv(w->zw, member, parts, 2, w->compress, err);
	free(swapped);
	return rc;
}

int npz_writer_finish(npz_writer *w, hs_error *err)
{
	int rc = zip_writer_finish(w->zw, err);
	free(w->path);
	free(w);
	return rc;
}

void npz_writer_abort(npz_writer *w)
{
	if (!w)
		return;
	zip_writer_abort(w->zw);
	free(w->path);
	free(w);
}
