/*
 * keys-int.h: what the keys engine's files share (src/keys/ only).
 *
 * keys.c makes the perf-profile keys and runs the cache; statkeys.c the
 * perf-stat keys of a run's counters and the workload's own keys; both
 * emit into a keymap (keyvals.c), which adds up keys that collide.  keys.c
 * calls statkeys.c and keyvals.c, statkeys.c calls keyvals.c: one way.
 */
#ifndef MMPROF_KEYS_INT_H
#define MMPROF_KEYS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mmprof/hashidx.h"
#include "mmprof/strintern.h"
#include "mmprof/keys.h"
#include "mmprof/profile.h"

/*
 * keymap: key string -> summed value, so that colliding keys (stripped
 * suffixes, one symbol in several DSOs) add up before they are emitted;
 * also a run's counter names and their values (statkeys.c).
 */
struct keymap {
	struct strintern keys;	/* key i is keys.s[i], in order first added */
	double *vals;		/* [i] its sum */
	size_t alloc_vals;
};

/* Add value to key's sum (the key is copied).  { 0 } is an empty map. */
void keymap__add(struct keymap *m, const char *key, double value);
static inline size_t keymap__nr(const struct keymap *m)
{
	return m->keys.nr;
}
static inline const char *keymap__key(const struct keymap *m, size_t i)
{
	return m->keys.s[i];
}
/* key's sum, 0 when it was never added */
double keymap__get(const struct keymap *m, const char *key);
void keymap__release(struct keymap *m);

/*
 * statrows: the profile's counters, intervals and metrics grouped by run
 * (in file order within a run), built once per keycache (statkeys.c), so
 * that each run's perf-stat and workload keys read the run's own rows:
 * scanning every row for every run cost runs x rows (10,000 runs and
 * 200,000 metrics took 7 s).  Also what every run shares: the workload's
 * name, and a scratch flag per string id, all clear between calls.
 */
enum { STATROWS_COUNTERS, STATROWS_INTERVALS, STATROWS_METRICS, STATROWS_NR };

struct statrows {
	bool built;
	size_t *start[STATROWS_NR];	/* [run] .. [run + 1]: the run's part of idx */
	uint32_t *idx[STATROWS_NR];
	uint8_t *blocked;		/* [string id] */
	char name[256];			/* keys__workload_name */
};

void statrows__build(struct statrows *s, const struct profile *p);
void statrows__release(struct statrows *s);

/*
 * The perf-stat.* keys of run's counters and intervals (statkeys.c); a
 * key of 0 is left out, as the robot's dump-stat drops a stat that is 0
 * in every record.  robot: programs/perf-stat/parse's formulas
 * (keycache__set_robot).
 */
void keys__perf_stat(const struct profile *p, struct statrows *rows, uint32_t run,
		     bool robot, struct keymap *m);
/* The workload's own keys: its metrics and <name>.time.* (statkeys.c). */
void keys__workload(const struct profile *p, const struct statrows *rows, uint32_t run,
		    struct keymap *m);

/*
 * chainkeys (chainkeys.c): the perf-profile keys' share of a profile's
 * whole chains (p->whole, chainsrc.h), read in one walk of the stream per
 * keycache batch, so that the keys of a profile whose trie elides part of
 * some chains ("[elided]" nodes) are those of the same profile with every
 * chain whole in its trie.  A cell whose trie node lies under an
 * "[elided]" node is not read from the trie (chainkeys__skip): its whole
 * chain stands in its place, mapped to v's entries as the build maps
 * frames (symview__frame_map), with the build's rule for whether its
 * samples count.  Per (run, event) slot, rows of:
 *   CHAINKEY_CHILDREN  entry: the period of chains that hold it (once a chain)
 *   CHAINKEY_SELF      entry: the period of chains sampled in it
 *   CHAINKEY_INNER     symnode of v: the period of chains whose innermost
 *                      occurrence of its entry is there (symview__cumulate's
 *                      inner), for a symbol path the trie's view has
 *   CHAINKEY_PATH      a symbol path v has not: its inner period, its key
 *                      named by chainkeys__tail
 * Exact in bounded memory: the symbol paths beyond v are as many as the
 * whole chains' own symbol trie has nodes (the 27 M of the worst case),
 * so the walk goes twice: the first adds their inner weights to a
 * count-min sketch (at most 8 MB), which never underestimates, and the
 * second keeps exactly the paths whose estimate reaches perf's 0.5 %
 * floor of their slot, at most 200 true lines a slot and entry plus the
 * sketch's false ones.  Memory: per chain its depth, per entry a stamp,
 * per symnode of v its index, per trie node a byte, the sketch, then one
 * row per (slot, key) the chains give.  CHAINKEYS_MAX_PATHS is a last bound on
 * the paths kept (past it a line is counted in chainkeys__lost, not
 * keyed); no test reaches it.
 */
enum { CHAINKEY_CHILDREN, CHAINKEY_SELF, CHAINKEY_INNER, CHAINKEY_PATH };

#define CHAINKEYS_TAIL 5		/* frames of a calltrace key */
#define CHAINKEYS_MAX_PATHS ((size_t)1 << 20)

struct chainkey_row {
	uint32_t slot, kind, id;
	double w;
};

struct chainkeys;
/*
 * The whole chains' rows of v's profile (NULL without p->whole).  robot:
 * a name with a blank drops a chain as well (keycache__set_robot).
 */
struct chainkeys *chainkeys__new(const struct symview *v, bool robot);
void chainkeys__free(struct chainkeys *ck);	/* NULL is fine */
/* Is profile node n under an "[elided]" node (its cells read from the chains)? */
bool chainkeys__skip(const struct chainkeys *ck, uint32_t n);
/* Slot s (run * nr_events + event): its rows in *rows, *nr of them; returns its period. */
double chainkeys__slot(const struct chainkeys *ck, size_t s, const struct chainkey_row **rows,
		       size_t *nr);
/* A CHAINKEY_PATH's entries, innermost first: how many (1 .. CHAINKEYS_TAIL). */
size_t chainkeys__tail(const struct chainkeys *ck, uint32_t path, const uint32_t **entries);
/*
 * c's chains' rows (keycache__new's view), walked now if no run was made
 * yet, kept for the runs; NULL without p->whole or runs (keys.c).
 */
const struct chainkeys *keycache__whole(struct keycache *c);
/* Period of the chains' calltrace lines past CHAINKEYS_MAX_PATHS (not keyed); the walk's error. */
uint64_t chainkeys__lost(const struct chainkeys *ck);
int chainkeys__error(const struct chainkeys *ck);

/*
 * Is a frame's name one that drops every chain through it from perf's
 * folded lines?  A sample whose callchain perf rejected has none (its
 * chain is empty; profile.h's marker frame is its outermost), and in robot
 * mode a line with a blank is no "^X.XX% \S+$" line: lost to the robot.
 */
static inline bool keys__frame_drops_chain(const char *name, bool robot)
{
	return !strcmp(name, PROFILE_REJECTED_CHAIN) || (robot && strpbrk(name, " \t"));
}

#endif
