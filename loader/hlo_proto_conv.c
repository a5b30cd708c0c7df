/* hlo_proto_conv.c - decoded protobuf-c messages into hm_* structures:
 * instructions (shapes, windows, convolution numbers, slices, padding,
 * sharding and backend_config as text, metadata) and tuning runs.  Counts
 * too large for an int are reported through hp_conv.bad, never truncated. */
#include "hlo_proto_conv.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "pbwire.h"

/* ---- text from messages ------------------------------------------------ */

static void sb_ints(hs_strbuf *o, const char *sep, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hs_strbuf_printf(o, "%s%" PRId64, i ? sep : "", v[i]);
}

static const char *const sharding_types[] = {"replicated", "maximal", "tuple", "other", "manual",
					     "unknown", "unreduced"};

/* XLA's sharding text: {replicated}, {maximal device=3}, {manual},
 * {devices=[2,1]0,1}, {devices=[16,1,1]<=[16]}, {devices=[2,2]<=[2,2]T(1,0)
 * last_tile_dim_replicate}, tuples {{replicated}, {maximal device=0}}. */
static void sharding_text(hs_strbuf *o, const Xla__OpSharding *s, int depth)
{
	int t = s->has_type ? s->type : 0;
	if (t == 2) {
		hs_strbuf_puts(o, "{");
		for (size_t i = 0; i < s->n_tuple_shardings && depth < 64; i++) {
			if (i)
				hs_strbuf_puts(o, ", ");
			sharding_text(o, s->tuple_shardings[i], depth + 1);
		}
		hs_strbuf_puts(o, "}");
		return;
	}
	if (t == 1) {
		hs_strbuf_printf(o, "{maximal device=%" PRId64 "}", s->n_tile_assignment_devices ? s->tile_assignment_devices[0] : 0);
		return;
	}
	if (t != 3) {
		hs_strbuf_printf(o, "{%s}", t >= 0 && t < 7 ? sharding_types[t] : "?");
		return;
	}
	hs_strbuf_puts(o, "{devices=[");
	sb_ints(o, ",", s->tile_assignment_dimensions, s->n_tile_assignment_dimensions);
	hs_strbuf_puts(o, "]");
	if (s->n_iota_reshape_dims) {
		hs_strbuf_puts(o, "<=[");
		sb_ints(o, ",", s->iota_reshape_dims, s->n_iota_reshape_dims);
		hs_strbuf_puts(o, "]");
		if (s->n_iota_transpose_perm) {
			hs_strbuf_puts(o, "T(");
			for (size_t i = 0; i < s->n_iota_transpose_perm; i++)
				hs_strbuf_printf(o, "%s%d", i ? "," : "", s->iota_transpose_perm[i]);
			hs_strbuf_puts(o, ")");
		}
	} else {
		sb_ints(o, ",", s->tile_assignment_devices, s->n_tile_assignment_devices);
	}
	if (s->has_replicate_on_last_tile_dim && s->replicate_on_last_tile_dim)
		hs_strbuf_puts(o, " last_tile_dim_replicate");
	if (s->n_last_tile_dims) {
		hs_strbuf_puts(o, " last_tile_dims={");
		for (size_t i = 0; i < s->n_last_tile_dims; i++) {
			int k = s->last_tile_dims[i];
			hs_strbuf_printf(o, "%s%s", i ? ", " : "", k >= 0 && k < 7 ? sharding_types[k] : "?");
		}
		hs_strbuf_puts(o, "}");
	}
	hs_strbuf_puts(o, "}");
}

/* Bytes as text: kept as is when printable, else with \ooo escapes. */
static char *bytes_text(hs_arena *a, const uint8_t *p, size_t n)
{
	if (pbwire_is_text(p, 0, n))
		return hs_arena_strndup(a, (const char *)p, n);
	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	char *s = hs_arena_alloc(a, 4 * n + 1), *q = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			*q++ = (char)p[i];
		else
			q += sprintf(q, "\\%03o", p[i]);
	}
	*q = '\0';
	return s;
}

/* NULL for absent or empty strings. */
static char *opt_str(hs_arena *a, const char *s, int *failed)
{
	if (!s || !*s)
		return NULL;
	char *d = hs_arena_strdup(a, s);
	if (!d)
		*failed = 1;
	return d;
}

