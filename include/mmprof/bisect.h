/*
 * bisect: find the first bad commit of a regression with as few runs as
 * the noise allows (`mmprof bisect`, Documentation/bisect.md).
 *
 * Four parts, the first three usable alone:
 *   - the sequential test (sprt.c): a candidate's runs judged against a
 *     good and a bad side on the keys that separate them.  Each key has
 *     the two sides' means and a per-run variance from the diff's noise
 *     model (judge.c fills them from a diff engine result); each run adds
 *     the log-likelihood ratio of "the candidate is like bad" over "like
 *     good", averaged over the keys (they are rarely independent: the
 *     average never counts one change twice), clipped so that no single
 *     run moves the sum by more than BISECT_RUN_CLIP of the decision
 *     threshold (a disturbed run cannot decide alone).  Wald's thresholds
 *     from the error rates alpha (calling a good commit bad) and beta
 *     (calling a bad commit good) decide: bad, good, or more runs;
 *   - the posterior (posterior.c): a probability per commit of being the
 *     first bad one, multiplied by each judgement's likelihood ratio
 *     bounded by twice the thresholds (probabilistic bisection), the next
 *     commit chosen at its median, the search ended when one commit (or
 *     a commit and skipped neighbours that cannot be told apart) holds
 *     the stated confidence;
 *   - the state (state.c): the sides, the commits, every judgement and
 *     the files recorded, in one text file written whole (temp + rename)
 *     and checked by a SHA-256 line, so that a bisection survives reboots.
 *
 *   - the search (search.c): the commits to search, a candidate's batches
 *     of COMMAND, the state's loop, and the lines the command prints.
 *
 * Pure code but the state's file I/O, judge.c (which loads files through
 * the diff engine) and search.c (git rev-list, folders for the batches;
 * COMMAND is the caller's to run); nothing here prints: errors are
 * errmsg lines, the search's lines are said to the caller.
 */
#ifndef MMPROF_BISECT_H
#define MMPROF_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/errmsg.h"
#include "mmprof/strlist.h"

/* Defaults of the stated error rates, confidence and budget. */
#define BISECT_ALPHA		0.05
#define BISECT_BETA		0.05
#define BISECT_CONFIDENCE	0.9
#define BISECT_BUDGET		10	/* runs of one commit at most */
#define BISECT_FIRST_RUNS	2	/* the first batch of a commit */
/* A run moves the sum of log-likelihood ratios by at most this share of the upper threshold. */
#define BISECT_RUN_CLIP		0.6
/* A judgement moves the posterior by at most this many thresholds (in log). */
#define BISECT_POSTERIOR_CAP	2.0

/* Exit statuses of judge and run: what `git bisect run` reads. */
#define BISECT_EXIT_GOOD	0
#define BISECT_EXIT_BAD		1
#define BISECT_EXIT_MORE	3	/* standalone only: record more runs of the candidate */
#define BISECT_EXIT_SKIP	125	/* the build or the runs failed: git bisect skips it */
#define BISECT_EXIT_ERROR	128	/* git bisect run stops, rather than read "bad" */

/* One key of the test: the sides' means and the variance of one run. */
struct bisect_key {
	char *key;		/* owned */
	double good, bad;	/* the sides' means */
	double var;		/* one run's variance (the model's, > 0) */
	size_t ng, nb;		/* the sides' runs: their means' own uncertainty */
};

struct bisect_model {
	struct bisect_key *keys;
	size_t nr, alloc;
};
void bisect_model__add(struct bisect_model *m, const char *key, double good, double bad,
		       double var, size_t ng, size_t nb);
void bisect_model__release(struct bisect_model *m);

enum bisect_verdict { BISECT_GOOD, BISECT_BAD, BISECT_MORE, BISECT_SKIP };
const char *bisect_verdict__name(enum bisect_verdict v);

/* Wald's thresholds on the sum of log-likelihood ratios: bad above upper, good below lower. */
struct bisect_sprt {
	double alpha, beta;	/* 0: the defaults */
	double upper, lower;	/* set by bisect_sprt__init */
};
void bisect_sprt__init(struct bisect_sprt *t, double alpha, double beta);

/*
 * The log-likelihood ratio (bad over good) of one run whose value of
 * key k is x: normal densities around each side's mean, of variance
 * var (1 + 1/n) for a side of n runs.
 */
double bisect_key__llr(const struct bisect_key *k, double x);
/*
 * One run of the candidate, x[i] its value of m->keys[i]: the keys'
 * average, clipped to +-BISECT_RUN_CLIP * t->upper.
 */
double bisect_model__run_llr(const struct bisect_model *m, const struct bisect_sprt *t,
			     const double *x);
