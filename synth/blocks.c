/* layers.c - composite layers built from single ops (see synth/graph.h):
 * relu, batch norm, layer norm, softmax, gelu, dense, convolution with batch
 * norm.  Shared by the whole programs (programs.c) and the fused kernels
 * (kernels.c). */
#include "synth/builder.h"

#include <string.h>

#include "loader/hlo.h"

int synth_relu(synth_graph *g, int x)
{
	return synth_bin(g, SY_MAX, x, synth_splat(g, x, g->v[x].et));
}

/* Batch norm with batch statistics over every dim but fd, in f32. */
int synth_batchnorm(synth_graph *g, const synth_reducers *rd, int x, int fd)
{
	int et = g->v[x].et, r = g->v[x].rank, nred = 0, rdims[SYNTH_MAX_RANK], map[1] = {fd};
	int64_t c = g->v[x].dim[fd];
	for (int i = 0; i < r; i++)
		if (i != fd)
			rdims[nred++] = i;
	int xf = synth_cvt(g, x, HLO_ET_F32);
	int zero = synth_cst(g, HLO_ET_F32);
	int s = synth_reduce(g, xf, zero, nred, rdims, rd->add);
	int cnt = synth_splat(g, s, HLO_ET_F32);
	int mean = synth_bin(g, SY_DIV, s, cnt);
	int xc = synth_bin(g, SY_SUB, xf, synth_bcast_like(g, mean, xf, map));
	int sq = synth_bin(g, SY_MUL, xc, xc);
	int var = synth_bin(g, SY_DIV, synth_reduce(g, sq, zero, nred, rdims, rd->add), cnt);
	int inv = synth_un(g, SY_RSQRT, synth_bin(g, SY_ADD, var, synth_splat(g, var, HLO_ET_F32)));
	int gamma = synth_param(g, HLO_ET_F32, 1, &c);
	int scale = synth_bin(g, SY_MUL, inv, gamma);
	int y = synth_bin(g, SY_MUL, xc, synth_bcast_like(g, scale, xc, map));
	int beta = synth_param(g, HLO_ET_F32, 1, &c);
	y = synth_bin(g, SY_ADD, y, synth_bcast_like(g, beta, y, map));
	return synth_cvt(g, y, et);
}

/* Layer norm over the last dim, in f32, with gamma and beta. */
int synth_layernorm(synth_graph *g, const synth_reducers *rd, int x)
{
	int et = g->v[x].et, r = g->v[x].rank, last = r - 1, keep[SYNTH_MAX_RANK], map[1] = {last};
	int64_t dm = g->v[x].dim[last];
	for (int i = 0; i < last; i++)
		keep[i] = i;
	int xf = synth_cvt(g, x, HLO_ET_F32);
	int zero = synth_cst(g, HLO_ET_F32);
	int s = synth_reduce(g, xf, zero, 1, &last, rd->add);
	int mean = synth_bin(g, SY_DIV, s, synth_splat(g, s, HLO_ET_F32));
	int xc = synth_bin(g, SY_SUB, xf, synth_bcast_like(g, mean, xf, keep));
	int v = synth_reduce(g, synth_bin(g, SY_MUL, xc, xc), zero, 1, &last, rd->add);
	v = synth_bin(g, SY_DIV, v, synth_splat(g, v, HLO_ET_F32));
	int inv = synth_un(g, SY_RSQRT, synth_bin(g, SY_ADD, v, synth_splat(g, v, HLO_ET_F32)));
	int y = synth_bin(g, SY_MUL, xc, synth_bcast_like(g, inv, xc, keep));
	int gamma = synth_param(g, HLO_ET_F32, 1, &dm), beta = synth_param(g, HLO_ET_F32, 1, &dm);
	y = synth_bin(g, SY_MUL, y, synth_bcast_like(g, gamma, y, map));
	y = synth_bin(g, SY_ADD, y, synth_bcast_like(g, beta, y, map));
	return synth_cvt(g, y, et);
}

/* Softmax over the last dim, in f32; returns the result in et. */
int synth_softmax(synth_graph *g, const synth_reducers *rd, int x, int et)
{
	int r = g->v[x].rank, last = r - 1, keep[SYNTH_MAX_RANK];
	for (int i = 0; i < last; i++)
		keep[i] = i;
	int xf = synth_cvt(g, x, HLO_ET_F32);
	int m = synth_reduce(g, xf, synth_cst(g, HLO_ET_F32), 1, &last, rd->max);
	int e = synth_un(g, SY_EXP, synth_bin(g, SY_SUB, xf, synth_bcast_like(g, m, xf, keep)));
	int s = synth_reduce(g, e, synth_cst(g, HLO_ET_F32), 1, &last, rd->add);
	int p = synth_bin(g, SY_DIV, e, synth_bcast_like(g, s, e, keep));
	return synth_cvt(g, p, et);
}

/* tanh gelu: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in x's type. */
int synth_gelu(synth_graph *g, int x)
{
	int et = g->v[x].et;
	int x3 = synth_bin(g, SY_MUL, synth_bin(g, SY_MUL, x, x), x);
	int in = synth_bin(g, SY_ADD, x, synth_bin(g, SY_MUL, x3, synth_splat(g, x, et)));
	int t = synth_un(g, SY_TANH, synth_bin(g, SY_MUL, in, synth_splat(g, x, et)));
	int h = synth_bin(g, SY_MUL, x, synth_splat(g, x, et));
	return synth_bin(g, SY_MUL, h, synth_bin(g, SY_ADD, t, synth_splat(g, x, et)));
}

/* x [..., K] times a new weight [K, N] plus a new bias [N]. */
int synth_dense(synth_graph *g, int x, int64_t n)
{
	int et = g->v[x].et, r = g->v[x].rank;
	int64_t w[2] = {g->v[x].dim[r - 1], n};
	int y = synth_dot(g, x, synth_param(g, et, 2, w));
	int map[1] = {r - 1};
	return synth_bin(g, SY_ADD, y, synth_bcast_like(g, synth_param(g, et, 1, &n), y, map));
}

int synth_conv_param(synth_graph *g, int in, int nchw, int64_t cout, int k)
{
	int64_t cin = g->v[in].dim[nchw ? 1 : 3];
	int64_t w[4];
	if (nchw) {
		w[0] = cout; w[1] = cin; w[2] = k; w[3] = k;
	} else {
		w[0] = k; w[1] = k; w[2] = cin; w[3] = cout;
	}
	return synth_param(g, g->v[in].et, 4, w);
}

int synth_conv_bn(synth_graph *g, const synth_reducers *rd, int x, int nchw, int64_t cout,
		  int k, int s, int act)
{
	int w = synth_conv_param(g, x, nchw, cout, k);
	int y = synth_batchnorm(g, rd, synth_conv2d(g, x, w, nchw, k, s, k / 2), nchw ? 1 : 3);
	return act ? synth_relu(g, y) : y;
}
