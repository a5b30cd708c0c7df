/* repl.h - the interactive front end of the query language (`hloscope repl`).
 *
 * readline with history and tab completion (commands, fields, opcode names,
 * file paths), results printed as tables (or CSV / JSON after `format`),
 * long output paged through $PAGER (which writes to the terminal itself) or
 * a built-in "-- more --" prompt when o->out is a terminal.  `open FILE`
 * switches graphs.  When stdin is not a
 * terminal the lines are read without prompt or history and errors do not
 * stop the loop.
 *
 * History: $XDG_STATE_HOME/hloscope/history, else
 * ~/.local/state/hloscope/history (the folder is created); a history that
 * cannot be read or written is a warning on o->err, never a failure.
 *
 * A front end: it prints only to the streams the command gives it.
 *
 * Ownership: the REPL borrows the session and owns *g: on `open` it frees
 * the old graph and stores the new one in *g, which the caller frees after
 * the REPL returns (after freeing the session).
 */
#ifndef HS_REPL_H
#define HS_REPL_H

#include <stdio.h>

#include "loader/graph.h"
#include "query/query.h"

typedef struct repl_opts {
	query_format format; /* initial output format */
	const char *history; /* history file, NULL for the default; "" for none */
	FILE *out;           /* the terminal: prompts, results, the pager (read from stdin) */
	FILE *err;           /* messages: errors, history warnings */
} repl_opts;

/* Runs until `quit` or end of input.  Returns the exit status: 0, or 2 when
 * the terminal fails. */
int repl_run(query_session *s, hs_graph **g, const repl_opts *o);

/* The default history file path (see above) into buf; -1 when neither
 * XDG_STATE_HOME nor HOME is set. */
int repl_history_path(char *buf, size_t cap);

#endif
