/* graph_impl.h - what graph.c, graph_hlo.c and graph_open.c share; not
 * for use outside loader/. */
#ifndef HS_GRAPH_IMPL_H
#define HS_GRAPH_IMPL_H

#include "graph.h"
#include "hlo_module.h"
#include "npz.h"

/* How graph_open reads a file, decided from its first bytes:
 *   NPZ    starts with a zip signature "PK", or is named *.npz (so a damaged
 *          archive gets the archive's diagnostics);
 *   PROTO  binary: a control byte (other than tab, newline, carriage
 *          return) among the first 4 KiB, as every protobuf has;
 *   TEXT   everything else (HLO text);
 *   MISSING cannot be opened (the .npz reader reports it). */
typedef enum graph_src { GRAPH_SRC_NPZ, GRAPH_SRC_PROTO, GRAPH_SRC_TEXT, GRAPH_SRC_MISSING } graph_src;
graph_src graph_source_of(const char *path);

/* A graph with only its path and name set (name NULL: the file's stem,
 * hs_path_stem of base/path.h). */
hs_graph *graph_new(const char *path, const char *name, hs_error *err);
/* Reads integer array `name` as int64 in C order (malloc'd), its header in
 * *h; a float array or a value past int64 is HS_EDATA.  (graph.c) */
int64_t *graph_read_i64(npz *a, const char *name, npy_header *h, hs_error *err);
/* An .npz as graph.c reads it, its module synthesized (no raw twin lookup). */
hs_graph *graph_open_npz(const char *path, hs_error *err);

/* Gives g module `module` of f (which g takes over, also on failure: a
 * module it had is freed) and builds the HLO structure from it: the one
 * way every graph gets its structure.  The module's node count must be
 * g's. */
int graph_set_module(hs_graph *g, hm_file *f, int module, hs_error *err);
/* Gives g the module synthesized from its arrays (hlo_synth.h). */
int graph_synth_module(hs_graph *g, hs_error *err);
/* graph_from_arrays for arrays of module `module` of f (taken over, also
 * on failure) featurized without node features (HF_NO_FEATURES), which
 * graph_need_features computes from the module when something asks. */
struct hf_arrays;
hs_graph *graph_from_module(struct hf_arrays *a, const char *path, const char *name, hm_file *f, int module,
			    hs_error *err);
void graph_free_hlo(hs_graph *g);

/* graph_check_file for an HLO input: every module it holds (or the one
 * FILE#N names) featurizes and passes the array validators. */
int graph_check_hlo(const char *path, hs_error *err);

/* An HLO file of either kind (proto or text, by content). */
hm_file *graph_read_hlo_file(const char *path, int proto_flags, hs_error *err);

#endif
