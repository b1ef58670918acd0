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

static size_t strip_meta(struct profile *p)
{
	size_t i, j, kept = 0, gone = 0;

	for (i = 0; i < p->nr_meta; i++) {
		const char *key = profile__str(p, p->meta[i].key);
		int drop = 0;

		for (j = 0; j < sizeof(identity_keys) / sizeof(identity_keys[0]); j++)
			drop |= key && !strcmp(key, identity_keys[j]);
		if (drop)
			gone++;
		else
			p->meta[kept++] = p->meta[i];
	}
	p->nr_meta = kept;
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

	n = cmd__parse_anywhere(argc, argv, opts, strip_usage, pos, 1);
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
