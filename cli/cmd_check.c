/* hloscope check PATH...: decompress and validate every file (a folder: every
 * .npz, .pb and .hlo below it, walked by base/walk.h in name order; a file of
 * several modules: every module).  Prints "OK FILE" or "FILE: problem" per
 * file; a folder that cannot be read or is nested too deep is a problem too.
 * Exit 0 when all are sound, 2 otherwise, 3 when out of memory. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/plural.h"
#include "base/walk.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "loader/graph.h"

static int has_suffix(const char *name, const char *suffix)
{
	size_t len = strlen(name), k = strlen(suffix);
	return len > k && strcmp(name + len - k, suffix) == 0;
}

static int is_graph_name(const char *name)
{
	return has_suffix(name, ".npz") || has_suffix(name, ".pb") || has_suffix(name, ".hlo");
}

/* Checks one file (or FILE#N): 0 sound, 1 a problem (printed), -1 out of
 * memory (in *fatal: the check cannot go on). */
static int check_file(const char *path, int *files, hs_error *fatal)
{
	hs_error err = {0};
	(*files)++;
	if (graph_check_file(path, &err)) {
		if (err.status == HS_ENOMEM) {
			*fatal = err;
			return -1;
		}
		printf("%s\n", err.msg);
		return 1;
	}
	printf("OK %s\n", path);
	return 0;
}

struct walk_state {
	int bad, files;
};

/* One name below a folder (base/walk.h): a graph file is checked; a folder
 * that could not be walked is a problem, never skipped in silence. */
static int visit(const hs_walk_entry *e, void *ctx, hs_error *err)
{
	struct walk_state *ws = ctx;
	switch (e->kind) {
	case HS_WALK_FILE:
		if (is_graph_name(e->name)) {
			int rc = check_file(e->path, &ws->files, err);
			if (rc < 0)
				return -1;
			ws->bad += rc;
		}
		break;
	case HS_WALK_BROKEN:
		if (is_graph_name(e->name)) {
			fprintf(stderr, "hloscope check: %s: %s\n", e->path, strerror(e->errnum));
			ws->bad++;
		}
		break;
	case HS_WALK_UNREADABLE:
		printf("%s: cannot read folder: %s\n", e->path, strerror(e->errnum));
		ws->bad++;
		break;
	case HS_WALK_TOO_DEEP:
		printf("%s: not checked: a folder nested more than %d deep\n", e->path, HS_WALK_MAX_DEPTH);
		ws->bad++;
		break;
	}
	return 0;
}

/* Checks `path`: a file, one module of a file (FILE#N), or every graph file
 * below a folder in name order.  The problems found, or -1 when the walk
 * itself failed (reported; *status is its exit status). */
static int check_path(const char *path, int *files, int *status)
{
	struct stat st;
	char file[PATH_MAX];
	int module = 0;
	if (stat(path, &st) != 0) {
		int e = errno;
		if (!(module = cli_module_file(path, file, sizeof file))) {
			fprintf(stderr, "hloscope check: %s: %s\n", path, strerror(e));
			return 1;
		}
	}
	if (module || !S_ISDIR(st.st_mode)) {
		hs_error fatal = {0};
		int rc = check_file(path, files, &fatal);
		if (rc < 0)
			*status = cli_report(&fatal);
		return rc;
	}
	struct walk_state ws = {0, 0};
	hs_error err = {0};
	int rc = hs_walk(path, HS_WALK_MAX_DEPTH, visit, &ws, &err);
	*files += ws.files;
	if (rc < 0) {
		if (err.status == HS_EDATA) {
			/* the folder itself cannot be listed: a problem of this path */
			printf("%s\n", err.msg);
			return ws.bad + 1;
		}
		*status = cli_report(&err);
		return -1;
	}
	return ws.bad;
}

int cmd_check(int argc, char **argv)
{
	const cli_opt opts[] = {{0}};
	const cli_spec spec = {"check", "Decompresses and validates every file (a folder: every .npz, .pb and .hlo\n"
			       "below it; FILE#N: one module of a file of several): CRCs, sizes, shapes\n"
			       "and the graph invariants.  Prints \"OK FILE\" or \"FILE: problem\" per file;\n"
			       "exits 0 only when every file is sound, 2 otherwise.  No options.",
			       opts, .max_args = -1};
	cli_args args;
	int bad = 0, files = 0, rc = cli_parse(&spec, argc, argv, &args);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (args.n < 1)
		return cli_usage_error("check", "needs at least one PATH");
	for (int i = 0; i < args.n; i++) {
		int status = 0, n = check_path(args.v[i], &files, &status);
		if (n < 0)
			return status;
		bad += n;
	}
	if (files == 0 && bad == 0) {
		fprintf(stderr, "hloscope check: no .npz, .pb or .hlo files found\n");
		return 2;
	}
	/* A path that does not exist was reported and is no file: say only
	 * how many there were when nothing else was checked. */
	if (files == 0)
		fprintf(stderr, "nothing checked: %d path%s could not be read\n", bad, hs_s(bad));
	else
		fprintf(stderr, "%d file%s checked, %d with problems\n", files, hs_s(files), bad);
	return bad ? 2 : 0;
}
