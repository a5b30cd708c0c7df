/* kernels.c - the fused kernels of the tile collection (see synth/plan.h):
 * a fused computation ending in its root, preceded by the reducers it calls
 * and followed by the kernel computation (parameters and the fusion node),
 * and the table of the kernels the dataset holds. */
#include "synth/plan.h"

#include <stdio.h>
#include <string.h>

#include "loader/hlo.h"

const synth_kernel synth_kernels[] = {
	/* program, kind, a, b, c, d, k, split, configs */
	{"resnet", SYNTH_K_CONV_BN_RELU, 8, 28, 32, 32, 3, "train", 240},
	{"resnet", SYNTH_K_CONV_BN_RELU, 8, 28, 32, 128, 1, "train", 200},
	{"resnet", SYNTH_K_BN_STATS, 8, 28, 28, 128, 0, "train", 60},
	{"resnet", SYNTH_K_RELU_POOL, 8, 56, 32, 0, 0, "train", 160},
	{"resnet", SYNTH_K_POOL_FC, 8, 784, 128, 1000, 0, "train", 150},
	{"transformer", SYNTH_K_SOFTMAX, 8, 8, 128, 0, 0, "train", 300},
	{"transformer", SYNTH_K_LAYERNORM, 8, 128, 512, 0, 0, "train", 200},
	{"transformer", SYNTH_K_DENSE_GELU, 1024, 512, 2048, 0, 0, "train", 300},
	{"transformer", SYNTH_K_ATTN_OUT, 8, 128, 8, 64, 0, "train", 250},
	{"resnet", SYNTH_K_CONV_BN_RELU, 16, 14, 128, 128, 3, "train", 220},
	{"transformer", SYNTH_K_SOFTMAX, 4, 12, 256, 0, 0, "valid", 250},
	{"resnet", SYNTH_K_CONV_BN_RELU, 16, 28, 64, 256, 1, "valid", 200},
	{"transformer", SYNTH_K_LAYERNORM, 4, 256, 768, 0, 0, "valid", 180},
	{"transformer", SYNTH_K_DENSE_GELU, 1024, 768, 3072, 0, 0, "test", 300},
	{"resnet", SYNTH_K_BN_STATS, 16, 56, 56, 256, 0, "test", 60},
	{"resnet", SYNTH_K_RELU_POOL, 16, 112, 64, 0, 0, "test", 160},
};

const int synth_nkernels = (int)(sizeof synth_kernels / sizeof synth_kernels[0]);

/* Fused bodies, one per kind: parameters first, the root last.  `a`-`d` of
 * the table entry mean what each comment says.  A body sets ki->contract to
 * its convolution or dot and may set ki->out (else the root is the output). */

/* a=N b=HW c=Cin d=Cout: conv, scale, bias, residual, relu */
static int conv_bn_relu(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
			synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32, map3[1] = {3};
	int64_t in[4] = {ks->a, ks->b, ks->b, ks->c};
	int x = synth_param(g, bf, 4, in);
	int w = synth_conv_param(g, x, 0, ks->d, ks->k);
	int y = synth_conv2d(g, x, w, 0, ks->k, 1, ks->k / 2);
	ki->contract = y;
	y = synth_cvt(g, y, f32);
	y = synth_bin(g, SY_MUL, y, synth_bcast_like(g, synth_param(g, f32, 1, &ks->d), y, map3));
	y = synth_bin(g, SY_ADD, y, synth_bcast_like(g, synth_param(g, f32, 1, &ks->d), y, map3));
	int res = synth_cvt(g, synth_param(g, bf, 4, g->v[y].dim), f32);
	y = synth_relu(g, synth_bin(g, SY_ADD, y, res));
	return synth_cvt(g, y, bf);
}

/* a=N b=HW c=C: batch statistics and the normalized x (the output) */
static int bn_stats(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
		    synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32, map3[1] = {3};
	int64_t in[4] = {ks->a, ks->b, ks->b, ks->c};
	int rdims[3] = {0, 1, 2};
	int x = synth_cvt(g, synth_param(g, bf, 4, in), f32);
	int zero = synth_cst(g, f32);
	int s = synth_reduce(g, x, zero, 3, rdims, rd->add);
	int mean = synth_bin(g, SY_DIV, s, synth_splat(g, s, f32));
	int xc = synth_bin(g, SY_SUB, x, synth_bcast_like(g, mean, x, map3));
	int ss = synth_reduce(g, synth_bin(g, SY_MUL, xc, xc), zero, 3, rdims, rd->add);
	int var = synth_bin(g, SY_DIV, ss, synth_splat(g, ss, f32));
	int inv = synth_un(g, SY_RSQRT, synth_bin(g, SY_ADD, var, synth_splat(g, var, f32)));
	int y = synth_cvt(g, synth_bin(g, SY_MUL, xc, synth_bcast_like(g, inv, xc, map3)), bf);
	int outs[3] = {y, mean, var};
	ki->out = y;
	return synth_tuple(g, 3, outs);
}

