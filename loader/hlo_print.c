/* hlo_print.c - HLO text and a structural dump from an hm_module (see
 * hlo_print.h). */
#include "hlo_print.h"

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


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

void hm_shape_print(FILE *out, const hm_shape *s, int with_layout)
{
	char small[256];
	size_t n = 0;
	small[0] = '\0';
	shape_text(s, with_layout, small, sizeof small, &n, 0);
	if (n < sizeof small) {
		fputs(small, out);
		return;
	}
	char *big = malloc(n + 1);
	if (!big)
		return;
	size_t m = 0;
	big[0] = '\0';
	shape_text(s, with_layout, big, n + 1, &m, 0);
	fputs(big, out);
	free(big);
}

/* ---- names and strings ---------------------------------------------- */

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* name, with bytes that would not read back as a word written as '_'. */
static void print_word(FILE *out, const char *name)
{
	if (!name || !*name) {
		fputc('_', out);
		return;
	}
	for (const char *s = name; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '-' && s[1] == '>')
			c = '_';
		fputc(word_byte(c) ? c : '_', out);
	}
}

/* %name */
static void print_name(FILE *out, const char *name)
{
	fputc('%', out);
	print_word(out, name);
}

/* "text" with C escapes, as XLA writes strings. */
static void print_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void print_ints(FILE *out, const int64_t *v, int n, const char *sep)
{
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%lld", i ? sep : "", (long long)v[i]);
}

/* ---- HLO text ------------------------------------------------------- */

static void print_comp_ref(FILE *out, const hm_module *m, int64_t id)
{
	const hm_comp *c = hm_find_comp(m, id);
	print_name(out, c ? c->name : "?");
}

static void print_comp_list(FILE *out, const hm_module *m, const hm_instr *in)
{
	fputc('{', out);
	for (int i = 0; i < in->n_called; i++) {
		if (i)
			fputs(", ", out);
		print_comp_ref(out, m, in->called_ids[i]);
	}
	fputc('}', out);
}

/* Called computations under the attribute names XLA uses for the opcode. */
static void print_called(FILE *out, const hm_module *m, const hm_instr *in)
{
	const char *op = in->opcode;
	int n = in->n_called;

	if (!n)
		return;
	if (strcmp(op, "while") == 0 && n == 2) {
		fputs(", condition=", out);
		print_comp_ref(out, m, in->called_ids[1]);
		fputs(", body=", out);
		print_comp_ref(out, m, in->called_ids[0]);
	} else if (strcmp(op, "select-and-scatter") == 0 && n == 2) {
		fputs(", select=", out);
		print_comp_ref(out, m, in->called_ids[0]);
		fputs(", scatter=", out);
		print_comp_ref(out, m, in->called_ids[1]);
	} else if (strcmp(op, "conditional") == 0) {
		const hm_instr *pred = in->n_operands ? hm_find_instr(m, in->operand_ids[0]) : NULL;
		if (n == 2 && pred && pred->shape->element_type == HM_PRED) {
			fputs(", true_computation=", out);
			print_comp_ref(out, m, in->called_ids[0]);
			fputs(", false_computation=", out);
			print_comp_ref(out, m, in->called_ids[1]);
		} else {
			fputs(", branch_computations=", out);
			print_comp_list(out, m, in);
		}
	} else if (strcmp(op, "custom-call") == 0 || n > 1) {
		fputs(", called_computations=", out);
		print_comp_list(out, m, in);
	} else if (strcmp(op, "fusion") == 0 || strncmp(op, "async-", 6) == 0) {
		fputs(", calls=", out);
		print_comp_ref(out, m, in->called_ids[0]);
	} else {
		fputs(", to_apply=", out);
		print_comp_ref(out, m, in->called_ids[0]);
	}
}

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
static void print_window_field(FILE *out, const hm_instr *in, const char *name, size_t off)
{
	fprintf(out, "%s%s=", strcmp(name, "size") ? " " : "", name);
	for (int i = 0; i < HM_X(in)->n_window; i++) {
		const hm_window_dim *w = &HM_X(in)->window[i];
		int64_t v;
		memcpy(&v, (const char *)w + off, sizeof v);
		if (i)
			fputc('x', out);
		if (off == offsetof(hm_window_dim, padding_low))
			fprintf(out, "%lld_%lld", (long long)w->padding_low,
				(long long)w->padding_high);
		else
			fprintf(out, "%lld", (long long)v);
	}
}

