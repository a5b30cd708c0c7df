/* test_model_grad.c - finite-difference checks of every hand-written
 * backward pass: the encoder, the layout head, the tile head and both
 * ranking losses.
 *
 * For each parameter tensor, the analytic gradient g restricted to that
 * tensor is compared with the central difference of the loss along
 * d = g / |g|: (L(theta + eps d) - L(theta - eps d)) / (2 eps) must equal
 * |g| within 3% (+1e-4).  The losses themselves are checked coordinate by
 * coordinate in double precision.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rng.h"
#include "loader/graph.h"
#include "model/nn.h"
#include "model/prep.h"
#include "model_fixture.h"
#include "t.h"

struct block {
	const char *name;
	size_t off;
};

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static int blocks_of(const nn_head *hd, struct block *b)
{
	static const char *const lnames[4][4] = {
		{"ws[0]", "wo[0]", "wu[0]", "bl[0]"}, {"ws[1]", "wo[1]", "wu[1]", "bl[1]"},
		{"ws[2]", "wo[2]", "wu[2]", "bl[2]"}, {"ws[3]", "wo[3]", "wu[3]", "bl[3]"}};
	const nn_off *o = &hd->o;
	int n = 0;

	b[n++] = (struct block){"opemb", o->opemb};
	b[n++] = (struct block){"win", o->win};
	b[n++] = (struct block){"bin", o->bin};
	for (int l = 0; l < hd->d.layers; l++) {
		b[n++] = (struct block){lnames[l][0], o->ws[l]};
		b[n++] = (struct block){lnames[l][1], o->wo[l]};
		b[n++] = (struct block){lnames[l][2], o->wu[l]};
		b[n++] = (struct block){lnames[l][3], o->bl[l]};
	}
	if (hd->d.kind == HS_KIND_LAYOUT) {
		b[n++] = (struct block){"ae", o->ae};
		b[n++] = (struct block){"ac", o->ac};
		b[n++] = (struct block){"b1", o->b1};
		b[n++] = (struct block){"bs", o->bs};
		b[n++] = (struct block){"bo", o->bo};
		b[n++] = (struct block){"bu", o->bu};
		b[n++] = (struct block){"be", o->be};
		b[n++] = (struct block){"b2", o->b2};
		b[n++] = (struct block){"R", o->rr};
		b[n++] = (struct block){"br", o->br};
		b[n++] = (struct block){"w", o->w};
	} else {
		b[n++] = (struct block){"tg", o->tg};
		b[n++] = (struct block){"tc", o->tc};
		b[n++] = (struct block){"bt", o->bt};
		b[n++] = (struct block){"t2", o->t2};
		b[n++] = (struct block){"b2t", o->b2t};
		b[n++] = (struct block){"wt", o->wt};
	}
	b[n++] = (struct block){"pw", o->pw};
	b[n++] = (struct block){"gate", o->gate};
	qsort(b, (size_t)n, sizeof *b, cmp_block);
	return n;
}

static void check_head(const char *what, nn_head *hd, const prep *p, int loss)
{
	struct block b[64];
	int nb = blocks_of(hd, b);
	size_t P = hd->o.total;
	float *g = calloc(P, sizeof *g), *scratch = calloc(P, sizeof *scratch), *save = malloc(P * sizeof *save);
	nn_ws *ws = nn_ws_new();
	int64_t n = p->n_uniq < 12 ? p->n_uniq : 12, uniq[12];
	char name[160];
	double l0;

	for (int64_t i = 0; i < n; i++)
		uniq[i] = i;
	memcpy(save, hd->theta, P * sizeof *save);
	l0 = nn_loss_grad(hd, p, uniq, n, loss, g, ws);
	snprintf(name, sizeof name, "%s: loss is finite", what);
	CHECK(name, isfinite(l0));
	for (int i = 0; i < nb; i++) {
		size_t off = b[i].off, end = i + 1 < nb ? b[i + 1].off : P;
		double norm = 0, best = INFINITY, best_fd = NAN, wrong = INFINITY;
		static const double eps[3] = {1e-3, 3e-4, 1e-4};

		for (size_t j = off; j < end; j++)
			norm += (double)g[j] * g[j];
		norm = sqrt(norm);
		if (!p->prior && !strcmp(b[i].name, "pw")) {
			snprintf(name, sizeof name, "%s: no prior, no gradient for its weight", what);
			CHECK(name, norm == 0);
			continue;
		}
		snprintf(name, sizeof name, "%s: gradient reaches %s", what, b[i].name);
		CHECK(name, norm > 0);
		if (norm == 0)
			continue;
		/* Central differences converge to the gradient as eps shrinks
		 * until float rounding (about 3e-7 of the loss, divided by eps)
		 * takes over; a ReLU kink near the point can spoil one eps, a
		 * wrong gradient spoils them all. */
		for (int e = 0; e < 3; e++) {
			double lp, lm, fd, tol = 0.02 * norm + 3e-7 * (1 + fabs(l0)) / eps[e];

			for (size_t j = off; j < end; j++)
				hd->theta[j] = save[j] + (float)(eps[e] * g[j] / norm);
			lp = nn_loss_grad(hd, p, uniq, n, loss, scratch, ws);
			for (size_t j = off; j < end; j++)
				hd->theta[j] = save[j] - (float)(eps[e] * g[j] / norm);
			lm = nn_loss_grad(hd, p, uniq, n, loss, scratch, ws);
			memcpy(hd->theta + off, save + off, (end - off) * sizeof *save);
			fd = (lp - lm) / (2 * eps[e]);
			if (fabs(fd - norm) / tol < best) {
				best = fabs(fd - norm) / tol;
				best_fd = fd;
			}
			if (fabs(fd - 1.1 * norm) / tol < wrong)
				wrong = fabs(fd - 1.1 * norm) / tol;
		}
		snprintf(name, sizeof name, "%s: d loss / d %s matches finite differences (%.6g vs %.6g)", what,
			 b[i].name, norm, best_fd);
		CHECK(name, best <= 1);
		/* (Without the prior: with it, the heads' part of the loss is
		 * too small a share for a 10% error to show.) */
		if (!p->prior && (!strcmp(b[i].name, "R") || !strcmp(b[i].name, "t2"))) {
			snprintf(name, sizeof name, "%s: a 10%% error in d loss / d %s would be caught", what,
				 b[i].name);
			CHECK(name, wrong > 1);
		}
	}
	nn_ws_free(ws);
	free(g);
	free(scratch);
	free(save);
}

