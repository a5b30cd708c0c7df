/* dot.c - regions as cgraph graphs, the shared Graphviz context, export.
 * See dot.h. */
#include "render/dot.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include "base/plural.h"
#include "loader/hlo.h"
#include "render/layout.h"

/* ---- the Graphviz context --------------------------------------------- */

/* Plugins are preloaded from Graphviz's plugin folder with dlopen and handed
 * to gvContextPlugins() as builtins, so Graphviz neither reads its config
 * file (whose buffer it never frees) nor loads a text layout plugin: labels
 * are measured with Graphviz's built-in font metrics, which is fast,
 * deterministic and keeps fontconfig out of layouts.  PNG has a context of
 * its own with the gd plugin, whose text layout measures labels with the
 * FreeType font gd then draws them in (so they fit their boxes). */

static GVC_t *gv_ctx;     /* layouts, DOT, SVG: built-in font metrics */
static GVC_t *gv_png_ctx; /* PNG: gd with its FreeType text layout */
static int gv_tried, gv_png_tried, gv_atexit;
static char gv_ctx_error[512];
static char gv_last_error[512];
static gvplugin_library_t *gv_core, *gv_layout, *gv_gd;
static lt_symlist_t gv_builtins[4], gv_png_builtins[4];

static int gv_error_sink(char *msg)
{
	size_t n;

	/* Keep the first error of an operation (later ones are consequences). */
	if (gv_last_error[0])
		return 0;
	snprintf(gv_last_error, sizeof gv_last_error, "%s", msg);
	n = strlen(gv_last_error);
	while (n && (gv_last_error[n - 1] == '\n' || gv_last_error[n - 1] == ' '))
		gv_last_error[--n] = '\0';
	return 0;
}

static void gv_error_reset(void)
{
	gv_last_error[0] = '\0';
}

static const char *gv_error_text(void)
{
	return gv_last_error[0] ? gv_last_error : "no message from Graphviz";
}

static void *plugin_symbol(const char *dir, const char *file, const char *sym)
{
	char path[1024];
	void *h;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	/* Never dlclose: Graphviz keeps pointers into the plugin. */
	return dlsym(h, sym);
}

static int plugin_dir(char *out, size_t cap)
{
	const char *env = getenv("GVBINDIR");
	static const char *const fallback[] = {
		"/usr/lib/x86_64-linux-gnu/graphviz", "/usr/lib/aarch64-linux-gnu/graphviz",
		"/usr/lib64/graphviz", "/usr/lib/graphviz", "/usr/local/lib/graphviz",
	};
	Dl_info info;
	char probe[1024];

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return 0;
	}
	if (dladdr((void *)gvContextPlugins, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		if (slash) {
			snprintf(out, cap, "%.*s/graphviz", (int)(slash - info.dli_fname),
				 info.dli_fname);
			snprintf(probe, sizeof probe, "%s/libgvplugin_dot_layout.so.6", out);
			if (access(probe, R_OK) == 0)
				return 0;
		}
	}
	for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++) {
		snprintf(probe, sizeof probe, "%s/libgvplugin_dot_layout.so.6", fallback[i]);
		if (access(probe, R_OK) == 0) {
			snprintf(out, cap, "%s", fallback[i]);
			return 0;
		}
	}
	return -1;
}

static char gv_dir[900];

static void load_plugins(void)
{
	static int loaded;

	if (loaded)
		return;
	loaded = 1;
	agseterrf(gv_error_sink);
	agseterr(AGERR);
	if (plugin_dir(gv_dir, sizeof gv_dir) != 0) {
		gv_dir[0] = '\0';
		return;
	}
	gv_core = plugin_symbol(gv_dir, "libgvplugin_core.so.6", "gvplugin_core_LTX_library");
	gv_layout = plugin_symbol(gv_dir, "libgvplugin_dot_layout.so.6",
				  "gvplugin_dot_layout_LTX_library");
}

