/* node_view.h - inside the node detail, for tui/ only: the view's state
 * (view_node.c) and the lines above its panes (node_head.c). */
#ifndef HS_TUI_NODE_VIEW_H
#define HS_TUI_NODE_VIEW_H

#include "base/strbuf.h"
#include "loader/hlo_module.h"
#include "tui/tui.h"

/* A row of the list to jump through. */
enum {
	NB_OPERAND, /* node: operand `index` of the node, in the instruction's order */
	NB_USER,    /* node: a user */
	NB_CALL,    /* node: a computation the node calls */
	NB_CALLER,  /* node: a node that calls the node's computation */
	NB_SOURCE,  /* node: the caller `via`'s operand `index`, which the parameter stands for */
};

struct nbr {
	int kind;
	int64_t node, index, via;
};

struct nodeview {
	tui_doc *doc;
	int64_t node;
	tui_table feats, nbrs, attrs;
	int *feat;          /* feature indices shown */
	int nfeat;
	struct nbr *nbr;    /* the list */
	int64_t nnbr, capnbr;
	hs_strbuf hline;    /* the node's HLO line ("" on a bare .npz) */
	hm_attr *attr;      /* its attributes (hm_instr_attr_list: one block) */
	int nattr;
	int has_attrs;      /* the graph has a module: the attributes pane exists */
	int64_t *hist;      /* jump history */
	int nhist, hpos, caphist;
};

/* Draws the lines above the panes (name, computation, HLO fields, the
 * parameter's or root's callers, the collective, the HLO line, counts,
 * the analytic cost, the keys) from row y, leaving at least `keep` of
 * h rows; returns the rows used. */
int node_head_draw(struct nodeview *nv, WINDOW *win, int y, int x, int w, int h, int keep);

#endif
