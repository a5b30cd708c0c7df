/* draw.c - heat, layers and groups for the drawings (draw.h). */
#include "query/draw_groups.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/vec.h"
#include "doc/layers.h"
#include "base/units.h"
#include "query/commands.h"
#include "query/query_impl.h"

struct query_draw {
	query_session *s;
	hs_graph *g;
	const hs_layers *l;  /* the session's (query_session_layers), once needed */
	int64_t *next_top;   /* [l->n]: the next top-level namespace, or -1 (a
	                      * table: layers_next_sibling searches for it) */
	uint8_t *executed;   /* [n_nodes] */
};

query_draw *query_draw_new(query_session *s, hs_error *err)
{
	query_draw *d = calloc(1, sizeof *d);

	if (!d) {
		hs_fail(err, HS_ENOMEM, "out of memory starting a drawing");
		return NULL;
	}
	d->s = s;
	d->g = query_session_graph(s);
	return d;
}

void query_draw_free(query_draw *d)
{
	if (!d)
		return;
	free(d->next_top);
	free(d->executed);
	free(d);
}

/* ---- numbers ------------------------------------------------------------- */

double *query_draw_numbers(query_draw *d, const char *expr, int *column, hs_error *err)
{
	query_parser p;
	double *v = NULL;

	if (column)
		*column = 0;
	query_parser_init(&p, d->s, expr, err);
	query_expr *e = query_parse_expr(&p);
	if (e && query_need_number(&p, e, "the heat") == 0 &&
	    query_expect_end(&p, "the end of the expression") == 0) {
		if (query_prepare(d->s, e, err) == 0) {
			v = malloc(((size_t)d->g->n_nodes + 1) * sizeof *v);
			if (!v)
				hs_fail(err, HS_ENOMEM, "out of memory computing %s on %" PRId64 " nodes", expr,
					d->g->n_nodes);
			for (int64_t i = 0; v && i < d->g->n_nodes; i++)
				v[i] = query_eval_num(d->s, e, i);
		}
	}
	if (!v && column && err->status == HS_EUSAGE)
		*column = query_error_column(d->s);
	if (!v && !err->status)
		hs_fail(err, HS_EUSAGE, "'%s' is not a number of nodes", expr);
	query_parser_done(&p);
	return v;
}

const uint8_t *query_draw_executed(query_draw *d)
{
	const hs_graph *g = d->g;

	if (!d->executed) {
		d->executed = malloc((size_t)g->n_nodes + 1);
		for (int64_t v = 0; d->executed && v < g->n_nodes; v++)
			d->executed[v] = (uint8_t)cost_role_executed(graph_node_role(g, v));
	}
	return d->executed;
}

/* ---- the layers ------------------------------------------------------------ */

static int need_layers(query_draw *d, hs_error *err)
{
	if (d->l)
		return 0;
	const hs_layers *l = query_session_layers(d->s, err);
	if (!l)
		return -1;
	d->next_top = malloc(((size_t)l->n + 1) * sizeof *d->next_top);
	if (!d->next_top)
		return hs_fail(err, HS_ENOMEM, "out of memory finding the layers of %s", d->g->name);
	for (int64_t k = l->n - 1, next = -1; k >= 0; k--) {
		d->next_top[k] = next;
		if (l->v[k].parent < 0)
			next = k;
	}
	d->l = l;
	return 0;
}

static int64_t next_sib(const query_draw *d, int64_t k)
{
	return d->l->v[k].parent >= 0 ? d->l->v[k].next_sibling : d->next_top[k];
}

/* The first child of k (the first top-level namespace for the root, -1). */
static int64_t first_child(const query_draw *d, int64_t k)
{
	return k >= 0 ? d->l->v[k].first_child : d->l->n > 0 ? 0 : -1;
}

/* ---- plans: which namespaces are boxes ------------------------------------------ */

/* A box: namespace k, or a run of len repeated siblings from k. */
typedef struct unit {
	int64_t k, len;
	int alive;
} unit;

