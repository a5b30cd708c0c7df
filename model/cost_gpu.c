/* cost_gpu.c - the terms of a machine other than the dataset's (machine.h,
 * docs/model.md "On a GPU"): a kernel's time from the FLOPs and bytes
 * cost_module.c counts, collectives over the interconnect, and how often
 * each computation runs in one execution of the module (while loops'
 * known_trip_count), with which a step is formed.
 *
 * A kernel on a GPU (the roofline, as XLA's gpu_performance_model):
 *     compute   FLOPs / peak of its data type: the matrix units (tensor
 *               cores) for dots, convolutions and cuBLAS/cuDNN calls by the
 *               operands' type (f32 as tf32 unless precision is highest),
 *               CUDA cores for the rest (f32 rate; f64 its own); a matrix op
 *               times its wave quantization (below)
 *     network   a collective's bytes over the interconnect (below)
 *     memory    bytes / HBM bandwidth (no TPU tiles); half the bandwidth
 *               for strided access (a transpose in a loop fusion, a column
 *               reduction)
 *     overhead  a kernel launch (XLA's kKernelLaunchOverhead, 1 us), an
 *               NCCL call five (kNcclKernelLaunchOverhead)
 *     issue     a thread runs the kernel's instructions one after another,
 *               ISSUE_CYCLES each (in seconds, not in overhead: a body
 *               shares it as it shares the kernel's time)
 *     seconds   max(compute, memory, network) + overhead + issue
 * Wave quantization: a GEMM's output [batch, M, N] is computed in 128 x 128
 * tiles, one per SM at a time; with fewer tiles than SMs the K loop is split
 * (split-K, K / 512 ways at most) to fill them; the SMs a last wave leaves
 * idle and the tiles' padding cost their share of the peak.
 * Collectives (NCCL on NVLink, ICI on TPUs), n the group size from
 * replica_groups (2 when none is given), B the bytes a device holds:
 *     all-gather, reduce-scatter, all-to-all   (n-1)/n B, n-1 steps (ring)
 *     all-reduce   ring: 2 (n-1)/n B in 2 (n-1) steps; one-shot: (n-1) B in
 *                  one step; the faster one (small messages go one-shot)
 *     collective-permute, -broadcast   B, one step
 * time = bytes / link bandwidth + steps * link latency.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonr.h"
#include "loader/hlo_module.h"
#include "model/cost.h"
#include "model/machine.h"

#define GEMM_TILE 128.0
#define SPLIT_K_CHUNK 512.0
#define NCCL_LAUNCH_SECONDS 5e-6
#define HBM_ACHIEVED 0.85    /* of the datasheet bandwidth, streaming (STREAM-like) */
#define MATRIX_ACHIEVED 0.80 /* of the tensor cores' peak, large cuBLAS GEMMs */
#define ISSUE_CYCLES 8.0     /* a dependent instruction's latency (FMA 4, conversions, MUFU more) */
#define STRIDED_SHARE 0.5    /* of the bandwidth, when one side's accesses are strided */

/* MP_* of a matrix op's operand type. */
static int matrix_prec(int t, int highest)
{
	if (t == HM_F64)
		return MP_F64;
	if (t == HM_F32 || t == HM_C64)
		return highest ? MP_F32 : MP_TF32;
	if (t == HM_S8 || t == HM_U8)
		return MP_INT8;
	return t == 19 || t == 20 || (t >= 23 && t <= 25) || t == 28 || t == 29 ? MP_F8 : MP_BF16; /* f8 types */
}

double machine_peak(const cost_machine *mc, int matrix, int elem_type, int highest)
{
	int p = matrix ? matrix_prec(elem_type, highest) : elem_type == HM_F64 ? MP_F64 : MP_F32;
	double r = matrix ? mc->matrix[p] : mc->vector[p];

	return r > 0 ? r : mc->vector[MP_F32] > 0 ? mc->vector[MP_F32] : mc->matrix[MP_BF16];
}

/* A matrix op's output split into GEMM tiles over the SMs: the factor by
 * which it runs slower than the peak (>= 1). */
