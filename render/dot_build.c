/* dot_build.c - a region as a cgraph graph: labels, styles, clusters per
 * HLO computation, placeholders and collapsed computations.  See dot.h. */
#include "render/dot.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "base/escape.h"
#include "base/plural.h"
#include "base/units.h"
#include "loader/hlo.h"
#include "render/gv_layout.h"
#include "render/palette.h"

/* ---- labels ----------------------------------------------------------- */

/* Display width of UTF-8 text (every code point counts one column). */
static int utf8_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

void dot_cut_text(char *dst, size_t cap, const char *src, int maxw)
{
	int w = utf8_width(src);
	size_t i = 0, o = 0;
	int col = 0;

	if (cap == 0)
		return;
	if (w <= maxw) {
		snprintf(dst, cap, "%s", src);
		return;
	}
	while (src[i] && col < maxw - 1) {
		size_t len = 1;
		while ((src[i + len] & 0xC0) == 0x80)
			len++;
		if (o + len + 4 > cap)
			break;
		memcpy(dst + o, src + i, len);
		o += len;
		i += len;
		col++;
	}
	memcpy(dst + o, "\xe2\x80\xa6", 3); /* … */
	dst[o + 3] = '\0';
}

hlo_category dot_node_category(const hs_graph *g, int64_t id)
{
	char base[64];
	const char *op;
	size_t n;
	int k;

	if (g->opcode[id] != 0)
		return hlo_opcode_category(g->opcode[id]);
	/* An opcode the dataset never learned, as written: its synchronous
	 * twin's category (all-to-all-start is all-to-all's), a collective's,
	 * or erf's, an elementwise function. */
	op = graph_node_opcode_name(g, id);
	snprintf(base, sizeof base, "%s", op);
	n = strlen(base);
	for (const char *suf = "-start\0-done\0-update\0"; *suf; suf += strlen(suf) + 1) {
		size_t m = strlen(suf);
		if (n > m && !strcmp(base + n - m, suf))
			base[n - m] = '\0';
	}
	k = hlo_opcode_id(base);
	if (k > 0)
		return hlo_opcode_category(k);
	if (graph_is_collective_opcode(base))
		return HLO_CAT_COLLECTIVE;
	return !strcmp(base, "erf") ? HLO_CAT_ELEMENTWISE : HLO_CAT_OTHER;
}

/* Node id's shape text in buf, cut to `maxw` columns with "…" (a tuple of
 * hundreds of elements is written whole by HLO). */
static const char *shape_cut(const hs_graph *g, int64_t id, char *buf, size_t cap, int maxw)
{
	char full[1024];

	graph_node_text(g, id, HS_HF_SHAPE, full, sizeof full);
	if (strlen(full) == sizeof full - 1) /* cut by the buffer */
		maxw = maxw < (int)sizeof full - 8 ? maxw : (int)sizeof full - 8;
	dot_cut_text(buf, cap, full, maxw);
	return buf;
}

const char *dot_esc_name(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s);
	hs_strbuf b = hs_strbuf_fixed(buf, cap);

	if (hs_esc_span(s, n, HS_ESC_NAME) == n)
		return s;
	hs_strbuf_escaped(&b, s, n, HS_ESC_NAME);
	return buf;
}

/* Two lines of a box from names (escaped, then cut to maxw columns). */
static int fit_lines(const char *a, const char *b, int maxw, char *l1, char *l2, size_t cap)
{
	char ea[1024], eb[1024];

	if (maxw < 2)
		maxw = 2;
	dot_cut_text(l1, cap, dot_esc_name(a, ea, sizeof ea), maxw);
	dot_cut_text(l2, cap, dot_esc_name(b, eb, sizeof eb), maxw);
	int w1 = utf8_width(l1), w2 = utf8_width(l2);
	return w1 > w2 ? w1 : w2;
}

int dot_node_lines(const hs_graph *g, int64_t id, int maxw, char *l1, char *l2,
		   size_t cap)
{
	char a[256], b[256], shape[200];

	graph_node_text(g, id, HS_HF_SHAPE, shape, sizeof shape);
	if (g->knows & HM_KNOWS_NAMES) {   /* else the name is the opcode and the id */
		snprintf(a, sizeof a, "%" PRId64 " %s", id, graph_node_name(g, id));
		snprintf(b, sizeof b, "%s %s", graph_node_opcode_name(g, id), shape);
	} else {
		snprintf(a, sizeof a, "%" PRId64 " %s", id, hlo_opcode_name(g->opcode[id]));
		snprintf(b, sizeof b, "%s", shape);
	}
	return fit_lines(a, b, maxw, l1, l2, cap);
}

