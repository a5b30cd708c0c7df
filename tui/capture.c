/* capture.c - the screen as text (`:save-display`, and scripts' screens):
 * what curses believes the terminal shows (curscr), one line per row, with
 * or without the attributes as SGR escapes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/afile.h"
#include "tui/app.h"

/* SGR code of colour c (-1 = default) with bases 30/90/38 for the
 * foreground, 40/100/48 for the background. */
static size_t color_code(char *buf, size_t cap, int c, int base, int bright, int ext)
{
	if (c < 0)
		return 0;
	if (c < 8)
		return (size_t)snprintf(buf, cap, ";%d", base + c);
	if (c < 16)
		return (size_t)snprintf(buf, cap, ";%d", bright + c - 8);
	return (size_t)snprintf(buf, cap, ";%d;5;%d", ext, c);
}

/* SGR parameters of a cell's attributes and colour pair, each after a
 * ';' ("" = default). */
static void sgr(attr_t a, short pair, char *buf, size_t cap)
{
	static const struct {
		attr_t bit;
		const char *code;
	} bits[] = {
		{A_BOLD, ";1"}, {A_DIM, ";2"}, {A_ITALIC, ";3"}, {A_UNDERLINE, ";4"},
		{A_BLINK, ";5"}, {A_REVERSE | A_STANDOUT, ";7"}, {A_INVIS, ";8"},
	};
	size_t len = 0;
	short fg = -1, bg = -1;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (a & bits[i].bit)
			len += (size_t)snprintf(buf + len, cap - len, "%s", bits[i].code);
	if (pair > 0 && pair_content(pair, &fg, &bg) != OK)
		fg = bg = -1;
	len += color_code(buf + len, cap - len, fg, 30, 90, 38);
	color_code(buf + len, cap - len, bg, 40, 100, 48);
}

/* One row into out (UTF-8, escapes when attrs), trailing blanks dropped. */
static void row_text(int y, int cols, int attrs, char *out, size_t cap)
{
	char cur[64] = "", want[64];
	size_t len = 0, keep = 0; /* keep: length up to the last non-blank */
	mbstate_t st;

	memset(&st, 0, sizeof st);
	out[0] = '\0';
	for (int x = 0; x < cols && len + 64 < cap; x++) {
		cchar_t cc;
		wchar_t wch[CCHARW_MAX + 1] = {0};
		attr_t a = 0;
		short pair = 0;
		if (mvwin_wch(curscr, y, x, &cc) != OK || getcchar(&cc, wch, &a, &pair, NULL) == ERR)
			wch[0] = L' ';
		if (!wch[0])
			wch[0] = L' ';
		if (attrs) {
			sgr(a & (A_ATTRIBUTES & ~A_COLOR), pair, want, sizeof want);
			if (strcmp(want, cur)) {
				len += (size_t)snprintf(out + len, cap - len, "\033[0%sm", want);
				snprintf(cur, sizeof cur, "%s", want);
			}
		}
		int blank = wch[0] == L' ' && !wch[1] && !cur[0];
		for (int i = 0; wch[i] && i < CCHARW_MAX; i++) {
			size_t n = wcrtomb(out + len, wch[i], &st);
			if (n == (size_t)-1)
				out[len++] = '?';
			else
				len += n;
		}
		if (!blank)
			keep = len;
		if (wcwidth(wch[0]) == 2)
			x++; /* the second cell of a wide character */
	}
	if (attrs && cur[0]) {
		len += (size_t)snprintf(out + len, cap - len, "\033[0m");
		keep = len;
	}
	out[keep] = '\0';
}

int tui_capture_screen(const char *path, int attrs, hs_error *err)
{
	int rows, cols;
	hs_afile *af;

	if (!path || !*path)
		return hs_fail(err, HS_EUSAGE, "save-display: give a file name");
	getmaxyx(curscr, rows, cols);
	size_t cap = (size_t)cols * 48 + 64;
	char *line = malloc(cap);
	if (!line)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory saving the screen", path);
	if (!(af = hs_afile_open(path, err))) {
		free(line);
		return -1;
	}
	for (int y = 0; y < rows; y++) {
		row_text(y, cols, attrs, line, cap);
		fprintf(hs_afile_stream(af), "%s\n", line);
	}
	free(line);
	return hs_afile_commit(af, err);
}
