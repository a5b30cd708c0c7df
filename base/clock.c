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

void hs_deadline_after(struct timespec *ts, double seconds)
{
	if (clock_gettime(CLOCK_REALTIME, ts) != 0) {
		ts->tv_sec = 0;
		ts->tv_nsec = 0;
	}
	long whole = (long)seconds;
	ts->tv_sec += whole;
	ts->tv_nsec += (long)((seconds - (double)whole) * 1e9);
	while (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}