/* The gd plugin pulls in libgd, FreeType and fontconfig: only for PNG. */
static GVC_t *make_context(lt_symlist_t *syms, int with_gd)
{
	int k = 0;

	load_plugins();
	if (!gv_core || !gv_layout)
		return gvContext(); /* an unusual install: let Graphviz find its plugins */
	syms[k].name = "gvplugin_dot_layout_LTX_library";
	syms[k++].address = gv_layout;
	syms[k].name = "gvplugin_core_LTX_library";
	syms[k++].address = gv_core;
	if (with_gd && !gv_gd && gv_dir[0])
		gv_gd = plugin_symbol(gv_dir, "libgvplugin_gd.so.6", "gvplugin_gd_LTX_library");
	if (with_gd && gv_gd) {
		syms[k].name = "gvplugin_gd_LTX_library";
		syms[k++].address = gv_gd;
	}
	syms[k].name = NULL;
	syms[k].address = NULL;
	return gvContextPlugins(syms, 0);
}

GVC_t *dot_context(hs_error *err)
{
	if (gv_ctx)
		return gv_ctx;
	if (gv_tried) {
		hs_fail(err, HS_EDATA, "%s", gv_ctx_error);
		return NULL;
	}
	gv_tried = 1;
	gv_ctx = make_context(gv_builtins, 0);
	if (!gv_ctx) {
		snprintf(gv_ctx_error, sizeof gv_ctx_error,
			 "cannot start Graphviz (gvc): is libgvc installed with its plugins?");
		hs_fail(err, HS_EDATA, "%s", gv_ctx_error);
		return NULL;
	}
	if (!gv_atexit) {
		gv_atexit = 1;
		atexit(dot_shutdown);
	}
	return gv_ctx;
}

/* PNG is drawn by gd, which measures text with FreeType: labels laid out
 * with the font gd will draw fit their boxes. */
static GVC_t *png_context(hs_error *err)
{
	if (gv_png_ctx)
		return gv_png_ctx;
	if (!dot_context(err))
		return NULL;
	if (!gv_png_tried) {
		gv_png_tried = 1;
		gv_png_ctx = make_context(gv_png_builtins, 1);
	}
	if (!gv_png_ctx)
		hs_fail(err, HS_EDATA, "cannot start Graphviz for PNG output");
	return gv_png_ctx;
}

void dot_shutdown(void)
{
	void *h;

	if (!gv_ctx && !gv_png_ctx)
		return;
	if (gv_png_ctx)
		gvFreeContext(gv_png_ctx);
	if (gv_ctx)
		gvFreeContext(gv_ctx);
	gv_ctx = gv_png_ctx = NULL;
	gv_tried = gv_png_tried = 0;
	/* The gd plugin initialised fontconfig to draw PNG text; release its
	 * caches so leak checkers see a clean exit. */
	h = dlopen("libgd.so.3", RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		void (*fini)(void) = (void (*)(void))dlsym(h, "gdFontCacheShutdown");
		if (fini)
			fini();
		dlclose(h);
	}
	h = dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		void (*fini)(void) = (void (*)(void))dlsym(h, "FcFini");
		if (fini)
			fini();
		dlclose(h);
	}
}

#if defined(__SANITIZE_ADDRESS__)
/* Graphviz 2.43 leaks inside its dot layout: the virtual nodes and edges of
 * cluster skeletons (build_skeleton) and the sizing tables of HTML-like
 * labels (make_html_label); both are fixed in later Graphviz releases.  The
 * blocks come from Graphviz's own allocator in libgvc (gmalloc, zmalloc,
 * grealloc), which nothing of ours calls, and libgvc has no frame pointers,
 * so the module is the only frame LeakSanitizer's fast unwinder sees.
 * With HLOSCOPE_LSAN_PRECISE set (and ASAN_OPTIONS=fast_unwind_on_malloc=0
 * for full stacks) only the two functions are suppressed, which
 * tests/suites/render_asan.sh uses to show no leak of ours hides there. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	if (getenv("HLOSCOPE_LSAN_PRECISE"))
		return "leak:build_skeleton\nleak:make_html_label\n";
	return "leak:libgvc.so\n";
}

/* Say nothing about the suppressions above when they were used. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

/* ---- labels ----------------------------------------------------------- */

