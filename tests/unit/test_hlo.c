/* test_hlo.c - the HLO tables and shape decoding. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>

#include "loader/dataset.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/hlo_synth.h"
#include "t.h"


static int is_snake(const char *s)
{
	if (!s || !islower((unsigned char)s[0]))
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* A feature vector from (index, value) pairs. */
struct kv {
	int i;
	float v;
};

static void build(float *f, const struct kv *kv, size_t n)
{
	memset(f, 0, sizeof(float) * HLO_NODE_FEATURES);
	for (size_t k = 0; k < n; k++)
		f[kv[k].i] = kv[k].v;
}

static const char *text_of(const float *f, int width)
{
	static char buf[128];
	hm_decoded d;

	hm_shape_text(hm_decode(f, width, &d), buf, sizeof buf);
	return buf;
}

/* An array shape vector: type, dims (rank of them), layout (or NULL). */
static void array_vec(float *f, int et, int rank, const long long *dims, const int *m2m)
{
	double sum = 0, prod = 1;

	memset(f, 0, sizeof(float) * HLO_NODE_FEATURES);
	f[HLO_F_ELEMENT_TYPE + et] = 1;
	for (int i = 0; i < rank; i++) {
		f[HLO_F_DIMS + i] = (float)dims[i];
		sum += (double)dims[i];
		prod *= (double)dims[i];
		if (m2m)
			f[HLO_F_LAYOUT + i] = (float)m2m[i];
	}
	f[HLO_F_DIMS_SUM] = (float)sum;
	f[HLO_F_DIMS_PRODUCT] = (float)prod;
}

/* The one-hot feature names end with the element type names. */
static int onehot_names_match(void)
{
	size_t skip = strlen("shape_element_type_is_");

	for (int e = 0; e < HLO_NELEMENT_TYPES; e++) {
		const char *n = hlo_node_feature_name(HLO_F_ELEMENT_TYPE + e, 140);
		const char *t = hm_element_type_name(hm_element_type_of_onehot(e));
		/* "..._is_invalid_type" / "..._is_opaque_type" carry a suffix */
		if (strncmp(n + skip, t, strlen(t)) != 0)
			return 0;
	}
	return 1;
}

static int groups_in_range(void)
{
	for (int i = 0; i < HLO_NODE_FEATURES; i++)
		if (hlo_node_feature_group(i, 140) >= HLO_NGROUPS)
			return 0;
	return 1;
}

static int config_names_unique(void)
{
	for (int i = 0; i < HLO_TILE_CONFIG_FEATURES; i++) {
		for (int j = 0; j < i; j++)
			if (strcmp(hlo_tile_config_name(i, 24), hlo_tile_config_name(j, 24)) == 0)
				return 0;
		if (hlo_tile_config_index(hlo_tile_config_name(i, 24), 24) != i)
			return 0;
	}
	for (int i = 0; i < HLO_LAYOUT_CONFIG_FEATURES; i++)
		if (hlo_layout_config_index(hlo_layout_config_name(i, 18), 18) != i)
			return 0;
	return 1;
}

