/* session.c - query sessions: field tables, the graph a session is bound
 * to, and the lazy caches of that graph.
 *
 * Caches are built the first time a command needs them and dropped when the
 * session is rebound: decoded shapes (rank, elem, shape text), the analytic
 * cost of every node, the model's (or the analytic) config predictions and
 * the runtime ranks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strbuf.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo_module.h"
#include "model/metrics.h"
#include "query/query_impl.h"

/* ---- fields --------------------------------------------------------- */

static const query_field node_derived[] = {
	{"id", QF_ID, 0, QUERY_NUM, "node index (0-based, as in edge_index)"},
	{"name", QF_HTEXT, HS_HF_NAME, QUERY_TEXT, "instruction name (dot.42); derived on a bare .npz: opcode.id"},
	{"opcode", QF_OPCODE, 0, QUERY_TEXT, "HLO opcode name (compare with a bare word: opcode = dot); as written when not a learned opcode"},
	{"opcode_id", QF_OPCODE_ID, 0, QUERY_NUM, "opcode id as stored in node_opcode"},
	{"category", QF_CATEGORY, 0, QUERY_TEXT, "opcode category (elementwise, data-movement, convolution, ...)"},
	{"computation", QF_HTEXT, HS_HF_COMPUTATION, QUERY_TEXT, "the HLO computation holding the node (entry, fused_computation.3; derived on a bare .npz: entry, computation.K); compared with a number it means split"},
	{"computation_name", QF_HTEXT, HS_HF_COMPUTATION, QUERY_TEXT, "the same as computation"},
	{"computation_role", QF_ROLE, 0, QUERY_TEXT, "what the node's computation is for: entry, fusion, reducer, while-body, while-condition, branch, call, async, other"},
	{"split", QF_SPLIT, 0, QUERY_NUM, "the node_splits segment holding the node (0 when the graph has one)"},
	{"operands", QF_OPERANDS, 0, QUERY_NUM, "number of operands in HLO order, a repeated one counted each time (the dataset's edges on a bare .npz)"},
	{"operand_count", QF_OPERANDS, 0, QUERY_NUM, "the same as operands"},
	{"operand_names", QF_OPERAND_NAMES, 0, QUERY_TEXT, "the operands' names in HLO order, repeats kept: \"a, b, a\" (the dataset's edges on a bare .npz)"},
	{"users", QF_USERS, 0, QUERY_NUM, "number of users: the nodes that have it as an operand, each once"},
	{"elem", QF_ELEM, 0, QUERY_TEXT, "output element type (f32, bf16, pred, tuple, ...)"},
	{"shape", QF_SHAPE, 0, QUERY_TEXT, "output shape as HLO writes it: bf16[8,56,56,64]{3,2,1,0}, (f32[], s32[2]{0})"},
	{"rank", QF_RANK, 0, QUERY_NUM, "output rank"},
	{"elements", QF_ELEMENTS, 0, QUERY_NUM, "output element count"},
	{"configurable", QF_CONFIGURABLE, 0, QUERY_NUM, "1 for nodes with layout configs (layout graphs), else 0"},
	{"cost", QF_COST, 0, QUERY_NUM, "analytic time estimate in seconds (model/cost.h); null when the model does not know the op's cost"},
	{"flops", QF_FLOPS, 0, QUERY_NUM, "analytic floating-point operations; null when unknown"},
	{"bytes", QF_BYTES, 0, QUERY_NUM, "analytic bytes read and written; null when unknown"},
	{"hlo", QF_HLO, 0, QUERY_TEXT, "the instruction's whole HLO line, as written (printed for a protobuf); empty on .npz"},
	{"fusion_kind", QF_HTEXT, HS_HF_FUSION_KIND, QUERY_TEXT, "kLoop, kInput, kOutput, kCustom (fusions); empty otherwise and on .npz"},
	{"op_type", QF_HTEXT, HS_HF_OP_TYPE, QUERY_TEXT, "metadata op_type (framework op); empty when absent and on .npz"},
	{"op_name", QF_HTEXT, HS_HF_OP_NAME, QUERY_TEXT, "metadata op_name; empty when absent and on .npz"},
	{"source_file", QF_HTEXT, HS_HF_SOURCE_FILE, QUERY_TEXT, "metadata source_file; empty when absent and on .npz"},
	{"source_line", QF_SOURCE_LINE, 0, QUERY_NUM, "metadata source_line; null when absent and on .npz"},
	{"custom_call_target", QF_HTEXT, HS_HF_CUSTOM_CALL_TARGET, QUERY_TEXT, "custom-call target; empty otherwise and on .npz"},
	{"sharding", QF_HTEXT, HS_HF_SHARDING, QUERY_TEXT, "sharding as written ({replicated}); empty when absent and on .npz"},
};
#define N_NODE_DERIVED (sizeof node_derived / sizeof node_derived[0])

