/* synth.h - the synthetic demo dataset written by `hloscope synth DIR`: the
 * synth module's public interface.
 *
 * synth_write() writes a small TpuGraphs-shaped tree under DIR:
 *
 *   DIR/README                       what the data is, the runtime formulas
 *   DIR/.hloscope-synth              marker: DIR may be replaced by a new run
 *   DIR/npz/tile/xla/{train,valid,test}/NAME.npz
 *   DIR/npz/layout/xla/{default,random}/{train,valid,test}/NAME.npz
 *
 * The files have exactly the real files' arrays, dtypes and shapes.  The
 * output only depends on the seed: two runs with the same seed give the same
 * bytes.
 *
 * The tree is built in a temporary folder next to DIR and renamed into place
 * at the end; on failure nothing is left behind and DIR is untouched.  An
 * existing DIR is replaced only when it is empty or holds the marker of a
 * previous synth run (otherwise HS_EUSAGE).  Write errors are HS_EDATA and
 * name the path.
 *
 * The module, bottom to top (each header says more; the seeded random
 * stream is base/rng.h's hs_xoshiro, the name hash base/hash.h's hs_fnv1a):
 *   graph.h   graph.c     HLO graphs under construction, one builder per op
 *             layers.c    composite layers (batch norm, softmax, dense, ...)
 *             encode.c    a graph as the files hold it (features, edges)
 *   plan.h    programs.c  whole programs: conv-nets, transformers (layout)
 *             kernels.c   fused kernels (tile)
 *   configs.h layout.c    layout configs and the layout runtime formula
 *             tile.c      tile configs and the tile runtime formula
 *   synth.h   synth.c     the files, the README, the destination folder
 * Only synth.h is for other modules; the others serve synth/ and its unit
 * test.  synth/ uses loader/ only.
 *
 * Ownership: nothing returned needs freeing.
 */
#ifndef HS_SYNTH_H
#define HS_SYNTH_H

#include <stdint.h>

#include "base/error.h"

#define SYNTH_DEFAULT_SEED 20230813u
#define SYNTH_MARKER ".hloscope-synth"

typedef struct synth_report {
	int tile_files;
	int layout_files;
	int64_t nodes;    /* summed over all files */
	int64_t configs;  /* summed over all files */
	int64_t bytes;    /* total size of the .npz files */
} synth_report;

/* Writes the dataset for `seed` to `dir`; fills `rep` (may be NULL). */
int synth_write(const char *dir, uint64_t seed, synth_report *rep, hs_error *err);

#endif
