/* pbwire.c - protobuf wire format: framing and a validating walk. */
#include "pbwire.h"

#include <stdio.h>
#include <string.h>

int pbwire_varint(const uint8_t *b, size_t *pos, size_t end, uint64_t *v)
{
	uint64_t r = 0;
	size_t p = *pos;
	for (int i = 0; i < 10; i++) {
		if (p >= end)
			return -1;
		uint8_t c = b[p++];
		r |= (uint64_t)(c & 0x7f) << (7 * i);
		if (c < 0x80) {
			*v = r;
			*pos = p;
			return 0;
		}
	}
	return -2;
}

static int varint_fail(int rc, size_t at, size_t end, size_t base, const char *what, const char *item,
		       hs_error *err)
{
	if (rc == -2)
		return hs_fail(err, HS_EDATA, "byte %zu: %s in %s is a varint longer than 10 bytes", at + base,
			       item, what);
	return hs_fail(err, HS_EDATA, "byte %zu: %s in %s runs past the end of the message (byte %zu)",
		       at + base, item, what, end + base);
}

/* "field 3 (xla.HloModuleProto.computations)" or "field 9 in xla.Foo". */
static const char *field_name(char *buf, size_t cap, uint32_t number, const ProtobufCMessageDescriptor *d)
{
	const ProtobufCFieldDescriptor *fd = d ? protobuf_c_message_descriptor_get_field(d, number) : NULL;
	if (fd)
		snprintf(buf, cap, "field %u (%s.%s)", number, d->name, fd->name);
	else
		snprintf(buf, cap, "field %u in %s", number, d ? d->name : "the message");
	return buf;
}

int pbwire_next(const uint8_t *b, size_t *pos, size_t end, pbwire_field *f, size_t base,
		const ProtobufCMessageDescriptor *d, hs_error *err)
{
	const char *what = d ? d->name : "the message";
	char fname[160];
	size_t at = *pos, p = at;
	uint64_t tag, v;
	int rc = pbwire_varint(b, &p, end, &tag);
	if (rc)
		return varint_fail(rc, at, end, base, what, "a field tag", err);
	f->at = at;
	f->number = (uint32_t)(tag >> 3);
	f->wire = (int)(tag & 7);
	f->value = 0;
	f->start = f->len = 0;
	if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		return hs_fail(err, HS_EDATA, "byte %zu: field number %llu in %s is out of range 1..2^29-1",
			       at + base, (unsigned long long)(tag >> 3), what);
	switch (f->wire) {
	case PB_VARINT:
		if ((rc = pbwire_varint(b, &p, end, &v)))
			return varint_fail(rc, p, end, base, what, "a varint value", err);
		f->value = v;
		break;
	case PB_FIXED64:
	case PB_FIXED32: {
		size_t n = f->wire == PB_FIXED64 ? 8 : 4;
		if (end - p < n)
			return hs_fail(err, HS_EDATA, "byte %zu: the %zu-byte value of %s runs past the end of the message (byte %zu)",
				       p + base, n, field_name(fname, sizeof fname, f->number, d), end + base);
		v = 0;
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)b[p + i] << (8 * i);
		f->value = v;
		p += n;
		break;
	}
	case PB_LEN:
		if ((rc = pbwire_varint(b, &p, end, &v)))
			return varint_fail(rc, p, end, base, what, "a length prefix", err);
		if (v > end - p)
			return hs_fail(err, HS_EDATA, "byte %zu: %s claims %llu bytes, past the end of the message (byte %zu)",
				       at + base, field_name(fname, sizeof fname, f->number, d), (unsigned long long)v,
				       end + base);
		f->start = p;
		f->len = (size_t)v;
		p += (size_t)v;
		break;
	case 3:
	case 4:
		return hs_fail(err, HS_EDATA, "byte %zu: %s uses wire type %d (a group), which is not supported",
			       at + base, field_name(fname, sizeof fname, f->number, d), f->wire);
	default:
		return hs_fail(err, HS_EDATA, "byte %zu: %s has wire type %d, which does not exist", at + base,
			       field_name(fname, sizeof fname, f->number, d), f->wire);
	}
	*pos = p;
	return 0;
}

/* ---- the validating walk -------------------------------------------- */

typedef struct walk {
	const uint8_t *b;
	size_t base;
	uint64_t decoded;      /* estimate of protobuf-c's allocations */
	hs_error *err;
} walk;

static int varint_type(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_BOOL: case PROTOBUF_C_TYPE_ENUM:
		return 1;
	default:
		return 0;
	}
}

/* Bytes of a fixed-width type, 0 for the others. */
static int fixed_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
		return 4;
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	default:
		return 0;
	}
}

