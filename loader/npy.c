/* npy.c - parse and write .npy headers, decode array data. */
#include "npy.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	char kind;
	size_t size;
	const char *name;
} dtypes[NPY_NDTYPES] = {
	[NPY_BOOL] = {'b', 1, "b1"}, [NPY_I1] = {'i', 1, "i1"}, [NPY_U1] = {'u', 1, "u1"},
	[NPY_I2] = {'i', 2, "i2"},   [NPY_U2] = {'u', 2, "u2"}, [NPY_I4] = {'i', 4, "i4"},
	[NPY_U4] = {'u', 4, "u4"},   [NPY_I8] = {'i', 8, "i8"}, [NPY_U8] = {'u', 8, "u8"},
	[NPY_F2] = {'f', 2, "f2"},   [NPY_F4] = {'f', 4, "f4"}, [NPY_F8] = {'f', 8, "f8"},
};

size_t npy_dtype_size(npy_dtype t) { return dtypes[t].size; }
const char *npy_dtype_name(npy_dtype t) { return dtypes[t].name; }
int npy_dtype_is_float(npy_dtype t) { return dtypes[t].kind == 'f'; }

#define MAGIC "\x93NUMPY"
#define MAX_HEADER (1u << 20) /* numpy itself caps headers far below this */

size_t npy_header_length(const uint8_t *buf, size_t n, hs_error *err)
{
	if (n < 10 || memcmp(buf, MAGIC, 6) != 0)
		return hs_fail(err, HS_EDATA, "byte 0: not a .npy array (bad magic)"), 0;
	int major = buf[6];
	if (major == 1 && buf[7] == 0) { /* numpy reads 1.0, 2.0 and 3.0 only */
		return 10 + (size_t)(buf[8] | buf[9] << 8);
	} else if ((major == 2 || major == 3) && buf[7] == 0) {
		if (n < 12)
			return hs_fail(err, HS_EDATA, "byte %zu: header ends early", n), 0;
		uint32_t len = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 |
			       (uint32_t)buf[10] << 16 | (uint32_t)buf[11] << 24;
		if (len > MAX_HEADER)
			return hs_fail(err, HS_EDATA, "byte 8: header length %u is not plausible",
				       len), 0;
		return 12 + (size_t)len;
	}
	return hs_fail(err, HS_EDATA, "byte 6: unsupported .npy format version %d.%d", major,
		       buf[7]), 0;
}

/* A tiny parser for the Python dict literal in the header. */
struct hp {
	const char *s, *end, *base;
	size_t base_off; /* file offset of s[0] relative to the .npy start */
	hs_error *err;
};

static void hp_ws(struct hp *p)
{
	while (p->s < p->end && isspace((unsigned char)*p->s))
		p->s++;
}

static size_t hp_off(const struct hp *p) { return p->base_off + (size_t)(p->s - p->base); }

static int hp_expect(struct hp *p, char c)
{
	hp_ws(p);
	if (p->s >= p->end || *p->s != c)
		return hs_fail(p->err, HS_EDATA, "byte %zu: header: expected '%c'", hp_off(p), c);
	p->s++;
	return 0;
}

static int hp_string(struct hp *p, char *out, size_t cap)
{
	hp_ws(p);
	if (p->s >= p->end || (*p->s != '\'' && *p->s != '"'))
		return hs_fail(p->err, HS_EDATA, "byte %zu: header: expected a string", hp_off(p));
	char q = *p->s++;
	size_t n = 0;
	while (p->s < p->end && *p->s != q) {
		if (n + 1 < cap)
			out[n++] = *p->s;
		p->s++;
	}
	if (p->s >= p->end)
		return hs_fail(p->err, HS_EDATA, "byte %zu: header: unterminated string", hp_off(p));
	p->s++;
	out[n] = '\0';
	return 0;
}

static int parse_descr(struct hp *p, const char *d, npy_header *h)
{
	char order = d[0];
	const char *t = d;
	if (order == '<' || order == '>' || order == '|' || order == '=')
		t++;
	else
		order = '=';
	if (strcmp(t, "O") == 0 || t[0] == 'O')
		return hs_fail(p->err, HS_EDATA,
			       "object arrays (pickled Python objects, dtype '%s') are refused: "
			       "hloscope reads numeric arrays only", d);
	if (strcmp(t, "?") == 0)
		t = "b1";
	for (int i = 0; i < NPY_NDTYPES; i++) {
		if (strcmp(t, dtypes[i].name) == 0) {
			h->dtype = (npy_dtype)i;
			h->itemsize = dtypes[i].size;
			h->big_endian = order == '>';
			return 0;
		}
	}
	return hs_fail(p->err, HS_EDATA, "unsupported dtype '%s' (numeric b1, i1-i8, u1-u8, f2-f8 only)",
		       d);
}

