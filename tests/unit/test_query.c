/* test_query.c - the query API (query/query.h) on the in-memory fixture graph
 * (tests/unit/query_fixture.h) and, when $DATA is set, on a real file:
 * result structure, row node / config ids, errors with columns and the
 * caret text, actions, export, printers, completion, rebinding to another
 * graph, the parser's limits and a few thousand generated lines (no crash,
 * no sanitizer report; the fuzz corpus is replayed by tests/fuzz/replay.c).
 * The language itself is covered by the tests/query files. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query.h"
#include "tests/unit/query_fixture.h"
#include "tests/unit/t.h"

static query_session *S;

static int run(const char *q, query_result *r, hs_error *err)
{
	memset(r, 0, sizeof *r);
	return query_exec(S, q, r, err);
}

static int col_of(const query_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return i;
	return -1;
}

static char *render(const query_result *r, query_format f)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	hs_error err;

	if (!m)
		return NULL;
	query_write(m, r, f, &err);
	fclose(m);
	return text;
}

static int has(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

static size_t count(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* A graph built without the HLO structure (no computations, no module):
 * the structure commands and fields answer from the dataset's edges. */
static void test_structure(void)
{
	query_result r;
	hs_error err;

	CHECK("operands: an index column", run("operands 4", &r, &err) == 0 &&
	      col_of(&r.table, "index") == 0 && r.table.nrows == 2 && r.table.node[0] == 2 &&
	      r.table.node[1] == 3 && query_cell_at(&r.table, 1, 0)->num == 1);
	CHECK("operands: the dataset's edges, said once", r.note && strstr(r.note, "dataset's edges"));
	query_result_free(&r);
	CHECK("operand_names: the operands' names in order",
	      run("nodes where id = 4 show operand_names, operand_count", &r, &err) == 0 &&
	      strcmp(query_cell_at(&r.table, 0, 0)->text, "dot.2, constant.3") == 0 &&
	      query_cell_at(&r.table, 0, 1)->num == 2);
	query_result_free(&r);
	CHECK("computation compared with a number is the split",
	      run("nodes where computation = 1", &r, &err) == 0 && r.table.nrows == 3 &&
	      r.table.node[0] == 3);
	query_result_free(&r);
	CHECK("split field", run("count by split", &r, &err) == 0 && r.table.nrows == 2);
	query_result_free(&r);
	CHECK("splits: one row per segment", run("splits", &r, &err) == 0 && r.table.nrows == 2 &&
	      col_of(&r.table, "split") == 0 && query_cell_at(&r.table, 1, 1)->num == 3);
	query_result_free(&r);
	CHECK("computations: the entry the arrays imply", run("computations", &r, &err) == 0 &&
	      r.table.nrows == 1);
	query_result_free(&r);
	CHECK("collectives: none", run("collectives where id >= 0 sort by id limit 3", &r, &err) == 0 &&
	      r.table.nrows == 0 && r.table.ncols == 11);
	query_result_free(&r);
	CHECK("attr, hlo: empty without a module; the role the arrays imply",
	      run("nodes where attr('kind') = '' and hlo = '' and computation_role = 'entry' show id", &r,
		  &err) == 0 && r.table.nrows == 6);
	query_result_free(&r);
	CHECK("attr: text, in count by", run("count by attr(channel_id)", &r, &err) == 0 &&
	      r.table.nrows == 1 && r.table.types[0] == QUERY_TEXT);
	query_result_free(&r);
	CHECK("attr: not a number", run("stats attr('kind')", &r, &err) < 0);
	CHECK("attr: needs a name", run("nodes where attr() = 'x'", &r, &err) < 0 &&
	      query_error_column(S) == 18);
	CHECK("attr: not on configs", run("configs where attr('kind') = 'x'", &r, &err) < 0);
}

