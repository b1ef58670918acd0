/*
 * chainsort: sorted, compressed runs of whole chains in an unnamed file,
 * merged into one at the end and walked as a chainsrc; see
 * include/mmprof/chainsort.h.
 *
 * In memory a chain is a record of 32-bit words in an arena: its frame
 * count, its cell (struct chain_cell, copied as 8 words) and its frames.
 * On disk a run is a sequence of blocks (spillfile.h), each holding whole
 * records: a 12-byte header (lcp with the record before it in the block,
 * 0 for a block's first; nr; nr_cells), the frames past the lcp, the cells
 * sorted by key.  Within a run each chain is one record; so is it in the
 * merged run, which is what the source's walk reads.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chainsort.h"
#include "mmprof/spillfile.h"
#include "mmprof/xalloc.h"

#define CELL_WORDS (sizeof(struct chain_cell) / sizeof(uint32_t))
#define HDR_BYTES (3 * sizeof(uint32_t))

static_assert(sizeof(struct chain_cell) == 32, "a cell is 8 words, no padding");

struct span {
	uint64_t off, end;	/* bytes of the file */
};

struct chainsort {
	struct chainsrc src;	/* first: what finish hands out */
	int fd;
	size_t budget;
	uint32_t *arena;	/* records: nr, cell, frames */
	size_t used, alloc;	/* words */
	size_t *recs;		/* word offset of each record, in arrival order */
	size_t nr_recs, alloc_recs;
	struct span *runs;
	size_t nr_runs, alloc_runs;
	uint64_t end;		/* bytes written */
	struct span whole;	/* the merged run, once finished */
	uint64_t nr_cells;	/* the cells of the runs written (the merged run's, once finished) */
	uint64_t added;		/* the samples of every chain added, saturating */
};

/* chainsrc.h's order: frame by frame from the root, a prefix first. */
static int chain_cmp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i, n = na < nb ? na : nb;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return na == nb ? 0 : na < nb ? -1 : 1;
}

static uint32_t lcp_of(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i, n = na < nb ? na : nb;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i;
}

static void add_sat(uint64_t *to, uint64_t v)
{
	if (__builtin_add_overflow(*to, v, to))
		*to = UINT64_MAX;
}

/* Cells sorted by key into one per key, summed: how many are left. */
static uint32_t cells_merge(struct chain_cell *c, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k && !chain_cell__cmp(&c[k - 1], &c[i])) {
			add_sat(&c[k - 1].samples, c[i].samples);
			add_sat(&c[k - 1].period, c[i].period);
		} else {
			c[k++] = c[i];
		}
	}
	return k;
}

/* Records in the arena */

static uint32_t rec_nr(const struct chainsort *cs, size_t r)
{
	return cs->arena[r];
}

static const uint32_t *rec_frames(const struct chainsort *cs, size_t r)
{
	return cs->arena + r + 1 + CELL_WORDS;
}

static void rec_cell(const struct chainsort *cs, size_t r, struct chain_cell *c)
{
	memcpy(c, cs->arena + r + 1, sizeof(*c));
}

static int rec_qcmp(const void *x, const void *y, void *ctx)
{
	const struct chainsort *cs = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	struct chain_cell ca, cb;
	int d = chain_cmp(rec_frames(cs, a), rec_nr(cs, a), rec_frames(cs, b), rec_nr(cs, b));

	if (d)
		return d;
	rec_cell(cs, a, &ca);
	rec_cell(cs, b, &cb);
	return chain_cell__cmp(&ca, &cb);
}

/* A run or the merge being written: the current block and its last chain. */
struct writer {
	int fd;
	uint64_t at;
	unsigned char *raw;
	size_t used, alloc;
	struct spillbuf z;
	uint32_t *prev;
	uint32_t prev_nr;
	size_t alloc_prev;
};

