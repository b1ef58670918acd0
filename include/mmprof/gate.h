/*
 * gate: CI conditions on a diff, "GLOB OP NUMBER[%]".
 *
 *   perf-profile.children.*.__split_huge_pmd > +1.0   absolute: new - base > 1.0
 *   perf-stat.ps.page-faults < -5%                    relative: 100*(new-base)/base < -5
 *   'perf-profile.self.cpu-clock.void Hot.main(java.lang.String[])' > 1
 *
 * GLOB is fnmatch(3) without flags ('*' crosses dots) against the
 * normalised key, and a key equal to GLOB character for character always
 * matches too, so that a key's own spelling names it even when it holds
 * '[' or '*' ("int[] f(char[])").  GLOB is written bare (up to a blank or
 * '<' '>') or quoted, '...' or "...", when it holds blanks or '<' '>' (C++
 * templates, Java signatures, the "<=N" buckets of tracepoint latency
 * histograms); there are no escapes inside quotes, so a key holding one
 * kind of quote is written in the other (or with '?').  A blank or tab in
 * GLOB is read '_', as keys write a symbol's blanks (keys.h), so that the
 * symbol's own spelling ('hot<long, int>') names its key.  OP one of > >= <
 * <=; a number without '%' is an absolute difference in the key's own unit
 * (points for perf-profile and *% keys).  Parsing is a pure function of
 * the string (fuzzable): it never prints, and on error says at which
 * 1-based column it failed.
 *
 * A GLOB preceded by '=' (=perf-profile.self.cpu-clock.new_fn > 1, or
 * ='...' quoted) is meant as written: a literal key that matches no row
 * but is a few edits from a key that does (clear_page_ermz beside
 * clear_page_erms, gate__near_key) is an error ("did you mean"), unless
 * written so.  A key that starts with '=' is written quoted.
 *
 * Which rows a gate counts (gate__applies, gate__count):
 *   - never an address bucket or a row of a family one side did not
 *     measure (DIFF_ADDRESS, DIFF_ONE_SIDE): they have no comparison;
 *   - a row of the machine's ambient state (DIFF_AMBIENT: meminfo levels
 *     and the like) only when the gate names its family: GLOB's first
 *     component (the text before the first '.') is literal, without
 *     * ? [ or \, and equal to the row's first component.  "meminfo.Dirty"
 *     and "meminfo.*" name meminfo.Dirty; "*.Dirty" and "*" do not;
 *   - a cost per op (cost.h: cost.self.<event>.<fn>, cost.part..., the
 *     diff's cost rows, d->cost) likewise only when the gate's first
 *     component is "cost", so that gates written before costs existed
 *     ('*.__split_huge_pmd > 1') count what they always counted.
 *
 * A gate that matches no row at all may still name a key absent from both
 * sides because it was 0 in every run: a function that was never sampled.
 * Such a gate compares 0 with 0 (gate__count's absent).  A key is absent
 * as a measured 0 only in a family whose present keys show that its
 * domain was measured; the domain of a compared row's key is:
 *   perf-profile.<children|self|calltrace>.<event>.<symbol...>
 *                         "perf-profile.<kind>.<event>": the event took
 *                         samples; the symbol is all that follows the
 *                         third '.', dots included (foo.cold, Hot.main);
 *   tracepoint.<event>.<field>.<bucket>, tracepoint.<event>.count
 *                         "tracepoint.<event>" (event sys:name): the
 *                         tracepoint was recorded; an absent bucket or
 *                         field is 0 hits (a field name is not checked);
 *   cost.<self|children|part>.<event>.<function...>
 *                         "cost.<kind>.<event>": the event took samples
 *                         and the work was known; a function without
 *                         samples, or under cost.h's COST_KEY_FLOOR
 *                         everywhere, costs 0 per op;
 *   perf-sched.<stat>.<agg>.<unit>.<stack...>
 *                         "perf-sched.<stat>.<agg>.<unit>": a stack that
 *                         never waited;
 *   perf-stat.scaled.<counter>%
 *                         perf-stat.ps.<counter>: a counter that was never
 *                         multiplexed has no scaled key;
 *   any other key         the key itself: proc-vmstat.X and meminfo.X (the
 *                         kernel prints every one it has), the other
 *                         perf-stat.* (a derived ratio is absent when an
 *                         input was 0, which does not make it 0), the
 *                         workload's <name>.<metric> and <name>.time.*;
 *                         an absent one is a typo or a kernel without it.
 * GLOB names a domain D when it matches "D." followed by some text, e.g.
 * perf-profile.children.*.__split_huge_pmd names perf-profile.children.
 * cpu-clock; perf-profle.children.*.x or perf-profile.children.cycles.x
 * on cpu-clock files name none, and stay errors.
 */