/* The verdict of a sum of ratios: BISECT_BAD, BISECT_GOOD or BISECT_MORE. */
enum bisect_verdict bisect_sprt__decide(const struct bisect_sprt *t, double llr);
/*
 * Runs more that the sum llr likely needs to reach the threshold it leans
 * to, from the expected ratio of one run (the keys' separation): 1 to 3.
 */
size_t bisect_model__more_runs(const struct bisect_model *m, const struct bisect_sprt *t,
			       double llr);

/* ---- the posterior over the first bad commit (posterior.c) ---- */

/*
 * p[i]: the probability that commit i (0-based, oldest first, the last
 * one the bad end, all after the good end) is the first bad one.
 */
struct bisect_posterior {
	double *p;
	bool *skipped;		/* commit i could not be tested */
	size_t n;
};
/* Uniform over n >= 1 commits. */
void bisect_posterior__init(struct bisect_posterior *q, size_t n);
void bisect_posterior__release(struct bisect_posterior *q);
/*
 * Commit j was judged with the sum of ratios llr (bad over good): the
 * commits at or before j (those it being bad points to) are multiplied by
 * exp(llr), llr bounded to BISECT_POSTERIOR_CAP times the test's
 * thresholds, so that no judgement counts for more than twice its
 * stated error rates.
 */
void bisect_posterior__update(struct bisect_posterior *q, const struct bisect_sprt *t, size_t j,
			      double llr);
/*
 * The commit to test next: among commits 0 .. n-2 not skipped, the one
 * whose cumulative probability is nearest 0.5 (the median); -1 when
 * there is none (one commit, or all skipped).
 */
long bisect_posterior__next(const struct bisect_posterior *q);
/*
 * The answer so far: the most probable commit *first, and the smallest
 * span [*first, *last] around it whose commits before *last are all
 * skipped (they cannot be told apart); returns that span's probability.
 */
double bisect_posterior__best(const struct bisect_posterior *q, size_t *first, size_t *last);

/* ---- the state of a bisection (state.c) ---- */

struct bisect_step {
	size_t commit;		/* index into the commits */
	enum bisect_verdict verdict;	/* GOOD, BAD, SKIP, or MORE: the budget ran out undecided */
	double llr;
	size_t runs;
};

struct bisect_state {
	struct strlist good, bad;	/* the sides: files or STORE:COMMIT */
	struct strlist keys;		/* --key globs; none: the score */
	char *score;			/* --score's glob, NULL: the default score keys */
	double alpha, beta, confidence;
	int budget;
	struct strlist commits;		/* oldest first, the last one the bad end */
	struct bisect_step *steps;
	size_t nr_steps, alloc_steps;
	long pending;			/* the commit next named, -1: none */
	struct strlist pending_files;	/* its recordings so far */
	size_t pending_runs;
	size_t pending_more;		/* the runs to record next for it */
	/* every file judged, per commit: data[i] the '\n'-joined paths, NULL: none */
	char **data;
};

struct bisect_judgement;

/* A fresh state (after the caller set the fields): nothing pending, no steps. */
void bisect_state__init(struct bisect_state *s);
void bisect_state__release(struct bisect_state *s);
/* Remember path as recorded for commit i (the answer's diff reads them). */
void bisect_state__add_data(struct bisect_state *s, size_t i, const char *path);
/* The posterior of the state's steps (release it). */
void bisect_state__posterior(const struct bisect_state *s, struct bisect_posterior *q);
/* Runs spent in the steps and on the pending commit. */
size_t bisect_state__runs(const struct bisect_state *s);

/*
 * The commit to record next into *commit and its runs into *runs: the
 * pending one, else the posterior's median (made pending).  false when
 * the search is over: the answer holds the confidence, or no commit is
 * left to test.
 */
bool bisect_state__next(struct bisect_state *s, size_t *commit, size_t *runs);
/*
 * Apply the judgement of the pending commit, whose files are the pending
 * ones plus files (nr): BISECT_MORE within the budget keeps it pending
 * (its files and runs kept, *more the runs to add); a verdict, a skip or
 * an exhausted budget becomes a step.  Returns the commit judged.
 */
size_t bisect_state__apply(struct bisect_state *s, const struct bisect_judgement *j,
			   char *const *files, size_t nr);
/* Is the answer's probability at the stated confidence? */
bool bisect_state__done(const struct bisect_state *s);

/*
 * Write s to path whole: a temporary beside it, fsync'ed and renamed over
 * it.  0 or -errno and e.
 */
int bisect_state__save(const struct bisect_state *s, const char *path, struct errmsg *e);
/*
 * Read path into s (zeroed by the caller): 0, or -errno and e: -ENOENT
 * (none: "no bisection here; start one"), -EINVAL for a file that is not
 * a state of this version or whose checksum does not match (corrupt).
 */
