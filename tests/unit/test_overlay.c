/* Unit tests of data files laid over a graph (loader/overlay.c,
 * loader/overlay_read.c): CSV, JSON objects and arrays of records, XLA
 * buffer assignments, their columns, their values' rules, their merges,
 * their limits and their errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "loader/graph.h"
#include "loader/overlay.h"
#include "t.h"
#include "t_files.h"

static const char MODULE_TEXT[] =
	"HloModule m\n"
	"\n"
	"ENTRY %main (a: f32[4], b: f32[4]) -> (f32[4], f32[4]) {\n"
	"  %a = f32[4]{0} parameter(0)\n"
	"  %b = f32[4]{0} parameter(1)\n"
	"  %dot.1 = f32[4]{0} multiply(%a, %b)\n"
	"  %add.2 = f32[4]{0} add(%dot.1, %a)\n"
	"  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%dot.1, %add.2)\n"
	"}\n";

static int parse_n(hs_graph *g, const char *text, size_t n, int merge, hs_overlay *o, hs_error *err)
{
	overlay_opts opts = {.merge = merge, .merge_words = "--data-merge sum|first|last"};
	hs_error_clear(err);
	return overlay_parse(g, text, n, "data.csv", &opts, o, err);
}

static int parse(hs_graph *g, const char *text, hs_overlay *o, hs_error *err)
{
	return parse_n(g, text, strlen(text), OVERLAY_MERGE_NONE, o, err);
}

/* Texts that must fail with a message holding `msg`: 1 when all do. */
struct bad_case {
	const char *text;
	size_t n;           /* 0: strlen */
	const char *msg;
};
#define BAD(s, m) {s, sizeof s - 1, m}

static int all_refused(hs_graph *g, const struct bad_case *bad, size_t k)
{
	hs_overlay o;
	hs_error err = {0};
	int all = 1;
	for (size_t i = 0; i < k; i++)
		if (parse_n(g, bad[i].text, bad[i].n, OVERLAY_MERGE_NONE, &o, &err) == 0 || err.status != HS_EDATA ||
		    !strstr(err.msg, bad[i].msg)) {
			printf("# case %zu '%.60s': %s\n", i, bad[i].text, err.status ? err.msg : "read");
			all = 0;
			if (!err.status)
				overlay_free(&o);
		}
	return all;
}

static void test_csv(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	int64_t dot = graph_find_node(g, "dot.1"), add = graph_find_node(g, "add.2");
	CHECK("csv: reads", parse(g, "name,time_us,unit\n"
				      "dot.1,12.5,us\n"
				      "add.2,3,\"us, wall\"\n"
				      "nowhere.9,1,x\n"
				      "\"also\nnowhere\",2,y\n", &o, &err) == 0);
	int t = overlay_find(&o, "time_us"), u = overlay_find(&o, "unit");
	CHECK("csv: a numeric and a text column", o.n_cols == 2 && t == 0 && u == 1 && o.cols[t].numeric &&
	      !o.cols[u].numeric && overlay_find(&o, "nope") == -1);
	CHECK("csv: numbers; none where none is given", t >= 0 && o.cols[t].num[dot] == 12.5 &&
	      o.cols[t].num[add] == 3.0 && isnan(o.cols[t].num[graph_find_node(g, "a")]));
	CHECK("csv: text with a quoted comma", u >= 0 && strcmp(o.cols[u].text[add], "us, wall") == 0 &&
	      strcmp(o.cols[u].text[dot], "us") == 0);
	CHECK("csv: rows naming no node are counted and kept by name", o.rows == 4 && o.matched == 2 &&
	      o.unmatched == 2 && strcmp(o.unmatched_names[0], "nowhere.9") == 0 &&
	      strcmp(o.unmatched_names[1], "also\nnowhere") == 0);
	overlay_free(&o);
	CHECK("csv: by id", parse(g, "id,x\r\n2,7\r\n99,1\r\n", &o, &err) == 0 && o.cols[0].num[2] == 7 &&
	      o.unmatched == 1);
	overlay_free(&o);
	static const struct bad_case bad[] = {
		BAD("", "data.csv: empty"),
		BAD("node,x\n", "data.csv:1: the header must start with 'name' or 'id'"),
		BAD("name\n", "data.csv:1: the header must start with 'name' or 'id'"),
		BAD("name,x y\n", "data.csv:1: 'x y' is not a field name"),
		BAD("name,x,x\n", "data.csv:1: column 'x' is given twice"),
		BAD("name,x\ndot.1,1\nadd.2\n", "data.csv:3: 1 fields where the header has 2"),
		BAD("name,x\ndot.1,\"1\n", "data.csv:2: an unclosed quote"),
		BAD("name,x\ndot.1,\"1\"2\n", "data.csv:2: text after a closing quote"),
		BAD("id,x\nseven,1\n", "data.csv:2: id 'seven' is not a node id"),
		BAD("\xff\xfen\0a\0m\0e\0", "data.csv: UTF-16 text (it starts with the byte-order mark FF FE)"),
	};
	CHECK("csv: malformed files refused with FILE:LINE and what was expected",
	      all_refused(g, bad, sizeof bad / sizeof bad[0]));
}

