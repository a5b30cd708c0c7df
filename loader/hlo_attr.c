/* hlo_attr.c - instruction and module attributes of HLO text, through one
 * table of name -> kind.  Kinds that hloscope uses are stored in hm_instr
 * fields (window, dim_labels, slice, padding, dimensions, called
 * computations, metadata, ...); kinds it only checks (integers, booleans,
 * integer lists, words) and attributes the table does not know are kept as
 * written in hm_instr.attrs.  An unknown attribute is never an error: its
 * value is skipped by balanced brackets and strings up to the next ',' or
 * the end of the line. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hlo_parse.h"

typedef enum attr_kind {
	AK_RAW,            /* kept as text: anything with balanced brackets */
	AK_INT,            /* kept as text: N */
	AK_BOOL,           /* kept as text: true | false */
	AK_WORD,           /* kept as text: a word (direction=EQ) */
	AK_INTS,           /* kept as text: {N, ...} */
	AK_KEYVALUES,      /* kept as text: {key=value, ...} */
	AK_COMP,           /* a called computation (or a {list}), by role */
	AK_COMPS,          /* {computation, ...}, by role */
	AK_WINDOW, AK_DIM_LABELS, AK_SLICE, AK_PADDING, AK_DIMENSIONS,
	AK_DYNAMIC_SLICE_SIZES, AK_FEATURE_GROUPS, AK_BATCH_GROUPS,
	AK_IS_STABLE, AK_FUSION_KIND, AK_TARGET, AK_METADATA, AK_SHARDING,
	AK_BACKEND_CONFIG, AK_CONTROL
} attr_kind;

static const struct attr_def {
	const char *name;
	attr_kind kind;
	int role;          /* AK_COMP, AK_COMPS: enum hp_role */
	size_t len;        /* strlen(name) */
} attr_table[] = {
#define A(name, kind, role) {name, kind, role, sizeof(name) - 1}
	A("to_apply", AK_COMP, HP_TO_APPLY),
	A("calls", AK_COMP, HP_CALLS),
	A("select", AK_COMP, HP_SELECT),
	A("scatter", AK_COMP, HP_SCATTER),
	A("body", AK_COMP, HP_BODY),
	A("condition", AK_COMP, HP_CONDITION),
	A("true_computation", AK_COMP, HP_TRUE),
	A("false_computation", AK_COMP, HP_FALSE),
	A("branch_computations", AK_COMPS, HP_BRANCHES),
	A("called_computations", AK_COMPS, HP_CALLED),
	A("window", AK_WINDOW, 0),
	A("dim_labels", AK_DIM_LABELS, 0),
	A("slice", AK_SLICE, 0),
	A("padding", AK_PADDING, 0),
	A("dimensions", AK_DIMENSIONS, 0),
	A("dynamic_slice_sizes", AK_DYNAMIC_SLICE_SIZES, 0),
	A("feature_group_count", AK_FEATURE_GROUPS, 0),
	A("batch_group_count", AK_BATCH_GROUPS, 0),
	A("is_stable", AK_IS_STABLE, 0),
	A("kind", AK_FUSION_KIND, 0),
	A("custom_call_target", AK_TARGET, 0),
	A("metadata", AK_METADATA, 0),
	A("sharding", AK_SHARDING, 0),
	A("backend_config", AK_BACKEND_CONFIG, 0),
	A("control-predecessors", AK_CONTROL, 0),
	A("channel_id", AK_INT, 0),
	A("index", AK_INT, 0),
	A("iota_dimension", AK_INT, 0),
	A("index_vector_dim", AK_INT, 0),
	A("exponent_bits", AK_INT, 0),
	A("mantissa_bits", AK_INT, 0),
	A("use_global_device_ids", AK_BOOL, 0),
	A("constrain_layout", AK_BOOL, 0),
	A("indices_are_sorted", AK_BOOL, 0),
	A("unique_indices", AK_BOOL, 0),
	A("custom_call_has_side_effect", AK_BOOL, 0),
	A("is_host_transfer", AK_BOOL, 0),
	A("direction", AK_WORD, 0),
	A("type", AK_WORD, 0),
	A("api_version", AK_WORD, 0),
	A("distribution", AK_WORD, 0),
	A("fft_type", AK_WORD, 0),
	A("padding_type", AK_WORD, 0),
	A("lhs_contracting_dims", AK_INTS, 0),
	A("rhs_contracting_dims", AK_INTS, 0),
	A("lhs_batch_dims", AK_INTS, 0),
	A("rhs_batch_dims", AK_INTS, 0),
	A("offset_dims", AK_INTS, 0),
	A("collapsed_slice_dims", AK_INTS, 0),
	A("start_index_map", AK_INTS, 0),
	A("slice_sizes", AK_INTS, 0),
	A("update_window_dims", AK_INTS, 0),
	A("inserted_window_dims", AK_INTS, 0),
	A("scatter_dims_to_operand_dims", AK_INTS, 0),
	A("operand_batching_dims", AK_INTS, 0),
	A("start_indices_batching_dims", AK_INTS, 0),
	A("input_batching_dims", AK_INTS, 0),
	A("scatter_indices_batching_dims", AK_INTS, 0),
	A("fft_length", AK_INTS, 0),
	A("frontend_attributes", AK_KEYVALUES, 0),
#undef A
};
#define N_ATTRS (sizeof attr_table / sizeof attr_table[0])

