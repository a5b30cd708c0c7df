/* hlo_text.c - HLO text into an hm_file: one function per grammar element
 * (file, module, stack tables, computation, signature, instruction,
 * operands, literal), then the module's names resolved.  Shapes and
 * layouts are in hlo_text_shape.c, attributes in hlo_attr.c, the parser's
 * plumbing in hlo_parse.c. */
#include "hlo_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/caret.h"
#include "base/cmp.h"
#include "base/inputs.h"
#include "base/progress.h"
#include "hlo_parse.h"
#include "xz.h"

/* ---- instructions --------------------------------------------------- */

/* [shape] name: a typed or untyped operand, resolved in the computation. */
static int operand(hp *p)
{
	if (p->tok.kind == HT_LPAREN ||
	    (p->tok.kind == HT_WORD && !p->tok.pct &&
	     ((p->lx.pos < p->lx.n && p->lx.buf[p->lx.pos] == '[') || hp_peek(p) == HT_LBRACKET))) {
		if (hp_shape(p, NULL) != 0)
			return -1;
	}
	hlo_tok at = p->tok;
	const char *s;
	size_t len;
	if (hp_name(p, &s, &len, "an operand name") != 0)
		return -1;
	int idx = hp_names_find(p, &p->instr_names, s, len);
	if (idx < 0)
		return hp_fail_at(p, at.line, at.col, at.pos,
				  "unknown operand '%.*s' (no instruction of that name "
				  "comes before it in computation '%s')",
				  (int)(len > 200 ? 200 : len), s, p->comp_name);
	return HP_PUSH(p, operands, p->instrs.v[idx].id);
}

/* The literal of constant(...), kept as written: numbers, words (true,
 * nan, -inf, ...), braces for arrays, parentheses for tuples. */
static int literal(hp *p, hm_instr *in)
{
	hlo_lex probe = p->lx;
	hlo_tok t = p->tok;

	if (p->tok.kind == HT_RPAREN)
		return hp_expected(p, "a literal");
	hm_instr_x *x = hm_instr_x_make(p->a, in);
	if (!x)
		return hp_oom(p);
	if (hp_raw(p, 0, &x->literal, "the literal") != 0)
		return -1;
	/* every token of it must be one a literal can hold */
	size_t end = p->tok.pos;
	while (t.pos < end && t.kind != HT_EOF) {
		switch (t.kind) {
		case HT_INT: case HT_FLOAT: case HT_WORD: case HT_LBRACE:
		case HT_RBRACE: case HT_LPAREN: case HT_RPAREN: case HT_COMMA:
		case HT_COLON:
			break;
		default:
			return hp_fail_at(p, t.line, t.col, t.pos, "%s cannot be part of a literal",
					  hlo_tok_kind_name(t.kind));
		}
		hlo_lex_next(&probe, &t);
	}
	return 0;
}

