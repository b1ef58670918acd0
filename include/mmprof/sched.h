/*
 * sched: scheduler latency by switch-out stack (`mmprof record --sched`),
 * the kernel test robot's perf-sched keys and an off-CPU profile.
 *
 * Two layers:
 *
 * struct sched (pure, unit-tested): fed decoded sched events in time order
 * (each switch with its CPU), it keeps per task the pending switch-out and
 * per distinct stack two views of the count, sum and max of
 *   wait   time off CPU before running again;
 *   delay  wakeup (or, for a preempted task, the switch-out) to switch-in;
 *   both   wait + delay (the robot's "wait_and_delay").
 * It aggregates as events arrive and never stores events: memory grows
 * with tasks, CPUs and distinct stacks only.
 *
 *   rb  the robot's view, as `perf sched timehist` (perf 6.1) prints it and
 *       lkp-tests' programs/perf-sched/parse reads it: at each switch-out,
 *       the wait and delay *before* the run it ends (the task's previous
 *       switch-out, or wakeup, to the CPU's previous switch), each cut to
 *       whole microseconds as timehist prints them; 0 where timehist finds
 *       no earlier event or a "time travel"; a preempted task's delay 0.
 *       Every switch-out counts, also one never followed by a switch-in.
 *       The task is the sample's tid, as timehist takes it: an exiting
 *       task's samples say -1, so exiting tasks chain their waits.
 *   st  mmprof's view: the wait charged to the stack that blocked (the
 *       switch-out to the next switch-in, what an off-CPU flame graph
 *       shows), a preempted task's delay = its wait (as perf's timehist
 *       does since 2023), exact nanoseconds; only completed intervals.
 *
 * A switch-in the stream never shows (one CPU of a Firecracker VM does not
 * report its idle task's switch to a task) is seen when the task switches
 * out again while still out: the interval is recovered, ending at the
 * task's wakeup or the CPU's previous switch, whichever is later (it ran
 * on that CPU after both), counted in `recovered`; when neither bounds it
 * (no wakeup seen, the CPU's last switch before the switch-out) it is
 * counted in `lost` and left out of st.
 *
 * struct schedrec: opens sched:sched_switch (with callchains),
 * sched:sched_waking (else sched_wakeup), sched:sched_wakeup_new,
 * sched:sched_migrate_task and sched:sched_process_fork on every CPU
 * (a task's switch-in happens in another task's context, so per-task
 * events cannot see it), decodes them with libtraceevent (trace.h) and
 * feeds struct sched, keeping only the target's tasks (followed across
 * fork/clone) unless the target is system-wide.
 *
 * Results per run (sched__end_run), stored as run metrics.  The robot's
 * keys, from rb, named and filtered as its parse does:
 *   perf-sched.{wait_time,sch_delay}.{max,avg}.ms.<stack>
 *   perf-sched.wait_and_delay.count.<stack>
 *   perf-sched.wait_and_delay.{max,avg}.ms.<stack>
 *   perf-sched.total_{wait_time,sch_delay}.{max,average}.ms
 *   perf-sched.total_wait_and_delay.{count,max,average}.ms
 * where <stack> is timehist's line: the first 7 callchain entries
 * resolved, schedule, __schedule and preempt_schedule hidden, user frames
 * "[unknown]", joined by '.' and cut to the first 5 '.'-separated pieces
 * (a clone suffix such as ".isra.0" uses pieces); only chains timehist
 * prints with an arrow (2 frames or more).  Averages are rounded to 3
 * decimals; the wait_and_delay trio of a stack is left out when its
 * average is under the overall one and its count under 0.5 % of all
 * (truncated to an integer); keys of value 0 are left out, as the robot's
 * dump-stat drops them.
 * mmprof's own keys, from st, under perf-sched.offcpu.: the same names,
 * <stack> the first 5 whole frames (named user frames), values unrounded,
 * the same rare-stack rule, and perf-sched.offcpu.{recovered,lost}.count
 * when not 0 (the lost ones are also added to the run's lost records, so
 * every header, JSON and diff that shows lost samples shows them).  And counts of the pseudo event "offcpu" (samples =
 * switch-outs, period = ns off CPU) per full stack, so `report --folded
 * --period -e offcpu` is an off-CPU flame graph.
 */
#ifndef MMPROF_SCHED_H
#define MMPROF_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/hashidx.h"
#include "mmprof/profile.h"
#include "mmprof/sampler.h"
#include "mmprof/symbols.h"

#define SCHED_COMM_LEN 16

struct sched_stat {
	uint64_t count;
	uint64_t wait_sum, wait_max;	/* ns */
	uint64_t delay_sum, delay_max;
	uint64_t both_sum, both_max;
};

