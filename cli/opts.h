/* opts.h - a command's options as one table: cli_parse() reads the command
 * line from it and prints `hloscope COMMAND --help` from it, so an option's
 * explanation lives beside its definition.
 *
 *	const char *model = NULL;
 *	int json = 0;
 *	long long top = -1;
 *	const cli_opt opts[] = {
 *		CLI_MODEL_OPT(&model),
 *		{"--json", NULL, CLI_FLAG, &json, .help = "one JSON object"},
 *		{"--top", "N", CLI_INT64, &top, .help = "list only the N best"},
 *		{0}};
 *	const cli_spec spec = {"predict", "Scores every config ...", opts, -1};
 *	cli_args args;
 *	int rc = cli_parse(&spec, argc, argv, &args);
 *	if (rc)
 *		return rc < 0 ? 0 : rc;    (-1: --help was printed)
 *
 * Every usage error prints "hloscope CMD: MSG" and the usage line and makes
 * the exit status 1 (cli_usage_error): "--top needs a value", "--top needs
 * a number, not '3x'", "--top must be 0 or more, not -1", "--sort must be
 * contribution or id, not 'x'", "unknown option '--x' (see hloscope CMD
 * --help)", "unexpected argument 'x'".  A value may follow its option as
 * the next argument or after '=' (--seed=5); "--" ends the options; -h or
 * --help anywhere before it prints the help and nothing else is done.
 */
#ifndef HS_CLI_OPTS_H
#define HS_CLI_OPTS_H

typedef enum cli_kind {
	CLI_TEXT,   /* no option: .help is a line of the help text (a heading) */
	CLI_FLAG,   /* int: set to 1 */
	CLI_SET,    /* int: set to .val */
	CLI_STR,    /* const char *: the value (the last one given) */
	CLI_PAIR,   /* const char *[2]: the next two arguments */
	CLI_STRS,   /* cli_strs: every value, in order (repeatable) */
	CLI_INT,    /* int: a whole number (base/parse.h) in .min...max */
	CLI_INT64,  /* an 8-byte integer (int64_t, long long, ...), the same */
	CLI_NUMBER, /* double: a finite number */
	CLI_WORD,   /* int (or an enum): one of .words, as its index or .vals[index] */
	CLI_CALL,   /* .call(dst, option, value): 0, or the exit status after a message */
} cli_kind;

typedef struct cli_opt {
	const char *name;  /* "--model", or with its short form "-m|--model" */
	const char *arg;   /* the value's name in the help ("FILE"); NULL for a flag */
	cli_kind kind;
	void *dst;
	const char *help;  /* what it does; '\n' starts a line of the help */
	long long min, max; /* CLI_INT, CLI_INT64: the range (max 0: no upper bound) */
	int val;           /* CLI_SET */
	const char *const *words; /* CLI_WORD: NULL-terminated */
	const int *vals;   /* CLI_WORD: the value of each word (NULL: its index) */
	int (*call)(void *dst, const char *opt, const char *value);
	int sub;           /* indented under the option before it in the help */
} cli_opt;

/* CLI_STRS: the values, argv's own strings (free v). */
typedef struct cli_strs {
	const char **v;
	int n;
} cli_strs;

typedef struct cli_spec {
	const char *name;  /* the command, as in HS_COMMANDS */
	const char *about; /* the help's paragraph before the options */
	const cli_opt *opts; /* ends with {0} */
	int max_args;      /* operands at most: 0..N, -1 any number */
	const char *extra; /* said after "unexpected argument 'x'": "one FILE only" */
	/* When set, each operand goes here, in order with the options, instead
	 * of into cli_args: 0, or the exit status after a message. */
	int (*operand)(void *ctx, const char *arg);
	void *operand_ctx;
} cli_spec;

/* The operands (the arguments that are not options), in order: argv's own
 * strings, moved to the front of argv. */
typedef struct cli_args {
	char **v;
	int n;
} cli_args;

/* Parses argv[1..argc) by spec.  0; -1 when -h or --help printed the help;
 * else the exit status after a message (1 bad usage, 3 out of memory, or
 * what a CLI_CALL or the operand function returned). */
int cli_parse(const cli_spec *spec, int argc, char **argv, cli_args *args);

/* The option groups several commands share, defined here once. */
#define CLI_HELP_DATA                                                              \
	"lay your own data over the graph, by instruction\n"                        \
	"name (repeatable): a CSV 'name,FIELD,...', JSON\n"                         \
	"{name: {field: value}} or records [{\"name\": name,\n"                   \
	"field: value}], or an XLA buffer assignment\n"                             \
	"(buffer_bytes); its columns are node fields"
#define CLI_HELP_DATA_MERGE                                                        \
	"an instruction named twice in a data file is an error,\n"                  \
	"or merged: sum (numbers add up), first or last value"
extern const char *const cli_merge_words[];
/* --data FILE... and --data-merge HOW into a cli_data. */
#define CLI_DATA_OPTS(d)                                                           \
	{"--data", "FILE", CLI_STRS, &(d)->files, .help = CLI_HELP_DATA},                   \
	{"--data-merge", "HOW", CLI_WORD, &(d)->merge, .help = CLI_HELP_DATA_MERGE, .words = cli_merge_words}
typedef struct cli_data {
	cli_strs files;
	int merge;         /* an overlay_merge */
} cli_data;

/* --model M (or -m M) into a const char *: load it with cli_model_load. */
#define CLI_MODEL_OPT(p)                                                           \
	{"-m|--model", "MODEL", CLI_STR, (p), .help = "predictions from a model written by train\n" \
	 "(default: the analytic estimate)"}

/* --machine NAME: every graph is costed for that machine (model/machine.h);
 * an unknown name is exit 1 with the list. */
int cli_machine_opt(void *dst, const char *opt, const char *value);
#define CLI_MACHINE_OPT                                                            \
	{"--machine", "NAME", CLI_CALL, NULL, .help = "cost for this machine (hloscope --help lists them;\n" \
	 "default: the dump's GPU, else tpu-v3)", .call = cli_machine_opt}

/* -o OUT into a const char *, checked with cli_check_output before the work;
 * HELP says what is written there. */
#define CLI_OUTPUT_OPT(p, HELP)                                                    \
	{"-o|--output", "OUT", CLI_STR, (p), .help = HELP "\nWritten whole or not at all; never over an input, a\n" \
	 "device, a folder or a read-only file (exit 2)"}

/* --csv, --json and --table into a query_format. */
#define CLI_FORMAT_OPTS(p)                                                         \
	{"--csv", NULL, CLI_SET, (p), .help = "CSV (data: exact bytes on a pipe or file)", .val = QUERY_FMT_CSV}, \
	{"--json", NULL, CLI_SET, (p), .help = "JSON: one document per result", .val = QUERY_FMT_JSON}, \
	{"--table", NULL, CLI_SET, (p), .help = "aligned columns (the default)", .val = QUERY_FMT_TABLE}

#endif