typedef struct plan {
	query_draw *d;
	const hs_layers *l;
	int64_t *count;     /* [l->n] region nodes at or under */
	int64_t *own;       /* [l->n] region nodes whose layer it is */
	int64_t *state;     /* [l->n] -1 in no box, -2 open, else its unit */
	HS_VEC(unit) u;
	int64_t boxes;      /* alive units and the nodes of open namespaces */
} plan;

static void plan_free(plan *p)
{
	free(p->count);
	free(p->own);
	free(p->state);
	hs_vec_free(&p->u);
}

/* Counts the region's nodes per namespace. */
static int plan_init(plan *p, query_draw *d, const int64_t *nodes, int64_t n)
{
	memset(p, 0, sizeof *p);
	p->d = d;
	p->l = d->l;
	size_t m = (size_t)d->l->n + 1;
	p->count = calloc(m, sizeof *p->count);
	p->own = calloc(m, sizeof *p->own);
	p->state = malloc(m * sizeof *p->state);
	if (!p->count || !p->own || !p->state)
		return -1;
	for (int64_t k = 0; k < d->l->n; k++)
		p->state[k] = -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t k = d->l->layer_of[nodes[i]];
		p->own[k]++;
		for (; k >= 0; k = d->l->v[k].parent)
			p->count[k]++;
	}
	return 0;
}

/* The units of k's children (k = -1: the top-level namespaces) that hold
 * region nodes, a run of repeats (consecutive siblings of one
 * repeat_group) one unit; how many, made into p->u when `make`.  -1: out
 * of memory. */
static int64_t children_units(plan *p, int64_t k, int make)
{
	int64_t n = 0, prev = 0, cur = -1;

	for (int64_t c = first_child(p->d, k); c >= 0; c = next_sib(p->d, c)) {
		if (p->count[c] == 0)
			continue;
		int64_t grp = p->l->v[c].repeat_group;
		if (grp && grp == prev) {
			if (make) {
				p->u.v[cur].len++;
				p->state[c] = cur;
			}
			continue;
		}
		n++;
		prev = grp;
		if (make) {
			if (hs_vec_push(&p->u, ((unit){c, 1, 1})) != 0)
				return -1;
			cur = (int64_t)p->u.n - 1;
			p->state[c] = cur;
		}
	}
	return n;
}

/* Opens namespace k (-1: the root): its own nodes drawn, its children
 * boxes.  -1: out of memory. */
static int open_ns(plan *p, int64_t k)
{
	size_t before = p->u.n;

	if (k >= 0) {
		if (p->state[k] >= 0) {
			p->u.v[p->state[k]].alive = 0;
			p->boxes--;
		}
		p->state[k] = -2;
		p->boxes += p->own[k];
	}
	if (children_units(p, k, 1) < 0)
		return -1;
	p->boxes += (int64_t)(p->u.n - before);
	return 0;
}

/* Adds a unit of the len siblings from k (alive, states set).  -1: out of memory. */
static int add_run(plan *p, int64_t k, int64_t len)
{
	if (len <= 0)
		return 0;
	if (hs_vec_push(&p->u, ((unit){k, len, 1})) != 0)
		return -1;
	for (int64_t i = 0, c = k; i < len && c >= 0; i++, c = next_sib(p->d, c))
		if (p->count[c] > 0)
			p->state[c] = (int64_t)p->u.n - 1;
		else
			i--;
	p->boxes++;
	return 0;
}

/* The run holding m split around it: the siblings before and after stay
 * runs (or single boxes), m a box of its own.  -1: out of memory. */
static int split_run(plan *p, int64_t m)
{
	int64_t u = p->state[m];
	unit run = p->u.v[u];
	int64_t before = 0;

	for (int64_t c = run.k; c >= 0 && c != m; c = next_sib(p->d, c))
		before += p->count[c] > 0;
	p->u.v[u].alive = 0;
	p->boxes--;
	int64_t after_k = next_sib(p->d, m);
	while (after_k >= 0 && p->count[after_k] == 0)
		after_k = next_sib(p->d, after_k);
	if (add_run(p, run.k, before) < 0 || add_run(p, m, 1) < 0 ||
	    add_run(p, after_k, run.len - before - 1) < 0)
		return -1;
	return 0;
}

