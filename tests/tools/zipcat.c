/* zipcat.c - writes every member of each zip FILE to stdout, raw, in
 * directory order, read through the loader's zip reader (so every member's
 * CRC-32 is checked).  Built twice by `make units` when ISA-L is used
 * (zipcat and zipcat_zlib), so tests/suites/inflate_paths.sh can compare the
 * two inflaters' bytes with each other and with Python's zipfile.
 *
 *   zipcat FILE...   exit 0; 2 with the loader's message on stderr when a
 *                    file cannot be read whole; 1 on bad usage
 */
#include <stdio.h>
#include <stdlib.h>

#include "loader/zip.h"

static int cat_file(const char *path, uint8_t *buf, size_t cap)
{
	hs_error err = {0};
	zip_archive *z = zip_open(path, &err);
	if (!z)
		goto fail;
	for (size_t i = 0; i < z->n_entries; i++) {
		zip_reader *r = zip_reader_open(z, &z->entries[i], &err);
		long long k = r ? 1 : -1;
		while (k > 0) {
			k = zip_reader_read(r, buf, cap, &err);
			if (k > 0 && fwrite(buf, 1, (size_t)k, stdout) != (size_t)k)
				k = -1;
		}
		zip_reader_close(r);
		if (k < 0) {
			zip_close(z);
			goto fail;
		}
	}
	zip_close(z);
	return 0;
fail:
	fprintf(stderr, "%s\n", err.msg[0] ? err.msg : "zipcat: write failed");
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: zipcat FILE...\n");
		return 1;
	}
	size_t cap = 1u << 20;
	uint8_t *buf = malloc(cap);
	int rc = buf ? 0 : 2;
	for (int i = 1; i < argc && buf; i++)
		if (cat_file(argv[i], buf, cap))
			rc = 2;
	free(buf);
	if (fflush(stdout) != 0)
		rc = 2;
	return rc;
}
