/*
 * keys-int.h: what the keys engine's files share (src/keys/ only).
 *
 * keys.c makes the perf-profile keys and runs the cache; statkeys.c the
 * perf-stat keys of a run's counters and the workload's own keys; both
 * emit into a keymap, which adds up keys that collide.
 */
#ifndef MMPROF_KEYS_INT_H
#define MMPROF_KEYS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/hashidx.h"
#include "mmprof/keys.h"
#include "mmprof/profile.h"

/*
 * keymap: key string -> summed value, so that colliding keys (stripped
 * suffixes, one symbol in several DSOs) add up before they are emitted.
 */
struct keymap {
	struct key_value *items;
	size_t nr, alloc;
	struct hashidx idx;
};

/* Add value to key's sum (the key is copied). */
void keymap__add(struct keymap *m, const char *key, double value);

/* The perf-stat.* keys of run's counters and intervals (statkeys.c). */
void keys__perf_stat(const struct profile *p, uint32_t run, struct keymap *m);
/* The workload's own keys: its metrics and <name>.time.* (statkeys.c). */
void keys__workload(const struct profile *p, uint32_t run, struct keymap *m);

#endif
