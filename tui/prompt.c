/* prompt.c - the bottom-row prompts (`:`, `/`, `\`, `+`...): the line
 * editor of lineedit.c drawn with curses, keys bound to its operations, and
 * Tab completion of commands, columns, query words and file names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tui/app.h"

/* ---- Completion candidates --------------------------------------------------- */

#define MAX_CANDS 512

struct cands {
	const char *v[MAX_CANDS];
	int n;
	char store[16384];
	size_t used;
};

static void cand_add(struct cands *c, const char *s, const char *prefix)
{
	if (c->n == MAX_CANDS || strncmp(s, prefix, strlen(prefix)))
		return;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], s))
			return;
	size_t n = strlen(s) + 1;
	if (c->used + n > sizeof c->store)
		return;
	memcpy(c->store + c->used, s, n);
	c->v[c->n++] = c->store + c->used;
	c->used += n;
}

static void cand_add_fn(void *ctx, const char *s, const char *prefix)
{
	cand_add(ctx, s, prefix);
}

static void complete_path(struct cands *c, const char *word)
{
	char dir[1024], path[2048];
	const char *slash = strrchr(word, '/'), *base = slash ? slash + 1 : word;
	DIR *d;
	struct dirent *e;

	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - word + 1), word);
	else
		snprintf(dir, sizeof dir, "./");
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' && base[0] != '.')
			continue;
		if (strncmp(e->d_name, base, strlen(base)))
			continue;
		snprintf(path, sizeof path, "%s%s", dir, e->d_name);
		int isdir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		snprintf(path, sizeof path, "%s%s%s", slash ? dir : "", e->d_name, isdir ? "/" : "");
		cand_add(c, path, word);
	}
	closedir(d);
}

/* Candidates for the word at line[wstart..]: column names after commands
 * that take one, command names first on the line, files after open, write,
 * save-display and export, else what the query language expects there. */
static void gather(tui *t, int kind, const char *line, size_t wstart, struct cands *c)
{
	char word[512], first[64] = "";
	tui_table *tb = tui_focused_table(tui_top(t));

	snprintf(word, sizeof word, "%s", line + wstart);
	sscanf(line, "%63s", first);
	if (kind == TUI_P_PATH) {
		complete_path(c, word);
		return;
	}
	if (kind == TUI_P_CONFIGS) {
		static const char *sel[] = {"best", "worst", "default"};
		for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++)
			cand_add(c, sel[i], word);
		if (wstart > 0)
			complete_path(c, word);
		return;
	}
	if (kind == TUI_P_COLUMN || (kind == TUI_P_COMMAND && wstart > 0 && !strcmp(first, "column"))) {
		for (int i = 0; tb && i < tb->navail; i++)
			cand_add(c, tb->avail[i].name, word);
		return;
	}
	if (kind == TUI_P_FILTER ||
	    (kind == TUI_P_COMMAND && wstart > 0 &&
	     (!strcmp(first, "sort") || !strcmp(first, "sort-desc") || !strcmp(first, "filter")))) {
		for (int i = 0; tb && i < tb->ncols; i++)
			cand_add(c, tb->cols[i].name, word);
		return;
	}
	if (kind != TUI_P_COMMAND)
		return;
	if (wstart == 0)
		for (size_t i = 0; i < tui_request_count(); i++)
			cand_add(c, tui_request_at(i)->name, word);
	if (!strcmp(first, "open") || !strcmp(first, "write") || !strcmp(first, "save-display") ||
	    !strcmp(first, "export")) {
		complete_path(c, word);
		return;
	}
	if (tui_query_complete(t, line, (int)wstart, cand_add_fn, c))
		complete_path(c, word);
}

/* Tab: completes the word before the cursor; several candidates are
 * listed on the row above the prompt.  A single candidate gets a space
 * after it where more words may follow; a prompt for one name or file gets
 * none (Enter takes the line as it is). */
static void complete(tui *t, int kind, lineedit *e)
{
	char line[TUI_LINE_CAP];
	size_t wstart;
	struct cands c;
	int h, w;

	c.n = 0;
	c.used = 0;
	if (lineedit_before_cursor(e, line, sizeof line, &wstart) < 0)
		return;
	gather(t, kind, line, wstart, &c);
	int more = kind == TUI_P_COMMAND || kind == TUI_P_FILTER || kind == TUI_P_CONFIGS;
	if (!lineedit_complete(e, c.v, c.n, more)) {
		beep();
		return;
	}
	if (c.n > 1) {
		char list[1024];
		size_t l = 0;
		for (int i = 0; i < c.n && l < sizeof list - 1; i++)
			l += (size_t)snprintf(list + l, sizeof list - l, "%s  ", c.v[i]);
		getmaxyx(t->win, h, w);
		tui_put(t->win, h - 2, 0, w, list, tui_attr(TUI_C_STATUS), 1);
	}
}

/* ---- Drawing and keys ----------------------------------------------------------- */

/* The prompt on the bottom row, scrolled so the cursor shows; a selected
 * default in reverse video. */