static const query_field config_derived[] = {
	{"config", QF_CONFIG, 0, QUERY_NUM, "config index"},
	{"runtime", QF_RUNTIME, 0, QUERY_NUM, "measured runtime (tile: normalized; layout: ns); null when hidden"},
	{"runtime_ns", QF_RUNTIME_NS, 0, QUERY_NUM, "config_runtime as stored (ns); null when hidden"},
	{"normalizer", QF_NORMALIZER, 0, QUERY_NUM, "config_runtime_normalizers (tile graphs)"},
	{"predicted", QF_PREDICTED, 0, QUERY_NUM, "the model's score (analytic estimate without a model); lower = faster"},
	{"runtime_rank", QF_RUNTIME_RANK, 0, QUERY_NUM, "1 = fastest measured config"},
	{"predicted_rank", QF_PREDICTED_RANK, 0, QUERY_NUM, "1 = fastest predicted config"},
};
#define N_CONFIG_DERIVED (sizeof config_derived / sizeof config_derived[0])

static void text_map_free(struct query_text_map *m);

/* attr('NAME') texts of the bound graph: one map per attribute name. */
struct query_attr_map {
	char *name;
	struct query_text_map *m;
};

static void drop_caches(query_session *s)
{
	text_map_free(s->shape_text);
	for (int f = 0; f < HS_NHFIELDS; f++) {
		text_map_free(s->htext[f]);
		s->htext[f] = NULL;
	}
	for (int k = 0; k < QUERY_NDTEXT; k++) {
		text_map_free(s->dtext[k]);
		s->dtext[k] = NULL;
	}
	for (size_t i = 0; i < s->n_attrs; i++) {
		free(s->attrs[i].name);
		text_map_free(s->attrs[i].m);
	}
	free(s->attrs);
	s->attrs = NULL;
	s->n_attrs = 0;
	free(s->shapes);
	free(s->cost);
	free(s->predicted);
	free(s->runtime_rank);
	free(s->predicted_rank);
	free(s->predicted_error);
	s->shape_text = NULL;
	s->shapes = NULL;
	s->cost = NULL;
	s->predicted = NULL;
	s->runtime_rank = NULL;
	s->predicted_rank = NULL;
	s->predicted_error = NULL;
	s->predicted_status = 0;
	s->rt_done = 0;
}

static void free_fields(query_session *s)
{
	if (s->feature_names)
		for (size_t i = 0; i < s->n_node_fields; i++)
			free(s->feature_names[i]);
	if (s->config_names)
		for (size_t i = 0; i < s->n_config_fields; i++)
			free(s->config_names[i]);
	free(s->feature_names);
	free(s->config_names);
	free(s->node_fields);
	free(s->config_fields);
	s->feature_names = s->config_names = NULL;
	s->node_fields = s->config_fields = NULL;
	s->n_node_fields = s->n_config_fields = 0;
}

static int has_derived_name(const query_field *d, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return 1;
	return 0;
}

/* Derived fields, then one field per feature column (a feature whose name
 * a derived field already takes is reachable as f<i>). */
