/* module_diff_print.c - the report of a module diff (module_diff.h): text for a
 * terminal, largest changes first, and JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "doc/diff.h"
#include "base/units.h"

/* ---- what the lists hold ----------------------------------------------- */

typedef struct row {
	int64_t v;        /* A node for pairs and only-A, B node for only-B */
	double key;       /* sort key: |cost change|, or cost */
} row;

static int cmp_row(const void *x, const void *y)
{
	const row *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	return (a->v > b->v) - (a->v < b->v);
}

/* Changed pairs by |cost change|, or the unmatched nodes of one side by
 * cost; *n gets the count.  NULL when out of memory. */
static row *ranked(const module_diff *d, int which, int64_t *n)
{
	const hs_graph *g = which == 2 ? d->b : d->a;
	row *r = malloc(((size_t)g->n_nodes + 1) * sizeof *r);
	int64_t k = 0;
	if (!r)
		return NULL;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (which == 0 && d->a2b[v] >= 0 && d->changes[v])
			r[k++] = (row){v, fabs(d->cost_b[d->a2b[v]].seconds - d->cost_a[v].seconds)};
		else if (which == 1 && d->a2b[v] < 0)
			r[k++] = (row){v, d->cost_a[v].seconds};
		else if (which == 2 && d->b2a[v] < 0)
			r[k++] = (row){v, d->cost_b[v].seconds};
	}
	qsort(r, (size_t)k, sizeof *r, cmp_row);
	*n = k;
	return r;
}

void module_diff_change_list(uint32_t ch, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < HD_NCHANGES; i++)
		if (ch & (1u << i))
			k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "%s%s", k ? ", " : "",
					      module_diff_change_name(1u << i));
}

const char *module_diff_fused_into(const module_diff *d, int64_t vb, char *buf, size_t cap)
{
	const hs_graph *b = d->b;
	const hs_hcomp *hc = &b->hcomps[b->hcomp_of[vb]];
	if (hc->role != HS_ROLE_FUSION || hc->n_callers < 1)
		return NULL;
	return graph_node_name(b, b->hcomp_callers[hc->callers_at]);
}

typedef struct totals {
	int64_t instrs, fusions, comps;
	cost_estimate cost;
} totals;

static totals side_totals(const hs_graph *g, const cost_estimate *est)
{
	totals t = {g->n_nodes, graph_n_fusions(g), g->n_hcomps, cost_executed_total(g, est)};
	return t;
}

/* ---- text ------------------------------------------------------------------ */

static void print_totals(const module_diff *d, FILE *out)
{
	totals ta = side_totals(d->a, d->cost_a), tb = side_totals(d->b, d->cost_b);
	char x[48], y[48], z[48];
	fprintf(out, "\n%-16s %16s %16s %16s\n", "", "A", "B", "change");
	fprintf(out, "%-16s %16" PRId64 " %16" PRId64 " %+16" PRId64 "\n", "instructions", ta.instrs,
		tb.instrs, tb.instrs - ta.instrs);
	fprintf(out, "%-16s %16" PRId64 " %16" PRId64 " %+16" PRId64 "\n", "computations", ta.comps,
		tb.comps, tb.comps - ta.comps);
	fprintf(out, "%-16s %16" PRId64 " %16" PRId64 " %+16" PRId64 "\n", "fusions", ta.fusions,
		tb.fusions, tb.fusions - ta.fusions);
	static const struct {
		const char *label;
		int unit, decimals;
	} rows[] = {{"flops", HS_U_FLOP, -1}, {"bytes", HS_U_BYTES, -1}, {"analytic time", HS_U_SECONDS, 3}};
	const double a[3] = {ta.cost.flops, ta.cost.bytes, ta.cost.seconds};
	const double b[3] = {tb.cost.flops, tb.cost.bytes, tb.cost.seconds};
	for (int i = 0; i < 3; i++) {
		hs_unit_format(x, sizeof x, rows[i].unit, a[i], rows[i].decimals);
		hs_unit_format(y, sizeof y, rows[i].unit, b[i], rows[i].decimals);
		hs_unit_format_signed(z, sizeof z, rows[i].unit, b[i] - a[i], rows[i].decimals);
		fprintf(out, "%-16s %16s %16s %16s\n", rows[i].label, x, y, z);
	}
}

typedef struct text_ctx {
	const module_diff *d;
	FILE *out;
	int64_t vb;
} text_ctx;

/* One change on a line of its own: "opcode: multiply -> subtract",
 * "dimensions: {0} -> {1}" (long values cut). */
