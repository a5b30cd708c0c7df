/* hlo_synth.h - the HLO module of a dataset .npz, made from its arrays.
 *
 * Every graph has a module (graph.h): a reader's, or one synthesized here
 * from the arrays of a bare .npz (or of arrays built in memory):
 *   - instructions in node order, named "opcode.N" (the learned opcode's
 *     name and the node id: "convolution.603"), opcode text the learned
 *     name ("opcode-200" for an id outside the list);
 *   - computations from is_root (feature 0): nodes are laid out
 *     computation by computation, callees first, one root each; a
 *     computation runs from its first node to its root, then on over the
 *     nodes after the root that use (non-root) nodes of it (dead code after
 *     a ROOT), so the next one starts at the first node that does not; the
 *     last is the entry.  Checked on the real files: every edge across
 *     computations then goes from a caller to a callee's root, and
 *     node_splits values fall on computation starts.  Named "computation.K"
 *     and "entry"; one computation without node features of width 140;
 *   - calls: the edges into the root of an earlier computation, in edge
 *     order (one into a later computation is damage that would close a
 *     cycle: it stays an operand only, and every file that opens still
 *     opens);
 *   - operands: the dataset's edges of each node in file order (sorted and
 *     de-duplicated in every real file, call edges included), but a
 *     self-loop (it stays in the dataset's edges: `check` refuses it, the
 *     explorer tolerates it); they point into the graph's operand_idx, so
 *     the module lives no longer than its graph;
 *   - shapes decoded from the features (hm_shape_decode), one copy of each
 *     distinct shape; parameter numbers from feature 30;
 *   - knows HM_KNOWS_SHAPES with the documented 140 features, nothing else.
 * Windows, convolution numbers and other attributes are not decoded: what
 * reads them (the module's cost rules, the HLO line) asks what the module
 * knows first.
 */
#ifndef HS_HLO_SYNTH_H
#define HS_HLO_SYNTH_H

#include <stdint.h>

#include "base/error.h"
#include "graph.h"
#include "hlo_module.h"

/* Room for a decoded shape's dims and layout (6 each). */
#define HM_DECODE_STORE 12

/* The output shape of a node decoded from its features, dims and layout in
 * `store` (which must outlive out).  Rules: the element type is the set
 * one-hot entry (-1 when none is); a tuple has n_tuple from feature 29 and
 * no element shapes; a token or opaque value rank 0; the rank is one past
 * the last non-zero dimension, or the layout's rank when that is larger (a
 * zero-sized trailing dimension); a zero dims product with no zero among
 * the known dims adds one zero dimension.  The layout is taken when the
 * minor_to_major features form a permutation of 0..rank-1; rank-1 arrays
 * always have the layout {0} (the only one, and what the features hold).
 * A width other than the documented 140 gives the unknown shape (rank -1,
 * "?"). */
void hm_shape_decode(const float *feat, int width, hm_shape *out, int64_t store[HM_DECODE_STORE]);

/* A decoded shape with its own room; not to be copied (dims point into it). */
typedef struct hm_decoded {
	hm_shape s;
	int64_t store[HM_DECODE_STORE];
} hm_decoded;
static inline const hm_shape *hm_decode(const float *feat, int width, hm_decoded *d)
{
	hm_shape_decode(feat, width, &d->s, d->store);
	return &d->s;
}

/* The module of g's arrays (opcodes, node features, edges; path and name),
 * as above: a file of one module, source HM_SRC_NPZ, checked and indexed
 * (hm_module_check).  NULL with err set when out of memory. */
hm_file *hlo_synth(const hs_graph *g, hs_error *err);

#endif
