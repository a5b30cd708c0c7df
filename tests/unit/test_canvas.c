/* test_canvas.c - edges drawn in cells never run over a box and reach boxes
 * only through their top (the user's arrow) and bottom (the operand's tee)
 * borders, on dense regions of the real files: high fan-in and fan-out
 * nodes of unet3d, the RNN, the NLP graph, whole tile kernels.
 *
 * Oracle: the same layout drawn without its edges.  Every cell of every
 * box must show what the box alone shows there, but for a tee on the
 * bottom border where an edge leaves; no glyph next to a box may point into
 * it, but an arrow above its top border and a line below a tee. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "loader/graph.h"
#include "render/render.h"
#include "tests/unit/t.h"

static char data_root[1024];

static hs_graph *open_real(const char *rel)
{
	char path[2048];
	hs_error err = {0};

	snprintf(path, sizeof path, "%s/npz/%s", data_root, rel);
	hs_graph *g = graph_open(path, &err);
	if (!g)
		printf("FAIL open %s: %s\n", rel, err.msg);
	return g;
}

/* Strokes of a glyph, as bits: 1 up, 2 down, 4 left, 8 right. */
static int strokes(wchar_t c)
{
	switch (c) {
	case L'│': case L'╎': return 1 | 2;
	case L'─': case L'╌': return 4 | 8;
	case L'╭': return 2 | 8;
	case L'╮': return 2 | 4;
	case L'╰': return 1 | 8;
	case L'╯': return 1 | 4;
	case L'├': return 1 | 2 | 8;
	case L'┤': return 1 | 2 | 4;
	case L'┬': return 2 | 4 | 8;
	case L'┴': return 1 | 4 | 8;
	case L'┼': return 15;
	case L'▼': return 1 | 2; /* an arrow ends a line going down */
	case L'▲': return 1 | 2;
	case L'◀': return 4 | 8;
	case L'▶': return 4 | 8;
	}
	return 0;
}

static int is_tee_down(wchar_t c)
{
	return c == L'┬' || c == L'┯' || c == L'╤';
}

struct faults {
	int overwritten, side, top, bottom, lost;
	char first[256];
};

static void note(struct faults *f, int *count, const char *what, int x, int y, const lay_node *n)
{
	if (!f->first[0])
		snprintf(f->first, sizeof f->first, "%s at cell %d,%d (node %lld)", what, x, y, (long long)n->id);
	(*count)++;
}

/* The checks of the file's comment over the whole drawing of L. */
static void check_drawing(const hs_layout *L, struct faults *f)
{
	int W, H;
	canvas_extent(L, &W, &H);
	canvas *full = canvas_new(W, H), *bare = canvas_new(W, H);
	hs_layout boxes = *L;

	if (!full || !bare) {
		printf("FAIL canvas of %d x %d cells\n", W, H);
		exit(1);
	}
	boxes.n_edges = 0;
	canvas_draw(full, L, 0, 0, -1);
	canvas_draw(bare, &boxes, 0, 0, -1);
	int *in = calloc((size_t)L->n_nodes, sizeof *in), *out = calloc((size_t)L->n_nodes, sizeof *out);
	for (int32_t i = 0; i < L->n_edges; i++) {
		in[L->edges[i].head]++;
		out[L->edges[i].tail]++;
	}
	for (int32_t i = 0; i < L->n_nodes; i++) {
		const lay_node *n = &L->nodes[i];
		int x, y, w, h, arrows = 0, tees = 0;
		canvas_node_box(L, i, &x, &y, &w, &h);
		for (int cy = y; cy < y + h; cy++)
			for (int cx = x; cx < x + w; cx++) {
				canvas_cell *a = canvas_at(full, cx, cy), *b = canvas_at(bare, cx, cy);
				if (!a || a->ch == b->ch)
					continue;
				if (cy == y + h - 1 && cx > x && cx < x + w - 1 && is_tee_down(a->ch))
					tees++;
				else
					note(f, &f->overwritten, "a box cell overwritten", cx, cy, n);
			}
		for (int cy = y; cy < y + h; cy++) {
			canvas_cell *l = canvas_at(full, x - 1, cy), *r = canvas_at(full, x + w, cy);
			if ((l && l->color != CANVAS_C_CLUSTER && (strokes(l->ch) & 8)) ||
			    (r && r->color != CANVAS_C_CLUSTER && (strokes(r->ch) & 4)))
				note(f, &f->side, "a line into a side", l && (strokes(l->ch) & 8) ? x - 1 : x + w, cy, n);
		}
		for (int cx = x; cx < x + w; cx++) {
			canvas_cell *u = canvas_at(full, cx, y - 1), *d = canvas_at(full, cx, y + h);
			if (u && u->color != CANVAS_C_CLUSTER && (strokes(u->ch) & 2)) {
				if (u->ch == L'▼' && cx > x && cx < x + w - 1)
					arrows++;
				else
					note(f, &f->top, "a line into the top border but by an arrow", cx, y - 1, n);
			}
			if (d && d->color != CANVAS_C_CLUSTER && (strokes(d->ch) & 1) &&
			    !is_tee_down(canvas_at(full, cx, y + h - 1)->ch))
				note(f, &f->bottom, "a line into the bottom border but at a tee", cx, y + h, n);
		}
		if ((in[i] && !arrows) || (out[i] && !tees))
			note(f, &f->lost, in[i] && !arrows ? "no arrow reaches a user" : "no tee on an operand",
			     x, y, n);
	}
	free(in);
	free(out);
	canvas_free(full);
	canvas_free(bare);
}

