/*
 * keykind: what kind of key this is.  The one owner of the key grammar
 * (lkp-format.md, keys.h, cost.h): every "is this a share?", "is this
 * ambient?", "is this the score?" in report, diff, flame and store asks
 * here instead of comparing prefixes where it needs the answer.
 *
 * A key is "<family>.<rest>".  The families mmprof knows are one table in
 * keykind.c, a row each with its columns (a monitor of the robot's, a
 * metric the recorder adds beside the workload's, the machine's state, a
 * counter, a derived cost); a first component not in it is the workload's
 * own (stress-ng.vm.ops_per_sec, thp-zap.ops).  Adding a family is one
 * row.  Two families have an inner grammar of their own:
 *   perf-profile.{children,self,calltrace}.<event>.<symbol or chain>
 *   cost.{total,self,children,part}.<event>[.<fn>], cost.work
 *
 * Pure string work on NUL-terminated keys: no allocation, no state, safe
 * from any thread.  The costs are a prefix compare or a scan of the ~30
 * rows of the table; diff asks a few times per row (tens of thousands of
 * rows at most).  One call leaves the module: which proc-vmstat fields
 * are levels is the recorder's list (mmstate__is_level), kept where the
 * fields are read.
 */
#ifndef MMPROF_KEYKIND_H
#define MMPROF_KEYKIND_H

#include <stdbool.h>
#include <stddef.h>

/* The columns of the family table. */
enum {
	KEYFAM_MONITOR = 1 << 0,	/* one of the robot's monitors (lkp-tests' monitors/) */
	KEYFAM_RECORDER = 1 << 1,	/* a run's metric record adds beside the workload's own
					 * (--sched, tracepoint statistics, mm state) */
	KEYFAM_SYSTEM = 1 << 2,		/* the machine's memory state read around the run */
	KEYFAM_COUNTER = 1 << 3,	/* perf stat's counters */
	KEYFAM_PERF_METRIC = 1 << 4,	/* a prefix of lkp's etc/perf-metrics-prefixes */
	KEYFAM_DERIVED = 1 << 5,	/* made by mmprof from other keys: the costs per op */
};

struct keyfamily {
	const char *name;	/* the first component: "perf-profile", "cost", ... */
	unsigned flags;		/* KEYFAM_* */
};

/* key's family row (by its first component), or NULL for the workload's own. */
const struct keyfamily *keykind__family(const char *key);
/*
 * Has key's family any of flags (KEYFAM_*)?  The workload's own has none.
 * keykind__is matches the first component alone, so that a bare family
 * name ("perf-stat") is that family's, as the robot's monitor list reads;
 * keykind__under wants "<family>." and more, as a prefix does.
 */
bool keykind__is(const char *key, unsigned flags);
bool keykind__under(const char *key, unsigned flags);

/*
 * The length of key's family name, by the two meanings diff gives it.
 * keykind__sort_family_len: the first component, the robot's family, by
 * which tables group and order rows (compare.rb).  keykind__noise_family_len:
 * the rows whose noise one model is fitted over: the first component,
 * but each cost.<kind>.<event> is a unit of its own (their levels and
 * spreads differ by kind and event), with cost.total.* and cost.work
 * together as "cost".
 */
size_t keykind__sort_family_len(const char *key);
size_t keykind__noise_family_len(const char *key);

/* ---- perf-profile ---- */

enum keykind_profile {
	KEYPROF_NONE,		/* not perf-profile.* */
	KEYPROF_CHILDREN,	/* perf-profile.children.<ev>.<sym>: inclusive share */
	KEYPROF_SELF,		/* perf-profile.self.<ev>.<sym>: exclusive share */
	KEYPROF_CALLTRACE,	/* perf-profile.calltrace.<ev>.<chain>: censored at the cut */
	KEYPROF_OTHER,		/* perf-profile.<anything else> */
};
enum keykind_profile keykind__profile(const char *key);
/*
 * The length of "perf-profile.<kind>" (the group perf-profile rows sort
 * by), or of the whole key for any other.
 */
size_t keykind__profile_group_len(const char *key);
/* The event of a perf-profile.<kind>.<event>.<...> key (*len bytes, not terminated), or NULL. */
const char *keykind__profile_event(const char *key, size_t *len);
/* The symbol part of a perf-profile key (after "perf-profile.<kind>.<event>."), or NULL. */
const char *keykind__profile_symbol(const char *key);
/*
 * The matching identity of a key: for perf-profile.* keys, every
 * ".cold", ".cold.N", ".llvm.N", ".lto_priv.N" (N digits) is removed from
 * the symbol part; other keys are copied.  Returns the length needed
 * (snprintf-like).
 */
