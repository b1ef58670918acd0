/*
 * chains: where in the call tree the time moved (mmprof diff --callchains).
 *
 * For every path of the call-stack trie (root ... caller -> callee) and
 * every run, the inclusive period % of that run's total for one event;
 * a file's paths are its symbol trie's (symview.h, every frame kept:
 * unresolved ones as "[unknown]", inline ones), matched across files by
 * their normalised symbol names (clone suffixes removed), so different
 * tries pair.  A path is reported where
 * a change ends: its own change is large and no child carries >= 90 % of
 * it further down; it is printed caller -> callee from where the change
 * starts (the highest ancestor with about the same change), with one
 * caller of context:
 *   zap_pmd_range → __split_huge_pmd → _raw_spin_lock → native_queued_spin_lock_slowpath  +51.7
 * With >= 2 runs a side, a path's share is tested as the table tests a
 * perf-profile.children row (diff.h: binomial sampling from each run's
 * samples plus a fitted spread between runs, the prior over the paths,
 * weighted BH), the paths a family of their own, and each tested path
 * has its detectable change; q is printed, not used to hide a path (the
 * chain view is for finding where the time went).  Scaled paths (cost
 * per op) have no sampling variance: limma's moderated t on their runs.
 * A frame spelled otherwise in the new build (clone suffixes) shows both
 * spellings, base's first:  main → (hot.isra.0 → hot.isra.1).
 * Workload: a trie of 10^5 nodes per file, 10 runs: O(nodes x runs).
 */
#ifndef MMPROF_CHAINS_H
#define MMPROF_CHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/diff.h"
#include "mmprof/jsonw.h"
#include "mmprof/profile.h"

/*
 * 72 bytes, one per distinct path of every file: two 10-run files of 573 k
 * paths hold 41 MB of them (the change, cur - base, is computed, not kept:
 * chain_row__delta; the profile is an index: chain_row__profile).
 */
struct chain_row {
	uint64_t hash;			/* path identity */
	double base, cur, q;		/* means; q NAN when untested */
	double mde;			/* shares: the detectable change (diff.h's), NAN when untested */
	char *text;			/* "a → b → c", for shown rows */
	uint32_t file;			/* a file holding the path, for its names: base files, then new */
	uint32_t node;
	uint32_t node_new;		/* the path's node in chain_diff.cur[file_new] */
	uint32_t file_new;		/* the first new file holding the path; UINT32_MAX: none */
	uint32_t parent_row;		/* the caller's path, an earlier row; CHAIN_NO_PARENT: a child of the root */
	bool shown;
	bool renamed;			/* text shows a frame's two spellings */
	bool clone;			/* some file spells the frame with a clone suffix */
	/*
	 * How the path stands to its own frame's function's table row, where
	 * it is not the whole of it: CHAIN_FN_WITH, the row is flagged and the
	 * path moved as it did (it carries a part of that change and has the
	 * row's verdict); CHAIN_FN_AGAINST, flagged and the path moved the
	 * other way; CHAIN_FN_UNFLAGGED, the row is tested and not flagged
	 * (the path may still be, under a flagged caller: its other paths
	 * moved otherwise).  CHAIN_FN_NONE: no row, or the path is its whole.
	 */
	int8_t with_fn;
};

#define CHAIN_FN_NONE		0
#define CHAIN_FN_WITH		1
#define CHAIN_FN_AGAINST	(-1)
#define CHAIN_FN_UNFLAGGED	2

#define CHAIN_NO_PARENT UINT32_MAX

struct chain_diff {
	struct chain_row *rows;
	size_t nr, alloc;
	size_t nb, nn;
	bool novar;
	double alpha;
	double total[2];			/* each side's mean run total in the cells' unit
						 * (100 for shares, of runs with samples) */
	const struct profile *const *cur;	/* borrowed: the new side's profiles */
	size_t nnp;
	const struct profile *const *base;	/* borrowed: the base side's */
	size_t nbp;
};

/*
 * Compute over base and new profiles for the event named event (perf's
 * spelling, e.g. "cpu-clock"); min_points is the smallest change shown,
 * alpha the FDR level; pair: test the runs on their pairs' differences
 * when the files pair (diff_opts.pair).  keep[side][r] false leaves run r
 * of that side (counted over its files in order) out, as diff --drop-run
 * does (diffside.h); keep NULL: every run.  0 or -EINVAL (no runs of
 * event).
 */
int chains__compute(struct chain_diff *cd, const struct profile *const *base, size_t nbp,
		    const struct profile *const *cur, size_t nnp, const char *event,
		    double min_points, double alpha, bool pair, const bool *const keep[2]);