static const struct attr_def *attr_find(const char *s, size_t len)
{
	for (size_t i = 0; i < N_ATTRS; i++)
		if (attr_table[i].len == len && memcmp(attr_table[i].name, s, len) == 0)
			return &attr_table[i];
	return NULL;
}

/* ---- small values --------------------------------------------------- */

/* One signed integer of text[0, n); -1 when it is not one. */
static int parse_i64(const char *s, size_t n, int64_t *v)
{
	size_t i = 0;
	int neg = 0;
	uint64_t x = 0;

	if (n && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (x > (uint64_t)INT64_MAX + neg)
		return -1;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

/* The current token (an integer or a word such as 3x3 or 1_1x0_0) split at
 * `major` ('x'), each part split at '_' into `min_parts`..`max_parts`
 * integers.  Fills out[part * max_parts + k] (missing ones 0) in the arena;
 * *n gets the number of major parts. */
static int compact_ints(hp *p, char major, int min_parts, int max_parts,
			int64_t **out, int *n, const char *what, const char *hint)
{
	if (p->tok.kind != HT_INT && p->tok.kind != HT_WORD)
		return hp_expected(p, what);
	const char *s = p->tok.text, *end = s + p->tok.len;
	int count = 1;
	for (const char *c = s; c < end; c++)
		count += *c == major;
	int64_t *v = hs_arena_array(p->a, (size_t)count * (size_t)max_parts, sizeof *v);
	if (!v)
		return hp_oom(p);
	for (int i = 0; i < count; i++) {
		const char *e = memchr(s, major, (size_t)(end - s));
		if (!e)
			e = end;
		int k = 0;
		while (s <= e) {
			const char *u = memchr(s, '_', (size_t)(e - s));
			if (!u)
				u = e;
			if (k >= max_parts || parse_i64(s, (size_t)(u - s), &v[i * max_parts + k]) != 0)
				return hp_fail(p, "bad %s '%.*s' (%s)", what,
					       (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text, hint);
			k++;
			s = u + 1;
		}
		if (k < min_parts)
			return hp_fail(p, "bad %s '%.*s' (%s)", what,
				       (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text, hint);
	}
	*out = v;
	*n = count;
	hp_next(p);
	return 0;
}

/* Keeps the text from byte offset `start` to the previous token as the
 * attribute's value. */
static int keep_text(hp *p, const char *name, size_t start)
{
	hm_attr a;
	a.name = (char *)name;
	a.value = hs_arena_strndup(p->a, p->lx.buf + start, p->prev_end - start);
	if (!a.value)
		return hp_oom(p);
	return HP_PUSH(p, attrs, a);
}

/* A balanced {...} group from the current '{', skipped. */
static int skip_group(hp *p, const char *what)
{
	char *v;
	if (p->tok.kind != HT_LBRACE)
		return hp_expected(p, what);
	return hp_raw(p, HLS_ONE, &v, what);
}

/* '{' [INT (',' INT)*] '}', checked only. */
static int check_ints(hp *p, const char *what)
{
	if (hp_expect(p, HT_LBRACE, what) != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		int64_t v;
		if (hp_int(p, &v, "an integer") != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	return hp_expect(p, HT_RBRACE, what);
}

/* '{' [key '=' value (',' key '=' value)*] '}' (frontend_attributes). */
static int check_keyvalues(hp *p)
{
	if (hp_expect(p, HT_LBRACE, "to open the list") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		const char *s;
		size_t len;
		if (p->tok.kind == HT_STRING)
			hp_next(p);
		else if (hp_name(p, &s, &len, "a key") != 0)
			return -1;
		if (hp_expect(p, HT_EQUAL, "after the key") != 0)
			return -1;
		if (p->tok.kind == HT_LBRACE) {
			if (skip_group(p, "a value") != 0)
				return -1;
		} else if (p->tok.kind == HT_STRING || p->tok.kind == HT_WORD ||
			   p->tok.kind == HT_INT || p->tok.kind == HT_FLOAT) {
			hp_next(p);
		} else {
			return hp_expected(p, "a value");
		}
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	return hp_expect(p, HT_RBRACE, "to close the list");
}

/* ---- called computations -------------------------------------------- */

static int callee(hp *p, int role)
{
	hp_callee c = {role, p->tok.text, p->tok.len, p->tok.line, p->tok.col, p->tok.pos};
	p->bare_names |= !p->tok.pct;
	const char *s;
	size_t len;
	if (hp_name(p, &s, &len, "a computation name") != 0)
		return -1;
	return HP_PUSH(p, callees, c);
}

static int callees(hp *p, int role, int list_only)
{
	if (!list_only && p->tok.kind != HT_LBRACE)
		return callee(p, role);
	if (hp_expect(p, HT_LBRACE, "to open the computation list") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		if (callee(p, role) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	return hp_expect(p, HT_RBRACE, "to close the computation list");
}

static int control_predecessors(hp *p)
{
	if (hp_expect(p, HT_LBRACE, "to open the list") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		hlo_tok at = p->tok;
		const char *s;
		size_t len;
		p->bare_names |= !p->tok.pct;
		if (hp_name(p, &s, &len, "an instruction name") != 0)
			return -1;
		int idx = hp_names_find(p, &p->instr_names, s, len);
		if (idx < 0)
			return hp_fail_at(p, at.line, at.col, at.pos,
					  "unknown control predecessor '%.*s' in computation '%s'",
					  (int)(len > 200 ? 200 : len), s, p->comp_name);
		int64_t id = p->instrs.v[idx].id;
		if (HP_PUSH(p, ctrl, id) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	return hp_expect(p, HT_RBRACE, "to close the list");
}

/* ---- window, dim_labels, slice, padding ----------------------------- */

/* {size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1
 *  rhs_reversal=0x1}, defaults filled: stride and dilations 1, pads 0. */
static int window(hp *p, hm_instr_x *x)
{
	static const char *const keys[] = {"size", "stride", "pad", "lhs_dilate",
					   "rhs_dilate", "rhs_reversal"};
	int64_t *v[6] = {0};
	int n[6] = {0};
	hlo_tok open = p->tok;

	if (hp_expect(p, HT_LBRACE, "to open the window") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		const char *s;
		size_t len;
		int k = -1;
		hlo_tok at = p->tok;
		if (hp_name(p, &s, &len, "a window field (size, stride, pad, ...)") != 0)
			return -1;
		for (int i = 0; i < 6; i++)
			if (strlen(keys[i]) == len && memcmp(keys[i], s, len) == 0)
				k = i;
		if (k < 0)
			return hp_fail_at(p, at.line, at.col, at.pos, "unknown window field '%.*s'",
					  (int)(len > 60 ? 60 : len), s);
		if (hp_expect(p, HT_EQUAL, "after the window field") != 0 ||
		    compact_ints(p, 'x', k == 2 ? 2 : 1, k == 2 ? 2 : 1, &v[k], &n[k],
				 k == 2 ? "window pad" : "window value",
				 k == 2 ? "low_high per dimension, joined by x"
				 : "one integer per dimension, joined by x") != 0)
			return -1;
		hp_accept(p, HT_COMMA);
	}
	hp_next(p);
	for (int k = 1; k < 6; k++)
		if (v[k] && n[k] != n[0])
			return hp_fail_at(p, open.line, open.col, open.pos,
					  "window %s does not match its size (%d vs %d dimensions)",
					  keys[k], n[k], n[0]);
	if (!v[0])
		return 0;
	x->n_window = n[0];
	x->window = hs_arena_array(p->a, (size_t)n[0], sizeof *x->window);
	if (!x->window)
		return hp_oom(p);
	for (int i = 0; i < n[0]; i++) {
		hm_window_dim *w = &x->window[i];
		w->size = v[0][i];
		w->stride = v[1] ? v[1][i] : 1;
		w->padding_low = v[2] ? v[2][2 * i] : 0;
		w->padding_high = v[2] ? v[2][2 * i + 1] : 0;
		w->base_dilation = v[3] ? v[3][i] : 1;
		w->window_dilation = v[4] ? v[4][i] : 1;
		w->window_reversal = v[5] ? v[5][i] != 0 : 0;
	}
	return 0;
}

/* One side of dim_labels: the positions of the two letters and of the
 * digits 0..k-1; -1 when malformed. */
static int label_side(const char *s, size_t n, char a, char b, int64_t *ia,
		      int64_t *ib, int64_t *spatial, int *n_spatial)
{
	int have = 0;
	*ia = *ib = -1;
	for (int d = 0; d < 10; d++)
		spatial[d] = -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == a && *ia < 0) {
			*ia = (int64_t)i;
		} else if (c == b && *ib < 0) {
			*ib = (int64_t)i;
		} else if (c >= '0' && c <= '9' && spatial[c - '0'] < 0) {
			spatial[c - '0'] = (int64_t)i;
			have++;
		} else {
			return -1;
		}
	}
	for (int d = 0; d < have; d++)
		if (spatial[d] < 0)
			return -1;
	*n_spatial = have;
	return *ia >= 0 && *ib >= 0 ? 0 : -1;
}

/* b01f_01io->b01f: b batch, f feature, digits spatial in order; kernel i
 * input feature, o output feature. */
static int dim_labels(hp *p, hm_instr_x *x)
{
	hlo_tok lhs = p->tok;
	int64_t sp[3][10];
	int ns[3];
	hm_conv_dims *c = &x->conv;

	if (p->tok.kind != HT_WORD)
		return hp_expected(p, "dim_labels such as b01f_01io->b01f");
	hp_next(p);
	hlo_tok out = p->tok;
	if (hp_expect(p, HT_ARROW, "in dim_labels") != 0)
		return -1;
	out = p->tok;
	if (p->tok.kind != HT_WORD && p->tok.kind != HT_INT)
		return hp_expected(p, "the output labels");
	hp_next(p);
	const char *u = memchr(lhs.text, '_', lhs.len);
	if (!u || label_side(lhs.text, (size_t)(u - lhs.text), 'b', 'f', &c->input_batch,
			     &c->input_feature, sp[0], &ns[0]) != 0 ||
	    label_side(u + 1, lhs.len - (size_t)(u - lhs.text) - 1, 'i', 'o',
		       &c->kernel_input_feature, &c->kernel_output_feature, sp[1], &ns[1]) != 0 ||
	    label_side(out.text, out.len, 'b', 'f', &c->output_batch, &c->output_feature,
		       sp[2], &ns[2]) != 0 ||
	    ns[0] != ns[1] || ns[0] != ns[2])
		return hp_fail_at(p, lhs.line, lhs.col, lhs.pos,
				  "bad dim_labels '%.*s->%.*s' (expected like b01f_01io->b01f)",
				  (int)(lhs.len > 40 ? 40 : lhs.len), lhs.text,
				  (int)(out.len > 40 ? 40 : out.len), out.text);
	int64_t **dst[3] = {&c->input_spatial, &c->kernel_spatial, &c->output_spatial};
	for (int k = 0; k < 3; k++) {
		if (!ns[k])
			continue;
		*dst[k] = hs_arena_array(p->a, (size_t)ns[k], sizeof(int64_t));
		if (!*dst[k])
			return hp_oom(p);
		memcpy(*dst[k], sp[k], (size_t)ns[k] * sizeof(int64_t));
	}
	c->n_input_spatial = ns[0];
	c->n_kernel_spatial = ns[1];
	c->n_output_spatial = ns[2];
	c->present = 1;
	return 0;
}

/* {[start:limit(:stride)], ...}; stride defaults to 1. */
static int slice(hp *p, hm_instr_x *x)
{
	p->slices.n = 0;
	if (hp_expect(p, HT_LBRACE, "to open the slice") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		struct hp_slice s = {0, 0, 1};
		if (hp_expect(p, HT_LBRACKET, "to open a slice dimension") != 0 ||
		    hp_int(p, &s.start, "a slice start") != 0 ||
		    hp_expect(p, HT_COLON, "after the slice start") != 0 ||
		    hp_int(p, &s.limit, "a slice limit") != 0)
			return -1;
		if (hp_accept(p, HT_COLON) && hp_int(p, &s.stride, "a slice stride") != 0)
			return -1;
		if (hp_expect(p, HT_RBRACKET, "to close the slice dimension") != 0 ||
		    HP_PUSH(p, slices, s) != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	if (hp_expect(p, HT_RBRACE, "to close the slice") != 0)
		return -1;
	int n = (int)p->slices.n;
	const struct hp_slice *s = p->slices.v;
	x->n_slice = n;
	if (!n)
		return 0;
	x->slice_start = hs_arena_array(p->a, (size_t)n * 3, sizeof(int64_t));
	if (!x->slice_start)
		return hp_oom(p);
	x->slice_limit = x->slice_start + n;
	x->slice_stride = x->slice_start + 2 * n;
	for (int i = 0; i < n; i++) {
		x->slice_start[i] = s[i].start;
		x->slice_limit[i] = s[i].limit;
		x->slice_stride[i] = s[i].stride;
	}
	return 0;
}

/* low_high[_interior] per dimension, joined by 'x': 0_0x0_6, 1_1_2. */
static int padding(hp *p, hm_instr_x *x)
{
	int64_t *v;
	int n;
	if (compact_ints(p, 'x', 2, 3, &v, &n, "padding",
			 "low_high or low_high_interior per dimension, joined by x") != 0)
		return -1;
	int64_t *a = hs_arena_array(p->a, (size_t)n * 3, sizeof *a);
	if (!a)
		return hp_oom(p);
	x->n_padding = n;
	x->pad_low = a;
	x->pad_high = a + n;
	x->pad_interior = a + 2 * n;
	for (int i = 0; i < n; i++) {
		x->pad_low[i] = v[3 * i];
		x->pad_high[i] = v[3 * i + 1];
		x->pad_interior[i] = v[3 * i + 2];
	}
	return 0;
}

/* ---- metadata, sharding, backend_config ----------------------------- */

/* {op_type="..." op_name="..." source_file="..." source_line=N ...}: the
 * four into fields (stack_frame_id becomes source_file and source_line at
 * the module's end, from the stack frame tables), every other field kept
 * as written, one space between them, as the "metadata" attribute. */
static int metadata(hp *p, hm_instr *in)
{
	hs_strbuf_reset(&p->extra);
	if (hp_expect(p, HT_LBRACE, "to open the metadata") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACE) {
		const char *s;
		size_t len, field = p->tok.pos;
		if (hp_name(p, &s, &len, "a metadata field") != 0 ||
		    hp_expect(p, HT_EQUAL, "after the metadata field") != 0)
			return -1;
#define IS(k) (len == sizeof(k) - 1 && memcmp(s, k, len) == 0)
		int rc = 0;
		if (IS("op_type"))
			rc = hp_string(p, &in->op_type, "a string");
		else if (IS("op_name"))
			rc = hp_string(p, &in->op_name, "a string");
		else if (IS("source_file"))
			rc = hp_string(p, &in->source_file, "a string");
		else if (IS("source_line")) {
			int64_t line;
			hlo_tok at = p->tok;
			rc = hp_int(p, &line, "a line number");
			if (!rc && (line < INT32_MIN || line > INT32_MAX))
				rc = hp_fail_at(p, at.line, at.col, at.pos,
						"source_line %lld is out of range (a 32-bit number)",
						(long long)line);
			in->source_line = rc ? 0 : (int)line;
		}
		else if (IS("stack_frame_id"))
			rc = hp_int(p, &p->frame_id, "a stack frame id");
		else {
			if (p->tok.kind == HT_LBRACE)
				rc = skip_group(p, "a value");
			else if (p->tok.kind == HT_STRING || p->tok.kind == HT_INT ||
				 p->tok.kind == HT_FLOAT || p->tok.kind == HT_WORD)
				hp_next(p);
			else
				rc = hp_expected(p, "a value");
			if (p->extra.len)
				hs_strbuf_putc(&p->extra, ' ');
			hs_strbuf_putn(&p->extra, p->lx.buf + field, p->prev_end - field);
		}
#undef IS
		if (rc != 0)
			return -1;
		hp_accept(p, HT_COMMA);
	}
	hp_next(p);
	if (p->extra.failed)
		return hp_oom(p);
	if (!p->extra.len)
		return 0;
	hm_attr a = {"metadata", hs_arena_strndup(p->a, p->extra.s, p->extra.len)};
	return a.value ? HP_PUSH(p, attrs, a) : hp_oom(p);
}

/* Integers separated by commas, as long as one follows. */
static int int_run(hp *p)
{
	for (;;) {
		int64_t v;
		if (hp_int(p, &v, "a device") != 0)
			return -1;
		if (!(p->tok.kind == HT_COMMA && hp_peek(p) == HT_INT))
			return 0;
		hp_next(p);
	}
}

/* '[' INT (',' INT)* ']' */
static int bracket_ints(hp *p)
{
	if (hp_expect(p, HT_LBRACKET, "to open the tile shape") != 0)
		return -1;
	while (p->tok.kind != HT_RBRACKET) {
		int64_t v;
		if (hp_int(p, &v, "an integer") != 0)
			return -1;
		if (!hp_accept(p, HT_COMMA))
			break;
	}
	return hp_expect(p, HT_RBRACKET, "to close the tile shape");
}

/* The value of a sharding item: devices=[2,1]0,1 | devices=[16,1]<=[16]
 * (T(1,0)) | device=N | {group} | a word, number or string. */
static int sharding_value(hp *p)
{
	if (p->tok.kind == HT_LBRACKET) {
		if (bracket_ints(p) != 0)
			return -1;
		if (hp_accept(p, HT_LEQ)) {
			if (bracket_ints(p) != 0)
				return -1;
			if (hp_is_word(p, "T") && hp_peek(p) == HT_LPAREN) {
				hp_next(p);
				hp_next(p);
				while (p->tok.kind != HT_RPAREN) {
					int64_t v;
					if (hp_int(p, &v, "a dimension") != 0)
						return -1;
					if (!hp_accept(p, HT_COMMA))
						break;
				}
				return hp_expect(p, HT_RPAREN, "after the transpose");
			}
			return 0;
		}
		return p->tok.kind == HT_INT ? int_run(p) : 0;
	}
	if (p->tok.kind == HT_LBRACE)
		return skip_group(p, "a value");
	if (p->tok.kind == HT_INT || p->tok.kind == HT_WORD || p->tok.kind == HT_STRING) {
		hp_next(p);
		return 0;
	}
	return hp_expected(p, "a sharding value");
}

/* {replicated} | {maximal device=0} | {devices=[2,1]0,1 ...} | {{...}, ...} */
static int sharding(hp *p)
{
	int rc = -1;
	if (++p->depth > HLO_TEXT_MAX_DEPTH)
		return hp_fail(p, "sharding nested deeper than %d levels", HLO_TEXT_MAX_DEPTH);
	if (hp_expect(p, HT_LBRACE, "to open the sharding") != 0)
		goto done;
	if (p->tok.kind == HT_LBRACE) {
		for (;;) {
			if (sharding(p) != 0)
				goto done;
			if (!hp_accept(p, HT_COMMA))
				break;
		}
	} else {
		while (p->tok.kind != HT_RBRACE) {
			const char *s;
			size_t len;
			if (hp_name(p, &s, &len, "a sharding (replicated, maximal, devices=...)") != 0)
				goto done;
			if (hp_accept(p, HT_EQUAL) && sharding_value(p) != 0)
				goto done;
			hp_accept(p, HT_COMMA);
		}
	}
	rc = hp_expect(p, HT_RBRACE, "to close the sharding");
done:
	p->depth--;
	return rc;
}

/* backend_config="..." (JSON or escaped bytes) or a bare JSON {...}, kept
 * as written. */
static int backend_config(hp *p, hm_instr_x *x)
{
	if (p->tok.kind == HT_STRING) {
		x->backend_config = hs_arena_strndup(p->a, p->tok.text, p->tok.len);
		if (!x->backend_config)
			return hp_oom(p);
		hp_next(p);
		return 0;
	}
	return hp_raw(p, p->tok.kind == HT_LBRACE ? HLS_ONE : HLS_COMMA | HLS_LINE,
		      &x->backend_config, "the backend_config");
}

/* ---- the attribute -------------------------------------------------- */

static int number_attr(hp *p, int64_t *dst, const char *what)
{
	if (hp_int(p, dst, what) != 0)
		return -1;
	return 0;
}

static int bool_attr(hp *p, int *dst)
{
	if (hp_is_word(p, "true") || hp_is_word(p, "false")) {
		if (dst)
			*dst = p->tok.text[0] == 't';
		hp_next(p);
		return 0;
	}
	return hp_expected(p, "true or false");
}

/* The value of a known attribute stored in a field. */
static int field_value(hp *p, const struct attr_def *d, hm_instr *in)
{
	size_t start = p->tok.pos;

	if ((d->kind == AK_COMP || d->kind == AK_COMPS) && !in->call_attr)
		in->call_attr = (uint8_t)(d->role + 1);   /* enum hm_call_attr: the role, + 1 */
	switch (d->kind) {
	case AK_COMP: return callees(p, d->role, 0);
	case AK_COMPS: return callees(p, d->role, 1);
	case AK_DIMENSIONS: return hp_int_list(p, &in->dimensions, &in->n_dimensions, "dimensions");
	case AK_FUSION_KIND:
		if (p->tok.kind != HT_WORD)
			return hp_expected(p, "a fusion kind (kLoop, kInput, kOutput, kCustom)");
		in->fusion_kind = hs_arena_strndup(p->a, p->tok.text, p->tok.len);
		hp_next(p);
		return in->fusion_kind ? 0 : hp_oom(p);
	case AK_METADATA: return metadata(p, in);
	case AK_SHARDING:
		if (sharding(p) != 0)
			return -1;
		in->sharding = hs_arena_strndup(p->a, p->lx.buf + start, p->prev_end - start);
		return in->sharding ? 0 : hp_oom(p);
	case AK_CONTROL: return control_predecessors(p);
	default:
		break;
	}
	/* the rest live in the instruction's rare fields */
	hm_instr_x *x = hm_instr_x_make(p->a, in);
	if (!x)
		return hp_oom(p);
	switch (d->kind) {
	case AK_TARGET: return hp_string(p, &x->custom_call_target, "a string");
	case AK_WINDOW: return window(p, x);
	case AK_DIM_LABELS: return dim_labels(p, x);
	case AK_SLICE: return slice(p, x);
	case AK_PADDING: return padding(p, x);
	case AK_DYNAMIC_SLICE_SIZES:
		return hp_int_list(p, &x->dynamic_slice_sizes, &x->n_dynamic_slice_sizes, "dynamic_slice_sizes");
	case AK_FEATURE_GROUPS: return number_attr(p, &x->feature_group_count, "a group count");
	case AK_BATCH_GROUPS: return number_attr(p, &x->batch_group_count, "a group count");
	case AK_IS_STABLE: return bool_attr(p, &x->is_stable);
	case AK_BACKEND_CONFIG: return backend_config(p, x);
	default: return -1;
	}
}

/* The value of an attribute kept as text, checked by kind. */
static int text_value(hp *p, attr_kind kind, const char *name)
{
	size_t start = p->tok.pos;
	int64_t v;
	char *raw;

	switch (kind) {
	case AK_INT:
		if (hp_int(p, &v, "an integer") != 0)
			return -1;
		break;
	case AK_BOOL:
		if (bool_attr(p, NULL) != 0)
			return -1;
		break;
	case AK_WORD:
		if (p->tok.kind != HT_WORD)
			return hp_expected(p, "a word");
		hp_next(p);
		break;
	case AK_INTS:
		if (check_ints(p, "a list of integers") != 0)
			return -1;
		break;
	case AK_KEYVALUES:
		if (check_keyvalues(p) != 0)
			return -1;
		break;
	default:
		if (hp_raw(p, HLS_COMMA | HLS_LINE, &raw, "the attribute value") != 0)
			return -1;
		hm_attr a = {(char *)name, raw};
		return HP_PUSH(p, attrs, a);
	}
	return keep_text(p, name, start);
}

int hp_attribute(hp *p, hm_instr *in)
{
	hlo_tok at = p->tok;
	const char *s;
	size_t len;

	/* XLA's attribute names are bare words that start with a letter or
	 * '_': "%x=" or "-x=" is a misplaced instruction, not an attribute
	 * (and could not be printed back) */
	if (p->tok.kind != HT_WORD || p->tok.pct ||
	    !(isalpha((unsigned char)p->tok.text[0]) || p->tok.text[0] == '_'))
		return hp_expected(p, "an attribute name");
	if (hp_name(p, &s, &len, "an attribute name") != 0)
		return -1;
	const struct hp_span *seen = p->seen.v;
	for (size_t i = 0; i < p->seen.n; i++)
		if (seen[i].len == len && memcmp(seen[i].s, s, len) == 0)
			return hp_fail_at(p, at.line, at.col, at.pos,
					  "attribute '%.*s' is given twice", (int)(len > 60 ? 60 : len), s);
	struct hp_span sp = {s, len};
	if (HP_PUSH(p, seen, sp) != 0 || hp_expect(p, HT_EQUAL, "after the attribute name") != 0)
		return -1;
	const struct attr_def *d = attr_find(s, len);
	if (d && d->kind >= AK_COMP)
		return field_value(p, d, in);
	const char *name = d ? d->name : hs_arena_strndup(p->a, s, len);
	if (!name)
		return hp_oom(p);
	return text_value(p, d ? d->kind : AK_RAW, name);
}

int hp_attribute_defaults(hp *p, hm_instr *in)
{
	if (strcmp(in->opcode, "convolution") == 0) {
		hm_instr_x *x = hm_instr_x_make(p->a, in);
		if (!x)
			return hp_oom(p);
		if (x->feature_group_count == HM_NONE)
			x->feature_group_count = 1;
		if (x->batch_group_count == HM_NONE)
			x->batch_group_count = 1;
	}
	return 0;
}

/* ---- module header -------------------------------------------------- */

/* {(shape, ...)->shape}: the entry computation's layout. */
static int entry_layout(hp *p)
{
	if (hp_expect(p, HT_LBRACE, "to open the layout") != 0)
		return -1;
	if (p->tok.kind != HT_LPAREN)
		return hp_expected(p, "'(' and the parameter shapes");
	if (hp_shape(p, NULL) != 0 || hp_expect(p, HT_ARROW, "before the result shape") != 0 ||
	    hp_shape(p, NULL) != 0)
		return -1;
	return hp_expect(p, HT_RBRACE, "to close the layout");
}

int hp_module_attribute(hp *p)
{
	const char *s;
	size_t len;
	hm_attr a;

	if (hp_name(p, &s, &len, "a module attribute") != 0 ||
	    hp_expect(p, HT_EQUAL, "after the attribute name") != 0)
		return -1;
	a.name = hs_arena_strndup(p->a, s, len);
	if (!a.name)
		return hp_oom(p);
	size_t start = p->tok.pos;
	if (len == 24 && memcmp(s, "entry_computation_layout", 24) == 0) {
		if (entry_layout(p) != 0)
			return -1;
		a.value = hs_arena_strndup(p->a, p->lx.buf + start, p->prev_end - start);
		if (!a.value)
			return hp_oom(p);
	} else if (hp_raw(p, HLS_COMMA | HLS_LINE, &a.value, "the attribute value") != 0) {
		return -1;
	}
	return HP_PUSH(p, mod_attrs, a);
}
