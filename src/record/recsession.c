/*
 * recsession: the sources of one `mmprof record` and their runs; see
 * include/mmprof/recsession.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chaintake.h"
#include "mmprof/counting.h"
#include "mmprof/countrun.h"
#include "mmprof/recsession.h"
#include "mmprof/sched.h"
#include "mmprof/sysinfo.h"
#include "mmprof/taskcount.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#define SCHED_WAIT_MS	10	/* --sched: drain often, sched events come fast */
#define MAX_SOURCES	5

struct recsession {
	struct recsession_opts o;
	struct profile *p;
	struct symbols *syms;
	struct sampler *sampler;
	struct schedrec *sched;		/* --sched, else NULL */
	struct tpstats *tp;		/* tracepoint field statistics, NULL when none */
	struct countrun_source counting;
	struct taskcount_source taskcount;	/* faults and switches, with counting */
	struct runsrc sources[MAX_SOURCES];
	struct runloop_opts loop;	/* o.loop with the sources and the session's on_start */
	bool events_added;
	struct recsession_totals totals;
};

/* ---- sampling ------------------------------------------------------------ */

static int sampling_open(void *ctx, const struct record_target *t, struct profile *p,
			 uint32_t run, struct errmsg *e)
{
	struct recsession *s = ctx;
	int err = sampler__open(s->sampler, t, e);

	if (err)
		return err;
	sampler__bind(s->sampler, p, run);
	if (sampler__freq_note(s->sampler)) {
		char hz[16];

		snprintf(hz, sizeof(hz), "%d", sampler__freq(s->sampler));
		profile__set_meta(p, "sample_freq_lowered", hz);
	}
	/* once, after the first open: the events really opened */
	if (!s->events_added)
		sampler__add_events(s->sampler, p);
	return 0;
}

static void sampling_enable(void *ctx)
{
	sampler__enable(((struct recsession *)ctx)->sampler);
}

static void sampling_disable(void *ctx)
{
	sampler__disable(((struct recsession *)ctx)->sampler);
}

static int sampling_poll(void *ctx, int timeout_ms)
{
	return sampler__poll(((struct recsession *)ctx)->sampler, timeout_ms);
}

static int sampling_drain(void *ctx)
{
	return sampler__drain(((struct recsession *)ctx)->sampler);
}

static void sampling_stop(void *ctx, struct profile *p, uint32_t run, int64_t now_ns)
{
	sampler__close(((struct recsession *)ctx)->sampler);	/* drains the rest */
}

static int sampling_end_run(void *ctx, struct profile *p, uint32_t run, struct run *r,
			    struct errmsg *e)
{
	struct recsession *s = ctx;
	int err;

	/* BPF programs that processes not followed loaded, still there (root) */
	symbols__load_bpf_progs(s->syms);
	err = sampler__end_run(s->sampler, p, run, r);

	if (err)
		return errmsg__set(e, err, "cannot store the samples of run %u: %s", run,
				   strerror(-err));
	return 0;
}

static void sampling_close(void *ctx)
{
	sampler__close(((struct recsession *)ctx)->sampler);
}

static const struct runsrc_ops sampling_ops = {
	.open = sampling_open,
	.enable = sampling_enable,
	.disable = sampling_disable,
	.poll = sampling_poll,
	.drain = sampling_drain,
	.stop = sampling_stop,
	.end_run = sampling_end_run,
	.close = sampling_close,
};

/* ---- --sched ------------------------------------------------------------- */

static int sched_open(void *ctx, const struct record_target *t, struct profile *p,
		      uint32_t run, struct errmsg *e)
{
	struct recsession *s = ctx;
	int err = schedrec__open(s->sched, t, e);

	if (err)
		return err;
	if (!s->events_added)
		schedrec__add_events(s->sched, p);	/* after the sampler's */
	/* system-wide tracepoints cannot enable at exec: start them now */
	if (t->enable_on_exec)
		schedrec__enable(s->sched);
	return 0;
}

static void sched_enable(void *ctx)
{
	schedrec__enable(((struct recsession *)ctx)->sched);
}

static void sched_disable(void *ctx)
{
	schedrec__disable(((struct recsession *)ctx)->sched);
}

static int sched_drain(void *ctx)
{
	return schedrec__drain(((struct recsession *)ctx)->sched);
}

