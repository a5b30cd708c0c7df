/* zip.c - the subset of PKZIP that numpy's savez writes, read defensively.
 *
 * Every message starts with the archive's path; offsets are file offsets
 * unless they say "uncompressed".
 */
#include "zip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/afile.h"
#include "base/inputs.h"
#include "base/vec.h"
#ifdef HS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "inflater.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_EOCD64_LOC 0x07064b50u
/* Level of the members we write: 6, zlib's default, as numpy's
 * savez_compressed.  With libdeflate (HS_HAVE_LIBDEFLATE) level 6 runs
 * about twice as fast as zlib's but writes 20-30% more bytes on convert's
 * arrays (measured: a 3,000-instruction module's .npz 50.9 KB against
 * 42.1 KB, a 230k-instruction one's 2.90 MB against 2.21 MB); its level 7
 * matches zlib's size at zlib's speed.  zlib at level 1 was measured 1.5x
 * faster than at 6 but wrote files twice as large. */
#define ZIP_WRITE_LEVEL 6
#define DEFLATE_MAX_RATIO 1032 /* deflate's best case is about 1032:1 */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

uint32_t zip_crc32(uint32_t crc, const void *buf, size_t n) { return inflater_crc32(crc, buf, n); }

const char *zip_inflater_name(void) { return inflater_name(); }

const char *zip_deflater_name(void)
{
#ifdef HS_HAVE_LIBDEFLATE
	return "libdeflate " LIBDEFLATE_VERSION_STRING;
#else
	return "zlib " ZLIB_VERSION;
#endif
}

