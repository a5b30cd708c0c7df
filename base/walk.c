/* walk.c - see walk.h. */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "path.h"
#include "vec.h"

struct seen {
	dev_t dev;
	ino_t ino;
};

typedef struct walker {
	const char *root;
	int max_depth;
	hs_walk_fn visit;
	void *ctx;
	hs_error *err;
	HS_VEC(struct seen) seen;  /* folders entered */
} walker;

typedef HS_VEC(char *) name_vec;

static int out_of_memory(walker *w)
{
	return hs_fail(w->err, HS_ENOMEM, "%s: out of memory walking the folder", w->root);
}

/* Remembers a folder: 1 when it was entered before, 0 when new, -1 when
 * out of memory. */
static int seen_before(walker *w, const struct stat *st)
{
	for (size_t i = 0; i < w->seen.n; i++)
		if (w->seen.v[i].dev == st->st_dev && w->seen.v[i].ino == st->st_ino)
			return 1;
	return hs_vec_push(&w->seen, ((struct seen){st->st_dev, st->st_ino}));
}

static void free_names(name_vec *names)
{
	for (size_t i = 0; i < names->n; i++)
		free(names->v[i]);
	hs_vec_free(names);
}

/* The visible names of folder `path`, sorted: 0, -1 when out of memory
 * (err set), or the errno when it cannot be listed. */
static int list_names(walker *w, const char *path, name_vec *names)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d && errno == ENOMEM)
		return out_of_memory(w);
	if (!d)
		return errno ? errno : EIO;
	for (;;) {
		errno = 0;
		if (!(de = readdir(d)))
			break;
		if (de->d_name[0] == '.')
			continue;
		char *name = strdup(de->d_name);
		if (!name || hs_vec_push(names, name) != 0) {
			free(name);
			closedir(d);
			free_names(names);
			return out_of_memory(w);
		}
	}
	int e = errno;
	closedir(d);
	if (e) {
		free_names(names);
		return e == ENOMEM ? out_of_memory(w) : e;
	}
	if (names->n > 1)
		qsort(names->v, names->n, sizeof *names->v, hs_cmp_str);
	return 0;
}

static int walk_dir(walker *w, const char *path, const char *rel, int depth);

/* One name of a folder: a file, a folder to enter, or what went wrong. */
static int walk_entry(walker *w, const char *path, const char *rel, const char *name, int depth)
{
	hs_walk_entry e = {.path = path, .rel = rel, .name = name, .depth = depth};
	struct stat st;

	if (stat(path, &st) != 0) {
		if (errno == ENOMEM)
			return out_of_memory(w);
		e.kind = HS_WALK_BROKEN;
		e.errnum = errno;
		return w->visit(&e, w->ctx, w->err) ? -1 : 0;
	}
	e.st = &st;
	if (!S_ISDIR(st.st_mode)) {
		e.kind = HS_WALK_FILE;
		return w->visit(&e, w->ctx, w->err) ? -1 : 0;
	}
	if (depth + 1 >= w->max_depth) {
		e.kind = HS_WALK_TOO_DEEP;
		return w->visit(&e, w->ctx, w->err) ? -1 : 0;
	}
	int seen = seen_before(w, &st);
	if (seen < 0)
		return out_of_memory(w);
	return seen ? 0 : walk_dir(w, path, rel, depth + 1);
}

/* Walks folder `path` (rel below the root, "" for the root itself), whose
 * entries are at `depth`. */
static int walk_dir(walker *w, const char *path, const char *rel, int depth)
{
	name_vec names = {0};
	int rc = list_names(w, path, &names);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		if (depth == 0)
			return hs_fail(w->err, HS_EDATA, "%s: cannot read folder: %s", path, strerror(rc));
		hs_walk_entry e = {.kind = HS_WALK_UNREADABLE, .path = path, .rel = rel,
				   .name = hs_path_base(rel), .depth = depth - 1, .errnum = rc};
		return w->visit(&e, w->ctx, w->err) ? -1 : 0;
	}
	rc = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		char *child = hs_path_join(path, names.v[i]);
		char *crel = *rel ? hs_path_join(rel, names.v[i]) : strdup(names.v[i]);
		if (!child || !crel)
			rc = out_of_memory(w);
		else
			rc = walk_entry(w, child, crel, names.v[i], depth);
		free(child);
		free(crel);
	}
	free_names(&names);
	return rc;
}

int hs_walk(const char *root, int max_depth, hs_walk_fn visit, void *ctx, hs_error *err)
{
	walker w = {.root = root, .max_depth = max_depth, .visit = visit, .ctx = ctx, .err = err};
	struct stat st;
	int rc;

	if (stat(root, &st) != 0)
		return hs_fail(err, hs_errno_status(errno), "%s: cannot read folder: %s", root, strerror(errno));
	if (seen_before(&w, &st) < 0)
		rc = out_of_memory(&w);
	else
		rc = walk_dir(&w, root, "", 0);
	hs_vec_free(&w.seen);
	return rc ? -1 : 0;
}
