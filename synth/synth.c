/* synth.c - writes the demo dataset (see synth/synth.h): one .npz file per
 * program and search (layout) or kernel (tile), the README with the formulas
 * and a table of the files, the marker; all in a temporary folder that
 * replaces DIR at the end.
 *
 * Test splits hide labels as the real ones do: runtimes 0, normalizers 1.
 * Everything derives from the seed through per-file streams (base/rng.h's xoshiro;
 * each file's stream is seeded with the seed and its name), and the zip
 * writer uses a fixed timestamp: same seed, same bytes.
 */
#include "synth/synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/hash.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "loader/hlo.h"
#include "loader/npz.h"
#include "synth/configs.h"
#include "synth/builder.h"
#include "synth/plan.h"

/* A second FNV basis: a second, independent hash of the same name. */
#define SYNTH_FNV_ALT 0x84222325cbf29ce4ULL

/* ------------------------------------------------------------------ */
/* Writing files.                                                      */

typedef struct write_ctx {
	const char *root;     /* the temporary folder */
	uint64_t seed;
	synth_report rep;
	hs_strbuf readme;     /* the file table for the README */
} write_ctx;

static int ctx_note(write_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctx_note(write_ctx *cx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hs_strbuf_vprintf(&cx->readme, fmt, ap);
	va_end(ap);
	return cx->readme.failed ? -1 : 0;
}

static int file_size(const char *path, int64_t *out)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	*out = st.st_size;
	return 0;
}