static int build_fields(query_session *s, hs_error *err)
{
	const hs_graph *g = s->g;
	int w = g->feat_width > 0 ? g->feat_width : 0;
	int cw = g->kind == HS_KIND_TILE && g->config_width > 0 ? g->config_width : 0;

	s->node_fields = calloc(N_NODE_DERIVED + (size_t)w, sizeof *s->node_fields);
	s->feature_names = calloc(N_NODE_DERIVED + (size_t)w, sizeof *s->feature_names);
	s->config_fields = calloc(N_CONFIG_DERIVED + (size_t)cw, sizeof *s->config_fields);
	s->config_names = calloc(N_CONFIG_DERIVED + (size_t)cw, sizeof *s->config_names);
	if (!s->node_fields || !s->feature_names || !s->config_fields || !s->config_names)
		goto oom;
	memcpy(s->node_fields, node_derived, sizeof node_derived);
	s->n_node_fields = N_NODE_DERIVED;
	for (int i = 0; i < w; i++) {
		query_field *f = &s->node_fields[s->n_node_fields];
		const char *name = hlo_node_feature_name(i, w);
		char generic[32];
		if (has_derived_name(node_derived, N_NODE_DERIVED, name)) {
			snprintf(generic, sizeof generic, "f%d", i);
			name = generic;
		}
		s->feature_names[s->n_node_fields] = strdup(name);
		if (!s->feature_names[s->n_node_fields])
			goto oom;
		f->name = s->feature_names[s->n_node_fields];
		f->kind = QF_FEATURE;
		f->index = i;
		f->type = QUERY_NUM;
		f->help = hlo_node_feature_help(i, w);
		s->n_node_fields++;
	}

	size_t nc = 0;
	for (size_t i = 0; i < N_CONFIG_DERIVED; i++) {
		if (config_derived[i].kind == QF_NORMALIZER && g->kind != HS_KIND_TILE)
			continue;
		s->config_fields[nc++] = config_derived[i];
	}
	for (int i = 0; i < cw; i++) {
		query_field *f = &s->config_fields[nc];
		s->config_names[nc] = strdup(hlo_tile_config_name(i, cw));
		if (!s->config_names[nc])
			goto oom;
		f->name = s->config_names[nc];
		f->kind = QF_CONFIG_FEATURE;
		f->index = i;
		f->type = QUERY_NUM;
		f->help = "tile config feature (config_feat)";
		nc++;
	}
	s->n_config_fields = nc;
	return 0;
oom:
	return hs_fail(err, HS_ENOMEM, "out of memory building the field table");
}

/* The file of a graph opened alone: its path, and what the path says. */
static void own_ref(query_session *s)
{
	ds_entry e;

	memset(&e, 0, sizeof e);
	dataset_classify_path(s->g && s->g->path ? s->g->path : "", &e);
	memcpy(s->own_coll, e.collection, sizeof s->own_coll);
	memcpy(s->own_search, e.search, sizeof s->own_search);
	memcpy(s->own_split, e.split, sizeof s->own_split);
	s->own_ref = (query_graph_ref){
		.path = s->g && s->g->path ? s->g->path : "",
		.rel = s->g && s->g->path ? s->g->path : "",
		.collection = s->own_coll,
		.search = s->own_search,
		.split = s->own_split,
	};
	s->ref = &s->own_ref;
}

static int bind(query_session *s, hs_graph *g, hs_error *err)
{
	drop_caches(s);
	free_fields(s);
	s->g = g;
	own_ref(s);
	return build_fields(s, err);
}

void query_session_bind(query_session *s, hs_graph *g, const query_graph_ref *ref)
{
	drop_caches(s);
	s->g = g;
	s->ref = ref;
}

/* A session with its opcode names and nothing bound. */
static query_session *session_alloc(hs_error *err)
{
	query_session *s = calloc(1, sizeof *s);

	if (!s) {
		hs_fail(err, HS_ENOMEM, "out of memory starting a query session");
		return NULL;
	}
	for (int i = 0; i < 256; i++) {
		s->opcode_names[i] = strdup(hlo_opcode_name(i));
		if (!s->opcode_names[i]) {
			query_session_free(s);
			hs_fail(err, HS_ENOMEM, "out of memory starting a query session");
			return NULL;
		}
	}
	return s;
}

query_session *query_session_new(hs_graph *g, hs_error *err)
{
	query_session *s = session_alloc(err);

	if (s && bind(s, g, err) < 0) {
		query_session_free(s);
		return NULL;
	}
	return s;
}