static int writer_flush(struct writer *w)
{
	int err;

	if (!w->used)
		return 0;
	if ((err = spillfile__put(w->fd, &w->at, w->raw, w->used, 1, &w->z)))
		return err;
	w->used = 0;
	return 0;
}

static int writer_put(struct writer *w, const uint32_t *frames, uint32_t nr,
		      const struct chain_cell *cells, uint32_t nr_cells)
{
	uint32_t hdr[3], lcp = w->used ? lcp_of(w->prev, w->prev_nr, frames, nr) : 0;
	size_t n = HDR_BYTES + (size_t)(nr - lcp) * 4 + (size_t)nr_cells * sizeof(*cells);
	int err;

	if (w->used && w->used + n > CHAINSORT_BLOCK) {
		if ((err = writer_flush(w)))
			return err;
		lcp = 0;
		n = HDR_BYTES + (size_t)nr * 4 + (size_t)nr_cells * sizeof(*cells);
	}
	if (w->used + n > w->alloc) {
		w->alloc = w->used + n > CHAINSORT_BLOCK ? w->used + n : CHAINSORT_BLOCK;
		w->raw = xrealloc(w->raw, w->alloc);
	}
	hdr[0] = lcp;
	hdr[1] = nr;
	hdr[2] = nr_cells;
	memcpy(w->raw + w->used, hdr, sizeof(hdr));
	memcpy(w->raw + w->used + sizeof(hdr), frames + lcp, (size_t)(nr - lcp) * 4);
	memcpy(w->raw + w->used + sizeof(hdr) + (size_t)(nr - lcp) * 4, cells,
	       (size_t)nr_cells * sizeof(*cells));
	w->used += n;
	if (nr > w->alloc_prev) {
		w->alloc_prev = nr;
		w->prev = xrealloc(w->prev, (size_t)nr * sizeof(*w->prev));
	}
	memcpy(w->prev + lcp, frames + lcp, (size_t)(nr - lcp) * 4);
	w->prev_nr = nr;
	return 0;
}

static void writer_release(struct writer *w)
{
	free(w->raw);
	free(w->prev);
	spillbuf__release(&w->z);
}

/* A run being read: its current block and current chain. */
struct reader {
	uint64_t at, end;
	struct spillbuf raw;
	size_t used, pos;
	uint32_t *chain, nr, lcp;	/* lcp: with the chain before, whatever the block */
	size_t alloc_chain;
	struct chain_cell *cells;
	uint32_t nr_cells;
	size_t alloc_cells;
	bool have;
};

static void reader_release(struct reader *r)
{
	spillbuf__release(&r->raw);
	free(r->chain);
	free(r->cells);
}

static uint32_t raw_frame(const unsigned char *p, uint32_t i)
{
	uint32_t f;

	memcpy(&f, p + (size_t)i * 4, 4);
	return f;
}

/*
 * The next record of r (r->have false past the run's end): 0, -EIO (a
 * block that does not decompress) or -EPROTO (a record out of its block,
 * or out of order).
 */