static void test_tables(void)
{
	query_result r;
	hs_error err;

	CHECK("nodes: runs", run("nodes", &r, &err) == 0 && r.kind == QUERY_TABLE);
	const query_table *t = &r.table;
	CHECK("nodes: 6 rows", t->nrows == 6);
	CHECK("nodes: default columns", t->ncols == 6 && col_of(t, "id") == 0 &&
	      col_of(t, "opcode") == 1 && col_of(t, "shape") == 2 && col_of(t, "split") == 3);
	CHECK("nodes: column types", t->types[0] == QUERY_NUM && t->types[1] == QUERY_TEXT);
	int ok = 1;
	for (int i = 0; i < 6; i++)
		ok &= t->node[i] == i && t->config[i] == -1 && query_cell_at(t, i, 0)->num == i;
	CHECK("nodes: each row names its node", ok);
	CHECK("nodes: opcode text", strcmp(query_cell_at(t, 2, 1)->text, "dot") == 0);
	CHECK("nodes: shape text", strcmp(query_cell_at(t, 2, 2)->text, "f32[8,4]{1,0}") == 0);
	CHECK("nodes: scalar shape", strcmp(query_cell_at(t, 3, 2)->text, "f32[]") == 0);
	CHECK("nodes: note", r.note && strcmp(r.note, "6 nodes") == 0);
	CHECK("nodes: command name", r.command && strcmp(r.command, "nodes") == 0);
	query_result_free(&r);
	CHECK("result_free: zeroes", r.kind == QUERY_NONE && r.table.cells == NULL);
	query_result_free(&r);

	CHECK("where: runs", run("nodes where opcode = dot or users = 0 sort by id desc", &r, &err) == 0);
	CHECK("where: rows and order", r.table.nrows == 2 && r.table.node[0] == 5 && r.table.node[1] == 2);
	CHECK("where: note", r.note && strcmp(r.note, "2 of 6 nodes match") == 0);
	query_result_free(&r);

	CHECK("count: runs", run("count by opcode", &r, &err) == 0);
	t = &r.table;
	CHECK("count: parameter first", t->nrows == 5 &&
	      strcmp(query_cell_at(t, 0, 0)->text, "parameter") == 0 && query_cell_at(t, 0, 1)->num == 2);
	CHECK_NEAR("count: share", query_cell_at(t, 0, 2)->num, 2.0 / 6, 1e-12);
	CHECK("count: group rows name no node", t->node[0] == -1 && t->config[0] == -1);
	query_result_free(&r);

	CHECK("stats: runs", run("stats users, operands", &r, &err) == 0);
	t = &r.table;
	CHECK("stats: two rows", t->nrows == 2);
	CHECK_NEAR("stats: mean users", query_cell_at(t, 0, col_of(t, "mean"))->num, 5.0 / 6, 1e-12);
	CHECK_NEAR("stats: p50 operands", query_cell_at(t, 1, col_of(t, "p50"))->num, 0.5, 1e-12);
	query_result_free(&r);

	CHECK("configs: runs", run("configs sort by runtime", &r, &err) == 0);
	t = &r.table;
	CHECK("configs: sorted, rows name configs", t->nrows == 3 && t->config[0] == 1 &&
	      t->config[1] == 2 && t->config[2] == 0 && t->node[0] == -1);
	CHECK("configs: runtime_rank", query_cell_at(t, 0, col_of(t, "runtime_rank"))->num == 1);
	query_result_free(&r);

	CHECK("config: runs", run("config 1", &r, &err) == 0);
	t = &r.table;
	CHECK("config: one configurable node", t->nrows == 1 && t->node[0] == 2 && t->config[0] == 1);
	CHECK("config: values", query_cell_at(t, 0, 3)->num == 1 && query_cell_at(t, 0, 4)->num == 0 &&
	      query_cell_at(t, 0, 5)->num == -1);
	query_result_free(&r);

	CHECK("stats over configs", run("stats runtime where runtime > 10", &r, &err) == 0 &&
	      query_cell_at(&r.table, 0, 1)->num == 2 && query_cell_at(&r.table, 0, 4)->num == 25);
	query_result_free(&r);

	CHECK("path: runs", run("path 0 5", &r, &err) == 0);
	CHECK("path: 0 2 4 5", r.table.nrows == 4 && r.table.node[0] == 0 && r.table.node[1] == 2 &&
	      r.table.node[2] == 4 && r.table.node[3] == 5);
	query_result_free(&r);

	CHECK("neighbors: runs", run("neighbors 2 depth 1", &r, &err) == 0);
	CHECK("neighbors: 0 1 4", r.table.nrows == 3 && r.table.node[0] == 0 && r.table.node[1] == 1 &&
	      r.table.node[2] == 4);
	query_result_free(&r);

	CHECK("show: a text block", run("show 2", &r, &err) == 0 && r.kind == QUERY_BLOCK &&
	      strncmp(r.text, "node 2 dot.2: dot (convolution)\n", 32) == 0);
	CHECK("show: the split of a graph of several", r.text && strstr(r.text, "  split         0 of 2 "));
	query_result_free(&r);
	test_structure();
	CHECK("help: a text block", run("help", &r, &err) == 0 && r.kind == QUERY_BLOCK &&
	      strstr(r.text, "count by EXPR"));
	query_result_free(&r);
	CHECK("blank line: nothing", run("   ", &r, &err) == 0 && r.kind == QUERY_NONE);
	CHECK("comment: nothing", run("# nodes", &r, &err) == 0 && r.kind == QUERY_NONE);
	CHECK("NULL line: nothing", query_exec(S, NULL, &r, &err) == 0 && r.kind == QUERY_NONE);
}

