/* compare_text.c - a comparison as text: the layout value text ("{4,0*}"),
 * the summary line, the header (files, configs, measured and predicted
 * runtimes, ranks) and the rows of differing nodes with their neighbours,
 * or a tile config's values and kernel nodes (see compare.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "model/compare_impl.h"
#include "base/units.h"

static int put_value(char *buf, size_t cap, float v)
{
	if (v == -1)
		return snprintf(buf, cap, "-");
	if (v == (float)(long long)v && fabsf(v) < 1e15f)
		return snprintf(buf, cap, "%lld", (long long)v);
	return snprintf(buf, cap, "%g", (double)v);
}

int compare_layout_text(const float *v, const float *other, const unsigned char *changed, int j0,
			char *buf, size_t cap)
{
	int len = 0;
	hs_strbuf o = hs_strbuf_fixed(buf, cap);
	char num[32];

	for (int i = 0; i < LAYOUT_GROUP; i++)
		if (v[j0 + i] != -1 || (other && other[j0 + i] != -1))
			len = i + 1;
	int unset = 1, any_changed = 0;
	for (int i = 0; i < LAYOUT_GROUP; i++) {
		unset &= v[j0 + i] == -1;
		any_changed |= changed && changed[j0 + i];
	}
	if (!len || unset) {
		hs_strbuf_printf(&o, "-%s", any_changed ? "*" : "");
		return (int)o.len;
	}
	hs_strbuf_puts(&o, "{");
	for (int i = 0; i < len; i++) {
		put_value(num, sizeof num, v[j0 + i]);
		hs_strbuf_printf(&o, "%s%s%s", i ? "," : "", num,
		     changed && changed[j0 + i] ? "*" : "");
	}
	hs_strbuf_puts(&o, "}");
	return (int)o.len;
}

/* Generic rows (a width other than 18): every value, comma-separated. */
static void values_text(const float *v, const unsigned char *changed, int w, char *buf, size_t cap)
{
	hs_strbuf o = hs_strbuf_fixed(buf, cap);
	char num[32];
	for (int j = 0; j < w; j++) {
		put_value(num, sizeof num, v[j]);
		hs_strbuf_printf(&o, "%s%s%s", j ? "," : "", num, changed && changed[j] ? "*" : "");
	}
}

int compare_summary(const compare_result *r, char *buf, size_t cap)
{
	hs_strbuf o = hs_strbuf_fixed(buf, cap);
	if (r->kind == HS_KIND_TILE) {
		if (!r->tile_n_differ) {
			hs_strbuf_printf(&o, "no value differs: A and B have the same %d config values", r->width);
			if (r->A.labeled && r->B.labeled && r->A.runtime != r->B.runtime)
				hs_strbuf_puts(&o, " (their runtimes differ by measurement noise alone)");
			return (int)o.len;
		}
		hs_strbuf_printf(&o, "%d of %d value%s differ%s:", r->tile_n_differ, r->width, hs_s(r->width),
		     hs_plural(r->tile_n_differ, "s", ""));

		for (int j = 0, k = 0; j < r->width; j++)
			if (r->tile_changed[j])
				hs_strbuf_printf(&o, "%s %s", k++ ? "," : "", hlo_tile_config_name(j, r->width));
		return (int)o.len;
	}
	if (!r->n_differ) {
		hs_strbuf_printf(&o, "no configurable node differs: A and B have the same values on all %lld",
		     (long long)r->n_cfg);
		if (r->A.labeled && r->B.labeled && r->A.runtime != r->B.runtime)
			hs_strbuf_puts(&o, " (their runtimes differ by measurement noise alone)");
		return (int)o.len;
	}
	hs_strbuf_printf(&o, "%lld of %lld configurable node%s differ%s; opcodes:", (long long)r->n_differ,
	     (long long)r->n_cfg, hs_s(r->n_cfg), hs_plural(r->n_differ, "s", ""));

	for (int i = 0; i < r->n_opcodes; i++)
		hs_strbuf_printf(&o, "%s %s %lld", i ? "," : "", hlo_opcode_name((int)r->opcodes[i].key),
		     (long long)r->opcodes[i].count);
	hs_strbuf_printf(&o, "; computation%s:", hs_s(r->n_hcomps));
	int shown = r->n_hcomps < 6 ? r->n_hcomps : 6;
	for (int i = 0; i < shown; i++) {
		char name[160];

		hs_strbuf_printf(&o, "%s %s (%lld)", i ? "," : "",
		     graph_hcomp_name(r->ga, r->hcomps[i].key, name, sizeof name), (long long)r->hcomps[i].count);
	}
	if (r->n_hcomps > shown)
		hs_strbuf_printf(&o, ", +%d more", r->n_hcomps - shown);
	return (int)o.len;
}

