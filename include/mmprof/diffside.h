/*
 * diffside: the two sides of `mmprof diff` (base, new), each one or more
 * .data files whose runs are pooled, ready for diff__compute (diff.h).
 *
 * Loading a side means, per file: open it (datafile.h), collapse its trie
 * once (symview.h; the keys', the costs' and -g's views are taken from
 * it), build one key cache (keys.h), and turn every run into its flat keys
 * with the samples behind each event's perf-profile shares.  That is
 * nearly all of a diff's time and each file's work is independent, so
 * diff_sides__load does the files of both sides two at a time; its errors
 * are those a one-at-a-time load in command-line order would have found.
 * --drop-run then leaves single runs out.  The header printed above the
 * table is formatted here too (header.c), from the sides and the diff.
 *
 * Ownership: a side borrows its paths; it owns its profiles, caches and
 * runs (whose keys borrow the caches' strings), released together with
 * diff_side__release.  Nothing here prints.
 */
#ifndef MMPROF_DIFFSIDE_H
#define MMPROF_DIFFSIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/diff.h"
#include "mmprof/errmsg.h"
#include "mmprof/jsonw.h"
#include "mmprof/keys.h"
#include "mmprof/outbuf.h"
#include "mmprof/profile.h"
#include "mmprof/strlist.h"
#include "mmprof/symview.h"

struct diff_file_samples;

/*
 * A file's one collapse: every frame an entry (unresolved ones "[unknown]"
 * per DSO, inline ones their own), the finest view a diff reads; the keys'
 * (no unresolved frame, inline ones folded) and the costs' (inline ones
 * folded) are the same arrays when the file has no such frame.
 */
#define DIFF_SIDE_VIEW { .keep_unresolved = true, .keep_inline = true, .unknown_by_dso = true }

struct diff_side {
	const char *name;		/* "base" / "new" */
	char **paths;			/* borrowed, set by the caller */
	size_t nr;			/* files, set by the caller */
	/*
	 * A path STORE:COMMIT (store.h) stands for the files of that commit's
	 * pushes, of this machine and benchmark (set by the caller; NULL: the
	 * only ones there are); once loaded, paths holds their names (owned).
	 */
	const char *machine, *benchmark;
	char **own_paths;
	struct profile **profiles;	/* loaded, or opened by the caller (diff_sides__load) */
	struct keycache **caches;	/* one per file: the key strings the runs borrow */
	/*
	 * One per file (NULL without runs): its one symbol-trie collapse,
	 * DIFF_SIDE_VIEW's, made at the load, from which the keys, the costs
	 * and -g's chains take their views (symview__derive), until
	 * diff_side__drop_views.
	 */
	struct symview **views;
	struct diff_run *runs;		/* one per run, all files pooled; ids are the cache's */
	size_t nr_runs;
	size_t *orig;			/* per run: its index among the side's runs before --drop-run */
	size_t nr_dropped;
	struct diff_file_samples *samples;	/* one per file: what runs[].samples point into */
};

/*
 * Load the sides' files (each side's name, paths and nr set; two sides,
 * base and new, or a base and several compared columns); a STORE:COMMIT
 * path is fetched into a private temporary file, removed once loaded or
 * on error.  A side whose profiles[] the caller set (nr of them,
 * allocated, from datafile__load or built in memory; NULL entries are
 * loaded from their paths, and no path is a STORE:COMMIT) has its runs
 * keyed without loading: the side owns them from here.  0, or -errno and
 * e ("'x.data' holds no runs; record it again", or the loader's message)
 * for the first file, in command-line order, that failed.  Either way
 * release each side with diff_side__release.
 */
int diff_sides__load(struct diff_side *s, size_t nr_sides, struct errmsg *e);
void diff_side__release(struct diff_side *s);
/*
 * Free the side's runs and their keys but keep its profiles: what diff -g
 * does once the table is written, before the call chains need their
 * memory.  diff_side__release stays safe.
 */
void diff_side__release_keys(struct diff_side *s);
/* The files' collapses go (s->views NULL): no view is taken from them after this. */
void diff_side__drop_views(struct diff_side *s);

/*
 * --drop-run SIDE:N, each of drops: leave the run N (from 0, over its
 * files in order) of the side named SIDE out of the comparison.  0, or
 * -EINVAL and e ("--drop-run 'base:9': base has runs 0 to 2").
 */
int diff_sides__drop(struct diff_side *s, size_t nr_sides, const struct strlist *drops,
		     struct errmsg *e);
