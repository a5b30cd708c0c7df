/* tile.c - tile configs and the tile runtime formula (see synth/configs.h).
 *
 * TILE RUNTIME FORMULA (nanoseconds, written to DIR/README too)
 *
 *   The kernel's output (the root, or its largest element if a tuple) has dims
 *   D_0..D_{r-1}; config output_bounds t_i.  steps = prod ceil(D_i / t_i),
 *   tile = prod t_i, lane = ceil(t_{r-1}/128)*128/t_{r-1},
 *   sublane = ceil(t_{r-2}/8)*8/t_{r-2} (1 when r < 2).
 *   W = sum over arithmetic nodes of the fused computation (all but
 *       parameters, constants, broadcasts, reshapes, transposes, converts,
 *       tuples and the convolution or dot) of (elements of its largest
 *       operand or of itself) / output elements;
 *   B = (bytes of the fused parameters + bytes of the output) / output elements.
 *   Kernels with a convolution or dot: contraction length K (input features
 *   times window, or the dot's contracting dim); kernel_bounds tile the
 *   kernel operand, k = product of its contracted entries, ksteps = ceil(K/k),
 *   mxu = ceil(k/128)*128/k; otherwise ksteps = 1 and the MXU term is 0.
 *     step = STEP * ksteps + max(tile * W * lane * sublane / VPU
 *                                + ksteps * tile * 2k * mxu * lane / MXU,
 *                                (tile * B + ksteps * k * t_feat * esize) / BW)
 *     ws   = 2 * tile * B + k * t_feat * esize;  step *= 1 + ws / VMEM when
 *            ws > VMEM (spilling)
 *     runtime = round((LAUNCH + steps * step) * exp(0.03 * z_c))
 *   STEP = 120 ns, LAUNCH = 1500 ns, VPU = 4096 flop/ns, VMEM = 16 MiB.
 *   Configs come from tile sizes per dim (powers of two, multiples of 128
 *   for the lane dim, the whole dim) with 64 KiB <= 2 * tile * B <= 64 MiB,
 *   and contracted kernel tiles of at least 16 (or the whole dim).
 *   Config 0 is the compiler's default tiling (from the minor dim up, whole
 *   dims while 2 * tile * B <= 2 MiB, then the largest size that fits, then
 *   1; contracted kernel dim up to 128) and every normalizer is its runtime
 *   (config_runtime_normalizers[j] = config_runtime[0]).
 */
#include "synth/configs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

static int is_arith(int op)
{
	return op != SY_PARAM && op != SY_CONST && op != SY_BCAST && op != SY_RESHAPE &&
	       op != SY_TRANSPOSE && op != SY_TUPLE && op != SY_CONVERT && op != SY_CONV &&
	       op != SY_DOT;
}

