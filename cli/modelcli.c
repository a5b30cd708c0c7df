/* modelcli.c - see modelcli.h. */
#include "cli/modelcli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/inputs.h"
#include "cli/cli.h"
#include "loader/dataset.h"
#include "loader/graph.h"
#include "model/model.h"

static int push(mcli_files *f, const char *p, hs_error *err)
{
	char **q = realloc(f->path, (size_t)(f->n + 1) * sizeof *q);

	if (!q)
		return hs_fail(err, HS_ENOMEM, "out of memory listing the input files");
	f->path = q;
	if (!(f->path[f->n] = strdup(p)))
		return hs_fail(err, HS_ENOMEM, "out of memory listing the input files");
	f->n++;
	return 0;
}

int mcli_collect(mcli_files *f, const char *arg, hs_error *err)
{
	struct stat st;
	char file[PATH_MAX];
	ds_index *ix;

	if (stat(arg, &st) != 0) {
		int e = errno;
		if (cli_module_file(arg, file, sizeof file)) /* FILE#N: one module */
			return push(f, arg, err);
		return hs_fail(err, HS_EDATA, "%s: %s", arg, strerror(e));
	}
	if (!S_ISDIR(st.st_mode))
		return push(f, arg, err);
	ix = dataset_scan(arg, err);
	if (!ix)
		return -1;
	for (size_t i = 0; i < ix->n; i++)
		if (push(f, ix->entries[i].path, err) < 0) {
			dataset_free(ix);
			return -1;
		}
	dataset_free(ix);
	return 0;
}

int mcli_add(void *files, const char *arg)
{
	hs_error err = {0};

	return mcli_collect(files, arg, &err) < 0 ? cli_report(&err) : 0;
}

int mcli_add_opt(void *files, const char *opt, const char *arg)
{
	return mcli_add(files, arg);
}

void mcli_files_free(mcli_files *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->path[i]);
	free(f->path);
	f->path = NULL;
	f->n = 0;
}

void mcli_kaggle_id(const char *path, int kind, const char *name, char *buf, size_t cap,
		    int *guessed)
{
	ds_entry e;

	memset(&e, 0, sizeof e);
	dataset_classify_path(path, &e);
	*guessed = !e.collection[0] || (kind == HS_KIND_LAYOUT && !e.search[0]);
	if (kind == HS_KIND_LAYOUT)
		snprintf(buf, cap, "layout:%s:%s:%s", e.collection[0] ? e.collection : "xla",
			 e.search[0] ? e.search : "default", name);
	else
		snprintf(buf, cap, "tile:%s:%s", e.collection[0] ? e.collection : "xla", name);
}

static int measured_file(const char *path, int64_t n, uint8_t *measured, double **runtime, hs_error *err)
{
	FILE *f = fopen(path, "r");
	char line[512];
	long lineno = 0;
	double *rt;

	if (!f)
		return hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
	if (hs_input_note_fd(fileno(f), path, err) < 0) {
		fclose(f);
		return -1;
	}
	if (!(rt = malloc((size_t)(n ? n : 1) * sizeof *rt))) {
		fclose(f);
		return hs_fail(err, HS_ENOMEM, "out of memory reading the measured configs");
	}
	for (int64_t i = 0; i < n; i++)
		rt[i] = NAN;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		long long c;
		double v;

		lineno++;
		p += strspn(p, " \t");
		if (*p == '\n' || *p == '\r' || *p == '\0' || *p == '#')
			continue;
		errno = 0;
		c = strtoll(p, &end, 10);
		if (end == p || *end != ',') {
			if (lineno == 1)
				continue; /* a header */
			goto bad;
		}
		p = end + 1;
		v = strtod(p, &end);
		if (end == p || errno || !(v > 0) || !isfinite(v) || strspn(end, " \t\r\n") != strlen(end))
			goto bad;
		if (c < 0 || c >= n) {
			fclose(f);
			free(rt);
			return hs_fail(err, HS_EUSAGE, "%s:%ld: config %lld is out of range 0..%lld", path, lineno, c,
				       (long long)n - 1);
		}
		measured[c] = 1;
		rt[c] = v;
	}
	fclose(f);
	*runtime = rt;
	return 0;
bad:
	fclose(f);
	free(rt);
	return hs_fail(err, HS_EUSAGE, "%s:%ld: expected CONFIG,RUNTIME_NS (a config index and a positive runtime)",
		       path, lineno);
}

/* --measured's list: the configs of a range marked, within 0..n - 1. */
struct marks {
	int64_t n;
	uint8_t *measured;
	hs_error *err;
};

static int mark(void *ctx, int64_t a, int64_t b)
{
	struct marks *m = ctx;

	if (b >= m->n)
		return hs_fail(m->err, HS_EUSAGE, "--measured: config %lld is out of range 0..%lld", (long long)b,
			       (long long)m->n - 1);
	memset(m->measured + a, 1, (size_t)(b - a + 1));
	return 0;
}

int mcli_measured(const char *arg, int64_t n, uint8_t *measured, double **runtime, hs_error *err)
{
	struct stat st;
	struct marks m = {n, measured, err};
	const char *at;
	size_t len;

	*runtime = NULL;
	memset(measured, 0, (size_t)n);
	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		return measured_file(arg, n, measured, runtime, err);
	/* A path (it has a '/' or a '.', as in main.c) that is missing or no
	 * file: bad input, not bad usage. */
	if (strpbrk(arg, "/."))
		return hs_fail(err, HS_EDATA, "%s: %s", arg,
			       stat(arg, &st) != 0 ? strerror(errno) : "not a file of measured configs");
	int item = cli_id_list(arg, mark, &m, &at, &len);
	if (item <= 0)
		return item;
	if (!len)
		return hs_fail(err, HS_EUSAGE,
			       "--measured: '%s' is neither a file nor a list of configs (e.g. 0,5,10-19): "
			       "an empty item", arg);
	return hs_fail(err, HS_EUSAGE,
		       "--measured: '%s' is neither a file nor a list of configs (e.g. 0,5,10-19) near '%s'", arg, at);
}

void mcli_warn_seen(const char *cmd, const hs_model *m, const hs_graph *g, const char *path, const char *what)
{
	int saw = model_saw(m, g);

	if (saw)
		fprintf(stderr, "hloscope %s: warning: %s %s: %s says little about new graphs\n", cmd, path,
			saw == 1 ? "was in this model's training set"
				 : "was one of this model's --valid files (they chose its gate and best epoch)", what);
}
