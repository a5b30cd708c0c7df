/* model.c - the model file format, prediction and per-node contributions. */
#include "model/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/inputs.h"
#include "loader/zip.h"
#include "model/cost.h"
#include "model/nn.h"
#include "model/prep.h"
#include "model/train.h"

#define MAGIC "HLOSCMDL"
#define MAX_MODEL_BYTES ((uint64_t)1 << 31)
#define HEAD_U32S 10

struct hs_model {
	nn_head *layout, *tile;
	char *meta;
	uint32_t version;   /* the file format it was read from (or written in) */
	char desc[96];
};

static void describe(hs_model *m)
{
	snprintf(m->desc, sizeof m->desc, "sage-ranker v%u (%s)", m->version,
		 m->layout && m->tile ? "layout+tile" : m->layout ? "layout" : "tile");
}

hs_model *model_from_heads(nn_head *layout, nn_head *tile, const char *meta, hs_error *err)
{
	hs_model *m;

	if (!layout && !tile) {
		hs_fail(err, HS_EUSAGE, "a model needs a layout or a tile head");
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (!m || !(m->meta = strdup(meta ? meta : ""))) {
		free(m);
		hs_fail(err, HS_ENOMEM, "out of memory building a model");
		return NULL;
	}
	m->layout = layout;
	m->tile = tile;
	m->version = MODEL_FORMAT_VERSION;
	describe(m);
	return m;
}

void model_free(hs_model *m)
{
	if (!m)
		return;
	nn_head_free(m->layout);
	nn_head_free(m->tile);
	free(m->meta);
	free(m);
}

const char *model_describe(const hs_model *m)
{
	return m ? m->desc : "analytic estimate";
}

int model_has_head(const hs_model *m, hs_kind kind)
{
	if (!m)
		return 1;
	return kind == HS_KIND_LAYOUT ? m->layout != NULL : m->tile != NULL;
}

const char *model_meta(const hs_model *m)
{
	return m && m->meta ? m->meta : "";
}

int model_saw(const hs_model *m, const hs_graph *g)
{
	static const char *const keys[] = {"trained_on=", "validated_on="};
	const char *l = model_meta(m);
	char want[20];

	if (!*l)
		return 0;
	snprintf(want, sizeof want, "%016llx ", (unsigned long long)graph_digest(g));
	for (; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		for (int k = 0; k < 2; k++)
			if (!strncmp(l, keys[k], strlen(keys[k])) && !strncmp(l + strlen(keys[k]), want, 17))
				return k + 1;
	return 0;
}

/* ---- writing -------------------------------------------------------------------- */

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
} buf;

static void put(buf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096);
		uint8_t *q;

		while (cap < b->n + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_u32(buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	put(b, x, 4);
}

static void put_u64(buf *b, uint64_t v)
{
	put_u32(b, (uint32_t)v);
	put_u32(b, (uint32_t)(v >> 32));
}

static void put_f32s(buf *b, const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, &v[i], 4);
		put_u32(b, u);
	}
}

static void put_head(buf *b, const nn_head *hd)
{
	const nn_dims *d = &hd->d;
	uint32_t dims[HEAD_U32S] = {(uint32_t)d->kind, (uint32_t)d->fin, (uint32_t)d->de, (uint32_t)d->h,
				    (uint32_t)d->layers, (uint32_t)d->r, (uint32_t)d->cfg_hops,
				    (uint32_t)d->ncfw, (uint32_t)d->ccols, (uint32_t)d->ctw};
	size_t len = HEAD_U32S * 4 + 8 + 4 * (2 * (size_t)d->fin + hd->o.total);

	if (d->kind == HS_KIND_TILE)
		len += 4 * 2 * (size_t)d->ctw;
	put(b, d->kind == HS_KIND_LAYOUT ? "LAYT" : "TILE", 4);
	put_u64(b, len);
	for (int i = 0; i < HEAD_U32S; i++)
		put_u32(b, dims[i]);
	put_u64(b, hd->o.total);
	put_f32s(b, hd->mean, (size_t)d->fin);
	put_f32s(b, hd->sd, (size_t)d->fin);
	if (d->kind == HS_KIND_TILE) {
		put_f32s(b, hd->cmean, (size_t)d->ctw);
		put_f32s(b, hd->csd, (size_t)d->ctw);
	}
	put_f32s(b, hd->theta, hd->o.total);
}

