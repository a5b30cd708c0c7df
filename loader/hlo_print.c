/* hlo_print.c - HLO text and a structural dump from an hm_module (see
 * hlo_print.h). */
#include "hlo_print.h"

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"

/* ---- shapes --------------------------------------------------------- */

/* snprintf into buf + *len, keeping *len the full length. */
static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len < cap) {
		size_t room = cap - *len - 1;
		memcpy(buf + *len, s, n < room ? n : room);
		buf[*len + (n < room ? n : room)] = '\0';
	}
	*len += n;
}

static void put_i64(char *buf, size_t cap, size_t *len, int64_t v)
{
	char t[24];
	int n = snprintf(t, sizeof t, "%lld", (long long)v);
	put(buf, cap, len, t, (size_t)n);
}

static void shape_text(const hm_shape *s, int with_layout, char *buf, size_t cap,
		       size_t *len, int depth)
{
	if (s->element_type == HM_TUPLE) {
		put(buf, cap, len, "(", 1);
		for (int i = 0; i < s->n_tuple; i++) {
			if (i)
				put(buf, cap, len, ", ", 2);
			if (depth < 64)
				shape_text(&s->tuple[i], with_layout, buf, cap, len, depth + 1);
		}
		put(buf, cap, len, ")", 1);
		return;
	}
	const char *t = hm_element_type_name(s->element_type);
	put(buf, cap, len, t, strlen(t));
	put(buf, cap, len, "[", 1);
	for (int i = 0; i < s->rank; i++) {
		if (i)
			put(buf, cap, len, ",", 1);
		int dyn = s->dynamic && s->dynamic[i];
		if (dyn && s->dims[i] < 0) {
			put(buf, cap, len, "?", 1);
			continue;
		}
		if (dyn)
			put(buf, cap, len, "<=", 2);
		put_i64(buf, cap, len, s->dims[i]);
	}
	put(buf, cap, len, "]", 1);
	if (!with_layout || !s->has_layout || (s->layout_rank == 0 && !s->layout_extra))
		return;
	put(buf, cap, len, "{", 1);
	for (int i = 0; i < s->layout_rank; i++) {
		if (i)
			put(buf, cap, len, ",", 1);
		put_i64(buf, cap, len, s->minor_to_major[i]);
	}
	if (s->layout_extra) {
		put(buf, cap, len, ":", 1);
		put(buf, cap, len, s->layout_extra, strlen(s->layout_extra));
	}
	put(buf, cap, len, "}", 1);
}

/* The shape into b (a deep tuple may be long: measured first). */
static void put_shape(hs_strbuf *b, const hm_shape *s, int with_layout)
{
	char small[256];
	size_t n = 0;
	small[0] = '\0';
	shape_text(s, with_layout, small, sizeof small, &n, 0);
	if (n < sizeof small) {
		hs_strbuf_putn(b, small, n);
		return;
	}
	char *big = malloc(n + 1);
	if (!big) {
		b->failed = 1;
		return;
	}
	size_t m = 0;
	big[0] = '\0';
	shape_text(s, with_layout, big, n + 1, &m, 0);
	hs_strbuf_putn(b, big, n);
	free(big);
}

/* b's text to out: 0, or -1 when it could not be made or written. */
static int flush(FILE *out, hs_strbuf *b)
{
	int rc = b->failed || (b->len && fwrite(b->s, 1, b->len, out) != b->len) ? -1 : 0;
	hs_strbuf_reset(b);
	return rc;
}

void hm_shape_print(FILE *out, const hm_shape *s, int with_layout)
{
	hs_strbuf b = {0};
	put_shape(&b, s, with_layout);
	flush(out, &b);
	hs_strbuf_free(&b);
}

/* ---- names and strings ---------------------------------------------- */

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* name, with bytes that would not read back as a word written as '_'. */
static void put_word(hs_strbuf *b, const char *name)
{
	if (!name || !*name) {
		hs_strbuf_putc(b, '_');
		return;
	}
	for (const char *s = name; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '-' && s[1] == '>')
			c = '_';
		hs_strbuf_putc(b, word_byte(c) ? (char)c : '_');
	}
}

/* %name, or name when `bare`. */
static void put_name(hs_strbuf *b, const char *name, int bare)
{
	if (!bare)
		hs_strbuf_putc(b, '%');
	put_word(b, name);
}

/* Byte c as put_string writes it (as absl::CEscape, XLA's, does, but for
 * UTF-8, kept), into e: its length. */
