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

#endif