static void test_opcodes(void)
{
	static const struct {
		int id;
		const char *name;
	} known[] = {
		{0, "unknown"}, {2, "add"}, {13, "broadcast"}, {24, "constant"},
		{27, "copy"}, {36, "dynamic-update-slice"}, {45, "get-tuple-element"},
		{48, "iota"}, {57, "maximum"}, {63, "parameter"}, {75, "reshape"},
		{97, "trace"}, {101, "tuple-select"}, {102, "while"}, {120, "tan"},
		{26, "convolution"}, {34, "dot"}, {41, "fusion"}, {70, "reduce"},
		{98, "transpose"}, {100, "tuple"}, {19, "count-leading-zeros"},
	};
	int all_named = 1, unique = 1, round_trip = 1, kebab = 1;

	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		char name[64];
		snprintf(name, sizeof name, "opcode %d is %s", known[k].id, known[k].name);
		CHECK(name, strcmp(hlo_opcode_name(known[k].id), known[k].name) == 0);
	}
	for (int i = 0; i <= HLO_MAX_OPCODE; i++) {
		const char *n = hlo_opcode_name(i);
		if (!n || !*n)
			all_named = 0;
		for (const char *p = n; p && *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
				kebab = 0;
		for (int j = 0; j < i; j++)
			if (strcmp(n, hlo_opcode_name(j)) == 0)
				unique = 0;
		if (hlo_opcode_id(n) != i)
			round_trip = 0;
	}
	CHECK("every opcode 0..120 has a name", all_named);
	CHECK("opcode names are unique", unique);
	CHECK("opcode names are HLO spelling (lowercase, dashes)", kebab);
	CHECK("opcode name -> id round trip", round_trip);
	CHECK("opcode 121 is generic", strcmp(hlo_opcode_name(121), "opcode-121") == 0);
	CHECK("opcode -1 is generic", strcmp(hlo_opcode_name(-1), "opcode--1") == 0);
	{
		const char *a = hlo_opcode_name(200), *b = hlo_opcode_name(201);
		CHECK("two generic names coexist", strcmp(a, "opcode-200") == 0 &&
							 strcmp(b, "opcode-201") == 0);
	}
	CHECK("generic name maps back", hlo_opcode_id("opcode-200") == 200);
	CHECK("opcode-255 maps back", hlo_opcode_id("opcode-255") == 255);
	CHECK("opcode-256 is not an opcode", hlo_opcode_id("opcode-256") == -1);
	CHECK("opcode- alone is not an opcode", hlo_opcode_id("opcode-") == -1);
	CHECK("id lookup is case-insensitive, _ for -",
	      hlo_opcode_id("Get_Tuple_Element") == 45);
	CHECK("unknown name gives -1", hlo_opcode_id("frobnicate") == -1);
	CHECK("prefix of a name gives -1", hlo_opcode_id("get-tuple") == -1);
	CHECK("empty name gives -1", hlo_opcode_id("") == -1);
	CHECK("NULL name gives -1", hlo_opcode_id(NULL) == -1);
	CHECK("retired ids", hlo_opcode_is_retired(97) && hlo_opcode_is_retired(101) &&
				     !hlo_opcode_is_retired(100));
}

static void test_categories(void)
{
	static const struct {
		const char *op;
		hlo_category c;
	} known[] = {
		{"add", HLO_CAT_ELEMENTWISE}, {"multiply", HLO_CAT_ELEMENTWISE},
		{"exponential", HLO_CAT_ELEMENTWISE}, {"compare", HLO_CAT_ELEMENTWISE},
		{"convert", HLO_CAT_ELEMENTWISE}, {"select", HLO_CAT_ELEMENTWISE},
		{"broadcast", HLO_CAT_DATA_MOVEMENT}, {"reshape", HLO_CAT_DATA_MOVEMENT},
		{"transpose", HLO_CAT_DATA_MOVEMENT}, {"concatenate", HLO_CAT_DATA_MOVEMENT},
		{"pad", HLO_CAT_DATA_MOVEMENT}, {"gather", HLO_CAT_DATA_MOVEMENT},
		{"slice", HLO_CAT_DATA_MOVEMENT}, {"dynamic-slice", HLO_CAT_DATA_MOVEMENT},
		{"copy", HLO_CAT_DATA_MOVEMENT},
		{"dot", HLO_CAT_CONVOLUTION}, {"convolution", HLO_CAT_CONVOLUTION},
		{"fft", HLO_CAT_CONVOLUTION}, {"triangular-solve", HLO_CAT_CONVOLUTION},
		{"cholesky", HLO_CAT_CONVOLUTION},
		{"reduce", HLO_CAT_REDUCTION}, {"reduce-window", HLO_CAT_REDUCTION},
		{"scatter", HLO_CAT_REDUCTION}, {"select-and-scatter", HLO_CAT_REDUCTION},
		{"batch-norm-training", HLO_CAT_REDUCTION},
		{"parameter", HLO_CAT_PARAMETER},
		{"all-reduce", HLO_CAT_COLLECTIVE}, {"send", HLO_CAT_COLLECTIVE},
		{"recv-done", HLO_CAT_COLLECTIVE}, {"infeed", HLO_CAT_COLLECTIVE},
		{"outfeed", HLO_CAT_COLLECTIVE},
		{"while", HLO_CAT_CONTROL}, {"call", HLO_CAT_CONTROL},
		{"conditional", HLO_CAT_CONTROL}, {"custom-call", HLO_CAT_CONTROL},
		{"fusion", HLO_CAT_CONTROL},
		{"tuple", HLO_CAT_OTHER}, {"get-tuple-element", HLO_CAT_OTHER},
		{"bitcast", HLO_CAT_OTHER}, {"constant", HLO_CAT_OTHER},
		{"unknown", HLO_CAT_OTHER},
	};
	int names_ok = 1, cats_ok = 1;

	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		char name[80];
		snprintf(name, sizeof name, "%s is %s", known[k].op, hlo_category_name(known[k].c));
		CHECK(name, hlo_opcode_category(hlo_opcode_id(known[k].op)) == known[k].c);
	}
	for (int i = -5; i <= 300; i++) {
		hlo_category c = hlo_opcode_category(i);
		if ((int)c < 0 || c >= HLO_NCATEGORIES)
			cats_ok = 0;
	}
	CHECK("every id has a category", cats_ok);
	CHECK("ids out of range are OTHER", hlo_opcode_category(200) == HLO_CAT_OTHER);
	/* (their colours: test_render.c for drawings, test_tui_palette.c for
	 * the explorer) */
	for (int c = 0; c < HLO_NCATEGORIES; c++)
		if (hlo_category_id(hlo_category_name(c)) != c)
			names_ok = 0;
	CHECK("category names map back", names_ok);
	CHECK("category out of range falls back to other",
	      strcmp(hlo_category_name((hlo_category)99), "other") == 0);
	CHECK("unknown category name", hlo_category_id("purple") == -1);
	CHECK("category name with underscore", hlo_category_id("data_movement") ==
						       HLO_CAT_DATA_MOVEMENT);
}

