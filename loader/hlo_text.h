/* hlo_text.h - reads HLO text as XLA prints it into an hm_file.
 *
 * The grammar (one parser function per element, see hlo_text.c):
 *
 *   file        := module+
 *   module      := 'HloModule' name (',' attribute)* (stack-table | computation)*
 *   computation := ['ENTRY'] name [signature] '{' instruction* '}' [// name]
 *   signature   := '(' [name ':' shape (',' name ':' shape)*] ')' '->' shape
 *   instruction := ['ROOT'] name '=' shape opcode '(' operands ')' (',' attribute)*
 *   operands    := [[shape] name (',' [shape] name)*]   parameter(N), constant(literal)
 *   shape       := '(' [shape (',' shape)*] ')'
 *                | type '[' [dim (',' dim)*] ']' ['{' minor_to_major [':' text] '}']
 *   dim         := N | '<=' N | '?'
 *   attribute   := name '=' value        (hlo_attr.c: a table of name -> kind)
 *
 * Names may be written with or without '%'.  Instruction names are scoped
 * by computation and must be defined before they are used; computations
 * may be called before they are defined, but not recursively.  When no
 * instruction is marked ROOT the last one is the root, and when no
 * computation is marked ENTRY the last one is the entry (as XLA does).
 * Ids are assigned in file order: instructions 0.. over the module,
 * computations 0.. in each module.
 *
 * Filled in as XLA's parser does: a window dimension's stride and dilations
 * default to 1, its paddings to 0; convolution dimension numbers come from
 * dim_labels; feature_group_count and batch_group_count default to 1 on
 * convolutions; an array shape without a layout gets the default
 * minor_to_major {rank-1, ..., 0} (has_layout stays 0).  Metadata with a
 * stack_frame_id but no source_file takes its file and line from the
 * module's StackFrames table.
 *
 * Attribute values kept as written: sharding, backend_config (quotes
 * included when quoted), constant literals, and every attribute the table
 * does not store in a field (hm_instr.attrs, hm_module.attrs).
 *
 * Errors: status HS_EDATA and "NAME:LINE:COLUMN: what was expected, found
 * 'token'"; hlo_text_where receives the place and the line for a caret.
 * Out of memory is HS_ENOMEM ("NAME: out of memory").
 * Limits: nesting deeper than HLO_TEXT_MAX_DEPTH, more than
 * HLO_TEXT_MAX_RANK dimensions or a file over HLO_TEXT_MAX_BYTES is
 * refused.  Dimensions up to INT64_MAX are recorded, never allocated by.
 *
 * The file keeps the text it was read from (hm_file.text) and each
 * instruction its bytes there (hm_instr.src_off, src_len): its line as
 * written, from ROOT or its name to its last attribute.
 *
 * Ownership: the caller frees the hm_file with hm_file_free().
 */
#ifndef HS_HLO_TEXT_H
#define HS_HLO_TEXT_H

#include <stddef.h>

#include "base/error.h"
#include "hlo_module.h"

#define HLO_TEXT_MAX_DEPTH 64
#define HLO_TEXT_MAX_RANK 4096
#define HLO_TEXT_MAX_BYTES ((size_t)1 << 31)

/* Where a parse error is: the line (1-based), the column (1-based bytes)
 * and a window of that line's text around the column, tabs as spaces,
 * with text_col the column inside that window. */
typedef struct hlo_text_where {
	int line, col;
	char text[160];
	int text_col;
} hlo_text_where;

/* Reads the file at `path` (regular file or pipe).  Errors name the path. */
hm_file *hlo_text_read(const char *path, hs_error *err);
/* Parses n bytes of text (not necessarily terminated); `name` prefixes the
 * error messages and becomes hm_file.path. */
hm_file *hlo_text_parse(const char *text, size_t n, const char *name, hs_error *err);
/* The same, with the error's place: *where is zeroed, then filled when
 * the error has a place in the text (where may be NULL). */
hm_file *hlo_text_read_where(const char *path, hlo_text_where *where, hs_error *err);
hm_file *hlo_text_parse_where(const char *text, size_t n, const char *name,
			      hlo_text_where *where, hs_error *err);

/* "  LINE\n  ^\n" for an error place, like the query language's carets.
 * Writes at most cap bytes (terminated when cap > 0); returns the length of
 * the whole text, 0 when the place has no line. */
int hlo_text_caret(const hlo_text_where *w, char *buf, size_t cap);

/* The size of a module's text from which it is read by two threads (8 MB
 * unless set; 0: always in one piece).  For tests and benchmarks: the
 * result is the same either way. */
void hlo_text_set_split_min(size_t bytes);

/* 1 when buf looks like HLO text: after blanks and comments it starts with
 * the word HloModule. */
int hlo_text_sniff(const void *buf, size_t n);
/* 1 when the text is MLIR (StableHLO, MHLO): it starts with `module`,
 * `func.func` or a `#loc` alias.  HLO_MLIR_HINT says how to get HLO text. */
int hlo_text_is_mlir(const void *buf, size_t n);
#define HLO_MLIR_HINT                                                                                  \
	"MLIR (StableHLO) text, not HLO text; get HLO text from JAX with "                             \
	"jax.jit(f).lower(x).compile().as_text(), or from any XLA program with "                    \
	"XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_text'"

/* How many modules the text file at `path` holds, without parsing it: the
 * lines that start (after blanks) with the word HloModule, as the parser
 * starts a module (a whole read streams at the speed of memchr).  0 when
 * the file cannot be read. */
int64_t hlo_text_count_modules(const char *path);

#endif
