/* cmd_explore.c - `hloscope PATH` and `hloscope explore PATH [--model FILE]`:
 * the terminal explorer (tui/).
 *
 * Environment for tests and benchmarks:
 *   HLOSCOPE_SCRIPT=FILE  keys and commands from FILE, no terminal needed;
 *                         `:save-display FILE` lines write the screen as text
 *                         (tui/script.c has the format).  The screen is
 *                         COLUMNS x LINES.
 *   HLOSCOPE_MASK_MODEL=1 numbers from the cost model and predictions print
 *                         as "#" (screen goldens that a model change leaves alone)
 *   HLOSCOPE_BENCH=FILE   appends timings (time to the first full screen,
 *                         then one line per key) to FILE
 *   HLOSCOPE_KEYS=KEYS    keys to play in the terminal instead of reading the
 *                         keyboard ("jjG/conv<Enter>"; names in angle
 *                         brackets: Enter Tab Esc BS Up Down Left Right PgUp
 *                         PgDn Home End C-d C-u C-l Space lt gt), after which
 *                         the explorer quits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/tui.h"

static void explore_usage(FILE *out)
{
	fprintf(out, "usage: hloscope PATH [--model FILE] [--data FILE]... [--data-merge HOW]\n"
		     "       hloscope explore PATH [--model FILE] [--data FILE]... [--data-merge HOW]\n"
		     "PATH is a .npz graph or a folder of them.  In the explorer, ? lists the keys.\n"
		     "  --data-merge HOW     an instruction named twice in a data file (--data, :data)\n"
		     "                       is an error, or merged: sum (numbers add up), first\n"
		     "                       or last value\n");
}

int cmd_explore(int argc, char **argv)
{
	tui_options o;
	hs_error err = {0};
	int rc, merge;

	tui_clock_ms();
	memset(&o, 0, sizeof o);
	o.data_opts.merge_words = CLI_DATA_MERGE_WORDS " on the command line";
	const char **data = calloc((size_t)argc + 1, sizeof *data);
	if (!data)
		return cli_oom("reading the arguments");
	o.data = data;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			explore_usage(stdout);
			free(data);
			return 0;
		} else if (!strcmp(argv[i], "--model")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hloscope explore: --model needs a file\n");
				explore_usage(stderr);
				free(data);
				return 1;
			}
			o.model_path = argv[++i];
		} else if (!strcmp(argv[i], "--data")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hloscope explore: --data needs a file\n");
				explore_usage(stderr);
				free(data);
				return 1;
			}
			data[o.ndata++] = argv[++i];
		} else if (!strcmp(argv[i], "--data-merge")) {
			if (i + 1 >= argc || cli_data_merge("explore", argv[i + 1], &merge) != 0) {
				if (i + 1 >= argc) {
					fprintf(stderr, "hloscope explore: --data-merge needs sum, first or last\n");
					explore_usage(stderr);
				}
				free(data);
				return 1;
			}
			o.data_opts.merge = (overlay_merge)merge;
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hloscope explore: unknown option '%s'\n", argv[i]);
			explore_usage(stderr);
			free(data);
			return 1;
		} else if (o.path) {
			fprintf(stderr, "hloscope explore: one PATH only ('%s' is extra)\n", argv[i]);
			explore_usage(stderr);
			free(data);
			return 1;
		} else {
			o.path = argv[i];
		}
	}
	if (!o.path) {
		fprintf(stderr, "hloscope explore: give a .npz file or a folder\n");
		explore_usage(stderr);
		free(data);
		return 1;
	}
	o.bench_log = getenv("HLOSCOPE_BENCH");
	if (o.bench_log && !*o.bench_log)
		o.bench_log = NULL;
	o.keys = getenv("HLOSCOPE_KEYS");
	o.script = getenv("HLOSCOPE_SCRIPT");
	if (o.script && !*o.script)
		o.script = NULL;
	const char *mask = getenv("HLOSCOPE_MASK_MODEL");
	o.mask_model = mask && *mask && strcmp(mask, "0") != 0;
	cli_raw_stdout(); /* ncurses drives the terminal; the explorer escapes what it draws */
	rc = tui_run(&o, &err);
	free(data);
	if (rc < 0)
		return cli_report(&err);
	return rc;
}
