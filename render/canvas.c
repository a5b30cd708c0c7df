/* canvas.c - drawing a layout in character cells.  See canvas.h. */
#include "render/canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"

_Static_assert(HLO_NCATEGORIES <= 8, "canvas reserves 8 category colors");
_Static_assert(DOT_HEAT_BINS <= 8, "canvas reserves 8 heat colors");

/* Edge direction bits in canvas_cell.lines. */
enum { L_UP = 1, L_DOWN = 2, L_LEFT = 4, L_RIGHT = 8, L_SOLID = 16, L_DASHED = 32 };
/* canvas_cell.pad: arrow in bits 0-2, tee in bits 3-5 (1 down, 2 up, 3 left, 4 right). */
enum { A_DOWN = 1, A_UP = 2, A_LEFT = 3, A_RIGHT = 4 };

canvas *canvas_new(int w, int h)
{
	canvas *c;

	if (w <= 0 || h <= 0 || (size_t)w * (size_t)h > ((size_t)1 << 28))
		return NULL;
	c = malloc(sizeof *c);
	if (!c)
		return NULL;
	c->width = w;
	c->height = h;
	c->cells = malloc((size_t)w * (size_t)h * sizeof *c->cells);
	if (!c->cells) {
		free(c);
		return NULL;
	}
	canvas_clear(c);
	return c;
}

void canvas_free(canvas *c)
{
	if (!c)
		return;
	free(c->cells);
	free(c);
}

void canvas_clear(canvas *c)
{
	size_t n = (size_t)c->width * (size_t)c->height;
	for (size_t i = 0; i < n; i++) {
		c->cells[i].ch = L' ';
		c->cells[i].color = CANVAS_C_DEFAULT;
		c->cells[i].attr = 0;
		c->cells[i].lines = 0;
		c->cells[i].pad = 0;
	}
}

canvas_cell *canvas_at(canvas *c, int x, int y)
{
	if (!c || x < 0 || y < 0 || x >= c->width || y >= c->height)
		return NULL;
	return &c->cells[(size_t)y * (size_t)c->width + (size_t)x];
}

/* ---- geometry --------------------------------------------------------- */

static int col_of(double x)
{
	return (int)floor(x / LAYOUT_CELL_W);
}

static int row_of(double y)
{
	return (int)floor(y / LAYOUT_CELL_H);
}

void canvas_node_box(const hs_layout *L, int32_t node, int *x, int *y, int *w, int *h)
{
	const lay_node *n = &L->nodes[node];
	int bw = (int)lround(n->w / LAYOUT_CELL_W), bh = (int)lround(n->h / LAYOUT_CELL_H);

	if (bw < 2)
		bw = 2;
	if (bh < 2)
		bh = 2;
	*x = (int)lround((n->x - n->w / 2) / LAYOUT_CELL_W);
	*y = (int)lround((n->y - n->h / 2) / LAYOUT_CELL_H);
	*w = bw;
	*h = bh;
}

void canvas_extent(const hs_layout *L, int *w, int *h)
{
	int W = (int)ceil(L->width / LAYOUT_CELL_W) + 1;
	int H = (int)ceil(L->height / LAYOUT_CELL_H) + 1;

	for (int32_t i = 0; i < L->n_nodes; i++) {
		int x, y, bw, bh;
		canvas_node_box(L, i, &x, &y, &bw, &bh);
		if (x + bw > W)
			W = x + bw;
		if (y + bh > H)
			H = y + bh;
	}
	*w = W;
	*h = H;
}

static int in_box(const int box[4], int x, int y)
{
	return x >= box[0] && x < box[0] + box[2] && y >= box[1] && y < box[1] + box[3];
}

/* ---- drawing context -------------------------------------------------- */

typedef struct pen {
	canvas *c;
	int x0, y0;
	int *path;      /* x, y pairs */
	size_t n, cap;
} pen;

static canvas_cell *cell(pen *p, int gx, int gy)
{
	return canvas_at(p->c, gx - p->x0, gy - p->y0);
}

static void put(pen *p, int gx, int gy, wchar_t ch, int color, int attr)
{
	canvas_cell *c = cell(p, gx, gy);
	if (c) {
		c->ch = ch;
		c->color = (uint8_t)color;
		c->attr = (uint8_t)attr;
	}
}

