/* hloscope check PATH...: decompress and validate every file (a folder:
 * every file below it that hloscope reads, walked by base/walk.h in name
 * order and told apart as the dataset scan does, loader/dataset.h; a file
 * of several modules: every module).  One line per file: "OK FILE",
 * "FILE: problem", or "left out FILE: why" for a file that is not a graph
 * (notes, LLVM IR, a buffer assignment); a folder that cannot be read or is
 * nested too deep is a problem too.  The closing count adds up to those
 * lines.  Exit 0 when all are sound, 2 otherwise, 3 when out of memory. */
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
#include "loader/dataset.h"
#include "loader/graph.h"
#include "loader/target.h"

/* What was printed, line by line. */
struct counts {
	int ok, bad, left_out, folders, missing;
};

/* Checks one file (or FILE#N), its line printed and counted; -1 when out
 * of memory (in *fatal: the check cannot go on). */
static int check_file(const char *path, struct counts *c, hs_error *fatal)
{
	hs_error err = {0};
	if (graph_check_file(path, &err)) {
		if (err.status == HS_ENOMEM) {
			*fatal = err;
			return -1;
		}
		printf("%s\n", err.msg);
		c->bad++;
		return 0;
	}
	printf("OK %s\n", path);
	c->ok++;
	return 0;
}

static void left_out(struct counts *c, const char *path, const char *why)
{
	printf("left out %s: %s\n", path, why);
	c->left_out++;
}

/* A report of an XLA dump: a target config or autotune results is read
 * (target.h); a buffer assignment or memory usage report is left out. */
static int check_report(const char *path, const xla_dump_name *dn, struct counts *c, hs_error *fatal)
{
	if (dn->kind != XD_TARGET_CONFIG && dn->kind != XD_AUTOTUNE) {
		char why[96];
		snprintf(why, sizeof why, "a %s (a report, read with its module's stage)",
			 xla_dump_kind_name((xla_dump_kind)dn->kind));
		left_out(c, path, why);
		return 0;
	}
	char *note = target_file_note(path, (xla_dump_kind)dn->kind);
	if (!note)
		return hs_fail(fatal, HS_ENOMEM, "%s: out of memory", path);
	if (strncmp(note, "cannot be read: ", 16) == 0) {
		printf("%s: %s\n", path, note + 16);
		c->bad++;
	} else {
		printf("OK %s\n", path);
		c->ok++;
	}
	free(note);
	return 0;
}

/* A file below a folder: checked as a graph or a report, or left out. */
static int check_any(const hs_walk_entry *e, struct counts *c, hs_error *fatal)
{
	xla_dump_name dn;
	char why[600];
	if (!S_ISREG(e->st->st_mode)) {
		left_out(c, e->path, "not a regular file");
		return 0;
	}
	switch (dataset_file_kind(e->path, e->name, &dn, why, sizeof why, fatal)) {
	case -1: return -1;
	case DS_FILE_GRAPH: return check_file(e->path, c, fatal);
	case DS_FILE_REPORT: return check_report(e->path, &dn, c, fatal);
	default: left_out(c, e->path, why); return 0;
	}
}

/* One name below a folder (base/walk.h): a file is checked or left out; a
 * folder that could not be walked is a problem, never skipped in silence. */
static int visit(const hs_walk_entry *e, void *ctx, hs_error *err)
{
	struct counts *c = ctx;
	switch (e->kind) {
	case HS_WALK_FILE:
		return check_any(e, c, err);
	case HS_WALK_BROKEN:
		if (dataset_is_npz_name(e->name) || dataset_is_hlo_name(e->name)) {
			printf("%s: %s\n", e->path, strerror(e->errnum));
			c->bad++;
		} else {
			left_out(c, e->path, "a link to nothing");
		}
		break;
	case HS_WALK_UNREADABLE:
		printf("%s: cannot read folder: %s\n", e->path, strerror(e->errnum));
		c->folders++;
		break;
	case HS_WALK_TOO_DEEP:
		printf("%s: not checked: a folder nested more than %d deep\n", e->path, HS_WALK_MAX_DEPTH);
		c->folders++;
		break;
	}
	return 0;
}

/* Checks `path`: a file, one module of a file (FILE#N), or every file below
 * a folder in name order.  0, or -1 when it cannot go on (reported; *status
 * is its exit status). */
static int check_path(const char *path, struct counts *c, int *status)
{
	struct stat st;
	char file[PATH_MAX];
	int module = 0;
	if (stat(path, &st) != 0) {
		int e = errno;
		if (!(module = cli_module_file(path, file, sizeof file))) {
			fprintf(stderr, "hloscope check: %s: %s\n", path, strerror(e));
			c->missing++;
			return 0;
		}
	}
	hs_error err = {0};
	if (module || !S_ISDIR(st.st_mode)) {
		if (check_file(path, c, &err) < 0) {
			*status = cli_report(&err);
			return -1;
		}
		return 0;
	}
	if (hs_walk(path, HS_WALK_MAX_DEPTH, visit, c, &err) < 0) {
		if (err.status == HS_EDATA) {
			/* the folder itself cannot be listed: a problem of this path */
			printf("%s\n", err.msg);
			c->folders++;
			return 0;
		}
		*status = cli_report(&err);
		return -1;
	}
	return 0;
}

int cmd_check(int argc, char **argv)
{
	const cli_opt opts[] = {{0}};
	const cli_spec spec = {"check", "Decompresses and validates every file (a folder: every file below it that\n"
			       "hloscope reads: .npz, HLO modules by name or content, XLA dump files, .xz too;\n"
			       "FILE#N: one module of a file of several): CRCs, sizes, shapes and the graph\n"
			       "invariants.  Prints \"OK FILE\", \"FILE: problem\" or \"left out FILE: why\"\n"
			       "per file; exits 0 only when every file read is sound, 2 otherwise.  No options.",
			       opts, .max_args = -1};
	cli_args args;
	struct counts c = {0, 0, 0, 0, 0};
	int rc = cli_parse(&spec, argc, argv, &args);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (args.n < 1)
		return cli_usage_error("check", "needs at least one PATH");
	for (int i = 0; i < args.n; i++) {
		int status = 0;
		if (check_path(args.v[i], &c, &status) < 0)
			return status;
	}
	int files = c.ok + c.bad + c.left_out;
	if (files == 0 && c.folders == 0 && c.missing) {
		/* a path that does not exist was reported and is no file */
		fprintf(stderr, "nothing checked: %d path%s could not be read\n", c.missing, hs_s(c.missing));
		return 2;
	}
	if (c.ok + c.bad == 0 && c.folders == 0) {
		fprintf(stderr, "hloscope check: nothing to check: no .npz or HLO module found");
		if (c.left_out)
			fprintf(stderr, " (%d file%s left out)", c.left_out, hs_s(c.left_out));
		fputc('\n', stderr);
		return 2;
	}
	fprintf(stderr, "%d file%s: %d OK, %d with problems, %d left out", files, hs_s(files), c.ok, c.bad,
		c.left_out);
	if (c.folders)
		fprintf(stderr, "; %d folder%s not read", c.folders, hs_s(c.folders));
	if (c.missing)
		fprintf(stderr, "; %d path%s could not be read", c.missing, hs_s(c.missing));
	fputc('\n', stderr);
	return c.bad || c.folders || c.missing ? 2 : 0;
}