static void jitter(nn_head *hd, uint64_t seed)
{
	hs_splitmix g = hs_splitmix_seed(seed);

	for (size_t i = 0; i < hd->o.total; i++)
		hd->theta[i] += (float)(0.05 * (2 * hs_splitmix_unit(&g) - 1));
}

static void check_losses(void)
{
	hs_splitmix g = hs_splitmix_seed(7);
	double s[9], y[9], ds[9], sp[9];
	char name[96];

	for (int loss = 0; loss < 2; loss++) {
		int ok = 1;

		for (int i = 0; i < 9; i++) {
			s[i] = 2 * hs_splitmix_unit(&g) - 1;
			y[i] = (double)hs_splitmix_below(&g, 5); /* ties in the runtimes */
		}
		nn_rank_loss(s, y, 9, loss, ds);
		for (int i = 0; i < 9; i++) {
			double h = 1e-6, a, b;

			memcpy(sp, s, sizeof sp);
			sp[i] += h;
			a = nn_rank_loss(sp, y, 9, loss, NULL);
			sp[i] -= 2 * h;
			b = nn_rank_loss(sp, y, 9, loss, NULL);
			if (fabs((a - b) / (2 * h) - ds[i]) > 1e-6)
				ok = 0;
		}
		snprintf(name, sizeof name, "%s loss gradient matches finite differences per score",
			 loss == NN_LOSS_HINGE ? "hinge" : "listmle");
		CHECK(name, ok);
	}
	{
		double a[3] = {0, 5, 9}, r[3] = {1, 2, 3};

		CHECK_NEAR("hinge loss is 0 when every pair is ordered by a margin",
			   nn_rank_loss(a, r, 3, NN_LOSS_HINGE, NULL), 0, 1e-15);
		CHECK("listmle prefers the right order",
		      nn_rank_loss(a, r, 3, NN_LOSS_LISTMLE, NULL) <
			      nn_rank_loss((double[]){9, 5, 0}, r, 3, NN_LOSS_LISTMLE, NULL));
	}
}