/* NUL bytes, numbers out of range, text in a numeric field (overlay.h). */
static void test_values(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	int64_t dot = graph_find_node(g, "dot.1"), add = graph_find_node(g, "add.2");
	static const struct bad_case nul[] = {
		BAD("name,time_us\ndot.1,1\0.5\n", "data.csv:2: column 'time_us': a NUL byte in the value '1'"),
		BAD("name,t\nadd.2,1\ndo\0t.1,2\n", "data.csv:3: column 'name': a NUL byte in the value 'do'"),
		BAD("id,t\n2\0,1\n", "data.csv:2: column 'id': a NUL byte"),
		BAD("name,t\0x\n", "data.csv:1: a NUL byte in column 2 of the header"),
		BAD("name,t\ndot.1,1,x\0\n", "data.csv:2: a NUL byte in column 3"),   /* past the header's */
		BAD("name,note\ndot.1,\"a\nb\0\"\n", "data.csv:3: column 'note': a NUL byte in the value 'a\nb'"),
		BAD("BufferAssignment:\n value: <3 a\0 @0> (size=16,offset=0): f32[4]{0}\n", "data.csv:2: a NUL byte"),
	};
	CHECK("values: a NUL byte is an error at its line naming its column", all_refused(g, nul, 7));
	static const struct bad_case num[] = {
		BAD("name,t\ndot.1,1\nadd.2,fast\n", "data.csv:3: field 't': 'fast' is not a number, and the field "
						    "is numeric (its first value, line 2, is one)"),
		BAD("name,t\ndot.1,1\nnowhere,x\n", "data.csv:3: field 't': 'x' is not a number"),
		BAD("name,t\ndot.1,1e400\n", "data.csv:2: field 't': '1e400' is not a finite number"),
		BAD("name,t\ndot.1,1\nadd.2,-1e999\n", "data.csv:3: field 't': '-1e999' is not a finite number"),
		BAD("name,t\ndot.1,2\nadd.2,inf\n", "data.csv:3: field 't': 'inf' is not a finite number"),
		BAD("{\"dot.1\": {\"t\": 1},\n \"add.2\": {\"t\": 1e400}}", "data.csv:2 (byte 36): field 't': '1e400' "
									     "is not a finite number"),
		BAD("[{\"name\": \"dot.1\", \"t\": 2},\n {\"name\": \"add.2\", \"t\": \"2x\"}]",
		    "data.csv:2 (byte 52): field 't': '2x' is not a number, and the field is numeric (its first "
		    "value, line 1 (byte 24), is one)"),
	};
	CHECK("values: a non-number in a numeric field, a number out of range: errors at their line",
	      all_refused(g, num, sizeof num / sizeof num[0]));
	CHECK("values: nan and empty cells are none", parse(g, "name,t,u\ndot.1,nan,\nadd.2,2,NaN\n", &o, &err) == 0 &&
	      o.cols[0].numeric && isnan(o.cols[0].num[dot]) && o.cols[0].num[add] == 2 && o.cols[1].numeric &&
	      isnan(o.cols[1].num[add]) && o.matched == 1);
	overlay_free(&o);
	CHECK("values: spaces around a number are not part of it; only spaces are none",
	      parse(g, "name,t,u\ndot.1, 1.5 ,\t\nadd.2,\t-2,x\n", &o, &err) == 0 && o.cols[0].numeric &&
	      o.cols[0].num[dot] == 1.5 && o.cols[0].num[add] == -2 && !o.cols[1].numeric &&
	      o.cols[1].text[dot] == NULL && strcmp(o.cols[1].text[add], "x") == 0);
	if (!err.status)
		overlay_free(&o);
	CHECK("values: a field whose first value is text is text", parse(g, "name,tag\ndot.1,a\nadd.2,7\n", &o,
									  &err) == 0 && !o.cols[0].numeric &&
	      strcmp(o.cols[0].text[add], "7") == 0);
	overlay_free(&o);
	CHECK("values: a number under a double's range is 0", parse(g, "name,t\ndot.1,1e-400\nadd.2,-2.5e-3\n", &o,
								     &err) == 0 && o.cols[0].numeric &&
	      o.cols[0].num[dot] == 0 && o.cols[0].num[add] == -2.5e-3);
	overlay_free(&o);
}