int model_save(const hs_model *m, const char *path, hs_error *err)
{
	buf b = {0};
	size_t mlen = m->meta ? strlen(m->meta) : 0;
	uint32_t sections = 1 + (m->layout != NULL) + (m->tile != NULL);
	put(&b, MAGIC, 8);
	put_u32(&b, MODEL_FORMAT_VERSION);
	put_u32(&b, sections);
	put(&b, "META", 4);
	put_u64(&b, mlen);
	put(&b, m->meta ? m->meta : "", mlen);
	if (m->layout)
		put_head(&b, m->layout);
	if (m->tile)
		put_head(&b, m->tile);
	put_u32(&b, b.oom ? 0 : zip_crc32(0, b.p, b.n));
	if (b.oom) {
		free(b.p);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory writing the model", path);
	}
	int rc = hs_afile_write(path, b.p, b.n, err);
	free(b.p);
	return rc;
}

/* ---- reading -------------------------------------------------------------------- */

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static int get_f32s(const uint8_t *p, float *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = get_u32(p + 4 * i);

		memcpy(&out[i], &u, 4);
		if (!isfinite(out[i]))
			return -1;
	}
	return 0;
}

/* A version 1 head lacks the last two parameters (nn.h: the prior's
 * weight and the gate); it reads as pw = 0, gate = 1, the scores it gave. */
#define V1_MISSING 2

static nn_head *parse_head(const char *path, const char *tag, uint64_t at, const uint8_t *p,
			   uint64_t len, uint32_t version, hs_error *err)
{
	size_t stored;

	nn_dims d;
	nn_off o;
	const char *bad;
	uint32_t u[HEAD_U32S];
	uint64_t need;
	nn_head *hd;

	if (len < HEAD_U32S * 4 + 8) {
		hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: %llu bytes, too short for a head",
			path, tag, (unsigned long long)at, (unsigned long long)len);
		return NULL;
	}
	for (int i = 0; i < HEAD_U32S; i++) {
		u[i] = get_u32(p + 4 * i);
		if (u[i] > 1u << 20) {
			hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: dimension %d is %u", path, tag,
				(unsigned long long)(at + 4 * (uint64_t)i), i, u[i]);
			return NULL;
		}
	}
	d = (nn_dims){(int)u[0], (int)u[1], (int)u[2], (int)u[3], (int)u[4],
		      (int)u[5], (int)u[6], (int)u[7], (int)u[8], (int)u[9]};
	if ((d.kind == HS_KIND_LAYOUT) != !strcmp(tag, "LAYT")) {
		hs_fail(err, HS_EDATA, "%s: section %s at byte %llu holds a head of the other kind",
			path, tag, (unsigned long long)at);
		return NULL;
	}
	if ((bad = nn_dims_check(&d)) != NULL) {
		hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: bad %s", path, tag,
			(unsigned long long)at, bad);
		return NULL;
	}
	nn_offsets(&d, &o);
	stored = version == 1 ? o.total - V1_MISSING : o.total;
	if (get_u64(p + HEAD_U32S * 4) != stored) {
		hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: %llu parameters, the widths need %zu",
			path, tag, (unsigned long long)at,
			(unsigned long long)get_u64(p + HEAD_U32S * 4), stored);
		return NULL;
	}
	need = HEAD_U32S * 4 + 8 + 4 * (2 * (uint64_t)d.fin + stored) +
	       (d.kind == HS_KIND_TILE ? 8 * (uint64_t)d.ctw : 0);
	if (need != len) {
		hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: %llu bytes, its widths need %llu",
			path, tag, (unsigned long long)at, (unsigned long long)len,
			(unsigned long long)need);
		return NULL;
	}
	hd = nn_head_new(&d, 0);
	if (!hd) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory reading the model", path);
		return NULL;
	}
	p += HEAD_U32S * 4 + 8;
	if (get_f32s(p, hd->mean, (size_t)d.fin) < 0 ||
	    get_f32s(p + 4 * (size_t)d.fin, hd->sd, (size_t)d.fin) < 0)
		goto nonfinite;
	p += 8 * (size_t)d.fin;
	if (d.kind == HS_KIND_TILE) {
		if (get_f32s(p, hd->cmean, (size_t)d.ctw) < 0 ||
		    get_f32s(p + 4 * (size_t)d.ctw, hd->csd, (size_t)d.ctw) < 0)
			goto nonfinite;
		p += 8 * (size_t)d.ctw;
	}
	if (get_f32s(p, hd->theta, stored) < 0)
		goto nonfinite;
	if (version == 1) {
		hd->theta[o.pw] = 0;
		hd->theta[o.gate] = 1;
	}
	return hd;
