/* format.c - numbers as the views write them: runtimes, durations, and the
 * placeholder for model numbers under the test switch. */
#include <math.h>
#include <stdio.h>

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
	if (v >= 1e9)
		snprintf(buf, cap, "%.3f s", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, cap, "%.3f ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, cap, "%.3f us", v / 1e3);
	else
		snprintf(buf, cap, "%.0f ns", v);
}

void tui_fmt_seconds(char *buf, size_t cap, double s)
{
	if (isnan(s))
		snprintf(buf, cap, "-");
	else if (s == 0)
		snprintf(buf, cap, "0");
	else if (s >= 1)
		snprintf(buf, cap, "%.3g s", s);
	else if (s >= 1e-3)
		snprintf(buf, cap, "%.3g ms", s * 1e3);
	else if (s >= 1e-6)
		snprintf(buf, cap, "%.3g us", s * 1e6);
	else
		snprintf(buf, cap, "%.3g ns", s * 1e9);
}
