/* xz.h - files compressed with xz (liblzma), as XLA and nsys-jax write dumps
 * (module_0001.jit_f.before_optimizations.hlo.pb.xz, ...target_config.pbtxt.xz).
 *
 * A file is xz when it starts with xz's magic bytes (FD '7zXZ' 00), whatever
 * its name; its content is then read as any file's would be (HLO text,
 * protobufs, an .npz, a buffer assignment, a text protobuf).
 *
 * The policy is the zip reader's (zip.h): the size a file declares is checked
 * against a limit before anything is allocated, and decompressing never
 * yields more than declared.  Here the declaration is the xz index of every
 * stream of the file (concatenated streams add up); a file whose index claims
 * more than `limit` bytes is refused at once, naming the limit, and one whose
 * data decompresses to more than its index says is refused at the first byte
 * too many.  The decoder may use XZ_MAX_DECODER_MEMORY (a stream asking for a
 * larger dictionary is refused); every check (CRC32, CRC64, SHA-256) is
 * verified.
 *
 * Errors: HS_EDATA "NAME: byte N: xz: what is wrong" (N the offset in the
 * compressed file where the decoder stopped), "NAME: xz: decompresses to N
 * bytes, more than the limit of L"; HS_ENOMEM; HS_ESTOPPED when stopped
 * (base/progress.h, ticked every MB).
 */
#ifndef HS_XZ_H
#define HS_XZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* What one file may decompress to: 2 GiB, the HLO text reader's own limit
 * (hlo_text.h).  The fuzz targets lower it. */
extern uint64_t xz_max_bytes;
#define XZ_MAX_DECODER_MEMORY ((uint64_t)512 << 20)

/* 1 when b[0, n) starts with xz's magic bytes. */
int xz_sniff(const void *b, size_t n);

/* 1 when the file at `path` starts with xz's magic bytes (0 when it cannot
 * be read). */
int xz_is_file(const char *path);

/* Decompresses the whole of b[0, n) (every stream): a malloc'd buffer of
 * *out_n bytes and a NUL after them; NULL with err set.  Refuses content
 * over `limit` bytes.  `name` is for messages. */
uint8_t *xz_decode(const uint8_t *b, size_t n, const char *name, uint64_t limit, size_t *out_n,
		   hs_error *err);

/* The first bytes of the file at `path` as a reader sees them: at most cap
 * bytes of its decompressed content when it is xz (the file's own bytes when
 * not even one decompresses, so that a damaged file is refused by the reader
 * with its place), else of the file.  The count, or -1 when it cannot be
 * read (errno set). */
long xz_peek(const char *path, void *buf, size_t cap);

/* The content of the file (or pipe) at `path`: decompressed when it is xz,
 * else as it is; a malloc'd buffer of *n bytes and a NUL after them.  The
 * file is noted as an input (base/inputs.h).  More than `limit` bytes of
 * content is refused, naming the limit. */
char *xz_read_file(const char *path, uint64_t limit, size_t *n, hs_error *err);

#endif