static void test_json(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	int64_t dot = graph_find_node(g, "dot.1");
	CHECK("json: reads", parse(g, "{\"dot.1\": {\"ms\": 1.5, \"kind\": \"gemm\", \"hot\": true, \"gone\": null},"
				      " \"add.2\": {\"ms\": \"2\"}, \"x\": {\"ms\": 1}}", &o, &err) == 0);
	int ms = overlay_find(&o, "ms"), kind = overlay_find(&o, "kind"), hot = overlay_find(&o, "hot");
	CHECK("json: numbers (a numeric string too), text, booleans", ms >= 0 && o.cols[ms].numeric &&
	      o.cols[ms].num[dot] == 1.5 && o.cols[ms].num[graph_find_node(g, "add.2")] == 2 && kind >= 0 &&
	      !o.cols[kind].numeric && strcmp(o.cols[kind].text[dot], "gemm") == 0 && hot >= 0 &&
	      o.cols[hot].num[dot] == 1);
	CHECK("json: null gives nothing, unmatched counted", overlay_find(&o, "gone") >= 0 && o.unmatched == 1 &&
	      o.rows == 3);
	overlay_free(&o);
	CHECK("json: a number in a text field is the text it is written as",
	      parse(g, "[{\"name\": \"dot.1\", \"v\": \"x\"}, {\"name\": \"add.2\", \"v\": 0.1}]", &o, &err) == 0 &&
	      strcmp(o.cols[0].text[graph_find_node(g, "add.2")], "0.1") == 0);
	overlay_free(&o);
	static const struct bad_case bad[] = {
		BAD("{\"dot.1\": {\"v\": [1]}}", "data.csv:1 (byte 16): field 'v' of 'dot.1' is an array"),
		BAD(" [1]", "data.csv:1 (byte 2): a record {\"name\": \"INSTRUCTION\""),
		BAD("{\"a\": {\"x\": 1,}}", "data.csv:1 (byte 14):"),
		BAD("{\"dot.1\": {\"t\": 1, \"t\": 2}}", "data.csv:1 (byte 24): field 't' is given twice in one record"),
		BAD("[{\"t\": 1}]", "data.csv:1 (byte 1): the record has no \"name\""),
		BAD("[{\"name\": \"dot.1\", \"id\": 2}]", "(byte 25): the record gives \"id\" after \"name\""),
		BAD("[{\"name\": 5}]", "data.csv:1 (byte 10): \"name\" must be a string"),
		BAD("[{\"id\": 1.5}]", "data.csv:1 (byte 8): id '1.5' is not a node id"),
		BAD("{\"dot.1\": {\"x y\": 1}}", "data.csv:1 (byte 18): 'x y' is not a field name"),
	};
	CHECK("json: malformed files refused with FILE:LINE (byte N) and what was expected",
	      all_refused(g, bad, sizeof bad / sizeof bad[0]));
}