static double wave_factor(const cost_machine *mc, const hm_shape *s, double flops)
{
	double m = 1, n = 1, e = 1, k, tiles, split, waves;
	int d0 = -1, d1 = -1;

	if (!s || s->rank == 0 || s->element_type == HM_TUPLE || mc->sms <= 0)
		return 1;
	for (int i = 0; i < s->rank; i++)
		e *= (double)s->dims[i];
	if (e <= 0)
		return 1;
	d0 = s->has_layout && s->layout_rank == s->rank ? (int)s->minor_to_major[0] : s->rank - 1;
	if (s->rank > 1)
		d1 = s->has_layout && s->layout_rank == s->rank ? (int)s->minor_to_major[1] : s->rank - 2;
	if (d0 >= 0 && d0 < s->rank)
		n = (double)s->dims[d0];
	if (d1 >= 0 && d1 < s->rank)
		m = (double)s->dims[d1];
	tiles = ceil(m / GEMM_TILE) * ceil(n / GEMM_TILE) * (e / (m * n));
	k = flops / (2 * e);
	split = fmax(1, fmin(floor(mc->sms / tiles), floor(k / SPLIT_K_CHUNK)));
	waves = ceil(tiles * split / mc->sms);
	return waves * mc->sms * GEMM_TILE * GEMM_TILE / (e * split);
}

/* The seconds a collective spends on the interconnect; 0 for any other op
 * or a machine without one. */
double cost_network(const cost_machine *mc, const hs_graph *g, int64_t v)
{
	hs_collective col;
	const hm_instr *in = graph_node_instr(g, v);

	if (mc->link <= 0 || !in || !graph_collective(g, v, &col))
		return 0;
	double n = col.group_size > 1 ? (double)col.group_size : 2, b = col.bytes;
	const char *op = in->opcode;

	if (!strncmp(op, "all-gather", 10))
		b = hm_shape_bytes(in->shape) / (in->shape->element_type == HM_TUPLE ? 2 : 1);
	if (!strncmp(op, "all-reduce", 10)) {
		double ring = 2 * (n - 1) / n * b / mc->link + 2 * (n - 1) * mc->link_latency;
		double one = (n - 1) * b / mc->link + mc->link_latency;
		return fmin(ring, one);
	}
	if (!strncmp(op, "collective-", 11))
		return b / mc->link + mc->link_latency;
	return (n - 1) / n * b / mc->link + (n - 1) * mc->link_latency;
}

void cost_gpu_node(const cost_machine *mc, const hs_graph *g, int64_t v, int matrix, int kernel, cost_estimate *c)
{
	const hm_instr *in = graph_node_instr(g, v);
	const hm_instr *op0 = in && in->n_operands ? hm_find_instr(g->module, in->operand_ids[0]) : NULL;
	const hm_shape *res = in ? in->shape : NULL;
	int type = res ? res->element_type : HM_F32, highest = 0;

	if (res && res->element_type == HM_TUPLE && res->n_tuple > 0)
		res = &res->tuple[0], type = res->element_type;
	if (matrix && op0)
		type = op0->shape->element_type;
	for (int i = 0; matrix && in && i < in->n_attrs; i++)
		if (!strcmp(in->attrs[i].name, "operand_precision") && strstr(in->attrs[i].value, "highest"))
			highest = 1;
	c->compute = c->flops / machine_peak(mc, matrix, type, highest);
	if (matrix && c->flops > 0)
		c->compute *= wave_factor(mc, res, c->flops) / MATRIX_ACHIEVED;
	c->network = cost_network(mc, g, v);
	cost_gpu_kernel(mc, c, kernel, 0);
}

void cost_gpu_kernel(const cost_machine *mc, cost_estimate *c, int ops, int strided)
{
	c->memory = c->bytes / (mc->hbm * HBM_ACHIEVED * (strided ? STRIDED_SHARE : 1));
	c->padding = 0;
	c->overhead = ops > 0 ? (c->network > 0 ? NCCL_LAUNCH_SECONDS : mc->launch) : 0;
	c->seconds = fmax(fmax(c->compute, c->memory), c->network) + c->overhead + ops * ISSUE_CYCLES / (mc->clock_ghz * 1e9);
}

