/* regex.c - see regex.h.  The one place that calls PCRE2. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/regex.h"

struct hs_regex {
	pcre2_code *code;
	int jit; /* JIT-compiled: pcre2_match runs the machine code */
};

struct hs_regex_scratch {
	pcre2_match_data *md;
	pcre2_match_context *mc;  /* the limits */
	pcre2_jit_stack *stack;   /* NULL: the JIT's 32 KB on the machine stack */
};

/* The JIT stack of a scratch: it starts small and grows up to its maximum;
 * a match that needs more is run again by the interpreter, under its own
 * depth and heap limits. */
#define JIT_STACK_START (32 * 1024)
#define JIT_STACK_MAX (1024 * 1024)

/* n with a comma every three digits: "1,000,000". */
static const char *grouped(long n, char *buf, size_t cap)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%ld", n), o = 0;

	for (int i = 0; i < len && (size_t)o + 2 < cap; i++) {
		buf[o++] = digits[i];
		if (digits[i] != '-' && (len - i - 1) % 3 == 0 && i < len - 1)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

/* The largest compiled pattern PCRE2 holds, in KB, from its link size. */
static long compiled_max_kb(void)
{
	uint32_t link = 2;

	pcre2_config(PCRE2_CONFIG_LINKSIZE, &link);
	return link >= 4 ? 4L << 20 : link == 3 ? 16L << 10 : 64;
}

static int compile_fail(int code, hs_error *err)
{
	char a[32], msg[256];

	switch (code) {
	case PCRE2_ERROR_HEAP_FAILED:
		return hs_fail(err, HS_ENOMEM, "out of memory compiling a regular expression");
	case PCRE2_ERROR_PATTERN_STRING_TOO_LONG:
		return hs_fail(err, HS_EUSAGE, "longer than the limit of %s bytes",
			       grouped(HS_REGEX_MAX_LENGTH, a, sizeof a));
	case PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP:
		return hs_fail(err, HS_EUSAGE, "parentheses nested deeper than the limit of %d",
			       HS_REGEX_MAX_NEST);
	case PCRE2_ERROR_PATTERN_TOO_LARGE:
		return hs_fail(err, HS_EUSAGE, "too large once its repeats are written out (PCRE2's "
			       "limit: %s KB of compiled pattern)", grouped(compiled_max_kb(), a, sizeof a));
	default:
		if (pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, sizeof msg) < 0)
			snprintf(msg, sizeof msg, "PCRE2 error %d", code);
		return hs_fail(err, HS_EUSAGE, "%s", msg);
	}
}

hs_regex *hs_regex_new(const char *pattern, int flags, size_t *where, hs_error *err)
{
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	hs_regex *re;
	int code = 0;
	PCRE2_SIZE off = 0;

	if (where)
		*where = 0;
	if (!cc) {
		hs_fail(err, HS_ENOMEM, "out of memory compiling a regular expression");
		return NULL;
	}
	pcre2_set_max_pattern_length(cc, HS_REGEX_MAX_LENGTH);
	pcre2_set_parens_nest_limit(cc, HS_REGEX_MAX_NEST);
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
				      flags & HS_REGEX_ICASE ? PCRE2_CASELESS : 0, &code, &off, cc);
	pcre2_compile_context_free(cc);
	if (!c) {
		/* the size limits are the whole pattern's, not a place's */
		if (where && code != PCRE2_ERROR_PATTERN_TOO_LARGE &&
		    code != PCRE2_ERROR_PATTERN_STRING_TOO_LONG)
			*where = off;
		compile_fail(code, err);
		return NULL;
	}
	if (!(re = malloc(sizeof *re))) {
		pcre2_code_free(c);
		hs_fail(err, HS_ENOMEM, "out of memory compiling a regular expression");
		return NULL;
	}
	re->code = c;
	/* The JIT is a speed-up: where it cannot run (no executable memory,
	 * none left) the interpreter gives the same answers. */
	re->jit = pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) == 0;
	return re;
}

void hs_regex_free(hs_regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	free(re);
}

hs_regex_scratch *hs_regex_scratch_new(hs_error *err)
{
	hs_regex_scratch *sc = calloc(1, sizeof *sc);

	if (!sc || !(sc->md = pcre2_match_data_create(1, NULL)) ||
	    !(sc->mc = pcre2_match_context_create(NULL))) {
		hs_regex_scratch_free(sc);
		hs_fail(err, HS_ENOMEM, "out of memory matching a regular expression");
		return NULL;
	}
	pcre2_set_match_limit(sc->mc, HS_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(sc->mc, HS_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(sc->mc, HS_REGEX_HEAP_LIMIT_KB);
	if (hs_regex_jit() && (sc->stack = pcre2_jit_stack_create(JIT_STACK_START, JIT_STACK_MAX, NULL)))
		pcre2_jit_stack_assign(sc->mc, NULL, sc->stack);
	return sc;
}

void hs_regex_scratch_free(hs_regex_scratch *sc)
{
	if (!sc)
		return;
	pcre2_jit_stack_free(sc->stack);
	pcre2_match_context_free(sc->mc);
	pcre2_match_data_free(sc->md);
	free(sc);
}

static int match_fail(int code, hs_error *err)
{
	char a[32], msg[256];

	switch (code) {
	case PCRE2_ERROR_MATCHLIMIT:
		return hs_fail(err, HS_EUSAGE, "needs more than the match limit (%s steps)",
			       grouped(HS_REGEX_MATCH_LIMIT, a, sizeof a));
	case PCRE2_ERROR_DEPTHLIMIT:
		return hs_fail(err, HS_EUSAGE, "needs more than the depth limit (%s backtracking points)",
			       grouped(HS_REGEX_DEPTH_LIMIT, a, sizeof a));
	case PCRE2_ERROR_HEAPLIMIT:
		return hs_fail(err, HS_EUSAGE, "needs more than the heap limit (%s KB)",
			       grouped(HS_REGEX_HEAP_LIMIT_KB, a, sizeof a));
	case PCRE2_ERROR_NOMEMORY:
		return hs_fail(err, HS_ENOMEM, "out of memory matching a regular expression");
	default:
		if (pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, sizeof msg) < 0)
			snprintf(msg, sizeof msg, "PCRE2 error %d", code);
		return hs_fail(err, HS_EUSAGE, "cannot be matched: %s", msg);
	}
}

int hs_regex_match(const hs_regex *re, const char *s, size_t n, hs_regex_scratch *sc,
		   hs_error *err)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, sc->md, sc->mc);

	/* The JIT counts its match limit its own way and has a stack of its
	 * own: what it gives up on, the interpreter decides under the limits
	 * every machine has. */
	if (re->jit && (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT))
		rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, PCRE2_NO_JIT, sc->md, sc->mc);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return match_fail(rc, err);
}

int hs_regex_jit(void)
{
	uint32_t on = 0;

	pcre2_config(PCRE2_CONFIG_JIT, &on);
	return on != 0;
}

void hs_regex_version(char *out, size_t cap)
{
	char v[64] = "";

	pcre2_config(PCRE2_CONFIG_VERSION, v);
	snprintf(out, cap, "%.*s", (int)strcspn(v, " "), v);
}
