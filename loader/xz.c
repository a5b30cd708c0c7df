/* xz.c - xz-compressed files (xz.h): the index read first for the size,
 * then the data decompressed into a buffer of exactly that size. */
#include "xz.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/inputs.h"
#include "base/progress.h"

uint64_t xz_max_bytes = UINT64_C(1) << 31;

#define CHUNK ((size_t)1 << 20) /* output between progress ticks */

int xz_sniff(const void *b, size_t n)
{
	static const uint8_t magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	return n >= sizeof magic && memcmp(b, magic, sizeof magic) == 0;
}

int xz_is_file(const char *path)
{
	uint8_t head[6];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, head, sizeof head, 0); /* fails on a pipe: not xz then */
	if (fd >= 0)
		close(fd);
	return n > 0 && xz_sniff(head, (size_t)n);
}

static const char *why(lzma_ret r)
{
	switch (r) {
	case LZMA_FORMAT_ERROR: return "not in the xz format";
	case LZMA_OPTIONS_ERROR: return "uses options this liblzma cannot decode";
	case LZMA_DATA_ERROR: return "the compressed data is corrupt";
	case LZMA_BUF_ERROR: return "the data ends inside a stream (a truncated file?)";
	case LZMA_MEMLIMIT_ERROR: return "needs more than 512 MiB of memory to decompress";
	default: return "cannot be decompressed";
	}
}

static uint8_t *too_big(const char *name, uint64_t size, const char *how, uint64_t limit, hs_error *err)
{
	hs_fail(err, HS_EDATA, "%s: xz: decompresses to %s%llu bytes, more than the limit of %llu", name, how,
		(unsigned long long)size, (unsigned long long)limit);
	return NULL;
}

/* A file whose index could not be read: where a plain decode of it stops,
 * and why (output thrown away, at most `limit` bytes of it). */
static uint8_t *diagnose(const uint8_t *b, size_t n, const char *name, lzma_ret info, uint64_t limit,
			 hs_error *err)
{
	uint8_t sink[16384];
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&s, XZ_MAX_DECODER_MEMORY, LZMA_CONCATENATED);
	s.next_in = b;
	s.avail_in = n;
	while (r == LZMA_OK && s.total_out <= limit) {
		s.next_out = sink;
		s.avail_out = sizeof sink;
		r = lzma_code(&s, LZMA_FINISH);
	}
	uint64_t at = s.total_in, out = s.total_out;
	lzma_end(&s);
	if (r == LZMA_MEM_ERROR || info == LZMA_MEM_ERROR) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory decompressing it", name);
		return NULL;
	}
	if (out > limit)
		return too_big(name, limit, "more than ", limit, err);
	if (r == LZMA_STREAM_END) /* the data decodes; what is wrong is after it */
		r = info, at = n;
	hs_fail(err, HS_EDATA, "%s: byte %llu: xz: %s", name, (unsigned long long)at, why(r));
	return NULL;
}

/* The size every stream's index declares; -1 with err set. */
static int declared_size(const uint8_t *b, size_t n, const char *name, uint64_t limit, uint64_t *size,
			 hs_error *err)
{
	lzma_index *ix = NULL;
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_file_info_decoder(&s, &ix, XZ_MAX_DECODER_MEMORY, n);
	s.next_in = b;
	s.avail_in = n;
	for (int round = 0; (r == LZMA_OK || r == LZMA_SEEK_NEEDED) && round < 64; round++) {
		if (r == LZMA_SEEK_NEEDED) {   /* never with the whole file given; kept for safety */
			s.next_in = b + s.seek_pos;
			s.avail_in = n - (size_t)s.seek_pos;
		}
		r = lzma_code(&s, LZMA_FINISH);
	}
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		diagnose(b, n, name, r, limit, err);
		return -1;
	}
	*size = lzma_index_uncompressed_size(ix);
	lzma_index_end(ix, NULL);
	return 0;
}

