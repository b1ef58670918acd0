/*
 * parallel: a handful of large independent items (a diff's files to
 * load) shared by this thread and one helper, each taking
 * the next untaken item until none is left.  The machines we measure on
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

#include <stddef.h>

void parallel__each(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
