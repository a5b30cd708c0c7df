/* hlo_print.h - an hm_module as HLO text, and a structural dump of it.
 *
 * hm_module_print() writes HLO text as XLA's default printer does: '%'
 * names, computation signatures, typed operands, the attributes hloscope
 * stores in fields first (defaults left out, as XLA leaves them out), then
 * the ones kept as text in their order, sharding, metadata and
 * backend_config last.  hlo_text_parse() reads it back to the same module
 * (ids renumbered in file order), and printing that again gives the same
 * text.  A module read from a protobuf prints the same way, so it can be
 * compared with a text dump of the same module.
 *
 * hm_module_dump() writes one line per computation and instruction with
 * ids, resolved operands and callees, then one line per field the readers
 * fill (defaults included, so they can be checked): for tests and
 * debugging.
 *
 * Names that would not read back as HLO words have their other bytes
 * written as '_'.  Both functions return 0, or -1 when writing failed.
 */
#ifndef HS_HLO_PRINT_H
#define HS_HLO_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "hlo_module.h"

/* "bf16[8,56,56,64]{3,2,1,0}", "(f32[], s32[2]{0})", "f32[<=8,2]",
 * "s32[?]", "f32[2,3]{1,0:T(8,128)}"; with_layout 0 leaves layouts out (as
 * in computation signatures). */
void hm_shape_print(FILE *out, const hm_shape *s, int with_layout);

/* A checked module (hm_module_check: every reader's modules are): -1
 * before the check, as for a write error. */
int hm_module_print(FILE *out, const hm_module *m);
/* One instruction of a checked module (hm_module_check) on one line, as
 * hm_module_print writes it, without indentation or newline. */
int hm_instr_print(FILE *out, const hm_module *m, const hm_instr *in);

/* An instruction's attributes, each as a name and its value's text, as
 * hm_instr_print writes them: in XLA's order and form (the called
 * computations under the attribute the text named them with, metadata
 * with the fields hloscope does not read as they were written), but for
 * names given without '%' (JAX's text), given so: an instruction XLA or
 * JAX printed gives back its attributes as written. */
typedef int (*hm_attr_fn)(void *ctx, const char *name, const char *value);
/* fn for each attribute of `in` (of checked module m; none when m does not
 * know them: HM_KNOWS_ATTRS): 0, fn's first non-zero return, or -1 when out
 * of memory. */
int hm_instr_attrs(const hm_module *m, const hm_instr *in, hm_attr_fn fn, void *ctx);
/* The value of attribute `name` appended to out: 1, 0 when `in` has none,
 * -1 when out of memory. */
int hm_instr_attr(const hm_module *m, const hm_instr *in, const char *name, hs_strbuf *out);
/* Every attribute into *out, one malloc'd block (names and values inside
 * it; the caller frees it): how many, or -1 when out of memory. */
int hm_instr_attr_list(const hm_module *m, const hm_instr *in, hm_attr **out);
int hm_module_dump(FILE *out, const hm_module *m);
/* Every module of the file, separated by a blank line. */
int hm_file_print(FILE *out, const hm_file *f);
int hm_file_dump(FILE *out, const hm_file *f);

#endif
