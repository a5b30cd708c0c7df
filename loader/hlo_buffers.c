/* hlo_buffers.c - an HloProto's buffer assignment (hlo_buffers.h): the
 * logical buffers by id with the instruction that defines each, then every
 * allocation's assigned buffers added up per instruction. */
#include "hlo_buffers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"

typedef struct lbuf {
	int64_t id;
	int64_t node;            /* -1: defined at no instruction of the module */
} lbuf;

typedef struct br {
	hs_arena *a;
	const uint8_t *b;
	const char *name;
	hm_module *m;
	hs_error *err;
	HS_VEC(lbuf) lbs;
	const hm_instr **names;  /* the instructions by name, made when a buffer gives only a name */
	hm_buffers *out;
} br;

__attribute__((format(printf, 3, 4))) static int bad(br *r, size_t at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hs_fail(r->err, HS_EDATA, "%s: byte %zu: buffer assignment: %s", r->name, at, msg);
}

static int oom(br *r)
{
	return hs_fail(r->err, HS_ENOMEM, "%s: out of memory reading the buffer assignment", r->name);
}

static int cmp_instr_name(const void *x, const void *y)
{
	return strcmp((*(const hm_instr *const *)x)->name, (*(const hm_instr *const *)y)->name);
}

/* The node of the instruction named b[start, start + len), or -1. */
static int64_t node_named(br *r, size_t start, size_t len)
{
	size_t n = (size_t)r->m->n_instrs;
	if (!r->names) {
		if (!(r->names = malloc((n ? n : 1) * sizeof *r->names)))
			return -2;
		for (size_t v = 0; v < n; v++)
			r->names[v] = hm_instr_at(r->m, (int64_t)v);
		qsort(r->names, n, sizeof *r->names, cmp_instr_name);
	}
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(r->names[mid]->name, (const char *)r->b + start, len);
		if (c == 0 && r->names[mid]->name[len])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strncmp(r->names[lo]->name, (const char *)r->b + start, len) == 0 && !r->names[lo]->name[len]
		       ? r->names[lo]->node : -1;
}

/* The node a LogicalBufferProto.Location names: by instruction_id (proto3
 * writes no 0: absent is id 0), or by name when it gives only a name. */
static int64_t located(br *r, const pbwire_field *loc)
{
	size_t pos = loc->start, end = loc->start + loc->len, name_at = 0, name_len = 0;
	int64_t id = 0;
	int has_id = 0, has_name = 0;
	pbwire_field f;
	while (pos < end) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			return -3;
		if (f.number == 4 && f.wire == PB_VARINT)
			id = (int64_t)f.value, has_id = 1;
		else if (f.number == 2 && f.wire == PB_LEN)
			name_at = f.start, name_len = f.len, has_name = 1;
	}
	if (!has_id && has_name)
		return node_named(r, name_at, name_len);
	const hm_instr *in = hm_find_instr(r->m, id);
	return in ? in->node : -1;
}

static int read_logical(br *r, const pbwire_field *lb)
{
	size_t pos = lb->start, end = lb->start + lb->len;
	lbuf l = {0, -1};
	pbwire_field f;
	while (pos < end) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			return -1;
		if (f.number == 1 && f.wire == PB_VARINT)
			l.id = (int64_t)f.value;
		else if (f.number == 3 && f.wire == PB_LEN && (l.node = located(r, &f)) < -1)
			return l.node == -2 ? oom(r) : -1;
	}
	r->out->n_unplaced += l.node < 0;
	return hs_vec_push(&r->lbs, l) ? oom(r) : 0;
}

static int cmp_lbuf(const void *x, const void *y)
{
	int64_t a = ((const lbuf *)x)->id, b = ((const lbuf *)y)->id;
	return (a > b) - (a < b);
}

