/* synth.h - the synthetic demo dataset written by `hloscope synth DIR`.
 *
 * synth_write() writes a small TpuGraphs-shaped tree under DIR:
 *
 *   DIR/README                       what the data is, the runtime formulas
 *   DIR/.hloscope-synth              marker: DIR may be replaced by a new run
 *   DIR/npz/tile/xla/{train,valid,test}/NAME.npz
 *   DIR/npz/layout/xla/{default,random}/{train,valid,test}/NAME.npz
 *
 * The files have exactly the real files' arrays, dtypes and shapes (see the
 * top of synth.c for the graphs and the runtime formulas).  The output only
 * depends on the seed: two runs with the same seed give the same bytes.
 *
 * The tree is built in a temporary folder next to DIR and renamed into place
 * at the end; on failure nothing is left behind and DIR is untouched.  An
 * existing DIR is replaced only when it is empty or holds the marker of a
 * previous synth run (otherwise HS_EUSAGE).  Write errors are HS_EDATA.
 *
 * Ownership: nothing returned needs freeing.
 */
#ifndef HS_SYNTH_H
#define HS_SYNTH_H

#include <stdint.h>

#include "loader/error.h"

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