static void test_actions(void)
{
	query_result r;
	hs_error err;

	CHECK("quit", run("quit", &r, &err) == 0 && r.kind == QUERY_ACTION && r.action == QUERY_ACT_QUIT);
	CHECK("exit", run("EXIT", &r, &err) == 0 && r.action == QUERY_ACT_QUIT);
	CHECK("format", run("format json", &r, &err) == 0 && r.action == QUERY_ACT_FORMAT &&
	      r.format == QUERY_FMT_JSON);
	CHECK("open", run("open  dir/some file.npz  ", &r, &err) == 0 && r.action == QUERY_ACT_OPEN &&
	      strcmp(r.arg, "dir/some file.npz") == 0);
	query_result_free(&r);
	CHECK("open quoted", run("open \"x y.npz\"", &r, &err) == 0 && strcmp(r.arg, "x y.npz") == 0);
	query_result_free(&r);
	CHECK("format names", query_format_parse("csv") == QUERY_FMT_CSV &&
	      query_format_parse("TABLE") == QUERY_FMT_TABLE && query_format_parse("xml") == -1 &&
	      query_format_parse(NULL) == -1);
}

static void test_errors(void)
{
	query_result r;
	hs_error err;
	char buf[512];

	CHECK("error: fails", run("nodes where shap = 1", &r, &err) < 0);
	CHECK("error: usage status", err.status == HS_EUSAGE);
	CHECK("error: column", query_error_column(S) == 13);
	CHECK("error: message", strcmp(err.msg, "unknown field 'shap' at column 13 (did you mean "
				       "'shape'?)") == 0);
	CHECK("error: result left empty", r.kind == QUERY_NONE && r.table.cells == NULL && !r.note);
	int n = query_error_caret(err.msg, "nodes where shap = 1", 13, buf, sizeof buf);
	CHECK("caret: text", strcmp(buf, "unknown field 'shap' at column 13 (did you mean 'shape'?)\n"
				    "  nodes where shap = 1\n"
				    "              ^\n") == 0 && n == (int)strlen(buf));
	char small[16];
	int m = query_error_caret(err.msg, "nodes where shap = 1", 13, small, sizeof small);
	CHECK("caret: truncates, returns the full length", m == n && strlen(small) == 15);
	CHECK("caret: no column, message only",
	      query_error_caret("boom", "x", 0, buf, sizeof buf) == 5 && strcmp(buf, "boom\n") == 0);
	CHECK("caret: tabs kept aligned",
	      query_error_caret("m", "\tab", 3, buf, sizeof buf) > 0 && strcmp(buf, "m\n  \tab\n  \t ^\n") == 0);
	CHECK("error: a later success clears the column", run("nodes limit 1", &r, &err) == 0 &&
	      query_error_column(S) == 0);
	query_result_free(&r);
	CHECK("error: NULL err is allowed", query_exec(S, "nodez", &r, NULL) < 0);
	CHECK("error: out-of-range config", run("config 3", &r, &err) < 0 && query_error_column(S) == 8);
}

