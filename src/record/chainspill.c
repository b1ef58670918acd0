/*
 * chainspill: sorted, compressed runs of aggregate entries in an unnamed
 * file, merged at the end; see include/mmprof/chainspill.h.
 *
 * A run is a sequence of blocks (spillfile.h); a block holds whole
 * records, each an entry header (struct stackagg_entry) and its chain, as
 * in the arena.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chainspill.h"
#include "mmprof/spillfile.h"
#include "mmprof/xalloc.h"

void chainspill__init(struct chainspill *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->fd = -1;
}

void chainspill__release(struct chainspill *cs)
{
	if (cs->fd >= 0)
		close(cs->fd);
	free(cs->runs);
	chainspill__init(cs);
}

void chainspill__reset(struct chainspill *cs)
{
	cs->nr_runs = 0;
	cs->end = 0;
	cs->keys = 0;
	if (cs->fd >= 0 && ftruncate(cs->fd, 0))
		return;	/* the space comes back when the file is closed */
}

int chainspill__open(struct chainspill *cs, const char *dir)
{
	int fd = spillfile__open(dir);

	if (fd < 0)
		return fd;
	cs->fd = fd;
	return 0;
}

static size_t rec_bytes(const struct stackagg_entry *e)
{
	return sizeof(*e) + (size_t)e->nr * sizeof(uint64_t);
}

/* The order of a run: by hash, then the rest of the key, so equal keys meet. */
static int key_cmp(const struct stackagg_entry *a, const struct stackagg_entry *b)
{
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	return memcmp(a + 1, b + 1, (size_t)a->nr * sizeof(uint64_t));
}

/* An entry to sort, with its hash beside it so that sorting reads no record. */
struct sortref {
	uint64_t hash;
	const struct stackagg_entry *e;
};

static int sortref_cmp(const void *x, const void *y)
{
	return key_cmp(((const struct sortref *)x)->e, ((const struct sortref *)y)->e);
}

/*
 * The entries of a in key_cmp's order.  The reading thread spills (a full
 * arena stops it reading the ring buffers), so the order is made without
 * touching the records: a radix sort of (hash, entry) pairs, a byte of
 * the hash a pass, then key_cmp only among equal hashes (a collision:
 * rare).  qsort of the entries themselves, each comparison two cache
 * misses into the arena, was 8 % of record's CPU under section 8's load.
 */
static struct sortref *sorted_refs(struct stackagg *a)
{
	size_t n = a->nr_entries, i, j, pass, count[256];
	struct sortref *ref = xmalloc(n * sizeof(*ref)), *tmp = xmalloc(n * sizeof(*tmp)), *t;

	for (i = 0; i < n; i++) {
		ref[i].e = stackagg__entry(a, i);
		ref[i].hash = ref[i].e->hash;
	}
	for (pass = 0; pass < 64; pass += 8) {
		size_t at = 0, c;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(ref[i].hash >> pass) & 0xff]++;
		if (count[(ref[0].hash >> pass) & 0xff] == n)
			continue;	/* every hash has this byte: the order stays */
		for (i = 0; i < 256; i++) {
			c = count[i];
			count[i] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[(ref[i].hash >> pass) & 0xff]++] = ref[i];
		t = ref;
		ref = tmp;
		tmp = t;
	}
	free(tmp);
	/* equal hashes: by the rest of the key */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && ref[j].hash == ref[i].hash; j++)
			;
		if (j - i > 1)
			qsort(ref + i, j - i, sizeof(*ref), sortref_cmp);
	}
	return ref;
}

struct block_writer {
	struct chainspill *cs;
	uint64_t at;
	unsigned char *raw;
	struct spillbuf z;
	size_t used, alloc;
};

static int block_flush(struct block_writer *w)
{
	int err;

	if (!w->used)
		return 0;
	if ((err = spillfile__put(w->cs->fd, &w->at, w->raw, w->used, 1, &w->z)))
		return err;
	w->used = 0;
	return 0;
}

