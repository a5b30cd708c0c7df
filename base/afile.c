/* afile.c - see afile.h.
 *
 * The stream is a stdio cookie stream (fopencookie) over the temporary
 * file's descriptor: its write function keeps the errno of the first write
 * that fails, which a plain FILE would leave to chance by commit time. */
#include "afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "clock.h"
#include "rng.h"

/* Temporary names tried before giving up (each one exists already). */
#define AFILE_TRIES 100

struct hs_afile {
	FILE *f;
	int fd;
	int werr;       /* errno of the first failed write, 0 while none */
	char *path, *tmp;
};

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
			return -1;
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

hs_afile *hs_afile_open(const char *path, hs_error *err)
{
	size_t len = strlen(path);
	hs_afile *af = calloc(1, sizeof *af);

	if (!af || !(af->path = strdup(path)) || !(af->tmp = malloc(len + 12))) {
		if (af)
			afile_free(af);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
		return NULL;
	}
	memcpy(af->tmp, path, len);
	memcpy(af->tmp + len, ".tmp.XXXXXX", 12);
	af->fd = create_temp(af, len);
	if (af->fd < 0) {
		hs_fail(err, HS_EDATA, "cannot write %s: %s", path, strerror(errno));
		afile_free(af);
		return NULL;
	}
	cookie_io_functions_t io = {.write = afile_write, .seek = afile_seek, .close = afile_close};
	af->f = fopencookie(af, "w", io);
	if (!af->f || setvbuf(af->f, NULL, _IOFBF, 1 << 16) != 0) {
		if (af->f)
			fclose(af->f);
		close(af->fd);
		unlink(af->tmp);
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it for writing", path);
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

int hs_afile_commit(hs_afile *af, hs_error *err)
{
	int e = write_error(af), renamed = 0;

	if (!e && fsync(af->fd) != 0)
		e = errno;
	fclose(af->f);
	if (close(af->fd) != 0 && !e)
		e = errno;
	if (e) {
		hs_fail(err, HS_EDATA, "cannot write %s: %s", af->path, strerror(e));
	} else if (rename(af->tmp, af->path) != 0) {
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
