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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/escape.h"
#include "mmprof/export.h"
#include "mmprof/xalloc.h"

static void jstr(struct outbuf *out, const char *s)
{
	if (s)
		outbuf__json_str(out, s);
	else
		outbuf__puts(out, "null");
}

static void jnum(struct outbuf *out, double v)
{
	if (isfinite(v))
		outbuf__printf(out, "%.17g", v);
	else
		outbuf__puts(out, "null");
}

static void meta(const struct profile *p, struct outbuf *out)
{
	size_t i;

	outbuf__puts(out, "  \"meta\": {");
	for (i = 0; i < p->nr_meta; i++) {
		outbuf__puts(out, i ? ",\n    " : "\n    ");
		jstr(out, profile__str(p, p->meta[i].key) ? profile__str(p, p->meta[i].key) : "");
		outbuf__puts(out, ": ");
		jstr(out, profile__str(p, p->meta[i].value));
	}
	outbuf__puts(out, p->nr_meta ? "\n  },\n" : "},\n");
}

static void events(const struct profile *p, struct outbuf *out)
{
	size_t i;

	outbuf__puts(out, "  \"events\": [");
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *ev = &p->events[i];

		outbuf__puts(out, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		jstr(out, profile__str(p, ev->name));
		outbuf__puts(out, ", \"asked\": ");
		jstr(out, profile__str(p, ev->asked));
		outbuf__printf(out, ", \"type\": %u, \"config\": %llu, \"freq\": %s, \"sample\": %llu, "
			"\"period_unit\": ", ev->type, (unsigned long long)ev->config,
			ev->freq ? "true" : "false", (unsigned long long)ev->sample);
		jstr(out, export__period_unit(profile__str(p, ev->name)));
		outbuf__putc(out, '}');
	}
	outbuf__puts(out, p->nr_events ? "\n  ],\n" : "],\n");
}

static void runs(const struct profile *p, struct outbuf *out)
{
	size_t r, i, n;

	outbuf__puts(out, "  \"runs\": [");
	for (r = 0; r < p->nr_runs; r++) {
		const struct run *x = &p->runs[r];

		outbuf__printf(out, "%s{\"start_ns\": %lld, \"wall_ns\": %lld, \"exit_code\": %d, "
			"\"term_signal\": %d, \"utime_us\": %lld, \"stime_us\": %lld, "
			"\"maxrss_kb\": %lld, \"minflt\": %lld, \"majflt\": %lld, \"nvcsw\": %lld, "
			"\"nivcsw\": %lld, \"samples\": %llu, \"lost\": %llu, \"throttled\": %llu,\n"
			"     \"counters\": [", r ? ",\n    " : "\n    ",
			(long long)x->start_ns, (long long)x->wall_ns, x->exit_code, x->term_signal,
			(long long)x->utime_us, (long long)x->stime_us, (long long)x->maxrss_kb,
			(long long)x->minflt, (long long)x->majflt, (long long)x->nvcsw,
			(long long)x->nivcsw, (unsigned long long)x->samples,
			(unsigned long long)x->lost, (unsigned long long)x->throttled);
		for (i = 0, n = 0; i < p->nr_counters; i++) {
			const struct counter *c = &p->counters[i];

			if (c->run != r)
				continue;
			outbuf__puts(out, n++ ? ", {\"name\": " : "{\"name\": ");
			jstr(out, profile__str(p, c->name));
			outbuf__printf(out, ", \"supported\": %s, \"value\": %llu, \"enabled_ns\": %llu, "
				"\"running_ns\": %llu}", c->supported ? "true" : "false",
				(unsigned long long)c->value, (unsigned long long)c->enabled,
				(unsigned long long)c->running);
		}
		outbuf__puts(out, "],\n     \"metrics\": {");
		for (i = 0, n = 0; i < p->nr_metrics; i++) {
			if (p->metrics[i].run != r)
				continue;
			outbuf__puts(out, n++ ? ", " : "");
			jstr(out, profile__str(p, p->metrics[i].key) ? profile__str(p, p->metrics[i].key) : "");
			outbuf__puts(out, ": ");
			jnum(out, p->metrics[i].value);
		}
		outbuf__puts(out, "}}");
	}
	outbuf__puts(out, p->nr_runs ? "\n  ],\n" : "],\n");
}