int dot_box_lines(const region *r, int64_t k, int maxw, char *l1, char *l2, size_t cap)
{
	const hs_graph *g = r->g;
	char b[96];

	if (r->boxes[k].group >= 0) {
		int64_t gi = r->boxes[k].group;
		const char *d = r->groups->detail[gi];
		if (!d) {
			char n[32];
			hs_num_thousands(n, sizeof n, r->boxes[k].inside);
			snprintf(b, sizeof b, "%s node%s", n, hs_s(r->boxes[k].inside));
			d = b;
		}
		return fit_lines(r->groups->label[gi] ? r->groups->label[gi] : "", d, maxw, l1, l2, cap);
	}
	const hs_hcomp *c = &g->hcomps[r->boxes[k].comp];
	const char *name = graph_hcomp_name(g, r->boxes[k].comp);
	snprintf(b, sizeof b, "%s, %" PRId64 " node%s", graph_role_name(c->role), c->count,
		 hs_s(c->count));
	return fit_lines(name, b, maxw, l1, l2, cap);
}

int dot_stub_label(const region *r, int64_t k, int maxw, char *buf, size_t cap)
{
	const region_stub *st = &r->stubs[k];
	char esc[640], text[700];

	if (REGION_IS_BOX(st->operand)) {
		char l1[160], l2[160];
		dot_box_lines(r, REGION_BOX_INDEX(st->operand), 120, l1, l2, sizeof l1);
		snprintf(text, sizeof text, "\xe2\x86\x91 %s", l1);
	} else {
		snprintf(text, sizeof text, "\xe2\x86\x91 %s",
			 dot_esc_name(graph_node_name(r->g, st->operand), esc, sizeof esc));
	}
	dot_cut_text(buf, cap, text, maxw);
	return utf8_width(buf);
}

void dot_more_label(const region_more *m, int operands, char *buf, size_t cap)
{
	char n[32];

	hs_num_thousands(n, sizeof n, m->hidden);
	snprintf(buf, cap, "%s more %s%s", n, operands ? "operand" : "user", hs_s(m->hidden));
}

/* ---- building --------------------------------------------------------- */

void dot_opts_init(dot_opts *o)
{
	memset(o, 0, sizeof *o);
	o->heat_log = -1;
	o->clusters = -1;
}

typedef struct builder {
	Agraph_t *G;
	const region *r;
	const dot_opts *o;
	const hs_graph *g;
	uint8_t *hl;             /* [n_nodes] highlight mask, or NULL */
	dot_heat_scale scale;
	int heat;
	double *box_heat;        /* [r->n_boxes] with heat, or NULL */
	/* attribute symbols */
	Agsym_t *n_label, *n_fill, *n_font, *n_color, *n_pen, *n_style, *n_peri,
		*n_tip, *n_width, *n_height;
	Agsym_t *e_pen, *e_style, *e_tip, *e_color;
} builder;

/* v as DOT's escString shows it (a label, a tooltip; a colour is as it
 * is): a byte to escape (base/escape.h) as the text \x1b, written \\x1b,
 * a backslash doubled (Graphviz would eat it), a line end as \n; v itself
 * when it needs none of that.  Cut at a character to fit cap. */
static const char *dot_text(const char *v, char *buf, size_t cap)
{
	size_t n = strlen(v), o = 0;

	if (hs_esc_span(v, n, HS_ESC_NAME) == n && !memchr(v, '\\', n))
		return v;
	for (size_t i = 0, len; i < n; i += len) {
		char e[6] = "\\";
		const char *piece = v + i;
		int bad;
		len = v[i] == '\n' ? 1 : hs_esc_char(v + i, n - i, HS_ESC_NAME, &bad);
		size_t pn = len;
		if (v[i] == '\n' || v[i] == '\\') {
			piece = v[i] == '\n' ? "\\n" : "\\\\";
			pn = 2;
		} else if (bad) {
			hs_esc_byte((unsigned char)v[i], e + 1);
			piece = e;
			pn = 5;
		}
		if (o + pn >= cap)
			break;
		memcpy(buf + o, piece, pn);
		o += pn;
	}
	buf[o] = '\0';
	return buf;
}

/* Labels here are at most 1,200 bytes: escaped, 8 KB holds them. */
static void set(void *obj, Agsym_t *sym, const char *v)
{
	char buf[8192];

	agxset(obj, sym, (char *)dot_text(v, buf, sizeof buf));
}

static Agsym_t *attr(Agraph_t *G, int kind, const char *name, const char *def)
{
	return agattr(G, kind, (char *)name, (char *)def);
}

static int uses_clusters(const builder *b)
{
	if (b->o->clusters >= 0)
		return b->o->clusters;
	return b->g->n_hcomps > 1;
}

/* The cluster a node belongs to: its real HLO computation. */
static int32_t comp_of(const hs_graph *g, int64_t id)
{
	return g->hcomp_of[id];
}

static void terminal_size(builder *b, Agnode_t *n, int cols)
{
	char v[32];

	snprintf(v, sizeof v, "%.4f", (cols + 4) * LAYOUT_CELL_W / 72.0);
	set(n, b->n_width, v);
	snprintf(v, sizeof v, "%.4f", LAYOUT_NODE_ROWS * LAYOUT_CELL_H / 72.0);
	set(n, b->n_height, v);
}

