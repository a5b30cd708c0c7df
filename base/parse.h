/* parse.h - numbers from text: command-line options, prompts, selectors.
 *
 * Strict: the whole text is the number, with no spaces around it and nothing
 * after it; "12abc", "", " 5" and "1e3" are not integers.  On failure *out is
 * left as it was.
 */
#ifndef HS_PARSE_H
#define HS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A decimal integer with an optional sign ("-12", "+7", "0"), in int64_t
 * range.  0, or -1 when s is NULL, empty, not such an integer or out of
 * range. */
int hs_parse_i64(const char *s, int64_t *out);

/* The same for the n bytes at s (s need not end there): for pieces of a
 * list such as "1,5,9-12". */
int hs_parse_i64n(const char *s, size_t n, int64_t *out);

/* A finite decimal number as strtod reads it ("0.25", "-3", "1e-4"); not
 * "inf", "nan" or a hexadecimal float.  0, or -1. */
int hs_parse_double(const char *s, double *out);

#endif
