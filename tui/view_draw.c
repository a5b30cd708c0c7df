/* view_draw.c - the graph drawing: the region around a node laid out by
 * Graphviz (render/) and blitted from a character canvas.  Arrows move a
 * cursor between nodes, H/J/K/L pan, Enter re-centres, + and - change the
 * radius, x expands the called computations collapsed into boxes (or
 * collapses them again), e exports what is shown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Graphviz's headers have a type named `box`, curses a function: rename
 * Graphviz's, which this file never uses by name. */
#define box gv_box
#include "render/render.h"
#undef box

#include "base/parse.h"
#include "base/plural.h"
#include "loader/hlo.h"
#include "tui/tui.h"

#define DEFAULT_RADIUS 2

struct drawing {
	tui_doc *doc;
	region *r;
	dot_opts opts;
	int64_t radius, wanted;
	int64_t cursor_id;   /* graph node under the cursor */
	int x0, y0;          /* top-left cell of the view in the drawing */
	int vw, vh;          /* view size last drawn */
	int recenter;        /* centre the cursor at the next draw */
	canvas *cv;
	lay_routes *routes;  /* the edges of the layout whose key is routes_key, routed once */
	char routes_key[256];
	char note[256];
	int64_t *hl;         /* highlighted nodes (owned; opts.highlight points here) */
	char **notes;        /* a comparison's values per node, or NULL (owned) */
	char legend[1024];   /* a comparison's legend, or "" */
	int own_legend;      /* the legend is the caller's (a diff's): shown above the drawing */
	int expand;          /* 1: called computations drawn in full */
};

static layout_cache *cache(tui_doc *d)
{
	if (!d->layouts)
		d->layouts = layout_cache_new(8);
	return d->layouts;
}

static const hs_layout *get_layout(struct drawing *dr, hs_error *err)
{
	layout_cache *c = cache(dr->doc);
	if (!c) {
		hs_fail(err, HS_ENOMEM, "out of memory laying out the drawing");
		return NULL;
	}
	return layout_cache_get(c, dr->r, &dr->opts, err);
}

/* Selects the region around `center`, shrinking the radius when the
 * region is over the limit. */
static int select_region(struct drawing *dr, int64_t center, hs_error *err)
{
	region_spec s;
	region *r;

	region_spec_init(&s);
	s.kind = REGION_AROUND;
	s.center = center;
	s.radius = dr->wanted;
	s.expand = dr->expand ? "all" : NULL;
	dr->note[0] = '\0';
	int64_t fit = region_fit_radius(dr->doc->g, &s);
	if (fit < 0) {
		/* even the node and its direct neighbours are too many: force radius 0 */
		s.radius = 0;
		s.force = 1;
		snprintf(dr->note, sizeof dr->note, "the neighbourhood is over %d nodes: showing the node alone",
			 REGION_DEFAULT_LIMIT);
	} else if (fit < s.radius) {
		snprintf(dr->note, sizeof dr->note, "radius %lld is over %d nodes: showing radius %lld",
			 (long long)s.radius, REGION_DEFAULT_LIMIT, (long long)fit);
		s.radius = fit;
	}
	r = region_select(dr->doc->g, &s, err);
	if (!r)
		return -1;
	region_free(dr->r);
	dr->r = r;
	dr->radius = s.radius;
	dr->cursor_id = center;
	dr->recenter = 1;
	return 0;
}

static attr_t cell_attr(const canvas_cell *c)
{
	attr_t a = 0;
	int col = c->color;

	if (col >= CANVAS_C_CATEGORY && col < CANVAS_C_CATEGORY + HLO_NCATEGORIES)
		a = tui_attr(TUI_C_CAT + col - CANVAS_C_CATEGORY);
	else if (col >= CANVAS_C_HEAT)
		a = tui_attr(TUI_C_MARK);
	else if (col == CANVAS_C_EDGE || col == CANVAS_C_CLUSTER || col == CANVAS_C_PLACEHOLDER)
		a = tui_attr(TUI_C_DIM);
	else if (col == CANVAS_C_FOCUS)
		a = tui_attr(TUI_C_MARK);
	else if (col == CANVAS_C_HIGHLIGHT)
		a = tui_attr(TUI_C_HEADER);
	if (c->attr & CANVAS_A_BOLD)
		a |= A_BOLD;
	if (c->attr & CANVAS_A_REVERSE)
		a |= A_REVERSE;
	if (c->attr & CANVAS_A_DIM)
		a |= A_DIM;
	return a;
}

