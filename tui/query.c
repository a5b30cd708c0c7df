/* query.c - the `:` line's bridge to the query language (query/query.h):
 * one session per open graph, and one per dataset view for queries over
 * every graph of its folder (progress on the status line, Ctrl-C stops
 * them); results shown as table views whose rows open the node, config or
 * graph they stand for, with the files a folder query skipped in a second
 * pane. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/units.h"
#include "query/query.h"
#include "tui/tui.h"

struct qview {
	tui_doc *doc;
	query_session *fs; /* the folder session of a folder result (the dataset
			    * view's, below this one), else NULL */
	query_result res;
	tui_table tab;
	tui_table skipped; /* the files a folder query skipped: file, why */
	char **lines; /* QUERY_BLOCK: the text split in lines */
	int64_t nlines;
};

static void fmt_cell(const query_table *qt, int64_t row, int col, char *buf, size_t cap)
{
	const query_cell *c = query_cell_at(qt, row, col);

	if (qt->types[col] == QUERY_TEXT)
		snprintf(buf, cap, "%s", c->text ? c->text : "");
	else if (isnan(c->num))
		snprintf(buf, cap, "-");
	else
		hs_num_short(buf, cap, c->num);
}

static int q_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct qview *q = ctx;

	if (q->lines) {
		snprintf(buf, cap, "%s", q->lines[row]);
		return TUI_C_DEFAULT;
	}
	fmt_cell(&q->res.table, row, c->key, buf, cap);
	return TUI_C_DEFAULT;
}

static double q_value(void *ctx, int64_t row, const tui_col *c)
{
	struct qview *q = ctx;

	if (q->lines || q->res.table.types[c->key] != QUERY_NUM)
		return NAN;
	return query_cell_at(&q->res.table, row, c->key)->num;
}

static const tui_table_ops q_table_ops = {q_cell, q_value};

/* The skipped files: "REL: why" split at the first ": ". */
static int skip_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct qview *q = ctx;
	const char *s = q->res.skipped[row], *sep = strstr(s, ": ");
	int n = sep ? (int)(sep - s) : (int)strlen(s);

	if (c->key == 0)
		snprintf(buf, cap, "%.*s", n, s);
	else
		snprintf(buf, cap, "%s", sep ? sep + 2 : "");
	return c->key == 0 ? TUI_C_DEFAULT : TUI_C_ERROR;
}

static double skip_value(void *ctx, int64_t row, const tui_col *c)
{
	return NAN;
}

static const tui_table_ops skip_table_ops = {skip_cell, skip_value};

static void q_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct qview *q = v->data;
	char line[256];

	if (v->focus == 1) {
		snprintf(line, sizeof line, " %zu file%s could not be read and %s skipped (Tab: the result)",
			 q->res.nskipped, hs_s(q->res.nskipped),
			 q->res.nskipped == 1 ? "was" : "were");
		tui_put(win, y, x, w, line, tui_attr(TUI_C_ERROR), 1);
		tui_table_draw(win, &q->skipped, y + 1, x, h - 1, w, 1);
		return;
	}
	if (q->res.nskipped) {
		snprintf(line, sizeof line, "%s; %zu file%s skipped (Tab lists them)",
			 q->res.note ? q->res.note : "", q->res.nskipped, hs_s(q->res.nskipped));
		tui_put(win, y, x, w, line, tui_attr(TUI_C_ERROR), 1);
		y++;
		h--;
	} else if (q->res.note) {
		tui_put(win, y, x, w, q->res.note, tui_attr(TUI_C_DIM), 1);
		y++;
		h--;
	}
	tui_table_draw(win, &q->tab, y, x, h, w, 1);
}

