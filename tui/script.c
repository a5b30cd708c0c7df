/* script.c - keys from a script instead of the terminal, as tig's
 * TIG_SCRIPT: HLOSCOPE_SCRIPT=FILE runs the explorer without a terminal
 * (curses writes to /dev/null, the size comes from COLUMNS and LINES), one
 * line of FILE at a time, each fully processed before the next:
 *
 *   # a comment; blank lines are skipped
 *   j                  one key: a character, or a name: Enter Tab Space Esc
 *                      Backspace Del S-Tab Up Down Left Right PgUp PgDn
 *                      Home End S-Left S-Right S-Up S-Down F1..F12 C-a..C-z
 *                      KEY_RESIZE
 *   type TEXT          the characters of TEXT, one key each (for prompts)
 *   :COMMAND           a `:` command line, run as if typed at the `:` prompt
 *   :save-display [--attrs] FILE
 *                      the screen as it is now (tui/capture.c), also while
 *                      a prompt is open
 *   resize COLS ROWS   the terminal takes this size
 *   interrupt          a Ctrl-C (SIGINT) as the next key's work starts: it
 *                      stops that work; twice, the explorer quits (130)
 *
 * At the end of the script the explorer quits with status 0.  An unknown
 * line, a command line while a prompt is open, a screen that cannot be
 * saved, or lines left when the explorer quits stop it with status 1 and
 * FILE:LINE in the message.
 *
 * HLOSCOPE_KEYS="tjj/conv<Enter>" (bench/tui.sh) plays keys the same way in
 * a real terminal: characters, and key names in angle brackets. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/inputs.h"
#include "tui/app.h"

struct tui_script {
	char name[256]; /* the file, or "HLOSCOPE_KEYS" */
	tui_event *ev;
	size_t n, cap, next;
};

void tui_script_free(tui_script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->ev[i].text);
	free(s->ev);
	free(s);
}

static tui_script *script_new(const char *name)
{
	tui_script *s = calloc(1, sizeof *s);
	if (s)
		snprintf(s->name, sizeof s->name, "%s", name);
	return s;
}

static tui_event *add(tui_script *s, int kind, int line)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		tui_event *p = realloc(s->ev, nc * sizeof *p);
		if (!p)
			return NULL;
		s->ev = p;
		s->cap = nc;
	}
	tui_event *e = &s->ev[s->n++];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->line = line;
	return e;
}

static int add_key(tui_script *s, int key, int is_code, int line)
{
	tui_event *e = add(s, TUI_EV_KEY, line);
	if (!e)
		return -1;
	e->key = key;
	e->is_code = is_code;
	return 0;
}

/* The characters of text as keys. */
static int add_text(tui_script *s, const char *text, int line, hs_error *err)
{
	mbstate_t st;
	size_t len = strlen(text);

	memset(&st, 0, sizeof st);
	while (len > 0) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, text, len, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
			return hs_fail(err, HS_EUSAGE, "%s:%d: text that is not valid in this locale", s->name, line);
		if (add_key(s, (int)wc, 0, line) < 0)
			return hs_fail(err, HS_ENOMEM, "%s:%d: out of memory reading the script", s->name,
				       line);
		text += n;
		len -= n;
	}
	return 0;
}

/* `:save-display [--attrs] FILE` or another command line. */
static int add_command(tui_script *s, const char *cmd, int line, hs_error *err)
{
	const char *arg = NULL;
	int attrs = 0;
	tui_event *e;

	if (!strncmp(cmd, "save-display", 12) && (cmd[12] == ' ' || !cmd[12])) {
		arg = cmd + 12;
		while (*arg == ' ')
			arg++;
		if (!strncmp(arg, "--attrs", 7) && (arg[7] == ' ' || !arg[7])) {
			attrs = 1;
			for (arg += 7; *arg == ' ';)
				arg++;
		}
		if (!*arg)
			return hs_fail(err, HS_EUSAGE, "%s:%d: save-display needs a file name", s->name, line);
	}
	e = add(s, arg ? TUI_EV_SAVE : TUI_EV_COMMAND, line);
	if (!e || !(e->text = strdup(arg ? arg : cmd)))
		return hs_fail(err, HS_ENOMEM, "%s:%d: out of memory reading the script", s->name, line);
	e->attrs = attrs;
	return 0;
}

static int parse_line(tui_script *s, char *p, int line, hs_error *err)
{
	int cols, rows, is_code, key;
	char extra;

	if (!strncmp(p, "type ", 5))
		return add_text(s, p + 5, line, err);
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		p[--n] = '\0';
	if (!*p || *p == '#')
		return 0;
	if (p[0] == ':' && p[1])
		return add_command(s, p + 1, line, err);
	if (!strcmp(p, "interrupt")) {
		if (!add(s, TUI_EV_INTERRUPT, line))
			return hs_fail(err, HS_ENOMEM, "%s:%d: out of memory reading the script", s->name, line);
		return 0;
	}
	if (sscanf(p, "resize %d %d %c", &cols, &rows, &extra) == 2) {
		tui_event *e = add(s, TUI_EV_RESIZE, line);
		if (!e)
			return hs_fail(err, HS_ENOMEM, "%s:%d: out of memory reading the script", s->name,
				       line);
		if (cols < 1 || rows < 1 || cols > 1000 || rows > 1000)
			return hs_fail(err, HS_EUSAGE, "%s:%d: resize to %dx%d", s->name, line, cols, rows);
		e->cols = cols;
		e->rows = rows;
		return 0;
	}
	key = tui_key_by_name(p, &is_code);
	if (key < 0)
		return hs_fail(err, HS_EUSAGE,
			       "%s:%d: unknown key '%s' (a key name, one character, type TEXT, :COMMAND, "
			       "or resize COLS ROWS)",
			       s->name, line, p);
	if (add_key(s, key, is_code, line) < 0)
		return hs_fail(err, HS_ENOMEM, "%s:%d: out of memory reading the script", s->name, line);
	return 0;
}