/* Opens m and every namespace above it that is not open yet.  -1: out of
 * memory. */
static int open_path(plan *p, int64_t m)
{
	int64_t chain[64], n = 0;

	for (int64_t x = m; x >= 0 && p->state[x] != -2 && n < 64; x = p->l->v[x].parent)
		chain[n++] = x;
	while (n > 0) {
		int64_t x = chain[--n];
		if (p->state[x] < 0)
			return 0; /* not reached: an ancestor was not open */
		if (p->u.v[p->state[x]].len > 1 && split_run(p, x) < 0)
			return -1;
		if (open_ns(p, x) < 0)
			return -1;
	}
	return 0;
}

/* ---- groups from a plan -------------------------------------------------------- */

/* Names in natural order: digits compare as numbers (layer_2 < layer_10). */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *x = a, *y = b;
			while (*x == '0')
				x++;
			while (*y == '0')
				y++;
			size_t nx = strspn(x, "0123456789"), ny = strspn(y, "0123456789");
			if (nx != ny)
				return nx < ny ? -1 : 1;
			int c = strncmp(x, y, nx);
			if (c)
				return c;
			a = x + nx;
			b = y + ny;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

/* "layer_0..23 x24": the run's first and last names in natural order (the
 * last without what they share up to a separator), and the count. */
static void run_label(const plan *p, const unit *u, char *buf, size_t cap)
{
	const char *a = p->l->v[u->k].name, *b = a;
	for (int64_t i = 1, c = next_sib(p->d, u->k); i < u->len && c >= 0; c = next_sib(p->d, c)) {
		if (p->count[c] == 0)
			continue;
		const char *nm = p->l->v[c].name;
		if (natural_cmp(nm, a) < 0)
			a = nm;
		if (natural_cmp(nm, b) > 0)
			b = nm;
		i++;
	}
	size_t cut = 0;
	for (size_t i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '_' || a[i] == '.' || a[i] == '-' || a[i] == '/')
			cut = i + 1;
	snprintf(buf, cap, "%s..%s x%" PRId64, a, b + cut, u->len);
}

/* Each alive unit a group: label, size and cost; each region node its
 * unit's group or none (in an open namespace).  0, or -1. */
