/* route.c - edges routed in cells around the boxes.  See route.h.
 *
 * Per edge: the spline is traced into cells (the guide); the path starts
 * below the operand's box at the column where the spline leaves it and
 * ends above the user's box where the spline enters it, keeps the guide's
 * cells between those rows, and every run of cells that falls on a box (or
 * the column beside one) is replaced by a shortest detour found by A*. */
#include "render/route.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/index.h"
#include "render/canvas.h"

/* ---- paths of cells ------------------------------------------------------- */

typedef struct path {
	int *xy; /* x, y pairs */
	size_t n, cap;
} path;

static int push(path *p, int x, int y)
{
	if (p->n && p->xy[2 * p->n - 2] == x && p->xy[2 * p->n - 1] == y)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		int *v = realloc(p->xy, cap * 2 * sizeof *v);
		if (!v)
			return -1;
		p->xy = v;
		p->cap = cap;
	}
	p->xy[2 * p->n] = x;
	p->xy[2 * p->n + 1] = y;
	p->n++;
	return 0;
}

/* Appends 4-connected steps up to (x, y); `vertical_first` shapes the
 * staircase. */
static int step_to(path *p, int x, int y, int vertical_first)
{
	if (!p->n)
		return push(p, x, y);
	int cx = p->xy[2 * p->n - 2], cy = p->xy[2 * p->n - 1];
	while (cx != x || cy != y) {
		int dx = (x > cx) - (x < cx), dy = (y > cy) - (y < cy);
		if (dy && (vertical_first || !dx))
			cy += dy;
		else
			cx += dx;
		if (push(p, cx, cy))
			return -1;
	}
	return 0;
}

static int col_of(double x)
{
	return (int)floor(x / LAYOUT_CELL_W);
}

static int row_of(double y)
{
	return (int)floor(y / LAYOUT_CELL_H);
}

static void bezier_point(const double *P, double t, double *x, double *y)
{
	double u = 1 - t;
	double a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
	*x = a * P[0] + b * P[2] + c * P[4] + d * P[6];
	*y = a * P[1] + b * P[3] + c * P[5] + d * P[7];
}

/* The spline of e as cells (Graphviz's splines run from the tail's border
 * to near the head's, where its arrowhead would start). */
static int trace_spline(path *p, const lay_edge *e)
{
	double px = e->pts[0], py = e->pts[1];

	p->n = 0;
	if (push(p, col_of(px), row_of(py)))
		return -1;
	for (int32_t i = 0; i + 3 < e->n_pts; i += 3) {
		const double *P = &e->pts[2 * i];
		double len = 0;
		for (int k = 0; k < 3; k++)
			len += hypot((P[2 * k + 2] - P[2 * k]) / LAYOUT_CELL_W,
				     (P[2 * k + 3] - P[2 * k + 1]) / LAYOUT_CELL_H);
		int steps = (int)ceil(len * 2) + 1;
		for (int s = 0; s <= steps; s++) {
			double x, y;
			bezier_point(P, (double)s / steps, &x, &y);
			int vf = fabs(y - py) / LAYOUT_CELL_H >= fabs(x - px) / LAYOUT_CELL_W;
			if (step_to(p, col_of(x), row_of(y), vf))
				return -1;
			px = x;
			py = y;
		}
	}
	return 0;
}

/* The path kept so far: cells [0, n) of xy. */
struct kept {
	const int *xy;
	size_t n;
};

/* Whether kept cell k is the cell key (an index entry past n is stale). */
static int same_cell(const void *ctx, int32_t k, const void *key)
{
	const struct kept *w = ctx;
	const int *c = key;
	return (size_t)k < w->n && w->xy[2 * k] == c[0] && w->xy[2 * k + 1] == c[1];
}

/* Drops the loops of a path (a cell visited twice keeps its first visit),
 * with an index of the cells kept. */
