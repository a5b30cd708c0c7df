/* view_diff.h - what the diff views of tui/ share (view_diff.c, the two
 * modules side by side; view_diff_pair.c, one pair's details): both
 * documents and their diff.  Private to tui/. */
#ifndef HS_TUI_VIEW_DIFF_H
#define HS_TUI_VIEW_DIFF_H

#include <stdint.h>

#include "doc/diff.h"
#include "tui/tui.h"

typedef struct tui_diff_docs {
	tui_doc *da, *db;   /* one reference each */
	module_diff d;         /* over da->g and db->g */
} tui_diff_docs;

/* A row of the instruction table: a matched pair, or a node of one side
 * (the other -1). */
typedef struct pair_row {
	int64_t a, b;
} pair_row;

/* Diffs documents a and b (a reference taken on each), or opens path_a
 * (path_b) where a (b) is NULL, with a line on the status bar while it
 * works.  0, or -1 with err set (nothing held). */
int tui_diff_docs_open(tui *t, tui_diff_docs *s, tui_doc *a, tui_doc *b, const char *path_a, const char *path_b,
		       hs_error *err);
void tui_diff_docs_free(tui_diff_docs *s);

/* Every row, in the order the diff view shows them: changed pairs (the
 * largest cost change first), only in A, only in B (the costliest first),
 * then the unchanged pairs in A's order.  0, or -1 out of memory. */
int tui_diff_rows(const module_diff *d, pair_row **rows, int64_t *n);

/* The pair (a, b) (either may be -1) in detail, side by side; s is
 * borrowed from the diff view below it (view_diff_pair.c). */
int tui_open_diff_pair(tui *t, const tui_diff_docs *s, int64_t a, int64_t b);

/* The drawing of one side (0 A, 1 B) around `node`, the changed and
 * unmatched nodes of that side highlighted, with a legend. */
int tui_diff_draw_side(tui *t, const tui_diff_docs *s, int side, int64_t node);

#endif