static void text_detail(void *ctx, unsigned change, const char *attr, const char *old, const char *new_)
{
	text_ctx *c = ctx;
	const int cut = 100;
	char fz[96];
	fprintf(c->out, "      %s: %.*s%s -> %.*s%s", attr ? attr : module_diff_change_name(change), cut,
		old ? old : "(none)", old && strlen(old) > cut ? "..." : "", cut, new_ ? new_ : "(none)",
		new_ && strlen(new_) > cut ? "..." : "");
	const char *f = change == HD_COMPUTATION ? module_diff_fused_into(c->d, c->vb, fz, sizeof fz) : NULL;
	fprintf(c->out, "%s%s\n", f ? ", fused into " : "", f ? f : "");
}

/* Each matched pair whose names differ: its instructions, then the
 * computations (fn gets A's name and B's). */
static void each_rename(const module_diff *d, void (*fn)(void *, const char *, const char *, int), void *ctx)
{
	if (!(d->a->knows & d->b->knows & HM_KNOWS_NAMES))
		return;
	for (int pass = 0; pass < 2; pass++) {
		int64_t n = pass ? d->a->n_hcomps : d->a->n_nodes;
		for (int64_t v = 0; v < n; v++) {
			int64_t w = pass ? d->comp_a2b[v] : d->a2b[v];
			if (w < 0)
				continue;
			const char *p = pass ? graph_hcomp_name(d->a, v) : graph_node_name(d->a, v);
			const char *q = pass ? graph_hcomp_name(d->b, w) : graph_node_name(d->b, w);
			if (strcmp(p, q) != 0)
				fn(ctx, p, q, pass);
		}
	}
}

typedef struct rename_text {
	FILE *out;
	int64_t limit, shown[2];
} rename_text;

static void text_rename(void *ctx, const char *old, const char *new_, int comp)
{
	rename_text *r = ctx;
	if (!r->limit || r->shown[comp] < r->limit)
		fprintf(r->out, "  %s%-32s -> %s\n", comp ? "computation " : "", old, new_);
	r->shown[comp]++;
}

static void print_renamed(const module_diff *d, FILE *out, int64_t limit)
{
	rename_text r = {out, limit, {0, 0}};
	fprintf(out, "\nrenamed, the same otherwise (%" PRId64 ")\n", d->renamed);
	each_rename(d, text_rename, &r);
	for (int c = 0; c < 2; c++)
		if (limit && r.shown[c] > limit)
			fprintf(out, "  ... %" PRId64 " more %s\n", r.shown[c] - limit, c ? "computations" : "instructions");
}

static int print_changed(const module_diff *d, FILE *out, int64_t limit)
{
	int64_t n;
	row *r = ranked(d, 0, &n);
	char ch[160], ca[32], cb[32];
	if (!r)
		return -1;
	fprintf(out, "\nchanged, the largest cost change first (%" PRId64 ")\n", n);
	if (n)
		fprintf(out, "  %-32s %-32s %-28s %11s %11s\n", "A", "B", "changes", "cost A", "cost B");
	for (int64_t i = 0; i < n && (!limit || i < limit); i++) {
		int64_t va = r[i].v, vb = d->a2b[va];
		module_diff_change_list(d->changes[va], ch, sizeof ch);
		hs_unit_format(ca, sizeof ca, HS_U_SECONDS, d->cost_a[va].seconds, 3);
		hs_unit_format(cb, sizeof cb, HS_U_SECONDS, d->cost_b[vb].seconds, 3);
		fprintf(out, "  %-32s %-32s %-28s %11s %11s\n", graph_node_name(d->a, va),
			graph_node_name(d->b, vb), ch, ca, cb);
		text_ctx c = {d, out, vb};
		if (module_diff_details(d, va, text_detail, &c) != 0) {
			free(r);
			return -1;
		}
	}
	if (limit && n > limit)
		fprintf(out, "  ... %" PRId64 " more\n", n - limit);
	free(r);
	return 0;
}

static int print_only(const module_diff *d, FILE *out, int side, int64_t limit)
{
	const hs_graph *g = side == 1 ? d->a : d->b;
	const cost_estimate *est = side == 1 ? d->cost_a : d->cost_b;
	int64_t n;
	row *r = ranked(d, side, &n);
	char c[32];
	if (!r)
		return -1;
	fprintf(out, "\nonly in %s, the costliest first (%" PRId64 ")\n", side == 1 ? "A" : "B", n);
	for (int64_t i = 0; i < n && (!limit || i < limit); i++) {
		int64_t v = r[i].v;
		hs_unit_format(c, sizeof c, HS_U_SECONDS, est[v].seconds, 3);
		fprintf(out, "  %-32s %-20s %-32s %11s\n", graph_node_name(g, v),
			graph_node_opcode_name(g, v), graph_hcomp_name(g, g->hcomp_of[v]), c);
	}
	if (limit && n > limit)
		fprintf(out, "  ... %" PRId64 " more\n", n - limit);
	free(r);
	return 0;
}

