/* hloscope dump FILE ARRAY [--limit N]: an array's values, C order.
 *
 * One line per row of the last axis (a 1-d array: one value per line; a 0-d
 * array: one line), values comma-separated; integers exactly, floats with
 * %.9g, bools as 0/1.  --limit N prints at most N lines. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "loader/npz.h"

static void print_value(const npz_array *a, uint64_t i)
{
	npy_dtype t = a->h.dtype;
	if (npy_dtype_is_float(t))
		printf("%.9g", npy_get_f64(t, a->data, i));
	else if (t == NPY_U8)
		printf("%llu", (unsigned long long)((const uint64_t *)a->data)[i]);
	else
		printf("%lld", (long long)npy_get_i64(t, a->data, i));
}

int cmd_dump(int argc, char **argv)
{
	const char *file = NULL, *name = NULL;
	long long limit = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--limit")) {
			if (i + 1 >= argc || (limit = cli_parse_count(argv[i + 1])) < 0)
				return cli_usage_error("dump", "--limit needs a non-negative count");
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("dump", "unknown option '%s'", argv[i]);
		} else if (!file) {
			file = argv[i];
		} else if (!name) {
			name = argv[i];
		} else {
			return cli_usage_error("dump", "unexpected argument '%s'", argv[i]);
		}
	}
	if (!file || !name)
		return cli_usage_error("dump", "needs a FILE and an ARRAY name");

	hs_error err = {0};
	npz *a = npz_open(file, &err);
	if (!a)
		return cli_report(&err);
	size_t len = strlen(name);
	char base[512];
	snprintf(base, sizeof base, "%.*s", (int)(len > 4 && !strcmp(name + len - 4, ".npy") ? len - 4 : len), name);
	if (!npz_has(a, base)) {
		fprintf(stderr, "hloscope: %s: no array named '%s'; it has:", file, base);
		for (size_t i = 0; i < a->n_arrays; i++)
			fprintf(stderr, " %s", a->names[i]);
		fputc('\n', stderr);
		npz_close(a);
		return 1;
	}
	npz_array arr;
	if (npz_read(a, base, &arr, &err)) {
		npz_close(a);
		return cli_report(&err);
	}
	npz_close(a);

	uint64_t row = arr.h.ndim >= 2 ? (uint64_t)arr.h.shape[arr.h.ndim - 1] : 1;
	uint64_t rows = row ? arr.h.count / row : 0;
	if (arr.h.ndim >= 2 && row == 0) {
		/* (k, 0): k empty rows. */
		rows = 1;
		for (int d = 0; d + 1 < arr.h.ndim; d++)
			rows *= (uint64_t)arr.h.shape[d];
	}
	for (uint64_t r = 0; r < rows; r++) {
		if (limit >= 0 && r >= (uint64_t)limit)
			break;
		for (uint64_t k = 0; k < row; k++) {
			if (k)
				putchar(',');
			print_value(&arr, r * row + k);
		}
		putchar('\n');
	}
	npz_array_free(&arr);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "hloscope: write error on standard output\n");
		return 2;
	}
	return 0;
}
