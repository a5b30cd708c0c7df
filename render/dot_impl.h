/* dot_impl.h - what render/dot.c (the Graphviz context, long work, the
 * out-of-memory guard) gives render/dot_write.c.  Not for other modules. */
#ifndef HS_DOT_IMPL_H
#define HS_DOT_IMPL_H

#include <stdio.h>

#include <graphviz/gvc.h>

#include "base/error.h"

/* Graphviz's error messages, collected: the sink to install, a reset
 * before a job and the text of the last job's. */
int dot_gv_error_sink(char *msg);
void dot_gv_error_reset(void);
const char *dot_gv_error_text(void);
/* The context with the gd plugin (PNG); NULL with err set. */
GVC_t *dot_png_context(hs_error *err);
/* gvRender of the laid out g into fp on a thread of its own, with a
 * progress line and the out-of-memory guard (dot_guarded). */
int dot_gv_render(GVC_t *gvc, Agraph_t *g, const char *fmt, FILE *fp);
/* 1 when an allocation failed in the last job (dot_gv_out_of_memory: and
 * the job failed for it); 1 when the gd plugin was found. */
int dot_gv_last_enomem(void);
int dot_gv_has_gd(void);

#endif
