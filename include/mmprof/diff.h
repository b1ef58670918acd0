/*
 * diff: two sides of runs (base, new) compared key by key.
 *
 * Input is each run's flat keys (keys.h, one struct diff_run per run, any
 * order, borrowed).  Each key becomes one row holding its value in every
 * run of both sides; a run without the key counts 0 (the robot's rule),
 * so a key present on one side only is a row marked new or gone, never
 * dropped.  perf-profile keys are matched by a normalised identity
 * (keykind__normalize): compiler clone suffixes the key builder keeps
 * (.cold, .llvm.N, .lto_priv.N) are removed and the values that then
 * collide within a run are added, as the robot does for .isra/.constprop.
 * The original spellings stay visible (issue 3): for a perf-profile row
 * whose frames were spelled otherwise than its key on a side (hot.isra.1
 * for ...hot), diff__spelling gives each side's raw names; rows spelled
 * as their key, nearly all of them, cost nothing for it.
 *
 * Verdicts (the point of mmprof diff over the robot; the method and its
 * evidence are in Documentation/statistics.md):
 *   - with >= 2 runs on both sides, a moderated t-test per key.  Keys are
 *     grouped in families: perf-profile.<kind>.<event> (children, self,
 *     calltrace), and each other first key component (apart for its
 *     ambient keys, and for keys kept in their unit).  perf-profile keys
 *     whose runs' sample counts are known (diff_run.samples) are shares:
 *     a run's variance is its binomial sampling variance plus a
 *     between-run spread fitted once per family (phi, of the shape that
 *     fits best), each side's mean weighted by its runs' variance; every
 *     key's dispersion (residuals over that variance) is shrunk towards a
 *     prior fitted over the family's keys at the key's level (limma's
 *     empirical Bayes with a trend, keys far noisier than the prior
 *     keeping their own), and never below 1 (no share is less noisy than
 *     its sampling).  Other keys: the same shrinking of the pooled
 *     variance of log(x + eps), or of x for '%' keys and keys with
 *     negative values; a monitor's count never less noisy than Poisson.
 *   - Benjamini-Hochberg within each family, perf-profile rows weighted
 *     by min(share, 10) (weighted BH, Genovese, Roeder & Wasserman
 *     2006); a self or calltrace row's q is at least its function's
 *     children row's (a chain's function: the shortest prefix of its
 *     frames that is one), so that an A/A pair flags profile rows only
 *     when it flags a children row.  q < alpha is significant.  Only keys
 *     whose mean over both sides reaches the printing floor are tested
 *     ("independent filtering": the pooled mean says nothing about the
 *     difference under the null, so the FDR guarantee holds, and a
 *     thousand keys at 0.00 % do not dilute the real ones).  A significant
 *     change smaller than the effect floor (min_points for absolute-change
 *     keys, min_pct for relative ones) is reported as "small", not as a
 *     headline;
 *   - a tested row that is not significant is "can't tell" when the
 *     change it could have detected (diff_row.mde) is above the effect
 *     floor, else "same";
 *   - runs recorded pair by pair (diff_opts.paired) are tested on the
 *     within-pair differences, by the same model (each pair's sampling
 *     from its two runs, a spread of a difference fitted per family);
 *   - with 1 run on a side there is no variance: rows past labelled
 *     thresholds are marked "changed?" and nothing is called significant
 *     (a perf-profile change must also exceed 3 standard errors of its
 *     sampling noise).
 * Disturbed runs: within a perf-profile.children family, a run whose
 * distance from its side's median over the upper half of the keys by
 * level, in units of the model's noise, is DIFF_DISTURBED times the
 * typical run's is listed in diff.disturbed (sides of >= 3 runs).
 * Rows that cannot be compared between runs get no verdict and never count
 * in a family's FDR: address buckets of tracepoint histograms (DIFF_ADDRESS),
 * and every key of a family that one side did not measure at all
 * (DIFF_ONE_SIDE: a file without perf-stat is not a perf-stat drop to 0).
 * The robot's own filter (stats__robot_changed plus its run-count,
 * presence and small-change rules, src/diff/robot.c) is computed for
 * every row as well.
 *
 * Costs per op (cost.h: cost.<kind>.<event>.<fn>) are compared by a diff
 * of their own (struct diff.cost), in families per kind and event whose
 * prior follows the keys' level, a function's rows tested from
 * DIFF_COST_TEST_FLOOR % of its event's total up (diff-int.h).
 * Matching is by hash (hashidx), so 20 runs x 100 000 keys cost O(total).
 * Memory: one double per (key, run).
 */