static const char *mismatch_word(int m)
{
	return m == 1 ? "copy" : m == 0 ? "ok" : "?";
}

/* A measured runtime, with `decimals` to tell A and B apart. */
static void runtime_text(const compare_result *r, const compare_side_info *s, int decimals, char *buf, size_t cap)
{
	char ns[48];
	hs_unit_format(ns, sizeof ns, HS_U_NS, (double)s->runtime_raw, decimals);
	if (!s->labeled)
		snprintf(buf, cap, "hidden");
	else if (r->kind == HS_KIND_TILE)
		snprintf(buf, cap, "%.6g (%s)", s->runtime, ns);
	else
		snprintf(buf, cap, "%s", ns);
}

#define LABEL_W 14

static void header_line(FILE *out, const char *label, const char *a, const char *b, const char *ratio,
			const char *note, int colw)
{
	char line[1024];
	hs_strbuf o = hs_strbuf_fixed(line, sizeof line);

	hs_strbuf_printf(&o, "%-*s %-*s %-*s", LABEL_W, label, colw, a, colw, b);
	if (ratio && *ratio)
		hs_strbuf_printf(&o, " %s", ratio);
	if (note && *note)
		hs_strbuf_printf(&o, "%s%s", ratio && *ratio ? "  " : " ", note);
	size_t pos = o.len < sizeof line ? o.len : sizeof line - 1;
	while (pos > 0 && line[pos - 1] == ' ')
		pos--;
	line[pos] = 0;
	fprintf(out, "%s\n", line);
}