static void test_features(void)
{
	static const struct {
		int i;
		const char *name;
		hlo_group g;
	} known[] = {
		{0, "is_root", HLO_G_NODE},
		{1, "element_size_in_bits", HLO_G_NODE},
		{2, "shape_element_type_is_invalid_type", HLO_G_SHAPE},
		{3, "shape_element_type_is_pred", HLO_G_SHAPE},
		{15, "shape_element_type_is_bf16", HLO_G_SHAPE},
		{20, "shape_element_type_is_token", HLO_G_SHAPE},
		{21, "shape_dimensions_0", HLO_G_SHAPE},
		{28, "shape_dimensions_product", HLO_G_SHAPE},
		{29, "shape_tuple_shapes_size", HLO_G_SHAPE},
		{30, "parameter_number", HLO_G_NODE},
		{31, "dimensions_0", HLO_G_REDUCE},
		{37, "window_size_0", HLO_G_WINDOW},
		{44, "window_size_product", HLO_G_WINDOW},
		{45, "window_stride_0", HLO_G_WINDOW},
		{69, "window_window_dilation_0", HLO_G_WINDOW},
		{77, "window_base_dilation_0", HLO_G_WINDOW},
		{92, "window_window_reversal_false_count", HLO_G_WINDOW},
		{93, "convolution_dim_numbers_input_batch_dim", HLO_G_CONVOLUTION},
		{106, "convolution_dim_numbers_output_feature_dim", HLO_G_CONVOLUTION},
		{107, "feature_group_count", HLO_G_CONVOLUTION},
		{108, "batch_group_count", HLO_G_CONVOLUTION},
		{109, "slice_dims_start_0", HLO_G_SLICE},
		{124, "dynamic_slice_sizes_product", HLO_G_SLICE},
		{125, "padding_config_edge_padding_low_0", HLO_G_PADDING},
		{132, "padding_config_edge_padding_high_product", HLO_G_PADDING},
		{133, "is_stable", HLO_G_OTHER},
		{134, "layout_minor_to_major_0", HLO_G_LAYOUT},
		{139, "layout_minor_to_major_5", HLO_G_LAYOUT},
	};
	int snake = 1, unique = 1, round_trip = 1, helps = 1;

	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		char name[96];
		snprintf(name, sizeof name, "feature %d is %s", known[k].i, known[k].name);
		CHECK(name, strcmp(hlo_node_feature_name(known[k].i, 140), known[k].name) == 0 &&
				    hlo_node_feature_group(known[k].i, 140) == known[k].g);
	}
	for (int i = 0; i < HLO_NODE_FEATURES; i++) {
		const char *n = hlo_node_feature_name(i, 140);
		if (!is_snake(n))
			snake = 0;
		for (int j = 0; j < i; j++)
			if (strcmp(n, hlo_node_feature_name(j, 140)) == 0)
				unique = 0;
		if (hlo_node_feature_index(n) != i)
			round_trip = 0;
		if (!*hlo_node_feature_help(i, 140))
			helps = 0;
	}
	CHECK("feature names are snake_case", snake);
	CHECK("feature names are unique", unique);
	CHECK("feature name -> index round trip", round_trip);
	CHECK("every documented feature has help", helps);
	CHECK("element type one-hot names follow hm_element_type_name", onehot_names_match());
	CHECK("no groups out of range", groups_in_range());
	CHECK("width 70 gives generic names", strcmp(hlo_node_feature_name(5, 70), "f5") == 0 &&
						      strcmp(hlo_node_feature_name(69, 70), "f69") == 0);
	CHECK("width 70 groups are other", hlo_node_feature_group(5, 70) == HLO_G_OTHER);
	CHECK("width 70 has no help", strcmp(hlo_node_feature_help(5, 70), "") == 0);
	CHECK("feature past the width is ?", strcmp(hlo_node_feature_name(70, 70), "?") == 0 &&
						     strcmp(hlo_node_feature_name(-1, 140), "?") == 0);
	CHECK("generic names are static", hlo_node_feature_name(7, 70) == hlo_node_feature_name(7, 71));
	CHECK("generic name 4095", strcmp(hlo_node_feature_name(4095, 5000), "f4095") == 0);
	CHECK("generic name 4999", strcmp(hlo_node_feature_name(4999, 5000), "f4999") == 0);
	CHECK("index of unknown name", hlo_node_feature_index("window_size_6") == -1 &&
					       hlo_node_feature_index(NULL) == -1);
	CHECK("index_w: documented names for 140", hlo_node_feature_index_w("is_stable", 140) == 133);
	CHECK("index_w: f12 for 140", hlo_node_feature_index_w("f12", 140) == 12);
	CHECK("index_w: f12 for 70", hlo_node_feature_index_w("f12", 70) == 12);
	CHECK("index_w: f70 for 70 is out", hlo_node_feature_index_w("f70", 70) == -1);
	CHECK("index_w: documented name for 70 is out",
	      hlo_node_feature_index_w("is_root", 70) == -1);
	CHECK("index_w: f1x is not a name", hlo_node_feature_index_w("f1x", 70) == -1);
	CHECK("index_w: f alone is not a name", hlo_node_feature_index_w("f", 70) == -1);
	CHECK("index_w: huge f number", hlo_node_feature_index_w("f99999999999999", 70) == -1);
	CHECK("group names", strcmp(hlo_group_name(HLO_G_WINDOW), "window") == 0 &&
				     hlo_group_id("layout") == HLO_G_LAYOUT &&
				     hlo_group_id("nope") == -1 &&
				     strcmp(hlo_group_name((hlo_group)77), "other") == 0);
}

