/*
 * sched: switch-out stacks, waits and delays; see include/mmprof/sched.h.
 *
 * Per task a small state (pending switch-out, wakeup time, the interned
 * stack); per stack the stats.  Every event is O(1) hash work plus, for a
 * switch-out, hashing its callchain: the recorder calls this for each of
 * up to a million events a second.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/sched.h"
#include "mmprof/xalloc.h"

#define NO_STACK UINT32_MAX
#define TASK_STATE_MASK 0xff	/* TASK_REPORT bits; 0 means runnable (R, R+) */

struct sched_task {
	int32_t tid;
	uint8_t watched;
	uint8_t out;		/* switched out, not yet back */
	uint8_t runnable;	/* switched out while runnable (preempted) */
	uint32_t stack;		/* stack of the pending switch-out, NO_STACK if none */
	uint64_t out_time, ready_time;	/* ready_time 0: not woken yet */
	uint64_t rb_last, rb_ready;	/* timehist's last_time and ready_to_run, 0 none */
};

void sched__init(struct sched *s, bool filter)
{
	memset(s, 0, sizeof(*s));
	hashidx__init(&s->stack_idx);
	hashidx__init(&s->task_idx);
	s->filter = filter;
}

void sched__release(struct sched *s)
{
	free(s->stacks);
	free(s->arena);
	free(s->tasks);
	free(s->cpu_last);
	hashidx__release(&s->stack_idx);
	hashidx__release(&s->task_idx);
	memset(s, 0, sizeof(*s));
}

void sched__reset(struct sched *s)
{
	bool filter = s->filter;

	sched__release(s);
	sched__init(s, filter);
}

static bool task_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct sched *s = ctx;

	return s->tasks[row].tid == *(const int32_t *)key;
}

/* The task's state (create: add it); valid until the next task is added. */
static struct sched_task *task_slot(struct sched *s, int32_t tid, bool create)
{
	uint64_t h = hash__u64((uint64_t)(uint32_t)tid);
	uint32_t row = hashidx__find(&s->task_idx, h, task_eq, s, &tid);
	struct sched_task *t;

	if (row != HASHIDX_NONE)
		return &s->tasks[row];
	if (!create)
		return NULL;
	XGROW(s->tasks, s->alloc_tasks, s->nr_tasks);
	t = &s->tasks[s->nr_tasks];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->stack = NO_STACK;
	hashidx__insert(&s->task_idx, h, (uint32_t)s->nr_tasks++);
	return t;
}

void sched__watch(struct sched *s, int32_t tid)
{
	task_slot(s, tid, true)->watched = 1;
}

void sched__fork(struct sched *s, int32_t parent_tid, int32_t child_tid)
{
	struct sched_task *parent = task_slot(s, parent_tid, false);

	s->forks++;
	if (parent && parent->watched)
		sched__watch(s, child_tid);
}

struct stack_key {
	uint32_t pid, nr;
	const char *comm;
	const uint64_t *chain;
};

static bool stack_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct sched *s = ctx;
	const struct sched_stack *st = &s->stacks[row];
	const struct stack_key *k = key;

	return st->pid == k->pid && st->nr == k->nr && !strncmp(st->comm, k->comm, SCHED_COMM_LEN) &&
	       !memcmp(s->arena + st->chain_off, k->chain, k->nr * sizeof(*k->chain));
}

