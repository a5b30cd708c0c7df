/* app.c - the explorer's main loop: terminal setup and restore, the view
 * stack, key to request mapping from TUI_REQUESTS, the `:` command line and
 * its line editor, the status line, the help view and bench timing. */
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "loader/hlo.h"
#include "tui/tui.h"

#define MIN_W 60
#define MIN_H 15
#define HIST_MAX 64
#define LINE_MAX_CHARS 400

struct request_info {
	tui_req req;
	const char *name;
	int key, key2, scope;
	const char *help;
};

static const struct request_info requests[] = {
#define TUI_REQ_INFO(id, name, k1, k2, scope, help) {TUI_REQ_##id, name, k1, k2, scope, help},
	TUI_REQUESTS(TUI_REQ_INFO)
#undef TUI_REQ_INFO
};
#define NREQUESTS (sizeof requests / sizeof requests[0])

struct tui {
	SCREEN *screen;
	WINDOW *win;
	tui_view **stack;
	int nviews, capviews;
	int pending_pops;
	int quit;
	char msg[512];
	int msg_err;
	MEVENT mouse;
	hs_model *model;
	const tui_options *o;
	FILE *bench;
	char *hist[TUI_P_NKINDS][HIST_MAX];
	int nhist[TUI_P_NKINDS];
	char line[LINE_MAX_CHARS * 4 + 1];
	/* scripted keys */
	int *script;
	size_t nscript, spos;
	tui_doc *doc; /* the document the current command runs against */
};

/* ---- Clock ---------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of the process: on a busy machine wall time also counts the
 * time other processes had the CPU. */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double tui_clock_ms(void)
{
	static double t0 = -1;
	if (t0 < 0)
		t0 = now_ms();
	return now_ms() - t0;
}

/* ---- Terminal restore on every exit path ----------------------------- */

static volatile sig_atomic_t got_signal;
static struct termios saved_tio;
static int have_tio, curses_on;