void synth_tile_setup(const synth_graph *g, const synth_kernel_info *ki, synth_tile *tp)
{
	const synth_node *o = &g->v[ki->out];
	double oe = (double)synth_elems(o), w = 0, b = (double)synth_nbytes(o);
	tp->r = o->rank;
	memcpy(tp->D, o->dim, sizeof tp->D);
	tp->esize = synth_et_bytes(o->et);
	for (int i = ki->body_start; i < ki->body_end; i++) {
		const synth_node *x = &g->v[i];
		if (x->op == SY_PARAM)
			b += (double)synth_nbytes(x);
		if (!is_arith(x->op))
			continue;
		double e = (double)synth_elems(x);
		for (int j = 0; j < x->nops; j++)
			e = fmax(e, (double)synth_elems(&g->v[x->ops[j]]));
		w += e;
	}
	tp->W = w / oe;
	tp->B = b / oe;
	tp->ki = ki;
	tp->kin = -1;
	if (ki->contract >= 0) {
		/* The tiled contracted kernel dim: input features (conv) or K (dot). */
		const synth_node *C = &g->v[ki->contract];
		tp->kin = C->op == SY_CONV ? C->cd[6] : ki->krank - 2;
	}
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

double synth_tile_runtime(const synth_tile *tp, const float *cf)
{
	const synth_kernel_info *ki = tp->ki;
	double steps = 1, tile = 1;
	for (int i = 0; i < tp->r; i++) {
		int64_t t = (int64_t)cf[8 + i];
		steps *= (double)ceil_div(tp->D[i], t);
		tile *= (double)t;
	}
	int64_t tl = (int64_t)cf[8 + tp->r - 1];
	double lane = (double)(ceil_div(tl, 128) * 128) / (double)tl, sub = 1;
	if (tp->r >= 2) {
		int64_t ts = (int64_t)cf[8 + tp->r - 2];
		sub = (double)(ceil_div(ts, 8) * 8) / (double)ts;
	}
	double ksteps = 1, k = 0, mxu = 1, tfeat = 0;
	if (ki->contract >= 0) {
		k = 1;
		for (int i = 0; i < ki->krank; i++)
			if (i != ki->kout)
				k *= cf[i];
		ksteps = (double)ceil_div(ki->K, (int64_t)k);
		mxu = (double)(ceil_div((int64_t)k, 128) * 128) / k;
		tfeat = cf[8 + ki->out_feat];
	}
	double compute = tile * tp->W * lane * sub / SY_VPU_FPNS +
			 ksteps * tile * 2.0 * k * mxu * lane / SY_MXU_FPNS;
	double mem = (tile * tp->B + ksteps * k * tfeat * tp->esize) / SY_BW_BPNS;
	double step = SY_STEP_NS * ksteps + fmax(compute, mem);
	double ws = 2.0 * tile * tp->B + k * tfeat * tp->esize;
	if (ws > SY_VMEM_BYTES)
		step *= 1.0 + ws / SY_VMEM_BYTES;
	return SY_LAUNCH_NS + steps * step;
}

/* Tile size candidates for a dim: powers of two below it, the dim itself,
 * and for the lane dim some multiples of 128. */
static int tile_cands(int64_t d, int lane, int64_t *out)
{
	int n = 0;
	for (int64_t t = 1; t < d && n < 24; t *= 2)
		out[n++] = t;
	if (lane)
		for (int64_t t = 384; t < d && n < 30; t += 256)
			out[n++] = t;
	out[n++] = d;
	for (int i = 1; i < n; i++) /* ascending */
		for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int64_t x = out[j];
			out[j] = out[j - 1];
			out[j - 1] = x;
		}
	return n;
}

static void tile_fill(float *cf, const synth_tile *tp, const int64_t *t, const int64_t *kb)
{
	const synth_kernel_info *ki = tp->ki;
	memset(cf, 0, sizeof(float) * 24);
	double s = 0, p = 1;
	for (int i = 0; i < tp->r; i++) {
		cf[8 + i] = (float)t[i];
		s += (double)t[i];
		p *= (double)t[i];
	}
	cf[14] = (float)s;
	cf[15] = (float)p;
	if (ki->contract >= 0) {
		s = 0;
		p = 1;
		for (int i = 0; i < ki->krank; i++) {
			cf[i] = (float)kb[i];
			s += (double)kb[i];
			p *= (double)kb[i];
		}
		cf[6] = (float)s;
		cf[7] = (float)p;
	}
}

/* The search space of one kernel: tile size candidates per output dim and
 * for the contracted kernel dim, and the smallest working set searched. */
typedef struct tile_space {
	int64_t cand[SYNTH_MAX_RANK][32], kcand[32];
	int ncand[SYNTH_MAX_RANK], nkc;
	double min_ws;
} tile_space;

static void space_init(const synth_tile *tp, tile_space *sp)
{
	memset(sp, 0, sizeof *sp);
	for (int i = 0; i < tp->r; i++)
		sp->ncand[i] = tile_cands(tp->D[i], i == tp->r - 1, sp->cand[i]);
	if (tp->kin >= 0) {
		sp->nkc = tile_cands(tp->ki->kdim[tp->kin], 0, sp->kcand);
		/* Contraction tiles below 16 are not searched. */
		int lo = 0;
		while (lo < sp->nkc - 1 && sp->kcand[lo] < 16)
			lo++;
		memmove(sp->kcand, sp->kcand + lo, sizeof(int64_t) * (size_t)(sp->nkc - lo));
		sp->nkc -= lo;
	}
	double full = 1;
	for (int i = 0; i < tp->r; i++)
		full *= (double)tp->D[i];
	sp->min_ws = fmin(SY_MIN_WS, 2.0 * full * tp->B);
}

