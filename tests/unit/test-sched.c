/*
 * test-sched: the sched latency aggregator against a naive reference model
 * (every event kept, each switch-out's wait and delay found by scanning
 * forward), the robot's stack keys, the target filter, and the metrics and
 * off-CPU counts of sched__end_run.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/sched.h"
#include "tap.h"

enum kind { SW, WAKE };

struct ev {
	enum kind kind;
	uint64_t time;
	int32_t prev, next;	/* SW */
	uint64_t state;
	int stack;		/* SW: index into chains */
	uint32_t cpu;		/* SW */
	int32_t tid;		/* WAKE */
};

static const uint64_t chains[3][3] = {
	{ PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL, 0xffffffff81000020ULL },
	{ PERF_CONTEXT_KERNEL, 0xffffffff81000030ULL, 0xffffffff81000040ULL },
	{ PERF_CONTEXT_KERNEL, 0xffffffff81000050ULL, 0xffffffff81000060ULL },
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The model: for switch-out i of task t, the next switch-in of t, and the
 * first wakeup of t between them (or the switch-out itself when runnable). */
static void model(const struct ev *evs, size_t n, struct sched_stat *per_stack,
		  struct sched_stat *total)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct ev *o = &evs[i];
		uint64_t ready = 0, wait, delay = 0;

		if (o->kind != SW || o->prev <= 0)
			continue;
		ready = o->state == 0 ? o->time : 0;
		for (j = i + 1; j < n; j++) {
			if (evs[j].kind == WAKE && evs[j].tid == o->prev && !ready)
				ready = evs[j].time;
			if (evs[j].kind == SW && evs[j].next == o->prev)
				break;
		}
		if (j == n)
			continue;	/* never back: not counted */
		wait = evs[j].time - o->time;
		if (ready)
			delay = evs[j].time - ready;
		for (int k = 0; k < 2; k++) {
			struct sched_stat *st = k ? total : &per_stack[o->stack];

			st->count++;
			st->wait_sum += wait;
			st->delay_sum += delay;
			st->both_sum += wait + delay;
			st->wait_max = wait > st->wait_max ? wait : st->wait_max;
			st->delay_max = delay > st->delay_max ? delay : st->delay_max;
			st->both_max = wait + delay > st->both_max ? wait + delay : st->both_max;
		}
	}
}

/*
 * The robot's model, perf sched timehist's way: for switch-out i of task
 * t on CPU c, the CPU's previous switch (tprev), t's previous switch-out
 * (last) and its first wakeup since then (ready); wait = tprev - last and
 * delay = tprev - ready when not after tprev, both cut to microseconds;
 * nothing before a CPU's first switch.
 */
static void model_robot(const struct ev *evs, size_t n, struct sched_stat *per_stack)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct ev *o = &evs[i];
		uint64_t tprev = 0, last = 0, ready = 0, wait = 0, delay = 0;
		size_t from = 0;

		if (o->kind != SW || o->prev <= 0)
			continue;
		for (j = i; j-- > 0;)
			if (evs[j].kind == SW && evs[j].cpu == o->cpu) {
				tprev = evs[j].time;
				break;
			}
		for (j = i; j-- > 0;)
			if (evs[j].kind == SW && evs[j].prev == o->prev) {
				last = evs[j].time;
				from = j + 1;
				break;
			}
		for (j = from; j < i; j++)
			if (evs[j].kind == WAKE && evs[j].tid == o->prev) {
				ready = evs[j].time;
				break;
			}
		if (tprev) {
			if (last && last <= tprev)
				wait = (tprev - last) / 1000 * 1000;
			if (ready && ready <= tprev)
				delay = (tprev - ready) / 1000 * 1000;
		}
		struct sched_stat *st = &per_stack[o->stack];

		st->count++;
		st->wait_sum += wait;
		st->delay_sum += delay;
		st->both_sum += wait + delay;
		st->wait_max = wait > st->wait_max ? wait : st->wait_max;
		st->delay_max = delay > st->delay_max ? delay : st->delay_max;
		st->both_max = wait + delay > st->both_max ? wait + delay : st->both_max;
	}
}

