/* target.c - the GPU target config of an XLA dump (target.h). */
#include "target.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/path.h"
#include "base/walk.h"
#include "hlo_module.h"
#include "pbtxt.h"
#include "xz.h"

/* The fields read: path, place and size, kind ('s' text, 'i' int64, 'n'
 * int, 'd' double). */
#define AT(member) offsetof(hs_target, member), sizeof(((hs_target *)0)->member)
static const struct {
	const char *path;
	size_t off, size;
	char type;
} fields[] = {
	{"device_description_str", AT(device), 's'},
	{"platform_name", AT(platform), 's'},
	{"dnn_version_info.major", AT(dnn_major), 'n'},
	{"dnn_version_info.minor", AT(dnn_minor), 'n'},
	{"gpu_device_info.cuda_compute_capability.major", AT(cc_major), 'n'},
	{"gpu_device_info.cuda_compute_capability.minor", AT(cc_minor), 'n'},
	{"gpu_device_info.rocm_compute_capability.gcn_arch_name", AT(rocm_arch), 's'},
	{"gpu_device_info.core_count", AT(sm_count), 'i'},
	{"gpu_device_info.fpus_per_core", AT(fpus_per_core), 'i'},
	{"gpu_device_info.clock_rate_ghz", AT(clock_ghz), 'd'},
	{"gpu_device_info.memory_bandwidth", AT(memory_bandwidth), 'i'},
	{"gpu_device_info.device_memory_size", AT(device_memory_size), 'i'},
	{"gpu_device_info.l2_cache_size", AT(l2_cache_size), 'i'},
	{"gpu_device_info.shared_memory_per_block", AT(shared_memory_per_block), 'i'},
	{"gpu_device_info.shared_memory_per_block_optin", AT(shared_memory_per_block_optin), 'i'},
	{"gpu_device_info.shared_memory_per_core", AT(shared_memory_per_core), 'i'},
	{"gpu_device_info.threads_per_warp", AT(threads_per_warp), 'i'},
	{"gpu_device_info.threads_per_block_limit", AT(threads_per_block_limit), 'i'},
	{"gpu_device_info.threads_per_core_limit", AT(threads_per_core_limit), 'i'},
	{"gpu_device_info.registers_per_core_limit", AT(registers_per_core_limit), 'i'},
	{"gpu_device_info.registers_per_block_limit", AT(registers_per_block_limit), 'i'},
};

struct reading {
	hs_target *t;
	const char *path;
	int64_t results;     /* autotune results: top-level `results` messages */
};

static int on_field(void *ctx, const char *path, const char *value, size_t len, hs_error *err)
{
	struct reading *r = ctx;
	if (!value) {
		r->results += strcmp(path, "results") == 0;
		if (strcmp(path, "gpu_device_info.cuda_compute_capability") == 0)
			r->t->has_cc = 1;
		return 0;
	}
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
		if (strcmp(path, fields[k].path) != 0)
			continue;
		char *at = (char *)r->t + fields[k].off;
		int64_t i = 0;
		double d = 0;
		if (fields[k].type == 's')
			snprintf(at, fields[k].size, "%.*s", (int)len, value);
		else if (fields[k].type == 'd' ? hs_parse_double(value, &d) < 0 : hs_parse_i64(value, &i) < 0)
			return hs_fail(err, HS_EDATA, "%s: %s: '%.40s' is not a number", r->path, path, value);
		else if (fields[k].type == 'd')
			*(double *)(void *)at = d;
		else if (fields[k].type == 'n')
			*(int *)(void *)at = i < -1000000 || i > 1000000 ? -1 : (int)i;
		else
			*(int64_t *)(void *)at = i;
	}
	return 0;
}

static int read_config(const char *path, hs_target *t, int64_t *results, hs_error *err)
{
	size_t n;
	char *text = xz_read_file(path, 64u << 20, &n, err);
	if (!text)
		return -1;
	struct reading r = {t, path, 0};
	memset(t, 0, sizeof *t);
	int rc = pbtxt_read(text, n, path, on_field, &r, err);
	free(text);
	if (results)
		*results = r.results;
	return rc;
}

int target_read(const char *path, hs_target *t, hs_error *err)
{
	return read_config(path, t, NULL, err);
}

/* ---- finding the config beside a module ------------------------------- */

struct finding {
	const char *module, *name;   /* the module file's dump module, and its NAME part */
	char *same_module, *same_name, *only;
	int count;
};