/* ---- messages into hm_* ------------------------------------------------ */

static int64_t *copy_i64(hp_conv *c, const int64_t *v, size_t n, int *out_n, const char *what)
{
	if (n > INT_MAX) {
		c->bad = what;
		return NULL;
	}
	*out_n = (int)n;
	if (!n)
		return NULL;
	int64_t *d = hs_arena_array(c->a, n, sizeof *d);
	if (!d) {
		c->failed = 1;
		return NULL;
	}
	memcpy(d, v, n * sizeof *d);
	return d;
}

static void conv_layout(hp_conv *c, const Xla__LayoutProto *l, hm_shape *s)
{
	s->has_layout = 1;
	s->minor_to_major = copy_i64(c, l->minor_to_major, l->n_minor_to_major, &s->layout_rank, "minor_to_major");
	if (!l->n_tiles && !(l->has_element_size_in_bits && l->element_size_in_bits) &&
	    !(l->has_memory_space && l->memory_space))
		return;
	hs_strbuf o = {0};
	for (size_t i = 0; i < l->n_tiles; i++) {
		hs_strbuf_printf(&o, "%s(", i ? "" : "T");
		sb_ints(&o, ",", l->tiles[i]->dimensions, l->tiles[i]->n_dimensions);
		hs_strbuf_puts(&o, ")");
	}
	if (l->has_element_size_in_bits && l->element_size_in_bits)
		hs_strbuf_printf(&o, "E(%" PRId64 ")", l->element_size_in_bits);
	if (l->has_memory_space && l->memory_space)
		hs_strbuf_printf(&o, "S(%" PRId64 ")", l->memory_space);
	if (o.failed || !(s->layout_extra = hs_arena_strndup(c->a, o.s, o.len)))
		c->failed = 1;
	free(o.s);
}

static void conv_shape(hp_conv *c, const Xla__ShapeProto *p, hm_shape *s)
{
	memset(s, 0, sizeof *s);
	if (!p)
		return;
	s->element_type = p->has_element_type ? p->element_type : 0;
	s->dims = copy_i64(c, p->dimensions, p->n_dimensions, &s->rank, "dimensions");
	int any = 0;
	for (size_t i = 0; i < p->n_is_dynamic_dimension && i < (size_t)s->rank; i++)
		any |= p->is_dynamic_dimension[i] != 0;
	if (any && (s->dynamic = hs_arena_alloc(c->a, (size_t)s->rank))) {
		for (size_t i = 0; i < p->n_is_dynamic_dimension && i < (size_t)s->rank; i++)
			s->dynamic[i] = p->is_dynamic_dimension[i] != 0;
	} else if (any) {
		c->failed = 1;
	}
	if (p->layout)
		conv_layout(c, p->layout, s);
	if (p->n_tuple_shapes > INT_MAX) {
		c->bad = "tuple_shapes";
		return;
	}
	s->n_tuple = (int)p->n_tuple_shapes;
	if (s->n_tuple && !(s->tuple = hs_arena_array(c->a, (size_t)s->n_tuple, sizeof *s->tuple))) {
		c->failed = 1;
		s->n_tuple = 0;
		return;
	}
	for (int i = 0; i < s->n_tuple; i++)
		conv_shape(c, p->tuple_shapes[i], &s->tuple[i]); /* depth bounded by the walk */
}

static void conv_window(hp_conv *c, const Xla__Window *w, hm_instr_x *x)
{
	if (!w || !w->n_dimensions)
		return;
	if (w->n_dimensions > INT_MAX) {
		c->bad = "window";
		return;
	}
	x->window = hs_arena_array(c->a, w->n_dimensions, sizeof *x->window);
	if (!x->window) {
		c->failed = 1;
		return;
	}
	x->n_window = (int)w->n_dimensions;
	for (size_t i = 0; i < w->n_dimensions; i++) {
		const Xla__WindowDimension *d = w->dimensions[i];
		hm_window_dim *o = &x->window[i];
		o->size = d->size;
		o->stride = d->stride;
		o->padding_low = d->padding_low;
		o->padding_high = d->padding_high;
		o->window_dilation = d->window_dilation;
		o->base_dilation = d->base_dilation;
		o->window_reversal = d->window_reversal != 0;
	}
}