/* Reads exactly n bytes at off; -1 with err on a short read. */
static int src_read(const zip_archive *z, uint64_t off, void *buf, size_t n, hs_error *err)
{
	if (off > z->file_size || n > z->file_size - off)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: file ends early (needs %zu bytes, has %llu)",
			       z->path, (unsigned long long)off, n,
			       (unsigned long long)(off > z->file_size ? 0 : z->file_size - off));
	if (z->mem) {
		memcpy(buf, z->mem + off, n);
		return 0;
	}
	uint8_t *p = buf;
	while (n > 0) {
		ssize_t r = pread(z->fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return hs_fail(err, HS_EDATA, "%s: byte %llu: read failed: %s", z->path,
				       (unsigned long long)off, r < 0 ? strerror(errno) : "end of file");
		p += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

/* Finds a zip64 extra field (id 1) and takes the fields that were saturated. */
static int take_zip64(const zip_archive *z, const uint8_t *extra, size_t n, int need_size,
		      int need_comp, int need_off, zip_entry *e, uint64_t where, hs_error *err)
{
	size_t i = 0;
	while (i + 4 <= n) {
		uint16_t id = le16(extra + i), len = le16(extra + i + 2);
		if (i + 4 + len > n)
			break;
		if (id == 1) {
			const uint8_t *f = extra + i + 4;
			size_t k = 0;
			if (need_size) {
				if (k + 8 > len)
					goto short_field;
				e->size = le64(f + k);
				k += 8;
			}
			if (need_comp) {
				if (k + 8 > len)
					goto short_field;
				e->comp_size = le64(f + k);
				k += 8;
			}
			if (need_off) {
				if (k + 8 > len)
					goto short_field;
				e->local_offset = le64(f + k);
			}
			return 0;
		}
		i += 4 + (size_t)len;
	}
	if (!need_size && !need_comp && !need_off)
		return 0;
	return hs_fail(err, HS_EDATA, "%s: byte %llu: sizes are 0xFFFFFFFF but no zip64 extra field",
		       z->path, (unsigned long long)where);
short_field:
	return hs_fail(err, HS_EDATA, "%s: byte %llu: zip64 extra field too short", z->path,
		       (unsigned long long)where);
}

/* Where the central directory is, from the end of central directory record
 * (and its zip64 version when there is one). */
struct cd_location {
	uint64_t eocd_off;   /* file offset of the end of central directory record */
	uint64_t n_entries;
	uint64_t cd_size, cd_off;
	uint8_t *tail;       /* the end of the file as read to find the record */
	uint64_t tail_off;
	size_t tail_n;
};

/* Reads the zip64 end of central directory record that the locator at
 * loc[0..20) points to into *cd. */
static int read_zip64_record(const zip_archive *z, const uint8_t *loc, struct cd_location *cd,
			     hs_error *err)
{
	uint64_t rec_off = le64(loc + 8);
	uint8_t rec[56];
	if (src_read(z, rec_off, rec, sizeof rec, err))
		return -1;
	if (le32(rec) != SIG_EOCD64)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: bad zip64 end of directory record",
			       z->path, (unsigned long long)rec_off);
	cd->n_entries = le64(rec + 32);
	cd->cd_size = le64(rec + 40);
	cd->cd_off = le64(rec + 48);
	return 0;
}

/* The offset in tail[0..n) of the end of central directory record whose
 * comment reaches exactly to the end, searching backwards; -1 if none. */
static long find_eocd(const uint8_t *tail, size_t n)
{
	for (size_t pos = n - 22;; pos--) {
		if (le32(tail + pos) == SIG_EOCD && pos + 22 + le16(tail + pos + 20) == n)
			return (long)pos;
		if (pos == 0)
			return -1;
	}
}

/* Searches the end of the file for the end of central directory record:
 * the last 4 KiB first (numpy writes no comment, so the record ends the
 * file), then the last 64 KiB + 22 bytes, the most a comment allows.
 * Follows a zip64 locator just before it, and checks that the directory
 * lies inside the file.  Keeps the bytes read in cd->tail (the directory
 * of a small file is among them). */
static int find_directory(const zip_archive *z, struct cd_location *cd, hs_error *err)
{
	uint64_t size = z->file_size;
	if (size == 0)
		return hs_fail(err, HS_EDATA, "%s: the file is empty (0 bytes)", z->path);
	if (size < 22)
		return hs_fail(err, HS_EDATA, "%s: not a zip archive (%llu bytes, too short)", z->path,
			       (unsigned long long)size);
	long found = -1;
	uint8_t *tail = NULL;
	size_t tail_n = 0;
	uint64_t tail_off = 0;
	for (size_t want = 4096; found < 0; want = 65557) {
		tail_n = size < want ? (size_t)size : want;
		tail_off = size - tail_n;
		free(tail);
		if (!(tail = malloc(tail_n)))
			return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the zip directory", z->path);
		if (src_read(z, tail_off, tail, tail_n, err)) {
			free(tail);
			return -1;
		}
		found = find_eocd(tail, tail_n);
		if (found < 0 && (tail_n == size || want == 65557)) {
			free(tail);
			return hs_fail(err, HS_EDATA,
				       "%s: not a zip archive (no end of central directory record)",
				       z->path);
		}
	}
	size_t pos = (size_t)found;
	cd->tail = tail;
	cd->tail_off = tail_off;
	cd->tail_n = tail_n;
	const uint8_t *r = tail + pos;
	cd->eocd_off = tail_off + pos;
	cd->n_entries = le16(r + 10);
	cd->cd_size = le32(r + 12);
	cd->cd_off = le32(r + 16);
	int disk = le16(r + 4), cd_disk = le16(r + 6);
	int zip64 = cd->n_entries == 0xffff || cd->cd_size == 0xffffffffu ||
		    cd->cd_off == 0xffffffffu;
	if (pos >= 20 && le32(tail + pos - 20) == SIG_EOCD64_LOC) {
		if (read_zip64_record(z, tail + pos - 20, cd, err))
			return -1;
		zip64 = 0;
	}
	if (zip64)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: zip64 directory without its locator",
			       z->path, (unsigned long long)cd->eocd_off);
	if (disk != 0 || cd_disk != 0)
		return hs_fail(err, HS_EDATA, "%s: multi-disk zip archives are not supported", z->path);
	if (cd->cd_off > cd->eocd_off || cd->cd_size > cd->eocd_off - cd->cd_off)
		return hs_fail(err, HS_EDATA,
			       "%s: byte %llu: central directory (offset %llu, %llu bytes) lies outside the file",
			       z->path, (unsigned long long)cd->eocd_off,
			       (unsigned long long)cd->cd_off, (unsigned long long)cd->cd_size);
	if (cd->n_entries > cd->cd_size / 46)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: %llu entries cannot fit in %llu bytes",
			       z->path, (unsigned long long)cd->eocd_off,
			       (unsigned long long)cd->n_entries, (unsigned long long)cd->cd_size);
	return 0;
}

