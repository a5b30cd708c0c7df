/* version.c - `hloscope --version`: the version and the libraries this
 * binary was built with (header version) and runs with (library version). */
#include <stdio.h>
#include <string.h>

#include <graphviz_version.h>
#include <gvc.h>
#include <lzma.h>
/* Graphviz's geom.h has a type `box` and curses a function box(); only the
 * version macros are wanted from curses.h. */
#define box curses_box
#include <curses.h>
#undef box
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h> /* its version macros; base/regex.c is what calls it */
#include <readline/readline.h>
#include <zlib.h>

#include "base/regex.h"
#include "cli/cli.h"
#include "loader/zip.h"

#define HLOSCOPE_VERSION "0.1.0"

/* "X" when built and run with the same version, else "X (runs with Y)". */
static void lib_line(FILE *out, const char *lib, const char *built, const char *runs)
{
	fprintf(out, "  %-9s %s", lib, built);
	if (runs && strcmp(built, runs))
		fprintf(out, " (runs with %s)", runs);
	fputc('\n', out);
}

void cli_version(FILE *out)
{
	/* A context with no plugins: gvContext() would load all of them
	 * (fontconfig and pango included) only for the version string. */
	static const lt_symlist_t no_plugins[] = {{NULL, NULL}};
	GVC_t *gvc = gvContextPlugins(no_plugins, 0);

	fprintf(out, "hloscope %s\n", HLOSCOPE_VERSION);
	fprintf(out, "built with:\n");
	char nc[64];
	const char *ncr = curses_version(); /* "ncurses 6.4.20221231" */
	snprintf(nc, sizeof nc, "%s.%d", NCURSES_VERSION, NCURSES_VERSION_PATCH);
	if (!strncmp(ncr, "ncurses ", 8))
		ncr += 8;
	lib_line(out, "ncurses", nc, ncr);
	lib_line(out, "Graphviz", PACKAGE_VERSION, gvc ? gvcVersion(gvc) : NULL);
	lib_line(out, "zlib", ZLIB_VERSION, zlibVersion());
	char rl[32];
	snprintf(rl, sizeof rl, "%d.%d", RL_VERSION_MAJOR, RL_VERSION_MINOR);
	lib_line(out, "readline", rl, rl_library_version);
	char pcre[32], pcre_runs[32];
	snprintf(pcre, sizeof pcre, "%d.%02d", PCRE2_MAJOR, PCRE2_MINOR);
	hs_regex_version(pcre_runs, sizeof pcre_runs);
	lib_line(out, "PCRE2", pcre, pcre_runs);
	/* xz-compressed dumps (loader/xz.h) */
	lib_line(out, "liblzma", LZMA_VERSION_STRING, lzma_version_string());
	/* The library that inflates .npz members ("isa-l 2.30.0" or "zlib
	 * 1.2.13"), so that a bug report says which one read the file. */
	fprintf(out, "inflater: %s\n", zip_inflater_name());
	fprintf(out, "deflater: %s\n", zip_deflater_name());
	/* Whether `~` runs machine code or PCRE2's interpreter: the same
	 * answers, at another speed. */
	fprintf(out, "regex: PCRE2 %s\n", hs_regex_jit() ? "with its JIT compiler" : "interpreted (no JIT)");
	if (gvc)
		gvFreeContext(gvc);
}