static bool stat_eq(const struct sched_stat *a, const struct sched_stat *b)
{
	return a->count == b->count && a->wait_sum == b->wait_sum && a->wait_max == b->wait_max &&
	       a->delay_sum == b->delay_sum && a->delay_max == b->delay_max &&
	       a->both_sum == b->both_sum && a->both_max == b->both_max;
}

/* Two CPUs, four tasks (tids 1..4, 0 idle), random switches and wakeups. */
static void test_model(void)
{
	enum { N = 20000, TASKS = 4 };
	struct ev *evs = calloc(N, sizeof(*evs));
	int32_t cur[2] = { 0, 0 };
	struct sched_stat want[3] = { { 0 } }, total = { 0 }, want_rb[3] = { { 0 } };
	struct sched s;
	uint64_t t = 1000;
	size_t i, k, found = 0;
	bool all_ok = true, rb_ok = true;

	for (i = 0; i < N; i++) {
		struct ev *e = &evs[i];
		int cpu = (int)(next_rand() % 2);

		t += 1000 + next_rand() % 1000000;	/* ~0.5 ms apart: microseconds matter */
		e->time = t;
		if (next_rand() % 3 == 0) {
			e->kind = WAKE;
			e->tid = (int32_t)(1 + next_rand() % TASKS);
			continue;
		}
		e->kind = SW;
		e->cpu = (uint32_t)cpu;
		e->prev = cur[cpu];
		/* next: idle or a task not running on the other CPU */
		do
			e->next = (int32_t)(next_rand() % (TASKS + 1));
		while (e->next && (e->next == cur[!cpu] || e->next == e->prev));
		e->state = next_rand() % 4 == 0 ? 0 : 1;	/* a quarter preempted */
		e->stack = (int)(next_rand() % 3);
		cur[cpu] = e->next;
	}
	model(evs, N, want, &total);
	model_robot(evs, N, want_rb);

	sched__init(&s, false);
	for (i = 0; i < N; i++) {
		const struct ev *e = &evs[i];

		if (e->kind == WAKE)
			sched__wakeup(&s, e->time, e->tid);
		else
			sched__switch(&s, e->time, e->cpu, e->prev, e->prev, (uint32_t)e->prev, "task",
				      e->state, chains[e->stack], 3, e->next);
	}
	ok(total.count > 1000, "the model sees many completed switch-outs (%llu)",
	   (unsigned long long)total.count);
	ok(stat_eq(&s.total, &total), "totals match the reference model");
	/* stacks are per (pid, comm, chain): sum the aggregator's per chain */
	for (k = 0; k < 3; k++) {
		struct sched_stat got = { 0 }, got_rb = { 0 };

		for (i = 0; i < s.nr_stacks; i++) {
			const struct sched_stack *st = &s.stacks[i];

			if (memcmp(s.arena + st->chain_off, chains[k], sizeof(chains[k])))
				continue;
			found++;
			got.count += st->st.count;
			got.wait_sum += st->st.wait_sum;
			got.delay_sum += st->st.delay_sum;
			got.both_sum += st->st.both_sum;
			got.wait_max = st->st.wait_max > got.wait_max ? st->st.wait_max : got.wait_max;
			got.delay_max = st->st.delay_max > got.delay_max ? st->st.delay_max : got.delay_max;
			got.both_max = st->st.both_max > got.both_max ? st->st.both_max : got.both_max;
			got_rb.count += st->rb.count;
			got_rb.wait_sum += st->rb.wait_sum;
			got_rb.delay_sum += st->rb.delay_sum;
			got_rb.both_sum += st->rb.both_sum;
			got_rb.wait_max = st->rb.wait_max > got_rb.wait_max ? st->rb.wait_max : got_rb.wait_max;
			got_rb.delay_max = st->rb.delay_max > got_rb.delay_max ? st->rb.delay_max
									  : got_rb.delay_max;
			got_rb.both_max = st->rb.both_max > got_rb.both_max ? st->rb.both_max
									 : got_rb.both_max;
		}
		all_ok &= stat_eq(&got, &want[k]);
		rb_ok &= stat_eq(&got_rb, &want_rb[k]) && want_rb[k].wait_sum && want_rb[k].delay_sum;
	}
	ok(all_ok, "per-stack stats match the reference model");
	ok(rb_ok, "per-stack robot (timehist) stats match its reference model");
	is_int(s.recovered + s.lost, 0, "every switch-in seen: nothing recovered or lost");
	is_int(found, (size_t)TASKS * 3, "one stack per (task, chain)");
	sched__release(&s);
	free(evs);
}

