/* progress.c - see progress.h. */
#include "progress.h"

#include "clock.h"

#include <stddef.h>

static _Thread_local hs_progress *current;

void hs_progress_push(hs_progress *p)
{
	p->outer = current;
	p->start = hs_now_seconds();
	p->last = -1;
	p->stopped = 0;
	current = p;
}

void hs_progress_pop(hs_progress *p)
{
	if (current == p)
		current = p->outer;
}

int hs_progress_tick(const char *what, double done, double total)
{
	hs_progress *p = current;
	if (!p)
		return 0;
	if (p->stopped)
		return 1;
	double now = hs_now_seconds();
	if (now - p->start < p->after || (p->last >= 0 && now - p->last < 0.1))
		return 0;
	p->last = now;
	if (p->fn && p->fn(p->ctx, what, done, total))
		p->stopped = 1;
	return p->stopped;
}

int hs_progress_stopped(void)
{
	return current && current->stopped;
}

void hs_progress_end(void)
{
	hs_progress *p = current;
	if (!p || p->last < 0)
		return;
	p->last = -1;
	if (p->fn)
		p->fn(p->ctx, NULL, 0, 0);
}
