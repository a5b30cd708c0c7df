/* nn_layout.c - the layout head (nn.h): the per-graph base, the per-entry
 * caches held in slots, one config's node terms forward and backward, the
 * memo of node terms shared by configs with the same neighbourhood, and
 * scoring in batches that fit SLOT_BUDGET. */
#include "model/nn_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/index.h"
#include "base/vec.h"

/* base_k = Ae^T emb_k + b1 for every configurable node. */
static void layout_base(const nn_head *hd, const prep *p, nn_ws *ws)
{
	int h = hd->d.h, L = hd->d.layers;

	for (int64_t k = 0; k < p->K; k++) {
		float *b = ws->base + (size_t)k * (size_t)h;

		memcpy(b, hd->theta + hd->o.b1, (size_t)h * sizeof *b);
		mv_acc(b, hd->theta + hd->o.ae, ws->H[L] + (size_t)p->cfg_enc[k] * (size_t)h, h, h);
	}
}

/* Gives every entry of configs cfgs[0..n) a slot, starting at *used;
 * returns the new count, stopping early (before the config that would
 * overflow) when `limit` slots are reached: *taken receives how many
 * configs got all their slots. */
static size_t assign_slots(const prep *p, nn_ws *ws, const int64_t *cfgs, int64_t n, size_t used,
			   size_t limit, int64_t *taken)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		const int32_t *row = p->rows + (size_t)cfgs[i] * (size_t)p->K;
		size_t need = 0;

		for (int64_t k = 0; k < p->K; k++)
			need += ws->slot[row[k]] < 0;
		if (used + need > limit && i > 0)
			break;
		for (int64_t k = 0; k < p->K; k++)
			if (ws->slot[row[k]] < 0) {
				ws->slot[row[k]] = (int32_t)used;
				ws->slot_entry[used++] = row[k];
			}
	}
	*taken = i;
	return used;
}

/* Z, P, Q, U for slots [from, to). */
static void compute_slots(const nn_head *hd, const prep *p, nn_ws *ws, size_t from, size_t to)
{
	int h = hd->d.h, W = p->ncf_width;
	const float *th = hd->theta;
	int dense = p->ccols > PREP_BUCKETS * W;

	for (size_t s = from; s < to; s++) {
		int32_t e = ws->slot_entry[s];
		int32_t k = p->entry_node[e];
		float *z = ws->Z + s * (size_t)h;
		const int16_t *hot = p->entry_hot + (size_t)e * (size_t)W;

		memcpy(z, ws->base + (size_t)k * (size_t)h, (size_t)h * sizeof *z);
		for (int j = 0; j < W; j++)
			axpy(z, 1, th + hd->o.ac + (size_t)hot[j] * (size_t)h, h);
		if (dense)
			mv_acc(z, th + hd->o.ac + (size_t)(PREP_BUCKETS * W) * (size_t)h,
			       p->entry_dense + (size_t)e * PREP_DENSE, PREP_DENSE, h);
		relu(z, h);
		float *P = ws->P + s * (size_t)h, *Q = ws->Q + s * (size_t)h, *U = ws->U + s * (size_t)h;
		memset(P, 0, (size_t)h * sizeof *P);
		memset(Q, 0, (size_t)h * sizeof *Q);
		memset(U, 0, (size_t)h * sizeof *U);
		mv_acc(P, th + hd->o.bs, z, h, h);
		mv_acc(Q, th + hd->o.bo, z, h, h);
		mv_acc(U, th + hd->o.bu, z, h, h);
		float *rz = ws->RZ + s * (size_t)hd->d.r;
		memcpy(rz, th + hd->o.br, (size_t)hd->d.r * sizeof *rz);
		mv_acc(rz, th + hd->o.rr, z, h, hd->d.r);
	}
}

