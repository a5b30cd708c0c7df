/* hloscope dump FILE ARRAY... [--limit N]: arrays' values, C order.
 *
 * One line per row of the last axis (a 1-d array: one value per line; a 0-d
 * array: one line), values comma-separated; integers exactly, floats with
 * %.9g, bools as 0/1.  --limit N prints at most N lines of each array.
 * With several ARRAYs, each one's lines follow a line "== ARRAY". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
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

/* "node_feat.npy" names the array "node_feat". */
static void base_name(const char *name, char *base, size_t cap)
{
	size_t len = strlen(name);

	snprintf(base, cap, "%.*s", (int)(len > 4 && !strcmp(name + len - 4, ".npy") ? len - 4 : len),
		 name);
}

/* Prints one array; returns 0 or cli_report's status. */
static int dump_one(npz *a, const char *name, long long limit)
{
	hs_error err = {0};
	npz_array arr;
	char base[512];

	base_name(name, base, sizeof base);
	if (npz_read(a, base, &arr, &err))
		return cli_report(&err);
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
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	long long limit = -1;
	int rc;
	const cli_opt opts[] = {
		{"--limit", "N", CLI_INT64, &limit, .help = "print only the first N lines"},
		{0}};
	const cli_spec spec = {"dump", "Prints each ARRAY of FILE in C order whatever the file's order, one row of\n"
			       "the last axis per line: integers exactly, floats with %.9g.  ARRAY may\n"
			       "carry its .npy suffix.  With several ARRAYs, each one's lines follow a\n"
			       "line \"== ARRAY\".", opts, .max_args = -1};
	cli_args args;

	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc < 0 ? 0 : rc;
	if (args.n < 2)
		return cli_usage_error("dump", "needs a FILE and an ARRAY name");
	const char *file = args.v[0];
	char **names = args.v + 1;
	int n = args.n - 1;
	hs_error err = {0};
	npz *a = npz_open(file, &err);
	if (!a)
		return cli_report(&err);
	/* Every name first: a misspelt one prints nothing at all. */
	for (int k = 0; k < n && rc == 0; k++) {
		char base[512];

		base_name(names[k], base, sizeof base);
		if (!npz_has(a, base)) {
			fprintf(stderr, "hloscope dump: %s: no array named '%s'; it has:", file, base);
			for (size_t i = 0; i < a->n_arrays; i++)
				fprintf(stderr, " %s", a->names[i]);
			fputc('\n', stderr);
			rc = 1;
		}
	}
	for (int k = 0; k < n && rc == 0; k++) {
		if (n > 1)
		{
			char base[512];

			base_name(names[k], base, sizeof base);
			printf("== %s\n", base);
		}
		rc = dump_one(a, names[k], limit);
	}
	npz_close(a);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "hloscope dump: write error on standard output\n");
		return 2;
	}
	return rc;
}
