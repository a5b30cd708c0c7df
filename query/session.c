/* session.c - query sessions: field tables (derived fields, the node
 * features, the columns of data laid over the nodes) and the graph a
 * session is bound to.  What a session computes about that graph is
 * derived.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"

#include "base/hash.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo_module.h"
#include "model/metrics.h"
#include "query/query_impl.h"

/* ---- fields --------------------------------------------------------- */

static const query_field node_derived[] = {
	{"id", QF_ID, 0, QUERY_NUM, "node index (0-based, as in edge_index)", HS_U_NONE},
	{"name", QF_HTEXT, HS_HF_NAME, QUERY_TEXT, "instruction name (dot.42); derived on a bare .npz: opcode.id", HS_U_NONE},
	{"opcode", QF_OPCODE, 0, QUERY_TEXT, "HLO opcode name (compare with a bare word: opcode = dot); as written when not a learned opcode", HS_U_NONE},
	{"opcode_id", QF_OPCODE_ID, 0, QUERY_NUM, "opcode id as stored in node_opcode", HS_U_NONE},
	{"category", QF_CATEGORY, 0, QUERY_TEXT, "opcode category (elementwise, data-movement, convolution, ...)", HS_U_NONE},
	{"computation", QF_HTEXT, HS_HF_COMPUTATION, QUERY_TEXT, "the HLO computation holding the node (entry, fused_computation.3; derived on a bare .npz: entry, computation.K); compared with a number it means split", HS_U_NONE},
	{"computation_name", QF_HTEXT, HS_HF_COMPUTATION, QUERY_TEXT, "the same as computation", HS_U_NONE},
	{"computation_role", QF_ROLE, 0, QUERY_TEXT, "what the node's computation is for: entry, fusion, reducer, while-body, while-condition, branch, call, async, other", HS_U_NONE},
	{"split", QF_SPLIT, 0, QUERY_NUM, "the node_splits segment holding the node (0 when the graph has one)", HS_U_NONE},
	{"operands", QF_OPERANDS, 0, QUERY_NUM, "number of operands in HLO order, a repeated one counted each time (the dataset's edges on a bare .npz)", HS_U_NONE},
	{"operand_count", QF_OPERANDS, 0, QUERY_NUM, "the same as operands", HS_U_NONE},
	{"operand_names", QF_OPERAND_NAMES, 0, QUERY_TEXT, "the operands' names in HLO order, repeats kept: \"a, b, a\" (the dataset's edges on a bare .npz)", HS_U_NONE},
	{"users", QF_USERS, 0, QUERY_NUM, "number of users: the nodes that have it as an operand, each once", HS_U_NONE},
	{"elem", QF_ELEM, 0, QUERY_TEXT, "output element type (f32, bf16, pred, tuple, ...)", HS_U_NONE},
	{"shape", QF_SHAPE, 0, QUERY_TEXT, "output shape as HLO writes it: bf16[8,56,56,64]{3,2,1,0}, (f32[], s32[2]{0})", HS_U_NONE},
	{"rank", QF_RANK, 0, QUERY_NUM, "output rank", HS_U_NONE},
	{"elements", QF_ELEMENTS, 0, QUERY_NUM, "output element count", HS_U_NONE},
	{"configurable", QF_CONFIGURABLE, 0, QUERY_NUM, "1 for nodes with layout configs (layout graphs), else 0", HS_U_NONE},
	{"cost", QF_COST, 0, QUERY_NUM, "analytic time in seconds the instruction adds to the module's total (model/cost.h): a fusion its kernel, 0 inside a fusion body or reducer (see kernel_share), so summed over the nodes it is info's total; null when the model does not know the op's cost", HS_U_SECONDS},
	{"kernel_share", QF_KERNEL_SHARE, 0, QUERY_NUM, "a fusion body's or reducer's instruction: its share in seconds of the kernel that runs it (the shares of a body add up to its fusion's cost); null for instructions that run on their own", HS_U_SECONDS},
	{"flops", QF_FLOPS, 0, QUERY_NUM, "analytic floating-point operations the instruction adds to the module's total (a fusion its body's, 0 inside a body); null when unknown", HS_U_FLOP},
	{"bytes", QF_BYTES, 0, QUERY_NUM, "analytic bytes read and written that the instruction adds to the module's total (a fusion its own operands and output, 0 inside a body); null when unknown", HS_U_BYTES},
	{"hlo", QF_HLO, 0, QUERY_TEXT, "the instruction's whole HLO line, as written (printed for a protobuf); empty on .npz", HS_U_NONE},
	{"fusion_kind", QF_HTEXT, HS_HF_FUSION_KIND, QUERY_TEXT, "kLoop, kInput, kOutput, kCustom (fusions); empty otherwise and on .npz", HS_U_NONE},
	{"op_type", QF_HTEXT, HS_HF_OP_TYPE, QUERY_TEXT, "metadata op_type (framework op); empty when absent and on .npz", HS_U_NONE},
	{"op_name", QF_HTEXT, HS_HF_OP_NAME, QUERY_TEXT, "metadata op_name; empty when absent and on .npz", HS_U_NONE},
	{"layer", QF_LAYER, 0, QUERY_TEXT, "the node's layer: op_name without its last / component (jit(f)/mlp/dense); (top level) for a one-component op_name, (no op_name) without one", HS_U_NONE},
	{"source_file", QF_HTEXT, HS_HF_SOURCE_FILE, QUERY_TEXT, "metadata source_file; empty when absent and on .npz", HS_U_NONE},
	{"source_line", QF_SOURCE_LINE, 0, QUERY_NUM, "metadata source_line; null when absent and on .npz", HS_U_NONE},
	{"custom_call_target", QF_HTEXT, HS_HF_CUSTOM_CALL_TARGET, QUERY_TEXT, "custom-call target; empty otherwise and on .npz", HS_U_NONE},
	{"sharding", QF_HTEXT, HS_HF_SHARDING, QUERY_TEXT, "sharding as written ({replicated}); empty when absent and on .npz", HS_U_NONE},
};
#define N_NODE_DERIVED (sizeof node_derived / sizeof node_derived[0])