/* Parses entry `i` at cd[p..] (the directory is `cd_size` bytes, at file
 * offset `cd_off`) into z->entries[z->n_entries], counting it once its name
 * is owned; sets *next to the offset of the entry after it. */
static int parse_entry(zip_archive *z, const uint8_t *cd, uint64_t cd_size, uint64_t cd_off,
		       size_t p, uint64_t i, size_t *next, hs_error *err)
{
	uint64_t where = cd_off + p;
	if (p + 46 > cd_size || le32(cd + p) != SIG_CENTRAL)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: bad central directory entry %llu",
			       z->path, (unsigned long long)where, (unsigned long long)i);
	const uint8_t *c = cd + p;
	zip_entry *e = &z->entries[z->n_entries];
	uint16_t flags = le16(c + 8);
	size_t name_n = le16(c + 28), extra_n = le16(c + 30), comment_n = le16(c + 32);
	if (p + 46 + name_n + extra_n + comment_n > cd_size)
		return hs_fail(err, HS_EDATA,
			       "%s: byte %llu: central directory entry %llu overruns the directory",
			       z->path, (unsigned long long)where, (unsigned long long)i);
	e->method = le16(c + 10);
	e->crc32 = le32(c + 16);
	e->comp_size = le32(c + 20);
	e->size = le32(c + 24);
	e->local_offset = le32(c + 42);
	e->name = malloc(name_n + 1);
	if (!e->name)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the zip directory", z->path);
	memcpy(e->name, c + 46, name_n);
	e->name[name_n] = '\0';
	z->n_entries++;
	if (memchr(e->name, '\0', name_n))
		return hs_fail(err, HS_EDATA, "%s: byte %llu: member name contains a NUL byte",
			       z->path, (unsigned long long)where);
	if (take_zip64(z, c + 46 + name_n, extra_n, e->size == 0xffffffffu,
		       e->comp_size == 0xffffffffu, e->local_offset == 0xffffffffu, e, where, err))
		return -1;
	if (flags & 1)
		return hs_fail(err, HS_EDATA, "%s: member %s is encrypted", z->path, e->name);
	*next = p + 46 + name_n + extra_n + comment_n;
	return 0;
}

/* Reads the central directory at `cd` into z->entries. */
static int read_entries(zip_archive *z, const struct cd_location *loc, hs_error *err)
{
	uint8_t *cd = NULL;
	const uint8_t *dir;
	if (loc->cd_off >= loc->tail_off) { /* read already with the tail */
		dir = loc->tail + (loc->cd_off - loc->tail_off);
	} else {
		if (!(cd = malloc(loc->cd_size ? (size_t)loc->cd_size : 1)))
			return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the zip directory", z->path);
		if (src_read(z, loc->cd_off, cd, (size_t)loc->cd_size, err)) {
			free(cd);
			return -1;
		}
		dir = cd;
	}
	z->entries = calloc(loc->n_entries ? (size_t)loc->n_entries : 1, sizeof *z->entries);
	if (!z->entries) {
		free(cd);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the zip directory", z->path);
	}
	size_t p = 0;
	int rc = 0;
	for (uint64_t i = 0; i < loc->n_entries && !rc; i++)
		rc = parse_entry(z, dir, loc->cd_size, loc->cd_off, p, i, &p, err);
	free(cd);
	return rc;
}

