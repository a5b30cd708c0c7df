#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int hs_vfail(hs_error *err, int status, const char *fmt, va_list ap)
{
	if (err) {
		err->status = status;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	}
	return -1;
}

int hs_fail(hs_error *err, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hs_vfail(err, status, fmt, ap);
	va_end(ap);
	return -1;
}

void hs_error_prefix(hs_error *err, const char *fmt, ...)
{
	char prefix[512], old[sizeof err->msg];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
}

int hs_errno_status(int e)
{
	return e == ENOMEM ? HS_ENOMEM : HS_EDATA;
}

void hs_error_clear(hs_error *err)
{
	if (err) {
		err->status = HS_OK;
		err->msg[0] = '\0';
	}
}