/* relu(pre) (h), m (h), q (r) for node k of a config; returns s_k. */
static float node_forward(const nn_head *hd, const prep *p, const nn_ws *ws, const int32_t *row,
			  int64_t k, float *pre, float *m, float *q, float *ef)
{
	int h = hd->d.h, r = hd->d.r;
	const float *th = hd->theta;
	int32_t s = ws->slot[row[k]];
	int64_t a, b;

	memcpy(pre, th + hd->o.b2, (size_t)h * sizeof *pre);
	axpy(pre, 1, ws->P + (size_t)s * (size_t)h, h);
	a = p->nop_off[k];
	b = p->nop_off[k + 1];
	for (int64_t i = a; i < b; i++)
		axpy(pre, 1.0f / (float)(b - a), ws->Q + (size_t)ws->slot[row[p->nop_idx[i]]] * (size_t)h, h);
	a = p->nus_off[k];
	b = p->nus_off[k + 1];
	for (int64_t i = a; i < b; i++)
		axpy(pre, 1.0f / (float)(b - a), ws->U + (size_t)ws->slot[row[p->nus_idx[i]]] * (size_t)h, h);
	prep_edge_feats(p, row, k, ef);
	mv_acc(pre, th + hd->o.be, ef, PREP_EDGE, h);
	const float *z = ws->Z + (size_t)s * (size_t)h;
	/* m = z + relu(pre); R^T m + br = RZ + R^T relu(pre), and relu(pre)
	 * is sparse, which mv_acc exploits. */
	relu(pre, h);
	for (int i = 0; i < h; i++)
		m[i] = z[i] + pre[i];
	memcpy(q, ws->RZ + (size_t)s * (size_t)r, (size_t)r * sizeof *q);
	mv_acc(q, th + hd->o.rr, pre, h, r);
	relu(q, r);
	return dotf(th + hd->o.w, q, r);
}

static double layout_config(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c, double *node_out)
{
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	double score = 0;

	for (int64_t k = 0; k < p->K; k++) {
		float sk = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);

		score += sk;
		if (node_out)
			node_out[k] = sk;
	}
	return score;
}

static void layout_config_back(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c, double ds,
			       float *g)
{
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	int h = hd->d.h, r = hd->d.r;
	const float *th = hd->theta;
	float *pre = ws->vec[2], *m = ws->vec[3], *q = ws->vec[4], *ef = ws->vec[5];
	float *dq = ws->vec[6], *dm = ws->vec[7];

	for (int64_t k = 0; k < p->K; k++) {
		int32_t s = ws->slot[row[k]];
		int64_t a, b;

		node_forward(hd, p, ws, row, k, pre, m, q, ef);
		axpy(g + hd->o.w, (float)ds, q, r);
		for (int i = 0; i < r; i++)
			dq[i] = q[i] > 0 ? (float)ds * th[hd->o.w + (size_t)i] : 0;
		axpy(g + hd->o.br, 1, dq, r);
		outer_acc(g + hd->o.rr, m, dq, h, r);
		memset(dm, 0, (size_t)h * sizeof *dm);
		mvt_acc(dm, th + hd->o.rr, dq, h, r);
		axpy(ws->dZ + (size_t)s * (size_t)h, 1, dm, h);
		for (int i = 0; i < h; i++)
			dm[i] = pre[i] > 0 ? dm[i] : 0;
		axpy(g + hd->o.b2, 1, dm, h);
		axpy(ws->dP + (size_t)s * (size_t)h, 1, dm, h);
		outer_acc(g + hd->o.be, ef, dm, PREP_EDGE, h);
		a = p->nop_off[k];
		b = p->nop_off[k + 1];
		for (int64_t i = a; i < b; i++)
			axpy(ws->dQ + (size_t)ws->slot[row[p->nop_idx[i]]] * (size_t)h, 1.0f / (float)(b - a), dm, h);
		a = p->nus_off[k];
		b = p->nus_off[k + 1];
		for (int64_t i = a; i < b; i++)
			axpy(ws->dU + (size_t)ws->slot[row[p->nus_idx[i]]] * (size_t)h, 1.0f / (float)(b - a), dm, h);
	}
}