/* Appends lines to a label of len bytes, on a line of their own. */
static void append_lines(char *label, size_t cap, int len, const char *lines)
{
	if (len >= 0 && (size_t)len < cap)
		snprintf(label + len, cap - (size_t)len, "\n%s", lines);
}

static void style_node(builder *b, Agnode_t *n, int64_t id)
{
	const hs_graph *g = b->g;
	hlo_category cat = dot_node_category(g, id);
	int focus = id == b->r->focus || id == b->r->focus2;
	int hl = b->hl && b->hl[id];
	int cfg = g->kind != HS_KIND_TILE && g->cfg_index && g->cfg_index[id] >= 0;
	int bin = -1;
	char label[1024], tip[768], shape[400], heatline[96] = "";
	if (b->heat)
		bin = dot_heat_bin(&b->scale, b->o->heat[id]);
	if (b->o->terminal) {
		char l1[3 * LAYOUT_LABEL_MAX + 1], l2[3 * LAYOUT_LABEL_MAX + 1];
		terminal_size(b, n, dot_node_lines(g, id, LAYOUT_LABEL_MAX, l1, l2,
						   sizeof l1));
		return;
	}
	shape_cut(g, id, shape, sizeof shape, 120);
	if (b->heat) {
		double v = b->o->heat[id];
		if (isfinite(v))
			snprintf(heatline, sizeof heatline, "\n%s = %.3g",
				 b->o->heat_name ? b->o->heat_name : "heat", v);
		else
			snprintf(heatline, sizeof heatline, "\n%s = n/a",
				 b->o->heat_name ? b->o->heat_name : "heat");
	}
	const char *op = graph_node_opcode_name(g, id);
	const char *name = graph_node_name(g, id);
	const char *comp = graph_hcomp_name(g, comp_of(g, id));
	int len;
	if (g->knows & HM_KNOWS_NAMES)   /* else the name is the opcode and the id */
		len = snprintf(label, sizeof label, "%s\n%" PRId64 ": %s%s\n%s%s", name, id, op,
			       cfg ? " [cfg]" : "", shape, heatline);
	else
		len = snprintf(label, sizeof label, "%" PRId64 ": %s%s\n%s%s", id, op,
			       cfg ? " [cfg]" : "", shape, heatline);
	if (b->o->notes && b->o->notes[id])
		append_lines(label, sizeof label, len, b->o->notes[id]);
	set(n, b->n_label, label);
	snprintf(tip, sizeof tip, "node %" PRId64 " %s, %s %s, in %s: %" PRId64
		 " operand%s, %" PRId64 " user%s%s", id, name, op, shape, comp, graph_hlo_n_operands(g, id),
		 hs_s(graph_hlo_n_operands(g, id)), graph_hlo_n_users(g, id),
		 hs_s(graph_hlo_n_users(g, id)), cfg ? ", configurable" : "");
	set(n, b->n_tip, tip);
	if (b->heat) {
		set(n, b->n_fill, dot_heat_fill(bin));
		if (bin >= DOT_HEAT_BINS - 2)
			set(n, b->n_font, "#ffffff");
	} else {
		set(n, b->n_fill, palette_fill(cat));
		if (strcmp(palette_font(cat), "#000000") != 0)
			set(n, b->n_font, palette_font(cat));
		if (strcmp(palette_stroke(cat), "#000000") != 0)
			set(n, b->n_color, palette_stroke(cat));
	}
	/* Thick borders are square: gd draws thick rounded ones badly. */
	if (focus) {
		set(n, b->n_color, "#d62728");
		set(n, b->n_pen, "3");
		set(n, b->n_style, "filled");
	} else if (hl) {
		set(n, b->n_color, "#1f77b4");
		set(n, b->n_pen, "3");
		set(n, b->n_style, "filled");
	}
	if (cfg)
		set(n, b->n_peri, "2");
}

static void style_edge(builder *b, Agedge_t *e, int64_t operand)
{
	double bytes = layout_edge_bytes(b->g, operand);
	char v[600], hb[32], shape[400];

	if (bytes > 1024) {
		/* 1 KiB -> 1, each factor 16 adds 0.6, at most 4. */
		double pw = 1 + 0.6 * log2(bytes / 1024) / 4;
		if (pw > 4)
			pw = 4;
		snprintf(v, sizeof v, "%.2f", pw);
		set(e, b->e_pen, v);
	}
	if (b->o->terminal)
		return;
	shape_cut(b->g, operand, shape, sizeof shape, 120);
	if (bytes > 0) {
		hs_unit_format(hb, sizeof hb, HS_U_BYTES, bytes, -1);
		snprintf(v, sizeof v, "%s, %s", shape, hb);
	} else {
		snprintf(v, sizeof v, "%s", shape);
	}
	set(e, b->e_tip, v);
}

/* A call edge (the callee's root or box to its caller): dotted, gray. */
static void style_call(builder *b, Agedge_t *e, const char *caller_tip)
{
	set(e, b->e_style, "dotted");
	if (b->o->terminal)
		return;
	set(e, b->e_color, "#7f7f7f");
	set(e, b->e_tip, caller_tip);
}

