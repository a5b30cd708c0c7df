/* info_xla.c - info's lines about XLA's own files (cli/info_xla.h). */
#include <stdio.h>

#include "cli/info_xla.h"
#include "loader/hlo_module.h"
#include "loader/target.h"
#include "model/machine.h"

void info_left_out_text(const ds_index *ix)
{
	for (size_t i = 0; i < ix->n_left_out; i++)
		printf("left out  %s: %s\n", ix->left_out[i].rel, ix->left_out[i].why);
}

void info_left_out_json(jsonw *w, const ds_index *ix)
{
	jsonw_key(w, "left_out");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ix->n_left_out; i++) {
		jsonw_obj_begin(w);
		jsonw_key(w, "file"), jsonw_str(w, ix->left_out[i].rel);
		jsonw_key(w, "why"), jsonw_str(w, ix->left_out[i].why);
		jsonw_key(w, "bytes"), jsonw_int(w, ix->left_out[i].bytes);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static const hs_target *target_of(const hs_graph *g)
{
	return g->hlo ? g->hlo->target : NULL;
}

/* "NVIDIA A100-SXM4-40GB (CUDA, compute capability 8.0): 108 SMs at 1.41
 * GHz, 1555.2 GB/s, 42.5 GB, L2 41.9 MB (FILE)" */
void info_target_text(const hs_graph *g)
{
	const hs_target *t = target_of(g);
	if (!t)
		return;
	printf("target          %s (%s", t->device[0] ? t->device : "unnamed device", t->platform[0] ? t->platform : "?");
	if (t->has_cc)
		printf(", compute capability %d.%d", t->cc_major, t->cc_minor);
	else if (t->rocm_arch[0])
		printf(", %s", t->rocm_arch);
	printf("): %lld SMs at %.3g GHz, %.1f GB/s, %.1f GB, L2 %.1f MB\n", (long long)t->sm_count, t->clock_ghz,
	       (double)t->memory_bandwidth / 1e9, (double)t->device_memory_size / 1e9, (double)t->l2_cache_size / 1e6);
	printf("                from %s\n", t->file);
}

void info_target_json(jsonw *w, const hs_graph *g)
{
	const hs_target *t = target_of(g);
	jsonw_key(w, "target");
	if (!t) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_key(w, "file"), jsonw_str(w, t->file);
	jsonw_key(w, "device"), jsonw_str(w, t->device);
	jsonw_key(w, "platform"), jsonw_str(w, t->platform);
	jsonw_key(w, "compute_capability");
	if (t->has_cc) {
		char cc[32];
		snprintf(cc, sizeof cc, "%d.%d", t->cc_major, t->cc_minor);
		jsonw_str(w, cc);
	} else if (t->rocm_arch[0]) {
		jsonw_str(w, t->rocm_arch);
	} else {
		jsonw_null(w);
	}
	const struct {
		const char *key;
		int64_t v;
	} ints[] = {
		{"sm_count", t->sm_count},
		{"fpus_per_core", t->fpus_per_core},
		{"memory_bandwidth", t->memory_bandwidth},
		{"device_memory_size", t->device_memory_size},
		{"l2_cache_size", t->l2_cache_size},
		{"shared_memory_per_block", t->shared_memory_per_block},
		{"shared_memory_per_block_optin", t->shared_memory_per_block_optin},
		{"shared_memory_per_core", t->shared_memory_per_core},
		{"threads_per_warp", t->threads_per_warp},
		{"threads_per_block_limit", t->threads_per_block_limit},
		{"threads_per_core_limit", t->threads_per_core_limit},
		{"registers_per_core_limit", t->registers_per_core_limit},
		{"registers_per_block_limit", t->registers_per_block_limit},
	};
	jsonw_key(w, "clock_ghz"), jsonw_num(w, t->clock_ghz);
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		jsonw_key(w, ints[i].key), jsonw_int(w, ints[i].v);
	if (t->dnn_major || t->dnn_minor) {
		char v[32];
		snprintf(v, sizeof v, "%d.%d", t->dnn_major, t->dnn_minor);
		jsonw_key(w, "dnn_version"), jsonw_str(w, v);
	}
	jsonw_obj_end(w);
}

void info_memory_text(const hs_graph *g)
{
	const hm_buffers *b = g->module ? g->module->buffers : NULL;
	if (!b)
		return;
	printf("memory          %.4g GB at most (%lld bytes: parameters %lld, outputs %lld, constants %lld, temporaries %lld)\n",
	       (double)b->peak_bytes / 1e9, (long long)b->peak_bytes, (long long)b->parameter_bytes,
	       (long long)b->output_bytes, (long long)b->constant_bytes, (long long)b->temp_bytes);
	printf("                from its buffer assignment: %lld allocations (thread-local ones apart: %lld bytes), "
	       "%lld logical buffers\n", (long long)b->n_allocations, (long long)b->thread_local_bytes,
	       (long long)b->n_logical);
}

void info_memory_json(jsonw *w, const hs_graph *g)
{
	const hm_buffers *b = g->module ? g->module->buffers : NULL;
	jsonw_key(w, "memory");
	if (!b) {
		jsonw_null(w);
		return;
	}
	int64_t with = 0;
	for (int64_t v = 0; v < g->module->n_instrs; v++)
		with += b->node_bytes[v] >= 0;
	jsonw_obj_begin(w);
	jsonw_key(w, "peak_bytes"), jsonw_int(w, b->peak_bytes);
	jsonw_key(w, "parameter_bytes"), jsonw_int(w, b->parameter_bytes);
	jsonw_key(w, "output_bytes"), jsonw_int(w, b->output_bytes);
	jsonw_key(w, "constant_bytes"), jsonw_int(w, b->constant_bytes);
	jsonw_key(w, "temp_bytes"), jsonw_int(w, b->temp_bytes);
	jsonw_key(w, "thread_local_bytes"), jsonw_int(w, b->thread_local_bytes);
	jsonw_key(w, "allocations"), jsonw_int(w, b->n_allocations);
	jsonw_key(w, "logical_buffers"), jsonw_int(w, b->n_logical);
	jsonw_key(w, "instructions_with_buffers"), jsonw_int(w, with);
	jsonw_obj_end(w);
}

void info_machine_text(const hs_graph *g)
{
	cost_machine m;
	machine_of(g, &m);
	printf("machine         %s: %s (%s)\n", m.name, m.device, machine_source(g));
}

void info_machine_json(jsonw *w, const hs_graph *g)
{
	static const char *const prec[MP_N] = {"f64", "f32", "tf32", "bf16", "f8", "int8"};
	cost_machine m;
	machine_of(g, &m);
	jsonw_key(w, "machine");
	jsonw_obj_begin(w);
	jsonw_key(w, "name"), jsonw_str(w, m.name);
	jsonw_key(w, "device"), jsonw_str(w, m.device);
	jsonw_key(w, "source"), jsonw_str(w, machine_source(g));
	jsonw_key(w, "gpu"), jsonw_bool(w, m.gpu);
	jsonw_key(w, "hbm_bytes_per_s"), jsonw_num(w, m.hbm);
	jsonw_key(w, "sm_count"), jsonw_int(w, m.sms);
	jsonw_key(w, "clock_ghz"), jsonw_num(w, m.clock_ghz);
	for (int k = 0; k < 2; k++) {
		jsonw_key(w, k ? "vector_flops" : "matrix_flops");
		jsonw_obj_begin(w);
		for (int i = 0; i < MP_N; i++)
			if ((k ? m.vector : m.matrix)[i] > 0)
				jsonw_key(w, prec[i]), jsonw_num(w, (k ? m.vector : m.matrix)[i]);
		jsonw_obj_end(w);
	}
	jsonw_key(w, "launch_s"), jsonw_num(w, m.launch);
	jsonw_key(w, "link_bytes_per_s"), jsonw_num(w, m.link);
	jsonw_obj_end(w);
}
