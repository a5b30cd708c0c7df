/* hloscope train PATH... -o MODEL: train the learned rankers on every
 * labeled file under the paths (a layout head and/or a tile head).  Files
 * with more than --max-configs configs (20000) train on a random subset,
 * which bounds memory on the real dataset's largest files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/plural.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "model/model.h"
#include "model/train.h"

typedef struct plist {
	prep **p;
	int n;
} plist;

static int plist_push(plist *l, prep *p)
{
	prep **q = realloc(l->p, (size_t)(l->n + 1) * sizeof *q);

	if (!q)
		return -1;
	l->p = q;
	l->p[l->n++] = p;
	return 0;
}

static void plist_free(plist *l)
{
	for (int i = 0; i < l->n; i++)
		prep_free(l->p[i]);
	free(l->p);
}

static void progress(void *ctx, const train_progress *p)
{
	(void)ctx;
	if (p->fold)
		fprintf(stderr, "%s fold %d/%d", p->head, p->fold, p->folds);
	else
		fprintf(stderr, "%-6s", p->head);
	fprintf(stderr, " epoch %3d/%-3d  loss %.4f  valid tau ", p->epoch, p->epochs, p->loss);
	if (isnan(p->valid_tau))
		fprintf(stderr, "   n/a");
	else
		fprintf(stderr, "%6.4f", p->valid_tau);
	if (!isnan(p->valid_top5))
		fprintf(stderr, "  top5 err %.4f", p->valid_top5);
	char took[32];
	hs_unit_format(took, sizeof took, HS_U_SECONDS, p->seconds, 2);
	fprintf(stderr, "  %9s%s\n", took, p->best ? "  *" : "");
}

/* Opens and prepares every file; unlabeled ones are skipped with a note.
 * Each file kept adds a "KEY=DIGEST PATH" line to seen (model_saw). */
static int load_all(const mcli_files *f, const prep_opts *po, plist *layout, plist *tile,
		    int *skipped, const char *key, hs_strbuf *seen, hs_error *err)
{
	for (int i = 0; i < f->n; i++) {
		hs_graph *g = graph_open(f->path[i], err);
		prep *p;

		if (!g)
			return -1;
		if (!g->labeled || g->n_configs < 2) {
			fprintf(stderr, "hloscope train: note: %s: %s, skipped\n", f->path[i],
				g->labeled ? "fewer than 2 configs" : "unlabeled (test split)");
			(*skipped)++;
			graph_free(g);
			continue;
		}
		p = prep_graph(g, po, err);
		hs_strbuf_printf(seen, "%s=%016llx %s\n", key, (unsigned long long)graph_digest(g), f->path[i]);
		if (p && p->n_uniq < 2 && g->n_configs == 1)
			fprintf(stderr, "hloscope train: note: %s: only 1 config\n", f->path[i]);
		else if (p && p->n_uniq < 2)
			fprintf(stderr, "hloscope train: note: %s: all %lld configs are identical\n",
				f->path[i], (long long)g->n_configs);

		graph_free(g);
		if (!p)
			return -1;
		if (plist_push(p->kind == HS_KIND_LAYOUT ? layout : tile, p) < 0) {
			prep_free(p);
			return hs_fail(err, HS_ENOMEM, "out of memory loading the training files");
		}
	}
	return 0;
}

static const char *const gate_from[] = {"none", "folds", "valid"};

