/* hlo_tool.c - the HLO text reader from the command line, for the tests
 * (tests/suites/hlo_text.sh) and bench/hlo_text.sh.
 *
 *   hlo_tool dump FILE          structural dump (hm_file_dump)
 *   hlo_tool print FILE         HLO text (hm_file_print)
 *   hlo_tool roundtrip FILE     print -> parse -> print is a fixed point and
 *                               keeps the structure (exit 1 when not)
 *   hlo_tool stats FILE         per module: computations, instructions, edges
 *                               (the featurizer's rules) and the opcode histogram
 *   hlo_tool bench FILE N       parses the file N times; best and median ms
 *   hlo_tool corrupt FILE N SEED  parses N truncations and N random byte edits
 *   hlo_tool sniff FILE         prints 1 or 0
 *   hlo_tool batch              many dump/print/roundtrip inputs in one process
 *                               (the test runner's protocol, see batch())
 *
 * FILE "-" reads standard input (named "input.hlo" in messages).  A parse
 * error prints the message and a caret under the place, exit status 2;
 * bad usage exits 1.
 *
 * HLO_SPLIT_MIN=BYTES: the size from which a module is read by two threads
 * (hlo_text_set_split_min; 1 splits every module that has two
 * computations), to see that a split read gives what one piece gives.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/cmp.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo_print.h"
#include "loader/hlo_text.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);

	if (!f || !buf) {
		fprintf(stderr, "hlo_tool: cannot read %s\n", path);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		if (r == 0)
			break;
		len += r;
	}
	if (f != stdin)
		fclose(f);
	*n = len;
	return buf;
}

/* Prints a parse error and its caret. */
static void report(FILE *err_out, const hs_error *err, const hlo_text_where *where)
{
	char caret[512];
	fprintf(err_out, "%s\n", err->msg);
	if (hlo_text_caret(where, caret, sizeof caret) > 0)
		fputs(caret, err_out);
}

/* A file through hlo_text_read; standard input through hlo_text_parse. */
static hm_file *load(const char *path)
{
	hs_error err = {0};
	hlo_text_where where = {0};
	hm_file *f;

	if (strcmp(path, "-") == 0) {
		size_t n;
		char *buf = slurp(path, &n);
		if (!buf)
			return NULL;
		f = hlo_text_parse_where(buf, n, "input.hlo", &where, &err);
		free(buf);
	} else {
		f = hlo_text_read_where(path, &where, &err);
	}
	if (!f)
		report(stderr, &err, &where);
	return f;
}

/* Edges as the featurizer makes them: distinct operands, one per call. */
static void stats(FILE *out, const hm_module *m)
{
	int64_t edges = 0, n = 0;
	char **ops = malloc(((size_t)m->n_instrs + 1) * sizeof *ops);

	for (int c = 0; c < m->n_comps; c++)
		for (int i = 0; i < m->comps[c].n_instrs; i++) {
			const hm_instr *in = &m->comps[c].instrs[i];
			for (int k = 0; k < in->n_operands; k++) {
				int seen = 0;
				for (int j = 0; j < k; j++)
					seen |= in->operand_ids[j] == in->operand_ids[k];
				edges += !seen;
			}
			edges += in->n_called;
			if (ops)
				ops[n] = in->opcode;
			n++;
		}
	fprintf(out, "module %s computations=%d instructions=%lld edges=%lld\n", m->name,
	       m->n_comps, (long long)m->n_instrs, (long long)edges);
	if (!ops)
		return;
	qsort(ops, (size_t)n, sizeof *ops, hs_cmp_str);
	for (int64_t i = 0; i < n;) {
		int64_t j = i;
		while (j < n && strcmp(ops[j], ops[i]) == 0)
			j++;
		fprintf(out, "opcode %s %lld\n", ops[i], (long long)(j - i));
		i = j;
	}
	free(ops);
}