/* Edge k's operand indices as its head label (XLA's dumper does the same
 * when a node has several operands). */
static void label_edge(builder *b, Agedge_t *e, int64_t k)
{
	char label[48];

	if (b->o->terminal || !*region_edge_label(b->r, k, label, sizeof label))
		return;
	agsafeset(e, "headlabel", label, "");
	agsafeset(e, "labeldistance", "1.5", "");
	agsafeset(e, "labelfontsize", "8", "");
	agsafeset(e, "labelfontname", "Helvetica", "");
}

/* Appends text to an HTML-like label, escaped (<, >, & as entities, a
 * byte to escape as \x1b: XML has no place for control characters), cut at
 * a character before end; p advances. */
static char *html_text(char *p, const char *end, const char *text)
{
	size_t n = strlen(text);

	for (size_t i = 0, len; i < n; i += len) {
		char e[5];
		const char *piece = text + i;
		int bad;
		len = hs_esc_char(text + i, n - i, HS_ESC_NAME, &bad);
		size_t pn = len;
		if (bad) {
			hs_esc_byte((unsigned char)text[i], e);
			piece = e;
			pn = 4;
		} else if (text[i] == '<' || text[i] == '>' || text[i] == '&') {
			piece = text[i] == '<' ? "&lt;" : text[i] == '>' ? "&gt;" : "&amp;";
			pn = strlen(piece);
		}
		if (p + pn + 1 >= end)
			break;
		memcpy(p, piece, pn);
		p += pn;
	}
	*p = '\0';
	return p;
}

/* A legend: a plaintext node NAME labelled with the HTML table html (which
 * it frees), without our node style, with tooltip tip. */
static void legend_node(builder *b, const char *name, char *html, const char *tip)
{
	Agnode_t *n = agnode(b->G, (char *)name, 1);

	agxset(n, b->n_label, agstrdup_html(b->G, html)); /* html_text escaped it */
	agsafeset(n, "shape", "plaintext", "box");
	set(n, b->n_style, "");
	set(n, b->n_tip, tip);
	free(html);
}

static void add_legend(builder *b)
{
	char *html, *p;
	size_t cap = 4096;
	const char *name = b->o->heat_name ? b->o->heat_name : "heat";

	html = malloc(cap);
	if (!html)
		return;
	p = html;
	p += snprintf(p, cap, "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" "
		      "CELLPADDING=\"3\"><TR><TD COLSPAN=\"2\"><B>");
	p = html_text(p, html + 606, name);
	p += sprintf(p, "%s</B></TD></TR>", b->scale.log ? " (log scale)" : "");
	if (b->scale.any) {
		for (int i = DOT_HEAT_BINS - 1; i >= 0; i--)
			p += sprintf(p, "<TR><TD BGCOLOR=\"%s\" WIDTH=\"16\"> </TD>"
				     "<TD ALIGN=\"LEFT\">%.3g – %.3g</TD></TR>",
				     dot_heat_fill(i), dot_heat_edge(&b->scale, i),
				     dot_heat_edge(&b->scale, i + 1));
	}
	p += sprintf(p, "<TR><TD BGCOLOR=\"%s\" WIDTH=\"16\"> </TD>"
		     "<TD ALIGN=\"LEFT\">no value</TD></TR></TABLE>", dot_heat_fill(-1));
	legend_node(b, "legend", html, "heat legend");
}

static Agraph_t *cluster_of(builder *b, Agraph_t **clusters, int32_t comp)
{
	char name[48], label[200];
	Agraph_t *sub;

	if (!clusters)
		return b->G;
	if (clusters[comp])
		return clusters[comp];
	snprintf(name, sizeof name, "cluster_%d", comp);
	sub = agsubg(b->G, name, 1);
	if (!sub)
		return NULL;
	snprintf(label, sizeof label, "%s (%s)", graph_hcomp_name(b->g, comp),
		 graph_role_name(b->g->hcomps ? b->g->hcomps[comp].role : HS_ROLE_ENTRY));
	char buf[1024];
	agsafeset(sub, "label", b->o->terminal ? "" : (char *)dot_text(label, buf, sizeof buf), "");
	agsafeset(sub, "style", "dashed,rounded", "");
	agsafeset(sub, "color", "#7f7f7f", "");
	if (b->o->terminal)
		agsafeset(sub, "margin", "14,21", "");
	clusters[comp] = sub;
	return sub;
}

/* Graph attributes, then the node and edge defaults (declaration order
 * is output order); keeps the attribute symbols in b. */
