/* cmd_synth.c - `hloscope synth DIR [--seed N]`: writes the demo dataset. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/plural.h"
#include "base/units.h"
#include "cli/cli.h"
#include "synth/synth.h"

int cmd_synth(int argc, char **argv)
{
	const char *dir = NULL;
	unsigned long long seed = SYNTH_DEFAULT_SEED;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: hloscope synth DIR [--seed N]\n"
			       "Writes a small synthetic TpuGraphs-shaped dataset to DIR (tile and\n"
			       "layout .npz files, README with the runtime formulas).  The same seed\n"
			       "gives the same bytes; the default seed is %u.  DIR is replaced only\n"
			       "if it is empty or a previous synth output.\n",
			       SYNTH_DEFAULT_SEED);
			return 0;
		}
		if (!strcmp(a, "--seed")) {
			if (i + 1 >= argc)
				return cli_usage_error("synth", "--seed needs a value");
			val = argv[++i];
		} else if (!strncmp(a, "--seed=", 7)) {
			val = a + 7;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("synth", "unknown option '%s'", a);
		} else if (dir) {
			return cli_usage_error("synth", "one folder only ('%s' and '%s')", dir, a);
		} else {
			dir = a;
			continue;
		}
		long long s = cli_parse_count(val);
		if (s < 0)
			return cli_usage_error("synth", "--seed wants a non-negative integer, not '%s'",
					       val);
		seed = (unsigned long long)s;
	}
	if (!dir)
		return cli_usage_error("synth", "missing the output folder");

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
	int rc = synth_write(dir, seed, &rep, &err);
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
