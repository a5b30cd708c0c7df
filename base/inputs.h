/* inputs.h - the files this process has read, so that no output replaces one.
 *
 *     int fd = open(path, O_RDONLY | O_CLOEXEC);
 *     if (fd >= 0 && hs_input_note_fd(fd, path, err) < 0) ...   // a reader
 *     ...
 *     hs_afile_open(out, err);    // refuses `out` if it is a noted file
 *
 * Every reader that opens a file by name (npz, protobufs, HLO text, --data
 * overlays, model files, scripts) notes it here, and base/afile.h refuses
 * to write over a noted file, at open and again at commit: `convert m.hlo
 * -o m.hlo` would otherwise replace its input with its output.  A file is
 * known by (st_dev, st_ino), so any name that reaches it is the same file:
 * a hard link, a symlink, another spelling of the path.  A front end may
 * note the files it is about to read before the long work (hs_input_note_path)
 * and ask hs_afile_check() about its output at once.
 *
 * Only regular files are noted (a device or a FIFO is never replaced by a
 * writer anyway).  The list lives as long as the process, every file once
 * under the first name it was read by, whatever was closed since; it is
 * safe to use from several threads.
 */
#ifndef HS_INPUTS_H
#define HS_INPUTS_H

#include <stddef.h>
#include <sys/stat.h>

#include "error.h"

/* Notes the open file fd, read as `path`: 0, or -1 with HS_ENOMEM (an
 * fstat that fails notes nothing: the reader meets the problem itself). */
int hs_input_note_fd(int fd, const char *path, hs_error *err);
/* Notes the file at `path` (followed through symlinks) when there is one:
 * 0 also when there is none or it cannot be stat'ed, -1 with HS_ENOMEM. */
int hs_input_note_path(const char *path, hs_error *err);
/* 1 when the file st describes was noted, with the name it was read by
 * copied into name (cut to cap bytes); 0 when not. */
int hs_input_find(const struct stat *st, char *name, size_t cap);
/* Forgets every file (for tests). */
void hs_inputs_clear(void);

#endif
