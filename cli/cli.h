/* cli.h - the one table of hloscope's subcommands, and what they share.
 *
 * X(name, function, usage, summary).  main.c generates dispatch and the usage
 * text from it; each command lives in cli/cmd_<name>.c, reads its options
 * with cli_parse (cli/opts.h) and returns the exit status: 0 ok, 1 bad usage
 * or query error, 2 bad data, 3 out of memory.
 */
#ifndef HS_COMMANDS_H
#define HS_COMMANDS_H

#define HS_COMMANDS(X)                                                                     \
	X("info", cmd_info, "PATH [--json] [--data FILE]... [--data-merge HOW] [--machine NAME]", "summary of a graph file or of a dataset folder") \
	X("dump", cmd_dump, "FILE ARRAY... [--limit N]", "print arrays' values, C order")      \
	X("check", cmd_check, "PATH...", "decompress and validate everything")                 \
	X("convert", cmd_convert, "IN -o OUT.npz|DIR", "an HLO module (.pb, HLO text) into a dataset .npz (--help)") \
	X("synth", cmd_synth, "DIR [--seed N]", "write the synthetic demo dataset")                 \
	X("train", cmd_train, "PATH... -o MODEL [--epochs N] [--seed S] [--threads N] [--valid PATH]", "train the learned config rankers (layout and tile heads)") \
	X("eval", cmd_eval, "PATH... [--model MODEL] [--analytic-terms LIST] [--json]", "Kendall tau, OPA and top-k slowdown errors of a model") \
	X("predict", cmd_predict, "FILE... [--model MODEL] [--csv|--json] [--top N] [--machine NAME]", "score and rank every config (--csv: Kaggle submission)") \
	X("fit", cmd_fit, "FILE --train-fraction F | --measured LIST|CSV [--seed S] [--top K] [--json]", "fit on some of one graph's measured configs, rank the rest") \
	X("dot", cmd_dot, "FILE REGION -o OUT|--text [-T FMT] [--heat FIELD] [--data FILE] [--data-merge HOW] [--limit N] [--collapse MODE] [--force] [--machine NAME]", "draw a region with Graphviz (--help)") \
	X("compare", cmd_compare, "FILE A B [--json] [--all] [--model M] [--file2 F] [--sort contribution|id] [--no-predict] [--machine NAME]", "two configs side by side (A, B: index, best, worst, default)") \
	X("diff", cmd_diff, "A B [--json|--text] [--names-only] [--limit N] [--machine NAME]", "what changed between two HLO modules: matched, changed and unmatched instructions (a terminal: the explorer's diff view)") \
	X("query", cmd_query, "PATH ['QUERY'...] [-f SCRIPT] [--csv|--json] [--model M] [--data FILE]... [--data-merge HOW] [--time] [--threads N] [--skip-bad] [--machine NAME]", "run queries on a file or every graph of a folder; try QUERY = help") \
	X("repl", cmd_repl, "FILE [--model M] [--csv|--json] [--no-history] [--machine NAME]", "interactive query prompt with history and completion") \
	X("profile", cmd_profile, "MODULE PROFILE [--json] [--measured-step TIME] [--machine NAME]", "the analytic estimate against a measured per-instruction profile: Spearman, share within 2x, step") \
	X("explore", cmd_explore, "PATH [--model M] [--data FILE]... [--data-merge HOW] [--machine NAME]", "the explorer, as `hloscope PATH`")

#define HS_DECLARE(name, fn, usage, summary) int fn(int argc, char **argv);
HS_COMMANDS(HS_DECLARE)
#undef HS_DECLARE

/* The usage line of command NAME (after "hloscope NAME "), or NULL. */
const char *cli_command_usage(const char *name);
/* `hloscope --version`: version and libraries (cli/version.c). */
#include <stdio.h>
void cli_version(FILE *out);

/* Shared helpers for commands (cli/util.c). */
#include "base/error.h"
/* Nothing read from a file reaches the terminal raw: main() replaces
 * stdout and stderr by escaping streams (base/escape.h, text mode: control
 * characters, C1 and invalid UTF-8 shown as \x1b..., lines and tabs kept)
 * over the real ones, before any command runs.  -1 when out of memory. */
int cli_escape_output(void);
/* Gives stdout back raw (the escaping one flushed and closed) for what
 * drives the terminal itself: the explorer, the REPL.  Returns stdout. */
FILE *cli_raw_stdout(void);
/* The real stderr, for a progress line's own \r and ESC [K (what it
 * names escaped by the caller); stderr itself stays escaping. */
FILE *cli_raw_stderr(void);
/* Where data (CSV) goes: exact on a pipe or a file (stdout given back
 * raw), escaped like everything else on a terminal.  Returns stdout. */
FILE *cli_data_stdout(void);
/* Prints "hloscope CMD: MSG" to stderr (CMD as set by cli_set_command();
 * "hloscope: MSG" before that) and returns err->status (2 if unset).  A
 * missing path reads "hloscope CMD: PATH: No such file or directory" in
 * every command. */
int cli_report(const hs_error *err);
/* The subcommand cli_report() and cli_oom() name (main.c sets it before
 * dispatching; borrowed). */
void cli_set_command(const char *name);
/* Prints "hloscope CMD: out of memory WHAT" and returns 3 (HS_ENOMEM). */
int cli_oom(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "hloscope CMD: MSG" and the command's usage line; returns 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Lays each file of --data over the session's graph in order
 * (query_session_load_data), an instruction named twice merged as
 * --data-merge says; when some of a file's rows name no instruction, says
 * so on stderr ("hloscope CMD: FILE: 812 rows, ...; 12 rows name no
 * instruction: a, b, ..."). 0, or the exit status after cli_report. */
struct query_session;
struct cli_data;
int cli_load_data(struct query_session *s, const struct cli_data *d);
/* The model of --model `path` into *m (NULL when path is NULL): 0, or the
 * exit status after cli_report. */
struct hs_model;
int cli_model_load(const char *path, struct hs_model **m);
/* How an instruction named twice in a --data file is merged, for messages. */
#define CLI_DATA_MERGE_WORDS "--data-merge sum|first|last"
/* A list of whole numbers and ranges, "1,5,9-12": items N or N-M (0 <= N <=
 * M, at most 1e8 apart, read whole by base/parse.h), one comma between
 * them; fn(ctx, N, M) is called for each in order.  0; the number (1-based)
 * of the first bad item, *at and *len where it is (an empty item: len 0);
 * or -1 when fn returned -1. */
#include <stdint.h>
int cli_id_list(const char *s, int (*fn)(void *ctx, int64_t a, int64_t b), void *ctx, const char **at,
		size_t *len);
/* 1 when `path` is FILE#N or FILE#NAME, one module of a file of several:
 * no file by its whole name, but a regular file FILE before its last '#'
 * (into file[cap]); else 0.  Every command that takes a graph takes it. */
int cli_module_file(const char *path, char *file, size_t cap);
/* Notes `path` as a file the command is about to read (base/inputs.h; a
 * FILE#N whose whole name is no file notes FILE), so that
 * cli_check_output() and the writer refuse it as an output.  0, or the
 * exit status (3, out of memory) after printing why. */
int cli_note_input(const char *path);
/* The output `out` (the value of `opt`, "-o"), checked before the work
 * rather than after it: an empty name is a usage error ("-o needs a file
 * name", exit 1); what the writer (base/afile.h) would refuse, a device, a
 * folder, a read-only file or one of the noted inputs, is reported now
 * (exit 2).  0 when it may be written. */
int cli_check_output(const char *cmd, const char *opt, const char *out);

#endif
