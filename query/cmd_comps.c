/* cmd_comps.c - the query commands about a module's parts: its HLO
 * computations (`computations`: role, size, root, callers, cost), the
 * dataset's node_splits segments (`splits`) and the collectives
 * (`collectives`: replica groups as written, group size, channel, bytes per
 * device).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "loader/hlo.h"
#include "query/commands.h"

/* ---- computations --------------------------------------------------------- */

/* "entry 1, fusion 358, reducer 114": the computations by role. */
static void role_counts(const hs_graph *g, char *buf, size_t cap)
{
	int64_t n[HS_NROLES] = {0};
	size_t at = 0;

	buf[0] = '\0';
	for (int64_t c = 0; c < g->n_hcomps; c++)
		n[g->hcomps[c].role]++;
	for (int r = 0; r < HS_NROLES && at < cap; r++)
		if (n[r])
			at += (size_t)snprintf(buf + at, cap - at, "%s%s %lld", at ? ", " : "",
					       graph_role_name((hs_role)r), (long long)n[r]);
}

/* The sum of numeric data field d over computation c's nodes (NaN when
 * none has a value). */
static double data_sum(const query_session *s, int d, const hs_hcomp *hc)
{
	const double *val;
	double sum = NAN;
	query_session_data_num(s, d, &val);
	for (int64_t v = hc->first; v < hc->first + hc->count; v++)
		if (!isnan(val[v]))
			sum = isnan(sum) ? val[v] : sum + val[v];
	return sum;
}

int query_cmd_computations(query_parser *p, query_result *out)
{
	query_session *s = p->s;
	hs_graph *g = s->g;
	enum { NC = 6, MAXD = 64 };
	const char *names[NC + MAXD] = {"computation", "role", "nodes", "root", "callers", "cost"};
	query_type types[NC + MAXD] = {QUERY_TEXT, QUERY_TEXT, QUERY_NUM, QUERY_TEXT, QUERY_NUM, QUERY_NUM};
	int nd = query_session_data_nums(s);
	query_tb b;
	int64_t unknown = 0;
	char roles[256];

	if (query_expect_end(p, "end of line") < 0)
		return -1;
	if (query_need_cost(s, p->err) < 0)
		return query_data_fail(p, p->err);
	nd = nd < MAXD ? nd : MAXD;
	for (int d = 0; d < nd; d++) { /* the data's numbers, summed per computation */
		const double *val;
		names[NC + d] = query_session_data_num(s, d, &val);
		types[NC + d] = QUERY_NUM;
	}
	if (query_tb_init(&b, out, NC + nd, names, types, p->err) < 0)
		goto fail;
	query_tb_unit(&b, 5, HS_U_SECONDS);
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		const hs_hcomp *hc = &g->hcomps[c];
		double cost = 0;
		for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
			if (s->cost[v].unknown)
				unknown++;
			else
				cost += s->cost[v].seconds;
		}
		int64_t row = query_tb_row(&b, hc->root, -1, p->err);
		if (row < 0 || query_tb_text(&b, row, 0, graph_hcomp_name(g, c), p->err) < 0 ||
		    query_tb_text(&b, row, 1, graph_role_name(hc->role), p->err) < 0 ||
		    query_tb_text(&b, row, 3, query_htext(s, HS_HF_NAME, hc->root), p->err) < 0)
			goto fail;
		query_tb_num(&b, row, 2, (double)hc->count);
		query_tb_num(&b, row, 4, (double)hc->n_callers);
		query_tb_num(&b, row, 5, cost);
		for (int d = 0; d < nd; d++)
			query_tb_num(&b, row, NC + d, data_sum(s, d, hc));
	}
	query_tb_done(&b);
	role_counts(g, roles, sizeof roles);
	char extra[96] = "";
	if (unknown)
		snprintf(extra, sizeof extra, "; %lld node%s of unknown cost left out of the sums",
			 (long long)unknown, hs_s(unknown));
	out->note = query_asprintf("%lld computation%s (%s), %lld node%s%s%s", (long long)g->n_hcomps,
				   hs_s(g->n_hcomps), roles, (long long)g->n_nodes, hs_s(g->n_nodes),
				   g->knows & HM_KNOWS_NAMES ? "" : "; derived from the .npz (no names)", extra);
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

/* ---- node_splits segments -------------------------------------------------- */