/* Decodes one UTF-8 sequence; returns its length (1 for bad bytes). */
static int utf8_decode(const char *s, wchar_t *out)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] < 0x80) {
		*out = u[0];
		return 1;
	}
	if ((u[0] & 0xE0) == 0xC0 && (u[1] & 0xC0) == 0x80) {
		*out = (wchar_t)(((u[0] & 0x1F) << 6) | (u[1] & 0x3F));
		return 2;
	}
	if ((u[0] & 0xF0) == 0xE0 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80) {
		*out = (wchar_t)(((u[0] & 0x0F) << 12) | ((u[1] & 0x3F) << 6) | (u[2] & 0x3F));
		return 3;
	}
	if ((u[0] & 0xF8) == 0xF0 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80 &&
	    (u[3] & 0xC0) == 0x80) {
		*out = (wchar_t)(((u[0] & 0x07) << 18) | ((u[1] & 0x3F) << 12) |
				 ((u[2] & 0x3F) << 6) | (u[3] & 0x3F));
		return 4;
	}
	*out = L'?';
	return 1;
}

/* Writes UTF-8 text from (gx, gy), at most maxw cells; returns cells used. */
static int put_text(pen *p, int gx, int gy, const char *s, int maxw, int color, int attr)
{
	int used = 0;

	while (*s && used < maxw) {
		wchar_t ch;
		s += utf8_decode(s, &ch);
		put(p, gx + used, gy, ch, color, attr);
		used++;
	}
	return used;
}

/* ---- clusters --------------------------------------------------------- */

static void draw_cluster(pen *p, const lay_cluster *cl)
{
	int x0 = col_of(cl->x0), x1 = col_of(cl->x1 - 0.01);
	int y0 = row_of(cl->y0), y1 = row_of(cl->y1 - 0.01);
	const int color = CANVAS_C_CLUSTER, attr = CANVAS_A_DIM;

	if (x1 <= x0 || y1 <= y0)
		return;
	for (int x = x0 + 1; x < x1; x++) {
		put(p, x, y0, L'┄', color, attr);
		put(p, x, y1, L'┄', color, attr);
	}
	for (int y = y0 + 1; y < y1; y++) {
		put(p, x0, y, L'┆', color, attr);
		put(p, x1, y, L'┆', color, attr);
	}
	put(p, x0, y0, L'┌', color, attr);
	put(p, x1, y0, L'┐', color, attr);
	put(p, x0, y1, L'└', color, attr);
	put(p, x1, y1, L'┘', color, attr);
	if (x1 - x0 > 6) {
		put(p, x0 + 1, y0, L' ', color, attr);
		int n = put_text(p, x0 + 2, y0, cl->label, x1 - x0 - 5, color, attr);
		put(p, x0 + 2 + n, y0, L' ', color, attr);
	}
}

/* ---- edges ------------------------------------------------------------ */

static int path_push(pen *p, int x, int y)
{
	if (p->n && p->path[2 * p->n - 2] == x && p->path[2 * p->n - 1] == y)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		int *np = realloc(p->path, cap * 2 * sizeof *np);
		if (!np)
			return -1;
		p->path = np;
		p->cap = cap;
	}
	p->path[2 * p->n] = x;
	p->path[2 * p->n + 1] = y;
	p->n++;
	return 0;
}

/* Appends cells up to (x, y) with 4-connected steps; `vertical_first` picks
 * the staircase's shape. */
static int path_to(pen *p, int x, int y, int vertical_first)
{
	if (!p->n)
		return path_push(p, x, y);
	int cx = p->path[2 * p->n - 2], cy = p->path[2 * p->n - 1];
	while (cx != x || cy != y) {
		int dx = (x > cx) - (x < cx), dy = (y > cy) - (y < cy);
		if (dy && (vertical_first || !dx))
			cy += dy;
		else
			cx += dx;
		if (path_push(p, cx, cy))
			return -1;
	}
	return 0;
}

static int dir_bit(int fx, int fy, int tx, int ty)
{
	if (ty < fy)
		return L_UP;
	if (ty > fy)
		return L_DOWN;
	if (tx < fx)
		return L_LEFT;
	if (tx > fx)
		return L_RIGHT;
	return 0;
}

static void bezier_point(const double *P, double t, double *x, double *y)
{
	double u = 1 - t;
	double a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
	*x = a * P[0] + b * P[2] + c * P[4] + d * P[6];
	*y = a * P[1] + b * P[3] + c * P[5] + d * P[7];
}

