/* walk.h - the one folder walker: every file below a folder, in a stable
 * order, with what could not be walked reported rather than skipped.
 *
 *     static int visit(const hs_walk_entry *e, void *ctx, hs_error *err)
 *     {
 *             if (e->kind == HS_WALK_FILE && S_ISREG(e->st->st_mode))
 *                     ... e->path, e->rel, e->name ...
 *             return 0;                       // or hs_fail(err, ...): stops the walk
 *     }
 *     if (hs_walk(dir, HS_WALK_MAX_DEPTH, visit, ctx, err) < 0) ...
 *
 * Order: the names of each folder sorted bytewise (strcmp), a subfolder
 * walked where its name falls (depth first), so the same tree always gives
 * the same sequence, whatever order the file system lists it in.
 *
 * Skipped: names starting with '.' (".", "..", hidden files and folders),
 * and a folder entered before (by device and inode: a symbolic link loop,
 * or a second link to a folder, whose files were already visited).
 * Symbolic links are followed.
 *
 * Reported to `visit`, never skipped in silence:
 *   HS_WALK_FILE        anything that is not a folder, with its stat
 *   HS_WALK_BROKEN      a name stat cannot follow (a dangling link): errnum
 *   HS_WALK_UNREADABLE  a subfolder that cannot be listed: errnum; not entered
 *   HS_WALK_TOO_DEEP    a folder max_depth folders below the root: not
 *                       entered (a guard against absurd trees, not a limit
 *                       real data meets)
 *
 * Errors of the walk itself: the root cannot be listed (HS_EDATA, "DIR:
 * cannot read folder: REASON"), an allocation fails (HS_ENOMEM: the walk
 * stops, nothing is left out silently).  A nonzero return of `visit`
 * stops the walk too; hs_walk then returns -1 with `visit`'s error.
 */
#ifndef HS_WALK_H
#define HS_WALK_H

#include <sys/stat.h>

#include "error.h"

/* Folders deeper than this below the root are reported, not entered. */
#define HS_WALK_MAX_DEPTH 64

enum hs_walk_kind {
	HS_WALK_FILE,
	HS_WALK_BROKEN,
	HS_WALK_UNREADABLE,
	HS_WALK_TOO_DEEP,
};

typedef struct hs_walk_entry {
	enum hs_walk_kind kind;
	const char *path;       /* ROOT/REL, as the root was given */
	const char *rel;        /* below the root: "layout/xla/unet3d.npz" */
	const char *name;       /* the last component */
	const struct stat *st;  /* NULL for HS_WALK_BROKEN */
	int depth;              /* folders between the root and the entry: 0 directly in it */
	int errnum;             /* HS_WALK_BROKEN, HS_WALK_UNREADABLE: the errno */
} hs_walk_entry;

typedef int (*hs_walk_fn)(const hs_walk_entry *e, void *ctx, hs_error *err);

/* Walks the folder `root` (its folders at depth < max_depth are entered);
 * 0, or -1 with err set. */
int hs_walk(const char *root, int max_depth, hs_walk_fn visit, void *ctx, hs_error *err);

#endif
