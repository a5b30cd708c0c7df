/* cmd_graph.c - the query commands about the graph's structure: a node's
 * operands (in HLO order, repeats kept) and users, the nodes within K steps
 * (`neighbors`), a dependency path between two nodes (`path`), and the
 * summaries `opcodes` and `fields`.  `show` is in cmd_show.c, the
 * computations, splits and collectives in cmd_comps.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "loader/hlo.h"
#include "query/commands.h"

/* ---- operands and users ---------------------------------------------- */

/* operands ID (in HLO order, repeats kept, with their index) or users ID
 * (each once, in node order). */
static int neighbours_table(query_parser *p, query_result *out, int users)
{
	long long v = query_parse_node(p);
	hs_graph *g = p->s->g;
	query_colspec cols[8];
	double *lead = NULL;

	if (v < 0 || query_expect_end(p, "end of line after the node id") < 0)
		return -1;
	int ncols = query_default_node_cols(p, cols);
	if (ncols < 0)
		return -1;
	const int64_t *idx = users ? query_users(g, v) : query_operands(g, v);
	int64_t n = users ? query_n_users(g, v) : query_n_operands(g, v);
	if (!users) {
		lead = malloc((size_t)(n ? n : 1) * sizeof *lead);
		if (!lead)
			return query_oom(p);
		for (int64_t i = 0; i < n; i++)
			lead[i] = (double)i;
	}
	int rc = query_emit_rows(p, out, QS_NODE, cols, ncols, idx,
				 idx ? n : 0, users ? NULL : "index", lead);
	free(lead);
	if (rc < 0)
		return -1;
	int64_t calls = g->called_off ? graph_n_called(g, v) : 0;
	char extra[160] = "";
	if (!(g->knows & HM_KNOWS_OPERAND_ORDER))
		snprintf(extra, sizeof extra, "; a bare .npz keeps no operand order: these are the "
			 "dataset's edges (sorted, repeats merged, called roots included)");
	else if (!users && calls)
		snprintf(extra, sizeof extra, "; it calls %lld computation%s besides (show %s)",
			 (long long)calls, hs_s(calls), graph_node_name(g, v));
	int named = (g->knows & HM_KNOWS_NAMES) != 0;   /* a derived name says no more */
	out->note = query_asprintf("node %lld%s%s (%s) has %lld %s%s%s", v, named ? " " : "",
				   named ? graph_node_name(g, v) : "", query_opcode_text(p->s, v),
				   (long long)n, users ? "user" : "operand", hs_s(n), extra);
	return 0;
}

int query_cmd_operands(query_parser *p, query_result *out)
{
	return neighbours_table(p, out, 0);
}

int query_cmd_users(query_parser *p, query_result *out)
{
	return neighbours_table(p, out, 1);
}

/* Breadth-first distances from `start` (dir: 1 operands, 2 users, 3 both),
 * up to `depth` steps; dist[] must hold n_nodes entries set to -1.  Returns
 * the visited ids in BFS order (start first) in *order. */
static int64_t bfs(const hs_graph *g, int64_t start, int dir, int64_t depth, int64_t *dist,
		   int64_t *order, int64_t *parent)
{
	int64_t head = 0, tail = 0;

	dist[start] = 0;
	if (parent)
		parent[start] = -1;
	order[tail++] = start;
	while (head < tail) {
		int64_t u = order[head++];
		if (dist[u] >= depth)
			continue;
		for (int side = 0; side < 2; side++) {
			if (!(dir & (side ? 2 : 1)))
				continue;
			const int64_t *idx = side ? query_users(g, u) : query_operands(g, u);
			int64_t n = side ? query_n_users(g, u) : query_n_operands(g, u);
			for (int64_t k = 0; idx && k < n; k++) {
				int64_t w = idx[k];
				if (dist[w] >= 0)
					continue;
				dist[w] = dist[u] + 1;
				if (parent)
					parent[w] = u;
				order[tail++] = w;
			}
		}
	}
	return tail;
}