static double metric(const struct profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nr_metrics; i++)
		if (!strcmp(profile__str(p, p->metrics[i].key), key))
			return p->metrics[i].value;
	return NAN;
}

static void test_key(void)
{
	const char *a[] = { "__schedule", "schedule", "anon_pipe_read", "vfs_read", "ksys_read",
			    "do_syscall_64", "entry_SYSCALL_64_after_hwframe", "read" };
	const char *b[] = { "__schedule", "schedule", "do_idle_thing" };
	const char *c[] = { "__schedule", "preempt_schedule", "__cond_resched", NULL };
	char buf[256];

	is_int(sched__key(a, 8, buf, sizeof(buf)), 5, "5 frames kept");
	is_str(buf, "anon_pipe_read.vfs_read.ksys_read.do_syscall_64.entry_SYSCALL_64_after_hwframe",
	       "schedule frames dropped, leaf first, joined by '.'");
	is_int(sched__key(b, 3, buf, sizeof(buf)), 1, "a 1-frame chain is too short for a key");
	is_int(sched__key(c, 4, buf, sizeof(buf)), 2, "preempt_schedule dropped too");
	is_str(buf, "__cond_resched.[unknown]", "unresolved frames are [unknown]");
	sched__key(a, 8, buf, 12);
	ok(strlen(buf) < 12, "the key is truncated to the buffer");
}

/* The robot's key: timehist's line joined by '.', its first 5 pieces. */
static void test_robot_key(void)
{
	const char *clone[] = { "__schedule", "schedule", "schedule_hrtimeout_range_clock",
				"do_sigtimedwait.isra.0", "__x64_sys_rt_sigtimedwait",
				"do_syscall_64", "entry_SYSCALL_64_after_hwframe" };
	const char *user[] = { "__schedule", "exit_to_user_mode_loop", "do_syscall_64",
			       "entry_SYSCALL_64_after_hwframe", NULL, NULL };
	const char *one[] = { "__schedule", "schedule", "worker_thread" };
	char buf[256];

	is_int(sched__robot_key(clone, 7, buf, sizeof(buf)), 5, "5 frames shown");
	is_str(buf, "schedule_hrtimeout_range_clock.do_sigtimedwait.isra.0.__x64_sys_rt_sigtimedwait",
	       "a clone suffix uses up '.'-pieces");
	is_int(sched__robot_key(user, 6, buf, sizeof(buf)), 5, "user frames shown");
	is_str(buf, "exit_to_user_mode_loop.do_syscall_64.entry_SYSCALL_64_after_hwframe."
	       "[unknown].[unknown]", "user frames are [unknown]");
	is_int(sched__robot_key(one, 3, buf, sizeof(buf)), 1, "one frame: no arrow, no key");
	sched__robot_key(clone, 7, buf, 20);
	is_str(buf, "schedule_hrtimeout_", "truncated to the buffer");
}

