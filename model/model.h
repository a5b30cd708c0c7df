/* model.h - learned config rankers and the analytic fallback.
 *
 * Ownership: model_load() returns a model freed by model_free().
 */
#ifndef HS_MODEL_H
#define HS_MODEL_H

#include "loader/error.h"
#include "loader/graph.h"

typedef struct hs_model hs_model;

hs_model *model_load(const char *path, hs_error *err);
void model_free(hs_model *m);

/* A score per config, lower = predicted faster, in runtime-like units where
 * the model gives them (out[g->n_configs]).  With m == NULL the analytic
 * estimate is used.  Loads node configs as needed. */
int model_predict_configs(const hs_model *m, hs_graph *g, double *out,
			  hs_error *err);

/* "analytic estimate" for NULL, else e.g. "sage-ranker v1 (layout)". */
const char *model_describe(const hs_model *m);

#endif