#ifndef MMPROF_DIFF_H
#define MMPROF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/hashidx.h"
#include "mmprof/jsonw.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/outbuf.h"
#include "mmprof/stats.h"

/* The samples behind one event's perf-profile keys in a run. */
struct diff_samples {
	const char *event;	/* the event as keys spell it (keys__event_name): "cpu-clock" */
	double n;		/* samples of the run with a name: the keys' shares are of these */
	double all;		/* every sample of the run, named or not (0: not known) */
};

struct diff_run {
	const struct key_value *items;	/* borrowed for diff__compute's duration */
	size_t nr;
	/*
	 * Optional (nr_samples 0: not known): per sampling event, the samples
	 * its perf-profile percentages of this run were counted from.  A
	 * share p of n samples is binomial, variance p(1-p)/n: the test never
	 * takes a side for less noisy than that (see Verdicts above).
	 */
	const struct diff_samples *samples;
	size_t nr_samples;
	/*
	 * Optional (NULL: match by the key text alone): ids[i] < nr_ids names
	 * items[i].key within id_space, equal ids meaning equal keys (e.g. a
	 * keycache's ids, report.h).  Runs of one file share a space, so a
	 * key is normalised and hashed once per file instead of once per run.
	 */
	const uint32_t *ids;
	const void *id_space;
	size_t nr_ids;
	/*
	 * Optional, with ids (keycache__spellings, report.h): [ids[i]] NULL
	 * when every frame behind a perf-profile key was spelled as the key's
	 * symbol part, else their raw spellings, '\n'-separated.
	 */
	const char *const *spellings;
};

struct diff_opts {
	double alpha;		/* FDR level; 0 = 0.05 */
	double min_points;	/* effect floor, absolute-change keys; 0 = 0.1 */
	double min_pct;		/* effect floor, relative keys (%); 0 = 1.0 */
	double test_floor;	/* perf-profile keys tested when mean >= this; 0 = 0.05 */
	double novar_points;	/* 1-run threshold, absolute-change keys; 0 = 0.5 */
	double novar_pct;	/* 1-run threshold, relative keys (%); 0 = 5.0 */
	/*
	 * Rows are the robot's filter's (diff --robot without --all): the
	 * outputs say no significance test chose them.  Changes no number.
	 */
	bool robot;
	/*
	 * diff --force with one sampling event a side that differs (cycles
	 * against cpu-clock): the new side's perf-profile keys of event token
	 * alias_from (the key's third component, "cpu-clock") are read as
	 * alias_to's, so that the rows pair.  NULL: keys as they are.
	 */
	const char *alias_from, *alias_to;
	/*
	 * Ambient keys (DIFF_AMBIENT): those matching a glob of ambient[]
	 * (fnmatch, no flags), and unless no_ambient_defaults, those of
	 * keykind__ambient.
	 */
	const char *const *ambient;
	size_t nr_ambient;
	bool no_ambient_defaults;
	/*
	 * The workload's score keys (DIFF_SCORE): those matching the glob
	 * score (fnmatch), or when NULL those of keykind__score; "" none.
	 */
	const char *score;
	/*
	 * Run i of base was recorded beside run i of new (record
	 * --interleave's pairs, diffside.h's diff_sides__pairing): with as
	 * many runs a side, at least DIFF_MIN_PAIRS, every key is tested on
	 * its within-pair differences (the same model: each pair's sampling
	 * noise from its two runs' samples, a spread of the difference fitted
	 * over each family), so that the machine's drift between pairs,
	 * which both runs of a pair share, cancels.  Else unpaired.
	 */
	bool paired;
	/*
	 * --paired: paired is set from it and the sides by
	 * diff_opts__set_paired (diffside.h), which the diff engine, -g's
	 * chains and the flame graph's functions call.  Off by default: on the
	 * project's real corpus the paired test flagged more A/A diffs than
	 * the unpaired one at 3 and at 5 pairs (Documentation/statistics.md,
	 * Pairs); it wins where the machine drifts between pairs.
	 */
	bool pair;
	/*
	 * At most this many values (keys x runs), 0: DIFF_MAX_VALUES; the diff
	 * engine gives each of its tables what the ones before it left.
	 */
	size_t max_values;
};

