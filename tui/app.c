/* app.c - the explorer's main loop: terminal setup and restore (or, for a
 * script, a screen with no terminal), the view stack, keys to requests
 * through the command table (keys.c), the `:` command line, the status line
 * and bench timing.  The prompt's editor is prompt.c, the help view
 * view_help.c, scripts and reading keys script.c. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/parse.h"
#include "tui/app.h"

#define MIN_W 60
#define MIN_H 15

/* ---- Clock ---------------------------------------------------------- */

double tui_clock_ms(void)
{
	static double t0 = -1;
	if (t0 < 0)
		t0 = hs_now_seconds() * 1e3;
	return hs_now_seconds() * 1e3 - t0;
}

/* ---- Terminal restore on every exit path ----------------------------- */

static struct termios saved_tio;
static int have_tio, curses_on;

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
/* A crash: no ncurses call is safe here, so put the terminal back by hand
 * (leave the alternate screen, show the cursor, cooked mode) and die of the
 * same signal. */
static struct sigaction outer_bus;   /* the program's own SIGBUS handler */

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
	/* a mapped input that shrank: the program says so (cli/main.c) */
	if (sig == SIGBUS && !(outer_bus.sa_flags & SA_SIGINFO) && outer_bus.sa_handler != SIG_DFL &&
	    outer_bus.sa_handler != SIG_IGN)
		outer_bus.sa_handler(sig);
	signal(sig, SIG_DFL);
	raise(sig);
}
#endif

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tui_on_quit_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, &outer_bus);
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
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
	sigaction(SIGBUS, &outer_bus, NULL);
#endif
}

/* ---- Views ------------------------------------------------------------ */

tui_view *tui_push(tui *t, const tui_view_ops *ops, void *data, tui_doc *doc, const char *title,
		   tui_table *pane0, tui_table *pane1)
{
	tui_view *v = NULL;

	if (t->nviews == t->capviews) {
		int nc = t->capviews ? t->capviews * 2 : 8;
		tui_view **p = realloc(t->stack, (size_t)nc * sizeof *p);
		if (!p)
			goto oom;
		t->stack = p;
		t->capviews = nc;
	}
	v = calloc(1, sizeof *v);
	if (!v)
		goto oom;
	v->ops = ops;
	v->data = data;
	v->doc = tui_doc_ref(doc);
	snprintf(v->title, sizeof v->title, "%s", title ? title : ops->name);
	if (pane0)
		v->pane[v->npanes++] = pane0;
	if (pane1)
		v->pane[v->npanes++] = pane1;
	for (int i = 0; i < v->npanes; i++)
		v->pane[i]->paired = v->npanes > 1;
	t->stack[t->nviews++] = v;
	return v;
oom:
	if (ops->done)
		ops->done(&(tui_view){.ops = ops, .data = data});
	tui_message(t, 1, "out of memory");
	return NULL;
}

void tui_view_add_pane(tui_view *v, tui_table *tb)
{
	if (!v || !tb || v->npanes >= TUI_MAX_PANES)
		return;
	v->pane[v->npanes++] = tb;
	for (int i = 0; i < v->npanes; i++)
		v->pane[i]->paired = v->npanes > 1;
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
	t->msg_progress = 0;
	/* Every message of an allocation that failed says "out of memory"
	 * (base/error.h; base_once.sh checks hs_fail's): on a terminal it
	 * stays a message and the explorer goes on; a script stops there with
	 * exit status 3, as a command does (tests/suites/out_of_memory.sh). */
	if (error && strstr(t->msg, "out of memory")) {
		hs_fail(&t->oom, HS_ENOMEM, "%s", t->msg);
		if (t->headless && t->started)
			tui_script_fail_status(t, HS_ENOMEM, "%s", t->msg);
	}
}