/* {size=3x3 stride=2x2 pad=1_1x1_1 ...}, fields at their default left out. */
static void print_window(FILE *out, const hm_instr *in)
{
	int rev = 0;

	for (int i = 0; i < HM_X(in)->n_window; i++)
		rev |= HM_X(in)->window[i].window_reversal;
	fputs(", window={", out);
	print_window_field(out, in, "size", offsetof(hm_window_dim, size));
	if (!window_all(in, offsetof(hm_window_dim, stride), 1))
		print_window_field(out, in, "stride", offsetof(hm_window_dim, stride));
	if (!window_all(in, offsetof(hm_window_dim, padding_low), 0) ||
	    !window_all(in, offsetof(hm_window_dim, padding_high), 0))
		print_window_field(out, in, "pad", offsetof(hm_window_dim, padding_low));
	if (!window_all(in, offsetof(hm_window_dim, base_dilation), 1))
		print_window_field(out, in, "lhs_dilate", offsetof(hm_window_dim, base_dilation));
	if (!window_all(in, offsetof(hm_window_dim, window_dilation), 1))
		print_window_field(out, in, "rhs_dilate", offsetof(hm_window_dim, window_dilation));
	if (rev) {
		fputs(" rhs_reversal=", out);
		for (int i = 0; i < HM_X(in)->n_window; i++)
			fprintf(out, "%s%d", i ? "x" : "", HM_X(in)->window[i].window_reversal ? 1 : 0);
	}
	fputc('}', out);
}

/* One side of dim_labels from the dimension numbers. */
static void print_labels(FILE *out, int64_t a, int64_t b, char ca, char cb,
			 const int64_t *spatial, int n)
{
	int rank = n + 2;
	for (int pos = 0; pos < rank; pos++) {
		char c = '?';
		if (pos == a)
			c = ca;
		else if (pos == b)
			c = cb;
		for (int d = 0; d < n && d < 10; d++)
			if (spatial[d] == pos)
				c = (char)('0' + d);
		fputc(c, out);
	}
}

static void print_dim_labels(FILE *out, const hm_conv_dims *c)
{
	fputs(", dim_labels=", out);
	print_labels(out, c->input_batch, c->input_feature, 'b', 'f', c->input_spatial,
		     c->n_input_spatial);
	fputc('_', out);
	print_labels(out, c->kernel_input_feature, c->kernel_output_feature, 'i', 'o',
		     c->kernel_spatial, c->n_kernel_spatial);
	fputs("->", out);
	print_labels(out, c->output_batch, c->output_feature, 'b', 'f', c->output_spatial,
		     c->n_output_spatial);
}

static int needs_dimensions(const char *op)
{
	static const char *const ops[] = {"broadcast", "reduce", "transpose", "reverse",
					  "concatenate", "sort"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(op, ops[i]) == 0)
			return 1;
	return 0;
}

/* The attributes stored in fields, in XLA's order, defaults left out. */
static void print_fields(FILE *out, const hm_instr *in)
{
	if (in->fusion_kind)
		fprintf(out, ", kind=%s", in->fusion_kind);
	if (in->n_dimensions || needs_dimensions(in->opcode)) {
		fputs(", dimensions={", out);
		print_ints(out, in->dimensions, in->n_dimensions, ",");
		fputc('}', out);
	}
	if (HM_X(in)->n_window)
		print_window(out, in);
	if (HM_X(in)->conv.present)
		print_dim_labels(out, &HM_X(in)->conv);
	if (HM_X(in)->n_slice) {
		fputs(", slice={", out);
		for (int i = 0; i < HM_X(in)->n_slice; i++) {
			fprintf(out, "%s[%lld:%lld", i ? ", " : "", (long long)HM_X(in)->slice_start[i],
				(long long)HM_X(in)->slice_limit[i]);
			if (HM_X(in)->slice_stride[i] != 1)
				fprintf(out, ":%lld", (long long)HM_X(in)->slice_stride[i]);
			fputc(']', out);
		}
		fputc('}', out);
	}
	if (HM_X(in)->n_padding) {
		fputs(", padding=", out);
		for (int i = 0; i < HM_X(in)->n_padding; i++) {
			fprintf(out, "%s%lld_%lld", i ? "x" : "", (long long)HM_X(in)->pad_low[i],
				(long long)HM_X(in)->pad_high[i]);
			if (HM_X(in)->pad_interior[i])
				fprintf(out, "_%lld", (long long)HM_X(in)->pad_interior[i]);
		}
	}
	if (HM_X(in)->n_dynamic_slice_sizes) {
		fputs(", dynamic_slice_sizes={", out);
		print_ints(out, HM_X(in)->dynamic_slice_sizes, HM_X(in)->n_dynamic_slice_sizes, ",");
		fputc('}', out);
	}
	if (HM_X(in)->feature_group_count != HM_NONE && HM_X(in)->feature_group_count != 1)
		fprintf(out, ", feature_group_count=%lld", (long long)HM_X(in)->feature_group_count);
	if (HM_X(in)->batch_group_count != HM_NONE && HM_X(in)->batch_group_count != 1)
		fprintf(out, ", batch_group_count=%lld", (long long)HM_X(in)->batch_group_count);
	if (HM_X(in)->custom_call_target) {
		fputs(", custom_call_target=", out);
		print_string(out, HM_X(in)->custom_call_target);
	}
	if (HM_X(in)->is_stable)
		fputs(", is_stable=true", out);
}