/* From the slot gradients down to the encoder's output gradient ws->DA. */
static void slots_back(const nn_head *hd, const prep *p, nn_ws *ws, size_t used, float *g)
{
	int h = hd->d.h, W = p->ncf_width, L = hd->d.layers;
	const float *th = hd->theta;
	int dense = p->ccols > PREP_BUCKETS * W;
	float *dp1 = ws->vec[0];

	memset(ws->dbase, 0, (size_t)p->K * (size_t)h * sizeof *ws->dbase);
	for (size_t s = 0; s < used; s++) {
		int32_t e = ws->slot_entry[s], k = p->entry_node[e];
		float *dz = ws->dZ + s * (size_t)h;
		const float *z = ws->Z + s * (size_t)h;
		const int16_t *hot = p->entry_hot + (size_t)e * (size_t)W;

		mvt_acc(dz, th + hd->o.bs, ws->dP + s * (size_t)h, h, h);
		mvt_acc(dz, th + hd->o.bo, ws->dQ + s * (size_t)h, h, h);
		mvt_acc(dz, th + hd->o.bu, ws->dU + s * (size_t)h, h, h);
		outer_acc(g + hd->o.bs, z, ws->dP + s * (size_t)h, h, h);
		outer_acc(g + hd->o.bo, z, ws->dQ + s * (size_t)h, h, h);
		outer_acc(g + hd->o.bu, z, ws->dU + s * (size_t)h, h, h);
		for (int i = 0; i < h; i++)
			dp1[i] = z[i] > 0 ? dz[i] : 0;
		if (all_zero(dp1, h))
			continue;
		for (int j = 0; j < W; j++)
			axpy(g + hd->o.ac + (size_t)hot[j] * (size_t)h, 1, dp1, h);
		if (dense)
			outer_acc(g + hd->o.ac + (size_t)(PREP_BUCKETS * W) * (size_t)h,
				  p->entry_dense + (size_t)e * PREP_DENSE, dp1, PREP_DENSE, h);
		axpy(ws->dbase + (size_t)k * (size_t)h, 1, dp1, h);
	}
	memset(ws->DA, 0, (size_t)p->n * (size_t)h * sizeof *ws->DA);
	for (int64_t k = 0; k < p->K; k++) {
		const float *db = ws->dbase + (size_t)k * (size_t)h;
		const float *emb = ws->H[L] + (size_t)p->cfg_enc[k] * (size_t)h;

		axpy(g + hd->o.b1, 1, db, h);
		outer_acc(g + hd->o.ae, emb, db, h, h);
		mvt_acc(ws->DA + (size_t)p->cfg_enc[k] * (size_t)h, th + hd->o.ae, db, h, h);
	}
}

static void reset_slots(nn_ws *ws, size_t used)
{
	for (size_t s = 0; s < used; s++)
		ws->slot[ws->slot_entry[s]] = -1;
}

/* Memo of node terms: s_k depends only on the entries of k, N_op(k) and
 * N_us(k) in the config (the key), so configs sharing a node's
 * neighbourhood share its term.  A hash index over (node, key) with the
 * keys kept in an arena and compared in full.  It stops growing at
 * MEMO_MAX entries (later misses are just computed). */
#define MEMO_MAX ((size_t)1 << 22)

typedef struct memo {
	hs_index ix;
	HS_VEC(struct memo_term {
		size_t key;         /* offset of the key in the arena */
		size_t len;
		float val;
	}) v;
	HS_VEC(int32_t) arena;  /* keys: node, then its entries */
} memo;

struct memo_key {
	const int32_t *key;
	size_t len;
};

static void memo_free(memo *m)
{
	hs_index_free(&m->ix);
	hs_vec_free(&m->v);
	hs_vec_free(&m->arena);
}

static int memo_init(memo *m, size_t expect)
{
	memset(m, 0, sizeof *m);
	if (expect > MEMO_MAX / 4)
		expect = MEMO_MAX / 4;
	return hs_index_reserve(&m->ix, expect);
}

static int memo_same(const void *ctx, int32_t e, const void *key)
{
	const memo *m = ctx;
	const struct memo_key *k = key;
	const struct memo_term *t = &m->v.v[e];
	return t->len == k->len && !memcmp(m->arena.v + t->key, k->key, k->len * sizeof *k->key);
}

