/*
 * chains-int.h: how a call path's frame is named and matched, shared by
 * chains.c (which pairs the files' paths by it) and chainview.c (which
 * finds a path's function among the table's rows by it).
 */
#ifndef MMPROF_CHAINS_INT_H
#define MMPROF_CHAINS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/chains.h"
#include "mmprof/profile.h"

/* Paths are tested from a mean of this many points on a side (chains.c). */
#define CHAINS_TEST_FLOOR 0.5

/* The name p's frame's path is matched by, into out: a key's symbol part, as the table's rows name it. */
void chains__leaf_name(const struct profile *p, uint32_t frame, char *out, size_t size);

/*
 * The hash of that name: robot suffixes and clone suffixes removed.
 * *clone: the frame's own spelling is not that (it had a suffix, or was
 * too long to compare): only such paths may be spelled otherwise by the
 * other build.
 */
uint64_t chains__sym_hash(const struct profile *p, uint32_t frame, bool *clone);

/* out[row] (cd->nr of them): chains__sym_hash of each row's leaf frame. */
void chains__leaf_hashes(const struct chain_diff *cd, uint64_t *out);

#endif
