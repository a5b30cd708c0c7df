/* dump.h - the files of an XLA dump folder (--xla_dump_to), by name.
 *
 * XLA names every file of a module "module_NNNN.NAME.SUFFIX" (NNNN the
 * module's unique id, NAME the module's name; some XLA versions write
 * "module_NNNN.SUFFIX", without the name):
 *   before_optimizations.txt / .hlo.pb          the module as compiled
 *   NNNN.PIPELINE.after_PASS.txt (or before_)   between passes
 *                                               (--xla_dump_hlo_pass_re)
 *   PLATFORM_after_optimizations.txt / .hlo.pb  the optimized module
 *                                               (PLATFORM: sm_8.0_gpu, cpu, ...)
 *   ...after_optimizations-buffer-assignment.txt  the buffer assignment
 *   ...after_optimizations-memory-usage-report.txt
 *   gpu_target_config.pbtxt                     the GPU it was compiled for
 *   autotune_results.pbtxt                      the autotuner's choices
 * and others this reader lists as XD_OTHER (LLVM IR, PTX, HTML, DOT, ...).
 * ".pb" stands for ".hlo.pb" too, and a .xz at the end is a compressed copy
 * (xz.h).  A target config or autotune results named "NAME.SUFFIX", without
 * "module_NNNN.", belong to the module NAME.
 *
 * Stages order as the compiler ran them: before optimizations, the passes
 * by step number (before a pass, then after it), after optimizations.
 */
#ifndef HS_DUMP_H
#define HS_DUMP_H

#include <stdint.h>

typedef enum xla_dump_kind {
	XD_HLO_TEXT = 1,
	XD_HLO_PROTO,
	XD_BUFFER_ASSIGNMENT,
	XD_MEMORY_REPORT,
	XD_TARGET_CONFIG,
	XD_AUTOTUNE,
	XD_OTHER,
} xla_dump_kind;

#define XD_AFTER_OPTIMIZATIONS INT64_MAX

typedef struct xla_dump_name {
	xla_dump_kind kind;
	char module[160];    /* "module_0042.jit_step", "module_0042" */
	char stage[192];     /* "before optimizations", "pass 0007 fusion: after
	                      * priority-fusion", "after optimizations
	                      * (sm_8.0_gpu)"; "" for a file of no stage
	                      * (XD_TARGET_CONFIG, XD_AUTOTUNE, XD_OTHER) */
	int64_t order;       /* 0, 1 + 2 * step (+ 1 after the pass), or
	                      * XD_AFTER_OPTIMIZATIONS */
	int compressed;      /* ends in .xz */
} xla_dump_name;

/* 1 and *out when `file` (a file name, no folder) is named as XLA names
 * the files of a dump; 0 otherwise. */
int xla_dump_parse(const char *file, xla_dump_name *out);

/* 1 when the kind is a report that describes its module (buffer
 * assignment, memory usage report, target config, autotune results). */
int xla_dump_is_report(xla_dump_kind k);

/* "HLO text", "buffer assignment", "GPU target config", ... */
const char *xla_dump_kind_name(xla_dump_kind k);

#endif