static void sched_stop(void *ctx, struct profile *p, uint32_t run, int64_t now_ns)
{
	schedrec__close(((struct recsession *)ctx)->sched);
}

static int sched_end_run(void *ctx, struct profile *p, uint32_t run, struct run *r,
			 struct errmsg *e)
{
	struct recsession *s = ctx;

	schedrec__end_run(s->sched, p, run, s->syms, &r->samples, &r->lost);
	return 0;
}

static void sched_close(void *ctx)
{
	schedrec__close(((struct recsession *)ctx)->sched);
}

static const struct runsrc_ops sched_ops = {
	.open = sched_open,
	.enable = sched_enable,
	.disable = sched_disable,
	.drain = sched_drain,
	.stop = sched_stop,
	.end_run = sched_end_run,
	.close = sched_close,
};

/* ---- tracepoint fields: fed by the sampler, stored after the others ------ */

static int tp_end_run(void *ctx, struct profile *p, uint32_t run, struct run *r,
		      struct errmsg *e)
{
	tpstats__end_run(((struct recsession *)ctx)->tp, p, run);
	return 0;
}

static const struct runsrc_ops tp_ops = {
	.end_run = tp_end_run,
};

/* ---- the session --------------------------------------------------------- */

static void session_on_start(void *ctx, uint32_t run, int64_t start_real_ns)
{
	struct recsession *s = ctx;

	if (s->o.loop.on_start)
		s->o.loop.on_start(s->o.loop.ctx, run, start_real_ns);
	if (run == 0)
		sysinfo__add_start_time(s->p, start_real_ns);
}

/* The caller's other hooks, with the caller's ctx (the loop's is the session). */
static void session_on_progress(void *ctx, uint32_t run, int64_t elapsed_ns)
{
	struct recsession *s = ctx;

	s->o.loop.on_progress(s->o.loop.ctx, run, elapsed_ns);
}

static void session_on_output(void *ctx)
{
	struct recsession *s = ctx;

	s->o.loop.on_output(s->o.loop.ctx);
}

static void add_source(struct recsession *s, const struct runsrc_ops *ops, void *ctx,
		       int wait_ms)
{
	struct runsrc *src = &s->sources[s->loop.nr_sources++];

	src->ops = ops;
	src->ctx = ctx;
	src->wait_ms = wait_ms;
}

struct recsession *recsession__new(const struct recsession_opts *o, struct profile *p,
				   struct symbols *syms, struct errmsg *e)
{
	struct recsession *s = xcalloc(1, sizeof(*s));
	struct sampler_opts so = o->sampling;

	s->o = *o;
	s->p = p;
	s->syms = syms;
	if (so.events && so.events->nr) {
		static const struct strlist none;

		s->tp = tpstats__new(so.events, o->fields ? o->fields : &none, e);
		if (!s->tp) {
			if (!e->msg[0])
				errmsg__set(e, -EINVAL, "cannot set up tracepoints");
			goto fail;
		}
	}
	so.raw_hook = s->tp ? tpstats__hook : NULL;
	so.raw_ctx = s->tp;
	s->sampler = sampler__new(&so, syms, e);
	if (!s->sampler) {
		if (!e->msg[0])
			errmsg__set(e, -EINVAL, "cannot set up sampling");
		goto fail;
	}
	if (o->sched) {
		s->sched = schedrec__new(so.mmap_pages, e);
		if (!s->sched) {
			if (!e->msg[0])
				errmsg__set(e, -EINVAL, "cannot set up --sched");
			goto fail;
		}
		profile__set_meta(p, "sched", "1");
	}

	s->loop = o->loop;
	s->loop.sources = s->sources;
	s->loop.nr_sources = 0;
	s->loop.on_start = session_on_start;
	s->loop.on_progress = o->loop.on_progress ? session_on_progress : NULL;
	s->loop.on_output = o->loop.on_output ? session_on_output : NULL;
	s->loop.ctx = s;
	add_source(s, &sampling_ops, s, 0);
	if (s->sched)
		add_source(s, &sched_ops, s, SCHED_WAIT_MS);
	/*
	 * The perf-stat counters but the fault and switch counts, which come
	 * from the kernel's own accounting (taskcount.h): a software counter
	 * of page faults puts __perf_sw_event into every fault of the run.
	 */
	if (o->counting) {
		s->counting.intervals = o->loop.interval_ms > 0;
		s->counting.events = ((UINT64_C(1) << counting_nr_events) - 1) &
				     ~taskcount__counting_mask();
		add_source(s, &countrun_source_ops, &s->counting, 0);
		s->taskcount.intervals = o->loop.interval_ms > 0;
		add_source(s, &taskcount_source_ops, &s->taskcount, 0);
	}
	if (s->tp)
		add_source(s, &tp_ops, s, 0);
	return s;
fail:
	recsession__free(s);
	return NULL;
}

