/* hloscope convert IN -o OUT: an HLO module (TpuGraphs raw protobuf, XLA
 * HloModuleProto or HLO text) into a dataset .npz, with the arrays the
 * dataset's featurizer makes (loader/hlo_featurize.h).  A file of several
 * modules converts into a folder, one <module name>.npz each.  Every file
 * is written to a temporary name and renamed into place (base/afile.h),
 * never over the input, a device or a read-only file. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/hlo_featurize.h"
#include "loader/npz.h"

/* Adds the arrays in the dataset's dtypes and order, as numpy's
 * savez_compressed would write them. */
static int add_arrays(npz_writer *w, const hf_arrays *a, hs_error *err)
{
	int64_t nn = a->n_nodes, nc = a->n_configs, nk = a->n_cfg_nodes;
	int64_t feat[2] = {nn, HLO_NODE_FEATURES}, ops[1] = {nn}, edges[2] = {a->n_edges, 2};
	int64_t cf[2] = {nc, HLO_TILE_CONFIG_FEATURES}, rt[1] = {nc}, ids[1] = {nk};
	int64_t ncf[3] = {nc, nk, HLO_LAYOUT_CONFIG_FEATURES}, splits[2] = {1, a->n_splits};
	if (npz_writer_add(w, "node_feat", NPY_F4, 2, feat, a->node_feat, err) ||
	    npz_writer_add(w, "node_opcode", NPY_U1, 1, ops, a->node_opcode, err) ||
	    npz_writer_add(w, "edge_index", NPY_I8, 2, edges, a->edge_index, err))
		return -1;
	if (a->kind == HS_KIND_TILE)
		return npz_writer_add(w, "config_feat", NPY_F4, 2, cf, a->config_feat, err) ||
		       npz_writer_add(w, "config_runtime", NPY_I8, 1, rt, a->config_runtime, err) ||
		       npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, rt,
				      a->config_runtime_normalizers, err) ? -1 : 0;
	return npz_writer_add(w, "node_config_feat", NPY_F4, 3, ncf, a->node_config_feat, err) ||
	       npz_writer_add(w, "node_config_ids", NPY_I8, 1, ids, a->node_config_ids, err) ||
	       npz_writer_add(w, "config_runtime", NPY_I8, 1, rt, a->config_runtime, err) ||
	       npz_writer_add(w, "node_splits", NPY_I8, 2, splits, a->node_splits, err) ? -1 : 0;
}

/* Featurizes module i and writes it to a temporary file, then checks the
 * arrays as graph_open would check the file (the check takes the arrays
 * over: no copy) and renames the file into place only when they pass. */
static int convert_module(const hm_file *f, int i, const char *out, hs_error *err)
{
	hf_arrays a;
	const hm_module *m = &f->modules[i];
	if (hf_featurize(m, f->tuning ? f->tuning[i] : NULL, hf_kind(f, i), 0, &a, err)) {
		hs_error_prefix(err, "%s: module '%s'", f->path, m->name);
		return -1;
	}
	const char *note = a.note;
	npz_writer *w = npz_writer_open(out, 1, err);
	if (!w || add_arrays(w, &a, err)) {
		if (w)
			npz_writer_abort(w);
		hf_arrays_free(&a);
		return -1;
	}
	hs_graph *g = graph_from_arrays(&a, f->path, m->name, err);
	hf_arrays_free(&a);
	if (!g) {
		npz_writer_abort(w);
		return -1;
	}
	graph_free(g);
	if (npz_writer_finish(w, err))
		return -1;
	if (note)
		fprintf(stderr, "hloscope convert: note: module '%s': %s\n", m->name, note);
	return 0;
}

/* DIR/<name>.npz, the name made safe for a file name. */
static char *module_path(const char *dir, const hm_file *f, int i)
{
	const char *name = f->modules[i].name;
	int dup = !*name;
	for (int j = 0; j < i && !dup; j++)
		dup = strcmp(f->modules[j].name, name) == 0;
	char *safe = strdup(*name ? name : "module");
	if (!safe)
		return NULL;
	for (char *p = safe; *p; p++)
		if (*p == '/' || (p == safe && *p == '.'))
			*p = '_';
	char *path = NULL;
	int n = dup ? asprintf(&path, "%s/%s-%d.npz", dir, safe, i) : asprintf(&path, "%s/%s.npz", dir, safe);
	free(safe);
	return n < 0 ? NULL : path;
}

