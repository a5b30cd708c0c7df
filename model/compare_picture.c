/* compare_picture.c - what a drawing of a comparison shows beside its
 * highlight: each changed node's values, A then B, and a legend.  See
 * compare.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "model/compare.h"
#include "model/compare_impl.h"

/* One row's note: a line per layout group that differs ("output {1,0,2} →
 * {0,1,2}"); for a width other than three groups, the changed entries. */
static char *row_note(const compare_result *r, const compare_row *rw)
{
	char buf[512], a[96], b[96];
	hs_strbuf o = hs_strbuf_fixed(buf, sizeof buf);
	if (r->width == 3 * LAYOUT_GROUP) {
		for (int gi = 0; gi < 3; gi++) {
			int any = 0;
			for (int j = 0; j < LAYOUT_GROUP; j++)
				any |= rw->changed[gi * LAYOUT_GROUP + j];
			if (!any)
				continue;
			compare_layout_text(rw->a, rw->b, NULL, gi * LAYOUT_GROUP, a, sizeof a);
			compare_layout_text(rw->b, rw->a, NULL, gi * LAYOUT_GROUP, b, sizeof b);
			hs_strbuf_printf(&o, "%s%s %s → %s", o.len ? "\n" : "", compare_group_name(gi),
			    a, b);
		}
	} else {
		for (int j = 0, k = 0; j < r->width && k < 4; j++)
			if (rw->changed[j])
				hs_strbuf_printf(&o, "%s[%d] %g → %g", k++ ? "\n" : "", j,
				    (double)rw->a[j], (double)rw->b[j]);
	}
	return strdup(buf);
}

char **compare_node_notes(const compare_result *r)
{
	int64_t n = r->ga->n_nodes;
	char **notes = calloc((size_t)(n ? n : 1), sizeof *notes);

	if (!notes || r->kind == HS_KIND_TILE)
		return notes;
	for (int64_t i = 0; i < r->n_rows; i++) {
		const compare_row *rw = &r->rows[i];
		if (!rw->differs || rw->node < 0 || rw->node >= n)
			continue;
		if (!(notes[rw->node] = row_note(r, rw))) {
			compare_notes_free(notes, n);
			return NULL;
		}
	}
	return notes;
}

void compare_notes_free(char **notes, int64_t n)
{
	if (!notes)
		return;
	for (int64_t i = 0; i < n; i++)
		free(notes[i]);
	free(notes);
}

static void side_label(const compare_side_info *s, char *buf, size_t cap)
{
	char idx[32];

	snprintf(idx, sizeof idx, "%lld", (long long)s->config);
	if (strcmp(idx, s->selector))
		snprintf(buf, cap, "config %lld (%s)", (long long)s->config, s->selector);
	else
		snprintf(buf, cap, "config %lld", (long long)s->config);
}

int compare_legend_text(const compare_result *r, char *buf, size_t cap)
{
	char a[64], b[64], sum[512];
	hs_strbuf o = hs_strbuf_fixed(buf, cap);

	side_label(&r->A, a, sizeof a);
	side_label(&r->B, b, sizeof b);
	compare_summary(r, sum, sizeof sum);
	if (r->kind == HS_KIND_TILE) {
		hs_strbuf_printf(&o, "blue border: the kernel, whose tile config differs\n"
		    "A = %s, B = %s\n%s", a, b, sum);
		return (int)o.len;
	}
	hs_strbuf_printf(&o, "blue border: the layout differs between A and B\nA = %s, B = %s\n", a, b);
	hs_strbuf_printf(&o, "%lld of %lld configurable node%s differ%s\n", (long long)r->n_differ,
	    (long long)r->n_cfg, hs_s(r->n_cfg), hs_plural(r->n_differ, "s", ""));
	hs_strbuf_printf(&o, "on each: the layouts that change, A → B\n"
	    "(minor to major; - = left to the compiler)");
	return (int)o.len;
}