uint8_t *xz_decode(const uint8_t *b, size_t n, const char *name, uint64_t limit, size_t *out_n, hs_error *err)
{
	uint64_t size;
	*out_n = 0;
	if (!xz_sniff(b, n)) {
		hs_fail(err, HS_EDATA, "%s: byte 0: xz: %s", name, why(LZMA_FORMAT_ERROR));
		return NULL;
	}
	if (declared_size(b, n, name, limit, &size, err))
		return NULL;
	if (size > limit || size > SIZE_MAX - 2)
		return too_big(name, size, "", limit, err);
	/* one byte past the declared size shows data beyond it; then the NUL */
	uint8_t *out = malloc((size_t)size + 2);
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = out ? lzma_stream_decoder(&s, XZ_MAX_DECODER_MEMORY, LZMA_CONCATENATED) : LZMA_MEM_ERROR;
	char what[160];
	snprintf(what, sizeof what, "decompressing %s", name);
	s.next_in = b;
	s.avail_in = n;
	while (r == LZMA_OK && s.total_out <= size) {
		uint64_t room = size + 1 - s.total_out;
		s.next_out = out + s.total_out;
		s.avail_out = room < CHUNK ? (size_t)room : CHUNK;
		r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_OK && hs_progress_tick(what, (double)s.total_out, (double)size)) {
			lzma_end(&s);
			free(out);
			hs_fail(err, HS_ESTOPPED, "%s: stopped", name);
			return NULL;
		}
	}
	uint64_t at = s.total_in, got = s.total_out;
	lzma_end(&s);
	if (r == LZMA_STREAM_END && got == size) {
		out[size] = '\0';
		*out_n = (size_t)size;
		return out;
	}
	free(out);
	if (r == LZMA_MEM_ERROR)
		hs_fail(err, HS_ENOMEM, "%s: out of memory decompressing %llu bytes", name, (unsigned long long)size);
	else if (got != size && (r == LZMA_OK || r == LZMA_STREAM_END))
		hs_fail(err, HS_EDATA, "%s: byte %llu: xz: the data decompresses to %s the %llu bytes its index declares",
			name, (unsigned long long)at, got > size ? "more than" : "less than", (unsigned long long)size);
	else
		hs_fail(err, HS_EDATA, "%s: byte %llu: xz: %s", name, (unsigned long long)at, why(r));
	return NULL;
}

long xz_peek(const char *path, void *buf, size_t cap)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		ssize_t n;
		while ((n = read(fd, buf, cap)) < 0 && errno == EINTR)
			;
		close(fd);
		return n;
	}
	size_t len = (size_t)st.st_size, got = 0;
	void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	lzma_stream s = LZMA_STREAM_INIT;
	if (xz_sniff(m, len) && lzma_stream_decoder(&s, XZ_MAX_DECODER_MEMORY, LZMA_CONCATENATED) == LZMA_OK) {
		s.next_in = m;
		s.avail_in = len;
		s.next_out = buf;
		s.avail_out = cap;
		while (s.avail_out > 0 && lzma_code(&s, LZMA_FINISH) == LZMA_OK)
			;
		got = cap - s.avail_out;
	}
	lzma_end(&s);
	if (!got) /* not xz, or nothing decompresses: the bytes (a reader says why) */
		memcpy(buf, m, (got = len < cap ? len : cap));
	munmap(m, len);
	return (long)got;
}

/* A pipe (or a file that says it is empty) read to its end. */
static uint8_t *read_stream(int fd, const char *path, uint64_t limit, size_t *n, hs_error *err)
{
	size_t cap = 65536, len = 0;
	uint8_t *b = malloc(cap + 1);
	while (b) {
		if (len == cap) {
			uint8_t *nb = cap <= limit ? realloc(b, 2 * cap + 1) : NULL;
			if (!nb) {
				free(b);
				if (cap > limit)
					hs_fail(err, HS_EDATA, "%s: more than the limit of %llu bytes", path,
						(unsigned long long)limit);
				else
					hs_fail(err, HS_ENOMEM, "%s: out of memory reading it", path);
				return NULL;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
			free(b);
			return NULL;
		}
		if (r == 0) {
			*n = len;
			return b;
		}
		len += (size_t)r;
	}
	hs_fail(err, HS_ENOMEM, "%s: out of memory reading it", path);
	return NULL;
}

char *xz_read_file(const char *path, uint64_t limit, size_t *n, hs_error *err)
{
	struct stat st;
	uint8_t *raw = NULL, *out = NULL;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*n = 0;
	if (fd < 0) {
		hs_fail(err, hs_errno_status(errno), "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || hs_input_note_fd(fd, path, err) < 0) {
		if (!err->status)
			hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	int mapped = S_ISREG(st.st_mode) && st.st_size > 0;
	if (mapped) {
		len = (size_t)st.st_size;
		void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		raw = m == MAP_FAILED ? NULL : m;
		if (!raw)
			hs_fail(err, HS_EDATA, "%s: cannot read: %s", path, strerror(errno));
	} else {
		raw = read_stream(fd, path, limit, &len, err);
	}
	close(fd);
	if (!raw)
		return NULL;
	if (xz_sniff(raw, len)) {
		out = xz_decode(raw, len, path, limit, n, err);
	} else if (len > limit) {
		hs_fail(err, HS_EDATA, "%s: %zu bytes, more than the limit of %llu", path, len,
			(unsigned long long)limit);
	} else if (!mapped) {
		out = raw, raw = NULL;
		out[len] = '\0';
		*n = len;
	} else if ((out = malloc(len + 1))) {
		memcpy(out, raw, len);
		out[len] = '\0';
		*n = len;
	} else {
		hs_fail(err, HS_ENOMEM, "%s: out of memory reading %zu bytes", path, len);
	}
	if (mapped)
		munmap(raw, len);
	else
		free(raw);
	return (char *)out;
}
