/* help.c - `hloscope COMMAND --help`: the options of each command.
 *
 * The usage line and the one-line summary come from the command table
 * (commands.h); this file adds what each option means.  A command without
 * an entry here (dot, explore) prints its own help. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

struct help {
	const char *name;
	const char *text;
};

static const struct help helps[] = {
	{"info",
	 "PATH is a .npz graph or a folder; for a folder, one row per graph, read\n"
	 "from the array headers only.\n"
	 "  --json               one JSON object instead of the text summary\n"
	 "  --data FILE          lay a data file over the graph (a CSV 'name,FIELD,...'\n"
	 "                       or JSON {name: {field: value}} or [{\"name\": name,\n"
	 "                       field: value}]; repeatable): its rows, the\n"
	 "                       instructions matched, each field's sum\n"
	 "  --data-merge HOW     an instruction named twice in a data file is an error,\n"
	 "                       or merged: sum (numbers add up), first or last value\n"},
	{"dump",
	 "Prints each ARRAY of FILE in C order whatever the file's order, one row of\n"
	 "the last axis per line: integers exactly, floats with %.9g.  ARRAY may\n"
	 "carry its .npy suffix.  With several ARRAYs, each one's lines follow a\n"
	 "line \"== ARRAY\".\n"
	 "  --limit N            print only the first N lines\n"},
	{"check",
	 "Decompresses and validates every file (a folder: every .npz below it):\n"
	 "CRCs, sizes, shapes and the graph invariants.  Prints \"OK FILE\" or\n"
	 "\"FILE: problem\" per file; exits 0 only when every file is sound, 2\n"
	 "otherwise.  No options.\n"},
	{"synth",
	 "Writes a small synthetic TpuGraphs-shaped dataset to DIR (tile and layout\n"
	 ".npz files, a README with the runtime formulas).  DIR is replaced only if\n"
	 "it is empty or a previous synth output.\n"
	 "  --seed N             the random seed (same seed, same bytes; default\n"
	 "                       20230813); also --seed=N\n"},
	{"train",
	 "Trains the learned config rankers (a layout head and a tile head) on every\n"
	 "labeled .npz in PATH... (files or folders) and writes them to MODEL.  Each\n"
	 "head corrects the analytic estimate; after training, the correction is\n"
	 "scaled by the gate (1, 1/2, 1/4 or 0) that ranks the validation configs\n"
	 "best, 0 leaving the estimate alone.\n"
	 "  -o, --output MODEL   the model file to write (required); checked before\n"
	 "                       training: never a file trained on, a device or a\n"
	 "                       read-only file (exit 2)\n"
	 "  --epochs N           passes over the data (default 40)\n"
	 "  --seed S             random seed (default 1)\n"
	 "  --threads N          worker threads, 1-256 (default 1; same result)\n"
	 "  --valid PATH         held-out files for the validation tau and the gate\n"
	 "                       (default: 15% of each training graph's configs,\n"
	 "                       which says nothing of graphs not trained on)\n"
	 "  --hidden N           hidden width, 4-512 (default 64)\n"
	 "  --layers N           message-passing layers, 1-4 (default 2)\n"
	 "  --cfg-hops N         steps kept around configurable nodes, 0-16 (default 3)\n"
	 "  --batch N            configs per step, 2-4096 (default 32)\n"
	 "  --max-configs N      configs kept per graph (default 20000, 0: all)\n"
	 "  --lr X               learning rate in (0, 1] (default 0.002)\n"
	 "  --loss hinge|listmle the ranking loss (default hinge)\n"
	 "  -q, --quiet          no progress lines\n"},
	{"eval",
	 "Kendall's tau (also with ties broken at random) and ordered-pair accuracy\n"
	 "(layout files), top-1/5/10 slowdown errors (tile files) on every labeled\n"
	 ".npz in PATH...\n"
	 "  -m, --model MODEL    a model written by train (default: the analytic\n"
	 "                       estimate)\n"
	 "  --analytic-terms LIST  the analytic estimate with only these terms:\n"
	 "                       mxu, padding, copy, overhead, relayout,\n"
	 "                       mxu-operands (comma separated), all (the default)\n"
	 "                       or none\n"
	 "  --json               one JSON object\n"},
	{"predict",
	 "Scores and ranks every config of each FILE (or of every .npz in a folder):\n"
	 "the predictor, its track record on the file, predicted times with their\n"
	 "unit, ties marked =.  On a file with measured runtimes the times are\n"
	 "calibrated on them (the analytic estimate times the median ratio of\n"
	 "measured to estimated; a learned ranker's scores through a monotone map);\n"
	 "elsewhere the analytic estimate's own, uncalibrated (--json: time_kind).\n"
	 "  -m, --model MODEL    a model written by train (default: the analytic\n"
	 "                       estimate)\n"
	 "  --csv                the Kaggle submission format (ID,TopConfigs)\n"
	 "  --json               one object per file with every score\n"
	 "  --top N              list only the N best configs\n"},
	{"fit",
	 "The autotuning case: fits on some of FILE's measured configs and reports\n"
	 "how well it ranks the rest: the analytic estimate plus a kernel ridge\n"
	 "residual, or the estimate alone when the measurements do not clearly\n"
	 "improve on it (cross-validated).  One of --train-fraction or --measured.\n"
	 "  --train-fraction F   fit on a random fraction, between 0 and 1\n"
	 "  --measured LIST|CSV  fit on these configs: indices and ranges (0,5,10-19),\n"
	 "                       or a file of config,runtime_ns lines for a graph\n"
	 "                       whose other runtimes are unknown\n"
	 "  --seed S             which configs are drawn (default 1)\n"
	 "  --top K              list the K best-ranked configs not measured yet\n"
	 "  --json               one JSON object, with every held-out config\n"},
	{"compare",
	 "Two configs of FILE side by side: the configurable nodes whose layouts\n"
	 "differ and what that costs.  A and B are config indices, best, worst or\n"
	 "default.\n"
	 "  --json               one JSON object\n"
	 "  --all                every configurable node, not only differing ones\n"
	 "  --model M            predictions from a model written by train\n"
	 "  --file2 F            B is a config of F, which holds the same graph\n"
	 "  --sort contribution|id   row order (default id)\n"
	 "  --no-predict         no predicted runtimes (faster on large graphs)\n"},
	{"diff",
	 "Matches the instructions of two HLO modules (text, HloModuleProto, FILE#N\n"
	 "of a raw TpuGraphs .pb): by name, then by structure (exact subgraph\n"
	 "fingerprints from the parameters and from the roots), then through\n"
	 "matched neighbours; an instruction that moved into a fusion body is found\n"
	 "there.  Prints the totals side by side, the changed pairs (opcode, shape,\n"
	 "layout, operands, attributes, computation) largest cost change first, the\n"
	 "instructions only in A and only in B, and per-computation and per-opcode\n"
	 "summaries.  Exit 0 whether or not anything changed.  On a terminal,\n"
	 "without options, it opens the explorer's diff view instead: the summary,\n"
	 "the computations, both modules' instructions side by side with matched\n"
	 "ones on one row (piped, it prints the report).\n"
	 "  --text               the text report, even on a terminal\n"
	 "  --json               one JSON object: matched, unmatched_a, unmatched_b,\n"
	 "                       changed (a, b, changes), summary\n"
	 "  --names-only         match by names only (no structure; the report)\n"
	 "  --limit N            rows per list in the text report (default 20;\n"
	 "                       0: all)\n"},
	{"query",
	 "Runs the QUERY arguments and the lines of each SCRIPT on PATH, in order;\n"
	 "with neither, the lines of stdin.  PATH is a graph file, or a folder: then\n"
	 "every graph under it answers and the results are combined (rows carry\n"
	 "file, collection and split; `graphs` queries the graphs themselves).\n"
	 "`hloscope query FILE help` lists the language.\n"
	 "  -f SCRIPT            run the lines of SCRIPT\n"
	 "  --csv, --json        output format (default: a table; also --table)\n"
	 "  --model M            predictions from a model written by train\n"
	 "  --data FILE          lay a data file over the graph (a CSV 'name,FIELD,...'\n"
	 "                       or JSON {name: {field: value}} or [{\"name\": name,\n"
	 "                       field: value}]; repeatable): its columns are node\n"
	 "                       fields, summed by layers and computations; rows\n"
	 "                       naming no instruction are listed\n"
	 "  --data-merge HOW     an instruction named twice in a data file is an error,\n"
	 "                       or merged: sum (numbers add up), first or last value\n"
	 "  --time               print each query's time to stderr\n"
	 "  --threads N          folders: graphs read at once (default: the CPUs)\n"
	 "  --skip-bad           folders: list unreadable files and skip them\n"
	 "                       without failing (otherwise exit 2)\n"
	 "  --progress           folders: a progress line a second on stderr (by\n"
	 "                       default only on a terminal, after a second)\n"
	 "  --no-progress        folders: never a progress line\n"
	 "  --                   the arguments after it are queries\n"},
	{"repl",
	 "The query language at a readline prompt with history and completion;\n"
	 "type help inside.  History: $XDG_STATE_HOME/hloscope/history.\n"
	 "  --model M            predictions from a model written by train\n"
	 "  --csv, --json        output format (default: a table)\n"
	 "  --no-history         neither read nor write the history file\n"},
};

const char *cli_command_help(const char *name)
{
	for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
		if (!strcmp(helps[i].name, name))
			return helps[i].text;
	return NULL;
}
