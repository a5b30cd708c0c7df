/* plural.h - counts with their nouns: "1 node", "2 nodes", "0 nodes".
 *
 *   printf("%lld node%s", n, hs_s(n));
 *   printf("%lld %s", n, hs_plural(n, "entry", "entries"));
 *
 * One rule for every message: the singular for exactly 1, else the plural.
 * The strings returned are borrowed (static, or one of the arguments).
 */
#ifndef HS_PLURAL_H
#define HS_PLURAL_H

/* "" for 1, "s" otherwise: the ending of a regular plural. */
const char *hs_s(long long n);

/* `one` for 1, `many` otherwise. */
const char *hs_plural(long long n, const char *one, const char *many);

#endif