int query_cmd_splits(query_parser *p, query_result *out)
{
	hs_graph *g = p->s->g;
	static const char *const names[] = {"split", "first", "last", "nodes", "configurable", "cost"};
	query_type types[6] = {QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM};
	query_tb b;

	if (query_expect_end(p, "end of line") < 0)
		return -1;
	if (query_need_cost(p->s, p->err) < 0)
		return query_data_fail(p, p->err);
	if (query_tb_init(&b, out, 6, names, types, p->err) < 0)
		goto fail;
	query_tb_unit(&b, 5, HS_U_SECONDS);
	for (int64_t c = 0; c < g->n_comps; c++) {
		int64_t first = g->comp_start[c], last = g->comp_start[c + 1];
		int64_t cfg = 0;
		double cost = 0;
		for (int64_t v = first; v < last; v++) {
			cfg += g->kind != HS_KIND_TILE && g->cfg_index && g->cfg_index[v] >= 0;
			if (!p->s->cost[v].unknown)
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
	out->note = query_asprintf("%lld split%s, %lld node%s", (long long)g->n_comps, hs_s(g->n_comps),
				   (long long)g->n_nodes, hs_s(g->n_nodes));
	return 0;
fail:
	query_tb_done(&b);
	return query_data_fail(p, p->err);
}

/* ---- collectives ----------------------------------------------------------- */

enum { CC_ID, CC_NAME, CC_OPCODE, CC_GROUPS_TEXT, CC_PAIRS_TEXT, CC_GROUPS, CC_SIZE, CC_PAIRS, CC_CHANNEL,
       CC_BYTES, CC_SHAPE, CC_N };

/* One collective's row; on a bare .npz (no attributes) only what the
 * arrays say. */
static int collective_row(query_parser *p, query_tb *b, int64_t v)
{
	query_session *s = p->s;
	hs_collective c;
	int known = graph_collective(s->g, v, &c);
	int64_t row = query_tb_row(b, v, -1, p->err);

	if (row < 0 || query_tb_text(b, row, CC_NAME, query_htext(s, HS_HF_NAME, v), p->err) < 0 ||
	    query_tb_text(b, row, CC_OPCODE, query_opcode_text(s, v), p->err) < 0 ||
	    query_tb_text(b, row, CC_GROUPS_TEXT, query_attr_text(s, "replica_groups", v), p->err) < 0 ||
	    query_tb_text(b, row, CC_PAIRS_TEXT, query_attr_text(s, "source_target_pairs", v), p->err) < 0 ||
	    query_tb_text(b, row, CC_SHAPE, query_session_shape(s, v), p->err) < 0)
		return -1;
	query_tb_num(b, row, CC_ID, (double)v);
	query_tb_num(b, row, CC_GROUPS, known && c.n_groups > 0 ? (double)c.n_groups : NAN);
	query_tb_num(b, row, CC_SIZE, known && c.n_groups > 0 ? (double)c.group_size : NAN);
	query_tb_num(b, row, CC_PAIRS, known && c.n_pairs > 0 ? (double)c.n_pairs : NAN);
	query_tb_num(b, row, CC_CHANNEL, known && c.channel_id >= 0 ? (double)c.channel_id : NAN);
	query_tb_num(b, row, CC_BYTES, known ? c.bytes : NAN);
	return 0;
}

/* The collectives among ids[0..n) (kept in place); their count. */
static int64_t keep_collectives(query_session *s, int64_t *ids, int64_t n)
{
	int64_t k = 0;

	for (int64_t i = 0; i < n; i++)
		if (graph_is_collective_opcode(query_opcode_text(s, ids[i])))
			ids[k++] = ids[i];
	return k;
}

/* "all-reduce 2, all-gather 1" for the opcodes of ids[0..n), in the order
 * they first come. */
static void opcode_counts(query_session *s, const int64_t *ids, int64_t n, hs_strbuf *out)
{
	for (int64_t i = 0; i < n; i++) {
		const char *op = query_opcode_text(s, ids[i]);
		int64_t j = 0, count = 0;
		while (j < i && strcmp(query_opcode_text(s, ids[j]), op) != 0)
			j++;
		if (j < i)
			continue; /* counted at its first */
		for (j = i; j < n; j++)
			count += strcmp(query_opcode_text(s, ids[j]), op) == 0;
		hs_strbuf_printf(out, "%s%s %lld", out->len ? ", " : "", op, (long long)count);
	}
}

int query_cmd_collectives(query_parser *p, query_result *out)
{
	static const char *const names[CC_N] = {"id", "name", "opcode", "replica_groups", "source_target_pairs",
						"groups", "group_size", "pairs", "channel_id", "bytes", "shape"};
	static const query_type types[CC_N] = {QUERY_NUM, QUERY_TEXT, QUERY_TEXT, QUERY_TEXT, QUERY_TEXT,
					       QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_NUM, QUERY_TEXT};
	query_session *s = p->s;
	const hs_graph *g = s->g;
	query_clauses *c = calloc(1, sizeof *c);
	int64_t n = 0, *ids = NULL;
	hs_strbuf ops = {0};
	query_tb b;
	int rc = -1;

	if (!c)
		return query_oom(p);
	if (query_parse_clauses(p, c, 0, "where, sort by, limit or end of line") < 0)
		goto done;
	ids = query_filter_rows(p, c->where, g->n_nodes, &n);
	if (!ids)
		goto done;
	n = keep_collectives(s, ids, n);
	if (c->sort && query_sort_ids(p, ids, n, c->sort, c->desc) < 0)
		goto done;
	int64_t shown = c->limit >= 0 && c->limit < n ? c->limit : n;
	if (query_tb_init(&b, out, CC_N, names, types, p->err) < 0) {
		query_data_fail(p, p->err);
		goto done;
	}
	for (int64_t i = 0; i < shown; i++)
		if (collective_row(p, &b, ids[i]) < 0) {
			query_tb_done(&b);
			query_data_fail(p, p->err);
			goto done;
		}
	query_tb_done(&b);
	opcode_counts(s, ids, n, &ops);
	char tail[48] = "";
	if (shown < n)
		snprintf(tail, sizeof tail, ", first %lld shown", (long long)shown);
	out->note = query_asprintf("%lld collective%s%s%s%s%s%s", (long long)n, hs_s(n),
				   n ? " (" : "", hs_strbuf_str(&ops), n ? ")" : "", tail,
				   g->knows & HM_KNOWS_ATTRS || !n ? ""
						   : "; a bare .npz keeps no attributes: replica groups, "
						     "channels and sizes are unknown");
	rc = ops.failed || !out->note ? query_oom(p) : 0;
done:
	hs_strbuf_free(&ops);
	free(ids);
	free(c);
	return rc;
}