static int trace_edge(pen *p, const hs_layout *L, const lay_edge *e)
{
	const lay_node *t = &L->nodes[e->tail], *h = &L->nodes[e->head];
	double px = t->x, py = t->y;

	p->n = 0;
	if (path_push(p, col_of(t->x), row_of(t->y)))
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
			if (path_to(p, col_of(x), row_of(y), vf))
				return -1;
			px = x;
			py = y;
		}
	}
	int vf = fabs(h->y - py) / LAYOUT_CELL_H >= fabs(h->x - px) / LAYOUT_CELL_W;
	return path_to(p, col_of(h->x), row_of(h->y), vf);
}

/* 1 when the edge may touch the window: a B-spline stays inside the hull
 * of its control points, and the traced path also joins the box centers. */
static int edge_visible(const pen *p, const hs_layout *L, const lay_edge *e)
{
	const lay_node *t = &L->nodes[e->tail], *h = &L->nodes[e->head];
	double x0 = fmin(t->x, h->x), x1 = fmax(t->x, h->x);
	double y0 = fmin(t->y, h->y), y1 = fmax(t->y, h->y);

	for (int32_t i = 0; i < e->n_pts; i++) {
		x0 = fmin(x0, e->pts[2 * i]);
		x1 = fmax(x1, e->pts[2 * i]);
		y0 = fmin(y0, e->pts[2 * i + 1]);
		y1 = fmax(y1, e->pts[2 * i + 1]);
	}
	return col_of(x1) + 1 >= p->x0 && col_of(x0) - 1 < p->x0 + p->c->width &&
	       row_of(y1) + 1 >= p->y0 && row_of(y0) - 1 < p->y0 + p->c->height;
}

static void draw_edge(pen *p, const hs_layout *L, const lay_edge *e)
{
	int tb[4], hb[4];

	if (!edge_visible(p, L, e) || trace_edge(p, L, e) || p->n < 2)
		return;
	canvas_node_box(L, e->tail, &tb[0], &tb[1], &tb[2], &tb[3]);
	canvas_node_box(L, e->head, &hb[0], &hb[1], &hb[2], &hb[3]);
	size_t s = 0, z = p->n - 1;
	while (s < p->n && in_box(tb, p->path[2 * s], p->path[2 * s + 1]))
		s++;
	while (z > 0 && in_box(hb, p->path[2 * z], p->path[2 * z + 1]))
		z--;
	if (s == 0 || s > z || z + 1 >= p->n)
		return; /* boxes touch or the path never leaves them */
	/* Once the line is right above the user's box, drop straight in: the
	 * spline's last flat stretch along the box top reads badly in cells. */
	int last_dir = 0;
	for (size_t i = s; i < z; i++) {
		int x = p->path[2 * i], y = p->path[2 * i + 1];
		if (y == hb[1] - 1 && x > hb[0] && x < hb[0] + hb[2] - 1) {
			z = i;
			last_dir = L_DOWN;
			break;
		}
	}
	for (size_t i = s; i <= z; i++) {
		int x = p->path[2 * i], y = p->path[2 * i + 1];
		canvas_cell *c = cell(p, x, y);
		if (!c)
			continue;
		c->lines |= (uint8_t)dir_bit(x, y, p->path[2 * i - 2], p->path[2 * i - 1]);
		if (i == z && last_dir)
			c->lines |= (uint8_t)last_dir;
		else
			c->lines |= (uint8_t)dir_bit(x, y, p->path[2 * i + 2], p->path[2 * i + 3]);
		c->lines |= e->dashed ? L_DASHED : L_SOLID;
	}
	/* Arrowhead on the last cell before the user's box. */
	{
		int x = p->path[2 * z], y = p->path[2 * z + 1];
		int d = last_dir ? last_dir : dir_bit(x, y, p->path[2 * z + 2], p->path[2 * z + 3]);
		canvas_cell *c = cell(p, x, y);
		if (c) {
			int a = d == L_DOWN ? A_DOWN : d == L_UP ? A_UP : d == L_LEFT ? A_LEFT : A_RIGHT;
			c->pad = (uint8_t)((c->pad & ~7) | a);
		}
	}
	/* A tee where the line leaves the operand's box. */
	{
		int x = p->path[2 * s - 2], y = p->path[2 * s - 1];
		int d = dir_bit(x, y, p->path[2 * s], p->path[2 * s + 1]);
		canvas_cell *c = cell(p, x, y);
		if (c) {
			int a = d == L_DOWN ? A_DOWN : d == L_UP ? A_UP : d == L_LEFT ? A_LEFT : A_RIGHT;
			c->pad = (uint8_t)((c->pad & 7) | (a << 3));
		}
	}
}

