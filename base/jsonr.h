/* jsonr.h - reading JSON: a whole document into a tree.
 *
 *     jsonr_doc d;
 *     if (jsonr_parse(text, n, &d, &err) != 0) ... err: "byte 123: ..." ...
 *     const jsonr_value *root = d.root;
 *     for (size_t i = 0; root->type == JR_OBJECT && i < root->n; i++)
 *             use(root->keys[i], &root->items[i]);
 *     jsonr_free(&d);
 *
 * RFC 8259: objects, arrays, strings (escapes and \uXXXX with surrogate
 * pairs decoded to UTF-8; a \u0000 is refused, strings are C strings),
 * numbers (as double, text kept), true, false, null.  Duplicate keys are
 * kept in order.  Nesting deeper than JSONR_MAX_DEPTH is refused.  Errors
 * are HS_EDATA with the byte offset of the problem.
 */
#ifndef HS_JSONR_H
#define HS_JSONR_H

#include <stddef.h>

#include "base/error.h"

#define JSONR_MAX_DEPTH 128

typedef enum jsonr_type { JR_NULL, JR_FALSE, JR_TRUE, JR_NUMBER, JR_STRING, JR_ARRAY, JR_OBJECT } jsonr_type;

typedef struct jsonr_value {
	jsonr_type type;
	double num;                  /* JR_NUMBER */
	char *str;                   /* JR_STRING (decoded), JR_NUMBER (as written) */
	size_t n;                    /* JR_ARRAY, JR_OBJECT: members */
	struct jsonr_value *items;   /* [n] */
	char **keys;                 /* JR_OBJECT: [n] */
	size_t offset;               /* byte where the value starts */
} jsonr_value;

typedef struct jsonr_doc {
	jsonr_value *root;
	void *mem;                   /* the allocations, freed by jsonr_free */
} jsonr_doc;

int jsonr_parse(const char *text, size_t n, jsonr_doc *out, hs_error *err);
void jsonr_free(jsonr_doc *d);
/* Member `key` of an object, or NULL. */
const jsonr_value *jsonr_get(const jsonr_value *obj, const char *key);

#endif
