/* doc.c - an open graph shared by the views showing it, with the query
 * session that owns everything derived about it (query/query.h), and its
 * names as the views show them (nodes by id or name, opcode colours,
 * computation labels). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "loader/hlo_module.h"
#include "base/parse.h"
#include "query/query.h"
#include "tui/tui.h"

tui_doc *tui_doc_open(const char *path, const hs_model *m, hs_error *err)
{
	tui_doc *d = calloc(1, sizeof *d);

	if (!d) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory opening it", path);
		return NULL;
	}
	d->g = graph_open(path, err);
	if (!d->g) {
		free(d);
		return NULL;
	}
	d->qs = query_session_new(d->g, err);
	if (!d->qs) {
		graph_free(d->g);
		free(d);
		return NULL;
	}
	query_session_set_model(d->qs, m);
	d->refs = 1;
	d->model = m;
	return d;
}

tui_doc *tui_doc_ref(tui_doc *d)
{
	if (d)
		d->refs++;
	return d;
}

void tui_doc_unref(tui_doc *d)
{
	if (!d || --d->refs > 0)
		return;
	tui_drawing_cache_free(d);
	query_session_free(d->qs);
	graph_free(d->g);
	free(d);
}

int64_t tui_doc_node_arg(struct tui *t, const tui_doc *d, const char *what, const char *arg)
{
	int64_t id;
	char near[160];

	if (hs_parse_i64(arg, &id) == 0) {
		if (id >= 0 && id < d->g->n_nodes)
			return id;
	} else if (arg && arg[0] && (id = graph_find_node(d->g, arg)) >= 0) {
		return id;
	}
	if (arg && arg[0] && hs_parse_i64(arg, &id) != 0 && query_suggest_node(d->g, arg, near, sizeof near))
		tui_message(t, 1, "%s: no node '%s' (did you mean '%s'?)", what, arg, near);
	else
		tui_message(t, 1, "%s: no node '%s' (ids are 0..%lld, or a name such as %s)", what, arg ? arg : "",
			    (long long)d->g->n_nodes - 1,
			    d->g->n_nodes ? graph_node_name(d->g, 0) : "add.1");
	return -1;
}

/* By the learned opcode id: from HLO input it is already the written name's
 * id (the featurizer maps names exactly), 0 for a name not in the list. */
int tui_node_class(const hs_graph *g, int64_t v)
{
	return TUI_C_CAT + (int)hlo_opcode_category(g->opcode[v]);
}

const char *tui_hcomp_label(const hs_graph *g, int64_t c, char *buf, size_t cap)
{
	char sb[TUI_NAME_MAX * 4 + 8];
	snprintf(buf, cap, "%s (%s)", tui_name(graph_hcomp_name(g, c), sb, sizeof sb),
		 graph_role_name(g->hcomps[c].role));
	return buf;
}
