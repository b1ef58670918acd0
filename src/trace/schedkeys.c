/*
 * schedkeys: a run's sched stacks turned into the robot's perf-sched keys,
 * mmprof's perf-sched.offcpu.* keys and off-CPU counts (sched__end_run;
 * contract in include/mmprof/sched.h).
 *
 * Runs once per run over the distinct stacks (hundreds to thousands):
 * clarity over speed.  Several raw stacks (different processes, addresses
 * in one function) share a key; their stats merge: counts and sums add,
 * maxima take the larger.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/sched.h"
#include "mmprof/strintern.h"
#include "mmprof/xalloc.h"

#define KEY_FRAMES 16		/* enough to find 5 after dropping schedule frames */
#define ROBOT_FRAMES 7		/* perf sched timehist: max_stack (5) + 2 entries resolved */

/* key i is keys.s[i] (in order first met), st[i] its stats merged */
struct keyset {
	struct strintern keys;
	struct sched_stat *st;
	size_t alloc_st;
};

static void stat_merge(struct sched_stat *a, const struct sched_stat *b)
{
	a->count += b->count;
	a->wait_sum += b->wait_sum;
	a->delay_sum += b->delay_sum;
	a->both_sum += b->both_sum;
	if (b->wait_max > a->wait_max)
		a->wait_max = b->wait_max;
	if (b->delay_max > a->delay_max)
		a->delay_max = b->delay_max;
	if (b->both_max > a->both_max)
		a->both_max = b->both_max;
}

static void keyset__add(struct keyset *ks, const char *key, const struct sched_stat *st)
{
	uint32_t row = strintern__xid(&ks->keys, key, strlen(key));

	XGROW(ks->st, ks->alloc_st, row);	/* zeroed: a new key's stats are empty */
	stat_merge(&ks->st[row], st);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* The robot's printed average: 3 decimals (Ruby's round(3)). */
static double round3(double v)
{
	return round(v * 1000.0) / 1000.0;
}

/* "<family>.<stack>" with family "perf-sched.wait_time.avg.ms" etc.; 0 is left out (dump-stat) */
static void metric(struct profile *p, uint32_t run, const char *prefix, const char *family,
		   const char *stack, double v)
{
	char key[1024];

	if (v == 0)
		return;
	snprintf(key, sizeof(key), "%s%s%s%s", prefix, family, stack ? "." : "", stack ? stack : "");
	profile__add_metric(p, run, key, v);
}

/*
 * Resolve a stack's frames into profile frames.  names: the first
 * KEY_FRAMES symbol names (mmprof's key); robot: the first ROBOT_FRAMES
 * entries as timehist shows them (user frames unresolved); *nr_robot.
 */
static size_t resolve(struct profile *p, struct symbols *syms, const struct sched_stack *st,
		      const uint64_t *chain, uint32_t *frames, const char **names,
		      const char **robot, size_t *nr_robot)
{
	bool kernel = false;
	size_t n = 0;
	uint32_t i;

	*nr_robot = 0;
	for (i = 0; i < st->nr; i++) {
		struct symbol_info si = { 0 };
		struct frame f = { 0 };

		if (chain[i] >= PERF_CONTEXT_MAX) {
			kernel = chain[i] != PERF_CONTEXT_USER && chain[i] != PERF_CONTEXT_GUEST_USER;
			continue;
		}
		if (syms)
			symbols__resolve(syms, (pid_t)st->pid, chain[i], kernel, &si);
		f.addr = chain[i];
		f.kernel = kernel;
		f.sym = profile__intern(p, si.sym);
		f.dso = profile__intern(p, si.dso);
		f.sym_off = si.sym ? si.sym_off : 0;
		frames[n] = profile__frame(p, &f);
		if (n < KEY_FRAMES)
			names[n] = profile__str(p, f.sym);
		if (n < ROBOT_FRAMES)
			robot[(*nr_robot)++] = kernel ? profile__str(p, f.sym) : NULL;
		n++;
	}
	return n;
}

/* A key set's overall stats (every stack merged). */
static struct sched_stat keyset__total(const struct keyset *ks)
{
	struct sched_stat t = { 0 };
	size_t i;

	for (i = 0; i < ks->keys.nr; i++)
		stat_merge(&t, &ks->st[i]);
	return t;
}

/*
 * One view's keys: per stack, then the totals.  robot: the robot's
 * rounding (3 decimals) and its cut count truncated to an integer;
 * otherwise exact averages and the 0.5 % as a fraction.
 */
