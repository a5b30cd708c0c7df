/* cmd_graph.c - the query commands about the graph's structure: one node in
 * detail (`show`), its operands and users, the nodes within K steps
 * (`neighbors`), a dependency path between two nodes (`path`), and the
 * summaries `computations`, `opcodes` and `fields`.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "loader/hlo.h"
#include "query/commands.h"

/* ---- one node --------------------------------------------------------- */


static void list_nodes(query_parser *p, query_buf *b, const int64_t *idx, int64_t n)
{
	const int64_t max = 12;

	const hs_graph *g = p->s->g;

	query_bprintf(b, "%lld", (long long)n);
	for (int64_t i = 0; i < n && i < max; i++)
		query_bprintf(b, "%s%lld %s", i ? ", " : ": ", (long long)idx[i],
			      g->module ? graph_node_name(g, idx[i], NULL, 0)
					: query_opcode_text(p->s, idx[i]));
	if (n > max)
		query_bprintf(b, ", ... (%lld more)", (long long)(n - max));
	query_bprintf(b, "\n");
}

/* The node's HLO context: its computation, what it calls, its metadata
 * (lines only for what it has). */
static void show_hlo(query_session *s, query_buf *b, int64_t v)
{
	static const struct {
		int f;
		const char *label;
	} meta[] = {
		{HS_HF_FUSION_KIND, "fusion_kind"}, {HS_HF_CUSTOM_CALL_TARGET, "target"},
		{HS_HF_OP_TYPE, "op_type"}, {HS_HF_OP_NAME, "op_name"},
		{HS_HF_SOURCE_FILE, "source"}, {HS_HF_SHARDING, "sharding"},
	};
	const hs_graph *g = s->g;
	char buf[160];

	if (!g->hcomp_of)
		return;
	const hs_hcomp *c = &g->hcomps[g->hcomp_of[v]];
	query_bprintf(b, "  within        %s (%s, %lld nodes)\n", query_htext(s, HS_HF_COMPUTATION, v),
		      graph_role_name(c->role), (long long)c->count);
	for (int64_t i = g->called_off[v]; i < g->called_off[v + 1]; i++) {
		const hs_hcomp *k = &g->hcomps[g->called_idx[i]];
		query_bprintf(b, "  calls         %s (%s, %lld nodes)\n",
			      graph_hcomp_name(g, g->called_idx[i], buf, sizeof buf),
			      graph_role_name(k->role), (long long)k->count);
	}
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
		const char *t = query_htext(s, meta[i].f, v);
		if (!*t)
			continue;
		query_bprintf(b, "  %-12s  %s", meta[i].label, t);
		if (meta[i].f == HS_HF_SOURCE_FILE && *query_htext(s, HS_HF_SOURCE_LINE, v))
			query_bprintf(b, ":%s", query_htext(s, HS_HF_SOURCE_LINE, v));
		query_bprintf(b, "\n");
	}
}

int query_cmd_show(query_parser *p, query_result *out)
{
	long long v = query_parse_node(p);
	query_session *s = p->s;
	hs_graph *g = s->g;
	query_buf b = {0};
	char num[64];

	if (v < 0 || query_expect_end(p, "end of line after the node id") < 0)
		return -1;
	if (query_need_cost(s, p->err) < 0)
		return query_data_fail(p, p->err);
	int op = g->opcode[v];
	int comp = g->comp_of ? g->comp_of[v] : 0;
	query_bprintf(&b, "node %lld %s: %s (%s)\n", v, query_htext(s, HS_HF_NAME, v),
		      query_opcode_text(s, v), hlo_category_name(hlo_opcode_category(op)));
	query_bprintf(&b, "  shape         %s\n", query_shape_text(s, v));
	show_hlo(s, &b, v);
	if (g->comp_start && comp >= 0 && comp < g->n_comps)
		query_bprintf(&b, "  computation   %d of %lld (nodes %lld..%lld)\n", comp,
			      (long long)g->n_comps, (long long)g->comp_start[comp],
			      (long long)g->comp_start[comp + 1] - 1);
	query_bprintf(&b, "  operands      ");
	list_nodes(p, &b, g->operand_idx + g->operand_off[v], graph_n_operands(g, v));
	query_bprintf(&b, "  users         ");
	list_nodes(p, &b, g->user_idx + g->user_off[v], graph_n_users(g, v));
	if (g->kind == HS_KIND_LAYOUT) {
		if (g->cfg_index && g->cfg_index[v] >= 0)
			query_bprintf(&b, "  configurable  yes (row %d of %lld in node_config_ids)\n",
				      g->cfg_index[v], (long long)g->n_cfg_nodes);
		else
			query_bprintf(&b, "  configurable  no\n");
	}
	const cost_estimate *c = &s->cost[v];
	query_fmt_short(c->seconds, num, sizeof num);
	query_bprintf(&b, "  cost          %s s", num);
	query_fmt_short(c->flops, num, sizeof num);
	query_bprintf(&b, " (flops %s", num);
	query_fmt_short(c->bytes, num, sizeof num);
	query_bprintf(&b, ", bytes %s; analytic)\n", num);

	/* Features that are not zero, by group, in feature order. */
	const float *f = graph_feat(g, v);
	int w = g->feat_width, nz = 0, width = 0;
	for (int i = 0; i < w; i++) {
		if (f[i] == 0)
			continue;
		nz++;
		int len = (int)strlen(hlo_node_feature_name(i, w));
		if (len > width)
			width = len;
	}
	query_bprintf(&b, "features that are not zero: %d of %d\n", nz, w);
	for (int grp = 0; grp < HLO_NGROUPS; grp++) {
		int header = 0;
		for (int i = 0; i < w; i++) {
			if (f[i] == 0 || (int)hlo_node_feature_group(i, w) != grp)
				continue;
			if (!header) {
				query_bprintf(&b, "  %s\n", hlo_group_name((hlo_group)grp));
				header = 1;
			}
			query_fmt_exact((double)f[i], num, sizeof num);
			query_bprintf(&b, "    %-*s  %s\n", width, hlo_node_feature_name(i, w), num);
		}
	}
	if (b.oom) {
		free(b.s);
		return query_oom(p);
	}
	out->kind = QUERY_BLOCK;
	out->text = b.s ? b.s : strdup("");
	return out->text ? 0 : query_oom(p);
}

