/* units.h - one way to show a number, and to read it back.
 *
 * A number with a unit is written in the largest step it reaches, with the
 * step's suffix: durations ("23.271 s", "1.234 ms", "861 us", "983 ns"),
 * sizes in decimal units ("2.1 GB", "512 B"), FLOP counts ("1.5 GFLOP") and
 * percentages ("24.6%").  The same suffixes read back (hs_unit_parse: "12
 * us", "1.5ms", "2.1GB", and the binary KiB ... TiB), so a filter on a
 * column takes what the column shows.  Plain numbers have three forms:
 * with thousands separators ("1,234,567"), exact (the shortest text that
 * reads back to the same double) and short (6 significant digits).
 *
 * Every function writes like snprintf: at most cap bytes, terminated when
 * cap > 0, and returns the length it wanted.
 */
#ifndef HS_UNITS_H
#define HS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* What a number counts.  Durations come in two bases, nanoseconds
 * (runtimes, predictions) and seconds (analytic costs): "12 us" is 12000
 * of the one and 1.2e-5 of the other. */
enum hs_unit {
	HS_U_NONE,    /* plain numbers: "12", "0.5432" */
	HS_U_NS,      /* nanoseconds: "23.271 s", "1.234 ms", "983 ns" */
	HS_U_SECONDS, /* seconds: "861 us", "1.5 ms" */
	HS_U_BYTES,   /* "2.1 GB", "512 B" (reads kB, MB, GB, TB, KiB, MiB, GiB, TiB, bytes) */
	HS_U_FLOP,    /* "1.5 GFLOP" (kFLOP, MFLOP, GFLOP, TFLOP, PFLOP; reads a plural s) */
	HS_U_PERCENT, /* "24.6%" */
	HS_NUNITS
};

/* v (in the unit's base: ns, s, bytes, FLOP, percent) in the largest step
 * it reaches; "-" for NaN, "0 ns" for a zero duration.  decimals < 0: the
 * unit's own default: nanoseconds with 3 decimals in us, ms and s and whole
 * in ns (the measured runtimes' convention), seconds, sizes and FLOP counts
 * with 3 significant digits, percentages with 1 decimal, plain numbers
 * whole when whole, else 4 significant digits.  decimals >= 0: that many
 * decimals in every step but the smallest (ns, B, FLOP: whole numbers), as
 * a table needs to tell its values apart (hs_unit_decimals).  Below one of
 * the smallest step, 3 significant digits ("0.25 ns"). */
int hs_unit_format(char *buf, size_t cap, int unit, double v, int decimals);
/* The same with a sign: "+983 ns", "-1.250 ms", "0 ns". */
int hs_unit_format_signed(char *buf, size_t cap, int unit, double v, int decimals);
/* The fewest decimals in [lo, hi] with which hs_unit_format writes every
 * two different finite values of v[0, n) differently (hi if none does):
 * runtimes that differ by less than a thousandth of their step (23.2706 s
 * and 23.2707 s) need more than the usual 3.  -1 when out of memory
 * (never for n <= 64). */
int hs_unit_decimals(int unit, const double *v, size_t n, int lo, int hi);

/* A number with an optional suffix of the unit ("12 us", "1ms", "2.1GB",
 * "5%"; a bare number is in the base unit; suffixes ignore case; spaces
 * around) into *out in the base unit.  0, or -1 when s is no such number. */
int hs_unit_parse(const char *s, int unit, double *out);
/* The length of a unit's suffix at the start of s[0, n) (of any unit:
 * "us", "GB", "%"), 0 when none is there or a word goes on: a lexer's "12us". */
size_t hs_unit_suffix(const char *s, size_t n);
/* "a duration", "a size"... and an example ("12 us, 1.5 ms"), for messages. */
const char *hs_unit_what(int unit);
const char *hs_unit_example(int unit);

/* "1,234,567", "-12,000". */
int hs_num_thousands(char *buf, size_t cap, int64_t v);
/* The shortest text that reads back to the same double ("%.17g" at most);
 * integers without a fraction; "nan", "inf", "-inf". */
int hs_num_exact(char *buf, size_t cap, double v);
/* For aligned tables: integers exactly, else 6 significant digits; "nan",
 * "inf", "-inf". */
int hs_num_short(char *buf, size_t cap, double v);

#endif
