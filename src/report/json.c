/*
 * json: `mmprof report --json`, the whole report for programs.
 *
 * One object, documented in man/mmprof-report.1:
 *   {"format": 1, "meta": {...}, "events": [...], "runs": [...],
 *    "keys": {"<key>": {"mean": m, "stddev": s, "runs": [v0, v1, ...]}, ...},
 *    "tree": [...]}                                   (with --tree)
 * Keys are all of them (no 0.05 floor: programs apply their own), sorted as
 * the text report.  Non-finite numbers are written as null.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/jsonw.h"
#include "mmprof/keys.h"
#include "mmprof/report.h"
#include "mmprof/xalloc.h"

#define JSON_REPORT_FORMAT 1

static void json_meta(const struct profile *p, struct jsonw *w)
{
	size_t i;

	jsonw__object(w, "meta", JSONW_LINES);
	for (i = 0; i < p->nr_meta; i++)
		jsonw__str(w, profile__str(p, p->meta[i].key), profile__str(p, p->meta[i].value));
	jsonw__end(w);
}

static void json_events(const struct profile *p, struct jsonw *w)
{
	size_t i;

	jsonw__array(w, "events", JSONW_LINES);
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *e = &p->events[i];
		char lkp[256];

		keys__event_name(profile__str(p, e->name) ? profile__str(p, e->name) : "",
				 lkp, sizeof(lkp));
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "name", profile__str(p, e->name));
		jsonw__str(w, "lkp_name", lkp);
		jsonw__str(w, "asked", profile__str(p, e->asked));
		jsonw__uint(w, "type", e->type);
		jsonw__uint(w, "config", e->config);
		jsonw__uint(w, e->freq ? "freq" : "period", e->sample);
		jsonw__end(w);
	}
	jsonw__end(w);
}

/*
 * Rows of a per-run table grouped by run, in file order within a run (a
 * stable counting sort): start[r] .. start[r + 1] index idx.  Each run
 * then reads its own rows, not all of them (runs x rows with 10,000 runs).
 */
static void by_run(size_t nr_runs, size_t nr, const void *rows, size_t size, size_t run_off,
		   size_t **start, uint32_t **idx)
{
	size_t i, r;

	*start = xcalloc(nr_runs + 2, sizeof(**start));
	*idx = xmalloc((nr + 1) * sizeof(**idx));
	for (i = 0; i < nr; i++) {
		uint32_t run;

		memcpy(&run, (const char *)rows + i * size + run_off, sizeof(run));
		if (run < nr_runs)
			(*start)[run + 2]++;
	}
	for (r = 0; r < nr_runs; r++)
		(*start)[r + 2] += (*start)[r + 1];
	for (i = 0; i < nr; i++) {
		uint32_t run;

		memcpy(&run, (const char *)rows + i * size + run_off, sizeof(run));
		if (run < nr_runs)
			(*idx)[(*start)[run + 1]++] = (uint32_t)i;
	}
}

static void json_runs(const struct profile *p, struct jsonw *w)
{
	size_t r, i, *cstart, *mstart;
	uint32_t *cidx, *midx;

	by_run(p->nr_runs, p->nr_counters, p->counters, sizeof(*p->counters),
	       offsetof(struct counter, run), &cstart, &cidx);
	by_run(p->nr_runs, p->nr_metrics, p->metrics, sizeof(*p->metrics),
	       offsetof(struct metric, run), &mstart, &midx);
	jsonw__array(w, "runs", JSONW_LINES);
	for (r = 0; r < p->nr_runs; r++) {
		const struct run *x = &p->runs[r];

		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__uint(w, "index", r);
		jsonw__int(w, "start_ns", x->start_ns);
		jsonw__int(w, "wall_ns", x->wall_ns);
		jsonw__int(w, "exit_code", x->exit_code);
		jsonw__int(w, "term_signal", x->term_signal);
		jsonw__break(w, 2);
		jsonw__object(w, "rusage", JSONW_INLINE);
		run__json_rusage(w, x);
		jsonw__end(w);
		jsonw__break(w, 2);
		jsonw__uint(w, "samples", x->samples);
		jsonw__uint(w, "lost", x->lost);
		jsonw__uint(w, "throttled", x->throttled);
		jsonw__break(w, 2);
		jsonw__array(w, "counters", JSONW_LINES);
		for (i = cstart[r]; i < cstart[r + 1]; i++) {
			const struct counter *c = &p->counters[cidx[i]];

			jsonw__object(w, NULL, JSONW_INLINE);
			jsonw__str(w, "name", profile__str(p, c->name));
			jsonw__bool(w, "supported", c->supported);
			if (c->supported) {
				jsonw__uint(w, "value", c->value);
				jsonw__uint(w, "enabled_ns", c->enabled);
				jsonw__uint(w, "running_ns", c->running);
				jsonw__num(w, "scaled", counter__scaled(c), 17);
			}
			jsonw__end(w);
		}
		jsonw__end(w);
		jsonw__break(w, 2);
		jsonw__object(w, "metrics", JSONW_INLINE);
		for (i = mstart[r]; i < mstart[r + 1]; i++) {
			const struct metric *m = &p->metrics[midx[i]];

			jsonw__num(w, profile__str(p, m->key), m->value, 17);
		}
		jsonw__end(w);
		jsonw__end(w);
	}
	jsonw__end(w);
	free(cstart);
	free(cidx);
	free(mstart);
	free(midx);
}