/* Attributes XLA prints after the called computations and the sharding. */
static int late_attr(const char *name)
{
	return strcmp(name, "frontend_attributes") == 0 || strcmp(name, "statistics") == 0;
}

/* The attributes kept as text, early or late ones. */
static void print_kept(FILE *out, const hm_instr *in, int late)
{
	for (int i = 0; i < in->n_attrs; i++)
		if (late_attr(in->attrs[i].name) == late)
			fprintf(out, ", %s=%s", in->attrs[i].name, in->attrs[i].value);
}

static void print_control(FILE *out, const hm_module *m, const hm_instr *in)
{
	if (HM_X(in)->n_control_predecessors) {
		fputs(", control-predecessors={", out);
		for (int i = 0; i < HM_X(in)->n_control_predecessors; i++) {
			const hm_instr *c = hm_find_instr(m, HM_X(in)->control_predecessor_ids[i]);
			if (i)
				fputs(", ", out);
			print_name(out, c ? c->name : "?");
		}
		fputc('}', out);
	}
}

static void print_metadata(FILE *out, const hm_instr *in)
{
	const char *sep = "";
	if (!in->op_type && !in->op_name && !in->source_file && !in->source_line)
		return;
	fputs(", metadata={", out);
	if (in->op_type) {
		fputs("op_type=", out);
		print_string(out, in->op_type);
		sep = " ";
	}
	if (in->op_name) {
		fprintf(out, "%sop_name=", sep);
		print_string(out, in->op_name);
		sep = " ";
	}
	if (in->source_file) {
		fprintf(out, "%ssource_file=", sep);
		print_string(out, in->source_file);
		sep = " ";
	}
	if (in->source_line)
		fprintf(out, "%ssource_line=%lld", sep, (long long)in->source_line);
	fputc('}', out);
}

static void print_instr_line(FILE *out, const hm_module *m, const hm_instr *in)
{
	fputs(in->is_root ? "ROOT " : "", out);
	print_name(out, in->name);
	fputs(" = ", out);
	hm_shape_print(out, in->shape, 1);
	fprintf(out, " %s(", in->opcode && *in->opcode ? in->opcode : "unknown");
	if (in->opcode && strcmp(in->opcode, "parameter") == 0) {
		fprintf(out, "%lld", (long long)(in->parameter_number == HM_NONE ? 0
						 : in->parameter_number));
	} else if (in->opcode && strcmp(in->opcode, "constant") == 0) {
		fputs(HM_X(in)->literal ? HM_X(in)->literal : "{...}", out);
	} else {
		for (int i = 0; i < in->n_operands; i++) {
			const hm_instr *op = hm_find_instr(m, in->operand_ids[i]);
			if (i)
				fputs(", ", out);
			if (op) {
				hm_shape_print(out, op->shape, 1);
				fputc(' ', out);
			}
			print_name(out, op ? op->name : "?");
		}
	}
	fputc(')', out);
	print_fields(out, in);
	print_kept(out, in, 0);
	print_called(out, m, in);
	if (in->sharding)
		fprintf(out, ", sharding=%s", in->sharding);
	print_kept(out, in, 1);
	print_control(out, m, in);
	print_metadata(out, in);
	if (HM_X(in)->backend_config) {
		fputs(", backend_config=", out);
		if (HM_X(in)->backend_config[0] == '"' || HM_X(in)->backend_config[0] == '{')
			fputs(HM_X(in)->backend_config, out);
		else
			print_string(out, HM_X(in)->backend_config);
	}
}

static void print_instr(FILE *out, const hm_module *m, const hm_instr *in)
{
	fputs("  ", out);
	print_instr_line(out, m, in);
	fputc('\n', out);
}

int hm_instr_print(FILE *out, const hm_module *m, const hm_instr *in)
{
	if (!m->index)
		return -1;
	print_instr_line(out, m, in);
	return ferror(out) ? -1 : 0;
}