/* A file's whole text (malloc'd), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0, cap = 0, k;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *t = realloc(text, cap += 65536);
			if (!t)
				break;
			text = t;
		}
		k = fread(text + n, 1, cap - n - 1, f);
		n += k;
	} while (k > 0);
	fclose(f);
	if (text)
		text[n] = '\0';
	return text;
}

/* export writes the file it names and says so; each region kind and option. */
static void test_export(void)
{
	char dir[] = "/tmp/test_query.XXXXXX";
	char q[512], want[512], path[300];
	query_result r;
	hs_error err;
	static const struct {
		const char *name, *args, *file, *has;
	} cases[] = {
		{"export: around", "around 2 radius 1 up", "a.dot", "n2"},
		{"export: path", "path 0 4", "b.dot", "n4"},
		{"export: computation, force", "computation 1 force", "c.dot", "n5"},
		{"export: split", "split 1 force", "g.dot", "split 1 ("},
		{"export: where, heat", "where opcode = dot or opcode = add heat cost", "d.dot",
		 "cost = "},
		{"export: a quoted -o is not the option", "where opcode !~ \" -o \" heat id",
		 "e.dot", "id = "},
	};

	if (!mkdtemp(dir)) {
		CHECK("export: temporary folder", 0);
		return;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
		snprintf(q, sizeof q, "export dot %s -o %s", cases[i].args, path);
		snprintf(want, sizeof want, "wrote %s (dot: ", path);
		int rc = run(q, &r, &err);
		char *text = slurp(path);
		CHECK(cases[i].name, rc == 0 && r.kind == QUERY_BLOCK &&
		      strncmp(r.text, want, strlen(want)) == 0 && text &&
		      strncmp(text, "digraph", 7) == 0 && strstr(text, cases[i].has));
		if (rc != 0)
			printf("  %s: %s\n", q, err.msg);
		query_result_free(&r);
		free(text);
		remove(path);
	}
	snprintf(q, sizeof q, "export dot where id > 99 -o %s/f.dot", dir);
	CHECK("export: an empty region is an error and writes nothing",
	      run(q, &r, &err) < 0 && strstr(err.msg, "no node matches") &&
	      query_error_column(S) == 18);
	snprintf(path, sizeof path, "%s/f.dot", dir);
	char *none = slurp(path);
	CHECK("export: no file after an error", none == NULL);
	free(none);
	remove(dir);
}

static void test_printers(void)
{
	query_result r;
	hs_error err;
	char *s;

	run("nodes where id < 2 show id, shape, id / 0 - id / 0, id / 0", &r, &err);
	s = render(&r, QUERY_FMT_CSV);
	CHECK("csv: quoting and missing values", s && strcmp(s, "id,shape,id / 0 - id / 0,id / 0\n"
						       "0,\"f32[8,16]{1,0}\",,\n"
						       "1,\"f32[16,4]{1,0}\",,inf\n") == 0);
	free(s);
	s = render(&r, QUERY_FMT_JSON);
	CHECK("json: rows as objects, null for NaN and inf",
	      s && strcmp(s, "[\n{\"id\": 0, \"shape\": \"f32[8,16]{1,0}\", \"id / 0 - id / 0\": null, "
			  "\"id / 0\": null},\n{\"id\": 1, \"shape\": \"f32[16,4]{1,0}\", "
			  "\"id / 0 - id / 0\": null, \"id / 0\": null}\n]\n") == 0);
	free(s);
	s = render(&r, QUERY_FMT_TABLE);
	CHECK("table: aligned, '-' for missing", s && strcmp(s, "id  shape           id / 0 - id / 0  id / 0\n"
							 " 0  f32[8,16]{1,0}                -       -\n"
							 " 1  f32[16,4]{1,0}                -     inf\n"
							 "(2 of 6 nodes match)\n") == 0);
	free(s);
	query_result_free(&r);

	run("show 0", &r, &err);
	s = render(&r, QUERY_FMT_JSON);
	CHECK("json: text block escaped", s && strncmp(s, "{\"text\": \"node 0 parameter.0: parameter (parameter)\\n", 53) == 0);
	free(s);
	FILE *ro = fopen("/dev/null", "r");
	CHECK("write: a failing stream is an error", ro && query_write(ro, &r, QUERY_FMT_TABLE, &err) < 0 &&
	      err.status == HS_EDATA);
	if (ro)
		fclose(ro);
	query_result_free(&r);

	run("quit", &r, &err);
	s = render(&r, QUERY_FMT_JSON);
	CHECK("write: actions write nothing", s && !*s);
	free(s);
}