static int drop_loops(path *p)
{
	struct kept w = {p->xy, 0};
	hs_index ix = {0};

	if (p->n > HS_INDEX_MAX || hs_index_reserve(&ix, p->n) != 0)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		int c[2] = {p->xy[2 * i], p->xy[2 * i + 1]};
		uint32_t h = (uint32_t)hs_mix64((uint64_t)(uint32_t)c[0] << 32 | (uint32_t)c[1]);
		int32_t k = hs_index_find(&ix, h, same_cell, &w, c);
		if (k >= 0) {
			w.n = (size_t)k + 1; /* back to the first visit */
			continue;
		}
		p->xy[2 * w.n] = c[0];
		p->xy[2 * w.n + 1] = c[1];
		hs_index_add(&ix, h, (int32_t)w.n++);   /* reserved: one per cell at most */
	}
	p->n = w.n;
	hs_index_free(&ix);
	return 0;
}

/* ---- obstacles --------------------------------------------------------- */

/* Per row of the drawing, the column spans boxes take, widened by one
 * column on each side: a line there would touch a box's side. */
typedef struct grid {
	int W, H;
	int *row_off; /* [H + 1] */
	int *span;    /* [x0, x1) pairs */
	int sx, sy, ex, ey; /* the current edge's ends: always free */
} grid;

static int cmp_span(const void *a, const void *b)
{
	const int *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Sorts each row's spans and merges those that overlap, so that a lookup
 * is a binary search (a rank may hold hundreds of boxes). */
static void grid_merge(grid *gr)
{
	int out = 0;

	for (int y = 0; y < gr->H; y++) {
		int a = gr->row_off[y], b = gr->row_off[y + 1], start = out;
		qsort(gr->span + 2 * a, (size_t)(b - a), 2 * sizeof *gr->span, cmp_span);
		for (int k = a; k < b; k++) {
			int x0 = gr->span[2 * k], x1 = gr->span[2 * k + 1];
			if (out > start && x0 <= gr->span[2 * out - 1]) {
				if (x1 > gr->span[2 * out - 1])
					gr->span[2 * out - 1] = x1;
				continue;
			}
			gr->span[2 * out] = x0;
			gr->span[2 * out + 1] = x1;
			out++;
		}
		gr->row_off[y] = start;
	}
	gr->row_off[gr->H] = out;
}

static int grid_build(grid *gr, const hs_layout *L)
{
	int total = 0;

	canvas_extent(L, &gr->W, &gr->H);
	gr->row_off = calloc((size_t)gr->H + 1, sizeof *gr->row_off);
	if (!gr->row_off)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		int *fill = NULL;
		if (pass == 1) {
			for (int y = 0; y < gr->H; y++)
				gr->row_off[y + 1] += gr->row_off[y];
			total = gr->row_off[gr->H];
			gr->span = malloc((size_t)(total ? total : 1) * 2 * sizeof *gr->span);
			fill = calloc((size_t)gr->H + 1, sizeof *fill);
			if (!gr->span || !fill) {
				free(fill);
				return -1;
			}
		}
		for (int32_t i = 0; i < L->n_nodes; i++) {
			int x, y, w, h;
			canvas_node_box(L, i, &x, &y, &w, &h);
			for (int r = y < 0 ? 0 : y; r < y + h && r < gr->H; r++) {
				if (pass == 0) {
					gr->row_off[r + 1]++;
					continue;
				}
				int k = gr->row_off[r] + fill[r]++;
				gr->span[2 * k] = x - 1;
				gr->span[2 * k + 1] = x + w + 1;
			}
		}
		free(fill);
	}
	grid_merge(gr);
	return 0;
}

static void grid_free(grid *gr)
{
	free(gr->row_off);
	free(gr->span);
}

