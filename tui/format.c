/* format.c - numbers as the views write them: runtimes, durations, sizes
 * and FLOP counts with their units, and the placeholder for model numbers
 * under the test switch.  The unit tables below serve both ways: the
 * formatter picks the largest step a value reaches, the parser (filters on
 * a column) accepts every suffix of the column's kind. */
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

/* One step of a unit: its suffix, how many base units it holds and how it
 * prints (digits, fixed or significant).  Steps go largest first; `alias`
 * steps are only read, never written. */
struct step {
	const char *suffix;
	double scale;
	int digits, fixed, alias;
};

static const struct step ns_steps[] = {
	{"s", 1e9, 3, 1, 0}, {"ms", 1e6, 3, 1, 0}, {"us", 1e3, 3, 1, 0}, {"ns", 1, 0, 1, 0},
	{"\u00b5s", 1e3, 0, 0, 1}, {"sec", 1e9, 0, 0, 1}, {NULL, 0, 0, 0, 0},
};
static const struct step second_steps[] = {
	{"s", 1, 3, 0, 0}, {"ms", 1e-3, 3, 0, 0}, {"us", 1e-6, 3, 0, 0}, {"ns", 1e-9, 3, 0, 0},
	{"\u00b5s", 1e-6, 0, 0, 1}, {"sec", 1, 0, 0, 1}, {NULL, 0, 0, 0, 0},
};
static const struct step byte_steps[] = {
	{"TB", 1e12, 3, 0, 0}, {"GB", 1e9, 3, 0, 0}, {"MB", 1e6, 3, 0, 0}, {"kB", 1e3, 3, 0, 0},
	{"B", 1, 0, 1, 0}, {"bytes", 1, 0, 0, 1}, {"KiB", 1024.0, 0, 0, 1},
	{"MiB", 1048576.0, 0, 0, 1}, {"GiB", 1073741824.0, 0, 0, 1},
	{"TiB", 1099511627776.0, 0, 0, 1}, {NULL, 0, 0, 0, 0},
};
static const struct step flop_steps[] = {
	{"PFLOP", 1e15, 3, 0, 0}, {"TFLOP", 1e12, 3, 0, 0}, {"GFLOP", 1e9, 3, 0, 0},
	{"MFLOP", 1e6, 3, 0, 0}, {"kFLOP", 1e3, 3, 0, 0}, {"FLOP", 1, 0, 1, 0}, {NULL, 0, 0, 0, 0},
};
static const struct step percent_steps[] = {
	{"%", 1, 1, 1, 0}, {NULL, 0, 0, 0, 0},
};

static const struct {
	const struct step *steps;
	const char *what, *example;
} units[TUI_NUNITS] = {
	[TUI_U_NONE] = {NULL, "a number", "12.5"},
	[TUI_U_NS] = {ns_steps, "a duration", "12 us, 1.5 ms"},
	[TUI_U_SECONDS] = {second_steps, "a duration", "12 us, 1.5 ms"},
	[TUI_U_BYTES] = {byte_steps, "a size", "512 B, 2.1 GB"},
	[TUI_U_FLOP] = {flop_steps, "a FLOP count", "1.5 GFLOP"},
	[TUI_U_PERCENT] = {percent_steps, "a percentage", "5%"},
};

const char *tui_unit_what(int unit)
{
	return unit > 0 && unit < TUI_NUNITS ? units[unit].what : units[0].what;
}

const char *tui_unit_example(int unit)
{
	return unit > 0 && unit < TUI_NUNITS ? units[unit].example : units[0].example;
}

void tui_unit_format(char *buf, size_t cap, int unit, double v)
{
	const struct step *s = unit > 0 && unit < TUI_NUNITS ? units[unit].steps : NULL, *pick = NULL;

	if (isnan(v)) {
		snprintf(buf, cap, "-");
		return;
	}
	if (!s) {
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, cap, "%.0f", v);
		else
			snprintf(buf, cap, "%.4g", v);
		return;
	}
	if (unit == TUI_U_SECONDS && v == 0) {
		snprintf(buf, cap, "0");
		return;
	}
	for (; s->suffix; s++) {
		if (s->alias)
			continue;
		pick = s; /* the smallest step when none is reached */
		if (fabs(v) >= s->scale)
			break;
	}
	const char *space = unit == TUI_U_PERCENT ? "" : " ";
	if (pick->fixed)
		snprintf(buf, cap, "%.*f%s%s", pick->digits, v / pick->scale, space, pick->suffix);
	else
		snprintf(buf, cap, "%.*g%s%s", pick->digits, v / pick->scale, space, pick->suffix);
}

int tui_unit_parse(const char *s, int unit, double *out)
{
	const struct step *st = unit > 0 && unit < TUI_NUNITS ? units[unit].steps : NULL;
	char suffix[16];
	char *end;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	double v = strtod(s, &end);
	if (end == s)
		return -1;
	for (s = end; *s == ' ' || *s == '\t'; s++)
		;
	while (*s && *s != ' ' && *s != '\t' && n + 1 < sizeof suffix)
		suffix[n++] = *s++;
	suffix[n] = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s)
		return -1; /* more words, or a suffix too long for any unit */
	if (!n) {
		*out = v;
		return 0;
	}
	/* "GFLOPs", "FLOPS": a plural s */
	if (unit == TUI_U_FLOP && n > 4 && (suffix[n - 1] == 's' || suffix[n - 1] == 'S'))
		suffix[--n] = '\0';
	for (; st && st->suffix; st++)
		if (!strcasecmp(st->suffix, suffix)) {
			*out = v * st->scale;
			return 0;
		}
	return -1;
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