static uint32_t memo_hash(const int32_t *key, size_t len)
{
	uint64_t h = 0x12345;
	for (size_t i = 0; i < len; i++)
		h = hs_mix64(h ^ (uint64_t)(uint32_t)key[i]);
	return (uint32_t)h;
}

/* Keeps term val under the key; full or out of memory, it is not kept
 * (the memo is a saving). */
static void memo_add(memo *m, uint32_t h, const int32_t *key, size_t len, float val)
{
	size_t at = m->arena.n, n = m->v.n;
	if (n >= MEMO_MAX || hs_vec_append(&m->arena, key, len) != 0)
		return;
	if (hs_vec_push(&m->v, ((struct memo_term){at, len, val})) != 0 ||
	    hs_index_add(&m->ix, h, (int32_t)n) != 0) {
		m->arena.n = at;
		m->v.n = n;
	}
}

/* The key of node k in a config: k, its entry, its neighbours' entries. */
static size_t node_key(const prep *p, const int32_t *row, int64_t k, int32_t *key)
{
	size_t n = 0;

	key[n++] = (int32_t)k;
	key[n++] = row[k];
	for (int64_t i = p->nop_off[k]; i < p->nop_off[k + 1]; i++)
		key[n++] = row[p->nop_idx[i]];
	for (int64_t i = p->nus_off[k]; i < p->nus_off[k + 1]; i++)
		key[n++] = row[p->nus_idx[i]];
	return n;
}

/* Per node: a node without links keys on its entry alone (a plain array);
 * a linked node uses the memo until it proves useless (after 64 lookups
 * with fewer than 1 hit in 4, random search making its neighbourhoods
 * unique), then is just computed. */
typedef struct memo_node {
	float *by_entry;    /* [n_entries], NAN = not yet (unlinked nodes) */
	int64_t *lookups, *hits;
	uint8_t *off;       /* [K] memo switched off */
} memo_node;

static double layout_config_memo(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c, memo *m,
				 memo_node *mn, int32_t *key)
{
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	double score = 0;

	for (int64_t k = 0; k < p->K; k++) {
		int linked = p->nop_off[k + 1] > p->nop_off[k] || p->nus_off[k + 1] > p->nus_off[k];
		size_t len;
		float sk;

		if (!linked) {
			float *e = &mn->by_entry[row[k]];

			if (isnan(*e))
				*e = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
			score += *e;
			continue;
		}
		if (mn->off[k]) {
			score += node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
			continue;
		}
		len = node_key(p, row, k, key);
		uint32_t h = memo_hash(key, len);
		int32_t e = hs_index_find(&m->ix, h, memo_same, m, &(struct memo_key){key, len});
		mn->lookups[k]++;
		if (e >= 0) {
			mn->hits[k]++;
			score += m->v.v[e].val;
			continue;
		}
		if (mn->lookups[k] >= 64 && mn->hits[k] * 4 < mn->lookups[k])
			mn->off[k] = 1;
		sk = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
		score += sk;
		if (!mn->off[k])
			memo_add(m, h, key, len, sk);
	}
	return score;
}

