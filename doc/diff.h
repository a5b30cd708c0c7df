/* module_diff.h - what changed between two HLO modules: which instruction of A
 * is which of B, and how each pair differs.
 *
 * Matching, in this order, each step only on what is still unmatched:
 *   1. names: an instruction name that occurs once in each module pairs
 *      those two, wherever they are (an op that moved into a fusion body
 *      keeps its name); a name used in several computations pairs by
 *      (computation name, instruction name).
 *   2. exact structure: a bottom-up fingerprint (opcode, shape with layout,
 *      the operands' fingerprints in order, the called computations' roots)
 *      and a top-down one (opcode, shape, the users' fingerprints and the
 *      operand position each uses): equal fingerprints that occur as often
 *      in A as in B pair up in node order.
 *   3. neighbourhood: from every matched pair, operand k of one and operand
 *      k of the other pair when their opcodes agree; users with the same
 *      opcode that use the pair at the same position pair when that leaves
 *      one candidate; a call's roots and parameters pair with the other
 *      call's; repeated until nothing moves.
 * Computations correspond by name, else by where most of their matched
 * instructions went.  Everything is linear in the instructions and operands
 * (hash tables; a user list longer than MODULE_DIFF_FANOUT is not searched,
 * its pairs come from the operand side), so two modules of a million
 * instructions match in seconds.
 *
 * A matched pair's changes: its opcode, its shape (dims and element type),
 * its layout, its operands (operand k of A's not matched to operand k of
 * B's), its attributes as written (which ones; names of computations and
 * instructions compared through the matching, so a renaming alone is no
 * change), its computation (moved: A's computation does not correspond to
 * B's).
 *
 * Costs are the analytic model's (cost_analytic), per node and in total
 * over the executed computations (cost_executed_total).
 */
#ifndef HS_DOC_DIFF_H
#define HS_DOC_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "loader/graph.h"
#include "model/cost.h"

#define MODULE_DIFF_FANOUT 64

enum module_diff_change {
	HD_OPCODE = 1u << 0,
	HD_SHAPE = 1u << 1,
	HD_LAYOUT = 1u << 2,
	HD_OPERANDS = 1u << 3,
	HD_ATTRIBUTES = 1u << 4,
	HD_COMPUTATION = 1u << 5,
};
#define HD_NCHANGES 6

enum module_diff_flags {
	HD_NAMES_ONLY = 1u << 0,   /* step 1 only */
};

/* How a pair was found: by name, fingerprint or neighbourhood. */
enum module_diff_how { HD_BY_NAME = 1, HD_BY_STRUCTURE = 2, HD_BY_NEIGHBOURS = 3 };

typedef struct module_diff {
	const hs_graph *a, *b;
	int64_t *a2b, *b2a;         /* [a->n_nodes], [b->n_nodes]: the other side, or -1 */
	uint8_t *how;               /* [a->n_nodes]: enum module_diff_how of a's pair, 0 */
	uint32_t *changes;          /* [a->n_nodes]: HD_* bits of a's pair */
	int64_t *comp_a2b;          /* [a->n_hcomps]: corresponding computation of B, or -1 */
	cost_estimate *cost_a, *cost_b; /* per node */
	int64_t matched, changed, only_a, only_b;
	int64_t renamed;            /* pairs whose names differ (no change in itself) */
	int64_t by_how[4];          /* pairs found by each step */
} module_diff;

/* Matches a with b and finds the changes; both graphs must outlive d.
 * -1 and err on out of memory. */
int module_diff_run(module_diff *d, const hs_graph *a, const hs_graph *b, unsigned flags, hs_error *err);
void module_diff_free(module_diff *d);

/* "opcode", "shape", "layout", "operands", "attributes", "computation". */
const char *module_diff_change_name(unsigned bit);

/* "opcode, computation" for a mask of HD_* bits, into buf ("" for none). */
void module_diff_change_list(uint32_t ch, char *buf, size_t cap);
/* The fusion instruction of B whose body holds vb (an op moved into a
 * fusion: "fused into fusion.12"), its name into buf; NULL when vb is in no
 * fusion body. */
const char *module_diff_fused_into(const module_diff *d, int64_t vb, char *buf, size_t cap);

/* How a changed pair differs, old -> new: fn once per change, with the
 * change's HD_* bit, and for HD_ATTRIBUTES the attribute's name ("calls"
 * for the called computations; old or new NULL on the side without it).
 * Shapes (layout included) as HLO writes them; operands and called
 * computations as "x, y", named as in B ("A:name" for one of A without a
 * counterpart); computations by their own names.  0, -1 out of memory. */
typedef void (*module_diff_fn)(void *ctx, unsigned change, const char *attr, const char *old, const char *new_);
int module_diff_details(const module_diff *d, int64_t va, module_diff_fn fn, void *ctx);

/* 1 when anything differs (a renaming alone does not), 0 when not. */
static inline int module_diff_differs(const module_diff *d)
{
	return d->changed || d->only_a || d->only_b;
}

/* The report: text for a terminal (largest changes first, `limit` rows per
 * list, 0 for all) or one JSON document.  0, or -1 when writing failed or
 * memory ran out (the text: ferror(out) tells which). */
int module_diff_print_text(const module_diff *d, FILE *out, int64_t limit);
int module_diff_print_json(const module_diff *d, FILE *out, hs_error *err);

#endif