/* Two overlays hold the same fields, kinds and values. */
static int same_overlay(const hs_overlay *a, const hs_overlay *b)
{
	if (a->n_cols != b->n_cols || a->n_nodes != b->n_nodes || a->rows != b->rows || a->matched != b->matched ||
	    a->unmatched != b->unmatched)
		return 0;
	for (int c = 0; c < a->n_cols; c++) {
		const hs_overlay_col *x = &a->cols[c], *y = &b->cols[c];
		if (strcmp(x->name, y->name) != 0 || x->numeric != y->numeric)
			return 0;
		for (int64_t v = 0; v < a->n_nodes; v++)
			if (x->numeric ? !(x->num[v] == y->num[v] || (isnan(x->num[v]) && isnan(y->num[v])))
				       : !(x->text[v] == y->text[v] || (x->text[v] && y->text[v] &&
									 strcmp(x->text[v], y->text[v]) == 0)))
				return 0;
	}
	return 1;
}

/* issue 31: a JSON array of records, what most tools export. */
static void test_records(hs_graph *g)
{
	hs_overlay csv, json, by_id;
	hs_error err = {0};
	int ok = parse(g, "name,time_us,kind\ndot.1,3.5,gemm\nadd.2,1.25,\nnowhere,2,x\n", &csv, &err) == 0;
	CHECK("records: the CSV reads", ok);
	CHECK("records: an array of records reads",
	      parse(g, "[{\"name\": \"dot.1\", \"time_us\": 3.5, \"kind\": \"gemm\"},\n"
		       " {\"name\": \"add.2\", \"time_us\": 1.25},\n"
		       " {\"name\": \"nowhere\", \"time_us\": 2, \"kind\": \"x\"}]", &json, &err) == 0);
	CHECK("records: the same fields, kinds and values as the CSV", ok && !err.status && same_overlay(&csv, &json));
	CHECK("records: by id", parse(g, "[{\"id\": 2, \"time_us\": 3.5, \"kind\": \"gemm\"}, {\"id\": \"3\", "
					 "\"time_us\": 1.25}, {\"id\": 99, \"time_us\": 2, \"kind\": \"x\"}]",
					 &by_id, &err) == 0 && same_overlay(&csv, &by_id));
	if (!err.status) {
		overlay_free(&json);
		overlay_free(&by_id);
	}
	if (ok)
		overlay_free(&csv);
}

/* A name given twice: an error naming both lines, or the merge chosen. */
static void test_repeats(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	int64_t dot = graph_find_node(g, "dot.1");
	static const struct bad_case bad[] = {
		BAD("name,t\ndot.1,1\nadd.2,2\ndot.1,3\n", "data.csv:4: 'dot.1' is named again, first at line 2; name "
							  "each instruction once, or merge its values with "
							  "--data-merge sum|first|last"),
		BAD("name,t\ndot.1,1\ndot.1,\n", "data.csv:3: 'dot.1' is named again, first at line 2"),
		BAD("id,t\n2,1\n\n2,2\n", "data.csv:4: '2' is named again, first at line 2"),
		BAD("{\"dot.1\": {\"t\": 1},\n \"dot.1\": {\"t\": 2}}",
		    "data.csv:2 (byte 30): 'dot.1' is named again, first at line 1 (byte 10)"),
		BAD("[{\"name\": \"dot.1\", \"t\": 1},\n{\"name\": \"dot.1\", \"t\": 2}]",
		    "data.csv:2 (byte 28): 'dot.1' is named again, first at line 1 (byte 1)"),
	};
	CHECK("repeats: a name given twice is an error naming both lines", all_refused(g, bad, 5));
	static const char csv[] = "name,t,u\ndot.1,1,a\ndot.1,2,b\nadd.2,5,\ndot.1,,c\n";
	static const struct {
		int merge;
		double t;
		const char *u;
	} want[] = {{OVERLAY_MERGE_SUM, 3, "c"}, {OVERLAY_MERGE_FIRST, 1, "a"}, {OVERLAY_MERGE_LAST, 2, "c"}};
	for (int i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof name, "repeats: merge %d keeps %g and '%s'", want[i].merge, want[i].t, want[i].u);
		CHECK(name, parse_n(g, csv, sizeof csv - 1, want[i].merge, &o, &err) == 0 &&
		      o.cols[0].num[dot] == want[i].t && strcmp(o.cols[1].text[dot], want[i].u) == 0 && o.rows == 4);
		if (!err.status)
			overlay_free(&o);
	}
	static const char huge[] = "name,t\ndot.1,1e308\nadd.2,1\ndot.1,1e308\n";
	CHECK("repeats: a sum past a double's range is an error naming the field and the instruction",
	      parse_n(g, huge, sizeof huge - 1, OVERLAY_MERGE_SUM, &o, &err) != 0 && err.status == HS_EDATA &&
	      strstr(err.msg, "data.csv: field 't' of 'dot.1': its values add up past a double's range"));
	CHECK("repeats: merge words", overlay_merge_of("sum") == OVERLAY_MERGE_SUM &&
	      overlay_merge_of("first") == OVERLAY_MERGE_FIRST && overlay_merge_of("last") == OVERLAY_MERGE_LAST &&
	      overlay_merge_of("none") == OVERLAY_MERGE_NONE && overlay_merge_of("add") == -1);
}