/* Per computation of A: its counterpart, pairs, changed, only in A; then
 * B's computations no A computation corresponds to. */
static void print_by_comp(const module_diff *d, FILE *out, int64_t limit)
{
	const hs_graph *a = d->a, *b = d->b;
	int64_t shown = 0;
	fprintf(out, "\nper computation (those with a change)\n  %-36s %-36s %8s %8s %8s\n", "A", "B",
		"changed", "only A", "only B");
	uint8_t *seen = calloc((size_t)b->n_hcomps + 1, 1);
	for (int64_t c = 0; c < a->n_hcomps; c++) {
		const hs_hcomp *hc = &a->hcomps[c];
		int64_t ch = 0, oa = 0, ob = 0, w = d->comp_a2b[c];
		for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
			ch += d->a2b[v] >= 0 && d->changes[v];
			oa += d->a2b[v] < 0;
		}
		if (w >= 0) {
			if (seen)
				seen[w] = 1;
			for (int64_t v = b->hcomps[w].first; v < b->hcomps[w].first + b->hcomps[w].count; v++)
				ob += d->b2a[v] < 0;
		}
		if (!ch && !oa && !ob && w >= 0)
			continue;
		if (!limit || shown++ < limit)
			fprintf(out, "  %-36s %-36s %8" PRId64 " %8" PRId64 " %8" PRId64 "\n",
				graph_hcomp_name(a, c),
				w >= 0 ? graph_hcomp_name(b, w) : "(none)", ch, oa, ob);
	}
	for (int64_t w = 0; seen && w < b->n_hcomps; w++)
		if (!seen[w] && (!limit || shown++ < limit))
			fprintf(out, "  %-36s %-36s %8d %8d %8" PRId64 "\n", "(none)",
				graph_hcomp_name(b, w), 0, 0, b->hcomps[w].count);
	if (limit && shown > limit)
		fprintf(out, "  ... %" PRId64 " more\n", shown - limit);
	free(seen);
}

/* Opcodes whose count or changes differ. */
typedef struct opstat {
	const char *op;
	int64_t a, b, changed;
} opstat;

static opstat *op_stats(const module_diff *d, int64_t *n)
{
	opstat *s = calloc((size_t)(d->a->n_nodes + d->b->n_nodes) + 1, sizeof *s);
	int64_t k = 0;
	if (!s)
		return NULL;
	for (int side = 0; side < 2; side++) {
		const hs_graph *g = side ? d->b : d->a;
		for (int64_t v = 0; v < g->n_nodes; v++) {
			const char *op = graph_node_opcode_name(g, v);
			int64_t i = 0;
			while (i < k && strcmp(s[i].op, op) != 0)
				i++;
			if (i == k)
				s[k++].op = op;
			if (side)
				s[i].b++;
			else {
				s[i].a++;
				s[i].changed += d->a2b[v] >= 0 && d->changes[v];
			}
		}
	}
	*n = k;
	return s;
}

static int print_by_opcode(const module_diff *d, FILE *out)
{
	int64_t n;
	opstat *s = op_stats(d, &n);
	if (!s)
		return -1;
	fprintf(out, "\nper opcode (those with a change)\n  %-28s %8s %8s %8s\n", "opcode", "A", "B", "changed");
	for (int64_t i = 0; i < n; i++)
		if (s[i].a != s[i].b || s[i].changed)
			fprintf(out, "  %-28s %8" PRId64 " %8" PRId64 " %8" PRId64 "\n", s[i].op, s[i].a, s[i].b,
				s[i].changed);
	free(s);
	return 0;
}