/* A paired test needs this many pairs (2 leave one degree of freedom). */
#define DIFF_MIN_PAIRS 3

enum diff_verdict {
	DIFF_SAME,		/* tested, not significant (or under the test floor, or one value in every run of both sides) */
	DIFF_UP,		/* significant rise, past the effect floor */
	DIFF_DOWN,		/* significant fall, past the effect floor */
	DIFF_SMALL,		/* significant but under the effect floor */
	DIFF_CHANGED,		/* 1-run mode: past the labelled threshold */
	DIFF_CANT_TELL,		/* tested, not significant, and blind to a change of the effect floor */
};

#define DIFF_NEW	1u	/* absent from every base run */
#define DIFF_GONE	2u	/* absent from every new run */
#define DIFF_TESTED	4u	/* p and q are set */
#define DIFF_ROBOT	8u	/* the robot would print this row */
#define DIFF_AS_KEY	16u	/* << side: a frame on that side was spelled as the key */
/* (DIFF_AS_KEY << 1 is the new side's bit) */
#define DIFF_ADDRESS	64u	/* an address bucket (keykind__address): not compared */
#define DIFF_ONE_SIDE	128u	/* its family was measured on one side only: not compared */
/*
 * The machine's state, not the workload's effect (keykind__ambient): a
 * level read while the workload was not running.  Tested and given a
 * verdict, but shown apart ("the machines differed") and gated only by a
 * gate that names its family literally.
 */
#define DIFF_AMBIENT	256u
/*
 * The workload's score (keykind__score): its primary endpoint, tested
 * on its own spread alone, at alpha, apart from every other key.
 */
#define DIFF_SCORE	512u
/*
 * The detectable change is past what the scale can show: mde holds the
 * bound (100 points for a share; DIFF_MDE_MAX_PCT for a ratio) and the
 * row could not see a change of that size.
 */
#define DIFF_MDE_ABOVE	1024u
#define DIFF_MDE_MAX_PCT 1000.0

struct diff_row {
	char *key;		/* owned, normalised */
	double *v;		/* nb base values then nn new values (into diff.values) */
	struct stat_summary base, cur;
	double change;		/* new - base (absolute) or 100*(new-base)/base (relative) */
	double delta;		/* new - base, always */
	double rel;		/* 100*(new-base)/base with a zero base as 1e-100 */
	double p, q;		/* NAN unless DIFF_TESTED */
	/*
	 * NAN unless DIFF_TESTED: the smallest change the test would find
	 * with 80 % power at the row's BH threshold, in the row's change unit
	 * (points for absolute keys, % for relative ones), and the runs a
	 * side (of this length) that would make it the effect floor.
	 */
	double mde, runs_needed;
	bool absolute;		/* perf-profile* and *% keys */
	unsigned flags;
	enum diff_verdict verdict;
	uint32_t spelling;	/* 1 + index into diff.spellings; 0: spelled as the key */
};