static int reader_next(int fd, struct reader *r, struct spillbuf *z)
{
	const unsigned char *p;
	uint32_t hdr[3], coded, nr, nc, l, old = r->have ? r->nr : 0, i;
	uint64_t need;
	int err;

	if (r->pos == r->used) {
		r->pos = 0;
		if ((err = spillfile__get(fd, &r->at, r->end, &r->raw, &r->used, z)))
			return err;
		if (!r->used) {
			r->have = false;
			return 0;
		}
	}
	if (r->used - r->pos < HDR_BYTES)
		return -EPROTO;
	memcpy(hdr, r->raw.p + r->pos, sizeof(hdr));
	coded = hdr[0];
	nr = hdr[1];
	nc = hdr[2];
	need = HDR_BYTES + (uint64_t)nc * sizeof(struct chain_cell);
	if (!nr || !nc || coded >= nr || (r->pos ? coded > old : coded != 0) ||
	    need + ((uint64_t)nr - coded) * 4 > r->used - r->pos)
		return -EPROTO;
	need += ((uint64_t)nr - coded) * 4;
	p = r->raw.p + r->pos + HDR_BYTES;
	/* the whole lcp, also at a block's start, and the order it must keep */
	for (l = coded; l < old && l < nr && r->chain[l] == raw_frame(p, l - coded); l++)
		;
	if (r->have && (l == nr || (l < old && raw_frame(p, l - coded) < r->chain[l])))
		return -EPROTO;
	if (nr > r->alloc_chain) {
		r->alloc_chain = nr;
		r->chain = xrealloc(r->chain, (size_t)nr * sizeof(*r->chain));
	}
	memcpy(r->chain + coded, p, (size_t)(nr - coded) * 4);
	if (nc > r->alloc_cells) {
		r->alloc_cells = nc;
		r->cells = xrealloc(r->cells, (size_t)nc * sizeof(*r->cells));
	}
	memcpy(r->cells, p + (size_t)(nr - coded) * 4, (size_t)nc * sizeof(*r->cells));
	for (i = 1; i < nc; i++)
		if (chain_cell__cmp(&r->cells[i - 1], &r->cells[i]) >= 0)
			return -EPROTO;
	r->nr = nr;
	r->lcp = l;
	r->nr_cells = nc;
	r->pos += need;
	r->have = true;
	return 0;
}

static void count_chain(struct chainsrc *to, uint64_t *cells, uint32_t nr,
			const struct chain_cell *c, uint32_t n)
{
	uint32_t i;

	*cells += n;
	to->nr_chains++;
	to->nr_frames += nr;
	for (i = 0; i < n; i++)
		add_sat(&to->samples, c[i].samples);
}

static void count_add(struct chainsrc *to, const struct chainsrc *from)
{
	to->nr_chains += from->nr_chains;
	to->nr_frames += from->nr_frames;
	add_sat(&to->samples, from->samples);
}

/* The arena as one sorted run, equal chains one record; the arena emptied. */
static int write_run(struct chainsort *cs)
{
	struct writer w = { .fd = cs->fd, .at = cs->end };
	struct chain_cell *cells = NULL;
	struct chainsrc counted = { 0 };	/* added to the source's once the run is whole */
	uint64_t counted_cells = 0;
	size_t i, j, alloc_cells = 0;
	int err = 0;

	qsort_r(cs->recs, cs->nr_recs, sizeof(*cs->recs), rec_qcmp, cs);
	for (i = 0; i < cs->nr_recs && !err; i = j) {
		size_t a = cs->recs[i];
		uint32_t n = 0;

		for (j = i; j < cs->nr_recs &&
			    !chain_cmp(rec_frames(cs, a), rec_nr(cs, a),
				       rec_frames(cs, cs->recs[j]), rec_nr(cs, cs->recs[j])); j++) {
			XGROW(cells, alloc_cells, n);
			rec_cell(cs, cs->recs[j], &cells[n++]);
		}
		n = cells_merge(cells, n);
		err = writer_put(&w, rec_frames(cs, a), rec_nr(cs, a), cells, n);
		if (!err)
			count_chain(&counted, &counted_cells, rec_nr(cs, a), cells, n);
	}
	if (!err)
		err = writer_flush(&w);
	free(cells);
	writer_release(&w);
	/* a run not written leaves the arena to be written again, and counts nothing */
	if (err)
		return err;
	count_add(&cs->src, &counted);
	cs->nr_cells += counted_cells;
	XGROW(cs->runs, cs->alloc_runs, cs->nr_runs);
	cs->runs[cs->nr_runs].off = cs->end;
	cs->runs[cs->nr_runs++].end = w.at;
	cs->end = w.at;
	cs->used = cs->nr_recs = 0;
	return 0;
}