/* Checks what the directory says of a member: a method it can read, and
 * sizes the file can hold, before anything is allocated for it. */
static int check_member(const zip_archive *z, const zip_entry *e, hs_error *err)
{
	if (e->method != 0 && e->method != 8)
		return hs_fail(err, HS_EDATA,
			       "%s: member %s: compression method %u is not supported (stored or deflate only)",
			       z->path, e->name, e->method);
	if (e->local_offset > z->file_size || e->comp_size > z->file_size - e->local_offset)
		return hs_fail(err, HS_EDATA,
			       "%s: byte %llu: member %s claims %llu compressed bytes, past the end of the file",
			       z->path, (unsigned long long)e->local_offset, e->name,
			       (unsigned long long)e->comp_size);
	if (e->method == 0 && e->size != e->comp_size)
		return hs_fail(err, HS_EDATA,
			       "%s: byte %llu: stored member %s: size %llu differs from compressed size %llu",
			       z->path, (unsigned long long)e->local_offset, e->name,
			       (unsigned long long)e->size, (unsigned long long)e->comp_size);
	if (e->method == 8 && e->size / DEFLATE_MAX_RATIO > e->comp_size + 64)
		return hs_fail(err, HS_EDATA,
			       "%s: byte %llu: member %s claims %llu bytes from %llu compressed: more than deflate can expand (zip bomb?)",
			       z->path, (unsigned long long)e->local_offset, e->name,
			       (unsigned long long)e->size, (unsigned long long)e->comp_size);
	return 0;
}

/* Resolves a member's data offset from its local header, the first time it
 * is read (a reader of one member does not read the others' headers). */
static int resolve_member(const zip_archive *z, zip_entry *e, hs_error *err)
{
	uint8_t lh[30];
	if (e->data_offset)
		return 0;
	if (src_read(z, e->local_offset, lh, sizeof lh, err))
		return -1;
	if (le32(lh) != SIG_LOCAL)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: member %s: bad local header signature",
			       z->path, (unsigned long long)e->local_offset, e->name);
	uint64_t data = e->local_offset + 30 + le16(lh + 26) + le16(lh + 28);
	if (data > z->file_size || e->comp_size > z->file_size - data)
		return hs_fail(err, HS_EDATA,
			       "%s: byte %llu: member %s claims %llu compressed bytes, past the end of the file",
			       z->path, (unsigned long long)e->local_offset, e->name,
			       (unsigned long long)e->comp_size);
	e->data_offset = data;
	return 0;
}

static int read_directory(zip_archive *z, hs_error *err)
{
	struct cd_location loc = {0};
	int rc = find_directory(z, &loc, err) || read_entries(z, &loc, err);
	free(loc.tail);
	if (rc)
		return -1;
	for (size_t i = 0; i < z->n_entries; i++)
		if (check_member(z, &z->entries[i], err))
			return -1;
	return 0;
}

/* The archive's own (writable) copy of an entry it handed out. */
static zip_entry *own_entry(zip_archive *z, const zip_entry *e)
{
	return &z->entries[e - z->entries];
}

static zip_archive *open_common(zip_archive *z, hs_error *err)
{
	if (read_directory(z, err)) {
		zip_close(z);
		return NULL;
	}
	return z;
}

