/* caret.h - a line of source with a caret under a column: how every error
 * with a place in a line of text is shown (the query language, HLO text).
 *
 *     nodes where shap = 1          <- the message comes first, from the caller
 *       nodes where shap = 1
 *                   ^
 *
 * Two lines, each indented by two spaces: the line (up to its first '\n')
 * and a '^' under byte `column` (1-based).  Before the caret, a tab of the
 * line stays a tab and anything else becomes a space, so the caret lines
 * up wherever the terminal puts its tab stops.  A column past the end
 * points just after the last byte.
 */
#ifndef HS_CARET_H
#define HS_CARET_H

#include <stddef.h>

/* Writes the two lines into buf, like snprintf: cut to cap bytes (always
 * terminated when cap > 0; buf may be NULL when cap is 0), returns the
 * length of the whole text.  Nothing (0, an empty buf) when line is NULL or
 * column < 1. */
int hs_caret(char *buf, size_t cap, const char *line, int column);

#endif
