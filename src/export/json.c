/*
 * json: `mmprof export --format json`, the format of
 * Documentation/export-json.md (which is normative; keep them in step).
 *
 * Unlike `report --json` (the robot's keys), this is the profile itself:
 * frames, stacks as root-first arrays of frame ids, and counts per
 * (run, event, comm, stack), so that another tool can redraw a flame graph
 * or rebuild any total without knowing the .data schema.  Stacks are only
 * the trie nodes some count refers to, numbered in trie order.  Addresses
 * are hex strings (JSON numbers lose bits above 2^53 in most readers);
 * counts are integers.  Strings that are not valid UTF-8 (symbols from a
 * foreign file) have each bad byte replaced by U+FFFD so that the output
 * is always valid JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/export.h"
#include "mmprof/jsonw.h"
#include "mmprof/xalloc.h"

/* s, or null when the profile has no string there */
static void jstr(struct jsonw *w, const char *key, const char *s)
{
	if (s)
		jsonw__str(w, key, s);
	else
		jsonw__null(w, key);
}

static void meta(const struct profile *p, struct jsonw *w)
{
	size_t i;

	jsonw__object(w, "meta", JSONW_LINES);
	for (i = 0; i < p->nr_meta; i++)
		jstr(w, profile__str(p, p->meta[i].key) ? profile__str(p, p->meta[i].key) : "",
		     profile__str(p, p->meta[i].value));
	jsonw__end(w);
}

static void events(const struct profile *p, struct jsonw *w)
{
	size_t i;

	jsonw__array(w, "events", JSONW_LINES);
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *ev = &p->events[i];

		jsonw__object(w, NULL, JSONW_INLINE);
		jstr(w, "name", profile__str(p, ev->name));
		jstr(w, "asked", profile__str(p, ev->asked));
		jsonw__uint(w, "type", ev->type);
		jsonw__uint(w, "config", ev->config);
		jsonw__bool(w, "freq", ev->freq);
		jsonw__uint(w, "sample", ev->sample);
		jstr(w, "period_unit", export__period_unit(profile__str(p, ev->name)));
		jsonw__end(w);
	}
	jsonw__end(w);
}

static void runs(const struct profile *p, struct jsonw *w)
{
	size_t r, i;

	jsonw__array(w, "runs", JSONW_LINES);
	for (r = 0; r < p->nr_runs; r++) {
		const struct run *x = &p->runs[r];

		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__int(w, "start_ns", x->start_ns);
		jsonw__int(w, "wall_ns", x->wall_ns);
		jsonw__int(w, "exit_code", x->exit_code);
		jsonw__int(w, "term_signal", x->term_signal);
		run__json_rusage(w, x);
		jsonw__uint(w, "samples", x->samples);
		jsonw__uint(w, "lost", x->lost);
		jsonw__uint(w, "throttled", x->throttled);
		/* export-json.md's layout: one space past the run's brace */
		jsonw__break(w, 1);
		jsonw__array(w, "counters", JSONW_INLINE);
		for (i = 0; i < p->nr_counters; i++) {
			const struct counter *c = &p->counters[i];

			if (c->run != r)
				continue;
			jsonw__object(w, NULL, JSONW_INLINE);
			jstr(w, "name", profile__str(p, c->name));
			jsonw__bool(w, "supported", c->supported);
			jsonw__uint(w, "value", c->value);
			jsonw__uint(w, "enabled_ns", c->enabled);
			jsonw__uint(w, "running_ns", c->running);
			jsonw__end(w);
		}
		jsonw__end(w);
		jsonw__break(w, 1);
		jsonw__object(w, "metrics", JSONW_INLINE);
		for (i = 0; i < p->nr_metrics; i++)
			if (p->metrics[i].run == r)
				jsonw__num(w, profile__str(p, p->metrics[i].key) ?
					   profile__str(p, p->metrics[i].key) : "", p->metrics[i].value, 17);
		jsonw__end(w);
		jsonw__end(w);
	}
	jsonw__end(w);
}

static void frames(const struct profile *p, struct jsonw *w)
{
	size_t i;

	jsonw__array(w, "frames", JSONW_LINES);
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];
		char addr[32];

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->addr);
		jsonw__object(w, NULL, JSONW_INLINE);
		jstr(w, "sym", profile__str(p, f->sym));
		jstr(w, "dso", profile__str(p, f->dso));
		jsonw__str(w, "addr", addr);
		jsonw__uint(w, "sym_off", f->sym_off);
		jsonw__bool(w, "kernel", f->kernel);
		jsonw__end(w);
	}
	jsonw__end(w);
}

int export__json(const struct profile *p, struct outbuf *out, struct errmsg *e)
{
	uint32_t *stack_of = xcalloc(p->nr_nodes + 1, sizeof(*stack_of));	/* node -> stack id + 1 */
	uint32_t *path;
	uint32_t nr_stacks = 0;
	uint64_t written = 0;	/* frames, in the stacks */
	struct jsonw w;
	size_t i, j, n;

	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].node < p->nr_nodes)
			stack_of[p->counts[i].node] = 1;
	for (i = 0; i < p->nr_nodes; i++)
		written += stack_of[i] ? p->nodes[i].depth : 0;	/* the frames of its stack */
	if (export__check_frames(written, e)) {
		free(stack_of);
		return -E2BIG;
	}
	path = xmalloc((p->nr_nodes + 1) * sizeof(*path));

	jsonw__init(&w, out);
	jsonw__object(&w, NULL, JSONW_LINES);
	jsonw__str(&w, "format", "mmprof-export");
	jsonw__int(&w, "version", EXPORT_JSON_VERSION);
	meta(p, &w);
	events(p, &w);
	runs(p, &w);
	frames(p, &w);

	/* stacks: every node a count refers to (marked above), numbered in
	 * trie order (a node's id grows with its position in the trie, so
	 * the output is the same for the same profile) */
	jsonw__array(&w, "stacks", JSONW_LINES);
	for (i = 0; i < p->nr_nodes; i++) {
		uint32_t q;

		if (!stack_of[i])
			continue;
		stack_of[i] = ++nr_stacks;
		for (n = 0, q = (uint32_t)i; q && n <= p->nr_nodes; q = p->nodes[q].parent)
			path[n++] = p->nodes[q].frame;
		jsonw__array(&w, NULL, JSONW_INLINE);
		for (j = n; j-- > 0;)
			jsonw__uint(&w, NULL, path[j]);
		jsonw__end(&w);
	}
	jsonw__end(&w);

	jsonw__array(&w, "counts", JSONW_LINES);
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->node >= p->nr_nodes)
			continue;
		jsonw__object(&w, NULL, JSONW_INLINE);
		jsonw__uint(&w, "run", c->run);
		jsonw__uint(&w, "event", c->event);
		jstr(&w, "comm", profile__str(p, c->comm));
		jsonw__uint(&w, "pid", c->pid);
		jsonw__uint(&w, "stack", stack_of[c->node] - 1);
		jsonw__uint(&w, "samples", c->samples);
		jsonw__uint(&w, "period", c->period);
		jsonw__end(&w);
	}
	jsonw__end(&w);
	jsonw__end(&w);
	outbuf__putc(out, '\n');
	free(stack_of);
	free(path);
	return outbuf__flush(out) ? errmsg__set(e, -EIO, "cannot write the export") : 0;
}