static uint32_t intern_stack(struct sched *s, uint32_t pid, const char *comm,
			     const uint64_t *chain, uint32_t nr)
{
	struct stack_key k = { pid, nr, comm, chain };
	uint64_t h = hash__combine(hash__bytes(chain, nr * sizeof(*chain)),
				   hash__bytes(comm, strnlen(comm, SCHED_COMM_LEN)));
	uint32_t row;
	struct sched_stack *st;

	h = hash__combine(h, pid);
	row = hashidx__find(&s->stack_idx, h, stack_eq, s, &k);
	if (row != HASHIDX_NONE)
		return row;
	if (s->arena_alloc - s->arena_used < nr) {
		size_t need = s->arena_used + nr;

		s->arena_alloc = s->arena_alloc ? s->arena_alloc : 4096;
		while (s->arena_alloc < need)
			s->arena_alloc *= 2;
		s->arena = xrealloc(s->arena, s->arena_alloc * sizeof(*s->arena));
	}
	if (nr)
		memcpy(s->arena + s->arena_used, chain, nr * sizeof(*chain));
	XGROW(s->stacks, s->alloc_stacks, s->nr_stacks);
	st = &s->stacks[s->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->pid = pid;
	st->nr = nr;
	st->chain_off = s->arena_used;
	st->hash = h;
	snprintf(st->comm, sizeof(st->comm), "%.*s", SCHED_COMM_LEN - 1, comm);
	s->arena_used += nr;
	hashidx__insert(&s->stack_idx, h, (uint32_t)s->nr_stacks);
	return (uint32_t)s->nr_stacks++;
}

static void stat_add(struct sched_stat *st, uint64_t wait, uint64_t delay)
{
	uint64_t both = wait + delay;

	st->count++;
	st->wait_sum += wait;
	st->delay_sum += delay;
	st->both_sum += both;
	if (wait > st->wait_max)
		st->wait_max = wait;
	if (delay > st->delay_max)
		st->delay_max = delay;
	if (both > st->both_max)
		st->both_max = both;
}

/* t's pending switch-out ends: it runs again at time */
static void close_out(struct sched *s, struct sched_task *t, uint64_t time)
{
	uint64_t wait, delay = 0;

	t->out = 0;
	if (time < t->out_time) {
		s->lost++;	/* out of order: drop rather than invent */
		t->stack = NO_STACK;
		return;
	}
	wait = time - t->out_time;
	if (t->ready_time && t->ready_time <= time)
		delay = time - t->ready_time;
	stat_add(&s->total, wait, delay);
	if (t->stack != NO_STACK)
		stat_add(&s->stacks[t->stack].st, wait, delay);
	t->stack = NO_STACK;
}

/*
 * t switches out again without a switch-in seen since the last time.  It
 * ran on this CPU after its wakeup and after the CPU's previous switch
 * (tprev): the later of the two ends the interval.  Neither known to be
 * after the switch-out: nothing bounds it.
 */
static void recover(struct sched *s, struct sched_task *t, uint64_t tprev, uint64_t now)
{
	uint64_t in = t->ready_time > tprev ? t->ready_time : tprev;

	/* a sleeper never seen waking, the CPU's last switch its own: unbounded */
	if ((!t->ready_time && tprev <= t->out_time) || in < t->out_time || in > now) {
		s->lost++;
		t->out = 0;
		t->stack = NO_STACK;
		return;
	}
	s->recovered++;
	close_out(s, t, in);
}

/* The CPU's previous switch (0: none yet), and now the latest. */
static uint64_t cpu_swap_last(struct sched *s, uint32_t cpu, uint64_t time)
{
	uint64_t prev;

	if (cpu >= s->nr_cpus) {
		size_t n = s->nr_cpus ? s->nr_cpus : 8;

		while (n <= cpu)
			n *= 2;
		s->cpu_last = xrealloc(s->cpu_last, n * sizeof(*s->cpu_last));
		memset(s->cpu_last + s->nr_cpus, 0, (n - s->nr_cpus) * sizeof(*s->cpu_last));
		s->nr_cpus = n;
	}
	prev = s->cpu_last[cpu];
	s->cpu_last[cpu] = time;
	return prev;
}

static uint64_t whole_us(uint64_t ns)
{
	return ns / 1000 * 1000;
}

/*
 * The robot's view of t's switch-out at now, tprev the CPU's previous
 * switch (timehist_update_runtime_stats): the wait and delay before the
 * run that ends here, each cut to the microseconds timehist prints.
 */
static void robot_switch_out(struct sched_task *t, struct sched_stat *rb, uint64_t tprev,
			     uint64_t now)
{
	uint64_t wait = 0, delay = 0;

	if (tprev) {
		if (t->rb_ready && t->rb_ready <= tprev)
			delay = tprev - t->rb_ready;
		if (t->rb_last && t->rb_last <= tprev)
			wait = tprev - t->rb_last;
	}
	stat_add(rb, whole_us(wait), whole_us(delay));
	t->rb_last = now;
	t->rb_ready = 0;	/* perf 6.1: also for a preempted task */
}

void sched__switch(struct sched *s, uint64_t time, uint32_t cpu, int32_t sample_tid,
		   int32_t prev_tid, uint32_t prev_pid, const char *prev_comm, uint64_t prev_state,
		   const uint64_t *chain, uint32_t nr, int32_t next_tid)
{
	uint64_t tprev = cpu_swap_last(s, cpu, time);
	struct sched_task *t;
	uint32_t stack;

	s->switches++;
	if (next_tid > 0) {
		t = task_slot(s, next_tid, false);
		if (t && t->out)
			close_out(s, t, time);
	}
	if (prev_tid <= 0)
		return;		/* the idle task: not a wait */
	t = task_slot(s, prev_tid, !s->filter);
	if (!t || (s->filter && !t->watched))
		return;
	if (t->out)
		recover(s, t, tprev, time);
	t->out = 1;
	t->out_time = time;
	t->runnable = (prev_state & TASK_STATE_MASK) == 0;
	/* a preempted task is ready at once (perf's timehist since 2023 too) */
	t->ready_time = t->runnable ? time : 0;
	stack = t->stack = intern_stack(s, prev_pid, prev_comm ? prev_comm : "", chain, nr);
	/* timehist knows the task by the sample's tid, -1 for every exiting one */
	if (sample_tid != prev_tid)
		t = task_slot(s, sample_tid, true);
	robot_switch_out(t, &s->stacks[stack].rb, tprev, time);
}

void sched__wakeup(struct sched *s, uint64_t time, int32_t tid)
{
	/* system-wide, a task first seen waking (a new one) has a ready time too */
	struct sched_task *t = task_slot(s, tid, !s->filter && tid > 0);

	s->wakeups++;
	if (!t)
		return;
	if (t->out && !t->ready_time)
		t->ready_time = time;
	if (!t->rb_ready)
		t->rb_ready = time;	/* timehist: the first wakeup since the switch-out */
}

void sched__migrate(struct sched *s, int32_t tid)
{
	(void)tid;
	s->migrations++;
}

static bool hidden_frame(const char *nm)
{
	return !strcmp(nm, "schedule") || !strcmp(nm, "__schedule") ||
	       !strcmp(nm, "preempt_schedule");
}

size_t sched__robot_key(const char *const *names, size_t n, char *buf, size_t size)
{
	size_t i, shown = 0, len = 0, dots = 0;
	char *c;

	if (!size)
		return 0;
	buf[0] = '\0';
	/* the line's frames joined by '.' (what the robot's parse sees) ... */
	for (i = 0; i < n; i++) {
		const char *nm = names[i] ? names[i] : "[unknown]";
		int w;

		if (hidden_frame(nm))
			continue;
		w = snprintf(buf + len, size - len, "%s%s", shown++ ? "." : "", nm);
		if (w < 0 || (size_t)w >= size - len) {
			len = size - 1;	/* truncated: the cut below still applies */
			break;
		}
		len += (size_t)w;
	}
	for (i++; i < n; i++)
		shown += !hidden_frame(names[i] ? names[i] : "[unknown]");
	/* ... and cut to its first 5 '.'-separated pieces */
	for (c = buf; *c; c++)
		if (*c == '.' && ++dots == 5) {
			*c = '\0';
			break;
		}
	return shown;
}

size_t sched__key(const char *const *names, size_t n, char *buf, size_t size)
{
	size_t i, kept = 0, len = 0;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < n && kept < 5; i++) {
		const char *nm = names[i] ? names[i] : "[unknown]";
		int w;

		if (hidden_frame(nm))
			continue;
		if (len >= size)
			break;
		w = snprintf(buf + len, size - len, "%s%s", kept ? "." : "", nm);
		if (w < 0)
			break;
		len += (size_t)w;
		kept++;
	}
	return kept;
}