int main(void)
{
	char dir[] = "/tmp/hs-grad.XXXXXX", lpath[256], tpath[256];
	hs_error err = {0};
	hs_graph *gl, *gt;
	prep *pl, *pt;
	prep_opts po = {.radius = 2, .cfg_hops = 3, .prior = 1};

	check_losses();
	if (!mkdtemp(dir)) {
		CHECK("scratch folder", 0);
		T_DONE();
	}
	snprintf(lpath, sizeof lpath, "%s/layout.npz", dir);
	snprintf(tpath, sizeof tpath, "%s/tile.npz", dir);
	CHECK("write the layout fixture", fixture_layout(lpath, 3, 40, 24, 0) == 0);
	CHECK("write the tile fixture", fixture_tile(tpath, 4, 7, 20) == 0);
	gl = graph_open(lpath, &err);
	CHECK("open the layout fixture", gl != NULL);
	gt = graph_open(tpath, &err);
	CHECK("open the tile fixture", gt != NULL);
	if (!gl || !gt) {
		fprintf(stderr, "%s\n", err.msg);
		T_DONE();
	}
	pl = prep_layout(gl, &po, &err);
	pt = prep_tile(gt, &po, &err);
	CHECK("prepare both", pl && pt);
	if (!pl || !pt)
		T_DONE();
	CHECK("both carry the analytic prior (the base the heads correct)", pl->prior && pt->prior);
	CHECK("the fixture links configurable nodes", pl->nop_off[pl->K] > 0 && pl->nus_off[pl->K] > 0);
	prep_standardize(pt, (float[140]){0}, (float[140]){0}, NULL, NULL);
	CHECK("tile configs carry the analytic columns", pt->config_width == 24 + PREP_TILE_EXTRA);

	for (int layers = 1; layers <= 2; layers++) {
		nn_dims dl = {HS_KIND_LAYOUT, 140, 4, 8, layers, 6, 3, 18, prep_ccols(18), 0};
		nn_dims dt = {HS_KIND_TILE, 140, 4, 8, layers, 6, 0, 0, 0, pt->config_width};
		nn_head *hl = nn_head_new(&dl, 11), *ht = nn_head_new(&dt, 12);
		char what[64];

		jitter(hl, 21);
		jitter(ht, 22);
		if (!pl->standardized)
			prep_standardize(pl, hl->mean, hl->sd, NULL, NULL);
		for (int loss = 0; loss < 2; loss++) {
			const char *ln = loss == NN_LOSS_HINGE ? "hinge" : "listmle";

			for (int with_prior = 0; with_prior < 2; with_prior++) {
				double *lp = pl->prior, *tp = pt->prior;

				if (!with_prior)
					pl->prior = pt->prior = NULL;
				snprintf(what, sizeof what, "layout, %d layer%s, %s%s", layers, layers > 1 ? "s" : "",
					 ln, with_prior ? ", analytic prior" : "");
				check_head(what, hl, pl, loss);
				snprintf(what, sizeof what, "tile, %d layer%s, %s%s", layers, layers > 1 ? "s" : "", ln,
					 with_prior ? ", analytic prior" : "");
				check_head(what, ht, pt, loss);
				pl->prior = lp;
				pt->prior = tp;
			}
		}
		nn_head_free(hl);
		nn_head_free(ht);
	}
	prep_free(pl);
	prep_free(pt);
	graph_free(gl);
	graph_free(gt);
	unlink(lpath);
	unlink(tpath);
	rmdir(dir);
	T_DONE();
}