static void test_bom(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	int64_t dot = graph_find_node(g, "dot.1");
	CHECK("bom: a CSV after a UTF-8 byte-order mark", parse(g, "\xef\xbb\xbfname,t\ndot.1,4\n", &o, &err) == 0 &&
	      overlay_find(&o, "t") == 0 && o.cols[0].num[dot] == 4);
	if (!err.status)
		overlay_free(&o);
	CHECK("bom: JSON after a UTF-8 byte-order mark",
	      parse(g, "\xef\xbb\xbf[{\"name\": \"dot.1\", \"t\": 4}]", &o, &err) == 0 && o.cols[0].num[dot] == 4);
	if (!err.status)
		overlay_free(&o);
	CHECK("bom: a JSON error's byte counts the mark", parse(g, "\xef\xbb\xbf{\"a\": 1,}", &o, &err) != 0 &&
	      strstr(err.msg, "data.csv:1 (byte 11):"));
}

/* A CSV of n fields c0..c<n-1> and one row for dot.1, c<i> = i. */
static char *wide_csv(int n, size_t *len)
{
	hs_strbuf b = {0};
	hs_strbuf_puts(&b, "name");
	for (int i = 0; i < n; i++)
		hs_strbuf_printf(&b, ",c%d", i);
	hs_strbuf_puts(&b, "\ndot.1");
	for (int i = 0; i < n; i++)
		hs_strbuf_printf(&b, ",%d", i);
	hs_strbuf_putc(&b, '\n');
	*len = b.len;
	return b.failed ? (hs_strbuf_free(&b), NULL) : hs_strbuf_take(&b);
}

/* The limits of overlay.h: fields, and fields times nodes. */
static void test_limits(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	size_t n;
	char *csv = wide_csv(OVERLAY_MAX_FIELDS, &n);
	int64_t dot = graph_find_node(g, "dot.1");
	int last = -1;
	CHECK("limits: 65536 fields read", csv && parse_n(g, csv, n, 0, &o, &err) == 0 && o.n_cols == 65536 &&
	      (last = overlay_find(&o, "c65535")) == 65535 && o.cols[last].num[dot] == 65535 &&
	      overlay_find(&o, "c31") == 31);
	if (!err.status)
		overlay_free(&o);
	free(csv);
	csv = wide_csv(1000000, &n);
	CHECK("limits: a million fields refused at the header", csv && parse_n(g, csv, n, 0, &o, &err) != 0 &&
	      err.status == HS_EDATA && strstr(err.msg, "data.csv:1: 1000000 fields, more than the 65536 hloscope reads"));
	free(csv);
	hs_strbuf j = {0};
	hs_strbuf_puts(&j, "[{\"name\": \"dot.1\", \"c0\": 0},\n{\"name\": \"add.2\"");
	for (int i = 1; i <= OVERLAY_MAX_FIELDS; i++)
		hs_strbuf_printf(&j, ", \"c%d\": %d", i, i);
	hs_strbuf_puts(&j, "}]");
	CHECK("limits: the JSON field one over the limit is refused where it is", !j.failed &&
	      parse_n(g, j.s, j.len, 0, &o, &err) != 0 &&
	      strstr(err.msg, "data.csv:2 (") && strstr(err.msg, "field 'c65536' is one more than the 65536 fields"));
	hs_strbuf_free(&j);
	/* 65536 fields over 4096 nodes: 2^28 values and a field of 4096 more */
	hs_strbuf h = {0};
	hs_strbuf_puts(&h, "HloModule wide\n\nENTRY %main () -> f32[] {\n");
	for (int i = 0; i < 4095; i++)
		hs_strbuf_printf(&h, "  %%c%d = f32[] constant(%d)\n", i, i);
	hs_strbuf_puts(&h, "  ROOT %r = f32[] constant(0)\n}\n");
	hs_graph *big = h.failed ? NULL : t_graph_of_text(h.s, h.len);
	csv = wide_csv(OVERLAY_MAX_FIELDS, &n);
	CHECK("limits: fields times nodes over OVERLAY_MAX_VALUES are refused", big && big->n_nodes == 4096 && csv &&
	      parse_n(big, csv, n, 0, &o, &err) != 0 && err.status == HS_EDATA &&
	      strstr(err.msg, "data.csv: 65536 fields over 4096 nodes are more than the 268435456 values"));
	free(csv);
	hs_strbuf_free(&h);
	if (big)
		graph_free(big);
}

