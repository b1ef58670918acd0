/*
 * parallel: a handful of large independent items (a diff's files to
 * load) shared by this thread and one helper, each taking
 * the next untaken item until none is left; and one piece of work started
 * on a helper thread while this one does another (a diff's costs while it
 * diffs the keys, the two sides of -g's call chains), then waited for.  The machines we measure on
 * have two cores, and every caller's items are whole files: two threads
 * halve the wall time there, more would only add memory.
 *
 * fn(ctx, i) runs once for every i in [0, n), on either thread, so it
 * must only write what belongs to item i.  Without a helper (n < 2, or
 * no thread to be had) this thread runs every item, in order.  Returns
 * when all have run.
 */
#ifndef MMPROF_PARALLEL_H
#define MMPROF_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

void parallel__each(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

/*
 * parallel__start runs fn(arg) on a helper thread, or here and now when
 * no thread is to be had (the caller's own work then follows it, in
 * order); parallel__wait returns once fn has returned.  Between the two
 * the caller must neither write what fn reads nor read what it writes.
 * Every started job is waited for exactly once; a job zeroed and never
 * started may be waited for too (it returns at once).
 */
struct parallel_job {
	pthread_t thread;
	bool running;			/* on the helper thread, not yet joined */
	void (*fn)(void *arg);
	void *arg;
};
void parallel__start(struct parallel_job *j, void (*fn)(void *arg), void *arg);
void parallel__wait(struct parallel_job *j);

#endif