static int plan_groups(plan *p, const int64_t *nodes, int64_t n, region_groups *out, hs_error *err)
{
	const hs_graph *g = p->d->g;
	int64_t ng = 0;
	int64_t *gid = malloc((p->u.n + 1) * sizeof *gid);
	double *cost = NULL;
	int64_t *size = NULL;

	if (!gid)
		return hs_fail(err, HS_ENOMEM, "out of memory grouping %s by layer", g->name);
	int64_t runs = 0;
	for (size_t i = 0; i < p->u.n; i++) {
		gid[i] = p->u.v[i].alive ? ng++ : -1;
		runs += p->u.v[i].alive && p->u.v[i].len > 1;
	}
	cost = calloc((size_t)ng + 1, sizeof *cost);
	size = calloc((size_t)ng + 1, sizeof *size);
	if (!cost || !size || region_groups_init(out, g, ng, err) < 0) {
		free(gid);
		free(cost);
		free(size);
		return err->status ? -1 : hs_fail(err, HS_ENOMEM, "out of memory grouping by layer");
	}
	const cost_estimate *est = query_session_cost(p->d->s, err);
	const uint8_t *exec = query_draw_executed(p->d);
	for (int64_t i = 0; i < n; i++) {
		int64_t v = nodes[i], x = p->d->l->layer_of[v];
		while (x >= 0 && p->state[x] == -1)
			x = p->l->v[x].parent;
		if (x < 0 || p->state[x] < 0)
			continue;
		int64_t k = gid[p->state[x]];
		out->of[v] = (int32_t)k;
		size[k]++;
		if (est && exec && exec[v] && !est[v].unknown)
			cost[k] += est[v].seconds;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->u.n; i++) {
		const unit *u = &p->u.v[i];
		if (!u->alive)
			continue;
		char label[300], detail[120], tip[900], cnt[32], t[48] = "";
		int64_t k = gid[i];
		if (u->len > 1)
			run_label(p, u, label, sizeof label);
		else
			snprintf(label, sizeof label, "%s", p->l->v[u->k].name);
		hs_num_thousands(cnt, sizeof cnt, size[k]);
		if (cost[k] > 0)
			hs_unit_format(t, sizeof t, HS_U_SECONDS, cost[k], 2);
		snprintf(detail, sizeof detail, "%s node%s%s%s", cnt, hs_s(size[k]), t[0] ? ", " : "", t);
		snprintf(tip, sizeof tip, "%s%s: %s node%s%s%s (analytic cost of its executed instructions)",
			 p->l->v[u->k].path, u->len > 1 ? " and the repeats after it" : "", cnt,
			 hs_s(size[k]), t[0] ? ", " : "", t);
		out->label[k] = region_groups_strdup(out, label);
		out->detail[k] = region_groups_strdup(out, detail);
		out->tip[k] = region_groups_strdup(out, tip);
		if (!out->label[k] || !out->detail[k] || !out->tip[k])
			rc = hs_fail(err, HS_ENOMEM, "out of memory grouping %s by layer", g->name);
	}
	snprintf(out->what, sizeof out->what, "layer");
	if (runs)
		snprintf(out->note, sizeof out->note, "%" PRId64 " run%s of repeated blocks folded",
			 runs, hs_s(runs));
	free(gid);
	free(cost);
	free(size);
	if (rc < 0)
		region_groups_free(out);
	return rc;
}

/* ---- layer drawings ---------------------------------------------------------- */

/* The namespace at `path` ("" and "/" the root, -1), or -2 with err set
 * and the closest path. */
static int64_t find_layer(query_draw *d, const char *path, hs_error *err)
{
	if (!*path || !strcmp(path, "/"))
		return -1;
	int64_t k = layers_find(d->l, path);
	if (k >= 0)
		return k;
	const char **names = malloc(((size_t)d->l->n + 1) * sizeof *names);
	const char *sug = NULL;
	for (int64_t i = 0; names && i < d->l->n; i++)
		names[i] = d->l->v[i].path;
	if (names)
		sug = query_suggest(path, names, (size_t)d->l->n);
	if (sug)
		hs_fail(err, HS_EUSAGE, "%s has no layer '%s' (did you mean '%s'?)", d->g->name, path, sug);
	else
		hs_fail(err, HS_EUSAGE, "%s has no layer '%s' (the query `count by layer` lists them)",
			d->g->name, path);
	free(names);
	return -2;
}

/* 1 when namespace k is under (or is) `top` (-1: the root). */
static int under(const hs_layers *l, int64_t k, int64_t top)
{
	if (top < 0)
		return 1;
	while (k >= 0 && l->v[k].depth > l->v[top].depth)
		k = l->v[k].parent;
	return k == top;
}

/* 1 when word names namespace k: its name, its path or its path's end. */
static int names_layer(const hs_layer *e, const char *word, size_t len)
{
	size_t pl = strlen(e->path);

	if (strlen(e->name) == len && !strncmp(e->name, word, len))
		return 1;
	return pl >= len && !strncmp(e->path + pl - len, word, len) &&
	       (pl == len || e->path[pl - len - 1] == '/');
}

/* Opens the namespaces under `top` the words of `expand` name; the words
 * that name none go to *comps (comma-separated, malloc'd).  0, or -1. */