static void test_completion(void)
{
	int files = -1;
	char **v;

	v = query_complete(S, "no", 0, 2, &files);
	CHECK("complete: command", has(v, "nodes") && count(v) == 1 && files == 0);
	query_strv_free(v);
	v = query_complete(S, "", 0, 0, &files);
	CHECK("complete: every command", count(v) >= 19 && has(v, "exit"));
	query_strv_free(v);
	v = query_complete(S, "nodes where opc", 12, 15, &files);
	CHECK("complete: fields", has(v, "opcode") && has(v, "opcode_id") && count(v) == 2);
	query_strv_free(v);
	v = query_complete(S, "nodes where at", 12, 14, &files);
	CHECK("complete: the attr function", has(v, "attr"));
	query_strv_free(v);
	v = query_complete(S, "configs where at", 14, 16, &files);
	CHECK("complete: no attr for configs", !has(v, "attr"));
	query_strv_free(v);
	v = query_complete(S, "coll", 0, 4, &files);
	CHECK("complete: collectives", has(v, "collectives") && count(v) == 1);
	query_strv_free(v);
	v = query_complete(S, "nodes wh", 6, 8, &files);
	CHECK("complete: keywords", has(v, "where") && count(v) == 1);
	query_strv_free(v);
	v = query_complete(S, "nodes where opcode = con", 21, 24, &files);
	CHECK("complete: opcode names after opcode =", has(v, "constant") && !has(v, "configurable"));
	query_strv_free(v);
	v = query_complete(S, "nodes where opcode == par", 22, 25, &files);
	CHECK("complete: the opcodes of the graph first (parameter, not partition-id)",
	      has(v, "parameter") && count(v) == 1);
	query_strv_free(v);
	v = query_complete(S, "nodes where opcode = conv", 21, 25, &files);
	CHECK("complete: none in the graph: the opcode vocabulary", has(v, "convolution") && has(v, "convert"));
	query_strv_free(v);
	v = query_complete(S, "nodes where name = ", 19, 19, &files);
	CHECK("complete: a text field's values (name)", count(v) == 6);
	query_strv_free(v);
	v = query_complete(S, "nodes where opcode in (dot, re", 28, 30, &files);
	CHECK("complete: opcode names in a list", has(v, "reduce") && has(v, "reshape"));
	query_strv_free(v);
	v = query_complete(S, "nodes where elem = b", 19, 20, &files);
	CHECK("complete: element types", has(v, "bf16") && count(v) == 1);
	query_strv_free(v);
	v = query_complete(S, "configs sort by run", 16, 19, &files);
	CHECK("complete: config fields", has(v, "runtime") && has(v, "runtime_ns") && !has(v, "rank"));
	query_strv_free(v);
	v = query_complete(S, "stats runt", 6, 10, &files);
	CHECK("complete: stats takes config fields too", has(v, "runtime") && has(v, "runtime_rank"));
	query_strv_free(v);
	v = query_complete(S, "open fix", 5, 8, &files);
	CHECK("complete: open takes files", files == 1 && v && count(v) == 0);
	query_strv_free(v);
	v = query_complete(S, "export svg around 2 -o out", 23, 26, &files);
	CHECK("complete: -o takes files", files == 1);
	query_strv_free(v);
	v = query_complete(S, "format c", 7, 8, &files);
	CHECK("complete: formats", has(v, "csv") && count(v) == 1 && files == 0);
	query_strv_free(v);
	v = query_complete(S, "help fi", 5, 7, &files);
	CHECK("complete: help topics", has(v, "fields"));
	query_strv_free(v);
	v = query_complete(S, "bogus x", 6, 7, &files);
	CHECK("complete: unknown command gives none", v && count(v) == 0);
	query_strv_free(v);
	v = query_complete(S, "nodes", 50, 70, &files);
	CHECK("complete: positions past the end are clamped", v != NULL);
	query_strv_free(v);
}

static void test_tables_of_api(void)
{
	CHECK("fields: derived first", query_field_count(S) == 31 + HLO_NODE_FEATURES &&
	      strcmp(query_field_name(S, 0), "id") == 0 &&
	      strcmp(query_field_name(S, 31), "is_root") == 0 && query_field_name(S, 100000) == NULL);
	CHECK("commands: first and past the end", strcmp(query_command_name(0), "nodes") == 0 &&
	      query_command_name(1000) == NULL);
	int ok = 1;
	for (size_t i = 0; query_command_name(i); i++) {
		char q[64];
		query_result r;
		hs_error err;
		snprintf(q, sizeof q, "help %s", query_command_name(i));
		ok &= run(q, &r, &err) == 0 && r.kind == QUERY_BLOCK;
		query_result_free(&r);
	}
	CHECK("help: every command has help", ok);
}

/* What the session derives about its graph (query_session_cost, _ranks,
 * _split_root, _predictor, _fit, _add_overlay) is what the fields read:
 * one cache per graph for the explorer's views and the query language. */