/* Display width of UTF-8 text (every code point counts one column). */
static int utf8_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Copies `src` into dst (cap bytes) cut to `maxw` columns with "…". */
static void fit_text(char *dst, size_t cap, const char *src, int maxw)
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

static void shape_of(const hs_graph *g, int64_t id, hlo_shape *sh)
{
	hlo_decode_shape(graph_feat(g, id), g->feat_width, sh);
}

int dot_node_lines(const hs_graph *g, int64_t id, int maxw, char *l1, char *l2,
		   size_t cap)
{
	char a[256], b[256];
	hlo_shape sh;
	int w1, w2;

	if (maxw < 2)
		maxw = 2;
	shape_of(g, id, &sh);
	snprintf(a, sizeof a, "%" PRId64 " %s", id, hlo_opcode_name(g->opcode[id]));
	hlo_shape_text(&sh, b, sizeof b);
	fit_text(l1, cap, a, maxw);
	fit_text(l2, cap, b, maxw);
	w1 = utf8_width(l1);
	w2 = utf8_width(l2);
	return w1 > w2 ? w1 : w2;
}

static void human_bytes(double b, char *out, size_t cap)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;

	while (b >= 1024 && u < 5) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, cap, "%.0f B", b);
	else
		snprintf(out, cap, "%.1f %s", b, unit[u]);
}

/* ---- building --------------------------------------------------------- */

void dot_opts_init(dot_opts *o)
{
	memset(o, 0, sizeof *o);
	o->heat_log = -1;
	o->clusters = -1;
}

const char *dot_format_for_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return NULL;
	if (!strcasecmp(dot, ".dot") || !strcasecmp(dot, ".gv"))
		return "dot";
	if (!strcasecmp(dot, ".svg"))
		return "svg";
	if (!strcasecmp(dot, ".png"))
		return "png";
	return NULL;
}

int dot_format_known(const char *fmt)
{
	return fmt && (!strcmp(fmt, "dot") || !strcmp(fmt, "svg") || !strcmp(fmt, "png"));
}

typedef struct builder {
	Agraph_t *G;
	const region *r;
	const dot_opts *o;
	const hs_graph *g;
	uint8_t *hl;             /* [n_nodes] highlight mask, or NULL */
	dot_heat_scale scale;
	int heat;
	/* attribute symbols */
	Agsym_t *n_label, *n_fill, *n_font, *n_color, *n_pen, *n_style, *n_peri,
		*n_tip, *n_width, *n_height;
	Agsym_t *e_pen, *e_style, *e_tip, *e_color;
} builder;

#define DOT_PNG_FONT "DejaVu Sans"

static void set(void *obj, Agsym_t *sym, const char *v)
{
	agxset(obj, sym, (char *)v);
}

static Agsym_t *attr(Agraph_t *G, int kind, const char *name, const char *def)
{
	return agattr(G, kind, (char *)name, (char *)def);
}

static int uses_clusters(const builder *b)
{
	if (b->o->clusters >= 0)
		return b->o->clusters;
	return b->g->n_comps > 1;
}

static void terminal_size(builder *b, Agnode_t *n, int cols)
{
	char v[32];

	snprintf(v, sizeof v, "%.4f", (cols + 4) * LAYOUT_CELL_W / 72.0);
	set(n, b->n_width, v);
	snprintf(v, sizeof v, "%.4f", LAYOUT_NODE_ROWS * LAYOUT_CELL_H / 72.0);
	set(n, b->n_height, v);
}

/* Appends "\\n"-separated lines (given with '\n') to a label of len bytes. */
static void append_lines(char *label, size_t cap, int len, const char *lines)
{
	size_t pos = len > 0 ? (size_t)len : 0;

	if (pos + 3 >= cap)
		return;
	label[pos++] = '\\';
	label[pos++] = 'n';
	for (const char *c = lines; *c && pos + 3 < cap; c++) {
		if (*c == '\n') {
			label[pos++] = '\\';
			label[pos++] = 'n';
		} else if (*c != '\\') {
			label[pos++] = *c;
		}
	}
	label[pos] = '\0';
}