static void graph_defaults(builder *b, int terminal)
{
	const region *r = b->r;

	/* Graph attributes. */
	attr(b->G, AGRAPH, "rankdir", "TB");
	if (terminal) {
		/* 3 columns between boxes, 3 rows between ranks */
		attr(b->G, AGRAPH, "nodesep", "0.2917");
		attr(b->G, AGRAPH, "ranksep", "0.5833");
	} else {
		char buf[1024];
		attr(b->G, AGRAPH, "label", dot_text(r->title, buf, sizeof buf));
		attr(b->G, AGRAPH, "labelloc", "t");
		attr(b->G, AGRAPH, "fontname", "Helvetica");
		attr(b->G, AGRAPH, "fontsize", "12");
		attr(b->G, AGRAPH, "nodesep", "0.25");
		attr(b->G, AGRAPH, "ranksep", "0.4");
	}
	/* Past the default region limit, or with long edges (each rank an edge
	 * crosses is one more node to place), Graphviz's crossing minimisation
	 * and network simplex dominate (a 1,300-node radius region: 76 s of CPU
	 * unbounded, 3 s with these; a 485-node path whose edges cross 20,000
	 * ranks: 28 s, 3 s); bound their iterations. */
	if (r->n_nodes + r->n_more > DOT_BIG_REGION || r->work.total > DOT_BIG_WORK) {
		attr(b->G, AGRAPH, "mclimit", "0.3");
		attr(b->G, AGRAPH, "nslimit", "0.5");
	}
	/* Node and edge defaults (declaration order is output order). */
	attr(b->G, AGNODE, "shape", "box");
	if (terminal) {
		attr(b->G, AGNODE, "fixedsize", "true");
		b->n_label = attr(b->G, AGNODE, "label", "");
		b->n_width = attr(b->G, AGNODE, "width", "1");
		b->n_height = attr(b->G, AGNODE, "height", "0.8");
		b->n_style = attr(b->G, AGNODE, "style", "");
		b->n_tip = NULL;
		attr(b->G, AGEDGE, "arrowhead", "none");
		b->e_pen = attr(b->G, AGEDGE, "penwidth", "1");
		b->e_style = attr(b->G, AGEDGE, "style", "");
	} else {
		b->n_style = attr(b->G, AGNODE, "style", "rounded,filled");
		attr(b->G, AGNODE, "fontname", "Helvetica");
		attr(b->G, AGNODE, "fontsize", "10");
		b->n_label = attr(b->G, AGNODE, "label", "\\N");
		b->n_fill = attr(b->G, AGNODE, "fillcolor", "#ffffff");
		b->n_font = attr(b->G, AGNODE, "fontcolor", "#000000");
		b->n_color = attr(b->G, AGNODE, "color", "#000000");
		b->n_pen = attr(b->G, AGNODE, "penwidth", "1");
		b->n_peri = attr(b->G, AGNODE, "peripheries", "1");
		b->n_tip = attr(b->G, AGNODE, "tooltip", "");
		b->e_color = attr(b->G, AGEDGE, "color", "#404040");
		attr(b->G, AGEDGE, "arrowsize", "0.7");
		b->e_pen = attr(b->G, AGEDGE, "penwidth", "1");
		b->e_style = attr(b->G, AGEDGE, "style", "");
		b->e_tip = attr(b->G, AGEDGE, "tooltip", "");
	}
}

/* The highlight's legend: its border beside the lines of
 * o->highlight_legend. */
static void add_highlight_legend(builder *b)
{
	size_t cap = 4096;
	char *html = malloc(cap), *p, *end;
	const char *line = b->o->highlight_legend;

	if (!html)
		return;
	end = html + cap - 64;
	p = html + sprintf(html, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"2\" "
			   "CELLPADDING=\"2\">");
	for (int row = 0; *line && p < end; row++) {
		size_t len = strcspn(line, "\n");
		char text[512];

		snprintf(text, sizeof text, "%.*s", (int)len, line);
		if (row == 0)
			p += sprintf(p, "<TR><TD BORDER=\"3\" COLOR=\"#1f77b4\" WIDTH=\"24\"> </TD>"
				     "<TD ALIGN=\"LEFT\"><B>");
		else
			p += sprintf(p, "<TR><TD></TD><TD ALIGN=\"LEFT\">");
		p = html_text(p, end, text);
		p += sprintf(p, "%s</TD></TR>", row == 0 ? "</B>" : "");
		line += len + (line[len] == '\n');
	}
	sprintf(p, "</TABLE>");
	legend_node(b, "highlight_legend", html, "highlight legend");
}

/* The "N more users" (operands = 0) or "N more operands" placeholders, each
 * with a dashed edge from its owner (users) or to it (operands); nodes[]
 * holds the region's nodes.  -1 when out of memory. */