static int convert_all(const hm_file *f, const char *dir)
{
	hs_error err = {0};
	struct stat st;
	if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0) {
		fprintf(stderr, "hloscope convert: cannot make folder %s: %s\n", dir, strerror(errno));
		return 2;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return cli_usage_error("convert", "%s holds %d modules: -o must name a folder, '%s' is not one",
				       f->path, f->n_modules, dir);
	int bad = 0;
	for (int i = 0; i < f->n_modules; i++) {
		char *out = module_path(dir, f, i);
		if (!out)
			return cli_oom("naming the output of module %d", i);
		if (convert_module(f, i, out, &err)) {
			int status = cli_report(&err);  /* the worst: out of memory is 3 */
			bad = status > bad ? status : bad;
		}
		free(out);
	}
	return bad;
}

int cmd_convert(int argc, char **argv)
{
	const char *out = NULL;
	const cli_opt opts[] = {
		CLI_OUTPUT_OPT(&out, "the .npz to write, or a folder for a file of several\n"
			       "modules: DIR/<module name>.npz each (DIR is made when\n"
			       "missing; a name met twice gets -N, N the module's index)"),
		{0}};
	const cli_spec spec = {"convert",
			       "Writes the arrays of the TpuGraphs dataset for an HLO module, as the\n"
			       "dataset's own featurizer makes them: node_opcode, node_feat (140),\n"
			       "edge_index, and the configs with their runtimes (tile: config_feat,\n"
			       "config_runtime, config_runtime_normalizers; layout: node_splits,\n"
			       "node_config_ids, node_config_feat, config_runtime).  numpy loads the\n"
			       "result; every hloscope command opens it.\n"
			       "\n"
			       "IN is read by content: a TpuGraphs TuningData or ModuleTuningData .pb,\n"
			       "an XLA HloModuleProto .pb, or HLO text.  A module without tuning runs\n"
			       "becomes a layout sample with 0 configs.  For a file of several modules,\n"
			       "convert one with IN#N (0-based) or IN#NAME, or all of them with -o DIR.\n"
			       "The output is checked before the input is read.\n"
			       "\n"
			       "Exit status: 0 written, 1 bad usage, 2 bad input data or an output that\n"
			       "cannot be written (refused as below, a full disk: the system's reason).",
			       opts, 1, .extra = "one IN only"};
	cli_args args;
	int rc = cli_parse(&spec, argc, argv, &args);

	if (rc)
		return rc < 0 ? 0 : rc;
	const char *in = args.n ? args.v[0] : NULL;
	if (!in)
		return cli_usage_error("convert", "needs an input file");
	if (!out)
		return cli_usage_error("convert", "needs -o OUT.npz (or -o DIR)");
	/* the output checked before the input is read: a folder takes the
	 * modules' files, each checked as it is written */
	struct stat st;
	if ((rc = cli_note_input(in)) != 0 ||
	    (!(stat(out, &st) == 0 && S_ISDIR(st.st_mode)) && (rc = cli_check_output("convert", "-o", out)) != 0))
		return rc;
	/* Big buffers come and go (decoded arrays, npz members, compressed
	 * output): keep freed memory for the next one instead of returning it
	 * to the kernel and faulting fresh pages in again. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	hs_error err = {0};
	int module;
	hm_file *f = graph_read_hlo(in, &module, &err);
	if (!f)
		return cli_report(&err);
	if (module < 0) {
		rc = convert_all(f, out);
	} else if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *path = module_path(out, f, module);
		rc = !path ? cli_oom("naming the output of module %d", module)
			   : convert_module(f, module, path, &err) ? cli_report(&err) : 0;
		free(path);
	} else {
		rc = convert_module(f, module, out, &err) ? cli_report(&err) : 0;
	}
	hm_file_free(f);
	return rc;
}
