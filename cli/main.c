/* main.c - hloscope's entry point: dispatches to the subcommands in
 * commands.h.  `hloscope PATH` opens the explorer. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/progress.h"
#include "cli/cli.h"
#include "loader/hlo_text.h"
#include "model/machine.h"
#include "query/query.h"

struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
	const char *summary;
};

#define HS_ENTRY(name, fn, usage, summary) {name, fn, usage, summary},
static const struct command commands[] = {HS_COMMANDS(HS_ENTRY)};
#undef HS_ENTRY
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
	fprintf(out, "usage: hloscope PATH                open the explorer on a file or folder\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "       hloscope %s %s\n           %s\n", commands[i].name,
			commands[i].usage, commands[i].summary);
	fprintf(out, "       hloscope --version\n"
		     "Machines for --machine (the analytic estimate's; docs/model.md):\n");
	int n;
	const cost_machine *m = machine_table(&n);
	for (int i = 0; i < n; i++)
		fprintf(out, "  %-9s %s\n", m[i].name, m[i].what);
	fprintf(out, "See `hloscope COMMAND --help`, hloscope(1) and README.md.\n");
}

const char *cli_command_usage(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return commands[i].usage;
	return NULL;
}

/* argv[1] is neither a command nor an existing path: a path that is
 * missing (it has a '/' or a '.') is bad data, as in every command; a word
 * is a mistyped command.  `e` is stat's errno. */
static int not_a_command(const char *arg, int e)
{
	if (arg[0] != '-' && strpbrk(arg, "/.")) {
		fprintf(stderr, "hloscope: %s: %s\n", arg, strerror(e));
		return 2;
	}
	const char *names[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	const char *sug = query_suggest(arg, names, NCOMMANDS);
	fprintf(stderr, "hloscope: '%s' is neither a command nor a file or folder", arg);
	if (sug)
		fprintf(stderr, " (did you mean '%s'?)", sug);
	fputc('\n', stderr);
	usage(stderr);
	return 1;
}

/* A text input is read through a read-only mapping of the file
 * (loader/hlo_text.c): if another program truncates the file while it is
 * mapped, reading the pages past its new end is a SIGBUS.  Say so and
 * stop as for bad data (nothing is written half: outputs go through a
 * temporary file). */
static void on_input_shrank(int sig)
{
	static const char msg[] =
		"hloscope: an input file shrank while it was being read (rewritten by another program?); "
		"stopped\n";
	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
		/* nothing more to do */
	}
	_exit(2);
}

/* Long work (reading a big module, costing it) says how far it is on
 * stderr when that is a terminal, on one line cleared when it is done;
 * Ctrl-C stops it as it stops any command. */
static int show_progress(void *ctx, const char *what, double done, double total)
{
	FILE *err = cli_raw_stderr(); /* the line's own \r and ESC [K, what it names escaped */
	(void)ctx;
	if (!what) {
		fputs("\r\033[K", err);
	} else {
		fputs("\rhloscope: ", err);
		hs_fputs_escaped(err, what, HS_ESC_NAME);
		if (total > 0)
			fprintf(err, " %3.0f%%\033[K", 100 * done / total);
		else
			fputs("...\033[K", err);
	}
	fflush(err);
	return 0;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
	static hs_progress progress = {.fn = show_progress, .after = 0.5};
	/* HLOSCOPE_THREADS=1: one thread reads a big module (on a machine
	 * busy with other work two gain nothing) */
	const char *threads = getenv("HLOSCOPE_THREADS");
	if (threads && strcmp(threads, "1") == 0)
		hlo_text_set_split_min(0);
	if (cli_escape_output() != 0)
		return cli_oom("setting up the output");
	if (isatty(STDERR_FILENO))
		hs_progress_push(&progress);
	struct sigaction bus;
	memset(&bus, 0, sizeof bus);
	bus.sa_handler = on_input_shrank;
	sigemptyset(&bus.sa_mask);
	sigaction(SIGBUS, &bus, NULL);
	int status = run(argc, argv);
	if (status == HS_ENOMEM) {
		/* Out of memory: end without the libraries' exit handlers, which
		 * may need memory there is none of (glibc ends the process with
		 * status 127 when a library's thread-local data cannot be made
		 * then: libstdc++'s, which PNG's gd plugin loads). */
		fflush(NULL);
		_exit(status);
	}
	return status;
}

/* The command of argv[1], or the explorer on a path; its exit status. */
static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		cli_version(stdout);
		return 0;
	}
	/* `hloscope help CMD` is `hloscope CMD --help` */
	char *help[] = {argc > 2 ? argv[2] : NULL, "--help", NULL};
	int as_help = !strcmp(argv[1], "help");
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, argv[as_help ? 2 : 1]) == 0) {
			cli_set_command(commands[i].name);
			return as_help ? commands[i].fn(2, help) : commands[i].fn(argc - 1, argv + 1);
		}
	if (as_help)
		return not_a_command(argv[2], ENOENT);

	struct stat st;
	int e = ENOENT;
	if (argv[1][0] != '-') {
		if (stat(argv[1], &st) == 0)
			return cmd_explore(argc, argv);
		e = errno;
		char file[PATH_MAX];
		if (cli_module_file(argv[1], file, sizeof file))
			return cmd_explore(argc, argv);
	}
	return not_a_command(argv[1], e);
}
