/*
 * evspec: one `-e` event specification, as perf spells it, turned into a
 * perf_event_attr and a display name.
 *
 * Accepted forms (perf's spellings, see `perf list`):
 *   hardware   cycles, cpu-cycles, instructions, branches, branch-misses, ...
 *   software   cpu-clock, task-clock, page-faults/faults, context-switches/cs, ...
 *   raw        rNNNN (hex config of the core PMU)
 *   cache      L1-dcache-loads, LLC-load-misses, dTLB-store-misses, ...
 *   tracepoint sys:name (id read from tracefs, mounted if needed); a glob
 *              in sys or name (huge_memory:*, kmem:mm_page_*) is expanded
 *              by evspec__glob into the tracepoints tracefs lists
 *   PMU        pmu/term=value,.../ with config, config1, config2 or the
 *              PMU's own format terms (event=, umask=, ...)
 * followed by modifiers :u :k :h (count only user/kernel/hypervisor) and
 * :p :pp :ppp (precise_ip 1..3).
 *
 * Only type, config(s), exclusion bits and precise_ip are set here; the
 * caller (sampler, counting) decides sampling, inheritance and read format.
 * Parsing is pure except for the tracepoint id and PMU format lookups in
 * sysfs/tracefs.  Called a handful of times per record: clarity over speed.
 */
#ifndef MMPROF_EVSPEC_H
#define MMPROF_EVSPEC_H

#include <stdbool.h>
#include <linux/perf_event.h>

#include "mmprof/errmsg.h"

struct evspec {
	struct perf_event_attr attr;
	char name[128];		/* perf's spelling with modifiers: "cycles:pp" */
	bool tracepoint;	/* PERF_TYPE_TRACEPOINT: sample every hit by default */
};

/*
 * Parse spec into ev.  Returns 0, or -EINVAL with e filled ("unknown event
 * 'x'; 'perf list' shows the events this machine has"), or the -errno of a
 * failed tracefs/sysfs lookup.
 */
int evspec__parse(const char *spec, struct evspec *ev, struct errmsg *e);

/*
 * Directory holding tracefs "events/" (mounting tracefs at
 * /sys/kernel/tracing when nothing is mounted), or NULL with e filled.
 */
const char *evspec__tracefs(struct errmsg *e);

/*
 * A tracepoint glob: sys:name[:mods] with *, ? or [ in sys or name, as
 * perf accepts them ("huge_memory:*", "sys:prefix*").  Such a spec is not
 * an event for evspec__parse: expand it with evspec__glob first.
 */
bool evspec__is_glob(const char *spec);

/*
 * Call add(ctx, "sys:name[:mods]") for every tracefs tracepoint that the
 * glob spec matches (fnmatch on sys and on name), in name order; stops at
 * the first add that returns non-zero and returns that.  Returns the number
 * of matches (> 0), or -ENOENT with e filled when nothing matches, or the
 * -errno of an unreadable tracefs.
 */
int evspec__glob(const char *spec, int (*add)(void *ctx, const char *spec), void *ctx,
		 struct errmsg *e);

#endif