static void conv_convolution(hp_conv *c, const Xla__ConvolutionDimensionNumbers *d, hm_conv_dims *o)
{
	if (!d)
		return;
	o->present = 1;
	o->input_batch = d->input_batch_dimension;
	o->input_feature = d->input_feature_dimension;
	o->kernel_input_feature = d->kernel_input_feature_dimension;
	o->kernel_output_feature = d->kernel_output_feature_dimension;
	o->output_batch = d->output_batch_dimension;
	o->output_feature = d->output_feature_dimension;
	o->input_spatial = copy_i64(c, d->input_spatial_dimensions, d->n_input_spatial_dimensions,
				    &o->n_input_spatial, "input_spatial_dimensions");
	o->kernel_spatial = copy_i64(c, d->kernel_spatial_dimensions, d->n_kernel_spatial_dimensions,
				     &o->n_kernel_spatial, "kernel_spatial_dimensions");
	o->output_spatial = copy_i64(c, d->output_spatial_dimensions, d->n_output_spatial_dimensions,
				     &o->n_output_spatial, "output_spatial_dimensions");
}

static void conv_slices(hp_conv *c, const Xla__HloInstructionProto *p, hm_instr_x *x)
{
	size_t n = p->n_slice_dimensions;
	if (n > INT_MAX) {
		c->bad = "slice_dimensions";
		return;
	}
	if (n) {
		x->slice_start = hs_arena_array(c->a, n, sizeof(int64_t));
		x->slice_limit = hs_arena_array(c->a, n, sizeof(int64_t));
		x->slice_stride = hs_arena_array(c->a, n, sizeof(int64_t));
		if (!x->slice_start || !x->slice_limit || !x->slice_stride) {
			c->failed = 1;
			return;
		}
		x->n_slice = (int)n;
		for (size_t i = 0; i < n; i++) {
			x->slice_start[i] = p->slice_dimensions[i]->start;
			x->slice_limit[i] = p->slice_dimensions[i]->limit;
			x->slice_stride[i] = p->slice_dimensions[i]->stride;
		}
	}
	const Xla__PaddingConfig *pc = p->padding_config;
	if (!pc || !pc->n_dimensions)
		return;
	if (pc->n_dimensions > INT_MAX) {
		c->bad = "padding_config";
		return;
	}
	n = pc->n_dimensions;
	x->pad_low = hs_arena_array(c->a, n, sizeof(int64_t));
	x->pad_high = hs_arena_array(c->a, n, sizeof(int64_t));
	x->pad_interior = hs_arena_array(c->a, n, sizeof(int64_t));
	if (!x->pad_low || !x->pad_high || !x->pad_interior) {
		c->failed = 1;
		return;
	}
	x->n_padding = (int)n;
	for (size_t i = 0; i < n; i++) {
		x->pad_low[i] = pc->dimensions[i]->edge_padding_low;
		x->pad_high[i] = pc->dimensions[i]->edge_padding_high;
		x->pad_interior[i] = pc->dimensions[i]->interior_padding;
	}
}

/* "{1,2}" */
static void ints_text(hs_strbuf *o, const int64_t *v, size_t n)
{
	hs_strbuf_puts(o, "{");
	sb_ints(o, ",", v, n);
	hs_strbuf_puts(o, "}");
}

/* Attributes hloscope shows but does not featurize, as HLO text names and
 * writes them (index, direction, channel_id, replica_groups, the dot
 * dimension numbers), in the order XLA prints them. */