tui_script *tui_script_load(const char *path, hs_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t got;
	int line = 0;
	tui_script *s;

	if (!f) {
		if (errno == ENOMEM)
			hs_fail(err, HS_ENOMEM, "%s: out of memory opening the script", path);
		else
			hs_fail(err, HS_EUSAGE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (hs_input_note_fd(fileno(f), path, err) < 0) {
		fclose(f);
		return NULL;
	}
	s = script_new(path);
	if (!s) {
		fclose(f);
		hs_fail(err, HS_ENOMEM, "%s: out of memory reading the script", path);
		return NULL;
	}
	errno = 0;
	while ((got = getline(&buf, &cap, f)) >= 0) {
		line++;
		while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
			buf[--got] = '\0';
		if (parse_line(s, buf, line, err) < 0) {
			tui_script_free(s);
			s = NULL;
			break;
		}
		errno = 0;
	}
	if (s && got < 0 && errno) { /* not the end: the rest would be cut off */
		hs_fail(err, hs_errno_status(errno), "%s:%d: %s", path, line + 1,
			errno == ENOMEM ? "out of memory reading the script" : strerror(errno));
		tui_script_free(s);
		s = NULL;
	}
	free(buf);
	fclose(f);
	return s;
}

tui_script *tui_script_from_keys(const char *keys, hs_error *err)
{
	tui_script *s = script_new("HLOSCOPE_KEYS");
	size_t n = strlen(keys);

	if (!s) {
		hs_fail(err, HS_ENOMEM, "out of memory reading HLOSCOPE_KEYS");
		return NULL;
	}
	for (size_t i = 0; i < n;) {
		int key, is_code = 0;
		if (keys[i] == '<') {
			char name[32];
			const char *e = strchr(keys + i, '>');
			size_t len = e ? (size_t)(e - keys - i - 1) : 0;
			key = -1;
			if (e && len > 0 && len < sizeof name) {
				memcpy(name, keys + i + 1, len);
				name[len] = '\0';
				key = tui_key_by_name(name, &is_code);
			}
			if (key < 0) {
				hs_fail(err, HS_EUSAGE, "HLOSCOPE_KEYS: bad key name at offset %zu", i);
				tui_script_free(s);
				return NULL;
			}
			i = (size_t)(e - keys) + 1;
		} else {
			key = (unsigned char)keys[i++];
		}
		if (add_key(s, key, is_code, 0) < 0) {
			hs_fail(err, HS_ENOMEM, "out of memory reading HLOSCOPE_KEYS");
			tui_script_free(s);
			return NULL;
		}
	}
	return s;
}

const tui_event *tui_script_next(tui_script *s)
{
	return s->next < s->n ? &s->ev[s->next++] : NULL;
}

const tui_event *tui_script_peek(const tui_script *s)
{
	return s->next < s->n ? &s->ev[s->next] : NULL;
}

const char *tui_script_name(const tui_script *s)
{
	return s->name;
}

/* ---- Input: the terminal or a script (moved from app.c) ------------------------ */

static void script_vfail(tui *t, int status, const char *fmt, va_list ap)
{
	char why[400];

	vsnprintf(why, sizeof why, fmt, ap);
	if (!t->script_failed)
		hs_fail(&t->script_err, status, "%s:%d: %s", tui_script_name(t->script), t->script_line, why);
	t->script_failed = 1;
	t->quit = 1;
}

void tui_script_fail(tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	script_vfail(t, HS_EUSAGE, fmt, ap);
	va_end(ap);
}

void tui_script_fail_status(tui *t, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	script_vfail(t, status, fmt, ap);
	va_end(ap);
}

int tui_read_key(tui *t, wint_t *wc)
{
	hs_error err = {0};

	if (!t->script) {
		tui_waiting(1);
		int r = wget_wch(t->win, wc);
		tui_waiting(0);
		return r;
	}
	for (;;) {
		const tui_event *e = tui_script_next(t->script);
		if (!e) {
			t->quit = 1;
			return ERR;
		}
		t->script_line = e->line;
		switch (e->kind) {
		case TUI_EV_SAVE:
			if (tui_capture_screen(e->text, e->attrs, &err) < 0) {
				tui_script_fail_status(t, err.status == HS_ENOMEM ? HS_ENOMEM : HS_EUSAGE, "%s",
						       err.msg);
				return ERR;
			}
			continue;
		case TUI_EV_RESIZE:
			resizeterm(e->rows, e->cols);
			*wc = KEY_RESIZE;
			return KEY_CODE_YES;
		case TUI_EV_COMMAND:
			t->command = e->text;
			return TUI_IN_COMMAND;
		case TUI_EV_INTERRUPT:
			t->interrupt_next++;
			continue;
		default:
			*wc = (wint_t)e->key;
			return e->is_code ? KEY_CODE_YES : OK;
		}
	}
}
