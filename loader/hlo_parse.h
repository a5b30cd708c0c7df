/* hlo_parse.h - the HLO text parser's state, shared by hlo_text.c (file,
 * module, computation, instruction, operands, shape) and hlo_attr.c
 * (attributes).  Internal to those two files.
 *
 * Everything a module keeps is allocated in the hm_file's arena; the
 * vectors and name tables here are scratch (malloc'd, freed by
 * hp_free_scratch).  Every function that can fail sets the error once and
 * returns -1; callers pass the -1 up.
 */
#ifndef HS_HLO_PARSE_H
#define HS_HLO_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/index.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "hlo_lex.h"
#include "hlo_module.h"
#include "hlo_text.h"

/* Things kept once by content (hp_shared_i64, hp_shared_shape): each
 * with its length, found through a hash index, at most HP_SHARED_MAX of
 * them (then each new one is a copy of its own). */
typedef struct hp_intern {
	hs_index ix;
	HS_VEC(struct hp_interned {
		const void *v;
		size_t n;
	}) v;
} hp_intern;

/* Scratch lists are typed vectors (base/vec.h): each knows its element
 * type, so one cannot be grown for one type and filled with another. */
typedef HS_VEC(int64_t) hp_vec_i64;

/* name -> index of a computation (p->comps) or of an instruction of the
 * computation being read (p->instrs): a hash index whose entries are those
 * indices, so the name itself is the one the computation or instruction
 * holds, and a million names take 16 MB. */
typedef struct hp_names {
	hs_index ix;
	int comps;                 /* 1: indices into p->comps, else p->instrs */
} hp_names;

/* Who calls which computation, by role; the order of roles is the order of
 * hm_instr.called_ids (to_apply, calls, select, scatter, body, condition,
 * true, false, branches, called_computations). */
enum hp_role {
	HP_TO_APPLY, HP_CALLS, HP_SELECT, HP_SCATTER, HP_BODY, HP_CONDITION,
	HP_TRUE, HP_FALSE, HP_BRANCHES, HP_CALLED, HP_NROLES
};

/* A called computation of the instruction being read. */
typedef struct hp_callee {
	int role;
	const char *name;
	size_t len;
	int line, col;
	size_t pos;
} hp_callee;

/* A call of a computation: for the cycle check at the module's end, and
 * resolved then when it was not as it was read. */
typedef struct hp_call {
	int comp, instr, slot;
	const char *name;          /* NULL: resolved already */
	size_t len;
	int line, col;
	size_t pos;
} hp_call;

/* A metadata stack_frame_id waiting for the module's StackFrames table. */
typedef struct hp_frame_ref {
	int comp, instr;
	int64_t frame;
} hp_frame_ref;

/* The module's StackFrames tables; rows start with their int64 id. */
struct hp_idname { int64_t id; char *name; };
struct hp_location { int64_t id, file, line; };
struct hp_frame { int64_t id, location, parent; };

typedef struct hp_stack_tables {
	HS_VEC(struct hp_idname) file_names;
	HS_VEC(struct hp_location) locations;
	HS_VEC(struct hp_frame) frames;
} hp_stack_tables;

/* One dimension of a slice attribute: [start:limit:stride]. */
struct hp_slice { int64_t start, limit, stride; };
/* An attribute name given (to refuse a second one). */
struct hp_span { const char *s; size_t len; };

typedef struct hp {
	hlo_lex lx;
	hlo_tok tok;
	size_t prev_end;           /* byte offset past the previous token */
	const char *file;          /* name for messages */
	hs_error *err;
	hlo_text_where *where;
	hm_file *f;
	hs_arena *a;
	int failed;
	int depth;                 /* nesting of shapes, braces, literals */
	const char *type_text;     /* the last element type word read, */
	size_t type_len;           /* its length (0: none), */
	int type_id;               /* and its id */

	/* what instructions share, by content: integer arrays (dims,
	 * layouts) and whole shapes, each kept once in the arena */
	hp_intern arrays, shapes;

	size_t released;           /* a mapped text: bytes given back before here */
	struct hp_split *split;    /* a module's second half read by a thread, or NULL */
	int split_retry;           /* a split read failed: read the text in one piece */
	int no_split;              /* read it in one piece */
	_Atomic int *halt;         /* a split half: set when the other half failed */

	/* the module being read */
	HS_VEC(hm_comp) comps;
	hp_names comp_names;
	HS_VEC(int) comp_lines;    /* the line of each computation's name */
	HS_VEC(hp_call) calls;
	HS_VEC(hp_frame_ref) frame_refs;
	HS_VEC(hm_attr) mod_attrs;
	hp_stack_tables st;
	int64_t next_instr_id;
	int entry_line;            /* line of the ENTRY computation, 0 before */

	/* the computation being read */
	HS_VEC(hm_instr) instrs;
	hp_names instr_names;
	const char *comp_name;
	int root_line;             /* line of its ROOT, 0 before */
	int sig_result;            /* reading a signature's result shape */

	/* the instruction being read */
	hp_vec_i64 operands;
	HS_VEC(hp_callee) callees;
	HS_VEC(hm_attr) attrs;
	hp_vec_i64 ctrl;
	hp_vec_i64 ints;           /* scratch for integer lists */
	hp_vec_i64 dims;           /* scratch for shapes (swapped with ints) */
	HS_VEC(uint8_t) dyn;       /* scratch for shapes: 1 per dynamic dim */
	HS_VEC(struct hp_slice) slices; /* scratch for the slice attribute */
	HS_VEC(struct hp_span) seen;    /* attribute names given */
	hs_strbuf extra;           /* scratch: metadata fields kept as written */
	int bare_names;            /* a callee or control predecessor named without '%' */
	int64_t frame_id;          /* metadata stack_frame_id, or -1 */
} hp;