int module_diff_print_text(const module_diff *d, FILE *out, int64_t limit)
{
	fprintf(out, "A  %s: module %s, %" PRId64 " instructions\n", d->a->path, graph_module_name(d->a),
		d->a->n_nodes);
	fprintf(out, "B  %s: module %s, %" PRId64 " instructions\n", d->b->path, graph_module_name(d->b),
		d->b->n_nodes);
	if (!d->changed && !d->only_a && !d->only_b) {
		fprintf(out, "no change: every instruction matched, none differs (%" PRId64 " matched, %" PRId64
			" renamed)\n", d->matched, d->renamed);
		print_totals(d, out);
		if (d->renamed)
			print_renamed(d, out, limit);
		return ferror(out) ? -1 : 0;
	}
	fprintf(out, "matched %" PRId64 " (%" PRId64 " by structure, %" PRId64 " by neighbours, %" PRId64
		" by name): %" PRId64 " unchanged, %" PRId64 " changed, %" PRId64 " renamed; only in A %" PRId64
		", only in B %" PRId64 "\n", d->matched, d->by_how[HD_BY_STRUCTURE], d->by_how[HD_BY_NEIGHBOURS],
		d->by_how[HD_BY_NAME], d->matched - d->changed, d->changed, d->renamed, d->only_a, d->only_b);
	print_totals(d, out);
	int bad = print_changed(d, out, limit);
	if (d->renamed)
		print_renamed(d, out, limit);
	bad |= print_only(d, out, 1, limit) | print_only(d, out, 2, limit);
	print_by_comp(d, out, limit);
	bad |= print_by_opcode(d, out);
	return bad || ferror(out) ? -1 : 0;
}

/* ---- JSON -------------------------------------------------------------------- */

static void json_side(jsonw *w, const hs_graph *g, const cost_estimate *est)
{
	totals t = side_totals(g, est);
	jsonw_obj_begin(w);
	jsonw_key(w, "file"), jsonw_str(w, g->path);
	jsonw_key(w, "module"), jsonw_str(w, graph_module_name(g));
	jsonw_key(w, "instructions"), jsonw_int(w, t.instrs);
	jsonw_key(w, "computations"), jsonw_int(w, t.comps);
	jsonw_key(w, "fusions"), jsonw_int(w, t.fusions);
	jsonw_key(w, "flops"), jsonw_num(w, t.cost.flops);
	jsonw_key(w, "bytes"), jsonw_num(w, t.cost.bytes);
	jsonw_key(w, "analytic_ns"), jsonw_num(w, t.cost.seconds * 1e9);
	jsonw_obj_end(w);
}

static int json_names(jsonw *w, const module_diff *d, int side)
{
	int64_t n;
	row *r = ranked(d, side, &n);
	const hs_graph *g = side == 1 ? d->a : d->b;
	jsonw_arr_begin(w);
	for (int64_t i = 0; r && i < n; i++)
		jsonw_str(w, graph_node_name(g, r[i].v));
	jsonw_arr_end(w);
	free(r);
	return r ? 0 : -1;
}

typedef struct json_ctx {
	jsonw *w;
	int in_attrs;   /* the "attributes" list is open */
} json_ctx;

static void json_str_or_null(jsonw *w, const char *s)
{
	if (s)
		jsonw_str(w, s);
	else
		jsonw_null(w);
}

/* "opcode": {"old": ..., "new": ...}, ...; the attributes in one list
 * (module_diff_details gives them together, after the others). */
static void json_detail(void *ctx, unsigned change, const char *attr, const char *old, const char *new_)
{
	json_ctx *c = ctx;
	if (attr && !c->in_attrs) {
		jsonw_key(c->w, "attributes");
		jsonw_arr_begin(c->w);
		c->in_attrs = 1;
	}
	if (!attr)
		jsonw_key(c->w, module_diff_change_name(change));
	jsonw_obj_begin(c->w);
	if (attr)
		jsonw_key(c->w, "name"), jsonw_str(c->w, attr);
	jsonw_key(c->w, "old"), json_str_or_null(c->w, old);
	jsonw_key(c->w, "new"), json_str_or_null(c->w, new_);
	jsonw_obj_end(c->w);
}

typedef struct rename_json {
	jsonw *w;
	int comp;       /* which list is being written */
} rename_json;

static void json_rename(void *ctx, const char *old, const char *new_, int comp)
{
	rename_json *r = ctx;
	if (comp != r->comp)
		return;
	jsonw_obj_begin(r->w);
	jsonw_key(r->w, "old"), jsonw_str(r->w, old);
	jsonw_key(r->w, "new"), jsonw_str(r->w, new_);
	jsonw_obj_end(r->w);
}

static void json_renamed(jsonw *w, const module_diff *d, int comp)
{
	rename_json r = {w, comp};
	jsonw_arr_begin(w);
	each_rename(d, json_rename, &r);
	jsonw_arr_end(w);
}

