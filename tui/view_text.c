/* view_text.c - a text file as a table of lines (the reports of an XLA dump
 * folder: buffer assignments, memory usage reports; xz-compressed or not), so that search (/),
 * filter (\), F and :write work on it as on any table.  A tab is shown as
 * spaces; a line is shown up to TUI_CELL bytes (search and filters see it
 * whole). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "loader/xz.h"
#include "tui/tui.h"

struct textview {
	char *text;        /* the file's content (an .xz decompressed), NUL-terminated */
	size_t len;
	size_t *line;      /* start of each line in text */
	int64_t nlines;
	tui_table tab;
};

enum { TC_LINE, TC_TEXT };

static int text_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct textview *tv = ctx;
	if (c->key == TC_LINE) {
		snprintf(buf, cap, "%lld", (long long)row + 1);
		return TUI_C_DIM;
	}
	const char *s = tv->text + tv->line[row];
	size_t k = 0;
	for (; s[k] && s[k] != '\n' && k + 1 < cap; k++)
		buf[k] = s[k] == '\t' || s[k] == '\r' ? ' ' : s[k];
	buf[k] = '\0';
	return TUI_C_DEFAULT;
}

static double text_value(void *ctx, int64_t row, const tui_col *c)
{
	return c->key == TC_LINE ? (double)row + 1 : NAN;
}

static const tui_table_ops text_ops = {text_cell, text_value};

static const tui_col text_cols[] = {
	{.name = "line", .key = TC_LINE, .width = 6, .numeric = 1},
	{.name = "text", .key = TC_TEXT, .width = 120},
};

static const tui_table_spec text_table = {
	.ops = &text_ops, .cols = text_cols, .ncols = TUI_N(text_cols), .ccol = 1,
};

static void text_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct textview *tv = v->data;
	tui_table_draw(win, &tv->tab, y, x, h, w, 1);
}

static void text_done(tui_view *v)
{
	struct textview *tv = v->data;
	tui_table_free(&tv->tab);
	free(tv->text);
	free(tv->line);
	free(tv);
}

static const tui_view_ops text_view_ops = {
	.name = "text", .scope = TUI_S_TABLE, .draw = text_draw, .done = text_done,
};

static int read_lines(struct textview *tv, const char *path, hs_error *err)
{
	if (!(tv->text = xz_read_file(path, xz_max_bytes, &tv->len, err)))
		return -1;
	const char *s = tv->text;
	int64_t n = tv->len && s[tv->len - 1] != '\n';
	for (size_t i = 0; i < tv->len; i++)
		n += s[i] == '\n';
	if (!(tv->line = malloc(((size_t)n + 1) * sizeof *tv->line)))
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", path);
	tv->nlines = 0;
	for (size_t i = 0; i < tv->len;) {
		tv->line[tv->nlines++] = i;
		const char *nl = memchr(s + i, '\n', tv->len - i);
		i = nl ? (size_t)(nl - s) + 1 : tv->len;
	}
	return 0;
}

int tui_open_text(tui *t, const char *path, const char *title)
{
	struct textview *tv = calloc(1, sizeof *tv);
	if (!tv) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	hs_error err = {0};
	if (read_lines(tv, path, &err)) {
		tui_message(t, 1, "%s", err.msg);
		text_done(&(tui_view){.data = tv});
		return -1;
	}
	tui_table_init_spec(&tv->tab, &text_table, tv, tv->nlines);
	snprintf(tv->tab.title, sizeof tv->tab.title, "%lld line%s", (long long)tv->nlines, hs_s(tv->nlines));
	char t2[160];
	snprintf(t2, sizeof t2, "%s", title);
	return tui_push(t, &text_view_ops, tv, NULL, t2, &tv->tab, NULL) ? 0 : -1;
}
