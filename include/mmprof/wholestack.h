/*
 * wholestack: what the writers of whole stacks share (report --folded,
 * export -f json and pprof: one line or record per stack, each written
 * whole) to read a profile whose trie holds some chains only in part
 * (chainsrc.h, issue 30): the trie's cells that are not under an
 * "[elided]" node (profile__elided_nodes), then p->whole's chains in
 * their place, each with its cells.  A profile without p->whole is read
 * as its trie alone, "[elided]" frames and all, byte for byte as before.
 *
 * Each writer walks p->whole once to count what it would write (its
 * budget, REPORT_MAX_FOLDED_FRAMES or EXPORT_MAX_FRAMES, is over the
 * whole chains' frames, checked before its first byte) and again to
 * write; what it holds is bounded by what it writes.
 */
#ifndef MMPROF_WHOLESTACK_H
#define MMPROF_WHOLESTACK_H

#include <stdint.h>

#include "mmprof/chainsrc.h"
#include "mmprof/profile.h"

/*
 * 0 when c has a frame and every frame of c is one of p's, else -EPROTO
 * (a chain of no frame has no sampled frame to read): a writer checks
 * each chain before it looks its frames up (a source from a file is
 * validated when loaded; this keeps a reader safe from any other).
 */
int wholestack__check(const struct profile *p, const struct chain_rec *c);

#endif
