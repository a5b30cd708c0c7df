/* replay.c - runs a libFuzzer target's LLVMFuzzerTestOneInput on saved
 * inputs without libFuzzer, so that the seed corpus and any crash file are
 * replayed by the normal and the ASan build.  `make units` links this file
 * with each target tests/fuzz/fuzz_<target>.c into
 * $(B)/tests/fuzz/replay_<target>; tests/suites/fuzz_replay.sh replays
 * tests/fuzz/corpus/<target>/ with it, for every target.
 *
 *   build/release/tests/fuzz/replay_npz FILE_OR_DIR...
 *
 * Folders are read one level deep, files in name order.  Prints one line per
 * argument with the number of inputs run; exits 0 when all were run, 1 on
 * bad usage or an unreadable argument.  A bug shows up as a crash or a
 * sanitizer report, not as an exit status.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cmp.h"

static const char *prog = "replay";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				fprintf(stderr, "%s: %s: out of memory\n", prog, path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "%s: %s: read error\n", prog, path);
		free(buf);
		return -1;
	}
	/* libFuzzer hands over a buffer of exactly `n` bytes; so do we, so
	 * that ASan sees reads past the end. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	if (n)
		memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

/* Returns the number of inputs run, or -1. */
static long replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	long done = 0;
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, hs_cmp_str);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *p = malloc(len);
		struct stat st;

		if (p) {
			snprintf(p, len, "%s/%s", dir, names[i]);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			    replay_file(p) == 0)
				done++;
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argv[0] && *argv[0]) {
		const char *slash = strrchr(argv[0], '/');
		prog = slash ? slash + 1 : argv[0];
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIR...\n", prog);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], strerror(errno));
			status = 1;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			n = replay_dir(argv[i]);
		else
			n = replay_file(argv[i]) == 0 ? 1 : -1;
		if (n < 0)
			status = 1;
		else
			printf("%s: %s: %ld inputs\n", prog, argv[i], n);
	}
	return status;
}
