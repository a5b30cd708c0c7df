/* info_data.c - the data section of `hloscope info --data` (info_data.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/plural.h"
#include "cli/cli.h"
#include "cli/info_data.h"
#include "cli/opts.h"

int info_data_open(hs_graph *g, const cli_data *d, query_session **out)
{
	hs_error err = {0};
	*out = NULL;
	if (!d->files.n)
		return 0;
	query_session *s = query_session_new(g, &err);
	if (!s)
		return cli_report(&err);
	int rc = cli_load_data(s, d);
	if (rc) {
		query_session_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

typedef struct col_facts {
	int64_t count, max_node;
	double sum, max;
} col_facts;

static col_facts facts_of(const hs_overlay_col *c, int64_t n)
{
	col_facts f = {0, -1, 0, NAN};
	for (int64_t v = 0; v < n; v++) {
		int has = c->numeric ? !isnan(c->num[v]) : c->text[v] != NULL;
		if (!has)
			continue;
		f.count++;
		if (c->numeric) {
			f.sum += c->num[v];
			if (f.max_node < 0 || c->num[v] > f.max) {
				f.max = c->num[v];
				f.max_node = v;
			}
		}
	}
	return f;
}

void info_data_text(query_session *s)
{
	const hs_graph *g = query_session_graph(s);
	for (int k = 0; k < query_session_data_count(s); k++) {
		const hs_overlay *o = query_session_data(s, k);
		printf("data            %s: %lld row%s, %lld instruction%s matched", o->path, (long long)o->rows,
		       hs_s(o->rows), (long long)o->matched, hs_s(o->matched));
		if (o->unmatched) {
			printf("; %lld row%s name%s no instruction:", (long long)o->unmatched, hs_s(o->unmatched),
			       o->unmatched == 1 ? "s" : "");
			for (int64_t i = 0; i < o->unmatched && i < OVERLAY_UNMATCHED_KEPT; i++)
				printf("%s %s", i ? "," : "", o->unmatched_names[i]);
			if (o->unmatched > OVERLAY_UNMATCHED_KEPT)
				printf(", ...");
		}
		printf("\n");
		for (int c = 0; c < o->n_cols; c++) {
			const hs_overlay_col *col = &o->cols[c];
			col_facts f = facts_of(col, o->n_nodes);
			printf("  %-22s %s, %lld instruction%s", col->name, col->numeric ? "number" : "text",
			       (long long)f.count, hs_s(f.count));
			if (col->numeric && f.count)
				printf(", sum %.6g, max %.6g (%s)", f.sum, f.max,
				       graph_node_name(g, f.max_node));
			printf("\n");
		}
	}
}

void info_data_json(jsonw *w, query_session *s)
{
	const hs_graph *g = query_session_graph(s);
	jsonw_key(w, "data");
	jsonw_arr_begin(w);
	for (int k = 0; k < query_session_data_count(s); k++) {
		const hs_overlay *o = query_session_data(s, k);
		jsonw_obj_begin(w);
		jsonw_key(w, "file"), jsonw_str(w, o->path);
		jsonw_key(w, "rows"), jsonw_int(w, o->rows);
		jsonw_key(w, "matched"), jsonw_int(w, o->matched);
		jsonw_key(w, "unmatched"), jsonw_int(w, o->unmatched);
		jsonw_key(w, "unmatched_names");
		jsonw_arr_begin(w);
		for (int64_t i = 0; i < o->unmatched && i < OVERLAY_UNMATCHED_KEPT; i++)
			jsonw_str(w, o->unmatched_names[i]);
		jsonw_arr_end(w);
		jsonw_key(w, "fields");
		jsonw_arr_begin(w);
		for (int c = 0; c < o->n_cols; c++) {
			const hs_overlay_col *col = &o->cols[c];
			col_facts f = facts_of(col, o->n_nodes);
			jsonw_obj_begin(w);
			jsonw_key(w, "name"), jsonw_str(w, col->name);
			jsonw_key(w, "type"), jsonw_str(w, col->numeric ? "number" : "text");
			jsonw_key(w, "count"), jsonw_int(w, f.count);
			if (col->numeric) {
				jsonw_key(w, "sum"), jsonw_num(w, f.sum);
				jsonw_key(w, "max");
				if (f.count)
					jsonw_num(w, f.max);
				else
					jsonw_null(w);
				jsonw_key(w, "max_instruction");
				if (f.count)
					jsonw_str(w, graph_node_name(g, f.max_node));
				else
					jsonw_null(w);
			}
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
