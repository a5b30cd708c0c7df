/* nodes.c - nodes named in a command: by id or by instruction name
 * (`show dot.42`, `path 'Arg_0.5' add.7.0`), and the did-you-mean of an
 * unknown name (query_suggest_node, also used by the explorer and dot).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "query/query_impl.h"

const char *query_suggest_node(const hs_graph *g, const char *name, char *buf, size_t cap)
{
	const char *dot = strrchr(name, '.');

	if (!(g->knows & HM_KNOWS_NAMES)) {   /* "opcode.N": N names the node */
		char *end;
		long long v = dot ? strtoll(dot + 1, &end, 10) : -1;
		if (!dot || *end || v < 0 || v >= g->n_nodes)
			return NULL;
		return graph_node_name(g, v);
	}
	const char **names = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *names);
	if (!names)
		return NULL;
	for (int64_t v = 0; v < g->n_nodes; v++)
		names[v] = graph_node_name(g, v);
	const char *best = query_suggest(name, names, (size_t)g->n_nodes);
	if (best && cap) {
		snprintf(buf, cap, "%s", best);
		best = buf;
	}
	free(names);
	return best;
}

static int is_name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

/* A node by its name: a quoted string, or a word running on over '.' and
 * '-' ("get-tuple-element.12", "%dot.42"). */
static long long parse_node_name(query_parser *p)
{
	const query_token *t = query_peek(p);
	size_t pos = t->pos;
	const char *name;

	if (t->kind == TK_STR) {
		name = t->str;
		query_advance(p);
	} else {
		size_t e = pos + (p->src[pos] == '%');
		while (e < p->n && is_name_char((unsigned char)p->src[e]))
			e++;
		name = hs_arena_strndup(&p->arena, p->src + pos, e - pos);
		if (!name)
			return query_fail_oom(p, "reading a node name");
		p->pos = e;
		p->have = 0;
	}
	if (*name == '%')
		name++;
	int64_t v = graph_find_node(p->s->g, name);
	if (v >= 0)
		return v;
	char buf[160];
	const char *sug = query_suggest_node(p->s->g, name, buf, sizeof buf);
	if (sug)
		return query_fail_at(p, pos, "no node named '%s' at column %zu (did you mean '%s'?)",
				     name, pos + 1, sug);
	return query_fail_at(p, pos, "no node named '%s' at column %zu", name, pos + 1);
}

long long query_parse_node(query_parser *p)
{
	const query_token *t = query_peek(p);
	size_t pos = t->pos;

	if (!p->failed && (t->kind == TK_WORD || t->kind == TK_STR ||
			   (t->kind == TK_PCT && t->pos + 1 < p->n &&
			    is_name_char((unsigned char)p->src[t->pos + 1]))))
		return parse_node_name(p);
	long long v = query_parse_count(p, "a node id or name");
	int64_t n = p->s->g->n_nodes;

	if (v < 0)
		return -1;
	if (v >= n) {
		query_fail_at(p, pos, "node %lld at column %zu is out of range (the graph has %lld "
			      "node%s, 0..%lld)", v, pos + 1, (long long)n, hs_s(n), (long long)n - 1);
		return -1;
	}
	return v;
}
