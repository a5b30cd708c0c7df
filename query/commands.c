/* commands.c - the command table of the query language and what reads it.
 *
 * One table (commands[] below) holds every command: its name, argument
 * syntax, summary, help text, the function that parses and runs it and the
 * keywords it takes.  query_exec() dispatches through it, `help` prints it
 * and query_complete() completes from it, so the three cannot drift.  The
 * commands themselves live in cmd_*.c (see commands.h); the front-end
 * commands (open, format, quit) that only hand an action back are here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strbuf.h"
#include "loader/hlo.h"
#include "query/commands.h"

struct command {
	const char *name;
	const char *args;    /* syntax after the name */
	const char *summary;
	const char *help;    /* details and examples, lines ending in '\n' */
	query_cmd_fn run;
	const char *words;   /* keywords for completion, space-separated */
	int scope;           /* fields completed after it */
	int one_graph;       /* about one graph's nodes or configs: not on a folder */
};

static int cmd_open(query_parser *p, query_result *out);
static int cmd_format(query_parser *p, query_result *out);
static int cmd_help(query_parser *p, query_result *out);
static int cmd_quit(query_parser *p, query_result *out);

static const struct command commands[] = {
	{"nodes", "[where EXPR] [sort by EXPR [asc|desc]] [limit N] [show EXPR, ...]",
	 "list the nodes that match, as a table",
	 "Clauses may come in any order.  Without `show`, the columns are id, (name,)\n"
	 "opcode, shape, (split when there are several,) operands, users, plus the\n"
	 "sort key.  `show *` shows every field.  Sorting is stable: ties stay in id\n"
	 "order; missing values sort last.\n"
	 "  nodes where opcode = convolution and rank >= 4\n"
	 "  nodes where shape ~ \"^bf16\" sort by shape_dimensions_product desc limit 10\n"
	 "  nodes where users > 8 show id, opcode, users, cost * 1e6\n"
	 "  nodes where attr('replica_groups') != '' show name, attr('replica_groups')\n"
	 "  nodes where computation_role = entry sort by cost desc limit 5\n",
	 query_cmd_nodes, "where sort by asc desc limit show and or not in", QS_NODE, 0},
	{"count", "by EXPR [where EXPR] [limit N]",
	 "how many nodes have each value (value, count, share)",
	 "Rows are sorted by count, largest first, then by value.  share is the\n"
	 "fraction of the counted nodes (those matching `where`).  With config\n"
	 "fields (runtime, predicted, ...) it counts configs instead.\n"
	 "  count by opcode\n"
	 "  count by elem where configurable\n"
	 "  count by rank where category = convolution\n",
	 query_cmd_count, "by where limit and or not in", QS_NODE, 0},
	{"stats", "EXPR[, EXPR...] [where EXPR]",
	 "count, min, max, mean, sum and quantiles of numbers",
	 "One row per expression: count (values that are not missing), min, max,\n"
	 "mean, sum, and the 25/50/75/90/99th percentiles (linear interpolation, as\n"
	 "numpy.percentile does).  With config fields it works on configs.\n"
	 "  stats shape_dimensions_product, users where opcode = fusion\n"
	 "  stats cost where configurable\n"
	 "  stats runtime, predicted where runtime_rank <= 10\n",
	 query_cmd_stats, "where and or not in", QS_NODE, 0},
	{"show", "ID|NAME", "one node in detail: shape, HLO context, neighbours, cost, HLO line, features",
	 "A node is named by its id or its instruction name (dot.42, or quoted);\n"
	 "on a bare .npz names are derived: opcode.id (convolution.603).  The HLO\n"
	 "context is the computation holding the node (name, role, size), what it\n"
	 "calls, for a parameter of a called computation the operand each caller\n"
	 "passes it, for a computation's root the callers it answers, and its\n"
	 "metadata (op_type, op_name, source file and line, ...).  Then operands in\n"
	 "HLO order, users, the analytic cost (or why it is unknown), the\n"
	 "instruction's HLO line and its attributes as written, and the features\n"
	 "that are not zero.\n"
	 "  show 17\n  show dot.42\n", query_cmd_show, "", QS_NODE, 1},
	{"operands", "ID|NAME", "the operands (inputs) of a node, in HLO order, with their index",
	 "In the instruction's order; a repeated operand (multiply(x, x)) is listed\n"
	 "each time.  Called computations are not operands (show lists them).  On a\n"
	 "bare .npz, which keeps no operand order, they are the dataset's edges:\n"
	 "sorted by id, repeats merged, a called computation's root included.\n"
	 "  operands 17\n  operands fusion.3\n", query_cmd_operands, "", QS_NODE, 1},
	{"users", "ID|NAME", "the users (consumers) of a node: the nodes that have it as an operand",
	 "Each user once, in node order.\n"
	 "  users 17\n", query_cmd_users, "", QS_NODE, 1},
	{"neighbors", "ID|NAME [depth K] [up|down|both]",
	 "nodes within K steps (default 1): up = operands, down = users",
	 "Steps follow edges in either direction unless `up` (towards operands,\n"
	 "the inputs) or `down` (towards users) is given.  The node itself is not\n"
	 "listed.\n"
	 "  neighbors 17 depth 2\n"
	 "  neighbors 17 depth 3 up\n",
	 query_cmd_neighbors, "depth up down both", QS_NODE, 1},
	{"path", "ID|NAME ID|NAME", "a shortest dependency path between two nodes",
	 "Follows edges from the first node to its users' users ... until the\n"
	 "second, or the other way when the second feeds the first.  An empty\n"
	 "table means neither depends on the other.\n"
	 "  path 3 40\n", query_cmd_path, "", QS_NODE, 1},
	{"computations", "", "the HLO computations: role, nodes, root, callers, cost",
	 "One row per HLO computation, in node order: its name (entry, fusion bodies,\n"
	 "reducers, while bodies, ...; derived on a bare .npz: entry, computation.K),\n"
	 "role, node count, root, the number of nodes that call it and the analytic\n"
	 "cost summed over its nodes (those of unknown cost left out).\n"
	 "  computations\n", query_cmd_computations, "", QS_NODE, 1},
	{"layers", "[depth K] [where EXPR] [sort by COLUMN [asc|desc]] [limit N] [all]",
	 "the model's layers: namespaces of op_name with rolled-up numbers and repeated blocks",
	 "One row per namespace of op_name (a node's layer is its op_name without\n"
	 "the last / component; (top level) for one component, (no op_name) for\n"
	 "none), parents before children, indented: nodes at or under it, the\n"
	 "analytic cost, flops and bytes of its executed instructions, configurable\n"
	 "nodes, the three commonest opcodes, repeat_group (siblings with the same\n"
	 "opcodes and edges, whatever their names and shapes) and the sum of each\n"
	 "numeric field of the data laid over the graph.  A run of repeated siblings\n"
	 "is one row, \"layer_0 ... layer_23: 24 repeats of one block\", its numbers\n"
	 "summed over the run and followed by its first block's rows (`all` lists\n"
	 "every block).  `where` keeps the nodes a condition holds for (numbers\n"
	 "roll up over those); `sort by` orders siblings by a column, the tree\n"
	 "kept; `depth K` stops at depth K (1: the top level).\n"
	 "  layers depth 2\n"
	 "  layers sort by cost desc limit 20\n"
	 "  layers where opcode = convolution depth 4\n",
	 query_cmd_layers, "depth where sort by asc desc limit all and or not in", QS_NODE, 1},
	{"splits", "", "the node_splits segments of the dataset, with node counts and cost",
	 "The dataset's node_splits: ranges of node ids (one for tile graphs), not\n"
	 "HLO computations.  The field `split` is a node's segment.\n"
	 "  splits\n", query_cmd_splits, "", QS_NODE, 1},
	{"collectives", "[where EXPR] [sort by EXPR [asc|desc]] [limit N]",
	 "the collectives: replica groups or pairs, group size, channel id, bytes per device",
	 "Every all-reduce, all-gather, reduce-scatter, all-to-all,\n"
	 "collective-permute and collective-broadcast (their -start halves; -done\n"
	 "only waits): id, name, opcode, replica_groups and a permute's\n"
	 "source_target_pairs as written, the number of groups and their size\n"
	 "(null when none are given: every device), the number of pairs, the\n"
	 "channel id, the bytes each device sends (its operands) and the shape.\n"
	 "`where` and `sort by` take node fields.\n"
	 "  collectives\n  collectives where opcode = all-reduce sort by bytes desc\n",
	 query_cmd_collectives, "where sort by asc desc limit and or not in", QS_NODE, 1},
	{"opcodes", "[all]", "opcodes in the graph with their counts (all: every known opcode)",
	 "  opcodes\n  opcodes all\n", query_cmd_opcodes, "all", QS_NODE, 1},
	{"fields", "[TEXT]", "the fields expressions can use (those whose name holds TEXT)",
	 "Node fields: the derived ones (id, opcode, shape, cost, ...), the HLO\n"
	 "ones (name, computation, computation_role, operand_names, hlo,\n"
	 "fusion_kind, op_type, op_name, source_file, source_line,\n"
	 "custom_call_target, sharding) and the node features by their dataset\n"
	 "names; f<i> always names feature i.  attr('NAME') is any attribute of the\n"
	 "instruction as written.  On a bare .npz, name and computation are derived\n"
	 "(convolution.603, entry, computation.K), the metadata fields, hlo and\n"
	 "attr(...) are empty and source_line is null.\n"
	 "Config fields (for `configs`): config, runtime, predicted, ranks and, for\n"
	 "tile graphs, the config features (c<i> names feature i).\n"
	 "  fields window\n", query_cmd_fields, "", QS_NODE, 0},
	{"configs", "[where EXPR] [sort by EXPR [asc|desc]] [limit N]",
	 "configs with measured and predicted runtime and their ranks",
	 "Expressions use config fields (see `fields`): config, runtime, runtime_ns,\n"
	 "predicted, runtime_rank, predicted_rank, and the tile config features.\n"
	 "predicted comes from the loaded model (--model), else the analytic\n"
	 "estimate; lower is faster.  Hidden runtimes (test files) are missing.\n"
	 "  configs sort by runtime limit 10\n"
	 "  configs sort by predicted limit 5\n"
	 "  configs where runtime_rank <= 10 sort by predicted_rank\n",
	 query_cmd_configs, "where sort by asc desc limit and or not in runtime predicted",
	 QS_CONFIG, 0},
	{"config", "N", "one config: its values per configurable node (layout) or its 24 values (tile)",
	 "  config 0\n", query_cmd_config, "", QS_CONFIG, 1},
	{"compare", "A B [all] [sort by id|contribution]",
	 "two configs side by side (A, B: an index, best, worst or default)",
	 "Layout graphs: the configurable nodes whose layouts differ (every one\n"
	 "with `all`) and neighbour mismatches; tile graphs: the 24 values.\n"
	 "  compare best worst\n"
	 "  compare default 12 sort by contribution\n",
	 query_cmd_compare, "best worst default all sort by id contribution", QS_CONFIG, 1},
	{"export", "dot|svg|png REGION [heat EXPR] [expand NAMES|all] [limit N] [collapse MODE] [force] -o FILE",
	 "draw part of the graph with Graphviz into a file",
	 "REGION is one of:\n"
	 "  around ID [radius K] [up|down|both]   nodes within K steps (default 1)\n"
	 "  path A B                              nodes on the paths between A and B\n"
	 "  computation NAME                      one HLO computation (entry,\n"
	 "                                        fused_computation.3, computation.12)\n"
	 "  split K                               node_splits segment K (also\n"
	 "                                        `computation K`, a plain number)\n"
	 "  configurable                          configurable nodes and neighbours\n"
	 "  where EXPR                            the nodes that match\n"
	 "  layer PATH                            an op_name namespace (/ the whole\n"
	 "                                        module): its own nodes, one box per\n"
	 "                                        child namespace (size, cost), a run\n"
	 "                                        of repeated blocks one box\n"
	 "`heat EXPR` fills nodes by a number (e.g. cost, or a column of data laid\n"
	 "over the graph), a box by the sum over its executed instructions.  A\n"
	 "region over `limit` boxes (2,500) is collapsed by layer (or by\n"
	 "computation where op_name has none), as the note says; `collapse layer`\n"
	 "or `collapse computation` asks for it (100 boxes), `collapse none`\n"
	 "refuses instead.  Edges too long for Graphviz to lay out quickly are cut\n"
	 "into stubs; `force` lifts every limit.  The file is written atomically.\n"
	 "A called computation the region reaches (fusion body, while body,\n"
	 "reducer, ...) is one box; `expand NAME,NAME` or `expand all` draws it\n"
	 "(with `layer`, NAME may be a child namespace too).\n"
	 "  export svg around 17 radius 2 -o n17.svg\n"
	 "  export png where opcode = convolution heat cost -o conv.png\n"
	 "  export dot computation entry -o entry.dot\n"
	 "  export svg layer jit(train_step)/transformer heat cost -o layers.svg\n",
	 query_cmd_export,
	 "dot svg png around radius up down both path computation split configurable where layer heat "
	 "expand all limit collapse auto none force -o",
	 QS_NODE, 1},
	{"graphs", "[where EXPR] [sort by EXPR [asc|desc]] [limit N] [show EXPR, ...]",
	 "one row per graph: file, kind, sizes, runtimes, aggregates of its nodes",
	 "Graph fields: file, name, collection, search, split, kind, nodes, edges,\n"
	 "configs, configurable, computations, splits, labeled, runtime_min,\n"
	 "runtime_median, runtime_max, module, fusions, cost, flops, bytes (the\n"
	 "module's totals over its executed computations).  Aggregates reach the\n"
	 "nodes (or the configs, with config fields): count(COND) counts the nodes\n"
	 "where COND holds; sum, min, max and mean(EXPR [where COND]) reduce EXPR\n"
	 "over them.  On one graph: its row; on a folder (hloscope query DIR), one\n"
	 "per graph.  Without `show`, the aggregates used are shown after the\n"
	 "graph's sizes.\n"
	 "  graphs where count(opcode = convolution and rank = 5) > 0 sort by nodes desc\n"
	 "  graphs where kind = layout sort by runtime_max desc limit 10\n"
	 "  graphs show file, nodes, sum(cost), max(users where opcode = fusion)\n",
	 query_cmd_graphs,
	 "where sort by asc desc limit show and or not in count sum min max mean", QS_GRAPH, 0},
	{"open", "FILE", "switch to another graph file", "  open other.npz\n", cmd_open, "", QS_NODE, 0},
	{"format", "table|csv|json", "output format of the following results",
	 "  format csv\n", cmd_format, "table csv json", QS_NODE, 0},
	{"help", "[COMMAND|fields|expressions]", "this list, or one command in detail",
	 "  help nodes\n  help expressions\n", cmd_help, "fields expressions", QS_NODE, 0},
	{"quit", "", "leave (also: exit)", "", cmd_quit, "", QS_NODE, 0},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char expressions_help[] =
	"Expressions\n"
	"  numbers      17  2.5  1e6  -3            text  \"bf16\"  'f32'  or a bare word\n"
	"  arithmetic   + - * / %  (numbers)        parentheses ( )\n"
	"  comparison   = == != <> < <= > >=        text compares as text\n"
	"  sets         x in (a, b, c)   x not in (a, b)\n"
	"  regex        text ~ \"^bf16\"   text !~ reduce   (PCRE2, Perl-compatible)\n"
	"  logic        and or not (also && || !); true is 1, false is 0\n"
	"  attributes   attr('replica_groups')  an attribute as written (text; '' when absent)\n"
	"A bare word compared with text is text: opcode = convolution, elem in (bf16,\n"
	"f32).  Opcode, element type and category names are checked.  Missing\n"
	"values (NaN) compare false.  # starts a comment.\n";

const char *query_command_name(size_t i)
{
	return i < NCOMMANDS ? commands[i].name : NULL;
}

static const struct command *find_command(const char *name)
{
	if (strcasecmp(name, "exit") == 0)
		name = "quit";
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcasecmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* ---- front-end commands ------------------------------------------------ */

static int cmd_open(query_parser *p, query_result *out)
{
	size_t pos = query_peek(p)->pos;
	char *path = query_rest(p);

	if (!path)
		return query_oom(p);
	if (!*path)
		return query_fail_at(p, pos, "expected a file name at column %zu", pos + 1);
	out->kind = QUERY_ACTION;
	out->action = QUERY_ACT_OPEN;
	out->arg = strdup(path);
	return out->arg ? 0 : query_oom(p);
}

static int cmd_format(query_parser *p, query_result *out)
{
	const query_token *t = query_peek(p);
	int f = t->kind == TK_WORD ? query_format_parse(t->str) : -1;

	if (f < 0)
		return query_fail_expected(p, "table, csv or json");
	query_advance(p);
	if (query_expect_end(p, "end of line") < 0)
		return -1;
	out->kind = QUERY_ACTION;
	out->action = QUERY_ACT_FORMAT;
	out->format = (query_format)f;
	return 0;
}

static int cmd_quit(query_parser *p, query_result *out)
{
	if (query_expect_end(p, "end of line") < 0)
		return -1;
	out->kind = QUERY_ACTION;
	out->action = QUERY_ACT_QUIT;
	return 0;
}

static int cmd_help(query_parser *p, query_result *out)
{
	const query_token *t = query_peek(p);
	hs_strbuf b = {0};

	if (t->kind == TK_END) {
		hs_strbuf_puts(&b, "Commands (help COMMAND for details and examples):\n");
		for (size_t i = 0; i < NCOMMANDS; i++) {
			char left[96];
			snprintf(left, sizeof left, "%s %s", commands[i].name, commands[i].args);
			if (strlen(left) > 34) {
				hs_strbuf_printf(&b, "  %s\n  %-34s %s\n", left, "", commands[i].summary);
			} else {
				hs_strbuf_printf(&b, "  %-34s %s\n", left, commands[i].summary);
			}
		}
		hs_strbuf_printf(&b, "Expressions use fields (help fields) and operators "
			      "(help expressions).\n");
	} else if (t->kind == TK_WORD && (strcasecmp(t->str, "expressions") == 0 ||
					  strcasecmp(t->str, "expr") == 0)) {
		query_advance(p);
		hs_strbuf_printf(&b, "%s", expressions_help);
	} else if (t->kind == TK_WORD && strcasecmp(t->str, "fields") == 0) {
		query_advance(p);
		query_session *s = p->s;
		hs_strbuf_puts(&b, "Node fields (derived):\n");
		for (size_t i = 0; i < s->n_node_fields; i++)
			if (s->node_fields[i].kind != QF_FEATURE)
				hs_strbuf_printf(&b, "  %-18s %-6s %s\n", s->node_fields[i].name,
					      s->node_fields[i].type == QUERY_NUM ? "number" : "text",
					      s->node_fields[i].help);
		hs_strbuf_printf(&b, "Node features (%d, by group; `fields TEXT` lists them with help):\n",
			      s->g->feat_width);
		for (int grp = 0; grp < HLO_NGROUPS; grp++) {
			int col = 0, any = 0;
			for (size_t i = 0; i < s->n_node_fields; i++) {
				const query_field *f = &s->node_fields[i];
				if (f->kind != QF_FEATURE ||
				    (int)hlo_node_feature_group(f->index, s->g->feat_width) != grp)
					continue;
				if (!any)
					hs_strbuf_printf(&b, "  %s:\n   ", hlo_group_name((hlo_group)grp));
				any = 1;
				int len = (int)strlen(f->name) + 1;
				if (col + len > 76) {
					hs_strbuf_puts(&b, "\n   ");
					col = 0;
				}
				hs_strbuf_printf(&b, " %s", f->name);
				col += len;
			}
			if (any)
				hs_strbuf_puts(&b, "\n");
		}
		hs_strbuf_puts(&b, "Config fields (configs):\n");
		for (size_t i = 0; i < s->n_config_fields; i++)
			if (s->config_fields[i].kind != QF_CONFIG_FEATURE)
				hs_strbuf_printf(&b, "  %-18s %s\n", s->config_fields[i].name,
					      s->config_fields[i].help);
		if (s->g->kind == HS_KIND_TILE)
			hs_strbuf_printf(&b, "  and the %d tile config features (fields config)\n",
				      s->g->config_width);
		size_t ng;
		const query_field *gf = query_graph_fields(&ng);
		hs_strbuf_printf(&b, "Graph fields (graphs; node and config fields through count(...), "
			      "sum, min, max, mean):\n");
		for (size_t i = 0; i < ng; i++)
			hs_strbuf_printf(&b, "  %-18s %s\n", gf[i].name, gf[i].help);
	} else if (t->kind == TK_WORD) {
		const struct command *c = find_command(t->str);
		if (!c) {
			const char *names[NCOMMANDS + 2];
			for (size_t i = 0; i < NCOMMANDS; i++)
				names[i] = commands[i].name;
			names[NCOMMANDS] = "fields";
			names[NCOMMANDS + 1] = "expressions";
			const char *sug = query_suggest(t->str, names, NCOMMANDS + 2);
			if (sug)
				return query_fail_at(p, t->pos, "no help for '%s' at column %zu (did you "
						     "mean '%s'?)", t->str, t->pos + 1, sug);
			return query_fail_at(p, t->pos, "no help for '%s' at column %zu (try 'help')",
					     t->str, t->pos + 1);
		}
		query_advance(p);
		hs_strbuf_printf(&b, "%s %s\n  %s\n%s", c->name, c->args, c->summary, c->help);
	} else {
		return query_fail_expected(p, "a command name");
	}
	if (query_expect_end(p, "end of line") < 0) {
		hs_strbuf_free(&b);
		return -1;
	}
	if (b.failed) {
		hs_strbuf_free(&b);
		return query_oom(p);
	}
	out->kind = QUERY_BLOCK;
	out->text = hs_strbuf_take(&b);
	return out->text ? 0 : query_oom(p);
}

/* ---- entry points ---------------------------------------------------- */

/* Runs the command of the line (a command word, then its arguments). */
static int run_command(query_parser *p, query_result *out)
{
	const query_token *t = query_peek(p);
	query_session *s = p->s;

	if (t->kind != TK_WORD)
		return query_fail_expected(p, "a command (try 'help')");
	const struct command *c = find_command(t->str);
	if (!c) {
		const char *names[NCOMMANDS];
		for (size_t i = 0; i < NCOMMANDS; i++)
			names[i] = commands[i].name;
		const char *sug = query_suggest(t->str, names, NCOMMANDS);
		if (sug)
			return query_fail_at(p, t->pos, "unknown command '%s' at column %zu (did "
					     "you mean '%s'?)", t->str, t->pos + 1, sug);
		return query_fail_at(p, t->pos, "unknown command '%s' at column %zu (try "
				     "'help')", t->str, t->pos + 1);
	}
	if (c->one_graph && s->ix)
		return query_fail_at(p, t->pos, "'%s' at column %zu works on one graph, and this is a "
				     "folder (open FILE; nodes, count, stats, configs and graphs "
				     "run on folders)", c->name, t->pos + 1);
	out->command = c->name;
	if (c->one_graph && p->plan_only) {
		p->parts = GRAPH_PART_ALL;
		return 0;
	}
	query_advance(p);
	int rc = c->run(p, out);
	return rc == 0 && p->failed ? -1 : rc;
}

static int exec(query_session *s, const char *line, query_result *out, int plan_only,
		unsigned *parts, hs_error *err)
{
	query_parser p;
	hs_error local;
	int rc;

	if (!err)
		err = &local;
	memset(out, 0, sizeof *out);
	hs_error_clear(err);
	s->err_col = 0;
	s->stopped = 0;
	query_eval_reset(s);
	if (!line)
		line = "";
	if (!s->g || !s->node_fields)
		return hs_fail(err, HS_EDATA, "no graph is open");
	query_parser_init(&p, s, line, err);
	p.plan_only = plan_only;
	const query_token *t = query_peek(&p);
	if (p.failed) {
		rc = -1;
	} else if (t->kind == TK_END) {
		out->kind = QUERY_NONE;
		rc = 0;
	} else {
		rc = run_command(&p, out);
	}
	if (rc == 0 && query_eval_failed(s, err) < 0) /* rows it could not evaluate */
		rc = -1;
	if (parts)
		*parts = p.parts;
	query_parser_done(&p);
	if (rc < 0) {
		query_result_free(out);
		if (!err->status)
			hs_fail(err, HS_EUSAGE, "query failed");
		return -1;
	}
	return 0;
}

int query_exec(query_session *s, const char *line, query_result *out, hs_error *err)
{
	return exec(s, line, out, 0, NULL, err);
}

int query_parts(query_session *s, const char *line, unsigned *parts, hs_error *err)
{
	query_result r;
	int rc = exec(s, line, &r, 1, parts, err);

	query_result_free(&r);
	return rc;
}

void query_result_free(query_result *r)
{
	if (!r)
		return;
	query_table_free(&r->table);
	for (size_t i = 0; i < r->nskipped; i++)
		free(r->skipped[i]);
	free(r->skipped);
	free(r->text);
	free(r->note);
	free(r->arg);
	memset(r, 0, sizeof *r);
}

int query_format_parse(const char *name)
{
	if (!name)
		return -1;
	if (strcasecmp(name, "table") == 0 || strcasecmp(name, "text") == 0)
		return QUERY_FMT_TABLE;
	if (strcasecmp(name, "csv") == 0)
		return QUERY_FMT_CSV;
	if (strcasecmp(name, "json") == 0)
		return QUERY_FMT_JSON;
	return -1;
}

/* ---- completion -------------------------------------------------------- */

struct strv {
	char **v;
	size_t n, cap;
	int oom;
};

static void strv_add(struct strv *sv, const char *s, const char *prefix, size_t plen)
{
	if (sv->oom || strncasecmp(s, prefix, plen) != 0)
		return;
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return;
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 32;
		char **v = realloc(sv->v, cap * sizeof *v);
		if (!v) {
			sv->oom = 1;
			return;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n]) {
		sv->oom = 1;
		return;
	}
	sv->n++;
	sv->v[sv->n] = NULL;
}

static void strv_add_words(struct strv *sv, const char *words, const char *prefix, size_t plen)
{
	char w[64];

	while (*words) {
		size_t n = strcspn(words, " ");
		if (n && n < sizeof w) {
			memcpy(w, words, n);
			w[n] = '\0';
			strv_add(sv, w, prefix, plen);
		}
		words += n;
		while (*words == ' ')
			words++;
	}
}

/* Splits text into words: runs of word characters (and '-' inside), or
 * single punctuation; up to max. */
static int split_words(const char *s, size_t n, char words[][64], int max)
{
	int k = 0;
	size_t i = 0;

	while (i < n && k < max) {
		if (isspace((unsigned char)s[i])) {
			i++;
			continue;
		}
		size_t j = i;
		if (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '/' ||
		    s[i] == '-') {
			while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '-' ||
					 s[j] == '.' || s[j] == '/'))
				j++;
		} else if (s[i] == '"' || s[i] == '\'') {
			j = i + 1;
			while (j < n && s[j] != s[i])
				j++;
			if (j < n)
				j++;
		} else {
			j = i + 1;
		}
		size_t len = j - i < 63 ? j - i : 63;
		memcpy(words[k], s + i, len);
		words[k][len] = '\0';
		k++;
		i = j;
	}
	return k;
}