static void conv_attrs(hp_conv *c, const Xla__HloInstructionProto *p, hm_instr *in)
{
	enum { MAX = 8 };
	hs_strbuf vals[MAX];
	const char *names[MAX];
	int n = 0;
	memset(vals, 0, sizeof vals);
	if (p->has_tuple_index)
		names[n] = "index", hs_strbuf_printf(&vals[n++], "%" PRId64, p->tuple_index);
	if (p->comparison_direction && *p->comparison_direction)
		names[n] = "direction", hs_strbuf_printf(&vals[n++], "%s", p->comparison_direction);
	if (p->has_channel_id && p->channel_id > 0)
		names[n] = "channel_id", hs_strbuf_printf(&vals[n++], "%" PRId64, p->channel_id);
	if (p->n_replica_groups) {
		hs_strbuf *o = &vals[n];
		names[n++] = "replica_groups";
		hs_strbuf_puts(o, "{");
		for (size_t i = 0; i < p->n_replica_groups; i++) {
			hs_strbuf_printf(o, "%s", i ? "," : "");
			ints_text(o, p->replica_groups[i]->replica_ids, p->replica_groups[i]->n_replica_ids);
		}
		hs_strbuf_puts(o, "}");
	}
	const Xla__DotDimensionNumbers *d = p->dot_dimension_numbers;
	if (d && d->n_lhs_batch_dimensions)
		names[n] = "lhs_batch_dims", ints_text(&vals[n++], d->lhs_batch_dimensions, d->n_lhs_batch_dimensions);
	if (d && d->n_lhs_contracting_dimensions)
		names[n] = "lhs_contracting_dims",
		ints_text(&vals[n++], d->lhs_contracting_dimensions, d->n_lhs_contracting_dimensions);
	if (d && d->n_rhs_batch_dimensions)
		names[n] = "rhs_batch_dims", ints_text(&vals[n++], d->rhs_batch_dimensions, d->n_rhs_batch_dimensions);
	if (d && d->n_rhs_contracting_dimensions)
		names[n] = "rhs_contracting_dims",
		ints_text(&vals[n++], d->rhs_contracting_dimensions, d->n_rhs_contracting_dimensions);
	if (n && !(in->attrs = hs_arena_array(c->a, (size_t)n, sizeof *in->attrs)))
		c->failed = 1;
	for (int i = 0; i < n && in->attrs; i++) {
		in->attrs[i].name = hs_arena_strdup(c->a, names[i]);
		in->attrs[i].value = vals[i].s ? hs_arena_strdup(c->a, vals[i].s) : NULL;
		if (!in->attrs[i].name || !in->attrs[i].value || vals[i].failed)
			c->failed = 1;
	}
	in->n_attrs = in->attrs ? n : 0;
	for (int i = 0; i < MAX; i++)
		free(vals[i].s);
}

void hp_conv_instr(hp_conv *c, const Xla__HloInstructionProto *p, hm_instr *in)
{
	hm_instr_x x = hm_instr_x_none;     /* kept when anything in it is set */
	memset(in, 0, sizeof *in);
	if (!(in->name = hs_arena_strdup(c->a, p->name ? p->name : "")) ||
	    !(in->opcode = hs_arena_strdup(c->a, p->opcode ? p->opcode : "")))
		c->failed = 1;
	in->id = p->has_id ? p->id : 0;
	hm_shape *shape = hs_arena_alloc(c->a, sizeof *shape);
	if (shape)
		conv_shape(c, p->shape, shape);
	else
		c->failed = 1;
	in->shape = shape ? shape : &hm_shape_none;
	in->operand_ids = copy_i64(c, p->operand_ids, p->n_operand_ids, &in->n_operands, "operand_ids");
	in->called_ids = copy_i64(c, p->called_computation_ids, p->n_called_computation_ids, &in->n_called,
				  "called_computation_ids");
	x.control_predecessor_ids = copy_i64(c, p->control_predecessor_ids, p->n_control_predecessor_ids,
					     &x.n_control_predecessors, "control_predecessor_ids");
	in->parameter_number = p->has_parameter_number ? p->parameter_number : HM_NONE;
	in->dimensions = copy_i64(c, p->dimensions, p->n_dimensions, &in->n_dimensions, "dimensions");
	conv_window(c, p->window, &x);
	conv_convolution(c, p->convolution_dimension_numbers, &x.conv);
	x.feature_group_count = p->has_feature_group_count ? p->feature_group_count : HM_NONE;
	x.batch_group_count = p->has_batch_group_count ? p->batch_group_count : HM_NONE;
	conv_slices(c, p, &x);
	x.dynamic_slice_sizes = copy_i64(c, p->dynamic_slice_sizes, p->n_dynamic_slice_sizes,
					   &x.n_dynamic_slice_sizes, "dynamic_slice_sizes");
	x.is_stable = p->has_is_stable && p->is_stable;
	in->fusion_kind = opt_str(c->a, p->fusion_kind, &c->failed);
	x.custom_call_target = opt_str(c->a, p->custom_call_target, &c->failed);
	if (p->sharding) {
		hs_strbuf o = {0};
		sharding_text(&o, p->sharding, 0);
		if (o.failed || !(in->sharding = hs_arena_strndup(c->a, o.s, o.len)))
			c->failed = 1;
		free(o.s);
	}
	if (p->has_backend_config && p->backend_config.len &&
	    !(x.backend_config = bytes_text(c->a, p->backend_config.data, p->backend_config.len)))
		c->failed = 1;
	if (p->metadata) {
		in->op_type = opt_str(c->a, p->metadata->op_type, &c->failed);
		in->op_name = opt_str(c->a, p->metadata->op_name, &c->failed);
		in->source_file = opt_str(c->a, p->metadata->source_file, &c->failed);
		in->source_line = p->metadata->has_source_line ? p->metadata->source_line : 0;
	}
	conv_attrs(c, p, in);
	if (memcmp(&x, &hm_instr_x_none, sizeof x) != 0) {
		if (!hm_instr_x_make(c->a, in))
			c->failed = 1;
		else
			*in->x = x;
	}
}