static void style_node(builder *b, Agnode_t *n, int64_t id)
{
	const hs_graph *g = b->g;
	hlo_category cat = hlo_opcode_category(g->opcode[id]);
	int focus = id == b->r->focus || id == b->r->focus2;
	int hl = b->hl && b->hl[id];
	int cfg = g->kind == HS_KIND_LAYOUT && g->cfg_index && g->cfg_index[id] >= 0;
	int bin = -1;
	char label[1024], tip[512], shape[160], heatline[96] = "";
	hlo_shape sh;

	if (b->heat)
		bin = dot_heat_bin(&b->scale, b->o->heat[id]);
	if (b->o->terminal) {
		char l1[3 * LAYOUT_LABEL_MAX + 1], l2[3 * LAYOUT_LABEL_MAX + 1];
		terminal_size(b, n, dot_node_lines(g, id, LAYOUT_LABEL_MAX, l1, l2,
						   sizeof l1));
		return;
	}
	shape_of(g, id, &sh);
	hlo_shape_text(&sh, shape, sizeof shape);
	if (b->heat) {
		double v = b->o->heat[id];
		if (isfinite(v))
			snprintf(heatline, sizeof heatline, "\\n%s = %.3g",
				 b->o->heat_name ? b->o->heat_name : "heat", v);
		else
			snprintf(heatline, sizeof heatline, "\\n%s = n/a",
				 b->o->heat_name ? b->o->heat_name : "heat");
	}
	int len = snprintf(label, sizeof label, "%" PRId64 ": %s%s\\n%s%s", id,
			   hlo_opcode_name(g->opcode[id]), cfg ? " [cfg]" : "", shape, heatline);
	if (b->o->notes && b->o->notes[id])
		append_lines(label, sizeof label, len, b->o->notes[id]);
	set(n, b->n_label, label);
	snprintf(tip, sizeof tip, "node %" PRId64 ", %s %s, computation %d: %" PRId64
		 " operand%s, %" PRId64 " user%s%s", id, hlo_opcode_name(g->opcode[id]),
		 shape, g->comp_of ? g->comp_of[id] : 0, graph_n_operands(g, id),
		 hs_s(graph_n_operands(g, id)), graph_n_users(g, id),
		 hs_s(graph_n_users(g, id)), cfg ? ", configurable" : "");
	set(n, b->n_tip, tip);
	if (b->heat) {
		set(n, b->n_fill, dot_heat_fill(bin));
		if (bin >= DOT_HEAT_BINS - 2)
			set(n, b->n_font, "#ffffff");
	} else {
		set(n, b->n_fill, hlo_category_fill(cat));
		if (strcmp(hlo_category_font(cat), "#000000") != 0)
			set(n, b->n_font, hlo_category_font(cat));
		if (strcmp(hlo_category_stroke(cat), "#000000") != 0)
			set(n, b->n_color, hlo_category_stroke(cat));
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

static double edge_bytes(const hs_graph *g, int64_t operand)
{
	hlo_shape sh;

	shape_of(g, operand, &sh);
	return (double)hlo_shape_bytes(&sh);
}

static void style_edge(builder *b, Agedge_t *e, int64_t operand)
{
	double bytes = edge_bytes(b->g, operand);
	char v[200], hb[32], shape[160];
	hlo_shape sh;

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
	shape_of(b->g, operand, &sh);
	hlo_shape_text(&sh, shape, sizeof shape);
	if (bytes > 0) {
		human_bytes(bytes, hb, sizeof hb);
		snprintf(v, sizeof v, "%s, %s", shape, hb);
	} else {
		snprintf(v, sizeof v, "%s", shape);
	}
	set(e, b->e_tip, v);
}

/* Appends text to an HTML-like label, escaped; p advances. */
static char *html_text(char *p, const char *end, const char *text)
{
	for (const char *c = text; *c && p + 6 < end; c++) {
		if (*c == '<')
			p += sprintf(p, "&lt;");
		else if (*c == '>')
			p += sprintf(p, "&gt;");
		else if (*c == '&')
			p += sprintf(p, "&amp;");
		else
			*p++ = *c;
	}
	*p = '\0';
	return p;
}

/* The highlight's legend: its border beside the lines of
 * o->highlight_legend. */
static void add_highlight_legend(builder *b)
{
	size_t cap = 4096;
	char *html = malloc(cap), *p, *end;
	const char *line = b->o->highlight_legend;
	Agnode_t *n;

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
	n = agnode(b->G, "highlight_legend", 1);
	set(n, b->n_label, agstrdup_html(b->G, html));
	agsafeset(n, "shape", "plaintext", "box");
	set(n, b->n_style, "");
	set(n, b->n_tip, "highlight legend");
	free(html);
}

static void add_legend(builder *b)
{
	char *html, *p;
	size_t cap = 4096;
	const char *name = b->o->heat_name ? b->o->heat_name : "heat";
	Agnode_t *n;

	html = malloc(cap);
	if (!html)
		return;
	p = html;
	p += snprintf(p, cap, "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" "
		      "CELLPADDING=\"3\"><TR><TD COLSPAN=\"2\"><B>");
	for (const char *c = name; *c && p < html + 600; c++) {
		/* escape for HTML-like labels */
		if (*c == '<')
			p += sprintf(p, "&lt;");
		else if (*c == '>')
			p += sprintf(p, "&gt;");
		else if (*c == '&')
			p += sprintf(p, "&amp;");
		else
			*p++ = *c;
	}
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
	n = agnode(b->G, "legend", 1);
	set(n, b->n_label, agstrdup_html(b->G, html));
	agsafeset(n, "shape", "plaintext", "box");
	set(n, b->n_style, "");
	set(n, b->n_tip, "heat legend");
	free(html);
}

static Agraph_t *cluster_of(builder *b, Agraph_t **clusters, int32_t comp)
{
	char name[48], label[48];
	Agraph_t *sub;

	if (!clusters)
		return b->G;
	if (clusters[comp])
		return clusters[comp];
	snprintf(name, sizeof name, "cluster_%d", comp);
	sub = agsubg(b->G, name, 1);
	snprintf(label, sizeof label, "computation %d", comp);
	agsafeset(sub, "label", b->o->terminal ? "" : label, "");
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
		attr(b->G, AGRAPH, "label", r->title);
		attr(b->G, AGRAPH, "labelloc", "t");
		attr(b->G, AGRAPH, "fontname", "Helvetica");
		attr(b->G, AGRAPH, "fontsize", "12");
		attr(b->G, AGRAPH, "nodesep", "0.25");
		attr(b->G, AGRAPH, "ranksep", "0.4");
	}
	/* Past the default region limit Graphviz's crossing minimisation and
	 * network simplex dominate (a 1,300-node radius region: 76 s of CPU
	 * unbounded, 3 s with these); bound their iterations. */
	if (r->n_nodes + r->n_more > DOT_BIG_REGION) {
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

/* The "N more users" placeholders, each with a dashed edge from its owner
 * (nodes[] holds the region's nodes).  -1 when out of memory. */
static int add_placeholders(builder *b, Agraph_t **clusters, Agnode_t **nodes, int terminal)
{
	const region *r = b->r;
	char name[64], label[200];

	for (int64_t k = 0; k < r->n_more; k++) {
		int64_t owner = r->more[k].owner, io = region_index_of(r, owner);
		Agraph_t *parent = cluster_of(b, clusters,
					      b->g->comp_of ? b->g->comp_of[owner] : 0);
		Agnode_t *n;
		Agedge_t *e;

		snprintf(name, sizeof name, "more%" PRId64, owner);
		n = agnode(parent, name, 1);
		if (!n)
			return -1;
		snprintf(label, sizeof label, "%" PRId64 " more user%s", r->more[k].hidden,
			 hs_s(r->more[k].hidden));
		if (terminal) {
			terminal_size(b, n, utf8_width(label));
		} else {
			set(n, b->n_label, label);
			set(n, b->n_style, "dashed,rounded");
			snprintf(label, sizeof label, "node %" PRId64 " has %" PRId64
				 " users; %" PRId64 " %s not drawn", owner,
				 graph_n_users(b->g, owner), r->more[k].hidden,
				 hs_plural(r->more[k].hidden, "is", "are"));
			set(n, b->n_tip, label);
		}
		e = agedge(b->G, nodes[io], n, NULL, 1);
		if (!e)
			return -1;
		set(e, b->e_style, "dashed");
	}
	return 0;
}

Agraph_t *dot_build(const region *r, const dot_opts *o, hs_error *err)
{
	builder b;
	dot_opts defaults;
	Agraph_t **clusters = NULL;
	Agnode_t **nodes = NULL;
	char name[64];
	const int terminal = o ? o->terminal : 0;

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
		dot_heat_scale_of(o->heat, r->nodes, r->n_nodes, o->heat_log, &b.scale);
	}
	if (o->highlight && o->n_highlight) {
		b.hl = calloc((size_t)b.g->n_nodes, 1);
		if (!b.hl)
			goto oom;
		for (size_t i = 0; i < o->n_highlight; i++)
			if (o->highlight[i] >= 0 && o->highlight[i] < b.g->n_nodes)
				b.hl[o->highlight[i]] = 1;
	}
	agseterrf(gv_error_sink);
	b.G = agopen(b.g->name ? b.g->name : "region", Agdirected, NULL);
	nodes = calloc((size_t)r->n_nodes + 1, sizeof *nodes);
	if (!b.G || !nodes)
		goto oom;
	if (uses_clusters(&b)) {
		clusters = calloc((size_t)b.g->n_comps + 1, sizeof *clusters);
		if (!clusters)
			goto oom;
	}

	graph_defaults(&b, terminal);

	/* Nodes, in id order, inside their computation's cluster. */
	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t id = r->nodes[i];
		Agraph_t *parent = cluster_of(&b, clusters, b.g->comp_of ? b.g->comp_of[id] : 0);
		snprintf(name, sizeof name, "n%" PRId64, id);
		nodes[i] = agnode(parent, name, 1);
		if (!nodes[i])
			goto oom;
		style_node(&b, nodes[i], id);
	}
	/* Edges operand -> user. */
	for (int64_t k = 0; k < r->n_edges; k++) {
		int64_t user = r->edges[k][0], operand = r->edges[k][1];
		int64_t iu = region_index_of(r, user), io = region_index_of(r, operand);
		Agedge_t *e = agedge(b.G, nodes[io], nodes[iu], NULL, 1);
		if (!e)
			goto oom;
		style_edge(&b, e, operand);
	}
	if (add_placeholders(&b, clusters, nodes, terminal) < 0)
		goto oom;
	if (b.heat && !terminal)
		add_legend(&b);
	if (b.hl && o->highlight_legend && *o->highlight_legend && !terminal)
		add_highlight_legend(&b);
	free(nodes);
	free(clusters);
	free(b.hl);
	return b.G;
oom:
	if (b.G)
		agclose(b.G);
	free(nodes);
	free(clusters);
	free(b.hl);
	hs_fail(err, HS_ENOMEM, "out of memory building the Graphviz graph");
	return NULL;
}

/* ---- writing ---------------------------------------------------------- */

static void swap_graph_fonts(Agraph_t *g, Agsym_t *sym, const char *from,
			     const char *to)
{
	if (!strcmp(agxget(g, sym), from))
		set(g, sym, to);
	for (Agraph_t *sub = agfstsubg(g); sub; sub = agnxtsubg(sub))
		swap_graph_fonts(sub, sym, from, to);
}

/* Replaces fontname `from` by `to` on every object that uses it. */
static void swap_fonts(Agraph_t *g, const char *from, const char *to)
{
	Agsym_t *gs = agattr(g, AGRAPH, "fontname", NULL);
	Agsym_t *ns = agattr(g, AGNODE, "fontname", NULL);
	Agsym_t *es = agattr(g, AGEDGE, "fontname", NULL);

	if (gs)
		swap_graph_fonts(g, gs, from, to);
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
		if (ns && !strcmp(agxget(n, ns), from))
			set(n, ns, to);
		for (Agedge_t *e = agfstout(g, n); es && e; e = agnxtout(g, e))
			if (!strcmp(agxget(e, es), from))
				set(e, es, to);
	}
}

