/* view_text.c - a text file as a table of lines (the reports of an XLA dump
 * folder: buffer assignments, memory usage reports), so that search (/),
 * filter (\), F and :write work on it as on any table.  A tab is shown as
 * spaces; a line is shown up to TUI_CELL bytes (search and filters see it
 * whole). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/inputs.h"
#include "base/plural.h"
#include "base/strbuf.h"
#include "tui/tui.h"

struct textview {
	hs_strbuf text;
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
	const char *s = tv->text.s + tv->line[row];
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
	hs_strbuf_free(&tv->text);
	free(tv->line);
	free(tv);
}

static const tui_view_ops text_view_ops = {
	.name = "text", .scope = TUI_S_TABLE, .draw = text_draw, .done = text_done,
};

static int read_lines(struct textview *tv, const char *path)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t k;
	if (!f)
		return errno ? errno : EIO;
	if (hs_input_note_fd(fileno(f), path, NULL) < 0) {
		fclose(f);
		return ENOMEM;
	}
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		hs_strbuf_putn(&tv->text, chunk, k);
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return EIO;
	if (tv->text.failed)
		return ENOMEM;
	const char *s = hs_strbuf_str(&tv->text);
	int64_t n = tv->text.len && s[tv->text.len - 1] != '\n';
	for (size_t i = 0; i < tv->text.len; i++)
		n += s[i] == '\n';
	if (!(tv->line = malloc(((size_t)n + 1) * sizeof *tv->line)))
		return ENOMEM;
	tv->nlines = 0;
	for (size_t i = 0; i < tv->text.len;) {
		tv->line[tv->nlines++] = i;
		const char *nl = memchr(s + i, '\n', tv->text.len - i);
		i = nl ? (size_t)(nl - s) + 1 : tv->text.len;
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
	int e = read_lines(tv, path);
	if (e) {
		tui_message(t, 1, "%s: %s", path, strerror(e));
		text_done(&(tui_view){.data = tv});
		return -1;
	}
	tui_table_init_spec(&tv->tab, &text_table, tv, tv->nlines);
	snprintf(tv->tab.title, sizeof tv->tab.title, "%lld line%s", (long long)tv->nlines, hs_s(tv->nlines));
	char t2[160];
	snprintf(t2, sizeof t2, "%s", title);
	return tui_push(t, &text_view_ops, tv, NULL, t2, &tv->tab, NULL) ? 0 : -1;
}
