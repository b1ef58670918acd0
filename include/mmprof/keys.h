/*
 * keys: a profile reduced to the kernel test robot's flat keys, per run.
 *
 * `mmprof report` prints the mean over runs of these; `mmprof diff`
 * compares them run by run with statistics.  Families (lkp-format.md):
 *   perf-profile.children.<ev>.<sym>     inclusive % of the event's total period
 *   perf-profile.self.<ev>.<sym>         exclusive %
 *   perf-profile.calltrace.<ev>.<f1>...  leaf-first 5-frame chain prefixes, %
 *   perf-stat.{ps,i,total,overall}.*     from counters and intervals
 *   perf-stat.scaled.<event>%            share of a multiplexed counter's value
 *                                        that was extrapolated (absent: none)
 *   proc-vmstat.*, meminfo.*             mm state metrics (mmstate.h)
 *   <workload metrics>, <name>.time.*    from struct metric and struct run
 * Symbol suffixes .isra.N/.constprop.N/.part.N are stripped and colliding
 * keys summed, as the robot does; whitespace in a name is '_' (keys hold
 * none: keys__key_symbol).  Keys under the robot's floors (0.05 for
 * perf-profile) are still produced here with their values; the floor is
 * applied when printing, so that diff sees small values on both sides.
 * A profile whose trie holds some chains only in part ("[elided]" nodes,
 * p->whole: chainsrc.h) has the keys it would have with every chain
 * whole: its perf-profile keys read those chains from the stream (two
 * walks a keycache batch, keys-int.h's chainkeys), and "[elided]" is no
 * key nor a frame of one.
 *
 * The keys engine is a module of its own (src/keys/): the symbol trie
 * (symview.h, included here), one run's keys (keys__run), keycache (every
 * run of a file, each key's text once), keytab (runs side by side) and
 * the key grammar (keykind.h: what kind of key a name is).  report, diff
 * and flame use it through these headers; it uses only the data model
 * (profile.h), the leaf utilities and, for keykind__ambient, the
 * recorder's list of proc-vmstat levels (mmstate.h), never its users.
 */
#ifndef MMPROF_KEYS_H
#define MMPROF_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/hashidx.h"
#include "mmprof/strintern.h"
#include "mmprof/profile.h"
#include "mmprof/symview.h"

struct key_value {
	char *key;		/* owned */
	double value;
};

struct keyvals {
	struct key_value *items;
	size_t nr, alloc;
};

void keyvals__add(struct keyvals *kv, const char *key, double value);
void keyvals__sort(struct keyvals *kv);	/* by key, strcmp order */
void keyvals__release(struct keyvals *kv);

/*
 * perf's callchain cut for the robot's calltrace keys (% of the total): a
 * chain under it is dropped, so a calltrace key is either absent or a sum
 * of chains at or above it.
 */
#define KEYS_CALLTRACE_CUT 0.5

/* "cycles:pp" -> "cycles-pp": the robot's spelling of an event in keys. */
void keys__event_name(const char *event, char *buf, size_t size);

/* Strip .isra.N, .constprop.N, .part.N (every occurrence) into buf. */
void keys__strip_suffixes(const char *sym, char *buf, size_t size);

/*
 * A symbol as a perf-profile key spells it, into buf: suffixes stripped,
 * and each space or tab written '_' ("std::vector<int, std::allocator<int>
 * >::push_back" -> "std::vector<int,_std::allocator<int>_>::push_back",
 * "operator new" -> "operator_new"), as the folded format writes a comm's
 * spaces: the robot's key lines ("key: value", dump-stat) refuse
 * whitespace in a key.  The frame's own spelling stays visible
 * (keycache__spellings).
 */
void keys__key_symbol(const char *sym, char *buf, size_t size);

/*
 * The <name> of "<name>.time.*": meta "workload", else the prefix of the
 * first workload metric, else the basename of the command after " -- " in
 * meta "cmdline" (or its first word), else "workload".
 */
