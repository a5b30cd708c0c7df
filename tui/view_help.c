/* view_help.c - `?`: the keys and `:` commands of the view below, generated
 * from the command table (keys.c), and a few lines on filters, search,
 * the mouse and queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"

struct help {
	tui_table tab;
	int *rows; /* request indices, or -1 - i for extra lines */
	int n;
};

static const char *help_extra[][2] = {
	{"filter", "\\ TEXT keeps rows whose current column contains TEXT; or a query"},
	{"", "  condition on the columns: COL=V, COL<N, COL~RE, COL in (A, B), joined by"},
	{"", "  and, or, not, (...); numbers take the column's unit (cost<12 us), - is none"},
	{"prompts", "a default shows selected: typing replaces it, Right or End edit it"},
	{"search", "/ TEXT finds TEXT in the current column; n and N repeat"},
	{"mouse", "click selects a row and a column, the wheel scrolls"},
	{"query", ": with any other text runs a query (:help lists the language)"},
};
#define NEXTRA TUI_N(help_extra)

enum { HC_KEY, HC_CMD, HC_HELP };

static int help_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct help *hp = ctx;
	int r = hp->rows[row];

	if (r < 0) {
		int e = -1 - r;
		if (c->key == HC_CMD)
			snprintf(buf, cap, "%s", help_extra[e][0]);
		else if (c->key == HC_HELP)
			snprintf(buf, cap, "%s", help_extra[e][1]);
		return TUI_C_DIM;
	}
	const tui_request_info *ri = tui_request_at((size_t)r);
	if (c->key == HC_KEY) {
		char a[32] = "", b[32] = "";
		if (ri->key)
			tui_key_label(ri->key, a, sizeof a);
		if (ri->key2)
			tui_key_label(ri->key2, b, sizeof b);
		if (!strcmp(a, b))
			b[0] = '\0';
		snprintf(buf, cap, "%s%s%s", a, *a && *b ? " " : "", b);
		return TUI_C_MARK;
	}
	if (c->key == HC_CMD) {
		snprintf(buf, cap, ":%s", ri->name);
		return TUI_C_HEADER;
	}
	snprintf(buf, cap, "%s", ri->help);
	return TUI_C_DEFAULT;
}

static const tui_table_ops help_table_ops = {help_cell, NULL};

static const tui_col help_cols[] = {
	{.name = "keys", .key = HC_KEY, .width = 16},
	{.name = "command", .key = HC_CMD, .width = 14},
	{.name = "what it does", .key = HC_HELP, .width = 66},
};

static const tui_table_spec help_table = {
	.ops = &help_table_ops, .cols = help_cols, .ncols = TUI_N(help_cols),
};

static void help_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct help *hp = v->data;
	tui_table_draw(win, &hp->tab, y, x, h, w, 1);
}

static void help_done(tui_view *v)
{
	struct help *hp = v->data;
	tui_table_free(&hp->tab);
	free(hp->rows);
	free(hp);
}

static const tui_view_ops help_ops = {
	.name = "help", .scope = TUI_S_TABLE, .draw = help_draw, .done = help_done,
};

int tui_open_help(tui *t, const tui_view *of)
{
	struct help *hp = calloc(1, sizeof *hp);
	int scope = tui_view_scope(of);
	size_t nreq = tui_request_count();
	char title[160];

	if (!hp || !(hp->rows = malloc((nreq + NEXTRA) * sizeof *hp->rows))) {
		free(hp);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nreq; i++)
		if (tui_request_at(i)->scope & scope)
			hp->rows[hp->n++] = (int)i;
	for (int i = 0; i < NEXTRA; i++)
		hp->rows[hp->n++] = -1 - i;
	tui_table_init_spec(&hp->tab, &help_table, hp, hp->n);
	snprintf(hp->tab.title, sizeof hp->tab.title, "Keys and commands of the %s view",
		 of ? of->ops->name : "");
	snprintf(title, sizeof title, "Help: %s", of ? of->ops->name : "");
	return tui_push(t, &help_ops, hp, NULL, title, &hp->tab, NULL) ? 0 : -1;
}