/* A test file's name: 32 hex digits derived from the descriptive name. */
static void test_name(const char *name, char *buf, size_t cap)
{
	uint64_t a = hs_fnv1a(name, HS_FNV_BASIS);
	uint64_t b = hs_fnv1a(name, SYNTH_FNV_ALT);
	snprintf(buf, cap, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

static int write_common(npz_writer *w, const synth_arrays *a, hs_error *err)
{
	int64_t fs[2] = {a->n, HLO_NODE_FEATURES}, os[1] = {a->n}, es[2] = {a->m, 2};
	if (npz_writer_add(w, "node_feat", NPY_F4, 2, fs, a->feat, err) < 0 ||
	    npz_writer_add(w, "node_opcode", NPY_U1, 1, os, a->opcode, err) < 0 ||
	    npz_writer_add(w, "edge_index", NPY_I8, 2, es, a->edges, err) < 0)
		return -1;
	return 0;
}

static int make_dirs(const char *root, const char *rel, hs_error *err)
{
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/%s", root, rel);
	if (n < 0 || (size_t)n >= sizeof path)
		return hs_fail(err, HS_EDATA, "%s: path too long", root);
	for (char *s = path + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return hs_fail(err, HS_EDATA, "%s: cannot create folder: %s", path,
				       strerror(errno));
		*s = '/';
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return hs_fail(err, HS_EDATA, "%s: cannot create folder: %s", path, strerror(errno));
	return 0;
}

/* Counts a written file in the report. */
static void count_file(write_ctx *cx, const char *path, int nodes, int configs)
{
	int64_t sz = 0;
	file_size(path, &sz);
	cx->rep.nodes += nodes;
	cx->rep.configs += configs;
	cx->rep.bytes += sz;
}

/* One layout program, written for one search ("default" or "random"). */
static int write_layout(write_ctx *cx, const synth_program *ps, const synth_graph *g,
			const synth_arrays *a, const synth_layout *lp, int random_search,
			hs_error *err)
{
	const char *search = random_search ? "random" : "default";
	int test = !strcmp(ps->split, "test");
	char rel[256], name[128], path[4096];
	if (test)
		test_name(ps->name, name, sizeof name);
	else
		snprintf(name, sizeof name, "%s", ps->name);
	snprintf(rel, sizeof rel, "npz/layout/xla/%s/%s", search, ps->split);
	if (make_dirs(cx->root, rel, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s/%s.npz", cx->root, rel, name);

	synth_layout_configs lc;
	uint64_t seed = cx->seed ^ hs_fnv1a(search, hs_fnv1a(ps->name, HS_FNV_BASIS));
	int want = random_search ? ps->cfg_random : ps->cfg_default;
	if (synth_layout_draw(lp, ps->name, seed, want, random_search, test, &lc, err) < 0)
		return -1;
	int rc = -1;
	npz_writer *w = npz_writer_open(path, 1, err);
	if (!w)
		goto out;
	int64_t cs[3] = {lc.c, lc.nk, 18}, is[1] = {lc.nk}, rs[1] = {lc.c};
	int64_t ss[2] = {1, a->nsplits};
	if (write_common(w, a, err) < 0 ||
	    npz_writer_add(w, "node_config_feat", NPY_F4, 3, cs, lc.feat, err) < 0 ||
	    npz_writer_add(w, "node_config_ids", NPY_I8, 1, is, lc.ids, err) < 0 ||
	    npz_writer_add(w, "config_runtime", NPY_I8, 1, rs, lc.runtime, err) < 0 ||
	    npz_writer_add(w, "node_splits", NPY_I8, 2, ss, a->splits, err) < 0) {
		npz_writer_abort(w);
		goto out;
	}
	if (npz_writer_finish(w, err) < 0)
		goto out;
	cx->rep.layout_files++;
	count_file(cx, path, g->n, lc.c);
	if (ctx_note(cx, "  %-44s %-32s %5d %6lld %3d %5d\n", rel + 4, name, g->n,
		     (long long)a->m, lc.nk, lc.c) < 0) {
		hs_fail(err, HS_ENOMEM, "synth: out of memory writing the README");
		goto out;
	}
	rc = 0;
out:
	synth_layout_configs_free(&lc);
	return rc;
}

/* One fused kernel. */
static int write_tile(write_ctx *cx, const synth_kernel *ks, const char *desc,
		      const synth_graph *g, const synth_arrays *a, const synth_kernel_info *ki,
		      hs_error *err)
{
	int test = !strcmp(ks->split, "test");
	char rel[128], name[160], path[4096];
	uint64_t h = hs_fnv1a(desc, HS_FNV_BASIS);
	if (test)
		test_name(desc, name, sizeof name);
	else
		snprintf(name, sizeof name, "%s_%016llx", desc, (unsigned long long)h);
	snprintf(rel, sizeof rel, "npz/tile/xla/%s", ks->split);
	if (make_dirs(cx->root, rel, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s/%s.npz", cx->root, rel, name);

	synth_tile tp;
	synth_tile_configs tc;
	synth_tile_setup(g, ki, &tp);
	uint64_t seed = cx->seed ^ hs_fnv1a(desc, SYNTH_FNV_ALT);
	if (synth_tile_draw(&tp, seed, ks->configs, test, &tc, err) < 0)
		return -1;
	int rc = -1;
	npz_writer *w = npz_writer_open(path, 1, err);
	if (!w)
		goto out;
	int64_t cs[2] = {tc.c, 24}, rs[1] = {tc.c};
	if (write_common(w, a, err) < 0 ||
	    npz_writer_add(w, "config_feat", NPY_F4, 2, cs, tc.feat, err) < 0 ||
	    npz_writer_add(w, "config_runtime", NPY_I8, 1, rs, tc.runtime, err) < 0 ||
	    npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, rs, tc.normalizers,
			   err) < 0) {
		npz_writer_abort(w);
		goto out;
	}
	if (npz_writer_finish(w, err) < 0)
		goto out;
	cx->rep.tile_files++;
	count_file(cx, path, g->n, tc.c);
	if (ctx_note(cx, "  %-44s %-48s %3d %4lld %5d\n", rel + 4, name, g->n,
		     (long long)a->m, tc.c) < 0) {
		hs_fail(err, HS_ENOMEM, "synth: out of memory writing the README");
		goto out;
	}
	rc = 0;
out:
	synth_tile_configs_free(&tc);
	return rc;
}

static int write_program(write_ctx *cx, const synth_program *ps, hs_error *err)
{
	synth_graph g;
	synth_arrays a;
	synth_layout lp;
	if (synth_graph_init(&g) < 0)
		return hs_fail(err, HS_ENOMEM, "synth: out of memory building a graph");
	synth_build_program(&g, ps);
	int rc = synth_graph_check(&g, ps->name, err);
	if (!rc && (rc = synth_encode(&g, &a, err)) == 0) {
		if ((rc = synth_layout_setup(&g, &lp, err)) == 0) {
			rc = write_layout(cx, ps, &g, &a, &lp, 0, err);
			if (!rc)
				rc = write_layout(cx, ps, &g, &a, &lp, 1, err);
			synth_layout_free(&lp);
		}
		synth_arrays_free(&a);
	}
	synth_graph_done(&g);
	return rc;
}

static int write_kernel(write_ctx *cx, const synth_kernel *ks, hs_error *err)
{
	synth_graph g;
	synth_arrays a;
	synth_kernel_info ki;
	char desc[128];
	synth_kernel_desc(ks, desc, sizeof desc);
	if (synth_graph_init(&g) < 0)
		return hs_fail(err, HS_ENOMEM, "synth: out of memory building a graph");
	synth_build_kernel(&g, ks, &ki);
	int rc = synth_graph_check(&g, desc, err);
	if (!rc && (rc = synth_encode(&g, &a, err)) == 0) {
		rc = write_tile(cx, ks, desc, &g, &a, &ki, err);
		synth_arrays_free(&a);
	}
	synth_graph_done(&g);
	return rc;
}

/* ------------------------------------------------------------------ */
/* README and marker.                                                  */

static const char readme_fmt[] =
	"SYNTHETIC DATA - written by `hloscope synth`, not measured on any TPU.\n"
	"\n"
	"This folder mimics the TpuGraphs dataset (Google, NeurIPS 2023) so that\n"
	"hloscope can be tried, tested and trained on without downloading it.  Every\n"
	".npz file has exactly the arrays, dtypes and shapes of the real files:\n"
	"\n"
	"  tile:   node_feat <f4 (n,140), node_opcode |u1 (n,), edge_index <i8 (m,2),\n"
	"          config_feat <f4 (c,24), config_runtime <i8 (c,),\n"
	"          config_runtime_normalizers <i8 (c,)\n"
	"  layout: node_feat, node_opcode, edge_index as above, node_config_feat <f4\n"
	"          (c,nc,18), node_config_ids <i8 (nc,), config_runtime <i8 (c,),\n"
	"          node_splits <i8 (1,k)\n"
	"\n"
	"Edges [u, v] mean u consumes v's output.  Nodes are in topological order.\n"
	"Test splits hide their labels as the real ones do (runtimes 0, normalizers 1).\n"
	"The same seed always gives the same bytes.\n"
	"\n"
	"GRAPHS\n"
	"\n"
	"Layout files are whole programs before fusion: reducer computations, then the\n"
	"entry computation (node_splits delimits each computation).  resnet_* are\n"
	"conv-nets (image transpose, 7x7 stem, batch norm from batch statistics, relu,\n"
	"3x3 max pool, bottleneck blocks, global average pool through a reshape, dense\n"
	"layer, softmax); the nchw variant has slow default layouts.  transformer_* are\n"
	"pre-norm transformer layers (layer norm, Q/K/V dots, head reshapes and\n"
	"transposes, masked softmax, output projection, gelu feed-forward).\n"
	"Configurable nodes: every convolution, dot, reshape, transpose and copy of the\n"
	"entry computation.  Convolution and dot rows give the two minor-most dims of\n"
	"each layout (as the real files do), the others full layouts; -1 = the\n"
	"compiler's choice.  Default-search files hold the all -1 config exactly once.\n"
	"Tile files are fused kernels of those programs (reducers, the fused\n"
	"computation, the kernel computation with its fusion node).\n"
	"\n"
	"LAYOUT RUNTIME (ns)\n"
	"\n"
	"  runtime(c) = round((F + sum_k T_k(c) + X(c)) * exp(%g z)),  z ~ N(0,1)\n"
	"\n"
	"  Layouts are compared by their two minor-most dims (m0, m1).  For node k:\n"
	"  out = features 0-5, in = 6-11 (operand 0), kernel = 12-17 (operand 1).\n"
	"  -1: out = the node's default layout (node_feat minor_to_major), in/kernel =\n"
	"  whatever the operand produces.\n"
	"  F   = FUSE * sum over other nodes (not parameter/constant/tuple) of\n"
	"        OVH + output bytes / BW\n"
	"  T_k = convolution, dot: (OVH + max(flops / MXU, bytes / BW)) * P_k\n"
	"        reshape, transpose, copy: OVH + 2 * bytes / BW * (bitcast ? %g : 1)\n"
	"  P_k convolution = 1 + %g[in.m0 != input feature dim]\n"
	"                      + %g[out.m0 != output feature dim]\n"
	"                      + %g[kernel.m0 != kernel output feature dim]\n"
	"                      + %g[kernel.m1 != kernel input feature dim]\n"
	"  P_k dot (lhs's last dim contracted with rhs's second-to-last)\n"
	"          = 1 + %g[lhs.m0 != lhs rank-1] + %g[rhs.m0 != rhs rank-1]\n"
	"              + %g[out.m0 != out rank-1] + %g[rhs.m1 != rhs rank-2]\n"
	"  bitcast: transpose when perm maps out (m0, m1) onto in (m0, m1); reshape when\n"
	"  in and out are both row-major (m0 = rank-1, m1 = rank-2); copy when in == out.\n"
	"  X   = 2 * bytes(v) / BW for every copy: an explicit in/kernel layout that\n"
	"        differs from what the operand produces, and each non-configurable user\n"
	"        of a configurable node whose output is not its default layout.\n"
	"  OVH = %g ns, BW = %g bytes/ns, MXU = %g flop/ns, FUSE = %g.\n"
	"\n"
	"TILE RUNTIME (ns)\n"
	"\n"
	"  Output dims D_i (the fused root, or its largest tuple element), output_bounds t_i:\n"
	"  steps = prod ceil(D_i/t_i), tile = prod t_i,\n"
	"  lane = ceil(t_last/128)*128/t_last, sublane = ceil(t_2nd_last/8)*8/t_2nd_last.\n"
	"  W = sum over the fused computation's arithmetic nodes (all but parameters,\n"
	"  constants, broadcasts, reshapes, transposes, converts, tuples and the\n"
	"  convolution or dot) of max(own, largest operand) elements / output elements;\n"
	"  B = (fused parameter bytes + output bytes) / output elements.  With a convolution or\n"
	"  dot: K = contraction length, k = product of the contracted kernel_bounds,\n"
	"  ksteps = ceil(K/k), mxu = ceil(k/128)*128/k (else ksteps = 1, k = 0).\n"
	"  step = STEP*ksteps + max(tile*W*lane*sublane/VPU + ksteps*tile*2k*mxu*lane/MXU,\n"
	"                          (tile*B + ksteps*k*t_feat*esize)/BW)\n"
	"  ws = 2*tile*B + k*t_feat*esize; step *= 1 + ws/VMEM when ws > VMEM\n"
	"  runtime = round((LAUNCH + steps*step) * exp(%g z))\n"
	"  STEP = %g ns, LAUNCH = %g ns, VPU = %g flop/ns, VMEM = %g MiB.\n"
	"  Config 0 is the default tiling (whole minor dims while 2*tile*B <= %g MiB);\n"
	"  every normalizer is config 0's runtime.\n"
	"\n";

/* Writes the README (readme: the formulas, then `b`) or else plain `a`. */
static int write_text(const char *path, int readme, const char *a, const char *b, hs_error *err)
{
	hs_afile *af = hs_afile_open(path, err);
	if (!af)
		return -1;
	FILE *f = hs_afile_stream(af);
	int ok = readme ? fprintf(f, readme_fmt, SY_NOISE_SIGMA, SY_PEN_BITCAST, SY_PEN_CONV_IN,
				  SY_PEN_CONV_OUT, SY_PEN_CONV_K0, SY_PEN_CONV_K1, SY_PEN_DOT_LHS,
				  SY_PEN_DOT_RHS0, SY_PEN_DOT_OUT, SY_PEN_DOT_RHS1, SY_OVH_NS,
				  SY_BW_BPNS, SY_MXU_FPNS, SY_FUSE, SY_NOISE_SIGMA, SY_STEP_NS,
				  SY_LAUNCH_NS, SY_VPU_FPNS, SY_VMEM_BYTES / (1024 * 1024),
				  SY_DEFAULT_WS / (1024 * 1024)) >= 0
			: fputs(a, f) >= 0;
	if (ok && b)
		fputs(b, f);
	return hs_afile_commit(af, err); /* a failed write is reported there, with its errno */
}

static int write_all(write_ctx *cx, hs_error *err)
{
	if (ctx_note(cx, "FILES (folder, name, nodes, edges, configurable nodes, configs)\n\n") < 0)
		return hs_fail(err, HS_ENOMEM, "synth: out of memory writing the README");
	for (int i = 0; i < synth_nprograms; i++)
		if (write_program(cx, &synth_programs[i], err) < 0)
			return -1;
	if (ctx_note(cx, "\n  (tile: folder, name, nodes, edges, configs)\n") < 0)
		return hs_fail(err, HS_ENOMEM, "synth: out of memory writing the README");
	for (int i = 0; i < synth_nkernels; i++)
		if (write_kernel(cx, &synth_kernels[i], err) < 0)
			return -1;
	char path[4096], seedline[160];
	snprintf(seedline, sizeof seedline,
		 "\nSeed %llu.  Regenerate with: hloscope synth DIR --seed %llu\n",
		 (unsigned long long)cx->seed, (unsigned long long)cx->seed);
	if (ctx_note(cx, "%s", seedline) < 0)
		return hs_fail(err, HS_ENOMEM, "synth: out of memory writing the README");
	snprintf(path, sizeof path, "%s/README", cx->root);
	if (write_text(path, 1, NULL, hs_strbuf_str(&cx->readme), err) < 0)
		return -1;
	char marker[128];
	snprintf(marker, sizeof marker, "hloscope synth output, seed %llu\n",
		 (unsigned long long)cx->seed);
	snprintf(path, sizeof path, "%s/%s", cx->root, SYNTH_MARKER);
	return write_text(path, 0, marker, NULL, err);
}

/* ------------------------------------------------------------------ */
/* The destination folder.                                             */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *fw)
{
	(void)st;
	(void)flag;
	(void)fw;
	remove(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* 1 if dir is empty or a previous synth output, 0 if not, -1 on error. */
static int replaceable(const char *dir, hs_error *err)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, SYNTH_MARKER);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		return 1;
	DIR *d = opendir(dir);
	if (!d)
		return hs_fail(err, HS_EDATA, "%s: cannot read: %s", dir, strerror(errno));
	struct dirent *e;
	int empty = 1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* Whether dir may be written: absent, or an empty or previous synth folder
 * we may write to.  Sets *exists. */
static int check_dest(const char *dir, int *exists, hs_error *err)
{
	struct stat st;
	*exists = lstat(dir, &st) == 0;
	if (!*exists) {
		if (errno != ENOENT)
			return hs_fail(err, HS_EDATA, "%s: cannot create: %s", dir, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return hs_fail(err, HS_EUSAGE, "%s: exists and is not a folder; not overwriting it",
			       dir);
	int r = replaceable(dir, err);
	if (r < 0)
		return -1;
	if (!r)
		return hs_fail(err, HS_EUSAGE,
			       "%s: exists, is not empty and is not a previous synth output "
			       "(no %s); not overwriting it",
			       dir, SYNTH_MARKER);
	if (access(dir, W_OK) != 0)
		return hs_fail(err, HS_EDATA, "%s: not writable: %s", dir, strerror(errno));
	return 0;
}

/* Renames the finished tree tmp to dir; an existing dir is swapped out and
 * deleted.  On failure tmp is deleted and dir is as it was. */
static int move_into_place(char *tmp, size_t tmp_cap, const char *dir, int exists,
			   hs_error *err)
{
	if (!exists) {
		if (rename(tmp, dir) != 0) {
			hs_fail(err, HS_EDATA, "%s: cannot create: %s", dir, strerror(errno));
			remove_tree(tmp);
			return -1;
		}
		return 0;
	}
	/* Swap the new tree in, then delete the old one (now at tmp). */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0) {
		char old[4096 + 32];
		snprintf(old, sizeof old, "%s.old.XXXXXX", dir);
		if (!mkdtemp(old) || rmdir(old) != 0 || rename(dir, old) != 0) {
			hs_fail(err, HS_EDATA, "%s: cannot replace: %s", dir, strerror(errno));
			remove_tree(tmp);
			return -1;
		}
		if (rename(tmp, dir) != 0) {
			hs_fail(err, HS_EDATA, "%s: cannot replace: %s", dir, strerror(errno));
			rename(old, dir);
			remove_tree(tmp);
			return -1;
		}
		snprintf(tmp, tmp_cap, "%s", old);
	}
	remove_tree(tmp);
	return 0;
}

int synth_write(const char *dir_in, uint64_t seed, synth_report *rep, hs_error *err)
{
	char dir[4096], tmp[4096 + 32];
	size_t n = strlen(dir_in);
	int exists;
	if (n == 0 || n >= sizeof dir)
		return hs_fail(err, HS_EUSAGE, "synth: bad folder name '%s'", dir_in);
	memcpy(dir, dir_in, n + 1);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	if (synth_features_init(err) < 0 || check_dest(dir, &exists, err) < 0)
		return -1;

	snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", dir);
	if (!mkdtemp(tmp))
		return hs_fail(err, HS_EDATA, "%s: cannot create a folder next to it: %s", dir,
			       strerror(errno));
	chmod(tmp, 0755);
	write_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.root = tmp;
	cx.seed = seed;
	int rc = write_all(&cx, err);
	hs_strbuf_free(&cx.readme);
	if (rc < 0) {
		remove_tree(tmp);
		return -1;
	}
	if (move_into_place(tmp, sizeof tmp, dir, exists, err) < 0)
		return -1;
	if (rep)
		*rep = cx.rep;
	return 0;
}
