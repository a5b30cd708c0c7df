/* dataset.h - an index of the graphs under a folder, or of the modules of
 * one file.
 *
 * Works on the official npz/{tile,layout}/{xla,nlp}/{default,random}/
 * {train,valid,test} tree (and its raw pb/ twin), on any folder of .npz,
 * .pb or .hlo files, and on one file holding several modules (a TuningData
 * .pb).  For an .npz, building the index reads only the .npy headers
 * (shapes) and the small runtime arrays, never node_config_feat's data; a
 * .pb or .hlo file is read and featurized (without node features).  A file
 * of several modules gives one entry per module: path and rel "FILE#N",
 * name the module's name.
 *
 * Ownership: dataset_scan() returns an index freed by dataset_free().
 */
#ifndef HS_DATASET_H
#define HS_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "dump.h"
#include "graph.h"

typedef struct ds_entry {
	char *path;          /* full path */
	char *rel;           /* path relative to the scanned folder */
	char *name;          /* file name without ".npz" (".pb", ".hlo"); a
	                      * module's name for an entry "FILE#N" */
	hs_kind kind;
	char collection[16]; /* "xla", "nlp" or "" when the path does not say */
	char search[16];     /* "default", "random" or "" */
	char split[16];      /* "train", "valid", "test" or "" */
	int64_t nodes, edges, configs, cfg_nodes;
	int labeled;
	double runtime_min, runtime_max; /* normalized for tile; 0 if unlabeled */
	double ns_min, ns_max;           /* config_runtime as stored (ns), both kinds;
	                                  * 0 if unlabeled */
	/* A file of an XLA dump folder (loader/dump.h): its module
	 * ("module_0042.jit_step"), stage ("before optimizations", "pass 0007
	 * fusion: after priority-fusion", ...) and the stage's place in the
	 * compiler's order; NULL, NULL, 0 for any other file. */
	char *dump_module, *stage;
	int64_t stage_order;
	int64_t fusions;     /* an HLO module's fusion instructions (0 for .npz) */
	int64_t file_bytes;  /* the file's size */
	char *error;         /* non-NULL when the file could not be indexed: what
	                      * went wrong and where inside the file (array, byte);
	                      * the file itself is `path`.  Counts are then 0 and
	                      * kind/collection/search/split are path guesses. */
} ds_entry;

/* A report of an XLA dump folder that is not a module (buffer
 * assignment, memory usage report, GPU target config, autotune results):
 * listed, opened as text. */
typedef struct ds_report {
	char *path, *rel;
	char *dump_module;   /* the module it describes */
	int kind;            /* XD_BUFFER_ASSIGNMENT, XD_MEMORY_REPORT, XD_TARGET_CONFIG
	                      * or XD_AUTOTUNE (dump.h) */
	int64_t bytes;       /* the file's size */
	char *note;          /* what it says, read at the scan ("NVIDIA A100-SXM4-40GB",
	                      * "29 results"), or why it could not be read; NULL
	                      * for buffer assignments and memory usage reports */
} ds_report;

/* A file the scan left out, and why ("not HLO text: it starts with ...",
 * "the same stage as X.txt, which is read"). */
typedef struct ds_left_out {
	char *path, *rel, *why;
	int64_t bytes;
} ds_left_out;

typedef struct ds_index {
	char *root;
	ds_entry *entries;   /* sorted by rel; the files of one dump module by
	                      * stage order */
	size_t n;
	ds_report *reports;  /* XLA dump reports, in the order of rel */
	size_t n_reports;
	ds_left_out *left_out; /* every other file below the folder, in the order of rel */
	size_t n_left_out;
} ds_index;

/* What a file of a folder is to hloscope: read as a graph, listed as a
 * report of an XLA dump, or left out (why says what it is). */
typedef enum ds_file_kind { DS_FILE_GRAPH, DS_FILE_REPORT, DS_FILE_LEFT_OUT } ds_file_kind;

/* The kind of the file at `path` (its name `name`): by the name when it
 * says (an .npz, a .pb or .hlo, an XLA dump's stage or report, dump.h;
 * each also .xz), else by the content as a file given alone is read (HLO
 * text, a protobuf that holds a module; a file that does not is left out).
 * A dump's protobuf stage beside its text twin is left out (the text is
 * read).  *dn is the dump name, or zeroed; why[cap] says why a file is
 * left out.  A ds_file_kind, or -1 with err set when out of memory. */
int dataset_file_kind(const char *path, const char *name, xla_dump_name *dn, char *why, size_t cap, hs_error *err);
/* Names that claim a graph: *.npz (dataset_is_npz_name), *.pb and *.hlo
 * (dataset_is_hlo_name), each also .xz, any case. */
int dataset_is_npz_name(const char *name);
int dataset_is_hlo_name(const char *name);

/* Scans `dir` recursively for the files dataset_file_kind reads as graphs
 * (*.npz, *.pb, *.hlo, every stage of an XLA dump folder, and any file that
 * holds HLO by its content; one entry per stage: a .hlo.pb beside its .txt
 * twin is not read), the reports of dump folders (`reports`) and every
 * other file (`left_out`, with why), walked by base/walk.h: following
 * symbolic links but entering each folder once (so link loops end),
 * skipping hidden files and folders (names starting with '.'); a subfolder
 * that cannot be read or is nested too deep (HS_WALK_MAX_DEPTH) is an entry
 * of its own whose error says so.
 * kind comes from the arrays present (as graph_open decides), collection,
 * search and split from the folder names (of the real path, so scanning
 * npz/tile/xla/train itself still says "xla" and "train").  The shapes are
 * checked against each other; runtimes must be >= 0 and tile normalizers
 * > 0.  Files that fail to index are kept with their error message set; the
 * call fails only if `dir` cannot be read (HS_EDATA) or is not a folder
 * (HS_EUSAGE).  `dir` may also be a file of several modules: then the index
 * holds its modules (a file of one module is refused with HS_EUSAGE, as a
 * file that cannot be read is refused with its error). */
ds_index *dataset_scan(const char *dir, hs_error *err);
/* The same walk without opening the files: path, rel, name and the path's
 * guesses (kind/collection/search/split) only; counts are 0 and error NULL.
 * For readers that open every file anyway (folder queries). */
ds_index *dataset_list(const char *dir, hs_error *err);

/* The report of `kind` (XD_BUFFER_ASSIGNMENT, XD_MEMORY_REPORT) of entry
 * e's dump module in e's folder, or NULL. */
const ds_report *dataset_dump_report(const ds_index *ix, const ds_entry *e, int kind);

/* 1 when `path` opens as a dataset: a folder, or a file of several modules
 * (reads the file, without its runs). */
int dataset_is_collection(const char *path);
void dataset_free(ds_index *ix);

/* Fills kind/collection/search/split guesses from a path alone: folder
 * components (not the file name) equal to tile/layout, xla/nlp,
 * default/random, train/valid/test, ignoring case; the one nearest the file
 * wins.  Strings the path does not name are set to ""; kind is left as it
 * was when the path names neither tile nor layout. */
void dataset_classify_path(const char *path, ds_entry *e);

#endif
