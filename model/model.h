/* model.h - learned config rankers and the analytic fallback.
 *
 * A model holds a layout head, a tile head or both (see nn.h for the
 * network, train.h for training) and is stored in a model file (format
 * below).  Every function that takes a model accepts NULL for "no model":
 * the analytic estimate of cost.h is then used, and model_describe() says
 * so.
 *
 * Model file format, version 2 (all integers little-endian):
 *
 *   offset  size  field
 *   0       8     magic "HLOSCMDL"
 *   8       4     u32 format version (2; 1 is read too)
 *   12      4     u32 number of sections
 *   16      ...   sections, each: 4-byte ASCII tag, u64 payload length, payload
 *   end-4   4     u32 CRC-32 (zlib's) of every byte before it
 *
 *   "META"  UTF-8 text, "key=value" lines (what it was trained on, options,
 *           validation scores; "trained_on=DIGEST PATH" and
 *           "validated_on=DIGEST PATH" lines, DIGEST graph_digest() in 16
 *           hex digits, which model_saw() reads).
 *   "LAYT"  the layout head, "TILE" the tile head (at most one each, at
 *           least one in all), payload:
 *             10 x u32  kind (1 layout / 0 tile), node feature width, opcode
 *                       embedding width, hidden width, encoder layers,
 *                       readout width, config hops, layout config width,
 *                       layout config columns, tile config columns
 *                       (config_feat width + 3 analytic columns)
 *             u64       parameter count (must equal what the widths imply)
 *             f32[fin]  node feature means, f32[fin] standard deviations
 *             tile only: f32[ctw] config means, f32[ctw] deviations
 *             f32[...]  parameters in nn.h's order (nn_offsets); the last
 *                       two are the analytic prior's weight and the gate
 *   Unknown section tags are an error.  A version 1 file has no prior: its
 *   heads lack the last two parameters and read as weight 0, gate 1 (the
 *   scores they always gave).
 *
 * Ownership: model_load() returns a model freed by model_free().
 */
#ifndef HS_MODEL_H
#define HS_MODEL_H

#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"

#define MODEL_FORMAT_VERSION 2

typedef struct hs_model hs_model;

/* Errors (HS_EDATA) name the file and what is wrong: not a model file,
 * another format version, checksum mismatch, truncated, bad section. */
hs_model *model_load(const char *path, hs_error *err);
void model_free(hs_model *m);

/* Writes the model to a temporary file next to `path` and renames it into
 * place; nothing partial is left behind on failure. */
int model_save(const hs_model *m, const char *path, hs_error *err);

/* A score per config, lower = predicted faster, in runtime-like units where
 * the model gives them (out[g->n_configs]).  With m == NULL the analytic
 * estimate is used (nanoseconds).  The learned heads give unitless scores.
 * Loads node configs as needed.  Errors: the model has no head for the
 * graph's kind, or the graph's feature widths differ from the model's. */
int model_predict_configs(const hs_model *m, hs_graph *g, double *out,
			  hs_error *err);

/* Per configurable node k, its part of score(b) - score(a) for two configs
 * of a layout graph (out[g->n_cfg_nodes]); the parts sum to the difference
 * of the two configs' scores.  With m == NULL, the analytic estimate's
 * parts (ns).  Errors: not a layout graph, index out of range. */
int model_node_contributions(const hs_model *m, hs_graph *g, int64_t a,
			     int64_t b, double *out, hs_error *err);

/* "analytic estimate" for NULL, else e.g. "sage-ranker v1 (layout)". */
const char *model_describe(const hs_model *m);

/* 1 when the model can score graphs of that kind (always for NULL). */
int model_has_head(const hs_model *m, hs_kind kind);

/* The META text ("" for NULL or when absent). */
const char *model_meta(const hs_model *m);

/* Whether the model saw graph g (by graph_digest, whatever its name): 1
 * when it trained on it, 2 when it was a --valid graph, else 0 (also for
 * NULL and for models whose META lists no digests). */
int model_saw(const hs_model *m, const hs_graph *g);

#endif