zip_archive *zip_open(const char *path, hs_error *err)
{
	zip_archive *z = calloc(1, sizeof *z);
	if (!z || !(z->path = strdup(path))) {
		free(z);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it", path);
		return NULL;
	}
	z->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (z->fd < 0) {
		hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
		zip_close(z);
		return NULL;
	}
	struct stat st;
	if (fstat(z->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		hs_fail(err, HS_EDATA, "%s: not a regular file", path);
		zip_close(z);
		return NULL;
	}
	if (hs_input_note_fd(z->fd, path, err) < 0) {
		zip_close(z);
		return NULL;
	}
	z->file_size = (uint64_t)st.st_size;
	return open_common(z, err);
}

zip_archive *zip_open_mem(const void *mem, size_t n, const char *name, hs_error *err)
{
	zip_archive *z = calloc(1, sizeof *z);
	if (!z || !(z->path = strdup(name))) {
		free(z);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it", name);
		return NULL;
	}
	z->fd = -1;
	z->mem = mem;
	z->file_size = n;
	return open_common(z, err);
}

void zip_close(zip_archive *z)
{
	if (!z)
		return;
	for (size_t i = 0; i < z->n_entries; i++)
		free(z->entries[i].name);
	free(z->entries);
	if (z->fd >= 0 && !z->mem)
		close(z->fd);
	free(z->path);
	free(z);
}

const zip_entry *zip_find(const zip_archive *z, const char *name)
{
	for (size_t i = 0; i < z->n_entries; i++)
		if (strcmp(z->entries[i].name, name) == 0)
			return &z->entries[i];
	return NULL;
}

/* ---- reading members ---- */

#define IN_CHUNK (256 * 1024)

struct zip_reader {
	zip_archive *z;
	const zip_entry *e;
	uint64_t in_pos;   /* compressed bytes read from the file */
	uint64_t out_pos;  /* uncompressed bytes produced */
	uint32_t crc;
	int done;
	inflater *inf;     /* NULL for a stored member */
	uint8_t *in;       /* IN_CHUNK (or fewer) bytes + INFLATER_IN_PAD */
};

zip_reader *zip_reader_open(zip_archive *z, const zip_entry *e, hs_error *err)
{
	zip_reader *r = calloc(1, sizeof *r);
	if (!r) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening member %s", z->path, e->name);
		return NULL;
	}
	r->z = z;
	r->e = e;
	if (resolve_member(z, own_entry(z, e), err)) {
		free(r);
		return NULL;
	}
	if (e->method == 8) {
		size_t in_n = e->comp_size < IN_CHUNK ? (size_t)e->comp_size : IN_CHUNK;
		r->in = calloc(1, in_n + INFLATER_IN_PAD);
		r->inf = r->in ? inflater_new() : NULL;
		if (!r->inf) {
			free(r->in);
			free(r);
			hs_fail(err, HS_ENOMEM, "%s: out of memory opening member %s", z->path, e->name);
			return NULL;
		}
	}
	return r;
}

void zip_reader_close(zip_reader *r)
{
	if (!r)
		return;
	inflater_free(r->inf);
	free(r->in);
	free(r);
}

/* Feeds the member's next chunk of compressed bytes to the inflater, if the
 * inflater has used up the last one and the member has more. */
static int refill(zip_reader *r, hs_error *err)
{
	const zip_entry *e = r->e;
	if (inflater_avail_in(r->inf) > 0 || r->in_pos >= e->comp_size)
		return 0;
	size_t want = e->comp_size - r->in_pos > IN_CHUNK ? IN_CHUNK
							   : (size_t)(e->comp_size - r->in_pos);
	if (src_read(r->z, e->data_offset + r->in_pos, r->in, want, err))
		return -1;
	r->in_pos += want;
	inflater_feed(r->inf, r->in, want);
	return 0;
}