void keys__workload_name(const struct profile *p, char *buf, size_t size);

/* All keys of one run of p, appended to out (unsorted). */
int keys__run(const struct profile *p, uint32_t run, struct keyvals *out);

/*
 * keys__run on a symview built once for the profile: the symbol
 * trie is the same for every run, so callers doing every run (keytab,
 * diff) build it once instead of once per run.
 */
void keys__run_view(const struct symview *v, uint32_t run, struct keyvals *out);

/*
 * keycache: the key strings of one symview, each formatted and interned
 * once (ids 0..keycache__nr()-1), so that callers doing every run of a
 * file (keytab, diff) pay for a key's text once per file, not once per
 * run.  keycache__run gives one run's keys as ids and values in exactly
 * the order and with the values keys__run_view gives; the arrays stay
 * valid until the next keycache__run or keycache__free.  Borrows v for
 * keycache__run only: once the last run is done v may be released, and
 * the names stay valid until keycache__free.  Memory: one id per symnode
 * and entry per event.
 */
struct keycache;
struct keyrun {
	const uint32_t *ids;
	const double *vals;
	size_t nr;
};
struct keycache *keycache__new(const struct symview *v);
void keycache__free(struct keycache *c);	/* NULL is fine */
/*
 * No keycache__run after this (a diff's file once its runs are made):
 * what runs are built with goes, one id per symnode and entry per event,
 * the name index and the buffers; the names and spellings stay until
 * keycache__free.
 */
void keycache__done(struct keycache *c);
/*
 * The robot's own arithmetic instead of exact values (report --robot),
 * before the first keycache__run: a perf-profile key is the sum of the
 * two-decimal values perf prints (one per (DSO, symbol) entry, one per
 * folded callchain line), as programs/perf-profile/parse adds them; the
 * perf-stat keys follow programs/perf-stat/parse (ps.* the complete
 * intervals over the whole run time, i.* a missing interval as 0).
 */
void keycache__set_robot(struct keycache *c, bool robot);
void keycache__run(struct keycache *c, uint32_t run, struct keyrun *out);
const char *keycache__name(const struct keycache *c, uint32_t id);
/*
 * 0, or the negative errno (chainsrc.h: -EIO, -EPROTO) of a walk of the
 * profile's whole chains (p->whole) that failed: the perf-profile keys of
 * the runs made since are then short of the chains it did not read.
 */
int keycache__error(const struct keycache *c);
size_t keycache__nr(const struct keycache *c);
/*
 * The original spellings behind the perf-profile keys (issue 3: keys are
 * a normalised identity, the raw names stay visible): [id] is NULL when
 * every frame behind key id was spelled as the key's symbol part (the
 * text after "perf-profile.<family>.<event>."), else those frames' raw
 * spellings, '\n'-separated, first seen first (the key's own text among
 * them when some frame was spelled so); a calltrace key's spelling is its
 * chain of raw names joined by '.'.  Indexed by id, keycache__nr() long,
 * or NULL when no key has a spelling of its own (the usual file); valid
 * until the next keycache__run or keycache__free.
 */
const char *const *keycache__spellings(const struct keycache *c);

/*
 * keytab: keys of every run side by side, for printing means (report) and
 * their runs' values.  A key missing from a run is 0 in that run.  Each row
 * holds only the runs the key has, in run order: a file of many runs and
 * many keys that each appear in few of them costs what it holds, not
 * keys x runs (10,000 runs of 100,000 distinct keys once asked for 14 GB).
 */
struct keycell {
	uint32_t run;
	double val;
};

struct keyrow {
	struct keycell *cells;	/* owned, run ascending */
	size_t nr, alloc;
};

struct keytab {
	const char **keys;	/* [k]: key k, in names */
	struct keyrow *rows;	/* rows[k]: key k's runs */
	size_t nr, alloc, nr_runs;
	struct strintern names;	/* private: the keys' text, indexed while building */
};