query_session *query_session_new_dataset(const ds_index *ix, hs_error *err)
{
	query_session *s = session_alloc(err);

	if (!s)
		return NULL;
	/* Field tables as for the dataset's graphs; tile, so that normalizer
	 * and the config features exist too. */
	s->stub = calloc(1, sizeof *s->stub);
	if (!s->stub) {
		query_session_free(s);
		hs_fail(err, HS_ENOMEM, "out of memory starting a query session");
		return NULL;
	}
	s->stub->kind = HS_KIND_TILE;
	s->stub->feat_width = HLO_NODE_FEATURES;
	s->stub->config_width = HLO_TILE_CONFIG_FEATURES;
	s->ix = ix;
	if (bind(s, s->stub, err) < 0) {
		query_session_free(s);
		return NULL;
	}
	s->own_ref.path = s->own_ref.rel = ix->root;
	return s;
}

query_session *query_session_worker(const query_session *parent)
{
	hs_error err;
	query_session *s = session_alloc(&err);

	if (s)
		s->model = parent->model;
	return s;
}

const ds_index *query_session_dataset(const query_session *s)
{
	return s->ix;
}

void query_session_set_threads(query_session *s, int n)
{
	s->threads = n > 0 ? n : 0;
}

void query_session_set_progress(query_session *s, query_progress_fn fn, void *ctx)
{
	s->progress = fn;
	s->progress_ctx = ctx;
}

int query_stopped(const query_session *s)
{
	return s->stopped;
}

void query_session_free(query_session *s)
{
	if (!s)
		return;
	drop_caches(s);
	free_fields(s);
	for (int i = 0; i < 256; i++)
		free(s->opcode_names[i]);
	free(s->stub);
	free(s);
}

void query_session_set_graph(query_session *s, hs_graph *g)
{
	hs_error err;

	if (s->ix) /* a folder session stays one */
		return;
	/* Only out of memory can fail here; the field table is then empty and
	 * every query reports unknown fields rather than crashing. */
	if (bind(s, g, &err) < 0)
		free_fields(s);
}

hs_graph *query_session_graph(const query_session *s)
{
	return s->g;
}

void query_session_set_model(query_session *s, const hs_model *m)
{
	if (s->model == m)
		return;
	s->model = m;
	free(s->predicted);
	free(s->predicted_rank);
	free(s->predicted_error);
	s->predicted = NULL;
	s->predicted_rank = NULL;
	s->predicted_error = NULL;
	s->predicted_status = 0;
}

int query_error_column(const query_session *s)
{
	return s->err_col;
}

size_t query_field_count(const query_session *s)
{
	return s->n_node_fields;
}

const char *query_field_name(const query_session *s, size_t i)
{
	return i < s->n_node_fields ? s->node_fields[i].name : NULL;
}

static const query_field *fields_of(query_session *s, int scope, size_t *n)
{
	if (scope == QS_GRAPH)
		return query_graph_fields(n);
	if (scope == QS_CONFIG) {
		*n = s->n_config_fields;
		return s->config_fields;
	}
	*n = s->n_node_fields;
	return s->node_fields;
}

const query_field *query_find_field(query_session *s, int scope, const char *name)
{
	size_t n;
	const query_field *f = fields_of(s, scope, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(f[i].name, name) == 0)
			return &f[i];
	/* f<i> for node features, c<i> for tile config features. */
	char lead = scope == QS_CONFIG ? 'c' : 'f';
	if ((name[0] == lead || name[0] == (lead - 32)) && name[1] >= '0' && name[1] <= '9') {
		char *end;
		long i = strtol(name + 1, &end, 10);
		if (*end)
			return NULL;
		for (size_t k = 0; k < n; k++)
			if ((f[k].kind == QF_FEATURE || f[k].kind == QF_CONFIG_FEATURE) &&
			    f[k].index == i)
				return &f[k];
	}
	return NULL;
}

const char *query_suggest_field(query_session *s, int scope, const char *word)
{
	size_t n;
	const query_field *f = fields_of(s, scope, &n);
	const char **names = malloc((n + 1) * sizeof *names);
	const char *best;

	if (!names)
		return NULL;
	for (size_t i = 0; i < n; i++)
		names[i] = f[i].name;
	best = query_suggest(word, names, n);
	free(names);
	return best;
}

/* ---- caches --------------------------------------------------------- */

