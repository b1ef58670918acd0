/*
 * keys: a profile reduced to the kernel test robot's flat keys, per run.
 *
 * `mmprof report` prints the mean over runs of these; `mmprof diff`
 * compares them run by run with statistics.  Families (lkp-format.md):
 *   perf-profile.children.<ev>.<sym>     inclusive % of the event's total period
 *   perf-profile.self.<ev>.<sym>         exclusive %
 *   perf-profile.calltrace.<ev>.<f1>...  leaf-first 5-frame chain prefixes, %
 *   perf-stat.{ps,i,total,overall}.*     from counters and intervals
 *   perf-stat.scaled.<event>%            share of a multiplexed counter's value
 *                                        that was extrapolated (absent: none)
 *   proc-vmstat.*, meminfo.*             mm state metrics (mmstate.h)
 *   <workload metrics>, <name>.time.*    from struct metric and struct run
 * Symbol suffixes .isra.N/.constprop.N/.part.N are stripped and colliding
 * keys summed, as the robot does.  Keys under the robot's floors (0.05 for
 * perf-profile) are still produced here with their values; the floor is
 * applied when printing, so that diff sees small values on both sides.
 */
#ifndef MMPROF_KEYS_H
#define MMPROF_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/profile.h"

struct key_value {
	char *key;		/* owned */
	double value;
};

struct keyvals {
	struct key_value *items;
	size_t nr, alloc;
};

void keyvals__add(struct keyvals *kv, const char *key, double value);
void keyvals__sort(struct keyvals *kv);	/* by key, strcmp order */
void keyvals__release(struct keyvals *kv);

/*
 * perf's callchain cut for the robot's calltrace keys (% of the total): a
 * chain under it is dropped, so a calltrace key is either absent or a sum
 * of chains at or above it.
 */
#define KEYS_CALLTRACE_CUT 0.5

/* "cycles:pp" -> "cycles-pp": the robot's spelling of an event in keys. */
void keys__event_name(const char *event, char *buf, size_t size);

/* Strip .isra.N, .constprop.N, .part.N (every occurrence) into buf. */
void keys__strip_suffixes(const char *sym, char *buf, size_t size);

/*
 * The <name> of "<name>.time.*": meta "workload", else the prefix of the
 * first workload metric, else the basename of the command after " -- " in
 * meta "cmdline" (or its first word), else "workload".
 */
void keys__workload_name(const struct profile *p, char *buf, size_t size);

/* All keys of one run of p, appended to out (unsorted). */
int keys__run(const struct profile *p, uint32_t run, struct keyvals *out);

#endif