size_t keykind__normalize(const char *key, char *buf, size_t size);

/* ---- costs per op (cost.h) ---- */

enum keykind_cost {
	KEYCOST_NONE,		/* not cost.* */
	KEYCOST_TOTAL,		/* cost.total.<ev>: the whole run's period per op */
	KEYCOST_WORK,		/* cost.work: the operations */
	KEYCOST_SELF,		/* cost.self.<ev>.<fn> */
	KEYCOST_CHILDREN,	/* cost.children.<ev>.<fn> */
	KEYCOST_PART,		/* cost.part.<ev>.<fn>: points of the base's total */
	KEYCOST_OTHER,		/* cost.<anything else> */
};
enum keykind_cost keykind__cost(const char *key);
/* The event of a cost.<kind>.<event>[.<fn>] key (*len bytes, not terminated), or NULL (cost.work, not cost.*). */
const char *keykind__cost_event(const char *key, size_t *len);

/* ---- what the statistics and the outputs ask ---- */

/* A tracepoint.<event>.<...> key (tracepoint statistics, trace.h). */
bool keykind__tracepoint(const char *key);

/* Absolute change (points) for perf-profile* keys, cost.part.* and keys ending in '%'. */
bool keykind__absolute(const char *key);
/*
 * A tracepoint histogram bucket named by an address
 * ("tracepoint.exceptions:page_fault_user.address.0x7f3a00000000", trace.h):
 * a region of one process's address space, which ASLR moves every run.
 */
bool keykind__address(const char *key);
/*
 * The machine's state rather than the workload's effect: the meminfo.*
 * and proc-vmstat levels (mmstate__is_level; means of samples taken once
 * a second from the workload's release to its end, mmstate.h).  They are
 * system-wide: free memory, the page cache, writeback, and the memory
 * every other process holds move them as much as the workload does.
 * Not ambient: meminfo.rise.* and proc-vmstat.rise.*, the rise of what
 * processes hold while the workload ran (mmstate.h), which is the
 * workload's own, and proc-vmstat.delta.*, events counted over the run.
 */
bool keykind__ambient(const char *key);
/*
 * A workload's score by its name: a key of the workload's own (not a
 * monitor's, not a cost) whose metric is its rate of work, as the
 * robot's benchmarks print it: *.ops_per_sec (stress-ng, the bundled
 * workloads), *.throughput (vm-scalability, ebizzy, hackbench, ...),
 * *.per_process_ops and *.per_thread_ops (will-it-scale).
 */
bool keykind__score(const char *key);
/*
 * The score as a command's --score GLOB names it: the keys matching glob
 * (fnmatch; "" names none), or keykind__score's when glob is NULL.
 */
bool keykind__score_by(const char *glob, const char *key);
/*
 * One of the workload's own metrics: a family that is no monitor of the
 * robot's nor mmprof's costs per op, and not the workload's rusage
 * (<name>.time.*).  Every key a benchmark parser produces (benchout.h):
 * stress-ng.vm.ops_per_sec, will-it-scale.per_process_ops, thp-zap.ops.
 */
bool keykind__workload_metric(const char *key);
/*
 * A perf-stat counter printed as a rate of events a second
 * (perf-stat.ps.X, perf-stat.i.X): a count over the run's time.  Not
 * cpu-clock or task-clock (time, not events), nor the metrics.
 */
bool keykind__perf_stat_rate(const char *key);
/* The workload's wall-clock seconds of a run (<name>.time.elapsed_time). */
bool keykind__elapsed_time(const char *key);
/*
 * Which way is better for key: +1 when more is better (the workload's
 * operations and rates: NAME.ops, *ops_per_sec, *_per_sec, *throughput,
 * will-it-scale's *_ops and .workload, .score), -1 when less is (costs
 * per op, cost.*; the workload's latencies and times: *latency, *_ns,
 * *_us, *_ms, *_time, .elapsed), 0 when it is not known (the profile's
 * shares, counters, memory levels).
 */
int keykind__goodness(const char *key);
/*
 * What is measured or not as a whole, into buf: a key's first component,
 * except that each event is its own unit: perf-profile.*.<event> for the
 * children, self and calltrace keys of an event, and tracepoint.<event>.
 */
void keykind__measured_unit(const char *key, char *buf, size_t size);
/*
 * The domain of a compared key (gate.h) into buf: "D." when its absent
 * siblings are keys "D.<text>", or a whole key (*whole set); false when
 * the key is its own domain or buf is too small.
 */
bool keykind__domain(const char *key, char *buf, size_t size, bool *whole);

#endif
