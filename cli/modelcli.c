/* modelcli.c - see modelcli.h. */
#include "cli/modelcli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader/dataset.h"
#include "loader/graph.h"

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
	ds_index *ix;

	if (stat(arg, &st) != 0)
		return hs_fail(err, HS_EDATA, "%s: %s", arg, strerror(errno));
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