static void summary(const char *head, const train_report *r)
{
	char tau[32], took[32];

	hs_unit_format(took, sizeof took, HS_U_SECONDS, r->seconds_per_epoch, 2);
	if (isnan(r->best_tau))
		snprintf(tau, sizeof tau, "n/a (nothing held out)");
	else
		snprintf(tau, sizeof tau, "%.4f", r->best_tau);
	printf("  %s: %lld graph%s, %lld config%s (%lld distinct); best valid tau %s (ties broken at random) "
	       "at epoch %d; correction gate %g; %s/epoch\n", head, (long long)r->graphs, hs_s(r->graphs),
	       (long long)r->configs, hs_s(r->configs), (long long)r->distinct_configs, tau, r->best_epoch,
	       r->gate, took);
	if (r->gate_from == TRAIN_GATE_NONE) {
		printf("    gate 0 (the analytic estimate alone): fewer than 2 training graphs with distinct configs "
		       "and no --valid graphs, so nothing shows the correction carries over to other graphs\n");
		return;
	}
	hs_unit_format(took, sizeof took, HS_U_SECONDS, r->fold_seconds, 2);
	if (r->gate_from == TRAIN_GATE_FOLDS)
		printf("    gate chosen on graphs left out of training: %d fold%s of %d epochs (%s); "
		       "tau estimate -> corrected with gate 1, 1/2, 1/4:\n", r->folds, hs_s(r->folds), r->fold_epochs,
		       took);
	else
		printf("    gate chosen on the --valid graphs; tau estimate -> corrected with gate 1, 1/2, 1/4:\n");
	for (int f = 0; f < (r->gate_from == TRAIN_GATE_FOLDS ? r->folds : 1); f++) {
		const train_fold *fd = &r->fold[f];

		if (r->gate_from == TRAIN_GATE_FOLDS)
			printf("      fold %d, ", f + 1);
		else
			printf("      ");
		if (!fd->graphs) {
			printf("no held-out graph with a defined tau\n");
			continue;
		}
		if (fd->graphs == 1)
			printf("%s: ", fd->name);
		else
			printf("%d graphs (%s, ...): ", fd->graphs, fd->name);
		printf("%.4f -> %.4f, %.4f, %.4f\n", fd->tau[3], fd->tau[0], fd->tau[1], fd->tau[2]);
	}
	if (r->gate == 0)
		printf("    gate 0: no gate ranks every held-out graph at least as well as the estimate alone and "
		       "some better\n");
}

/* What the command line asks for. */
typedef struct train_args {
	mcli_files files, vfiles; /* training and --valid files */
	train_opts o;
	const char *out;
	int quiet;
	long long max_configs;
} train_args;

/* The prepared graphs: layout and tile, for training and for validation. */
typedef struct train_data {
	plist lt, tt, lv, tv;
	int skipped;              /* unlabeled or single-config files */
	hs_strbuf seen;           /* trained_on= and validated_on= lines */
} train_data;

/* Parses the command line into a.  0, -1 after --help, or the exit
 * status after printing what is wrong. */