static wchar_t line_glyph(int m)
{
	int dashed = (m & L_DASHED) && !(m & L_SOLID);

	switch (m & 15) {
	case L_UP: case L_DOWN: case L_UP | L_DOWN: return dashed ? L'╎' : L'│';
	case L_LEFT: case L_RIGHT: case L_LEFT | L_RIGHT: return dashed ? L'╌' : L'─';
	case L_DOWN | L_RIGHT: return L'╭';
	case L_DOWN | L_LEFT: return L'╮';
	case L_UP | L_RIGHT: return L'╰';
	case L_UP | L_LEFT: return L'╯';
	case L_UP | L_DOWN | L_RIGHT: return L'├';
	case L_UP | L_DOWN | L_LEFT: return L'┤';
	case L_DOWN | L_LEFT | L_RIGHT: return L'┬';
	case L_UP | L_LEFT | L_RIGHT: return L'┴';
	case 15: return L'┼';
	}
	return L' ';
}

static void finish_lines(canvas *c)
{
	static const wchar_t arrows[] = {0, L'▼', L'▲', L'◀', L'▶'};
	size_t n = (size_t)c->width * (size_t)c->height;

	for (size_t i = 0; i < n; i++) {
		canvas_cell *k = &c->cells[i];
		if (!k->lines && !(k->pad & 7))
			continue;
		int dashed = (k->lines & L_DASHED) && !(k->lines & L_SOLID);
		k->ch = (k->pad & 7) ? arrows[k->pad & 7] : line_glyph(k->lines);
		k->color = dashed ? CANVAS_C_PLACEHOLDER : CANVAS_C_EDGE;
		k->attr = 0;
	}
}

/* ---- nodes ------------------------------------------------------------ */

typedef struct box_style {
	wchar_t tl, h, tr, v, bl, br;
	wchar_t tee_down, tee_up, tee_left, tee_right;
} box_style;

static const box_style st_normal = {L'┌', L'─', L'┐', L'│', L'└', L'┘',
				    L'┬', L'┴', L'┤', L'├'};
static const box_style st_focus = {L'┏', L'━', L'┓', L'┃', L'┗', L'┛',
				   L'┯', L'┷', L'┨', L'┠'};
static const box_style st_high = {L'╔', L'═', L'╗', L'║', L'╚', L'╝',
				  L'╤', L'╧', L'╢', L'╟'};
static const box_style st_more = {L'┌', L'╌', L'┐', L'╎', L'└', L'┘',
				  L'┬', L'┴', L'┤', L'├'};

static wchar_t border_char(pen *p, const box_style *st, int gx, int gy, wchar_t plain)
{
	canvas_cell *c = cell(p, gx, gy);
	int tee = c ? (c->pad >> 3) & 7 : 0;

	switch (tee) {
	case A_DOWN: return st->tee_down;
	case A_UP: return st->tee_up;
	case A_LEFT: return st->tee_left;
	case A_RIGHT: return st->tee_right;
	}
	return plain;
}

