/* inflater.h - raw deflate decompression and CRC-32 behind one small
 * interface, so that the zip reader does not care which library runs.
 *
 * A build with HS_HAVE_ISAL defined uses Intel ISA-L (isal_inflate,
 * crc32_gzip_refl), several times faster than zlib on the large members of
 * layout files; without it, zlib.  Both give the same bytes for every valid
 * stream and refuse corrupt ones; only the wording in `why` differs.
 *
 * Ownership: inflater_new() returns a state the caller frees with
 * inflater_free().  Input given to inflater_feed() is borrowed: it must stay
 * valid, unchanged, until inflater_avail_in() is 0; the inflater may read up
 * to INFLATER_IN_PAD bytes past its end (without using them), so the
 * caller's buffer carries that much slack.
 */
#ifndef HS_INFLATER_H
#define HS_INFLATER_H

#include <stddef.h>
#include <stdint.h>

#define INFLATER_IN_PAD 16

typedef struct inflater inflater;

typedef enum inflater_status {
	INFLATER_OK,     /* the output is full, or all input was used */
	INFLATER_END,    /* the deflate stream ended (its final block is done) */
	INFLATER_ERROR,  /* corrupt data; `why` says what */
} inflater_status;

/* A state for one raw deflate stream (no zlib or gzip wrapper); NULL when
 * out of memory. */
inflater *inflater_new(void);
void inflater_free(inflater *f);

/* Hands over the next `n` compressed bytes (n <= 1 GiB); call it only when
 * inflater_avail_in() is 0. */
void inflater_feed(inflater *f, const uint8_t *in, size_t n);

/* Compressed bytes given but not yet taken.  Fast decoders read ahead, so
 * after INFLATER_END this may be smaller than what follows the stream's last
 * bit. */
size_t inflater_avail_in(const inflater *f);

/* Decompresses into out[0..n), n <= 1 GiB, and sets *made to the number of
 * bytes written.  Returns INFLATER_OK when out is full, or when out is not
 * full and more input is needed (all input used, nothing held back);
 * INFLATER_END when the stream ended (possibly with out not full); or
 * INFLATER_ERROR with *why set to a static description.  A decoder may take
 * input well ahead of the output it gives (ISA-L buffers up to 64 KiB): call
 * it again with an empty input before concluding that the data ran out. */
inflater_status inflater_run(inflater *f, uint8_t *out, size_t n, size_t *made,
			     const char **why);

/* zlib's CRC-32 (the one zip stores): crc of buf[0..n) continuing `crc`;
 * start with 0. */
uint32_t inflater_crc32(uint32_t crc, const void *buf, size_t n);

/* Which library the build uses, with its version: "isa-l 2.30.0",
 * "zlib 1.2.13". */
const char *inflater_name(void);

#endif
