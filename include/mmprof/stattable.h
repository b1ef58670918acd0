/*
 * stattable: what `mmprof stat` prints, in `perf stat`'s layout, from the
 * counters, intervals and runs of a profile (profile.h), into a sink
 * (outbuf.h); the command writes it to stderr, as perf stat does, leaving
 * stdout to the workload.
 *
 * stattable__write: the table, "Performance counter stats for WHAT
 * (N runs):", a line per counter name (its mean over the runs; clocks in
 * msec, with "CPUs utilized"; perf's ratios and rates as comments), then
 * the elapsed, user and system seconds (user and system only for a
 * forked workload), with perf's "+-" when nr_runs > 1.
 *
 * stattable__interval: countrun's readings from intervals[first] on (one
 * reading of each counter), as `perf stat -I` prints them
 * ("     1.001234567              12345      page-faults  # ..."), the
 * header line once per run (s zeroed at each run's start); rates are over
 * the interval: its task-clock, else its length.
 */
#ifndef MMPROF_STATTABLE_H
#define MMPROF_STATTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/outbuf.h"
#include "mmprof/profile.h"

void stattable__write(struct outbuf *b, const struct profile *p, const char *what, unsigned nr_runs);

/* Where the interval printer is in the current run. */
struct stattable_intervals {
	uint64_t last_t_ns;	/* end of the previous interval of this run */
	bool header_done;
};
void stattable__interval(struct outbuf *b, struct stattable_intervals *s, const struct profile *p,
			 size_t first);

#endif