/*
 * The keys of a file: each costs about 600 bytes in the keys' tables (its
 * name in the cache and the table, their indexes, the memo of what made
 * it), and events x functions is bounded by no table's limit: 256 events
 * x 25,400 functions, a 0.5 MB file, asked for 13 M keys (killed at 120 s
 * of CPU).  One event at import's frames budget (546,133) makes 1.1 M.
 */
#define KEYS_MAX_KEYS ((size_t)1 << 21)

/*
 * 0, or -E2BIG when the file's events' functions are more than
 * KEYS_MAX_KEYS keys (checked before any key is made).
 */
int keytab__build(struct keytab *kt, const struct profile *p);
/* keytab__build's -E2BIG, said in e: what it means and what to do.  Returns -E2BIG. */
int keytab__too_many_keys(struct errmsg *e);
/* keytab__build with the robot's arithmetic (keycache__set_robot). */
int keytab__build_robot(struct keytab *kt, const struct profile *p);
void keytab__release(struct keytab *kt);
double keytab__val(const struct keytab *kt, size_t k, size_t run);	/* 0 where absent */
/* Mean and population standard deviation (÷ n) over all runs, absent = 0:
 * the same numbers, bit for bit, as over a dense row of nr_runs values. */
double keytab__mean(const struct keytab *kt, size_t k);
double keytab__stddev(const struct keytab *kt, size_t k);
/* Sort rows by family (text before the first '.') then key. */
void keytab__sort(struct keytab *kt);

/*
 * The values of a view that has every key in every run (0 where a run
 * lacks it), keys x runs: report --json and report --keys --runs print
 * them all, diff tests them (DIFF_MAX_VALUES is this budget).  A keytab
 * holds the cells a file has, so building it costs what the file holds;
 * printing it dense does not: 526,088 keys x 200 runs from a 2.3 MB file
 * were 384 MB of JSON and 19.6 s.  2^24 values are 128 MB as doubles
 * and at most about 330 MB of JSON (robustness.md, What a reader may
 * cost).
 */
#define KEYS_MAX_VALUES ((size_t)1 << 24)

/*
 * Does a view of nr_keys of kt's keys in each of its runs fit in
 * KEYS_MAX_VALUES?  0, or -E2BIG with one line in e naming view ("report
 * --json prints") and what to do instead (todo).
 */
int keytab__check_values(const struct keytab *kt, size_t nr_keys, const char *view,
			 const char *todo, struct errmsg *e);

/*
 * The robot's floor: perf-profile keys whose two-decimal print is under
 * 0.05 are not shown (0.0495 prints as 0.05 and is shown).
 */
bool keys__shown(const char *key, double value);
/* Print a value with the precision its family deserves into buf. */
void keys__format_value(const char *key, double value, char *buf, size_t size);

/*
 * p->whole (chainsrc.h) through v's entries, for a reader of entry shares
 * (report's entry lines, perf report --children) that wants them as with
 * every chain whole in the trie: one walk of the stream as the keys'
 * (chainkeys.c), and for each chain whose samples count in v (the
 * build's rule: skipped frames, max_stack, the sampled frame) its
 * distinct entries, each once, the entry it is sampled in (self) and its
 * cells.  Memory: the chain's depth, a stamp per entry, the frame map.
 * The trie's cells under "[elided]" nodes (profile__elided_nodes) are
 * these chains' cells: such a reader skips them.  0 without p->whole;
 * else the walk's error.
 */
struct chain_cell;
struct chain_entries {
	const uint32_t *entries;	/* v's entries, each once, innermost first */
	uint32_t nr;			/* >= 1 */
	uint32_t self;			/* the entry sampled */
	const struct chain_cell *cells;
	uint32_t nr_cells;
	uint32_t nr_frames;		/* the chain's own frames (chain_rec.nr) */
};
typedef void (*chain_entries_fn)(void *ctx, const struct chain_entries *c);
int chainkeys__each_entries(const struct symview *v, chain_entries_fn fn, void *ctx);

#endif
