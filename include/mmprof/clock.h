/*
 * clock: nanosecond readings of a POSIX clock.
 *
 * CLOCK_MONOTONIC for durations and deadlines, CLOCK_REALTIME for the wall
 * time stored in files.  One helper instead of one per module.
 */
#ifndef MMPROF_CLOCK_H
#define MMPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000LL

static inline int64_t clock__ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

#endif