static void test_session(void)
{
	hs_error err;
	query_result r;
	const int64_t *rank = NULL;

	hs_error_clear(&err);
	const cost_estimate *ce = query_session_cost(S, &err);
	CHECK("session: cost of every node", ce != NULL && run("nodes show cost", &r, &err) == 0 &&
	      r.table.nrows == 6 && (isnan(query_cell_at(&r.table, 2, 0)->num) ? ce[2].unknown
	      : query_cell_at(&r.table, 2, 0)->num == ce[2].seconds));
	query_result_free(&r);
	/* runtimes 30, 10, 20 ns */
	CHECK("session: runtime ranks", query_session_ranks(S, &rank, &err) == 0 && rank &&
	      rank[0] == 3 && rank[1] == 1 && rank[2] == 2);
	double rt[3];
	CHECK("session: runtime min, median, max", query_session_runtime_summary(S, rt, &err) == 0 &&
	      rt[0] == 10 && rt[1] == 20 && rt[2] == 30);
	CHECK("session: the root of a segment is its is_root node, else its last",
	      query_session_split_root(S, 1, &err) == 5 && query_session_split_root(S, 0, &err) == 2);
	CHECK("session: a segment out of range is an error",
	      query_session_split_root(S, 2, &err) < 0 && err.status == HS_EUSAGE);
	const predictor *p = query_session_predictor(S, &err);
	int same = p != NULL && run("configs show config, predicted, predicted_rank", &r, &err) == 0 &&
		   r.table.nrows == 3;
	for (int64_t i = 0; same && i < 3; i++)
		same = query_cell_at(&r.table, i, 1)->num == (p->time ? p->time[i] : p->score[i]) &&
		       query_cell_at(&r.table, i, 2)->num == (double)p->rank[i];
	CHECK("session: predicted and predicted_rank are the active predictor's", same);
	query_result_free(&r);
	CHECK("session: a fit needs configs on both sides", query_session_fit(S, 0.5, 1, &err) < 0 &&
	      query_session_predictor(S, &err) == p);

	hs_overlay o;
	hs_graph *g = query_session_graph(S);
	const char *csv = "name,time_us,unit\ndot.2,7.5,ms\nadd.4,2,us\nparameter.0,,s\n";
	CHECK("overlay: read for the fixture",
	      overlay_parse(g, csv, strlen(csv), "data.csv", NULL, &o, &err) == 0 && o.matched == 3);
	CHECK("overlay: its columns are node fields", query_session_add_overlay(S, &o, &err) == 0 &&
	      o.n_cols == 0 && run("nodes where time_us > 1 show name, time_us, unit", &r, &err) == 0 &&
	      r.table.nrows == 2 && strcmp(query_cell_at(&r.table, 0, 0)->text, "dot.2") == 0 &&
	      query_cell_at(&r.table, 0, 1)->num == 7.5 && strcmp(query_cell_at(&r.table, 1, 2)->text, "us") == 0);
	query_result_free(&r);
	CHECK("overlay: missing where the data gives none", run("nodes where time_us = time_us", &r, &err) == 0 &&
	      r.table.nrows == 2);
	query_result_free(&r);
	const char *clash = "name,cost\ndot.2,1\n";
	CHECK("overlay: a column named as a field is refused",
	      overlay_parse(g, clash, strlen(clash), "clash.csv", NULL, &o, &err) == 0 &&
	      query_session_add_overlay(S, &o, &err) < 0 && err.status == HS_EUSAGE &&
	      strstr(err.msg, "'cost' is a field already") && o.n_cols == 1);
	overlay_free(&o);
	CHECK("overlay: a rebind drops it", (query_session_set_graph(S, g), 1) &&
	      run("nodes where time_us > 1", &r, &err) < 0 && strstr(err.msg, "unknown field 'time_us'"));
	query_result_free(&r);
}

/* Out of memory is an error, never a silent NULL: a graph whose arrays
 * would not fit in any address space (the pointers are never read: every
 * allocation fails first). */