static int neighbours_table(query_parser *p, query_result *out, int users)
{
	long long v = query_parse_node(p);
	hs_graph *g = p->s->g;
	query_colspec cols[8];

	if (v < 0 || query_expect_end(p, "end of line after the node id") < 0)
		return -1;
	int ncols = query_default_node_cols(p, cols);
	if (ncols < 0)
		return -1;
	const int64_t *idx = users ? g->user_idx + g->user_off[v] : g->operand_idx + g->operand_off[v];
	int64_t n = users ? graph_n_users(g, v) : graph_n_operands(g, v);
	if (query_emit_rows(p, out, QS_NODE, cols, ncols, idx, n, NULL, NULL) < 0)
		return -1;
	out->note = query_asprintf("node %lld%s%s (%s) has %lld %s%s", v, g->module ? " " : "",
				   g->module ? graph_node_name(g, v, NULL, 0) : "", query_opcode_text(p->s, v),
				   (long long)n, users ? "user" : "operand", hs_s(n));
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
			const int64_t *idx = side ? g->user_idx : g->operand_idx;
			const int64_t *off = side ? g->user_off : g->operand_off;
			for (int64_t k = off[u]; k < off[u + 1]; k++) {
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
				   p->s->opcode_names[g->opcode[v]],
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

int query_cmd_computations(query_parser *p, query_result *out)
{
	hs_graph *g = p->s->g;
	static const char *const names[] = {"computation", "first", "last", "nodes",
					    "configurable", "cost"};
	query_type types[6] = {QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM};
	query_tb b;

	if (query_expect_end(p, "end of line") < 0)
		return -1;
	if (query_need_cost(p->s, p->err) < 0)
		return query_data_fail(p, p->err);
	if (query_tb_init(&b, out, 6, names, types, p->err) < 0)
		goto fail;
	for (int64_t c = 0; c < g->n_comps; c++) {
		int64_t first = g->comp_start[c], last = g->comp_start[c + 1];
		int64_t cfg = 0;
		double cost = 0;
		for (int64_t v = first; v < last; v++) {
			cfg += g->kind == HS_KIND_LAYOUT && g->cfg_index && g->cfg_index[v] >= 0;
			cost += p->s->cost[v].seconds;
		}
		int64_t row = query_tb_row(&b, last > first ? first : -1, -1, p->err);
		if (row < 0)
			goto fail;
		query_tb_num(&b, row, 0, (double)c);
		query_tb_num(&b, row, 1, (double)first);
		query_tb_num(&b, row, 2, (double)(last - 1));
		query_tb_num(&b, row, 3, (double)(last - first));
		query_tb_num(&b, row, 4, (double)cfg);
		query_tb_num(&b, row, 5, cost);
	}
	query_tb_done(&b);
	out->note = query_asprintf("%lld computation%s, %lld node%s", (long long)g->n_comps,
				   hs_s(g->n_comps), (long long)g->n_nodes, hs_s(g->n_nodes));
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

int query_cmd_opcodes(query_parser *p, query_result *out)
{
	hs_graph *g = p->s->g;
	int all = query_accept_kw(p, "all");
	int64_t counts[256] = {0};
	static const char *const names[] = {"opcode_id", "opcode", "category", "nodes", "share"};
	query_type types[5] = {QUERY_NUM, QUERY_TEXT, QUERY_TEXT, QUERY_NUM, QUERY_NUM};
	query_tb b;
	int present = 0;

	if (query_expect_end(p, "'all' or end of line") < 0)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++)
		counts[g->opcode[v]]++;
	if (query_tb_init(&b, out, 5, names, types, p->err) < 0)
		goto fail;
	for (int op = 0; op < 256; op++) {
		if (!counts[op] && !(all && op <= HLO_MAX_OPCODE))
			continue;
		present += counts[op] > 0;
		int64_t row = query_tb_row(&b, -1, -1, p->err);
		if (row < 0 || query_tb_text(&b, row, 1, p->s->opcode_names[op], p->err) < 0 ||
		    query_tb_text(&b, row, 2, hlo_category_name(hlo_opcode_category(op)), p->err) < 0)
			goto fail;
		query_tb_num(&b, row, 0, op);
		query_tb_num(&b, row, 3, (double)counts[op]);
		query_tb_num(&b, row, 4, g->n_nodes ? (double)counts[op] / (double)g->n_nodes : NAN);
	}
	query_tb_done(&b);
	out->note = query_asprintf("%d opcode%s in %lld node%s", present, hs_s(present),
				   (long long)g->n_nodes, hs_s(g->n_nodes));
	return 0;
fail:
	query_tb_done(&b);
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
