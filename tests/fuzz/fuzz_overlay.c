/* fuzz_overlay.c - libFuzzer target for data files laid over a graph
 * (loader/overlay.c, loader/overlay_read.c): CSV, JSON (base/jsonr.c: an
 * object by name or an array of records) and XLA buffer assignments.  Each
 * input is a data file for a small fixed module, read twice: with repeated
 * names refused, and merged (sum, first or last by the input's length).
 * Every column it yields is read whole, and a number is never infinite
 * (overlay.h).  Errors are expected (with the file's name in the message);
 * crashes, leaks, infinite numbers and sanitizer reports are the bugs.
 *
 *   make fuzz FUZZ_RUN=overlay
 * tests/fuzz/replay.c runs the same function on saved inputs (make units).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/graph.h"
#include "loader/overlay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char MODULE_TEXT[] =
	"HloModule m\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
	"  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n\n"
	"ENTRY %main (a: f32[4]) -> f32[] {\n  %a = f32[4]{0} parameter(0)\n"
	"  %dot.1 = f32[4]{0} multiply(%a, %a)\n  %z = f32[] constant(0)\n"
	"  ROOT %r = f32[] reduce(%dot.1, %z), dimensions={0}, to_apply=%add\n}\n";

static hs_graph *module(void)
{
	static hs_graph *g;
	if (g)
		return g;
	int fd = memfd_create("fuzz_overlay_module", MFD_CLOEXEC);
	char path[64];
	hs_error err = {0};
	if (fd < 0 || write(fd, MODULE_TEXT, sizeof MODULE_TEXT - 1) != (ssize_t)(sizeof MODULE_TEXT - 1))
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (!(g = graph_open(path, &err))) {
		fprintf(stderr, "fuzz_overlay: %s\n", err.msg);
		abort();
	}
	return g;
}

/* One reading of the input with `merge`. */
static void read_once(hs_graph *g, const uint8_t *data, size_t size, int merge)
{
	hs_overlay o;
	hs_error err = {0};
	overlay_opts opts = {.merge = merge, .merge_words = "a merge"};
	if (overlay_parse(g, (const char *)data, size, "fuzz.data", &opts, &o, &err) != 0) {
		if (strncmp(err.msg, "fuzz.data", 9) != 0) {
			fprintf(stderr, "error without the file's name: %s\n", err.msg);
			abort();
		}
		return;
	}
	volatile double sink = 0;
	for (int c = 0; c < o.n_cols; c++) {
		if (overlay_find(&o, o.cols[c].name) != c) {
			fprintf(stderr, "field '%s' is not found as column %d\n", o.cols[c].name, c);
			abort();
		}
		for (int64_t v = 0; v < g->n_nodes; v++) {
			if (o.cols[c].numeric && isinf(o.cols[c].num[v])) {
				fprintf(stderr, "field '%s': an infinite number\n", o.cols[c].name);
				abort();
			}
			sink += o.cols[c].numeric ? (isnan(o.cols[c].num[v]) ? 0 : 1)
						  : (o.cols[c].text[v] ? (double)strlen(o.cols[c].text[v]) : 0);
		}
	}
	for (int64_t i = 0; i < o.unmatched && i < OVERLAY_UNMATCHED_KEPT; i++)
		sink += o.unmatched_names[i] ? (double)strlen(o.unmatched_names[i]) : 0;
	(void)sink;
	overlay_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hs_graph *g = module();
	read_once(g, data, size, OVERLAY_MERGE_NONE);
	read_once(g, data, size, OVERLAY_MERGE_SUM + (int)(size % 3));
	return 0;
}
