/* info_xla.h - what `hloscope info` says of XLA's own files: the files of a
 * folder it left out and why, the GPU a module was compiled for (its dump's
 * target config), and the memory its buffer assignment takes
 * (cli/info_xla.c). */
#ifndef HS_CLI_INFO_XLA_H
#define HS_CLI_INFO_XLA_H

#include "base/jsonw.h"
#include "loader/dataset.h"
#include "loader/graph.h"

/* "left out  FILE: why" lines of a folder's files that are not graphs or
 * reports, and the JSON member "left_out": [{"file", "why", "bytes"}]. */
void info_left_out_text(const ds_index *ix);
void info_left_out_json(jsonw *w, const ds_index *ix);

/* The "target" line of a module whose folder names its GPU, and the JSON
 * member "target": {"device", "platform", ...} or null. */
void info_target_text(const hs_graph *g);
void info_target_json(jsonw *w, const hs_graph *g);

/* The "memory" line of a module whose HloProto carries its buffer
 * assignment (hm_module.buffers: every allocation's size added, thread-local
 * ones apart), and the JSON member "memory": {"peak_bytes", ...} or null. */
void info_memory_text(const hs_graph *g);
void info_memory_json(jsonw *w, const hs_graph *g);

/* The "machine" line (model/machine.h: its name, what it is, where it came
 * from) and the JSON member "machine": {"name", "device", "source", "gpu",
 * "hbm_bytes_per_s", "peak_flops": {...}, "launch_s", "link_bytes_per_s"}. */
void info_machine_text(const hs_graph *g);
void info_machine_json(jsonw *w, const hs_graph *g);

#endif