static size_t held(const struct chainsort *cs, size_t words, size_t recs)
{
	return words * sizeof(*cs->arena) + recs * sizeof(*cs->recs);
}

int chainsort__add(struct chainsort *cs, const uint32_t *frames, uint32_t nr,
		   const struct chain_cell *cell)
{
	size_t words = 1 + CELL_WORDS + (size_t)nr;
	int err;

	if (!nr)
		return -EINVAL;
	if (cs->nr_recs && held(cs, cs->used + words, cs->nr_recs + 1) > cs->budget &&
	    (err = write_run(cs)))
		return err;
	if (cs->used + words > cs->alloc) {
		/* doubling, but not past the budget unless one chain needs it */
		size_t cap = cs->budget / sizeof(*cs->arena), want = cs->alloc ? 2 * cs->alloc : 4096;

		if (want > cap)
			want = cap;
		if (want < cs->used + words)
			want = cs->used + words;
		cs->arena = xrealloc(cs->arena, want * sizeof(*cs->arena));
		cs->alloc = want;
	}
	XGROW(cs->recs, cs->alloc_recs, cs->nr_recs);
	cs->recs[cs->nr_recs++] = cs->used;
	cs->arena[cs->used] = nr;
	add_sat(&cs->added, cell->samples);
	memcpy(cs->arena + cs->used + 1, cell, sizeof(*cell));
	memcpy(cs->arena + cs->used + 1 + CELL_WORDS, frames, (size_t)nr * sizeof(*frames));
	cs->used += words;
	return 0;
}

struct chainsort *chainsort__new(const char *dir, size_t budget)
{
	struct chainsort *cs;
	int fd = spillfile__open(dir);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	cs = xcalloc(1, sizeof(*cs));
	cs->fd = fd;
	cs->budget = budget ? budget : CHAINSORT_BUDGET;
	return cs;
}

void chainsort__free(struct chainsort *cs)
{
	if (!cs)
		return;
	if (cs->fd >= 0)
		close(cs->fd);
	free(cs->arena);
	free(cs->recs);
	free(cs->runs);
	free(cs);
}

/*
 * Runs runs[0..nr) into one, *out, each distinct chain once with its
 * cells merged, counted into the source (the last pass's counts stand).
 */
static int merge_group(struct chainsort *cs, const struct span *runs, size_t nr,
		       struct span *out)
{
	struct reader *rd = xcalloc(nr, sizeof(*rd));
	struct writer w = { .fd = cs->fd, .at = cs->end };
	struct spillbuf z = { 0 };
	struct chain_cell *cells = NULL;
	bool *eq = xcalloc(nr, sizeof(*eq));
	size_t i, alloc_cells = 0;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		rd[i].at = runs[i].off;
		rd[i].end = runs[i].end;
		err = reader_next(cs->fd, &rd[i], &z);
	}
	while (!err) {
		struct reader *min = NULL;
		uint32_t n = 0, k;

		for (i = 0; i < nr; i++)
			if (rd[i].have && (!min || chain_cmp(rd[i].chain, rd[i].nr,
							     min->chain, min->nr) < 0))
				min = &rd[i];
		if (!min)
			break;
		for (i = 0; i < nr; i++) {
			eq[i] = rd[i].have && !chain_cmp(rd[i].chain, rd[i].nr, min->chain, min->nr);
			if (!eq[i])
				continue;
			XGROW(cells, alloc_cells, n + rd[i].nr_cells);
			for (k = 0; k < rd[i].nr_cells; k++)
				cells[n++] = rd[i].cells[k];
		}
		qsort(cells, n, sizeof(*cells), chain_cell__qcmp);
		n = cells_merge(cells, n);
		err = writer_put(&w, min->chain, min->nr, cells, n);
		if (!err)
			count_chain(&cs->src, &cs->nr_cells, min->nr, cells, n);
		for (i = 0; i < nr && !err; i++)
			if (eq[i])
				err = reader_next(cs->fd, &rd[i], &z);
	}
	if (!err)
		err = writer_flush(&w);
	if (!err) {
		out->off = cs->end;
		out->end = w.at;
		cs->end = w.at;
	}
	for (i = 0; i < nr; i++)
		reader_release(&rd[i]);
	free(rd);
	free(eq);
	free(cells);
	spillbuf__release(&z);
	writer_release(&w);
	return err;
}