int query_need_shapes(query_session *s, hs_error *err)
{
	size_t n = (size_t)s->g->n_nodes;

	if (s->shapes)
		return 0;
	s->shapes = calloc(n ? n : 1, sizeof *s->shapes);
	if (!s->shapes)
		return hs_fail(err, HS_ENOMEM, "out of memory for %zu shapes", n);
	return 0;
}

const query_shape_info *query_shape(query_session *s, int64_t v)
{
	query_shape_info *si = &s->shapes[v];

	const hm_instr *in = si->done ? NULL : graph_node_instr(s->g, v);
	if (in) { /* the module's own shape: no features needed */
		const hm_shape *hs = &in->shape;
		double e = 1;
		for (int i = 0; i < hs->rank; i++)
			e *= (double)hs->dims[i];
		int tuple = hs->element_type == HM_TUPLE;
		si->valid = 1;
		si->rank = (int16_t)(tuple ? 0 : hs->rank);
		si->elem = (int16_t)hf_element_type_index(hs->element_type);
		si->elements = tuple || hs->element_type == HM_TOKEN ? 0 : e;
		si->done = 1;
	} else if (!si->done && !graph_has_features(s->g)) { /* a graph opened without them */
		si->done = 1;
	} else if (!si->done) {
		hlo_shape sh;
		hlo_decode_shape(graph_feat(s->g, v), s->g->feat_width, &sh);
		si->valid = (uint8_t)sh.valid;
		si->rank = (int16_t)sh.rank;
		si->elem = (int16_t)(sh.is_tuple ? HLO_ET_TUPLE : sh.element_type);
		si->elements = (double)sh.element_count;
		si->done = 1;
	}
	return si;
}

/* Node id -> text, open addressing; grows with use. */
struct query_text_map {
	int64_t *keys;  /* -1 = empty */
	char **vals;
	size_t cap, n;
};

static void text_map_free(struct query_text_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->vals[i]);
	free(m->keys);
	free(m->vals);
	free(m);
}

static size_t text_slot(const struct query_text_map *m, int64_t key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 17) & (m->cap - 1);

	while (m->keys[i] != -1 && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int text_map_grow(struct query_text_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct query_text_map nm = {malloc(cap * sizeof(int64_t)), calloc(cap, sizeof(char *)), cap, 0};

	if (!nm.keys || !nm.vals) {
		free(nm.keys);
		free(nm.vals);
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		nm.keys[i] = -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == -1)
			continue;
		size_t j = text_slot(&nm, m->keys[i]);
		nm.keys[j] = m->keys[i];
		nm.vals[j] = m->vals[i];
		nm.n++;
	}
	free(m->keys);
	free(m->vals);
	*m = nm;
	return 0;
}

/* The slot of node v in map *mp (made on first use) into *slot: 1 when it
 * holds v's text already, 0 when it is free, -1 when out of memory. */
static int map_slot(struct query_text_map **mp, int64_t v, size_t *slot)
{
	struct query_text_map *m = *mp;

	if (!m) {
		m = *mp = calloc(1, sizeof *m);
		if (!m)
			return -1;
	}
	if ((m->n + 1) * 2 > m->cap && text_map_grow(m) < 0)
		return -1;
	*slot = text_slot(m, v);
	return m->keys[*slot] == v;
}

/* Keeps text t (malloc'd, taken) for node v at `slot` of m. */
static const char *map_keep(struct query_text_map *m, size_t slot, int64_t v, char *t)
{
	if (!t)
		return "?";
	m->keys[slot] = v;
	m->vals[slot] = t;
	m->n++;
	return t;
}

/* The text of node v in map *mp, computing it with `make` (into a buffer)
 * the first time; "?" when out of memory. */
static const char *cached_text(struct query_text_map **mp, int64_t v,
			       const char *(*make)(query_session *, int, int64_t, char *, size_t),
			       query_session *s, int f)
{
	size_t i;
	int hit = map_slot(mp, v, &i);

	if (hit < 0)
		return "?";
	if (hit)
		return (*mp)->vals[i];
	char buf[512];
	const char *made = make(s, f, v, buf, sizeof buf);
	if (made != buf)
		return made; /* stable already */
	return map_keep(*mp, i, v, strdup(buf));
}

/* The same for texts of any length: `make` appends to a string builder,
 * or returns a stable text of its own (then nothing is kept). */