static int parse_args(int argc, char **argv, train_args *a)
{
	static const char *const losses[] = {"hinge", "listmle", NULL};
	train_opts *o = &a->o;
	const cli_opt opts[] = {
		CLI_OUTPUT_OPT(&a->out, "the model file to write (required); checked before\n"
			       "training: never a file trained on"),
		{"--epochs", "N", CLI_INT, &o->epochs, .help = "passes over the data (default 40)", .min = 1, .max = 100000},
		{"--seed", "S", CLI_INT64, &o->seed, .help = "random seed (default 1)"},
		{"--threads", "N", CLI_INT, &o->threads, .help = "worker threads, 1-256 (default 1; same result)", .min = 1,
		 .max = 256},
		{"--valid", "PATH", CLI_CALL, &a->vfiles, .help = "held-out files for the validation tau and the gate\n"
		 "(default: the best epoch on 15% of each training\n"
		 "graph's configs, the gate on folds of graphs left out)", .call = mcli_add_opt},
		{"--hidden", "N", CLI_INT, &o->hidden, .help = "hidden width, 4-512 (default 64)", .min = 4, .max = 512},
		{"--layers", "N", CLI_INT, &o->layers, .help = "message-passing layers, 1-4 (default 2)", .min = 1,
		 .max = NN_MAX_LAYERS},
		{"--cfg-hops", "N", CLI_INT, &o->cfg_hops, .help = "steps kept around configurable nodes, 0-16 (default 3)",
		 .max = 16},
		{"--batch", "N", CLI_INT, &o->batch, .help = "configs per step, 2-4096 (default 32)", .min = 2, .max = 4096},
		{"--max-configs", "N", CLI_INT64, &a->max_configs, .help = "configs kept per graph (default 20000, 0: all)"},
		{"--lr", "X", CLI_NUMBER, &o->lr, .help = "learning rate in (0, 1] (default 0.002)"},
		{"--loss", "hinge|listmle", CLI_WORD, &o->loss, .help = "the ranking loss (default hinge)", .words = losses},
		{"-q|--quiet", NULL, CLI_FLAG, &a->quiet, .help = "no progress lines"},
		{0}};
	const cli_spec spec = {"train",
			       "Trains the learned config rankers (a layout head and a tile head) on every\n"
			       "labeled .npz in PATH... (files, folders or FILE#N) and writes them to\n"
			       "MODEL.  Each head corrects the analytic estimate, scaled by a gate (1,\n"
			       "1/2, 1/4 or 0: the estimate alone) chosen on graphs it did not train on:\n"
			       "the largest that ranks none of them worse than the estimate and helps on\n"
			       "average.  Without --valid, folds that leave training graphs out each\n"
			       "train for half the epochs (one graph alone: gate 0).",
			       opts, -1, .operand = mcli_add, .operand_ctx = &a->files};
	cli_args args;
	int rc;

	memset(a, 0, sizeof *a);
	train_defaults(o);
	a->max_configs = 20000;
	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc;
	if (!(o->lr > 0 && o->lr <= 1))
		return cli_usage_error("train", "--lr must be in (0, 1], not %g", o->lr);
	if (!a->out)
		return cli_usage_error("train", "-o MODEL is required");
	if (a->files.n == 0)
		return cli_usage_error("train", "no files to train on");
	o->progress = a->quiet ? NULL : progress;
	return 0;
}

/* The model file, checked before the training rather than after it: not
 * one of the files trained on (through any name), nothing the writer
 * refuses.  0, or the exit status after printing what is wrong. */
static int check_out(const train_args *a)
{
	int rc = 0;

	for (int i = 0; i < a->files.n && !rc; i++)
		rc = cli_note_input(a->files.path[i]);
	for (int i = 0; i < a->vfiles.n && !rc; i++)
		rc = cli_note_input(a->vfiles.path[i]);
	return rc ? rc : cli_check_output("train", "-o", a->out);
}

/* Opens and prepares the training and validation files.  0, or the exit
 * status after printing what is wrong. */
static int load_data(const train_args *a, train_data *d)
{
	prep_opts po;
	hs_error err = {0};

	memset(&po, 0, sizeof po);
	po.radius = a->o.layers;
	po.cfg_hops = a->o.cfg_hops;
	po.max_configs = a->max_configs;
	po.seed = a->o.seed;
	po.prior = 1;
	if (load_all(&a->files, &po, &d->lt, &d->tt, &d->skipped, "trained_on", &d->seen, &err) < 0 ||
	    load_all(&a->vfiles, &po, &d->lv, &d->tv, &d->skipped, "validated_on", &d->seen, &err) < 0)
		return cli_report(&err);
	if (d->lt.n == 0 && d->tt.n == 0) {
		fprintf(stderr, "hloscope train: no labeled file among the %d file%s given\n", a->files.n,
			hs_s(a->files.n));
		return 1;
	}
	return 0;
}

/* The model file's metadata: the options, each head's validation, the
 * training files.  NULL when out of memory. */
