/* dot_fit.c - PNG layouts that fit DOT_PNG_MAX_PX: the other rank direction,
 * then a zoom.  See dot.h. */
#include "render/dot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "base/clock.h"
#include "base/units.h"

#define PX_PER_PT (DOT_PNG_DPI / 72.0)
#define GRAPH_PAD 4.0 /* Graphviz's default pad around the drawing, points */

/* Size in pixels of g as laid out, pad included (gd rounds to the pixel). */
static void layout_px(Agraph_t *g, double *w, double *h)
{
	boxf bb = GD_bb(g);

	*w = (bb.UR.x - bb.LL.x + 2 * GRAPH_PAD) * PX_PER_PT;
	*h = (bb.UR.y - bb.LL.y + 2 * GRAPH_PAD) * PX_PER_PT;
}

/* The zoom that brings the longer side to the limit (1 when it fits). */
static double zoom_for(double w, double h)
{
	double side = w > h ? w : h;

	if (side <= DOT_PNG_MAX_PX)
		return 1;
	/* a little under, so that rounding cannot take a side over */
	return floor((DOT_PNG_MAX_PX - 1) / side * 1e4) / 1e4;
}

static double aspect(double w, double h)
{
	double lo = w < h ? w : h, hi = w < h ? h : w;

	return lo > 0 ? hi / lo : 1e9;
}

/* Needs another try: over the limit, or a strip a screen cannot show. */
static int wants_fit(double w, double h)
{
	double side = w > h ? w : h;

	return side > DOT_PNG_MAX_PX || (side > DOT_STRIP_PX && aspect(w, h) > DOT_STRIP_RATIO);
}

struct saved {
	char rankdir[8], nodesep[16];
	int nodes; /* 1 when the node attributes below were set */
};

/* The graph's value of attribute `name` (declared if needed) set to v, the
 * old one kept in old[cap] ("" when it was not declared). */
static void set_graph(Agraph_t *g, const char *name, const char *v, char *old, size_t cap)
{
	Agsym_t *s = agattr(g, AGRAPH, (char *)name, NULL);

	snprintf(old, cap, "%s", s ? agxget(g, s) : "");
	agsafeset(g, (char *)name, (char *)v, "");
}

/* Every node's `name` set to v (declared here, so no node had its own). */
static void set_nodes(Agraph_t *g, Agsym_t *sym, const char *v)
{
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		agxset(n, sym, (char *)v);
}

/* Left to right, nodes as low as their labels and close together: a wide
 * fan-out becomes a column of short boxes.  Node sizes change only when
 * the graph does not set them already (a region never does). */
static void left_right(Agraph_t *g, struct saved *s)
{
	set_graph(g, "rankdir", "LR", s->rankdir, sizeof s->rankdir);
	set_graph(g, "nodesep", "0.05", s->nodesep, sizeof s->nodesep);
	s->nodes = !agattr(g, AGNODE, "height", NULL) && !agattr(g, AGNODE, "margin", NULL);
	if (s->nodes) {
		set_nodes(g, agattr(g, AGNODE, "height", "0.5"), "0.3");
		set_nodes(g, agattr(g, AGNODE, "margin", ""), "0.06,0.02");
	}
}

/* Back as it was; Graphviz's own values stand in for attributes that were
 * not declared (0.5 in and its default margin for "" ). */
static void restore(Agraph_t *g, const struct saved *s)
{
	agsafeset(g, "rankdir", (char *)(s->rankdir[0] ? s->rankdir : "TB"), "");
	agsafeset(g, "nodesep", (char *)(s->nodesep[0] ? s->nodesep : "0.25"), "");
	if (s->nodes) {
		set_nodes(g, agattr(g, AGNODE, "height", NULL), "0.5");
		set_nodes(g, agattr(g, AGNODE, "margin", NULL), "");
	}
}