static int add_placeholders(builder *b, Agraph_t **clusters, Agnode_t **nodes,
			    const region_more *more, int64_t n_more, int operands)
{
	const region *r = b->r;
	char name[64], label[200];

	for (int64_t k = 0; k < n_more; k++) {
		int64_t owner = more[k].owner, io = region_index_of(r, owner);
		Agraph_t *parent = cluster_of(b, clusters, comp_of(b->g, owner));
		Agnode_t *n;
		Agedge_t *e;

		snprintf(name, sizeof name, "%s%" PRId64, operands ? "fanin" : "more", owner);
		n = parent ? agnode(parent, name, 1) : NULL;
		if (!n || io < 0)
			return -1;
		dot_more_label(&more[k], operands, label, sizeof label);
		if (b->o->terminal) {
			terminal_size(b, n, utf8_width(label));
		} else {
			set(n, b->n_label, label);
			set(n, b->n_style, "dashed,rounded");
			snprintf(label, sizeof label, "node %" PRId64 " has %" PRId64 " %s; %" PRId64
				 " %s not drawn", owner,
				 operands ? graph_hlo_n_operands(b->g, owner) : graph_hlo_n_users(b->g, owner),
				 operands ? "operands" : "users", more[k].hidden,
				 hs_plural(more[k].hidden, "is", "are"));
			set(n, b->n_tip, label);
		}
		e = operands ? agedge(b->G, n, nodes[io], NULL, 1) : agedge(b->G, nodes[io], n, NULL, 1);
		if (!e)
			return -1;
		set(e, b->e_style, "dashed");
	}
	return 0;
}

/* Box k's name in the graph: "comp<c>" for a computation, "grp<g>" for
 * a group. */
static void box_name(const region *r, int64_t k, char *name, size_t cap)
{
	if (r->boxes[k].group >= 0)
		snprintf(name, cap, "grp%" PRId64, r->boxes[k].group);
	else
		snprintf(name, cap, "comp%" PRId64, r->boxes[k].comp);
}

/* A group box: its fill (heat, or the groups' blue) and tooltip. */
static void style_group(builder *b, Agnode_t *n, int64_t k)
{
	const region *r = b->r;
	int64_t gi = r->boxes[k].group;
	char tip[600], l1[400], l2[200], cnt[32];

	if (b->heat) {
		double v = b->box_heat ? b->box_heat[k] : NAN;
		int bin = dot_heat_bin(&b->scale, v);
		set(n, b->n_fill, dot_heat_fill(bin));
		if (bin >= DOT_HEAT_BINS - 2)
			set(n, b->n_font, "#ffffff");
	} else {
		set(n, b->n_fill, "#dbe9f6");
	}
	set(n, b->n_peri, "2");
	if (r->groups->tip[gi]) {
		set(n, b->n_tip, r->groups->tip[gi]);
		return;
	}
	dot_box_lines(r, k, 300, l1, l2, sizeof l1);
	hs_num_thousands(cnt, sizeof cnt, r->boxes[k].inside);
	snprintf(tip, sizeof tip, "%s: %s (%s node%s of the region, one %s)", l1, l2, cnt,
		 hs_s(r->boxes[k].inside), r->groups->what);
	set(n, b->n_tip, tip);
}

/* A link: its style (a call, or an operand edge by the bytes it carries). */
static void style_link(builder *b, Agedge_t *e, int64_t k)
{
	const region *r = b->r;
	const hs_graph *g = b->g;
	int64_t u = r->links[k][0], o = r->links[k][1];
	char tip[400];

	if (!r->link_info[k].call) {
		style_edge(b, e, r->link_info[k].value);
		return;
	}
	if (!REGION_IS_BOX(o) || r->boxes[REGION_BOX_INDEX(o)].comp < 0) {
		style_call(b, e, "a call");
		return;
	}
	int64_t bu = REGION_IS_BOX(u) ? REGION_BOX_INDEX(u) : -1;
	const char *caller;
	if (bu >= 0 && r->boxes[bu].group >= 0)
		caller = r->groups->label[r->boxes[bu].group];
	else if (bu >= 0)
		caller = graph_hcomp_name(g, r->boxes[bu].comp);
	else
		caller = graph_node_name(g, u);
	snprintf(tip, sizeof tip, "%s%s calls %s", bu >= 0 ? "a node of " : "", caller,
		 graph_hcomp_name(g, r->boxes[REGION_BOX_INDEX(o)].comp));
	style_call(b, e, tip);
}

/* The collapsed computations and the groups, one box each (box_name), and
 * the edges between them and the nodes.  -1 when out of memory. */