static int cmp_param(const void *a, const void *b)
{
	int64_t x = (*(const hm_instr *const *)a)->parameter_number;
	int64_t y = (*(const hm_instr *const *)b)->parameter_number;
	return (x > y) - (x < y);
}

/* %name (p: shape, ...) -> shape, parameters by number, no layouts. */
static int print_signature(FILE *out, const hm_comp *c)
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
	print_name(out, c->name);
	fputs(" (", out);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		/* bare, as XLA prints them, unless the name cannot start a
		 * bare word ("---", "1x"): then with '%', which reads back */
		const char *s = params[i]->name;
		if (s && !isalpha((unsigned char)*s) && *s != '_' && *s != '.')
			fputc('%', out);
		for (; s && *s; s++)
			fputc(word_byte((unsigned char)*s) && !(s[0] == '-' && s[1] == '>') ? *s : '_', out);
		fputs(": ", out);
		hm_shape_print(out, params[i]->shape, 0);
	}
	fputs(") -> ", out);
	if (root)
		hm_shape_print(out, root->shape, 0);
	else
		fputs("()", out);
	free(params);
	return 0;
}

int hm_module_print(FILE *out, const hm_module *m)
{
	if (!m->index)
		return -1;
	fputs("HloModule ", out);
	print_word(out, m->name);
	for (int i = 0; i < m->n_attrs; i++)
		fprintf(out, ", %s=%s", m->attrs[i].name, m->attrs[i].value);
	fputs("\n\n", out);
	int rc = 0;
	for (int c = 0; c < m->n_comps && rc == 0; c++) {
		const hm_comp *comp = &m->comps[c];
		if (comp->is_entry)
			fputs("ENTRY ", out);
		rc = print_signature(out, comp);
		fputs(" {\n", out);
		for (int i = 0; i < comp->n_instrs; i++)
			print_instr(out, m, &comp->instrs[i]);
		fputs(c + 1 < m->n_comps ? "}\n\n" : "}\n", out);
	}
	return rc != 0 || ferror(out) ? -1 : 0;
}

/* ---- structural dump ------------------------------------------------ */

static void dump_ref(FILE *out, const hm_module *m, int64_t id, int comp)
{
	const char *name = "?";
	if (comp) {
		const hm_comp *c = hm_find_comp(m, id);
		name = c ? c->name : "?";
	} else {
		const hm_instr *in = hm_find_instr(m, id);
		name = in ? in->name : "?";
	}
	fprintf(out, "#%lld %s", (long long)id, name);
}

static void dump_list(FILE *out, const char *label, const int64_t *v, int n)
{
	fprintf(out, "    %s={", label);
	print_ints(out, v, n, ",");
	fputs("}\n", out);
}

static void dump_fields(FILE *out, const hm_instr *in)
{
	if (!in->shape->has_layout && in->shape->layout_rank)
		dump_list(out, "default_layout", in->shape->minor_to_major, in->shape->layout_rank);
	if (in->n_dimensions)
		dump_list(out, "dimensions", in->dimensions, in->n_dimensions);
	for (int i = 0; i < HM_X(in)->n_window; i++) {
		const hm_window_dim *w = &HM_X(in)->window[i];
		fprintf(out, "    window[%d] size=%lld stride=%lld pad=%lld_%lld lhs_dilate=%lld "
			"rhs_dilate=%lld reversal=%d\n", i, (long long)w->size,
			(long long)w->stride, (long long)w->padding_low,
			(long long)w->padding_high, (long long)w->base_dilation,
			(long long)w->window_dilation, w->window_reversal);
	}
	if (HM_X(in)->conv.present) {
		const hm_conv_dims *c = &HM_X(in)->conv;
		fprintf(out, "    conv input b=%lld f=%lld spatial={", (long long)c->input_batch,
			(long long)c->input_feature);
		print_ints(out, c->input_spatial, c->n_input_spatial, ",");
		fprintf(out, "} kernel i=%lld o=%lld spatial={", (long long)c->kernel_input_feature,
			(long long)c->kernel_output_feature);
		print_ints(out, c->kernel_spatial, c->n_kernel_spatial, ",");
		fprintf(out, "} output b=%lld f=%lld spatial={", (long long)c->output_batch,
			(long long)c->output_feature);
		print_ints(out, c->output_spatial, c->n_output_spatial, ",");
		fputs("}\n", out);
	}
	if (HM_X(in)->feature_group_count != HM_NONE)
		fprintf(out, "    feature_group_count=%lld\n", (long long)HM_X(in)->feature_group_count);
	if (HM_X(in)->batch_group_count != HM_NONE)
		fprintf(out, "    batch_group_count=%lld\n", (long long)HM_X(in)->batch_group_count);
	for (int i = 0; i < HM_X(in)->n_slice; i++)
		fprintf(out, "    slice[%d] start=%lld limit=%lld stride=%lld\n", i,
			(long long)HM_X(in)->slice_start[i], (long long)HM_X(in)->slice_limit[i],
			(long long)HM_X(in)->slice_stride[i]);
	if (HM_X(in)->n_dynamic_slice_sizes)
		dump_list(out, "dynamic_slice_sizes", HM_X(in)->dynamic_slice_sizes,
			  HM_X(in)->n_dynamic_slice_sizes);
	for (int i = 0; i < HM_X(in)->n_padding; i++)
		fprintf(out, "    padding[%d] low=%lld high=%lld interior=%lld\n", i,
			(long long)HM_X(in)->pad_low[i], (long long)HM_X(in)->pad_high[i],
			(long long)HM_X(in)->pad_interior[i]);
	if (HM_X(in)->is_stable)
		fputs("    is_stable=1\n", out);
}