int nn_layout_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
		    double *out, nn_ws *ws)
{
	size_t limit = SLOT_BUDGET > p->K ? SLOT_BUDGET : (size_t)p->K;
	int64_t maxdeg = 0;
	int32_t *key;
	memo m;

	if ((size_t)p->n_entries < limit)
		limit = (size_t)(p->n_entries ? p->n_entries : 1);
	for (int64_t k = 0; k < p->K; k++) {
		int64_t d = p->nop_off[k + 1] - p->nop_off[k] + p->nus_off[k + 1] - p->nus_off[k];

		maxdeg = d > maxdeg ? d : maxdeg;
	}
	if (nn_encode(hd, p, ws) < 0 || nn_ws_layout(ws, p, limit, hd->d.h, hd->d.r) < 0)
		return -1;
	memo_node mn = {0};

	key = malloc((size_t)(maxdeg + 2) * sizeof *key);
	mn.by_entry = malloc((size_t)(p->n_entries ? p->n_entries : 1) * sizeof *mn.by_entry);
	mn.lookups = calloc((size_t)(p->K ? p->K : 1), sizeof *mn.lookups);
	mn.hits = calloc((size_t)(p->K ? p->K : 1), sizeof *mn.hits);
	mn.off = calloc((size_t)(p->K ? p->K : 1), 1);
	if (!key || !mn.by_entry || !mn.lookups || !mn.hits || !mn.off || memo_init(&m, (size_t)p->n_entries) < 0) {
		free(key);
		free(mn.by_entry);
		free(mn.lookups);
		free(mn.hits);
		free(mn.off);
		return -1;
	}
	for (int64_t e = 0; e < p->n_entries; e++)
		mn.by_entry[e] = NAN;
	layout_base(hd, p, ws);
	for (int64_t i = 0; i < n;) {
		int64_t taken;
		size_t used = assign_slots(p, ws, cfgs + i, n - i, 0, limit, &taken);

		compute_slots(hd, p, ws, 0, used);
		for (int64_t j = 0; j < taken; j++)
			out[i + j] = layout_config_memo(hd, p, ws, cfgs[i + j], &m, &mn, key);
		reset_slots(ws, used);
		i += taken;
	}
	memo_free(&m);
	free(key);
	free(mn.by_entry);
	free(mn.lookups);
	free(mn.hits);
	free(mn.off);
	return 0;
}

int nn_layout_node_scores(const nn_head *hd, const prep *p, int64_t config, double *out, nn_ws *ws)
{
	int64_t taken;
	size_t used;

	if (nn_encode(hd, p, ws) < 0 || nn_ws_layout(ws, p, (size_t)(p->K ? p->K : 1), hd->d.h, hd->d.r) < 0)
		return -1;
	layout_base(hd, p, ws);
	used = assign_slots(p, ws, &config, 1, 0, (size_t)(p->K ? p->K : 1), &taken);
	compute_slots(hd, p, ws, 0, used);
	layout_config(hd, p, ws, config, out);
	reset_slots(ws, used);
	return 0;
}

/* The batch's configs and runtimes are in ws->cfg[n], ws->y[n]. */
double nn_layout_loss_grad(const nn_head *hd, const prep *p, int64_t n, int loss, float *grad,
			   nn_ws *ws)
{
	double l;
	size_t slots = (size_t)n * (size_t)p->K, used;
	int64_t taken;

	if ((size_t)p->n_entries < slots)
		slots = (size_t)p->n_entries;
	if (nn_encode(hd, p, ws) < 0 || nn_ws_layout(ws, p, slots ? slots : 1, hd->d.h, hd->d.r) < 0)
		return NAN;
	layout_base(hd, p, ws);
	used = assign_slots(p, ws, ws->cfg, n, 0, slots ? slots : 1, &taken);
	compute_slots(hd, p, ws, 0, used);
	for (int64_t i = 0; i < n; i++)
		ws->s[i] = layout_config(hd, p, ws, ws->cfg[i], NULL);
	nn_prior_apply(hd, p, n, ws);
	l = nn_rank_loss(ws->s, ws->y, n, loss, ws->ds);
	if (isnan(l)) {
		reset_slots(ws, used);
		return NAN;
	}
	nn_prior_back(hd, p, n, ws, grad);
	memset(ws->dZ, 0, used * (size_t)hd->d.h * sizeof *ws->dZ);
	memset(ws->dP, 0, used * (size_t)hd->d.h * sizeof *ws->dP);
	memset(ws->dQ, 0, used * (size_t)hd->d.h * sizeof *ws->dQ);
	memset(ws->dU, 0, used * (size_t)hd->d.h * sizeof *ws->dU);
	for (int64_t i = 0; i < n; i++)
		if (ws->ds[i] != 0)
			layout_config_back(hd, p, ws, ws->cfg[i], ws->ds[i], grad);
	slots_back(hd, p, ws, used, grad);
	reset_slots(ws, used);
	nn_encode_back(hd, p, ws, grad);
	return l;
}
