/* render.h - the Graphviz layer in one include.
 *
 *   region.h  which nodes to draw (radius, paths, computation, id set, configurable)
 *   dot.h     a region as a cgraph graph; DOT / SVG / PNG export
 *   layout.h  Graphviz dot layout read back as numbers; per-region cache
 *   canvas.h  the layout drawn in character cells; cursor moves between nodes
 *   palette.h the colours of opcode categories (XLA's graph dumper)
 *
 * Typical use by a graph view:
 *   region_spec s; region_spec_init(&s); s.center = id; s.radius = 2;
 *   region *r = region_select(g, &s, &err);
 *   dot_opts o; dot_opts_init(&o);
 *   const hs_layout *L = layout_cache_get(cache, r, &o, &err);
 *   canvas_draw(cv, L, x0, y0, cursor);   then blit cv->cells
 */
#ifndef HS_RENDER_H
#define HS_RENDER_H

#include "render/canvas.h"
#include "render/dot.h"
#include "render/gv_layout.h"
#include "render/palette.h"
#include "render/region.h"

#endif