/*
 * Per run of the side's files, in order (before --drop-run): is it
 * compared (not dropped)?  What the pictures that read the profiles'
 * runs themselves (chains.h, flame.h) take; valid after
 * diff_side__release_keys too.  The caller frees it.
 */
bool *diff_side__kept(const struct diff_side *s);

/*
 * The runs of two sides recorded pair by pair (record --interleave): the
 * number of pairs a diff may test paired (diff_opts.paired), counting
 * only the runs keep[side] (per run of the side's files in order, as
 * diff_side__kept; NULL: all) compares.  0 when they are not pairs:
 * then why (size bytes; NULL for none) says what broke the pairing, or
 * is "" when no file claims one.  Pairs: both sides have as many files,
 * file j of each a side of one interleaved recording (meta
 * interleave.side differs, interleave.pairs agrees) of as many runs, run
 * i of each starting before run i + 1 of either, and a pair compared on
 * both sides or neither.
 */
size_t diff__pairing(const struct profile *const *base, size_t nbp, const struct profile *const *cur,
		     size_t nnp, const bool *const keep[2], char *why, size_t size);

/*
 * Whether a diff of these sides tests paired: o->paired is set when it
 * was asked (o->pair) and the runs pair (diff__pairing, whose arguments
 * these are).  The one place that decides it, for the engine's columns,
 * -g's chains and the functions a flame graph colours.  Returns the
 * pairs (asked or not: a caller may name them), 0 with why as
 * diff__pairing.
 */
size_t diff_opts__set_paired(struct diff_opts *o, const struct profile *const *base, size_t nbp,
			     const struct profile *const *cur, size_t nnp, const bool *const keep[2],
			     char *why, size_t size);

/*
 * The samples of a side's first sampling event (its compared runs:
 * --drop-run's are left out): *named those with a name, the perf-profile
 * keys' denominator (the robot's -U), of *all.  false when no file says.
 */
bool diff_side__named(const struct diff_side *s, double *named, double *all);

/*
 * "cpu-clock" list of a side's opened events, comma-separated, sorted as
 * first seen.  sampling_only: without tracepoints and pseudo events
 * (offcpu), which sample every hit, so that a side recorded with --mm or
 * --sched still compares with one recorded without.
 */
void diff_side__events(const struct diff_side *s, bool sampling_only, char *buf, size_t size);

/* Samples lost (ring buffer full) over every run of the side; *kept: those taken. */
uint64_t diff_side__lost(const struct diff_side *s, uint64_t *kept);

/* "off.data run 1" for the side's run i (counted before --drop-run) into buf. */
void diff_side__run_name(const struct diff_side *s, size_t i, char *buf, size_t size);

/*
 * Files of one side recorded with different command lines (meta
 * "cmdline", the output file's name left out): 1 with *a and *b the first
 * two that differ, 0 when they agree (or a file does not say).
 */
int diff_side__cmdlines_differ(const struct diff_side *s, size_t *a, size_t *b);

/* The runs of a side whose workload failed (exit status > 0, or a signal). */
struct diff_side_failures {
	size_t failed, total;		/* runs that failed, runs */
	char runs[1024];		/* the first 8: "off.data run 1 (exit status 3)", ", "-separated */
	char statuses[256];		/* each distinct status once: "exit status 3, killed by SIGKILL" */
};
void diff_side__failures(const struct diff_side *s, struct diff_side_failures *f);

/*
 * The lkp table's header (header.c): the files, events, sampling, runs,
 * durations, kernel and host of each side, lost samples, --force's
 * warning, diff__describe, disturbed and dropped runs, what was not
 * compared, and the robot's column heads.  s: nr_sides sides, the base
 * first; d[k] (nr_sides - 1 of them) compares the base with s[k + 1];
 * forced[k]: d[k]'s sides were compared by --force.  Two sides print as
 * the two-sided table always has; more add a column each.
 */
void diff_sides__header(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
			const struct diff *d, const bool *forced);
/*
 * The same in two halves, so that the report can write between them (the
 * cost attribution, cost.h): everything up to the blank line before the
 * robot's column heads, then the column heads.
 */
void diff_sides__header_top(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
			    const struct diff *d, const bool *forced);
void diff_sides__column_heads(struct outbuf *b, const struct diff_side *s, size_t nr_sides);

/*
 * A side as the JSON object member key of w's container (NULL: an
 * element): files, runs, events (its sampling events), samples taken and
 * lost, the named samples, every run's status and how many failed.
 */
void diff_side__json(struct jsonw *w, const char *key, const struct diff_side *s,
		     const char *events);

#endif
