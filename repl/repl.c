/* repl.c - readline front end of the query language.
 *
 * Each line goes through query_exec(); tables and text are rendered into
 * memory first so that long output can be paged.  Ctrl-C clears the input
 * line (it does not leave); Ctrl-D on an empty line leaves.  The built-in
 * pager switches the terminal to non-canonical mode only while it waits for
 * one key and restores it right after, so no exit path leaves the terminal
 * raw.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "base/escape.h"
#include "base/plural.h"
#include "base/strbuf.h"
#include "repl/repl.h"

#define HISTORY_MAX 2000

static query_session *cur_session;
static volatile sig_atomic_t got_sigint;
static FILE *out, *msgs; /* repl_opts' streams: results and prompts, messages */

/* ---- history --------------------------------------------------------- */

int repl_history_path(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, cap, "%s/hloscope/history", xdg);
	else if (home && *home)
		n = snprintf(buf, cap, "%s/.local/state/hloscope/history", home);
	else
		return -1;
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* mkdir -p of the folder holding `path`. */
static int make_parent(const char *path)
{
	char dir[4096];
	size_t n = strlen(path);

	if (n >= sizeof dir)
		return -1;
	memcpy(dir, path, n + 1);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

struct history {
	char path[4096];
	int on;       /* saving works */
	int warned;
};

static void history_warn(struct history *h, const char *what, int err)
{
	if (h->warned)
		return;
	h->warned = 1;
	fprintf(msgs, "hloscope: warning: cannot %s history %s: %s (history is not saved)\n",
		what, h->path, strerror(err));
}

static void history_open(struct history *h, const char *path)
{
	using_history();
	stifle_history(HISTORY_MAX);
	h->on = 0;
	if (path && !*path)
		return;
	if (path)
		snprintf(h->path, sizeof h->path, "%s", path);
	else if (repl_history_path(h->path, sizeof h->path) < 0) {
		fprintf(msgs, "hloscope: warning: neither XDG_STATE_HOME nor HOME is set; "
			"history is not saved\n");
		return;
	}
	if (make_parent(h->path) < 0) {
		history_warn(h, "create the folder of", errno);
		return;
	}
	int rc = read_history(h->path);
	if (rc == ENOENT) {
		int fd = open(h->path, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd < 0) {
			history_warn(h, "create", errno);
			return;
		}
		close(fd);
	} else if (rc != 0) {
		history_warn(h, "read", rc);
		return;
	}
	/* Writable? append_history() does not create, and fails late. */
	int fd = open(h->path, O_WRONLY | O_APPEND);
	if (fd < 0) {
		history_warn(h, "write", errno);
		return;
	}
	close(fd);
	h->on = 1;
}

static void history_add(struct history *h, const char *line)
{
	HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;

	if (last && strcmp(last->line, line) == 0)
		return;
	add_history(line);
	if (!h->on)
		return;
	int rc = append_history(1, h->path);
	if (rc != 0) {
		history_warn(h, "write", rc);
		h->on = 0;
	}
}

static void history_close(struct history *h)
{
	if (h->on)
		history_truncate_file(h->path, HISTORY_MAX);
	clear_history();
}

/* ---- completion ------------------------------------------------------ */

static char **matches;
static size_t match_next;

static char *match_gen(const char *text, int state)
{
	(void)text;
	if (!state)
		match_next = 0;
	if (!matches || !matches[match_next])
		return NULL;
	return strdup(matches[match_next++]);
}

static char **complete(const char *text, int start, int end)
{
	int files = 0;

	query_strv_free(matches);
	matches = query_complete(cur_session, rl_line_buffer, start, end, &files);
	if (files) {
		query_strv_free(matches);
		matches = NULL;
		return NULL; /* readline completes file names */
	}
	rl_attempted_completion_over = 1;
	if (!matches || !matches[0])
		return NULL;
	return rl_completion_matches(text, match_gen);
}

/* ---- signals --------------------------------------------------------- */

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

/* Called by readline when a read is interrupted: Ctrl-C drops the line. */
static int signal_hook(void)
{
	if (got_sigint) {
		got_sigint = 0;
		rl_replace_line("", 0);
		rl_crlf();
		rl_on_new_line();
		rl_redisplay();
	}
	return 0;
}

/* ---- output and paging ------------------------------------------------ */

static void term_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col > 0 ? ws.ws_col : 80;
	}
}

/* Screen rows a text takes with wrapping. */
static long screen_lines(const char *s, size_t n, int cols)
{
	long lines = 0;
	size_t i = 0;

	while (i < n) {
		size_t e = i;
		while (e < n && s[e] != '\n')
			e++;
		size_t len = e - i;
		lines += len ? (long)((len + (size_t)cols - 1) / (size_t)cols) : 1;
		i = e + 1;
	}
	return lines;
}

