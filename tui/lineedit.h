/* lineedit.h - the explorer's line editor without a terminal: one line of
 * characters with a cursor, edits, word moves, a history to browse and
 * completion of the word before the cursor.  tui/prompt.c draws it and maps
 * keys to these operations; tests/unit/test_lineedit.c drives it directly.
 *
 * Text goes in and out in the locale's multibyte encoding (UTF-8 once
 * setlocale has run); inside, one wchar_t per character, so the cursor
 * moves by characters and widths come from wcwidth.
 *
 * A prompt may offer a default: lineedit_select() shows the whole line
 * selected, as a browser's address bar or a dialog's default does.  The
 * first printable character replaces it; Backspace, Delete and the kills
 * remove it; the moves (Left, Right, Home, End, words) and history keep it
 * as text to edit; Enter takes it as it is.
 *
 * Ownership: a lineedit_history owns copies of its lines (free with
 * lineedit_history_free); a lineedit borrows its history and owns nothing
 * that outlives lineedit_free. */
#ifndef HS_TUI_LINEEDIT_H
#define HS_TUI_LINEEDIT_H

#include <stddef.h>
#include <wchar.h>

#define LINEEDIT_MAX 400 /* characters in a line */
#define LINEEDIT_HIST 64 /* lines a history keeps */

typedef struct lineedit_history {
	char *item[LINEEDIT_HIST]; /* oldest first */
	int n;
} lineedit_history;

/* Adds a line unless it is empty or repeats the newest; drops the oldest
 * when full. */
void lineedit_history_add(lineedit_history *h, const char *line);
void lineedit_history_free(lineedit_history *h);

typedef struct lineedit {
	wchar_t buf[LINEEDIT_MAX + 1]; /* buf[len] == 0 */
	int len, pos;                  /* characters; pos is the cursor, 0..len */
	lineedit_history *hist;        /* borrowed; NULL = none */
	int hpos;                      /* entry shown; hist->n = the line being edited */
	char *saved;                   /* that line, while an entry is shown */
	int selected;                  /* the whole line is selected (a default to replace) */
} lineedit;

typedef enum lineedit_op {
	LINEEDIT_LEFT,       /* one character */
	LINEEDIT_RIGHT,
	LINEEDIT_HOME,
	LINEEDIT_END,
	LINEEDIT_WORD_LEFT,  /* to the start of this or the previous word */
	LINEEDIT_WORD_RIGHT, /* to the end of this or the next word */
	LINEEDIT_DEL_BACK,   /* the character before the cursor */
	LINEEDIT_DEL_FWD,    /* the character under the cursor */
	LINEEDIT_KILL_START, /* everything before the cursor */
	LINEEDIT_KILL_END,   /* everything from the cursor */
	LINEEDIT_KILL_WORD,  /* back to the previous space, as a shell's Ctrl-W */
	LINEEDIT_HIST_PREV,  /* older history entry */
	LINEEDIT_HIST_NEXT,  /* newer entry, then the line being edited */
} lineedit_op;

/* Starts a line with `initial` (may be NULL), the cursor at its end. */
void lineedit_init(lineedit *e, const char *initial, lineedit_history *h);
/* Selects the whole line (nothing when it is empty). */
void lineedit_select(lineedit *e);
void lineedit_free(lineedit *e);
/* Returns 1 when the line, the cursor or the selection changed, 0 when
 * there was nothing to do (at an end, no older entry...). */
int lineedit_do(lineedit *e, lineedit_op op);
/* Inserts one printable character at the cursor; 0 when the line is full
 * or c is a control character. */
int lineedit_insert(lineedit *e, wchar_t c);
/* Inserts text; 0 (and nothing inserted) when it does not decode or fit. */
int lineedit_insert_text(lineedit *e, const char *s);
/* Replaces the whole line, the cursor at its end. */
void lineedit_set(lineedit *e, const char *s);
/* The line, encoded, into out[cap]; -1 (out empty) when it does not fit. */
int lineedit_text(const lineedit *e, char *out, size_t cap);

/* Completion.  The word before the cursor starts after the last space or
 * one of = < > ( , before it.  lineedit_before_cursor writes the line up
 * to the cursor and sets *word to the byte offset of that word in it. */
int lineedit_word_start(const lineedit *e);
int lineedit_before_cursor(const lineedit *e, char *out, size_t cap, size_t *word);
/* Replaces the word before the cursor by the longest common prefix of
 * cands[n] (which all start with it), plus a space when `space` and there
 * is a single candidate that is not a folder ending in '/' (a prompt that
 * takes one name passes 0: nothing follows it).  Returns 0 when n == 0 or
 * the result does not fit. */
int lineedit_complete(lineedit *e, const char *const *cands, int n, int space);

/* Terminal cells taken by characters from..to-1 (each at least one). */
int lineedit_width(const lineedit *e, int from, int to);

#endif
