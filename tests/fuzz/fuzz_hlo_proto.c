/* fuzz_hlo_proto.c - libFuzzer target for the HLO protobuf reader, the
 * featurizer and the HLO structure of a graph.
 *
 * Each input is taken as the bytes of a .pb file.  It goes through
 * hlo_proto_read_mem (on the input buffer itself, so ASan sees any read past
 * its end), with and without the runs; every module read is featurized,
 * built into a graph, given its HLO structure, and every name and text field
 * of every node and computation is formatted.  Then the same bytes as a file
 * (a memfd, see fuzz_npz.c) through graph_open, graph_check_file and
 * dataset_scan.  An xz-compressed input is decompressed (loader/xz.h: seeds
 * xz_*), up to 64 MB.  Errors are expected; crashes, leaks and sanitizer reports
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
#include "loader/xz.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


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
		fuzz_walk_graph(g); /* derived names */
		graph_free(g);
	}
	hm_file_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xz_max_bytes = 64u << 20; /* a bomb need not allocate 2 GiB to be found */
	fuzz_modules(data, size, 0);
	fuzz_modules(data, size, HLO_PROTO_NO_RUNS);
	const char *input_path = fuzz_input_path(data, size);
	if (!input_path)
		return 0;
	hs_error err = {0};
	hs_graph *g = graph_open(input_path, &err);
	if (g) {
		fuzz_walk_graph(g); /* real names */
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