static const char *cached_long(struct query_text_map **mp, int64_t v,
			       const char *(*make)(query_session *, const void *, int64_t, hs_strbuf *),
			       query_session *s, const void *arg)
{
	size_t i;
	int hit = map_slot(mp, v, &i);

	if (hit < 0)
		return "?";
	if (hit)
		return (*mp)->vals[i];
	hs_strbuf b = {0};
	const char *made = make(s, arg, v, &b);
	if (made) {
		hs_strbuf_free(&b);
		return made;
	}
	char *t = b.s ? hs_strbuf_take(&b) : strdup("");
	return map_keep(*mp, i, v, t);
}

static const char *make_shape(query_session *s, int f, int64_t v, char *buf, size_t cap)
{
	hlo_shape sh;

	if (!graph_has_features(s->g))
		return "?";
	hlo_decode_shape(graph_feat(s->g, v), s->g->feat_width, &sh);
	if (hlo_shape_text(&sh, buf, cap) < 0)
		return "?";
	return buf;
}

/* The texts of any length (enum query_dtext_kind). */
static const char *make_dtext(query_session *s, const void *arg, int64_t v, hs_strbuf *b)
{
	const hs_graph *g = s->g;
	int kind = *(const int *)arg;

	switch (kind) {
	case QUERY_DT_SHAPE: {
		const hm_instr *in = graph_node_instr(g, v);
		int len = hm_shape_text(&in->shape, NULL, 0);
		char *t = malloc((size_t)len + 1);
		if (!t)
			return "?";
		hm_shape_text(&in->shape, t, (size_t)len + 1);
		hs_strbuf_puts(b, t);
		free(t);
		return NULL;
	}
	case QUERY_DT_HLO:
		return graph_node_hlo(g, v, b) > 0 ? NULL : "";
	case QUERY_DT_OPERAND_NAMES: {
		const int64_t *ops = query_operands(g, v);
		char buf[160];
		for (int64_t i = 0; ops && i < query_n_operands(g, v); i++) {
			if (i)
				hs_strbuf_puts(b, ", ");
			hs_strbuf_puts(b, graph_node_name(g, ops[i], buf, sizeof buf));
		}
		return NULL;
	}
	default:
		return "";
	}
}

const char *query_dtext(query_session *s, int kind, int64_t v)
{
	static const int kinds[QUERY_NDTEXT] = {QUERY_DT_SHAPE, QUERY_DT_HLO, QUERY_DT_OPERAND_NAMES};

	if (kind < 0 || kind >= QUERY_NDTEXT)
		return "";
	if (kind == QUERY_DT_SHAPE && !s->g->module)
		return "";
	if (kind == QUERY_DT_HLO && !s->g->module)
		return "";
	return cached_long(&s->dtext[kind], v, make_dtext, s, &kinds[kind]);
}

/* A shape as HLO writes it: the module's own text when there is a module
 * (a tuple in full: "(f32[], s32[2]{0})"), else decoded from the features
 * (a tuple there is "(tuple of 2)": the features keep no element shapes). */
const char *query_shape_text(query_session *s, int64_t v)
{
	if (s->g->module)
		return query_dtext(s, QUERY_DT_SHAPE, v);
	return cached_text(&s->shape_text, v, make_shape, s, 0);
}

static const char *make_attr(query_session *s, const void *arg, int64_t v, hs_strbuf *b)
{
	int rc = graph_node_attr(s->g, v, (const char *)arg, b);
	return rc > 0 ? NULL : rc < 0 ? "?" : "";
}

const char *query_attr_text(query_session *s, const char *name, int64_t v)
{
	size_t i = 0;

	if (!s->g->module)
		return "";
	while (i < s->n_attrs && strcmp(s->attrs[i].name, name) != 0)
		i++;
	if (i == s->n_attrs) {
		struct query_attr_map *a = realloc(s->attrs, (s->n_attrs + 1) * sizeof *a);
		if (!a)
			return "?";
		s->attrs = a;
		a[i].m = NULL;
		a[i].name = strdup(name);
		if (!a[i].name)
			return "?";
		s->n_attrs++;
	}
	return cached_long(&s->attrs[i].m, v, make_attr, s, s->attrs[i].name);
}