/*
 * Every run into one, cs->whole, in passes of CHAINSORT_FANIN runs at
 * most (one block held per run merged, and a scan of their heads per
 * chain): each pass's runs are written after the last byte of the ones
 * before, whose space is then given back where the filesystem can (best
 * effort).
 */
static int merge_runs(struct chainsort *cs)
{
	int err = 0;

	while (!err && cs->nr_runs > 1) {
		size_t from, k = 0, nr_groups = (cs->nr_runs + CHAINSORT_FANIN - 1) / CHAINSORT_FANIN;
		struct span *next = xcalloc(nr_groups, sizeof(*next));
		uint64_t lo;

		cs->src.nr_chains = cs->src.nr_frames = cs->src.samples = cs->nr_cells = 0;
		for (from = 0; from < cs->nr_runs && !err; from += CHAINSORT_FANIN) {
			size_t n = cs->nr_runs - from < CHAINSORT_FANIN ? cs->nr_runs - from
									 : CHAINSORT_FANIN;

			if (n == 1)	/* a run alone: as it is (its counts are not the last pass's) */
				next[k++] = cs->runs[from];
			else
				err = merge_group(cs, cs->runs + from, n, &next[k++]);
		}
		if (err) {
			free(next);
			break;
		}
		free(cs->runs);
		cs->runs = next;
		cs->nr_runs = cs->alloc_runs = k;
		for (lo = cs->end, from = 0; from < k; from++)
			if (next[from].off < lo)
				lo = next[from].off;
		if (lo)
			(void)!fallocate(cs->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
					 (off_t)lo);
	}
	if (!err)
		cs->whole = cs->runs[0];
	return err;
}

static int sort_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct chainsort *cs = (struct chainsort *)src;
	struct reader r = { .at = cs->whole.off, .end = cs->whole.end };
	struct spillbuf z = { 0 };
	uint64_t ordinal = 0;
	int err;

	while (!(err = reader_next(cs->fd, &r, &z)) && r.have) {
		struct chain_rec c = {
			.frames = r.chain, .nr = r.nr, .lcp = r.lcp,
			.cells = r.cells, .nr_cells = r.nr_cells, .ordinal = ordinal++,
		};

		if ((err = fn(ctx, &c)))
			break;
	}
	if (!err && ordinal != src->nr_chains)
		err = -EPROTO;
	reader_release(&r);
	spillbuf__release(&z);
	return err;
}

static void sort_release(struct chainsrc *src)
{
	chainsort__free((struct chainsort *)src);
}

struct chainsrc *chainsort__finish(struct chainsort *cs, int *err)
{
	int e = 0;

	if (cs->nr_recs)
		e = write_run(cs);
	free(cs->arena);
	free(cs->recs);
	cs->arena = NULL;
	cs->recs = NULL;
	cs->alloc = cs->alloc_recs = 0;
	if (!e && cs->nr_runs == 1)
		cs->whole = cs->runs[0];
	else if (!e && cs->nr_runs > 1)
		e = merge_runs(cs);
	if (e) {
		chainsort__free(cs);
		*err = e;
		return NULL;
	}
	cs->src.each = sort_each;
	cs->src.release = sort_release;
	*err = 0;
	return &cs->src;
}

uint64_t chainsort__nr_cells(const struct chainsrc *src)
{
	return ((const struct chainsort *)src)->nr_cells;
}

uint64_t chainsort__samples(const struct chainsort *cs)
{
	return cs ? cs->added : 0;
}
