/* interrupt.c - Ctrl-C and the other quit signals in the explorer.  A
 * Ctrl-C while it waits for a key quits (as SIGTERM, SIGHUP, SIGQUIT do);
 * one while a key's work runs (layers, costs, a query, a drawing) stops
 * that work at its next tick of base/progress.h and keeps the views; a
 * second one before the work stops quits. */
#include <signal.h>
#include <string.h>

#include "tui/app.h"

static volatile sig_atomic_t got_signal;
/* waiting: for a key; interrupted: a Ctrl-C came while working, for the
 * work's next tick (tui_on_long_work) to stop it. */
static volatile sig_atomic_t waiting, interrupted;

void tui_on_quit_signal(int sig)
{
	if (sig == SIGINT && !waiting && !interrupted)
		interrupted = 1;
	else
		got_signal = sig;
}

void tui_waiting(int w)
{
	waiting = w;
}

int tui_got_signal(void)
{
	return got_signal;
}

void tui_signal_clear(void)
{
	got_signal = 0;
}

int tui_take_interrupt(tui *t)
{
	if (!interrupted && got_signal != SIGINT) /* a second Ctrl-C stops the work and quits */
		return 0;
	interrupted = 0;
	return 1;
}

void tui_after_work(tui *t)
{
	int stopped = t->progress.stopped;

	t->progress.stopped = 0;
	if (got_signal || (!stopped && !interrupted))
		return;
	interrupted = 0;
	if (!stopped)
		tui_message(t, 0, "Ctrl-C came when the work was done; another one quits");
	else if (!strstr(t->msg, "stopped"))
		tui_message(t, 0, "stopped (Ctrl-C): the views are as they were");
	tui_draw_all(t);
}

int tui_on_long_work(void *ctx, const char *what, double done, double total)
{
	tui *t = ctx;
	if (!what) {     /* done: the progress line goes, a view's message stays */
		if (t->msg_progress)
			t->msg[0] = '\0';
		t->msg_progress = 0;
		return 0;
	}
	if (tui_take_interrupt(t))
		return 1;
	if (t->script)
		return 0;      /* scripted screens stay as the script makes them */
	if (t->win) {
		wint_t wc;
		nodelay(t->win, TRUE);
		int r = wget_wch(t->win, &wc);
		nodelay(t->win, FALSE);
		if (r == OK && wc == 27)
			return 1;
		if (r != ERR)
			unget_wch((wchar_t)wc);
	}
	if (total > 0)
		tui_status_now(t, "%s: %.0f%%  (Esc or Ctrl-C stops)", what, 100 * done / total);
	else
		tui_status_now(t, "%s...  (Esc or Ctrl-C stops)", what);
	t->msg_progress = 1;
	return 0;
}
