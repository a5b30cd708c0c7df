#include "dump.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* A stage suffix (after "NAME."): 1 when it is one, with order and label. */
static int stage_of(const char *s, size_t n, xla_dump_name *out)
{
	static const char before[] = "before_optimizations", after[] = "after_optimizations";
	if (n == sizeof before - 1 && memcmp(s, before, n) == 0) {
		out->order = 0;
		snprintf(out->stage, sizeof out->stage, "before optimizations");
		return 1;
	}
	if (ends_with(s, n, after)) {
		size_t p = n - (sizeof after - 1);     /* "sm_8.0_gpu_" or "" */
		out->order = XD_AFTER_OPTIMIZATIONS;
		if (p > 1 && s[p - 1] == '_' && isalpha((unsigned char)s[0])) /* a platform: sm_8.0_gpu, cpu */
			snprintf(out->stage, sizeof out->stage, "after optimizations (%.*s)", (int)(p - 1), s);
		else if (p == 0)
			snprintf(out->stage, sizeof out->stage, "after optimizations");
		else
			return 0;
		return 1;
	}
	/* NNNN.PIPELINE.after_PASS or .before_PASS */
	size_t d = 0;
	while (d < n && isdigit((unsigned char)s[d]))
		d++;
	if (d < 4 || d >= n || s[d] != '.')
		return 0;
	const char *pipe = s + d + 1, *dot = memchr(pipe, '.', n - d - 1);
	if (!dot)
		return 0;
	const char *what = dot + 1;
	size_t wn = n - (size_t)(what - s);
	int is_after = wn > 6 && memcmp(what, "after_", 6) == 0;
	int is_before = wn > 7 && memcmp(what, "before_", 7) == 0;
	if (!is_after && !is_before)
		return 0;
	long long step = 0;
	for (size_t i = 0; i < d && step < 100000000; i++)
		step = step * 10 + (s[i] - '0');
	out->order = 1 + 2 * step + is_after;
	snprintf(out->stage, sizeof out->stage, "pass %.*s %.*s: %s %.*s", (int)d, s, (int)(dot - pipe), pipe,
		 is_after ? "after" : "before", (int)(wn - (is_after ? 6 : 7)), what + (is_after ? 6 : 7));
	return 1;
}

/* Whether the rest of the body after the '.' at p is a stage. */
static int stage_at(const char *file, size_t body, const char *p, xla_dump_name *out)
{
	return *p == '.' && stage_of(p + 1, (size_t)(file + body - p - 1), out);
}

static const struct {
	const char *suffix;
	xla_dump_kind kind;
} kinds[] = {
	{"-buffer-assignment.txt", XD_BUFFER_ASSIGNMENT},
	{"-memory-usage-report.txt", XD_MEMORY_REPORT},
	{".gpu_target_config.pbtxt", XD_TARGET_CONFIG},
	{".autotune_results.pbtxt", XD_AUTOTUNE},
	{".hlo.pb", XD_HLO_PROTO},
	{".pb", XD_HLO_PROTO},
	{".txt", XD_HLO_TEXT},
};

int xla_dump_parse(const char *file, xla_dump_name *out)
{
	memset(out, 0, sizeof *out);
	size_t n = strlen(file), id = 7, body;
	if (ends_with(file, n, ".xz")) {
		out->compressed = 1;
		n -= 3;
	}
	body = n;
	out->kind = XD_OTHER;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (ends_with(file, n, kinds[k].suffix) && n > strlen(kinds[k].suffix)) {
			out->kind = kinds[k].kind;
			body = n - strlen(kinds[k].suffix);
			break;
		}
	int named = out->kind == XD_TARGET_CONFIG || out->kind == XD_AUTOTUNE; /* module by the whole prefix */
	if (strncmp(file, "module_", 7) != 0) {
		snprintf(out->module, sizeof out->module, "%.*s", (int)body, file);
		return named;   /* NAME.gpu_target_config.pbtxt belongs to module NAME */
	}
	while (id < n && isdigit((unsigned char)file[id]))
		id++;
	if (id < 11 || id >= n || file[id] != '.')
		return 0;
	if (named) {
		snprintf(out->module, sizeof out->module, "%.*s", (int)body, file);
		return 1;
	}
	/* The module's name runs to the first '.' whose rest is a stage; with
	 * no name (no such '.'), the stage follows the id. */
	const char *at = NULL;
	for (const char *p = file + id + 1; p < file + body && !at; p++)
		if (stage_at(file, body, p, out))
			at = p;
	if (!at && stage_at(file, body, file + id, out))
		at = file + id;
	if (at) {
		snprintf(out->module, sizeof out->module, "%.*s", (int)(at - file), file);
		if ((out->kind == XD_BUFFER_ASSIGNMENT || out->kind == XD_MEMORY_REPORT) &&
		    out->order != XD_AFTER_OPTIMIZATIONS)
			out->kind = XD_OTHER;
		return 1;
	}
	/* a dump file that belongs to no stage: its module is NNNN.NAME up to
	 * the next '.' */
	const char *name = file + id + 1, *end = name;
	while (end < file + body && *end != '.')
		end++;
	snprintf(out->module, sizeof out->module, "%.*s", (int)((end > name ? end : file + id) - file), file);
	out->kind = XD_OTHER;
	out->stage[0] = '\0';
	return 1;
}

int xla_dump_is_report(xla_dump_kind k)
{
	return k == XD_BUFFER_ASSIGNMENT || k == XD_MEMORY_REPORT || k == XD_TARGET_CONFIG || k == XD_AUTOTUNE;
}

const char *xla_dump_kind_name(xla_dump_kind k)
{
	switch (k) {
	case XD_HLO_TEXT: return "HLO text";
	case XD_HLO_PROTO: return "HLO protobuf";
	case XD_BUFFER_ASSIGNMENT: return "buffer assignment";
	case XD_MEMORY_REPORT: return "memory usage report";
	case XD_TARGET_CONFIG: return "GPU target config";
	case XD_AUTOTUNE: return "autotune results";
	case XD_OTHER: return "other";
	default: return "?";
	}
}