static void test_buffers(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	CHECK("buffers: reads a buffer assignment", parse(g,
		"BufferAssignment:\n"
		"allocation 0: size 16, parameter 0, shape |f32[4]| at ShapeIndex {}:\n"
		" value: <3 a @0> (size=16,offset=0): f32[4]{0}\n"
		"allocation 1: size 48, maybe-live-out:\n"
		" value: <5 t @0> (size=16,offset=0): (f32[4]{0}, f32[4]{0})\n"
		" value: <6 dot.1 @0> (size=16,offset=16): f32[4]{0}\n"
		" value: <7 add.2 @0> (size=16,offset=32): f32[4]{0}\n"
		" value: <8 add.2 @{1}> (size=8,offset=32): f32[2]{0}\n"
		" value: gone.1 (size=4, offset=0)\n"
		"\nTotal bytes used: 64\n", &o, &err) == 0);
	int c = overlay_find(&o, "buffer_bytes");
	CHECK("buffers: bytes per instruction (values of one instruction add up)", c >= 0 && o.cols[c].numeric &&
	      o.cols[c].num[graph_find_node(g, "a")] == 16 && o.cols[c].num[graph_find_node(g, "add.2")] == 24 &&
	      isnan(o.cols[c].num[graph_find_node(g, "b")]) && o.unmatched == 1 && o.rows == 6);
	overlay_free(&o);
	CHECK("buffers: a value line without a size", parse(g, "BufferAssignment:\n value: <3 a @0> (offset=0)\n",
							   &o, &err) != 0 && strstr(err.msg, "data.csv:2:"));
	char line[400];
	snprintf(line, sizeof line, "BufferAssignment:\n value: <3 %0300d @0> (size=16,offset=0): f32[4]{0}\n", 7);
	CHECK("buffers: a long name is whole (counted as unmatched, by its whole name)",
	      parse(g, line, &o, &err) == 0 && o.unmatched == 1 && strlen(o.unmatched_names[0]) == 300);
	if (!err.status)
		overlay_free(&o);
}

int main(void)
{
	hs_graph *g = t_graph_of_text(MODULE_TEXT, sizeof MODULE_TEXT - 1);
	CHECK("open the module", g != NULL);
	if (!g)
		T_DONE();
	test_csv(g);
	test_values(g);
	test_json(g);
	test_records(g);
	test_repeats(g);
	test_bom(g);
	test_limits(g);
	test_buffers(g);
	hs_overlay o;
	hs_error err = {0};
	CHECK("load: a missing file", overlay_load(g, "/nonexistent/x.csv", NULL, &o, &err) != 0 &&
	      err.status == HS_EDATA && strstr(err.msg, "/nonexistent/x.csv"));
	graph_free(g);
	T_DONE();
}