static int add_boxes(builder *b, Agnode_t **nodes, Agnode_t **boxes)
{
	const region *r = b->r;
	const hs_graph *g = b->g;
	char name[64], l1[800], l2[200], label[1200];

	for (int64_t k = 0; k < r->n_boxes; k++) {
		int64_t c = r->boxes[k].comp;
		box_name(r, k, name, sizeof name);
		boxes[k] = agnode(b->G, name, 1);
		if (!boxes[k])
			return -1;
		int w = dot_box_lines(r, k, b->o->terminal ? LAYOUT_LABEL_MAX : 200, l1, l2, sizeof l1);
		if (b->o->terminal) {
			terminal_size(b, boxes[k], w);
			continue;
		}
		int len = snprintf(label, sizeof label, "%s\n%s", l1, l2);
		if (c < 0 && b->heat) {
			double v = b->box_heat ? b->box_heat[k] : NAN;
			const char *hn = b->o->heat_name ? b->o->heat_name : "heat";
			if (isfinite(v))
				snprintf(label + len, sizeof label - (size_t)len, "\n%s = %.6g", hn, v);
			else
				snprintf(label + len, sizeof label - (size_t)len, "\n%s = n/a", hn);
		}
		set(boxes[k], b->n_label, label);
		if (c < 0) {
			style_group(b, boxes[k], k);
			continue;
		}
		set(boxes[k], b->n_fill, palette_fill(HLO_CAT_CONTROL));
		if (strcmp(palette_font(HLO_CAT_CONTROL), "#000000") != 0)
			set(boxes[k], b->n_font, palette_font(HLO_CAT_CONTROL));
		set(boxes[k], b->n_peri, "2");
		const char *full = graph_hcomp_name(g, c);
		snprintf(label, sizeof label, "%s: %" PRId64 " of its %" PRId64 " nodes in the region,"
			 " collapsed (dot --expand %s draws them)", full, r->boxes[k].inside,
			 g->hcomps[c].count, full);
		set(boxes[k], b->n_tip, label);
	}
	for (int64_t k = 0; k < r->n_links; k++) {
		int64_t u = r->links[k][0], o = r->links[k][1];
		Agnode_t *hu = REGION_IS_BOX(u) ? boxes[REGION_BOX_INDEX(u)] : nodes[region_index_of(r, u)];
		Agnode_t *to = REGION_IS_BOX(o) ? boxes[REGION_BOX_INDEX(o)] : nodes[region_index_of(r, o)];
		Agedge_t *e = agedge(b->G, to, hu, NULL, 1);
		if (!e)
			return -1;
		style_link(b, e, k);
	}
	return 0;
}

/* The long edges cut (region_stub): a small dashed box beside the user,
 * in its cluster, naming the operand, and a short edge to the user.  -1
 * when out of memory. */
static int add_stubs(builder *b, Agraph_t **clusters, Agnode_t **nodes, Agnode_t **boxes)
{
	const region *r = b->r;
	char name[64], label[300], tip[600], ref[200];

	for (int64_t k = 0; k < r->n_stubs; k++) {
		const region_stub *st = &r->stubs[k];
		int box = REGION_IS_BOX(st->user);
		Agraph_t *parent = box ? b->G : cluster_of(b, clusters, comp_of(b->g, st->user));
		Agnode_t *user = box ? boxes[REGION_BOX_INDEX(st->user)] : nodes[region_index_of(r, st->user)];
		snprintf(name, sizeof name, "stub%" PRId64, k);
		Agnode_t *n = parent ? agnode(parent, name, 1) : NULL;
		if (!n || !user)
			return -1;
		int w = dot_stub_label(r, k, b->o->terminal ? LAYOUT_LABEL_MAX : 120, label, sizeof label);
		Agedge_t *e = agedge(b->G, n, user, NULL, 1);
		if (!e)
			return -1;
		if (b->o->terminal) {
			terminal_size(b, n, w);
			set(e, b->e_style, "dashed");
			continue;
		}
		set(n, b->n_label, label);
		set(n, b->n_style, "dashed,rounded");
		agsafeset(n, "fontsize", "8", "");
		snprintf(tip, sizeof tip, "a long edge cut: %s is drawn higher up (operand of this user)",
			 REGION_IS_BOX(st->operand) ? label + 4 : region_node_ref(b->g, st->operand, ref, sizeof ref));
		set(n, b->n_tip, tip);
		if (st->call)
			style_call(b, e, tip);
		else
			style_edge(b, e, st->value);
		set(e, b->e_style, st->call ? "dotted" : "dashed");
		if (st->label[0]) {
			agsafeset(e, "headlabel", (char *)st->label, "");
			agsafeset(e, "labelfontsize", "8", "");
		}
	}
	return 0;
}

/* What was done to fit the region (r->note) as a legend of its own. */
static void add_note(builder *b)
{
	size_t cap = 2048;
	char *html = malloc(cap);

	if (!html)
		return;
	char *p = html + sprintf(html, "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" "
				 "CELLPADDING=\"4\" COLOR=\"#7f7f7f\"><TR><TD ALIGN=\"LEFT\">");
	p = html_text(p, html + cap - 64, b->r->note);
	sprintf(p, "</TD></TR></TABLE>");
	legend_node(b, "note", html, "what was done to draw the region within its limits");
}

/* The call edges between drawn nodes: from the callee's root to its
 * caller.  -1 when out of memory. */
static int add_calls(builder *b, Agnode_t **nodes)
{
	const region *r = b->r;
	char tip[400];

	for (int64_t k = 0; k < r->n_calls; k++) {
		int64_t caller = r->calls[k][0], root = r->calls[k][1];
		Agedge_t *e = agedge(b->G, nodes[region_index_of(r, root)],
				     nodes[region_index_of(r, caller)], NULL, 1);
		if (!e)
			return -1;
		snprintf(tip, sizeof tip, "%s calls %s (root %s)", graph_node_name(b->g, caller),
			 graph_hcomp_name(b->g, b->g->hcomp_of[root]),
			 graph_node_name(b->g, root));
		style_call(b, e, tip);
	}
	return 0;
}