/* a=B b=heads c=S: scale, mask, softmax */
static int masked_softmax(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
			  synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32;
	int64_t in[4] = {ks->a, ks->b, ks->c, ks->c}, ms[2] = {ks->c, ks->c};
	int map[2] = {2, 3};
	int s = synth_cvt(g, synth_param(g, bf, 4, in), f32);
	s = synth_bin(g, SY_MUL, s, synth_splat(g, s, f32));
	s = synth_bin(g, SY_ADD, s, synth_bcast_like(g, synth_param(g, f32, 2, ms), s, map));
	return synth_softmax(g, rd, s, bf);
}

/* a=B b=S c=D: residual add then layer norm */
static int residual_layernorm(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
			      synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32;
	int64_t in[3] = {ks->a, ks->b, ks->c};
	int x = synth_param(g, bf, 3, in), r = synth_param(g, bf, 3, in);
	/* r's convert first: the order gcc gave the nested calls this line used to
	 * make, which the files have always had (C leaves it unspecified). */
	int rf = synth_cvt(g, r, f32);
	int sum = synth_bin(g, SY_ADD, synth_cvt(g, x, f32), rf);
	return synth_layernorm(g, rd, synth_cvt(g, sum, bf));
}

/* a=M b=K c=N: dot, bias, gelu */
static int dense_gelu(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
		      synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32;
	int64_t in[2] = {ks->a, ks->b};
	int y = synth_dense(g, synth_param(g, bf, 2, in), ks->c);
	ki->contract = g->v[y].ops[0];
	return synth_cvt(g, synth_gelu(g, synth_cvt(g, y, f32)), bf);
}

/* a=N b=HW c=C: scale, bias, relu, 3x3/2 max pool */
static int bn_relu_maxpool(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
			   synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32, map3[1] = {3};
	int64_t in[4] = {ks->a, ks->b, ks->b, ks->c};
	int x = synth_cvt(g, synth_param(g, bf, 4, in), f32);
	x = synth_bin(g, SY_MUL, x, synth_bcast_like(g, synth_param(g, f32, 1, &ks->c), x, map3));
	x = synth_bin(g, SY_ADD, x, synth_bcast_like(g, synth_param(g, f32, 1, &ks->c), x, map3));
	x = synth_relu(g, x);
	return synth_cvt(g, synth_maxpool(g, x, 1, 3, 2, 1, rd->max), bf);
}

/* a=B b=S c=heads d=Dh: heads back to rows, dense, residual */
static int attention_out(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
			 synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32;
	int64_t in[4] = {ks->a, ks->c, ks->b, ks->d}, rows[2] = {ks->a * ks->b, ks->c * ks->d};
	int perm[4] = {0, 2, 1, 3};
	int x = synth_reshape(g, synth_transpose(g, synth_param(g, bf, 4, in), perm), 2, rows);
	int y = synth_dense(g, x, rows[1]);
	ki->contract = g->v[y].ops[0];
	int map[1] = {1};
	y = synth_cvt(g, y, f32);
	y = synth_bin(g, SY_MUL, y, synth_bcast_like(g, synth_param(g, f32, 1, &rows[1]), y, map));
	int res = synth_param(g, bf, 2, rows);
	return synth_cvt(g, synth_bin(g, SY_ADD, y, synth_cvt(g, res, f32)), bf);
}

/* a=N b=HW c=C d=classes: mean over HW, dense, bias */
static int pool_dense(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
		      synth_kernel_info *ki)
{
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32;
	int64_t in[3] = {ks->a, ks->b, ks->c};
	int one = 1;
	int x = synth_cvt(g, synth_param(g, bf, 3, in), f32);
	int p = synth_reduce(g, x, synth_cst(g, f32), 1, &one, rd->add);
	p = synth_cvt(g, synth_bin(g, SY_DIV, p, synth_splat(g, p, f32)), bf);
	int y = synth_dense(g, p, ks->d);
	ki->contract = g->v[y].ops[0];
	return synth_cvt(g, synth_un(g, SY_EXP, synth_cvt(g, y, f32)), bf);
}

typedef int (*kern_body)(synth_graph *g, const synth_kernel *ks, const synth_reducers *rd,
			 synth_kernel_info *ki);

