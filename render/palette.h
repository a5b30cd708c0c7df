/* palette.h - how an opcode category is painted in a drawing (DOT, SVG,
 * PNG, the terminal canvas's colours as hex): XLA's hlo_graph_dumper
 * colours, from the material.io palette.  The loader says which category
 * an opcode is in (loader/hlo.h); this says how it looks.  The explorer's
 * curses colours for the same categories are tui/draw.c's palette.
 *
 * Source: XLA's hlo_graph_dumper.cc (fill, stroke and font per kind of
 * instruction; parameters use the dumper's darker orange so they stand
 * out; OTHER is white).
 */
#ifndef HS_PALETTE_H
#define HS_PALETTE_H

#include "loader/hlo.h"

/* Graphviz fill colour ("#rrggbb"), border colour and a matching font
 * colour for a category (a category out of range: OTHER's). */
const char *palette_fill(hlo_category c);
const char *palette_stroke(hlo_category c);
const char *palette_font(hlo_category c);

#endif
