/* layout.c - layout configs and the layout runtime formula (see
 * synth/configs.h).
 *
 * LAYOUT RUNTIME FORMULA (nanoseconds, written to DIR/README too)
 *
 *   runtime(c) = round((F + sum_k T_k(c) + X(c)) * exp(0.03 * z_c)),
 *   z_c ~ N(0, 1) drawn per config from the file's seeded stream.
 *
 *   A layout is reduced to its two minor-most dimensions (m0, m1) (-1 when
 *   the rank is too small).  For configurable node k, config row c gives
 *   out (features 0-5), in (6-11: operand 0) and kernel (12-17: operand 1).
 *   "-1" means the compiler's choice: out -> the node's default layout
 *   (node_feat minor_to_major); in/kernel -> whatever the operand produces.
 *   actual(v) = v's resolved out if v is configurable, else its default.
 *
 *   F   = FUSE * sum over other nodes (not parameter/constant/tuple) of
 *         OVH + out bytes / BW (elementwise work mostly vanishes into fusions)
 *   T_k = convolution, dot: (OVH + max(flops / MXU, bytes / BW)) * P_k
 *         reshape, transpose, copy: OVH + 2 * out bytes / BW * (bitcast ? 0.05 : 1)
 *   P_k convolution = 1 + 4.0[in.m0 != input feature dim]
 *                       + 3.0[out.m0 != output feature dim]
 *                       + 2.0[kernel.m0 != kernel output feature dim]
 *                       + 1.0[kernel.m1 != kernel input feature dim]
 *   P_k dot (contracting lhs's last dim with rhs's second-to-last)
 *                     = 1 + 3.0[lhs.m0 != lhs rank-1] + 2.0[rhs.m0 != rhs rank-1]
 *                       + 1.5[out.m0 != out rank-1] + 0.5[rhs.m1 != rhs rank-2]
 *   bitcast: transpose (out dim i = in dim perm[i]): perm[out.m_j] == in.m_j
 *            for j = 0, 1; reshape: in and out both row-major in (m0, m1)
 *            (m0 = rank-1, m1 = rank-2); copy: in == out.
 *   X   = sum of copies, 2 * bytes(v) / BW each: for an explicit in/kernel
 *         layout of k that differs from actual(operand); and for each
 *         non-configurable user of a configurable v whose actual layout is
 *         not its default.
 *   OVH = 250 ns, BW = 819 bytes/ns, MXU = 123000 flop/ns, FUSE = 0.25.
 *
 * Candidates: convolution and dot rows give the two minor-most dims of each
 * layout (as the real files do), the others full layouts.
 */
#include "synth/configs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

void synth_layout_free(synth_layout *p)
{
	if (p->k)
		for (int i = 0; i < p->nk; i++)
			free(p->k[i].cand);
	if (p->users)
		for (int i = 0; i < p->nk; i++)
			free(p->users[i]);
	free(p->users);
	free(p->nusers);
	free(p->k);
	free(p->kof);
	memset(p, 0, sizeof *p);
}

/* Writes a full layout (minor to major) of `rank` dims into dst[0..5]. */
static void put_layout(int8_t *dst, const int *m2m, int rank, int keep)
{
	for (int i = 0; i < 6; i++)
		dst[i] = (int8_t)(i < rank && i < keep ? m2m[i] : -1);
}

/* Layout whose two minor-most dims are a, b (rest descending). */
static void layout_ab(int *m2m, int rank, int a, int b)
{
	int n = 0;
	if (rank > 0)
		m2m[n++] = a;
	if (rank > 1)
		m2m[n++] = b;
	for (int d = rank - 1; d >= 0; d--)
		if (d != a && (rank < 2 || d != b))
			m2m[n++] = d;
}

static void descending(int *m2m, int rank)
{
	for (int i = 0; i < rank; i++)
		m2m[i] = rank - 1 - i;
}

