/* path.h - names of files: the last component, the stem, a join.
 *
 *   hs_path_base("npz/layout/unet3d.npz")   "unet3d.npz"
 *   hs_path_stem("npz/layout/unet3d.npz")   "unet3d"       (malloc'd)
 *   hs_path_stem("dump/module_0001.jit_f.before_optimizations.txt")
 *                                           "module_0001.jit_f.before_optimizations"
 *   hs_path_stem("x/.hidden")               ".hidden"      (a leading dot is no extension)
 *   hs_path_join("npz", "unet3d.npz")       "npz/unet3d.npz" (malloc'd)
 *
 * The stem is the name of a graph read from a file: the last component
 * without its last extension, whatever it is (.npz, .pb, .hlo, .txt).
 */
#ifndef HS_PATH_H
#define HS_PATH_H

#include <stddef.h>

/* What follows the last '/' (the whole path when it has none). */
const char *hs_path_base(const char *path);
/* The length of the stem: the bytes of hs_path_base(path) before its last
 * '.', unless that dot is the first byte (all of them then). */
size_t hs_path_stem_len(const char *path);
/* The stem as a new string; NULL when out of memory. */
char *hs_path_stem(const char *path);
/* "a/b"; NULL when out of memory. */
char *hs_path_join(const char *a, const char *b);

#endif