static int json_changed(jsonw *w, const module_diff *d)
{
	int64_t n;
	row *r = ranked(d, 0, &n);
	char nb[160];
	int bad = r ? 0 : -1;
	jsonw_arr_begin(w);
	for (int64_t i = 0; r && i < n; i++) {
		int64_t va = r[i].v, vb = d->a2b[va];
		jsonw_obj_begin(w);
		jsonw_key(w, "a"), jsonw_str(w, graph_node_name(d->a, va));
		jsonw_key(w, "b"), jsonw_str(w, graph_node_name(d->b, vb));
		jsonw_key(w, "changes");
		jsonw_arr_begin(w);
		for (int k = 0; k < HD_NCHANGES; k++)
			if (d->changes[va] & (1u << k))
				jsonw_str(w, module_diff_change_name(1u << k));
		jsonw_arr_end(w);
		json_ctx c = {w, 0};
		bad |= module_diff_details(d, va, json_detail, &c);
		if (c.in_attrs)
			jsonw_arr_end(w);
		jsonw_key(w, "computation_a"), jsonw_str(w, graph_hcomp_name(d->a, d->a->hcomp_of[va]));
		jsonw_key(w, "computation_b"), jsonw_str(w, graph_hcomp_name(d->b, d->b->hcomp_of[vb]));
		const char *f = module_diff_fused_into(d, vb, nb, sizeof nb);
		if ((d->changes[va] & HD_COMPUTATION) && f)
			jsonw_key(w, "fused_into"), jsonw_str(w, f);
		jsonw_key(w, "cost_a_ns"), jsonw_num(w, d->cost_a[va].seconds * 1e9);
		jsonw_key(w, "cost_b_ns"), jsonw_num(w, d->cost_b[vb].seconds * 1e9);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	free(r);
	return bad;
}

static int json_summary(jsonw *w, const module_diff *d)
{
	int64_t n;
	jsonw_obj_begin(w);
	jsonw_key(w, "a"), json_side(w, d->a, d->cost_a);
	jsonw_key(w, "b"), json_side(w, d->b, d->cost_b);
	jsonw_key(w, "matched_by");
	jsonw_obj_begin(w);
	jsonw_key(w, "name"), jsonw_int(w, d->by_how[HD_BY_NAME]);
	jsonw_key(w, "structure"), jsonw_int(w, d->by_how[HD_BY_STRUCTURE]);
	jsonw_key(w, "neighbours"), jsonw_int(w, d->by_how[HD_BY_NEIGHBOURS]);
	jsonw_obj_end(w);
	jsonw_key(w, "computations");
	jsonw_arr_begin(w);
	for (int64_t c = 0; c < d->a->n_hcomps; c++) {
		const hs_hcomp *hc = &d->a->hcomps[c];
		int64_t ch = 0, oa = 0, wc = d->comp_a2b[c];
		for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
			ch += d->a2b[v] >= 0 && d->changes[v];
			oa += d->a2b[v] < 0;
		}
		jsonw_obj_begin(w);
		jsonw_key(w, "a"), jsonw_str(w, graph_hcomp_name(d->a, c));
		jsonw_key(w, "b");
		if (wc >= 0)
			jsonw_str(w, graph_hcomp_name(d->b, wc));
		else
			jsonw_null(w);
		jsonw_key(w, "changed"), jsonw_int(w, ch);
		jsonw_key(w, "only_a"), jsonw_int(w, oa);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	opstat *s = op_stats(d, &n);
	jsonw_key(w, "opcodes");
	jsonw_arr_begin(w);
	for (int64_t i = 0; s && i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_key(w, "opcode"), jsonw_str(w, s[i].op);
		jsonw_key(w, "a"), jsonw_int(w, s[i].a);
		jsonw_key(w, "b"), jsonw_int(w, s[i].b);
		jsonw_key(w, "changed"), jsonw_int(w, s[i].changed);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	free(s);
	return s ? 0 : -1;
}

int module_diff_print_json(const module_diff *d, FILE *out, hs_error *err)
{
	jsonw w;
	jsonw_init(&w, out, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "differ"), jsonw_bool(&w, module_diff_differs(d));
	jsonw_key(&w, "matched"), jsonw_int(&w, d->matched);
	jsonw_key(&w, "unchanged"), jsonw_int(&w, d->matched - d->changed);
	jsonw_key(&w, "unmatched_a");
	int bad = json_names(&w, d, 1);
	jsonw_key(&w, "unmatched_b");
	bad |= json_names(&w, d, 2);
	jsonw_key(&w, "changed");
	bad |= json_changed(&w, d);
	jsonw_key(&w, "renamed"), json_renamed(&w, d, 0);
	jsonw_key(&w, "renamed_computations"), json_renamed(&w, d, 1);
	jsonw_key(&w, "summary");
	bad |= json_summary(&w, d);
	jsonw_obj_end(&w);
	if (jsonw_finish(&w, err) != 0)
		return -1;
	return bad ? hs_fail(err, HS_ENOMEM, "out of memory writing the diff of %s and %s", d->a->path, d->b->path) : 0;
}
