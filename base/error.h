/* error.h - errors as values with a place.
 *
 * Library code never prints and never exits.  A function that can fail takes
 * an `hs_error *` as its last argument, fills it on failure and returns -1 (or
 * NULL).  The front end decides what to print and which exit status to use.
 *
 * Messages name the place: file, array and byte offset where there is one,
 * e.g. "unet3d.npz: edge_index.npy: byte 128: shape claims 2^62 elements".
 */
#ifndef HS_ERROR_H
#define HS_ERROR_H

#include <stdarg.h>

enum hs_status {
	HS_OK = 0,
	HS_EUSAGE = 1, /* the caller asked for something that makes no sense */
	HS_EDATA = 2,  /* the input file is bad, missing or unreadable */
	HS_ENOMEM = 3, /* the machine ran out of a resource (an allocation failed) */
	HS_ESTOPPED = 4, /* stopped on request (base/progress.h): nothing is wrong */
};

typedef struct hs_error {
	int status;     /* one of enum hs_status; 0 while no error is set */
	char msg[1024]; /* one line, no trailing newline */
} hs_error;

/* Sets `err` (if not NULL) and returns -1, so callers can `return hs_fail(...)`. */
int hs_fail(hs_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hs_vfail(hs_error *err, int status, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Prefixes the message already in `err` with "prefix: " (e.g. a file name). */
void hs_error_prefix(hs_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void hs_error_clear(hs_error *err);

/* The status of a read or a write that failed with errno e: HS_ENOMEM for
 * ENOMEM (a stream into memory ran out of it), else HS_EDATA. */
int hs_errno_status(int e);

#endif