static int parse_shape(struct hp *p, npy_header *h)
{
	if (hp_expect(p, '('))
		return -1;
	h->ndim = 0;
	for (;;) {
		hp_ws(p);
		if (p->s < p->end && *p->s == ')') {
			p->s++;
			return 0;
		}
		if (p->s >= p->end || !isdigit((unsigned char)*p->s))
			return hs_fail(p->err, HS_EDATA, "byte %zu: header: bad shape entry",
				       hp_off(p));
		uint64_t v = 0;
		while (p->s < p->end && isdigit((unsigned char)*p->s)) {
			if (v > (UINT64_C(1) << 62) / 10)
				return hs_fail(p->err, HS_EDATA,
					       "byte %zu: header: shape dimension too large", hp_off(p));
			v = v * 10 + (uint64_t)(*p->s++ - '0');
		}
		hp_ws(p);
		if (p->s < p->end && *p->s == 'L') /* Python 2 longs */
			p->s++;
		if (h->ndim >= NPY_MAXDIM)
			return hs_fail(p->err, HS_EDATA, "header: more than %d dimensions", NPY_MAXDIM);
		h->shape[h->ndim++] = (int64_t)v;
		hp_ws(p);
		if (p->s < p->end && *p->s == ',')
			p->s++;
	}
}

int npy_parse_header(const uint8_t *buf, size_t n, npy_header *h, hs_error *err)
{
	memset(h, 0, sizeof *h);
	size_t total = npy_header_length(buf, n, err);
	if (!total)
		return -1;
	if (total > n)
		return hs_fail(err, HS_EDATA, "byte %zu: header claims %zu bytes, only %zu present",
			       n, total, n);
	h->major = buf[6];
	h->minor = buf[7];
	size_t start = h->major == 1 ? 10 : 12;
	struct hp p = {(const char *)buf + start, (const char *)buf + total,
		       (const char *)buf + start, start, err};
	char key[64], descr[64] = "";
	int have_descr = 0, have_order = 0, have_shape = 0;

	if (hp_expect(&p, '{'))
		return -1;
	for (;;) {
		hp_ws(&p);
		if (p.s < p.end && *p.s == '}')
			break;
		if (hp_string(&p, key, sizeof key) || hp_expect(&p, ':'))
			return -1;
		hp_ws(&p);
		if (!strcmp(key, "descr")) {
			if (p.s < p.end && *p.s == '[')
				return hs_fail(err, HS_EDATA,
					       "structured dtypes (record arrays) are refused");
			if (hp_string(&p, descr, sizeof descr))
				return -1;
			have_descr = 1;
		} else if (!strcmp(key, "fortran_order")) {
			if ((size_t)(p.end - p.s) >= 4 && !memcmp(p.s, "True", 4)) {
				h->fortran_order = 1;
				p.s += 4;
			} else if ((size_t)(p.end - p.s) >= 5 && !memcmp(p.s, "False", 5)) {
				h->fortran_order = 0;
				p.s += 5;
			} else
				return hs_fail(err, HS_EDATA,
					       "byte %zu: header: fortran_order must be True or False",
					       hp_off(&p));
			have_order = 1;
		} else if (!strcmp(key, "shape")) {
			if (parse_shape(&p, h))
				return -1;
			have_shape = 1;
		} else {
			return hs_fail(err, HS_EDATA, "byte %zu: header: unexpected key '%s'",
				       hp_off(&p), key);
		}
		hp_ws(&p);
		if (p.s < p.end && *p.s == ',') {
			p.s++;
			continue;
		}
		if (hp_expect(&p, '}'))
			return -1;
		break;
	}
	if (!have_descr || !have_order || !have_shape)
		return hs_fail(err, HS_EDATA, "header: missing '%s'",
			       !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
	if (parse_descr(&p, descr, h))
		return -1;

	uint64_t count = 1;
	for (int i = 0; i < h->ndim; i++) {
		uint64_t d = (uint64_t)h->shape[i];
		if (d && count > (UINT64_C(1) << 62) / d)
			return hs_fail(err, HS_EDATA,
				       "byte %zu: shape claims more than 2^62 elements", start);
		count *= d;
	}
	if (count && h->itemsize > (UINT64_C(1) << 62) / count)
		return hs_fail(err, HS_EDATA, "byte %zu: shape claims more than 2^62 bytes", start);
	h->count = count;
	h->data_offset = total;
	return 0;
}

static void swap_bytes(uint8_t *p, size_t itemsize, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++, p += itemsize)
		for (size_t a = 0, b = itemsize - 1; a < b; a++, b--) {
			uint8_t t = p[a];
			p[a] = p[b];
			p[b] = t;
		}
}

static int host_big_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 0;
}

