/* cmd_synth.c - `hloscope synth DIR [--seed N]`: writes the demo dataset. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/plural.h"
#include "base/units.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "synth/synth.h"

int cmd_synth(int argc, char **argv)
{
	unsigned long long seed = SYNTH_DEFAULT_SEED;
	const cli_opt opts[] = {
		{"--seed", "N", CLI_INT64, &seed, .help = "the random seed (same seed, same bytes; default\n"
		 "20230813); also --seed=N"},
		{0}};
	const cli_spec spec = {"synth", "Writes a small synthetic TpuGraphs-shaped dataset to DIR (tile and layout\n"
			       ".npz files, a README with the runtime formulas).  DIR is replaced only if\n"
			       "it is empty or a previous synth output.", opts, 1, .extra = "one folder only"};
	cli_args args;
	int rc = cli_parse(&spec, argc, argv, &args);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (!args.n)
		return cli_usage_error("synth", "missing the output folder");
	const char *dir = args.v[0];

	/* The write takes well under a second: hold Ctrl-C and friends until it
	 * has finished or cleaned up, so no temporary folder is left behind. */
	hs_error err;
	synth_report rep;
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	hs_error_clear(&err);
	rc = synth_write(dir, seed, &rep, &err);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc < 0)
		return cli_report(&err);
	char size[32];
	hs_unit_format(size, sizeof size, HS_U_BYTES, (double)rep.bytes, 1);
	printf("wrote %s: %d tile and %d layout file%s, %lld node%s, %lld config%s, %s "
	       "(seed %llu; synthetic, see %s/README)\n",
	       dir, rep.tile_files, rep.layout_files, hs_s(rep.layout_files), (long long)rep.nodes,
	       hs_s(rep.nodes), (long long)rep.configs, hs_s(rep.configs), size, seed, dir);

	return 0;
}