/*
 * Where the files' paths come from: side[0][i] (base file i), side[1][i]
 * (new file i), views of them that make every frame an entry
 * (diff_side.views, DIFF_SIDE_VIEW's), borrowed, rather than a collapse of
 * their own: a diff's files are collapsed once.  A NULL array, or a NULL
 * or released view in it, collapses that file here.  last: no one reads
 * the views after this; they are released (symview__release, the structs
 * stay the caller's) once read, before the rows take memory.
 */
struct symview;
struct chain_views {
	struct symview *const *side[2];
	bool last;
};

/*
 * The same paths with each run's cells scaled: a path's period in the run
 * times scale[side][r] (r counts the side's runs over its files in order),
 * in place of its % of the run's total: cost per operation when the
 * factor is the unit over the run's work count (issue 16).  A run whose
 * factor is not > 0 (its work unknown: NAN) is left out of its side, and
 * a side left with none is -EINVAL.  scale NULL: chains__compute.  views:
 * the files' collapses (above), NULL: each file collapsed here.
 * Means, tests and min_points are then in that unit; paths under 0.05 %
 * of the larger side's mean total are not tested.
 */
int chains__compute_scaled(struct chain_diff *cd, const struct profile *const *base, size_t nbp,
			   const struct profile *const *cur, size_t nnp, const char *event,
			   double min_points, double alpha, bool pair, const double *const scale[2],
			   const bool *const keep[2], const struct chain_views *views);
void chains__release(struct chain_diff *cd);

/*
 * One answer per function: the table's perf-profile.children rows of one
 * event (their function, q and detectable change), for the paths of a
 * function, whose row answers for them (chains__take_functions).  Sorted by name; names owned.
 */
struct chain_fn {
	char *name;		/* the key's symbol part (normalised, diff__normalize_key) */
	double q, mde;
	double delta;		/* the row's change (points of the named samples) */
	int flag;		/* +1 up or new, -1 down or gone (the row's verdict), 0 not flagged */
	int absent;		/* -1: 0 in every new run, +1: 0 in every base run, 0: neither */
};
struct chain_fns {
	struct chain_fn *v;
	size_t nr;
};
/* The tested perf-profile.children.<event> rows of d (event as perf spells it). */
void chain_fns__from_diff(struct chain_fns *f, const struct diff *d, const char *event);
void chain_fns__release(struct chain_fns *f);	/* a zeroed f is fine */
/*
 * Tested paths take their functions' answers, where the table has rows
 * for them (a frame's function: its name matched as the table matches
 * keys):
 * - a path that is its function's (it ends no other path, or it moved
 *   as the row did and holds 90 % of their share on each side, or
 *   carries 90 % of their change with none moving the other way) takes
 *   that row's q and detectable change (q 1 where its share of every
 *   sample moved against the row's of the named samples);
 * - a path of a function the table flags, split over several paths,
 *   that moved as the row did carries a part of its change (with_fn +1):
 *   it has the row's verdict (its q at most the row's), tested or not as
 *   a path, so that no frame of a flagged function is grey where it
 *   moved with it; one that moved against the row (with_fn -1: a caller
 *   that lost what others gained) keeps its own test, gated as below;
 * - a path absent from every run of one side under a function absent
 *   from every run of that side (gone or new in the table) and present on
 *   the other is gone or new with it: its q is at most that row's;
 * - any other path keeps its own test, gated as the table's calltrace
 *   rows: its q is at least the least q of the rows of the functions on
 *   it, its detectable change at least its own function's.
 * So no path is significant where no function on it is, and none says
 * "not significant" of a change that is its function's.
 */
void chains__take_functions(struct chain_diff *cd, const struct chain_fns *f);

/* A row's change in points: new mean minus base mean. */
static inline double chain_row__delta(const struct chain_row *r)
{
	return r->cur - r->base;
}

/*
 * A tested path's detectable change in points (80 % power at its BH
 * threshold, as the table's rows), NAN when untested or scaled.
 */
#define CHAIN_ROW_MDE 1
static inline double chain_row__mde(const struct chain_row *r)
{
	return r->mde;
}

/* The profile whose names r's node has (chain_row.file). */
static inline const struct profile *chain_row__profile(const struct chain_diff *cd,
						       const struct chain_row *r)
{
	return r->file < cd->nbp ? cd->base[r->file] : cd->cur[r->file - cd->nbp];
}

/*
 * The new side's spelling of a row's frame when it differs from the name
 * r->p gives it (a function renamed between builds: hot.isra.1 for
 * hot.isra.0), else NULL.  Borrowed from the new profile.
 */
const char *chain_row__new_name(const struct chain_diff *cd, const struct chain_row *r);

/* Shown rows by |change|, at most limit, as text; as JSON, the array member key of w's container. */
void chains__format(struct outbuf *b, const struct chain_diff *cd, size_t limit);
void chains__json(struct jsonw *w, const char *key, const struct chain_diff *cd, size_t limit);

#endif