int dot_fit_layout(GVC_t *gvc, Agraph_t *g, dot_fit *fit)
{
	dot_fit f;
	struct saved s;
	double w, h, lw, lh, z;

	memset(&f, 0, sizeof f);
	f.scale = 1;
	double t0 = hs_now_seconds();
	if (dot_gv_layout(gvc, g) != 0)
		return -1;
	f.seconds = hs_now_seconds() - t0;
	layout_px(g, &w, &h);
	f.full_w = (int)lround(w);
	f.full_h = (int)lround(h);
	if (wants_fit(w, h) && f.seconds > DOT_FIT_RELAYOUT_SECONDS) {
		f.tried = 1;
		f.slow = 1;
	} else if (wants_fit(w, h)) {
		f.tried = 1;
		gvFreeLayout(gvc, g);
		left_right(g, &s);
		int rc = dot_gv_layout(gvc, g);
		if (rc != 0 && dot_graph_lost(g))
			return -1;
		restore(g, &s); /* the layout holds what it read */
		if (rc != 0)
			return -1;
		layout_px(g, &lw, &lh);
		/* Keep left to right when it needs less zoom; at equal zoom
		 * (both fit), when it is the less elongated. */
		double zt = zoom_for(w, h), zl = zoom_for(lw, lh);
		if (zl > zt || (zl == zt && aspect(lw, lh) < aspect(w, h))) {
			f.left_right = 1;
			w = lw, h = lh;
		} else {
			gvFreeLayout(gvc, g);
			if (dot_gv_layout(gvc, g) != 0)
				return -1;
			layout_px(g, &w, &h);
		}
	}
	z = zoom_for(w, h);
	if (z < 1) {
		/* The viewport is read when rendering: W,H in points after the
		 * zoom, the pad included; centred on the drawing by default. */
		char vp[96];
		boxf bb = GD_bb(g);
		snprintf(vp, sizeof vp, "%.3f,%.3f,%.6f", (bb.UR.x - bb.LL.x + 2 * GRAPH_PAD) * z,
			 (bb.UR.y - bb.LL.y + 2 * GRAPH_PAD) * z, z);
		agsafeset(g, "viewport", vp, "");
		f.scale = z;
		w *= z, h *= z;
	}
	f.w = (int)lround(w);
	f.h = (int)lround(h);
	if (fit)
		*fit = f;
	return 0;
}

void dot_fit_done(Agraph_t *g)
{
	if (agattr(g, AGRAPH, "viewport", NULL))
		agset(g, "viewport", "");
}

int dot_fit_text(const dot_fit *f, const char *path, char *buf, size_t cap)
{
	char why[96];

	if (cap)
		buf[0] = '\0';
	if (!f || !f->tried || (!f->left_right && f->scale >= 1))
		return 0;
	if (f->full_w > DOT_PNG_MAX_PX || f->full_h > DOT_PNG_MAX_PX)
		snprintf(why, sizeof why, "over the %d px limit", DOT_PNG_MAX_PX);
	else
		snprintf(why, sizeof why, "a strip");
	if (f->scale < 1 && f->slow) {
		char took[32];
		hs_unit_format(took, sizeof took, HS_U_SECONDS, f->seconds, 1);
		return snprintf(buf, cap, "%s%sscaled to %d%%, %d x %d px: top to bottom it is "
				"%d x %d px, %s; not laid out again left to right, the layout took %s "
				"(an .svg keeps the full size)", path ? path : "", path ? ": " : "",
				(int)floor(f->scale * 100), f->w, f->h, f->full_w, f->full_h, why, took);
	}
	if (f->scale < 1)
		return snprintf(buf, cap, "%s%s%sscaled to %d%%, %d x %d px: top to bottom it is "
				"%d x %d px, %s (an .svg keeps the full size)", path ? path : "",
				path ? ": " : "", f->left_right ? "drawn left to right and " : "",
				(int)floor(f->scale * 100), f->w, f->h, f->full_w, f->full_h, why);
	return snprintf(buf, cap, "%s%sdrawn left to right, %d x %d px: top to bottom it is %d x %d px, "
			"%s (an .svg keeps it top to bottom)", path ? path : "", path ? ": " : "", f->w,
			f->h, f->full_w, f->full_h, why);
}
