/*
 * history: change points in the series of every key of a results store
 * (store.h), and the commit and the functions that moved with the score
 * (`mmprof history`, Documentation/history.md says how and why).
 *
 * Three layers, each usable alone:
 *   - cpd: a penalised segmentation (PELT, Killick, Fearnhead & Eckley
 *     2012) of one series of per-commit means with known variances, its
 *     penalty set for a stated false-alarm rate; pure, no store;
 *   - history__load: one series per (benchmark, machine) of the store's
 *     pushes, commits ordered by parent links (else time), every key's
 *     values per commit, each run's samples;
 *   - history__scan: a key's per-commit means and variances (the noise
 *     model below), its change points, and at each change point of the
 *     score the diff engine's comparison of the commits before and after
 *     (diffengine.h): its verdict on the score and the profile rows it
 *     calls significant.
 *
 * The noise of a commit's mean (history__noise): its runs' variance at
 * the commit's level over their number, plus the spread between commits
 * beyond it.  A run's variance is, for perf-profile shares, the binomial
 * sampling noise of its samples (diff.h's floor: no share is less noisy
 * than its sampling) plus a between-run spread fitted from the replicate
 * runs within commits (robustly, as diff fits a family's), each commit's
 * own dispersion shrunk to the series' prior; the spread between commits
 * is fitted from successive commits' differences (robustly: a step moves
 * one).  Both follow the level of a share (the larger of a flat and a
 * constant-CV shape), so that a plateau at 60 % is not judged by the
 * noise of the commits at 10 %.  Relative keys are analysed on log scale,
 * shares and '%' keys in points, as keykind__absolute says.
 *
 * Workload: a few thousand commits and a few thousand keys per series;
 * the scan is O(commits) per key in expectation (PELT's pruning) when
 * change points come regularly, more when they are rare (one step in
 * 50,000 commits: 1.1 s of CPU, 0.05 s in 5,000).
 */
#ifndef MMPROF_HISTORY_H
#define MMPROF_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/diffengine.h"
#include "mmprof/errmsg.h"
#include "mmprof/hashidx.h"
#include "mmprof/strintern.h"
#include "mmprof/store.h"

/* ---- change points of one series (cpd.c) ---- */

/*
 * The penalty, in units of -2 log likelihood, of one change point.
 * Stated: at most 1 false change point per 1,000 commits of noise;
 * measured (test-history's calibration, Documentation/history.md): none
 * in 20,000 commits of 3 runs at a 12 % spread, its variance estimated
 * from the series as history__trend does.
 */
#define CPD_PENALTY	15.0
/* The fewest commits a segment has: a blip of one or two commits is an outlier, not a change. */
#define CPD_MIN_SEGMENT	3

struct cpd_opts {
	double penalty;		/* 0: CPD_PENALTY */
	size_t min_segment;	/* 0: CPD_MIN_SEGMENT */
	/*
	 * A change point whose segments' levels differ by less than this
	 * (in y's unit) is dropped and its segments joined: the effect floor.
	 */
	double min_change;
};

/*
 * The change points of y[0..n) with weights w (1 / variance of y[i]):
 * indices i (ascending) where a new level starts, into cp (room for n),
 * their number returned.  n < 2 * min_segment: none.
 */
size_t cpd__find(const double *y, const double *w, size_t n, const struct cpd_opts *o, size_t *cp);

/* The weighted mean of y[a..b) and its variance (1 / sum of w) */
void cpd__level(const double *y, const double *w, size_t a, size_t b, double *mean, double *var);

/* ---- series from a store (series.c) ---- */

/* One commit of a series: its pushes' runs pooled. */
struct history_commit {
	const char *commit;	/* in the series' commit_names */
	int64_t time;		/* its first push's */
	size_t *pushes;		/* indices into history_series.pushes; owned */
	size_t nr_pushes, nr_runs;
};

/* A key's values, [commit][run of that commit] flattened; NAN where a run lacks it. */
struct history_key {
	const char *name;	/* in the series' key_names (a read key: the name asked) */
	double *v;		/* [series.nr_values] */
	bool score;		/* keykind__score (or the caller's glob) */
};