/* The terminal settings to restore if a signal ends the process while the
 * pager waits for a key in non-canonical mode. */
static struct termios key_saved;
static volatile sig_atomic_t key_raw;

static void on_fatal_signal(int sig)
{
	if (key_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &key_saved);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* One key from the terminal, without echo or line buffering (Ctrl-C comes
 * as a byte, so the pager treats it as q). */
static int read_key(void)
{
	static const int fatal[] = {SIGTERM, SIGHUP, SIGQUIT};
	struct sigaction sa = {0}, old_sa[3];
	struct termios raw;
	unsigned char c = 'q';

	if (tcgetattr(STDIN_FILENO, &key_saved) < 0)
		return 'q';
	raw = key_saved;
	raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO | ISIG);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(fatal[i], &sa, &old_sa[i]);
	key_raw = 1;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0) {
		ssize_t r;
		do
			r = read(STDIN_FILENO, &c, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1)
			c = 'q';
	}
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &key_saved);
	key_raw = 0;
	for (int i = 0; i < 3; i++)
		sigaction(fatal[i], &old_sa[i], NULL);
	return c;
}

/* The built-in pager: a page, then "-- more --" and one key at a time. */
static void page_builtin(const char *s, size_t n, int rows, int cols)
{
	size_t i = 0;
	long budget = rows - 1;

	while (i < n) {
		long used = 0;
		while (i < n && used < budget) {
			size_t e = i;
			while (e < n && s[e] != '\n')
				e++;
			size_t len = e - i;
			fwrite(s + i, 1, e < n ? len + 1 : len, out);
			used += len ? (long)((len + (size_t)cols - 1) / (size_t)cols) : 1;
			i = e < n ? e + 1 : n;
		}
		if (i >= n)
			break;
		fputs("\033[7m-- more -- (space: page, enter: line, q: stop)\033[0m", out);
		fflush(out);
		int k = read_key();
		fputs("\r\033[K", out);
		if (k == 'q' || k == 'Q' || k == 3 || k == 27 || k == 4)
			break;
		budget = (k == '\r' || k == '\n' || k == 'j') ? 1 : rows - 1;
	}
	fflush(out);
}

static int page_external(const char *pager, const char *s, size_t n)
{
	struct sigaction ign = {0}, old;
	int ok;

	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	fflush(out);
	FILE *p = popen(pager, "w");
	if (!p) {
		sigaction(SIGPIPE, &old, NULL);
		return -1;
	}
	fwrite(s, 1, n, p); /* a pager that quits early is not an error */
	ok = pclose(p) != -1;
	sigaction(SIGPIPE, &old, NULL);
	return ok ? 0 : -1;
}

static void show_page(const char *s, size_t n)
{
	int rows, cols;

	term_size(&rows, &cols);
	if (screen_lines(s, n, cols) < rows) {
		fwrite(s, 1, n, out);
		fflush(out);
		return;
	}
	const char *pager = getenv("PAGER");
	if (pager && *pager && page_external(pager, s, n) == 0)
		return;
	page_builtin(s, n, rows, cols);
}

/* A result on `out`.  On a terminal (and through a pager) it is escaped
 * (base/escape.h: tables and text come escaped from query_write already;
 * this is for CSV, which stays exact on a pipe). */
static void show(const char *s, size_t n)
{
	hs_strbuf esc = {0};

	if (!isatty(fileno(out)) || !isatty(STDIN_FILENO)) {
		fwrite(s, 1, n, out);
		fflush(out);
		return;
	}
	if (hs_esc_span(s, n, HS_ESC_TEXT) < n) {
		hs_strbuf_escaped(&esc, s, n, HS_ESC_TEXT);
		if (esc.failed) { /* no memory to page it: written as it goes */
			hs_strbuf_free(&esc);
			hs_fwrite_escaped(out, s, n, HS_ESC_TEXT);
			fflush(out);
			return;
		}
		s = hs_strbuf_str(&esc);
		n = esc.len;
	}
	show_page(s, n);
	hs_strbuf_free(&esc);
}

/* ---- the loop -------------------------------------------------------- */

static void print_error(const char *line, const hs_error *err, int column)
{
	char buf[4096];

	query_error_caret(err->msg, line, column, buf, sizeof buf);
	fputs("error: ", msgs);
	hs_fputs_escaped(msgs, buf, HS_ESC_TEXT);
	fflush(msgs);
}

