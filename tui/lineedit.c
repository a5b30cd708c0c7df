/* lineedit.c - the line editor behind the explorer's prompts, without a
 * terminal (see lineedit.h). */
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "tui/lineedit.h"

/* ---- History ------------------------------------------------------------ */

void lineedit_history_add(lineedit_history *h, const char *line)
{
	if (!line || !*line)
		return;
	if (h->n && !strcmp(h->item[h->n - 1], line))
		return;
	char *copy = strdup(line);
	if (!copy)
		return;
	if (h->n == LINEEDIT_HIST) {
		free(h->item[0]);
		memmove(h->item, h->item + 1, (LINEEDIT_HIST - 1) * sizeof h->item[0]);
		h->n--;
	}
	h->item[h->n++] = copy;
}

void lineedit_history_free(lineedit_history *h)
{
	for (int i = 0; i < h->n; i++)
		free(h->item[i]);
	h->n = 0;
}

/* ---- The line ------------------------------------------------------------ */

/* Decodes s into dst[cap] characters; -1 when it does not decode or fit. */
static int decode(const char *s, wchar_t *dst, size_t cap)
{
	mbstate_t st;
	const char *p = s;

	memset(&st, 0, sizeof st);
	size_t n = mbsrtowcs(dst, &p, cap, &st);
	if (n == (size_t)-1 || p != NULL)
		return -1; /* bad bytes, or more than cap characters */
	return (int)n;
}

void lineedit_set(lineedit *e, const char *s)
{
	int n = s ? decode(s, e->buf, LINEEDIT_MAX + 1) : 0;
	e->len = e->pos = n < 0 ? 0 : n;
	e->buf[e->len] = 0;
	e->selected = 0;
}

void lineedit_select(lineedit *e)
{
	e->selected = e->len > 0;
	e->pos = e->len;
}

/* A selected line goes when text replaces it or a deletion removes it. */
static int drop_selection(lineedit *e)
{
	if (!e->selected)
		return 0;
	e->selected = 0;
	e->len = e->pos = 0;
	e->buf[0] = 0;
	return 1;
}

void lineedit_init(lineedit *e, const char *initial, lineedit_history *h)
{
	memset(e, 0, sizeof *e);
	e->hist = h;
	e->hpos = h ? h->n : 0;
	lineedit_set(e, initial);
}

void lineedit_free(lineedit *e)
{
	free(e->saved);
	e->saved = NULL;
}

int lineedit_text(const lineedit *e, char *out, size_t cap)
{
	mbstate_t st;
	const wchar_t *p = e->buf;

	memset(&st, 0, sizeof st);
	size_t n = wcsrtombs(out, &p, cap, &st);
	if (n == (size_t)-1 || p != NULL) {
		if (cap)
			out[0] = '\0';
		return -1;
	}
	return (int)n;
}

/* Replaces characters [from, to) with ins[nins]; 0 when it does not fit. */
static int splice(lineedit *e, int from, int to, const wchar_t *ins, int nins)
{
	if (e->len - (to - from) + nins > LINEEDIT_MAX)
		return 0;
	wmemmove(e->buf + from + nins, e->buf + to, (size_t)(e->len - to + 1));
	wmemcpy(e->buf + from, ins, (size_t)nins);
	e->len += nins - (to - from);
	return 1;
}

int lineedit_insert(lineedit *e, wchar_t c)
{
	if (c < 32 || c == 127 || (c >= 0x80 && c < 0xa0))
		return 0;
	drop_selection(e);
	if (!splice(e, e->pos, e->pos, &c, 1))
		return 0;
	e->pos++;
	return 1;
}

int lineedit_insert_text(lineedit *e, const char *s)
{
	wchar_t w[LINEEDIT_MAX + 1];
	int n = decode(s, w, LINEEDIT_MAX + 1);

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (w[i] < 32 || w[i] == 127)
			return 0;
	drop_selection(e);
	if (!splice(e, e->pos, e->pos, w, n))
		return 0;
	e->pos += n;
	return 1;
}

/* ---- Moves and edits -------------------------------------------------------- */

static int is_word(wchar_t c)
{
	return iswalnum((wint_t)c) || c == L'_';
}

static int word_left(const lineedit *e)
{
	int p = e->pos;
	while (p > 0 && !is_word(e->buf[p - 1]))
		p--;
	while (p > 0 && is_word(e->buf[p - 1]))
		p--;
	return p;
}

static int word_right(const lineedit *e)
{
	int p = e->pos;
	while (p < e->len && !is_word(e->buf[p]))
		p++;
	while (p < e->len && is_word(e->buf[p]))
		p++;
	return p;
}

static int move_to(lineedit *e, int p)
{
	if (p == e->pos)
		return 0;
	e->pos = p;
	return 1;
}

static int delete_range(lineedit *e, int from, int to)
{
	if (from >= to)
		return 0;
	splice(e, from, to, NULL, 0);
	e->pos = from;
	return 1;
}