/* Candidate rows for one configurable node. */
static int lay_candidates(const synth_graph *g, int id, synth_layout_node *ln)
{
	const synth_node *x = &g->v[id];
	int outs[4][SYNTH_MAX_RANK], ins[3][SYNTH_MAX_RANK], kers[3][SYNTH_MAX_RANK];
	int no = 0, ni = 0, nk = 0, keep = 6;
	const synth_node *op0 = &g->v[x->ops[0]];
	const synth_node *op1 = x->nops > 1 ? &g->v[x->ops[1]] : NULL;
	int ro = x->rank, ri = op0->rank, rk = op1 ? op1->rank : 0;
	if (x->cfg == SY_CFG_CONV) {
		/* Two minor-most dims only, as the real convolution rows. */
		int of = x->cd[13], ob = x->cd[12], osp = x->cd[3];
		int inf = x->cd[1], ib = x->cd[0], isp = x->cd[3];
		int kof = x->cd[7], kif = x->cd[6], ksp = x->cd[9];
		layout_ab(outs[no++], ro, of, ob);
		layout_ab(outs[no++], ro, osp, of);
		layout_ab(outs[no++], ro, of, osp);
		layout_ab(ins[ni++], ri, inf, ib);
		layout_ab(ins[ni++], ri, isp, inf);
		layout_ab(kers[nk++], rk, kof, kif);
		layout_ab(kers[nk++], rk, kif, kof);
		layout_ab(kers[nk++], rk, ksp, kof);
		keep = 2;
	} else if (x->cfg == SY_CFG_DOT) {
		layout_ab(outs[no++], ro, ro - 1, ro - 2);
		layout_ab(outs[no++], ro, ro - 2, ro - 1);
		layout_ab(ins[ni++], ri, ri - 1, ri - 2);
		layout_ab(ins[ni++], ri, ri - 2, ri - 1);
		layout_ab(kers[nk++], rk, rk - 1, rk - 2);
		layout_ab(kers[nk++], rk, rk - 2, rk - 1);
		keep = 2;
	} else {
		descending(outs[no++], ro);
		if (ro >= 2)
			layout_ab(outs[no++], ro, ro - 2, ro - 1);
		if (x->cfg == SY_CFG_TRANSPOSE) {
			/* The layout that makes the transpose a bitcast of a
			 * descending operand: out dim j holds operand dim dimattr[j]. */
			int inv[SYNTH_MAX_RANK];
			for (int j = 0; j < ro; j++)
				inv[x->dimattr[j]] = j;
			for (int i = 0; i < ro; i++)
				outs[no][i] = inv[ri - 1 - i];
			no++;
		} else if (ro >= 3) {
			layout_ab(outs[no++], ro, 0, ro - 1);
		}
		descending(ins[ni++], ri);
		if (ri >= 2)
			layout_ab(ins[ni++], ri, ri - 2, ri - 1);
		nk = 0;
	}
	int total = no * ni * (nk ? nk : 1);
	ln->cand = calloc((size_t)total, sizeof(int8_t[18]));
	if (!ln->cand)
		return -1;
	ln->nc = 0;
	for (int a = 0; a < no; a++)
		for (int b = 0; b < ni; b++)
			for (int c = 0; c < (nk ? nk : 1); c++) {
				int8_t *r = ln->cand[ln->nc++];
				put_layout(r, outs[a], ro, keep);
				put_layout(r + 6, ins[b], ri, keep);
				put_layout(r + 12, nk ? kers[c] : NULL, nk ? rk : 0, keep);
			}
	ln->node = id;
	ln->def[0] = (int8_t)(ro > 0 ? x->m2m[0] : -1);
	ln->def[1] = (int8_t)(ro > 1 ? x->m2m[1] : -1);
	return 0;
}

static double node_io_bytes(const synth_graph *g, const synth_node *x)
{
	double b = (double)synth_nbytes(x);
	for (int j = 0; j < x->nops; j++)
		b += (double)synth_nbytes(&g->v[x->ops[j]]);
	return b;
}

int synth_layout_setup(const synth_graph *g, synth_layout *p, hs_error *err)
{
	memset(p, 0, sizeof *p);
	p->g = g;
	int entry = g->comp[g->ncomp - 1];
	p->kof = malloc(sizeof(int) * (size_t)g->n);
	p->k = calloc((size_t)g->n, sizeof *p->k);
	if (!p->kof || !p->k)
		goto oom;
	for (int i = 0; i < g->n; i++) {
		const synth_node *x = &g->v[i];
		p->kof[i] = -1;
		if (x->cfg != SY_CFG_NONE && i >= entry) {
			p->kof[i] = p->nk;
			if (lay_candidates(g, i, &p->k[p->nk++]) < 0)
				goto oom;
		}
	}
	p->users = calloc((size_t)p->nk, sizeof *p->users);
	p->nusers = calloc((size_t)p->nk, sizeof *p->nusers);
	if (!p->users || !p->nusers)
		goto oom;
	for (int i = 0; i < g->n; i++) {
		const synth_node *x = &g->v[i];
		if (p->kof[i] >= 0)
			continue;
		int o = x->op;
		if (o != SY_PARAM && o != SY_CONST && o != SY_TUPLE)
			p->fixed += SY_FUSE * (SY_OVH_NS + (double)synth_nbytes(x) / SY_BW_BPNS);
		for (int j = 0; j < x->nops; j++) {
			int k = p->kof[x->ops[j]];
			if (k < 0 || (j > 0 && x->ops[j] == x->ops[j - 1]))
				continue;
			int *u = realloc(p->users[k], sizeof(int) * (size_t)(p->nusers[k] + 1));
			if (!u)
				goto oom;
			p->users[k] = u;
			u[p->nusers[k]++] = i;
		}
	}
	return 0;
oom:
	synth_layout_free(p);
	return hs_fail(err, HS_ENOMEM, "synth: out of memory setting up layout configs");
}