/* One distinct (process, comm, raw switch-out callchain). */
struct sched_stack {
	uint32_t pid, nr;
	uint64_t chain_off;	/* into the arena; context markers included */
	uint64_t hash;
	char comm[SCHED_COMM_LEN];
	struct sched_stat st;	/* mmprof's view */
	struct sched_stat rb;	/* the robot's (timehist's) view, whole microseconds */
};

struct sched_task;

struct sched {
	struct sched_stack *stacks;
	size_t nr_stacks, alloc_stacks;
	uint64_t *arena;
	size_t arena_used, arena_alloc;
	struct hashidx stack_idx;

	struct sched_task *tasks;	/* rows of task_idx, by tid */
	size_t nr_tasks, alloc_tasks;
	struct hashidx task_idx;
	bool filter;			/* only watched tasks */

	uint64_t *cpu_last;		/* per CPU: time of its last switch, 0 none */
	size_t nr_cpus;

	struct sched_stat total;	/* every completed switch-out (st) */
	uint64_t switches, wakeups, migrations, forks;
	uint64_t recovered, lost;	/* missed switch-ins, bounded or not */
};

void sched__init(struct sched *s, bool filter);
void sched__release(struct sched *s);
/* Forget stacks, tasks and totals (a new run); the watched set is cleared too. */
void sched__reset(struct sched *s);

/* Follow this task (with filter on, the only ones counted). */
void sched__watch(struct sched *s, int32_t tid);
/* A fork or clone: the child is watched when the parent is. */
void sched__fork(struct sched *s, int32_t parent_tid, int32_t child_tid);

/*
 * On cpu, prev (tid, its process pid, comm) leaves the CPU at time with
 * prev_state (0 = still runnable: preempted) and the switch-out
 * callchain; next comes in.  sample_tid is the tid of the sample's header:
 * prev_tid but for an exiting task (-1), which the robot's view, as
 * timehist, then counts as one task "-1" shared by all of them.
 */
void sched__switch(struct sched *s, uint64_t time, uint32_t cpu, int32_t sample_tid,
		   int32_t prev_tid, uint32_t prev_pid,
		   const char *prev_comm, uint64_t prev_state, const uint64_t *chain,
		   uint32_t nr, int32_t next_tid);
/* tid became runnable (sched_waking/sched_wakeup); the first wakeup counts. */
void sched__wakeup(struct sched *s, uint64_t time, int32_t tid);
void sched__migrate(struct sched *s, int32_t tid);

/*
 * The robot's key of a stack given as symbol names leaf first: drops
 * schedule/__schedule/preempt_schedule, keeps 5 frames, joins with '.'.
 * Returns the number of frames kept; fewer than 2 means "no key".
 */
size_t sched__key(const char *const *names, size_t n, char *buf, size_t size);

/*
 * The robot's key of a timehist line whose frames (leaf first, the first
 * 7 entries, user frames already "[unknown]") are names: schedule,
 * __schedule and preempt_schedule hidden, joined by '.', cut to 5
 * '.'-separated pieces.  Returns the number of frames shown; fewer than 2
 * means "no key" (timehist prints no arrow, the robot's parse skips it).
 */
size_t sched__robot_key(const char *const *names, size_t n, char *buf, size_t size);

/*
 * Store the run's keys as metrics of run `run` and, when offcpu_event is
 * not UINT32_MAX, the off-CPU counts; frames resolved through syms.
 */
void sched__end_run(struct sched *s, struct profile *p, uint32_t run, struct symbols *syms,
		    uint32_t offcpu_event);

/* ---- the recorder ---- */

struct schedrec;

struct schedrec *schedrec__new(int mmap_pages, struct errmsg *e);
void schedrec__free(struct schedrec *r);	/* NULL is fine */
/* Open the sched tracepoints on every CPU (-C list for -a) and map them; disabled. */
int schedrec__open(struct schedrec *r, const struct record_target *t, struct errmsg *e);
void schedrec__enable(struct schedrec *r);
void schedrec__disable(struct schedrec *r);
int schedrec__drain(struct schedrec *r);	/* records read */
void schedrec__close(struct schedrec *r);	/* disable, drain, close */
/* Once: the "offcpu" pseudo event, after the sampler's events. */
void schedrec__add_events(struct schedrec *r, struct profile *p);
/* Store the run (see sched__end_run); adds the run's records and losses to *records, *lost. */
void schedrec__end_run(struct schedrec *r, struct profile *p, uint32_t run,
		       struct symbols *syms, uint64_t *records, uint64_t *lost);

#endif