void recsession__free(struct recsession *s)
{
	if (!s)
		return;
	schedrec__free(s->sched);
	free(s->taskcount.pids);
	tpstats__free(s->tp);
	sampler__free(s->sampler);
	free(s);
}

int recsession__run(struct recsession *s, uint32_t run, struct runloop_result *res,
		    struct errmsg *e)
{
	int err = runloop__run(&s->loop, s->p, run, res, e);

	/* the events went in with the first open (a failed run ends the recording) */
	s->events_added = true;
	if (err)
		return err;
	s->totals.samples += res->run.samples;
	s->totals.lost += res->run.lost;
	s->totals.throttled += res->run.throttled;
	if (s->sampler)
		s->totals.stacks_cut = sampler__stacks_cut(s->sampler);
	s->totals.runs_before_delay += res->window_missed;
	return 0;
}

int recsession__take_chains(struct recsession *s, struct chaintake_stats *st, struct errmsg *e)
{
	int err;

	memset(st, 0, sizeof(*st));
	if (!s->sampler)
		return 0;
	err = sampler__take_chains(s->sampler, s->p, st);
	s->totals.stacks_cut = sampler__stacks_cut(s->sampler);
	if (err)
		return errmsg__set(e, err, "cannot write or read back the call chains sorted to a "
				   "temporary file in '%s': %s; the recording keeps its counts "
				   "without the stacks of %" PRIu64 " samples (meta chains_lost)",
				   s->o.sampling.spill_dir ? s->o.sampling.spill_dir : ".",
				   strerror(-err), sampler__chains_lost(s->sampler));
	return 0;
}

const struct sampler *recsession__sampler(const struct recsession *s)
{
	return s->sampler;
}

const struct recsession_totals *recsession__totals(const struct recsession *s)
{
	return &s->totals;
}

void recsession__progress(const struct recsession *s, uint64_t *samples, uint64_t *lost)
{
	uint64_t n = 0, l = 0;

	sampler__progress(s->sampler, &n, &l);
	*samples = s->totals.samples + n;
	*lost = s->totals.lost + l;
}

void recsession__finish(struct recsession *s, int stop_sig)
{
	char buf[1024];
	size_t i, n = 0, nr, kept = 0;

	if (s->events_added) {
		buf[0] = '\0';
		for (i = 0; i < s->p->nr_events && n < sizeof(buf); i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "",
					      profile__str(s->p, s->p->events[i].name));
		profile__set_meta(s->p, "events_used", buf);
	}
	snprintf(buf, sizeof(buf), "%zu", s->p->nr_runs);
	profile__set_meta(s->p, "nr_runs", buf);
	if (stop_sig)
		profile__set_meta(s->p, "interrupted", sigabbrev_np(stop_sig) ?
				  sigabbrev_np(stop_sig) : "signal");
	{
		/* dynamic kernel text seen: report can tell a gone BPF program from none */
		uint64_t reg, unreg, listed;

		symbols__ktext_counts(s->syms, &reg, &unreg, &listed);
		snprintf(buf, sizeof(buf), "%" PRIu64 " registered, %" PRIu64
			 " unregistered, %" PRIu64 " from program info", reg, unreg, listed);
		if (reg || unreg || listed)
			profile__set_meta(s->p, "symbols.kernel_text", buf);
	}
	/* why a sampled DSO may stay [unknown], for report --unresolved */
	nr = symbols__nr_dsos(s->syms);
	for (i = 0; i < nr && kept < 256; i++) {
		char key[512], hint[512];
		struct dso_info di;

		symbols__dso(s->syms, i, &di);
		if (!symbols__hint(&di, hint, sizeof(hint)))
			continue;
		snprintf(key, sizeof(key), "symbols.hint %s", di.name);
		profile__set_meta(s->p, key, hint);
		kept++;
	}
}
