/* target.h - the machine an XLA module was compiled for.
 *
 * XLA's GPU compiler writes, beside the modules of a dump folder, the target
 * it compiled for: NAME.gpu_target_config.pbtxt (module_NNNN.NAME. in front
 * as the modules have, .xz when nsys-jax compressed it), a text
 * xla.GpuTargetConfigProto (pbtxt.h):
 *
 *   gpu_device_info { core_count: 108 clock_rate_ghz: 1.41
 *                     memory_bandwidth: 1555200000000 ...
 *                     cuda_compute_capability { major: 8 } }
 *   platform_name: "CUDA"
 *   device_description_str: "NVIDIA A100-SXM4-40GB"
 *
 * graph_open finds the config beside an HLO module it opens (target_find)
 * and keeps it with the module's file: hm_file.target (NULL when there is
 * none), which `info` shows and the cost model may read.  Numbers the file
 * does not give are 0 (proto3 writes no zeros).
 */
#ifndef HS_TARGET_H
#define HS_TARGET_H

#include <stdint.h>

#include "base/error.h"
#include "dump.h"

struct hm_file;

typedef struct hs_target {
	char *file;                  /* the config's path (in the module file's arena) */
	char device[96];             /* device_description_str: "NVIDIA A100-SXM4-40GB" */
	char platform[16];           /* platform_name: "CUDA", "ROCM" */
	int has_cc;                  /* a cuda_compute_capability was given: */
	int cc_major, cc_minor;      /* 8, 0 */
	char rocm_arch[64];          /* rocm_compute_capability.gcn_arch_name */
	int dnn_major, dnn_minor;    /* dnn_version_info (cuDNN) */
	/* gpu_device_info */
	int64_t sm_count;            /* core_count: streaming multiprocessors */
	int64_t fpus_per_core;
	double clock_ghz;            /* clock_rate_ghz */
	int64_t memory_bandwidth;    /* bytes per second */
	int64_t device_memory_size;  /* bytes */
	int64_t l2_cache_size;       /* bytes */
	int64_t shared_memory_per_block, shared_memory_per_block_optin, shared_memory_per_core;
	int64_t threads_per_warp, threads_per_block_limit, threads_per_core_limit;
	int64_t registers_per_core_limit, registers_per_block_limit;
} hs_target;

/* Reads the config at `path` (text protobuf, .xz too) into *t; `file` is
 * left NULL.  Fields it does not know are skipped.  0, or -1 with err set
 * (HS_EDATA "PATH:LINE:COLUMN: ..." or "PATH: FIELD: 'x' is not a number"). */
int target_read(const char *path, hs_target *t, hs_error *err);

/* The config beside the module file at `path`, malloc'd, or NULL: in its
 * folder, the config of the same dump module (module_0040.step.* ->
 * module_0040.step.gpu_target_config.pbtxt), else of the same module name
 * (step.gpu_target_config.pbtxt), else the folder's only one.  NULL with
 * err set (HS_ENOMEM) only when out of memory. */
char *target_find(const char *path, hs_error *err);

/* Finds and reads the config of the module file `path` into f->target (in
 * f's arena).  0 when there is none or it was read; -1 with err set when
 * the one found cannot be read (the module stands without it) or out of
 * memory (HS_ENOMEM). */
int target_attach(struct hm_file *f, const char *path, hs_error *err);

/* What a dump's target config or autotune results say, for a listing:
 * "NVIDIA A100-SXM4-40GB (CUDA, compute capability 8.0)", "29 results", or
 * why it cannot be read ("cannot be read: ..."); malloc'd, NULL when out
 * of memory. */
char *target_file_note(const char *path, xla_dump_kind kind);

#endif