static void frames(const struct profile *p, struct outbuf *out)
{
	size_t i;

	outbuf__puts(out, "  \"frames\": [");
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];

		outbuf__puts(out, i ? ",\n    {\"sym\": " : "\n    {\"sym\": ");
		jstr(out, profile__str(p, f->sym));
		outbuf__puts(out, ", \"dso\": ");
		jstr(out, profile__str(p, f->dso));
		outbuf__printf(out, ", \"addr\": \"0x%llx\", \"sym_off\": %llu, \"kernel\": %s}",
			(unsigned long long)f->addr, (unsigned long long)f->sym_off,
			f->kernel ? "true" : "false");
	}
	outbuf__puts(out, p->nr_frames ? "\n  ],\n" : "],\n");
}

int export__json(const struct profile *p, struct outbuf *out, struct errmsg *e)
{
	uint32_t *stack_of = xcalloc(p->nr_nodes + 1, sizeof(*stack_of));	/* node -> stack id + 1 */
	uint32_t *path, *depth = export__depths(p);
	uint32_t nr_stacks = 0;
	uint64_t written = 0;	/* frames, in the stacks */
	size_t i, j, n;

	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].node < p->nr_nodes)
			stack_of[p->counts[i].node] = 1;
	for (i = 0; i < p->nr_nodes; i++)
		written += stack_of[i] ? depth[i] : 0;
	free(depth);
	if (export__check_frames(written, e)) {
		free(stack_of);
		return -E2BIG;
	}
	path = xmalloc((p->nr_nodes + 1) * sizeof(*path));

	outbuf__printf(out, "{\n  \"format\": \"mmprof-export\",\n  \"version\": %d,\n",
		EXPORT_JSON_VERSION);
	meta(p, out);
	events(p, out);
	runs(p, out);
	frames(p, out);

	/* stacks: every node a count refers to (marked above), numbered in
	 * trie order (a node's id grows with its position in the trie, so
	 * the output is the same for the same profile) */
	outbuf__puts(out, "  \"stacks\": [");
	for (i = 0; i < p->nr_nodes; i++) {
		uint32_t q;

		if (!stack_of[i])
			continue;
		stack_of[i] = ++nr_stacks;
		for (n = 0, q = (uint32_t)i; q && n <= p->nr_nodes; q = p->nodes[q].parent)
			path[n++] = p->nodes[q].frame;
		outbuf__puts(out, nr_stacks > 1 ? ",\n    [" : "\n    [");
		for (j = n; j-- > 0;)
			outbuf__printf(out, j + 1 < n ? ", %u" : "%u", path[j]);
		outbuf__putc(out, ']');
	}
	outbuf__puts(out, nr_stacks ? "\n  ],\n" : "],\n");

	outbuf__puts(out, "  \"counts\": [");
	for (i = 0, n = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->node >= p->nr_nodes)
			continue;
		outbuf__printf(out, "%s{\"run\": %u, \"event\": %u, \"comm\": ", n++ ? ",\n    " : "\n    ",
			c->run, c->event);
		jstr(out, profile__str(p, c->comm));
		outbuf__printf(out, ", \"pid\": %u, \"stack\": %u, \"samples\": %llu, \"period\": %llu}",
			c->pid, stack_of[c->node] - 1, (unsigned long long)c->samples,
			(unsigned long long)c->period);
	}
	outbuf__puts(out, n ? "\n  ]\n}\n" : "]\n}\n");
	free(stack_of);
	free(path);
	return outbuf__flush(out) ? errmsg__set(e, -EIO, "cannot write the export") : 0;
}