/* Enter on a row of a folder result: its graph, at its node or config. */
static int open_row_graph(tui *t, const char *path, int64_t node, int64_t cfg)
{
	hs_error err = {0};
	tui_doc *doc = tui_doc_open(path, tui_model(t), &err);

	if (!doc) {
		tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	if (node >= 0)
		tui_open_node(t, doc, node);
	else if (cfg >= 0)
		tui_open_config_values(t, doc, cfg);
	else
		tui_open_overview(t, doc);
	tui_doc_unref(doc);
	return 1;
}

static int q_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct qview *q = v->data;
	int64_t r = tui_table_row(&q->tab);

	if ((req != TUI_REQ_ENTER && req != TUI_REQ_DRAW) || q->lines || r < 0 || v->focus == 1)
		return 0;
	const query_table *qt = &q->res.table;
	int64_t node = qt->node ? qt->node[r] : -1, cfg = qt->config ? qt->config[r] : -1;
	const char *path = qt->path ? qt->path[r] : NULL;
	if (req == TUI_REQ_DRAW && node < 0)
		return 0;
	if (!q->doc && path && req == TUI_REQ_ENTER)
		return open_row_graph(t, path, node, cfg);
	if (!q->doc)
		return 0;
	if (req == TUI_REQ_DRAW)
		tui_open_drawing(t, q->doc, node);
	else if (node >= 0)
		tui_open_node(t, q->doc, node);
	else if (cfg >= 0)
		tui_open_config_values(t, q->doc, cfg);
	else if (path)
		tui_open_overview(t, q->doc);
	else
		tui_message(t, 0, "this row stands for no node or config");
	return 1;
}

static void q_done(tui_view *v)
{
	struct qview *q = v->data;
	tui_table_free(&q->tab);
	tui_table_free(&q->skipped);
	query_result_free(&q->res);
	free(q->lines);
	free(q);
}

static const tui_view_ops q_ops = {.name = "query", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS,
				   .draw = q_draw, .request = q_request, .done = q_done};
/* A text result (show, help): its lines open nothing. */
static const tui_view_ops q_text_ops = {.name = "query", .scope = TUI_S_TABLE | TUI_S_GRAPH, .draw = q_draw,
					.request = q_request, .done = q_done};
/* A result over a folder: no graph of its own; its rows open their graph. */
static const tui_view_ops q_folder_ops = {.name = "query", .scope = TUI_S_TABLE | TUI_S_OPENS, .draw = q_draw,
					  .request = q_request, .done = q_done};

