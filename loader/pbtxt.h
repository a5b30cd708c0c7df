/* pbtxt.h - the protobuf text format, as XLA writes its *.pbtxt files (the
 * GPU target config, autotune results), read as fields by their path.
 *
 *   message := field*
 *   field   := NAME [':'] (scalar | '[' scalar (',' scalar)* ']')
 *            | NAME [':'] ('{' message '}' | '<' message '>')
 *   scalar  := a number, an identifier (an enum, true), or strings in '"'
 *              or "'" with C escapes, adjacent strings joined
 *   '#' starts a comment to the end of the line; ',' or ';' may end a field.
 *
 * Each scalar is given to `fn` with its path ("gpu_device_info.core_count")
 * and its text (a string unescaped; a number as written); each message
 * field once as it opens, with value NULL.  No schema: what the caller does
 * not know it skips.
 *
 * Errors: HS_EDATA "NAME:LINE:COLUMN: what was expected, found 'token'";
 * messages nested deeper than PBTXT_MAX_DEPTH are refused.  A nonzero
 * return of `fn` stops the reading with its error.
 */
#ifndef HS_PBTXT_H
#define HS_PBTXT_H

#include <stddef.h>

#include "base/error.h"

#define PBTXT_MAX_DEPTH 64

typedef int (*pbtxt_fn)(void *ctx, const char *path, const char *value, size_t len, hs_error *err);

/* Reads text[0, n); `name` for messages.  0, or -1 with err set. */
int pbtxt_read(const char *text, size_t n, const char *name, pbtxt_fn fn, void *ctx, hs_error *err);

#endif
