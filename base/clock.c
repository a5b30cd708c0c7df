#include "clock.h"

#include <time.h>

static double read_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double hs_now_seconds(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

double hs_cpu_seconds(void)
{
	return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}