static int show_result(tui *t, tui_doc *d, query_session *fs, const char *line, query_result *res)
{
	struct qview *q = calloc(1, sizeof *q);
	char title[160];

	if (!q) {
		query_result_free(res);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	q->doc = d;
	q->fs = fs;
	q->res = *res;
	memset(res, 0, sizeof *res);
	if (q->res.kind == QUERY_BLOCK) {
		int64_t n = 1;
		for (char *p = q->res.text; *p; p++)
			n += *p == '\n';
		q->lines = malloc((size_t)n * sizeof *q->lines);
		if (!q->lines) {
			q_done(&(tui_view){.data = q});
			return -1;
		}
		for (char *p = q->res.text; *p;) {
			char *e = strchr(p, '\n');
			q->lines[q->nlines++] = p;
			if (!e)
				break;
			*e = '\0';
			p = e + 1;
		}
		tui_table_init(&q->tab, &q_table_ops, q, q->nlines);
		tui_table_add_col(&q->tab, "text", 0, 200, 0);
	} else {
		const query_table *qt = &q->res.table;
		tui_table_init(&q->tab, &q_table_ops, q, qt->nrows);
		for (int c = 0; c < qt->ncols; c++) {
			int w = (int)strlen(qt->cols[c]);
			for (int64_t r = 0; r < qt->nrows && r < 200; r++) {
				char buf[256];
				fmt_cell(qt, r, c, buf, sizeof buf);
				int cw = tui_width(buf);
				if (cw > w)
					w = cw;
			}
			tui_table_add_col(&q->tab, qt->cols[c], c, w < 4 ? 4 : w > 40 ? 40 : w,
					  qt->types[c] == QUERY_NUM);
		}
	}
	snprintf(q->tab.title, sizeof q->tab.title, ":%s", line);
	snprintf(title, sizeof title, ":%s", line);
	tui_table *second = NULL;
	if (q->res.nskipped) {
		tui_table_init(&q->skipped, &skip_table_ops, q, (int64_t)q->res.nskipped);
		tui_table_add_col(&q->skipped, "file", 0, 48, 0);
		tui_table_add_col(&q->skipped, "why", 1, 60, 0);
		second = &q->skipped;
		tui_message(t, 1, "%zu file%s could not be read and %s skipped: Tab lists them",
			    q->res.nskipped, hs_s(q->res.nskipped),
			    q->res.nskipped == 1 ? "was" : "were");
	}
	const tui_view_ops *ops = q->lines ? &q_text_ops : d ? &q_ops : &q_folder_ops;
	return tui_push(t, ops, q, d, title, &q->tab, second) ? 0 : -1;
}

static int on_progress(void *ctx, size_t done, size_t total, double seconds)
{
	tui *t = ctx;
	char d[32], n[32], took[32];

	if (tui_take_interrupt(t))
		return 1;
	if (seconds >= 1.0) {
		hs_num_thousands(d, sizeof d, (int64_t)done);
		hs_num_thousands(n, sizeof n, (int64_t)total);
		hs_unit_format(took, sizeof took, HS_U_SECONDS, seconds, 0);
		tui_status_now(t, "%s/%s files, %s (Ctrl-C stops)", d, n, took);
	}
	return 0;
}

/* The folder session a view's `:` line queries: the dataset view's own, or
 * the one a folder result came from. */
static query_session *folder_session(tui *t, tui_view *v)
{
	if (v && (v->ops == &q_folder_ops || v->ops == &q_text_ops) && ((struct qview *)v->data)->fs)
		return ((struct qview *)v->data)->fs;
	return tui_dataset_session(t, v);
}

void tui_run_query(tui *t, tui_view *v, const char *text)
{
	hs_error err = {0};
	query_result res;
	query_session *s, *fs = NULL;

	if (v && v->doc) {
		s = v->doc->qs;
	} else if (!(s = fs = folder_session(t, v))) {
		tui_message(t, 1, "unknown command '%s'; queries need an open graph or folder "
			       "(? lists commands)", text);
		return;
	}
	memset(&res, 0, sizeof res);
	if (fs)
		query_session_set_progress(fs, on_progress, t);
	int rc = query_exec(s, text, &res, &err);
	if (fs) {
		query_session_set_progress(fs, NULL, NULL);
		tui_take_interrupt(t); /* a Ctrl-C after the end stops nothing else */
	}
	if (rc < 0) {
		int col = query_error_column(s);
		if (fs && query_stopped(fs))
			tui_message(t, 1, "query %s (Ctrl-C); nothing shown", err.msg);
		else
			tui_error_at(t, "", err.msg, text, col);
		query_result_free(&res);
		return;
	}
	switch (res.kind) {
	case QUERY_NONE:
		break;
	case QUERY_TABLE:
	case QUERY_BLOCK:
		show_result(t, v->doc, fs, text, &res);
		break;
	case QUERY_ACTION:
		if (res.action == QUERY_ACT_QUIT)
			tui_quit(t);
		else if (res.action == QUERY_ACT_OPEN && res.arg) {
			if (tui_open_path(t, res.arg, &err) < 0)
				tui_message(t, 1, "%s", err.msg);
		} else if (res.action == QUERY_ACT_FORMAT)
			tui_message(t, 0, "output formats apply to the REPL and batch queries; the explorer shows tables");
		break;
	}
	query_result_free(&res);
}

void tui_error_at(tui *t, const char *what, const char *msg, const char *line, int col)
{
	if (col > 0)
		tui_message(t, 1, "%s%s  [%.*s>>%s]", what, msg, col - 1, line, line + col - 1);
	else
		tui_message(t, 1, "%s%s", what, msg);
}

int tui_query_complete(tui *t, const char *line, int start, tui_word_fn add, void *ctx)
{
	tui_view *v = tui_top(t);
	int files = 0;
	char word[512];

	snprintf(word, sizeof word, "%s", line + start);
	query_session *s = v && v->doc ? v->doc->qs : folder_session(t, v);
	if (!s && (!v || !v->doc)) {
		if (start == 0)
			for (size_t i = 0; query_command_name(i); i++)
				add(ctx, query_command_name(i), word);
		return 0;
	}
	if (!s)
		return 0;
	char **c = query_complete(s, line, start, (int)strlen(line), &files);
	for (size_t i = 0; c && c[i]; i++)
		add(ctx, c[i], word);
	query_strv_free(c);
	return files;
}

int tui_query_knows(const char *name)
{
	for (size_t i = 0; query_command_name(i); i++)
		if (!strcmp(query_command_name(i), name))
			return 1;
	return 0;
}