static const char *wire_need(const ProtobufCFieldDescriptor *fd)
{
	if (varint_type(fd->type))
		return "a varint";
	if (fixed_size(fd->type) == 4)
		return "a 4-byte value";
	if (fixed_size(fd->type) == 8)
		return "an 8-byte value";
	return "a length-delimited value";
}

static int grow(walk *w, uint64_t n, size_t at)
{
	w->decoded += n;
	if (w->decoded > PBWIRE_MAX_DECODED)
		return hs_fail(w->err, HS_EDATA, "byte %zu: decoding would need more than %llu GiB (absurd counts)",
			       at + w->base, PBWIRE_MAX_DECODED >> 30);
	return 0;
}

/* A packed repeated scalar: every value complete inside the payload. */
static int walk_packed(walk *w, const pbwire_field *f, const ProtobufCFieldDescriptor *fd,
		       const char *what)
{
	int fs = fixed_size(fd->type);
	if (fs) {
		if (f->len % (size_t)fs)
			return hs_fail(w->err, HS_EDATA, "byte %zu: packed field %s.%s holds %zu bytes, not a multiple of %d",
				       f->at + w->base, what, fd->name, f->len, fs);
		return grow(w, f->len / (size_t)fs * 8, f->at);
	}
	size_t p = f->start, end = f->start + f->len, n = 0;
	uint64_t v;
	while (p < end) {
		size_t at = p;
		int rc = pbwire_varint(w->b, &p, end, &v);
		if (rc)
			return varint_fail(rc, at, end, w->base, what, "a packed value", w->err);
		n++;
	}
	return grow(w, (uint64_t)n * 8, f->at);
}

static int walk_msg(walk *w, size_t start, size_t end, const ProtobufCMessageDescriptor *d, int depth,
		    uint32_t skip)
{
	size_t pos = start;
	pbwire_field f;
	if (depth > PBWIRE_MAX_DEPTH)
		return hs_fail(w->err, HS_EDATA, "byte %zu: messages nested more than %d deep (in %s)",
			       start + w->base, PBWIRE_MAX_DEPTH, d->name);
	if (grow(w, d->sizeof_message, start))
		return -1;
	while (pos < end) {
		if (pbwire_next(w->b, &pos, end, &f, w->base, d, w->err))
			return -1;
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f.number);
		if (!fd)
			continue; /* unknown: skipped, as protobuf does */
		int repeated = fd->label == PROTOBUF_C_LABEL_REPEATED;
		int ok;
		if (varint_type(fd->type))
			ok = f.wire == PB_VARINT || (repeated && f.wire == PB_LEN);
		else if (fixed_size(fd->type))
			ok = f.wire == (fixed_size(fd->type) == 4 ? PB_FIXED32 : PB_FIXED64) ||
			     (repeated && f.wire == PB_LEN);
		else
			ok = f.wire == PB_LEN;
		if (!ok)
			return hs_fail(w->err, HS_EDATA, "byte %zu: field %u (%s.%s) has wire type %d, expected %s",
				       f.at + w->base, f.number, d->name, fd->name, f.wire, wire_need(fd));
		if (repeated && grow(w, 8, f.at))
			return -1;
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
			if (depth == 0 && skip && f.number == skip)
				continue;
			if (walk_msg(w, f.start, f.start + f.len, fd->descriptor, depth + 1, 0))
				return -1;
		} else if (fd->type == PROTOBUF_C_TYPE_STRING || fd->type == PROTOBUF_C_TYPE_BYTES) {
			if (grow(w, f.len + 1, f.at))
				return -1;
		} else if (f.wire == PB_LEN && walk_packed(w, &f, fd, d->name)) {
			return -1;
		}
	}
	return 0;
}

int pbwire_walk(const uint8_t *b, size_t start, size_t end, const ProtobufCMessageDescriptor *d,
		uint32_t skip, size_t base, hs_error *err)
{
	walk w = {b, base, 0, err};
	return walk_msg(&w, start, end, d, 0, skip);
}

size_t pbwire_varints(const uint8_t *b, const pbwire_field *f, uint64_t *out)
{
	if (f->wire == PB_VARINT) {
		if (out)
			out[0] = f->value;
		return 1;
	}
	if (f->wire != PB_LEN)
		return 0;
	size_t p = f->start, end = f->start + f->len, n = 0;
	uint64_t v;
	while (p < end && pbwire_varint(b, &p, end, &v) == 0) {
		if (out)
			out[n] = v;
		n++;
	}
	return n;
}

int pbwire_is_text(const uint8_t *b, size_t start, size_t len)
{
	for (size_t i = start; i < start + len; i++)
		if (b[i] < 0x20 || b[i] == 0x7f)
			return 0;
	return 1;
}