static void check_region(hs_graph *g, const char *what, int kind, int64_t center, int64_t radius)
{
	region_spec s;
	hs_error err = {0};
	struct faults f;
	char name[512];

	memset(&f, 0, sizeof f);
	region_spec_init(&s);
	s.kind = kind;
	s.center = center;
	s.radius = radius;
	region *r = region_select(g, &s, &err);
	hs_layout *L = r ? layout_region(r, NULL, &err) : NULL;
	if (!L) {
		printf("FAIL %s: %s\n", what, err.msg);
		region_free(r);
		return;
	}
	check_drawing(L, &f);
	snprintf(name, sizeof name, "%s (%d nodes, %d edges): no box cell overwritten by an edge", what,
		 L->n_nodes, L->n_edges);
	CHECK(name, f.overwritten == 0 || (printf("# %d, first %s\n", f.overwritten, f.first), 0));
	snprintf(name, sizeof name, "%s: edges reach boxes through top and bottom only", what);
	CHECK(name, f.side + f.top + f.bottom == 0 ||
			    (printf("# %d sides, %d tops, %d bottoms; first %s\n", f.side, f.top, f.bottom,
				    f.first), 0));
	snprintf(name, sizeof name, "%s: every edge leaves its operand and reaches its user", what);
	CHECK(name, f.lost == 0 || (printf("# %d, first %s\n", f.lost, f.first), 0));
	layout_free(L);
	region_free(r);
}

int main(void)
{
	const char *d = getenv("DATA");

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(data_root, sizeof data_root, "%s", d ? d : "../shared/data/tpugraphs");
	hs_graph *unet = open_real("layout/xla/default/train/unet3d.npz");
	hs_graph *rnn = open_real("layout/xla/random/train/openai_v0_rnn_optimized.npz");
	hs_graph *nlp = open_real("layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz");
	hs_graph *tile = open_real("tile/xla/test/0ac539372cc77cc6791794b369b984e1.npz");
	if (!unet || !rnn || !nlp || !tile)
		return 1;
	/* high fan-in: select-and-scatter 918 (5 operands), its radius 2 */
	check_region(unet, "unet3d around 918, radius 2", REGION_AROUND, 918, 2);
	/* high fan-out: constant 230 feeds many reduces and broadcasts */
	check_region(unet, "unet3d around 230, radius 1", REGION_AROUND, 230, 1);
	/* the parameter with 228 users (collapsed into a placeholder) */
	check_region(unet, "unet3d around 183, radius 1", REGION_AROUND, 183, 1);
	check_region(unet, "unet3d around 1026, radius 3", REGION_AROUND, 1026, 3);
	check_region(rnn, "rnn around 600, radius 3", REGION_AROUND, 600, 3);
	check_region(nlp, "nlp around 600, radius 3", REGION_AROUND, 600, 3);
	check_region(tile, "a whole tile kernel", REGION_AROUND, 30, 64);
	graph_free(unet);
	graph_free(rnn);
	graph_free(nlp);
	graph_free(tile);
	dot_shutdown();
	T_DONE();
}
