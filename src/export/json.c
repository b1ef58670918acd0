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
 *
 * A profile whose trie holds some chains only in part (chainsrc.h) has
 * its whole chains written as stacks of their own after the trie's, in
 * the stream's order, with their cells as counts, in place of the trie's
 * stacks and counts under "[elided]" nodes (wholestack.h): the stacks a
 * reader rebuilds are the recorded ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/export.h"
#include "mmprof/jsonw.h"
#include "mmprof/wholestack.h"
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

/* A walk of p->whole: its frames counted, then its stacks, then its counts. */
struct jwhole {
	const struct profile *p;
	struct jsonw *w;
	uint64_t frames, stack;	/* stack: the next chain's stack id */
};

static int whole_count(void *ctx, const struct chain_rec *c)
{
	struct jwhole *j = ctx;
	int err = wholestack__check(j->p, c);

	j->frames += c->nr;
	return err;
}

static int whole_stack(void *ctx, const struct chain_rec *c)
{
	struct jwhole *j = ctx;
	uint32_t i;

	jsonw__array(j->w, NULL, JSONW_INLINE);
	for (i = 0; i < c->nr; i++)
		jsonw__uint(j->w, NULL, c->frames[i]);
	jsonw__end(j->w);
	return 0;
}

static void count_row(struct jsonw *w, const struct profile *p, uint32_t run, uint32_t event,
		      uint32_t comm, uint32_t pid, uint64_t stack, uint64_t samples, uint64_t period)
{
	jsonw__object(w, NULL, JSONW_INLINE);
	jsonw__uint(w, "run", run);
	jsonw__uint(w, "event", event);
	jstr(w, "comm", profile__str(p, comm));
	jsonw__uint(w, "pid", pid);
	jsonw__uint(w, "stack", stack);
	jsonw__uint(w, "samples", samples);
	jsonw__uint(w, "period", period);
	jsonw__end(w);
}

static int whole_counts(void *ctx, const struct chain_rec *c)
{
	struct jwhole *j = ctx;
	uint32_t i;

	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *x = &c->cells[i];

		count_row(j->w, j->p, x->run, x->event, x->comm, x->pid, j->stack, x->samples, x->period);
	}
	j->stack++;
	return 0;
}

/* 0, or the walk's error said in e */
static int whole_walk(struct jwhole *j, chain_fn fn, struct errmsg *e)
{
	int err = chainsrc__each(j->p->whole, fn, j);

	return err ? errmsg__set(e, err < 0 ? err : -EIO, "cannot read the profile's whole chains: %s",
				 strerror(err < 0 ? -err : EIO)) : 0;
}

int export__json(const struct profile *p, struct outbuf *out, struct errmsg *e)
{
	uint32_t *stack_of = xcalloc(p->nr_nodes + 1, sizeof(*stack_of));	/* node -> stack id + 1 */
	uint8_t *elided = profile__elided_nodes(p);	/* NULL: no whole chains */
	struct jwhole whole = { .p = p };
	uint32_t *path;
	uint32_t nr_stacks = 0;
	uint64_t written = 0;	/* frames, in the stacks */
	struct jsonw w;
	size_t i, j, n;
	int err;

	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].node < p->nr_nodes && !(elided && elided[p->counts[i].node]))
			stack_of[p->counts[i].node] = 1;
	for (i = 0; i < p->nr_nodes; i++)
		written += stack_of[i] ? p->nodes[i].depth : 0;	/* the frames of its stack */
	err = elided ? whole_walk(&whole, whole_count, e) : 0;
	if (err || export__check_frames(written + whole.frames, e)) {
		free(elided);
		free(stack_of);
		return err ? err : -E2BIG;
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
	/* then the whole chains, numbered on in their order */
	whole.w = &w;
	if (elided)
		err = whole_walk(&whole, whole_stack, e);
	jsonw__end(&w);

	jsonw__array(&w, "counts", JSONW_LINES);
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->node >= p->nr_nodes || (elided && elided[c->node]))
			continue;
		count_row(&w, p, c->run, c->event, c->comm, c->pid, stack_of[c->node] - 1, c->samples,
			  c->period);
	}
	whole.stack = nr_stacks;
	if (elided && !err)
		err = whole_walk(&whole, whole_counts, e);
	jsonw__end(&w);
	jsonw__end(&w);
	outbuf__putc(out, '\n');
	free(elided);
	free(stack_of);
	free(path);
	if (outbuf__flush(out))
		return errmsg__set(e, -EIO, "cannot write the export");
	return err;
}