/* One config: output tiles t[] and kernel bounds kb[], with the candidate
 * indices in cc[0..11]; the compiler's default when `dflt`.  Returns the
 * working set 2 * tile * B. */
static double draw_one(const synth_tile *tp, const tile_space *sp, hs_xoshiro *rng, int dflt,
		       int16_t *cc, int64_t *t, int64_t *kb)
{
	const synth_kernel_info *ki = tp->ki;
	double tile = 1;
	int whole = 1;
	memset(cc, 0, sizeof(int16_t) * 12);
	for (int i = tp->r - 1; i >= 0; i--) {
		int j = 0;
		if (dflt) {
			/* From the minor dim up, whole dims while the working set
			 * stays within 2 MiB, then the largest size that fits,
			 * then 1. */
			for (int q = 0; whole && q < sp->ncand[i]; q++)
				if (2.0 * tile * (double)sp->cand[i][q] * tp->B <= SY_DEFAULT_WS)
					j = q;
			whole &= sp->cand[i][j] == tp->D[i];
		} else {
			j = hs_xoshiro_below(rng, sp->ncand[i]);
		}
		cc[i] = (int16_t)j;
		t[i] = sp->cand[i][j];
		tile *= (double)t[i];
	}
	if (ki->contract >= 0) {
		int j = dflt ? sp->nkc - 1 : hs_xoshiro_below(rng, sp->nkc);
		if (dflt)
			while (j > 0 && sp->kcand[j] > 128)
				j--;
		cc[6] = (int16_t)j;
		for (int i = 0; i < ki->krank; i++)
			kb[i] = ki->kdim[i];
		kb[tp->kin] = sp->kcand[j];
		kb[ki->kout] = t[ki->out_feat];
	}
	return 2.0 * tile * tp->B;
}

void synth_tile_configs_free(synth_tile_configs *c)
{
	free(c->feat);
	free(c->runtime);
	free(c->normalizers);
	memset(c, 0, sizeof *c);
}

int synth_tile_draw(const synth_tile *tp, uint64_t seed, int want, int hide_labels,
		    synth_tile_configs *out, hs_error *err)
{
	hs_xoshiro rng;
	synth_cset seen = {0};
	tile_space sp;
	int c = 0;
	memset(out, 0, sizeof *out);
	hs_xoshiro_seed(&rng, seed);
	out->feat = malloc(sizeof(float) * 24 * (size_t)want);
	out->runtime = malloc(sizeof(int64_t) * (size_t)want);
	out->normalizers = malloc(sizeof(int64_t) * (size_t)want);
	int16_t *ch = malloc(sizeof(int16_t) * 12 * (size_t)want);
	if (synth_cset_init(&seen, want) < 0 || !out->feat || !out->runtime ||
	    !out->normalizers || !ch) {
		free(ch);
		synth_cset_free(&seen);
		synth_tile_configs_free(out);
		return hs_fail(err, HS_ENOMEM, "synth: out of memory drawing tile configs");
	}
	space_init(tp, &sp);
	for (int tries = 0; c < want && tries < want * 40; tries++) {
		int16_t *cc = ch + (size_t)c * 12;
		int64_t t[SYNTH_MAX_RANK], kb[SYNTH_MAX_RANK] = {0};
		double ws = draw_one(tp, &sp, &rng, c == 0, cc, t, kb);
		if (c > 0 && (ws > 4 * SY_VMEM_BYTES || ws < sp.min_ws))
			continue; /* outside the compiler's search space */
		if (!synth_cset_add(&seen, ch, 12, c))
			continue;
		tile_fill(out->feat + (size_t)c * 24, tp, t, kb);
		c++;
	}
	for (int i = 0; i < c; i++) {
		double t = synth_tile_runtime(tp, out->feat + (size_t)i * 24) *
			   exp(SY_NOISE_SIGMA * hs_xoshiro_normal(&rng));
		out->runtime[i] = hide_labels ? 0 : llround(t);
	}
	for (int i = 0; i < c; i++)
		out->normalizers[i] = hide_labels ? 1 : out->runtime[0];
	out->c = c;
	free(ch);
	synth_cset_free(&seen);
	return 0;
}
