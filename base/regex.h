/* regex.h - regular expressions that cannot run away: PCRE2 with bounded
 * time and memory.
 *
 *     hs_regex *re = hs_regex_new("^fusion\\.[0-9]+$", HS_REGEX_ICASE, NULL, err);
 *     hs_regex_scratch *sc = hs_regex_scratch_new(err);   // one per thread
 *     int hit = hs_regex_match(re, text, strlen(text), sc, err);  // 1, 0 or -1
 *     hs_regex_scratch_free(sc);
 *     hs_regex_free(re);
 *
 * The syntax is PCRE2's (Perl-compatible: `\d`, `\b`, `(?:...)`, lazy and
 * possessive repeats, lookaround, `[[:alpha:]]`), a match anywhere in the
 * text (`^` and `$` anchor), bytes rather than UTF-8 characters.  Every
 * pattern is compiled under the limits below and JIT-compiled where the
 * machine allows (else it is interpreted: the same answers, slower).
 *
 * A compiled pattern is read-only and may be shared by threads; a scratch
 * (match data, JIT stack, the match limits) belongs to one thread at a
 * time.  A match that hits a limit fails with HS_EUSAGE saying which: the
 * pattern asks too much of that text, and no answer is given rather than a
 * wrong one.  A failed allocation is HS_ENOMEM.
 */
#ifndef HS_REGEX_H
#define HS_REGEX_H

#include <stddef.h>

#include "base/error.h"

/* Pattern limits, checked when it is compiled. */
#define HS_REGEX_MAX_LENGTH 4096     /* bytes of pattern */
#define HS_REGEX_MAX_NEST 64         /* parentheses inside each other */
/* Match limits, per match of one text.  The match limit counts PCRE2's
 * steps of backtracking from one start position (a plain pattern over a
 * name takes tens); the depth limit the backtracking points held at once;
 * the heap limit the memory they take. */
#define HS_REGEX_MATCH_LIMIT 1000000
#define HS_REGEX_DEPTH_LIMIT 100000
#define HS_REGEX_HEAP_LIMIT_KB 20480 /* 20 MB */

enum {
	HS_REGEX_ICASE = 1, /* letters match either case (ASCII) */
};

typedef struct hs_regex hs_regex;
typedef struct hs_regex_scratch hs_regex_scratch;

/* Compiles `pattern` (NUL-terminated).  NULL with err set: HS_EUSAGE with
 * PCRE2's reason for a bad pattern ("missing closing parenthesis") or the
 * limit it exceeds, *where (when not NULL) the byte of the pattern it names;
 * HS_ENOMEM when out of memory. */
hs_regex *hs_regex_new(const char *pattern, int flags, size_t *where, hs_error *err);
void hs_regex_free(hs_regex *re);

/* What one thread needs to match: NULL with err (HS_ENOMEM) set. */
hs_regex_scratch *hs_regex_scratch_new(hs_error *err);
void hs_regex_scratch_free(hs_regex_scratch *sc);

/* 1 when re matches somewhere in s[0, n), 0 when not; -1 with err set when
 * it cannot tell: HS_EUSAGE "needs more than the match limit (1,000,000
 * steps)" (or the depth or heap limit), HS_ENOMEM when out of memory. */
int hs_regex_match(const hs_regex *re, const char *s, size_t n, hs_regex_scratch *sc,
		   hs_error *err);

/* 1 when this PCRE2 has its JIT compiler (hloscope --version). */
int hs_regex_jit(void);

/* The PCRE2 version ("10.42") into out[cap]; for --version. */
void hs_regex_version(char *out, size_t cap);

#endif
