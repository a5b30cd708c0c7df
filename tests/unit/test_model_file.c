/* test_model_file.c - training determinism, the model file (round trip,
 * corrupted files), prediction errors, per-node contributions and `fit`,
 * on small fixtures written by model_fixture.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/graph.h"
#include "loader/zip.h"
#include "model/cost.h"
#include "model/fit.h"
#include "model/metrics.h"
#include "model/model.h"
#include "model/train.h"
#include "model_fixture.h"
#include "t.h"

static char dir[] = "/tmp/hs-mfile.XXXXXX";

static char *path_in(const char *name)
{
	static char buf[8][256];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof buf[0], "%s/%s", dir, name);
	return b;
}

static uint8_t *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	fseek(f, 0, SEEK_SET);
	d = malloc((size_t)*n);
	if (d && fread(d, 1, (size_t)*n, f) != (size_t)*n) {
		free(d);
		d = NULL;
	}
	fclose(f);
	return d;
}

static void spill(const char *path, const uint8_t *d, long n)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(d, 1, (size_t)n, f);
		fclose(f);
	}
}

/* Rewrites the trailing CRC so that only the change under test is wrong. */
static void fix_crc(uint8_t *d, long n)
{
	uint32_t c = zip_crc32(0, d, (size_t)n - 4);

	d[n - 4] = (uint8_t)c;
	d[n - 3] = (uint8_t)(c >> 8);
	d[n - 2] = (uint8_t)(c >> 16);
	d[n - 1] = (uint8_t)(c >> 24);
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_u64_at(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The same model as a version 1 file: each head without its last two
 * parameters (the prior's weight and the gate).  Returns its length. */
static long to_v1(const uint8_t *d, long n, uint8_t *out)
{
	long at = 16, o = 16;
	uint32_t sections = (uint32_t)d[12] | (uint32_t)d[13] << 8;

	memcpy(out, d, 16);
	out[8] = 1;
	for (uint32_t s = 0; s < sections && at + 12 <= n; s++) {
		uint64_t len = u64_at(d + at + 4);
		int head = !memcmp(d + at, "LAYT", 4) || !memcmp(d + at, "TILE", 4);
		uint64_t keep = head ? len - 8 : len;

		memcpy(out + o, d + at, 12 + (size_t)keep);
		put_u64_at(out + o + 4, keep);
		if (head)
			put_u64_at(out + o + 12 + 40, u64_at(d + at + 12 + 40) - 2);
		at += 12 + (long)len;
		o += 12 + (long)keep;
	}
	o += 4;
	fix_crc(out, o);
	return o;
}

static void expect_load_error(const char *name, const uint8_t *d, long n, const char *needle)
{
	hs_error err = {0};
	hs_model *m;
	char label[200];

	spill(path_in("bad.hsm"), d, n);
	m = model_load(path_in("bad.hsm"), &err);
	snprintf(label, sizeof label, "%s is refused with a message naming it (%s)", name, err.msg);
	CHECK(label, !m && err.status == HS_EDATA && strstr(err.msg, needle) && strstr(err.msg, "bad.hsm"));
	model_free(m);
}

static prep *prep_file(const char *path, int layers)
{
	hs_error err = {0};
	hs_graph *g = graph_open(path, &err);
	prep_opts po = {.radius = layers, .cfg_hops = 3};
	prep *p;

	if (!g) {
		fprintf(stderr, "%s\n", err.msg);
		return NULL;
	}
	p = prep_graph(g, &po, &err);
	graph_free(g);
	return p;
}

static nn_head *train_small(const char *path, int kind, int threads, uint64_t seed, train_report *rep)
{
	train_opts o;
	hs_error err = {0};
	prep *p;
	nn_head *hd;

	train_defaults(&o);
	o.epochs = 3;
	o.hidden = 8;
	o.readout = 4;
	o.opemb = 4;
	o.batch = 8;
	o.threads = threads;
	o.seed = seed;
	p = prep_file(path, o.layers);
	if (!p)
		return NULL;
	hd = train_head(&p, 1, NULL, 0, kind, &o, rep, &err);
	if (!hd)
		fprintf(stderr, "train: %s\n", err.msg);
	prep_free(p);
	return hd;
}

int main(void)
{
	hs_error err = {0};
	train_report rep;
	nn_head *a, *b, *c, *t;
	hs_model *m, *m2;
	hs_graph *g, *gt;
	uint8_t *d;
	long n;

	if (!mkdtemp(dir)) {
		CHECK("scratch folder", 0);
		T_DONE();
	}
	CHECK("write fixtures", fixture_layout(path_in("l.npz"), 5, 60, 48, 0) == 0 &&
				       fixture_tile(path_in("t.npz"), 6, 6, 40) == 0 &&
				       fixture_layout(path_in("big.npz"), 8, 60, 300, 0) == 0 &&
				       fixture_layout(path_in("shuffled.npz"), 8, 60, 300, 1) == 0);

	/* Determinism: same seed, same parameters, whatever the threads. */
	a = train_small(path_in("l.npz"), HS_KIND_LAYOUT, 1, 3, &rep);
	b = train_small(path_in("l.npz"), HS_KIND_LAYOUT, 2, 3, &rep);
	c = train_small(path_in("l.npz"), HS_KIND_LAYOUT, 1, 4, &rep);
	t = train_small(path_in("t.npz"), HS_KIND_TILE, 2, 3, &rep);
	CHECK("training runs", a && b && c && t);
	if (!a || !b || !c || !t)
		T_DONE();
	CHECK("same seed: identical parameters with 1 and 2 threads",
	      a->o.total == b->o.total && !memcmp(a->theta, b->theta, a->o.total * sizeof(float)));
	CHECK("another seed: different parameters", memcmp(a->theta, c->theta, a->o.total * sizeof(float)) != 0);
	CHECK("the report counts the graph and its configs", rep.graphs == 1 && rep.configs == 40);
	nn_head_free(b);
	nn_head_free(c);

	/* A random subset of configs for training on huge files. */
	{
		hs_graph *gs = graph_open(path_in("l.npz"), &err), *gt2 = graph_open(path_in("t.npz"), &err);
		prep_opts po = {.radius = 2, .cfg_hops = 3, .max_configs = 10, .seed = 4};
		prep *a1 = gs ? prep_layout(gs, &po, &err) : NULL, *a2 = gs ? prep_layout(gs, &po, &err) : NULL;
		prep *t1 = gt2 ? prep_tile(gt2, &po, &err) : NULL;
		int sub = a1 && a2 && a1->n_configs == 10, same = sub, found = sub, ordered = sub;

		for (int64_t i = 0; sub && i < 10; i++) {
			int hit = 0;

			same &= a1->runtime[i] == a2->runtime[i];
			for (int64_t o = 0; o < gs->n_configs; o++)
				hit |= gs->runtime[o] == a1->runtime[i];
			found &= hit;
		}
		for (int64_t i = 1; sub && i < 10; i++) {
			/* kept configs stay in file order: their first runtime
			 * occurrence indices increase */
			int64_t i0 = -1, i1 = -1;

			for (int64_t o = 0; o < gs->n_configs; o++) {
				if (i0 < 0 && gs->runtime[o] == a1->runtime[i - 1])
					i0 = o;
				if (i1 < 0 && gs->runtime[o] == a1->runtime[i])
					i1 = o;
			}
			ordered &= i0 < i1;
		}
		CHECK("--max-configs keeps 10 configs of a layout file", sub);
		CHECK("the subset is the same for the same seed", same);
		CHECK("the subset's runtimes are the file's", found);
		CHECK("the subset keeps the file's order", ordered);
		CHECK("--max-configs keeps 10 configs of a tile file", t1 && t1->n_configs == 10 && t1->n_uniq <= 10);
		prep_free(a1);
		prep_free(a2);
		prep_free(t1);
		graph_free(gs);
		graph_free(gt2);
	}

	/* Round trip. */
	m = model_from_heads(a, t, "note=unit test\n", &err);
	CHECK("wrap heads into a model", m != NULL);
	CHECK("describe names both heads", !strcmp(model_describe(m), "sage-ranker v2 (layout+tile)"));
	CHECK("save", model_save(m, path_in("m.hsm"), &err) == 0);
	CHECK("no temporary file is left behind", access(path_in("m.hsm.tmp"), F_OK) != 0);
	m2 = model_load(path_in("m.hsm"), &err);
	CHECK("load what was saved", m2 != NULL);
	if (!m2) {
		fprintf(stderr, "%s\n", err.msg);
		T_DONE();
	}
	CHECK("the meta text survives", !strcmp(model_meta(m2), "note=unit test\n"));
	g = graph_open(path_in("l.npz"), &err);
	gt = graph_open(path_in("t.npz"), &err);
	if (g && gt) {
		double *p1 = malloc((size_t)g->n_configs * sizeof *p1), *p2 = malloc((size_t)g->n_configs * sizeof *p2);
		double *q1 = malloc((size_t)gt->n_configs * sizeof *q1), *q2 = malloc((size_t)gt->n_configs * sizeof *q2);
		double *contrib = malloc((size_t)g->n_cfg_nodes * sizeof *contrib), sum = 0;
		int same = 1;

		CHECK("predict layout before saving", model_predict_configs(m, g, p1, &err) == 0);
		CHECK("predict layout after loading", model_predict_configs(m2, g, p2, &err) == 0);
		for (int64_t i = 0; i < g->n_configs; i++)
			same &= p1[i] == p2[i];
		CHECK("layout predictions are identical after a round trip", same);
		CHECK("a META without digests (models before them) saw no graph", model_saw(m2, g) == 0);
		CHECK("predict tile before saving", model_predict_configs(m, gt, q1, &err) == 0);
		CHECK("predict tile after loading", model_predict_configs(m2, gt, q2, &err) == 0);
		same = 1;
		for (int64_t i = 0; i < gt->n_configs; i++)
			same &= q1[i] == q2[i];
		CHECK("tile predictions are identical after a round trip", same);

		CHECK("node contributions", model_node_contributions(m2, g, 0, 5, contrib, &err) == 0);
		for (int64_t k = 0; k < g->n_cfg_nodes; k++)
			sum += contrib[k];
		CHECK_NEAR("node contributions sum to the score difference", sum, p2[5] - p2[0],
			   1e-4 * (1 + fabs(p2[5] - p2[0])));
		CHECK("contributions of a config index out of range are an error",
		      model_node_contributions(m2, g, 0, g->n_configs, contrib, &err) < 0 && err.status == HS_EUSAGE);
		CHECK("contributions need a layout graph",
		      model_node_contributions(m2, gt, 0, 1, contrib, &err) < 0 && strstr(err.msg, "layout"));
		CHECK("analytic contributions", model_node_contributions(NULL, g, 0, 5, contrib, &err) == 0);
		CHECK("analytic scores", model_predict_configs(NULL, g, p1, &err) == 0);
		sum = 0;
		for (int64_t k = 0; k < g->n_cfg_nodes; k++)
			sum += contrib[k];
		CHECK_NEAR("analytic contributions sum to the score difference", sum, p1[5] - p1[0],
			   1e-6 * (1 + fabs(p1[5] - p1[0])));
		CHECK("the analytic estimate is labelled", !strcmp(model_describe(NULL), "analytic estimate"));
		free(p1);
		free(p2);
		free(q1);
		free(q2);
		free(contrib);
	}
	model_free(m);

	/* A model with one head refuses the other kind. */
	{
		nn_head *only = train_small(path_in("l.npz"), HS_KIND_LAYOUT, 1, 3, &rep);
		hs_model *ml = model_from_heads(only, NULL, NULL, &err);
		double q[64];

		CHECK("a layout-only model has no tile head", ml && !model_has_head(ml, HS_KIND_TILE));
		CHECK("it refuses to score a tile graph with a clear message",
		      ml && gt && model_predict_configs(ml, gt, q, &err) < 0 && strstr(err.msg, "no tile head"));
		model_free(ml);
	}

	/* Corrupted files. */
	d = slurp(path_in("m.hsm"), &n);
	CHECK("read the saved model", d && n > 100);
	if (d) {
		uint8_t *e = malloc((size_t)n);

		memcpy(e, d, (size_t)n);
		e[n / 2] ^= 0x40;
		expect_load_error("a flipped byte", e, n, "checksum mismatch");
		expect_load_error("a truncated file", d, n - 9, "checksum mismatch");
		expect_load_error("a 5-byte file", d, 5, "not a hloscope model file");
		memcpy(e, d, (size_t)n);
		e[0] = 'X';
		expect_load_error("a wrong magic", e, n, "not a hloscope model file");
		memcpy(e, d, (size_t)n);
		e[8] = 3;
		fix_crc(e, n);
		expect_load_error("a later format version", e, n, "version 3");
		memcpy(e, d, (size_t)n);
		memcpy(e + 16, "ZZZZ", 4);
		fix_crc(e, n);
		expect_load_error("an unknown section", e, n, "unknown section");
		memcpy(e, d, (size_t)n);
		e[12] = 9; /* claims 9 sections */
		fix_crc(e, n);
		expect_load_error("a missing section", e, n, "missing");
		memcpy(e, d, (size_t)n);
		{
			/* The layout head's hidden width (4th u32 of its section). */
			uint64_t meta_len = (uint64_t)e[20] | (uint64_t)e[21] << 8;
			size_t head = 16 + 12 + (size_t)meta_len + 12;

			e[head + 12] = 9;
			fix_crc(e, n);
			expect_load_error("widths that do not match the parameters", e, n, "parameters");
		}
		expect_load_error("an empty file", d, 0, "not a hloscope model file");
		{
			/* A version 1 file (before the analytic prior) still loads
			 * and scores: its heads read as prior weight 0, gate 1. */
			long n1 = to_v1(d, n, e);
			hs_model *m1;
			hs_graph *g1 = graph_open(path_in("l.npz"), &err);
			double *s1 = g1 ? malloc((size_t)g1->n_configs * sizeof *s1) : NULL;
			int finite = 1;

			spill(path_in("v1.hsm"), e, n1);
			m1 = model_load(path_in("v1.hsm"), &err);
			CHECK("a version 1 model file loads", m1 != NULL);
			CHECK("it says so", m1 && !strcmp(model_describe(m1), "sage-ranker v1 (layout+tile)"));
			CHECK("it scores a layout graph",
			      m1 && g1 && s1 && model_predict_configs(m1, g1, s1, &err) == 0);
			for (int64_t i = 0; s1 && g1 && i < g1->n_configs; i++)
				finite &= isfinite(s1[i]);
			CHECK("its scores are finite", finite);
			free(s1);
			graph_free(g1);
			model_free(m1);
		}
		free(e);
		free(d);
	}
	{
		hs_model *none = model_load(path_in("missing.hsm"), &err);

		CHECK("a missing file is an error naming it", !none && strstr(err.msg, "missing.hsm"));
	}

	/* fit: learns the fixture's formula; shuffled labels give about 0. */
	{
		hs_graph *gb = graph_open(path_in("big.npz"), &err), *gs = graph_open(path_in("shuffled.npz"), &err);
		fit_result r, rs, r2;
		double *pred = gb ? malloc((size_t)gb->n_configs * sizeof *pred) : NULL;
		uint8_t *tr = gb ? malloc((size_t)gb->n_configs) : NULL;
		int64_t ntr = 0;

		CHECK("fit runs", gb && gs && fit_heldout(gb, 0.3, 1, &r, pred, tr, &err) == 0);
		CHECK("fit runs on shuffled labels", gs && fit_heldout(gs, 0.3, 1, &rs, NULL, NULL, &err) == 0);
		CHECK("fit ranks held-out configs of a learnable formula (tau > 0.3)", r.heldout_tau > 0.3);
		CHECK("fit on shuffled labels scores near 0 (|tau| < 0.15)", fabs(rs.heldout_tau) < 0.15);
		for (int64_t i = 0; gb && tr && i < gb->n_configs; i++)
			ntr += tr[i];
		CHECK("fit trains on the requested fraction", ntr == 90 && r.n_train == 90 && r.n_heldout == 210);
		CHECK("fit is deterministic for a seed",
		      gb && fit_heldout(gb, 0.3, 1, &r2, NULL, NULL, &err) == 0 && r2.heldout_tau == r.heldout_tau);
		CHECK("fit refuses a fraction of 1", gb && fit_heldout(gb, 1.0, 1, &r2, NULL, NULL, &err) < 0 &&
							     err.status == HS_EUSAGE);
		CHECK("fit refuses too few held-out configs",
		      gb && fit_heldout(gb, 0.999, 1, &r2, NULL, NULL, &err) < 0 && strstr(err.msg, "at least 2"));
		free(pred);
		free(tr);
		graph_free(gb);
		graph_free(gs);
	}
	graph_free(g);
	graph_free(gt);
	model_free(m2);
	{
		const char *names[] = {"l.npz", "t.npz", "big.npz", "shuffled.npz", "m.hsm", "bad.hsm"};

		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			unlink(path_in(names[i]));
		rmdir(dir);
	}
	T_DONE();
}
