/* canvas.c - drawing a layout in character cells.  See canvas.h. */
#include "render/canvas.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "loader/hlo.h"
#include "render/palette.h"

_Static_assert(HLO_NCATEGORIES <= 8, "canvas reserves 8 category colors");
_Static_assert(DOT_HEAT_BINS <= 8, "canvas reserves 8 heat colors");

/* Edge direction bits in canvas_cell.lines. */
enum { L_UP = 1, L_DOWN = 2, L_LEFT = 4, L_RIGHT = 8, L_SOLID = 16, L_DASHED = 32, L_DOTTED = 64 };
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

/* Writes UTF-8 text from (gx, gy), at most maxw cells; returns cells used.
 * A byte to escape (base/escape.h: a control character, C1, invalid UTF-8)
 * takes four cells, \x1b (labels come escaped: this is the last guard). */
static int put_text(pen *p, int gx, int gy, const char *s, int maxw, int color, int attr)
{
	int used = 0;

	while (*s && used < maxw) {
		wchar_t ch;
		int bad;
		hs_esc_char(s, 4, HS_ESC_NAME, &bad); /* 4: stops at the NUL */
		if (bad) {
			char e[5];
			hs_esc_byte((unsigned char)*s++, e);
			for (int i = 0; i < 4 && used < maxw; i++)
				put(p, gx + used++, gy, (wchar_t)e[i], color, attr);
			continue;
		}
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

/* The line style of an edge: dashed to a placeholder, dotted for a call. */
static int edge_style(const lay_edge *e)
{
	return e->dashed ? L_DASHED : e->call ? L_DOTTED : L_SOLID;
}

static void mark_line(pen *p, int x, int y, int bits, int style)
{
	canvas_cell *c = cell(p, x, y);
	if (c)
		c->lines |= (uint8_t)(bits | style);
}

/* Edge e along its route (route.h): the line from the cell below the
 * operand's box, where its bottom border gets a tee, through the turns, to
 * the cell above the user's box, which gets the arrowhead. */
static void draw_route(pen *p, const lay_routes *R, const lay_edge *e, int32_t i)
{
	const int *b = &R->bbox[4 * i], *pt = R->pts + 2 * (size_t)R->off[i];
	int32_t n = R->off[i + 1] - R->off[i];
	int wx1 = p->x0 + p->c->width - 1, wy1 = p->y0 + p->c->height - 1;

	/* one row more above and below: the tee and the box under the arrow */
	if (n <= 0 || b[2] < p->x0 || b[0] > wx1 || b[3] + 1 < p->y0 || b[1] - 1 > wy1)
		return;
	int back = L_UP; /* the first cell comes from the operand's border above */
	for (int32_t k = 0; k + 1 < n; k++) {
		int x = pt[2 * k], y = pt[2 * k + 1], tx = pt[2 * k + 2], ty = pt[2 * k + 3];
		int fwd = dir_bit(x, y, tx, ty), rev = dir_bit(tx, ty, x, y);
		mark_line(p, x, y, back | fwd, edge_style(e));
		/* the cells between, clipped to the window */
		int dx = tx != x; /* a row, else a column */
		int lo = dx ? (x < tx ? x : tx) : (y < ty ? y : ty), hi = dx ? (x > tx ? x : tx) : (y > ty ? y : ty);
		int wlo = dx ? p->x0 : p->y0, whi = dx ? wx1 : wy1;
		if ((dx ? y < p->y0 || y > wy1 : x < p->x0 || x > wx1) || hi < wlo || lo > whi) {
			back = rev;
			continue;
		}
		for (int v = lo + 1 > wlo ? lo + 1 : wlo; v < hi && v <= whi; v++)
			mark_line(p, dx ? v : x, dx ? y : v, fwd | rev, edge_style(e));
		back = rev;
	}
	int x = pt[2 * n - 2], y = pt[2 * n - 1];
	mark_line(p, x, y, back | L_DOWN, edge_style(e)); /* into the user's top border */
	canvas_cell *c = cell(p, x, y);
	if (c)
		c->pad = (uint8_t)((c->pad & ~7) | A_DOWN);
	canvas_cell *t = cell(p, pt[0], pt[1] - 1);
	if (t)
		t->pad = (uint8_t)((t->pad & 7) | (A_DOWN << 3));
}

static wchar_t line_glyph(int m)
{
	int dashed = (m & L_DASHED) && !(m & (L_SOLID | L_DOTTED));
	int dotted = (m & L_DOTTED) && !(m & (L_SOLID | L_DASHED));

	switch (m & 15) {
	case L_UP: case L_DOWN: case L_UP | L_DOWN: return dashed ? L'╎' : dotted ? L'┊' : L'│';
	case L_LEFT: case L_RIGHT: case L_LEFT | L_RIGHT: return dashed ? L'╌' : dotted ? L'┈' : L'─';
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
		int dashed = (k->lines & L_DASHED) && !(k->lines & (L_SOLID | L_DOTTED));
		int dotted = (k->lines & L_DOTTED) && !(k->lines & (L_SOLID | L_DASHED));
		k->ch = (k->pad & 7) ? arrows[k->pad & 7] : line_glyph(k->lines);
		k->color = dashed ? CANVAS_C_PLACEHOLDER : CANVAS_C_EDGE;
		k->attr = dotted ? CANVAS_A_DIM : 0;
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
/* a collapsed computation: rounded corners */
static const box_style st_comp = {L'╭', L'─', L'╮', L'│', L'╰', L'╯',
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
	if (n->flags & LAY_COLLAPSED) {
		st = &st_comp;
		bcolor = CANVAS_C_CATEGORY + n->category;
		icolor = n->heat >= 0 ? CANVAS_C_HEAT + n->heat : CANVAS_C_CATEGORY + n->category;
	} else if (n->flags & LAY_PLACEHOLDER) {
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
	if (L->heat && (!(n->flags & LAY_PLACEHOLDER) || (n->flags & LAY_GROUP)) && mx < x + w - 1)
		put(p, mx++, y, n->heat >= 0 ? levels[n->heat] : L'·', icolor, battr);
	if ((n->flags & LAY_CONFIGURABLE) && mx + 3 < x + w - 1)
		mx += put_text(p, mx, y, "cfg", 3, bcolor, battr | CANVAS_A_BOLD);
	/* Label. */
	for (int k = 0; k < 2 && k < h - 2; k++)
		put_text(p, x + 2, y + 1 + k, n->label[k], w - 4 > 0 ? w - 4 : 0, icolor,
			 iattr | (k == 0 ? CANVAS_A_BOLD : 0));
}

/* Edge i's label (route_label.c) in its user's top border. */
static void draw_label(pen *p, const lay_routes *R, int32_t i)
{
	int32_t n = R->off[i + 1] - R->off[i];
	int x = R->label_at ? R->label_at[i] : -1;

	if (x < 0 || n <= 0)
		return;
	int y = R->pts[2 * (size_t)(R->off[i + 1] - 1) + 1] + 1;
	put_text(p, x, y, R->label[i], ROUTE_LABEL_MAX, CANVAS_C_EDGE, CANVAS_A_BOLD);
}

void canvas_draw_routed(canvas *c, const hs_layout *L, const lay_routes *R, int x0, int y0, int32_t cursor)
{
	pen p = {c, x0, y0};

	canvas_clear(c);
	if (!L)
		return;
	for (int32_t i = 0; i < L->n_clusters; i++)
		draw_cluster(&p, &L->clusters[i]);
	for (int32_t i = 0; R && i < L->n_edges && i < R->n_edges; i++)
		draw_route(&p, R, &L->edges[i], i);
	finish_lines(c);
	for (int32_t i = 0; i < L->n_nodes; i++)
		draw_node(&p, L, i, i == cursor);
	for (int32_t i = 0; R && i < L->n_edges && i < R->n_edges; i++)
		draw_label(&p, R, i);
}

void canvas_draw(canvas *c, const hs_layout *L, int x0, int y0, int32_t cursor)
{
	lay_routes *R = L && L->n_edges ? route_layout(L) : NULL;

	canvas_draw_routed(c, L, R, x0, y0, cursor);
	route_free(R);
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
		return palette_fill((hlo_category)(color - CANVAS_C_CATEGORY));
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