static void draw_line(tui *t, const char *label, const lineedit *e)
{
	int h, w, lw = tui_width(label), start = 0, cx = lw;

	getmaxyx(t->win, h, w);
	while (lineedit_width(e, start, e->pos) > w - lw - 2 && start < e->pos)
		start++;
	wattrset(t->win, A_NORMAL);
	mvwhline(t->win, h - 1, 0, ' ', w);
	tui_put(t->win, h - 1, 0, w, label, A_BOLD, 0);
	wmove(t->win, h - 1, lw);
	wattrset(t->win, e->selected ? A_REVERSE : A_NORMAL);
	for (int i = start; i < e->len; i++) {
		int cw = lineedit_width(e, i, i + 1);
		if (cx + cw >= w)
			break;
		wchar_t c = e->buf[i];
		/* a control character (in a text given to edit) as one '?', as
		 * lineedit_width counts it; typing cannot insert one */
		if (c < 32 || c == 127 || (c >= 0x80 && c < 0xa0))
			waddch(t->win, '?');
		else
			waddnwstr(t->win, e->buf + i, 1);
		cx += cw;
	}
	wattrset(t->win, A_NORMAL);
	wmove(t->win, h - 1, lw + lineedit_width(e, start, e->pos));
	wrefresh(t->win);
}

/* Keys of the editor (Ctrl-Left and Ctrl-Right are looked up at run time:
 * they have no fixed curses code). */
static const struct {
	int key;
	lineedit_op op;
} bindings[] = {
	{KEY_LEFT, LINEEDIT_LEFT}, {TUI_CTRL('b'), LINEEDIT_LEFT},
	{KEY_RIGHT, LINEEDIT_RIGHT}, {TUI_CTRL('f'), LINEEDIT_RIGHT},
	{KEY_HOME, LINEEDIT_HOME}, {TUI_CTRL('a'), LINEEDIT_HOME},
	{KEY_END, LINEEDIT_END}, {TUI_CTRL('e'), LINEEDIT_END},
	{KEY_BACKSPACE, LINEEDIT_DEL_BACK},
	{KEY_DC, LINEEDIT_DEL_FWD}, {TUI_CTRL('d'), LINEEDIT_DEL_FWD},
	{TUI_CTRL('u'), LINEEDIT_KILL_START}, {TUI_CTRL('k'), LINEEDIT_KILL_END},
	{TUI_CTRL('w'), LINEEDIT_KILL_WORD},
	{KEY_UP, LINEEDIT_HIST_PREV}, {KEY_DOWN, LINEEDIT_HIST_NEXT},
};

static int key_op(int k, lineedit_op *op)
{
	static int cleft = -2, cright = -2;

	if (cleft == -2) {
		cleft = key_defined("\033[1;5D");
		cright = key_defined("\033[1;5C");
	}
	for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++)
		if (bindings[i].key == k) {
			*op = bindings[i].op;
			return 1;
		}
	if (k > 0 && (k == cleft || k == cright)) {
		*op = k == cleft ? LINEEDIT_WORD_LEFT : LINEEDIT_WORD_RIGHT;
		return 1;
	}
	return 0;
}

enum { GOING, DONE, CANCELLED };

/* One key; says whether the prompt goes on. */
static int prompt_key(tui *t, int kind, lineedit *e, int r, wint_t wc)
{
	lineedit_op op;
	int k = (int)wc;

	if (r == KEY_CODE_YES || k < 32 || k == 127)
		k = tui_key_normalize(k);
	if (r == KEY_CODE_YES && k == KEY_RESIZE) {
		tui_draw_all(t);
		return GOING;
	}
	if (r == KEY_CODE_YES && k == KEY_MOUSE) {
		MEVENT m;
		getmouse(&m);
		return GOING;
	}
	if (k == '\n')
		return DONE;
	if (k == 27 || k == TUI_CTRL('g') || k == TUI_CTRL('c'))
		return CANCELLED;
	if (k == KEY_BACKSPACE && e->len == 0)
		return CANCELLED;
	if (k == '\t')
		complete(t, kind, e);
	else if (key_op(k, &op))
		lineedit_do(e, op);
	else if (r == OK && wc >= 32 && wc != 127)
		lineedit_insert(e, (wchar_t)wc);
	return GOING;
}

/* Spaces around an answer mean nothing, but in a search. */
static void trim_answer(char *s)
{
	size_t n = strlen(s), k = 0;

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	while (s[k] == ' ')
		k++;
	memmove(s, s + k, n - k + 1);
}

const char *tui_prompt(tui *t, const char *label, int kind, const char *initial)
{
	lineedit e;
	int state = GOING;

	lineedit_init(&e, initial, &t->hist[kind]);
	lineedit_select(&e);
	curs_set(1);
	while (state == GOING) {
		wint_t wc;
		draw_line(t, label, &e);
		int r = tui_read_key(t, &wc);
		if (tui_stopping(t)) {
			state = CANCELLED;
			break;
		}
		if (r == TUI_IN_COMMAND) {
			tui_script_fail(t, "a command line while the prompt '%s' is open (type its text instead)",
					label);
			state = CANCELLED;
		} else if (r != ERR)
			state = prompt_key(t, kind, &e, r, wc);
	}
	curs_set(0);
	if (state == DONE && lineedit_text(&e, t->line, sizeof t->line) < 0)
		t->line[0] = '\0';
	lineedit_free(&e);
	if (state != DONE)
		return NULL;
	if (kind != TUI_P_SEARCH)
		trim_answer(t->line);
	lineedit_history_add(&t->hist[kind], t->line);
	return t->line;
}