/*
 * A switch-in the stream lacks (a CPU that never reports idle -> task):
 * the task's next switch-out recovers the interval from its wakeup or the
 * CPU's previous switch; nothing bounding it counts as lost.
 */
static void test_missed_switch_in(void)
{
	struct profile *p = profile__new();
	struct sched s;
	int i;

	sched__init(&s, false);
	/* 100 sleeps of 1 ms on CPU 1: out, woken 1 ms later, the switch-in never seen */
	for (i = 0; i < 100; i++) {
		uint64_t t0 = 1000000000ULL + (uint64_t)i * 2000000ULL;

		sched__switch(&s, t0, 1, 7, 7, 7, "sleeper", 1, chains[0], 3, 0);
		sched__wakeup(&s, t0 + 1000000, 7);
	}
	/* the last one comes back through a switch that is seen */
	sched__switch(&s, 1000000000ULL + 100 * 2000000ULL, 1, 0, 0, 0, "idle", 0, NULL, 0, 7);
	is_int(s.total.count, 100, "every sleep counted (99 recovered, 1 seen)");
	is_int(s.recovered, 99, "99 intervals recovered");
	is_int(s.lost, 0, "none lost");
	is_int(s.total.wait_sum, 99 * 1000000ULL + 2000000ULL,
	       "recovered waits end at the wakeup; the seen one at its switch-in");
	/* task 8 sleeps on CPU 0, no wakeup seen, switches out on CPU 0 again:
	 * CPU 0's last switch is its own switch-out, so nothing bounds it */
	sched__switch(&s, 3000000000ULL, 0, 8, 8, 8, "lonely", 1, chains[1], 3, 0);
	sched__switch(&s, 3500000000ULL, 0, 8, 8, 8, "lonely", 1, chains[1], 3, 0);
	is_int(s.lost, 1, "an unbounded interval is lost, not invented");
	sched__end_run(&s, p, 0, NULL, UINT32_MAX);
	is_dbl(metric(p, "perf-sched.offcpu.recovered.count"), 99, 0, "recovered as a key");
	is_dbl(metric(p, "perf-sched.offcpu.lost.count"), 1, 0, "lost as a key");
	is_dbl(metric(p, "perf-sched.offcpu.wait_and_delay.count.[unknown].[unknown]"), 100, 0,
	       "mmprof's view counts the 100 sleeps");
	is_dbl(metric(p, "perf-sched.wait_and_delay.count.[unknown].[unknown]"), 102, 0,
	       "the robot's view counts every switch-out (100 sleeps, 2 of task 8)");
	sched__release(&s);
	profile__free(p);
}

static void test_filter(void)
{
	struct sched s;

	sched__init(&s, true);
	sched__watch(&s, 10);
	sched__fork(&s, 10, 11);	/* child of a watched task: watched */
	sched__fork(&s, 20, 21);	/* not */
	sched__switch(&s, 100, 0, 10, 10, 10, "a", 1, chains[0], 3, 20);
	sched__switch(&s, 110, 0, 11, 11, 10, "a", 1, chains[0], 3, 0);
	sched__switch(&s, 120, 0, 20, 20, 20, "b", 1, chains[1], 3, 10);
	sched__switch(&s, 130, 0, 21, 21, 21, "b", 1, chains[1], 3, 11);
	is_int(s.total.count, 2, "only watched tasks (and their children) are counted");
	is_int(s.total.wait_sum, 20 + 20, "their waits");
	is_int(s.total.delay_sum, 0, "no wakeup seen: no delay");
	sched__release(&s);
}

