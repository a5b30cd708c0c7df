/* draw.c - colours (XLA's graph dumper palette, 256, 16 or no colours) and
 * width-aware text drawing for ncursesw. */
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/escape.h"
#include "loader/hlo.h"
#include "tui/tui.h"

static attr_t class_attr[TUI_NCLASSES];
static int utf8_term = -1;

int tui_utf8(void)
{
	if (utf8_term < 0) {
		const char *cs = nl_langinfo(CODESET);
		utf8_term = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	}
	return utf8_term;
}

/* Foreground per class for 256 and for 8/16 colour terminals; -1 = default.
 * Bright variants on 16 colours come from A_BOLD. */
struct palette {
	int cls;
	short fg256, bg256, fg8, bg8;
	attr_t extra8;
	attr_t mono;
};

static const struct palette palette[] = {
	{TUI_C_CAT + HLO_CAT_OTHER, -1, -1, -1, -1, 0, 0},
	{TUI_C_CAT + HLO_CAT_ELEMENTWISE, 220, -1, COLOR_YELLOW, -1, 0, 0},
	{TUI_C_CAT + HLO_CAT_DATA_MOVEMENT, 114, -1, COLOR_GREEN, -1, A_BOLD, 0},
	{TUI_C_CAT + HLO_CAT_CONVOLUTION, 75, -1, COLOR_BLUE, -1, A_BOLD, A_BOLD},
	{TUI_C_CAT + HLO_CAT_REDUCTION, 141, -1, COLOR_MAGENTA, -1, 0, 0},
	{TUI_C_CAT + HLO_CAT_PARAMETER, 208, -1, COLOR_RED, -1, A_BOLD, 0},
	{TUI_C_CAT + HLO_CAT_COLLECTIVE, 173, -1, COLOR_RED, -1, 0, 0},
	{TUI_C_CAT + HLO_CAT_CONTROL, 35, -1, COLOR_GREEN, -1, 0, 0},
	{TUI_C_TITLE, 231, 24, COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
	{TUI_C_STATUS, 252, 236, COLOR_WHITE, COLOR_BLACK, 0, A_REVERSE},
	{TUI_C_ERROR, 231, 124, COLOR_WHITE, COLOR_RED, A_BOLD, A_BOLD | A_REVERSE},
	{TUI_C_DIM, 245, -1, COLOR_CYAN, -1, 0, A_DIM},
	{TUI_C_HEADER, 81, -1, COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	{TUI_C_CURSOR, -1, 238, COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
	{TUI_C_BAR, 110, -1, COLOR_CYAN, -1, 0, 0},
	{TUI_C_MARK, 226, -1, COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	{TUI_C_GOOD, 120, -1, COLOR_GREEN, -1, A_BOLD, A_BOLD},
	{TUI_C_SECTION, 180, -1, COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE},
};

void tui_colors_init(int no_color)
{
	int pair = 1, rich;

	memset(class_attr, 0, sizeof class_attr);
	if (no_color || !has_colors()) {
		for (size_t i = 0; i < sizeof palette / sizeof palette[0]; i++)
			class_attr[palette[i].cls] = palette[i].mono;
		return;
	}
	start_color();
	use_default_colors();
	rich = COLORS >= 256;
	for (size_t i = 0; i < sizeof palette / sizeof palette[0]; i++, pair++) {
		const struct palette *p = &palette[i];
		short fg = rich ? p->fg256 : p->fg8, bg = rich ? p->bg256 : p->bg8;
		init_pair((short)pair, fg, bg);
		class_attr[p->cls] = COLOR_PAIR(pair) | (rich ? 0 : p->extra8);
		if (p->cls == TUI_C_TITLE || p->cls == TUI_C_SECTION)
			class_attr[p->cls] |= A_BOLD;
	}
}

int tui_category_color8(hlo_category c, int *bold)
{
	for (size_t i = 0; i < sizeof palette / sizeof palette[0]; i++)
		if (palette[i].cls == TUI_C_CAT + (int)c) {
			*bold = (palette[i].extra8 & A_BOLD) != 0;
			return palette[i].fg8;
		}
	*bold = 0;
	return -1;
}

attr_t tui_attr(int cls)
{
	if (cls < 0 || cls >= TUI_NCLASSES)
		return 0;
	return class_attr[cls];
}

/* Decodes one character of s (not at its end); returns bytes used.  A
 * byte to escape (base/escape.h: a control character, C1, invalid UTF-8)
 * comes back as wc 0, 4 columns wide: it is drawn as \x1b, the form batch
 * output shows too.  A character the locale cannot decode or the terminal
 * cannot show (wcwidth < 0) is '?'. */
static int next_char(const char *s, wchar_t *wc, int *cw)
{
	mbstate_t st;
	size_t n;
	int bad;

	/* 4: a character is at most that long, and the test stops at the NUL */
	n = hs_esc_char(s, 4, HS_ESC_NAME, &bad);
	if (bad) {
		*wc = 0;
		*cw = 4;
		return 1;
	}
	if (n == 1) {
		*wc = (unsigned char)*s;
		*cw = 1;
		return 1;
	}
	memset(&st, 0, sizeof st);
	n = mbrtowc(wc, s, n, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*wc = L'?';
		*cw = 1;
		return 1;
	}
	*cw = wcwidth(*wc);
	if (*cw < 0) {
		*wc = L'?';
		*cw = 1;
	}
	return (int)n;
}

int tui_width(const char *s)
{
	int w = 0;
	while (*s) {
		wchar_t wc;
		int cw;
		s += next_char(s, &wc, &cw);
		w += cw;
	}
	return w;
}

int tui_put(WINDOW *win, int y, int x, int w, const char *s, attr_t a, int pad)
{
	int used = 0, total;

	if (w <= 0)
		return 0;
	total = tui_width(s);
	wattrset(win, a);
	wmove(win, y, x);
	while (*s) {
		wchar_t wc, buf[2];
		int cw, n = next_char(s, &wc, &cw);
		if (total > w && used + cw > w - 1) {
			if (tui_utf8())
				waddwstr(win, L"\u2026");
			else
				waddch(win, '~');
			used++;
			break;
		}
		if (used + cw > w)
			break;
		if (wc == 0) { /* a byte to escape */
			char e[5];
			hs_esc_byte((unsigned char)*s, e);
			waddstr(win, e);
		} else {
			buf[0] = wc;
			buf[1] = 0;
			waddnwstr(win, buf, 1);
		}
		used += cw;
		s += n;
	}
	if (pad)
		while (used < w) {
			waddch(win, ' ');
			used++;
		}
	wattrset(win, A_NORMAL);
	return used;
}

void tui_put_right(WINDOW *win, int y, int x, int w, const char *s, attr_t a)
{
	int sw = tui_width(s);

	if (sw >= w) {
		tui_put(win, y, x, w, s, a, 1);
		return;
	}
	wattrset(win, a);
	mvwhline(win, y, x, ' ', w - sw);
	tui_put(win, y, x + w - sw, sw, s, a, 0);
}

void tui_bar(char *buf, size_t cap, double frac, int w)
{
	static const char *eighths[] = {"", "\u258f", "\u258e", "\u258d", "\u258c",
					"\u258b", "\u258a", "\u2589"};
	size_t len = 0;
	int units, full;

	if (cap == 0)
		return;
	buf[0] = '\0';
	if (!(frac > 0) || w <= 0)
		return;
	if (frac > 1)
		frac = 1;
	if (!tui_utf8()) {
		full = (int)(frac * w + 0.5);
		if (full < 1)
			full = 1;
		for (int i = 0; i < full && len + 1 < cap; i++)
			buf[len++] = '#';
		buf[len] = '\0';
		return;
	}
	units = (int)(frac * w * 8 + 0.5);
	if (units < 1)
		units = 1;
	full = units / 8;
	for (int i = 0; i < full && len + 4 < cap; i++) {
		memcpy(buf + len, "\u2588", 3);
		len += 3;
	}
	if (units % 8 && len + 4 < cap) {
		size_t n = strlen(eighths[units % 8]);
		memcpy(buf + len, eighths[units % 8], n);
		len += n;
	}
	buf[len] = '\0';
}

const char *tui_mid(const char *s, int w, char *buf, size_t cap)
{
	int total = tui_width(s);

	if (total <= w || w < 3 || cap < 8)
		return s;
	const char *ell = tui_utf8() ? "\u2026" : "~";
	int tailw = (w - 1) / 2, headw = w - 1 - tailw, used = 0;
	const char *p = s, *head_end = NULL, *tail = NULL;
	while (*p) {
		wchar_t wc;
		int cw, n = next_char(p, &wc, &cw);
		if (!head_end && used + cw > headw)
			head_end = p;
		if (!tail && total - used <= tailw)
			tail = p;
		used += cw;
		p += n;
	}
	if (!head_end)
		head_end = p;
	if (!tail)
		tail = p;
	size_t hn = (size_t)(head_end - s), en = strlen(ell), tn = strlen(tail);
	if (hn + en + tn + 1 > cap) { /* keep within cap: fewer bytes of the head */
		size_t room = cap - 1 - en - (tn < cap / 2 ? tn : cap / 2);
		hn = hn < room ? hn : room;
		while (hn > 0 && (s[hn] & 0xC0) == 0x80)
			hn--;
		tn = tn < cap - 1 - en - hn ? tn : cap - 1 - en - hn;
		tail = tail + strlen(tail) - tn;
		while (*tail && (*tail & 0xC0) == 0x80)
			tail++;
	}
	snprintf(buf, cap, "%.*s%s%s", (int)hn, s, ell, tail);
	return buf;
}

const char *tui_name(const char *s, char *buf, size_t cap)
{
	return tui_mid(s, TUI_NAME_MAX, buf, cap);
}

size_t tui_prefix_bytes(const char *s, int w)
{
	const char *p = s;
	int used = 0;

	while (*p) {
		wchar_t wc;
		int cw, n = next_char(p, &wc, &cw);
		if (used + cw > w)
			break;
		used += cw;
		p += n;
	}
	return (size_t)(p - s);
}
