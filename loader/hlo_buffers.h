/* hlo_buffers.h - the buffer assignment of an xla.HloProto (field 3, a
 * BufferAssignmentProto) into hm_buffers (hlo_module.h); used by
 * hlo_proto.c only.
 *
 * Its logical buffers name the instruction that defines them (defined_at:
 * instruction_id, or instruction_name in older dumps) and their allocations
 * the bytes each buffer is given (assigned: logical_buffer_id, size); per
 * instruction those bytes are added up, as a *-buffer-assignment.txt lists
 * them value by value (loader/overlay_read.c reads that text).  The
 * allocations' own sizes give the module's memory.  Field numbers are
 * openxla/xla's xla/service/hlo.proto (loader/proto/hlo.proto).
 */
#ifndef HS_HLO_BUFFERS_H
#define HS_HLO_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "hlo_module.h"
#include "pbwire.h"

/* Reads every occurrence of the assignment (slices of b, framed already;
 * protobuf merges them) for module m, which hm_module_check has indexed,
 * into m->buffers (in arena a).  0, or -1 with err set: HS_EDATA "NAME:
 * byte N: ..." (a negative size, an assigned buffer that no logical buffer
 * is), HS_ENOMEM. */
int hm_buffers_read(hs_arena *a, const uint8_t *b, const pbwire_field *slices, size_t n, hm_module *m,
		    const char *name, hs_error *err);

#endif
