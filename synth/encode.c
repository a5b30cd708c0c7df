/* encode.c - a synth graph as the TpuGraphs files hold it: node_feat,
 * node_opcode, edge_index and node_splits (see synth/graph.h).  Opcode ids
 * and feature indices are looked up by name in loader/hlo.h's tables once. */
#include "synth/builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "loader/hlo_module.h"

static int op_id[SY_NOPS];

/* Feature families with six entries, a sum and a product. */
enum { W_SIZE, W_STRIDE, W_LO, W_HI, W_WDIL, W_BDIL, W_N };
static const char *const win_prefix[W_N] = {
	"window_size", "window_stride", "window_padding_low",
	"window_padding_high", "window_window_dilation", "window_base_dilation",
};

static const char *const conv_names[14] = {
	"convolution_dim_numbers_input_batch_dim",
	"convolution_dim_numbers_input_feature_dim",
	"convolution_dim_numbers_input_spatial_dims_0",
	"convolution_dim_numbers_input_spatial_dims_1",
	"convolution_dim_numbers_input_spatial_dims_2",
	"convolution_dim_numbers_input_spatial_dims_3",
	"convolution_dim_numbers_kernel_input_feature_dim",
	"convolution_dim_numbers_kernel_output_feature_dim",
	"convolution_dim_numbers_kernel_spatial_dims_0",
	"convolution_dim_numbers_kernel_spatial_dims_1",
	"convolution_dim_numbers_kernel_spatial_dims_2",
	"convolution_dim_numbers_kernel_spatial_dims_3",
	"convolution_dim_numbers_output_batch_dim",
	"convolution_dim_numbers_output_feature_dim",
};

/* Products of empty lists are 1 in the real files. */
static const char *const one_names[6] = {
	"slice_dims_start_product", "slice_dims_stride_product",
	"slice_dims_limit_product", "dynamic_slice_sizes_product",
	"padding_config_edge_padding_low_product",
	"padding_config_edge_padding_high_product",
};

static const int used_types[] = {HLO_ET_PRED, HLO_ET_S32, HLO_ET_F32, HLO_ET_BF16,
				 HLO_ET_TUPLE};

static struct {
	int is_root, tuple_size, param_no;
	int et[HLO_NELEMENT_TYPES];
	int dims[6], dims_sum, dims_prod;
	int dimattr[6];
	int win[W_N][8]; /* _0.._5, _sum, _product */
	int rev[6], rev_true, rev_false;
	int conv[14], fgc, bgc;
	int ones[6];
	int m2m[6];
} fx;

static int fx_ready;
static char fx_missing[160];