static void dump_texts(FILE *out, const hm_instr *in)
{
	const struct { const char *label, *value; } texts[] = {
		{"fusion_kind", in->fusion_kind}, {"custom_call_target", HM_X(in)->custom_call_target},
		{"op_type", in->op_type}, {"op_name", in->op_name},
		{"source_file", in->source_file},
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		if (texts[i].value) {
			fprintf(out, "    %s=", texts[i].label);
			print_string(out, texts[i].value);
			fputc('\n', out);
		}
	if (in->source_line)
		fprintf(out, "    source_line=%lld\n", (long long)in->source_line);
	if (in->sharding)
		fprintf(out, "    sharding=%s\n", in->sharding);
	if (HM_X(in)->backend_config)
		fprintf(out, "    backend_config=%s\n", HM_X(in)->backend_config);
	for (int i = 0; i < in->n_attrs; i++)
		fprintf(out, "    attr %s=%s\n", in->attrs[i].name, in->attrs[i].value);
}

static void dump_instr(FILE *out, const hm_module *m, const hm_instr *in)
{
	fprintf(out, "  #%lld %s%s = ", (long long)in->id, in->is_root ? "ROOT " : "", in->name);
	hm_shape_print(out, in->shape, 1);
	fprintf(out, " %s(", in->opcode);
	if (in->parameter_number != HM_NONE)
		fprintf(out, "%lld", (long long)in->parameter_number);
	if (HM_X(in)->literal)
		fputs(HM_X(in)->literal, out);
	for (int i = 0; i < in->n_operands; i++) {
		if (i)
			fputs(", ", out);
		dump_ref(out, m, in->operand_ids[i], 0);
	}
	fprintf(out, ") line=%d\n", in->line);
	if (in->n_called) {
		fputs("    called=", out);
		for (int i = 0; i < in->n_called; i++) {
			if (i)
				fputs(", ", out);
			dump_ref(out, m, in->called_ids[i], 1);
		}
		fputc('\n', out);
	}
	if (HM_X(in)->n_control_predecessors) {
		fputs("    control_predecessors=", out);
		for (int i = 0; i < HM_X(in)->n_control_predecessors; i++) {
			if (i)
				fputs(", ", out);
			dump_ref(out, m, HM_X(in)->control_predecessor_ids[i], 0);
		}
		fputc('\n', out);
	}
	dump_fields(out, in);
	dump_texts(out, in);
}

int hm_module_dump(FILE *out, const hm_module *m)
{
	if (!m->index)
		return -1;
	fprintf(out, "module %s id=%lld entry=#%lld %s comps=%d instrs=%lld\n", m->name,
		(long long)m->id, (long long)m->entry_id, m->entry_name ? m->entry_name : "?",
		m->n_comps, (long long)m->n_instrs);
	for (int i = 0; i < m->n_attrs; i++)
		fprintf(out, "  attr %s=%s\n", m->attrs[i].name, m->attrs[i].value);
	for (int c = 0; c < m->n_comps; c++) {
		const hm_comp *comp = &m->comps[c];
		fprintf(out, "comp #%lld %s%s root=#%lld instrs=%d\n", (long long)comp->id,
			comp->name, comp->is_entry ? " ENTRY" : "", (long long)comp->root_id,
			comp->n_instrs);
		for (int i = 0; i < comp->n_instrs; i++)
			dump_instr(out, m, &comp->instrs[i]);
	}
	return ferror(out) ? -1 : 0;
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