static void print_header(FILE *out, const compare_result *r)
{
	char a[96], b[96], ratio[48], note[300];
	const hs_graph *ga = r->ga, *gb = r->gb;

	if (ga == gb) {
		fprintf(out, "%-*s %s\n", LABEL_W, "file", ga->path);
	} else {
		fprintf(out, "%-*s %s\n", LABEL_W, "file A", ga->path);
		fprintf(out, "%-*s %s\n", LABEL_W, "file B", gb->path);
	}
	if (r->kind == HS_KIND_LAYOUT)
		fprintf(out, "%-*s layout, %lld node%s, %lld configurable, %lld config%s%s\n", LABEL_W, "graph",
			(long long)ga->n_nodes, hs_s(ga->n_nodes), (long long)ga->n_cfg_nodes,
			(long long)ga->n_configs, hs_s(ga->n_configs), ga == gb ? "" : " in A");
	else
		fprintf(out, "%-*s tile, %lld node%s, %lld config%s%s\n", LABEL_W, "graph",
			(long long)ga->n_nodes, hs_s(ga->n_nodes), (long long)ga->n_configs,
			hs_s(ga->n_configs), ga == gb ? "" : " in A");

	int colw = 22;
	header_line(out, "", "A", "B", "B/A", NULL, colw);
	snprintf(a, sizeof a, "%lld", (long long)r->A.config);
	snprintf(b, sizeof b, "%lld", (long long)r->B.config);
	if (strcmp(a, r->A.selector))
		snprintf(a, sizeof a, "%lld (%s)", (long long)r->A.config, r->A.selector);
	if (strcmp(b, r->B.selector))
		snprintf(b, sizeof b, "%lld (%s)", (long long)r->B.config, r->B.selector);
	header_line(out, "config", a, b, NULL, NULL, colw);

	double raw[2] = {(double)r->A.runtime_raw, (double)r->B.runtime_raw};
	int dec = hs_unit_decimals(HS_U_NS, raw, 2, 3, 9);
	runtime_text(r, &r->A, dec, a, sizeof a);
	runtime_text(r, &r->B, dec, b, sizeof b);
	ratio[0] = note[0] = 0;
	if (isfinite(r->runtime_ratio))
		snprintf(ratio, sizeof ratio, "%.6f (%+.3g%%)", r->runtime_ratio, 100 * (r->runtime_ratio - 1));
	if (!r->A.labeled || !r->B.labeled) {
		const hs_graph *u = !r->A.labeled ? ga : gb;
		snprintf(note, sizeof note, "runtimes hidden: %s is unlabeled (a test-split file: every runtime is 0)",
			 compare_file_label(u));
	} else if (r->kind == HS_KIND_TILE) {
		snprintf(note, sizeof note, "(normalized by the default config's runtime)");
	}
	header_line(out, "measured", a, b, ratio, note, colw);
	if (r->A.labeled)
		snprintf(a, sizeof a, "%lld of %lld", (long long)r->A.rank, (long long)r->A.n_configs);
	if (r->B.labeled)
		snprintf(b, sizeof b, "%lld of %lld", (long long)r->B.rank, (long long)r->B.n_configs);
	if (r->A.labeled || r->B.labeled)
		header_line(out, "rank", r->A.labeled ? a : "-", r->B.labeled ? b : "-", NULL, NULL, colw);

	if (r->pred_error[0]) {
		fprintf(out, "%-*s absent: %s\n", LABEL_W, "predicted", r->pred_error);
	} else {
		if (r->pred_ns) {
			double v[2] = {r->A.predicted, r->B.predicted};
			int d = hs_unit_decimals(HS_U_NS, v, 2, 3, 9);

			hs_unit_format(a, sizeof a, HS_U_NS, r->A.predicted, d);
			hs_unit_format(b, sizeof b, HS_U_NS, r->B.predicted, d);
		} else {
			snprintf(a, sizeof a, "%.6g", r->A.predicted);
			snprintf(b, sizeof b, "%.6g", r->B.predicted);
		}
		ratio[0] = 0;
		if (isfinite(r->predicted_ratio))
			snprintf(ratio, sizeof ratio, "%.6f (%+.3g%%)", r->predicted_ratio,
				 100 * (r->predicted_ratio - 1));
		else if (isfinite(r->predicted_diff))
			snprintf(ratio, sizeof ratio, "B-A %+.6g", r->predicted_diff);
		if (r->time_kind)
			snprintf(note, sizeof note, "(%s; times: %s%s)", r->pred_label, r->time_kind,
				 r->pred_ns ? "" : ", normalized");
		else
			snprintf(note, sizeof note, "(%s: scores, lower is faster)", r->pred_label);
		header_line(out, "predicted", a, b, ratio, note, colw);
		snprintf(a, sizeof a, "%lld%s of %lld", (long long)r->A.pred_rank, r->A.pred_tied ? "=" : "",
			 (long long)r->A.n_configs);
		snprintf(b, sizeof b, "%lld%s of %lld", (long long)r->B.pred_rank, r->B.pred_tied ? "=" : "",
			 (long long)r->B.n_configs);
		header_line(out, "predicted rank", a, b, NULL,
			    r->A.pred_tied || r->B.pred_tied ? "(= tied with other configs)" : NULL, colw);
	}
	char sum[1024];
	compare_summary(r, sum, sizeof sum);
	fprintf(out, "%-*s %s\n", LABEL_W, "differ", sum);
	if (r->kind == HS_KIND_LAYOUT) {
		fprintf(out, "%-*s A %d, B %d (layouts of configurable neighbours that disagree: a copy or transpose each)\n",
			LABEL_W, "mismatches", r->A.mismatches, r->B.mismatches);
		if (!r->has_contribution)
			fprintf(out, "%-*s %s\n", LABEL_W, "contribution", r->contrib_note);
		else if (!isnan(r->contrib_scale)) {
			char d[48], t[48];

			hs_unit_format_signed(d, sizeof d, HS_U_NS, r->contrib_differ, 3);
			hs_unit_format_signed(t, sizeof t, HS_U_NS, r->contrib_total, 3);
			fprintf(out, "%-*s per node, its part of predicted B - A (%s); differing nodes %s of %s\n",
				LABEL_W, "contribution", r->pred_label, d, t);
		} else
			fprintf(out, "%-*s per node, its part of predicted B - A (%s, score units); differing nodes "
				"%+.6g of %+.6g\n", LABEL_W, "contribution", r->pred_label, r->contrib_differ,
				r->contrib_total);
	}
}