int bisect_state__load(struct bisect_state *s, const char *path, struct errmsg *e);

/* ---- a candidate judged through the diff engine (judge.c) ---- */

struct bisect_judge_opts {
	const struct strlist *good, *bad;	/* files or STORE:COMMIT */
	const struct strlist *keys;		/* globs as gates write them; none: the score */
	const char *score;			/* --score's glob */
	double alpha, beta;
};

struct bisect_judgement {
	enum bisect_verdict verdict;
	double llr;
	size_t runs;		/* the candidate's runs judged */
	size_t more;		/* BISECT_MORE: runs to add */
	struct bisect_sprt t;
	struct bisect_model m;	/* the keys judged on */
	char why[512];		/* "runs failed", "3 runs ... crossed the upper threshold" */
};

/*
 * Judge the candidate files (nr of them, pooled): BISECT_SKIP when a
 * file is missing or empty or every run of the candidate failed, else
 * the sequential test's verdict.  0, or -errno and e (a side does not
 * load, no key separates good from bad).  Release j either way.
 */
int bisect__judge(const struct bisect_judge_opts *o, char *const *files, size_t nr,
		  struct bisect_judgement *j, struct errmsg *e);
void bisect_judgement__release(struct bisect_judgement *j);

/* ---- the search: commits, COMMAND's batches, the state's loop (search.c) ---- */

struct outbuf;

/* A side's file as an absolute path into l (a state is read from other folders); STORE:COMMIT as it is. */
void bisect__add_side(struct strlist *l, const char *arg);
/*
 * The commits of git rev-list --reverse --first-parent RANGE (A..B), or
 * of FILE (one a line, '#' comments), oldest first, into l; at least 2
 * (the last is the bad end).  0, or -errno and e.
 */
int bisect__read_commits(const char *range, const char *file, struct strlist *l, struct errmsg *e);
/* Runs a bisection of fixed runs a step spends on n commits: runs x ceil(log2 n). */
size_t bisect__fixed_runs(size_t n, size_t runs);
/* A verdict's exit status (BISECT_EXIT_*). */
int bisect__exit_of(enum bisect_verdict v);

/* What a text said by the search is; the command chooses stream and prefix. */
enum bisect_say {
	BISECT_SAY_OUT,		/* whole lines of the search's progress, for stdout */
	BISECT_SAY_ERROR,	/* a file, a side or the state failed: errmsg's line */
	BISECT_SAY_SUB,		/* the subcommand's own failure (its folder, its order of steps): a line */
};

struct bisect_search_opts {
	/*
	 * Record runs runs of the candidate (commit: NULL when unknown) into
	 * output, batch counting within the candidate: COMMAND's exit status
	 * (a signal: 128 + it), -1 when it could not start.  What was said
	 * must reach the reader before COMMAND writes.
	 */
	int (*run)(void *arg, const char *output, size_t runs, size_t batch, const char *commit);
	void (*say)(void *arg, enum bisect_say kind, const char *text);
	void *arg;
	const char *tmpdir;	/* bisect__run_candidate's private folder goes here */
};

/* A judgement's lines (commit: NULL for a candidate without a state). */
void bisect_judgement__write(struct outbuf *b, const struct bisect_judgement *j, const char *commit);
/* The answer's lines ("done COMMIT P" first); returns the first bad commit's index. */
size_t bisect_state__write_answer(struct outbuf *b, const struct bisect_state *s);
/* The lines naming the commit to record next and its runs ("next COMMIT RUNS" first). */
void bisect_state__write_next(struct outbuf *b, const struct bisect_state *s, size_t commit, size_t runs);

/*
 * Judge files (nr; made absolute) with the pending commit's earlier ones,
 * move the state on (bisect_state__apply) and save it to path; the
 * judgement and, when the commit is done, git bisect's line said.  0 with
 * *v, or -errno (said).
 */
int bisect_state__judge(struct bisect_state *s, const char *path, char *const *files, size_t nr,
			enum bisect_verdict *v, const struct bisect_search_opts *o);
/*
 * One candidate without a state (git bisect run's step): batches of
 * o->run into a private folder under o->tmpdir, BISECT_FIRST_RUNS first
 * and then what the test asks, judged each time, until it decides or
 * budget runs are spent (then the evidence's lean, or skip); the files
 * removed after.  Returns the exit status (BISECT_EXIT_*).
 */
int bisect__run_candidate(const struct bisect_judge_opts *jo, int budget, const struct bisect_search_opts *o);
/*
 * The whole search from the state saved at path: next, o->run into
 * PATH.d/COMMIT-N.data, judge, until bisect_state__next says it is over.
 * 0, or -errno (said).
 */
int bisect_state__run(struct bisect_state *s, const char *path, const struct bisect_search_opts *o);

#endif