static int finish_member(zip_reader *r, hs_error *err)
{
	const zip_entry *e = r->e;
	if (r->inf) {
		/* The stream must end exactly at the declared size. */
		uint8_t probe[1];
		inflater_status st;
		do {
			size_t made;
			const char *why;
			if (refill(r, err))
				return -1;
			st = inflater_run(r->inf, probe, 1, &made, &why);
			if (made)
				return hs_fail(err, HS_EDATA,
					       "%s: member %s inflates to more than its declared %llu bytes",
					       r->z->path, e->name, (unsigned long long)e->size);
		} while (st == INFLATER_OK && r->in_pos < e->comp_size);
		if (st != INFLATER_END)
			return hs_fail(err, HS_EDATA,
				       "%s: member %s: compressed data does not end where the directory says (byte %llu)",
				       r->z->path, e->name,
				       (unsigned long long)(e->data_offset + r->in_pos));
	}
	if (r->crc != e->crc32)
		return hs_fail(err, HS_EDATA,
			       "%s: member %s: CRC-32 mismatch (stored %08x, computed %08x)", r->z->path,
			       e->name, e->crc32, r->crc);
	r->done = 1;
	return 0;
}

/* Inflates exactly n bytes (n <= 1 GiB) into buf, or fails. */
static int inflate_some(zip_reader *r, uint8_t *buf, size_t n, hs_error *err)
{
	const zip_entry *e = r->e;
	size_t got = 0;
	while (got < n) {
		size_t made;
		const char *why = NULL;
		if (refill(r, err))
			return -1;
		size_t avail = inflater_avail_in(r->inf);
		inflater_status st = inflater_run(r->inf, buf + got, n - got, &made, &why);
		got += made;
		if (st == INFLATER_OK && made == 0 && avail > 0 && inflater_avail_in(r->inf) == avail) {
			st = INFLATER_ERROR; /* stuck: never expected, but never loop */
			why = "inflate made no progress";
		}
		if (st == INFLATER_ERROR)
			return hs_fail(err, HS_EDATA,
				       "%s: member %s: corrupt deflate data near compressed byte %llu (%s)",
				       r->z->path, e->name,
				       (unsigned long long)(e->data_offset + r->in_pos -
							    inflater_avail_in(r->inf)),
				       why);
		if (st == INFLATER_END && got < n)
			return hs_fail(err, HS_EDATA,
				       "%s: member %s: deflate stream ends at uncompressed byte %llu, directory says %llu",
				       r->z->path, e->name, (unsigned long long)(r->out_pos + got),
				       (unsigned long long)e->size);
		if (got < n && r->in_pos >= e->comp_size && inflater_avail_in(r->inf) == 0)
			return hs_fail(err, HS_EDATA,
				       "%s: member %s: compressed data ends at uncompressed byte %llu of %llu",
				       r->z->path, e->name, (unsigned long long)(r->out_pos + got),
				       (unsigned long long)e->size);
	}
	return 0;
}

long long zip_reader_read(zip_reader *r, void *buf, size_t n, hs_error *err)
{
	const zip_entry *e = r->e;
	if (r->done)
		return 0;
	uint64_t left = e->size - r->out_pos;
	if (n > left)
		n = (size_t)left;
	if (n > (1u << 30))
		n = 1u << 30;
	if (n == 0)
		return finish_member(r, err) ? -1 : 0;
	if (r->inf ? inflate_some(r, buf, n, err)
		   : src_read(r->z, e->data_offset + r->out_pos, buf, n, err))
		return -1;
	r->crc = inflater_crc32(r->crc, buf, n);
	r->out_pos += n;
	if (r->out_pos == e->size && finish_member(r, err))
		return -1;
	return (long long)n;
}

/* ---- writing ---- */

struct wentry {
	char *name;
	uint16_t method;
	uint32_t crc;
	uint64_t comp, size, offset;
};

struct zip_writer {
	hs_afile *af;
	const char *path;    /* af's */
	FILE *fp;            /* af's stream */
	uint64_t pos;
	HS_VEC(struct wentry) e;
};

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

zip_writer *zip_writer_open(const char *path, hs_error *err)
{
	zip_writer *w = calloc(1, sizeof *w);
	if (!w) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
		return NULL;
	}
	if (!(w->af = hs_afile_open(path, err))) {
		free(w);
		return NULL;
	}
	w->path = hs_afile_path(w->af);
	w->fp = hs_afile_stream(w->af);
	return w;
}