static void test_configs(void)
{
	CHECK("tile 0 kernel_bounds_0", strcmp(hlo_tile_config_name(0, 24), "kernel_bounds_0") == 0);
	CHECK("tile 7 kernel_bounds_product",
	      strcmp(hlo_tile_config_name(7, 24), "kernel_bounds_product") == 0);
	CHECK("tile 8 output_bounds_0", strcmp(hlo_tile_config_name(8, 24), "output_bounds_0") == 0);
	CHECK("tile 14 output_bounds_sum",
	      strcmp(hlo_tile_config_name(14, 24), "output_bounds_sum") == 0);
	CHECK("tile 23 input_bounds_product",
	      strcmp(hlo_tile_config_name(23, 24), "input_bounds_product") == 0);
	CHECK("layout 0 output_layout_0", strcmp(hlo_layout_config_name(0, 18), "output_layout_0") == 0);
	CHECK("layout 6 input_layout_0", strcmp(hlo_layout_config_name(6, 18), "input_layout_0") == 0);
	CHECK("layout 17 kernel_layout_5",
	      strcmp(hlo_layout_config_name(17, 18), "kernel_layout_5") == 0);
	CHECK("tile width 10 is generic", strcmp(hlo_tile_config_name(3, 10), "c3") == 0);
	CHECK("layout width 24 is generic", strcmp(hlo_layout_config_name(17, 24), "c17") == 0);
	CHECK("config out of range is ?", strcmp(hlo_tile_config_name(24, 24), "?") == 0 &&
						  strcmp(hlo_layout_config_name(-1, 18), "?") == 0);
	CHECK("tile index", hlo_tile_config_index("output_bounds_5", 24) == 13 &&
				    hlo_tile_config_index("c5", 24) == 5 &&
				    hlo_tile_config_index("output_bounds_5", 10) == -1 &&
				    hlo_tile_config_index("c10", 10) == -1);
	CHECK("layout index", hlo_layout_config_index("kernel_layout_0", 18) == 12 &&
				      hlo_layout_config_index("output_layout_9", 18) == -1);
	CHECK("config names unique", config_names_unique());
}