static void draw_node(pen *p, const hs_layout *L, int32_t i, int cursor)
{
	static const wchar_t levels[DOT_HEAT_BINS] = {L'▁', L'▂', L'▃', L'▄',
						      L'▅', L'▆', L'▇', L'█'};
	const lay_node *n = &L->nodes[i];
	const box_style *st = &st_normal;
	int x, y, w, h, bcolor, battr = 0, icolor, iattr = CANVAS_A_FILL;

	canvas_node_box(L, i, &x, &y, &w, &h);
	/* Skip boxes entirely outside the window. */
	if (x + w <= p->x0 || y + h <= p->y0 || x >= p->x0 + p->c->width ||
	    y >= p->y0 + p->c->height)
		return;
	if (n->flags & LAY_PLACEHOLDER) {
		st = &st_more;
		bcolor = CANVAS_C_PLACEHOLDER;
		battr = CANVAS_A_DIM;
		icolor = CANVAS_C_PLACEHOLDER;
		iattr = 0;
	} else {
		icolor = n->heat >= 0 ? CANVAS_C_HEAT + n->heat
				      : L->heat ? CANVAS_C_DEFAULT : CANVAS_C_CATEGORY + n->category;
		bcolor = L->heat ? CANVAS_C_DEFAULT : CANVAS_C_CATEGORY + n->category;
		if (n->flags & LAY_FOCUS) {
			st = &st_focus;
			bcolor = CANVAS_C_FOCUS;
			battr = CANVAS_A_BOLD;
		} else if (n->flags & LAY_HIGHLIGHT) {
			st = &st_high;
			bcolor = CANVAS_C_HIGHLIGHT;
			battr = CANVAS_A_BOLD;
		}
	}
	if (cursor)
		iattr |= CANVAS_A_REVERSE;
	/* Frame. */
	for (int cx = x + 1; cx < x + w - 1; cx++) {
		put(p, cx, y, border_char(p, st, cx, y, st->h), bcolor, battr);
		put(p, cx, y + h - 1, border_char(p, st, cx, y + h - 1, st->h), bcolor, battr);
	}
	for (int cy = y + 1; cy < y + h - 1; cy++) {
		put(p, x, cy, border_char(p, st, x, cy, st->v), bcolor, battr);
		put(p, x + w - 1, cy, border_char(p, st, x + w - 1, cy, st->v), bcolor, battr);
		for (int cx = x + 1; cx < x + w - 1; cx++)
			put(p, cx, cy, L' ', icolor, iattr);
	}
	put(p, x, y, st->tl, bcolor, battr);
	put(p, x + w - 1, y, st->tr, bcolor, battr);
	put(p, x, y + h - 1, st->bl, bcolor, battr);
	put(p, x + w - 1, y + h - 1, st->br, bcolor, battr);
	/* Marks in the top border. */
	int mx = x + 1;
	if (L->heat && !(n->flags & LAY_PLACEHOLDER) && mx < x + w - 1)
		put(p, mx++, y, n->heat >= 0 ? levels[n->heat] : L'·', icolor, battr);
	if ((n->flags & LAY_CONFIGURABLE) && mx + 3 < x + w - 1)
		mx += put_text(p, mx, y, "cfg", 3, bcolor, battr | CANVAS_A_BOLD);
	/* Label. */
	for (int k = 0; k < 2 && k < h - 2; k++)
		put_text(p, x + 2, y + 1 + k, n->label[k], w - 4 > 0 ? w - 4 : 0, icolor,
			 iattr | (k == 0 ? CANVAS_A_BOLD : 0));
}

void canvas_draw(canvas *c, const hs_layout *L, int x0, int y0, int32_t cursor)
{
	pen p = {c, x0, y0, NULL, 0, 0};

	canvas_clear(c);
	if (!L)
		return;
	for (int32_t i = 0; i < L->n_clusters; i++)
		draw_cluster(&p, &L->clusters[i]);
	for (int32_t i = 0; i < L->n_edges; i++)
		draw_edge(&p, L, &L->edges[i]);
	finish_lines(c);
	for (int32_t i = 0; i < L->n_nodes; i++)
		draw_node(&p, L, i, i == cursor);
	free(p.path);
}

/* ---- text ------------------------------------------------------------- */