uint64_t npy_c_to_f_index(const npy_header *h, uint64_t c_index)
{
	uint64_t f = 0, stride = 1, rem = c_index;
	uint64_t idx[NPY_MAXDIM];
	for (int k = h->ndim - 1; k >= 0; k--) {
		uint64_t d = (uint64_t)h->shape[k];
		idx[k] = d ? rem % d : 0;
		rem = d ? rem / d : 0;
	}
	for (int k = 0; k < h->ndim; k++) {
		f += idx[k] * stride;
		stride *= (uint64_t)h->shape[k];
	}
	return f;
}

void npy_decode(const npy_header *h, const void *src, void *dst)
{
	size_t is = h->itemsize;
	const uint8_t *s = src;
	uint8_t *d = dst;

	if (!h->fortran_order || h->ndim < 2) {
		memcpy(d, s, (size_t)(h->count * is));
	} else {
		/* Walk C order with an odometer, tracking the Fortran offset. */
		uint64_t idx[NPY_MAXDIM] = {0}, fstride[NPY_MAXDIM];
		uint64_t st = 1;
		for (int k = 0; k < h->ndim; k++) {
			fstride[k] = st;
			st *= (uint64_t)h->shape[k];
		}
		uint64_t f = 0;
		for (uint64_t c = 0; c < h->count; c++) {
			memcpy(d + c * is, s + f * is, is);
			for (int k = h->ndim - 1; k >= 0; k--) {
				idx[k]++;
				f += fstride[k];
				if (idx[k] < (uint64_t)h->shape[k])
					break;
				f -= fstride[k] * idx[k];
				idx[k] = 0;
			}
		}
	}
	if (is > 1 && h->big_endian != host_big_endian())
		swap_bytes(d, is, h->count);
}

static double half_to_double(uint16_t x)
{
	int sign = x >> 15, exp = (x >> 10) & 0x1f, man = x & 0x3ff;
	double v;
	if (exp == 0)
		v = ldexp((double)man, -24);
	else if (exp == 31)
		v = man ? NAN : INFINITY;
	else
		v = ldexp((double)(man | 0x400), exp - 25);
	return sign ? -v : v;
}

double npy_get_f64(npy_dtype t, const void *data, uint64_t i)
{
	switch (t) {
	case NPY_BOOL: return ((const uint8_t *)data)[i] != 0;
	case NPY_I1: return ((const int8_t *)data)[i];
	case NPY_U1: return ((const uint8_t *)data)[i];
	case NPY_I2: return ((const int16_t *)data)[i];
	case NPY_U2: return ((const uint16_t *)data)[i];
	case NPY_I4: return ((const int32_t *)data)[i];
	case NPY_U4: return ((const uint32_t *)data)[i];
	case NPY_I8: return (double)((const int64_t *)data)[i];
	case NPY_U8: return (double)((const uint64_t *)data)[i];
	case NPY_F2: return half_to_double(((const uint16_t *)data)[i]);
	case NPY_F4: return ((const float *)data)[i];
	case NPY_F8: return ((const double *)data)[i];
	default: return 0;
	}
}

int64_t npy_get_i64(npy_dtype t, const void *data, uint64_t i)
{
	switch (t) {
	case NPY_BOOL: return ((const uint8_t *)data)[i] != 0;
	case NPY_I1: return ((const int8_t *)data)[i];
	case NPY_U1: return ((const uint8_t *)data)[i];
	case NPY_I2: return ((const int16_t *)data)[i];
	case NPY_U2: return ((const uint16_t *)data)[i];
	case NPY_I4: return ((const int32_t *)data)[i];
	case NPY_U4: return ((const uint32_t *)data)[i];
	case NPY_I8: return ((const int64_t *)data)[i];
	case NPY_U8: return (int64_t)((const uint64_t *)data)[i];
	default: {
		double v = npy_get_f64(t, data, i);
		if (!(v >= -9.2e18 && v <= 9.2e18))
			return 0;
		return (int64_t)v;
	}
	}
}

size_t npy_write_header(uint8_t *out, size_t cap, npy_dtype t, int ndim, const int64_t *shape)
{
	char dict[64 + NPY_MAXDIM * 24];
	int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
			 dtypes[t].size == 1 ? '|' : '<', dtypes[t].name);
	for (int i = 0; i < ndim; i++)
		n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)shape[i],
			      (i + 1 < ndim) ? " " : "");
	if (ndim > 1) /* numpy writes "(3, 4)" but "(3,)" for one dim */
		n--;
	n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
	size_t total = 10 + (size_t)n + 1; /* + '\n' */
	total = (total + 63) / 64 * 64;
	if (total > cap || total - 10 > 0xffff)
		return 0;
	memcpy(out, MAGIC, 6);
	out[6] = 1;
	out[7] = 0;
	size_t hl = total - 10;
	out[8] = (uint8_t)(hl & 0xff);
	out[9] = (uint8_t)(hl >> 8);
	memcpy(out + 10, dict, (size_t)n);
	memset(out + 10 + n, ' ', total - 10 - (size_t)n - 1);
	out[total - 1] = '\n';
	return total;
}