/* Nodes in id order inside their computation's cluster, then the edges
 * operand -> user.  -1 when out of memory. */
static int add_nodes(builder *b, Agraph_t **clusters, Agnode_t **nodes)
{
	const region *r = b->r;
	char name[64];

	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t id = r->nodes[i];
		Agraph_t *parent = cluster_of(b, clusters, comp_of(b->g, id));
		snprintf(name, sizeof name, "n%" PRId64, id);
		nodes[i] = parent ? agnode(parent, name, 1) : NULL;
		if (!nodes[i])
			return -1;
		style_node(b, nodes[i], id);
	}
	for (int64_t k = 0; k < r->n_edges; k++) {
		int64_t user = r->edges[k][0], operand = r->edges[k][1];
		int64_t iu = region_index_of(r, user), io = region_index_of(r, operand);
		Agedge_t *e = agedge(b->G, nodes[io], nodes[iu], NULL, 1);
		if (!e)
			return -1;
		style_edge(b, e, operand);
		label_edge(b, e, k);
	}
	return add_calls(b, nodes);
}

static Agraph_t *build(const region *r, const dot_opts *o, Agraph_t **made, hs_error *err);

struct build_call {
	const region *r;
	const dot_opts *o;
	hs_error *err;
	Agraph_t *G, *made;
};

static int build_call(void *arg)
{
	struct build_call *c = arg;

	c->G = build(c->r, c->o, &c->made, c->err);
	return 0;
}

/* build under dot_guarded: Graphviz faults when an allocation fails inside
 * agopen or agsubg. */
Agraph_t *dot_build(const region *r, const dot_opts *o, hs_error *err)
{
	struct build_call c = {r, o, err, NULL, NULL};

	if (dot_guarded(build_call, &c) == -2) {
		if (c.made)
			dot_lose_graph(c.made);
		hs_fail(err, HS_ENOMEM, "out of memory building the Graphviz graph");
		return NULL;
	}
	return c.G;
}

/* The graph of the region; *made is the graph as soon as agopen made it. */
static Agraph_t *build(const region *r, const dot_opts *o, Agraph_t **made, hs_error *err)
{
	builder b;
	dot_opts defaults;
	Agraph_t **clusters = NULL;
	Agnode_t **nodes = NULL, **boxes = NULL;

	if (!o) {
		dot_opts_init(&defaults);
		o = &defaults;
	}
	memset(&b, 0, sizeof b);
	b.r = r;
	b.o = o;
	b.g = r->g;
	if (o->heat) {
		b.heat = 1;
		b.box_heat = dot_box_heat(r, o);
		dot_heat_scale_region(r, o, b.box_heat, &b.scale);
	}
	if (o->highlight && o->n_highlight) {
		b.hl = calloc((size_t)b.g->n_nodes, 1);
		if (!b.hl)
			goto oom;
		for (size_t i = 0; i < o->n_highlight; i++)
			if (o->highlight[i] >= 0 && o->highlight[i] < b.g->n_nodes)
				b.hl[o->highlight[i]] = 1;
	}
	dot_catch_errors();
	char gname[512]; /* the SVG's <title>: XML has no place for control characters */
	b.G = *made = agopen((char *)dot_esc_name(b.g->name ? b.g->name : "region", gname, sizeof gname), Agdirected, NULL);
	nodes = calloc((size_t)r->n_nodes + 1, sizeof *nodes);
	boxes = calloc((size_t)r->n_boxes + 1, sizeof *boxes);
	if (!b.G || !nodes || !boxes)
		goto oom;
	if (uses_clusters(&b)) {
		clusters = calloc((size_t)(b.g->n_hcomps > 0 ? b.g->n_hcomps : 1), sizeof *clusters);
		if (!clusters)
			goto oom;
	}
	graph_defaults(&b, o->terminal);
	if (add_nodes(&b, clusters, nodes) < 0 || add_boxes(&b, nodes, boxes) < 0 ||
	    add_stubs(&b, clusters, nodes, boxes) < 0 ||
	    add_placeholders(&b, clusters, nodes, r->more, r->n_more, 0) < 0 ||
	    add_placeholders(&b, clusters, nodes, r->fanin, r->n_fanin, 1) < 0)
		goto oom;
	if (b.heat && !o->terminal)
		add_legend(&b);
	if (r->note[0] && !o->terminal)
		add_note(&b);
	if (b.hl && o->highlight_legend && *o->highlight_legend && !o->terminal)
		add_highlight_legend(&b);
	free(nodes);
	free(boxes);
	free(clusters);
	free(b.hl);
	free(b.box_heat);
	return b.G;
oom:
	if (b.G)
		agclose(b.G);
	free(nodes);
	free(boxes);
	free(clusters);
	free(b.hl);
	free(b.box_heat);
	hs_fail(err, HS_ENOMEM, "out of memory building the Graphviz graph");
	return NULL;
}
