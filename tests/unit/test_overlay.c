/* Unit tests of data files laid over a graph (loader/overlay.c): CSV, JSON
 * and XLA buffer assignments, their columns and their errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int parse(hs_graph *g, const char *text, hs_overlay *o, hs_error *err)
{
	hs_error_clear(err);
	return overlay_parse(g, text, strlen(text), "data.csv", o, err);
}

static void test_csv(hs_graph *g)
{
	hs_overlay o;
	hs_error err = {0};
	int64_t dot = graph_find_node(g, "dot.1"), add = graph_find_node(g, "add.2");
	CHECK("csv: reads", parse(g, "name,time_us,unit\n"
				      "dot.1,12.5,us\n"
				      "add.2,3,\"us, wall\"\n"
				      "dot.1,2.5,\n"
				      "nowhere.9,1,x\n"
				      "\"also\nnowhere\",2,y\n", &o, &err) == 0);
	int t = overlay_find(&o, "time_us"), u = overlay_find(&o, "unit");
	CHECK("csv: a numeric and a text column", o.n_cols == 2 && t >= 0 && u >= 0 && o.cols[t].numeric &&
	      !o.cols[u].numeric);
	CHECK("csv: a node named twice adds its numbers", t >= 0 && o.cols[t].num[dot] == 15.0 &&
	      o.cols[t].num[add] == 3.0 && isnan(o.cols[t].num[graph_find_node(g, "a")]));
	CHECK("csv: text with a quoted comma; the last text kept", u >= 0 && strcmp(o.cols[u].text[add], "us, wall") == 0 &&
	      strcmp(o.cols[u].text[dot], "us") == 0);
	CHECK("csv: rows naming no node are counted and kept by name", o.rows == 5 && o.matched == 2 &&
	      o.unmatched == 2 && strcmp(o.unmatched_names[0], "nowhere.9") == 0 &&
	      strcmp(o.unmatched_names[1], "also\nnowhere") == 0);
	overlay_free(&o);
	CHECK("csv: by id", parse(g, "id,x\r\n2,7\r\n99,1\r\n", &o, &err) == 0 && o.cols[0].num[2] == 7 &&
	      o.unmatched == 1);
	overlay_free(&o);
	static const struct { const char *text, *msg; } bad[] = {
		{"", "data.csv: empty"},
		{"node,x\n", "data.csv:1: the header must start with 'name' or 'id'"},
		{"name\n", "data.csv:1: the header must start with 'name' or 'id'"},
		{"name,x y\n", "data.csv:1: column 'x y' is not a field name"},
		{"name,x,x\n", "data.csv:1: column 'x' is given twice"},
		{"name,x\ndot.1,1\nadd.2\n", "data.csv:3: 1 fields where the header has 2"},
		{"name,x\ndot.1,\"1\n", "data.csv:2: an unclosed quote"},
		{"name,x\ndot.1,\"1\"2\n", "data.csv:2: text after a closing quote"},
		{"id,x\nseven,1\n", "data.csv:2: id 'seven' is not a node id"},
	};
	int all = 1;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (parse(g, bad[i].text, &o, &err) == 0 || err.status != HS_EDATA || !strstr(err.msg, bad[i].msg)) {
			printf("# '%s': %s\n", bad[i].text, err.msg);
			all = 0;
		}
	CHECK("csv: malformed files refused with FILE:LINE and what was expected", all);
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
	CHECK("json: an array is refused with its byte", parse(g, "{\"dot.1\": {\"v\": [1]}}", &o, &err) != 0 &&
	      strstr(err.msg, "data.csv: byte 16: field 'v' of 'dot.1' is an array"));
	CHECK("json: not an object", parse(g, " [1]", &o, &err) != 0 && strstr(err.msg, "byte 1: an object"));
	CHECK("json: a syntax error with its byte", parse(g, "{\"a\": {\"x\": 1,}}", &o, &err) != 0 &&
	      strstr(err.msg, "data.csv: byte 14:"));
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
}

int main(void)
{
	hs_graph *g = t_graph_of_text(MODULE_TEXT, sizeof MODULE_TEXT - 1);
	CHECK("open the module", g != NULL);
	if (!g)
		T_DONE();
	test_csv(g);
	test_json(g);
	test_buffers(g);
	hs_overlay o;
	hs_error err = {0};
	CHECK("load: a missing file", overlay_load(g, "/nonexistent/x.csv", &o, &err) != 0 && err.status == HS_EDATA &&
	      strstr(err.msg, "/nonexistent/x.csv"));
	graph_free(g);
	T_DONE();
}