struct history_series {
	char *benchmark, *machine;	/* owned */
	struct history_commit *commits;	/* in order */
	size_t nr_commits;
	size_t *first;			/* [nr_commits + 1]: commit c's runs are [first[c], first[c + 1]) */
	size_t nr_values;		/* runs over every commit */
	double *samples;		/* [nr_values]: each run's samples (0: not known) */
	struct history_key *keys;	/* sorted by name */
	size_t nr_keys, alloc_keys;
	struct strintern commit_names;	/* indexed while loading */
	struct strintern key_names;	/* key_names.s[i] is keys[i].name while loading */
	const struct history *owner;
	bool by_parents;		/* ordered by parent links (else by time) */
};

struct history {
	struct store_series_push *pushes;	/* every push read; owned */
	size_t nr_pushes;
	struct store *store;		/* borrowed: where keys not loaded are read from */
	struct store_series_filter f;	/* the pushes' filter (its strings borrowed), without keys */
	void *slot;			/* per push: its series and first run there (series.c) */
	struct history_series *series;	/* one per (benchmark, machine), sorted by them */
	size_t nr_series;
};

/*
 * Read the pushes of filter f into h, one series per benchmark and
 * machine, with the values of the score's keys (score: their glob; NULL:
 * keykind__score) and of the keys matching one of globs[0..nr_globs)
 * (fnmatch).  h keeps s to read other keys (history_series__read_key).
 * 0, or -errno and e.  Release h either way.
 */
int history__load(struct history *h, struct store *s, const struct store_series_filter *f,
		  const char *score, const char *const *globs, size_t nr_globs, struct errmsg *e);
/*
 * A key that history__load did not read, read now for series hs: *k
 * (release it with history_key__release) with its values, and its name
 * borrowed from name (which must outlive it).  0
 * (a key the series lacks has every value NAN), or -errno and e.
 */
int history_series__read_key(const struct history_series *hs, const char *name, struct history_key *k,
			     struct errmsg *e);
void history_key__release(struct history_key *k);
void history__release(struct history *h);

/*
 * A series of one key made from values rather than a store (tests,
 * benchmarks, the validation): nc commits of runs[c] runs each, the
 * values v (every run of commit 0, then of commit 1, ...; NAN: the run
 * lacks the key) and each run's samples (NULL: not known).  Free it with
 * history_series__free.
 */
struct history_series *history_series__make(const char *key, const size_t *runs, size_t nc, const double *v,
					    const double *samples, bool score);
void history_series__free(struct history_series *hs);

/* The key called name in series, or NULL. */
const struct history_key *history_series__key(const struct history_series *hs, const char *name);

/* ---- the noise of a key's commit means (noise.c) ---- */

/* One commit of a key's series, on the scan's scale. */
struct history_noise_point {
	double y;		/* its runs' mean */
	double s2;		/* their sample variance (m >= 2) */
	double samp;		/* shares: a run's binomial sampling variance (mean over the runs); else 0 */
	double level;		/* shares: the level in points, where the spread's shape is read */
	size_t m;		/* runs */
};

/* The shapes of a share's spread in its level (noise.c): flat, logit, proportional. */
#define HISTORY_NOISE_SHAPES 3

/* What history__noise fitted (per shape; the flat one only for keys other than shares). */
struct history_noise {
	double phi[HISTORY_NOISE_SHAPES];	/* a run's spread beyond its sampling: phi x shape */
	double rho[HISTORY_NOISE_SHAPES];	/* a commit's spread beyond its runs': rho x shape */
	double d0;		/* the prior's df of the commits' dispersions (NAN: none fitted) */
};

/*
 * The variance of each point's y, p[0..n) in commit order, into v[0..n)
 * (the model is in noise.c's head); share: p are a share's, in points.
 * *out (when not NULL) gets the fit.
 */
void history__noise(const struct history_noise_point *p, size_t n, bool share, double *v,
		    struct history_noise *out);

/* ---- a key's change points (trend.c) ---- */

struct history_change {
	size_t at;			/* the first commit of the new level */
	double before, after;		/* the levels, in the key's unit (means of the segments) */
	double change;			/* points (absolute keys) or % */
	double se;			/* its standard error, same unit */
};

struct history_trend {
	const struct history_key *key;
	bool absolute;			/* points, not % */
	double *mean, *sd;		/* [nr_commits] per commit, the key's unit; NAN: no run */
	struct history_change *cp;
	size_t nr_cp;
	/* the scan's scale: y and weights w of the n commits with a value, at[i] their commits */
	double *y, *w;
	size_t *at, n;
	bool log;
};

