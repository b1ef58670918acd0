/*
 * savechain: format 5's chain_blocks, the profile's whole chains
 * (p->whole, chainsrc.h) walked once in order and written block by block
 * (chainblk.h).  Each chain is checked as the loader checks it, so that a
 * bug upstream is an error naming the chain, never a file every reader
 * refuses: the order, the frames (existing, never "[elided]"), the depth,
 * the cells (sorted, each once, of existing runs, events and strings, at
 * least one sample), the sums below 2^63; and the chains' samples and
 * periods those of the trie's cells under "[elided]" nodes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mmprof/chainsrc.h"
#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "chainblk.h"
#include "save-int.h"
#include "schema.h"

struct chainsave {
	struct saver *s;
	struct chainenc enc;
	const unsigned char *elided;	/* bit per frame */
	uint32_t *prev;			/* the chain before */
	size_t nr_prev, alloc_prev;
	uint64_t ordinal, frames, samples, period, unpacked, blk;
	int err;
};

static int write_block(struct chainsave *cs)
{
	struct saver *s = cs->s;
	struct chainblk_hdr h;
	size_t size = chainenc__flush(&cs->enc, &h);

	if (size > DATAFILE_CHAIN_BLOCK_MAX)
		return saver__bad(s, -ERANGE, "chain_blocks", (size_t)cs->blk,
				  "chain %llu alone takes %zu bytes, over a block's %u",
				  (unsigned long long)cs->ordinal - 1, size, DATAFILE_CHAIN_BLOCK_MAX);
	cs->unpacked += size;
	if (cs->unpacked > DATAFILE_MAX_CHAIN_UNPACKED)
		return saver__bad(s, -ERANGE, "chain_blocks", (size_t)cs->blk,
				  "the chains take more than the %llu MiB a reader unpacks",
				  DATAFILE_MAX_CHAIN_UNPACKED >> 20);
	sqlite3_bind_int64(s->st, 1, (int64_t)cs->blk++);
	sqlite3_bind_int64(s->st, 2, (int64_t)h.chains);
	sqlite3_bind_int64(s->st, 3, (int64_t)h.frames);
	sqlite3_bind_int64(s->st, 4, (int64_t)h.cells);
	sqlite3_bind_int64(s->st, 5, (int64_t)h.samples);
	saver__bind_block(s, 6, h.data, h.size);
	return saver__step(s);
}

static int check_chain(struct chainsave *cs, const struct chain_rec *c, uint32_t *lcp)
{
	struct saver *s = cs->s;
	const struct profile *p = s->p;
	size_t row = (size_t)cs->ordinal, n;
	uint32_t i, g = 0;
	uint64_t sum_s = 0, sum_p = 0;
	int err;

	if (!c->nr || c->nr > DATAFILE_MAX_DEPTH)
		return saver__bad(s, -ERANGE, "chain_blocks", row, "chain of %u frames (1 to %u)",
				  c->nr, DATAFILE_MAX_DEPTH);
	for (i = 0; i < c->nr; i++) {
		uint32_t f = c->frames[i];

		if (f >= p->nr_frames)
			return saver__bad(s, -EINVAL, "chain_blocks", row, "frame %u does not exist", f);
		if (cs->elided[f / 8] >> (f % 8) & 1)
			return saver__bad(s, -EINVAL, "chain_blocks", row, "frame %u is \"[elided]\"", f);
	}
	n = c->nr < cs->nr_prev ? c->nr : cs->nr_prev;
	while (g < n && c->frames[g] == cs->prev[g])
		g++;
	if (cs->ordinal && (g == c->nr || (g < cs->nr_prev && c->frames[g] < cs->prev[g])))
		return saver__bad(s, -EINVAL, "chain_blocks", row,
				  "the chain is not after the one before it (chainsrc.h's order)");
	if (!c->nr_cells)
		return saver__bad(s, -EINVAL, "chain_blocks", row, "the chain has no cell");
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *x = &c->cells[i];

		if ((err = saver__check_run(s, "chain_blocks", row, x->run)) ||
		    (err = saver__check_str(s, "chain_blocks", row, x->comm)) ||
		    (err = saver__check_count(s, "chain_blocks", row, x->samples)) ||
		    (err = saver__check_count(s, "chain_blocks", row, x->period)))
			return err;
		if (x->event >= p->nr_events)
			return saver__bad(s, -EINVAL, "chain_blocks", row, "event %u does not exist", x->event);
		if (x->pid > INT32_MAX)
			return saver__bad(s, -EINVAL, "chain_blocks", row, "pid %u is out of range", x->pid);
		if (!x->samples)
			return saver__bad(s, -EINVAL, "chain_blocks", row, "a cell of 0 samples");
		if (i && (x[-1].run > x->run || (x[-1].run == x->run && (x[-1].event > x->event ||
		    (x[-1].event == x->event && (x[-1].comm > x->comm ||
		    (x[-1].comm == x->comm && x[-1].pid >= x->pid)))))))
			return saver__bad(s, -EINVAL, "chain_blocks", row,
					  "cells not sorted by (run, event, comm, pid), each once");
		sum_s += x->samples;
		sum_p += x->period;
		if (sum_s > INT64_MAX || sum_p > INT64_MAX || cs->samples + sum_s > INT64_MAX ||
		    cs->period + sum_p > INT64_MAX)
			return saver__bad(s, -ERANGE, "chain_blocks", row,
					  "the samples or periods of the chains add up to 2^63 or more");
	}
	cs->samples += sum_s;
	cs->period += sum_p;
	*lcp = g;
	return 0;
}