/* The raw spellings of a perf-profile row's symbol part on each side. */
struct diff_spelling {
	char **name[2];		/* [side] owned, first seen first */
	size_t nr[2], alloc[2];
};

/* A run that disagrees with its side across many keys (see Verdicts). */
#define DIFF_DISTURBED	2.2	/* times the typical run's distance from its side's median */
struct diff_disturbed {
	int side;		/* 0 base, 1 new */
	size_t run;		/* index among the side's runs, from 0 */
	double ratio;		/* its distance over the typical run's */
	size_t keys;		/* the keys it was judged on */
};

/* A family's fitted noise (see Verdicts), for the JSON output and the docs. */
struct diff_family {
	char *name;		/* "perf-profile.children.cpu-clock", "proc-vmstat/log", ... */
	double phi;		/* shares: between-run squared coefficient of variation */
	double d0, s0;		/* the prior: degrees of freedom (INFINITY: all keys share it), scale */
	size_t tested, rejected;
};

struct diff {
	struct diff_row *rows;
	size_t nr, alloc;
	size_t nb, nn;		/* runs on each side */
	double *values;		/* nr * (nb + nn) */
	size_t nr_tested;
	size_t nr_address;	/* rows flagged DIFF_ADDRESS */
	/*
	 * Families (first key component: "perf-stat", "meminfo", "<workload>";
	 * per event for "perf-profile.*.<event>" and "tracepoint.<event>")
	 * with keys on one side only ([0]: base only, [1]: new only), e.g. a
	 * perf.data import has no perf-stat or workload keys, a side recorded
	 * with --mm has tracepoints the other lacks.  Their rows are flagged
	 * DIFF_ONE_SIDE: absent is "not measured", not "gone".
	 */
	char **one_side[2];
	size_t nr_one_side[2], alloc_one_side[2];
	bool novar;		/* a side has < 2 runs: thresholds, no test */
	struct diff_opts o;	/* with defaults filled in */
	struct diff_spelling *spellings;	/* only for rows spelled otherwise */
	size_t nr_spellings, alloc_spellings;
	struct diff_disturbed *disturbed;
	size_t nr_disturbed, alloc_disturbed;
	struct diff_family *families;	/* nr_families, in order of first row */
	size_t nr_families;
	/*
	 * Borrowed, NULL when none: the diff of the same sides' costs per op
	 * (cost.h, a diff__compute of its own so that its rows neither dilute
	 * nor change this one's FDR and fits), set by the diff engine
	 * (diffengine.h); gates read its rows as well as these (gate.h).
	 */
	const struct diff *cost;
	/*
	 * For the header's runs advice: over the tested rows of the first
	 * perf-profile.children family (family NULL when none), the median
	 * detectable change (points) and the median runs a side needed for
	 * the effect floor.
	 */
	struct {
		char *family;
		size_t rows;
		double mde, runs;
	} advice;
	/*
	 * The score rows (DIFF_SCORE) whose key some runs lack: a workload
	 * that failed in a run prints no score there (stress-ng's 0 bogo ops
	 * are its .fail key), and a missing value is no measurement of 0.
	 * The score is tested on the runs that have it, the table keeps the
	 * robot's zeros; untested when a side has none (or 2 runs in all).
	 */
	struct diff_score_runs {
		size_t row;
		size_t nb, nn;		/* the runs of each side that have the key */
		double mb, mn;		/* its mean over them (NAN over none) */
	} *score_runs;
	size_t nr_score_runs, alloc_score_runs;
	/*
	 * The pairs the rows were tested on (diff_opts.paired), 0 when the
	 * sides were compared as independent runs; then unpaired says why
	 * when the files carried a pairing that was not used (set by the
	 * caller that decided it, e.g. the diff engine; "" otherwise).
	 */
	size_t pairs;
	char unpaired[256];
};