static int wr(zip_writer *w, const void *p, size_t n, hs_error *err)
{
	if (n && fwrite(p, 1, n, w->fp) != n) {
		int e = hs_afile_errno(w->af);
		return hs_fail(err, hs_errno_status(e ? e : EIO), "cannot write %s: %s", w->path,
			       strerror(e ? e : EIO));
	}
	w->pos += n;
	return 0;
}

#ifdef HS_HAVE_LIBDEFLATE
/* Deflates the parts into one raw deflate stream with libdeflate (the same
 * format; whole buffers; see ZIP_WRITE_LEVEL for speed and size against
 * zlib); *out is malloc'd. */
static int deflate_parts(zip_writer *w, const char *name, const zip_part *parts, int n_parts, size_t n,
			 uint8_t **out, size_t *out_n, hs_error *err)
{
	const void *in = n_parts == 1 ? parts[0].data : NULL;
	uint8_t *joined = NULL;
	if (n_parts != 1) {
		/* one buffer: libdeflate compresses whole buffers */
		if (!(joined = malloc(n ? n : 1)))
			return hs_fail(err, HS_ENOMEM, "%s: out of memory compressing member %s", w->path, name);
		size_t at = 0;
		for (int i = 0; i < n_parts; i++) {
			if (parts[i].size)
				memcpy(joined + at, parts[i].data, parts[i].size);
			at += parts[i].size;
		}
		in = joined;
	}
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(ZIP_WRITE_LEVEL);
	size_t bound = c ? libdeflate_deflate_compress_bound(c, n) : 0;
	uint8_t *comp = c ? malloc(bound ? bound : 1) : NULL;
	if (!comp) {
		free(joined);
		if (c)
			libdeflate_free_compressor(c);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory compressing member %s", w->path, name);
	}
	size_t got = libdeflate_deflate_compress(c, in, n, comp, bound);
	libdeflate_free_compressor(c);
	free(joined);
	if (!got) {
		free(comp);
		return hs_fail(err, HS_EDATA, "%s: deflate of member %s failed", w->path, name);
	}
	*out = comp;
	*out_n = got;
	return 0;
}
#else
/* Deflates the parts into one raw deflate stream; *out is malloc'd. */
static int deflate_parts(zip_writer *w, const char *name, const zip_part *parts, int n_parts, size_t n,
			 uint8_t **out, size_t *out_n, hs_error *err)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, ZIP_WRITE_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return hs_fail(err, HS_ENOMEM, "%s: deflate init failed (out of memory)", w->path);
	/* every part's bound: each Z_NO_FLUSH part may end a block */
	size_t bound = deflateBound(&zs, (uLong)n) + 64 * (size_t)n_parts;
	uint8_t *comp = malloc(bound);
	if (!comp) {
		deflateEnd(&zs);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory compressing member %s", w->path, name);
	}
	zs.next_out = comp;
	zs.avail_out = (uInt)bound;
	int ret = Z_OK;
	for (int i = 0; i < n_parts && ret == Z_OK; i++) {
		zs.next_in = (Bytef *)(uintptr_t)parts[i].data;
		zs.avail_in = (uInt)parts[i].size;
		ret = deflate(&zs, i == n_parts - 1 ? Z_FINISH : Z_NO_FLUSH);
		if (i < n_parts - 1 && ret == Z_OK && zs.avail_in)
			ret = Z_BUF_ERROR;
	}
	if (n_parts == 0)
		ret = deflate(&zs, Z_FINISH);
	*out_n = zs.total_out;
	deflateEnd(&zs);
	if (ret != Z_STREAM_END) {
		free(comp);
		return hs_fail(err, HS_EDATA, "%s: deflate of member %s failed", w->path, name);
	}
	*out = comp;
	return 0;
}
#endif