nonfinite:
	nn_head_free(hd);
	hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: a value is not finite", path, tag,
		(unsigned long long)at);
	return NULL;
}

/* The whole file, in malloc'd memory (freed by the caller); its length in
 * *size. */
static uint8_t *read_model_file(const char *path, long *size, hs_error *err)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;

	if (!f) {
		hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (hs_input_note_fd(fileno(f), path, err) < 0) {
		fclose(f);
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (*size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		hs_fail(err, HS_EDATA, "%s: cannot read: %s", path, strerror(errno));
		fclose(f);
		return NULL;
	}
	if ((uint64_t)*size > MAX_MODEL_BYTES) {
		hs_fail(err, HS_EDATA, "%s: %ld bytes, larger than any model file", path, *size);
		fclose(f);
		return NULL;
	}
	data = malloc((size_t)*size + 1);
	if (!data || fread(data, 1, (size_t)*size, f) != (size_t)*size) {
		if (data)
			hs_fail(err, HS_EDATA, "%s: cannot read: %s", path, strerror(errno));
		else
			hs_fail(err, HS_ENOMEM, "%s: out of memory reading the model", path);
		fclose(f);
		free(data);
		return NULL;
	}
	fclose(f);
	return data;
}

/* The magic, the format version and the checksum of the last 4 bytes. */
static int check_header(const char *path, const uint8_t *data, long size, hs_error *err)
{
	uint32_t version, crc_stored, crc;

	if (size < 8 || memcmp(data, MAGIC, 8) != 0)
		return hs_fail(err, HS_EDATA, "%s: not a hloscope model file (no \"" MAGIC "\" at byte 0)", path);
	if (size < 20)
		return hs_fail(err, HS_EDATA, "%s: truncated: %ld bytes, a model file has at least 20", path, size);
	version = get_u32(data + 8);
	if (version < 1 || version > MODEL_FORMAT_VERSION)
		return hs_fail(err, HS_EDATA, "%s: model format version %u; this hloscope reads versions 1 to %d",
			       path, version, MODEL_FORMAT_VERSION);
	crc_stored = get_u32(data + size - 4);
	crc = zip_crc32(0, data, (size_t)size - 4);
	if (crc != crc_stored)
		return hs_fail(err, HS_EDATA,
			       "%s: checksum mismatch (stored %08x, computed %08x): the file is corrupted or truncated",
			       path, crc_stored, crc);
	return 0;
}

/* What a model file holds, as read from its sections. */
struct model_parts {
	nn_head *layout, *tile;
	char *meta;
};

/* One section of a file of that format version: the tag at data + at, its
 * content of len bytes after. */
static int read_section(const char *path, const uint8_t *data, uint64_t at, const char *tag,
			uint64_t len, uint32_t version, struct model_parts *mp, hs_error *err)
{
	if (!strcmp(tag, "META")) {
		free(mp->meta);
		mp->meta = malloc(len + 1);
		if (!mp->meta)
			return hs_fail(err, HS_ENOMEM, "%s: out of memory reading the model", path);
		memcpy(mp->meta, data + at + 12, len);
		mp->meta[len] = 0;
		return 0;
	}
	if (!strcmp(tag, "LAYT") || !strcmp(tag, "TILE")) {
		nn_head **slot = tag[0] == 'L' ? &mp->layout : &mp->tile;

		if (*slot)
			return hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: a second %s head", path, tag,
				       (unsigned long long)at, tag[0] == 'L' ? "layout" : "tile");
		*slot = parse_head(path, tag, at, data + at + 12, len, version, err);
		return *slot ? 0 : -1;
	}
	return hs_fail(err, HS_EDATA, "%s: byte %llu: unknown section \"%.4s\" in a version %u file", path,
		       (unsigned long long)at, tag, version);
}

