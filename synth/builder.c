/* graph.c - HLO graphs under construction: nodes, computations and one
 * builder per HLO op (see synth/graph.h).  Shapes are computed from the
 * operands; a mismatch is a bug in a builder, recorded once in g->bug. */
#include "synth/builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "loader/hlo_module.h"

const char *const synth_op_names[SY_NOPS] = {
#define SYNTH_NAME(e, name) name,
	SYNTH_OPS(SYNTH_NAME)
#undef SYNTH_NAME
};

int synth_graph_init(synth_graph *g)
{
	memset(g, 0, sizeof *g);
	g->v = calloc(SYNTH_MAX_NODES, sizeof *g->v);
	g->open = -1;
	return g->v ? 0 : -1;
}

void synth_graph_done(synth_graph *g)
{
	free(g->v);
	g->v = NULL;
}

static void note_bug(synth_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_bug(synth_graph *g, const char *fmt, ...)
{
	if (g->bug[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->bug, sizeof g->bug, fmt, ap);
	va_end(ap);
}

int64_t synth_elems(const synth_node *x)
{
	int64_t e = 1;
	for (int i = 0; i < x->rank; i++)
		e *= x->dim[i];
	return e;
}

int synth_et_bytes(int et)
{
	int b = hm_element_type_bytes(hm_element_type_of_onehot(et));
	return b > 0 ? b : 4;
}

int64_t synth_nbytes(const synth_node *x)
{
	return x->et == HLO_ET_TUPLE ? 0 : synth_elems(x) * synth_et_bytes(x->et);
}

int synth_new_node(synth_graph *g, int op, int et, int rank, const int64_t *dim)
{
	if (g->n >= SYNTH_MAX_NODES) {
		note_bug(g, "more than %d nodes", SYNTH_MAX_NODES);
		return g->n - 1;
	}
	if (g->open < 0)
		note_bug(g, "node outside a computation");
	int id = g->n++;
	synth_node *x = &g->v[id];
	memset(x, 0, sizeof *x);
	x->op = op;
	x->et = et;
	x->rank = rank;
	x->called = -1;
	for (int i = 0; i < rank; i++) {
		x->dim[i] = dim[i];
		x->m2m[i] = rank - 1 - i;
	}
	return id;
}

void synth_add_op(synth_graph *g, int x, int operand)
{
	synth_node *v = &g->v[x];
	if (operand < 0 || operand >= x)
		note_bug(g, "node %d: operand %d is not earlier", x, operand);
	else if (v->nops == SYNTH_MAX_OPERANDS)
		note_bug(g, "node %d: too many operands", x);
	else
		v->ops[v->nops++] = operand;
}

void synth_comp_begin(synth_graph *g)
{
	if (g->open >= 0 || g->ncomp == SYNTH_MAX_COMPS)
		note_bug(g, "computation not closed or too many");
	g->open = g->n;
	g->nparam = 0;
}

void synth_comp_end(synth_graph *g, int root)
{
	if (root != g->n - 1 || g->open < 0 || g->open >= g->n)
		note_bug(g, "computation root %d is not its last node", root);
	else
		g->v[root].is_root = 1;
	if (g->ncomp < SYNTH_MAX_COMPS)
		g->comp[g->ncomp++] = g->open;
	g->open = -1;
}

static int same_dims(const synth_node *a, const synth_node *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

/* Node builders.  Shapes are computed from operands; mismatches are bugs. */

int synth_param(synth_graph *g, int et, int rank, const int64_t *dim)
{
	int x = synth_new_node(g, SY_PARAM, et, rank, dim);
	g->v[x].param_no = g->nparam++;
	return x;
}

int synth_cst(synth_graph *g, int et)
{
	return synth_new_node(g, SY_CONST, et, 0, NULL);
}

int synth_un(synth_graph *g, int op, int a)
{
	synth_node *A = &g->v[a];
	int x = synth_new_node(g, op, A->et, A->rank, A->dim);
	synth_add_op(g, x, a);
	g->v[x].flops = (double)synth_elems(&g->v[x]);
	return x;
}

int synth_bin(synth_graph *g, int op, int a, int b)
{
	if (!same_dims(&g->v[a], &g->v[b]))
		note_bug(g, "%s of nodes %d and %d: shapes differ", synth_op_names[op], a, b);
	int x = synth_un(g, op, a);
	synth_add_op(g, x, b);
	return x;
}

int synth_cvt(synth_graph *g, int a, int et)
{
	if (g->v[a].et == et)
		return a;
	int x = synth_un(g, SY_CONVERT, a);
	g->v[x].et = et;
	return x;
}

/* Broadcast a into dims; operand dimension i becomes output dimension map[i]. */
int synth_bcast(synth_graph *g, int a, int rank, const int64_t *dim, const int *map)
{
	synth_node *A = &g->v[a];
	int x = synth_new_node(g, SY_BCAST, A->et, rank, dim);
	synth_node *X = &g->v[x];
	X->ndimattr = A->rank;
	for (int i = 0; i < A->rank; i++) {
		X->dimattr[i] = map[i];
		if (map[i] >= rank || dim[map[i]] != A->dim[i])
			note_bug(g, "broadcast of node %d: bad dimension map", a);
	}
	synth_add_op(g, x, a);
	return x;
}

/* A scalar constant broadcast to node `like`'s shape. */
int synth_splat(synth_graph *g, int like, int et)
{
	int64_t d[SYNTH_MAX_RANK];
	int r = g->v[like].rank;
	memcpy(d, g->v[like].dim, sizeof d);
	return synth_bcast(g, synth_cst(g, et), r, d, NULL);
}

/* Broadcast a into like's shape with operand dims mapped to map[]. */
int synth_bcast_like(synth_graph *g, int a, int like, const int *map)
{
	int64_t d[SYNTH_MAX_RANK];
	int r = g->v[like].rank;
	memcpy(d, g->v[like].dim, sizeof d);
	return synth_bcast(g, a, r, d, map);
}

int synth_reduce(synth_graph *g, int a, int init, int nred, const int *rdims, int reducer)
{
	synth_node *A = &g->v[a];
	int64_t d[SYNTH_MAX_RANK];
	int r = 0;
	for (int i = 0; i < A->rank; i++) {
		int skip = 0;
		for (int j = 0; j < nred; j++)
			skip |= rdims[j] == i;
		if (!skip)
			d[r++] = A->dim[i];
	}
	int x = synth_new_node(g, SY_REDUCE, A->et, r, d);
	synth_node *X = &g->v[x];
	X->ndimattr = nred;
	for (int j = 0; j < nred; j++)
		X->dimattr[j] = rdims[j];
	X->flops = (double)synth_elems(A);
	X->called = reducer;
	synth_add_op(g, x, a);
	synth_add_op(g, x, init);
	return x;
}

int synth_reshape(synth_graph *g, int a, int rank, const int64_t *dim)
{
	int x = synth_new_node(g, SY_RESHAPE, g->v[a].et, rank, dim);
	if (synth_elems(&g->v[x]) != synth_elems(&g->v[a]))
		note_bug(g, "reshape of node %d changes the element count", a);
	g->v[x].cfg = SY_CFG_RESHAPE;
	synth_add_op(g, x, a);
	return x;
}

/* Output dimension i is operand dimension perm[i]. */
int synth_transpose(synth_graph *g, int a, const int *perm)
{
	synth_node *A = &g->v[a];
	int64_t d[SYNTH_MAX_RANK];
	for (int i = 0; i < A->rank; i++)
		d[i] = A->dim[perm[i]];
	int x = synth_new_node(g, SY_TRANSPOSE, A->et, A->rank, d);
	synth_node *X = &g->v[x];
	X->ndimattr = A->rank;
	memcpy(X->dimattr, perm, sizeof(int) * (size_t)A->rank);
	X->cfg = SY_CFG_TRANSPOSE;
	synth_add_op(g, x, a);
	return x;
}

int synth_copy(synth_graph *g, int a)
{
	int x = synth_un(g, SY_COPY, a);
	g->v[x].cfg = SY_CFG_COPY;
	g->v[x].flops = 0;
	return x;
}

/* 2-d convolution, NHWC/HWIO or NCHW/OIHW; window k, stride s, padding p. */
int synth_conv2d(synth_graph *g, int in, int w, int nchw, int k, int s, int p)
{
	synth_node *I = &g->v[in], *W = &g->v[w];
	int fi = nchw ? 1 : 3, sp0 = nchw ? 2 : 1;
	int ko = nchw ? 0 : 3, ki = nchw ? 1 : 2, ks0 = nchw ? 2 : 0;
	int64_t cin = I->dim[fi], cout = W->dim[ko], d[4];
	if (W->dim[ki] != cin || W->dim[ks0] != k || W->dim[ks0 + 1] != k)
		note_bug(g, "convolution of node %d: kernel %d does not fit", in, w);
	d[0] = I->dim[0];
	d[fi] = cout;
	for (int i = 0; i < 2; i++)
		d[sp0 + i] = (I->dim[sp0 + i] + 2 * p - k) / s + 1;
	int x = synth_new_node(g, SY_CONV, I->et, 4, d);
	synth_node *X = &g->v[x];
	X->nwin = 2;
	for (int i = 0; i < 2; i++) {
		X->win[0][i] = k;
		X->win[1][i] = s;
		X->win[2][i] = p;
		X->win[3][i] = p;
	}
	int cd[14] = {0, fi, sp0, sp0 + 1, 0, 0, ki, ko, ks0, ks0 + 1, 0, 0, 0, fi};
	memcpy(X->cd, cd, sizeof cd);
	X->conv = 1;
	X->cfg = SY_CFG_CONV;
	X->flops = 2.0 * (double)synth_elems(X) * (double)(k * k) * (double)cin;
	synth_add_op(g, x, in);
	synth_add_op(g, x, w);
	return x;
}

/* dot: a [..., M, K] times b [K, N] or [batch..., K, N]. */
int synth_dot(synth_graph *g, int a, int b)
{
	synth_node *A = &g->v[a], *B = &g->v[b];
	int64_t d[SYNTH_MAX_RANK], kk = A->dim[A->rank - 1];
	int r = 0;
	if (B->dim[B->rank - 2] != kk || (B->rank != 2 && B->rank != A->rank))
		note_bug(g, "dot of nodes %d and %d: contracting dims differ", a, b);
	for (int i = 0; i < A->rank - 1; i++)
		d[r++] = A->dim[i];
	d[r++] = B->dim[B->rank - 1];
	int x = synth_new_node(g, SY_DOT, A->et, r, d);
	synth_node *X = &g->v[x];
	X->cfg = SY_CFG_DOT;
	X->flops = 2.0 * (double)synth_elems(X) * (double)kk;
	synth_add_op(g, x, a);
	synth_add_op(g, x, b);
	return x;
}

/* Max pooling over the spatial dims sp0, sp0+1 (window k, stride s, pad p). */
int synth_maxpool(synth_graph *g, int a, int sp0, int k, int s, int p, int reducer)
{
	synth_node *A = &g->v[a];
	int64_t d[SYNTH_MAX_RANK];
	memcpy(d, A->dim, sizeof d);
	for (int i = 0; i < 2; i++)
		d[sp0 + i] = (A->dim[sp0 + i] + 2 * p - k) / s + 1;
	int init = synth_cst(g, A->et);
	int x = synth_new_node(g, SY_RWIN, g->v[a].et, g->v[a].rank, d);
	synth_node *X = &g->v[x];
	X->nwin = X->rank;
	for (int i = 0; i < X->rank; i++) {
		int sp = i == sp0 || i == sp0 + 1;
		X->win[0][i] = sp ? k : 1;
		X->win[1][i] = sp ? s : 1;
		X->win[2][i] = sp ? p : 0;
		X->win[3][i] = sp ? p : 0;
	}
	X->flops = (double)synth_elems(X) * k * k;
	X->called = reducer;
	synth_add_op(g, x, a);
	synth_add_op(g, x, init);
	return x;
}

int synth_tuple(synth_graph *g, int n, const int *ops)
{
	int x = synth_new_node(g, SY_TUPLE, HLO_ET_TUPLE, 0, NULL);
	g->v[x].tuple_n = n;
	for (int i = 0; i < n; i++)
		synth_add_op(g, x, ops[i]);
	return x;
}

/* A reducer computation: (p0, p1) -> op(p0, p1). */
int synth_reducer(synth_graph *g, int op, int et)
{
	synth_comp_begin(g);
	int a = synth_param(g, et, 0, NULL), b = synth_param(g, et, 0, NULL);
	int r = synth_bin(g, op, a, b);
	synth_comp_end(g, r);
	return r;
}

int synth_graph_check(const synth_graph *g, const char *name, hs_error *err)
{
	if (g->bug[0])
		return hs_fail(err, HS_EDATA, "synth: %s: internal error: %s", name, g->bug);
	if (g->open >= 0 || g->ncomp == 0)
		return hs_fail(err, HS_EDATA, "synth: %s: internal error: computation left open",
			       name);
	return 0;
}