static void print_layout_rows(FILE *out, const compare_result *r, int all)
{
	const hs_graph *g = r->ga;
	int w = r->width, grouped = w == HLO_LAYOUT_CONFIG_FEATURES;
	int wid = 4, wname = 4, wop = 6, wsh = 5, wl[3][2] = {{6, 1}, {5, 1}, {6, 1}}, wv = 8, op_names = 0;
	char buf[512], sh[256], name[256];
	hlo_shape s;

	if (!r->n_rows)
		return;
	for (int64_t i = 0; i < r->n_rows; i++) {
		const compare_row *rw = &r->rows[i];
		int n = snprintf(buf, sizeof buf, "%lld", (long long)rw->node);
		wid = n > wid ? n : wid;
		n = (int)strlen(graph_node_name(g, rw->node, name, sizeof name));
		wname = n > wname ? n : wname;
		n = (int)strlen(graph_node_opcode_name(g, rw->node));
		wop = n > wop ? n : wop;
		op_names |= *graph_node_text(g, rw->node, HS_HF_OP_NAME, buf, sizeof buf) != 0;
		hlo_decode_shape(graph_feat(g, rw->node), g->feat_width, &s);
		n = hlo_shape_text(&s, sh, sizeof sh);
		wsh = n > wsh ? n : wsh;
		if (grouped) {
			for (int gi = 0; gi < 3; gi++) {
				n = compare_layout_text(rw->a, rw->b, NULL, gi * LAYOUT_GROUP, buf, sizeof buf);
				wl[gi][0] = n > wl[gi][0] ? n : wl[gi][0];
				n = compare_layout_text(rw->b, rw->a, rw->changed, gi * LAYOUT_GROUP, buf, sizeof buf);
				wl[gi][1] = n > wl[gi][1] ? n : wl[gi][1];
			}
		} else {
			values_text(rw->b, rw->changed, w, buf, sizeof buf);
			n = (int)strlen(buf);
			wv = n > wv ? n : wv;
		}
	}
	if (wsh > 48)
		wsh = 48;
	fputc('\n', out);
	fprintf(out, "%s%*s  %-*s  %-*s  %-*s", all ? "  " : "", wid, "node", wname, "name", wop, "opcode", wsh,
		"shape");
	if (grouped) {
		for (int gi = 0; gi < 3; gi++) {
			int span = wl[gi][0] + 2 + wl[gi][1];
			char t[32];
			snprintf(t, sizeof t, "%s A -> B", compare_group_name(gi));
			if ((int)strlen(t) > span) {
				wl[gi][1] += (int)strlen(t) - span;
				span = (int)strlen(t);
			}
			fprintf(out, "  %-*s", span, t);
		}
	} else {
		fprintf(out, "  %-*s  %-*s", wv, "A", wv, "B");
	}
	fprintf(out, "  contribution%s\n", op_names ? "  op_name" : "");

	for (int64_t i = 0; i < r->n_rows; i++) {
		const compare_row *rw = &r->rows[i];
		hlo_decode_shape(graph_feat(g, rw->node), g->feat_width, &s);
		hlo_shape_text(&s, sh, sizeof sh);
		fprintf(out, "%s%*lld  %-*s  %-*s  %-*.*s", all ? (rw->differs ? "* " : "  ") : "", wid,
			(long long)rw->node, wname, graph_node_name(g, rw->node, name, sizeof name), wop,
			graph_node_opcode_name(g, rw->node), wsh, wsh, sh);
		if (grouped) {
			for (int gi = 0; gi < 3; gi++) {
				compare_layout_text(rw->a, rw->b, NULL, gi * LAYOUT_GROUP, buf, sizeof buf);
				fprintf(out, "  %-*s", wl[gi][0], buf);
				compare_layout_text(rw->b, rw->a, rw->changed, gi * LAYOUT_GROUP, buf, sizeof buf);
				fprintf(out, "  %-*s", wl[gi][1], buf);
			}
		} else {
			values_text(rw->a, NULL, w, buf, sizeof buf);
			fprintf(out, "  %-*s", wv, buf);
			values_text(rw->b, rw->changed, w, buf, sizeof buf);
			fprintf(out, "  %-*s", wv, buf);
		}
		if (isnan(rw->contribution))
			snprintf(buf, sizeof buf, "-");
		else if (!isnan(r->contrib_scale))
			hs_unit_format_signed(buf, sizeof buf, HS_U_NS, rw->contribution, 3);
		else
			snprintf(buf, sizeof buf, "%+.4g", rw->contribution);
		const char *on = op_names ? graph_node_text(g, rw->node, HS_HF_OP_NAME, sh, sizeof sh) : "";

		fprintf(out, "  %-*s%s%s\n", *on ? 12 : 0, buf, *on ? "  " : "", on);

		/* Neighbours matter where the layouts changed. */
		for (int k = 0; k < rw->n_nb && grouped && rw->differs; k++) {
			const compare_neighbor *nb = &rw->nb[k];
			const hs_graph *gb = r->gb;
			int grp = compare_facing_group(g, nb);
			float na[LAYOUT_GROUP], nbv[LAYOUT_GROUP];
			unsigned char ch[LAYOUT_GROUP];
			int64_t kb = gb->cfg_index[nb->node];
			for (int j = 0; j < LAYOUT_GROUP; j++) {
				na[j] = graph_ncf(g, r->A.config, g->cfg_index[nb->node], grp * LAYOUT_GROUP + j);
				nbv[j] = graph_ncf(gb, r->B.config, kb, grp * LAYOUT_GROUP + j);
				ch[j] = na[j] != nbv[j];
			}
			char la[64], lb[64];
			compare_layout_text(na, nbv, NULL, 0, la, sizeof la);
			compare_layout_text(nbv, na, ch, 0, lb, sizeof lb);
			char why[96] = "";
			int64_t cons = nb->side == COMPARE_OPERAND ? rw->node : nb->node;
			if (!nb->comparable)
				snprintf(why, sizeof why, " (not comparable: dims renumbered on the way)");
			else if (compare_consumer_group(g, cons, nb->slot) < 0)
				snprintf(why, sizeof why, " (operand %d of %s has no layout in the data)", nb->slot,
					 graph_node_opcode_name(g, cons));
			fprintf(out, "%s%*s  %s %lld %s, %d hop%s, %s %s -> %s: A %s, B %s%s\n", all ? "  " : "",
				wid, "", nb->side == COMPARE_OPERAND ? "operand" : "user", (long long)nb->node,
				graph_node_name(g, nb->node, name, sizeof name), nb->hops, hs_s(nb->hops),
				compare_group_name(grp), la, lb, mismatch_word(nb->mismatch_a),
				mismatch_word(nb->mismatch_b), why);
		}
		if (grouped && rw->differs && (rw->more_operands || rw->more_users))
			fprintf(out, "%s%*s  (+%d operand%s, +%d user%s not shown)\n", all ? "  " : "", wid, "",
				rw->more_operands, hs_s(rw->more_operands), rw->more_users,
				hs_s(rw->more_users));
	}
}