/* One BufferAllocationProto.Assigned: its bytes to its buffer's instruction. */
static int read_assigned(br *r, const pbwire_field *as)
{
	size_t pos = as->start, end = as->start + as->len;
	lbuf key = {0, 0};
	int64_t size = 0;
	pbwire_field f;
	while (pos < end) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			return -1;
		if (f.number == 1 && f.wire == PB_VARINT)
			key.id = (int64_t)f.value;
		else if (f.number == 3 && f.wire == PB_VARINT)
			size = (int64_t)f.value;
	}
	const lbuf *l = bsearch(&key, r->lbs.v, r->lbs.n, sizeof key, cmp_lbuf);
	if (!l)
		return bad(r, as->at, "an allocation holds logical buffer %lld, which it does not define",
			   (long long)key.id);
	if (size < 0)
		return bad(r, as->at, "logical buffer %lld is given %lld bytes", (long long)key.id, (long long)size);
	if (l->node >= 0)
		r->out->node_bytes[l->node] = (r->out->node_bytes[l->node] < 0 ? 0 : r->out->node_bytes[l->node]) + size;
	r->out->n_assigned++;
	return 0;
}

static int read_allocation(br *r, const pbwire_field *al)
{
	size_t pos = al->start, end = al->start + al->len;
	int64_t size = 0, flag[13] = {0};
	hm_buffers *o = r->out;
	pbwire_field f;
	while (pos < end) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			return -1;
		if (f.number == 2 && f.wire == PB_VARINT)
			size = (int64_t)f.value;
		else if (f.number < 13 && f.wire == PB_VARINT)
			flag[f.number] = f.value != 0;
		else if (f.number == 9 && f.wire == PB_LEN && read_assigned(r, &f))
			return -1;
	}
	if (size < 0)
		return bad(r, al->at, "an allocation of %lld bytes", (long long)size);
	o->n_allocations++;
	if (flag[3]) {                       /* is_thread_local */
		o->thread_local_bytes += size;
		return 0;
	}
	o->peak_bytes += size;
	if (flag[5])                         /* is_entry_computation_parameter */
		o->parameter_bytes += size;
	else if (flag[12])                   /* is_constant */
		o->constant_bytes += size;
	else if (flag[7])                    /* maybe_live_out */
		o->output_bytes += size;
	else
		o->temp_bytes += size;
	return 0;
}

/* Every occurrence of field `number` of the slices, through fn. */
static int each(br *r, const pbwire_field *slices, size_t n, uint32_t number,
		int (*fn)(br *r, const pbwire_field *f))
{
	for (size_t s = 0; s < n; s++) {
		size_t pos = slices[s].start, end = slices[s].start + slices[s].len;
		pbwire_field f;
		while (pos < end) {
			if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
				return -1;
			if (f.number == number && f.wire == PB_LEN && fn(r, &f))
				return -1;
		}
	}
	return 0;
}

int hm_buffers_read(hs_arena *a, const uint8_t *b, const pbwire_field *slices, size_t n, hm_module *m,
		    const char *name, hs_error *err)
{
	br r = {.a = a, .b = b, .name = name, .m = m, .err = err};
	size_t nodes = (size_t)m->n_instrs;
	int rc = -1;
	if (!(r.out = hs_arena_alloc(a, sizeof *r.out))) {
		oom(&r);
		goto out;
	}
	memset(r.out, 0, sizeof *r.out);
	r.out->node_bytes = hs_arena_array(a, nodes ? nodes : 1, sizeof *r.out->node_bytes);
	if (!r.out->node_bytes) {
		oom(&r);
		goto out;
	}
	for (size_t v = 0; v < nodes; v++)
		r.out->node_bytes[v] = -1;
	if (each(&r, slices, n, 1, read_logical))
		goto out;
	r.out->n_logical = (int64_t)r.lbs.n;
	if (r.lbs.n > 1)
		qsort(r.lbs.v, r.lbs.n, sizeof *r.lbs.v, cmp_lbuf);
	if (each(&r, slices, n, 3, read_allocation))
		goto out;
	m->buffers = r.out;
	rc = 0;
out:
	hs_vec_free(&r.lbs);
	free(r.names);
	return rc;
}
