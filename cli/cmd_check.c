/* hloscope check PATH...: decompress and validate every file (a folder: every
 * .npz, .pb and .hlo below it; a file of several modules: every module).  Prints "OK FILE" or "FILE: problem" per file; exit 0 when
 * all are sound, 2 otherwise. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cmp.h"
#include "base/plural.h"
#include "cli/commands.h"
#include "loader/graph.h"

static int has_suffix(const char *name, size_t len, const char *suffix)
{
	size_t k = strlen(suffix);
	return len > k && strcmp(name + len - k, suffix) == 0;
}

/* Checks `path`, recursing into folders in name order; returns problems. */
static int check_path(const char *path, int depth, int *files)
{
	struct stat st;
	int module = 0; /* FILE#N: one module of a file */
	if (stat(path, &st) != 0) {
		int e = errno;
		const char *hash = strrchr(path, '#');
		char *file = hash ? strndup(path, (size_t)(hash - path)) : NULL;
		module = file && stat(file, &st) == 0 && S_ISREG(st.st_mode);
		free(file);
		if (!module) {
			fprintf(stderr, "hloscope check: %s: %s\n", path, strerror(e));
			return 1;
		}
	}
	if (module || !S_ISDIR(st.st_mode)) {
		hs_error err = {0};
		(*files)++;
		if (graph_check_file(path, &err)) {
			printf("%s\n", err.msg);
			return 1;
		}
		printf("OK %s\n", path);
		return 0;
	}
	if (depth > 32)
		return 0;
	DIR *d = opendir(path);
	if (!d) {
		printf("%s: cannot read folder\n", path);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		size_t len = strlen(de->d_name);
		char *full = malloc(strlen(path) + len + 2);
		if (!full)
			break;
		sprintf(full, "%s/%s", path, de->d_name);
		struct stat cs;
		int dir = stat(full, &cs) == 0 && S_ISDIR(cs.st_mode);
		if (!dir && !has_suffix(de->d_name, len, ".npz") && !has_suffix(de->d_name, len, ".pb") &&
		    !has_suffix(de->d_name, len, ".hlo")) {
			free(full);
			continue;
		}
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *nn);
			if (!nn) {
				free(full);
				break;
			}
			names = nn;
		}
		names[n++] = full;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, hs_cmp_str);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		bad += check_path(names[i], depth + 1, files);
		free(names[i]);
	}
	free(names);
	return bad;
}

int cmd_check(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("check", "needs at least one PATH");
	int bad = 0, files = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("check", "unknown option '%s'", argv[i]);
	}
	for (int i = 1; i < argc; i++)
		bad += check_path(argv[i], 0, &files);
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
