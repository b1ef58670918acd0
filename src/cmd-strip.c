/*
 * cmd-strip: `mmprof strip FILE [-o OUT]`, a .data file made fit to share
 * outside the machine it was recorded on (issue 9).
 *
 * What goes (Documentation/robustness.md says why):
 *   - raw kernel addresses: frames.addr of kernel frames becomes 0, so the
 *     file does not reveal where KASLR put the kernel (what kptr_restrict
 *     hides from unprivileged users); a symbol's name and the offset into
 *     it (sym_off) stay, since they say nothing about the base;
 *   - host identity: the meta keys "hostname" and "cmdline" (the latter
 *     holds the paths and arguments typed, which may name users, home
 *     directories or tokens).
 * What stays: symbols, DSO paths, user-space addresses (per-process
 * layout of a process that has ended), kernel release, CPU model, counts:
 * everything report and diff compare.
 *
 * The result is written through datafile__save: atomically, so stripping a
 * file in place (no -o) never leaves it half-stripped.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/options.h"

static const char *const strip_usage[] = {
	"mmprof strip [options] FILE [-o OUT]",
	NULL,
};

/* The meta keys that identify the host or the person recording. */
static const char *const identity_keys[] = { "hostname", "cmdline" };

/* Does anything but the meta entries dropped refer to string id? */
static bool str_used(const struct profile *p, uint32_t id)
{
	size_t i;

	for (i = 0; i < p->nr_frames; i++)
		if (p->frames[i].sym == id || p->frames[i].dso == id)
			return true;
	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].comm == id)
			return true;
	for (i = 0; i < p->nr_events; i++)
		if (p->events[i].name == id || p->events[i].asked == id)
			return true;
	for (i = 0; i < p->nr_counters; i++)
		if (p->counters[i].name == id)
			return true;
	for (i = 0; i < p->nr_intervals; i++)
		if (p->intervals[i].name == id)
			return true;
	for (i = 0; i < p->nr_metrics; i++)
		if (p->metrics[i].key == id)
			return true;
	for (i = 0; i < p->nr_meta; i++)
		if (p->meta[i].key == id || p->meta[i].value == id)
			return true;
	return false;
}

/* Drop the identity keys, and blank their values in the string pool (save
 * writes every string, referenced or not) unless something else uses them. */
static size_t strip_meta(struct profile *p)
{
	uint32_t dropped[sizeof(identity_keys) / sizeof(identity_keys[0]) * 4];
	size_t i, j, kept = 0, gone = 0, nd = 0;

	for (i = 0; i < p->nr_meta; i++) {
		const char *key = profile__str(p, p->meta[i].key);
		int drop = 0;

		for (j = 0; j < sizeof(identity_keys) / sizeof(identity_keys[0]); j++)
			drop |= key && !strcmp(key, identity_keys[j]);
		if (drop && nd < sizeof(dropped) / sizeof(dropped[0]))
			dropped[nd++] = p->meta[i].value;
		if (drop)
			gone++;
		else
			p->meta[kept++] = p->meta[i];
	}
	p->nr_meta = kept;
	/* The pool's index goes stale: nothing interns before the save. */
	for (i = 0; i < nd; i++)
		if (dropped[i] && dropped[i] < p->nr_strs && !str_used(p, dropped[i]))
			p->strs[dropped[i]][0] = '\0';
	return gone;
}

/* Zero kernel frames' addresses.  The profile's frame index is left stale:
 * nothing looks frames up again before the save. */
static size_t strip_kernel_addrs(struct profile *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_frames; i++)
		if (p->frames[i].kernel && p->frames[i].addr) {
			p->frames[i].addr = 0;
			n++;
		}
	return n;
}

int cmd_strip(int argc, char **argv)
{
	const char *output = NULL;
	const struct option_desc opts[] = {
		{ OPT_STRING, 'o', "output", &output, "OUT",
		  "write OUT (default: replace FILE, atomically)", 0, NULL },
		{ OPT_END },
	};
	char *pos[2] = { NULL, NULL };
	struct profile *p = NULL;
	struct errmsg e = { "" };
	size_t addrs, keys;
	int n;

	n = options__parse_anywhere(argc, argv, opts, strip_usage, pos, 1);
	if (n == -2)
		return 0;
	if (n < 0)
		return EXIT_ERROR;
	if (n != 1) {
		fprintf(stderr, "mmprof strip: expected one FILE; see 'mmprof strip --help'\n");
		return EXIT_ERROR;
	}
	if (!output)
		output = pos[0];
	if (datafile__load(pos[0], &p, &e)) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		return EXIT_ERROR;
	}
	addrs = strip_kernel_addrs(p);
	keys = strip_meta(p);
	if (datafile__save(p, output, &e)) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		profile__free(p);
		return EXIT_ERROR;
	}
	fprintf(stderr, "mmprof: wrote '%s': %zu kernel address%s and %zu host identity key%s removed\n",
		output, addrs, addrs == 1 ? "" : "es", keys, keys == 1 ? "" : "s");
	profile__free(p);
	return 0;
}
