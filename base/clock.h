/* clock.h - the clocks behind every timing the program reports (training
 * epochs, layout, query --time, dot --time, the explorer's bench log). */
#ifndef HS_CLOCK_H
#define HS_CLOCK_H

/* Seconds on the monotonic clock from an arbitrary start: subtract two
 * readings for an interval that clock changes do not disturb. */
double hs_now_seconds(void);

/* CPU seconds this process has used so far (all threads).  On a busy
 * machine it leaves out the time other processes had the CPU. */
double hs_cpu_seconds(void);

#endif
