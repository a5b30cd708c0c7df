/* fuzz_pbtxt.c - libFuzzer target for the text protobuf reader
 * (loader/pbtxt.c) and the GPU target config read with it
 * (loader/target.c).
 *
 * Each input is the bytes of a .pbtxt file (a target config, autotune
 * results; xz-compressed or not): read field by field, every path and value
 * looked at, then as a file through target_read and target_file_note.  A
 * refusal must name the place ("NAME:LINE:COLUMN: ...") or the field.
 * Errors are expected; crashes, leaks and sanitizer reports are the bugs.
 *
 *   make fuzz FUZZ_RUN=pbtxt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "loader/pbtxt.h"
#include "loader/target.h"
#include "loader/xz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int look(void *ctx, const char *path, const char *value, size_t len, hs_error *err)
{
	volatile size_t *sink = ctx;
	*sink += strlen(path) + (value ? len + (value[len] == '\0') : 0);
	return path[0] == '\0' ? hs_fail(err, HS_EDATA, "an empty path") : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile size_t sink = 0;
	hs_error err = {0};
	xz_max_bytes = 64u << 20;
	if (pbtxt_read((const char *)data, size, "fuzz.pbtxt", look, (void *)&sink, &err) != 0 &&
	    strncmp(err.msg, "fuzz.pbtxt:", 11) != 0 && err.status != HS_ENOMEM)
		abort(); /* a refusal that does not say where */
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	hs_target t;
	hs_error_clear(&err);
	(void)target_read(path, &t, &err);
	free(target_file_note(path, XD_TARGET_CONFIG));
	free(target_file_note(path, XD_AUTOTUNE));
	return 0;
}