static void test_end_run(void)
{
	struct profile *p = profile__new();
	struct event_desc d = { .name = profile__intern(p, "offcpu"), .type = PERF_TYPE_MAX };
	uint32_t ev = profile__add_event(p, &d);
	struct sched s;
	uint64_t period = 0, samples = 0;
	int i;
	size_t k;

	sched__init(&s, false);
	/* 1000 switch-outs of task 1 on chain 0: 2 ms off CPU, woken after 1.5 ms */
	for (i = 0; i < 1000; i++) {
		uint64_t t0 = 1000000ULL + (uint64_t)i * 10000000ULL;

		sched__switch(&s, t0, 0, 1, 1, 1, "t1", 1, chains[0], 3, 0);
		sched__wakeup(&s, t0 + 1500000, 1);
		sched__switch(&s, t0 + 2000000, 0, 0, 0, 0, "idle", 0, NULL, 0, 1);
	}
	/* one rare, short switch-out on chain 1: its wait_and_delay is skipped */
	sched__switch(&s, 20000000000ULL, 0, 2, 2, 2, "t2", 0, chains[1], 3, 0);
	sched__switch(&s, 20000001000ULL, 0, 0, 0, 0, "idle", 0, NULL, 0, 2);
	sched__end_run(&s, p, 0, NULL, ev);

	is_dbl(metric(p, "perf-sched.offcpu.wait_time.avg.ms.[unknown].[unknown]"),
	       (1000 * 2.0 + 0.001) / 1001, 1e-9, "stacks of equal names merge into one key");
	is_dbl(metric(p, "perf-sched.offcpu.total_wait_and_delay.count.ms"), 1001, 0, "total count");
	is_dbl(metric(p, "perf-sched.offcpu.total_wait_time.max.ms"), 2.0, 1e-9, "total max wait");
	is_dbl(metric(p, "perf-sched.offcpu.total_sch_delay.max.ms"), 0.5, 1e-9, "total max delay");
	is_dbl(metric(p, "perf-sched.offcpu.total_wait_time.average.ms"),
	       (1000 * 2.0 + 0.001) / 1001, 1e-9, "total average wait");
	is_dbl(metric(p, "perf-sched.offcpu.total_wait_and_delay.average.ms"),
	       (1000 * 2.5 + 0.002) / 1001, 1e-9, "total average wait + delay");
	/* the robot's view: each switch-out carries the wait before the run it
	 * ends (none for the first of each task), averages to 3 decimals */
	is_dbl(metric(p, "perf-sched.wait_and_delay.count.[unknown].[unknown]"), 1001, 0,
	       "robot: every switch-out counted, named wait_and_delay.count.<stack>");
	is_dbl(metric(p, "perf-sched.wait_time.avg.ms.[unknown].[unknown]"), 1.996, 0,
	       "robot: wait avg 999 * 2 / 1001 rounded to 3 decimals");
	is_dbl(metric(p, "perf-sched.sch_delay.avg.ms.[unknown].[unknown]"), 0.499, 0,
	       "robot: delay avg rounded");
	is_dbl(metric(p, "perf-sched.total_wait_and_delay.average.ms"), 2.495, 0,
	       "robot: total average (999 * 2.5 / 1001) rounded");
	is_dbl(metric(p, "perf-sched.total_wait_time.max.ms"), 2.0, 0, "robot: total max wait");
	ok(isnan(metric(p, "perf-sched.wait_and_delay.count.ms.[unknown].[unknown]")),
	   "no count.ms.<stack>: the robot's name has no .ms");
	for (k = 0; k < p->nr_counts; k++)
		if (p->counts[k].event == ev) {
			period += p->counts[k].period;
			samples += p->counts[k].samples;
		}
	is_int(samples, 1001, "offcpu samples = switch-outs");
	is_int(period, 1000ULL * 2000000ULL + 1000, "offcpu period = ns off CPU");
	sched__release(&s);
	profile__free(p);
}

/* The robot's rule: a rare stack under the overall average loses its
 * wait_and_delay trio (a 3-frame chain names differently from 2 frames). */