static int block_put(struct block_writer *w, const struct stackagg_entry *e)
{
	size_t n = rec_bytes(e);
	int err;

	if (w->used && w->used + n > CHAINSPILL_BLOCK && (err = block_flush(w)))
		return err;
	if (w->used + n > w->alloc) {
		w->alloc = w->used + n > CHAINSPILL_BLOCK ? w->used + n : CHAINSPILL_BLOCK;
		w->raw = xrealloc(w->raw, w->alloc);
	}
	memcpy(w->raw + w->used, e, n);
	w->used += n;
	return 0;
}

int chainspill__write(struct chainspill *cs, struct stackagg *a)
{
	struct block_writer w = { .cs = cs, .at = cs->end };
	struct sortref *order;
	size_t i;
	int err = 0;

	if (cs->fd < 0)
		return -EBADF;
	stackagg__flush(a);
	if (!a->nr_entries)
		return 0;
	order = sorted_refs(a);
	for (i = 0; i < a->nr_entries && !err; i++)
		err = block_put(&w, order[i].e);
	if (!err)
		err = block_flush(&w);
	free(order);
	free(w.raw);
	spillbuf__release(&w.z);
	if (err)
		return err;
	XGROW(cs->runs, cs->alloc_runs, cs->nr_runs);
	cs->runs[cs->nr_runs].off = cs->end;
	cs->runs[cs->nr_runs++].bytes = w.at - cs->end;
	cs->end = w.at;
	cs->keys += a->nr_entries;
	stackagg__clear(a);
	return 0;
}

/* One run's place in the merge: its current block, decompressed. */
struct run_reader {
	uint64_t at, end;
	struct spillbuf raw;
	size_t used, pos;
};

static const struct stackagg_entry *reader_entry(const struct run_reader *r)
{
	return r->pos < r->used ? (const struct stackagg_entry *)(void *)(r->raw.p + r->pos) : NULL;
}

/* The next block into r (r->used 0 at the run's end). */
static int reader_load(int fd, struct run_reader *r, struct spillbuf *z)
{
	r->pos = 0;
	return spillfile__get(fd, &r->at, r->end, &r->raw, &r->used, z);
}

static int reader_next(int fd, struct run_reader *r, struct spillbuf *z)
{
	const struct stackagg_entry *e = reader_entry(r);

	if (e)
		r->pos += rec_bytes(e);
	if (r->pos > r->used)
		return -EIO;
	return r->pos == r->used ? reader_load(fd, r, z) : 0;
}

int chainspill__merge(struct chainspill *cs,
		      int (*fn)(void *ctx, const struct stackagg_entry *e, const uint64_t *chain),
		      void *ctx)
{
	struct run_reader *rd = xcalloc(cs->nr_runs + 1, sizeof(*rd));
	struct spillbuf z = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < cs->nr_runs && !err; i++) {
		rd[i].at = cs->runs[i].off;
		rd[i].end = cs->runs[i].off + cs->runs[i].bytes;
		err = reader_load(cs->fd, &rd[i], &z);
	}
	while (!err) {
		const struct stackagg_entry *min = NULL, *e;
		struct stackagg_entry sum;
		size_t m = 0;

		for (i = 0; i < cs->nr_runs; i++)
			if ((e = reader_entry(&rd[i])) && (!min || key_cmp(e, min) < 0)) {
				min = e;
				m = i;
			}
		if (!min)
			break;
		sum = *min;
		/* the same key in later runs: summed, as the arena would have */
		for (i = 0; i < cs->nr_runs && !err; i++) {
			if (i == m || !(e = reader_entry(&rd[i])) || key_cmp(e, min))
				continue;
			sum.samples += e->samples;
			if (__builtin_add_overflow(sum.period, e->period, &sum.period))
				sum.period = UINT64_MAX;
			err = reader_next(cs->fd, &rd[i], &z);
		}
		if (!err)
			err = fn(ctx, &sum, (const uint64_t *)(min + 1));
		if (!err)
			err = reader_next(cs->fd, &rd[m], &z);
	}
	for (i = 0; i < cs->nr_runs; i++)
		spillbuf__release(&rd[i].raw);
	free(rd);
	spillbuf__release(&z);
	return err;
}
