/* fuzz_npz.c - libFuzzer target for the npz reader and the graph loader.
 *
 * Each input is taken as the bytes of a .npz file.  It goes through
 * npz_open_mem (on the input buffer itself, so ASan sees any read past its
 * end) and npz_open, with npz_header / npz_read / npz_stream of every array,
 * then graph_open, graph_load_node_configs, graph_default_config and
 * graph_check_file, freeing everything.  Errors are expected; crashes, leaks
 * and sanitizer reports are the bugs.
 *
 * For the path-based calls the bytes are placed in a memfd (one per process,
 * rewritten for each input) opened through /proc/self/fd/N: a real file
 * without touching the disk.
 *
 *   make fuzz && build/fuzz/fuzz_npz -max_total_time=60 tests/fuzz/corpus/npz
 * tests/fuzz/replay.c runs the same function on saved inputs (make units).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/graph.h"
#include "loader/npz.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Sums what npz_stream hands over so that every byte is looked at. */
static int sum_chunk(void *ctx, const npy_header *h, const void *elems,
		     uint64_t first, uint64_t count, hs_error *err)
{
	uint64_t *sum = ctx;
	const uint8_t *p = elems;
	size_t n = (size_t)count * h->itemsize;

	(void)first;
	(void)err;
	for (size_t i = 0; i < n; i++)
		*sum += p[i];
	return 0;
}

static void fuzz_npz_api(npz *a)
{
	hs_error err = {0};

	if (!a)
		return;
	for (size_t i = 0; i < a->n_arrays; i++) {
		const char *name = a->names[i];
		npy_header h;
		npz_array arr;
		uint64_t sum = 0;

		hs_error_clear(&err);
		if (!npz_has(a, name))
			abort(); /* a listed name must be found */
		if (npz_header(a, name, &h, &err) == 0 && h.count > 0 &&
		    h.count * h.itemsize < 4096) {
			/* touch the last element's index mapping */
			(void)npy_c_to_f_index(&h, h.count - 1);
		}
		hs_error_clear(&err);
		if (npz_read(a, name, &arr, &err) == 0) {
			for (uint64_t k = 0; k < arr.h.count; k++)
				sum += (uint64_t)npy_get_i64(arr.h.dtype, arr.data, k);
			npz_array_free(&arr);
		}
		hs_error_clear(&err);
		(void)npz_stream(a, name, sum_chunk, &sum, &err);
	}
	npz_close(a);
}

static void fuzz_graph_api(const char *input_path)
{
	hs_error err = {0};
	hs_graph *g = graph_open(input_path, &err);

	if (g) {
		volatile int64_t sink = graph_best_config(g);
		hs_error_clear(&err);
		if (graph_load_node_configs(g, &err) == 0 && g->n_configs > 0 &&
		    g->n_cfg_nodes > 0 && g->ncf_loaded)
			sink += (int64_t)graph_ncf(g, g->n_configs - 1,
						   g->n_cfg_nodes - 1,
						   g->ncf_width - 1);
		hs_error_clear(&err);
		sink += graph_default_config(g, &err);
		for (int64_t v = 0; v < g->n_nodes; v++)
			sink += graph_n_operands(g, v) + graph_n_users(g, v);
		(void)sink;
		graph_free(g);
	}
	hs_error_clear(&err);
	(void)graph_check_file(input_path, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;

	if (!once) {
		/* A 4 KB input cannot honestly hold more than ~4 MB (deflate's
		 * 1032:1); keep claims from turning into big allocations. */
		npz_max_array_bytes = 64u << 20;
		once = 1;
	}
	hs_error err = {0};
	/* In memory: ASan sees any read past the input's end. */
	fuzz_npz_api(npz_open_mem(data, size, "fuzz.npz", &err));
	/* Through a file: the pread paths, and the graph API. */
	const char *input_path = fuzz_input_path(data, size);
	if (!input_path)
		return 0;
	hs_error_clear(&err);
	fuzz_npz_api(npz_open(input_path, &err));
	fuzz_graph_api(input_path);
	return 0;
}