typedef struct pair {
	int a, b;
} pair;

static int pair_eq(pair x, pair y)
{
	return x.a == y.a && x.b == y.b;
}

/* The (m0, m1) a node actually produces under config rows `rows`. */
static pair actual_out(const synth_layout *p, const int8_t *rows, int node)
{
	const synth_node *x = &p->g->v[node];
	int k = p->kof[node];
	if (k >= 0 && rows[(size_t)k * 18] >= 0)
		return (pair){rows[(size_t)k * 18], rows[(size_t)k * 18 + 1]};
	return (pair){x->rank > 0 ? x->m2m[0] : -1, x->rank > 1 ? x->m2m[1] : -1};
}

/* T_k of a convolution or dot: the op's cost times its layout penalty. */
static double contraction_cost(const synth_graph *g, const synth_node *x, const pair *in,
			       pair out)
{
	double bytes = node_io_bytes(g, x), pen = 1.0;
	if (x->cfg == SY_CFG_CONV) {
		pen += SY_PEN_CONV_IN * (in[0].a != x->cd[1]) +
		       SY_PEN_CONV_OUT * (out.a != x->cd[13]) +
		       SY_PEN_CONV_K0 * (in[1].a != x->cd[7]) +
		       SY_PEN_CONV_K1 * (in[1].b != x->cd[6]);
	} else {
		int rl = g->v[x->ops[0]].rank, rr = g->v[x->ops[1]].rank;
		pen += SY_PEN_DOT_LHS * (in[0].a != rl - 1) +
		       SY_PEN_DOT_RHS0 * (in[1].a != rr - 1) +
		       SY_PEN_DOT_OUT * (out.a != x->rank - 1) +
		       SY_PEN_DOT_RHS1 * (in[1].b != rr - 2);
	}
	return (SY_OVH_NS + fmax(x->flops / SY_MXU_FPNS, bytes / SY_BW_BPNS)) * pen;
}

/* T_k of a reshape, transpose or copy: cheap when it is a bitcast. */
static double move_cost(const synth_graph *g, const synth_node *x, const pair *in, pair out)
{
	int ri = g->v[x->ops[0]].rank, ro = x->rank, bitcast;
	if (x->cfg == SY_CFG_TRANSPOSE)
		bitcast = x->dimattr[out.a] == in[0].a && (ro < 2 || x->dimattr[out.b] == in[0].b);
	else if (x->cfg == SY_CFG_RESHAPE)
		bitcast = in[0].a == ri - 1 && (ri < 2 || in[0].b == ri - 2) && out.a == ro - 1 &&
			  (ro < 2 || out.b == ro - 2);
	else
		bitcast = pair_eq(in[0], out);
	return SY_OVH_NS +
	       2.0 * (double)synth_nbytes(x) / SY_BW_BPNS * (bitcast ? SY_PEN_BITCAST : 1.0);
}

double synth_layout_runtime(const synth_layout *p, const int8_t *rows)
{
	const synth_graph *g = p->g;
	double t = p->fixed;
	for (int k = 0; k < p->nk; k++) {
		const synth_node *x = &g->v[p->k[k].node];
		const int8_t *r = rows + (size_t)k * 18;
		pair out = actual_out(p, rows, p->k[k].node), in[2] = {{-1, -1}, {-1, -1}};
		/* An explicit input layout other than what the operand makes: a copy. */
		for (int j = 0; j < 2 && j < x->nops; j++) {
			int v = x->ops[j];
			pair have = actual_out(p, rows, v);
			const int8_t *e = r + 6 + 6 * j;
			if (e[0] >= 0) {
				in[j] = (pair){e[0], e[1]};
				if (!pair_eq(in[j], have))
					t += 2.0 * (double)synth_nbytes(&g->v[v]) / SY_BW_BPNS;
			} else {
				in[j] = have;
			}
		}
		if (x->cfg == SY_CFG_CONV || x->cfg == SY_CFG_DOT)
			t += contraction_cost(g, x, in, out);
		else
			t += move_cost(g, x, in, out);
		/* Users that expect the default layout get a copy. */
		if (out.a != p->k[k].def[0] || out.b != p->k[k].def[1])
			t += p->nusers[k] * 2.0 * (double)synth_nbytes(x) / SY_BW_BPNS;
	}
	return t;
}

