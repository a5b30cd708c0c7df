/* route_label.c - where the operand indices go in the terminal drawing.
 * See route.h.
 *
 * Each arrow into a user's top border gets the operand indices of the edges
 * that arrive there (routes that merge share an arrow: "0,2"), written in
 * the border under the arrow and to its right, or ending under it when the
 * right is taken.  A label never covers another arrow's column, never
 * touches another label, and stays off the corners; one that cannot be
 * placed so is left out (the DOT, SVG and PNG drawings label every edge).
 * Placement depends on the layout alone, so every window and band of rows
 * shows the same labels. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "render/canvas.h"
#include "render/route.h"

typedef struct arrival {
	int32_t head, edge;
	int x, y;
} arrival;

static int cmp_arrival(const void *a, const void *b)
{
	const arrival *p = a, *q = b;
	if (p->head != q->head)
		return p->head < q->head ? -1 : 1;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->edge > q->edge) - (p->edge < q->edge);
}

/* The numbers of a label ("0,1"; a cut one ends in "…", kept as INT64_MAX). */
static void numbers(const char *label, int64_t *v, int *n, int cap)
{
	for (const char *p = label; *p && *n < cap;) {
		if (*p >= '0' && *p <= '9')
			v[(*n)++] = strtoll(p, (char **)&p, 10);
		else if (!strncmp(p, "\xe2\x80\xa6", 3) && (p += 3))
			v[(*n)++] = INT64_MAX;
		else
			p++;
	}
}

/* The joint label of arrivals a[0 .. n): their numbers in order, commas
 * between, "…" for what does not fit; its width in columns. */
static int joint_label(const hs_layout *L, const arrival *a, int n, char *buf, size_t cap)
{
	int64_t v[64];
	int k = 0, cols = 0;
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		numbers(L->edges[a[i].edge].label, v, &k, 64);
	qsort(v, (size_t)k, sizeof *v, hs_cmp_i64);
	for (int i = 0; i < k; i++) {
		char num[24];
		if (i > 0 && v[i] == v[i - 1])
			continue;
		int len = v[i] == INT64_MAX ? snprintf(num, sizeof num, "%s\xe2\x80\xa6", o ? "," : "")
					    : snprintf(num, sizeof num, "%s%lld", o ? "," : "", (long long)v[i]);
		if (o + (size_t)len + 5 > cap) {
			memcpy(buf + o, ",\xe2\x80\xa6", 5);
			break;
		}
		memcpy(buf + o, num, (size_t)len + 1);
		o += (size_t)len;
	}
	for (const char *c = buf; *c; c++)
		cols += ((unsigned char)*c & 0xC0) != 0x80;
	return cols;
}

/* 1 when columns lo..hi of the border (box columns bx .. bx + w - 1) are
 * inside its corners, free of labels, not next to one, and under no arrow
 * but the one at `own`. */
static int fits(const uint8_t *used, const uint8_t *arrow, int bx, int w, int lo, int hi, int own)
{
	if (lo <= bx || hi >= bx + w - 1)
		return 0;
	for (int c = lo - 1; c <= hi + 1; c++)
		if (used[c - bx])
			return 0;
	for (int c = lo; c <= hi; c++)
		if (c != own && arrow[c - bx])
			return 0;
	return 1;
}

/* Places the labels of the arrivals a[0 .. n) into one node's border. */
static void place_node(lay_routes *R, const hs_layout *L, const arrival *a, int n, uint8_t *used,
		       uint8_t *arrow)
{
	int bx, by, w, h;

	canvas_node_box(L, a[0].head, &bx, &by, &w, &h);
	memset(used, 0, (size_t)w);
	memset(arrow, 0, (size_t)w);
	for (int i = 0; i < n; i++)
		if (a[i].x >= bx && a[i].x < bx + w)
			arrow[a[i].x - bx] = 1;
	for (int i = 0, j; i < n; i = j) {
		char text[ROUTE_LABEL_MAX];
		int lead = -1, len;
		for (j = i; j < n && a[j].x == a[i].x; j++)
			if (lead < 0 && L->edges[a[j].edge].label[0])
				lead = j;
		if (lead < 0)
			continue;
		len = joint_label(L, a + i, j - i, text, sizeof text);
		if (!len || a[i].y + 1 != by)
			continue;
		int x = a[i].x, from = -1;
		if (fits(used, arrow, bx, w, x, x + len - 1, x))
			from = x;
		else if (fits(used, arrow, bx, w, x - len + 1, x, x))
			from = x - len + 1;
		if (from < 0)
			continue;
		memset(used + (from - bx), 1, (size_t)len);
		R->label_at[a[lead].edge] = from;
		memcpy(R->label[a[lead].edge], text, sizeof text);
	}
}

int route_place_labels(lay_routes *R, const hs_layout *L)
{
	arrival *a = malloc(((size_t)R->n_edges + 1) * sizeof *a);
	int32_t n = 0, maxw = 1;
	uint8_t *used = NULL, *arrow = NULL;

	R->label_at = malloc(((size_t)R->n_edges + 1) * sizeof *R->label_at);
	R->label = calloc((size_t)R->n_edges + 1, sizeof *R->label);
	if (!a || !R->label_at || !R->label) {
		free(a);
		return -1;
	}
	for (int32_t i = 0; i < R->n_edges; i++) {
		int32_t k = R->off[i + 1] - R->off[i];
		R->label_at[i] = -1;
		if (k <= 0)
			continue;
		const int *pt = R->pts + 2 * (size_t)(R->off[i + 1] - 1);
		int bx, by, bw, bh;
		a[n++] = (arrival){L->edges[i].head, i, pt[0], pt[1]};
		canvas_node_box(L, L->edges[i].head, &bx, &by, &bw, &bh);
		if (bw > maxw)
			maxw = bw;
	}
	qsort(a, (size_t)n, sizeof *a, cmp_arrival);
	used = malloc((size_t)maxw + 2);
	arrow = malloc((size_t)maxw + 2);
	if (!used || !arrow) {
		free(a);
		free(used);
		free(arrow);
		return -1;
	}
	for (int32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && a[j].head == a[i].head; j++)
			;
		place_node(R, L, a + i, j - i, used, arrow);
	}
	free(a);
	free(used);
	free(arrow);
	return 0;
}
