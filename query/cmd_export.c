/* cmd_export.c - the query command `export`: a region of the graph (around
 * a node, a path, a computation, the configurable nodes, or the nodes that
 * match) drawn through Graphviz into a DOT, SVG or PNG file, optionally
 * filled by a number (heat).  Regions come from render/region.h, files
 * from render/dot.h (written atomically).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/commands.h"
#include "render/dot.h"
#include "render/region.h"

/* ---- export ------------------------------------------------------------- */

/* Where a standalone "-o" starts in src[from, n) outside quotes, or n. */
static size_t find_output_option(const char *src, size_t from, size_t n)
{
	char quote = 0;

	for (size_t i = from; i < n; i++) {
		char c = src[i];
		if (quote) {
			if (c == '\\' && i + 1 < n)
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '"' || c == '\'') {
			quote = c;
			continue;
		}
		if (c == '#')
			return n;
		if (c == '-' && i + 1 < n && src[i + 1] == 'o' &&
		    (i == from || isspace((unsigned char)src[i - 1])) &&
		    (i + 2 == n || isspace((unsigned char)src[i + 2])))
			return i;
	}
	return n;
}

int query_cmd_export(query_parser *p, query_result *out)
{
	const query_token *t = query_peek(p);
	hs_graph *g = p->s->g;
	char fmt[8];
	region_spec spec;
	query_expr *where = NULL, *heat = NULL;
	char *path = NULL;
	size_t path_pos = 0;
	int64_t *ids = NULL, nids = 0;
	double *heatv = NULL;
	region *r = NULL;
	int rc = -1;

	if (t->kind != TK_WORD || !dot_format_known(t->str) || strlen(t->str) >= sizeof fmt)
		return query_fail_expected(p, "dot, svg or png");
	snprintf(fmt, sizeof fmt, "%s", t->str);
	for (char *c = fmt; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	query_advance(p);
	/* "-o FILE" ends the command: take it first, so that an expression
	 * before it (where ..., heat ...) does not read "-o" as a minus; then
	 * parse the rest as if the line ended there. */
	size_t saved = p->pos;
	size_t opt = find_output_option(p->src, saved, p->n);
	if (opt < p->n) {
		p->pos = opt + 2;
		p->have = 0;
		path = query_raw_word(p, &path_pos);
		if (!path)
			return -1;
		if (!*path)
			return query_fail_at(p, path_pos, "expected a file name after -o at column %zu",
					     path_pos + 1);
		if (query_peek(p)->kind != TK_END)
			return query_fail_expected(p, "end of line after -o FILE");
		p->n = opt;
		p->pos = saved;
		p->have = 0;
	}
	region_spec_init(&spec);
	size_t rpos = query_peek(p)->pos;
	if (query_accept_kw(p, "around")) {
		spec.kind = REGION_AROUND;
		long long v = query_parse_node(p);
		if (v < 0)
			return -1;
		spec.center = v;
		for (;;) {
			if (query_accept_kw(p, "radius") || query_accept_kw(p, "depth")) {
				long long k = query_parse_count(p, "a radius");
				if (k < 0)
					return -1;
				spec.radius = k;
			} else if (query_accept_kw(p, "up")) {
				spec.dir = REGION_OPERANDS;
			} else if (query_accept_kw(p, "down")) {
				spec.dir = REGION_USERS;
			} else if (query_accept_kw(p, "both")) {
				spec.dir = REGION_BOTH;
			} else {
				break;
			}
		}
	} else if (query_accept_kw(p, "path")) {
		spec.kind = REGION_PATH;
		long long a = query_parse_node(p);
		if (a < 0)
			return -1;
		long long b = query_parse_node(p);
		if (b < 0)
			return -1;
		spec.from = a;
		spec.to = b;
	} else if (query_accept_kw(p, "computation")) {
		spec.kind = REGION_COMPUTATION;
		size_t cpos = query_peek(p)->pos;
		long long c = query_parse_count(p, "a computation index");
		if (c < 0)
			return -1;
		if (c >= g->n_comps)
			return query_fail_at(p, cpos, "computation %lld at column %zu is out of range "
					     "(the graph has %lld, 0..%lld)", c, cpos + 1,
					     (long long)g->n_comps, (long long)g->n_comps - 1);
		spec.comp = c;
	} else if (query_accept_kw(p, "configurable")) {
		spec.kind = REGION_CONFIGURABLE;
	} else if (query_accept_kw(p, "where")) {
		spec.kind = REGION_NODES;
		where = query_parse_expr(p);
		if (!where || query_need_bool(p, where, "where") < 0)
			return -1;
	} else {
		return query_fail_expected(p, "a region: around, path, computation, configurable "
					      "or where");
	}
	for (;;) {
		if (p->failed)
			return -1;
		if (query_accept_kw(p, "heat")) {
			heat = query_parse_expr(p);
			if (!heat || query_need_number(p, heat, "heat") < 0)
				return -1;
		} else if (query_accept_kw(p, "force")) {
			spec.force = 1;
		} else if (query_peek(p)->kind == TK_MINUS) {
			size_t mpos = query_peek(p)->pos;
			query_advance(p);
			if (!query_accept_kw(p, "o"))
				return query_fail_at(p, mpos, "unknown option at column %zu (expected -o FILE)",
						     mpos + 1);
			path = query_raw_word(p, &path_pos);
			if (!path)
				return -1;
			if (!*path)
				return query_fail_at(p, path_pos, "expected a file name after -o at column %zu",
						     path_pos + 1);
		} else if (query_peek(p)->kind == TK_END) {
			break;
		} else {
			return query_fail_expected(p, "heat EXPR, force or -o FILE");
		}
	}
	if (!path)
		return query_fail_at(p, p->n, "export needs -o FILE at column %zu", p->n + 1);
	if (where) {
		ids = query_filter_rows(p, where, g->n_nodes, &nids);
		if (!ids)
			return -1;
		if (nids == 0) {
			free(ids);
			return query_fail_at(p, where->pos, "no node matches the condition at column %zu",
					     where->pos + 1);
		}
		spec.ids = ids;
		spec.n_ids = (size_t)nids;
	}
	hs_error e;
	hs_error_clear(&e);
	r = region_select(g, &spec, &e);
	if (!r) {
		if (e.status == HS_EUSAGE)
			query_fail_at(p, rpos, "%s (region at column %zu)", e.msg, rpos + 1);
		else
			query_data_fail(p, &e);
		goto done;
	}
	dot_opts o;
	dot_opts_init(&o);
	if (heat) {
		if (query_prepare(p->s, heat, p->err) < 0) {
			query_data_fail(p, p->err);
			goto done;
		}
		heatv = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *heatv);
		if (!heatv) {
			query_oom(p);
			goto done;
		}
		for (int64_t v = 0; v < g->n_nodes; v++)
			heatv[v] = query_eval_num(p->s, heat, v);
		o.heat = heatv;
		o.heat_name = query_expr_source(p, heat);
	}
	if (dot_export(r, &o, path, fmt, &e) < 0) {
		query_data_fail(p, &e);
		goto done;
	}
	out->kind = QUERY_BLOCK;
	out->text = query_asprintf("wrote %s (%s: %s, %lld nodes, %lld edges)\n", path, fmt, r->title,
				   (long long)r->n_nodes, (long long)r->n_edges);
	rc = out->text ? 0 : query_oom(p);
done:
	region_free(r);
	free(ids);
	free(heatv);
	return rc;
}
