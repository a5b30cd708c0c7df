/* nn_layout.c - the layout head (nn.h): the per-graph base, the per-entry
 * caches held in slots, one config's node terms forward and backward, the
 * memo of node terms shared by configs with the same neighbourhood, and
 * scoring in batches that fit SLOT_BUDGET. */
#include "model/nn_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
 * neighbourhood share its term.  Open addressing over (node, key) with the
 * keys kept in an arena and compared in full.  It stops growing at
 * MEMO_MAX entries (later misses are just computed). */
#define MEMO_MAX ((size_t)1 << 22)

typedef struct memo {
	uint64_t *hash;     /* [cap], 0 = empty */
	int64_t *key;       /* [cap] offset of the key in the arena */
	float *val;         /* [cap] */
	size_t cap, used;
	int32_t *arena;     /* keys: node, then its entries */
	size_t arena_used, arena_cap;
} memo;

static void memo_free(memo *m)
{
	free(m->hash);
	free(m->key);
	free(m->val);
	free(m->arena);
}

static int memo_init(memo *m, size_t expect)
{
	size_t cap = 1024;

	memset(m, 0, sizeof *m);
	if (expect > MEMO_MAX / 4)
		expect = MEMO_MAX / 4;
	while (cap < expect * 2)
		cap <<= 1;
	m->hash = calloc(cap, sizeof *m->hash);
	m->key = malloc(cap * sizeof *m->key);
	m->val = malloc(cap * sizeof *m->val);
	if (!m->hash || !m->key || !m->val) {
		memo_free(m);
		return -1;
	}
	m->cap = cap;
	return 0;
}

/* Doubles the table (up to 2 * MEMO_MAX slots); -1 when it cannot. */
static int memo_grow(memo *m)
{
	size_t cap = m->cap * 2;
	uint64_t *hash;
	int64_t *key;
	float *val;

	if (cap > 2 * MEMO_MAX)
		return -1;
	hash = calloc(cap, sizeof *hash);
	key = malloc(cap * sizeof *key);
	val = malloc(cap * sizeof *val);
	if (!hash || !key || !val) {
		free(hash);
		free(key);
		free(val);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t s;

		if (!m->hash[i])
			continue;
		for (s = m->hash[i] & (cap - 1); hash[s]; s = (s + 1) & (cap - 1))
			;
		hash[s] = m->hash[i];
		key[s] = m->key[i];
		val[s] = m->val[i];
	}
	free(m->hash);
	free(m->key);
	free(m->val);
	m->hash = hash;
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

static uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
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
		size_t len, slot;
		uint64_t h = 0x12345;
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
		for (size_t i = 0; i < len; i++)
			h = mix64(h, (uint64_t)(uint32_t)key[i]);
		h |= 1;
		for (slot = h & (m->cap - 1); m->hash[slot]; slot = (slot + 1) & (m->cap - 1))
			if (m->hash[slot] == h && !memcmp(m->arena + m->key[slot], key, len * sizeof *key))
				break;
		mn->lookups[k]++;
		if (m->hash[slot]) {
			mn->hits[k]++;
			score += m->val[slot];
			continue;
		}
		if (mn->lookups[k] >= 64 && mn->hits[k] * 4 < mn->lookups[k])
			mn->off[k] = 1;
		sk = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
		score += sk;
		if (mn->off[k])
			continue;
		if (m->used * 2 >= m->cap) {
			if (memo_grow(m) < 0)
				continue; /* full: no more memoizing */
			for (slot = h & (m->cap - 1); m->hash[slot]; slot = (slot + 1) & (m->cap - 1))
				;
		}
		if (m->arena_used + len > m->arena_cap) {
			size_t cap = m->arena_cap ? m->arena_cap * 2 : 4096;
			int32_t *a;

			while (cap < m->arena_used + len)
				cap *= 2;
			if (!(a = realloc(m->arena, cap * sizeof *a)))
				continue;
			m->arena = a;
			m->arena_cap = cap;
		}
		memcpy(m->arena + m->arena_used, key, len * sizeof *key);
		m->hash[slot] = h;
		m->key[slot] = (int64_t)m->arena_used;
		m->val[slot] = sk;
		m->arena_used += len;
		m->used++;
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
