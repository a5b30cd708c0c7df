/* replay.c - runs LLVMFuzzerTestOneInput (tests/fuzz/fuzz_*.c) on saved
 * inputs without libFuzzer, so the corpus and any crash file can be
 * replayed by the normal (and the ASan) build:
 *
 *   build/release/tests/fuzz_replay FILE_OR_DIR...
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				fprintf(stderr, "fuzz_replay: %s: out of memory\n", path);
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
		fprintf(stderr, "fuzz_replay: %s: read error\n", path);
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

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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
		fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(errno));
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
		qsort(names, n, sizeof *names, cmp_names);
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

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_replay FILE_OR_DIR...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz_replay: %s: %s\n", argv[i], strerror(errno));
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
			printf("fuzz_replay: %s: %ld inputs\n", argv[i], n);
	}
	return status;
}
