/* clock.h - the clocks behind every timing the program reports (training
 * epochs, layout, query --time, dot --time, the explorer's bench log). */
#ifndef HS_CLOCK_H
#define HS_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock from an arbitrary start: subtract two
 * readings for an interval that clock changes do not disturb. */
double hs_now_seconds(void);

/* CPU seconds this process has used so far (all threads).  On a busy
 * machine it leaves out the time other processes had the CPU. */
double hs_cpu_seconds(void);

/* The real-time clock `seconds` from now, as pthread_cond_timedwait wants
 * its deadline (the nanoseconds kept under a second). */
void hs_deadline_after(struct timespec *ts, double seconds);

#endif