/* Shows history entry np (hist->n: the line that was being edited). */
static int browse(lineedit *e, int np)
{
	char tmp[LINEEDIT_MAX * 4 + 1];

	if (!e->hist || np < 0 || np > e->hist->n || np == e->hpos)
		return 0;
	if (e->hpos == e->hist->n) {
		lineedit_text(e, tmp, sizeof tmp);
		free(e->saved);
		e->saved = strdup(tmp);
	}
	e->hpos = np;
	lineedit_set(e, np == e->hist->n ? e->saved : e->hist->item[np]);
	return 1;
}

int lineedit_do(lineedit *e, lineedit_op op)
{
	int s;

	if (e->selected) {
		switch (op) {
		case LINEEDIT_DEL_BACK:
		case LINEEDIT_DEL_FWD:
		case LINEEDIT_KILL_START:
		case LINEEDIT_KILL_END:
		case LINEEDIT_KILL_WORD:
			return drop_selection(e);
		default: /* moves and history keep the text to edit */
			e->selected = 0;
			lineedit_do(e, op);
			return 1;
		}
	}
	switch (op) {
	case LINEEDIT_LEFT:
		return move_to(e, e->pos > 0 ? e->pos - 1 : 0);
	case LINEEDIT_RIGHT:
		return move_to(e, e->pos < e->len ? e->pos + 1 : e->len);
	case LINEEDIT_HOME:
		return move_to(e, 0);
	case LINEEDIT_END:
		return move_to(e, e->len);
	case LINEEDIT_WORD_LEFT:
		return move_to(e, word_left(e));
	case LINEEDIT_WORD_RIGHT:
		return move_to(e, word_right(e));
	case LINEEDIT_DEL_BACK:
		return e->pos > 0 ? delete_range(e, e->pos - 1, e->pos) : 0;
	case LINEEDIT_DEL_FWD:
		if (e->pos >= e->len)
			return 0;
		splice(e, e->pos, e->pos + 1, NULL, 0);
		return 1;
	case LINEEDIT_KILL_START:
		return delete_range(e, 0, e->pos);
	case LINEEDIT_KILL_END:
		if (e->pos >= e->len)
			return 0;
		e->len = e->pos;
		e->buf[e->len] = 0;
		return 1;
	case LINEEDIT_KILL_WORD:
		s = e->pos;
		while (s > 0 && e->buf[s - 1] == L' ')
			s--;
		while (s > 0 && e->buf[s - 1] != L' ')
			s--;
		return delete_range(e, s, e->pos);
	case LINEEDIT_HIST_PREV:
		return browse(e, e->hpos - 1);
	case LINEEDIT_HIST_NEXT:
		return browse(e, e->hpos + 1);
	}
	return 0;
}

/* ---- Completion -------------------------------------------------------------- */

int lineedit_word_start(const lineedit *e)
{
	int ws = e->pos;
	while (ws > 0 && !wcschr(L" =<>(,", e->buf[ws - 1]))
		ws--;
	return ws;
}

/* The encoded length of buf[0..n). */
static size_t encoded_len(const wchar_t *buf, int n)
{
	char one[16];
	mbstate_t st;
	size_t len = 0;

	memset(&st, 0, sizeof st);
	for (int i = 0; i < n; i++) {
		size_t k = wcrtomb(one, buf[i], &st);
		len += k == (size_t)-1 ? 1 : k;
	}
	return len;
}

int lineedit_before_cursor(const lineedit *e, char *out, size_t cap, size_t *word)
{
	lineedit head = *e;

	head.saved = NULL;
	head.len = e->pos;
	head.buf[head.len] = 0;
	*word = encoded_len(e->buf, lineedit_word_start(e));
	return lineedit_text(&head, out, cap);
}

int lineedit_complete(lineedit *e, const char *const *cands, int n, int space_after)
{
	char ins[LINEEDIT_MAX * 4 + 2];
	wchar_t w[LINEEDIT_MAX + 1];

	if (n <= 0)
		return 0;
	e->selected = 0;
	size_t lcp = strlen(cands[0]);
	for (int i = 1; i < n; i++) {
		size_t j = 0;
		while (j < lcp && cands[i][j] == cands[0][j])
			j++;
		lcp = j;
	}
	/* never cut a multibyte character in two */
	while (lcp > 0 && ((unsigned char)cands[0][lcp] & 0xC0) == 0x80)
		lcp--;
	if (lcp >= sizeof ins - 1)
		return 0;
	int space = space_after && n == 1 && lcp > 0 && cands[0][lcp - 1] != '/';
	memcpy(ins, cands[0], lcp);
	ins[lcp] = '\0';
	if (space)
		strcat(ins, " ");
	int nw = decode(ins, w, LINEEDIT_MAX + 1);
	int ws = lineedit_word_start(e);
	if (nw < 0 || !splice(e, ws, e->pos, w, nw))
		return 0;
	e->pos = ws + nw;
	return 1;
}

int lineedit_width(const lineedit *e, int from, int to)
{
	int w = 0;
	for (int i = from; i < to && i < e->len; i++) {
		int cw = wcwidth(e->buf[i]);
		w += cw < 1 ? 1 : cw;
	}
	return w;
}
