/* compare_impl.h - what compare.c shares with its printers, compare_text.c
 * and compare_json.c.  Internal to model/compare*.c: include it nowhere
 * else (the public interface is compare.h). */
#ifndef HS_COMPARE_IMPL_H
#define HS_COMPARE_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "loader/graph.h"
#include "model/compare.h"

/* Entries in one layout group (output, input, kernel). */
#define LAYOUT_GROUP 6

/* The file name of g's path, without its folders. */
const char *compare_file_label(const hs_graph *g);

/* The consumer's layout group facing operand `slot`: 1 input, 2 kernel, -1
 * unknown (see compare.c). */
int compare_consumer_group(const hs_graph *g, int64_t consumer, int slot);

/* The neighbour's layout group facing the row's node: 0 output for an
 * operand, else the user's compare_consumer_group() (1 when unknown). */
int compare_facing_group(const hs_graph *g, const compare_neighbor *nb);

/* The two printers behind compare_print(); `all` is r->all for a layout
 * result.  They write to `out`; the text printer leaves error checks to the
 * caller, the JSON printer returns jsonw_finish's verdict (0 or -1). */
void compare_print_text(FILE *out, const compare_result *r, int all);
int compare_print_json(FILE *out, const compare_result *r, int all, hs_error *err);

#endif