static void draw_view(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct drawing *dr = v->data;
	hs_error err = {0};
	char line[512];
	const hs_layout *L = get_layout(dr, &err);
	const hs_graph *g = dr->doc->g;

	/* the cursor first: a long file name in the region title may be cut */
	char boxes[64] = "";
	if (dr->r->n_boxes)
		snprintf(boxes, sizeof boxes, ", %lld box%s", (long long)dr->r->n_boxes,
			 dr->r->n_boxes == 1 ? "" : "es");
	snprintf(line, sizeof line, " cursor: node %lld %s  |  %s: %lld node%s, %lld edge%s%s%s",
		 (long long)dr->cursor_id, graph_node_opcode_name(g, dr->cursor_id), dr->r->title,
		 (long long)dr->r->n_nodes, hs_s(dr->r->n_nodes), (long long)dr->r->n_edges,
		 hs_s(dr->r->n_edges), boxes,
		 dr->r->n_more || dr->r->n_fanin ? " (+ collapsed users)" : "");
	tui_put(win, y, x, w, line, A_BOLD, 1);
	char legend[sizeof dr->legend + 4];
	snprintf(legend, sizeof legend, " %s", dr->legend);
	tui_put(win, y + 1, x, w,
		dr->note[0] ? dr->note : dr->legend[0] && dr->own_legend ? legend
			    : " arrows move between nodes  Enter re-centres  H J K L pan  + - radius  x expand  i detail  e export",
		tui_attr(dr->note[0] || (dr->legend[0] && dr->own_legend) ? TUI_C_MARK : TUI_C_DIM), 1);
	y += 2;
	h -= 2;
	if (!L) {
		tui_put(win, y, x, w, err.msg, tui_attr(TUI_C_ERROR), 1);
		return;
	}
	if (!dr->cv || dr->cv->width != w || dr->cv->height != h) {
		canvas_free(dr->cv);
		dr->cv = canvas_new(w, h);
		dr->recenter = 1;
		if (!dr->cv)
			return;
	}
	dr->vw = w;
	dr->vh = h;
	int32_t cur = layout_find(L, dr->cursor_id);
	if (dr->recenter && cur >= 0)
		canvas_view_show(L, cur, w, h, 1, &dr->x0, &dr->y0);
	dr->recenter = 0;
	canvas_view_clamp(L, w, h, &dr->x0, &dr->y0);
	if (!dr->routes || strcmp(dr->routes_key, L->key)) {
		route_free(dr->routes);
		dr->routes = route_layout(L);
		snprintf(dr->routes_key, sizeof dr->routes_key, "%s", dr->routes ? L->key : "");
	}
	canvas_draw_routed(dr->cv, L, dr->routes, dr->x0, dr->y0, cur);
	for (int r = 0; r < h; r++) {
		wmove(win, y + r, x);
		for (int c = 0; c < w; c++) {
			const canvas_cell *cell = &dr->cv->cells[(size_t)r * (size_t)w + (size_t)c];
			wchar_t s[2] = {cell->ch ? cell->ch : L' ', 0};
			if (!tui_utf8() && s[0] > 127)
				s[0] = s[0] >= 0x2500 && s[0] <= 0x257f ? L'+' : L'*';
			int cw = wcwidth(s[0]);
			wattrset(win, cell_attr(cell));
			if (cw == 1)
				waddnwstr(win, s, 1);
			else if (cw == 2 && c + 1 < w) {
				waddnwstr(win, s, 1);
				c++;
			} else
				waddch(win, ' ');
		}
	}
	wattrset(win, A_NORMAL);
}

