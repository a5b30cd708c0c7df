/* hlo_proto.c - TpuGraphs TuningData / ModuleTuningData and XLA's
 * HloModuleProto into hm_module: recognize, validate on the wire, decode
 * one computation and one run at a time with protobuf-c. */
#include "hlo_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/inputs.h"
#include "base/vec.h"
#include "hlo_buffers.h"
#include "hlo_proto_conv.h"
#include "loader/proto/hlo.pb-c.h"
#include "loader/proto/tuning.pb-c.h"
#include "pbwire.h"
#include "xz.h"

typedef enum kind { K_UNKNOWN, K_TUNING, K_MODULE_TUNING, K_HLO_PROTO, K_MODULE } kind;

/* protobuf-c's allocations for one unpacked message: bumped out of a
 * buffer that is reused for the next message (unpacking a run or a
 * computation makes thousands of small allocations, freed all at once). */
typedef struct scratch {
	unsigned char *buf;
	size_t cap, used, high;  /* high: what the last message needed */
	HS_VEC(void *) extra;    /* allocations that did not fit, freed at reset */
	int failed;              /* an allocation failed since the last reset */
} scratch;

static void *scratch_alloc(void *data, size_t size)
{
	scratch *s = data;
	size_t need = (size + 15) & ~(size_t)15;
	if (need < size) {
		s->failed = 1;
		return NULL;
	}
	s->high += need;
	if (s->cap - s->used >= need) {
		void *p = s->buf + s->used;
		s->used += need;
		return p;
	}
	void *p = hs_vec_reserve(&s->extra, s->extra.n + 1) == 0 ? malloc(size) : NULL;
	if (p)
		s->extra.v[s->extra.n++] = p;
	else
		s->failed = 1;
	return p;
}

static void scratch_free(void *data, void *p)
{
	(void)data;
	(void)p; /* released by scratch_reset */
}

/* Releases one message's allocations; grows the buffer to what it needed. */
static void scratch_reset(scratch *s)
{
	for (size_t i = 0; i < s->extra.n; i++)
		free(s->extra.v[i]);
	s->extra.n = 0;
	if (s->high > s->cap && s->high <= (64u << 20)) {
		unsigned char *b = malloc(s->high);
		if (b) {
			free(s->buf);
			s->buf = b;
			s->cap = s->high;
		}
	}
	s->used = s->high = 0;
	s->failed = 0;
}

static void scratch_done(scratch *s)
{
	scratch_reset(s);
	free(s->buf);
	hs_vec_free(&s->extra);
}

typedef struct rd {
	const uint8_t *b;
	size_t n;
	const char *name;      /* for messages */
	hm_file *f;
	int flags;
	hs_error *err;
	scratch sc;
	ProtobufCAllocator alloc;
	const char *sel;       /* read only this module of a TuningData, or NULL */
} rd;

static int oom(rd *r)
{
	return hs_fail(r->err, HS_ENOMEM, "%s: out of memory", r->name);
}

/* ---- recognizing the message ------------------------------------------ */

/* The first occurrence of field `number` in b[start, end) (framing only);
 * 0 when found. */
static int first_field(const uint8_t *b, size_t start, size_t end, uint32_t number, pbwire_field *out)
{
	size_t pos = start;
	while (pos < end) {
		if (pbwire_next(b, &pos, end, out, 0, NULL, NULL))
			return -1;
		if (out->number == number)
			return 0;
	}
	return -1;
}

/* A payload is text (a name) when printable; a message when it frames. */
static int is_name(const uint8_t *b, const pbwire_field *f)
{
	return f->wire == PB_LEN && pbwire_is_text(b, f->start, f->len);
}

static int has_field(const uint8_t *b, size_t n, uint32_t number)
{
	pbwire_field f;
	return first_field(b, 0, n, number, &f) == 0;
}