/* ---- errors (all return -1) ---- */
int hp_fail_at(hp *p, int line, int col, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* At the current token. */
int hp_fail(hp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "expected WHAT, found 'TOKEN'" at the current token (or the lexer's own
 * complaint when the token is bad input). */
int hp_expected(hp *p, const char *what);
int hp_oom(hp *p);
/* A tick of base/progress.h: -1 (status HS_ESTOPPED) when the reader was
 * asked to stop, else 0. */
int hp_stop_if_asked(hp *p);

/* ---- tokens ---- */
void hp_next(hp *p);
int hp_accept(hp *p, hlo_tok_kind k);
/* Takes a token of kind k or fails with "expected K CONTEXT". */
int hp_expect(hp *p, hlo_tok_kind k, const char *context);
int hp_is_word(const hp *p, const char *w);
/* The kind of the token after the current one. */
hlo_tok_kind hp_peek(const hp *p);
/* An integer token into *v (overflow is an error). */
int hp_int(hp *p, int64_t *v, const char *what);
/* A name (word, with or without '%'): its text, not copied. */
int hp_name(hp *p, const char **s, size_t *len, const char *what);
/* A string token decoded into the arena (NUL bytes refused). */
int hp_string(hp *p, char **out, const char *what);
/* A raw value from the current token on (hlo_lex_scan flags), copied into
 * the arena; the current token is then the one after it. */
int hp_raw(hp *p, int flags, char **out, const char *what);
/* '{' INT (',' INT)* '}' into an arena array. */
int hp_int_list(hp *p, int64_t **out, int *n, const char *what);

/* ---- scratch ---- */
/* Appends x to the typed vector *vec (base/vec.h); out of memory fails. */
#define hp_push(p, vec, x) (hs_vec_push((vec), (x)) == 0 ? 0 : hp_oom(p))
/* The same for a vector of the parser's state: HP_PUSH(p, ints, v). */
#define HP_PUSH(p, field, x) hp_push((p), &(p)->field, (x))
/* Copies a typed vector's elements into the arena (NULL when empty, and
 * when out of memory, which is then set). */
#define hp_arena_copy(p, vec) hp_arena_copy_raw((p), (vec)->v, (vec)->n, sizeof *(vec)->v)
void *hp_arena_copy_raw(hp *p, const void *v, size_t n, size_t elem);
/* An arena array equal to v[0, n) that other shapes may share (read
 * only): dims and layouts repeat across a module.  NULL when n is 0 or
 * out of memory (then set). */
int64_t *hp_shared_i64(hp *p, const int64_t *v, size_t n);
void hp_intern_free(hp_intern *t);
#define HP_SHARED_MAX (1u << 16)
/* An arena shape equal to *s (shared with every instruction of that shape
 * read so far, up to HP_SHARED_MAX shapes; then a copy of its own); NULL
 * when out of memory (then set). */
const hm_shape *hp_shared_shape(hp *p, const hm_shape *s);
int hp_names_add(hp *p, hp_names *t, const char *name, size_t len, int idx);
int hp_names_find(const hp *p, const hp_names *t, const char *name, size_t len);
void hp_names_clear(hp_names *t);

/* ---- modules (hlo_text.c) ---- */
void hp_reset_module(hp *p);
/* One item of a module: a stack table or a computation (then the text
 * behind it given back). */
int hp_module_item(hp *p);
/* Gives back the pages of a mapped text behind the cursor (all: to the
 * last whole page, else in steps of 16 MB). */
void hp_release_text(hp *p, int all);
void hp_free_scratch(hp *p);

/* ---- the split read (hlo_text_split.c) ---- */
/* At a module's first computation: when the module is big, starts a thread
 * on its second half, and p's text ends where that starts. */
void hp_split_start(hp *p);
/* After p's own read (rc its verdict): joins the thread and appends its
 * computations; rc, or -1 (p->split_retry set: the split failed, read
 * the text in one piece for the verdict). */
int hp_split_finish(hp *p, int rc);

/* ---- grammar elements ---- */
int hp_shape(hp *p, hm_shape *out);   /* out may be NULL: checked, not kept */
/* One instruction attribute 'name=value' (hlo_attr.c). */
int hp_attribute(hp *p, hm_instr *in);
/* Defaults XLA's parser fills in after the attributes (hlo_attr.c); -1
 * when out of memory. */
int hp_attribute_defaults(hp *p, hm_instr *in);
/* One module header attribute (hlo_attr.c). */
int hp_module_attribute(hp *p);

#endif
