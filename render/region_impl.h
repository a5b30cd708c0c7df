/* region_impl.h - what the region files share (render/ only).
 *
 * The drawing's graph: a node's steps towards its operands are its HLO
 * operands in the instruction's order (repeats kept) and then, on a module,
 * the roots of the computations it calls (the calls relation: a caller
 * depends on what its callee's root computes); its steps towards its users
 * are its users and, for a computation's root, the nodes that call the
 * computation.  On a bare .npz the operands are the dataset's edges, which
 * hold the call edges already, so there are no call steps. */
#ifndef HS_REGION_IMPL_H
#define HS_REGION_IMPL_H

#include <stdint.h>

#include "render/region.h"

/* 1 when node v is the root of its computation. */
static inline int region_is_root(const hs_graph *g, int64_t v)
{
	return g->hcomps[g->hcomp_of[v]].root == v;
}

/* How many steps node v has towards its operands (users = 0) or its users
 * (users = 1); region_step gives step k (repeats possible). */
static inline int64_t region_n_steps(const hs_graph *g, int64_t v, int users)
{
	/* a call is a step of its own, but a bare .npz has its calls among its operands */
	int calls = (g->knows & HM_KNOWS_OPERAND_ORDER) != 0;
	if (!users)
		return graph_hlo_n_operands(g, v) + (calls ? graph_n_called(g, v) : 0);
	return graph_hlo_n_users(g, v) +
	       (calls && region_is_root(g, v) ? g->hcomps[g->hcomp_of[v]].n_callers : 0);
}

static inline int64_t region_step(const hs_graph *g, int64_t v, int users, int64_t k)
{
	if (!users) {
		int64_t n = graph_hlo_n_operands(g, v);
		return k < n ? graph_hlo_operands(g, v)[k]
			     : g->hcomps[g->called_idx[g->called_off[v] + k - n]].root;
	}
	int64_t n = graph_hlo_n_users(g, v);
	if (k < n)
		return graph_hlo_users(g, v)[k];
	return g->hcomp_callers[g->hcomps[g->hcomp_of[v]].callers_at + k - n];
}

/* How many of the steps are a node's own operands (users) rather than
 * calls: the center of a crowded region keeps the first ones only. */
static inline int64_t region_n_plain_steps(const hs_graph *g, int64_t v, int users)
{
	return users ? graph_hlo_n_users(g, v) : graph_hlo_n_operands(g, v);
}

int region_check_node(const hs_graph *g, int64_t id, const char *what, hs_error *err);

/* The ways out of a refusal, as the front end spells them (region_words):
 * collected, then joined "A", "A or B", "A, B or C". */
#define REGION_MAX_WAYS 8
typedef struct region_ways {
	char item[REGION_MAX_WAYS][160];
	int n;
} region_ways;
/* The spec's words, or words that are all NULL. */
const region_words *region_words_of(const region_spec *s);
/* Adds "WORD" and the formatted tail when word is set. */
void region_way(region_ways *w, const char *word, const char *tail, ...)
	__attribute__((format(printf, 3, 4)));
/* PREFIX and the ways joined, or "" when there are none. */
void region_ways_text(const region_ways *w, const char *prefix, char *buf, size_t cap);
int64_t region_effective_limit(const region_spec *s);
/* The region of the nodes marked in `in` ([g->n_nodes]): its edges (HLO
 * operands, a repeated operand once on a module) and call edges. */
region *region_from_mask(const hs_graph *g, const uint8_t *in, hs_error *err);
/* The kinds' selections (region.c, region_around.c): a region of raw
 * nodes, nothing collapsed yet; over the limit, NULL with err set and
 * *over (when not NULL) the boxes it would draw. */
region *region_select_around(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err);
region *region_select_kind(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err);
/* A region over its limit grouped (region_group.c): the nodes of the spec
 * selected whatever their number, grouped as s->collapse asks, collapsed.
 * NULL with err set when no grouping fits (then `why`, the refusal of the
 * region as it was, is the message's start). */
region *region_select_grouped(const hs_graph *g, const region_spec *s, int64_t over,
			      const char *why, hs_error *err);
/* Cuts the longest edges of a region over the work budget into stubs
 * (region_stub.c) until it fits: 0 (r->work measured again), 1 when even
 * that does not bring it within `budget`, -1 when out of memory. */
int region_cut_long_edges(region *r, int64_t budget);
/* "12 long edges drawn as stubs" and friends, appended to r->note. */
void region_note_add(region *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds to `in` every node of the computations `expand` names (not "all")
 * that a node of `in` calls or that has a node in `in`, until none is
 * left; returns the nodes marked. */
int64_t region_expand_named(const hs_graph *g, const char *expand, uint8_t *in);
/* The layout work of a region (region.h) into r->work. -1 when out of
 * memory. */
int region_measure(region *r);
/* The work budget of a spec. */
int64_t region_work_budget(const region_spec *s);

#endif