static size_t utf8_encode(wchar_t ch, char *out)
{
	uint32_t u = (uint32_t)ch;

	if (u < 0x80) {
		out[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		out[0] = (char)(0xC0 | (u >> 6));
		out[1] = (char)(0x80 | (u & 0x3F));
		return 2;
	}
	if (u < 0x10000) {
		out[0] = (char)(0xE0 | (u >> 12));
		out[1] = (char)(0x80 | ((u >> 6) & 0x3F));
		out[2] = (char)(0x80 | (u & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (u >> 18));
	out[1] = (char)(0x80 | ((u >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((u >> 6) & 0x3F));
	out[3] = (char)(0x80 | (u & 0x3F));
	return 4;
}

char *canvas_text(const canvas *c)
{
	size_t cap = (size_t)c->height * ((size_t)c->width * 4 + 1) + 1, o = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	for (int y = 0; y < c->height; y++) {
		size_t keep = o;
		for (int x = 0; x < c->width; x++) {
			wchar_t ch = c->cells[(size_t)y * (size_t)c->width + (size_t)x].ch;
			o += utf8_encode(ch ? ch : L' ', s + o);
			if (ch != L' ' && ch != 0)
				keep = o;
		}
		o = keep;
		s[o++] = '\n';
	}
	s[o] = '\0';
	return s;
}

int canvas_write(const canvas *c, FILE *fp)
{
	char *row = malloc((size_t)c->width * 4 + 2);

	if (!row)
		return -1;
	for (int y = 0; y < c->height; y++) {
		size_t o = 0, keep = 0;
		for (int x = 0; x < c->width; x++) {
			wchar_t ch = c->cells[(size_t)y * (size_t)c->width + (size_t)x].ch;
			o += utf8_encode(ch ? ch : L' ', row + o);
			if (ch != L' ' && ch != 0)
				keep = o;
		}
		row[keep] = '\n';
		if (fwrite(row, 1, keep + 1, fp) != keep + 1) {
			free(row);
			return -1;
		}
	}
	free(row);
	return 0;
}

const char *canvas_color_rgb(int color)
{
	if (color >= CANVAS_C_CATEGORY && color < CANVAS_C_CATEGORY + HLO_NCATEGORIES)
		return hlo_category_fill((hlo_category)(color - CANVAS_C_CATEGORY));
	if (color >= CANVAS_C_HEAT && color < CANVAS_C_HEAT + DOT_HEAT_BINS)
		return dot_heat_fill(color - CANVAS_C_HEAT);
	switch (color) {
	case CANVAS_C_EDGE: return "#808080";
	case CANVAS_C_CLUSTER: return "#7f7f7f";
	case CANVAS_C_FOCUS: return "#d62728";
	case CANVAS_C_HIGHLIGHT: return "#1f77b4";
	case CANVAS_C_PLACEHOLDER: return "#a0a0a0";
	}
	return "#ffffff";
}

/* ---- navigation ------------------------------------------------------- */

int32_t canvas_nearest(const hs_layout *L, int32_t from, canvas_dir d)
{
	int32_t best = -1, best_cone = -1;
	double best_s = INFINITY, best_cone_s = INFINITY;

	if (!L || from < 0 || from >= L->n_nodes)
		return -1;
	const lay_node *f = &L->nodes[from];
	for (int32_t i = 0; i < L->n_nodes; i++) {
		if (i == from)
			continue;
		double dx = L->nodes[i].x - f->x, dy = L->nodes[i].y - f->y;
		double along, across;
		switch (d) {
		case CANVAS_LEFT: along = -dx; across = dy; break;
		case CANVAS_RIGHT: along = dx; across = dy; break;
		case CANVAS_UP: along = -dy; across = dx; break;
		default: along = dy; across = dx; break;
		}
		if (along <= 1.0)
			continue;
		double score = along + 2 * fabs(across);
		if (fabs(across) <= along && score < best_cone_s) {
			best_cone_s = score;
			best_cone = i;
		}
		if (score < best_s) {
			best_s = score;
			best = i;
		}
	}
	return best_cone >= 0 ? best_cone : best;
}

void canvas_view_clamp(const hs_layout *L, int w, int h, int *x0, int *y0)
{
	int W, H;

	canvas_extent(L, &W, &H);
	if (*x0 > W - w)
		*x0 = W - w;
	if (*y0 > H - h)
		*y0 = H - h;
	if (*x0 < 0)
		*x0 = 0;
	if (*y0 < 0)
		*y0 = 0;
}

void canvas_view_show(const hs_layout *L, int32_t node, int w, int h, int center,
		      int *x0, int *y0)
{
	int bx, by, bw, bh;

	if (!L || node < 0 || node >= L->n_nodes)
		return;
	canvas_node_box(L, node, &bx, &by, &bw, &bh);
	if (center) {
		*x0 = bx + bw / 2 - w / 2;
		*y0 = by + bh / 2 - h / 2;
	} else {
		if (bx + bw > *x0 + w)
			*x0 = bx + bw - w;
		if (bx < *x0)
			*x0 = bx;
		if (by + bh > *y0 + h)
			*y0 = by + bh - h;
		if (by < *y0)
			*y0 = by;
	}
	canvas_view_clamp(L, w, h, x0, y0);
}

int32_t canvas_node_at(const hs_layout *L, int x, int y)
{
	for (int32_t i = 0; L && i < L->n_nodes; i++) {
		int b[4];
		canvas_node_box(L, i, &b[0], &b[1], &b[2], &b[3]);
		if (in_box(b, x, y))
			return i;
	}
	return -1;
}