void synth_layout_configs_free(synth_layout_configs *c)
{
	free(c->feat);
	free(c->ids);
	free(c->runtime);
	memset(c, 0, sizeof *c);
}

/* Fills choices row c (per configurable node a candidate index, or -1): see
 * synth_layout_draw.  0 when the row came out all -1 (and is not wanted). */
static int draw_choices(const synth_layout *p, hs_xoshiro *rng, int random_search,
			int16_t *cc)
{
	int nk = p->nk;
	if (random_search) {
		for (int k = 0; k < nk; k++)
			if (hs_xoshiro_unit(rng) < 0.85)
				cc[k] = (int16_t)hs_xoshiro_below(rng, p->k[k].nc);
	} else {
		int m = 1;
		while (m < nk && m < 12 && hs_xoshiro_unit(rng) < 0.75)
			m++;
		for (int i = 0; i < m; i++) {
			int k = hs_xoshiro_below(rng, nk);
			cc[k] = (int16_t)hs_xoshiro_below(rng, p->k[k].nc);
		}
	}
	int all_default = 1;
	for (int k = 0; k < nk; k++)
		all_default &= cc[k] < 0;
	return !all_default;
}

/* Draws distinct choice rows into ch; returns how many. */
static int draw_distinct(const synth_layout *p, hs_xoshiro *rng, int want, int random_search,
			 int16_t *ch, synth_cset *seen)
{
	int nk = p->nk, c = 0;
	int with_default = !random_search;
	for (int tries = 0; c < want && tries < want * 50; tries++) {
		int16_t *cc = ch + (size_t)c * (size_t)nk;
		for (int k = 0; k < nk; k++)
			cc[k] = -1;
		if (!(with_default && c == 0) && !draw_choices(p, rng, random_search, cc))
			continue;
		if (!synth_cset_add(seen, ch, nk, c))
			continue;
		c++;
	}
	if (with_default && c > 0) {
		/* Move the default config from 0 to a random place. */
		int at = hs_xoshiro_below(rng, c);
		for (int k = 0; k < nk; k++) {
			int16_t tmp = ch[k];
			ch[k] = ch[(size_t)at * (size_t)nk + (size_t)k];
			ch[(size_t)at * (size_t)nk + (size_t)k] = tmp;
		}
	}
	return c;
}

int synth_layout_draw(const synth_layout *p, const char *name, uint64_t seed, int want,
		      int random_search, int hide_labels, synth_layout_configs *out,
		      hs_error *err)
{
	int nk = p->nk;
	size_t nk1 = (size_t)(nk ? nk : 1);
	hs_xoshiro rng;
	synth_cset seen = {0};
	memset(out, 0, sizeof *out);
	hs_xoshiro_seed(&rng, seed);
	int16_t *ch = malloc(sizeof(int16_t) * (size_t)want * nk1);
	int8_t *rows = malloc(18 * nk1);
	out->feat = malloc(sizeof(float) * 18 * (size_t)want * nk1);
	out->runtime = malloc(sizeof(int64_t) * (size_t)want);
	out->ids = malloc(sizeof(int64_t) * nk1);
	int rc = -1;
	if (synth_cset_init(&seen, want) < 0 || !ch || !rows || !out->feat || !out->runtime ||
	    !out->ids) {
		hs_fail(err, HS_ENOMEM, "synth: out of memory drawing layout configs");
		goto out;
	}
	int c = draw_distinct(p, &rng, want, random_search, ch, &seen);
	if (c == 0) {
		hs_fail(err, HS_EDATA, "synth: %s: could not draw distinct configs", name);
		goto out;
	}
	for (int i = 0; i < c; i++) {
		const int16_t *cc = ch + (size_t)i * (size_t)nk;
		for (int k = 0; k < nk; k++) {
			if (cc[k] < 0)
				memset(rows + 18 * k, -1, 18);
			else
				memcpy(rows + 18 * k, p->k[k].cand[cc[k]], 18);
		}
		for (size_t j = 0; j < 18 * (size_t)nk; j++)
			out->feat[(size_t)i * 18 * (size_t)nk + j] = rows[j];
		double t = synth_layout_runtime(p, rows) *
			   exp(SY_NOISE_SIGMA * hs_xoshiro_normal(&rng));
		out->runtime[i] = hide_labels ? 0 : llround(t);
	}
	for (int k = 0; k < nk; k++)
		out->ids[k] = p->k[k].node;
	out->c = c;
	out->nk = nk;
	rc = 0;
out:
	free(ch);
	free(rows);
	synth_cset_free(&seen);
	if (rc < 0)
		synth_layout_configs_free(out);
	return rc;
}
