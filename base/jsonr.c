/* jsonr.c - see jsonr.h: a recursive-descent reader into an arena. */
#include "jsonr.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/vec.h"

typedef struct rd {
	const char *s;
	size_t n, i;
	int depth;
	hs_arena *a;
	hs_error *err;
} rd;

static int fail(rd *r, size_t at, const char *what)
{
	return hs_fail(r->err, HS_EDATA, "byte %zu: %s", at, what);
}

static int oom(rd *r)
{
	return hs_fail(r->err, HS_ENOMEM, "out of memory reading JSON");
}

static void skip_ws(rd *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' ||
			       r->s[r->i] == '\r'))
		r->i++;
}

static int hex4(rd *r, unsigned *out)
{
	*out = 0;
	if (r->n - r->i < 4)
		return fail(r, r->i, "a \\u escape needs 4 hex digits");
	for (int k = 0; k < 4; k++) {
		char c = r->s[r->i++];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d > 15)
			return fail(r, r->i - 1, "a \\u escape needs 4 hex digits");
		*out = *out * 16 + d;
	}
	return 0;
}

static void put_utf8(char *o, size_t *k, unsigned cp)
{
	if (cp < 0x80) {
		o[(*k)++] = (char)cp;
	} else if (cp < 0x800) {
		o[(*k)++] = (char)(0xc0 | cp >> 6);
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		o[(*k)++] = (char)(0xe0 | cp >> 12);
		o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*k)++] = (char)(0xf0 | cp >> 18);
		o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* A string at r->s[r->i] == '"', decoded into the arena (never longer
 * than its written form). */
static int string(rd *r, char **out)
{
	size_t start = r->i++, k = 0, end = r->i;
	while (end < r->n && r->s[end] != '"')
		end += r->s[end] == '\\' ? 2 : 1;
	if (end >= r->n)
		return fail(r, start, "a string is not closed");
	char *o = hs_arena_alloc(r->a, end - r->i + 1);
	if (!o)
		return oom(r);
	while (r->i < end) {
		unsigned char c = (unsigned char)r->s[r->i++];
		if (c < 0x20)
			return fail(r, r->i - 1, "a control character in a string");
		if (c != '\\') {
			o[k++] = (char)c;
			continue;
		}
		char e = r->s[r->i++];
		const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *p = strchr(from, e);
		if (p && e) {
			o[k++] = to[p - from];
			continue;
		}
		if (e != 'u')
			return fail(r, r->i - 2, "an unknown escape in a string");
		unsigned cp, lo;
		if (hex4(r, &cp) != 0)
			return -1;
		if (cp >= 0xd800 && cp < 0xdc00) {
			if (r->n - r->i < 6 || r->s[r->i] != '\\' || r->s[r->i + 1] != 'u')
				return fail(r, r->i, "a lone surrogate in a string");
			r->i += 2;
			if (hex4(r, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000)
				return fail(r, r->i, "a lone surrogate in a string");
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp < 0xe000) {
			return fail(r, r->i - 6, "a lone surrogate in a string");
		}
		if (cp == 0)
			return fail(r, r->i - 6, "\\u0000 in a string");
		put_utf8(o, &k, cp);
	}
	o[k] = '\0';
	r->i = end + 1;
	*out = o;
	return 0;
}

static int number(rd *r, jsonr_value *v)
{
	size_t start = r->i;
	if (r->i < r->n && r->s[r->i] == '-')
		r->i++;
	if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9'))
		return fail(r, start, "expected a value");
	if (r->s[r->i] == '0')
		r->i++;
	else
		while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
			r->i++;
	if (r->i < r->n && r->s[r->i] == '.') {
		size_t d = ++r->i;
		while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
			r->i++;
		if (r->i == d)
			return fail(r, d, "a digit after the decimal point");
	}
	if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		size_t d = r->i;
		while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
			r->i++;
		if (r->i == d)
			return fail(r, d, "a digit in the exponent");
	}
	if (!(v->str = hs_arena_strndup(r->a, r->s + start, r->i - start)))
		return oom(r);
	v->type = JR_NUMBER;
	v->num = strtod(v->str, NULL);
	return 0;
}

static int value(rd *r, jsonr_value *v);

