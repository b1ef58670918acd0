/*
 * schedkeys: a run's sched stacks turned into the robot's perf-sched keys
 * and off-CPU counts (sched__end_run; contract in include/mmprof/sched.h).
 *
 * Runs once per run over the distinct stacks (hundreds to thousands):
 * clarity over speed.  Several raw stacks (different processes, addresses
 * in one function) share a key; their stats merge: counts and sums add,
 * maxima take the larger.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/sched.h"
#include "mmprof/xalloc.h"

#define KEY_FRAMES 16		/* enough to find 5 after dropping schedule frames */

struct keyrow {
	char *key;
	struct sched_stat st;
};

struct keyset {
	struct keyrow *rows;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool keyrow_eq(const void *ctx, uint32_t row, const void *key)
{
	return !strcmp(((const struct keyset *)ctx)->rows[row].key, key);
}

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
	uint64_t h = hash__bytes(key, strlen(key));
	uint32_t row = hashidx__find(&ks->idx, h, keyrow_eq, ks, key);

	if (row == HASHIDX_NONE) {
		XGROW(ks->rows, ks->alloc, ks->nr);
		ks->rows[ks->nr].key = xstrdup(key);
		memset(&ks->rows[ks->nr].st, 0, sizeof(ks->rows[ks->nr].st));
		hashidx__insert(&ks->idx, h, (uint32_t)ks->nr);
		row = (uint32_t)ks->nr++;
	}
	stat_merge(&ks->rows[row].st, st);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* "perf-sched.<family>.<stack>" */
static void metric(struct profile *p, uint32_t run, const char *family, const char *stack,
		   double v)
{
	char key[1024];

	snprintf(key, sizeof(key), "perf-sched.%s.%s", family, stack);
	profile__add_metric(p, run, key, v);
}

/* Resolve a stack's frames into profile frames; names of the first KEY_FRAMES. */
static size_t resolve(struct profile *p, struct symbols *syms, const struct sched_stack *st,
		      const uint64_t *chain, uint32_t *frames, const char **names)
{
	bool kernel = false;
	size_t n = 0;
	uint32_t i;

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
		n++;
	}
	return n;
}

void sched__end_run(struct sched *s, struct profile *p, uint32_t run, struct symbols *syms,
		    uint32_t offcpu_event)
{
	struct keyset ks = { 0 };
	uint32_t *frames = NULL;
	size_t alloc_frames = 0, i;
	const struct sched_stat *t = &s->total;
	double avg_both;

	hashidx__init(&ks.idx);
	for (i = 0; i < s->nr_stacks; i++) {
		const struct sched_stack *st = &s->stacks[i];
		const char *names[KEY_FRAMES];
		char key[768];
		size_t n;

		if (!st->st.count)
			continue;	/* still off CPU at the end of the run */
		XGROW(frames, alloc_frames, st->nr);
		n = resolve(p, syms, st, s->arena + st->chain_off, frames, names);
		if (n && offcpu_event != UINT32_MAX)
			profile__add_count(p, run, offcpu_event, profile__intern(p, st->comm),
					   st->pid, profile__stack(p, frames, n), st->st.count,
					   st->st.wait_sum);
		if (sched__key(names, n < KEY_FRAMES ? n : KEY_FRAMES, key, sizeof(key)) >= 2)
			keyset__add(&ks, key, &st->st);
	}
	free(frames);

	if (!t->count)
		goto out;
	avg_both = ms(t->both_sum) / (double)t->count;
	for (i = 0; i < ks.nr; i++) {
		const struct sched_stat *st = &ks.rows[i].st;
		const char *k = ks.rows[i].key;
		double n = (double)st->count, both = ms(st->both_sum) / n;

		metric(p, run, "wait_time.avg.ms", k, ms(st->wait_sum) / n);
		metric(p, run, "wait_time.max.ms", k, ms(st->wait_max));
		metric(p, run, "sch_delay.avg.ms", k, ms(st->delay_sum) / n);
		metric(p, run, "sch_delay.max.ms", k, ms(st->delay_max));
		/* the robot's rule: rare stacks under the overall average are noise */
		if (both < avg_both && n < 0.005 * (double)t->count)
			continue;
		metric(p, run, "wait_and_delay.count.ms", k, n);	/* the robot's name, ".ms" and all */
		metric(p, run, "wait_and_delay.avg.ms", k, both);
		metric(p, run, "wait_and_delay.max.ms", k, ms(st->both_max));
	}
	profile__add_metric(p, run, "perf-sched.total_wait_time.max.ms", ms(t->wait_max));
	profile__add_metric(p, run, "perf-sched.total_wait_time.average.ms",
			    ms(t->wait_sum) / (double)t->count);
	profile__add_metric(p, run, "perf-sched.total_sch_delay.max.ms", ms(t->delay_max));
	profile__add_metric(p, run, "perf-sched.total_sch_delay.average.ms",
			    ms(t->delay_sum) / (double)t->count);
	profile__add_metric(p, run, "perf-sched.total_wait_and_delay.count.ms", (double)t->count);
	profile__add_metric(p, run, "perf-sched.total_wait_and_delay.max.ms", ms(t->both_max));
	profile__add_metric(p, run, "perf-sched.total_wait_and_delay.average.ms", avg_both);
out:
	for (i = 0; i < ks.nr; i++)
		free(ks.rows[i].key);
	free(ks.rows);
	hashidx__release(&ks.idx);
}
