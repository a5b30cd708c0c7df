/* programs.c - the whole programs of the layout collection: conv-nets (NHWC
 * and NCHW) and pre-norm transformers (see synth/plan.h), and the table of
 * the programs the dataset holds. */
#include "synth/plan.h"

#include "loader/hlo.h"

const synth_program synth_programs[] = {
	/* name, kind, batch, size, width, depth, stages|heads, nchw, et, split,
	 * configs default/random */
	{"synth_resnet_nhwc_b8_s28", SYNTH_CONVNET, 8, 28, 32, 3, 2, 0, HLO_ET_BF16, "train",
	 500, 400},
	{"synth_resnet_nchw_b8_s28", SYNTH_CONVNET, 8, 28, 32, 3, 2, 1, HLO_ET_BF16, "train",
	 600, 300},
	{"synth_transformer_b8_s128_d512_l2", SYNTH_TRANSFORMER, 8, 128, 512, 2, 8, 0,
	 HLO_ET_BF16, "train", 400, 250},
	{"synth_transformer_b4_s256_d768_l3", SYNTH_TRANSFORMER, 4, 256, 768, 3, 12, 0,
	 HLO_ET_BF16, "valid", 300, 200},
	{"synth_resnet_nhwc_b16_s56_3stages", SYNTH_CONVNET, 16, 56, 64, 4, 3, 0, HLO_ET_BF16,
	 "test", 300, 200},
};

const int synth_nprograms = (int)(sizeof synth_programs / sizeof synth_programs[0]);

/* A conv-net: stem, max pool, `stages` stages of `depth` bottleneck blocks,
 * global average pool, dense layer, softmax. */
static void build_resnet(synth_graph *g, const synth_program *p)
{
	synth_reducers rd;
	rd.add = synth_reducer(g, SY_ADD, HLO_ET_F32);
	rd.max = synth_reducer(g, SY_MAX, p->et);
	synth_comp_begin(g);
	int nchw = p->nchw, fd = nchw ? 1 : 3, sp0 = nchw ? 2 : 1;
	int64_t side = p->size * 4;
	/* The image arrives in the other layout and is transposed into the net's. */
	int64_t img[4] = {p->batch, 3, side, side};
	int to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
	if (nchw) {
		img[1] = side;
		img[3] = 3;
	}
	int x = synth_param(g, HLO_ET_F32, 4, img);
	x = synth_cvt(g, synth_transpose(g, x, nchw ? to_nchw : to_nhwc), p->et);
	x = synth_conv_bn(g, &rd, x, nchw, p->width, 7, 2, 1);
	x = synth_maxpool(g, synth_relu(g, x), sp0, 3, 2, 1, rd.max);
	for (int s = 0; s < p->stages; s++) {
		int64_t mid = p->width << s, out = mid * 4;
		for (int b = 0; b < p->depth; b++) {
			int stride = (s > 0 && b == 0) ? 2 : 1;
			int y = synth_conv_bn(g, &rd, x, nchw, mid, 1, 1, 1);
			y = synth_conv_bn(g, &rd, y, nchw, mid, 3, stride, 1);
			y = synth_conv_bn(g, &rd, y, nchw, out, 1, 1, 0);
			int sc = b == 0 ? synth_conv_bn(g, &rd, x, nchw, out, 1, stride, 0) : x;
			x = synth_relu(g, synth_bin(g, SY_ADD, y, sc));
		}
	}
	/* Global average pool through a reshape, dense layer, softmax. */
	synth_node *X = &g->v[x];
	int64_t c = X->dim[fd], hw = X->dim[sp0] * X->dim[sp0 + 1], flat[3];
	flat[0] = X->dim[0];
	flat[1] = nchw ? c : hw;
	flat[2] = nchw ? hw : c;
	int f = synth_cvt(g, synth_reshape(g, x, 3, flat), HLO_ET_F32);
	int pooled_dim = nchw ? 2 : 1;
	int pool = synth_reduce(g, f, synth_cst(g, HLO_ET_F32), 1, &pooled_dim, rd.add);
	pool = synth_bin(g, SY_DIV, pool, synth_splat(g, pool, HLO_ET_F32));
	int logits = synth_dense(g, synth_cvt(g, pool, p->et), 1000);
	int probs = synth_softmax(g, &rd, logits, HLO_ET_F32);
	int outs[2] = {probs, logits};
	synth_comp_end(g, synth_tuple(g, 2, outs));
}

/* A dense projection of x split into heads and transposed by perm. */
static int project_heads(synth_graph *g, int x, int64_t d, const int64_t *heads, const int *perm)
{
	return synth_transpose(g, synth_reshape(g, synth_dense(g, x, d), 4, heads), perm);
}

/* `depth` pre-norm transformer layers with `stages` heads, a final layer norm. */
static void build_transformer(synth_graph *g, const synth_program *p)
{
	synth_reducers rd;
	rd.add = synth_reducer(g, SY_ADD, HLO_ET_F32);
	rd.max = synth_reducer(g, SY_MAX, HLO_ET_F32);
	synth_comp_begin(g);
	int64_t B = p->batch, S = p->size, D = p->width, H = p->stages, Dh = D / H;
	int64_t xs[3] = {B, S, D}, ms[2] = {S, S}, heads[4] = {B, S, H, Dh};
	int to_bhsd[4] = {0, 2, 1, 3}, to_bhds[4] = {0, 2, 3, 1}, mask_map[2] = {2, 3};
	int x = synth_cvt(g, synth_param(g, HLO_ET_F32, 3, xs), p->et);
	int mask = synth_param(g, HLO_ET_F32, 2, ms);
	for (int l = 0; l < p->depth; l++) {
		int res = synth_copy(g, x);
		int h = synth_layernorm(g, &rd, x);
		int q = project_heads(g, h, D, heads, to_bhsd);
		int k = project_heads(g, h, D, heads, to_bhds);
		int v = project_heads(g, h, D, heads, to_bhsd);
		int s = synth_dot(g, q, k);
		s = synth_bin(g, SY_MUL, s, synth_splat(g, s, p->et));
		int sf = synth_cvt(g, s, HLO_ET_F32);
		s = synth_bin(g, SY_ADD, sf, synth_bcast_like(g, mask, sf, mask_map));
		int pr = synth_softmax(g, &rd, s, p->et);
		int ctx = synth_transpose(g, synth_dot(g, pr, v), to_bhsd);
		ctx = synth_reshape(g, ctx, 3, xs);
		x = synth_bin(g, SY_ADD, res, synth_dense(g, ctx, D));
		int f = synth_gelu(g, synth_dense(g, synth_layernorm(g, &rd, x), D * 4));
		x = synth_bin(g, SY_ADD, x, synth_dense(g, f, D));
	}
	int out = synth_layernorm(g, &rd, x);
	int outs[2] = {synth_cvt(g, out, HLO_ET_F32), x};
	synth_comp_end(g, synth_tuple(g, 2, outs));
}

void synth_build_program(synth_graph *g, const synth_program *p)
{
	if (p->kind == SYNTH_CONVNET)
		build_resnet(g, p);
	else
		build_transformer(g, p);
}
