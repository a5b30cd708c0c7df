/* zip.h - reading and writing the zip archives numpy's savez writes.
 *
 * Reading takes the central directory as the source of truth (local headers
 * of real layout files hold 0xFFFFFFFF sizes with the real ones in a zip64
 * extra field).  Members may be stored or deflated; every member's CRC-32 is
 * verified when it has been read to the end.  A member never yields more
 * bytes than its declared size, and declared sizes are checked against the
 * file size (deflate cannot expand more than ~1032:1) before anything is
 * allocated, so a zip bomb or a huge size claim is an error, not an
 * allocation.
 *
 * Ownership: zip_open() returns an archive the caller frees with
 * zip_close(); entries and their names belong to the archive.
 */
#ifndef HS_ZIP_H
#define HS_ZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

typedef struct zip_entry {
	char *name;
	uint16_t method;        /* 0 stored, 8 deflate */
	uint32_t crc32;
	uint64_t comp_size;
	uint64_t size;          /* uncompressed */
	uint64_t local_offset;  /* offset of the local file header */
	uint64_t data_offset;   /* offset of the member's data; 0 until a reader of it
	                         * opened (from its local header) */
} zip_entry;

typedef struct zip_archive {
	char *path;
	int fd;                 /* -1 for an in-memory archive */
	const uint8_t *mem;     /* the bytes of an in-memory archive (not owned) */
	uint64_t file_size;
	zip_entry *entries;
	size_t n_entries;
} zip_archive;

zip_archive *zip_open(const char *path, hs_error *err);
/* Opens `n` bytes at `mem` (kept, not copied: they must outlive the archive);
 * `name` is used in messages. */
zip_archive *zip_open_mem(const void *mem, size_t n, const char *name, hs_error *err);
void zip_close(zip_archive *z);

/* The entry named `name`, or NULL. */
const zip_entry *zip_find(const zip_archive *z, const char *name);

/* Sequential reading of one member. */
typedef struct zip_reader zip_reader;
zip_reader *zip_reader_open(zip_archive *z, const zip_entry *e, hs_error *err);
/* Reads up to n bytes; returns the count (0 at the end), or -1 on error
 * (corrupt deflate data, short file, CRC mismatch at the end, more data than
 * declared).  Offsets in messages are uncompressed offsets in the member. */
long long zip_reader_read(zip_reader *r, void *buf, size_t n, hs_error *err);
void zip_reader_close(zip_reader *r);

/* zlib's CRC-32 of buf[0..n), continuing `crc` (start with 0). */
uint32_t zip_crc32(uint32_t crc, const void *buf, size_t n);

/* The inflate library this build reads members with, and its version:
 * "isa-l 2.30.0" or "zlib 1.2.13" (static string). */
const char *zip_inflater_name(void);
/* The library that deflates the members we write ("libdeflate 1.14" or
 * "zlib 1.2.13"). */
const char *zip_deflater_name(void);

/* Writing, through base/afile.h.  zip_writer_open() creates
 * `path`.tmp.XXXXXX next to `path`; zip_writer_finish() writes the central
 * directory and renames it into place; zip_writer_abort() removes it.
 * Nothing partial is ever left at `path`; a file that cannot be written is
 * HS_EDATA. */
typedef struct zip_writer zip_writer;
zip_writer *zip_writer_open(const char *path, hs_error *err);
/* A member's bytes in pieces (e.g. an .npy header and the caller's array,
 * written without first copying them together). */
typedef struct zip_part {
	const void *data;
	size_t size;
} zip_part;
int zip_writer_addv(zip_writer *w, const char *name, const zip_part *parts, int n_parts, int deflate,
		    hs_error *err);
int zip_writer_finish(zip_writer *w, hs_error *err);
void zip_writer_abort(zip_writer *w);

#endif