static void move_cursor(tui *t, struct drawing *dr, canvas_dir d)
{
	hs_error err = {0};
	const hs_layout *L = get_layout(dr, &err);
	if (!L)
		return;
	int32_t cur = layout_find(L, dr->cursor_id);
	int32_t nx = canvas_nearest(L, cur, d);
	if (nx < 0 || L->nodes[nx].flags & LAY_PLACEHOLDER) {
		if (nx >= 0 && L->nodes[nx].flags & LAY_COLLAPSED)
			tui_message(t, 0, "%s (%s) is collapsed: x draws it in full", L->nodes[nx].label[0],
				    L->nodes[nx].label[1]);
		else if (nx >= 0 && L->nodes[nx].flags & LAY_PLACEHOLDER)
			tui_message(t, 0, "%lld more %s%s of node %lld %s collapsed: Enter on %lld shows %s",
				    (long long)L->nodes[nx].hidden,
				    L->nodes[nx].flags & LAY_OPERANDS ? "operand" : "user",
				    hs_s(L->nodes[nx].hidden), (long long)L->nodes[nx].id,
				    hs_plural(L->nodes[nx].hidden, "is", "are"), (long long)L->nodes[nx].id,
				    hs_plural(L->nodes[nx].hidden, "it", "them"));
		else
			tui_message(t, 0, "no node that way");
		return;
	}
	dr->cursor_id = L->nodes[nx].id;
	canvas_view_show(L, nx, dr->vw, dr->vh, 0, &dr->x0, &dr->y0);
}

static int export_drawing(tui *t, struct drawing *dr, const char *arg)
{
	hs_error err = {0};
	char def[512];
	const char *path = arg;

	if (!path || !*path) {
		snprintf(def, sizeof def, "%s-node%lld-r%lld.svg", dr->doc->g->name, (long long)dr->r->focus,
			 (long long)dr->radius);
		path = tui_prompt(t, "export to (.dot .svg .png): ", TUI_P_PATH, def);
		if (!path || !*path)
			return 1;
	}
	const char *fmt = dot_format_for_path(path);
	if (!fmt) {
		tui_message(t, 1, "export: %s: the name must end in .dot, .gv, .svg or .png", path);
		return 1;
	}
	char copy[2048];
	snprintf(copy, sizeof copy, "%s", path);
	dot_opts o;
	dot_opts_init(&o);
	o.highlight = dr->opts.highlight;
	o.n_highlight = dr->opts.n_highlight;
	o.notes = (const char *const *)dr->notes;
	o.highlight_legend = dr->legend[0] ? dr->legend : NULL;
	dot_fit fit;
	char fitted[512];
	if (dot_export(dr->r, &o, copy, fmt, &fit, &err) < 0)
		tui_message(t, 1, "export: %s", err.msg);
	else if (dot_fit_text(&fit, NULL, fitted, sizeof fitted) > 0)
		tui_message(t, 0, "wrote %s (%lld node%s): %s", copy, (long long)dr->r->n_nodes,
			    hs_s(dr->r->n_nodes), fitted);
	else
		tui_message(t, 0, "wrote %s (%lld node%s)", copy, (long long)dr->r->n_nodes,
			    hs_s(dr->r->n_nodes));
	return 1;
}