/* The text field whose value the word being completed would be ("opcode"
 * in "opcode = conv", "opcode in (dot, conv"), or NULL. */
static const query_field *value_field(query_session *s, int scope, char words[][64], int n)
{
	int saw_op = 0;

	for (int i = n - 1; i >= 0; i--) {
		const char *w = words[i];
		if ((strchr("=!(,<>~", w[0]) && !w[1]) || !strcasecmp(w, "in") || !strcasecmp(w, "not")) {
			saw_op = 1;
			continue;
		}
		const query_field *f = query_find_field(s, scope, w);
		if (f)
			return saw_op && f->type == QUERY_TEXT ? f : NULL;
		if (!saw_op || !strcasecmp(w, "and") || !strcasecmp(w, "or") || !strcasecmp(w, "where"))
			return NULL;
		/* else a value of the list so far */
	}
	return NULL;
}

#define VALUES_MAX 200 /* more values than this that fit: none offered */

/* The values of text field f in the graph that start with the prefix; 0
 * when there are too many or none (then fields are offered instead). */
static int add_values(query_session *s, int scope, const query_field *f, struct strv *sv, const char *prefix,
		      size_t plen)
{
	hs_error err = {0};

	if (plen && (*prefix == '\'' || *prefix == '"'))
		return 0;
	if (!s->g || s->table || query_prepare_field(s, f, &err) < 0)
		return 0;
	int64_t rows = f->kind == QF_CONFIG_FEATURE || scope == QS_CONFIG ? s->g->n_configs : s->g->n_nodes;
	for (int64_t v = 0; v < rows && !sv->oom; v++) {
		const char *t = query_field_text(s, f, v);
		if (t && *t)
			strv_add(sv, t, prefix, plen);
		if (sv->n > VALUES_MAX) {
			for (size_t i = 0; i < sv->n; i++)
				free(sv->v[i]);
			sv->n = 0;
			sv->v[0] = NULL;
			return 0;
		}
	}
	return sv->n > 0;
}