static kind sniff(const uint8_t *b, size_t n)
{
	pbwire_field f1, f2, f3;
	if (first_field(b, 0, n, 1, &f1) != 0 || f1.wire != PB_LEN) {
		/* A module without a name still has computations or an entry name. */
		pbwire_field g;
		if ((first_field(b, 0, n, 3, &g) == 0 || first_field(b, 0, n, 2, &g) == 0) && g.wire == PB_LEN)
			return K_MODULE;
		return K_UNKNOWN;
	}
	if (is_name(b, &f1))
		return K_MODULE;
	if (first_field(b, f1.start, f1.start + f1.len, 1, &f2) != 0 || f2.wire != PB_LEN)
		return K_MODULE_TUNING; /* an empty module; the walk decides the rest */
	if (is_name(b, &f2)) {
		if (has_field(b, n, 2) || has_field(b, n, 4))
			return K_MODULE_TUNING;
		if (!has_field(b, n, 3))
			return K_MODULE_TUNING;
		/* Field 3: runs (ModuleTuningData) or a buffer assignment (HloProto):
		 * the first one decides. */
		pbwire_field r;
		if (first_field(b, 0, n, 3, &r) == 0 && r.wire == PB_LEN &&
		    pbwire_walk(b, r.start, r.start + r.len, &tpu_graphs__config_profile__descriptor, 0, 0, NULL) == 0)
			return K_MODULE_TUNING;
		return K_HLO_PROTO;
	}
	if (first_field(b, f2.start, f2.start + f2.len, 1, &f3) == 0 && is_name(b, &f3))
		return K_TUNING;
	return K_MODULE_TUNING;
}

/* ---- framing: modules, computations, runs ------------------------------ */

/* Payloads of every occurrence of field `number` in b[start, end). */
static int collect(rd *r, size_t start, size_t end, uint32_t number, pbwire_field **out, size_t *n)
{
	size_t pos = start;
	pbwire_field f;
	HS_VEC(pbwire_field) v = {0};
	while (pos < end) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err)) {
			hs_vec_free(&v);
			return -1;
		}
		if (f.number != number)
			continue;
		if (hs_vec_push(&v, f) != 0) {
			hs_vec_free(&v);
			return oom(r);
		}
	}
	*out = v.v;
	*n = v.n;
	return 0;
}

/* A computation, its fields framed here and each instruction unpacked by
 * protobuf-c on its own (so the decoded form of one instruction at a time
 * is in memory, in the reused scratch buffer). */
static int read_computation(rd *r, const pbwire_field *slice, hm_comp *cp)
{
	hp_conv c = {&r->f->arena, 0, NULL};
	size_t pos, end = slice->start + slice->len, n = 0;
	pbwire_field f;
	cp->id = cp->root_id = 0;
	for (pos = slice->start; pos < end;) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			return -1;
		if (f.number == 1 && f.wire == PB_LEN)
			cp->name = hs_arena_strndup(c.a, (const char *)r->b + f.start, f.len);
		else if (f.number == 2 && f.wire == PB_LEN)
			n++;
		else if (f.number == 5 && f.wire == PB_VARINT)
			cp->id = (int64_t)f.value;
		else if (f.number == 6 && f.wire == PB_VARINT)
			cp->root_id = (int64_t)f.value;
	}
	if (!cp->name && !(cp->name = hs_arena_strdup(c.a, "")))
		return oom(r);
	if (n > INT_MAX)
		return hs_fail(r->err, HS_EDATA, "%s: byte %zu: computation with %zu instructions", r->name,
			       slice->at, n);
	if (!(cp->instrs = hs_arena_array(c.a, n ? n : 1, sizeof *cp->instrs)))
		return oom(r);
	for (pos = slice->start; pos < end;) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			return -1;
		if (f.number != 2 || f.wire != PB_LEN)
			continue;
		Xla__HloInstructionProto *p = xla__hlo_instruction_proto__unpack(&r->alloc, f.len, r->b + f.start);
		if (!p && r->sc.failed)
			return oom(r);
		if (!p)
			return hs_fail(r->err, HS_EDATA, "%s: byte %zu: protobuf-c could not decode this instruction after its wire format checked",
				       r->name, f.at);
		hp_conv_instr(&c, p, &cp->instrs[cp->n_instrs++]);
		scratch_reset(&r->sc); /* frees p */
		if (c.failed)
			return oom(r);
		if (c.bad)
			return hs_fail(r->err, HS_EDATA, "%s: byte %zu: computation '%s': %s has more than %d entries",
				       r->name, f.at, cp->name, c.bad, INT_MAX);
	}
	return 0;
}

/* A module from every occurrence of it (protobuf merges repeated
 * occurrences of a message field: scalars last wins, lists concatenate). */