/* The runs behind score row r when some lack its key, else NULL. */
const struct diff_score_runs *diff__score_runs(const struct diff *d, const struct diff_row *r);

/*
 * The values a diff tests, keys x runs: every key has a value in every
 * run (0 where the run lacks it), and the tests walk them dozens of times
 * (family fits).  The keys' budget (keys.h), about 4.5 s of CPU on a
 * loaded 2-CPU machine, for all the tables of one comparison (its
 * columns and their costs per op; robustness.md, What a reader may cost).
 */
#define DIFF_MAX_VALUES KEYS_MAX_VALUES

/*
 * Compare; d is initialised here.  0, -EINVAL (no runs on a side) or
 * -E2BIG (the keys x runs pass o->max_values; d is left empty).
 */
int diff__compute(struct diff *d, const struct diff_run *base, size_t nb,
		  const struct diff_run *cur, size_t nn, const struct diff_opts *o);
/* diff__compute's -E2BIG as one line, for nb and nn runs and max_values, into buf. */
void diff__values_refusal(size_t nb, size_t nn, size_t max_values, char *buf, size_t size);
void diff__release(struct diff *d);

/*
 * How a perf-profile row's frames were spelled, or NULL when every frame
 * on both sides was spelled as the key's symbol part (keykind__profile_symbol).
 * A side's list is empty when the side lacks the key.
 */
const struct diff_spelling *diff__spelling(const struct diff *d, const struct diff_row *r);
/* Both sides have the key, spelled differently: a function renamed between builds. */
bool diff_spelling__renamed(const struct diff_spelling *s);

/* The row of key (normalised form), or NULL. */
const struct diff_row *diff__find(const struct diff *d, const char *key);

/* Rows an output shows, in the robot's order (see lkp-format.md). */
enum diff_select {
	DIFF_SELECT_DEFAULT,	/* verdict UP/DOWN (or CHANGED in 1-run mode), not ambient */
	DIFF_SELECT_AMBIENT,	/* ambient rows that DEFAULT would show but for DIFF_AMBIENT */
	DIFF_SELECT_ALL,	/* every row */
	DIFF_SELECT_ROBOT,	/* the robot's filter */
};
/* Array of row pointers (free() it), *n set. */
const struct diff_row **diff__select(const struct diff *d, enum diff_select sel, size_t *n);
/*
 * The rows of a table of several compared columns, d[k] comparing the
 * base with column k (nd of them): every key that sel chooses in at least
 * one column, in the robot's order with the changes compared column by
 * column (compare.rb sorts by the array of them).  *n rows of nd row
 * pointers each, row i's column k at [i * nd + k], NULL where column k's
 * diff has no such key (absent from the base and that column).  free() it.
 */
const struct diff_row **diff__select_columns(const struct diff *d, size_t nd,
					     enum diff_select sel, size_t *n);

/* Does a row count for CI gates and headline views (UP/DOWN/CHANGED)? */
static inline bool diff_row__changed(const struct diff_row *r)
{
	return r->verdict == DIFF_UP || r->verdict == DIFF_DOWN || r->verdict == DIFF_CHANGED;
}
const char *diff_row__verdict_name(const struct diff_row *r);

/*
 * A relative change from nothing: a row in % whose base mean is 0 and
 * new mean is not.  It has no ratio: JSON prints its change as null, CSV
 * leaves it empty, markdown and HTML say "new".  The lkp table keeps the
 * robot's spelling (a zero base counts as 1e-100: +5.7e+106%) for the
 * keys the robot prints, and says "new" for mmprof's own (the costs per
 * op), which it never prints (Documentation/lkp-compat.md).
 * diff__from_zero: the same of a key's means, where there is no row.
 */
static inline bool diff__from_zero(bool absolute, double base_mean, double new_mean)
{
	return !absolute && base_mean == 0 && new_mean != 0;
}