/* ---- how often a computation runs -------------------------------------- */

/* A while's known_trip_count from its backend_config ({"known_trip_count":
 * {"n":"12"}}); -1 when not given. */
double cost_trip_count(const hm_instr *in)
{
	jsonr_doc d = {0};
	double n = -1;

	if (!in || strcmp(in->opcode, "while") || cost_backend_json(in, &d) < 0)
		return -1;
	const jsonr_value *k = cost_json_find(d.root, "known_trip_count", 0);
	if (!k || !cost_json_number(k->type == JR_OBJECT ? jsonr_get(k, "n") : k, &n) || n < 0)
		n = -1;
	jsonr_free(&d);
	return n;
}

static double comp_runs(const hs_graph *g, int64_t k, double *memo, int depth)
{
	const hs_hcomp *hc = &g->hcomps[k];
	double r = 0;

	if (memo[k] >= 0 || k == g->entry || depth > 64)
		return memo[k] >= 0 ? memo[k] : (memo[k] = k == g->entry);
	for (int64_t j = 0; j < hc->n_callers; j++) {
		int64_t c = g->hcomp_callers[hc->callers_at + j];
		double t = cost_trip_count(graph_node_instr(g, c));

		r += comp_runs(g, g->hcomp_of[c], memo, depth + 1) * (t < 0 ? 1 : hc->role == HS_ROLE_WHILE_COND ? t + 1 : t);
	}
	return memo[k] = r;
}

int cost_runs(const hs_graph *g, double *runs)
{
	double *memo = malloc((size_t)(g->n_hcomps ? g->n_hcomps : 1) * sizeof *memo);

	if (!memo)
		return -1;
	for (int64_t k = 0; k < g->n_hcomps; k++)
		memo[k] = -1;
	for (int64_t v = 0; v < g->n_nodes; v++)
		runs[v] = g->hcomp_of && g->n_hcomps ? comp_runs(g, g->hcomp_of[v], memo, 0) : 1;
	free(memo);
	return 0;
}

/* ---- one step ------------------------------------------------------------ */

/* The -done that waits for start node v (its user ending in -done), or -1. */
static int64_t done_of(const hs_graph *g, int64_t v)
{
	for (int64_t i = 0; i < graph_hlo_n_users(g, v); i++) {
		int64_t u = graph_hlo_users(g, v)[i];
		const hm_instr *in = graph_node_instr(g, u);
		if (in && cost_ends_with(in->opcode, "-done"))
			return u;
	}
	return -1;
}

int cost_step(const hs_graph *g, const cost_estimate *est, cost_step_parts *p)
{
	double *runs = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *runs);

	memset(p, 0, sizeof *p);
	if (!runs || cost_runs(g, runs) < 0) {
		free(runs);
		return -1;
	}
	for (int64_t k = 0; k < g->n_hcomps; k++) {
		const hs_hcomp *hc = &g->hcomps[k];
		if (!cost_role_executed(hc->role) || !hc->count)
			continue;
		p->loops += runs[hc->first] > 1;
		for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
			const hm_instr *in = graph_node_instr(g, v);
			double t = est[v].seconds * runs[v];
			int64_t d = in && cost_ends_with(in->opcode, "-start") ? done_of(g, v) : -1;

			p->runs_max = fmax(p->runs_max, runs[v]);
			if (d <= v || d >= hc->first + hc->count) {
				p->kernels += t;
				continue;
			}
			/* async: what runs between start and done hides it */
			double hidden = 0;
			for (int64_t u = v + 1; u < d; u++)
				if (!graph_node_instr(g, u) || !cost_ends_with(graph_node_instr(g, u)->opcode, "-start"))
					hidden += est[u].seconds * runs[u];
			p->async += t;
			p->exposed += fmax(0, t - hidden);
		}
	}
	p->seconds = p->kernels + p->exposed;
	free(runs);
	return 0;
}