static void test_session_oom(void)
{
	hs_graph g;
	float feat[1] = {0};
	int64_t off[1] = {0};
	double rt[1] = {0};
	hs_error err;
	const int64_t *rank = NULL;

	memset(&g, 0, sizeof g);
	g.path = (char *)"huge.npz";
	g.name = (char *)"huge";
	g.kind = HS_KIND_LAYOUT;
	g.n_nodes = g.n_configs = g.n_comps = (int64_t)1 << 58;
	g.node_feat = feat;
	g.operand_off = off;
	g.runtime = rt;
	g.labeled = 1;
	g.ncf_loaded = 1;
	hs_error_clear(&err);
	query_session *s = query_session_new(&g, &err);
	CHECK("oom: a session on a huge graph", s != NULL);
	if (!s)
		return;
	CHECK("oom: the cost says so", query_session_cost(s, &err) == NULL && err.status == HS_ENOMEM &&
	      strstr(err.msg, "out of memory"));
	hs_error_clear(&err);
	CHECK("oom: the ranks say so", query_session_ranks(s, &rank, &err) < 0 && !rank && err.status == HS_ENOMEM);
	hs_error_clear(&err);
	CHECK("oom: a split root says so", query_session_split_root(s, 0, &err) < 0 && err.status == HS_ENOMEM);
	hs_error_clear(&err);
	double summary[3];
	CHECK("oom: the runtime summary says so", query_session_runtime_summary(s, summary, &err) < 0 &&
	      err.status == HS_ENOMEM);
	hs_error_clear(&err);
	CHECK("oom: the predictor says so", query_session_predictor(s, &err) == NULL && err.status == HS_ENOMEM);
	hs_error_clear(&err);
	CHECK("oom: ... every time it is asked (not kept as the model's failure)",
	      query_session_predictor(s, &err) == NULL && err.status == HS_ENOMEM);
	hs_error_clear(&err);
	CHECK("oom: a fit says so", query_session_fit(s, 0.5, 1, &err) < 0 && err.status == HS_ENOMEM);
	query_session_free(s);
}

/* A huge request returns NULL under the sanitizers too (ASAN_OPTIONS, when
 * set, adds to this). */
__attribute__((used)) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static void test_rebind(void)
{
	const char *data = getenv("DATA");
	char path[4096];
	hs_error err;
	query_result r;

	if (!data) {
		printf("SKIP query: rebinding to a real file (DATA not set)\n");
		return;
	}
	snprintf(path, sizeof path, "%s/npz/layout/xla/default/train/unet3d.npz", data);
	hs_graph *g = graph_open(path, &err);
	CHECK("rebind: unet3d opens", g != NULL);
	if (!g)
		return;
	/* Fill every cache on the fixture first, then rebind. */
	run("stats cost, rank where elem = f32", &r, &err);
	query_result_free(&r);
	run("configs sort by predicted", &r, &err);
	query_result_free(&r);
	hs_graph *old = query_session_graph(S);
	query_session_set_graph(S, g);
	CHECK("rebind: session uses the new graph", query_session_graph(S) == g);
	CHECK("rebind: count by opcode on unet3d", run("count by opcode limit 1", &r, &err) == 0 &&
	      strcmp(query_cell_at(&r.table, 0, 0)->text, "get-tuple-element") == 0 &&
	      query_cell_at(&r.table, 0, 1)->num == 682);
	query_result_free(&r);
	CHECK("rebind: caches rebuilt", run("stats cost, rank, predicted_rank", &r, &err) < 0 &&
	      run("stats cost, rank where configurable", &r, &err) == 0 &&
	      query_cell_at(&r.table, 0, 1)->num == 56);
	query_result_free(&r);
	CHECK("rebind: configs", run("configs sort by runtime limit 1", &r, &err) == 0 &&
	      r.table.config[0] == 209);
	query_result_free(&r);
	CHECK("fit: on a fifth of unet3d's configs", query_session_fit(S, 0.2, 1, &err) == 0);
	const predictor *fit = query_session_predictor(S, &err);
	int same = fit && fit->trained && run("configs show config, predicted, predicted_rank", &r, &err) == 0 &&
		   r.table.nrows == g->n_configs;
	for (int64_t i = 0; same && i < r.table.nrows; i++)
		same = query_cell_at(&r.table, i, 1)->num == (fit->time ? fit->time[i] : fit->score[i]) &&
		       query_cell_at(&r.table, i, 2)->num == (double)fit->rank[i];
	CHECK("fit: predicted and predicted_rank are the fit's", same);
	query_result_free(&r);
	CHECK("fit: the configs note names it", run("configs limit 1", &r, &err) == 0 && r.note &&
	      strstr(r.note, "predicted by fit on 20%"));
	query_result_free(&r);
	query_session_fit_off(S);
	const predictor *model = query_session_predictor(S, &err);
	CHECK("fit off: the model's predictor again", model && model != fit && !model->trained &&
	      run("configs limit 1", &r, &err) == 0 && strstr(r.note, "predicted by analytic estimate"));
	query_result_free(&r);
	query_session_set_graph(S, old);
	graph_free(g);
	CHECK("rebind: back to the fixture", run("nodes", &r, &err) == 0 && r.table.nrows == 6);
	query_result_free(&r);
}