int dot_write_stream(Agraph_t *g, FILE *fp, const char *fmt, dot_fit *fit, hs_error *err)
{
	GVC_t *gvc;
	int rc;

	if (fit) {
		memset(fit, 0, sizeof *fit);
		fit->scale = 1;
	}

	if (!dot_format_known(fmt))
		return hs_fail(err, HS_EUSAGE, "unknown output format '%s' (dot, svg or png)",
			       fmt ? fmt : "");
	gv_error_reset();
	if (!strcmp(fmt, "dot")) {
		agseterrf(gv_error_sink);
		if (agwrite(g, fp) != 0 || ferror(fp))
			return hs_fail(err, HS_EUSAGE, "writing DOT failed: %s", strerror(errno));
		return 0;
	}
	gvc = !strcmp(fmt, "png") ? png_context(err) : dot_context(err);
	if (!gvc)
		return -1;
	/* gd draws with FreeType through fontconfig, which may not resolve the
	 * PostScript name Helvetica: use a family fontconfig always knows. */
	int png = !strcmp(fmt, "png");
	if (png)
		swap_fonts(g, "Helvetica", DOT_PNG_FONT);
	rc = png ? dot_fit_layout(gvc, g, fit) : gvLayout(gvc, g, "dot");
	if (rc != 0) {
		if (png)
			swap_fonts(g, DOT_PNG_FONT, "Helvetica");
		return hs_fail(err, HS_EDATA, "Graphviz dot layout failed: %s",
			       gv_error_text());
	}
	rc = gvRender(gvc, g, fmt, fp);
	gvFreeLayout(gvc, g);
	if (png) {
		dot_fit_done(g);
		swap_fonts(g, DOT_PNG_FONT, "Helvetica");
	}
	if (rc != 0)
		return hs_fail(err, HS_EDATA, "Graphviz cannot render %s: %s%s", fmt,
			       gv_error_text(),
			       !strcmp(fmt, "png") ? " (PNG needs Graphviz's gd plugin, "
						     "libgvplugin_gd)" : "");
	if (ferror(fp))
		return hs_fail(err, HS_EUSAGE, "writing %s failed: %s", fmt, strerror(errno));
	return 0;
}