/* The sections after the 16-byte header, up to the checksum. */
static int read_sections(const char *path, const uint8_t *data, long size, struct model_parts *mp,
			 hs_error *err)
{
	uint32_t n_sections = get_u32(data + 12);
	uint64_t at = 16;

	for (uint32_t s = 0; s < n_sections; s++) {
		char tag[5] = {0};
		uint64_t len;

		if (at + 12 > (uint64_t)size - 4)
			return hs_fail(err, HS_EDATA, "%s: byte %llu: section %u of %u is missing", path,
				       (unsigned long long)at, s + 1, n_sections);
		memcpy(tag, data + at, 4);
		len = get_u64(data + at + 4);
		if (len > (uint64_t)size - 4 - (at + 12))
			return hs_fail(err, HS_EDATA, "%s: section %s at byte %llu: length %llu runs past the end",
				       path, tag, (unsigned long long)at, (unsigned long long)len);
		if (read_section(path, data, at, tag, len, get_u32(data + 8), mp, err) < 0)
			return -1;
		at += 12 + len;
	}
	if (at != (uint64_t)size - 4)
		return hs_fail(err, HS_EDATA, "%s: byte %llu: %llu bytes after the last section", path,
			       (unsigned long long)at, (unsigned long long)((uint64_t)size - 4 - at));
	if (!mp->layout && !mp->tile)
		return hs_fail(err, HS_EDATA, "%s: the model has neither a layout nor a tile head", path);
	return 0;
}

hs_model *model_load(const char *path, hs_error *err)
{
	long size;
	uint8_t *data = read_model_file(path, &size, err);
	struct model_parts mp = {0};
	hs_model *m = NULL;

	if (!data)
		return NULL;
	if (check_header(path, data, size, err) == 0 && read_sections(path, data, size, &mp, err) == 0) {
		m = model_from_heads(mp.layout, mp.tile, mp.meta, err);
		if (m) {
			mp.layout = mp.tile = NULL;
			m->version = get_u32(data + 8);
			describe(m);
		}
	}
	nn_head_free(mp.layout);
	nn_head_free(mp.tile);
	free(mp.meta);
	free(data);
	return m;
}

/* ---- prediction ----------------------------------------------------------------- */

static const nn_head *head_for(const hs_model *m, const hs_graph *g, hs_error *err)
{
	const nn_head *hd = g->kind == HS_KIND_LAYOUT ? m->layout : m->tile;

	if (!hd) {
		hs_fail(err, HS_EUSAGE, "%s: the model has no %s head (it was trained on %s files only)",
			g->name, graph_kind_name(g->kind), m->layout ? "layout" : "tile");
		return NULL;
	}
	if (g->feat_width != hd->d.fin) {
		hs_fail(err, HS_EUSAGE, "%s: node features are %d wide, the model was trained on width %d",
			g->name, g->feat_width, hd->d.fin);
		return NULL;
	}
	if (g->kind == HS_KIND_LAYOUT ? g->ncf_width != hd->d.ncfw
				      : g->config_width + PREP_TILE_EXTRA != hd->d.ctw) {
		hs_fail(err, HS_EUSAGE, "%s: config features are %d wide, the model was trained on width %d",
			g->name, g->kind == HS_KIND_LAYOUT ? g->ncf_width : g->config_width,
			g->kind == HS_KIND_LAYOUT ? hd->d.ncfw : hd->d.ctw - PREP_TILE_EXTRA);
		return NULL;
	}
	return hd;
}