static void view_keys(struct profile *p, uint32_t run, const char *pre, const struct keyset *ks,
		      const struct sched_stat *t, bool robot)
{
	double n_all = (double)t->count, avg_both, cut;
	size_t i;

	if (!t->count)
		return;
	avg_both = ms(t->both_sum) / n_all;
	cut = 0.005 * n_all;
	if (robot) {
		avg_both = round3(avg_both);
		cut = floor(cut);
	}
	for (i = 0; i < ks->keys.nr; i++) {
		const struct sched_stat *st = &ks->st[i];
		const char *k = ks->keys.s[i];
		double n = (double)st->count;
		double wait = ms(st->wait_sum) / n, delay = ms(st->delay_sum) / n;
		double both = ms(st->both_sum) / n;

		if (robot) {
			wait = round3(wait);
			delay = round3(delay);
			both = round3(both);
		}
		metric(p, run, pre, "wait_time.max.ms", k, ms(st->wait_max));
		metric(p, run, pre, "wait_time.avg.ms", k, wait);
		metric(p, run, pre, "sch_delay.max.ms", k, ms(st->delay_max));
		metric(p, run, pre, "sch_delay.avg.ms", k, delay);
		/* the robot's rule: rare stacks under the overall average are noise */
		if (both < avg_both && n < cut)
			continue;
		metric(p, run, pre, "wait_and_delay.count", k, n);
		metric(p, run, pre, "wait_and_delay.max.ms", k, ms(st->both_max));
		metric(p, run, pre, "wait_and_delay.avg.ms", k, both);
	}
	metric(p, run, pre, "total_wait_time.max.ms", NULL, ms(t->wait_max));
	metric(p, run, pre, "total_wait_time.average.ms", NULL,
	       robot ? round3(ms(t->wait_sum) / n_all) : ms(t->wait_sum) / n_all);
	metric(p, run, pre, "total_sch_delay.max.ms", NULL, ms(t->delay_max));
	metric(p, run, pre, "total_sch_delay.average.ms", NULL,
	       robot ? round3(ms(t->delay_sum) / n_all) : ms(t->delay_sum) / n_all);
	metric(p, run, pre, "total_wait_and_delay.count.ms", NULL, n_all);
	metric(p, run, pre, "total_wait_and_delay.max.ms", NULL, ms(t->both_max));
	metric(p, run, pre, "total_wait_and_delay.average.ms", NULL, avg_both);
}

static void keyset__release(struct keyset *ks)
{
	strintern__release(&ks->keys);
	free(ks->st);
}

void sched__end_run(struct sched *s, struct profile *p, uint32_t run, struct symbols *syms,
		    uint32_t offcpu_event)
{
	struct keyset own = { 0 }, rb = { 0 };
	uint32_t *frames = NULL;
	size_t alloc_frames = 0, i;
	struct sched_stat rb_total;

	for (i = 0; i < s->nr_stacks; i++) {
		const struct sched_stack *st = &s->stacks[i];
		const char *names[KEY_FRAMES], *robot[ROBOT_FRAMES];
		char key[768];
		size_t n, nr_robot;

		if (!st->st.count && !st->rb.count)
			continue;
		XGROW(frames, alloc_frames, st->nr);
		n = resolve(p, syms, st, s->arena + st->chain_off, frames, names, robot, &nr_robot);
		if (st->rb.count && sched__robot_key(robot, nr_robot, key, sizeof(key)) >= 2)
			keyset__add(&rb, key, &st->rb);
		if (!st->st.count)
			continue;	/* still off CPU at the end of the run */
		/* an exiting task's -1 is no pid: 0, not known, as the sampler stores it */
		if (n && offcpu_event != UINT32_MAX)
			profile__add_count(p, run, offcpu_event, profile__intern(p, st->comm),
					   st->pid <= INT32_MAX ? st->pid : 0, profile__stack(p, frames, n),
					   st->st.count, st->st.wait_sum);
		if (sched__key(names, n < KEY_FRAMES ? n : KEY_FRAMES, key, sizeof(key)) >= 2)
			keyset__add(&own, key, &st->st);
	}
	free(frames);

	/* the robot's totals are over the lines it parsed: those with a key */
	rb_total = keyset__total(&rb);
	view_keys(p, run, "perf-sched.", &rb, &rb_total, true);
	view_keys(p, run, "perf-sched.offcpu.", &own, &s->total, false);
	metric(p, run, "perf-sched.offcpu.", "recovered.count", NULL, (double)s->recovered);
	metric(p, run, "perf-sched.offcpu.", "lost.count", NULL, (double)s->lost);
	keyset__release(&own);
	keyset__release(&rb);
}