static int operands(hp *p, hm_instr *in)
{
	if (strcmp(in->opcode, "parameter") == 0) {
		if (hp_int(p, &in->parameter_number, "a parameter number") != 0)
			return -1;
		if (in->parameter_number < 0)
			return hp_fail(p, "parameter number is negative");
		return 0;
	}
	if (strcmp(in->opcode, "constant") == 0)
		return literal(p, in);
	if (p->tok.kind == HT_RPAREN)
		return 0;
	for (;;) {
		if (operand(p) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			return 0;
	}
}

/* The called computations in role order, to be resolved at module end. */
static int record_callees(hp *p, hm_instr *in)
{
	hp_callee *c = p->callees.v;
	size_t n = p->callees.n;

	for (size_t i = 1; i < n; i++)          /* stable: insertion sort */
		for (size_t j = i; j > 0 && c[j - 1].role > c[j].role; j--) {
			hp_callee t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	if (!n)
		return 0;
	in->n_called = (int)n;
	in->called_ids = hs_arena_array(p->a, n, sizeof(int64_t));
	if (!in->called_ids)
		return hp_oom(p);
	for (size_t i = 0; i < n; i++) {
		/* a computation defined already (XLA prints callees first) is
		 * resolved now: the module's end then need not read the text
		 * of every call again */
		int idx = hp_names_find(p, &p->comp_names, c[i].name, c[i].len);
		/* one left for later keeps its name in the arena: the text behind
		 * the reader is given back (hp_release_text) */
		const char *later = NULL;
		if (idx < 0 && !(later = hs_arena_strndup(p->a, c[i].name, c[i].len)))
			return hp_oom(p);
		hp_call call = {(int)p->comps.n, (int)p->instrs.n, (int)i,
				later, c[i].len, c[i].line, c[i].col, c[i].pos};
		in->called_ids[i] = idx;
		if (HP_PUSH(p, calls, call) != 0)
			return -1;
	}
	return 0;
}

/* Copies the instruction's scratch lists into it and files it. */
static int finish_instruction(hp *p, hm_instr *in, size_t name_len)
{
	in->id = p->next_instr_id++;
	in->n_operands = (int)p->operands.n;
	in->operand_ids = hp_arena_copy(p, &p->operands);
	if (p->ctrl.n) {
		hm_instr_x *x = hm_instr_x_make(p->a, in);
		if (!x)
			return hp_oom(p);
		x->n_control_predecessors = (int)p->ctrl.n;
		x->control_predecessor_ids = hp_arena_copy(p, &p->ctrl);
	}
	in->n_attrs = (int)p->attrs.n;
	in->attrs = hp_arena_copy(p, &p->attrs);
	in->bare_names = (uint8_t)p->bare_names;
	if (p->failed || record_callees(p, in) != 0)
		return -1;
	if (p->frame_id >= 0 && !in->source_file) {
		hp_frame_ref r = {(int)p->comps.n, (int)p->instrs.n, p->frame_id};
		if (HP_PUSH(p, frame_refs, r) != 0)
			return -1;
	}
	if (hp_names_add(p, &p->instr_names, in->name, name_len, (int)p->instrs.n) != 0)
		return -1;
	return hp_push(p, &p->instrs, *in);
}

/* ['ROOT'] name '=' shape opcode '(' operands ')' (',' attribute)* */
static int instruction(hp *p)
{
	hm_instr in = {0};
	const char *name;
	size_t len;

	in.parameter_number = HM_NONE;
	in.src_off = (int64_t)p->tok.pos;
	p->operands.n = p->callees.n = p->attrs.n = p->ctrl.n = p->seen.n = 0;
	p->frame_id = -1;
	p->bare_names = 0;
	if (hp_is_word(p, "ROOT") && hp_peek(p) != HT_EQUAL) {
		if (p->root_line)
			return hp_fail(p, "a second ROOT in computation '%s' (the first is on line %d)",
				       p->comp_name, p->root_line);
		p->root_line = p->tok.line;
		in.is_root = 1;
		hp_next(p);
	}
	hlo_tok at = p->tok;
	if (hp_name(p, &name, &len, "an instruction name") != 0)
		return -1;
	int dup = hp_names_find(p, &p->instr_names, name, len);
	if (dup >= 0)
		return hp_fail_at(p, at.line, at.col, at.pos,
				  "instruction '%.*s' is defined twice in computation '%s' "
				  "(first on line %d)", (int)(len > 200 ? 200 : len), name,
				  p->comp_name, p->instrs.v[dup].line);
	in.name = hs_arena_strndup(p->a, name, len);
	if (!in.name)
		return hp_oom(p);
	in.line = at.line;
	hm_shape shape = {0};
	if (hp_expect(p, HT_EQUAL, "after the instruction name") != 0 || hp_shape(p, &shape) != 0 ||
	    !(in.shape = hp_shared_shape(p, &shape)))
		return -1;
	if (p->tok.kind != HT_WORD || p->tok.pct)
		return hp_expected(p, "an opcode");
	in.opcode = hs_arena_strndup(p->a, p->tok.text, p->tok.len);
	if (!in.opcode)
		return hp_oom(p);
	hp_next(p);
	if (hp_expect(p, HT_LPAREN, "after the opcode") != 0 || operands(p, &in) != 0 ||
	    hp_expect(p, HT_RPAREN, "after the operands") != 0)
		return -1;
	while (hp_accept(p, HT_COMMA))
		if (hp_attribute(p, &in) != 0)
			return -1;
	if (hp_attribute_defaults(p, &in) != 0)
		return -1;
	in.src_len = (int)((int64_t)p->prev_end - in.src_off);   /* < HLO_TEXT_MAX_BYTES */
	return finish_instruction(p, &in, len);
}

/* Gives back the pages of a mapped text before byte `upto` (they come back
 * from the page cache if read again): a module's text is read once, so
 * the file need not be resident all at once.  *released: how far it has
 * given back so far, a page's start (madvise refuses any other). */
static void release_upto(const hm_file *f, size_t *released, size_t upto, int all)
{
	if (!f->text_mapped || (!all && upto < *released + (16u << 20)))
		return;
	upto &= ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	if (upto > *released) {
		madvise(f->text + *released, upto - *released, MADV_DONTNEED);
		*released = upto;
	}
}

void hp_release_text(hp *p, int all)
{
	if (p->f)
		release_upto(p->f, &p->released, p->tok.pos, all);
}

/* ---- computations --------------------------------------------------- */

/* '(' [name ':' shape (',' name ':' shape)*] ')' '->' shape; checked only:
 * the parameters' instructions say the same. */
static int signature(hp *p)
{
	hp_next(p);
	while (p->tok.kind != HT_RPAREN) {
		const char *s;
		size_t len;
		if (hp_name(p, &s, &len, "a parameter name") != 0 ||
		    hp_expect(p, HT_COLON, "after the parameter name") != 0 ||
		    hp_shape(p, NULL) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	if (hp_expect(p, HT_RPAREN, "after the parameters") != 0 ||
	    hp_expect(p, HT_ARROW, "before the result shape") != 0)
		return -1;
	p->sig_result = 1;
	int rc = hp_shape(p, NULL);
	p->sig_result = 0;
	return rc;
}

/* Attributes after a computation's '}' (execution_thread=...): checked
 * and dropped. */
static int computation_attributes(hp *p)
{
	while (hp_accept(p, HT_COMMA)) {
		char *v;
		const char *s;
		size_t len;
		if (hp_name(p, &s, &len, "an attribute name") != 0 ||
		    hp_expect(p, HT_EQUAL, "after the attribute name") != 0 ||
		    hp_raw(p, HLS_COMMA | HLS_LINE, &v, "the attribute value") != 0)
			return -1;
	}
	return 0;
}

/* ['ENTRY'] name [signature] '{' instruction* '}' */
static int computation(hp *p)
{
	hm_comp c = {0};
	const char *name;
	size_t len;

	if (hp_is_word(p, "ENTRY") && hp_peek(p) == HT_WORD) {
		if (p->entry_line)
			return hp_fail(p, "a second ENTRY computation (the first is on line %d)",
				       p->entry_line);
		p->entry_line = p->tok.line;
		c.is_entry = 1;
		hp_next(p);
	}
	hlo_tok at = p->tok;
	if (hp_name(p, &name, &len, "a computation name") != 0)
		return -1;
	int dup = hp_names_find(p, &p->comp_names, name, len);
	if (dup >= 0)
		return hp_fail_at(p, at.line, at.col, at.pos,
				  "computation '%.*s' is defined twice (first on line %d)",
				  (int)(len > 200 ? 200 : len), name,
				  p->comp_lines.v[dup]);
	c.name = hs_arena_strndup(p->a, name, len);
	if (!c.name)
		return hp_oom(p);
	c.id = (int64_t)p->comps.n;
	p->comp_name = c.name;
	if (p->tok.kind == HT_LPAREN && signature(p) != 0)
		return -1;
	hlo_tok open = p->tok;
	if (hp_expect(p, HT_LBRACE, "to open the computation") != 0)
		return -1;
	p->instrs.n = 0;
	p->root_line = 0;
	hp_names_clear(&p->instr_names);
	while (p->tok.kind != HT_RBRACE) {
		if (p->tok.kind == HT_EOF)
			return hp_fail(p, "computation '%s' opened on line %d is never closed",
				       c.name, open.line);
		if (instruction(p) != 0)
			return -1;
		if ((p->instrs.n & 1023) == 0 && (hp_stop_if_asked(p) != 0))
			return -1;
		hp_release_text(p, 0);
	}
	hp_next(p);
	if (computation_attributes(p) != 0)
		return -1;
	if (p->instrs.n == 0)
		return hp_fail_at(p, open.line, open.col, open.pos,
				  "computation '%s' has no instructions", c.name);
	hm_instr *ins = p->instrs.v;
	if (!p->root_line)
		ins[p->instrs.n - 1].is_root = 1;   /* XLA: the last one */
	for (size_t i = 0; i < p->instrs.n; i++)
		if (ins[i].is_root)
			c.root_id = ins[i].id;
	c.n_instrs = (int)p->instrs.n;
	if (hs_vec_bytes(&p->instrs) >= 256 * 1024) {
		/* a big computation keeps the scratch array itself (trimmed):
		 * a copy would hold both at once */
		hm_instr *trimmed = realloc(p->instrs.v, hs_vec_bytes(&p->instrs));
		c.instrs = trimmed ? trimmed : p->instrs.v;
		p->instrs.v = NULL;
		p->instrs.n = p->instrs.cap = 0;
		if (hs_arena_adopt(p->a, c.instrs) != 0)
			return hp_oom(p);
	} else if (!(c.instrs = hp_arena_copy(p, &p->instrs)))
		return -1;
	int line = at.line;
	if (HP_PUSH(p, comp_lines, line) != 0 ||
	    hp_names_add(p, &p->comp_names, c.name, len, (int)p->comps.n) != 0)
		return -1;
	return hp_push(p, &p->comps, c);
}

/* ---- stack frame tables --------------------------------------------- */

/* '{' (key '=' value)* '}' keeping the integer values of `keys`. */
static int brace_ints(hp *p, const char *const *keys, int64_t *vals, int n)
{
	if (hp_expect(p, HT_LBRACE, "to open the entry") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		const char *s;
		size_t len;
		int k = n;
		if (hp_name(p, &s, &len, "a field name") != 0 ||
		    hp_expect(p, HT_EQUAL, "after the field name") != 0)
			return -1;
		for (int i = 0; i < n; i++)
			if (strlen(keys[i]) == len && memcmp(keys[i], s, len) == 0)
				k = i;
		if (k < n) {
			if (hp_int(p, &vals[k], "an integer") != 0)
				return -1;
		} else if (p->tok.kind == HT_INT || p->tok.kind == HT_WORD ||
			   p->tok.kind == HT_STRING) {
			hp_next(p);
		} else {
			return hp_expected(p, "a value");
		}
		hp_accept(p, HT_COMMA);
	}
	hp_next(p);
	return 0;
}

/* FileNames / FunctionNames / FileLocations / StackFrames: id-numbered
 * rows; kept as far as they give an instruction its file and line. */
static int stack_table(hp *p)
{
	static const char *const loc_keys[] = {"file_name_id", "line"};
	static const char *const frame_keys[] = {"file_location_id", "parent_frame_id"};
	int which = hp_is_word(p, "FileNames") ? 0 : hp_is_word(p, "FunctionNames") ? 1
		    : hp_is_word(p, "FileLocations") ? 2 : 3;

	hp_next(p);
	while (p->tok.kind == HT_INT) {
		int64_t id, v[2] = {0, 0};
		char *s;
		if (hp_int(p, &id, "an id") != 0)
			return -1;
		if (which <= 1) {
			if (hp_string(p, &s, "a name") != 0)
				return -1;
			struct hp_idname e = {id, s};
			if (which == 0 && hp_push(p, &p->st.file_names, e) != 0)
				return -1;
		} else if (which == 2) {
			if (brace_ints(p, loc_keys, v, 2) != 0)
				return -1;
			struct hp_location e = {id, v[0], v[1]};
			if (hp_push(p, &p->st.locations, e) != 0)
				return -1;
		} else {
			if (brace_ints(p, frame_keys, v, 2) != 0)
				return -1;
			struct hp_frame e = {id, v[0], v[1]};
			if (hp_push(p, &p->st.frames, e) != 0)
				return -1;
		}
	}
	return 0;
}

static int is_stack_table(const hp *p)
{
	if (!(hp_is_word(p, "FileNames") || hp_is_word(p, "FunctionNames") ||
	      hp_is_word(p, "FileLocations") || hp_is_word(p, "StackFrames")))
		return 0;
	hlo_tok_kind k = hp_peek(p);
	return k != HT_LPAREN && k != HT_LBRACE;   /* else a computation's name */
}

/* ---- modules -------------------------------------------------------- */

static hm_instr *call_site(hp *p, int comp, int instr)
{
	return &p->comps.v[comp].instrs[instr];
}

/* Gives each call its computation id; refuses unknown names and cycles. */
static int resolve_calls(hp *p)
{
	hp_call *calls = p->calls.v;
	size_t n_comps = p->comps.n;
	int rc = -1;

	for (size_t i = 0; i < p->calls.n; i++) {
		hp_call *c = &calls[i];
		if (!c->name)
			continue;   /* resolved as it was read */
		int idx = hp_names_find(p, &p->comp_names, c->name, c->len);
		if (idx < 0)
			return hp_fail_at(p, c->line, c->col, c->pos, "unknown computation '%.*s'",
					  (int)(c->len > 200 ? 200 : c->len), c->name);
		call_site(p, c->comp, c->instr)->called_ids[c->slot] = idx;
	}
	/* Depth-first over the call graph; calls are in caller order. */
	size_t *first = calloc(n_comps + 1, sizeof *first);
	unsigned char *color = calloc(n_comps, 1);
	size_t *stack = malloc((n_comps + 1) * sizeof *stack);
	size_t *next = malloc((n_comps + 1) * sizeof *next);
	if (!first || !color || !stack || !next) {
		hp_oom(p);
		goto done;
	}
	for (size_t i = 0; i < p->calls.n; i++)
		first[calls[i].comp + 1]++;
	for (size_t c = 0; c < n_comps; c++)
		first[c + 1] += first[c];
	for (size_t root = 0; root < n_comps; root++) {
		size_t sp = 0;
		if (color[root])
			continue;
		stack[sp] = root;
		next[sp++] = first[root];
		color[root] = 1;
		while (sp) {
			size_t c = stack[sp - 1];
			if (next[sp - 1] == first[c + 1]) {
				color[c] = 2;
				sp--;
				continue;
			}
			hp_call *call = &calls[next[sp - 1]++];
			size_t callee = (size_t)call_site(p, call->comp, call->instr)->called_ids[call->slot];
			if (color[callee] == 1) {
				const hm_comp *cs = p->comps.v;
				if (callee == c)
					hp_fail_at(p, call->line, call->col, call->pos,
						   "computation '%s' calls itself", cs[c].name);
				else
					hp_fail_at(p, call->line, call->col, call->pos,
						   "computation '%s' calls '%s', which calls back "
						   "into '%s' (a call cycle)", cs[c].name,
						   cs[callee].name, cs[c].name);
				goto done;
			}
			if (color[callee] == 0) {
				color[callee] = 1;
				stack[sp] = callee;
				next[sp++] = first[callee];
			}
		}
	}
	rc = 0;
done:
	free(first);
	free(color);
	free(stack);
	free(next);
	return rc;
}

/* The row with id `key` of a table sorted by id (rows start with their
 * int64 id, so hs_cmp_i64 orders and finds them). */
static const void *find_row(const void *rows, size_t n, size_t size, int64_t key)
{
	return n ? bsearch(&key, rows, n, size, hs_cmp_i64) : NULL;
}
#define FIND_ROW(vec, key) find_row((vec)->v, (vec)->n, sizeof *(vec)->v, (key))

/* Source file and line from the StackFrames table for metadata that only
 * names a stack_frame_id. */
static void resolve_frames(hp *p)
{
	hp_stack_tables *st = &p->st;
	if (!p->frame_refs.n || !st->frames.n || !st->locations.n || !st->file_names.n)
		return;
	qsort(st->file_names.v, st->file_names.n, sizeof(struct hp_idname), hs_cmp_i64);
	qsort(st->locations.v, st->locations.n, sizeof(struct hp_location), hs_cmp_i64);
	qsort(st->frames.v, st->frames.n, sizeof(struct hp_frame), hs_cmp_i64);
	const hp_frame_ref *r = p->frame_refs.v;
	for (size_t i = 0; i < p->frame_refs.n; i++) {
		const struct hp_frame *fr = FIND_ROW(&st->frames, r[i].frame);
		const struct hp_location *loc = fr ? FIND_ROW(&st->locations, fr->location) : NULL;
		const struct hp_idname *fn = loc ? FIND_ROW(&st->file_names, loc->file) : NULL;
		if (!fn)
			continue;
		hm_instr *in = call_site(p, r[i].comp, r[i].instr);
		in->source_file = fn->name;
		in->source_line = loc->line >= INT32_MIN && loc->line <= INT32_MAX ? (int)loc->line : 0;
	}
}

void hp_reset_module(hp *p)
{
	p->comps.n = p->calls.n = p->frame_refs.n = p->mod_attrs.n = p->comp_lines.n = 0;
	p->st.file_names.n = p->st.locations.n = p->st.frames.n = 0;
	hp_names_clear(&p->comp_names);
	p->next_instr_id = 0;
	p->entry_line = 0;
}

int hp_module_item(hp *p)
{
	int rc = is_stack_table(p) ? stack_table(p) : computation(p);
	if (!rc)
		hp_release_text(p, 0);
	return rc ? rc : hp_stop_if_asked(p);
}

/* 'HloModule' name (',' attribute)* (stack-table | computation)* */
static int module(hp *p, hm_module *m)
{
	const char *name;
	size_t len;

	hp_reset_module(p);
	if (!hp_is_word(p, "HloModule") && hlo_text_is_mlir(p->lx.buf + p->tok.pos, p->lx.n - p->tok.pos))
		return hp_fail(p, "%s", HLO_MLIR_HINT);
	if (!hp_is_word(p, "HloModule"))
		return hp_expected(p, "'HloModule'");
	hp_next(p);
	if (hp_name(p, &name, &len, "a module name") != 0)
		return -1;
	m->name = hs_arena_strndup(p->a, name, len);
	if (!m->name)
		return hp_oom(p);
	while (hp_accept(p, HT_COMMA))
		if (hp_module_attribute(p) != 0)
			return -1;
	hp_split_start(p);    /* a big module: its second half read by a thread */
	int rc = 0;
	while (!rc && p->tok.kind != HT_EOF && !hp_is_word(p, "HloModule"))
		rc = hp_module_item(p);
	if (hp_split_finish(p, rc) != 0)
		return -1;
	hp_release_text(p, 1);
	if (p->comps.n == 0)
		return hp_fail(p, "module '%s' has no computations", m->name);
	if (resolve_calls(p) != 0)
		return -1;
	resolve_frames(p);
	hm_comp *comps = p->comps.v;
	size_t entry = p->comps.n - 1;      /* XLA: the last one when unmarked */
	for (size_t i = 0; i < p->comps.n; i++)
		if (comps[i].is_entry)
			entry = i;
	comps[entry].is_entry = 1;
	m->entry_name = comps[entry].name;
	m->entry_id = comps[entry].id;
	m->n_comps = (int)p->comps.n;
	m->comps = hp_arena_copy(p, &p->comps);
	m->n_instrs = p->next_instr_id;
	m->n_attrs = (int)p->mod_attrs.n;
	m->attrs = hp_arena_copy(p, &p->mod_attrs);
	if (p->failed)
		return -1;
	/* what every reader does last; the parser has refused already what
	 * the check refuses, so a failure here is out of memory or a limit */
	m->refs_checked = 1;
	if (hm_module_check(p->a, m, p->err) != 0) {
		hs_error_prefix(p->err, "%s", p->file);
		p->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- files ---------------------------------------------------------- */

void hp_free_scratch(hp *p)
{
	hs_vec_free(&p->comps);
	hs_vec_free(&p->comp_lines);
	hs_vec_free(&p->calls);
	hs_vec_free(&p->frame_refs);
	hs_vec_free(&p->mod_attrs);
	hs_vec_free(&p->st.file_names);
	hs_vec_free(&p->st.locations);
	hs_vec_free(&p->st.frames);
	hs_vec_free(&p->instrs);
	hs_vec_free(&p->operands);
	hs_vec_free(&p->callees);
	hs_vec_free(&p->attrs);
	hs_vec_free(&p->ctrl);
	hs_vec_free(&p->ints);
	hs_vec_free(&p->dims);
	hs_vec_free(&p->dyn);
	hs_vec_free(&p->slices);
	hs_vec_free(&p->seen);
	hs_strbuf_free(&p->extra);
	hs_index_free(&p->comp_names.ix);
	hs_index_free(&p->instr_names.ix);
	hp_intern_free(&p->arrays);
	hp_intern_free(&p->shapes);
}

/* Reads every module of f's text into f (with p's state; the caller frees
 * p's scratch).  no_split: in one piece, never in two halves. */
static int read_modules(hp *p, hm_file *f, const char *name, hlo_text_where *where, hs_error *err,
			int no_split)
{
	const char *text = f->text;
	size_t n = f->text_len;
	HS_VEC(hm_module) mods = {0};

	*p = (hp){.file = name, .err = err, .where = where, .f = f, .a = &f->arena, .no_split = no_split};
	p->comp_names.comps = 1;
	if (where)
		memset(where, 0, sizeof *where);
	if (!(f->path = hs_arena_strdup(p->a, name)))
		return hp_oom(p);
	if (n > HLO_TEXT_MAX_BYTES)
		return hs_fail(err, HS_EDATA, "%s: %zu bytes is more HLO text than %zu", name, n,
			       HLO_TEXT_MAX_BYTES);
	hlo_lex_init(&p->lx, text, n);
	const char *nul = NULL;
	size_t released = 0;
	for (size_t at = 0; at < n && !nul; at += 32u << 20) {
		size_t len = n - at < (32u << 20) ? n - at : 32u << 20;
		nul = memchr(text + at, '\0', len);
		release_upto(f, &released, at + len, 0);
	}
	if (nul) {
		/* text is never binary; names and kept values are C strings */
		hlo_lex_seek(&p->lx, (size_t)(nul - text));
		return hp_fail_at(p, p->lx.line, (int)(p->lx.pos - p->lx.line_start) + 1, p->lx.pos,
				  "a NUL byte (binary data is not HLO text)");
	}
	hp_next(p);
	do {
		hm_module m = {0};
		m.id = (int64_t)mods.n;
		if (module(p, &m) != 0 || hp_push(p, &mods, m) != 0) {
			free(mods.v);
			return -1;
		}
	} while (p->tok.kind != HT_EOF);
	f->n_modules = (int)mods.n;
	f->modules = hp_arena_copy(p, &mods);
	f->tuning = hs_arena_array(p->a, mods.n, sizeof *f->tuning);
	free(mods.v);
	return f->modules && f->tuning ? 0 : hp_oom(p);
}

/* Parses text[0, n), which the file keeps (text[n] must be writable or
 * already NUL: it becomes the terminator); text is freed (unmapped when
 * `mapped` is its mapping's length) on failure. */
static hm_file *parse_kept(char *text, size_t n, size_t mapped, int fd, const char *name,
			   hlo_text_where *where, hs_error *err)
{
	hm_file *f = calloc(1, sizeof *f);

	if (!f) {
		if (where)
			memset(where, 0, sizeof *where);
		if (mapped) {
			munmap(text, mapped);
			close(fd);
		} else {
			free(text);
		}
		hs_fail(err, HS_ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (text[n] != '\0')   /* a mapping's last page is zero past the end */
		text[n] = '\0';
	f->text = text;
	f->text_len = n;
	f->text_mapped = mapped;
	f->text_fd = fd;
	f->source = HM_SRC_TEXT;
	hp p;
	int rc = read_modules(&p, f, name, where, err, 0);
	if (rc && p.split_retry && !hs_progress_stopped()) {
		/* the read in two halves failed: again in one piece, for the
		 * verdict and its place as they are without threads */
		hp_free_scratch(&p);
		hs_arena_free(&f->arena);
		hs_error_clear(err);
		rc = read_modules(&p, f, name, where, err, 1);
	}
	hp_free_scratch(&p);
	if (rc) {
		hm_file_free(f);
		return NULL;
	}
	return f;
}

hm_file *hlo_text_parse_where(const char *text, size_t n, const char *name,
			      hlo_text_where *where, hs_error *err)
{
	char *copy = n < SIZE_MAX ? malloc(n + 1) : NULL;
	if (!copy) {
		if (where)
			memset(where, 0, sizeof *where);
		hs_fail(err, HS_ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	memcpy(copy, text, n);
	return parse_kept(copy, n, 0, -1, name, where, err);
}

hm_file *hlo_text_parse(const char *text, size_t n, const char *name, hs_error *err)
{
	return hlo_text_parse_where(text, n, name, NULL, err);
}

/* A regular file's text mapped read-only, when its last page has room for
 * the terminator (zero past the end); NULL when it cannot be (then the
 * text is read). */
static char *map_text(const char *path, size_t *n, size_t *mapped, int *fd_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *t = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= HLO_TEXT_MAX_BYTES && (size_t)st.st_size % page != 0) {
		size_t len = (size_t)st.st_size;
		void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, len, MADV_SEQUENTIAL);
			t = m;
			*n = len;
			*mapped = len;
			*fd_out = fd;
			return t;
		}
	}
	close(fd);
	return t;
}

hm_file *hlo_text_read_where(const char *path, hlo_text_where *where, hs_error *err)
{
	size_t n, mapped = 0;
	int fd = -1;
	if (where)
		memset(where, 0, sizeof *where);
	if (hs_input_note_path(path, err) < 0)
		return NULL;
	char *buf = map_text(path, &n, &mapped, &fd);
	if (buf && xz_sniff(buf, n)) {   /* compressed: read decompressed (xz.h) */
		munmap(buf, mapped);
		close(fd);
		buf = NULL, mapped = 0, fd = -1;
	}
	if (!buf && !(buf = xz_read_file(path, HLO_TEXT_MAX_BYTES, &n, err)))
		return NULL;
	/* xz_read_file leaves room for the terminator */
	return parse_kept(buf, n, mapped, fd, path, where, err);
}

hm_file *hlo_text_read(const char *path, hs_error *err)
{
	return hlo_text_read_where(path, NULL, err);
}

int hlo_text_caret(const hlo_text_where *w, char *buf, size_t cap)
{
	if (!w || w->line <= 0 || w->text_col <= 0)
		return cap ? (buf[0] = '\0', 0) : 0;
	return hs_caret(buf, cap, w->text, w->text_col);
}

/* Where the text begins: past a byte-order mark, blanks and comments. */
static size_t text_start(const char *s, size_t n)
{
	size_t i = 0;

	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++;
		} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
				i++;
			i += 2;
		} else {
			break;
		}
	}
	return i;
}

static int starts_word(const char *s, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);
	return i <= n && n - i >= k && memcmp(s + i, w, k) == 0 &&
	       (n - i == k || strchr(" \t\r\n@{=", s[i + k]) != NULL);
}

int hlo_text_is_mlir(const void *buf, size_t n)
{
	size_t i = text_start(buf, n);
	return starts_word(buf, n, i, "module") || starts_word(buf, n, i, "func.func") ||
	       (i + 4 <= n && memcmp((const char *)buf + i, "#loc", 4) == 0);
}

int hlo_text_sniff(const void *buf, size_t n)
{
	const char *s = buf;
	size_t i = text_start(s, n);

	if (i > n || n - i < 9 || memcmp(s + i, "HloModule", 9) != 0)
		return 0;
	if (n - i == 9)
		return 1;
	char c = s[i + 9];
	return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		 (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-');
}

/* Does a line that starts at s (n bytes of it at most) open a module? */
static int module_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	if (n - i < 9 || memcmp(s + i, "HloModule", 9) != 0)
		return 0;
	if (n - i == 9)
		return 1;
	char c = s[i + 9];
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The text in chunks: read from a file, or copied from memory (a file
 * decompressed whole). */
struct chunks {
	int fd;
	const char *mem;
	size_t left;
};

static ssize_t next_chunk(struct chunks *c, char *dst, size_t cap)
{
	if (!c->mem)
		return read(c->fd, dst, cap);
	size_t k = c->left < cap ? c->left : cap;
	memcpy(dst, c->mem, k);
	c->mem += k;
	c->left -= k;
	return (ssize_t)k;
}

int64_t hlo_text_count_modules(const char *path)
{
	/* the word is looked for (memmem skips most bytes); a hit counts when
	 * only blanks stand between it and its line's start */
	enum { CHUNK = 1 << 20, KEEP = 256 };
	struct chunks src = {open(path, O_RDONLY | O_CLOEXEC), NULL, 0};
	char *text = NULL;
	if (src.fd < 0)
		return 0;
	if (xz_is_file(path)) {
		hs_error e = {0};
		if (!(text = xz_read_file(path, HLO_TEXT_MAX_BYTES, &src.left, &e))) {
			close(src.fd);
			return 0;
		}
		src.mem = text;
	}
	char *buf = malloc(CHUNK + KEEP + 1);
	int64_t count = 0;
	size_t carry = 1;      /* buf[0, carry): the tail of the text before */
	int failed = !buf;
	if (buf)
		buf[0] = '\n';  /* the file's start is a line's start */
	while (!failed) {
		ssize_t r = next_chunk(&src, buf + carry, CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			failed = 1;
			break;
		}
		size_t end = carry + (size_t)r;
		int eof = r == 0;
		/* hits wholly inside [0, end), their line start found within
		 * the kept tail; a hit that may run past end waits for the next
		 * read unless the text has ended */
		size_t limit = eof ? end : end > KEEP ? end - KEEP : 0, from = 0;
		const char *hit;
		while (from < end && (hit = memmem(buf + from, end - from, "HloModule", 9))) {
			size_t at = (size_t)(hit - buf);
			if (at >= limit && !eof)
				break;
			size_t s = at;
			while (s > 0 && (buf[s - 1] == ' ' || buf[s - 1] == '\t' || buf[s - 1] == '\r'))
				s--;
			if (s > 0 && buf[s - 1] == '\n')
				count += module_line(buf + s, end - s < KEEP ? end - s : KEEP);
			from = at + 9;
		}
		if (eof)
			break;
		/* keep the last KEEP bytes (a hit near the end and its line's
		 * blanks before it); the first kept byte is never a hit's start */
		size_t keep = end < KEEP ? end : KEEP;
		size_t first = end - keep;
		if (from > first) {
			/* a hit counted there runs into the kept tail: keep from its
			 * last letter on, which no hit's blanks reach back past */
			memmove(buf, buf + from - 1, end - from + 1);
			carry = end - from + 1;
		} else {
			memmove(buf, buf + first, keep);
			carry = keep;
		}
	}
	free(buf);
	free(text);
	close(src.fd);
	return failed ? 0 : count;
}