const char *query_role_text(const query_session *s, int64_t v)
{
	const hs_graph *g = s->g;

	return g->hcomp_of && g->hcomps ? graph_role_name(graph_node_role(g, v)) : "";
}

/* Text that lives in the graph comes back as is; derived text (names of a
 * bare .npz, shapes, numbers) is written into buf. */
static const char *make_htext(query_session *s, int f, int64_t v, char *buf, size_t cap)
{
	const hs_graph *g = s->g;

	if (f == HS_HF_COMPUTATION && !g->hcomp_of) /* no structure (graph_open_parts) */
		return "";
	if (f == HS_HF_SHAPE && !g->module && !graph_has_features(g))
		return "";
	return graph_node_text(g, v, (hs_hfield)f, buf, cap);
}

const char *query_htext(query_session *s, int f, int64_t v)
{
	if (f < 0 || f >= HS_NHFIELDS)
		return "";
	return cached_text(&s->htext[f], v, make_htext, s, f);
}

int query_need_cost(query_session *s, hs_error *err)
{
	if (s->cost)
		return 0;
	if (!graph_has_features(s->g) || !s->g->operand_off)
		return hs_fail(err, HS_EDATA, "%s: cost needs the node features and edges", s->g->name);
	size_t n = (size_t)s->g->n_nodes;
	s->cost = calloc(n ? n : 1, sizeof *s->cost);
	if (!s->cost)
		return hs_fail(err, HS_ENOMEM, "out of memory for the cost of %zu nodes", n);
	cost_analytic(s->g, s->cost);
	return 0;
}

/* Competition ranks (1 = smallest; ties share the smallest rank): the
 * ranking every view shows (metrics_ranks). */
static double *make_ranks(const double *v, int64_t n)
{
	double *r = malloc((size_t)(n ? n : 1) * sizeof *r);
	int64_t *k = malloc((size_t)(n ? n : 1) * sizeof *k);

	if (!r || !k || metrics_ranks(v, (size_t)n, k, NULL) < 0) {
		free(r);
		free(k);
		return NULL;
	}
	for (int64_t i = 0; i < n; i++)
		r[i] = (double)k[i];
	free(k);
	return r;
}

static int need_runtime_rank(query_session *s, hs_error *err)
{
	const hs_graph *g = s->g;

	if (s->runtime_rank)
		return 0;
	if (!g->labeled) {
		s->runtime_rank = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof(double));
		if (!s->runtime_rank)
			return hs_fail(err, HS_ENOMEM, "out of memory ranking runtimes");
		for (int64_t i = 0; i < g->n_configs; i++)
			s->runtime_rank[i] = NAN;
		return 0;
	}
	s->runtime_rank = make_ranks(g->runtime, g->n_configs);
	if (!s->runtime_rank)
		return hs_fail(err, HS_ENOMEM, "out of memory ranking %lld configs",
			       (long long)g->n_configs);
	return 0;
}

int query_need_predicted(query_session *s, hs_error *err)
{
	hs_graph *g = s->g;

	if (s->predicted)
		return 0;
	if (s->predicted_error)
		return hs_fail(err, s->predicted_status, "%s", s->predicted_error);
	double *out = calloc((size_t)(g->n_configs ? g->n_configs : 1), sizeof *out);
	hs_error e;
	hs_error_clear(&e);
	if (!out)
		return hs_fail(err, HS_ENOMEM, "out of memory predicting runtimes");
	if (model_predict_configs(s->model, g, out, &e) < 0) {
		free(out);
		s->predicted_status = e.status ? e.status : HS_EDATA;
		s->predicted_error = malloc(strlen(e.msg) + 64);
		if (s->predicted_error)
			sprintf(s->predicted_error, "predicted: %s", e.msg);
		return hs_fail(err, s->predicted_status, "predicted: %s", e.msg);
	}
	s->predicted_rank = make_ranks(out, g->n_configs);
	if (!s->predicted_rank) {
		free(out);
		return hs_fail(err, HS_ENOMEM, "out of memory ranking predictions");
	}
	s->predicted = out;
	return 0;
}

