/* inflater.c - raw deflate and CRC-32: ISA-L when the build has it, else zlib.
 *
 * Both back ends follow the same contract (inflater.h): inflater_run() keeps
 * calling the library until the output is full, the stream ends, the data
 * is found corrupt or a call makes no progress (all input used and nothing
 * left to write), so the caller only ever refills when avail_in is 0.
 */
#include "inflater.h"

#include <stdlib.h>

#ifdef HS_HAVE_ISAL

#include <isa-l.h>

struct inflater {
	struct inflate_state s;
};

inflater *inflater_new(void)
{
	inflater *f = malloc(sizeof *f);
	if (f) {
		isal_inflate_init(&f->s);
		f->s.crc_flag = ISAL_DEFLATE; /* raw: the zip reader checks the CRC */
	}
	return f;
}

void inflater_free(inflater *f) { free(f); }

void inflater_feed(inflater *f, const uint8_t *in, size_t n)
{
	f->s.next_in = (uint8_t *)(uintptr_t)in;
	f->s.avail_in = (uint32_t)n;
}

size_t inflater_avail_in(const inflater *f) { return f->s.avail_in; }

static const char *isal_reason(int ret)
{
	switch (ret) {
	case ISAL_INVALID_BLOCK:
		return "invalid block";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_NEED_DICT:
		return "needs a preset dictionary";
	default:
		return "inflate failed";
	}
}

inflater_status inflater_run(inflater *f, uint8_t *out, size_t n, size_t *made,
			     const char **why)
{
	struct inflate_state *s = &f->s;
	s->next_out = out;
	s->avail_out = (uint32_t)n;
	*made = 0;
	for (;;) {
		uint32_t in0 = s->avail_in, out0 = s->avail_out;
		int ret = isal_inflate(s);
		*made = n - s->avail_out;
		if (ret != ISAL_DECOMP_OK) {
			*why = isal_reason(ret);
			return INFLATER_ERROR;
		}
		if (s->block_state == ISAL_BLOCK_FINISH)
			return INFLATER_END;
		if (s->avail_out == 0 || (s->avail_in == in0 && s->avail_out == out0))
			return INFLATER_OK;
	}
}

uint32_t inflater_crc32(uint32_t crc, const void *buf, size_t n)
{
	return crc32_gzip_refl(crc, buf, n);
}

const char *inflater_name(void)
{
#define HS_STR2(x) #x
#define HS_STR(x) HS_STR2(x)
	return "isa-l " HS_STR(ISAL_MAJOR_VERSION) "." HS_STR(ISAL_MINOR_VERSION) "." HS_STR(
		ISAL_PATCH_VERSION);
}

#else /* zlib */

#include <zlib.h>

struct inflater {
	z_stream zs;
};

inflater *inflater_new(void)
{
	inflater *f = calloc(1, sizeof *f);
	if (f && inflateInit2(&f->zs, -15) != Z_OK) { /* -15: raw deflate, 32K window */
		free(f);
		return NULL;
	}
	return f;
}

void inflater_free(inflater *f)
{
	if (f) {
		inflateEnd(&f->zs);
		free(f);
	}
}

void inflater_feed(inflater *f, const uint8_t *in, size_t n)
{
	f->zs.next_in = (Bytef *)(uintptr_t)in;
	f->zs.avail_in = (uInt)n;
}

size_t inflater_avail_in(const inflater *f) { return f->zs.avail_in; }

inflater_status inflater_run(inflater *f, uint8_t *out, size_t n, size_t *made,
			     const char **why)
{
	z_stream *zs = &f->zs;
	zs->next_out = out;
	zs->avail_out = (uInt)n;
	*made = 0;
	for (;;) {
		int ret = inflate(zs, Z_NO_FLUSH);
		*made = n - zs->avail_out;
		if (ret == Z_STREAM_END)
			return INFLATER_END;
		if (ret == Z_BUF_ERROR || (ret == Z_OK && zs->avail_out == 0))
			return INFLATER_OK; /* no progress possible, or full */
		if (ret != Z_OK) {
			*why = zs->msg ? zs->msg : "inflate failed";
			return INFLATER_ERROR;
		}
	}
}

uint32_t inflater_crc32(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n > 0) {
		uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
		crc = (uint32_t)crc32(crc, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return crc;
}

const char *inflater_name(void) { return "zlib " ZLIB_VERSION; }

#endif
