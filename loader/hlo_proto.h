/* hlo_proto.h - HLO modules from protobufs: the TpuGraphs raw files
 * (TuningData, ModuleTuningData) and XLA's binary HloModuleProto (bare, or
 * wrapped in the HloProto that --xla_dump_hlo_as_proto writes).
 *
 * An HloProto's buffer assignment is read too (hlo_buffers.h:
 * hm_module.buffers).  A file compressed with xz is decompressed (xz.h).
 *
 * Which message a file holds is recognized by content, not by name.  The
 * four start alike (field 1, length-delimited), so the reader looks at how
 * deep the first printable string sits along the chain of first fields:
 *   - field 1 is text                           -> HloModuleProto (its name)
 *   - field 1's field 1 is text                 -> ModuleTuningData or HloProto
 *     (a module inside): ModuleTuningData when field 2 or 4 is present or
 *     when field 3 reads as runs, HloProto otherwise
 *   - field 1's field 1's field 1 is text       -> TuningData (modules)
 *   - no field 1 but field 2 or 3 (a module without a name) -> HloModuleProto
 * Module names are printable; a nested message is not (its first byte is a
 * tag such as 0x0a), so the chain decides.
 *
 * Then the whole file is validated on the wire (pbwire.h: byte offsets), and
 * decoded with protobuf-c one computation and one run at a time, so memory
 * stays near the size of the result.  Finally hm_module_check() refuses
 * what is wrong by meaning (names, ids, roots, call cycles), naming it.
 *
 * Errors: HS_EDATA, "PATH: byte N: ..." for the wire, "PATH: module 'M':
 * ..." for meaning, "PATH: cannot read: ..." for the file.
 *
 * Ownership: the hm_file returned is freed by hm_file_free().
 */
#ifndef HS_HLO_PROTO_H
#define HS_HLO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "hlo_module.h"

enum {
	HLO_PROTO_NO_RUNS = 1,     /* skip the tuning runs (read modules and config ids only) */
};

/* Reads a protobuf file (mapped, not copied). */
hm_file *hlo_proto_read(const char *path, int flags, hs_error *err);
/* Reads only the module that `sel` names in a TuningData: "N" (0-based) or a
 * module name (HS_EUSAGE when it names none).  Only that module is
 * validated and decoded, so opening one kernel of a large collection costs
 * that kernel.  The file then holds one module; f->selected is its index in
 * the file, f->total the file's module count.  Other files are read whole
 * (sel is left to the caller). */
hm_file *hlo_proto_read_sel(const char *path, const char *sel, int flags, hs_error *err);
/* The same on bytes in memory; `name` is used in messages and as the path. */
hm_file *hlo_proto_read_mem(const uint8_t *data, size_t n, const char *name, int flags,
			    hs_error *err);

#endif
