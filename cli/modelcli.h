/* modelcli.h - helpers shared by the model commands (train, eval, predict,
 * fit): expanding PATH arguments into .npz files and parsing numbers.
 *
 * Ownership: mcli_collect() fills a list freed by mcli_files_free().
 */
#ifndef HS_MODELCLI_H
#define HS_MODELCLI_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct mcli_files {
	char **path;
	int n;
} mcli_files;

/* Appends `arg`: a file as given (FILE#N too), or every graph under a
 * folder (sorted by relative path; files the index could not read are kept,
 * so opening them reports their error).  Returns 0, or -1 with err set (the
 * path does not exist or cannot be read). */
int mcli_collect(mcli_files *f, const char *arg, hs_error *err);
/* mcli_collect into the mcli_files `files`, as an operand function and a
 * CLI_CALL of cli/opts.h: 0, or the exit status after cli_report. */
int mcli_add(void *files, const char *arg);
int mcli_add_opt(void *files, const char *opt, const char *arg);
void mcli_files_free(mcli_files *f);

/* `fit --measured ARG` for a graph of n configs: ARG is a file of
 * "config,runtime" lines (a header line is skipped; runtimes in ns), or a
 * list of config indices and ranges ("0,5,10-19").  Sets measured[i] = 1
 * for each config named; with a file, *runtime becomes a new array [n]
 * (NAN where not measured, freed by the caller), else stays NULL.
 * Errors (HS_EUSAGE) name the file and line, or the list item; a path
 * (an ARG with a '/' or a '.') that is missing or no file, or a file that
 * cannot be read, is HS_EDATA ("m.csv: No such file or directory"). */
int mcli_measured(const char *arg, int64_t n, uint8_t *measured, double **runtime, hs_error *err);

/* A warning on stderr when model m saw graph g (model_saw): a file
 * trained on, or one of its --valid files; `what` names the number that
 * says little then ("its tau"). */
struct hs_model;
struct hs_graph;
void mcli_warn_seen(const char *cmd, const struct hs_model *m, const struct hs_graph *g, const char *path,
		    const char *what);

/* The Kaggle submission ID of a file: "layout:COLLECTION:SEARCH:NAME" or
 * "tile:COLLECTION:NAME", from the folders in its path ("xla" and
 * "default" when the path does not say; *guessed is set then). */
void mcli_kaggle_id(const char *path, int kind, const char *name, char *buf, size_t cap,
		    int *guessed);

#endif
