/* afile.c - see afile.h.
 *
 * The stream is a stdio cookie stream (fopencookie) over the temporary
 * file's descriptor: its write function keeps the errno of the first write
 * that fails, which a plain FILE would leave to chance by commit time.
 *
 * What is at the name is looked at twice, when the file is opened and again
 * just before the rename (it may have changed meanwhile): only nothing or a
 * regular file the caller could write, and not a file this process read
 * (base/inputs.h), is replaced. */
#include "afile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "clock.h"
#include "inputs.h"
#include "rng.h"

/* Temporary names tried before giving up (each one exists already). */
#define AFILE_TRIES 100
/* Symlinks followed from the name before giving up (as the kernel's ELOOP). */
#define AFILE_MAX_LINKS 40

struct hs_afile {
	FILE *f;
	int fd;
	int werr;       /* errno of the first failed write, 0 while none */
	char *path;     /* the name given, for messages */
	char *target;   /* the file written: path, or where its symlinks lead */
	char *tmp;      /* target.tmp.XXXXXX, beside it */
};

/* A write that fails returns how much was written, never -1: glibc takes
 * a cookie's -1 for a count when fwrite hands a large block straight to
 * it, and then copies past the caller's buffer (a crash on a full disk).
 * fopencookie(3): "must not return a negative value". */