/* "module_0040.step" -> "step"; "module_0040" -> ""; "step" -> "step" */
static const char *name_part(const char *module)
{
	if (strncmp(module, "module_", 7) != 0)
		return module;
	const char *dot = strchr(module, '.');
	return dot ? dot + 1 : "";
}

/* The first path kept in *slot; -1 when out of memory. */
static int keep(char **slot, const char *path, hs_error *err)
{
	if (!*slot && !(*slot = strdup(path)))
		return hs_fail(err, HS_ENOMEM, "%s: out of memory", path);
	return 0;
}

static int visit(const hs_walk_entry *e, void *ctx, hs_error *err)
{
	struct finding *f = ctx;
	xla_dump_name dn;
	if (e->kind != HS_WALK_FILE || !xla_dump_parse(e->name, &dn) || dn.kind != XD_TARGET_CONFIG)
		return 0;
	f->count++;
	if (keep(&f->only, e->path, err))
		return -1;
	if (f->module[0] && strcmp(dn.module, f->module) == 0 && keep(&f->same_module, e->path, err))
		return -1;
	if (f->name[0] && strcmp(name_part(dn.module), f->name) == 0 && keep(&f->same_name, e->path, err))
		return -1;
	return 0;
}

char *target_find(const char *path, hs_error *err)
{
	xla_dump_name dn;
	const char *base = hs_path_base(path);
	if (!xla_dump_parse(base, &dn))
		dn.module[0] = '\0';
	struct finding f = {dn.module, name_part(dn.module), NULL, NULL, NULL, 0};
	size_t dir = (size_t)(base - path);
	char *folder = dir ? strndup(path, dir > 1 ? dir - 1 : dir) : strdup("."); /* without its last '/' */
	hs_error werr = {0};
	if (!folder || hs_walk(folder, 1, visit, &f, &werr) < 0) {
		if (!folder || werr.status == HS_ENOMEM)
			hs_fail(err, HS_ENOMEM, "%s: out of memory looking for its target config", path);
		f.count = 0, f.same_module = f.same_name = NULL; /* a folder that cannot be listed has none */
	}
	free(folder);
	char *pick = f.same_module ? f.same_module : f.same_name ? f.same_name : f.count == 1 ? f.only : NULL;
	if (pick != f.same_module)
		free(f.same_module);
	if (pick != f.same_name)
		free(f.same_name);
	if (pick != f.only)
		free(f.only);
	return err->status ? (free(pick), NULL) : pick;
}

int target_attach(hm_file *f, const char *path, hs_error *err)
{
	char *found = target_find(path, err);
	if (!found)
		return err->status ? -1 : 0;
	hs_target t;
	int rc = target_read(found, &t, err);
	if (rc == 0) {
		hs_target *kept = hs_arena_alloc(&f->arena, sizeof *kept);
		if (!kept || !(t.file = hs_arena_strdup(&f->arena, found)))
			rc = hs_fail(err, HS_ENOMEM, "%s: out of memory", found);
		else
			*kept = t, f->target = kept;
	}
	free(found);
	return rc;
}

char *target_file_note(const char *path, xla_dump_kind kind)
{
	hs_target t;
	int64_t results = 0;
	hs_error err = {0};
	char *note = NULL;
	size_t np = strlen(path);
	if (read_config(path, &t, &results, &err) != 0) {
		if (err.status == HS_ENOMEM)
			return NULL;
		const char *msg = strncmp(err.msg, path, np) == 0 && err.msg[np] == ':' ? err.msg + np + 1 : err.msg;
		return asprintf(&note, "cannot be read: %s", msg + (*msg == ' ')) < 0 ? NULL : note;
	}
	if (kind == XD_AUTOTUNE)
		return asprintf(&note, "%lld result%s", (long long)results, results == 1 ? "" : "s") < 0 ? NULL : note;
	char cc[48] = "";
	if (t.has_cc)
		snprintf(cc, sizeof cc, ", compute capability %d.%d", t.cc_major, t.cc_minor);
	else if (t.rocm_arch[0])
		snprintf(cc, sizeof cc, ", %s", t.rocm_arch);
	return asprintf(&note, "%s (%s%s)", t.device[0] ? t.device : "unnamed device", t.platform[0] ? t.platform : "?",
			cc) < 0 ? NULL : note;
}