int zip_writer_addv(zip_writer *w, const char *name, const zip_part *parts, int n_parts, int deflate_it,
		    hs_error *err)
{
	size_t n = 0;
	for (int i = 0; i < n_parts; i++)
		n += parts[i].size;
	if (n >= 0xffffffffu || w->pos >= 0xffffffffu)
		return hs_fail(err, HS_EDATA, "%s: member %s: archives over 4 GiB are not written",
			       w->path, name);
	if (hs_vec_reserve(&w->e, w->e.n + 1) != 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory adding member %s", w->path, name);
	uint8_t *comp = NULL;
	size_t comp_n = n;
	if (deflate_it && deflate_parts(w, name, parts, n_parts, n, &comp, &comp_n, err))
		return -1;
	struct wentry *e = &w->e.v[w->e.n];
	e->name = strdup(name);
	if (!e->name) {
		free(comp);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory adding member %s", w->path, name);
	}
	w->e.n++;
	e->method = deflate_it ? 8 : 0;
	e->crc = 0;
	for (int i = 0; i < n_parts; i++)
		e->crc = zip_crc32(e->crc, parts[i].data, parts[i].size);
	e->comp = comp_n;
	e->size = n;
	e->offset = w->pos;
	size_t name_n = strlen(name);
	uint8_t lh[30] = {0};
	put32(lh, SIG_LOCAL);
	put16(lh + 4, 20);
	put16(lh + 8, e->method);
	put16(lh + 12, 0x21); /* 1980-01-01: fixed, so output is reproducible */
	put32(lh + 14, e->crc);
	put32(lh + 18, (uint32_t)e->comp);
	put32(lh + 22, (uint32_t)e->size);
	put16(lh + 26, (uint16_t)name_n);
	int rc = wr(w, lh, sizeof lh, err) || wr(w, name, name_n, err);
	if (comp)
		rc = rc || wr(w, comp, comp_n, err);
	for (int i = 0; !comp && i < n_parts; i++)
		rc = rc || wr(w, parts[i].data, parts[i].size, err);
	free(comp);
	return rc ? -1 : 0;
}

int zip_writer_finish(zip_writer *w, hs_error *err)
{
	uint64_t cd_off = w->pos;
	int rc = 0;
	for (size_t i = 0; i < w->e.n && !rc; i++) {
		struct wentry *e = &w->e.v[i];
		size_t name_n = strlen(e->name);
		uint8_t c[46] = {0};
		put32(c, SIG_CENTRAL);
		put16(c + 4, 20);
		put16(c + 6, 20);
		put16(c + 10, e->method);
		put16(c + 14, 0x21);
		put32(c + 16, e->crc);
		put32(c + 20, (uint32_t)e->comp);
		put32(c + 24, (uint32_t)e->size);
		put16(c + 28, (uint16_t)name_n);
		put32(c + 38, 0644u << 16);
		put32(c + 42, (uint32_t)e->offset);
		rc = wr(w, c, sizeof c, err) || wr(w, e->name, name_n, err);
	}
	if (!rc) {
		uint8_t r[22] = {0};
		put32(r, SIG_EOCD);
		put16(r + 8, (uint16_t)w->e.n);
		put16(r + 10, (uint16_t)w->e.n);
		put32(r + 12, (uint32_t)(w->pos - cd_off));
		put32(r + 16, (uint32_t)cd_off);
		rc = wr(w, r, sizeof r, err);
	}
	if (rc)
		hs_afile_abort(w->af);
	else
		rc = hs_afile_commit(w->af, err);
	for (size_t i = 0; i < w->e.n; i++)
		free(w->e.v[i].name);
	hs_vec_free(&w->e);
	free(w);
	return rc ? -1 : 0;
}

void zip_writer_abort(zip_writer *w)
{
	if (!w)
		return;
	hs_afile_abort(w->af);
	for (size_t i = 0; i < w->e.n; i++)
		free(w->e.v[i].name);
	hs_vec_free(&w->e);
	free(w);
}