static prep *prepare(const nn_head *hd, hs_graph *g, hs_error *err)
{
	prep_opts po;
	prep *p;

	train_prep_opts(&hd->d, &po);
	p = prep_graph(g, &po, err);
	if (p)
		prep_standardize(p, hd->mean, hd->sd, hd->cmean, hd->csd);
	return p;
}

int model_predict_configs(const hs_model *m, hs_graph *g, double *out, hs_error *err)
{
	const nn_head *hd;
	prep *p;
	nn_ws *ws;
	double *su;
	int rc;

	if (!m)
		return cost_predict_configs(g, out, err);
	if (!(hd = head_for(m, g, err)) || !(p = prepare(hd, g, err)))
		return -1;
	ws = nn_ws_new();
	su = malloc((size_t)(p->n_uniq ? p->n_uniq : 1) * sizeof *su);
	rc = ws && su ? nn_score(hd, p, p->uniq_rep, p->n_uniq, su, ws) : -1;
	if (rc == 0)
		for (int64_t c = 0; c < g->n_configs; c++)
			out[c] = su[p->uniq_of[c]];
	else
		hs_fail(err, HS_ENOMEM, "%s: out of memory scoring configs", g->name);
	free(su);
	nn_ws_free(ws);
	prep_free(p);
	return rc;
}

/* The prior's part of score(b) - score(a), pw (z_b - z_a), added to
 * out[K]: shared among the configurable nodes as the analytic estimate's
 * own difference is (cost_node_contributions), equally when that is 0.
 * work holds K doubles. */
static int prior_contributions(const nn_head *hd, const prep *p, hs_graph *g, int64_t a, int64_t b,
			       double *out, double *work, hs_error *err)
{
	double dz = p->prior ? hd->theta[hd->o.pw] * (p->prior[b] - p->prior[a]) : 0, sum = 0;

	if (dz == 0 || p->K == 0)
		return 0;
	if (cost_node_contributions(g, a, b, work, err) < 0)
		return -1;
	for (int64_t k = 0; k < p->K; k++)
		sum += work[k];
	for (int64_t k = 0; k < p->K; k++)
		out[k] += sum != 0 ? dz * work[k] / sum : dz / (double)p->K;
	return 0;
}

int model_node_contributions(const hs_model *m, hs_graph *g, int64_t a, int64_t b, double *out,
			     hs_error *err)
{
	const nn_head *hd;
	prep *p;
	nn_ws *ws;
	double *sa;
	int rc;

	if (!m)
		return cost_node_contributions(g, a, b, out, err);
	if (g->kind != HS_KIND_LAYOUT)
		return hs_fail(err, HS_EUSAGE, "%s: per-node contributions need a layout graph", g->name);
	if (a < 0 || b < 0 || a >= g->n_configs || b >= g->n_configs)
		return hs_fail(err, HS_EUSAGE, "%s: config index out of range (0..%lld)", g->name,
			       (long long)g->n_configs - 1);
	if (!(hd = head_for(m, g, err)) || !(p = prepare(hd, g, err)))
		return -1;
	ws = nn_ws_new();
	sa = malloc((size_t)(p->K ? p->K : 1) * sizeof *sa);
	rc = ws && sa ? nn_node_scores(hd, p, a, sa, ws) : -1;
	if (rc == 0)
		rc = nn_node_scores(hd, p, b, out, ws);
	if (rc == 0) {
		for (int64_t k = 0; k < p->K; k++)
			out[k] = hd->theta[hd->o.gate] * (out[k] - sa[k]);
		rc = prior_contributions(hd, p, g, a, b, out, sa, err);
	} else {
		hs_fail(err, HS_ENOMEM, "%s: out of memory computing node contributions", g->name);
	}
	free(sa);
	nn_ws_free(ws);
	prep_free(p);
	return rc;
}