struct history_scan_opts {
	double min_points, min_pct;	/* the effect floors; 0: diff's (0.1 points, 1 %) */
	double penalty;			/* 0: CPD_PENALTY */
};

/* The trend of key in hs: per-commit means, change points.  Release with history_trend__release. */
void history__trend(const struct history_series *hs, const struct history_key *key,
		    const struct history_scan_opts *o, struct history_trend *t);
void history_trend__release(struct history_trend *t);
/*
 * Move change point k to commit (within its neighbours' segments): its
 * levels, change and error recomputed.  false when it cannot go there.
 */
bool history_trend__move(struct history_trend *t, size_t k, size_t commit);

/* ---- a history's change points, and what moved with the score (scan.c) ---- */

/*
 * A change point of the score, and the diff engine's comparison of the
 * commits before it (up to window of its level) with those after: its
 * verdict on the score, and the profile rows that moved with it (those
 * the diff calls significant whose own trend changes at the same commit,
 * within a commit).
 */
struct history_point {
	const struct history_trend *score;	/* the score's trend */
	size_t cp;				/* its change point index */
	size_t from, to;			/* the commits compared: [from, at) and [at, to) */
	struct diff_result *r;			/* NULL: the comparison failed (said) */
	struct diff_side sides[2];
	char **paths;				/* STORE:COMMIT of each side's commits, owned */
	size_t nr_paths;
	const struct diff_row *score_row;	/* the score's row in r, or NULL */
	size_t score_at;			/* where the score alone put it (the profile rows moved at cp's) */
	const struct diff_row **moved;		/* owned array; rows of r */
	size_t nr_moved;
};

struct history_series_scan {
	const struct history_series *hs;
	struct history_trend *trends;	/* the score keys first, then the keys asked for */
	size_t nr_trends, nr_score;
	struct history_point *points;
	size_t nr_points;
};

struct history_scan_opts2 {
	struct history_scan_opts trend;
	const char *store;		/* the store as the user named it: the diff's sides are STORE:COMMIT */
	size_t window;			/* commits a side; 0: 5 */
	double alpha;			/* the diff's FDR level; 0: 0.05 */
	const char *score;		/* the score's glob (NULL: keykind__score) */
	bool callchains;		/* the diffs keep what -g needs (the robot's mail) */
	const char *const *globs;	/* keys to show besides the score (fnmatch); none: the score only */
	size_t nr_globs;
	void (*say)(void *arg, enum diff_say kind, const char *line);
	void *say_arg;
};

/* Scan series hs: the trends and, at each change point of the score, the diff. */
void history__scan(const struct history_series *hs, const struct history_scan_opts2 *o,
		   struct history_series_scan *out);
void history_series_scan__release(struct history_series_scan *sc);

/* ---- outputs (format.c, report.c, html.c) ---- */

enum history_format { HISTORY_FORMAT_TEXT, HISTORY_FORMAT_JSON, HISTORY_FORMAT_CSV, HISTORY_FORMAT_MARKDOWN };

/*
 * "FROM..LAST against AT..END", the commits a point's diff compared, each
 * name through name() (outbuf__text_str, outbuf__xml_str); against: the
 * words between the sides.
 */
void history_point__sides(struct outbuf *b, const struct history_series *hs, const struct history_point *pt,
			  void (*name)(struct outbuf *b, const char *s), const char *against);

/* The format named text, json, csv, markdown (or md): 0, or -EINVAL. */
int history_format__parse(const char *name, enum history_format *f);

/* The scans of every series, sc[0..n), in format f (one document) into b. */
void history__format(struct outbuf *b, const struct history_series_scan *sc, size_t n,
		     enum history_format f);

/*
 * The robot's mail for each change point of the score (report.c): the
 * commit, benchmark, machine, the score's change, the diff's table of
 * significant rows and the call chains that carry it.
 */
void history__report(struct outbuf *b, const struct history_series_scan *sc, size_t n);

/* One offline HTML page: a trend chart per key, change points marked with their diffs (html.c). */
void history__html(struct outbuf *b, const struct history_series_scan *sc, size_t n);

#endif