static inline bool diff_row__from_zero(const struct diff_row *r)
{
	return diff__from_zero(r->absolute, r->base.mean, r->cur.mean);
}

/*
 * What a key is (absolute, an address bucket, ambient, the score, the
 * workload's own, which way is better) is keykind.h's.
 */

/* ---- text output (into an outbuf, outbuf.h; commands print it) ---- */

/* The robot's two header lines over a base and columns compared with it. */
void diff__lkp_header(struct outbuf *b, size_t columns);
/*
 * One robot row: means and population stddevs of both sides, byte for
 * byte as lkp-tests lib/compare.rb prints them.  marker, when not NULL,
 * is appended after the key (mmprof's verdict column for --all).  tint:
 * the change is one to see; when b->color, it is red if it rose, blue if
 * it fell (the flame-graph convention), the escapes around it alone.
 */
void diff__lkp_row(struct outbuf *b, const char *key, double mean_b, double sd_b,
		   double mean_n, double sd_n, const char *marker, bool tint);
/*
 * The same with n compared columns, each its change against the base,
 * its mean and stddev (compare.rb's show_perf_change with several
 * commits); each column's tint as diff__lkp_row's.
 */
struct diff_lkp_column {
	double mean, sd;
	bool tint;
};
void diff__lkp_columns(struct outbuf *b, const char *key, double mean_b, double sd_b,
		       const struct diff_lkp_column *col, size_t n, const char *marker);

enum diff_format { DIFF_FORMAT_LKP, DIFF_FORMAT_JSON, DIFF_FORMAT_CSV, DIFF_FORMAT_MARKDOWN };

/* The format named lkp, json, csv, markdown (or md) into *f: 0, or -EINVAL for another name. */
int diff_format__parse(const char *name, enum diff_format *f);

/*
 * The method as the outputs state it: how rows were chosen or tested and,
 * when tested, the detectable change and runs advice ("\n" between the
 * two sentences, none at the end).
 */
void diff__describe(struct outbuf *b, const struct diff *d);
/*
 * The workload's score first (DIFF_SCORE rows, its primary endpoint): a
 * line each, "score: KEY base -> new (change): verdict ...", after
 * prefix (or none); nothing without a tested score row.
 */
void diff__describe_score(struct outbuf *b, const struct diff *d, const char *prefix);

/*
 * The JSON object of a diff, left open so that a caller can add members
 * after the rows (cost, call chains) and close it (jsonw__end): opens
 * the object as member key of w's container (NULL: an element or the
 * document) and writes every member up to the rows (rows from
 * diff__select).  w laid out from the margin (jsonw__from_margin).
 */
void diff__json_open(struct jsonw *w, const char *key, const struct diff *d,
		     const struct diff_row *const *rows, size_t n);

/*
 * A table of a base and several compared columns (columns.c): nd diffs,
 * d[k] the base against column k named names[k], rows from
 * diff__select_columns (n rows of nd) chosen by sel.  lkp: the robot's
 * layout, a "%change %stddev" pair per column, each column coloured
 * where sel chose it there, --all's verdicts per column after the key;
 * csv: a line per row and column, the column's name first; markdown: a
 * value, change and verdict per column, then each column's method.  JSON
 * is one diff__json_open object per column (diff__column_rows): nothing
 * is written here for it.  At most DIFF_MAX_COLUMNS columns.
 */
enum { DIFF_MAX_COLUMNS = 64 };
void diff__format_columns(struct outbuf *b, const struct diff *d, size_t nd,
			  const char *const *names, const struct diff_row *const *rows, size_t n,
			  enum diff_format f, enum diff_select sel);
/*
 * --html with several columns: the page that chooses between the
 * columns' reports, a link per column (names[k], its files labels[k],
 * its report files[k], relative to the page) and the chosen report
 * below them.  Text through the XML escaper, links percent-encoded.
 */