int query_prepare_field(query_session *s, const query_field *f, hs_error *err)
{
	switch (f->kind) {
	case QF_ELEM:
	case QF_RANK:
	case QF_ELEMENTS:
		return query_need_shapes(s, err);
	case QF_COST:
	case QF_FLOPS:
	case QF_BYTES:
	case QF_G_COST:
	case QF_G_FLOPS:
	case QF_G_BYTES:
		return query_need_cost(s, err);
	case QF_PREDICTED:
	case QF_PREDICTED_RANK:
		return query_need_predicted(s, err);
	case QF_RUNTIME_RANK:
		return need_runtime_rank(s, err);
	case QF_G_RUNTIME_MIN:
	case QF_G_RUNTIME_MEDIAN:
	case QF_G_RUNTIME_MAX:
		return query_need_runtime_summary(s, err);
	default:
		return 0;
	}
}

/* ---- what a query reads ------------------------------------------------ */

unsigned query_field_parts(const query_field *f)
{
	switch (f->kind) {
	case QF_FEATURE:
	case QF_ELEM:
	case QF_SHAPE:
	case QF_RANK:
	case QF_ELEMENTS:
		return GRAPH_PART_FEATURES;
	case QF_SPLIT:
	case QF_G_SPLITS:
		return GRAPH_PART_SPLITS;
	case QF_OPERANDS:
	case QF_USERS:
		return GRAPH_PART_EDGES;
	case QF_HTEXT:
	case QF_ROLE:
	case QF_OPERAND_NAMES:
	case QF_HLO:
	case QF_SOURCE_LINE:
	case QF_G_COMPUTATIONS:
	case QF_G_MODULE:
	case QF_G_HCOMPS:
	case QF_G_FUSIONS:
		/* the whole graph: its HLO structure, and an .npz's raw twin */
		return GRAPH_PART_FEATURES | GRAPH_PART_EDGES;
	case QF_CONFIGURABLE:
		return GRAPH_PART_CONFIGS;
	case QF_COST:
	case QF_FLOPS:
	case QF_BYTES:
	case QF_G_COST:
	case QF_G_FLOPS:
	case QF_G_BYTES:
		return GRAPH_PART_FEATURES | GRAPH_PART_EDGES;
	case QF_CONFIG:
	case QF_RUNTIME:
	case QF_RUNTIME_NS:
	case QF_NORMALIZER:
	case QF_RUNTIME_RANK:
	case QF_G_LABELED:
	case QF_G_RUNTIME_MIN:
	case QF_G_RUNTIME_MEDIAN:
	case QF_G_RUNTIME_MAX:
		return GRAPH_PART_RUNTIMES;
	case QF_CONFIG_FEATURE:
		return GRAPH_PART_RUNTIMES | GRAPH_PART_CONFIGS;
	case QF_PREDICTED:
	case QF_PREDICTED_RANK:
		/* the model (or the analytic estimate) reads everything, and
		 * node_config_feat for layout graphs */
		return GRAPH_PART_ALL;
	case QF_G_EDGES:
	case QF_G_CONFIGS:
	case QF_G_CONFIGURABLE:
		return GRAPH_PART_SHAPES;
	default: /* id, opcode, opcode_id, category, file names, kind, nodes */
		return 0;
	}
}

unsigned query_expr_parts(const query_expr *e)
{
	unsigned parts = 0;

	if (!e)
		return 0;
	if (e->field && e->kind == QE_FIELD)
		parts |= query_field_parts(e->field);
	if (e->kind == QE_ATTR) /* the module: the whole graph */
		parts |= GRAPH_PART_FEATURES | GRAPH_PART_EDGES;
	if (e->kind == QE_AGG && e->scope == QS_CONFIG)
		parts |= GRAPH_PART_RUNTIMES;
	parts |= query_expr_parts(e->a) | query_expr_parts(e->b);
	for (int i = 0; i < e->nlist; i++)
		parts |= query_expr_parts(e->list[i]);
	return parts;
}

int query_prepare(query_session *s, const query_expr *e, hs_error *err)
{
	if (!e)
		return 0;
	if (e->kind == QE_FIELD && query_prepare_field(s, e->field, err) < 0)
		return -1;
	if (query_prepare(s, e->a, err) < 0 || query_prepare(s, e->b, err) < 0)
		return -1;
	for (int i = 0; i < e->nlist; i++)
		if (query_prepare(s, e->list[i], err) < 0)
			return -1;
	return 0;
}
