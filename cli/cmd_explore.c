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
#include "cli/opts.h"
#include "tui/tui.h"

int cmd_explore(int argc, char **argv)
{
	tui_options o;
	hs_error err = {0};
	cli_data data = {0};

	tui_clock_ms();
	memset(&o, 0, sizeof o);
	const cli_opt opts[] = {
		CLI_MODEL_OPT(&o.model_path),
		CLI_DATA_OPTS(&data),
		CLI_MACHINE_OPT,
		{0}};
	const cli_spec spec = {"explore", "Also `hloscope PATH`.  PATH is a graph file (.npz, a raw .pb, an\n"
			       "HloModuleProto, HLO text, FILE#N of a file of several modules) or a\n"
			       "folder (the dataset view).  In the explorer, ? lists the keys; :data\n"
			       "FILE lays more data over the graph.", opts, 1, .extra = "one PATH only"};
	cli_args args;
	int rc = cli_parse(&spec, argc, argv, &args);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (!args.n)
		return cli_usage_error("explore", "give a graph file or a folder");
	o.path = args.v[0];
	o.data = data.files.v;
	o.ndata = data.files.n;
	o.data_opts.merge = (overlay_merge)data.merge;
	o.data_opts.merge_words = CLI_DATA_MERGE_WORDS " on the command line";
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
	free(data.files.v);
	if (rc < 0)
		return cli_report(&err);
	return rc;
}
