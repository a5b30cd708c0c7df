/* fuzz_hlo_text.c - libFuzzer target for the HLO text reader.
 *
 * Each input is taken as HLO text.  It goes through hlo_text_sniff and
 * hlo_text_parse_where (on the input buffer itself, so ASan sees any read
 * past its end).  A refused input must carry a message with the place
 * ("fuzz.hlo:LINE:COL: ...", status HS_EDATA; HS_ENOMEM when memory runs
 * out) and a caret that can be
 * drawn.  An accepted one is dumped, printed as HLO text, read back and
 * printed again: the printed text must read back and be a fixed point.
 * Read again in two halves by two threads, it must give the same module or
 * the same refusal.
 * Then it is opened as every command opens it (graph_open: featurized, with
 * its real names and structure) and every name, text field and cost of the
 * graph is read (fuzz_util.h).  Any broken promise aborts; crashes, leaks
 * and sanitizer reports are the other bugs.  hlo_mutate.h gives libFuzzer
 * structure-aware mutations of HLO text.
 *
 *   make fuzz && build/fuzz/fuzz_hlo_text -max_total_time=60 NEW tests/fuzz/corpus/hlo_text
 * tests/fuzz/replay.c runs the same function on saved inputs (make units).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo_print.h"
#include "loader/hlo_text.h"
#include "fuzz_util.h"
#include "hlo_mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file printed as HLO text (or dumped) into a malloc'd buffer. */
static char *print_text(const hm_file *f, int dump, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	if (!out)
		return NULL;
	int rc = dump ? hm_file_dump(out, f) : hm_file_print(out, f);
	if (fclose(out) != 0 || rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* print(parse(text)) must parse again and print the same. */
static void check_round_trip(const hm_file *f)
{
	size_t n1, n2, nd;
	hs_error err = {0};
	char *dump = print_text(f, 1, &nd);
	char *t1 = print_text(f, 0, &n1);
	free(dump);
	if (!t1)
		return;
	hm_file *g = hlo_text_parse(t1, n1, "printed.hlo", &err);
	if (!g) {
		fprintf(stderr, "printed text does not read back: %s\n", err.msg);
		abort();
	}
	char *t2 = print_text(g, 0, &n2);
	if (!t2 || n2 != n1 || memcmp(t1, t2, n1) != 0) {
		fprintf(stderr, "print is not a fixed point\n");
		abort();
	}
	free(t2);
	hm_file_free(g);
	free(t1);
}

/* Read in two halves by two threads (every module of two computations or
 * more), the text must give what one piece gives: the same module, or the
 * same refusal. */
static void check_split(const uint8_t *data, size_t size, const hm_file *f, const hs_error *err)
{
	hs_error err2 = {0};
	hlo_text_set_split_min(1);
	hm_file *g = hlo_text_parse((const char *)data, size, "fuzz.hlo", &err2);
	hlo_text_set_split_min(8u << 20);
	size_t n1 = 0, n2 = 0;
	char *d1 = f ? print_text(f, 1, &n1) : NULL, *d2 = g ? print_text(g, 1, &n2) : NULL;
	int same = f ? g && d1 && d2 && n1 == n2 && memcmp(d1, d2, n1) == 0
		     : !g && err2.status == err->status && strcmp(err2.msg, err->msg) == 0;
	if (!same) {
		fprintf(stderr, "read in two halves: %s / %s\n", f ? "read" : err->msg, g ? "read" : err2.msg);
		abort();
	}
	free(d1);
	free(d2);
	hm_file_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hs_error err = {0};
	hlo_text_where where;
	char caret[512];

	(void)hlo_text_sniff(data, size);
	hm_file *f = hlo_text_parse_where((const char *)data, size, "fuzz.hlo", &where, &err);
	check_split(data, size, f, &err);
	if (!f) {
		if ((err.status != HS_EDATA && err.status != HS_ENOMEM) ||
		    strncmp(err.msg, "fuzz.hlo:", 9) != 0) {
			fprintf(stderr, "error without a place: %d '%s'\n", err.status, err.msg);
			abort();
		}
		(void)hlo_text_caret(&where, caret, sizeof caret);
		return 0;
	}
	check_round_trip(f);
	hm_file_free(f);
	/* as every command opens it: featurized, with its real names and
	 * structure, costed (the first module of a file of several) */
	const char *path = fuzz_input_path(data, size);
	char sel[80];
	if (path) {
		snprintf(sel, sizeof sel, "%s#0", path);
		hs_graph *g = graph_open(sel, &err);
		if (g) {
			fuzz_walk_graph(g);
			graph_free(g);
		}
	}
	return 0;
}