static void test_element_types(void)
{
	static const char *const order[] = {
		"invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
		"f16", "f32", "f64", "bf16", "c64", "c128", "tuple", "opaque", "token"};
	static const int bytes[] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 2, 8, 16, 0, 0, 0};
	int ok = 1;

	for (int i = 0; i < 19; i++) {
		int t = hm_element_type_of_onehot(i);
		if (strcmp(hm_element_type_name(t), order[i]) != 0 || hm_element_type_bytes(t) != bytes[i] ||
		    hm_element_type_onehot(t) != i || hm_element_type_id(order[i], strlen(order[i])) != t)
			ok = 0;
	}
	CHECK("element type one-hot order, sizes and ids as documented", ok);
	CHECK("element type out of range", strcmp(hm_element_type_name(hm_element_type_count()), "?") == 0 &&
						   strcmp(hm_element_type_name(-1), "?") == 0 &&
						   hm_element_type_bytes(99) == 0 && hm_element_type_of_onehot(19) == -1);
	CHECK("types newer than the dataset have a name and a size but no one-hot",
	      strcmp(hm_element_type_name(20), "f8e4m3fn") == 0 && hm_element_type_bytes(20) == 1 &&
	      hm_element_type_onehot(20) == -1 && hm_element_type_id("f8", 2) == -1);
}