/* One line as a front end handles it: run it, write the result in every
 * format (or the error with its caret), complete at three places. */
static void exercise(FILE *sink, const char *line)
{
	query_result r;
	hs_error err;
	char buf[256];
	size_t n = strlen(line);

	if (run(line, &r, &err) == 0) {
		for (int f = 0; f < 3; f++)
			query_write(sink, &r, (query_format)f, &err);
	} else {
		query_error_caret(err.msg, line, query_error_column(S), buf, sizeof buf);
	}
	query_result_free(&r);
	int pos[3] = {0, (int)(n / 2), (int)n};
	for (int i = 0; i < 3; i++) {
		int files;
		int start = pos[i];
		while (start > 0 && line[start - 1] != ' ')
			start--;
		query_strv_free(query_complete(S, line, start, pos[i], &files));
	}
}

/* Lines made of query words, operators and noise, from a fixed seed. */
static void test_generated(int count)
{
	static const char *const parts[] = {
		"nodes", "where", "count", "by", "stats", "show", "sort", "desc", "limit", "configs",
		"config", "neighbors", "depth", "up", "down", "path", "operands", "users", "opcode",
		"shape", "rank", "elem", "cost", "flops", "id", "runtime", "predicted", "in", "not",
		"and", "or", "=", "!=", "<", ">=", "~", "!~", "(", ")", ",", "+", "-", "*", "/", "%",
		"1", "0", "2.5", "1e9", "-3", "\"f32\"", "'x", "dot", "get-tuple-element", "#",
		"help", "compare", "best", "all", "fields", "opcodes", "computations", "\\", "@",
		"\xff", "f3", "c0", "is_root", "shape_dimensions_product", "&&", "||", "!", "*",
	};
	const size_t np = sizeof parts / sizeof parts[0];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char line[512];
	FILE *sink = fopen("/dev/null", "w");

	if (!sink) {
		CHECK("generated: /dev/null", 0);
		return;
	}
	for (int i = 0; i < count; i++) {
		size_t n = 0;
		int words = 1 + (int)(x % 12);
		for (int w = 0; w < words && n < sizeof line - 64; w++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			const char *p = parts[x % np];
			n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", w ? " " : "", p);
		}
		exercise(sink, line);
	}
	fclose(sink);
	CHECK("generated: 3000 lines of query words ran", 1);
}

/* Deep nesting and very long expressions are errors, not stack overflows. */
static void test_limits(void)
{
	query_result r;
	hs_error err;
	size_t big = 200000;
	char *q = malloc(big + 64);

	if (!q) {
		CHECK("limits: memory", 0);
		return;
	}
	strcpy(q, "nodes where ");
	size_t k = strlen(q);
	for (size_t i = 0; i < 100000; i++)
		q[k++] = '(';
	q[k] = '\0';
	CHECK("limits: 100000 parentheses fail cleanly",
	      run(q, &r, &err) < 0 && strstr(err.msg, "nested too deeply"));
	k = strlen("nodes where ");
	for (size_t i = 0; i < 50000; i++) {
		memcpy(q + k, "id+", 3);
		k += 3;
	}
	strcpy(q + k, "1 > 0");
	CHECK("limits: 50000 terms fail cleanly", run(q, &r, &err) < 0 && strstr(err.msg, "too long"));
	k = strlen("nodes where ");
	for (size_t i = 0; i < 100000; i++)
		q[k++] = 'n', q[k++] = ' ';
	strcpy(q + k, "id");
	memcpy(q + strlen("nodes where "), "not", 3);
	CHECK("limits: a long chain of words fails cleanly", run(q, &r, &err) < 0);
	memset(q, 'a', big);
	q[big] = '\0';
	CHECK("limits: a 200000-byte word is an unknown command",
	      run(q, &r, &err) < 0 && strstr(err.msg, "unknown command"));
	free(q);
}

int main(void)
{
	hs_error err;
	hs_graph *g = fixture_graph();

	S = g ? query_session_new(g, &err) : NULL;
	CHECK("session on the fixture", S != NULL);
	if (!S)
		return 1;
	test_tables();
	test_actions();
	test_errors();
	test_export();
	test_printers();
	test_completion();
	test_tables_of_api();
	test_session();
	test_session_oom();
	test_rebind();
	test_limits();
	test_generated(3000);
	query_session_free(S);
	graph_free(g);
	T_DONE();
}