static void print_tile_rows(FILE *out, const compare_result *r)
{
	const hs_graph *g = r->ga;
	char a[32], b[32], sh[256];
	hlo_shape s;

	fprintf(out, "\n  %-22s %12s %12s\n", "value", "A", "B");
	for (int j = 0; j < r->width; j++) {
		snprintf(a, sizeof a, "%g", (double)r->tile_a[j]);
		snprintf(b, sizeof b, "%g", (double)r->tile_b[j]);
		fprintf(out, "%c %-22s %12s %12s\n", r->tile_changed[j] ? '*' : ' ',
			hlo_tile_config_name(j, r->width), a, b);
	}
	fprintf(out, "\nkernel nodes (%lld)\n", (long long)g->n_nodes);
	int wid = snprintf(a, sizeof a, "%lld", (long long)(g->n_nodes ? g->n_nodes - 1 : 0));
	int wop = 6, wname = 4, wsh = 5, op_names = 0;
	char name[256], opn[1024];
	for (int64_t i = 0; i < g->n_nodes; i++) {
		int n = (int)strlen(graph_node_opcode_name(g, i));
		wop = n > wop ? n : wop;
		n = (int)strlen(graph_node_name(g, i, name, sizeof name));
		wname = n > wname ? n : wname;
		hlo_decode_shape(graph_feat(g, i), g->feat_width, &s);
		n = hlo_shape_text(&s, sh, sizeof sh);
		wsh = n > wsh ? n : wsh;
		op_names |= *graph_node_text(g, i, HS_HF_OP_NAME, opn, sizeof opn) != 0;
	}
	for (int64_t i = 0; i < g->n_nodes; i++) {
		hlo_decode_shape(graph_feat(g, i), g->feat_width, &s);
		hlo_shape_text(&s, sh, sizeof sh);
		const char *on = op_names ? graph_node_text(g, i, HS_HF_OP_NAME, opn, sizeof opn) : "";

		fprintf(out, "  %*lld  %-*s  %-*s  %-*s%s%s\n", wid, (long long)i, wname,
			graph_node_name(g, i, name, sizeof name), wop, graph_node_opcode_name(g, i), *on ? wsh : 0, sh,
			*on ? "  " : "", on);
	}
}

/* ---- JSON ----------------------------------------------------------- */

void compare_print_text(FILE *out, const compare_result *r, int all)
{
	print_header(out, r);
	if (r->kind == HS_KIND_LAYOUT)
		print_layout_rows(out, r, all);
	else
		print_tile_rows(out, r);
}