static void test_shapes_built(void)
{
	float f[HLO_NODE_FEATURES];
	char buf[128];
	hm_decoded sd;
	const hm_shape *s = &sd.s;

	{
		long long d[] = {8, 56, 56, 64};
		int m[] = {3, 2, 1, 0};
		array_vec(f, HLO_ET_BF16, 4, d, m);
		CHECK("bf16 NHWC", strcmp(text_of(f, 140), "bf16[8,56,56,64]{3,2,1,0}") == 0);
		hm_decode(f, 140, &sd);
		CHECK("bf16 NHWC count", hm_shape_elements(s) == 8LL * 56 * 56 * 64 && s->rank == 4 &&
						 s->has_layout && !(s->element_type == HM_TUPLE) && (s->rank >= 0));
		CHECK("bf16 NHWC bytes", hm_shape_bytes(s) == 2LL * 8 * 56 * 56 * 64);
	}
	{
		long long d[] = {2, 3};
		int m[] = {0, 1};
		array_vec(f, HLO_ET_F32, 2, d, m);
		CHECK("column-major layout", strcmp(text_of(f, 140), "f32[2,3]{0,1}") == 0);
	}
	{
		long long d[] = {2, 3};
		array_vec(f, HLO_ET_F32, 2, d, NULL);
		CHECK("rank 2 without layout omits braces", strcmp(text_of(f, 140), "f32[2,3]") == 0);
	}
	{
		long long d[] = {2, 3, 4};
		int m[] = {0, 0, 1}; /* not a permutation */
		array_vec(f, HLO_ET_S32, 3, d, m);
		CHECK("bad layout is dropped", strcmp(text_of(f, 140), "s32[2,3,4]") == 0);
	}
	{
		array_vec(f, HLO_ET_F32, 0, NULL, NULL);
		CHECK("scalar", strcmp(text_of(f, 140), "f32[]") == 0);
		hm_decode(f, 140, &sd);
		CHECK("scalar has 1 element", hm_shape_elements(s) == 1 && s->rank == 0 && !s->has_layout);
	}
	{
		long long d[] = {128};
		array_vec(f, HLO_ET_S32, 1, d, NULL);
		CHECK("rank 1 has layout {0}", strcmp(text_of(f, 140), "s32[128]{0}") == 0);
	}
	{
		long long d[] = {0};
		array_vec(f, HLO_ET_F32, 1, d, NULL); /* product 0 */
		CHECK("zero-sized vector", strcmp(text_of(f, 140), "f32[0]{0}") == 0);
		hm_decode(f, 140, &sd);
		CHECK("zero-sized vector count", hm_shape_elements(s) == 0);
	}
	{
		long long d[] = {4, 0};
		int m[] = {0, 1};
		array_vec(f, HLO_ET_F32, 2, d, m);
		CHECK("trailing zero dim found from the layout",
		      strcmp(text_of(f, 140), "f32[4,0]{0,1}") == 0);
	}
	{
		long long d[] = {4, 0};
		array_vec(f, HLO_ET_F32, 2, d, NULL);
		CHECK("trailing zero dim found from the product",
		      strcmp(text_of(f, 140), "f32[4,0]") == 0);
	}
	{
		long long d[] = {2, 3, 4, 5, 6, 7};
		int m[] = {5, 4, 3, 2, 1, 0};
		array_vec(f, HLO_ET_PRED, 6, d, m);
		CHECK("rank 6", strcmp(text_of(f, 140), "pred[2,3,4,5,6,7]{5,4,3,2,1,0}") == 0);
		hm_decode(f, 140, &sd);
		CHECK("rank 6 count", hm_shape_elements(s) == 5040 && hm_shape_bytes(s) == 5040);
	}
	{
		struct kv t[] = {{HLO_F_ELEMENT_TYPE + HLO_ET_TUPLE, 1}, {HLO_F_TUPLE_SIZE, 3},
				 {HLO_F_DIMS_PRODUCT, 1}};
		build(f, t, 3);
		CHECK("tuple", strcmp(text_of(f, 140), "(tuple of 3)") == 0);
		hm_decode(f, 140, &sd);
		CHECK("tuple fields", (s->element_type == HM_TUPLE) && s->n_tuple == 3 && hm_shape_elements(s) == 0 &&
					      hm_shape_bytes(s) == 0);
		f[HLO_F_TUPLE_SIZE] = 0;
		CHECK("empty tuple", strcmp(text_of(f, 140), "()") == 0);
	}
	{
		struct kv t[] = {{HLO_F_ELEMENT_TYPE + HLO_ET_TOKEN, 1}, {HLO_F_DIMS_PRODUCT, 0}};
		build(f, t, 2);
		CHECK("token", strcmp(text_of(f, 140), "token[]") == 0);
		hm_decode(f, 140, &sd);
		CHECK("token has no elements", hm_shape_elements(s) == 0 && s->rank == 0);
	}
	{
		long long d[] = {5};
		array_vec(f, HLO_ET_F32, 1, d, NULL);
		f[HLO_F_ELEMENT_TYPE + HLO_ET_F32] = 0;
		CHECK("no element type gives ?", strcmp(text_of(f, 140), "?[5]{0}") == 0);
	}
	{
		long long d[] = {5};
		array_vec(f, HLO_ET_F32, 1, d, NULL);
		CHECK("width 70 is ?", strcmp(text_of(f, 70), "?") == 0);
		hm_decode(f, 70, &sd);
		CHECK("width 70 is not valid", (s->rank < 0) && s->element_type == -1);
		hm_decode(NULL, 140, &sd);
		CHECK("NULL features are not valid", (s->rank < 0));
		CHECK("text of NULL shape", hm_shape_text(NULL, buf, sizeof buf) == 1 &&
						    strcmp(buf, "?") == 0);
	}
	{
		float g[HLO_NODE_FEATURES];
		for (int i = 0; i < HLO_NODE_FEATURES; i++)
			g[i] = (i % 3) ? NAN : (i % 2 ? -1e30f : 3e38f);
		hm_decode(g, 140, &sd);
		int n = hm_shape_text(s, buf, sizeof buf);
		CHECK("garbage features decode without harm", n > 0 && (size_t)n < sizeof buf &&
								      s->rank >= 0 && s->rank <= 6);
	}
	{
		long long d[] = {8, 56, 56, 64};
		int m[] = {3, 2, 1, 0};
		array_vec(f, HLO_ET_BF16, 4, d, m);
		hm_decode(f, 140, &sd);
		memset(buf, 'x', sizeof buf);
		int n = hm_shape_text(s, buf, 6);
		CHECK("truncated text returns the full length", n == 25);
		CHECK("truncated text is terminated", strcmp(buf, "bf16[") == 0 && buf[6] == 'x');
		CHECK("length only", hm_shape_text(s, NULL, 0) == 25);
	}
}

/* Rows of unet3d.npz (layout/xla/default/train) as numpy prints them; the
 * expected text was worked out by hand from the documented feature order. */
