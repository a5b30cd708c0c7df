/* app.h - inside the explorer, for tui/ only: the main loop's state shared
 * by the files that make up the loop (app.c, prompt.c, keys.c, script.c,
 * capture.c, view_help.c).  Views use tui.h alone.
 *
 * Input comes from the terminal (wget_wch) or from a script (script.c): a
 * script hands out the same keys plus command lines, screen captures and
 * resizes, each one fully processed before the next is read, so a script
 * run needs no terminal and no waiting. */
#ifndef HS_TUI_APP_H
#define HS_TUI_APP_H

#include <stdio.h>
#include <wchar.h>

#include "base/progress.h"
#include "tui/lineedit.h"
#include "tui/tui.h"

/* ---- The command table (keys.c) --------------------------------------- */

typedef struct tui_request_info {
	tui_req req;
	const char *name;
	int key, key2, scope;
	const char *help;
} tui_request_info;

size_t tui_request_count(void);
const tui_request_info *tui_request_at(size_t i);
/* The request bound to `key` in `scope`; *other_scope = 1 when the key
 * exists in another scope only. */
const tui_request_info *tui_request_by_key(int key, int scope, int *other_scope);
/* By `:` name or alias (q, exit, save...); NULL if none. */
const tui_request_info *tui_request_by_name(const char *name);
const char *tui_request_name(tui_req r);
/* Requests whose `:` form takes an argument ("sort users"). */
int tui_request_takes_arg(tui_req r);
/* Scopes a view offers (TUI_S_*). */
int tui_view_scope(const tui_view *v);
/* A key as the help screen writes it: "Enter", "Ctrl-U", "PgDn", "j". */
void tui_key_label(int key, char *buf, size_t cap);
/* A key by its script name: "Enter", "Tab", "C-u", "PgDn", "F1", or one
 * (UTF-8) character.  Returns the key (a wide character, or a curses
 * KEY_* code when *is_code), or -1 when the name is unknown. */
int tui_key_by_name(const char *name, int *is_code);
/* Carriage return to newline, DEL to Backspace... as the loop wants them. */
int tui_key_normalize(int key);

/* ---- Scripts (script.c) -------------------------------------------------- */

typedef struct tui_script tui_script;

enum tui_event_kind {
	TUI_EV_KEY,     /* key, is_code */
	TUI_EV_COMMAND, /* text: a `:` command line */
	TUI_EV_SAVE,    /* text: file for the screen; attrs: with attributes */
	TUI_EV_RESIZE,  /* cols, rows */
	TUI_EV_INTERRUPT, /* a Ctrl-C while the next key's work runs */
};

typedef struct tui_event {
	int kind;
	int key, is_code;
	char *text;
	int attrs;
	int cols, rows;
	int line; /* in the script file, 1-based */
} tui_event;

/* HLOSCOPE_SCRIPT: a file, one key or directive a line (see script.c). */
tui_script *tui_script_load(const char *path, hs_error *err);
/* HLOSCOPE_KEYS: "tjj/conv<Enter>", keys only (bench). */
tui_script *tui_script_from_keys(const char *keys, hs_error *err);
void tui_script_free(tui_script *s);
/* The next event, or NULL at the end. */
const tui_event *tui_script_next(tui_script *s);
/* The first event not yet read, or NULL when all were read. */
const tui_event *tui_script_peek(const tui_script *s);
const char *tui_script_name(const tui_script *s);

/* ---- The screen as text (capture.c) ------------------------------------ */

/* Writes what the terminal shows (curscr) to `path`: UTF-8, one line per
 * row, trailing spaces trimmed; with `attrs`, SGR escapes (as `tmux
 * capture-pane -e` writes them) where the attributes change.  Written to a
 * temporary file renamed into place.  -1 with err set on failure. */
int tui_capture_screen(const char *path, int attrs, hs_error *err);

/* ---- The main loop's state (app.c) ----------------------------------------- */

#define TUI_LINE_CAP (LINEEDIT_MAX * 4 + 1)

struct tui {
	hs_progress progress;    /* long work while the screen is up: its status line */
	SCREEN *screen;
	FILE *devnull_out, *devnull_in; /* the scripted screen's terminal */
	WINDOW *win;
	tui_view **stack;
	int nviews, capviews;
	int pending_pops;
	int quit;
	char msg[512];
	int msg_err;
	int msg_progress;    /* msg is long work's progress line */
	MEVENT mouse;
	hs_model *model;
	const tui_options *o;
	tui_doc *diff_b;         /* B of `hloscope diff A B` until its view is open */
	FILE *bench;
	lineedit_history hist[TUI_P_NKINDS];
	char line[TUI_LINE_CAP]; /* the last prompt's answer */
	tui_script *script;      /* keys from a script or HLOSCOPE_KEYS, else NULL */
	int headless;            /* a script file: no terminal */
	const char *command;     /* the command line of the last TUI_IN_COMMAND */
	int script_line;         /* line of the script event last read */
	hs_error script_err;     /* a script that went wrong: the line and why */
	int script_failed;
	hs_error oom;            /* the last "out of memory" message (tui_message) */
	int started;             /* the first view is open */
	int interrupt_next;      /* a script's `interrupt` lines: SIGINTs as the next key's work starts */
};

/* What tui_read_key returns besides wget_wch's OK, KEY_CODE_YES and ERR:
 * a command line from a script, in t->command. */
#define TUI_IN_COMMAND 0x7ffe

/* The next key (as wget_wch) or script command. */
int tui_read_key(tui *t, wint_t *wc);
/* ---- Signals (interrupt.c) ------------------------------------------------ */

/* Around waiting for a key: a Ctrl-C while waiting quits, one while
 * working stops the work (a second one quits). */
void tui_waiting(int waiting);
/* The handler of SIGINT, SIGTERM, SIGHUP, SIGQUIT. */
void tui_on_quit_signal(int sig);
/* The signal that quits the explorer, or 0; tui_signal_clear forgets it. */
int tui_got_signal(void);
void tui_signal_clear(void);
/* Long work's hook (base/progress.h): its progress on the status line; Esc
 * or Ctrl-C stops it (a key typed ahead stays for the loop). */
int tui_on_long_work(void *ctx, const char *what, double done, double total);
/* After a key's work: says whether a Ctrl-C during it stopped it (the views
 * stay as they were) or came when it was done; the hook may stop again. */
void tui_after_work(tui *t);
/* Draws every part of the screen and updates the terminal. */
void tui_draw_all(tui *t);
/* A signal or a quit request ends the loop (and any prompt). */
int tui_stopping(const tui *t);
/* Stops a script at the line of the event last read, with a message
 * (status HS_EUSAGE: the explorer exits 1; or the status given). */
void tui_script_fail(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tui_script_fail_status(tui *t, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