static int bench(const char *path, int reps)
{
	size_t n;
	char *buf = slurp(path, &n);
	double *t = calloc((size_t)reps, sizeof *t), *cpu = calloc((size_t)reps, sizeof *cpu);
	double *ft = calloc((size_t)reps, sizeof *ft), *fcpu = calloc((size_t)reps, sizeof *fcpu);
	int64_t instrs = 0;

	if (!buf || !t || !cpu || !ft || !fcpu || reps < 1)
		return 1;
	/* keep freed memory mapped between runs, as a long-running process
	 * would: the runs measure parsing, not the kernel's page faults */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	for (int r = 0; r < reps; r++) {
		hs_error err = {0};
		double t0 = hs_now_seconds(), c0 = hs_cpu_seconds();
		hm_file *f = hlo_text_parse(buf, n, path, &err);
		t[r] = (hs_now_seconds() - t0) * 1e3;
		cpu[r] = (hs_cpu_seconds() - c0) * 1e3;
		if (!f) {
			fprintf(stderr, "%s\n", err.msg);
			return 2;
		}
		instrs = 0;
		for (int i = 0; i < f->n_modules; i++)
			instrs += f->modules[i].n_instrs;
		/* then the dataset's arrays, as convert makes them */
		double c1 = hs_cpu_seconds(), t1 = hs_now_seconds();
		for (int i = 0; i < f->n_modules; i++) {
			hf_arrays a;
			if (hf_featurize(&f->modules[i], NULL, HS_KIND_LAYOUT, 0, &a, &err)) {
				fprintf(stderr, "%s\n", err.msg);
				return 2;
			}
			hf_arrays_free(&a);
		}
		ft[r] = (hs_now_seconds() - t1) * 1e3;
		fcpu[r] = (hs_cpu_seconds() - c1) * 1e3;
		hm_file_free(f);
	}
	qsort(t, (size_t)reps, sizeof *t, hs_cmp_double);
	qsort(cpu, (size_t)reps, sizeof *cpu, hs_cmp_double);
	qsort(ft, (size_t)reps, sizeof *ft, hs_cmp_double);
	qsort(fcpu, (size_t)reps, sizeof *fcpu, hs_cmp_double);
	printf("parse %s: %zu bytes, %lld instructions, best %.3f ms, median %.3f ms, "
	       "cpu best %.3f ms (%d runs)\n", path, n, (long long)instrs, t[0], t[reps / 2],
	       cpu[0], reps);
	printf("featurize: best %.3f ms, cpu best %.3f ms\n", ft[0], fcpu[0]);
	free(t);
	free(cpu);
	free(ft);
	free(fcpu);
	free(buf);
	return 0;
}

/* Truncations at n evenly spread points and n random edits (a byte set
 * to one of the characters the grammar cares about, or deleted): each must
 * parse or fail with a message naming the place. */
static int corrupt(const char *path, int n, unsigned seed)
{
	size_t len;
	char *buf = slurp(path, &len);
	int ok = 0, failed = 0;
	static const char bytes[] = "{}()[],=:%\"\\/*<-> \n0x_ROOTENTRY";

	if (!buf || n < 1)
		return 1;
	char *copy = malloc(len + 1);
	srand(seed);
	for (int k = 0; k < 2 * n && copy; k++) {
		size_t m = len;
		memcpy(copy, buf, len);
		if (k < n) {
			m = (size_t)((double)len * k / n);
		} else if (len) {
			size_t at = (size_t)rand() % len;
			if (rand() % 4 == 0) {
				memmove(copy + at, copy + at + 1, len - at - 1);
				m--;
			} else {
				copy[at] = rand() % 8 == 0 ? (char)(rand() % 256)
							   : bytes[(size_t)rand() % (sizeof bytes - 1)];
			}
		}
		hs_error err = {0};
		hm_file *f = hlo_text_parse(copy, m, "x.hlo", &err);
		if (f) {
			ok++;
			FILE *null = fopen("/dev/null", "w");
			if (null) {
				hm_file_print(null, f);
				hm_file_dump(null, f);
				fclose(null);
			}
			hm_file_free(f);
		} else if ((err.status != HS_EDATA && err.status != HS_ENOMEM) ||
			   strncmp(err.msg, "x.hlo:", 6) != 0) {
			fprintf(stderr, "bad error for variant %d: status %d, '%s'\n", k,
				err.status, err.msg);
			return 3;
		} else {
			failed++;
		}
	}
	printf("corrupt %s: %d parsed, %d refused\n", path, ok, failed);
	free(copy);
	free(buf);
	return 0;
}

