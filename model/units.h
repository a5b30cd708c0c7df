/* units.h - times as every command and view writes them.
 *
 * A time in nanoseconds is written in the unit its size calls for (ns,
 * us, ms, s: the measured runtimes' convention), so a predicted time reads
 * like a measured one: "23.271 s", "983 ns", "+1.250 ms".
 */
#ifndef HS_UNITS_H
#define HS_UNITS_H

#include <stddef.h>

/* "-" for NAN; else value / unit with `decimals` decimals in us, ms and s
 * (whole numbers in ns).  Like snprintf, always terminated when cap > 0. */
void units_ns(char *buf, size_t cap, double ns, int decimals);

/* The same with a sign: "+983 ns", "-1.250 ms", "0 ns". */
void units_ns_signed(char *buf, size_t cap, double ns, int decimals);

/* The fewest decimals in [lo, hi] with which units_ns writes every two
 * different values of v[0..n) differently (hi if none suffices).  Runtimes
 * that differ by less than a thousandth of their unit (23.2706 s and
 * 23.2706 s) need more than the usual 3.  -1 when out of memory (never
 * for n <= 64). */
int units_decimals(const double *v, size_t n, int lo, int hi);

#endif
