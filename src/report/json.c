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

#include "mmprof/escape.h"
#include "mmprof/keys.h"
#include "mmprof/report.h"
#include "mmprof/xalloc.h"

#define JSON_REPORT_FORMAT 1

static void json_meta(const struct profile *p, struct outbuf *out)
{
	size_t i;

	outbuf__puts(out, "  \"meta\": {");
	for (i = 0; i < p->nr_meta; i++) {
		outbuf__puts(out, i ? ",\n    " : "\n    ");
		outbuf__json_str(out, profile__str(p, p->meta[i].key));
		outbuf__puts(out, ": ");
		outbuf__json_str(out, profile__str(p, p->meta[i].value));
	}
	outbuf__puts(out, p->nr_meta ? "\n  },\n" : "},\n");
}

static void json_events(const struct profile *p, struct outbuf *out)
{
	size_t i;

	outbuf__puts(out, "  \"events\": [");
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *e = &p->events[i];
		char lkp[256];

		keys__event_name(profile__str(p, e->name) ? profile__str(p, e->name) : "",
				 lkp, sizeof(lkp));
		outbuf__puts(out, i ? ",\n    {" : "\n    {");
		outbuf__puts(out, "\"name\": ");
		outbuf__json_str(out, profile__str(p, e->name));
		outbuf__puts(out, ", \"lkp_name\": ");
		outbuf__json_str(out, lkp);
		outbuf__puts(out, ", \"asked\": ");
		outbuf__json_str(out, profile__str(p, e->asked));
		outbuf__printf(out, ", \"type\": %u, \"config\": %llu, \"%s\": %llu}", e->type,
			(unsigned long long)e->config, e->freq ? "freq" : "period",
			(unsigned long long)e->sample);
	}
	outbuf__puts(out, p->nr_events ? "\n  ],\n" : "],\n");
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

static void json_runs(const struct profile *p, struct outbuf *out)
{
	size_t r, i, n, *cstart, *mstart;
	uint32_t *cidx, *midx;

	by_run(p->nr_runs, p->nr_counters, p->counters, sizeof(*p->counters),
	       offsetof(struct counter, run), &cstart, &cidx);
	by_run(p->nr_runs, p->nr_metrics, p->metrics, sizeof(*p->metrics),
	       offsetof(struct metric, run), &mstart, &midx);
	outbuf__puts(out, "  \"runs\": [");
	for (r = 0; r < p->nr_runs; r++) {
		const struct run *x = &p->runs[r];

		outbuf__puts(out, r ? ",\n    {" : "\n    {");
		outbuf__printf(out, "\"index\": %zu, \"start_ns\": %lld, \"wall_ns\": %lld, "
			"\"exit_code\": %d, \"term_signal\": %d,\n      \"rusage\": {"
			"\"utime_us\": %lld, \"stime_us\": %lld, \"maxrss_kb\": %lld, "
			"\"minflt\": %lld, \"majflt\": %lld, \"nvcsw\": %lld, \"nivcsw\": %lld},\n"
			"      \"samples\": %llu, \"lost\": %llu, \"throttled\": %llu,\n"
			"      \"counters\": [", r, (long long)x->start_ns, (long long)x->wall_ns,
			x->exit_code, x->term_signal, (long long)x->utime_us,
			(long long)x->stime_us, (long long)x->maxrss_kb, (long long)x->minflt,
			(long long)x->majflt, (long long)x->nvcsw, (long long)x->nivcsw,
			(unsigned long long)x->samples, (unsigned long long)x->lost,
			(unsigned long long)x->throttled);
		for (i = cstart[r], n = 0; i < cstart[r + 1]; i++) {
			const struct counter *c = &p->counters[cidx[i]];

			outbuf__puts(out, n++ ? ",\n        {" : "\n        {");
			outbuf__puts(out, "\"name\": ");
			outbuf__json_str(out, profile__str(p, c->name));
			outbuf__printf(out, ", \"supported\": %s", c->supported ? "true" : "false");
			if (c->supported) {
				outbuf__printf(out, ", \"value\": %llu, \"enabled_ns\": %llu, "
					"\"running_ns\": %llu, \"scaled\": ",
					(unsigned long long)c->value, (unsigned long long)c->enabled,
					(unsigned long long)c->running);
				outbuf__json_num(out, counter__scaled(c), 17);
			}
			outbuf__putc(out, '}');
		}
		outbuf__puts(out, n ? "\n      ],\n      \"metrics\": {" : "],\n      \"metrics\": {");
		for (i = mstart[r], n = 0; i < mstart[r + 1]; i++) {
			const struct metric *m = &p->metrics[midx[i]];

			outbuf__puts(out, n++ ? ", " : "");
			outbuf__json_str(out, profile__str(p, m->key));
			outbuf__puts(out, ": ");
			outbuf__json_num(out, m->value, 17);
		}
		outbuf__puts(out, "}}");
	}
	outbuf__puts(out, p->nr_runs ? "\n  ],\n" : "],\n");
	free(cstart);
	free(cidx);
	free(mstart);
	free(midx);
}