char **query_complete(const query_session *cs, const char *line, int start, int end, int *files)
{
	query_session *s = (query_session *)cs;
	struct strv sv = {0};
	char words[64][64];
	size_t llen = strlen(line);
	size_t st = start < 0 ? 0 : (size_t)start, en = end < start ? st : (size_t)end;

	if (st > llen)
		st = llen;
	if (en > llen)
		en = llen;
	if (files)
		*files = 0;
	const char *prefix = line + st;
	size_t plen = en - st;
	int n = split_words(line, st, words, 64);

	sv.v = calloc(1, sizeof *sv.v);
	if (!sv.v)
		return NULL;
	sv.cap = 1;
	if (n == 0) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			strv_add(&sv, commands[i].name, prefix, plen);
		strv_add(&sv, "exit", prefix, plen);
		goto out;
	}
	const struct command *c = find_command(words[0]);
	if (!c)
		goto out;
	const char *prev = words[n - 1];
	if (!strcmp(c->name, "open") || !strcmp(prev, "-o") ||
	    (n >= 2 && !strcmp(prev, "o") && !strcmp(words[n - 2], "-"))) {
		if (files)
			*files = 1;
		goto out;
	}
	if (!strcmp(c->name, "help")) {
		if (n == 1) {
			for (size_t i = 0; i < NCOMMANDS; i++)
				strv_add(&sv, commands[i].name, prefix, plen);
			strv_add_words(&sv, c->words, prefix, plen);
		}
		goto out;
	}
	if (!strcmp(c->name, "format")) {
		if (n == 1)
			strv_add_words(&sv, c->words, prefix, plen);
		goto out;
	}
	if (!strcmp(c->name, "export")) {
		if (n == 1) {
			strv_add_words(&sv, "dot svg png", prefix, plen);
			goto out;
		}
		if (n == 2) {
			strv_add_words(&sv, "around path computation split configurable where layer", prefix, plen);
			goto out;
		}
	}
	if (!strcasecmp(prev, "limit") || !strcasecmp(prev, "depth") || !strcasecmp(prev, "radius"))
		goto out;
	int vscope = c->scope == QS_CONFIG ? QS_CONFIG : QS_NODE;
	const query_field *vf = s && c->scope != QS_GRAPH ? value_field(s, vscope, words, n) : NULL;
	if (vf && add_values(s, vscope, vf, &sv, prefix, plen))
		goto out;
	/* none in the graph: the vocabulary of opcodes, element types, categories */
	if (vf && vf->kind == QF_OPCODE)
		for (int i = 0; i <= HLO_MAX_OPCODE; i++)
			strv_add(&sv, hlo_opcode_name(i), prefix, plen);
	if (vf && vf->kind == QF_ELEM)
		for (int i = 0; i < hm_element_type_count(); i++)
			strv_add(&sv, hm_element_type_name(i), prefix, plen);
	if (vf && vf->kind == QF_CATEGORY)
		for (int i = 0; i < HLO_NCATEGORIES; i++)
			strv_add(&sv, hlo_category_name((hlo_category)i), prefix, plen);
	if (sv.n)
		goto out;
	if (!strcasecmp(prev, "sort") || !strcasecmp(prev, "count")) {
		strv_add(&sv, "by", prefix, plen);
		goto out;
	}
	/* Keywords of the command, then fields of its scope. */
	if (strcasecmp(prev, "by") != 0)
		strv_add_words(&sv, c->words, prefix, plen);
	if (s && c->scope == QS_GRAPH) {
		/* graph fields, and node and config fields for the aggregates */
		size_t ng;
		const query_field *gf = query_graph_fields(&ng);
		for (size_t i = 0; i < ng; i++)
			strv_add(&sv, gf[i].name, prefix, plen);
	}
	if (s) {
		size_t nf = c->scope == QS_CONFIG ? s->n_config_fields : s->n_node_fields;
		const query_field *f = c->scope == QS_CONFIG ? s->config_fields : s->node_fields;
		for (size_t i = 0; i < nf; i++)
			strv_add(&sv, f[i].name, prefix, plen);
		if (c->scope != QS_CONFIG)
			strv_add(&sv, "attr", prefix, plen); /* attr('NAME') */
		/* count and stats take either kind of field */
		if (c->run == query_cmd_count || c->run == query_cmd_stats || c->scope == QS_GRAPH)
			for (size_t i = 0; i < s->n_config_fields; i++)
				strv_add(&sv, s->config_fields[i].name, prefix, plen);
	}
out:
	if (sv.oom) {
		query_strv_free(sv.v);
		return NULL;
	}
	return sv.v;
}

void query_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