static ssize_t afile_write(void *cookie, const char *buf, size_t n)
{
	hs_afile *af = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(af->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!af->werr)
				af->werr = w < 0 ? errno : EIO;
			return (ssize_t)done;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int afile_seek(void *cookie, off64_t *pos, int whence)
{
	hs_afile *af = cookie;
	off_t at = lseek(af->fd, (off_t)*pos, whence);

	if (at < 0)
		return -1;
	*pos = (off64_t)at;
	return 0;
}

/* The descriptor is closed by commit or abort, which check the close. */
static int afile_close(void *cookie)
{
	(void)cookie;
	return 0;
}

static void afile_free(hs_afile *af)
{
	free(af->path);
	free(af->target);
	free(af->tmp);
	free(af);
}

/* Creates PATH.tmp.XXXXXX with a name not taken yet; the fd, or -1. */
static int create_temp(hs_afile *af, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	uint64_t x = (uint64_t)getpid() << 32 ^ (uint64_t)(hs_now_seconds() * 1e9) ^ (uintptr_t)af;

	for (int t = 0; t < AFILE_TRIES; t++) {
		uint64_t r = hs_splitmix64(&x);
		char *p = af->tmp + len + 5;
		for (int i = 0; i < 6; i++, r /= 62)
			p[i] = digits[r % 62];
		int fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* The text of the symlink at `link` (whose lstat is st), malloc'd; NULL
 * with errno set. */
static char *read_link(const char *link, const struct stat *st)
{
	size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 : 256;

	for (;;) {
		char *to = malloc(cap);
		if (!to)
			return NULL;
		ssize_t n = readlink(link, to, cap);
		if (n < 0) {
			free(to);
			return NULL;
		}
		if ((size_t)n < cap) {
			to[n] = '\0';
			return to;
		}
		free(to);
		if (cap > PATH_MAX) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		cap *= 2;
	}
}

/* Where the symlink `link` leads: its text, relative to its folder; malloc'd,
 * NULL with errno set. */
static char *follow(const char *link, const struct stat *st)
{
	char *to = read_link(link, st);
	const char *slash = strrchr(link, '/');

	if (!to || to[0] == '/' || !slash)
		return to;
	size_t dir = (size_t)(slash - link) + 1, n = strlen(to);
	char *next = malloc(dir + n + 1);
	if (next) {
		memcpy(next, link, dir);
		memcpy(next + dir, to, n + 1);
	}
	free(to);
	return next;
}

/* The file `path` names once its symlinks are followed (path itself when it
 * is none), malloc'd, with its lstat in *st and *exists 0 when nothing is
 * there yet; NULL with err set. */
static char *resolve(const char *path, struct stat *st, int *exists, hs_error *err)
{
	char *cur = strdup(path);

	for (int hops = 0; cur; hops++) {
		if (lstat(cur, st) != 0) {
			if (errno == ENOENT) {
				*exists = 0;
				return cur;
			}
			break;
		}
		if (!S_ISLNK(st->st_mode)) {
			*exists = 1;
			return cur;
		}
		char *next = hops < AFILE_MAX_LINKS ? follow(cur, st) : (errno = ELOOP, NULL);
		free(cur);
		cur = next;
	}
	int e = errno;
	free(cur);
	hs_fail(err, hs_errno_status(e), "cannot write %s: %s", path, strerror(e));
	return NULL;
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a folder" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	       : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISSOCK(m) ? "a socket"
	       : S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* Whether the file `target` (lstat st), reached from `path`, may be
 * replaced: a regular file that is no input of this process and that the
 * caller could write in place.  0, or -1 with err set (HS_EDATA). */
static int replaceable(const char *path, const char *target, const struct stat *st, hs_error *err)
{
	char input[512], via[300] = "";

	if (strcmp(path, target) != 0)
		snprintf(via, sizeof via, " (a link to %s)", target);
	if (!S_ISREG(st->st_mode))
		return hs_fail(err, HS_EDATA, "cannot write %s%s: it is %s, not a regular file; not replacing it",
			       path, via, kind_of(st->st_mode));
	if (hs_input_find(st, input, sizeof input))
		return hs_fail(err, HS_EDATA, "cannot write %s%s: it is the input %s (the same file); "
			       "not replacing it", path, via, input);
	if (!(st->st_mode & 0222))
		return hs_fail(err, HS_EDATA, "cannot write %s%s: the file is read-only (mode %04o); "
			       "not replacing it", path, via, (unsigned)(st->st_mode & 07777));
	if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0)
		return hs_fail(err, HS_EDATA, "cannot write %s%s: %s (the file itself); not replacing it",
			       path, via, strerror(errno));
	return 0;
}

int hs_afile_check(const char *path, hs_error *err)
{
	struct stat st;
	int exists;

	if (!*path)
		return hs_fail(err, HS_EUSAGE, "no file name to write to");
	char *target = resolve(path, &st, &exists, err);
	if (!target)
		return -1;
	int rc = exists ? replaceable(path, target, &st, err) : 0;
	free(target);
	return rc;
}

/* The temporary file takes the owner, group and mode of the file it
 * replaces (st): the owner as far as permitted (root may give it to anyone,
 * a user a group of theirs), the mode always.  0, or -1 with errno set. */
static int keep_owner_mode(int fd, const struct stat *st)
{
	struct stat now;

	if (fstat(fd, &now) != 0)
		return -1;
	if ((now.st_uid != st->st_uid || now.st_gid != st->st_gid) &&
	    fchown(fd, st->st_uid, st->st_gid) != 0 && fchown(fd, (uid_t)-1, st->st_gid) != 0) {
		/* kept what could be kept */
	}
	return fchmod(fd, st->st_mode & 07777);
}

/* The stream over af->fd; -1 when out of memory (af->f NULL). */
static int open_stream(hs_afile *af)
{
	cookie_io_functions_t io = {.write = afile_write, .seek = afile_seek, .close = afile_close};

	af->f = fopencookie(af, "w", io);
	if (af->f && setvbuf(af->f, NULL, _IOFBF, 1 << 16) == 0)
		return 0;
	if (af->f)
		fclose(af->f);
	af->f = NULL;
	return -1;
}

hs_afile *hs_afile_open(const char *path, hs_error *err)
{
	struct stat st;
	int exists;

	if (!*path) {
		hs_fail(err, HS_EUSAGE, "no file name to write to");
		return NULL;
	}
	hs_afile *af = calloc(1, sizeof *af);
	if (!af || !(af->path = strdup(path))) {
		free(af);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
		return NULL;
	}
	if (!(af->target = resolve(path, &st, &exists, err)) ||
	    (exists && replaceable(path, af->target, &st, err) < 0)) {
		afile_free(af);
		return NULL;
	}
	size_t len = strlen(af->target);
	if (!(af->tmp = malloc(len + 12))) {
		afile_free(af);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
		return NULL;
	}
	memcpy(af->tmp, af->target, len);
	memcpy(af->tmp + len, ".tmp.XXXXXX", 12);
	af->fd = create_temp(af, len);
	int e = af->fd < 0 || (exists && keep_owner_mode(af->fd, &st) != 0) ? errno : 0;
	if (!e && open_stream(af) != 0)
		e = ENOMEM;
	if (e) {
		if (af->fd >= 0) {
			close(af->fd);
			unlink(af->tmp);
		}
		if (e == ENOMEM)
			hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
		else
			hs_fail(err, HS_EDATA, "cannot write %s: %s", path, strerror(e));
		afile_free(af);
		return NULL;
	}
	return af;
}

FILE *hs_afile_stream(hs_afile *af)
{
	return af->f;
}

const char *hs_afile_path(const hs_afile *af)
{
	return af->path;
}

/* The first reason the content may not be whole: 0 when none. */
static int write_error(hs_afile *af)
{
	int bad = fflush(af->f) != 0 || ferror(af->f);

	if (af->werr)
		return af->werr;
	return bad ? (errno ? errno : EIO) : 0;
}

int hs_afile_errno(const hs_afile *af)
{
	return af->werr;
}

/* What is at the target now may still be replaced (it may have changed
 * since open): 0, or -1 with err set. */
static int still_replaceable(const hs_afile *af, hs_error *err)
{
	struct stat st;

	if (lstat(af->target, &st) != 0)
		return errno == ENOENT ? 0 : hs_fail(err, HS_EDATA, "cannot write %s: %s", af->path, strerror(errno));
	return replaceable(af->path, af->target, &st, err);
}

int hs_afile_commit(hs_afile *af, hs_error *err)
{
	int e = write_error(af), renamed = 0;

	if (!e && fsync(af->fd) != 0)
		e = errno;
	fclose(af->f);
	if (close(af->fd) != 0 && !e)
		e = errno;
	if (e) {
		hs_fail(err, hs_errno_status(e), "cannot write %s: %s", af->path, strerror(e));
	} else if (still_replaceable(af, err) < 0) {
		/* err says why */
	} else if (rename(af->tmp, af->target) != 0) {
		hs_fail(err, HS_EDATA, "cannot write %s: cannot rename the temporary file into place: %s",
			af->path, strerror(errno));
	} else {
		renamed = 1;
	}
	if (!renamed)
		unlink(af->tmp);
	afile_free(af);
	return renamed ? 0 : -1;
}

void hs_afile_abort(hs_afile *af)
{
	if (!af)
		return;
	fclose(af->f);
	close(af->fd);
	unlink(af->tmp);
	afile_free(af);
}

int hs_afile_write(const char *path, const void *data, size_t n, hs_error *err)
{
	hs_afile *af = hs_afile_open(path, err);

	if (!af)
		return -1;
	if (n)
		fwrite(data, 1, n, af->f);
	return hs_afile_commit(af, err);
}
