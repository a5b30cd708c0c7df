/* afile.h - the one way a file is written: atomically, beside its place,
 * never over something that is not a file of the caller's to replace.
 *
 *     hs_afile *af = hs_afile_open(path, err);
 *     if (!af)
 *             return -1;
 *     fprintf(hs_afile_stream(af), ...);      // any stdio writes
 *     return hs_afile_commit(af, err);        // or hs_afile_abort(af)
 *
 * The content goes to a temporary file in the same folder as the file it
 * becomes (TARGET.tmp.XXXXXX, so the rename stays within one file system)
 * and reaches its name by rename(2) only when every byte was written: a
 * reader sees the old file or the new one, never a part.  Every failure
 * removes the temporary file (open, write, flush, sync, close, the checks,
 * rename: each path unlinks it), and so does hs_afile_abort; only a process
 * killed between open and commit leaves one behind.  Nothing but our own
 * code writes to the stream's file: a library that renders (Graphviz)
 * renders to memory or to this stream, never to the path.
 *
 * What is at PATH decides, at open and again just before the rename:
 *   - nothing: a new file, mode 0644 minus the umask, as open(2) makes one
 *     (so default ACLs apply too);
 *   - a regular file: replaced, and the new file keeps its mode and, where
 *     permitted, its owner and group (root keeps both, a user the group if
 *     it is one of theirs);
 *   - a symlink (or a chain of them): followed; the file it leads to is
 *     written (the temporary beside it, renamed onto it) and the link stays
 *     a link; a dangling link gets its target created;
 *   - refused, with nothing touched: anything that is not a regular file
 *     (a device, a FIFO, a socket, a folder: "cannot write /dev/x: it is a
 *     character device, not a regular file; not replacing it"); a file this
 *     process read (base/inputs.h: the same st_dev and st_ino, whatever the
 *     name, so also through a hard link or a symlink: "cannot write m.hlo:
 *     it is the input m.hlo (the same file); not replacing it"); a file
 *     the caller could not write in place, though the folder would let it
 *     be replaced: no write bit in its mode (refused even for root), or
 *     access(W_OK) denied (another user's file in a shared folder);
 *   - an empty name is HS_EUSAGE ("no file name to write to").
 * hs_afile_check() asks the same questions without creating anything, for
 * a front end that wants the answer before long work.
 *
 * Sync: the file is fsync'ed before the rename, so that after a crash the
 * name holds the old content or the whole new one, never an empty or
 * partial file.  The folder is not synced: a crash right after the rename
 * may forget it (the old file is then still there, whole).
 *
 * Errors: HS_EDATA, naming the file and the system's reason, "cannot write
 * PATH: No such file or directory", "cannot write PATH: No space left on
 * device" (a rename that fails says so: "cannot write PATH: cannot rename
 * the temporary file into place: ...").  A file that cannot be written is a
 * problem of the place (a missing folder, permissions, a full disk, an I/O
 * error, something there that must not be replaced), the same kind as a
 * file that cannot be read, never of how the command was asked: so it is
 * EDATA (exit 2), whether the command reads or writes the file.  An
 * allocation that fails is HS_ENOMEM.  Write errors are caught however the
 * caller wrote (fprintf, fwrite, a library writing to the stream): the
 * stream records the first failed write's errno (hs_afile_errno), and
 * commit reports it, so the reason given is the system's own.
 */
#ifndef HS_AFILE_H
#define HS_AFILE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef struct hs_afile hs_afile;

/* Creates the temporary file beside `path` (or beside the file its symlinks
 * lead to); NULL with err set when what is there is refused (above) or the
 * temporary cannot be made (the folder is missing or not writable:
 * HS_EDATA). */
hs_afile *hs_afile_open(const char *path, hs_error *err);
/* Whether hs_afile_open(path) would accept what is at path now: 0, or -1
 * with err set as it would set it.  Creates nothing (a missing folder is
 * found only by hs_afile_open). */
int hs_afile_check(const char *path, hs_error *err);
/* The stream to write the content to (owned by af: never fclose it). */
FILE *hs_afile_stream(hs_afile *af);
/* The name it is written to (as given, before symlinks are followed). */
const char *hs_afile_path(const hs_afile *af);
/* The errno of the first write to the stream that failed, 0 while none: a
 * caller that stops at a failed fwrite reports this one (errno may have
 * changed since). */
int hs_afile_errno(const hs_afile *af);
/* Flushes, syncs, closes and renames the file into place; frees af.  0, or
 * -1 with err set and the temporary file removed. */
int hs_afile_commit(hs_afile *af, hs_error *err);
/* Gives up: closes and removes the temporary file, frees af (NULL is
 * allowed).  PATH is left as it was. */
void hs_afile_abort(hs_afile *af);

/* The n bytes at data as the whole file `path`, through the above. */
int hs_afile_write(const char *path, const void *data, size_t n, hs_error *err);

#endif