static const query_field config_derived[] = {
	{"config", QF_CONFIG, 0, QUERY_NUM, "config index", HS_U_NONE},
	{"runtime", QF_RUNTIME, 0, QUERY_NUM, "measured runtime (tile: normalized; layout: ns); null when hidden", HS_U_NONE},
	{"runtime_ns", QF_RUNTIME_NS, 0, QUERY_NUM, "config_runtime as stored (ns); null when hidden", HS_U_NS},
	{"normalizer", QF_NORMALIZER, 0, QUERY_NUM, "config_runtime_normalizers (tile graphs)", HS_U_NONE},
	{"predicted", QF_PREDICTED, 0, QUERY_NUM, "the active predictor's time in the runtime's unit (layout: ns; tile: normalized), the one predict and compare show: the model's (the analytic estimate without one, calibrated on the measured configs), or the explorer's :fit once one ran; its score when it gives no time (a learned model on a file without runtimes)", HS_U_NONE},
	{"score", QF_SCORE, 0, QUERY_NUM, "the active predictor's score, what ranks the configs (lower = faster): the analytic estimate's own ns, or a learned model's unitless score", HS_U_NONE},
	{"runtime_rank", QF_RUNTIME_RANK, 0, QUERY_NUM, "1 = fastest measured config", HS_U_NONE},
	{"predicted_rank", QF_PREDICTED_RANK, 0, QUERY_NUM, "1 = fastest predicted config", HS_U_NONE},
};
#define N_CONFIG_DERIVED (sizeof config_derived / sizeof config_derived[0])

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
	hs_index_free(&s->node_index);
	hs_index_free(&s->config_index);
}

/* A name's hash ignoring case: query_find_field finds the exact name
 * first, then one that differs in case. */