static int save_chain(void *ctx, const struct chain_rec *c)
{
	struct chainsave *cs = ctx;
	uint32_t g = 0;
	int err;

	if ((err = check_chain(cs, c, &g)))
		goto fail;
	if (cs->enc.chains && cs->enc.est + chainenc__bound(c, g) > CHAINBLK_TARGET &&
	    (err = write_block(cs)))
		goto fail;
	/* a block's first chain is whole: blocks unpack on their own */
	chainenc__add(&cs->enc, c, cs->enc.chains ? g : 0);
	XGROW(cs->prev, cs->alloc_prev, c->nr);
	memcpy(cs->prev + g, c->frames + g, (c->nr - g) * sizeof(*c->frames));
	cs->nr_prev = c->nr;
	cs->frames += c->nr;
	cs->ordinal++;
	return 0;
fail:
	cs->err = err;
	return 1;
}

int saver__write_chain_blocks(struct saver *s)
{
	const struct profile *p = s->p;
	struct chainsave cs = { .s = s };
	uint64_t tree_s, tree_p;
	int err;

	s->droppable = false;	/* a chain left out would break the sums below */
	if ((err = saver__prepare(s, "INSERT INTO chain_blocks VALUES(?,?,?,?,?,?,?)")) || !p->whole)
		return err;
	cs.elided = datafile__elided_frames(p);
	err = chainsrc__each(p->whole, save_chain, &cs);
	if (cs.err) {
		err = cs.err;
		goto out;
	}
	if (err) {
		s->chains_unread = true;
		err = errmsg__set(s->e, err < 0 ? err : -EIO,
				  "cannot write '%s': the chains could not be read (%s)", s->path,
				  err == -EPROTO ? "a block breaks the format" :
				  err < 0 ? strerror(-err) : "the walk stopped");
		goto out;
	}
	if (cs.enc.chains && (err = write_block(&cs)))
		goto out;
	if (cs.ordinal != p->whole->nr_chains || cs.frames != p->whole->nr_frames ||
	    cs.samples != p->whole->samples) {
		err = saver__bad(s, -EINVAL, "chain_blocks", (size_t)cs.blk,
				 "the chain source says %llu chains, %llu frames and %llu samples, its walk gave %llu, %llu and %llu",
				 (unsigned long long)p->whole->nr_chains,
				 (unsigned long long)p->whole->nr_frames,
				 (unsigned long long)p->whole->samples, (unsigned long long)cs.ordinal,
				 (unsigned long long)cs.frames, (unsigned long long)cs.samples);
		goto out;
	}
	datafile__elided_sums(p, &tree_s, &tree_p);
	if (tree_s != cs.samples || tree_p != cs.period)
		err = saver__bad(s, -EINVAL, "chain_blocks", (size_t)cs.blk,
				 "the chains hold %llu samples (period %llu), the trie's cells under \"[elided]\" %llu (%llu)",
				 (unsigned long long)cs.samples, (unsigned long long)cs.period,
				 (unsigned long long)tree_s, (unsigned long long)tree_p);
out:
	chainenc__release(&cs.enc);
	free(cs.prev);
	free((void *)cs.elided);
	return err;
}
