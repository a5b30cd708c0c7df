/* afile.h - the one way a file is written: atomically, beside its place.
 *
 *     hs_afile *af = hs_afile_open(path, err);
 *     if (!af)
 *             return -1;
 *     fprintf(hs_afile_stream(af), ...);      // any stdio writes
 *     return hs_afile_commit(af, err);        // or hs_afile_abort(af)
 *
 * The content goes to a temporary file in the same folder (PATH.tmp.XXXXXX,
 * so the rename stays within one file system) and reaches its name by
 * rename(2) only when every byte was written: a reader sees the old file or
 * the new one, never a part.  Every failure removes the temporary file
 * (open, write, flush, sync, close, rename: each path unlinks it), and so
 * does hs_afile_abort; only a process killed between open and commit leaves
 * one behind.
 *
 * Mode: 0644 minus the umask, as open(2) makes a new file (so default ACLs
 * apply too); whatever was at PATH before is replaced, its mode not kept.
 *
 * Sync: the file is fsync'ed before the rename, so that after a crash the
 * name holds the old content or the whole new one, never an empty or
 * partial file.  The folder is not synced: a crash right after the rename
 * may forget it (the old file is then still there, whole).
 *
 * Errors: HS_EDATA, naming the file and the system's reason, "cannot write
 * PATH: No such file or directory" (a rename that fails says so: "cannot
 * write PATH: cannot rename the temporary file into place: Is a
 * directory").  A file that cannot be written is a problem of the place
 * (a missing folder, permissions, a full disk, an I/O error), the same
 * kind as a file that cannot be read, never of how the command was asked:
 * so it is EDATA (exit 2), whether the command reads or writes the file.
 * An allocation that fails is HS_ENOMEM.  Write errors are caught however
 * the caller wrote (fprintf, fwrite, a library writing to the stream): the
 * stream records the first failed write's errno, and commit reports it.
 */
#ifndef HS_AFILE_H
#define HS_AFILE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef struct hs_afile hs_afile;

/* Creates the temporary file beside `path`; NULL with err set when it
 * cannot be made (the folder is missing or not writable: HS_EDATA). */
hs_afile *hs_afile_open(const char *path, hs_error *err);
/* The stream to write the content to (owned by af: never fclose it). */
FILE *hs_afile_stream(hs_afile *af);
/* The name it is written to. */
const char *hs_afile_path(const hs_afile *af);
/* Flushes, syncs, closes and renames the file into place; frees af.  0, or
 * -1 with err set and the temporary file removed. */
int hs_afile_commit(hs_afile *af, hs_error *err);
/* Gives up: closes and removes the temporary file, frees af (NULL is
 * allowed).  PATH is left as it was. */
void hs_afile_abort(hs_afile *af);

/* The n bytes at data as the whole file `path`, through the above. */
int hs_afile_write(const char *path, const void *data, size_t n, hs_error *err);

#endif
