/* graph_collective.c - what a collective instruction exchanges: its replica
 * groups, channel and bytes per device, read from the module (see
 * graph.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "graph.h"
#include "hlo_module.h"

int graph_is_collective_opcode(const char *op)
{
	static const char *const names[] = {
		"all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
		"all-to-all", "all-to-all-start", "ragged-all-to-all", "collective-permute",
		"collective-permute-start",
		"collective-broadcast", NULL};
	for (const char *const *n = names; *n; n++)
		if (strcmp(op, *n) == 0)
			return 1;
	return 0;
}

/* Reads "{{0,1},{2,3}}" (explicit groups) or "[G,S]<=[N]..." (iota
 * groups: G groups of S devices). */
static void group_sizes(const char *t, int64_t *groups, int64_t *size)
{
	*groups = *size = 0;
	while (isspace((unsigned char)*t))
		t++;
	if (*t == '[') {
		char *end;
		long long g = strtoll(t + 1, &end, 10);
		if (*end == ',') {
			long long s = strtoll(end + 1, &end, 10);
			if (*end == ']' && g > 0 && s > 0) {
				*groups = g;
				*size = s;
			}
		} else if (*end == ']' && g > 0) {       /* [N]<=[N]: one group */
			*groups = 1;
			*size = g;
		}
		return;
	}
	if (*t != '{')
		return;
	/* explicit: count the inner groups and the largest one's members */
	int depth = 0;
	int64_t members = 0;
	for (const char *p = t; *p; p++) {
		if (*p == '{') {
			if (++depth == 2)
				members = 0;
		} else if (*p == '}') {
			if (depth == 2) {
				(*groups)++;
				if (members > *size)
					*size = members;
			}
			if (--depth == 0)
				break;
		} else if (depth == 2 && isdigit((unsigned char)*p) &&
			   (p[-1] == '{' || p[-1] == ',' || p[-1] == ' ')) {
			members++;
		}
	}
}

int graph_collective(const hs_graph *g, int64_t v, hs_collective *out)
{
	memset(out, 0, sizeof *out);
	out->channel_id = -1;
	const hm_instr *in = graph_node_instr(g, v);
	if (!in || !(g->knows & HM_KNOWS_ATTRS) || !graph_is_collective_opcode(in->opcode))
		return 0;   /* a bare .npz keeps no groups, channels or operand order */
	hs_strbuf b = {0};
	out->devices = strncmp(in->opcode, "collective-permute", 18) ? "replica_groups" : "source_target_pairs";
	if (graph_node_attr(g, v, out->devices, &b) == 1) {
		group_sizes(hs_strbuf_str(&b), &out->n_groups, &out->group_size);
		if (out->devices[0] == 's') { /* {{0,1},{1,2}}: pairs, not groups */
			out->n_pairs = out->n_groups;
			out->n_groups = out->group_size = 0;
		}
	}
	hs_strbuf_reset(&b);
	if (graph_node_attr(g, v, "channel_id", &b) == 1)
		out->channel_id = strtoll(hs_strbuf_str(&b), NULL, 10);
	hs_strbuf_free(&b);
	for (int i = 0; i < in->n_operands; i++) {
		const hm_instr *op = hm_find_instr(g->module, in->operand_ids[i]);
		if (op)
			out->bytes += hm_shape_bytes(op->shape);
	}
	return 1;
}
