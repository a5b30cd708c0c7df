/* dataset_kind.c - what a file found in a folder is to hloscope
 * (dataset_file_kind in dataset.h): by its name when the name says (an
 * .npz, a .pb or .hlo, a stage or a report of an XLA dump), else by its
 * content, as a file given alone is read. */
#include "dataset.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "graph_impl.h"
#include "hlo_proto.h"
#include "hlo_text.h"
#include "xz.h"

static int ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n > k && strcasecmp(name + n - k, suffix) == 0;
}

int dataset_is_npz_name(const char *name)
{
	return ends_with(name, ".npz") || ends_with(name, ".npz.xz");
}

int dataset_is_hlo_name(const char *name)
{
	static const char *const suffixes[] = {".pb", ".hlo", ".pb.xz", ".hlo.xz"};
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (ends_with(name, suffixes[i]))
			return 1;
	return 0;
}

/* A protobuf stage whose text twin (the same module and stage as HLO text,
 * compressed or not) is beside it: the text stands for both. */
static int text_twin(const char *path, char *why, size_t cap)
{
	char twin[4096];
	size_t n = strlen(path), cut = n;
	if (ends_with(path, ".xz"))
		cut -= 3;
	cut -= ends_with(path, ".hlo.pb") || ends_with(path, ".hlo.pb.xz") ? 7 : 3;
	for (int xz = 0; xz < 2; xz++) {
		if (cut + 8 > sizeof twin)
			return 0;
		snprintf(twin, sizeof twin, "%.*s.txt%s", (int)cut, path, xz ? ".xz" : "");
		if (access(twin, R_OK) == 0) {
			const char *base = strrchr(twin, '/');
			snprintf(why, cap, "the same stage as %s, which is read", base ? base + 1 : twin);
			return 1;
		}
	}
	return 0;
}

/* Why a text that is not HLO is left out: what it starts with. */
static void text_why(const char *path, char *why, size_t cap)
{
	char head[4096];
	long n = xz_peek(path, head, sizeof head - 1);
	head[n > 0 ? n : 0] = '\0';
	if (hlo_text_is_mlir(head, n > 0 ? (size_t)n : 0)) {
		snprintf(why, cap, "%s", HLO_MLIR_HINT);
		return;
	}
	const char *s = head + strspn(head, " \t\r\n");
	size_t len = strcspn(s, "\r\n");
	snprintf(why, cap, "not HLO text: it starts with '%.*s%s'", (int)(len > 48 ? 48 : len), s,
		 len > 48 ? "..." : "");
}

/* A file that holds HLO by its content, or why not; -1 when out of
 * memory. */
static int by_content(const char *path, char *why, size_t cap, hs_error *ferr)
{
	char head[4096];
	long n = xz_peek(path, head, sizeof head);
	if (n < 0) {
		snprintf(why, cap, "cannot be read: %s", strerror(errno));
		return DS_FILE_LEFT_OUT;
	}
	if (n == 0) {
		snprintf(why, cap, "an empty file");
		return DS_FILE_LEFT_OUT;
	}
	switch (graph_source_of(path)) {
	case GRAPH_SRC_NPZ:
		snprintf(why, cap, "a zip archive (an .npz is read when named .npz)");
		return DS_FILE_LEFT_OUT;
	case GRAPH_SRC_TEXT:
		if (hlo_text_sniff(head, (size_t)n))
			return DS_FILE_GRAPH;
		text_why(path, why, cap);
		return DS_FILE_LEFT_OUT;
	default: {
		hs_error err = {0};
		hm_file *f = hlo_proto_read(path, HLO_PROTO_NO_RUNS, &err);
		hm_file_free(f);
		if (f)
			return DS_FILE_GRAPH;
		if (err.status == HS_ENOMEM) {
			*ferr = err;
			return -1;
		}
		size_t np = strlen(path);
		const char *msg = strncmp(err.msg, path, np) == 0 && err.msg[np] == ':' ? err.msg + np + 2 : err.msg;
		snprintf(why, cap, "not an HLO protobuf (%s)", msg);
		return DS_FILE_LEFT_OUT;
	}
	}
}

int dataset_file_kind(const char *path, const char *name, xla_dump_name *dn, char *why, size_t cap, hs_error *err)
{
	why[0] = '\0';
	if (xla_dump_parse(name, dn)) {
		if (xla_dump_is_report(dn->kind))
			return DS_FILE_REPORT;
		if (dn->kind == XD_HLO_PROTO && text_twin(path, why, cap))
			return DS_FILE_LEFT_OUT;
		if (dn->kind == XD_HLO_TEXT || dn->kind == XD_HLO_PROTO)
			return DS_FILE_GRAPH;
	} else {
		memset(dn, 0, sizeof *dn);
		if (dataset_is_npz_name(name) || dataset_is_hlo_name(name))
			return DS_FILE_GRAPH;
	}
	return by_content(path, why, cap, err);
}