static void json_keys(const struct keytab *kt, struct jsonw *w)
{
	size_t k, r;

	jsonw__object(w, "keys", JSONW_LINES);
	for (k = 0; k < kt->nr; k++) {
		jsonw__object(w, kt->keys[k], JSONW_INLINE);
		jsonw__num(w, "mean", keytab__mean(kt, k), 17);
		jsonw__num(w, "stddev", keytab__stddev(kt, k), 17);
		jsonw__array(w, "runs", JSONW_INLINE);
		for (r = 0; r < kt->nr_runs; r++)
			jsonw__num(w, NULL, keytab__val(kt, k, r), 17);
		jsonw__end(w);
		jsonw__end(w);
	}
	jsonw__end(w);
}

/*
 * Entries of each event: children and self % summed over runs, as --tree
 * without graph (every sample counted, unresolved as "[unknown]" per DSO;
 * the keys above stay on -U), with the unresolved samples of the event.
 */
static void json_tree(const struct profile *p, double limit, struct jsonw *jw)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true,
				   .max_stack = REPORT_MAX_STACK };
	struct symview v;
	double *w, *children, *self;
	size_t e, i;

	symview__init_opts(&v, p, &so);
	w = xmalloc(v.nr_nodes * sizeof(*w));
	children = xmalloc((v.nr_entries + 1) * sizeof(*children));
	self = xmalloc((v.nr_entries + 1) * sizeof(*self));
	jsonw__array(jw, "tree", JSONW_LINES);
	for (e = 0; e < p->nr_events; e++) {
		double total = p->whole ? report__whole_entries(&v, (uint32_t)e, children, self, NULL) :
				symview__weights(&v, SYMVIEW_ALL_RUNS, (uint32_t)e, true, w);

		if (!p->whole)
			symview__cumulate(&v, w, NULL, NULL, children, self);
		jsonw__object(jw, NULL, JSONW_INLINE);
		jsonw__str(jw, "event", profile__str(p, p->events[e].name));
		uint64_t all, unnamed = report__unnamed(p, (int)e, &all);

		jsonw__uint(jw, "total_period", symview__total(&v, SYMVIEW_ALL_RUNS, (uint32_t)e, true));
		jsonw__uint(jw, "samples", all);
		jsonw__uint(jw, "unresolved_samples", unnamed);
		jsonw__bool(jw, "unresolved_counted", true);
		jsonw__array(jw, "entries", JSONW_LINES);
		for (i = 0; total > 0 && i < v.nr_entries; i++) {
			if (children[i] <= 0 || 100.0 * children[i] / total < limit)
				continue;
			jsonw__object(jw, NULL, JSONW_INLINE);
			jsonw__str(jw, "symbol", symview__entry_name(&v, (uint32_t)i));
			jsonw__str(jw, "dso", symview__entry_dso(&v, (uint32_t)i));
			jsonw__bool(jw, "kernel", v.entries[i].kernel);
			jsonw__num(jw, "children", 100.0 * children[i] / total, 17);
			jsonw__num(jw, "self", 100.0 * self[i] / total, 17);
			jsonw__end(jw);
		}
		jsonw__end(jw);
		jsonw__end(jw);
	}
	jsonw__end(jw);
	free(w);
	free(children);
	free(self);
	symview__release(&v);
}

int report__json(const struct profile *p, const struct json_opts *o, struct outbuf *out,
		 struct errmsg *e)
{
	struct keytab kt;
	struct jsonw w;
	int err = keytab__build(&kt, p);

	/*
	 * --tree's entries need no count of their own: each event's are its
	 * functions with a share, which the keys count (KEYS_MAX_KEYS), and
	 * the unresolved ones of each DSO.
	 */
	if (err == -E2BIG)
		return keytab__too_many_keys(e);
	if (err)
		return err;
	/* every key with every run's value: checked before a byte is written */
	err = keytab__check_values(&kt, kt.nr, "report --json prints",
				   "report --keys prints their means, export -f json the profile", e);
	if (err) {
		keytab__release(&kt);
		return err;
	}
	keytab__sort(&kt);
	jsonw__init(&w, out);
	jsonw__object(&w, NULL, JSONW_LINES);
	jsonw__int(&w, "format", JSON_REPORT_FORMAT);
	json_meta(p, &w);
	json_events(p, &w);
	json_runs(p, &w);
	json_keys(&kt, &w);
	if (o->tree)
		json_tree(p, o->percent_limit, &w);
	jsonw__end(&w);
	outbuf__putc(out, '\n');
	keytab__release(&kt);
	return 0;
}
