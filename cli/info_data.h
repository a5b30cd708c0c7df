/* info_data.h - `hloscope info FILE --data DATA...`: the data laid over the
 * graph, summed per field (cli/info_data.c). */
#ifndef HS_CLI_INFO_DATA_H
#define HS_CLI_INFO_DATA_H

#include "base/jsonw.h"
#include "query/query.h"

/* A session on g with each --data file laid over it (cli_load_data), into
 * *out (NULL without --data).  0, or the exit status (the error printed). */
struct cli_data;
int info_data_open(hs_graph *g, const struct cli_data *d, query_session **out);
/* The "data" lines of the text summary, and the "data" member of the JSON
 * one: per file its rows, matches, the rows naming no instruction (first
 * five), and per field its kind, instructions with a value, sum, and the
 * instruction of the largest value. */
void info_data_text(query_session *s);
void info_data_json(jsonw *w, query_session *s);

#endif
