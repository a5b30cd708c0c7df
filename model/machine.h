/* machine.h - the machines the analytic model costs a module for.
 *
 * A small table of TPUs and GPUs with their published numbers (datasheets;
 * docs/model.md lists them and where they come from): peak FLOP/s per data
 * type on the matrix units (MXU, tensor cores) and on the vector units (VPU,
 * CUDA cores), HBM bandwidth, on-chip memory, SMs and clock, the cost of a
 * kernel launch, and the interconnect (ICI, NVLink) each device has.
 *
 * Which machine a graph is costed for (machine_of): the one named by
 * --machine (machine_override), else the GPU of the dump's
 * gpu_target_config (its architecture, from the compute capability, gives
 * the peaks; its bandwidth, SM count, clock and L2 replace the table's),
 * else tpu-v3, the dataset's machine (one TensorCore of a TPU v3 chip),
 * whose numbers are cost.h's COST_* constants.
 */
#ifndef HS_MACHINE_H
#define HS_MACHINE_H

#include <stddef.h>

#include "loader/graph.h"
#include "model/cost.h"

/* Precisions the peaks are given for. */
enum { MP_F64, MP_F32, MP_TF32, MP_BF16, MP_F8, MP_INT8, MP_N };

typedef struct cost_machine {
	char name[16];        /* "a100" */
	char device[96];      /* "NVIDIA A100-SXM4-40GB" (a dump's device_description_str) */
	int gpu;              /* 0: a TPU core or chip; 1: a GPU */
	double matrix[MP_N];  /* FLOP/s on the matrix units by operand type (0: none: vector) */
	double vector[MP_N];  /* FLOP/s on the vector units (CUDA cores, VPU) */
	double hbm;           /* bytes/s */
	double onchip;        /* bytes: L2 (GPU), CMEM/VMEM (TPU) */
	int sms;              /* streaming multiprocessors (GPU) or TensorCores */
	double clock_ghz;
	double launch;        /* seconds a kernel costs beyond its work */
	double link;          /* interconnect bytes/s per device, one direction */
	double link_latency;  /* seconds per step of a collective */
	const char *what;     /* one line for --help and info */
} cost_machine;

/* The table: n entries (the first is tpu-v3). */
const cost_machine *machine_table(int *n);
/* The entry named `name` (case-insensitive), or NULL. */
const cost_machine *machine_find(const char *name);
/* "tpu-v3, tpu-v4, ..." into buf. */
void machine_names(char *buf, size_t cap);

/* The machine every graph is costed for from now on (NULL: by the graph,
 * as above).  Set once by the command line before any graph is costed. */
void machine_override(const cost_machine *m);
/* Graph g's machine into *out (a dump's GPU is built from the table's
 * entry of its architecture); returns out. */
const cost_machine *machine_of(const hs_graph *g, cost_machine *out);
/* Where g's machine came from: "--machine", "the dump's gpu_target_config"
 * or "the default (the dataset's machine)". */
const char *machine_source(const hs_graph *g);

/* ---- the terms (cost_gpu.c), for cost_module.c ----------------------- */

struct hm_instr;
struct jsonr_doc;
struct jsonr_value;

/* FLOP/s of an op on mc: on the matrix units (matrix) by its operands'
 * element type (HM_*; f32 as tf32 unless highest), else on the vector
 * units. */
double machine_peak(const cost_machine *mc, int matrix, int elem_type, int highest);
/* Seconds collective node v spends on mc's interconnect (0: not one, or
 * mc has none modelled: tpu-v3). */
double cost_network(const cost_machine *mc, const hs_graph *g, int64_t v);
/* Node v's compute, memory, network, overhead and seconds on GPU mc from
 * c->flops and c->bytes (matrix: on the tensor cores; kernel: launched on
 * its own). */
void cost_gpu_node(const cost_machine *mc, const hs_graph *g, int64_t v, int matrix, int kernel,
		   cost_estimate *c);
/* A kernel's memory, overhead and seconds from c->compute, c->network and
 * c->bytes: ops instructions issued one after another (0: not a kernel,
 * no launch), strided: its accesses waste half of the bandwidth. */
void cost_gpu_kernel(const cost_machine *mc, cost_estimate *c, int ops, int strided);
int cost_ends_with(const char *s, const char *tail);

/* A while's known_trip_count (backend_config), -1 when none is given. */
double cost_trip_count(const struct hm_instr *in);
/* runs[n_nodes]: how many times each node runs in one execution of the
 * module (a while body times its trip count, its condition one more; a
 * while without a known count once).  0, or -1 out of memory. */
int cost_runs(const hs_graph *g, double *runs);

/* One execution of the module (a step): the executed kernels, each times
 * its runs, an async collective (a -start with its -done) only for what the
 * kernels between its start and its done do not hide. */
typedef struct cost_step_parts {
	double seconds;  /* kernels + exposed */
	double kernels;  /* every executed node but the async collectives */
	double async;    /* the async collectives in full */
	double exposed;  /* of which not hidden */
	double runs_max; /* the most a node runs (1: no loop known) */
	int loops;       /* computations that run more than once */
} cost_step_parts;
/* 0, or -1 out of memory. */
int cost_step(const hs_graph *g, const cost_estimate *est, cost_step_parts *p);

/* cost_module.c's readers of backend_config (JSON). */
int cost_backend_json(const struct hm_instr *in, struct jsonr_doc *d);
const struct jsonr_value *cost_json_find(const struct jsonr_value *v, const char *key, int depth);
int cost_json_number(const struct jsonr_value *v, double *out);

#endif