int query_cmd_neighbors(query_parser *p, query_result *out)
{
	long long v = query_parse_node(p), depth = -1;
	int dir = 0;
	hs_graph *g = p->s->g;
	query_colspec cols[8];
	int rc = -1;

	if (v < 0)
		return -1;
	while (query_peek(p)->kind != TK_END && !p->failed) {
		size_t pos = query_peek(p)->pos;
		if (query_accept_kw(p, "depth") || query_accept_kw(p, "radius")) {
			if (depth >= 0)
				return query_dup_clause(p, pos, "depth");
			depth = query_parse_count(p, "a step count after 'depth'");
			if (depth < 0)
				return -1;
		} else if (query_at_kw(p, "up") || query_at_kw(p, "down") || query_at_kw(p, "both")) {
			if (dir)
				return query_dup_clause(p, pos, "direction");
			dir = query_at_kw(p, "up") ? 1 : query_at_kw(p, "down") ? 2 : 3;
			query_advance(p);
		} else {
			return query_fail_expected(p, "depth K, up, down or both");
		}
	}
	if (p->failed)
		return -1;
	if (depth < 0)
		depth = 1;
	if (!dir)
		dir = 3;
	size_t n = (size_t)g->n_nodes;
	int64_t *dist = malloc(n * sizeof *dist), *order = malloc(n * sizeof *order);
	double *lead = malloc(n * sizeof *lead);
	if (!dist || !order || !lead) {
		query_oom(p);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		dist[i] = -1;
	int64_t k = bfs(g, v, dir, depth, dist, order, NULL);
	/* Drop the start; order by distance, then id. */
	int64_t m = 0;
	for (int64_t d = 1; d <= depth; d++) {
		int64_t from = m;
		for (int64_t i = 1; i < k; i++)
			if (dist[order[i]] == d)
				order[m++] = order[i];
		(void)from;
		if (m == k - 1)
			break;
	}
	/* Within each distance, ascending ids (BFS order follows edges). */
	for (int64_t i = 0; i < m;) {
		int64_t j = i;
		while (j < m && dist[order[j]] == dist[order[i]])
			j++;
		for (int64_t a = i + 1; a < j; a++) {
			int64_t x = order[a], b = a;
			while (b > i && order[b - 1] > x) {
				order[b] = order[b - 1];
				b--;
			}
			order[b] = x;
		}
		i = j;
	}
	for (int64_t i = 0; i < m; i++)
		lead[i] = (double)dist[order[i]];
	int ncols = query_default_node_cols(p, cols);
	if (ncols < 0 || query_emit_rows(p, out, QS_NODE, cols, ncols, order, m, "distance", lead) < 0)
		goto done;
	out->note = query_asprintf("%lld node%s within %lld step%s of node %lld (%s)%s", (long long)m,
				   hs_s(m), depth, hs_s(depth), v,
				   query_opcode_text(p->s, v),
				   dir == 1 ? ", towards operands" : dir == 2 ? ", towards users" : "");
	rc = 0;
done:
	free(dist);
	free(order);
	free(lead);
	return rc;
}

int query_cmd_path(query_parser *p, query_result *out)
{
	long long a = query_parse_node(p), b;
	hs_graph *g = p->s->g;
	query_colspec cols[8];
	int rc = -1;

	if (a < 0)
		return -1;
	b = query_parse_node(p);
	if (b < 0 || query_expect_end(p, "end of line after the two node ids") < 0)
		return -1;
	size_t n = (size_t)g->n_nodes;
	int64_t *dist = malloc(n * sizeof *dist), *order = malloc(n * sizeof *order);
	int64_t *parent = malloc(n * sizeof *parent), *path = malloc(n * sizeof *path);
	double *lead = malloc(n * sizeof *lead);
	int64_t len = 0;
	int feeds = 0; /* 1: a feeds b (a's users lead to b); 2: b feeds a */
	if (!dist || !order || !parent || !path || !lead) {
		query_oom(p);
		goto done;
	}
	for (int pass = 0; pass < 2 && !feeds; pass++) {
		for (size_t i = 0; i < n; i++)
			dist[i] = -1;
		bfs(g, a, pass ? 1 : 2, INT64_MAX, dist, order, parent);
		if (dist[b] >= 0) {
			feeds = pass ? 2 : 1;
			for (int64_t u = b; u >= 0; u = parent[u])
				path[len++] = u;
		}
	}
	/* path holds b .. a; list it from a to b. */
	for (int64_t i = 0; i < len / 2; i++) {
		int64_t t = path[i];
		path[i] = path[len - 1 - i];
		path[len - 1 - i] = t;
	}
	for (int64_t i = 0; i < len; i++)
		lead[i] = (double)i;
	int ncols = query_default_node_cols(p, cols);
	if (ncols < 0 || query_emit_rows(p, out, QS_NODE, cols, ncols, path, len, "step", lead) < 0)
		goto done;
	if (!feeds)
		out->note = query_asprintf("no path: neither %lld nor %lld depends on the other", a, b);
	else if (a == b)
		out->note = query_asprintf("node %lld is its own path", a);
	else
		out->note = query_asprintf("%lld step%s: %lld feeds %lld", (long long)(len - 1),
					   len == 2 ? "" : "s", feeds == 1 ? a : b, feeds == 1 ? b : a);
	rc = 0;
done:
	free(dist);
	free(order);
	free(parent);
	free(path);
	free(lead);
	return rc;
}

/* ---- graph summaries -------------------------------------------------- */

/* The opcodes the dataset never learned (id 0), by the name a module
 * writes: distinct names into names[] (sorted; borrowed from the graph)
 * with their counts; their number, or -1 when out of memory. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int64_t unlearned_opcodes(const query_session *s, const char ***names, int64_t **counts)
{
	const hs_graph *g = s->g;
	int64_t n = 0, k = 0;

	for (int64_t v = 0; v < g->n_nodes; v++)
		n += g->opcode[v] == 0;
	*names = malloc((size_t)(n ? n : 1) * sizeof **names);
	*counts = calloc((size_t)(n ? n : 1), sizeof **counts);
	if (!*names || !*counts) {
		free(*names);
		free(*counts);
		return -1;
	}
	n = 0;
	for (int64_t v = 0; v < g->n_nodes; v++)
		if (g->opcode[v] == 0)
			(*names)[n++] = query_opcode_text(s, v);
	qsort(*names, (size_t)n, sizeof **names, cmp_str);
	for (int64_t i = 0; i < n; i++) {
		if (k && strcmp((*names)[k - 1], (*names)[i]) == 0) {
			(*counts)[k - 1]++;
			continue;
		}
		(*names)[k] = (*names)[i];
		(*counts)[k++] = 1;
	}
	return k;
}

/* One row of `opcodes`. */
static int opcode_row(query_parser *p, query_tb *b, int op, const char *name, int64_t count)
{
	const hs_graph *g = p->s->g;
	int64_t row = query_tb_row(b, -1, -1, p->err);

	if (row < 0 || query_tb_text(b, row, 1, name, p->err) < 0 ||
	    query_tb_text(b, row, 2, hlo_category_name(hlo_opcode_category(op)), p->err) < 0)
		return -1;
	query_tb_num(b, row, 0, op);
	query_tb_num(b, row, 3, (double)count);
	query_tb_num(b, row, 4, g->n_nodes ? (double)count / (double)g->n_nodes : NAN);
	return 0;
}

int query_cmd_opcodes(query_parser *p, query_result *out)
{
	hs_graph *g = p->s->g;
	int all = query_accept_kw(p, "all");
	int64_t counts[256] = {0};
	static const char *const names[] = {"opcode_id", "opcode", "category", "nodes", "share"};
	query_type types[5] = {QUERY_NUM, QUERY_TEXT, QUERY_TEXT, QUERY_NUM, QUERY_NUM};
	query_tb b;
	int64_t present = 0, nu = 0;
	const char **unames = NULL;
	int64_t *ucounts = NULL;

	if (query_expect_end(p, "'all' or end of line") < 0)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++)
		counts[g->opcode[v]]++;
	if (counts[0] && (nu = unlearned_opcodes(p->s, &unames, &ucounts)) < 0)
		return query_oom(p);
	if (query_tb_init(&b, out, 5, names, types, p->err) < 0)
		goto fail;
	for (int op = 0; op < 256; op++) {
		if (!counts[op] && !(all && op <= HLO_MAX_OPCODE))
			continue;
		if (op == 0 && nu > 0) { /* not learned: each name as written */
			for (int64_t i = 0; i < nu; i++)
				if (opcode_row(p, &b, 0, unames[i], ucounts[i]) < 0)
					goto fail;
			present += nu;
			continue;
		}
		present += counts[op] > 0;
		if (opcode_row(p, &b, op, p->s->opcode_names[op], counts[op]) < 0)
			goto fail;
	}
	query_tb_done(&b);
	free(unames);
	free(ucounts);
	out->note = query_asprintf("%lld opcode%s in %lld node%s", (long long)present, hs_s(present),
				   (long long)g->n_nodes, hs_s(g->n_nodes));
	return 0;
fail:
	query_tb_done(&b);
	free(unames);
	free(ucounts);
	return query_data_fail(p, p->err);
}