int dot_write(Agraph_t *g, const char *path, const char *fmt, dot_fit *fit, hs_error *err)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	int fd, rc, saved;
	FILE *fp;
	mode_t mask;

	if (!tmp)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory writing it", path);
	if (!dot_format_known(fmt)) {
		free(tmp);
		return hs_fail(err, HS_EUSAGE, "unknown output format '%s' (dot, svg or png)",
			       fmt ? fmt : "");
	}
	snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		saved = errno;
		free(tmp);
		return hs_fail(err, HS_EUSAGE, "cannot write %s: %s", path, strerror(saved));
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		/* keep mkstemp's 0600: not worth failing for */
	}
	fp = fdopen(fd, "wb");
	if (!fp) {
		saved = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return hs_fail(err, HS_EDATA, "cannot write %s: %s", path, strerror(saved));
	}
	rc = dot_write_stream(g, fp, fmt, fit, err);
	if (fflush(fp) != 0 && rc == 0) {
		saved = errno;
		rc = hs_fail(err, HS_EUSAGE, "cannot write %s: %s", path, strerror(saved));
	}
	if (fclose(fp) != 0 && rc == 0) {
		saved = errno;
		rc = hs_fail(err, HS_EUSAGE, "cannot write %s: %s", path, strerror(saved));
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		saved = errno;
		rc = hs_fail(err, HS_EUSAGE, "cannot write %s: %s", path, strerror(saved));
	}
	if (rc != 0) {
		unlink(tmp);
		if (strncmp(err ? err->msg : "", "cannot write", 12) != 0)
			hs_error_prefix(err, "%s", path);
	}
	free(tmp);
	return rc;
}

int dot_export(const region *r, const dot_opts *o, const char *path,
	       const char *fmt, dot_fit *fit, hs_error *err)
{
	Agraph_t *g = dot_build(r, o, err);
	int rc;

	if (!g)
		return -1;
	rc = dot_write(g, path, fmt, fit, err);
	agclose(g);
	return rc;
}