static char *train_meta(const train_args *a, const train_data *d, const nn_head *hl,
			const train_report *rl, const nn_head *htl, const train_report *rt)
{
	const train_opts *o = &a->o;
	hs_strbuf meta = {0};

	hs_strbuf_printf(&meta, "format=hloscope model %d\nseed=%llu\nepochs=%d\nbatch=%d\nlr=%g\nloss=%s\n"
			 "hidden=%d\nlayers=%d\ncfg_hops=%d\nmax_configs=%lld\n", MODEL_FORMAT_VERSION,
			 (unsigned long long)o->seed, o->epochs, o->batch, o->lr,
			 o->loss == NN_LOSS_HINGE ? "hinge" : "listmle", o->hidden, o->layers, o->cfg_hops,
			 a->max_configs);
	for (int h = 0; h < 2; h++) {
		const train_report *r = h ? rt : rl;

		if (h ? htl : hl)
			hs_strbuf_printf(&meta, "%s_graphs=%lld\n%s_valid_tau=%.4f\n%s_best_epoch=%d\n%s_gate=%g\n"
					 "%s_gate_from=%s\n", h ? "tile" : "layout", (long long)r->graphs,
					 h ? "tile" : "layout", r->best_tau, h ? "tile" : "layout", r->best_epoch,
					 h ? "tile" : "layout", r->gate, h ? "tile" : "layout", gate_from[r->gate_from]);
	}
	if (d->seen.failed)
		meta.failed = 1;
	else
		hs_strbuf_puts(&meta, hs_strbuf_str(&d->seen));
	return hs_strbuf_take(&meta);
}

int cmd_train(int argc, char **argv)
{
	train_args a;
	train_data d = {0};
	train_report rl, rt;
	nn_head *hl = NULL, *htl = NULL;
	hs_model *m = NULL;
	hs_error err = {0};
	char *meta = NULL;
	int rc = parse_args(argc, argv, &a);

	if (rc || (rc = check_out(&a)) != 0 || (rc = load_data(&a, &d)) != 0) {
		rc = rc < 0 ? 0 : rc;
		goto done;
	}
	/* A head the data cannot train (HS_EUSAGE) is left out with a warning,
	 * keeping the other; any other error stops. */
	if (d.lt.n && !(hl = train_head(d.lt.p, d.lt.n, d.lv.n ? d.lv.p : NULL, d.lv.n, HS_KIND_LAYOUT,
					&a.o, &rl, &err))) {
		if (err.status != HS_EUSAGE || !d.tt.n) {
			rc = cli_report(&err);
			goto done;
		}
		fprintf(stderr, "hloscope train: warning: no layout head: %s\n", err.msg);
		hs_error_clear(&err);
	}
	if (d.tt.n && !(htl = train_head(d.tt.p, d.tt.n, d.tv.n ? d.tv.p : NULL, d.tv.n, HS_KIND_TILE,
					 &a.o, &rt, &err))) {
		if (err.status != HS_EUSAGE || !hl) {
			rc = cli_report(&err);
			goto done;
		}
		fprintf(stderr, "hloscope train: warning: no tile head: %s; the model keeps the layout head\n",
			err.msg);
	}
	if (!hl && !htl) {
		fprintf(stderr, "hloscope train: no head could be trained\n");
		rc = 1;
		goto done;
	}
	meta = train_meta(&a, &d, hl, &rl, htl, &rt);
	if (!meta) {
		rc = cli_oom("writing the model's metadata");
		goto done;
	}
	m = model_from_heads(hl, htl, meta, &err);
	if (!m) {
		rc = cli_report(&err);
		goto done;
	}
	hl = htl = NULL;
	if (model_save(m, a.out, &err) < 0) {
		rc = cli_report(&err);
		goto done;
	}
	printf("wrote %s: %s\n", a.out, model_describe(m));
	if (m && model_has_head(m, HS_KIND_LAYOUT))
		summary("layout", &rl);
	if (m && model_has_head(m, HS_KIND_TILE))
		summary("tile", &rt);
	if (d.skipped)
		printf("  skipped %d unlabeled or single-config files\n", d.skipped);
done:
	model_free(m);
	nn_head_free(hl);
	nn_head_free(htl);
	plist_free(&d.lt);
	plist_free(&d.tt);
	plist_free(&d.lv);
	plist_free(&d.tv);
	hs_strbuf_free(&d.seen);
	mcli_files_free(&a.files);
	mcli_files_free(&a.vfiles);
	free(meta);
	return rc;
}