static void json_keys(const struct keytab *kt, struct outbuf *out)
{
	size_t k, r;

	outbuf__puts(out, "  \"keys\": {");
	for (k = 0; k < kt->nr; k++) {
		outbuf__puts(out, k ? ",\n    " : "\n    ");
		outbuf__json_str(out, kt->keys[k]);
		outbuf__puts(out, ": {\"mean\": ");
		outbuf__json_num(out, keytab__mean(kt, k), 17);
		outbuf__puts(out, ", \"stddev\": ");
		outbuf__json_num(out, keytab__stddev(kt, k), 17);
		outbuf__puts(out, ", \"runs\": [");
		for (r = 0; r < kt->nr_runs; r++) {
			if (r)
				outbuf__puts(out, ", ");
			outbuf__json_num(out, keytab__val(kt, k, r), 17);
		}
		outbuf__puts(out, "]}");
	}
	outbuf__puts(out, kt->nr ? "\n  }" : "}");
}

/*
 * Entries of each event: children and self % summed over runs, as --tree
 * without graph (every sample counted, unresolved as "[unknown]" per DSO;
 * the keys above stay on -U), with the unresolved samples of the event.
 */
static void json_tree(const struct profile *p, double limit, struct outbuf *out)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true,
				   .max_stack = REPORT_MAX_STACK };
	struct symview v;
	double *w, *children, *self;
	size_t e, i, n;

	symview__init_opts(&v, p, &so);
	w = xmalloc(v.nr_nodes * sizeof(*w));
	children = xmalloc((v.nr_entries + 1) * sizeof(*children));
	self = xmalloc((v.nr_entries + 1) * sizeof(*self));
	outbuf__puts(out, ",\n  \"tree\": [");
	for (e = 0; e < p->nr_events; e++) {
		double total = symview__weights(&v, SYMVIEW_ALL_RUNS, (uint32_t)e, true, w);

		symview__cumulate(&v, w, NULL, NULL, children, self);
		outbuf__puts(out, e ? ",\n    {\"event\": " : "\n    {\"event\": ");
		outbuf__json_str(out, profile__str(p, p->events[e].name));
		uint64_t all, unnamed = report__unnamed(p, (int)e, &all);

		outbuf__printf(out, ", \"total_period\": %llu",
			       (unsigned long long)symview__total(&v, SYMVIEW_ALL_RUNS, (uint32_t)e, true));
		outbuf__printf(out, ", \"samples\": %llu, \"unresolved_samples\": %llu, "
			       "\"unresolved_counted\": true", (unsigned long long)all,
			       (unsigned long long)unnamed);
		outbuf__puts(out, ", \"entries\": [");
		for (i = 0, n = 0; total > 0 && i < v.nr_entries; i++) {
			if (children[i] <= 0 || 100.0 * children[i] / total < limit)
				continue;
			outbuf__puts(out, n++ ? ",\n      {" : "\n      {");
			outbuf__puts(out, "\"symbol\": ");
			outbuf__json_str(out, symview__entry_name(&v, (uint32_t)i));
			outbuf__puts(out, ", \"dso\": ");
			outbuf__json_str(out, symview__entry_dso(&v, (uint32_t)i));
			outbuf__printf(out, ", \"kernel\": %s, \"children\": ",
				v.entries[i].kernel ? "true" : "false");
			outbuf__json_num(out, 100.0 * children[i] / total, 17);
			outbuf__puts(out, ", \"self\": ");
			outbuf__json_num(out, 100.0 * self[i] / total, 17);
			outbuf__putc(out, '}');
		}
		outbuf__puts(out, n ? "\n    ]}" : "]}");
	}
	outbuf__puts(out, p->nr_events ? "\n  ]" : "]");
	free(w);
	free(children);
	free(self);
	symview__release(&v);
}

int report__json(const struct profile *p, const struct json_opts *o, struct outbuf *out,
		 struct errmsg *e)
{
	struct keytab kt;
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
	outbuf__printf(out, "{\n  \"format\": %d,\n", JSON_REPORT_FORMAT);
	json_meta(p, out);
	json_events(p, out);
	json_runs(p, out);
	json_keys(&kt, out);
	if (o->tree)
		json_tree(p, o->percent_limit, out);
	outbuf__puts(out, "\n}\n");
	keytab__release(&kt);
	return 0;
}