static void test_skip_rule(void)
{
	static const uint64_t rare[4] = { PERF_CONTEXT_KERNEL, 0xffffffff81000070ULL,
					  0xffffffff81000080ULL, 0xffffffff81000090ULL };
	struct profile *p = profile__new();
	struct sched s;
	int j;

	sched__init(&s, false);
	for (j = 0; j < 999; j++) {
		sched__switch(&s, (uint64_t)j * 100000000ULL, 0, 1, 1, 1, "a", 1, chains[0], 3, 0);
		sched__switch(&s, (uint64_t)j * 100000000ULL + 5000000, 0, 0, 0, 0, "i", 0, NULL, 0, 1);
	}
	sched__switch(&s, 200000000000ULL, 0, 2, 2, 2, "b", 0, rare, 4, 0);
	sched__switch(&s, 200000000010ULL, 0, 0, 0, 0, "i", 0, NULL, 0, 2);
	sched__end_run(&s, p, 0, NULL, UINT32_MAX);
	is_dbl(metric(p, "perf-sched.offcpu.wait_and_delay.count.[unknown].[unknown]"), 999, 0,
	       "the common stack keeps wait_and_delay");
	ok(isnan(metric(p, "perf-sched.offcpu.wait_and_delay.count.[unknown].[unknown].[unknown]")),
	   "the rare, short stack loses wait_and_delay");
	is_dbl(metric(p, "perf-sched.offcpu.wait_time.max.ms.[unknown].[unknown].[unknown]"), 1e-5,
	       1e-12, "but keeps its wait_time keys");
	is_dbl(metric(p, "perf-sched.offcpu.sch_delay.avg.ms.[unknown].[unknown].[unknown]"), 1e-5,
	       1e-12, "a preempted task's delay is its wait (mmprof's view)");
	ok(isnan(metric(p, "perf-sched.sch_delay.avg.ms.[unknown].[unknown].[unknown]")),
	   "the robot's view: a preempted task's delay is 0 (perf 6.1), and a 0 key is left out");
	is_dbl(metric(p, "perf-sched.wait_and_delay.count.[unknown].[unknown]"), 999, 0,
	       "robot: the common stack keeps wait_and_delay");
	ok(isnan(metric(p, "perf-sched.wait_and_delay.count.[unknown].[unknown].[unknown]")),
	   "robot: the rare stack (1 under 0.5 %% of 1000, under the average) loses it");
	ok(p->nr_counts == 0, "no offcpu counts without an offcpu event");
	sched__release(&s);
	profile__free(p);
}

/* timehist knows a task by its sample's tid: -1 for every exiting task, one "task" for all */
static void test_exiting_tid(void)
{
	struct profile *p = profile__new();
	struct sched s;

	sched__init(&s, false);
	sched__switch(&s, 900000000ULL, 0, 5, 5, 5, "x", 1, chains[1], 3, 20);
	sched__switch(&s, 1000000000ULL, 0, -1, 20, 20, "a", 64, chains[2], 3, 5);
	sched__switch(&s, 1900000000ULL, 0, 5, 5, 5, "x", 1, chains[1], 3, 21);
	sched__switch(&s, 2000000000ULL, 0, -1, 21, 21, "b", 64, chains[2], 3, 5);
	sched__end_run(&s, p, 0, NULL, UINT32_MAX);
	is_dbl(metric(p, "perf-sched.wait_time.max.ms.[unknown].[unknown]"), 900, 1e-9,
	       "robot: the second exit's wait runs from the first's switch-out (the -1 task)");
	is_dbl(metric(p, "perf-sched.offcpu.wait_time.max.ms.[unknown].[unknown]"), 100, 1e-9,
	       "mmprof: tasks are tids, task 5's waits are 0.1 s");
	is_int(s.total.count, 2, "mmprof counts only completed intervals (task 5's two)");
	sched__release(&s);
	profile__free(p);
}

int main(void)
{
	test_key();
	test_robot_key();
	test_model();
	test_missed_switch_in();
	test_exiting_tid();
	test_filter();
	test_end_run();
	test_skip_rule();
	return done_testing();
}
