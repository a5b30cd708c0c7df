/* test_csv.c - one CSV writer (base/csv.h) behind both CSV outputs: the
 * field rules of RFC 4180, and `query --csv` (query_write) and the
 * explorer's :write (tui_table_write_csv) writing the same bytes for the
 * same awkward values.  They disagreed before: :write left CR and leading
 * or trailing spaces unquoted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csv.h"
#include "query/query_impl.h"
#include "tests/unit/t.h"
#include "tui/tui.h"

static const char *const awkward[] = {
	"plain", "a,b", "say \"hi\"", "line\nbreak", "cr\rhere", " lead", "trail ", "",
	"in side", "\"", ",", " ", "both, \"all\"\r\n ", "-",
};
#define N_AWKWARD (int)(sizeof awkward / sizeof awkward[0])

/* csv_write_field's output for s (static, overwritten by the next call). */
static const char *field(const char *s)
{
	static char text[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	csv_write_field(f, s);
	fclose(f);
	snprintf(text, sizeof text, "%s", buf);
	free(buf);
	return text;
}

static void test_fields(void)
{
	static const char *const want[N_AWKWARD] = {
		"plain", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"line\nbreak\"", "\"cr\rhere\"",
		"\" lead\"", "\"trail \"", "", "in side", "\"\"\"\"", "\",\"", "\" \"",
		"\"both, \"\"all\"\"\r\n \"", "-",
	};
	for (int i = 0; i < N_AWKWARD; i++) {
		char name[96];
		snprintf(name, sizeof name, "csv: field %d is written as RFC 4180 wants", i);
		CHECK(name, !strcmp(field(awkward[i]), want[i]));
	}
	CHECK("csv: NULL is an empty field", !strcmp(field(NULL), ""));
}

/* The explorer's side: one text column "text", row i holding awkward[i]. */
static int cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	(void)ctx;
	(void)c;
	snprintf(buf, cap, "%s", awkward[row]);
	return TUI_C_DEFAULT;
}

static double value(void *ctx, int64_t row, const tui_col *c)
{
	(void)ctx;
	(void)row;
	(void)c;
	return 0;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 16);

	*n = f && buf ? fread(buf, 1, 1 << 16, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static void test_same_bytes(void)
{
	static const tui_table_ops ops = {cell, value};
	char path[] = "/tmp/hloscope-test-csv.XXXXXX";
	int fd = mkstemp(path);
	tui_table tb;
	hs_error err;
	size_t n_tui = 0, n_query = 0;

	hs_error_clear(&err);
	if (fd < 0) {
		CHECK("csv: a temporary file", 0);
		return;
	}
	close(fd);
	tui_table_init(&tb, &ops, NULL, N_AWKWARD);
	tui_table_add_col(&tb, "text", 0, 10, 0);
	int rc_tui = tui_table_write_csv(&tb, path, &err);
	char *tui_bytes = slurp(path, &n_tui);
	unlink(path);
	tui_table_free(&tb);

	query_result r;
	query_tb b;
	const char *names[] = {"text"};
	const query_type types[] = {QUERY_TEXT};
	int rc_query = -1;
	char *query_bytes = NULL;
	FILE *mem = open_memstream(&query_bytes, &n_query);

	memset(&r, 0, sizeof r);
	if (query_tb_init(&b, &r, 1, names, types, &err) == 0) {
		rc_query = 0;
		for (int i = 0; i < N_AWKWARD && rc_query == 0; i++) {
			int64_t row = query_tb_row(&b, -1, -1, &err);
			rc_query = row < 0 ? -1 : query_tb_text(&b, row, 0, awkward[i], &err);
		}
		query_tb_done(&b);
	}
	if (rc_query == 0)
		rc_query = query_write(mem, &r, QUERY_FMT_CSV, &err);
	fclose(mem);
	query_result_free(&r);

	CHECK("csv: :write and query --csv both write the awkward values", rc_tui == 0 && rc_query == 0);
	CHECK("csv: ... the same bytes", tui_bytes && query_bytes && n_tui == n_query &&
	      !memcmp(tui_bytes, query_bytes, n_tui));
	CHECK("csv: ... starting with the header and the quoted rows",
	      query_bytes && !strncmp(query_bytes, "text\nplain\n\"a,b\"\n\"say \"\"hi\"\"\"\n", 29));
	free(tui_bytes);
	free(query_bytes);
}

int main(void)
{
	test_fields();
	test_same_bytes();
	T_DONE();
}