static void on_quit_signal(int sig)
{
	got_signal = sig;
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
/* A crash: no ncurses call is safe here, so put the terminal back by hand
 * (leave the alternate screen, show the cursor, cooked mode) and die of the
 * same signal. */
static void on_fatal_signal(int sig)
{
	static const char reset[] = "\033[?1000l\033[?1002l\033[?1006l\033[?25h\033[?1049l\r\n";
	if (curses_on) {
		if (have_tio)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
		if (write(STDOUT_FILENO, reset, sizeof reset - 1) < 0) {
			/* nothing more to do */
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}
#endif

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
#endif
}

static void restore_signals(void)
{
	int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
}

/* ---- Views ------------------------------------------------------------ */

tui_view *tui_push(tui *t, const tui_view_ops *ops, void *data, tui_doc *doc, const char *title)
{
	tui_view *v;

	if (t->nviews == t->capviews) {
		int nc = t->capviews ? t->capviews * 2 : 8;
		tui_view **p = realloc(t->stack, (size_t)nc * sizeof *p);
		if (!p)
			return NULL;
		t->stack = p;
		t->capviews = nc;
	}
	v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->ops = ops;
	v->data = data;
	v->doc = tui_doc_ref(doc);
	snprintf(v->title, sizeof v->title, "%s", title ? title : ops->name);
	t->stack[t->nviews++] = v;
	return v;
}

static void pop_view(tui *t)
{
	tui_view *v;

	if (t->nviews == 0)
		return;
	v = t->stack[--t->nviews];
	if (v->ops->done)
		v->ops->done(v);
	tui_doc_unref(v->doc);
	free(v);
}

void tui_quit(tui *t)
{
	t->quit = 1;
}

void tui_pop_later(tui *t)
{
	t->pending_pops++;
}

tui_view *tui_top(tui *t)
{
	return t->nviews ? t->stack[t->nviews - 1] : NULL;
}

tui_table *tui_focused_table(tui_view *v)
{
	if (!v || v->npanes == 0)
		return NULL;
	if (v->focus < 0 || v->focus >= v->npanes)
		v->focus = 0;
	return v->pane[v->focus];
}

const hs_model *tui_model(tui *t)
{
	return t->model;
}

WINDOW *tui_screen(tui *t)
{
	return t->win;
}

MEVENT *tui_mouse(tui *t)
{
	return &t->mouse;
}

void tui_message(tui *t, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msg_err = error;
}

/* ---- Drawing ------------------------------------------------------------ */

static void draw_title(tui *t, int w)
{
	char crumbs[1024];
	size_t len = 0;
	const char *sep = tui_utf8() ? " \u203a " : " > ";

	len += (size_t)snprintf(crumbs, sizeof crumbs, " hloscope");
	for (int i = 0; i < t->nviews && len < sizeof crumbs; i++)
		len += (size_t)snprintf(crumbs + len, sizeof crumbs - len, "%s%s", sep,
					t->stack[i]->title);
	if (len >= sizeof crumbs)
		len = sizeof crumbs - 1;
	const char *s = crumbs;
	/* keep the end (the current view) when it does not fit */
	while (tui_width(s) > w - 1 && *s) {
		s++;
		while ((*s & 0xC0) == 0x80)
			s++;
	}
	tui_put(t->win, 0, 0, w, s, tui_attr(TUI_C_TITLE), 1);
}

static void draw_status(tui *t, int y, int w)
{
	tui_view *v = tui_top(t);
	tui_table *tb = tui_focused_table(v);
	char right[256] = "", filt[200];

	if (tb) {
		size_t len = 0;
		if (tb->nterms) {
			tui_table_filter_text(tb, filt, sizeof filt);
			len += (size_t)snprintf(right + len, sizeof right - len, "[%s] ", filt);
		}
		if (len < sizeof right && tb->sort_col >= 0 && tb->sort_col < tb->ncols)
			len += (size_t)snprintf(right + len, sizeof right - len, "%s%s ",
						tb->cols[tb->sort_col].name,
						!tui_utf8() ? ""
						: tb->sort_desc ? "\u2193"
								: "\u2191");
		if (len < sizeof right)
			snprintf(right + len, sizeof right - len, "%lld/%lld ",
				 (long long)(tb->nidx ? tb->cur + 1 : 0), (long long)tb->nidx);
	}
	if (!tui_utf8()) /* the arrows above degrade to nothing; say it in ASCII */
		for (char *p = right; *p; p++)
			if ((unsigned char)*p >= 0x80)
				*p = '^';
	int rw = tui_width(right);
	if (rw > w / 2)
		rw = w / 2;
	if (t->msg[0]) {
		tui_put(t->win, y, 0, w - rw, t->msg,
			tui_attr(t->msg_err ? TUI_C_ERROR : TUI_C_STATUS), 1);
	} else {
		char left[256];
		snprintf(left, sizeof left, " %s  ?:help  ::command  q:back  Q:quit",
			 v ? v->ops->name : "");
		tui_put(t->win, y, 0, w - rw, left, tui_attr(TUI_C_STATUS), 1);
	}
	if (rw > 0)
		tui_put_right(t->win, y, w - rw, rw, right, tui_attr(TUI_C_STATUS));
}

static void draw_all(tui *t)
{
	int h, w;
	tui_view *v = tui_top(t);

	getmaxyx(t->win, h, w);
	werase(t->win);
	if (w < MIN_W || h < MIN_H) {
		char m1[96], m2[96];
		snprintf(m1, sizeof m1, "hloscope needs %dx%d", MIN_W, MIN_H);
		snprintf(m2, sizeof m2, "this terminal is %dx%d", w, h);
		int y = h / 2 - 1 > 0 ? h / 2 - 1 : 0;
		int l1 = (int)strlen(m1), l2 = (int)strlen(m2);
		tui_put(t->win, y, w > l1 ? (w - l1) / 2 : 0, w, m1, A_BOLD, 0);
		if (y + 1 < h)
			tui_put(t->win, y + 1, w > l2 ? (w - l2) / 2 : 0, w, m2, 0, 0);
		if (y + 2 < h)
			tui_put(t->win, y + 2, w > 10 ? (w - 10) / 2 : 0, w, "Q quits", A_DIM, 0);
		wnoutrefresh(t->win);
		doupdate();
		return;
	}
	draw_title(t, w);
	if (v)
		v->ops->draw(t, v, t->win, 1, 0, h - 2, w);
	draw_status(t, h - 1, w);
	wnoutrefresh(t->win);
	doupdate();
}

/* ---- Keys --------------------------------------------------------------- */

static int read_key(tui *t, wint_t *wc)
{
	if (t->script) {
		if (t->spos >= t->nscript) {
			t->quit = 1;
			return ERR;
		}
		int k = t->script[t->spos++];
		*wc = (wint_t)k;
		if (k == KEY_RESIZE)
			return KEY_CODE_YES;
		return k >= KEY_MIN ? KEY_CODE_YES : OK;
	}
	return wget_wch(t->win, wc);
}

static int normalize_key(int k)
{
	if (k == 127 || k == 8)
		return KEY_BACKSPACE;
	if (k == '\r' || k == KEY_ENTER)
		return '\n';
	return k;
}

static int view_scope(const tui_view *v)
{
	return TUI_S_ALL | (v ? v->ops->scope : 0) | (v && v->npanes ? TUI_S_TABLE : 0) |
	       (v && v->doc ? TUI_S_GRAPH : 0);
}

static const struct request_info *find_key(int key, int scope, int *other_scope)
{
	*other_scope = 0;
	for (size_t i = 0; i < NREQUESTS; i++)
		if (key && (requests[i].key == key || requests[i].key2 == key)) {
			if (requests[i].scope & scope)
				return &requests[i];
			*other_scope = 1;
		}
	return NULL;
}

static const struct request_info *find_name(const char *name)
{
	for (size_t i = 0; i < NREQUESTS; i++)
		if (!strcmp(requests[i].name, name))
			return &requests[i];
	if (!strcmp(name, "q") || !strcmp(name, "q!") || !strcmp(name, "exit"))
		return find_name("quit");
	if (!strcmp(name, "add-column"))
		return find_name("column");
	if (!strcmp(name, "save"))
		return find_name("write");
	if (!strcmp(name, "search-next"))
		return find_name("next");
	return NULL;
}

static void key_label(int k, char *buf, size_t cap)
{
	if (k == '\n')
		snprintf(buf, cap, "Enter");
	else if (k == '\t')
		snprintf(buf, cap, "Tab");
	else if (k == ' ')
		snprintf(buf, cap, "Space");
	else if (k == KEY_BACKSPACE)
		snprintf(buf, cap, "Backspace");
	else if (k == KEY_BTAB)
		snprintf(buf, cap, "Shift-Tab");
	else if (k == KEY_UP)
		snprintf(buf, cap, "Up");
	else if (k == KEY_DOWN)
		snprintf(buf, cap, "Down");
	else if (k == KEY_LEFT)
		snprintf(buf, cap, "Left");
	else if (k == KEY_RIGHT)
		snprintf(buf, cap, "Right");
	else if (k == KEY_PPAGE)
		snprintf(buf, cap, "PgUp");
	else if (k == KEY_NPAGE)
		snprintf(buf, cap, "PgDn");
	else if (k == KEY_HOME)
		snprintf(buf, cap, "Home");
	else if (k == KEY_END)
		snprintf(buf, cap, "End");
	else if (k == KEY_ENTER)
		snprintf(buf, cap, "Enter");
	else if (k >= KEY_F(1) && k <= KEY_F(12))
		snprintf(buf, cap, "F%d", k - KEY_F(0));
	else if (k > 0 && k < 32)
		snprintf(buf, cap, "Ctrl-%c", k + 'A' - 1);
	else if (k > 32 && k < 127)
		snprintf(buf, cap, "%c", k);
	else
		snprintf(buf, cap, "%s", keyname(k) ? keyname(k) : "?");
}

/* ---- Line editor ----------------------------------------------------------- */

static void hist_add(tui *t, int kind, const char *s)
{
	if (!*s)
		return;
	if (t->nhist[kind] && !strcmp(t->hist[kind][t->nhist[kind] - 1], s))
		return;
	if (t->nhist[kind] == HIST_MAX) {
		free(t->hist[kind][0]);
		memmove(t->hist[kind], t->hist[kind] + 1, (HIST_MAX - 1) * sizeof(char *));
		t->nhist[kind]--;
	}
	char *c = strdup(s);
	if (c)
		t->hist[kind][t->nhist[kind]++] = c;
}

struct cands {
	const char *v[512];
	int n;
	char store[16384];
	size_t used;
};

static void cand_add(struct cands *c, const char *s, const char *prefix)
{
	if (c->n == 512 || strncmp(s, prefix, strlen(prefix)))
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

static void gather(tui *t, int kind, const char *line, size_t wstart, struct cands *c)
{
	char word[512], first[64] = "";
	tui_table *tb = tui_focused_table(tui_top(t));

	snprintf(word, sizeof word, "%s", line + wstart);
	sscanf(line, "%63s", first);
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
		for (size_t i = 0; i < NREQUESTS; i++)
			cand_add(c, requests[i].name, word);
	if (!strcmp(first, "open") || !strcmp(first, "write")) {
		complete_path(c, word);
		return;
	}
	if (tui_query_complete(t, line, (int)wstart, cand_add_fn, c))
		complete_path(c, word);
}

/* The editor works on wide characters; the result is UTF-8 in t->line. */
const char *tui_prompt(tui *t, const char *label, int kind, const char *initial)
{
	wchar_t buf[LINE_MAX_CHARS + 1];
	int len = 0, pos = 0, hpos, done = 0, h, w;
	char *saved_edit = NULL;

	if (initial && *initial) {
		mbstate_t st;
		const char *p = initial;
		memset(&st, 0, sizeof st);
		size_t n = mbsrtowcs(buf, &p, LINE_MAX_CHARS, &st);
		len = pos = n == (size_t)-1 ? 0 : (int)n;
	}
	buf[len] = 0;
	hpos = t->nhist[kind];
	curs_set(1);
	while (!done) {
		wint_t wc;
		int r, lw = tui_width(label), start = 0, cx;

		getmaxyx(t->win, h, w);
		/* draw the line, scrolled so the cursor shows */
		while (wcswidth(buf + start, (size_t)(pos - start)) > w - lw - 2 && start < pos)
			start++;
		wattrset(t->win, A_NORMAL);
		mvwhline(t->win, h - 1, 0, ' ', w);
		tui_put(t->win, h - 1, 0, w, label, A_BOLD, 0);
		wmove(t->win, h - 1, lw);
		cx = lw;
		for (int i = start; i < len; i++) {
			int cw = wcwidth(buf[i]);
			if (cw < 1)
				cw = 1;
			if (cx + cw >= w)
				break;
			wchar_t one[2] = {buf[i], 0};
			waddnwstr(t->win, one, 1);
			cx += cw;
		}
		{
			int cw = wcswidth(buf + start, (size_t)(pos - start));
			wmove(t->win, h - 1, lw + (cw > 0 ? cw : 0));
		}
		wrefresh(t->win);
		r = read_key(t, &wc);
		if (got_signal || t->quit) {
			len = -1;
			break;
		}
		if (r == ERR)
			continue;
		int k = (int)wc;
		if (r == KEY_CODE_YES || k < 32 || k == 127)
			k = normalize_key(k);
		if (r == KEY_CODE_YES && k == KEY_RESIZE) {
			draw_all(t);
			continue;
		}
		if (r == KEY_CODE_YES && k == KEY_MOUSE) {
			MEVENT m;
			getmouse(&m);
			continue;
		}
		if (k == '\n') {
			done = 1;
		} else if (k == 27 || k == TUI_CTRL('g') || k == TUI_CTRL('c')) {
			len = -1;
			done = 1;
		} else if (k == KEY_BACKSPACE) {
			if (len == 0) {
				len = -1;
				done = 1;
			} else if (pos > 0) {
				wmemmove(buf + pos - 1, buf + pos, (size_t)(len - pos + 1));
				pos--;
				len--;
			}
		} else if (k == KEY_DC || k == TUI_CTRL('d')) {
			if (pos < len) {
				wmemmove(buf + pos, buf + pos + 1, (size_t)(len - pos));
				len--;
			}
		} else if (k == KEY_LEFT || k == TUI_CTRL('b')) {
			if (pos > 0)
				pos--;
		} else if (k == KEY_RIGHT || k == TUI_CTRL('f')) {
			if (pos < len)
				pos++;
		} else if (k == KEY_HOME || k == TUI_CTRL('a')) {
			pos = 0;
		} else if (k == KEY_END || k == TUI_CTRL('e')) {
			pos = len;
		} else if (k == TUI_CTRL('u')) {
			wmemmove(buf, buf + pos, (size_t)(len - pos + 1));
			len -= pos;
			pos = 0;
		} else if (k == TUI_CTRL('k')) {
			len = pos;
			buf[len] = 0;
		} else if (k == TUI_CTRL('w')) {
			int s = pos;
			while (s > 0 && buf[s - 1] == L' ')
				s--;
			while (s > 0 && buf[s - 1] != L' ')
				s--;
			wmemmove(buf + s, buf + pos, (size_t)(len - pos + 1));
			len -= pos - s;
			pos = s;
		} else if (k == KEY_UP || k == KEY_DOWN) {
			int nh = t->nhist[kind];
			int np = hpos + (k == KEY_UP ? -1 : 1);
			if (np < 0 || np > nh)
				continue;
			if (hpos == nh) {
				char tmp[LINE_MAX_CHARS * 4 + 1];
				buf[len] = 0;
				wcstombs(tmp, buf, sizeof tmp);
				free(saved_edit);
				saved_edit = strdup(tmp);
			}
			hpos = np;
			const char *src = hpos == nh ? (saved_edit ? saved_edit : "") : t->hist[kind][hpos];
			mbstate_t st;
			memset(&st, 0, sizeof st);
			size_t n = mbsrtowcs(buf, &src, LINE_MAX_CHARS, &st);
			len = pos = n == (size_t)-1 ? 0 : (int)n;
			buf[len] = 0;
		} else if (k == '\t') {
			char line[LINE_MAX_CHARS * 4 + 1];
			struct cands c;
			int ws = pos;
			while (ws > 0 && buf[ws - 1] != L' ' && buf[ws - 1] != L'=' &&
			       buf[ws - 1] != L'<' && buf[ws - 1] != L'>' && buf[ws - 1] != L'(' &&
			       buf[ws - 1] != L',')
				ws--;
			buf[len] = 0;
			wchar_t save = buf[pos];
			buf[pos] = 0;
			size_t wsb = 0;
			{
				char pre[LINE_MAX_CHARS * 4 + 1];
				wchar_t s2 = buf[ws];
				buf[ws] = 0;
				wcstombs(pre, buf, sizeof pre);
				wsb = strlen(pre);
				buf[ws] = s2;
			}
			wcstombs(line, buf, sizeof line);
			buf[pos] = save;
			c.n = 0;
			c.used = 0;
			gather(t, kind, line, wsb, &c);
			if (c.n == 0) {
				beep();
				continue;
			}
			/* longest common prefix */
			size_t lcp = strlen(c.v[0]);
			for (int i = 1; i < c.n; i++) {
				size_t j = 0;
				while (j < lcp && c.v[i][j] == c.v[0][j])
					j++;
				lcp = j;
			}
			char ins[512];
			snprintf(ins, sizeof ins, "%.*s%s", (int)lcp, c.v[0],
				 c.n == 1 && c.v[0][lcp ? lcp - 1 : 0] != '/' ? " " : "");
			wchar_t wins[512];
			const char *ip = ins;
			mbstate_t st;
			memset(&st, 0, sizeof st);
			size_t nw = mbsrtowcs(wins, &ip, 511, &st);
			if (nw == (size_t)-1 || len - (pos - ws) + (int)nw > LINE_MAX_CHARS)
				continue;
			wmemmove(buf + ws + nw, buf + pos, (size_t)(len - pos + 1));
			wmemcpy(buf + ws, wins, nw);
			len = len - (pos - ws) + (int)nw;
			pos = ws + (int)nw;
			if (c.n > 1) {
				char list[1024];
				size_t l = 0;
				for (int i = 0; i < c.n && l < sizeof list - 1; i++)
					l += (size_t)snprintf(list + l, sizeof list - l, "%s  ", c.v[i]);
				wattrset(t->win, tui_attr(TUI_C_STATUS));
				tui_put(t->win, h - 2, 0, w, list, tui_attr(TUI_C_STATUS), 1);
			}
		} else if (r == OK && wc >= 32 && wc != 127 && len < LINE_MAX_CHARS) {
			wmemmove(buf + pos + 1, buf + pos, (size_t)(len - pos + 1));
			buf[pos++] = (wchar_t)wc;
			len++;
		}
	}
	curs_set(0);
	free(saved_edit);
	if (len < 0)
		return NULL;
	buf[len] = 0;
	if (wcstombs(t->line, buf, sizeof t->line) == (size_t)-1)
		t->line[0] = '\0';
	hist_add(t, kind, t->line);
	return t->line;
}

/* ---- Help view ----------------------------------------------------------- */

struct help {
	tui_table tab;
	int *rows; /* request indices, or -1 - i for extra lines */
	int n;
};

static const char *help_extra[][2] = {
	{"filter", "\\ TEXT keeps rows whose current column contains TEXT;"},
	{"", "  COL=V, COL!=V, COL<N, COL>=N, COL~TEXT; join terms with 'and'"},
	{"search", "/ TEXT finds TEXT in the current column; n and N repeat"},
	{"mouse", "click selects a row and a column, the wheel scrolls"},
	{"query", ": with any other text runs a query (see :help in the REPL)"},
};
#define NEXTRA (int)(sizeof help_extra / sizeof help_extra[0])

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
	const struct request_info *ri = &requests[r];
	if (c->key == HC_KEY) {
		char a[32] = "", b[32] = "";
		if (ri->key)
			key_label(ri->key, a, sizeof a);
		if (ri->key2)
			key_label(ri->key2, b, sizeof b);
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

static const tui_view_ops help_ops = {"help", TUI_S_TABLE, help_draw, NULL, NULL, NULL, help_done};

int tui_open_help(tui *t, const tui_view *of)
{
	struct help *hp = calloc(1, sizeof *hp);
	int scope = view_scope(of);
	char title[160];

	if (!hp || !(hp->rows = malloc((NREQUESTS + NEXTRA) * sizeof *hp->rows))) {
		free(hp);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < NREQUESTS; i++)
		if (requests[i].scope & scope)
			hp->rows[hp->n++] = (int)i;
	for (int i = 0; i < NEXTRA; i++)
		hp->rows[hp->n++] = -1 - i;
	tui_table_init(&hp->tab, &help_table_ops, hp, hp->n);
	tui_table_add_col(&hp->tab, "keys", HC_KEY, 16, 0);
	tui_table_add_col(&hp->tab, "command", HC_CMD, 14, 0);
	tui_table_add_col(&hp->tab, "what it does", HC_HELP, 66, 0);
	snprintf(hp->tab.title, sizeof hp->tab.title, "Keys and commands of the %s view",
		 of ? of->ops->name : "");
	snprintf(title, sizeof title, "Help: %s", of ? of->ops->name : "");
	tui_view *v = tui_push(t, &help_ops, hp, NULL, title);
	if (!v) {
		help_done(&(tui_view){.data = hp});
		return -1;
	}
	v->pane[0] = &hp->tab;
	v->npanes = 1;
	return 0;
}

/* ---- Opening files --------------------------------------------------------- */

int tui_open_path(tui *t, const char *path, hs_error *err)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		ds_index *ix = dataset_scan(path, err);
		if (!ix)
			return -1;
		return tui_open_dataset(t, ix);
	}
	tui_doc *d = tui_doc_open(path, t->model, err);
	if (!d)
		return -1;
	int rc = tui_open_overview(t, d);
	tui_doc_unref(d);
	return rc;
}

/* ---- Dispatch ---------------------------------------------------------------- */

static void run_command(tui *t, const char *line);

/* Commands every view of an open graph offers. */
static int graph_request(tui *t, tui_view *v, tui_req req)
{
	switch (req) {
	case TUI_REQ_NODES:
		tui_open_nodes(t, v->doc, -1, -1);
		return 1;
	case TUI_REQ_CONFIGS:
		tui_open_configs(t, v->doc);
		return 1;
	case TUI_REQ_OVERVIEW:
		/* back to this graph's overview when it is on the stack */
		for (int i = t->nviews - 1; i >= 0; i--)
			if (t->stack[i]->doc == v->doc && !strcmp(t->stack[i]->ops->name, "overview")) {
				t->pending_pops = t->nviews - 1 - i;
				return 1;
			}
		tui_open_overview(t, v->doc);
		return 1;
	case TUI_REQ_GOTO:
		return 0;
	default:
		return 0;
	}
}

static void dispatch(tui *t, tui_req req, const char *arg)
{
	tui_view *v = tui_top(t);
	tui_table *tb;

	if (!v)
		return;
	switch (req) {
	case TUI_REQ_QUIT:
		t->quit = 1;
		return;
	case TUI_REQ_BACK:
		if (v->ops->request && v->ops->request(t, v, req, arg))
			return;
		if (t->nviews <= 1)
			t->quit = 1;
		else
			tui_pop_later(t);
		return;
	case TUI_REQ_HELP:
		tui_open_help(t, v);
		return;
	case TUI_REQ_PROMPT: {
		const char *s = arg ? arg : tui_prompt(t, ":", TUI_P_COMMAND, NULL);
		if (s && *s) {
			char copy[sizeof t->line];
			snprintf(copy, sizeof copy, "%s", s);
			run_command(t, copy);
		}
		return;
	}
	case TUI_REQ_REDRAW:
		clearok(curscr, TRUE);
		return;
	case TUI_REQ_OPEN: {
		hs_error err = {0};
		const char *p = arg ? arg : tui_prompt(t, "open: ", TUI_P_COMMAND, "open ");
		if (p && !arg && !strncmp(p, "open ", 5))
			p += 5;
		if (!p || !*p)
			return;
		char path[2048];
		snprintf(path, sizeof path, "%s", p);
		if (tui_open_path(t, path, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		return;
	}
	default:
		break;
	}
	if (v->ops->request && v->ops->request(t, v, req, arg))
		return;
	if (v->doc && graph_request(t, v, req))
		return;
	if (req == TUI_REQ_MOUSE) {
		for (int i = 0; i < v->npanes; i++)
			if (tui_table_contains(v->pane[i], t->mouse.y, t->mouse.x)) {
				v->focus = i;
				break;
			}
	}
	if (req == TUI_REQ_NEXT_PANE) {
		if (v->npanes > 1)
			v->focus = (v->focus + 1) % v->npanes;
		else
			tui_message(t, 0, "this view has one pane");
		return;
	}
	tb = tui_focused_table(v);
	if (tb && tui_table_request(t, tb, req, arg)) {
		if (v->ops->select)
			v->ops->select(t, v);
		return;
	}
	if (req == TUI_REQ_MOUSE)
		return;
	for (size_t i = 0; i < NREQUESTS; i++)
		if (requests[i].req == req) {
			tui_message(t, 1, "%s: not available in the %s view", requests[i].name,
				    v->ops->name);
			return;
		}
}

static int takes_arg(tui_req r)
{
	switch (r) {
	case TUI_REQ_SORT_ASC:
	case TUI_REQ_SORT_DESC:
	case TUI_REQ_SEARCH:
	case TUI_REQ_FILTER:
	case TUI_REQ_ADD_COLUMN:
	case TUI_REQ_WRITE:
	case TUI_REQ_GOTO:
	case TUI_REQ_OPEN:
	case TUI_REQ_EXPORT:
	case TUI_REQ_COMPARE:
		return 1;
	default:
		return 0;
	}
}

static void run_command(tui *t, const char *line)
{
	char buf[sizeof t->line], *argv[32], *p;
	int argc = 0;
	tui_view *v = tui_top(t);

	while (*line == ' ')
		line++;
	snprintf(buf, sizeof buf, "%s", line);
	/* a known command name first */
	char name[64] = "";
	sscanf(buf, "%63s", name);
	const char *rest = line + strlen(name);
	while (*rest == ' ')
		rest++;
	const struct request_info *ri = find_name(name);
	if (ri && *rest && !takes_arg(ri->req))
		ri = NULL; /* "nodes where ..." is a query, not the `t` key */
	if (ri && (ri->scope & view_scope(v))) {
		dispatch(t, ri->req, *rest ? rest : NULL);
		return;
	}
	/* then the view's own commands */
	for (p = strtok(buf, " "); p && argc < 31; p = strtok(NULL, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	if (v && v->ops->command) {
		int rc = v->ops->command(t, v, argc, argv);
		if (rc != 0)
			return;
	}
	if (ri) {
		tui_message(t, 1, ":%s is not available in the %s view", ri->name, v->ops->name);
		return;
	}
	/* everything else is a query */
	tui_run_query(t, v, line);
}

/* ---- Scripted keys (bench) ---------------------------------------------------- */

static int parse_script(tui *t, const char *s, hs_error *err)
{
	static const struct {
		const char *name;
		int key;
	} names[] = {
		{"Enter", '\n'}, {"Tab", '\t'}, {"Esc", 27}, {"BS", KEY_BACKSPACE},
		{"Up", KEY_UP}, {"Down", KEY_DOWN}, {"Left", KEY_LEFT}, {"Right", KEY_RIGHT},
		{"PgUp", KEY_PPAGE}, {"PgDn", KEY_NPAGE}, {"Home", KEY_HOME}, {"End", KEY_END},
		{"C-d", TUI_CTRL('d')}, {"C-u", TUI_CTRL('u')}, {"C-l", TUI_CTRL('l')},
		{"Space", ' '}, {"lt", '<'}, {"gt", '>'},
	};
	size_t n = strlen(s);

	t->script = malloc((n + 1) * sizeof *t->script);
	if (!t->script)
		return hs_fail(err, HS_EUSAGE, "out of memory");
	for (size_t i = 0; i < n;) {
		if (s[i] == '<') {
			const char *e = strchr(s + i, '>');
			size_t k;
			for (k = 0; e && k < sizeof names / sizeof names[0]; k++)
				if (strlen(names[k].name) == (size_t)(e - s - i - 1) &&
				    !strncmp(s + i + 1, names[k].name, (size_t)(e - s - i - 1)))
					break;
			if (!e || k == sizeof names / sizeof names[0])
				return hs_fail(err, HS_EUSAGE, "HLOSCOPE_KEYS: bad key name at offset %zu", i);
			t->script[t->nscript++] = names[k].key;
			i = (size_t)(e - s) + 1;
		} else {
			t->script[t->nscript++] = (unsigned char)s[i++];
		}
	}
	return 0;
}

/* ---- Main loop ------------------------------------------------------------------ */

static int start_curses(tui *t, hs_error *err)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return hs_fail(err, HS_EUSAGE,
			       "the explorer needs a terminal (use 'hloscope info' or 'hloscope query' in scripts)");
	if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
		have_tio = 1;
	t->screen = newterm(term && *term ? NULL : "xterm", stdout, stdin);
	if (!t->screen)
		return hs_fail(err, HS_EUSAGE, "cannot use terminal type '%s'", term ? term : "");
	curses_on = 1;
	install_signals();
	t->win = stdscr;
	const char *nc = getenv("NO_COLOR");
	tui_colors_init(nc && *nc);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED |
			  BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
		  ,
		  NULL);
	mouseinterval(0);
	return 0;
}

static void stop_curses(tui *t)
{
	if (!curses_on)
		return;
	mousemask(0, NULL);
	endwin();
	curses_on = 0;
	restore_signals();
	if (t->screen)
		delscreen(t->screen);
	t->screen = NULL;
}

static const char *req_name(tui_req r)
{
	for (size_t i = 0; i < NREQUESTS; i++)
		if (requests[i].req == r)
			return requests[i].name;
	return r == TUI_REQ_MOUSE ? "mouse" : "none";
}

static void loop(tui *t)
{
	draw_all(t);
	if (t->bench) {
		fprintf(t->bench, "first_paint_ms %.3f\nfirst_paint_cpu_ms %.3f\n", tui_clock_ms(), cpu_ms());
		fflush(t->bench);
	}
	while (!t->quit && t->nviews > 0) {
		wint_t wc;
		int r = read_key(t, &wc), k;
		tui_req req = TUI_REQ_NONE;
		double t0 = now_ms(), c0 = cpu_ms();

		if (got_signal)
			break;
		if (r == ERR)
			continue;
		k = (int)wc;
		if (r == KEY_CODE_YES || k < 32 || k == 127)
			k = normalize_key(k);
		t->msg[0] = '\0';
		if (r == KEY_CODE_YES && k == KEY_RESIZE) {
			draw_all(t);
			continue;
		}
		int h, w;
		getmaxyx(t->win, h, w);
		if (w < MIN_W || h < MIN_H) {
			if (k == 'Q' || k == 'q')
				break;
			draw_all(t);
			continue;
		}
		if (r == KEY_CODE_YES && k == KEY_MOUSE) {
			if (getmouse(&t->mouse) != OK)
				continue;
			req = TUI_REQ_MOUSE;
		} else {
			int other;
			const struct request_info *ri = find_key(k, view_scope(tui_top(t)), &other);
			if (!ri) {
				char kl[32];
				key_label(k, kl, sizeof kl);
				tui_message(t, 1, "%s: %s (? lists the keys)", kl,
					    other ? "not available in this view" : "no such key");
				draw_all(t);
				continue;
			}
			req = ri->req;
		}
		dispatch(t, req, NULL);
		while (t->pending_pops > 0) {
			t->pending_pops--;
			if (t->nviews > 1)
				pop_view(t);
			else
				t->quit = 1;
		}
		if (t->quit)
			break;
		draw_all(t);
		if (t->bench) {
			char kl[32];
			key_label(k, kl, sizeof kl);
			fprintf(t->bench, "key %s %s %.3f %.3f\n", kl, req_name(req), now_ms() - t0,
				cpu_ms() - c0);
		}
	}
}

int tui_run(const tui_options *o, hs_error *err)
{
	tui t;
	int rc = 0;

	memset(&t, 0, sizeof t);
	t.o = o;
	tui_clock_ms();
	setlocale(LC_ALL, "");
	if (o->keys && parse_script(&t, o->keys, err) < 0) {
		free(t.script);
		return -1;
	}
	if (o->bench_log) {
		t.bench = fopen(o->bench_log, "a");
		if (!t.bench) {
			free(t.script);
			return hs_fail(err, HS_EUSAGE, "%s: %s", o->bench_log, strerror(errno));
		}
	}
	if (o->model_path) {
		t.model = model_load(o->model_path, err);
		if (!t.model) {
			rc = -1;
			goto out;
		}
	}
	/* Load before touching the terminal, so a bad file is a plain message. */
	struct stat st;
	if (stat(o->path, &st) != 0) {
		rc = hs_fail(err, HS_EDATA, "%s: %s", o->path, strerror(errno));
		goto out;
	}
	ds_index *ix = NULL;
	tui_doc *d = NULL;
	if (S_ISDIR(st.st_mode)) {
		ix = dataset_scan(o->path, err);
		if (!ix) {
			rc = -1;
			goto out;
		}
	} else {
		d = tui_doc_open(o->path, t.model, err);
		if (!d) {
			rc = -1;
			goto out;
		}
	}
	if (o->bench_log) {
		fprintf(t.bench, "loaded_ms %.3f\n", tui_clock_ms());
	}
	if (start_curses(&t, err) < 0) {
		if (ix)
			dataset_free(ix);
		tui_doc_unref(d);
		rc = -1;
		goto out;
	}
	if (ix)
		tui_open_dataset(&t, ix);
	else {
		tui_open_overview(&t, d);
		tui_doc_unref(d);
	}
	if (t.nviews > 0)
		loop(&t);
	while (t.nviews)
		pop_view(&t);
	stop_curses(&t);
	if (got_signal) {
		rc = 128 + got_signal;
		got_signal = 0;
	}
out:
	stop_curses(&t);
	for (int k = 0; k < TUI_P_NKINDS; k++)
		for (int i = 0; i < t.nhist[k]; i++)
			free(t.hist[k][i]);
	free(t.stack);
	free(t.script);
	if (t.model)
		model_free(t.model);
	if (t.bench)
		fclose(t.bench);
	return rc;
}