/* The file printed (HLO text or dump) into a malloc'd buffer. */
static char *to_text(const hm_file *f, int dump)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		return NULL;
	int rc = dump ? hm_file_dump(out, f) : hm_file_print(out, f);
	if (fclose(out) != 0 || rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A dump without " line=N" and with each instruction's "    attr " lines
 * in name order (the printer moves frontend_attributes and statistics
 * after the called computations, as XLA does).  Modifies `d`. */
static char *normalize_dump(char *d)
{
	size_t n = 0, cap = 64, len = strlen(d);
	char **lines = malloc(cap * sizeof *lines);
	char *out = malloc(len + 2), *o = out;
	for (char *s = strtok(d, "\n"); s && lines && out; s = strtok(NULL, "\n")) {
		char *l = strstr(s, " line=");
		if (l)
			*l = '\0';
		if (n == cap) {
			char **nl = realloc(lines, (cap *= 2) * sizeof *lines);
			if (!nl)
				break;
			lines = nl;
		}
		lines[n++] = s;
	}
	for (size_t i = 0; i < n && out;) {
		size_t j = i;
		while (j < n && strncmp(lines[j], "    attr ", 9) == 0)
			j++;
		if (j > i)
			qsort(lines + i, j - i, sizeof *lines, hs_cmp_str);
		for (size_t k = i; k < (j > i ? j : i + 1); k++)
			o += sprintf(o, "%s\n", lines[k]);
		i = j > i ? j : i + 1;
	}
	if (out)
		*o = '\0';
	free(lines);
	return out;
}

/* print(parse(text)) reads back to the same structure and prints the same. */
static int round_trip(FILE *out, FILE *err_out, const hm_file *f)
{
	hs_error err = {0};
	char *t1 = to_text(f, 0), *d1 = to_text(f, 1), *t2 = NULL, *d2 = NULL;
	char *n1 = NULL, *n2 = NULL;
	hm_file *g = t1 ? hlo_text_parse(t1, strlen(t1), "printed.hlo", &err) : NULL;
	int rc = 1;

	if (!g) {
		fprintf(err_out, "round trip: printed text does not read back: %s\n", err.msg);
		goto done;
	}
	t2 = to_text(g, 0);
	d2 = to_text(g, 1);
	if (!t2 || !d1 || !d2 || strcmp(t1, t2) != 0) {
		fprintf(err_out, "round trip: print is not a fixed point\n");
		goto done;
	}
	n1 = normalize_dump(d1);
	n2 = normalize_dump(d2);
	if (!n1 || !n2 || strcmp(n1, n2) != 0) {
		fprintf(err_out, "round trip: the structure differs after printing\n");
		goto done;
	}
	fprintf(out, "round trip: print -> parse -> print is a fixed point, same structure\n");
	rc = 0;
done:
	hm_file_free(g);
	free(t1);
	free(t2);
	free(d1);
	free(d2);
	free(n1);
	free(n2);
	return rc;
}

/* dump, print, roundtrip or stats of a parsed file; 0, or 1 when the
 * command is unknown or failed. */
static int run(const char *cmd, const hm_file *f, FILE *out, FILE *err_out)
{
	if (strcmp(cmd, "dump") == 0)
		return hm_file_dump(out, f) != 0;
	if (strcmp(cmd, "print") == 0)
		return hm_file_print(out, f) != 0;
	if (strcmp(cmd, "roundtrip") == 0)
		return round_trip(out, err_out, f);
	if (strcmp(cmd, "stats") == 0) {
		for (int i = 0; i < f->n_modules; i++)
			stats(out, &f->modules[i]);
		return 0;
	}
	fprintf(err_out, "hlo_tool: unknown command '%s'\n", cmd);
	return 1;
}

/* Many inputs in one process (the test runner's way): records
 * "CMD LEN\n" + LEN bytes of HLO text (named input.hlo) on standard
 * input; for each, "STATUS OUTLEN ERRLEN\n" + output + error output, with
 * STATUS 2 for a refused input. */
static int batch(void)
{
	char cmd[32];
	size_t len;

	while (scanf("%31s %zu", cmd, &len) == 2 && getchar() == '\n') {
		char *text = malloc(len + 1), *obuf = NULL, *ebuf = NULL;
		size_t olen = 0, elen = 0;
		if (!text || fread(text, 1, len, stdin) != len) {
			free(text);
			return 1;
		}
		FILE *out = open_memstream(&obuf, &olen), *err_out = open_memstream(&ebuf, &elen);
		if (!out || !err_out)
			return 1;
		hs_error err = {0};
		hlo_text_where where = {0};
		hm_file *f = hlo_text_parse_where(text, len, "input.hlo", &where, &err);
		int status = 2;
		if (f)
			status = run(cmd, f, out, err_out);
		else
			report(err_out, &err, &where);
		hm_file_free(f);
		fclose(out);
		fclose(err_out);
		printf("%d %zu %zu\n", status, olen, elen);
		fwrite(obuf, 1, olen, stdout);
		fwrite(ebuf, 1, elen, stdout);
		fflush(stdout);
		free(obuf);
		free(ebuf);
		free(text);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *split = getenv("HLO_SPLIT_MIN");
	if (split && *split)
		hlo_text_set_split_min((size_t)strtoull(split, NULL, 10));
	if (argc == 2 && strcmp(argv[1], "batch") == 0)
		return batch();
	if (argc < 3) {
		fprintf(stderr, "usage: hlo_tool dump|print|roundtrip|stats|bench|corrupt|sniff FILE ...\n"
			"       hlo_tool batch < records\n");
		return 1;
	}
	const char *cmd = argv[1], *path = argv[2];
	if (strcmp(cmd, "bench") == 0)
		return bench(path, argc > 3 ? atoi(argv[3]) : 20);
	if (strcmp(cmd, "corrupt") == 0)
		return corrupt(path, argc > 3 ? atoi(argv[3]) : 200,
			       argc > 4 ? (unsigned)atoi(argv[4]) : 1);
	if (strcmp(cmd, "sniff") == 0) {
		size_t n;
		char *buf = slurp(path, &n);
		if (!buf)
			return 1;
		printf("%d\n", hlo_text_sniff(buf, n));
		free(buf);
		return 0;
	}
	hm_file *f = load(path);
	if (!f)
		return 2;
	int rc = run(cmd, f, stdout, stderr);
	hm_file_free(f);
	return rc;
}