#ifndef MMPROF_GATE_H
#define MMPROF_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/diff.h"
#include "mmprof/errmsg.h"
#include "mmprof/strlist.h"

enum gate_op { GATE_GT, GATE_GE, GATE_LT, GATE_LE };

struct gate {
	char *glob;		/* owned */
	char *key_glob;		/* owned: glob with blanks '_' when it has any, else NULL */
	bool meant;		/* written =GLOB: no "did you mean" (gate__near_key) */
	enum gate_op op;
	double value;
	bool relative;		/* value was given with '%' */
};

/* Parse one expression into g (release with gate__release).  0 or -EINVAL + e. */
int gate__parse(const char *expr, struct gate *g, struct errmsg *e);
void gate__release(struct gate *g);

/* Does the key match (fnmatch, or equal to the glob), and does its change (delta or rel %) satisfy the condition? */
bool gate__matches(const struct gate *g, const char *key);
bool gate__trips(const struct gate *g, double delta, double rel);

/* Is GLOB's first component literal and equal to key's (the ambient rule above)? */
bool gate__names_family(const struct gate *g, const char *key);

/* Does the gate count row r (the rules above)? */
bool gate__applies(const struct gate *g, const struct diff_row *r);

/*
 * Could the gate name a key of present_key's domain (above) that no run
 * produced?  false when present_key's domain is the key itself.
 */
bool gate__names_absent(const struct gate *g, const char *present_key);

/*
 * A typo's likely target: for a gate whose GLOB is a literal key (no * ?
 * [ or \) and was not written =GLOB, the key of a compared row of d (or
 * of d->cost) within strdist__typo_max edits of GLOB, the nearest first;
 * NULL when none.  A gate that matches no row but names an absent key
 * of a measured domain (gate__count's absent) is a typo rather than a
 * function never sampled when this finds a key: clear_page_ermz where
 * clear_page_erms is a row.  Borrowed from d.
 */
const char *gate__near_key(const struct gate *g, const struct diff *d);

/* What a gate matches among a diff's rows (and its cost rows, d->cost). */
struct gate_matches {
	size_t rows;		/* rows it counts (gate__applies) */
	size_t uncompared;	/* matched address buckets and one-sided rows */
	size_t ambient;		/* matched ambient rows of a family it does not name */
	size_t cost;		/* matched cost rows by a gate not naming "cost." */
	/*
	 * The gate matches no row at all, and names the domain of a compared
	 * row: the key it means is absent from both sides, compared as 0 -> 0.
	 */
	bool absent;
};
void gate__count(const struct gate *g, const struct diff *d, struct gate_matches *m);

/* "> +1" / "< -5%" after the glob, quoted when it needs to be, into buf (parses back). */
void gate__describe(const struct gate *g, char *buf, size_t size);

/* ---- a CI run's gates (gaterun.c) ---- */

/*
 * A gate file's expressions, one a line ('#' starts a comment outside a
 * quoted key; blank lines skipped), appended to out.  0, or -errno and e
 * ("cannot open gate file 'x': ...").
 */
int gate__read_file(const char *path, struct strlist *out, struct errmsg *e);

/* What one gate tripped on. */
struct gate_trips {
	const struct diff_row **rows;	/* owned: the rows it tripped on, in d's order */
	size_t nr;
	/*
	 * No row applied, and with any (--fail-on-any) the gate trips on its
	 * key absent from both sides, 0 -> 0 (gate__count's absent): never a
	 * significant change, so only any can trip it.
	 */
	bool absent;
};

/*
 * The rows g trips on among d's (those gate__applies counts; with any
 * every change, else only changed rows, diff_row__changed).  Release t
 * with gate_trips__release.
 */
void gate__evaluate(const struct gate *g, const struct diff *d, bool any, struct gate_trips *t);
void gate_trips__release(struct gate_trips *t);

/*
 * What tripped, in one line appended to out: row r ("KEY 1.2 -> 3.4 (+2.2
 * points, +183%, q=0.001, up)", the key by the text rule, escape.h), or
 * with r NULL g's key absent from both sides.  The words every output of a
 * gate says it with (stderr, diff --junit, diff --summary).
 */
void gate__trip_text(const struct gate *g, const struct diff_row *r, struct outbuf *out);

#endif