static uint32_t folded_hash(const char *s)
{
	uint64_t h = HS_FNV_BASIS;
	for (; *s; s++)
		h = hs_fnv1a_byte((unsigned char)tolower((unsigned char)*s), h);
	return (uint32_t)h;
}

/* The fields f[0, n) by name.  Reserved first, so that of names alike but
 * for case the first field is found first (probing meets them in order). */
static int index_fields(hs_index *ix, const query_field *f, size_t n)
{
	if (hs_index_reserve(ix, n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (hs_index_add(ix, folded_hash(f[i].name), (int32_t)i) != 0)
			return -1;
	return 0;
}

static int has_derived_name(const query_field *d, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return 1;
	return 0;
}

/* The columns of data laid over the nodes, after the derived fields. */
static void overlay_fields(query_session *s)
{
	for (int k = 0; k < s->n_overlays; k++)
		for (int c = 0; c < s->overlays[k].n_cols; c++) {
			const hs_overlay_col *oc = &s->overlays[k].cols[c];
			s->node_fields[s->n_node_fields++] = (query_field){
				.name = oc->name,
				.kind = QF_OVERLAY,
				.index = k << 16 | c,
				.type = oc->numeric ? QUERY_NUM : QUERY_TEXT,
				.help = "a column of the data laid over the nodes",
			};
		}
}

/* Derived fields, the data's columns, then one field per feature column (a
 * feature whose name a derived field already takes is reachable as f<i>). */
static int build_fields(query_session *s, hs_error *err)
{
	const hs_graph *g = s->g;
	int w = g->feat_width > 0 ? g->feat_width : 0;
	int cw = g->kind == HS_KIND_TILE && g->config_width > 0 ? g->config_width : 0;
	size_t no = 0;

	for (int k = 0; k < s->n_overlays; k++)
		no += (size_t)s->overlays[k].n_cols;
	s->node_fields = calloc(N_NODE_DERIVED + no + (size_t)w, sizeof *s->node_fields);
	s->feature_names = calloc(N_NODE_DERIVED + no + (size_t)w, sizeof *s->feature_names);
	s->config_fields = calloc(N_CONFIG_DERIVED + (size_t)cw, sizeof *s->config_fields);
	s->config_names = calloc(N_CONFIG_DERIVED + (size_t)cw, sizeof *s->config_names);
	if (!s->node_fields || !s->feature_names || !s->config_fields || !s->config_names)
		goto oom;
	memcpy(s->node_fields, node_derived, sizeof node_derived);
	s->n_node_fields = N_NODE_DERIVED;
	overlay_fields(s);
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
		s->config_fields[nc] = config_derived[i];
		if (config_derived[i].kind == QF_RUNTIME && g->kind == HS_KIND_LAYOUT)
			s->config_fields[nc].unit = HS_U_NS; /* tile: normalized, no unit */
		nc++;
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
	if (index_fields(&s->node_index, s->node_fields, s->n_node_fields) != 0 ||
	    index_fields(&s->config_index, s->config_fields, s->n_config_fields) != 0)
		goto oom;
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
	query_drop_caches(s);
	query_eval_reset(s);
	free_fields(s);
	s->g = g;
	own_ref(s);
	if (build_fields(s, err) < 0)
		return -1;
	return query_session_module_data(s, err); /* buffer_bytes from an HloProto */
}

void query_session_bind(query_session *s, hs_graph *g, const query_graph_ref *ref)
{
	query_drop_caches(s);
	query_eval_reset(s);
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

query_session *query_session_new_table(const query_column *cols, int ncols, hs_error *err)
{
	query_session *s = calloc(1, sizeof *s);
	size_t n = (size_t)(ncols > 0 ? ncols : 1);

	if (!s || !(s->node_fields = calloc(n, sizeof *s->node_fields)) ||
	    !(s->feature_names = calloc(n, sizeof *s->feature_names)) ||
	    !(s->colbuf = calloc(n, sizeof *s->colbuf)))
		goto oom;
	s->table = 1;
	for (int i = 0; i < ncols; i++) {
		if (!(s->feature_names[i] = strdup(cols[i].name)))
			goto oom;
		s->node_fields[i] = (query_field){
			.name = s->feature_names[i],
			.kind = QF_COLUMN,
			.index = i,
			.type = cols[i].type,
			.help = "a column of the table",
			.unit = cols[i].unit,
		};
		s->n_node_fields++;
	}
	if (index_fields(&s->node_index, s->node_fields, s->n_node_fields) != 0)
		goto oom;
	return s;
oom:
	query_session_free(s);
	hs_fail(err, HS_ENOMEM, "out of memory reading a filter");
	return NULL;
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
	for (size_t i = 0; s->colbuf && i < s->n_node_fields; i++)
		free(s->colbuf[i]);
	free(s->colbuf);
	hs_regex_scratch_free(s->rx);
	query_drop_caches(s);
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

int query_session_add_overlay(query_session *s, hs_overlay *o, hs_error *err)
{
	if (s->ix || o->n_nodes != s->g->n_nodes)
		return hs_fail(err, HS_EUSAGE, "%s: the data was read for a graph of %lld nodes, not %s's %lld",
			       o->path ? o->path : "data", (long long)o->n_nodes, s->g->name,
			       (long long)s->g->n_nodes);
	for (int c = 0; c < o->n_cols; c++) {
		const char *name = o->cols[c].name;
		if (query_find_field(s, QS_NODE, name) || query_find_field(s, QS_CONFIG, name))
			return hs_fail(err, HS_EUSAGE, "%s: column '%s' is a field already; rename it",
				       o->path ? o->path : "data", name);
	}
	hs_overlay *v = realloc(s->overlays, (size_t)(s->n_overlays + 1) * sizeof *v);
	if (!v)
		return hs_fail(err, HS_ENOMEM, "out of memory laying %s over the graph", o->path ? o->path : "data");
	s->overlays = v;
	v[s->n_overlays++] = *o;
	memset(o, 0, sizeof *o);
	free_fields(s);
	return build_fields(s, err);
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
	query_drop_prediction(s);
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

static int field_named(const void *f, int32_t i, const void *name)
{
	return strcmp(((const query_field *)f)[i].name, name) == 0;
}

static int field_named_folded(const void *f, int32_t i, const void *name)
{
	return strcasecmp(((const query_field *)f)[i].name, name) == 0;
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
	const hs_index *ix = scope == QS_CONFIG ? &s->config_index : &s->node_index;

	if (scope != QS_GRAPH) {
		uint32_t h = folded_hash(name);
		int32_t i = hs_index_find(ix, h, field_named, f, name);
		if (i < 0)
			i = hs_index_find(ix, h, field_named_folded, f, name);
		if (i >= 0)
			return &f[i];
	} else {    /* a few: a scan */
		for (size_t i = 0; i < n; i++)
			if (strcmp(f[i].name, name) == 0)
				return &f[i];
		for (size_t i = 0; i < n; i++)
			if (strcasecmp(f[i].name, name) == 0)
				return &f[i];
	}
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
	case QF_LAYER:
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
	case QF_KERNEL_SHARE:
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
	case QF_SCORE:
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

int query_field_unit(const query_session *s, const query_field *f)
{
	const predictor *p = s->active;

	if (f->kind == QF_PREDICTED)
		return p && p->time && predictor_time_ns(p, s->g) ? HS_U_NS : HS_U_NONE;
	if (f->kind == QF_SCORE)
		return p && (p->time_kind == PRED_TIME_NS || !isnan(p->calib_factor)) ? HS_U_NS : HS_U_NONE;
	return f->unit;
}

int query_expr_unit(const query_session *s, const query_expr *e)
{
	return (e->kind == QE_FIELD || e->kind == QE_WORD) && e->field && e->type == QUERY_NUM ? query_field_unit(s, e->field)
												     : HS_U_NONE;
}