static int read_module(rd *r, const pbwire_field *slices, size_t n_slices, hm_module *m)
{
	hs_arena *a = &r->f->arena;
	size_t n_comps = 0;
	m->id = 0;
	m->entry_id = HM_NONE;
	for (size_t s = 0; s < n_slices; s++) {
		size_t pos = slices[s].start, end = slices[s].start + slices[s].len;
		pbwire_field f;
		while (pos < end) {
			if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
				return -1;
			if (f.number == 1 && f.wire == PB_LEN)
				m->name = hs_arena_strndup(a, (const char *)r->b + f.start, f.len);
			else if (f.number == 2 && f.wire == PB_LEN)
				m->entry_name = hs_arena_strndup(a, (const char *)r->b + f.start, f.len);
			else if (f.number == 3 && f.wire == PB_LEN)
				n_comps++;
			else if (f.number == 5 && f.wire == PB_VARINT)
				m->id = (int64_t)f.value;
			else if (f.number == 6 && f.wire == PB_VARINT)
				m->entry_id = (int64_t)f.value;
		}
	}
	if (!m->name && !(m->name = hs_arena_strdup(a, "")))
		return oom(r);
	if (m->entry_name && !*m->entry_name)
		m->entry_name = NULL;
	if (n_comps > INT_MAX)
		return hs_fail(r->err, HS_EDATA, "%s: module '%s' has %zu computations", r->name, m->name, n_comps);
	m->comps = hs_arena_array(a, n_comps ? n_comps : 1, sizeof *m->comps);
	if (!m->comps)
		return oom(r);
	for (size_t s = 0; s < n_slices; s++) {
		pbwire_field *cs;
		size_t nc;
		if (collect(r, slices[s].start, slices[s].start + slices[s].len, 3, &cs, &nc))
			return -1;
		for (size_t i = 0; i < nc; i++) {
			if (read_computation(r, &cs[i], &m->comps[m->n_comps])) {
				free(cs);
				return -1;
			}
			m->n_comps++;
		}
		free(cs);
	}
	if (hm_module_check(a, m, r->err)) {
		hs_error_prefix(r->err, "%s: module '%s'", r->name, m->name);
		return -1;
	}
	return 0;
}

static int read_run(rd *r, const pbwire_field *slice, hm_run *run)
{
	TpuGraphs__ConfigProfile *p = tpu_graphs__config_profile__unpack(&r->alloc, slice->len, r->b + slice->start);
	if (!p && r->sc.failed)
		return oom(r);
	if (!p)
		return hs_fail(r->err, HS_EDATA, "%s: byte %zu: protobuf-c could not decode this run after its wire format checked",
			       r->name, slice->at);
	hp_conv c = {&r->f->arena, 0, NULL};
	hp_conv_run(&c, p, run);
	scratch_reset(&r->sc); /* frees p */
	if (c.failed)
		return oom(r);
	if (c.bad)
		return hs_fail(r->err, HS_EDATA, "%s: byte %zu: %s: more than %d entries", r->name, slice->at,
			       c.bad, INT_MAX);
	return 0;
}

/* One ModuleTuningData at b[start, end) into module m and tuning t. */
static int read_module_tuning(rd *r, size_t start, size_t end, hm_module *m, hm_tuning **tp)
{
	hs_arena *a = &r->f->arena;
	pbwire_field *mods = NULL, *runs = NULL, f;
	size_t n_mods = 0, n_runs = 0, n_ids = 0, pos;
	int rc = -1;
	hm_tuning *t = hs_arena_alloc(a, sizeof *t);
	if (!t)
		return oom(r);
	if (collect(r, start, end, 1, &mods, &n_mods))
		return -1;
	if (read_module(r, mods, n_mods, m))
		goto out;
	for (pos = start; pos < end;) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			goto out;
		if (f.number == 4)
			n_ids += pbwire_varints(r->b, &f, NULL);
		else if (f.number == 2 && f.wire == PB_VARINT) {
			char num[24];
			snprintf(num, sizeof num, "%" PRIu64, f.value);
			if (!(t->fingerprint = hs_arena_strdup(a, num)))
				goto nomem;
		}
	}
	if (n_ids > INT_MAX) {
		hs_fail(r->err, HS_EDATA, "%s: module '%s': %zu configurable nodes", r->name, m->name, n_ids);
		goto out;
	}
	if (n_ids && !(t->config_index_to_node = hs_arena_array(a, n_ids, sizeof(int64_t))))
		goto nomem;
	for (pos = start; pos < end;) {
		if (pbwire_next(r->b, &pos, end, &f, 0, NULL, r->err))
			goto out;
		if (f.number == 4)
			t->n_config_nodes += (int)pbwire_varints(r->b, &f,
								 (uint64_t *)t->config_index_to_node + t->n_config_nodes);
	}
	if (!(r->flags & HLO_PROTO_NO_RUNS)) {
		if (collect(r, start, end, 3, &runs, &n_runs))
			goto out;
		if (n_runs > INT_MAX) {
			hs_fail(r->err, HS_EDATA, "%s: module '%s': %zu runs", r->name, m->name, n_runs);
			goto out;
		}
		if (n_runs && !(t->runs = hs_arena_array(a, n_runs, sizeof *t->runs)))
			goto nomem;
		for (size_t i = 0; i < n_runs; i++, t->n_runs++)
			if (read_run(r, &runs[i], &t->runs[i]))
				goto out;
	}
	*tp = t;
	rc = 0;
	goto out;