static int fx_find(int *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fx_find(int *dst, const char *fmt, ...)
{
	char name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	*dst = hlo_node_feature_index(name);
	if (*dst < 0 || *dst >= HLO_NODE_FEATURES) {
		if (!fx_missing[0])
			snprintf(fx_missing, sizeof fx_missing, "node feature '%s'", name);
		return -1;
	}
	return 0;
}

int synth_features_init(hs_error *err)
{
	if (fx_ready)
		return 0;
	for (int i = 0; i < SY_NOPS; i++) {
		op_id[i] = hlo_opcode_id(synth_op_names[i]);
		if (op_id[i] <= 0 || op_id[i] > 255)
			return hs_fail(err, HS_EDATA, "synth: opcode '%s' has no id in the opcode table",
				       synth_op_names[i]);
	}
	int bad = 0;
	bad |= fx_find(&fx.is_root, "is_root");
	bad |= fx_find(&fx.tuple_size, "shape_tuple_shapes_size");
	bad |= fx_find(&fx.param_no, "parameter_number");
	for (int i = 0; i < HLO_NELEMENT_TYPES; i++)
		fx.et[i] = -1;
	for (size_t i = 0; i < sizeof used_types / sizeof used_types[0]; i++)
		bad |= fx_find(&fx.et[used_types[i]], "shape_element_type_is_%s",
			       hm_element_type_name(hm_element_type_of_onehot(used_types[i])));
	for (int i = 0; i < 6; i++) {
		bad |= fx_find(&fx.dims[i], "shape_dimensions_%d", i);
		bad |= fx_find(&fx.dimattr[i], "dimensions_%d", i);
		bad |= fx_find(&fx.rev[i], "window_window_reversal_%d", i);
		bad |= fx_find(&fx.m2m[i], "layout_minor_to_major_%d", i);
		bad |= fx_find(&fx.ones[i], "%s", one_names[i]);
	}
	bad |= fx_find(&fx.dims_sum, "shape_dimensions_sum");
	bad |= fx_find(&fx.dims_prod, "shape_dimensions_product");
	for (int w = 0; w < W_N; w++) {
		for (int i = 0; i < 6; i++)
			bad |= fx_find(&fx.win[w][i], "%s_%d", win_prefix[w], i);
		bad |= fx_find(&fx.win[w][6], "%s_sum", win_prefix[w]);
		bad |= fx_find(&fx.win[w][7], "%s_product", win_prefix[w]);
	}
	bad |= fx_find(&fx.rev_true, "window_window_reversal_true_count");
	bad |= fx_find(&fx.rev_false, "window_window_reversal_false_count");
	for (int i = 0; i < 14; i++)
		bad |= fx_find(&fx.conv[i], "%s", conv_names[i]);
	bad |= fx_find(&fx.fgc, "feature_group_count");
	bad |= fx_find(&fx.bgc, "batch_group_count");
	if (bad)
		return hs_fail(err, HS_EDATA, "synth: %s is unknown to the feature table",
			       fx_missing);
	fx_ready = 1;
	return 0;
}

/* One row of node_feat. */
static void encode_node(const synth_node *x, float *row)
{
	memset(row, 0, sizeof(float) * HLO_NODE_FEATURES);
	row[fx.is_root] = (float)x->is_root;
	if (fx.et[x->et] >= 0)
		row[fx.et[x->et]] = 1;
	double sum = 0, prod = 1;
	for (int i = 0; i < x->rank; i++) {
		row[fx.dims[i]] = (float)x->dim[i];
		sum += (double)x->dim[i];
		prod *= (double)x->dim[i];
	}
	row[fx.dims_sum] = (float)sum;
	row[fx.dims_prod] = (float)prod;
	if (x->et == HLO_ET_TUPLE)
		row[fx.tuple_size] = (float)x->tuple_n;
	if (x->op == SY_PARAM)
		row[fx.param_no] = (float)x->param_no;
	for (int i = 0; i < x->ndimattr; i++)
		row[fx.dimattr[i]] = (float)x->dimattr[i];
	for (int w = 0; w < W_N; w++) {
		double s = 0, p = 1;
		for (int i = 0; i < x->nwin; i++) {
			double v = w < 4 ? (double)x->win[w][i] : 1.0; /* dilations are 1 */
			row[fx.win[w][i]] = (float)v;
			s += v;
			p *= v;
		}
		row[fx.win[w][6]] = (float)s;
		row[fx.win[w][7]] = (float)p;
	}
	row[fx.rev_false] = (float)x->nwin;
	if (x->conv) {
		for (int i = 0; i < 14; i++)
			row[fx.conv[i]] = (float)x->cd[i];
		row[fx.fgc] = 1;
		row[fx.bgc] = 1;
	}
	for (int i = 0; i < 6; i++)
		row[fx.ones[i]] = 1;
	for (int i = 0; i < x->rank; i++)
		row[fx.m2m[i]] = (float)x->m2m[i];
}

void synth_arrays_free(synth_arrays *a)
{
	free(a->feat);
	free(a->opcode);
	free(a->edges);
	free(a->splits);
	memset(a, 0, sizeof *a);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int synth_encode(const synth_graph *g, synth_arrays *a, hs_error *err)
{
	memset(a, 0, sizeof *a);
	if (synth_features_init(err) < 0)
		return -1;
	a->n = g->n;
	int64_t cap = 0;
	for (int i = 0; i < g->n; i++)
		cap += g->v[i].nops + 1;
	size_t nn = g->n > 0 ? (size_t)g->n : 1;
	a->feat = malloc(sizeof(float) * HLO_NODE_FEATURES * nn);
	a->opcode = malloc(nn);
	a->edges = malloc(sizeof(int64_t) * 2 * (size_t)(cap ? cap : 1));
	a->splits = malloc(sizeof(int64_t) * (size_t)(g->ncomp + 1));
	if (!a->feat || !a->opcode || !a->edges || !a->splits) {
		synth_arrays_free(a);
		return hs_fail(err, HS_ENOMEM, "synth: out of memory encoding a graph");
	}
	for (int i = 0; i < g->n; i++) {
		const synth_node *x = &g->v[i];
		encode_node(x, a->feat + (size_t)i * HLO_NODE_FEATURES);
		a->opcode[i] = (uint8_t)op_id[x->op];
		int nb[SYNTH_MAX_OPERANDS + 1], k = 0;
		for (int j = 0; j < x->nops; j++)
			nb[k++] = x->ops[j];
		if (x->called >= 0)
			nb[k++] = x->called;
		qsort(nb, (size_t)k, sizeof nb[0], cmp_int);
		for (int j = 0; j < k; j++) {
			if (j > 0 && nb[j] == nb[j - 1])
				continue;
			a->edges[2 * a->m] = i;
			a->edges[2 * a->m + 1] = nb[j];
			a->m++;
		}
	}
	for (int c = 0; c < g->ncomp; c++)
		a->splits[c] = g->comp[c];
	a->splits[g->ncomp] = g->n;
	a->nsplits = g->ncomp + 1;
	return 0;
}