static void test_shapes_real_rows(void)
{
	static const struct kv conv199[] = {
		{15, 1}, {21, 2}, {22, 128}, {23, 128}, {24, 128}, {25, 32}, {27, 418},
		{28, 134217728.0f}, {37, 3}, {38, 3}, {39, 3}, {43, 9}, {44, 27}, {45, 1},
		{46, 1}, {47, 1}, {51, 3}, {52, 1}, {53, 1}, {54, 1}, {55, 1}, {59, 3},
		{60, 1}, {61, 1}, {62, 1}, {63, 1}, {67, 3}, {68, 1}, {69, 1}, {70, 1},
		{71, 1}, {75, 3}, {76, 1}, {77, 1}, {78, 1}, {79, 1}, {83, 3}, {84, 1},
		{92, 3}, {94, 4}, {95, 1}, {96, 2}, {97, 3}, {99, 3}, {100, 4}, {102, 1},
		{103, 2}, {106, 4}, {107, 1}, {108, 1}, {112, 1}, {116, 1}, {120, 1},
		{124, 1}, {128, 1}, {132, 1}, {134, 4}, {135, 3}, {136, 2}, {137, 1}};
	static const struct kv slice766[] = {
		{15, 1}, {21, 2}, {22, 128}, {23, 128}, {24, 128}, {25, 64}, {27, 450},
		{28, 268435456.0f}, {44, 1}, {52, 1}, {60, 1}, {68, 1}, {76, 1}, {84, 1},
		{111, 128}, {113, 1}, {114, 1}, {115, 5}, {116, 1}, {117, 2}, {118, 128},
		{119, 578}, {120, 805306368.0f}, {124, 1}, {128, 1}, {132, 1}, {134, 4},
		{135, 3}, {136, 2}, {137, 1}};
	static const struct kv reshape2304[] = {
		{10, 1}, {21, 1}, {27, 1}, {28, 1}, {44, 1}, {52, 1}, {60, 1}, {68, 1},
		{76, 1}, {84, 1}, {112, 1}, {116, 1}, {120, 1}, {124, 1}, {128, 1}, {132, 1}};
	static const struct kv afterall2543[] = {
		{20, 1}, {28, 1}, {44, 1}, {52, 1}, {60, 1}, {68, 1}, {76, 1}, {84, 1},
		{112, 1}, {116, 1}, {120, 1}, {124, 1}, {128, 1}, {132, 1}};
	static const struct kv tuple2773[] = {
		{0, 1}, {18, 1}, {28, 1}, {29, 224}, {44, 1}, {52, 1}, {60, 1}, {68, 1},
		{76, 1}, {84, 1}, {112, 1}, {116, 1}, {120, 1}, {124, 1}, {128, 1}, {132, 1}};
	static const struct kv compare95[] = {
		{0, 1}, {3, 1}, {28, 1}, {44, 1}, {52, 1}, {60, 1}, {68, 1}, {76, 1},
		{84, 1}, {112, 1}, {116, 1}, {120, 1}, {124, 1}, {128, 1}, {132, 1}};
	static const struct kv reduce206[] = {
		{13, 1}, {21, 32}, {27, 32}, {28, 32}, {32, 1}, {33, 2}, {34, 3}, {44, 1},
		{52, 1}, {60, 1}, {68, 1}, {76, 1}, {84, 1}, {112, 1}, {116, 1}, {120, 1},
		{124, 1}, {128, 1}, {132, 1}};
	float f[HLO_NODE_FEATURES];
	hm_decoded sd;
	const hm_shape *s = &sd.s;

#define ROW(a) a, sizeof a / sizeof a[0]
	build(f, ROW(conv199));
	CHECK("unet3d node 199 (convolution)",
	      strcmp(text_of(f, 140), "bf16[2,128,128,128,32]{4,3,2,1,0}") == 0);
	hm_decode(f, 140, &sd);
	CHECK("unet3d node 199 count equals shape_dimensions_product",
	      hm_shape_elements(s) == (long long)f[HLO_F_DIMS_PRODUCT]);
	CHECK("unet3d node 199 window 3x3x3", f[hlo_node_feature_index("window_size_product")] == 27);
	build(f, ROW(slice766));
	CHECK("unet3d node 766 (slice)",
	      strcmp(text_of(f, 140), "bf16[2,128,128,128,64]{4,3,2,1,0}") == 0);
	hm_decode(f, 140, &sd);
	CHECK("unet3d node 766 count 2^28", hm_shape_elements(s) == 268435456LL &&
						    hm_shape_bytes(s) == 536870912LL);
	build(f, ROW(reshape2304));
	CHECK("unet3d node 2304 (reshape)", strcmp(text_of(f, 140), "u32[1]{0}") == 0);
	build(f, ROW(afterall2543));
	CHECK("unet3d node 2543 (after-all)", strcmp(text_of(f, 140), "token[]") == 0);
	build(f, ROW(tuple2773));
	CHECK("unet3d node 2773 (root tuple)", strcmp(text_of(f, 140), "(tuple of 224)") == 0);
	build(f, ROW(compare95));
	CHECK("unet3d node 95 (compare)", strcmp(text_of(f, 140), "pred[]") == 0);
	build(f, ROW(reduce206));
	CHECK("unet3d node 206 (reduce)", strcmp(text_of(f, 140), "f32[32]{0}") == 0);
#undef ROW
}

/* Every node of every real sample file: the decoded shape agrees with the
 * features it came from, and the opcodes present all have names. */