static int open_named(plan *p, int64_t top, const char *expand, char **comps, hs_error *err)
{
	const hs_layers *l = p->l;
	size_t cap = strlen(expand) + 2, used = 0;

	*comps = calloc(cap, 1);
	if (!*comps)
		return hs_fail(err, HS_ENOMEM, "out of memory");
	for (const char *w = expand; *w;) {
		size_t len = strcspn(w, ",");
		int hit = 0;
		for (int64_t k = 0; k < l->n; k++) {
			if (!p->count[k] || !names_layer(&l->v[k], w, len) || !under(l, k, top))
				continue;
			hit = 1;
			if (open_path(p, k) < 0)
				return hs_fail(err, HS_ENOMEM, "out of memory opening layers");
		}
		if (!hit && len) {
			used += (size_t)snprintf(*comps + used, cap - used, "%s%.*s", used ? "," : "", (int)len, w);
		}
		w += len + (w[len] == ',');
	}
	if (!used) {
		free(*comps);
		*comps = NULL;
	}
	return 0;
}

/* A word of `comps` that is no computation either: the error. */
static int check_comps(query_draw *d, const char *comps, int64_t top, hs_error *err)
{
	for (const char *w = comps; w && *w;) {
		size_t len = strcspn(w, ",");
		char word[200], buf[160];
		snprintf(word, sizeof word, "%.*s", (int)len, w);
		if (graph_find_hcomp(d->g, word) < 0) {
			const char *sug = NULL;
			const char **names = malloc(((size_t)d->l->n + 1) * sizeof *names);
			size_t n = 0;
			for (int64_t k = 0; names && k < d->l->n; k++)
				if (under(d->l, k, top))
					names[n++] = d->l->v[k].name;
			if (names)
				sug = query_suggest(word, names, n);
			if (!sug && query_suggest_computation(d->g, word, buf, sizeof buf))
				sug = buf;
			if (sug)
				hs_fail(err, HS_EUSAGE, "--expand: no layer or computation named '%s' (did you "
					"mean '%s'?)", word, sug);
			else
				hs_fail(err, HS_EUSAGE, "--expand: no layer or computation named '%s'", word);
			free(names);
			return -1;
		}
		w += len + (w[len] == ',');
	}
	return 0;
}

int query_draw_layer(query_draw *d, const char *path, const char *expand, query_layer_draw *out,
		     hs_error *err)
{
	plan p;
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	if (need_layers(d, err) < 0)
		return -1;
	int64_t top = find_layer(d, path, err);
	if (top == -2)
		return -1;
	const hs_graph *g = d->g;
	out->path = strdup(top >= 0 ? d->l->v[top].path : "");
	out->ids = malloc(((size_t)g->n_nodes + 1) * sizeof *out->ids);
	if (!out->path || !out->ids)
		goto oom;
	for (int64_t v = 0; v < g->n_nodes; v++)
		if (under(d->l, d->l->layer_of[v], top))
			out->ids[out->n_ids++] = v;
	if (plan_init(&p, d, out->ids, (int64_t)out->n_ids) < 0 || open_ns(&p, top) < 0)
		goto oom;
	int all = expand && !strcmp(expand, "all");
	if (expand && !all && (open_named(&p, top, expand, &out->expand_comps, err) < 0 ||
			       check_comps(d, out->expand_comps, top, err) < 0))
		goto done;
	if (all) {
		if (region_groups_init(&out->groups, g, 0, err) < 0)
			goto done;
		out->expand_comps = strdup("all");
		if (!out->expand_comps)
			goto oom;
	} else if (plan_groups(&p, out->ids, (int64_t)out->n_ids, &out->groups, err) < 0) {
		goto done;
	}
	rc = 0;
	goto done;
oom:
	hs_fail(err, HS_ENOMEM, "out of memory drawing a layer of %s", g->name);
done:
	plan_free(&p);
	if (rc < 0)
		query_draw_layer_free(out);
	return rc;
}

void query_draw_layer_free(query_layer_draw *out)
{
	free(out->ids);
	free(out->path);
	free(out->expand_comps);
	region_groups_free(&out->groups);
	memset(out, 0, sizeof *out);
}