int query_cmd_fields(query_parser *p, query_result *out)
{
	const char *pat = NULL;
	static const char *const names[] = {"field", "scope", "type", "group", "description"};
	query_type types[5] = {QUERY_TEXT, QUERY_TEXT, QUERY_TEXT, QUERY_TEXT, QUERY_TEXT};
	query_tb b;
	query_session *s = p->s;
	int w = s->g->feat_width;
	int64_t n = 0;

	if (query_peek(p)->kind != TK_END) {
		pat = query_raw_word(p, NULL);
		if (!pat)
			return -1;
	}
	if (query_expect_end(p, "one word or end of line") < 0)
		return -1;
	if (query_tb_init(&b, out, 5, names, types, p->err) < 0)
		goto fail;
	for (int scope = 0; scope < 2; scope++) {
		size_t nf = scope ? s->n_config_fields : s->n_node_fields;
		const query_field *f = scope ? s->config_fields : s->node_fields;
		for (size_t i = 0; i < nf; i++) {
			if (pat && !strcasestr(f[i].name, pat))
				continue;
			const char *group = "derived";
			if (f[i].kind == QF_FEATURE)
				group = hlo_group_name(hlo_node_feature_group(f[i].index, w));
			else if (f[i].kind == QF_CONFIG_FEATURE)
				group = "config";
			int64_t row = query_tb_row(&b, -1, -1, p->err);
			if (row < 0 || query_tb_text(&b, row, 0, f[i].name, p->err) < 0 ||
			    query_tb_text(&b, row, 1, scope ? "config" : "node", p->err) < 0 ||
			    query_tb_text(&b, row, 2, f[i].type == QUERY_NUM ? "number" : "text",
					  p->err) < 0 ||
			    query_tb_text(&b, row, 3, group, p->err) < 0 ||
			    query_tb_text(&b, row, 4, f[i].help ? f[i].help : "", p->err) < 0)
				goto fail;
			n++;
		}
	}
	query_tb_done(&b);
	out->note = query_asprintf("%lld field%s", (long long)n, hs_s(n));
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}