static void test_real_files(void)
{
	const char *data = getenv("DATA");
	hs_error err = {0};
	ds_index *ix = dataset_scan(data && *data ? data : "tests/data/tpugraphs", &err);
	long long nodes = 0, arrays = 0, tuples = 0, bad_count = 0, bad_sum = 0, bad_layout = 0,
		  bad_tuple = 0, unnamed = 0;
	int seen[256] = {0};

	CHECK("real files found", ix && ix->n == 7);
	for (size_t k = 0; ix && k < ix->n; k++) {
		hs_graph *g = graph_open(ix->entries[k].path, &err);
		if (!g) {
			printf("FAIL real file opens: %s\n", err.msg);
			t_failed = 1;
			continue;
		}
		for (int64_t v = 0; v < g->n_nodes; v++) {
			const float *f = graph_feat(g, v);
			hm_decoded sd;
	const hm_shape *s = &sd.s;
			nodes++;
			seen[g->opcode[v]] = 1;
			hm_decode(f, g->feat_width, &sd);
			if ((s->element_type == HM_TUPLE)) {
				tuples++;
				bad_tuple += s->n_tuple != (long long)f[HLO_F_TUPLE_SIZE];
				continue;
			}
			if (s->element_type == HM_TOKEN)
				continue;
			arrays++;
			bad_count += hm_shape_elements(s) != (long long)f[HLO_F_DIMS_PRODUCT];
			long long sum = 0;
			for (int i = 0; i < s->rank; i++)
				sum += s->dims[i];
			bad_sum += sum != (long long)f[HLO_F_DIMS_SUM];
			bad_layout += (s->rank >= 1) != s->has_layout;
		}
		if (strcmp(g->name, "unet3d") == 0 && g->n_nodes == 2774) {
			static const struct {
				int node;
				const char *op, *text;
			} want[] = {
				{0, "parameter", "f32[]"},
				{95, "compare", "pred[]"},
				{189, "broadcast", "bf16[3]{0}"},
				{199, "convolution", "bf16[2,128,128,128,32]{4,3,2,1,0}"},
				{266, "reduce-window", "bf16[2,64,64,64,64]{4,3,2,1,0}"},
				{766, "slice", "bf16[2,128,128,128,64]{4,3,2,1,0}"},
				{1000, "broadcast", "f32[2,128,128,128,64]{4,3,2,1,0}"},
				{2304, "reshape", "u32[1]{0}"},
				{2543, "after-all", "token[]"},
				{2773, "tuple", "(tuple of 224)"},
			};
			for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
				char name[96], buf[96];
				hm_decoded sd;
	const hm_shape *s = &sd.s;
				hm_decode(graph_feat(g, want[i].node), g->feat_width, &sd);
				hm_shape_text(s, buf, sizeof buf);
				snprintf(name, sizeof name, "unet3d node %d is %s %s", want[i].node,
					 want[i].op, want[i].text);
				CHECK(name, strcmp(hlo_opcode_name(g->opcode[want[i].node]), want[i].op) == 0 &&
						    strcmp(buf, want[i].text) == 0);
			}
			CHECK("unet3d root is a tuple", graph_feat(g, 2773)[HLO_F_IS_ROOT] == 1);
		}
		graph_free(g);
	}
	for (int op = 0; op < 256; op++)
		if (seen[op] && (op == 0 || op > HLO_MAX_OPCODE || hlo_opcode_is_retired(op)))
			unnamed++;
	printf("# %lld nodes: %lld arrays, %lld tuples\n", nodes, arrays, tuples);
	CHECK("real: all 5268 nodes decoded", nodes == 5268);
	CHECK("real: element_count == shape_dimensions_product", arrays > 5000 && bad_count == 0);
	CHECK("real: dims add up to shape_dimensions_sum", bad_sum == 0);
	CHECK("real: arrays of rank >= 1 carry a layout, scalars none", bad_layout == 0);
	CHECK("real: tuple sizes", tuples > 0 && bad_tuple == 0);
	CHECK("real: every opcode present is a current named opcode", unnamed == 0);
	CHECK("real: the opcodes the brief names occur",
	      seen[63] && seen[2] && seen[57] && seen[24] && seen[13] && seen[48] && seen[75] &&
		      seen[27]);
	dataset_free(ix);
}

int main(void)
{
	test_opcodes();
	test_categories();
	test_features();
	test_configs();
	test_element_types();
	test_shapes_built();
	test_shapes_real_rows();
	test_real_files();
	T_DONE();
}