static int64_t *copy_bounds(hp_conv *c, const int64_t *v, size_t n, int *out_n)
{
	return copy_i64(c, v, n, out_n, "tile bounds");
}

static void conv_layout_config(hp_conv *c, const TpuGraphs__LayoutConfig *l, hm_run *run)
{
	if (l->n_nodes > INT_MAX) {
		c->bad = "layout config nodes";
		return;
	}
	run->n_layout_nodes = (int)l->n_nodes;
	if (!l->n_nodes)
		return;
	run->layout_nodes = hs_arena_array(c->a, l->n_nodes, sizeof *run->layout_nodes);
	if (!run->layout_nodes) {
		c->failed = 1;
		return;
	}
	for (size_t k = 0; k < l->n_nodes && !c->failed && !c->bad; k++) {
		const TpuGraphs__LayoutConfig__NodeLayoutConfig *node = l->nodes[k];
		hm_layout_node *o = &run->layout_nodes[k];
		if (node->n_tensors > INT_MAX) {
			c->bad = "layout config tensors";
			return;
		}
		o->n_tensors = (int)node->n_tensors;
		if (!o->n_tensors)
			continue;
		if (!(o->tensors = hs_arena_array(c->a, node->n_tensors, sizeof *o->tensors))) {
			c->failed = 1;
			return;
		}
		for (size_t t = 0; t < node->n_tensors; t++)
			o->tensors[t].dims = copy_i64(c, node->tensors[t]->dims, node->tensors[t]->n_dims,
						      &o->tensors[t].n_dims, "layout dims");
	}
}

void hp_conv_run(hp_conv *c, const TpuGraphs__ConfigProfile *p, hm_run *run)
{
	memset(run, 0, sizeof *run);
	const TpuGraphs__TileSizeConfig *t = p->op_config ? p->op_config->tile_size_config : NULL;
	if (t) {
		run->has_tile = 1;
		run->kernel_bounds = copy_bounds(c, t->kernel_bounds, t->n_kernel_bounds, &run->n_kernel_bounds);
		run->output_bounds = copy_bounds(c, t->output_bounds, t->n_output_bounds, &run->n_output_bounds);
		run->input_bounds = copy_bounds(c, t->input_bounds, t->n_input_bounds, &run->n_input_bounds);
		run->iteration_bounds = copy_bounds(c, t->iteration_bounds, t->n_iteration_bounds,
						    &run->n_iteration_bounds);
	}
	if (p->module_config && p->module_config->layout_config) {
		run->has_layout = 1;
		conv_layout_config(c, p->module_config->layout_config, run);
	}
	run->has_error = p->has_error && p->error;
	run->has_profile = p->profile != NULL;
	run->compute_time_ns = p->profile && p->profile->has_compute_time_ns ? p->profile->compute_time_ns : 0;
	run->is_default = p->has_is_default && p->is_default;
}
