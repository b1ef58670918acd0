/*
 * countrun: the counting set as a run loop source, and a counting-only
 * run; see include/mmprof/countrun.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "mmprof/counting.h"
#include "mmprof/countrun.h"

static int src_open(void *ctx, const struct record_target *t, struct profile *p,
		    uint32_t run, struct errmsg *e)
{
	struct countrun_source *cs = ctx;
	struct counting_target ct;

	memset(&ct, 0, sizeof(ct));
	ct.pids = t->pids;
	ct.nr_pids = t->nr_pids;
	ct.system_wide = t->system_wide;
	ct.cpu_list = t->cpu_list;
	/* counters always cover the whole run; sampling may wait for --delay */
	ct.enable_on_exec = t->fork;
	ct.events = cs->events;
	cs->cnt = counting__open(&ct, e);
	return cs->cnt ? 0 : -EINVAL;
}

static void src_start(void *ctx, int64_t start_ns)
{
	struct countrun_source *cs = ctx;

	counting__start(cs->cnt, start_ns);
}

static void src_tick(void *ctx, struct profile *p, uint32_t run, int64_t now_ns)
{
	struct countrun_source *cs = ctx;
	size_t first = p->nr_intervals;

	counting__interval(cs->cnt, p, run, now_ns);
	if (cs->on_interval)
		cs->on_interval(cs->ctx, p, first);
}

static void src_stop(void *ctx, struct profile *p, uint32_t run, int64_t now_ns)
{
	struct countrun_source *cs = ctx;
	size_t before = p->nr_intervals;

	counting__finish(cs->cnt, p, run, now_ns, cs->intervals);
	if (cs->on_interval && p->nr_intervals > before)
		cs->on_interval(cs->ctx, p, before);
}

static void src_close(void *ctx)
{
	struct countrun_source *cs = ctx;

	counting__close(cs->cnt);
	cs->cnt = NULL;
}

const struct runsrc_ops countrun_source_ops = {
	.open = src_open,
	.start = src_start,
	.tick = src_tick,
	.stop = src_stop,
	.close = src_close,
};

int countrun__run(const struct countrun_opts *o, struct profile *p, uint32_t run,
		  struct errmsg *e)
{
	struct countrun_source cs = {
		.events = o->events,
		.intervals = o->interval_ms > 0,
		.on_interval = o->on_interval,
		.ctx = o->ctx,
	};
	struct runsrc src = { &countrun_source_ops, &cs, 0 };
	struct runloop_opts lo;
	struct runloop_result res;

	memset(&lo, 0, sizeof(lo));
	lo.argv = o->argv;
	lo.pids = o->pids;
	lo.nr_pids = o->nr_pids;
	lo.system_wide = o->system_wide;
	lo.cpu_list = o->cpu_list;
	lo.sources = &src;
	lo.nr_sources = 1;
	lo.time_limit = o->duration;
	lo.interval_ms = o->interval_ms;
	lo.nr_stops = o->nr_stops;
	lo.stop_sig = o->stop_sig;
	return runloop__run(&lo, p, run, &res, e);
}

/* "task-clock:u" (user-only fallback) is the set's "task-clock" */
static bool wanted(const struct strlist *sel, const char *name)
{
	size_t i, len = strcspn(name, ":");

	if (!sel->nr)
		return true;
	for (i = 0; i < sel->nr; i++)
		if (strlen(sel->items[i]) == len && !strncmp(sel->items[i], name, len))
			return true;
	return false;
}

void countrun__copy_run(struct profile *dst, const struct profile *src, uint32_t run,
			const struct strlist *sel)
{
	size_t i;

	for (i = 0; i < src->nr_counters; i++) {
		struct counter c = src->counters[i];
		const char *name = profile__str(src, c.name);

		if (!name || !wanted(sel, name))
			continue;
		c.run = run;
		c.name = profile__intern(dst, name);
		profile__add_counter(dst, &c);
	}
	for (i = 0; i < src->nr_intervals; i++) {
		struct counter_interval ci = src->intervals[i];
		const char *name = profile__str(src, ci.name);

		if (!name || !wanted(sel, name))
			continue;
		ci.run = run;
		ci.name = profile__intern(dst, name);
		profile__add_interval(dst, &ci);
	}
	for (i = 0; i < src->nr_metrics; i++)
		profile__add_metric(dst, run, profile__str(src, src->metrics[i].key),
				    src->metrics[i].value);
	profile__add_run(dst, &src->runs[0]);
}