nomem:
	oom(r);
out:
	free(mods);
	free(runs);
	return rc;
}

/* ---- the file --------------------------------------------------------- */

static const ProtobufCMessageDescriptor *descriptor_of(kind k)
{
	switch (k) {
	case K_TUNING: return &tpu_graphs__tuning_data__descriptor;
	case K_MODULE_TUNING: return &tpu_graphs__module_tuning_data__descriptor;
	case K_HLO_PROTO: return &xla__hlo_proto__descriptor;
	default: return &xla__hlo_module_proto__descriptor;
	}
}

/* The module name of a ModuleTuningData item, framed without decoding. */
static int item_name_is(const rd *r, const pbwire_field *item, const char *name)
{
	pbwire_field m, nm;
	if (first_field(r->b, item->start, item->start + item->len, 1, &m) || m.wire != PB_LEN ||
	    first_field(r->b, m.start, m.start + m.len, 1, &nm) || nm.wire != PB_LEN)
		return *name == '\0';
	return strlen(name) == nm.len && memcmp(r->b + nm.start, name, nm.len) == 0;
}

/* Which item r->sel names: "N" (0-based) or a module name; -1 with an error. */
static int select_item(rd *r, const pbwire_field *items, size_t n)
{
	const char *sel = r->sel;
	int digits = *sel != '\0' && strlen(sel) < 10;
	for (const char *p = sel; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	if (digits && strtol(sel, NULL, 10) < (long)n)
		return (int)strtol(sel, NULL, 10);
	for (size_t i = 0; i < n; i++)
		if (item_name_is(r, &items[i], sel))
			return (int)i;
	return hs_fail(r->err, HS_EUSAGE, "%s has no module '%s' (modules 0..%zu)", r->name, sel, n - 1);
}

/* An HloProto's buffer assignment (field 3), when it has one. */
static int read_buffers(rd *r, hm_module *m)
{
	pbwire_field *ba;
	size_t n;
	if (collect(r, 0, r->n, 3, &ba, &n))
		return -1;
	int rc = n ? hm_buffers_read(&r->f->arena, r->b, ba, n, m, r->name, r->err) : 0;
	free(ba);
	return rc;
}

static int read_all(rd *r, kind k)
{
	hm_file *f = r->f;
	pbwire_field *items = NULL;
	size_t n = 1;
	int rc = 0;
	if (k == K_TUNING || k == K_HLO_PROTO) {
		if (collect(r, 0, r->n, 1, &items, &n))
			return -1;
		if (n == 0) {
			free(items);
			return hs_fail(r->err, HS_EDATA, "%s: %s holds no module", r->name,
				       k == K_TUNING ? "TuningData" : "HloProto");
		}
	}
	if (n > INT_MAX) {
		free(items);
		return hs_fail(r->err, HS_EDATA, "%s: %zu modules", r->name, n);
	}
	size_t n_modules = k == K_HLO_PROTO ? 1 : n;
	f->modules = hs_arena_array(&f->arena, n_modules, sizeof *f->modules);
	f->tuning = hs_arena_array(&f->arena, n_modules, sizeof *f->tuning);
	if (!f->modules || !f->tuning) {
		free(items);
		return oom(r);
	}
	f->total = (int)(k == K_HLO_PROTO ? 1 : n);
	f->selected = -1;
	if (k == K_TUNING && r->sel) {
		int i = select_item(r, items, n);
		if (i < 0 || pbwire_walk(r->b, items[i].start, items[i].start + items[i].len,
					 &tpu_graphs__module_tuning_data__descriptor, 0, 0, r->err)) {
			if (i >= 0)
				hs_error_prefix(r->err, "%s", r->name);
			free(items);
			return -1;
		}
		f->selected = i;
		f->n_modules = 1;
		rc = read_module_tuning(r, items[i].start, items[i].start + items[i].len, &f->modules[0],
					&f->tuning[0]);
	} else if (k == K_TUNING) {
		for (size_t i = 0; i < n && !rc; i++, f->n_modules++)
			rc = read_module_tuning(r, items[i].start, items[i].start + items[i].len, &f->modules[i],
						&f->tuning[i]);
	} else if (k == K_MODULE_TUNING) {
		rc = read_module_tuning(r, 0, r->n, &f->modules[0], &f->tuning[0]);
		f->n_modules = 1;
	} else if (k == K_HLO_PROTO) {
		rc = read_module(r, items, n, &f->modules[0]);
		f->n_modules = 1;
		if (!rc)
			rc = read_buffers(r, &f->modules[0]);
	} else {
		pbwire_field whole = {0, PB_LEN, 0, 0, 0, r->n};
		rc = read_module(r, &whole, 1, &f->modules[0]);
		f->n_modules = 1;
	}
	free(items);
	return rc;
}

static hm_file *read_plain(const uint8_t *data, size_t n, const char *name, const char *sel, int flags,
			   hs_error *err)
{
	rd r = {.b = data, .n = n, .name = name, .flags = flags, .err = err, .sel = sel};
	if (n == 0) {
		hs_fail(err, HS_EDATA, "%s: empty file", name);
		return NULL;
	}
	kind k = sniff(data, n);
	if (k == K_UNKNOWN) {
		/* Say what is wrong on the wire if anything is, else what is missing. */
		if (pbwire_walk(data, 0, n, &xla__hlo_module_proto__descriptor, 0, 0, err) == 0)
			hs_fail(err, HS_EDATA, "%s: not a TuningData, ModuleTuningData or HloModuleProto (no module name, computations or modules)",
				name);
		else
			hs_error_prefix(err, "%s", name);
		return NULL;
	}
	/* A selected module of a TuningData is walked alone (read_all). */
	uint32_t skip = (flags & HLO_PROTO_NO_RUNS) && k == K_MODULE_TUNING ? 3 : 0;
	if (!(sel && k == K_TUNING) && pbwire_walk(data, 0, n, descriptor_of(k), skip, 0, err)) {
		hs_error_prefix(err, "%s", name);
		return NULL;
	}
	hm_file *f = calloc(1, sizeof *f);
	r.alloc = (ProtobufCAllocator){scratch_alloc, scratch_free, &r.sc};
	if (!f || !(f->path = hs_arena_strdup(&f->arena, name))) {
		hm_file_free(f);
		hs_fail(err, HS_ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	f->source = k == K_TUNING ? HM_SRC_TUNING : k == K_MODULE_TUNING ? HM_SRC_MODULE_TUNING : HM_SRC_HLO_PROTO;
	r.f = f;
	int rc = read_all(&r, k);
	scratch_done(&r.sc);
	if (rc) {
		hm_file_free(f);
		return NULL;
	}
	return f;
}

/* The bytes as they are, or decompressed when they are xz (xz.h). */
static hm_file *read_mem(const uint8_t *data, size_t n, const char *name, const char *sel, int flags,
			 hs_error *err)
{
	if (!xz_sniff(data, n))
		return read_plain(data, n, name, sel, flags, err);
	size_t dn;
	uint8_t *d = xz_decode(data, n, name, xz_max_bytes, &dn, err);
	hm_file *f = d ? read_plain(d, dn, name, sel, flags, err) : NULL;
	free(d);
	return f;
}

hm_file *hlo_proto_read_mem(const uint8_t *data, size_t n, const char *name, int flags, hs_error *err)
{
	return read_mem(data, n, name, NULL, flags, err);
}

hm_file *hlo_proto_read_sel(const char *path, const char *sel, int flags, hs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		hs_fail(err, HS_EDATA, "%s: cannot read: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		hs_fail(err, HS_EDATA, "%s: not a regular file", path);
		return NULL;
	}
	if (hs_input_note_fd(fd, path, err) < 0) {
		close(fd);
		return NULL;
	}
	size_t n = (size_t)st.st_size;
	if (n == 0) {
		close(fd);
		hs_fail(err, HS_EDATA, "%s: empty file", path);
		return NULL;
	}
	void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		hs_fail(err, HS_EDATA, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	hm_file *f = read_mem(m, n, path, sel, flags, err);
	munmap(m, n);
	return f;
}

hm_file *hlo_proto_read(const char *path, int flags, hs_error *err)
{
	return hlo_proto_read_sel(path, NULL, flags, err);
}