void diff__html_columns_index(struct outbuf *b, const char *base_label,
			      const char *const *names, const char *const *labels,
			      const char *const *files, size_t nd);
/* Column k's rows of a diff__select_columns table, the absent left out, into out (n of room). */
void diff__column_rows(const struct diff_row *const *rows, size_t n, size_t nd, size_t k,
		       const struct diff_row **out, size_t *nout);

/*
 * Recorded settings that differ between sides (settings.c), printed
 * first in every format.  A setting is a file meta key of
 * diff__setting_key: thp_*, hugetlb_*, sysctl.*, kernel_cmdline,
 * cpu_model, nr_cpus_online, cpu_governor, numa_nodes, machine,
 * perf_event_paranoid, kptr_restrict (the kernel release and host have
 * header lines of their own).
 */
bool diff__setting_key(const char *name);
struct diff_settings_side {
	const struct profile *const *profiles;
	size_t nr;
};
struct diff_setting {
	char *name;		/* owned */
	char (*value)[4096];	/* [side], owned: its files' value, "a | b" when they differ, "-" none */
};
/* The settings whose value differs between sides into *out (n of them; release with the next). */
size_t diff__settings_differ(const struct diff_settings_side *sides, size_t nr_sides,
			     struct diff_setting **out);
void diff__settings_release(struct diff_setting *s, size_t n);
/*
 * The settings in a format, names[k] naming side k: lkp, a block of
 * "  name: base X, new Y" lines (nothing when n is 0); markdown, one
 * paragraph; CSV, "# setting differs,NAME,base,X,new,Y" comment lines
 * before the table; not JSON (the next).
 */
void diff__settings_format(struct outbuf *b, const struct diff_setting *s, size_t n,
			   const char *const *names, size_t nr_sides, enum diff_format f);
/* JSON: the member "settings_differ": [...] of w's object (always, [] when none). */
void diff__settings_json(struct jsonw *w, const struct diff_setting *s, size_t n,
			 const char *const *names, size_t nr_sides);

/* A CSV field: s through the text rule, quoted when it holds ',' or '"' (format.c; history's CSV too). */
void diff__csv_str(struct outbuf *b, const char *s);

/* CSV lines of rows in diff__format's columns, without its header line (more rows for its table). */
void diff__csv_rows(struct outbuf *b, const struct diff_row *const *rows, size_t n);

/*
 * The interrupt-enable skid named (skid.h), a line each, once for every
 * irq-enable site whose perf-profile.self share of a timer event
 * (cpu-clock, task-clock) reaches SKID_NOTE_SHARE on a side of one of
 * the nd diffs: its time is that of the interrupts-off sections before
 * it, not its own.
 */
void diff__skid_notes(struct outbuf *b, const struct diff *d, size_t nd);

/* rows (from diff__select) in a format; with_verdict adds the verdict to lkp rows. */
void diff__format(struct outbuf *b, const struct diff *d, const struct diff_row *const *rows,
		  size_t n, enum diff_format f, bool with_verdict);

/* A key as a markdown code span (format.c; the cost tables' too). */
void diff__md_key(struct outbuf *b, const char *s);

/*
 * The table's share test on rows that are not keys (diff -g's call paths,
 * src/chains/chains.c), in two steps.  diff__shares_init: d with nr rows of nb + nn
 * runs, every row's v pointing into d->values (the caller fills them:
 * points, base then new), no keys; 0 or -EINVAL (a side without runs).
 * diff__test_shares: every row whose mean on a side reaches the test
 * floor is tested as one perf-profile.children family named family
 * (phi and its shape, the prior with its trend, weighted BH over these
 * rows alone, the detectable change) from the samples of each run,
 * nsamp; rows get p, q, mde and their verdict.  diff__release frees d.
 */
int diff__shares_init(struct diff *d, size_t nr, size_t nb, size_t nn, const struct diff_opts *o);
void diff__test_shares(struct diff *d, const char *family, const double *nsamp);

#endif
