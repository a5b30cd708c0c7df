/* machine.c - the table of machines (machine.h); docs/model.md gives the
 * sources of the numbers.  Peaks are dense (no structured sparsity). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "loader/hlo_module.h"
#include "loader/target.h"
#include "model/cost.h"
#include "model/machine.h"

#define T 1e12
#define G 1e9
#define US 1e-6

/* matrix: f64 f32 tf32 bf16 f8 int8; vector: f64 f32 (the narrower types
 * run at the f32 rate: XLA computes them in f32). */
static const cost_machine table[] = {
	{"tpu-v3", "TPU v3 (one TensorCore)", 0, {0, COST_PEAK_FLOPS, COST_PEAK_FLOPS, COST_PEAK_FLOPS,
	 COST_PEAK_FLOPS, COST_PEAK_FLOPS}, {0, COST_PEAK_FLOPS, 0, COST_PEAK_FLOPS}, COST_HBM_BYTES_PER_S,
	 16e6, 1, 0.94, COST_OP_SECONDS, 0, 0,
	 "one TensorCore of a TPU v3 chip: 61.5 TFLOP/s, 450 GB/s (the dataset's machine, the default)"},
	{"tpu-v4", "TPU v4", 0, {0, 275 * T, 275 * T, 275 * T, 275 * T, 275 * T}, {0, 275 * T, 0, 275 * T},
	 1228 * G, 160e6, 2, 1.05, COST_OP_SECONDS, 150 * G, 5 * US,
	 "TPU v4 chip: 275 TFLOP/s bf16, 1.2 TB/s, ICI"},
	{"tpu-v5e", "TPU v5e", 0, {0, 197 * T, 197 * T, 197 * T, 197 * T, 394 * T}, {0, 197 * T, 0, 197 * T},
	 819 * G, 128e6, 1, 1.5, COST_OP_SECONDS, 100 * G, 5 * US,
	 "TPU v5e chip: 197 TFLOP/s bf16, 394 int8, 819 GB/s, ICI"},
	{"v100", "NVIDIA V100-SXM2", 1, {7.8 * T, 15.7 * T, 15.7 * T, 125 * T, 125 * T, 62 * T},
	 {7.8 * T, 15.7 * T}, 900 * G, 6e6, 80, 1.53, 1 * US, 150 * G, 5 * US,
	 "NVIDIA V100 SXM2 (sm_70): 125 TFLOP/s f16 tensor, 15.7 f32, 900 GB/s, NVLink2 150 GB/s"},
	{"a100", "NVIDIA A100-SXM4-40GB", 1, {19.5 * T, 156 * T, 156 * T, 312 * T, 312 * T, 624 * T},
	 {9.7 * T, 19.5 * T}, 1555 * G, 40e6, 108, 1.41, 1 * US, 300 * G, 5 * US,
	 "NVIDIA A100 SXM4 (sm_80): 312 TFLOP/s bf16, 156 tf32, 19.5 f32, 1.56 TB/s, NVLink3 300 GB/s"},
	{"a10", "NVIDIA A10", 1, {0, 62.5 * T, 62.5 * T, 125 * T, 125 * T, 250 * T}, {0.98 * T, 31.2 * T},
	 600 * G, 6e6, 72, 1.695, 1 * US, 32 * G, 10 * US,
	 "NVIDIA A10 (sm_86): 125 TFLOP/s bf16, 31.2 f32, 600 GB/s, PCIe 4 32 GB/s"},
	{"l4", "NVIDIA L4", 1, {0, 60 * T, 60 * T, 121 * T, 242 * T, 242 * T}, {0.47 * T, 30.3 * T}, 300 * G,
	 48e6, 58, 2.04, 1 * US, 32 * G, 10 * US,
	 "NVIDIA L4 (sm_89): 121 TFLOP/s bf16, 242 f8, 30.3 f32, 300 GB/s, PCIe 4 32 GB/s"},
	{"h100", "NVIDIA H100-SXM5-80GB", 1, {67 * T, 494 * T, 494 * T, 989 * T, 1979 * T, 1979 * T},
	 {34 * T, 67 * T}, 3350 * G, 50e6, 132, 1.83, 1 * US, 450 * G, 5 * US,
	 "NVIDIA H100 SXM5 (sm_90): 989 TFLOP/s bf16, 1979 f8, 67 f32, 3.35 TB/s, NVLink4 450 GB/s"},
};

#define N_TABLE ((int)(sizeof table / sizeof *table))

static const cost_machine *override;

const cost_machine *machine_table(int *n)
{
	*n = N_TABLE;
	return table;
}

const cost_machine *machine_find(const char *name)
{
	for (int i = 0; i < N_TABLE; i++)
		if (!strcasecmp(name, table[i].name))
			return &table[i];
	return NULL;
}

void machine_names(char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < N_TABLE && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", table[i].name);
}

void machine_override(const cost_machine *m)
{
	override = m;
}

static const hs_target *target_of(const hs_graph *g)
{
	const hs_target *t = g->hlo ? g->hlo->target : NULL;
	return t && t->has_cc ? t : NULL;
}

/* The table's GPU of compute capability major.minor (the nearest older
 * one of the same major version, else the newest). */
static const cost_machine *by_arch(int major, int minor)
{
	static const struct {
		int major, minor;
		const char *name;
	} arch[] = {{7, 0, "v100"}, {8, 0, "a100"}, {8, 6, "a10"}, {8, 9, "l4"}, {9, 0, "h100"}};
	const char *best = "h100";

	for (size_t i = 0; i < sizeof arch / sizeof *arch; i++)
		if (arch[i].major < major || (arch[i].major == major && arch[i].minor <= minor))
			best = arch[i].name;
	return machine_find(best);
}

const cost_machine *machine_of(const hs_graph *g, cost_machine *out)
{
	const hs_target *t = override ? NULL : target_of(g);

	*out = override ? *override : table[0];
	if (!t)
		return out;
	const cost_machine *a = by_arch(t->cc_major, t->cc_minor);
	double scale = 1;
	*out = *a;
	/* the architecture's peaks for this part's SMs and clock */
	if (t->sm_count > 0 && t->clock_ghz > 0)
		scale = (double)t->sm_count * t->clock_ghz / (a->sms * a->clock_ghz);
	for (int i = 0; i < MP_N; i++) {
		out->matrix[i] *= scale;
		out->vector[i] *= scale;
	}
	if (t->sm_count > 0 && t->fpus_per_core > 0 && t->clock_ghz > 0)
		out->vector[MP_F32] = (double)t->sm_count * (double)t->fpus_per_core * 2 * t->clock_ghz * 1e9;
	if (t->sm_count > 0)
		out->sms = (int)t->sm_count;
	if (t->clock_ghz > 0)
		out->clock_ghz = t->clock_ghz;
	if (t->memory_bandwidth > 0)
		out->hbm = (double)t->memory_bandwidth;
	if (t->l2_cache_size > 0)
		out->onchip = (double)t->l2_cache_size;
	if (t->device[0])
		snprintf(out->device, sizeof out->device, "%s", t->device);
	return out;
}

const char *machine_source(const hs_graph *g)
{
	return override ? "--machine" : target_of(g) ? "the dump's gpu_target_config" : "the default (the dataset's machine)";
}