static int escape_byte(unsigned char c, char e[5])
{
	if (c == '"' || c == '\\' || c == '\'')
		return snprintf(e, 5, "\\%c", c);
	if (c == '\n' || c == '\t' || c == '\r')
		return snprintf(e, 5, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
	if (c < 0x20 || c == 0x7f)
		return snprintf(e, 5, "\\%03o", c);
	e[0] = (char)c;
	e[1] = '\0';
	return 1;
}

/* "text" with C escapes, as XLA writes strings. */
static void put_string(hs_strbuf *b, const char *s)
{
	char e[5];
	hs_strbuf_putc(b, '"');
	for (; *s; s++)
		hs_strbuf_putn(b, e, (size_t)escape_byte((unsigned char)*s, e));
	hs_strbuf_putc(b, '"');
}

static void put_ints(hs_strbuf *b, const int64_t *v, int n, const char *sep)
{
	for (int i = 0; i < n; i++)
		hs_strbuf_printf(b, "%s%lld", i ? sep : "", (long long)v[i]);
}

/* ---- attributes stored in fields --------------------------------------- */

/* Is a window field (at byte offset `off` of hm_window_dim) x in every
 * dimension? */
static int window_all(const hm_instr *in, size_t off, int64_t x)
{
	for (int i = 0; i < HM_X(in)->n_window; i++) {
		int64_t v;
		memcpy(&v, (const char *)&HM_X(in)->window[i] + off, sizeof v);
		if (v != x)
			return 0;
	}
	return 1;
}

/* A window field across the dimensions, joined by 'x'. */
static void put_window_field(hs_strbuf *b, const hm_instr *in, const char *name, size_t off)
{
	hs_strbuf_printf(b, "%s%s=", strcmp(name, "size") ? " " : "", name);
	for (int i = 0; i < HM_X(in)->n_window; i++) {
		const hm_window_dim *w = &HM_X(in)->window[i];
		int64_t v;
		memcpy(&v, (const char *)w + off, sizeof v);
		if (i)
			hs_strbuf_putc(b, 'x');
		if (off == offsetof(hm_window_dim, padding_low))
			hs_strbuf_printf(b, "%lld_%lld", (long long)w->padding_low, (long long)w->padding_high);
		else
			hs_strbuf_printf(b, "%lld", (long long)v);
	}
}

/* {size=3x3 stride=2x2 pad=1_1x1_1 ...}, fields at their default left out. */
static void put_window(hs_strbuf *b, const hm_instr *in)
{
	int rev = 0;

	for (int i = 0; i < HM_X(in)->n_window; i++)
		rev |= HM_X(in)->window[i].window_reversal;
	hs_strbuf_putc(b, '{');
	put_window_field(b, in, "size", offsetof(hm_window_dim, size));
	if (!window_all(in, offsetof(hm_window_dim, stride), 1))
		put_window_field(b, in, "stride", offsetof(hm_window_dim, stride));
	if (!window_all(in, offsetof(hm_window_dim, padding_low), 0) ||
	    !window_all(in, offsetof(hm_window_dim, padding_high), 0))
		put_window_field(b, in, "pad", offsetof(hm_window_dim, padding_low));
	if (!window_all(in, offsetof(hm_window_dim, base_dilation), 1))
		put_window_field(b, in, "lhs_dilate", offsetof(hm_window_dim, base_dilation));
	if (!window_all(in, offsetof(hm_window_dim, window_dilation), 1))
		put_window_field(b, in, "rhs_dilate", offsetof(hm_window_dim, window_dilation));
	if (rev) {
		hs_strbuf_puts(b, " rhs_reversal=");
		for (int i = 0; i < HM_X(in)->n_window; i++)
			hs_strbuf_printf(b, "%s%d", i ? "x" : "", HM_X(in)->window[i].window_reversal ? 1 : 0);
	}
	hs_strbuf_putc(b, '}');
}

/* One side of dim_labels from the dimension numbers. */
static void put_labels(hs_strbuf *b, int64_t x, int64_t y, char cx, char cy, const int64_t *spatial, int n)
{
	int rank = n + 2;
	for (int pos = 0; pos < rank; pos++) {
		char c = '?';
		if (pos == x)
			c = cx;
		else if (pos == y)
			c = cy;
		for (int d = 0; d < n && d < 10; d++)
			if (spatial[d] == pos)
				c = (char)('0' + d);
		hs_strbuf_putc(b, c);
	}
}

static void put_dim_labels(hs_strbuf *b, const hm_conv_dims *c)
{
	put_labels(b, c->input_batch, c->input_feature, 'b', 'f', c->input_spatial, c->n_input_spatial);
	hs_strbuf_putc(b, '_');
	put_labels(b, c->kernel_input_feature, c->kernel_output_feature, 'i', 'o', c->kernel_spatial,
		   c->n_kernel_spatial);
	hs_strbuf_puts(b, "->");
	put_labels(b, c->output_batch, c->output_feature, 'b', 'f', c->output_spatial, c->n_output_spatial);
}

static void put_slice(hs_strbuf *b, const hm_instr_x *x)
{
	hs_strbuf_putc(b, '{');
	for (int i = 0; i < x->n_slice; i++) {
		hs_strbuf_printf(b, "%s[%lld:%lld", i ? ", " : "", (long long)x->slice_start[i],
				 (long long)x->slice_limit[i]);
		if (x->slice_stride[i] != 1)
			hs_strbuf_printf(b, ":%lld", (long long)x->slice_stride[i]);
		hs_strbuf_putc(b, ']');
	}
	hs_strbuf_putc(b, '}');
}

static void put_padding(hs_strbuf *b, const hm_instr_x *x)
{
	for (int i = 0; i < x->n_padding; i++) {
		hs_strbuf_printf(b, "%s%lld_%lld", i ? "x" : "", (long long)x->pad_low[i], (long long)x->pad_high[i]);
		if (x->pad_interior[i])
			hs_strbuf_printf(b, "_%lld", (long long)x->pad_interior[i]);
	}
}

static int needs_dimensions(const char *op)
{
	static const char *const ops[] = {"broadcast", "reduce", "transpose", "reverse",
					  "concatenate", "sort"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (op && strcmp(op, ops[i]) == 0)
			return 1;
	return 0;
}

/* The attributes stored in fields that name nothing, in XLA's order. */
static const char *const field_names[] = {
	"kind", "dimensions", "window", "dim_labels", "slice", "padding", "dynamic_slice_sizes",
	"feature_group_count", "batch_group_count", "custom_call_target", "is_stable",
};
#define N_FIELDS ((int)(sizeof field_names / sizeof field_names[0]))
enum { F_DIMENSIONS = 1 };

/* Field attribute k's value into b: 1, or 0 when the instruction has none
 * (defaults are left out, as XLA leaves them out). */
static int field_value(hs_strbuf *b, const hm_instr *in, int k)
{
	const hm_instr_x *x = HM_X(in);
	switch (k) {
	case 0:
		if (!in->fusion_kind)
			return 0;
		hs_strbuf_puts(b, in->fusion_kind);
		return 1;
	case 1:
		if (!in->n_dimensions && !needs_dimensions(in->opcode))
			return 0;
		hs_strbuf_putc(b, '{');
		put_ints(b, in->dimensions, in->n_dimensions, ",");
		hs_strbuf_putc(b, '}');
		return 1;
	case 2:
		if (x->n_window)
			put_window(b, in);
		return x->n_window > 0;
	case 3:
		if (x->conv.present)
			put_dim_labels(b, &x->conv);
		return x->conv.present != 0;
	case 4:
		if (x->n_slice)
			put_slice(b, x);
		return x->n_slice > 0;
	case 5:
		put_padding(b, x);
		return x->n_padding > 0;
	case 6:
		if (!x->n_dynamic_slice_sizes)
			return 0;
		hs_strbuf_putc(b, '{');
		put_ints(b, x->dynamic_slice_sizes, x->n_dynamic_slice_sizes, ",");
		hs_strbuf_putc(b, '}');
		return 1;
	case 7:
	case 8: {
		int64_t v = k == 7 ? x->feature_group_count : x->batch_group_count;
		if (v == HM_NONE || v == 1)
			return 0;
		hs_strbuf_printf(b, "%lld", (long long)v);
		return 1;
	}
	case 9:
		if (x->custom_call_target)
			put_string(b, x->custom_call_target);
		return x->custom_call_target != NULL;
	default:
		if (x->is_stable)
			hs_strbuf_puts(b, "true");
		return x->is_stable != 0;
	}
}

/* ---- every attribute, in order ---------------------------------------- */

static const char *const call_names[] = {
	[HM_CALL_TO_APPLY] = "to_apply", [HM_CALL_CALLS] = "calls", [HM_CALL_SELECT] = "select",
	[HM_CALL_SCATTER] = "scatter", [HM_CALL_BODY] = "body", [HM_CALL_CONDITION] = "condition",
	[HM_CALL_TRUE] = "true_computation", [HM_CALL_FALSE] = "false_computation",
	[HM_CALL_BRANCHES] = "branch_computations", [HM_CALL_CALLED] = "called_computations",
};

/* Attributes XLA prints after the called computations and the sharding. */
static int late_attr(const char *name)
{
	return strcmp(name, "frontend_attributes") == 0 || strcmp(name, "statistics") == 0;
}

/* Whether `name` is printed from fields (so a kept text of it takes the
 * field's place, not a place among the kept attributes). */
static int field_attr(const char *name)
{
	static const char *const others[] = {"sharding", "control-predecessors", "metadata", "backend_config"};
	for (int k = 0; k < N_FIELDS; k++)
		if (strcmp(field_names[k], name) == 0)
			return 1;
	for (size_t k = 1; k < sizeof call_names / sizeof call_names[0]; k++)
		if (strcmp(call_names[k], name) == 0)
			return 1;
	for (size_t k = 0; k < sizeof others / sizeof others[0]; k++)
		if (strcmp(others[k], name) == 0)
			return 1;
	return 0;
}

/* The text kept for attribute `name`, or NULL. */
static const char *kept(const hm_instr *in, const char *name)
{
	for (int i = 0; i < in->n_attrs; i++)
		if (in->attrs[i].value && strcmp(in->attrs[i].name, name) == 0)
			return in->attrs[i].value;
	return NULL;
}

/* The enumeration in progress: each value is written into `val`, then
 * given to fn with its name. */
typedef struct emitter {
	const hm_module *m;
	const hm_instr *in;
	hm_attr_fn fn;
	void *ctx;
	int bare;             /* names without '%' */
	hs_strbuf val;
	int rc;
} emitter;

static void emit(emitter *e, const char *name)
{
	if (!e->rc)
		e->rc = e->val.failed ? -1 : e->fn(e->ctx, name, hs_strbuf_str(&e->val));
	hs_strbuf_reset(&e->val);
}

static void emit_text(emitter *e, const char *name, const char *value)
{
	hs_strbuf_puts(&e->val, value);
	emit(e, name);
}

static void put_comp(emitter *e, int k)
{
	const hm_comp *c = hm_find_comp(e->m, e->in->called_ids[k]);
	put_name(&e->val, c ? c->name : "?", e->bare);
}

/* Callees k0.. as attribute `call` (a list for branches, called
 * computations, or more than one). */
static void emit_call(emitter *e, int call, int k0, int n)
{
	int list = call == HM_CALL_BRANCHES || call == HM_CALL_CALLED || n > 1;
	if (list)
		hs_strbuf_putc(&e->val, '{');
	for (int k = 0; k < n; k++) {
		if (k)
			hs_strbuf_puts(&e->val, ", ");
		put_comp(e, k0 + k);
	}
	if (list)
		hs_strbuf_putc(&e->val, '}');
	emit(e, call_names[call]);
}

/* The attribute that names the callees: as written, else the one XLA uses
 * for the opcode. */
static int call_attr(const hm_module *m, const hm_instr *in)
{
	const char *op = in->opcode ? in->opcode : "";
	if (in->call_attr)
		return in->call_attr;
	if (strcmp(op, "while") == 0 && in->n_called == 2)
		return HM_CALL_CONDITION;
	if (strcmp(op, "select-and-scatter") == 0 && in->n_called == 2)
		return HM_CALL_SELECT;
	if (strcmp(op, "conditional") == 0) {
		const hm_instr *pred = in->n_operands ? hm_find_instr(m, in->operand_ids[0]) : NULL;
		return in->n_called == 2 && pred && pred->shape->element_type == HM_PRED ? HM_CALL_TRUE
											   : HM_CALL_BRANCHES;
	}
	if (strcmp(op, "custom-call") == 0 || in->n_called > 1)
		return HM_CALL_CALLED;
	if (strcmp(op, "fusion") == 0 || strncmp(op, "async-", 6) == 0)
		return HM_CALL_CALLS;
	return HM_CALL_TO_APPLY;
}

/* Called computations (hm_instr.called_ids are in role order: body before
 * condition, XLA prints the condition first). */
static void emit_calls(emitter *e)
{
	const hm_instr *in = e->in;
	int call = call_attr(e->m, in), n = in->n_called;
	if (!n)
		return;
	if ((call == HM_CALL_BODY || call == HM_CALL_CONDITION) && n == 2) {
		emit_call(e, HM_CALL_CONDITION, 1, 1);
		emit_call(e, HM_CALL_BODY, 0, 1);
	} else if ((call == HM_CALL_SELECT || call == HM_CALL_SCATTER) && n == 2) {
		emit_call(e, HM_CALL_SELECT, 0, 1);
		emit_call(e, HM_CALL_SCATTER, 1, 1);
	} else if ((call == HM_CALL_TRUE || call == HM_CALL_FALSE) && n == 2) {
		emit_call(e, HM_CALL_TRUE, 0, 1);
		emit_call(e, HM_CALL_FALSE, 1, 1);
	} else {
		emit_call(e, call, 0, n);
	}
}

/* {op_type=".." op_name=".." source_file=".." source_line=N EXTRA...},
 * the other fields as the reader kept them. */
static void put_metadata(hs_strbuf *b, const hm_instr *in, const char *extra)
{
	const char *sep = "";
	hs_strbuf_putc(b, '{');
	if (in->op_type) {
		hs_strbuf_puts(b, "op_type=");
		put_string(b, in->op_type);
		sep = " ";
	}
	if (in->op_name) {
		hs_strbuf_printf(b, "%sop_name=", sep);
		put_string(b, in->op_name);
		sep = " ";
	}
	if (in->source_file) {
		hs_strbuf_printf(b, "%ssource_file=", sep);
		put_string(b, in->source_file);
		sep = " ";
	}
	if (in->source_line) {
		hs_strbuf_printf(b, "%ssource_line=%lld", sep, (long long)in->source_line);
		sep = " ";
	}
	if (extra)
		hs_strbuf_printf(b, "%s%s", sep, extra);
	hs_strbuf_putc(b, '}');
}

/* The attributes after the kept ones: sharding, the late kept ones,
 * control predecessors, metadata, backend_config. */
static void emit_tail(emitter *e)
{
	const hm_instr *in = e->in;
	const hm_instr_x *x = HM_X(in);
	const char *t;
	if (in->sharding)
		emit_text(e, "sharding", in->sharding);
	for (int i = 0; i < in->n_attrs; i++)
		if (late_attr(in->attrs[i].name))
			emit_text(e, in->attrs[i].name, in->attrs[i].value);
	if (x->n_control_predecessors) {
		hs_strbuf_putc(&e->val, '{');
		for (int i = 0; i < x->n_control_predecessors; i++) {
			const hm_instr *c = hm_find_instr(e->m, x->control_predecessor_ids[i]);
			hs_strbuf_puts(&e->val, i ? ", " : "");
			put_name(&e->val, c ? c->name : "?", e->bare);
		}
		hs_strbuf_putc(&e->val, '}');
		emit(e, "control-predecessors");
	}
	t = kept(in, "metadata");
	if (t || in->op_type || in->op_name || in->source_file || in->source_line) {
		put_metadata(&e->val, in, t);
		emit(e, "metadata");
	}
	if (x->backend_config) {
		if (x->backend_config[0] == '"' || x->backend_config[0] == '{')
			hs_strbuf_puts(&e->val, x->backend_config);
		else
			put_string(&e->val, x->backend_config);
		emit(e, "backend_config");
	}
}

/* Field attribute k, when the instruction has it. */
static void emit_field(emitter *e, int k)
{
	if (field_value(&e->val, e->in, k))
		emit(e, field_names[k]);
	else
		hs_strbuf_reset(&e->val);
}

/* XLA prints a collective's dimensions after its replica groups (and
 * constrain_layout): the index in attrs to put them after, or -1. */
static int after_groups(const hm_instr *in)
{
	int at = -1;
	if (!in->n_dimensions || !in->opcode ||
	    !(strncmp(in->opcode, "all-gather", 10) == 0 || strcmp(in->opcode, "all-to-all") == 0 ||
	      strncmp(in->opcode, "reduce-scatter", 14) == 0))
		return -1;
	for (int i = 0; i < in->n_attrs; i++)
		if (strcmp(in->attrs[i].name, "replica_groups") == 0 ||
		    strcmp(in->attrs[i].name, "constrain_layout") == 0)
			at = i;
	return at;
}

/* Every attribute; `as_read`: names as the text wrote them, else in XLA's
 * default form (with '%'). */
static int enumerate(const hm_module *m, const hm_instr *in, int as_read, hm_attr_fn fn, void *ctx)
{
	emitter e = {m, in, fn, ctx, as_read && in->bare_names, {0}, 0};
	int after = after_groups(in);    /* where a collective's dimensions go */
	for (int k = 0; k < N_FIELDS && !e.rc; k++)
		if (!(k == F_DIMENSIONS && after >= 0))
			emit_field(&e, k);
	for (int i = 0; i < in->n_attrs && !e.rc; i++) {
		if (!late_attr(in->attrs[i].name) && !field_attr(in->attrs[i].name))
			emit_text(&e, in->attrs[i].name, in->attrs[i].value);
		if (i == after)
			emit_field(&e, F_DIMENSIONS);
	}
	emit_calls(&e);
	emit_tail(&e);
	hs_strbuf_free(&e.val);
	return e.rc;
}

int hm_instr_attrs(const hm_module *m, const hm_instr *in, hm_attr_fn fn, void *ctx)
{
	return m->knows & HM_KNOWS_ATTRS ? enumerate(m, in, 1, fn, ctx) : 0;
}

struct lookup {
	const char *name;
	hs_strbuf *out;
};

static int take_named(void *ctx, const char *name, const char *value)
{
	struct lookup *l = ctx;
	if (strcmp(name, l->name) != 0)
		return 0;
	hs_strbuf_puts(l->out, value);
	return 1;
}

int hm_instr_attr(const hm_module *m, const hm_instr *in, const char *name, hs_strbuf *out)
{
	const char *t = field_attr(name) ? NULL : kept(in, name);
	if (t) {
		hs_strbuf_puts(out, t);
		return out->failed ? -1 : 1;
	}
	struct lookup l = {name, out};
	int rc = hm_instr_attrs(m, in, take_named, &l);
	return rc < 0 || out->failed ? -1 : rc;
}

/* The list being collected: names and values in one text, offsets first. */
struct collect {
	HS_VEC(size_t) at;     /* name, value offsets into text */
	hs_strbuf text;
};

static int add_one(void *ctx, const char *name, const char *value)
{
	struct collect *c = ctx;
	size_t n = c->text.len;
	hs_strbuf_putn(&c->text, name, strlen(name) + 1);
	hs_strbuf_putn(&c->text, value, strlen(value) + 1);
	if (c->text.failed || hs_vec_push(&c->at, n) != 0)
		return -1;
	return 0;
}

int hm_instr_attr_list(const hm_module *m, const hm_instr *in, hm_attr **out)
{
	struct collect c = {0};
	int rc = hm_instr_attrs(m, in, add_one, &c), n = (int)c.at.n;
	*out = NULL;
	if (rc == 0) {
		hm_attr *v = malloc(n * sizeof *v + c.text.len + 1);
		if (v) {
			char *text = (char *)(v + n);
			memcpy(text, hs_strbuf_str(&c.text), c.text.len + 1);
			for (int i = 0; i < n; i++) {
				v[i].name = text + c.at.v[i];
				v[i].value = v[i].name + strlen(v[i].name) + 1;
			}
			*out = v;
		}
		rc = v ? n : -1;
	}
	hs_vec_free(&c.at);
	hs_strbuf_free(&c.text);
	return rc;
}

/* ---- HLO text ------------------------------------------------------- */

static int put_attr(void *ctx, const char *name, const char *value)
{
	hs_strbuf_printf(ctx, ", %s=%s", name, value);
	return 0;
}

/* [ROOT ]%name = shape opcode(operands), attributes */
static int put_instr_line(hs_strbuf *b, const hm_module *m, const hm_instr *in)
{
	hs_strbuf_puts(b, in->is_root ? "ROOT " : "");
	put_name(b, in->name, 0);
	hs_strbuf_puts(b, " = ");
	put_shape(b, in->shape, 1);
	hs_strbuf_printf(b, " %s(", in->opcode && *in->opcode ? in->opcode : "unknown");
	if (in->opcode && strcmp(in->opcode, "parameter") == 0) {
		hs_strbuf_printf(b, "%lld", (long long)(in->parameter_number == HM_NONE ? 0 : in->parameter_number));
	} else if (in->opcode && strcmp(in->opcode, "constant") == 0) {
		hs_strbuf_puts(b, HM_X(in)->literal ? HM_X(in)->literal : "{...}");
	} else {
		for (int i = 0; i < in->n_operands; i++) {
			const hm_instr *op = hm_find_instr(m, in->operand_ids[i]);
			if (i)
				hs_strbuf_puts(b, ", ");
			if (op) {
				put_shape(b, op->shape, 1);
				hs_strbuf_putc(b, ' ');
			}
			put_name(b, op ? op->name : "?", 0);
		}
	}
	hs_strbuf_putc(b, ')');
	return enumerate(m, in, 0, put_attr, b);
}

int hm_instr_print(FILE *out, const hm_module *m, const hm_instr *in)
{
	hs_strbuf b = {0};
	int rc = !m->index || put_instr_line(&b, m, in) != 0 ? -1 : flush(out, &b);
	hs_strbuf_free(&b);
	return rc != 0 || ferror(out) ? -1 : 0;
}

static int cmp_param(const void *a, const void *b)
{
	int64_t x = (*(const hm_instr *const *)a)->parameter_number;
	int64_t y = (*(const hm_instr *const *)b)->parameter_number;
	return (x > y) - (x < y);
}

/* %name (p: shape, ...) -> shape, parameters by number, no layouts. */
static int put_signature(hs_strbuf *b, const hm_comp *c)
{
	const hm_instr **params = malloc(((size_t)c->n_instrs + 1) * sizeof *params);
	const hm_instr *root = NULL;
	int n = 0;

	if (!params)
		return -1;
	for (int i = 0; i < c->n_instrs; i++) {
		const hm_instr *in = &c->instrs[i];
		if (in->opcode && strcmp(in->opcode, "parameter") == 0)
			params[n++] = in;
		if (in->is_root || in->id == c->root_id)
			root = in;
	}
	qsort(params, (size_t)n, sizeof *params, cmp_param);
	put_name(b, c->name, 0);
	hs_strbuf_puts(b, " (");
	for (int i = 0; i < n; i++) {
		if (i)
			hs_strbuf_puts(b, ", ");
		/* bare, as XLA prints them, unless the name cannot start a
		 * bare word ("---", "1x"): then with '%', which reads back */
		const char *s = params[i]->name;
		if (s && !isalpha((unsigned char)*s) && *s != '_' && *s != '.')
			hs_strbuf_putc(b, '%');
		for (; s && *s; s++)
			hs_strbuf_putc(b, word_byte((unsigned char)*s) && !(s[0] == '-' && s[1] == '>') ? *s : '_');
		hs_strbuf_puts(b, ": ");
		put_shape(b, params[i]->shape, 0);
	}
	hs_strbuf_puts(b, ") -> ");
	if (root)
		put_shape(b, root->shape, 0);
	else
		hs_strbuf_puts(b, "()");
	free(params);
	return 0;
}

int hm_module_print(FILE *out, const hm_module *m)
{
	hs_strbuf b = {0};
	if (!m->index)
		return -1;
	hs_strbuf_puts(&b, "HloModule ");
	put_word(&b, m->name);
	for (int i = 0; i < m->n_attrs; i++)
		hs_strbuf_printf(&b, ", %s=%s", m->attrs[i].name, m->attrs[i].value);
	hs_strbuf_puts(&b, "\n\n");
	int rc = flush(out, &b);
	for (int c = 0; c < m->n_comps && rc == 0; c++) {
		const hm_comp *comp = &m->comps[c];
		if (comp->is_entry)
			hs_strbuf_puts(&b, "ENTRY ");
		rc = put_signature(&b, comp);
		hs_strbuf_puts(&b, " {\n");
		for (int i = 0; i < comp->n_instrs && rc == 0; i++) {
			hs_strbuf_puts(&b, "  ");
			rc = put_instr_line(&b, m, &comp->instrs[i]);
			hs_strbuf_putc(&b, '\n');
			rc = rc ? rc : flush(out, &b);
		}
		hs_strbuf_puts(&b, c + 1 < m->n_comps ? "}\n\n" : "}\n");
		rc = rc ? rc : flush(out, &b);
	}
	hs_strbuf_free(&b);
	return rc != 0 || ferror(out) ? -1 : 0;
}

/* ---- structural dump ------------------------------------------------ */

static void dump_ref(hs_strbuf *b, const hm_module *m, int64_t id, int comp)
{
	const char *name = "?";
	if (comp) {
		const hm_comp *c = hm_find_comp(m, id);
		name = c ? c->name : "?";
	} else {
		const hm_instr *in = hm_find_instr(m, id);
		name = in ? in->name : "?";
	}
	hs_strbuf_printf(b, "#%lld %s", (long long)id, name);
}

static void dump_list(hs_strbuf *b, const char *label, const int64_t *v, int n)
{
	hs_strbuf_printf(b, "    %s={", label);
	put_ints(b, v, n, ",");
	hs_strbuf_puts(b, "}\n");
}

static void dump_conv(hs_strbuf *b, const hm_conv_dims *c)
{
	hs_strbuf_printf(b, "    conv input b=%lld f=%lld spatial={", (long long)c->input_batch,
			 (long long)c->input_feature);
	put_ints(b, c->input_spatial, c->n_input_spatial, ",");
	hs_strbuf_printf(b, "} kernel i=%lld o=%lld spatial={", (long long)c->kernel_input_feature,
			 (long long)c->kernel_output_feature);
	put_ints(b, c->kernel_spatial, c->n_kernel_spatial, ",");
	hs_strbuf_printf(b, "} output b=%lld f=%lld spatial={", (long long)c->output_batch,
			 (long long)c->output_feature);
	put_ints(b, c->output_spatial, c->n_output_spatial, ",");
	hs_strbuf_puts(b, "}\n");
}

static void dump_fields(hs_strbuf *b, const hm_instr *in)
{
	const hm_instr_x *x = HM_X(in);
	if (!in->shape->has_layout && in->shape->layout_rank)
		dump_list(b, "default_layout", in->shape->minor_to_major, in->shape->layout_rank);
	if (in->n_dimensions)
		dump_list(b, "dimensions", in->dimensions, in->n_dimensions);
	for (int i = 0; i < x->n_window; i++) {
		const hm_window_dim *w = &x->window[i];
		hs_strbuf_printf(b, "    window[%d] size=%lld stride=%lld pad=%lld_%lld lhs_dilate=%lld "
				 "rhs_dilate=%lld reversal=%d\n", i, (long long)w->size, (long long)w->stride,
				 (long long)w->padding_low, (long long)w->padding_high,
				 (long long)w->base_dilation, (long long)w->window_dilation, w->window_reversal);
	}
	if (x->conv.present)
		dump_conv(b, &x->conv);
	if (x->feature_group_count != HM_NONE)
		hs_strbuf_printf(b, "    feature_group_count=%lld\n", (long long)x->feature_group_count);
	if (x->batch_group_count != HM_NONE)
		hs_strbuf_printf(b, "    batch_group_count=%lld\n", (long long)x->batch_group_count);
	for (int i = 0; i < x->n_slice; i++)
		hs_strbuf_printf(b, "    slice[%d] start=%lld limit=%lld stride=%lld\n", i,
				 (long long)x->slice_start[i], (long long)x->slice_limit[i],
				 (long long)x->slice_stride[i]);
	if (x->n_dynamic_slice_sizes)
		dump_list(b, "dynamic_slice_sizes", x->dynamic_slice_sizes, x->n_dynamic_slice_sizes);
	for (int i = 0; i < x->n_padding; i++)
		hs_strbuf_printf(b, "    padding[%d] low=%lld high=%lld interior=%lld\n", i,
				 (long long)x->pad_low[i], (long long)x->pad_high[i], (long long)x->pad_interior[i]);
	if (x->is_stable)
		hs_strbuf_puts(b, "    is_stable=1\n");
}

static void dump_texts(hs_strbuf *b, const hm_instr *in)
{
	const struct { const char *label, *value; } texts[] = {
		{"fusion_kind", in->fusion_kind}, {"custom_call_target", HM_X(in)->custom_call_target},
		{"op_type", in->op_type}, {"op_name", in->op_name},
		{"source_file", in->source_file},
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		if (texts[i].value) {
			hs_strbuf_printf(b, "    %s=", texts[i].label);
			put_string(b, texts[i].value);
			hs_strbuf_putc(b, '\n');
		}
	if (in->source_line)
		hs_strbuf_printf(b, "    source_line=%lld\n", (long long)in->source_line);
	if (in->sharding)
		hs_strbuf_printf(b, "    sharding=%s\n", in->sharding);
	if (HM_X(in)->backend_config)
		hs_strbuf_printf(b, "    backend_config=%s\n", HM_X(in)->backend_config);
	for (int i = 0; i < in->n_attrs; i++)
		hs_strbuf_printf(b, "    attr %s=%s\n", in->attrs[i].name, in->attrs[i].value);
}

/* "ids" as references a comma apart, after `head` (none when n is 0). */
static void dump_refs(hs_strbuf *b, const hm_module *m, const char *head, const int64_t *ids, int n, int comp)
{
	if (head && !n)
		return;
	hs_strbuf_puts(b, head ? head : "");
	for (int i = 0; i < n; i++) {
		hs_strbuf_puts(b, i ? ", " : "");
		dump_ref(b, m, ids[i], comp);
	}
	if (head)
		hs_strbuf_putc(b, '\n');
}

static void dump_instr(hs_strbuf *b, const hm_module *m, const hm_instr *in)
{
	const hm_instr_x *x = HM_X(in);
	hs_strbuf_printf(b, "  #%lld %s%s = ", (long long)in->id, in->is_root ? "ROOT " : "", in->name);
	put_shape(b, in->shape, 1);
	hs_strbuf_printf(b, " %s(", in->opcode);
	if (in->parameter_number != HM_NONE)
		hs_strbuf_printf(b, "%lld", (long long)in->parameter_number);
	if (x->literal)
		hs_strbuf_puts(b, x->literal);
	dump_refs(b, m, NULL, in->operand_ids, in->n_operands, 0);
	hs_strbuf_printf(b, ") line=%d\n", in->line);
	dump_refs(b, m, "    called=", in->called_ids, in->n_called, 1);
	dump_refs(b, m, "    control_predecessors=", x->control_predecessor_ids, x->n_control_predecessors, 0);
	dump_fields(b, in);
	dump_texts(b, in);
}

int hm_module_dump(FILE *out, const hm_module *m)
{
	hs_strbuf b = {0};
	if (!m->index)
		return -1;
	hs_strbuf_printf(&b, "module %s id=%lld entry=#%lld %s comps=%d instrs=%lld\n", m->name,
			 (long long)m->id, (long long)m->entry_id, m->entry_name ? m->entry_name : "?",
			 m->n_comps, (long long)m->n_instrs);
	for (int i = 0; i < m->n_attrs; i++)
		hs_strbuf_printf(&b, "  attr %s=%s\n", m->attrs[i].name, m->attrs[i].value);
	int rc = flush(out, &b);
	for (int c = 0; c < m->n_comps && rc == 0; c++) {
		const hm_comp *comp = &m->comps[c];
		hs_strbuf_printf(&b, "comp #%lld %s%s root=#%lld instrs=%d\n", (long long)comp->id,
				 comp->name, comp->is_entry ? " ENTRY" : "", (long long)comp->root_id,
				 comp->n_instrs);
		for (int i = 0; i < comp->n_instrs && rc == 0; i++) {
			dump_instr(&b, m, &comp->instrs[i]);
			rc = flush(out, &b);
		}
		rc = rc ? rc : flush(out, &b);
	}
	hs_strbuf_free(&b);
	return rc != 0 || ferror(out) ? -1 : 0;
}

int hm_file_print(FILE *out, const hm_file *f)
{
	for (int i = 0; i < f->n_modules; i++) {
		if (i)
			fputc('\n', out);
		if (hm_module_print(out, &f->modules[i]) != 0)
			return -1;
	}
	return 0;
}

int hm_file_dump(FILE *out, const hm_file *f)
{
	for (int i = 0; i < f->n_modules; i++)
		if (hm_module_dump(out, &f->modules[i]) != 0)
			return -1;
	return 0;
}
