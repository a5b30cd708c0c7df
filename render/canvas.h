/* canvas.h - a laid-out region drawn in character cells, terminal-free.
 *
 * A canvas is a width x height grid of cells, each a wide character with a
 * color index and attribute bits.  canvas_draw() draws the window of a
 * layout (layout.h) whose top-left cell is (x0, y0) into it: node boxes
 * with box-drawing characters and the label inside, edges as lines routed
 * around the boxes (route.h: they leave an operand through its bottom
 * border, under a tee, and reach a user through its top border, under an
 * arrowhead, and never run over a box), computation clusters as dotted
 * frames.  Layout points map to cells by LAYOUT_CELL_W and
 * LAYOUT_CELL_H, so panning is just another (x0, y0).  The TUI blits the
 * cells into ncurses (mapping color indices to pairs); the golden tests dump
 * them as text with canvas_text().
 *
 * Box styles: normal ┌─┐, focus ┏━┓ (bold), highlight ╔═╗, placeholder
 * ┌╌┐ (dashed), the cursor node gets CANVAS_A_REVERSE on its label.
 * Configurable nodes show "cfg" in their top border; with heat, a shade
 * character (░▒▓█) in the top border tells the bin without colors.
 *
 * Ownership: canvas_new() returns a canvas freed by canvas_free(); the
 * string from canvas_text() is the caller's to free().
 */
#ifndef HS_CANVAS_H
#define HS_CANVAS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#include "render/gv_layout.h"
#include "render/route.h"

/* Color indices; the front end maps them to its palette. */
enum canvas_color {
	CANVAS_C_DEFAULT = 0,
	CANVAS_C_EDGE,
	CANVAS_C_CLUSTER,
	CANVAS_C_FOCUS,
	CANVAS_C_HIGHLIGHT,
	CANVAS_C_PLACEHOLDER,
	CANVAS_C_CATEGORY,  /* + hlo_category (HLO_NCATEGORIES entries) */
	CANVAS_C_HEAT = CANVAS_C_CATEGORY + 8, /* + heat bin (DOT_HEAT_BINS entries) */
	CANVAS_NCOLORS = CANVAS_C_HEAT + 8,
};

enum canvas_attr {
	CANVAS_A_BOLD = 1,
	CANVAS_A_REVERSE = 2,
	CANVAS_A_DIM = 4,
	CANVAS_A_FILL = 8,  /* inside a node box: draw the color as background */
};

typedef struct canvas_cell {
	wchar_t ch;      /* L' ' for empty */
	uint8_t color;   /* enum canvas_color */
	uint8_t attr;    /* enum canvas_attr bits */
	uint8_t lines;   /* internal: edge directions through the cell */
	uint8_t pad;
} canvas_cell;

typedef struct canvas {
	int width, height;
	canvas_cell *cells;  /* [height * width], row-major */
} canvas;

/* A canvas of w x h empty cells (NULL when out of memory or w, h <= 0). */
canvas *canvas_new(int w, int h);
void canvas_free(canvas *c);
void canvas_clear(canvas *c);
/* The cell at (x, y), or NULL outside. */
canvas_cell *canvas_at(canvas *c, int x, int y);

/* The whole drawing's size in cells. */
void canvas_extent(const hs_layout *L, int *w, int *h);
/* A node's box in cells: left column, top row, width, height. */
void canvas_node_box(const hs_layout *L, int32_t node, int *x, int *y, int *w,
		     int *h);

/* Clears c and draws the window of L at (x0, y0); `cursor` is a node index
 * to show reversed, or -1.  Routes the edges first: a caller drawing one
 * layout many times (panning, bands of rows) routes once and calls
 * canvas_draw_routed with route_layout(L) (R NULL: no edges). */
void canvas_draw(canvas *c, const hs_layout *L, int x0, int y0, int32_t cursor);
void canvas_draw_routed(canvas *c, const hs_layout *L, const lay_routes *R, int x0, int y0,
			int32_t cursor);

/* Rows as UTF-8 text, trailing blanks removed, each ending in '\n'.  NULL
 * when out of memory. */
char *canvas_text(const canvas *c);

/* Writes the same rows as canvas_text() to fp; -1 on a write error. */
int canvas_write(const canvas *c, FILE *fp);

/* The color of a color index as "#rrggbb" (categories and heat bins use the
 * Graphviz fills), for front ends that can set colors. */
const char *canvas_color_rgb(int color);

/* Viewport helpers. */
typedef enum canvas_dir { CANVAS_LEFT, CANVAS_RIGHT, CANVAS_UP, CANVAS_DOWN } canvas_dir;
/* The node nearest to `from` in direction d (centers, favoring nodes in
 * line with it), or -1 when there is none. */
int32_t canvas_nearest(const hs_layout *L, int32_t from, canvas_dir d);
/* Moves (*x0, *y0) so that node `node` is in a view of w x h cells
 * (centered when `center`, else just scrolled into view). */
void canvas_view_show(const hs_layout *L, int32_t node, int w, int h, int center,
		      int *x0, int *y0);
/* Clamps (*x0, *y0) so a w x h view stays over the drawing (0 when smaller). */
void canvas_view_clamp(const hs_layout *L, int w, int h, int *x0, int *y0);
/* The node whose box holds cell (x, y) of the drawing, or -1 (mouse clicks). */
int32_t canvas_node_at(const hs_layout *L, int x, int y);

#endif