/* Per kind: the name in file names, the f32 reducers the body calls, the body. */
static const struct {
	const char *name;
	int add, max;
	kern_body body;
} kinds[] = {
	[SYNTH_K_CONV_BN_RELU] = {"conv_bn_relu", 0, 0, conv_bn_relu},
	[SYNTH_K_BN_STATS] = {"bn_stats", 1, 0, bn_stats},
	[SYNTH_K_SOFTMAX] = {"masked_softmax", 1, 1, masked_softmax},
	[SYNTH_K_LAYERNORM] = {"residual_layernorm", 1, 0, residual_layernorm},
	[SYNTH_K_DENSE_GELU] = {"dense_gelu", 0, 0, dense_gelu},
	[SYNTH_K_RELU_POOL] = {"bn_relu_maxpool", 0, 1, bn_relu_maxpool},
	[SYNTH_K_ATTN_OUT] = {"attention_out", 0, 0, attention_out},
	[SYNTH_K_POOL_FC] = {"pool_dense", 1, 0, pool_dense},
};

static int kind_of(const synth_kernel *ks)
{
	int n = (int)(sizeof kinds / sizeof kinds[0]);
	return ks->kind >= 0 && ks->kind < n ? ks->kind : SYNTH_K_POOL_FC;
}

void synth_kernel_desc(const synth_kernel *ks, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "synth_%s_%s_%lldx%lldx%lld", ks->program,
			 kinds[kind_of(ks)].name, (long long)ks->a, (long long)ks->b,
			 (long long)ks->c);
	if (ks->d && n > 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, "x%lld", (long long)ks->d);
	if (ks->k == 3 && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "_3x3");
}

/* The kernel computation: parameters like the fused ones, then the fusion
 * calling the fused root. */
static void kernel_computation(synth_graph *g, const synth_kernel_info *ki, int root)
{
	synth_comp_begin(g);
	int ops[SYNTH_MAX_OPERANDS], nops = 0;
	for (int i = ki->body_start; i < ki->body_end && nops < SYNTH_MAX_OPERANDS - 1; i++) {
		synth_node *P = &g->v[i];
		if (P->op == SY_PARAM) {
			int64_t d[SYNTH_MAX_RANK];
			memcpy(d, P->dim, sizeof d);
			ops[nops++] = synth_param(g, P->et, P->rank, d);
		}
	}
	synth_node *R = &g->v[root];
	int64_t d[SYNTH_MAX_RANK];
	memcpy(d, R->dim, sizeof d);
	int fu = synth_new_node(g, SY_FUSION, R->et, R->rank, d);
	g->v[fu].tuple_n = R->tuple_n;
	g->v[fu].called = root;
	for (int i = 0; i < nops; i++)
		synth_add_op(g, fu, ops[i]);
	synth_comp_end(g, fu);
}

/* Contraction facts for the tile formula. */
static void contraction_facts(const synth_graph *g, synth_kernel_info *ki)
{
	ki->krank = 0;
	ki->K = 1;
	if (ki->contract < 0)
		return;
	const synth_node *C = &g->v[ki->contract], *Kn = &g->v[C->ops[1]];
	ki->krank = Kn->rank;
	memcpy(ki->kdim, Kn->dim, sizeof ki->kdim);
	if (C->op == SY_CONV) {
		ki->kout = C->cd[7];
		ki->out_feat = C->cd[13];
		ki->K = Kn->dim[C->cd[6]] * Kn->dim[C->cd[8]] * Kn->dim[C->cd[9]];
	} else {
		ki->kout = Kn->rank - 1;
		ki->out_feat = C->rank - 1;
		ki->K = Kn->dim[Kn->rank - 2];
	}
}

void synth_build_kernel(synth_graph *g, const synth_kernel *ks, synth_kernel_info *ki)
{
	int kind = kind_of(ks);
	synth_reducers rd = {-1, -1};
	memset(ki, 0, sizeof *ki);
	if (kinds[kind].add)
		rd.add = synth_reducer(g, SY_ADD, HLO_ET_F32);
	if (kinds[kind].max)
		rd.max = synth_reducer(g, SY_MAX, HLO_ET_F32);
	synth_comp_begin(g);
	ki->body_start = g->n;
	ki->contract = -1;
	ki->out = -1;
	int root = kinds[kind].body(g, ks, &rd, ki);
	if (ki->out < 0)
		ki->out = root;
	synth_comp_end(g, root);
	ki->body_end = g->n;
	kernel_computation(g, ki, root);
	contraction_facts(g, ki);
}
