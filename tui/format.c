/* format.c - numbers as the views write them: runtimes, durations, sizes
 * and FLOP counts with their units (the query language's, query/unit.c, so
 * that a filter reads back what a column prints), and the placeholder for
 * model numbers under the test switch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui/tui.h"

static int mask_model;

void tui_set_mask_model(int on)
{
	mask_model = on;
}

int tui_model_masked(void)
{
	return mask_model;
}

int tui_model_hidden(char *buf, size_t cap)
{
	if (!mask_model)
		return 0;
	snprintf(buf, cap, "#");
	return 1;
}

/* ---- Units ------------------------------------------------------------- */

/* The query language's units (query/unit.c): a column prints what a filter
 * on it reads back. */
void tui_unit_format(char *buf, size_t cap, int unit, double v)
{
	query_unit_format(buf, cap, unit, v);
}

int tui_unit_parse(const char *s, int unit, double *out)
{
	return query_unit_parse(s, unit, out);
}

/* ---- Runtimes and durations ----------------------------------------------- */

void tui_fmt_runtime(char *buf, size_t cap, const hs_graph *g, double v)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else if (g->kind == HS_KIND_TILE)
		snprintf(buf, cap, "%.4f", v);
	else
		tui_fmt_ns(buf, cap, v);
}

void tui_fmt_ns(char *buf, size_t cap, double v)
{
	tui_unit_format(buf, cap, TUI_U_NS, v);
}

void tui_fmt_seconds(char *buf, size_t cap, double s)
{
	tui_unit_format(buf, cap, TUI_U_SECONDS, s);
}