void tui_status_now(tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msg_err = 0;
	t->msg_progress = 0;
	tui_draw_all(t);
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

void tui_draw_all(tui *t)
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

/* ---- Opening files --------------------------------------------------------- */

int tui_open_path(tui *t, const char *path, hs_error *err)
{
	struct stat st;

	/* FILE#N names one module of a file (graph_open checks it). */
	if (stat(path, &st) != 0 && !strchr(path, '#'))
		return hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
	if (dataset_is_collection(path)) { /* a folder, or a file of several modules */
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

/* Node id of a command's argument ("603"), or -1 with a message. */
/* Commands every view of an open graph offers, unless the view answers
 * them itself: each opens the view it needs. */
static int graph_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	switch (req) {
	case TUI_REQ_DRAW: {
		/* views with a node under the cursor draw around it; the others
		 * around the root of the graph's last computation */
		hs_error err = {0};
		int64_t root = v->doc->g->n_nodes > 0 ? query_session_split_root(v->doc->qs, v->doc->g->n_comps - 1, &err) : -1;
		if (root >= 0)
			tui_open_drawing(t, v->doc, root);
		else if (err.status)
			tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	case TUI_REQ_COMPARE:
		tui_compare_request(t, v, arg);
		return 1;
	case TUI_REQ_DIFF: {
		/* :diff FILE: this module with another */
		const char *p = arg ? arg : tui_prompt(t, "diff with: ", TUI_P_PATH, NULL);
		if (p && *p) {
			char path[2048];
			snprintf(path, sizeof path, "%s", p);
			tui_open_diff(t, v->doc, NULL, NULL, path);
		}
		return 1;
	}
	case TUI_REQ_NODES:
		tui_open_nodes(t, v->doc, NULL, -1);
		return 1;
	case TUI_REQ_SPLITS:
		tui_open_splits(t, v->doc);
		return 1;
	case TUI_REQ_LAYERS:
		tui_open_layers(t, v->doc, -1);
		return 1;
	case TUI_REQ_DATA: {
		hs_error err = {0};
		if (!arg || !*arg) {
			tui_message(t, 1, "data FILE: a CSV (name,FIELD,...) or JSON ({name: {field: value}} or [{name: ..., field: value}]) to lay over the nodes");
		} else if (query_session_load_data(v->doc->qs, arg, &t->o->data_opts, &err) != 0) {
			tui_message(t, 1, "%s", err.msg);
		} else {
			char *note = query_session_data_note(v->doc->qs, query_session_data_count(v->doc->qs) - 1);
			tui_message(t, 0, "%s; views opened from now on show its fields (+ adds them)", note ? note : arg);
			free(note);
		}
		return 1;
	}
	case TUI_REQ_COMPUTATIONS:
		tui_open_hcomps(t, v->doc, "Computations", NULL, 0);
		return 1;
	case TUI_REQ_COLLECTIVES:
		tui_open_collectives(t, v->doc);
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
	default:
		return 0;
	}
}

/* `:save-display [--attrs] FILE`: the screen without the prompt line. */
static void save_display(tui *t, const char *arg)
{
	hs_error err = {0};
	int attrs = 0;

	if (!arg)
		arg = tui_prompt(t, "save the screen to: ", TUI_P_PATH, NULL);
	if (!arg || !*arg)
		return;
	if (!strncmp(arg, "--attrs", 7) && (arg[7] == ' ' || !arg[7])) {
		attrs = 1;
		for (arg += 7; *arg == ' ';)
			arg++;
	}
	char path[2048];
	snprintf(path, sizeof path, "%s", arg);
	tui_draw_all(t);
	if (tui_capture_screen(path, attrs, &err) < 0)
		tui_message(t, 1, "%s", err.msg);
	else
		tui_message(t, 0, "saved the screen to %s", path);
}

/* Requests the loop answers whatever the view. */
static int app_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	hs_error err = {0};

	switch (req) {
	case TUI_REQ_QUIT:
		t->quit = 1;
		return 1;
	case TUI_REQ_BACK:
		if (v->ops->request && v->ops->request(t, v, req, arg))
			return 1;
		if (t->nviews <= 1)
			t->quit = 1;
		else
			tui_pop_later(t);
		return 1;
	case TUI_REQ_HELP:
		tui_open_help(t, v);
		return 1;
	case TUI_REQ_PROMPT: {
		const char *s = arg ? arg : tui_prompt(t, ":", TUI_P_COMMAND, NULL);
		if (s && *s) {
			char copy[sizeof t->line];
			snprintf(copy, sizeof copy, "%s", s);
			run_command(t, copy);
		}
		return 1;
	}
	case TUI_REQ_REDRAW:
		clearok(curscr, TRUE);
		return 1;
	case TUI_REQ_SAVE_DISPLAY:
		save_display(t, arg);
		return 1;
	case TUI_REQ_OPEN: {
		const char *p = arg ? arg : tui_prompt(t, "open: ", TUI_P_PATH, NULL);
		if (!p || !*p)
			return 1;
		char path[2048];
		snprintf(path, sizeof path, "%s", p);
		if (tui_open_path(t, path, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	default:
		return 0;
	}
}

/* A request goes to the loop, then the view, then the graph's commands,
 * then the focused table. */
static void dispatch(tui *t, tui_req req, const char *arg)
{
	tui_view *v = tui_top(t);
	tui_table *tb;

	if (!v || app_request(t, v, req, arg))
		return;
	if (req == TUI_REQ_DRAW && arg && v->doc) { /* draw ID */
		int64_t id = tui_doc_node_arg(t, v->doc, "draw", arg);
		if (id >= 0)
			tui_open_drawing(t, v->doc, id);
		return;
	}
	if (v->ops->request && v->ops->request(t, v, req, arg))
		return;
	if (v->doc && graph_request(t, v, req, arg))
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
	if (req != TUI_REQ_MOUSE)
		tui_message(t, 1, "%s: not available in the %s view", tui_request_name(req), v->ops->name);
}

static void run_command(tui *t, const char *line)
{
	char buf[sizeof t->line], *argv[32], *p;
	int argc = 0;
	tui_view *v = tui_top(t);

	char trimmed[sizeof t->line];
	while (*line == ' ')
		line++;
	snprintf(trimmed, sizeof trimmed, "%s", line);
	for (size_t n = strlen(trimmed); n && trimmed[n - 1] == ' ';)
		trimmed[--n] = '\0';
	line = trimmed;
	snprintf(buf, sizeof buf, "%s", line);
	/* a known command name first */
	char name[64] = "";
	sscanf(buf, "%63s", name);
	const char *rest = line + strlen(name);
	while (*rest == ' ')
		rest++;
	const tui_request_info *ri = tui_request_by_name(name);
	if (ri && *rest && !tui_request_takes_arg(ri->req))
		ri = NULL; /* "nodes where ..." is a query, not the `t` key */
	if (ri && (ri->scope & tui_view_scope(v))) {
		dispatch(t, ri->req, *rest ? rest : NULL);
		return;
	}
	for (p = strtok(buf, " "); p && argc < 31; p = strtok(NULL, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	/* query commands whose answer is a view: show ID|NAME, config N */
	if (v && v->doc && argc == 2 && (!strcmp(argv[0], "show") || !strcmp(argv[0], "config"))) {
		int64_t n;
		if (hs_parse_i64(argv[1], &n) == 0) {
			if (!strcmp(argv[0], "show")) {
				if (tui_doc_node_arg(t, v->doc, "show", argv[1]) >= 0)
					tui_open_node(t, v->doc, n);
			} else
				tui_open_config_values(t, v->doc, n);
			return;
		}
		if (!strcmp(argv[0], "show") && (n = graph_find_node(v->doc->g, argv[1])) >= 0) {
			tui_open_node(t, v->doc, n);
			return;
		}
	}
	if (ri && !(v && v->doc && tui_query_knows(ri->name))) {
		tui_message(t, 1, ":%s is not available in the %s view", ri->name, v->ops->name);
		return;
	}
	/* everything else is a query (export FILE out of a drawing, say) */
	tui_run_query(t, v, line);
}

/* ---- Input ------------------------------------------------------------------------ */

int tui_stopping(const tui *t)
{
	return tui_got_signal() || t->quit;
}

/* ---- Terminal --------------------------------------------------------------------- */

/* newterm failed: out of memory (errno, cleared before it), or a terminal
 * type curses does not know. */
static int screen_fail(const char *term, hs_error *err)
{
	if (errno == ENOMEM)
		return hs_fail(err, HS_ENOMEM, "out of memory starting the screen");
	return hs_fail(err, HS_EUSAGE, "cannot use terminal type '%s'", term ? term : "");
}

/* A script runs on a screen of COLUMNS x LINES whose output goes nowhere. */
static int open_screen(tui *t, hs_error *err)
{
	const char *term = getenv("TERM");

	if (t->headless) {
		t->devnull_out = fopen("/dev/null", "w");
		t->devnull_in = fopen("/dev/null", "r");
		if (!t->devnull_out || !t->devnull_in)
			return hs_fail(err, errno == ENOMEM ? HS_ENOMEM : HS_EUSAGE, "/dev/null: %s",
				       errno == ENOMEM ? "out of memory opening it" : strerror(errno));
		errno = 0;
		t->screen = newterm(term && *term ? term : "xterm-256color", t->devnull_out, t->devnull_in);
		if (!t->screen)
			return screen_fail(term, err);
		typeahead(-1); /* /dev/null always has input: never wait for it */
		return 0;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return hs_fail(err, HS_EUSAGE,
			       "the explorer needs a terminal (use 'hloscope info' or 'hloscope query' in scripts)");
	if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
		have_tio = 1;
	errno = 0;
	t->screen = newterm(term && *term ? NULL : "xterm", stdout, stdin);
	if (!t->screen)
		return screen_fail(term, err);
	curses_on = 1;
	return 0;
}

static int start_curses(tui *t, hs_error *err)
{
	if (open_screen(t, err) < 0)
		return -1;
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
	t->progress = (hs_progress){.fn = tui_on_long_work, .ctx = t, .after = t->headless ? 0 : 0.3};
	hs_progress_push(&t->progress);
	return 0;
}

static void stop_curses(tui *t)
{
	hs_progress_pop(&t->progress);
	if (t->screen) {
		mousemask(0, NULL);
		endwin();
		restore_signals();
		delscreen(t->screen);
	}
	curses_on = 0;
	t->screen = NULL;
	if (t->devnull_out)
		fclose(t->devnull_out);
	if (t->devnull_in)
		fclose(t->devnull_in);
	t->devnull_out = t->devnull_in = NULL;
}

/* ---- Main loop ------------------------------------------------------------------ */

/* The request of a key, or TUI_REQ_NONE with a message. */
static tui_req key_request(tui *t, int r, int k)
{
	int other;

	if (r == KEY_CODE_YES && k == KEY_MOUSE)
		return getmouse(&t->mouse) == OK ? TUI_REQ_MOUSE : TUI_REQ_NONE;
	const tui_request_info *ri = tui_request_by_key(k, tui_view_scope(tui_top(t)), &other);
	if (ri)
		return ri->req;
	char kl[32];
	tui_key_label(k, kl, sizeof kl);
	tui_message(t, 1, "%s: %s (? lists the keys)", kl,
		    other ? "not available in this view" : "no such key");
	return TUI_REQ_NONE;
}

static void pop_pending(tui *t)
{
	while (t->pending_pops > 0) {
		t->pending_pops--;
		if (t->nviews > 1)
			pop_view(t);
		else
			t->quit = 1;
	}
}

/* A motion a count prefix repeats (7j, 3n). */
static int repeats(tui_req req)
{
	return req == TUI_REQ_UP || req == TUI_REQ_DOWN || req == TUI_REQ_LEFT || req == TUI_REQ_RIGHT ||
	       req == TUI_REQ_PAGE_UP || req == TUI_REQ_PAGE_DOWN || req == TUI_REQ_NEXT || req == TUI_REQ_PREV;
}

static void loop(tui *t)
{
	int count = 0; /* a count typed before a motion */

	tui_draw_all(t);
	if (t->bench) {
		fprintf(t->bench, "first_paint_ms %.3f\nfirst_paint_cpu_ms %.3f\n", tui_clock_ms(),
			hs_cpu_seconds() * 1e3);
		fflush(t->bench);
	}
	while (!t->quit && t->nviews > 0) {
		wint_t wc;
		int r = tui_read_key(t, &wc), k = (int)wc, h, w;
		tui_req req = TUI_REQ_NONE;
		double t0 = hs_now_seconds() * 1e3, c0 = hs_cpu_seconds() * 1e3;

		if (tui_got_signal())
			break;
		if (r == ERR)
			continue;
		t->msg[0] = '\0';
		if (t->headless)
			t->progress.last = -1; /* a script: the work's first tick asks, whatever the clock */
		for (; t->interrupt_next > 0; t->interrupt_next--) /* a script's `interrupt` lines */
			raise(SIGINT);
		if (r == TUI_IN_COMMAND) {
			count = 0;
			run_command(t, t->command);
			k = ':';
			req = TUI_REQ_PROMPT;
			goto done;
		}
		if (r == KEY_CODE_YES || k < 32 || k == 127)
			k = tui_key_normalize(k);
		if (r == KEY_CODE_YES && k == KEY_RESIZE) {
			tui_draw_all(t);
			continue;
		}
		getmaxyx(t->win, h, w);
		if (w < MIN_W || h < MIN_H) {
			if (k == 'Q') /* q goes back everywhere else: here it does nothing */
				break;
			tui_draw_all(t);
			continue;
		}
		if (r == OK && k >= '0' && k <= '9' && (k > '0' || count)) {
			count = count < 100000 ? count * 10 + (k - '0') : count;
			tui_message(t, 0, "count %d (a motion repeats: j k h l n N, pages)", count);
			tui_draw_all(t);
			continue;
		}
		req = key_request(t, r, k);
		if (req == TUI_REQ_NONE) {
			count = 0;
			tui_draw_all(t);
			continue;
		}
		for (int i = repeats(req) && count > 1 ? count : 1; i > 0 && !t->quit && !tui_got_signal(); i--)
			dispatch(t, req, NULL);
		count = 0;
	done:
		pop_pending(t);
		if (t->quit)
			break;
		tui_draw_all(t);
		tui_after_work(t);
		if (t->bench) {
			char kl[32];
			tui_key_label(k, kl, sizeof kl);
			fprintf(t->bench, "key %s %s %.3f %.3f\n", kl, tui_request_name(req), hs_now_seconds() * 1e3 - t0,
				hs_cpu_seconds() * 1e3 - c0);
		}
	}
}

/* Lines of a script left when the explorer quit are an error: the script
 * meant them to run. */
static void check_script_end(tui *t)
{
	const tui_event *e = t->script && t->headless ? tui_script_peek(t->script) : NULL;

	if (e && !t->script_failed && !tui_got_signal()) {
		int quit_line = t->script_line;
		t->script_line = e->line;
		tui_script_fail(t, "not run: the explorer quit at line %d", quit_line);
	}
}

/* The graph or folder, loaded before the terminal is touched so that a bad
 * file is a plain message. */
static int load_start(tui *t, const char *path, ds_index **ix, tui_doc **d, hs_error *err)
{
	struct stat st;

	*ix = NULL;
	*d = NULL;
	/* FILE#N names one module of a file (graph_open checks it). */
	if (stat(path, &st) != 0 && !strchr(path, '#'))
		return hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
	if (t->o->diff_b) { /* hloscope diff A B: both modules, read before the terminal */
		if (!(*d = tui_doc_open(path, t->model, err)))
			return -1;
		if (!(t->diff_b = tui_doc_open(t->o->diff_b, t->model, err))) {
			tui_doc_unref(*d);
			*d = NULL;
			return -1;
		}
		return 0;
	}
	if (dataset_is_collection(path)) /* a folder, or a file of several modules */
		*ix = dataset_scan(path, err);
	else
		*d = tui_doc_open(path, t->model, err);
	return *ix || *d ? 0 : -1;
}

/* Options to state: the script, the bench log, the model. */
static int setup(tui *t, const tui_options *o, hs_error *err)
{
	if (o->script && o->keys)
		return hs_fail(err, HS_EUSAGE, "HLOSCOPE_SCRIPT and HLOSCOPE_KEYS: give one of them");
	if (o->script) {
		t->script = tui_script_load(o->script, err);
		t->headless = 1;
	} else if (o->keys)
		t->script = tui_script_from_keys(o->keys, err);
	if ((o->script || o->keys) && !t->script)
		return -1;
	if (o->bench_log) {
		t->bench = fopen(o->bench_log, "a");
		if (!t->bench)
			return hs_fail(err, HS_EUSAGE, "%s: %s", o->bench_log, strerror(errno));
	}
	if (o->model_path) {
		t->model = model_load(o->model_path, err);
		if (!t->model)
			return -1;
	}
	tui_set_mask_model(o->mask_model);
	return 0;
}

/* The first view: the dataset, the diff of two modules or the graph's
 * overview (each takes what it is given).  When it cannot open, -1 with err
 * set: why, as a command would say it (out of memory is HS_ENOMEM, exit 3),
 * rather than an explorer that quits at once with status 0. */
static int open_first(tui *t, ds_index *ix, tui_doc *d, hs_error *err)
{
	if (ix)
		tui_open_dataset(t, ix);
	else if (t->diff_b) {
		tui_open_diff(t, d, t->diff_b, NULL, NULL);
		tui_doc_unref(d);
		tui_doc_unref(t->diff_b);
		t->diff_b = NULL;
	} else {
		tui_open_overview(t, d);
		for (int i = 0; i < t->o->ndata && t->nviews; i++) /* rows that named no instruction: said once */
			if (query_session_data(d->qs, i)->unmatched) {
				char *note = query_session_data_note(d->qs, i);
				if (note)
					tui_message(t, 0, "%s", note);
				free(note);
			}
		tui_doc_unref(d);
	}
	if (t->nviews > 0) {
		t->started = 1;
		return 0;
	}
	if (t->oom.status)
		*err = t->oom;
	else
		hs_fail(err, HS_EDATA, "%s: %s", t->o->path, t->msg[0] ? t->msg : "the explorer could not open it");
	return -1;
}

int tui_run(const tui_options *o, hs_error *err)
{
	tui t;
	int rc = 0;
	ds_index *ix = NULL;
	tui_doc *d = NULL;

	memset(&t, 0, sizeof t);
	t.o = o;
	tui_clock_ms();
	setlocale(LC_ALL, "");
	if (setup(&t, o, err) < 0 || load_start(&t, o->path, &ix, &d, err) < 0) {
		rc = -1;
		goto out;
	}
	if (o->ndata && ix) {
		hs_fail(err, HS_EUSAGE, "%s: data is laid over one graph, not over a folder", o->path);
		dataset_free(ix);
		rc = -1;
		goto out;
	}
	for (int i = 0; i < o->ndata; i++) /* before the screen: a bad file fails here */
		if (query_session_load_data(d->qs, o->data[i], &o->data_opts, err) != 0) {
			tui_doc_unref(d);
			tui_doc_unref(t.diff_b);
			rc = -1;
			goto out;
		}
	if (t.bench)
		fprintf(t.bench, "loaded_ms %.3f\n", tui_clock_ms());
	if (start_curses(&t, err) < 0) {
		if (ix)
			dataset_free(ix);
		tui_doc_unref(d);
		tui_doc_unref(t.diff_b);
		rc = -1;
		goto out;
	}
	if (open_first(&t, ix, d, err) == 0) {
		loop(&t);
		check_script_end(&t);
	} else {
		rc = -1;
	}
	while (t.nviews)
		pop_view(&t);
	stop_curses(&t);
	if (tui_got_signal()) {
		rc = 128 + tui_got_signal();
		tui_signal_clear();
	} else if (rc == 0 && t.script_failed) {
		*err = t.script_err;
		rc = -1;
	}
out:
	stop_curses(&t);
	for (int k = 0; k < TUI_P_NKINDS; k++)
		lineedit_history_free(&t.hist[k]);
	free(t.stack);
	tui_script_free(t.script);
	if (t.model)
		model_free(t.model);
	if (t.bench)
		fclose(t.bench);
	return rc;
}