/* Runs one line; returns 1 to quit. */
static int run_line(query_session *s, hs_graph **g, query_format *fmt, const char *line)
{
	query_result r;
	hs_error err;

	hs_error_clear(&err);
	if (query_exec(s, line, &r, &err) < 0) {
		print_error(line, &err, query_error_column(s));
		return 0;
	}
	if (r.kind == QUERY_ACTION) {
		int quit = 0;
		if (r.action == QUERY_ACT_QUIT) {
			quit = 1;
		} else if (r.action == QUERY_ACT_FORMAT) {
			*fmt = r.format;
			fprintf(out, "format: %s\n", r.format == QUERY_FMT_CSV ? "csv" :
			       r.format == QUERY_FMT_JSON ? "json" : "table");
		} else if (r.action == QUERY_ACT_OPEN) {
			hs_error e;
			hs_error_clear(&e);
			hs_graph *ng = graph_open(r.arg, &e);
			if (!ng) {
				fputs("error: ", msgs);
				hs_fputs_escaped(msgs, e.msg, HS_ESC_TEXT);
				fputc('\n', msgs);
			} else {
				query_session_set_graph(s, ng);
				graph_free(*g);
				*g = ng;
				hs_strbuf tmp = {0};
				if (ng->kind == HS_KIND_MODULE)
					fprintf(out, "opened %s: module, %lld instruction%s\n",
						hs_escaped(ng->name, &tmp, HS_ESC_NAME), (long long)ng->n_nodes, hs_s(ng->n_nodes));
				else
					fprintf(out, "opened %s: %s graph, %lld node%s, %lld edge%s, %lld config%s\n",
						hs_escaped(ng->name, &tmp, HS_ESC_NAME), graph_kind_name(ng->kind),
						(long long)ng->n_nodes, hs_s(ng->n_nodes), (long long)ng->n_edges,
						hs_s(ng->n_edges), (long long)ng->n_configs, hs_s(ng->n_configs));
				hs_strbuf_free(&tmp);
			}
		}
		fflush(out);
		query_result_free(&r);
		return quit;
	}
	hs_strbuf text = {0};
	FILE *m = hs_strbuf_open(&text);
	if (!m) {
		fprintf(msgs, "error: out of memory writing the result\n");
		query_result_free(&r);
		return 0;
	}
	int wrote = query_write(m, &r, *fmt, &err);
	if (fclose(m) != 0) {
		fprintf(msgs, "error: out of memory writing the result\n");
	} else {
		if (wrote < 0) {
			fputs("error: ", msgs);
			hs_fputs_escaped(msgs, err.msg, HS_ESC_TEXT);
			fputc('\n', msgs);
		}
		show(hs_strbuf_str(&text), text.len);
	}
	hs_strbuf_free(&text);
	query_result_free(&r);
	return 0;
}

static void trim_newline(char *line)
{
	size_t n = strlen(line);

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
}

static int is_blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			return 0;
	return 1;
}

int repl_run(query_session *s, hs_graph **g, const repl_opts *o)
{
	query_format fmt = o->format;

	cur_session = s;
	out = o->out;
	msgs = o->err;
	rl_outstream = out;
	if (!isatty(STDIN_FILENO)) {
		char *line = NULL;
		size_t cap = 0;
		while (getline(&line, &cap, stdin) >= 0) {
			trim_newline(line);
			if (run_line(s, g, &fmt, line))
				break;
		}
		free(line);
		cur_session = NULL;
		return 0;
	}

	struct history h = {0};
	struct sigaction sa = {0}, old_int;
	char prompt[128];

	history_open(&h, o->history);
	rl_readline_name = "hloscope";
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = " \t\n\"'(),=<>!~*+%";
	rl_completer_quote_characters = "\"'";
	rl_signal_event_hook = signal_hook;
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);

	hs_strbuf name = {0};
	int module = (*g)->kind == HS_KIND_MODULE;
	fprintf(out, "hloscope: %s (%s%s, %lld %s%s). Type help, or quit.\n",
		hs_escaped((*g)->name, &name, HS_ESC_NAME), graph_kind_name((*g)->kind), module ? "" : " graph",
		(long long)(*g)->n_nodes, module ? "instruction" : "node", hs_s((*g)->n_nodes));
	for (;;) {
		snprintf(prompt, sizeof prompt, "%s> ", hs_escaped((*g)->name, &name, HS_ESC_NAME));
		got_sigint = 0;
		char *line = readline(prompt);
		if (!line) {
			fputc('\n', out);
			break;
		}
		if (!is_blank(line))
			history_add(&h, line);
		int quit = run_line(s, g, &fmt, line);
		free(line);
		if (quit)
			break;
	}
	sigaction(SIGINT, &old_int, NULL);
	hs_strbuf_free(&name);
	history_close(&h);
	query_strv_free(matches);
	matches = NULL;
	cur_session = NULL;
	return 0;
}