static int blocked(const grid *gr, int x, int y)
{
	if ((x == gr->sx && y == gr->sy) || (x == gr->ex && y == gr->ey))
		return 0;
	if (x < 0 || y < 0 || x >= gr->W || y >= gr->H)
		return 1;
	int lo = gr->row_off[y], hi = gr->row_off[y + 1]; /* the last span starting at or before x */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (gr->span[2 * mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > gr->row_off[y] && x < gr->span[2 * lo - 1];
}

/* ---- A* over the cells of a window ------------------------------------------ */

enum { D_UP, D_DOWN, D_LEFT, D_RIGHT };
static const int DX[4] = {0, 0, -1, 1}, DY[4] = {-1, 1, 0, 0};
#define STEP 2 /* cost of a step; a bend costs BEND more */
#define BEND 3

typedef struct search {
	int *g, *from;       /* per state (cell * 4 + arrival direction) */
	unsigned char *done;
	size_t cap;          /* states allocated */
	int64_t *heap;       /* f << 32 | state */
	size_t nheap, capheap;
} search;

static int heap_push(search *s, int64_t v)
{
	if (s->nheap == s->capheap) {
		size_t cap = s->capheap ? 2 * s->capheap : 1024;
		int64_t *h = realloc(s->heap, cap * sizeof *h);
		if (!h)
			return -1;
		s->heap = h;
		s->capheap = cap;
	}
	size_t i = s->nheap++;
	while (i > 0 && s->heap[(i - 1) / 2] > v) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = v;
	return 0;
}

static int64_t heap_pop(search *s)
{
	int64_t top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1] < s->heap[c])
			c++;
		if (s->heap[c] >= last)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* A path of free cells from (ax, ay) to (bx, by) inside the window of the
 * two ends widened by `margin`, appended to `out` without its first cell.
 * Returns 1 when found, 0 when not, -1 when out of memory. */
static int astar(search *s, const grid *gr, int ax, int ay, int bx, int by, int margin, path *out)
{
	int x0 = (ax < bx ? ax : bx) - margin, x1 = (ax > bx ? ax : bx) + margin;
	int y0 = (ay < by ? ay : by) - margin, y1 = (ay > by ? ay : by) + margin;

	x0 = x0 < -1 ? -1 : x0; /* the edge's ends may lie just outside */
	y0 = y0 < -1 ? -1 : y0;
	x1 = x1 > gr->W ? gr->W : x1;
	y1 = y1 > gr->H ? gr->H : y1;
	int ww = x1 - x0 + 1, wh = y1 - y0 + 1;
	size_t states = (size_t)ww * (size_t)wh * 4;
	if (states > s->cap) {
		int *g = realloc(s->g, states * sizeof *g);
		if (!g)
			return -1;
		s->g = g;
		int *from = realloc(s->from, states * sizeof *from);
		if (!from)
			return -1;
		s->from = from;
		unsigned char *done = realloc(s->done, states);
		if (!done)
			return -1;
		s->done = done;
		s->cap = states;
	}
	for (size_t i = 0; i < states; i++)
		s->g[i] = INT_MAX;
	memset(s->done, 0, states);
	s->nheap = 0;
#define CELL(x, y) ((size_t)((y) - y0) * (size_t)ww + (size_t)((x) - x0))
	/* arriving from above: the operand's box is there */
	size_t start = CELL(ax, ay) * 4 + D_DOWN;
	s->g[start] = 0;
	s->from[start] = -1;
	if (heap_push(s, (int64_t)(STEP * (abs(bx - ax) + abs(by - ay))) << 32 | (int64_t)start))
		return -1;
	while (s->nheap) {
		size_t st = (size_t)(heap_pop(s) & 0xffffffff);
		if (s->done[st])
			continue;
		s->done[st] = 1;
		size_t c = st / 4;
		int d = (int)(st % 4), x = x0 + (int)(c % (size_t)ww), y = y0 + (int)(c / (size_t)ww);
		if (x == bx && y == by) {
			size_t mark = out->n;
			for (int64_t k = (int64_t)st; k >= 0 && (size_t)k != start; k = s->from[k]) {
				size_t kc = (size_t)k / 4;
				if (push(out, x0 + (int)(kc % (size_t)ww), y0 + (int)(kc / (size_t)ww)))
					return -1;
			}
			/* the cells went in backwards */
			for (size_t i = mark, j = out->n - 1; i < j; i++, j--) {
				int tx = out->xy[2 * i], ty = out->xy[2 * i + 1];
				out->xy[2 * i] = out->xy[2 * j];
				out->xy[2 * i + 1] = out->xy[2 * j + 1];
				out->xy[2 * j] = tx;
				out->xy[2 * j + 1] = ty;
			}
			return 1;
		}
		for (int nd = 0; nd < 4; nd++) {
			int nx = x + DX[nd], ny = y + DY[nd];
			if (nx < x0 || nx > x1 || ny < y0 || ny > y1 || blocked(gr, nx, ny))
				continue;
			size_t ns = CELL(nx, ny) * 4 + (size_t)nd;
			int g = s->g[st] + STEP + (nd != d ? BEND : 0);
			if (s->done[ns] || g >= s->g[ns])
				continue;
			s->g[ns] = g;
			s->from[ns] = (int)st;
			int64_t f = g + STEP * (abs(bx - nx) + abs(by - ny));
			if (heap_push(s, f << 32 | (int64_t)ns))
				return -1;
		}
	}
#undef CELL
	return 0;
}

/* ---- one edge -------------------------------------------------------------- */

static int in_box(const int b[4], int x, int y)
{
	return x >= b[0] && x < b[0] + b[2] && y >= b[1] && y < b[1] + b[3];
}

/* A column of box b's top or bottom border for a line: not a corner, and
 * not next to one when the box is wide enough ("┬┘" reads as a corner). */
static int clamp_inside(int x, const int b[4])
{
	int keep = b[2] >= 7 ? 2 : 1;

	if (b[2] < 3)
		return b[0] + b[2] / 2;
	return x < b[0] + keep ? b[0] + keep : x > b[0] + b[2] - 1 - keep ? b[0] + b[2] - 1 - keep : x;
}

/* Replaces each run of blocked cells of `in` by a detour, into `out`. */
static int detour(search *s, const grid *gr, const path *in, path *out)
{
	out->n = 0;
	if (push(out, in->xy[0], in->xy[1]))
		return -1;
	for (size_t i = 1; i < in->n;) {
		int x = in->xy[2 * i], y = in->xy[2 * i + 1];
		if (!blocked(gr, x, y)) {
			if (push(out, x, y))
				return -1;
			i++;
			continue;
		}
		size_t j = i;
		while (j < in->n - 1 && blocked(gr, in->xy[2 * j], in->xy[2 * j + 1]))
			j++;
		int ax = out->xy[2 * out->n - 2], ay = out->xy[2 * out->n - 1];
		int bx = in->xy[2 * j], by = in->xy[2 * j + 1], rc = 0;
		static const int margins[] = {6, 40, 1 << 20};
		for (size_t m = 0; m < sizeof margins / sizeof margins[0] && rc == 0; m++)
			rc = astar(s, gr, ax, ay, bx, by, margins[m], out);
		if (rc < 0)
			return -1;
		if (rc == 0) /* walled in: keep the cells, the boxes hide them */
			for (size_t k = i; k <= j; k++)
				if (push(out, in->xy[2 * k], in->xy[2 * k + 1]))
					return -1;
		i = j + 1;
	}
	return 0;
}

/* The path of edge e into `out` (empty when it has none). */
static int route_edge(search *s, grid *gr, const hs_layout *L, const lay_edge *e, path *guide, path *draft,
		      path *out)
{
	int tb[4], hb[4];

	out->n = 0;
	if (e->tail == e->head)
		return 0;
	canvas_node_box(L, e->tail, &tb[0], &tb[1], &tb[2], &tb[3]);
	canvas_node_box(L, e->head, &hb[0], &hb[1], &hb[2], &hb[3]);
	if (e->n_pts < 4 || trace_spline(guide, e))
		return e->n_pts < 4 ? 0 : -1;
	/* leave and enter at the columns where the spline starts and ends */
	size_t first = 0, end = guide->n;
	int sx = clamp_inside(guide->xy[0], tb), ex = clamp_inside(guide->xy[2 * guide->n - 2], hb);
	int sy = tb[1] + tb[3], ey = hb[1] - 1;
	gr->sx = sx;
	gr->sy = sy;
	gr->ex = ex;
	gr->ey = ey;
	if (in_box(hb, sx, sy) || in_box(tb, ex, ey))
		return 0; /* the boxes touch: nothing to draw between them */
	draft->n = 0;
	if (push(draft, sx, sy))
		return -1;
	for (size_t i = first; i < end; i++) {
		int x = guide->xy[2 * i], y = guide->xy[2 * i + 1];
		if (ey >= sy && (y < sy || y > ey))
			continue; /* beside the operand or the user: the detour starts below, ends above */
		int px = draft->xy[2 * draft->n - 2], py = draft->xy[2 * draft->n - 1];
		if (step_to(draft, x, y, abs(y - py) >= abs(x - px)))
			return -1;
	}
	if (step_to(draft, ex, ey, 0) || drop_loops(draft))
		return -1;
	/* Once the line is right above the user's box, drop straight in: a
	 * spline's last flat stretch along the box top reads badly in cells. */
	for (size_t k = 1; k + 1 < draft->n; k++) {
		int x = draft->xy[2 * k], y = draft->xy[2 * k + 1];
		if (y == ey && x == clamp_inside(x, hb)) {
			draft->n = k + 1;
			gr->ex = x;
			break;
		}
	}
	if (detour(s, gr, draft, out) || drop_loops(out))
		return -1;
	return 0;
}

lay_routes *route_layout(const hs_layout *L)
{
	lay_routes *R = calloc(1, sizeof *R);
	grid gr;
	search s;
	path guide = {0}, draft = {0}, one = {0}, all = {0};
	int ok = 0;

	memset(&gr, 0, sizeof gr);
	memset(&s, 0, sizeof s);
	if (!R)
		return NULL;
	R->n_edges = L->n_edges;
	R->off = calloc((size_t)L->n_edges + 1, sizeof *R->off);
	R->bbox = calloc((size_t)(L->n_edges ? L->n_edges : 1) * 4, sizeof *R->bbox);
	if (!R->off || !R->bbox || grid_build(&gr, L))
		goto out;
	for (int32_t i = 0; i < L->n_edges; i++) {
		if (route_edge(&s, &gr, L, &L->edges[i], &guide, &draft, &one))
			goto out;
		int *b = &R->bbox[4 * i];
		b[0] = b[1] = INT_MAX;
		b[2] = b[3] = INT_MIN;
		for (size_t k = 0; k < one.n; k++) {
			int x = one.xy[2 * k], y = one.xy[2 * k + 1];
			b[0] = x < b[0] ? x : b[0];
			b[1] = y < b[1] ? y : b[1];
			b[2] = x > b[2] ? x : b[2];
			b[3] = y > b[3] ? y : b[3];
			/* only the ends and the turns are kept */
			if (k > 0 && k + 1 < one.n &&
			    (one.xy[2 * k - 2] == one.xy[2 * k + 2] || one.xy[2 * k - 1] == one.xy[2 * k + 3]))
				continue;
			/* all.n counts pairs; push() would merge a repeat across edges */
			if (all.n == all.cap) {
				size_t cap = all.cap ? 2 * all.cap : 1024;
				int *v = realloc(all.xy, cap * 2 * sizeof *v);
				if (!v)
					goto out;
				all.xy = v;
				all.cap = cap;
			}
			all.xy[2 * all.n] = x;
			all.xy[2 * all.n + 1] = y;
			all.n++;
		}
		R->off[i + 1] = (int32_t)all.n;
	}
	R->pts = all.xy;
	all.xy = NULL;
	ok = route_place_labels(R, L) == 0;
out:
	grid_free(&gr);
	free(s.g);
	free(s.from);
	free(s.done);
	free(s.heap);
	free(guide.xy);
	free(draft.xy);
	free(one.xy);
	free(all.xy);
	if (!ok) {
		route_free(R);
		return NULL;
	}
	return R;
}

void route_free(lay_routes *R)
{
	if (!R)
		return;
	free(R->off);
	free(R->pts);
	free(R->bbox);
	free(R->label_at);
	free(R->label);
	free(R);
}