/* The members of an array or object: a vector, then copied to the arena. */
static int members(rd *r, jsonr_value *v, int object)
{
	HS_VEC(jsonr_value) items = {0};
	HS_VEC(char *) keys = {0};
	char close = object ? '}' : ']';
	int rc = -1;
	r->i++;
	if (++r->depth > JSONR_MAX_DEPTH) {
		fail(r, r->i - 1, "nested too deep");
		goto done;
	}
	skip_ws(r);
	if (r->i < r->n && r->s[r->i] == close) {
		r->i++;
	} else {
		for (;;) {
			char *key = NULL;
			jsonr_value item = {0};
			skip_ws(r);
			if (object) {
				if (r->i >= r->n || r->s[r->i] != '"') {
					fail(r, r->i, "expected a key (a string)");
					goto done;
				}
				if (string(r, &key) != 0)
					goto done;
				skip_ws(r);
				if (r->i >= r->n || r->s[r->i] != ':') {
					fail(r, r->i, "expected ':' after the key");
					goto done;
				}
				r->i++;
			}
			if (value(r, &item) != 0)
				goto done;
			if (hs_vec_push(&items, item) != 0 || (object && hs_vec_push(&keys, key) != 0)) {
				oom(r);
				goto done;
			}
			skip_ws(r);
			if (r->i < r->n && r->s[r->i] == ',') {
				r->i++;
				continue;
			}
			if (r->i < r->n && r->s[r->i] == close) {
				r->i++;
				break;
			}
			fail(r, r->i, object ? "expected ',' or '}'" : "expected ',' or ']'");
			goto done;
		}
	}
	v->type = object ? JR_OBJECT : JR_ARRAY;
	v->n = items.n;
	if (items.n) {
		v->items = hs_arena_array(r->a, items.n, sizeof *v->items);
		v->keys = object ? hs_arena_array(r->a, items.n, sizeof *v->keys) : NULL;
		if (!v->items || (object && !v->keys)) {
			oom(r);
			goto done;
		}
		memcpy(v->items, items.v, hs_vec_bytes(&items));
		if (object)
			memcpy(v->keys, keys.v, hs_vec_bytes(&keys));
	}
	r->depth--;
	rc = 0;
done:
	hs_vec_free(&items);
	hs_vec_free(&keys);
	return rc;
}

static int word(rd *r, const char *w, jsonr_type t, jsonr_value *v)
{
	size_t k = strlen(w);
	if (r->n - r->i < k || memcmp(r->s + r->i, w, k) != 0)
		return fail(r, r->i, "expected a value");
	r->i += k;
	v->type = t;
	return 0;
}

static int value(rd *r, jsonr_value *v)
{
	skip_ws(r);
	memset(v, 0, sizeof *v);
	v->offset = r->i;
	if (r->i >= r->n)
		return fail(r, r->i, "expected a value, found the end");
	switch (r->s[r->i]) {
	case '{': return members(r, v, 1);
	case '[': return members(r, v, 0);
	case '"':
		v->type = JR_STRING;
		return string(r, &v->str);
	case 't': return word(r, "true", JR_TRUE, v);
	case 'f': return word(r, "false", JR_FALSE, v);
	case 'n': return word(r, "null", JR_NULL, v);
	default: return number(r, v);
	}
}

int jsonr_parse(const char *text, size_t n, jsonr_doc *out, hs_error *err)
{
	hs_arena *a = calloc(1, sizeof *a);
	memset(out, 0, sizeof *out);
	if (!a)
		return hs_fail(err, HS_ENOMEM, "out of memory reading JSON");
	rd r = {text, n, 0, 0, a, err};
	jsonr_value *root = hs_arena_alloc(a, sizeof *root);
	if (!root) {
		oom(&r);
	} else if (value(&r, root) == 0) {
		skip_ws(&r);
		if (r.i == n) {
			out->root = root;
			out->mem = a;
			return 0;
		}
		fail(&r, r.i, "text after the value");
	}
	hs_arena_free(a);
	free(a);
	return -1;
}

void jsonr_free(jsonr_doc *d)
{
	if (d->mem) {
		hs_arena_free(d->mem);
		free(d->mem);
	}
	memset(d, 0, sizeof *d);
}

const jsonr_value *jsonr_get(const jsonr_value *obj, const char *key)
{
	if (!obj || obj->type != JR_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}
