/*
 * strdist: how far apart two short strings are, for "did you mean"
 * (a command name, a gate's key).
 *
 * strdist__within(a, b, max): is the Levenshtein distance of a and b (one
 * byte inserted, deleted or replaced per step) at most max?  A pure
 * function; quits early when the lengths alone differ by more than max,
 * and otherwise takes O(len(a) * len(b)) steps on one row of
 * len(b) + 1 sizes (strings past STRDIST_MAX_LEN are never within).
 * Workload: thousands of keys of ~60 bytes against one name.
 *
 * strdist__typo_max(name): the distance a typo of name may reach: 1 for
 * names under 6 bytes, 2 from there on (clear_page_ermz is one step from
 * clear_page_erms; "dif" one from "diff").
 */
#ifndef MMPROF_STRDIST_H
#define MMPROF_STRDIST_H

#include <stdbool.h>
#include <stddef.h>

enum { STRDIST_MAX_LEN = 1024 };

bool strdist__within(const char *a, const char *b, size_t max);
size_t strdist__typo_max(const char *name);

#endif