static int draw_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct drawing *dr = v->data;
	hs_error err = {0};
	int pw = dr->vw > 4 ? dr->vw / 2 : 10, ph = dr->vh > 4 ? dr->vh / 2 : 5;

	switch (req) {
	case TUI_REQ_UP:
		move_cursor(t, dr, CANVAS_UP);
		return 1;
	case TUI_REQ_DOWN:
		move_cursor(t, dr, CANVAS_DOWN);
		return 1;
	case TUI_REQ_LEFT:
		move_cursor(t, dr, CANVAS_LEFT);
		return 1;
	case TUI_REQ_RIGHT:
		move_cursor(t, dr, CANVAS_RIGHT);
		return 1;
	case TUI_REQ_PAN_LEFT:
		dr->x0 -= pw / 2;
		return 1;
	case TUI_REQ_PAN_RIGHT:
		dr->x0 += pw / 2;
		return 1;
	case TUI_REQ_PAN_UP:
		dr->y0 -= ph / 2;
		return 1;
	case TUI_REQ_PAN_DOWN:
		dr->y0 += ph / 2;
		return 1;
	case TUI_REQ_PAGE_UP:
		dr->y0 -= dr->vh;
		return 1;
	case TUI_REQ_PAGE_DOWN:
		dr->y0 += dr->vh;
		return 1;
	case TUI_REQ_HALF_UP:
		dr->y0 -= ph;
		return 1;
	case TUI_REQ_HALF_DOWN:
		dr->y0 += ph;
		return 1;
	case TUI_REQ_TOP:
		dr->y0 = 0;
		return 1;
	case TUI_REQ_BOTTOM:
		dr->y0 = 1 << 28; /* clamped when drawn */
		return 1;
	case TUI_REQ_ENTER:
		if (select_region(dr, dr->cursor_id, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		snprintf(v->title, sizeof v->title, "Drawing %lld", (long long)dr->cursor_id);
		return 1;
	case TUI_REQ_GROW:
	case TUI_REQ_SHRINK: {
		int64_t keep = dr->wanted;
		if (req == TUI_REQ_SHRINK && dr->radius == 0) {
			tui_message(t, 1, "radius 0 shows the node alone already");
			return 1;
		}
		dr->wanted = (req == TUI_REQ_GROW ? dr->radius + 1 : dr->radius - 1);
		int64_t cur = dr->cursor_id;
		if (select_region(dr, dr->r->focus >= 0 ? dr->r->focus : cur, &err) < 0) {
			dr->wanted = keep;
			tui_message(t, 1, "%s", err.msg);
		} else {
			dr->cursor_id = cur;
			if (!dr->note[0])
				tui_message(t, 0, "radius %lld: %lld node%s", (long long)dr->radius,
					    (long long)dr->r->n_nodes, hs_s(dr->r->n_nodes));
		}
		return 1;
	}
	case TUI_REQ_DETAIL:
		tui_open_node(t, dr->doc, dr->cursor_id);
		return 1;
	case TUI_REQ_EXPAND: {
		int64_t cur = dr->cursor_id, boxes = dr->r->n_boxes;
		dr->expand = !dr->expand;
		if (select_region(dr, dr->r->focus >= 0 ? dr->r->focus : cur, &err) < 0) {
			dr->expand = !dr->expand;
			tui_message(t, 1, "%s", err.msg);
			return 1;
		}
		dr->cursor_id = region_index_of(dr->r, cur) >= 0 || dr->r->focus < 0 ? cur : dr->r->focus;
		if (dr->expand)
			tui_message(t, 0, boxes ? "called computations drawn in full (x: collapse them)"
						: "nothing was collapsed here");
		else
			tui_message(t, 0, "%lld called computation%s collapsed into boxes (x: expand)",
				    (long long)dr->r->n_boxes, dr->r->n_boxes == 1 ? "" : "s");
		return 1;
	}
	case TUI_REQ_DRAW:
		tui_message(t, 0, "this is the drawing; Enter re-centres on the cursor");
		return 1;
	case TUI_REQ_EXPORT:
		return export_drawing(t, dr, arg);
	case TUI_REQ_GOTO: {
		int64_t id = tui_doc_node_arg(t, dr->doc, "goto", arg);
		if (id >= 0 && select_region(dr, id, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	case TUI_REQ_MOUSE: {
		MEVENT *m = tui_mouse(t);
		const hs_layout *L = get_layout(dr, &err);
		int top = 3; /* title bar and two header lines */
		if (!L)
			return 1;
		if (m->bstate & BUTTON4_PRESSED) {
			dr->y0 -= 3;
			return 1;
		}
#ifdef BUTTON5_PRESSED
		if (m->bstate & BUTTON5_PRESSED) {
			dr->y0 += 3;
			return 1;
		}
#endif
		int32_t n = canvas_node_at(L, dr->x0 + m->x, dr->y0 + m->y - top);
		if (n >= 0 && !(L->nodes[n].flags & LAY_PLACEHOLDER)) {
			if (dr->cursor_id == L->nodes[n].id && (m->bstate & BUTTON1_DOUBLE_CLICKED))
				tui_open_node(t, dr->doc, dr->cursor_id);
			dr->cursor_id = L->nodes[n].id;
		}
		return 1;
	}
	default:
		return 0;
	}
}

void tui_drawing_cache_free(tui_doc *d)
{
	if (d->layouts)
		layout_cache_free(d->layouts);
	d->layouts = NULL;
}

static void draw_done(tui_view *v)
{
	struct drawing *dr = v->data;
	region_free(dr->r);
	canvas_free(dr->cv);
	route_free(dr->routes);
	free(dr->hl);
	compare_notes_free(dr->notes, dr->doc->g->n_nodes);
	free(dr);
}

static const tui_view_ops draw_ops = {
	.name = "drawing", .scope = TUI_S_GRAPH | TUI_S_CANVAS | TUI_S_OPENS, .draw = draw_view,
	.request = draw_request, .done = draw_done,
};

static int open_drawing(tui *t, tui_doc *d, int64_t node, const int64_t *ids, size_t n,
			const compare_result *cmp);

int tui_open_drawing(tui *t, tui_doc *d, int64_t node)
{
	return tui_open_drawing_highlight(t, d, node, NULL, 0);
}

int tui_open_drawing_highlight(tui *t, tui_doc *d, int64_t node, const int64_t *ids, size_t n)
{
	return open_drawing(t, d, node, ids, n, NULL);
}

int tui_open_drawing_legend(tui *t, tui_doc *d, int64_t node, const int64_t *ids, size_t n, const char *legend)
{
	if (open_drawing(t, d, node, ids, n, NULL) < 0)
		return -1;
	tui_view *v = tui_top(t);
	if (legend && v && v->ops == &draw_ops) {
		struct drawing *dr = v->data;
		snprintf(dr->legend, sizeof dr->legend, "%s", legend);
		dr->own_legend = 1;
	}
	return 0;
}

int tui_open_drawing_compare(tui *t, tui_doc *d, int64_t node, const compare_result *r)
{
	int64_t *ids = NULL, n = compare_changed_nodes(r, &ids);

	if (n < 0) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	int rc = open_drawing(t, d, node, ids, (size_t)n, r);
	free(ids);
	return rc;
}

/* The drawing around `node`, `ids` highlighted (copied); with a comparison
 * `cmp`, its exports carry the changed values and a legend. */
static int open_drawing(tui *t, tui_doc *d, int64_t node, const int64_t *ids, size_t n,
			const compare_result *cmp)
{
	struct drawing *dr = calloc(1, sizeof *dr);
	hs_error err = {0};
	char title[64];

	if (!dr) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	dr->doc = d;
	dr->wanted = DEFAULT_RADIUS;
	dot_opts_init(&dr->opts);
	dr->opts.terminal = 1;
	if (n && ids && (dr->hl = malloc(n * sizeof *dr->hl))) {
		memcpy(dr->hl, ids, n * sizeof *dr->hl);
		dr->opts.highlight = dr->hl;
		dr->opts.n_highlight = n;
	}
	if (cmp && n) {
		dr->notes = compare_node_notes(cmp);
		compare_legend_text(cmp, dr->legend, sizeof dr->legend);
	}
	if (select_region(dr, node, &err) < 0) {
		tui_message(t, 1, "%s", err.msg);
		free(dr->hl);
		compare_notes_free(dr->notes, d->g->n_nodes);
		free(dr);
		return -1;
	}
	/* lay out now, so a Graphviz failure is a message and not an empty view */
	if (!get_layout(dr, &err)) {
		tui_message(t, 1, "%s", err.msg);
		draw_done(&(tui_view){.data = dr});
		return -1;
	}
	snprintf(title, sizeof title, "Drawing %lld", (long long)node);
	return tui_push(t, &draw_ops, dr, d, title, NULL, NULL) ? 0 : -1;
}
