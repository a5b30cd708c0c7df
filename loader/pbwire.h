/* pbwire.h - the protobuf wire format, read by hand: varints, field
 * framing, and a validating walk that reports the first problem with its
 * byte offset.
 *
 * protobuf-c's unpack says only "failed" and recurses on nested messages
 * without a limit.  So before any unpack, pbwire_walk() checks a buffer
 * against the generated descriptors (loader/proto/NAME.proto): every tag and
 * varint complete, every length inside its enclosing message, every known
 * field with the wire type its declaration needs (packed or not for
 * repeated scalars), no groups, messages nested at most PBWIRE_MAX_DEPTH
 * deep, and a decoded size (protobuf-c's structures) under
 * PBWIRE_MAX_DECODED.  Unknown fields are skipped by wire type, as
 * protobuf skips them.  After a successful walk protobuf-c's unpack of the
 * same bytes can fail only for lack of memory.
 *
 * Offsets in messages are absolute in the buffer given to pbwire_walk
 * (`base` shifts them when the buffer is a slice of a file).
 *
 * Nothing here allocates; every function is pure over the caller's bytes.
 */
#ifndef HS_PBWIRE_H
#define HS_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "base/error.h"

#define PBWIRE_MAX_DEPTH 100                      /* as protobuf's own default */
#define PBWIRE_MAX_DECODED (4ULL * 1024 * 1024 * 1024)

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

/* One field as it sits in the buffer. */
typedef struct pbwire_field {
	uint32_t number;
	int wire;              /* PB_* */
	size_t at;             /* offset of its tag */
	uint64_t value;        /* PB_VARINT, PB_FIXED64, PB_FIXED32 */
	size_t start, len;     /* PB_LEN: the payload */
} pbwire_field;

/* Reads a varint at *pos (< end).  Returns 0 and advances *pos; -1 when it
 * runs past `end`; -2 when it is longer than 10 bytes. */
int pbwire_varint(const uint8_t *b, size_t *pos, size_t end, uint64_t *v);

/* Reads the field at *pos and advances past it.  Returns 0, or -1 with a
 * message in err (offset + base) when the field is malformed.  d, the
 * enclosing message's type, names it and the field in messages (may be
 * NULL). */
int pbwire_next(const uint8_t *b, size_t *pos, size_t end, pbwire_field *f, size_t base,
		const ProtobufCMessageDescriptor *d, hs_error *err);

/* Validates b[start, end) as a message of type d (see above).  `skip`, when
 * not 0, is a field number of the top message whose payloads are checked
 * only for framing (their contents are not read later). */
int pbwire_walk(const uint8_t *b, size_t start, size_t end, const ProtobufCMessageDescriptor *d,
		uint32_t skip, size_t base, hs_error *err);

/* Counts the packed or unpacked values of a repeated varint field; with
 * `out`, stores them. f is one occurrence (PB_VARINT or PB_LEN packed). */
size_t pbwire_varints(const uint8_t *b, const pbwire_field *f, uint64_t *out);

/* 1 when b[start, start + len) reads as a name: printable text (UTF-8 bytes
 * >= 0x80 allowed), no control bytes.  The empty string counts. */
int pbwire_is_text(const uint8_t *b, size_t start, size_t len);

#endif
