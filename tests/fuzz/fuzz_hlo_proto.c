/* fuzz_hlo_proto.c - libFuzzer target for the HLO protobuf reader, the
 * featurizer and the HLO structure of a graph.
 *
 * Each input is taken as the bytes of a .pb file.  It goes through
 * hlo_proto_read_mem (on the input buffer itself, so ASan sees any read past
 * its end), with and without the runs; every module read is featurized,
 * built into a graph, given its HLO structure, and every name and text field
 * of every node and computation is formatted.  Then the same bytes as a file
 * (a memfd, see fuzz_npz.c) through graph_open, graph_check_file and
 * dataset_scan.  Errors are expected; crashes, leaks and sanitizer reports
 * are the bugs.
 *
 *   make fuzz && mkdir -p build/fuzz/new &&
 *   build/fuzz/fuzz_hlo_proto -max_total_time=60 build/fuzz/new tests/fuzz/corpus/hlo_proto
 * $HLOSCOPE_BUILD/tests/fuzz/replay_hlo_proto runs it on saved inputs (make units).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/dataset.h"
#include "loader/graph.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int input_fd = -1;
static char input_path[64];

static int put_input(const uint8_t *data, size_t size)
{
	if (input_fd < 0) {
		input_fd = memfd_create("fuzz_hlo_proto", MFD_CLOEXEC);
		if (input_fd < 0)
			return -1;
		snprintf(input_path, sizeof input_path, "/proc/self/fd/%d", input_fd);
	}
	if (ftruncate(input_fd, 0) != 0)
		return -1;
	size_t done = 0;
	while (done < size) {
		ssize_t w = pwrite(input_fd, data + done, size - done, (off_t)done);
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

/* Every per-node and per-computation text, so that each reads what it points at. */
static void walk_graph(const hs_graph *g)
{
	char buf[96];
	volatile size_t sink = 0;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		for (int f = 0; f < HS_NHFIELDS; f++)
			sink += strlen(graph_node_text(g, v, (hs_hfield)f, buf, sizeof buf));
		sink += (size_t)graph_n_called(g, v);
	}
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		const hs_hcomp *hc = &g->hcomps[c];
		sink += strlen(graph_hcomp_name(g, c, buf, sizeof buf)) + strlen(graph_role_name(hc->role));
		for (int64_t k = 0; k < hc->n_callers; k++)
			sink += (size_t)g->hcomp_callers[hc->callers_at + k];
		if (hc->root < hc->first || hc->root >= hc->first + hc->count)
			abort(); /* a computation's root lies inside it */
	}
	if (g->n_nodes && graph_find_node(g, graph_node_name(g, g->n_nodes - 1, buf, sizeof buf)) < 0)
		abort(); /* every name is found again */
	sink += (size_t)graph_n_fusions(g) + strlen(graph_module_name(g));
	(void)sink;
}

static void fuzz_modules(const uint8_t *data, size_t size, int flags)
{
	hs_error err = {0};
	hm_file *f = hlo_proto_read_mem(data, size, "fuzz.pb", flags, &err);
	if (!f)
		return;
	for (int i = 0; i < f->n_modules; i++) {
		hf_arrays a;
		hs_error_clear(&err);
		if (hf_featurize(&f->modules[i], f->tuning[i], hf_kind(f, i), 0, &a, &err))
			continue;
		hs_graph *g = graph_from_arrays(&a, "fuzz.pb", f->modules[i].name, &err);
		hf_arrays_free(&a);
		if (!g)
			continue;
		walk_graph(g); /* derived names */
		graph_free(g);
	}
	hm_file_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_modules(data, size, 0);
	fuzz_modules(data, size, HLO_PROTO_NO_RUNS);
	if (put_input(data, size) != 0)
		return 0;
	hs_error err = {0};
	hs_graph *g = graph_open(input_path, &err);
	if (g) {
		walk_graph(g); /* real names */
		graph_free(g);
	}
	hs_error_clear(&err);
	(void)graph_check_file(input_path, &err);
	char sel[80];
	snprintf(sel, sizeof sel, "%s#1", input_path);
	hs_error_clear(&err);
	if ((g = graph_open(sel, &err)))
		graph_free(g);
	hs_error_clear(&err);
	dataset_free(dataset_scan(input_path, &err));
	return 0;
}
