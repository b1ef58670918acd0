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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/escape.h"
#include "mmprof/keys.h"
#include "mmprof/report.h"
#include "mmprof/xalloc.h"

#define JSON_REPORT_FORMAT 1

static void json_num(FILE *out, double x)
{
	if (isfinite(x))
		fprintf(out, "%.17g", x);
	else
		fputs("null", out);
}

static void json_meta(const struct profile *p, FILE *out)
{
	size_t i;

	fputs("  \"meta\": {", out);
	for (i = 0; i < p->nr_meta; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json__fputs(out, profile__str(p, p->meta[i].key));
		fputs(": ", out);
		json__fputs(out, profile__str(p, p->meta[i].value));
	}
	fputs(p->nr_meta ? "\n  },\n" : "},\n", out);
}

static void json_events(const struct profile *p, FILE *out)
{
	size_t i;

	fputs("  \"events\": [", out);
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *e = &p->events[i];
		char lkp[256];

		keys__event_name(profile__str(p, e->name) ? profile__str(p, e->name) : "",
				 lkp, sizeof(lkp));
		fputs(i ? ",\n    {" : "\n    {", out);
		fputs("\"name\": ", out);
		json__fputs(out, profile__str(p, e->name));
		fputs(", \"lkp_name\": ", out);
		json__fputs(out, lkp);
		fputs(", \"asked\": ", out);
		json__fputs(out, profile__str(p, e->asked));
		fprintf(out, ", \"type\": %u, \"config\": %llu, \"%s\": %llu}", e->type,
			(unsigned long long)e->config, e->freq ? "freq" : "period",
			(unsigned long long)e->sample);
	}
	fputs(p->nr_events ? "\n  ],\n" : "],\n", out);
}

static void json_runs(const struct profile *p, FILE *out)
{
	size_t r, i, n;

	fputs("  \"runs\": [", out);
	for (r = 0; r < p->nr_runs; r++) {
		const struct run *x = &p->runs[r];

		fputs(r ? ",\n    {" : "\n    {", out);
		fprintf(out, "\"index\": %zu, \"start_ns\": %lld, \"wall_ns\": %lld, "
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
		for (i = 0, n = 0; i < p->nr_counters; i++) {
			const struct counter *c = &p->counters[i];

			if (c->run != r)
				continue;
			fputs(n++ ? ",\n        {" : "\n        {", out);
			fputs("\"name\": ", out);
			json__fputs(out, profile__str(p, c->name));
			fprintf(out, ", \"supported\": %s", c->supported ? "true" : "false");
			if (c->supported) {
				fprintf(out, ", \"value\": %llu, \"enabled_ns\": %llu, "
					"\"running_ns\": %llu, \"scaled\": ",
					(unsigned long long)c->value, (unsigned long long)c->enabled,
					(unsigned long long)c->running);
				json_num(out, counter__scaled(c));
			}
			fputc('}', out);
		}
		fputs(n ? "\n      ],\n      \"metrics\": {" : "],\n      \"metrics\": {", out);
		for (i = 0, n = 0; i < p->nr_metrics; i++) {
			if (p->metrics[i].run != r)
				continue;
			fputs(n++ ? ", " : "", out);
			json__fputs(out, profile__str(p, p->metrics[i].key));
			fputs(": ", out);
			json_num(out, p->metrics[i].value);
		}
		fputs("}}", out);
	}
	fputs(p->nr_runs ? "\n  ],\n" : "],\n", out);
}

static void json_keys(const struct keytab *kt, FILE *out)
{
	size_t k, r;

	fputs("  \"keys\": {", out);
	for (k = 0; k < kt->nr; k++) {
		fputs(k ? ",\n    " : "\n    ", out);
		json__fputs(out, kt->keys[k]);
		fputs(": {\"mean\": ", out);
		json_num(out, keytab__mean(kt, k));
		fputs(", \"stddev\": ", out);
		json_num(out, keytab__stddev(kt, k));
		fputs(", \"runs\": [", out);
		for (r = 0; r < kt->nr_runs; r++) {
			if (r)
				fputs(", ", out);
			json_num(out, kt->vals[k * kt->nr_runs + r]);
		}
		fputs("]}", out);
	}
	fputs(kt->nr ? "\n  }" : "}", out);
}

/* Entries of each event: children and self % summed over runs, as --tree without graph. */
static void json_tree(const struct profile *p, double limit, FILE *out)
{
	struct symview v;
	double *w, *children, *self;
	size_t e, i, n;

	symview__init(&v, p, false);
	w = xmalloc(v.nr_nodes * sizeof(*w));
	children = xmalloc((v.nr_entries + 1) * sizeof(*children));
	self = xmalloc((v.nr_entries + 1) * sizeof(*self));
	fputs(",\n  \"tree\": [", out);
	for (e = 0; e < p->nr_events; e++) {
		double total = symview__weights(&v, SYMVIEW_ALL_RUNS, (uint32_t)e, true, w);

		symview__cumulate(&v, w, NULL, NULL, children, self);
		fputs(e ? ",\n    {\"event\": " : "\n    {\"event\": ", out);
		json__fputs(out, profile__str(p, p->events[e].name));
		fputs(", \"total_period\": ", out);
		json_num(out, total);
		fputs(", \"entries\": [", out);
		for (i = 0, n = 0; total > 0 && i < v.nr_entries; i++) {
			if (children[i] <= 0 || 100.0 * children[i] / total < limit)
				continue;
			fputs(n++ ? ",\n      {" : "\n      {", out);
			fputs("\"symbol\": ", out);
			json__fputs(out, symview__entry_name(&v, (uint32_t)i));
			fputs(", \"dso\": ", out);
			json__fputs(out, symview__entry_dso(&v, (uint32_t)i));
			fprintf(out, ", \"kernel\": %s, \"children\": ",
				v.entries[i].kernel ? "true" : "false");
			json_num(out, 100.0 * children[i] / total);
			fputs(", \"self\": ", out);
			json_num(out, 100.0 * self[i] / total);
			fputc('}', out);
		}
		fputs(n ? "\n    ]}" : "]}", out);
	}
	fputs(p->nr_events ? "\n  ]" : "]", out);
	free(w);
	free(children);
	free(self);
	symview__release(&v);
}

int report__json(const struct profile *p, const struct json_opts *o, FILE *out)
{
	struct keytab kt;
	int err = keytab__build(&kt, p);

	if (err)
		return err;
	keytab__sort(&kt);
	fprintf(out, "{\n  \"format\": %d,\n", JSON_REPORT_FORMAT);
	json_meta(p, out);
	json_events(p, out);
	json_runs(p, out);
	json_keys(&kt, out);
	if (o->tree)
		json_tree(p, o->percent_limit, out);
	fputs("\n}\n", out);
	keytab__release(&kt);
	return 0;
}