/* ---- the grouper ------------------------------------------------------------ */

/* A max-heap of units by their nodes. */
typedef HS_VEC(int64_t) heap;

static void heap_up(heap *h, const plan *p, size_t i)
{
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (p->count[p->u.v[h->v[up]].k] >= p->count[p->u.v[h->v[i]].k])
			break;
		int64_t t = h->v[up];
		h->v[up] = h->v[i];
		h->v[i] = t;
		i = up;
	}
}

static int64_t heap_pop(heap *h, const plan *p)
{
	int64_t top = h->v[0];
	h->v[0] = h->v[--h->n];
	for (size_t i = 0;;) {
		size_t a = 2 * i + 1, b = a + 1, m = i;
		if (a < h->n && p->count[p->u.v[h->v[a]].k] > p->count[p->u.v[h->v[m]].k])
			m = a;
		if (b < h->n && p->count[p->u.v[h->v[b]].k] > p->count[p->u.v[h->v[m]].k])
			m = b;
		if (m == i)
			break;
		int64_t t = h->v[m];
		h->v[m] = h->v[i];
		h->v[i] = t;
		i = m;
	}
	return top;
}

/* Pushes the units from `from` that can open (single namespaces). */
static int heap_add(heap *h, const plan *p, size_t from)
{
	for (size_t i = from; i < p->u.n; i++) {
		if (p->u.v[i].len > 1 || !p->u.v[i].alive)
			continue;
		if (hs_vec_push(h, (int64_t)i) != 0)
			return -1;
		heap_up(h, p, h->n - 1);
	}
	return 0;
}

/* A namespace without child namespaces (its own nodes only, as the
 * parameters in "(no op_name)") is opened only when that draws few nodes:
 * a box of a thousand parameters says more than the thousand. */
#define LEAF_OPEN_MAX 32

/* Opens the largest boxes first while the drawing stays within limit. */
static int greedy(plan *p, int64_t limit)
{
	heap h = {0};
	int rc = open_ns(p, -1) == 0 && heap_add(&h, p, 0) == 0 ? 0 : -1;

	while (rc == 0 && h.n > 0) {
		int64_t u = heap_pop(&h, p), k = p->u.v[u].k;
		if (!p->u.v[u].alive || (p->l->v[k].first_child < 0 && p->own[k] > LEAF_OPEN_MAX))
			continue;
		int64_t add = children_units(p, k, 0);
		if (p->boxes - 1 + p->own[k] + add > limit)
			continue;
		size_t before = p->u.n;
		rc = open_ns(p, k) == 0 && heap_add(&h, p, before) == 0 ? 0 : -1;
	}
	hs_vec_free(&h);
	return rc;
}

int query_draw_grouper(void *ctx, const hs_graph *g, const int64_t *nodes, int64_t n,
		       int64_t limit, region_collapse_mode mode, region_groups *out, hs_error *err)
{
	query_draw *d = ctx;
	plan p;

	memset(out, 0, sizeof *out);
	int attrs = (g->knows & HM_KNOWS_ATTRS) != 0;   /* a bare .npz keeps no op_name */
	if (!attrs || need_layers(d, err) < 0)
		return attrs ? -1 : 0;
	int64_t none = layers_find(d->l, LAYER_NONE), in_none = 0;
	for (int64_t i = 0; none >= 0 && i < n; i++)
		in_none += d->l->layer_of[nodes[i]] == none;
	if (mode == REGION_COLLAPSE_AUTO && in_none * 10 >= n * 9)
		return 0;
	int rc = plan_init(&p, d, nodes, n) == 0 && greedy(&p, limit) == 0
		 ? 0 : hs_fail(err, HS_ENOMEM, "out of memory grouping %s by layer", g->name);
	if (rc == 0 && p.boxes <= limit)
		rc = plan_groups(&p, nodes, n, out, err);
	plan_free(&p);
	return rc;
}
