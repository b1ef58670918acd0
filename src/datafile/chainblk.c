/*
 * chainblk: format 5's chain blocks coded and decoded (chainblk.h; the
 * layout is data-format.md's "chain_blocks").  The decoder trusts nothing
 * of a block: every varint bounded, every id in range, the chains in the
 * stream's order across blocks, the cells sorted, the sums below 2^63;
 * memory is one block unpacked, the chain being read and its cells.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"
#include "chainblk.h"

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static unsigned char *put_varint(unsigned char *b, uint64_t v)
{
	while (v >= 0x80) {
		*b++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*b++ = (unsigned char)v;
	return b;
}

/* A varint at *p (before end) up to max: 0, or -1 (cut, too long, or past max). */
static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	while (*p < end && shift < 64) {
		unsigned char b = *(*p)++;

		if (shift == 63 && (b & 0x7e))
			return -1;	/* past 64 bits */
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (x > max)
				return -1;
			*v = x;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

static int fail(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The cells with their comms mapped to the profile's strings: a file's
 * repeated strings make one comm of two (their counts added), and may
 * reorder them.  Returns the cells left.
 */
static uint32_t map_cells(const uint32_t *strmap, struct chain_cell *c, uint32_t n)
{
	uint32_t i, k;
	bool sorted = true;

	for (i = 0; i < n; i++) {
		c[i].comm = strmap[c[i].comm];
		if (i && chain_cell__cmp(&c[i - 1], &c[i]) >= 0)
			sorted = false;
	}
	if (sorted)
		return n;
	qsort(c, n, sizeof(*c), chain_cell__qcmp);
	for (i = 1, k = 0; i < n; i++) {
		if (!chain_cell__cmp(&c[k], &c[i])) {
			c[k].samples += c[i].samples;	/* each sum is below 2^63 */
			c[k].period += c[i].period;
		} else {
			c[++k] = c[i];
		}
	}
	return k + 1;
}

#define GET(v, max, what) do { \
	if (get_varint(&p, end, (max), &(v))) \
		return fail(why, whylen, -EPROTO, "chain %llu: %s is cut short or out of range", \
			    (unsigned long long)d->ordinal, (what)); \
} while (0)

int chaindec__block(struct chaindec *d, const struct chainblk_hdr *h, chain_fn fn, void *ctx,
		    char *why, size_t whylen)
{
	const unsigned char *p, *end;
	uint64_t nr_ids, v, i, chains = 0, frames = 0, cells = 0, samples = 0;
	bool first = true;

	if (h->len > h->size)
		return fail(why, whylen, -EPROTO, "the block holds %zu bytes, more than its size %zu",
			    h->len, h->size);
	if (h->len == h->size) {
		p = h->data;
	} else {
		uLongf got = (uLongf)h->size;

		if (d->alloc_buf < h->size) {
			d->buf = xrealloc(d->buf, h->size);
			d->alloc_buf = h->size;
		}
		if (!h->data || uncompress(d->buf, &got, h->data, h->len) != Z_OK ||
		    got != (uLongf)h->size)
			return fail(why, whylen, -EIO, "the block does not unpack to its size %zu",
				    h->size);
		p = d->buf;
	}
	end = p + h->size;
	if (!h->size)
		return fail(why, whylen, -EPROTO, "the block is empty");

	/* the dictionary: ascending frame ids */
	GET(nr_ids, h->size, "the number of frames");
	if (nr_ids > d->nr_frames)
		return fail(why, whylen, -EPROTO, "the block names %llu frames, more than the file's %zu",
			    (unsigned long long)nr_ids, d->nr_frames);
	XGROW(d->dict, d->alloc_dict, nr_ids);
	for (i = 0; i < nr_ids; i++) {
		uint64_t id;

		GET(v, d->nr_frames, "a frame of the dictionary");
		id = i ? d->dict[i - 1] + 1 + v : v;
		if (id >= d->nr_frames)
			return fail(why, whylen, -EPROTO, "frame %llu does not exist (%zu frames)",
				    (unsigned long long)id, d->nr_frames);
		if (d->elided && (d->elided[id / 8] >> (id % 8) & 1))
			return fail(why, whylen, -EPROTO, "frame %llu is \"[elided]\", never a chain's",
				    (unsigned long long)id);
		d->dict[i] = (uint32_t)id;
	}

	while (p < end) {
		uint64_t lcp, nnew, nc, k, g, s_sum = 0, p_sum = 0;
		struct chain_rec rec;
		int tied;	/* 1: equal to the chain before so far; 0: after it */
		int ret;

		GET(lcp, first ? 0 : d->nr_path, "lcp");
		GET(nnew, DATAFILE_MAX_DEPTH - lcp, "the number of new frames");
		if (!nnew)
			return fail(why, whylen, -EPROTO, "chain %llu: no new frame",
				    (unsigned long long)d->ordinal);
		XGROW(d->path, d->alloc_path, lcp + nnew);
		tied = d->ordinal > 0;
		g = lcp;
		for (k = 0; k < nnew; k++) {
			size_t at = lcp + k;
			uint32_t f;

			GET(v, nr_ids ? nr_ids - 1 : 0, "a frame's place in the dictionary");
			if (!nr_ids)
				return fail(why, whylen, -EPROTO, "chain %llu: a frame of an empty dictionary",
					    (unsigned long long)d->ordinal);
			f = d->dict[v];
			if (tied && at >= d->nr_path) {
				tied = 0;	/* it extends the chain before */
			} else if (tied) {
				if (f < d->path[at] || (f == d->path[at] && !first))
					return fail(why, whylen, -EPROTO,
						    "chain %llu is not after the chain before it (%s)",
						    (unsigned long long)d->ordinal,
						    f == d->path[at] ? "lcp too short" : "order broken");
				if (f == d->path[at])
					g++;
				else
					tied = 0;
			}
			d->path[at] = f;
		}
		if (tied)
			return fail(why, whylen, -EPROTO,
				    "chain %llu is not after the chain before it (a prefix of it, or the same)",
				    (unsigned long long)d->ordinal);
		d->nr_path = lcp + nnew;

		GET(nc, (uint64_t)(end - p) / 6, "the number of cells");
		if (!nc)
			return fail(why, whylen, -EPROTO, "chain %llu: no cell",
				    (unsigned long long)d->ordinal);
		XGROW(d->cells, d->alloc_cells, nc);
		for (k = 0; k < nc; k++) {
			struct chain_cell *c = &d->cells[k];
			uint64_t run, event, comm, pid;

			GET(run, d->nr_runs ? d->nr_runs - 1 : 0, "a cell's run");
			GET(event, d->nr_events ? d->nr_events - 1 : 0, "a cell's event");
			GET(comm, d->nr_strs ? d->nr_strs - 1 : 0, "a cell's comm");
			GET(pid, INT32_MAX, "a cell's pid");
			GET(c->samples, INT64_MAX, "a cell's samples");
			GET(c->period, INT64_MAX, "a cell's period");
			if (!d->nr_runs || !d->nr_events)
				return fail(why, whylen, -EPROTO, "chain %llu: a cell of no run or event",
					    (unsigned long long)d->ordinal);
			if (!c->samples)
				return fail(why, whylen, -EPROTO, "chain %llu: a cell of 0 samples",
					    (unsigned long long)d->ordinal);
			c->run = (uint32_t)run;
			c->event = (uint32_t)event;
			c->comm = (uint32_t)comm;
			c->pid = (uint32_t)pid;
			if (k && chain_cell__cmp(&d->cells[k - 1], c) >= 0)
				return fail(why, whylen, -EPROTO,
					    "chain %llu: cells not sorted by (run, event, comm, pid), each once",
					    (unsigned long long)d->ordinal);
			s_sum += c->samples;
			p_sum += c->period;
			if (s_sum > INT64_MAX || p_sum > INT64_MAX || d->samples + s_sum > INT64_MAX ||
			    d->period + p_sum > INT64_MAX)
				return fail(why, whylen, -EPROTO,
					    "the %s of the chains add up to 2^63 or more",
					    s_sum > INT64_MAX || d->samples + s_sum > INT64_MAX ?
					    "samples" : "periods");
		}
		d->samples += s_sum;
		d->period += p_sum;
		samples += s_sum;
		frames += d->nr_path;
		cells += nc;
		chains++;
		rec = (struct chain_rec){ .frames = d->path, .nr = (uint32_t)d->nr_path,
					  .lcp = (uint32_t)g, .cells = d->cells,
					  .nr_cells = (uint32_t)nc, .ordinal = d->ordinal };
		if (d->strmap)
			rec.nr_cells = map_cells(d->strmap, d->cells, rec.nr_cells);
		d->ordinal++;
		d->frames += d->nr_path;
		first = false;
		if (fn && (ret = fn(ctx, &rec)))
			return ret;
	}
	if (chains != h->chains || frames != h->frames || cells != h->cells ||
	    samples != h->samples)
		return fail(why, whylen, -EPROTO,
			    "the block holds %llu chains, %llu frames, %llu cells and %llu samples, "
			    "not the %llu, %llu, %llu and %llu its row says",
			    (unsigned long long)chains, (unsigned long long)frames,
			    (unsigned long long)cells, (unsigned long long)samples,
			    (unsigned long long)h->chains, (unsigned long long)h->frames,
			    (unsigned long long)h->cells, (unsigned long long)h->samples);
	return 0;
}
#undef GET

void chaindec__release(struct chaindec *d)
{
	free(d->path);
	free(d->cells);
	free(d->dict);
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

size_t chainenc__bound(const struct chain_rec *c, uint32_t lcp)
{
	size_t n = varint_len(lcp) + varint_len(c->nr - lcp) + varint_len(c->nr_cells), i;

	/* a frame's place is at most its id: a varint no longer than the id's */
	for (i = lcp; i < c->nr; i++)
		n += varint_len(c->frames[i]);
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *x = &c->cells[i];

		n += varint_len(x->run) + varint_len(x->event) + varint_len(x->comm) +
		     varint_len(x->pid) + varint_len(x->samples) + varint_len(x->period);
	}
	return n;
}

void chainenc__add(struct chainenc *e, const struct chain_rec *c, uint32_t lcp)
{
	uint32_t i;

	if (!e->gen)
		e->gen = 1;
	XGROW(e->heads, e->alloc_heads, e->nr_heads + 2);
	e->heads[e->nr_heads++] = lcp;
	e->heads[e->nr_heads++] = c->nr - lcp;
	e->heads[e->nr_heads++] = c->nr_cells;
	XGROW(e->frames, e->alloc_frames, e->nr_frames + (c->nr - lcp));
	for (i = lcp; i < c->nr; i++) {
		uint32_t f = c->frames[i];

		e->frames[e->nr_frames++] = f;
		/* the dictionary: each frame once, without sorting every occurrence */
		XGROW(e->stamp, e->alloc_stamp, f);
		if (e->stamp[f] != e->gen) {
			e->stamp[f] = e->gen;
			XGROW(e->ids, e->alloc_ids, e->nr_ids);
			e->ids[e->nr_ids++] = f;
		}
	}
	XGROW(e->cells, e->alloc_cells, e->nr_cells + c->nr_cells);
	memcpy(e->cells + e->nr_cells, c->cells, c->nr_cells * sizeof(*c->cells));
	e->nr_cells += c->nr_cells;
	for (i = 0; i < c->nr_cells; i++)
		e->samples += c->cells[i].samples;
	e->est += chainenc__bound(c, lcp);
	e->chains++;
	e->whole_frames += c->nr;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

size_t chainenc__flush(struct chainenc *e, struct chainblk_hdr *h)
{
	size_t nr_ids = e->nr_ids, i, fi = 0, ci = 0, need;
	unsigned char *b;

	qsort(e->ids, nr_ids, sizeof(*e->ids), u32_cmp);
	if (nr_ids)
		XGROW(e->local, e->alloc_local, e->ids[nr_ids - 1]);
	for (i = 0; i < nr_ids; i++)
		e->local[e->ids[i]] = (uint32_t)i;
	need = e->est + 10 * (nr_ids + 1);	/* est: every varint's length, a place's at most */
	if (e->alloc_out < need) {
		e->out = xrealloc(e->out, need);
		e->alloc_out = need;
	}
	b = put_varint(e->out, nr_ids);
	for (i = 0; i < nr_ids; i++)
		b = put_varint(b, i ? e->ids[i] - e->ids[i - 1] - 1 : e->ids[i]);
	for (i = 0; i < e->nr_heads; i += 3) {
		uint32_t k;

		b = put_varint(b, e->heads[i]);
		b = put_varint(b, e->heads[i + 1]);
		for (k = 0; k < e->heads[i + 1]; k++)
			b = put_varint(b, e->local[e->frames[fi++]]);
		b = put_varint(b, e->heads[i + 2]);
		for (k = 0; k < e->heads[i + 2]; k++, ci++) {
			const struct chain_cell *c = &e->cells[ci];

			b = put_varint(b, c->run);
			b = put_varint(b, c->event);
			b = put_varint(b, c->comm);
			b = put_varint(b, c->pid);
			b = put_varint(b, c->samples);
			b = put_varint(b, c->period);
		}
	}
	*h = (struct chainblk_hdr){ .chains = e->chains, .frames = e->whole_frames,
				    .cells = e->nr_cells, .samples = e->samples,
				    .size = (size_t)(b - e->out), .data = e->out,
				    .len = (size_t)(b - e->out) };
	e->nr_frames = e->nr_heads = e->nr_cells = e->nr_ids = 0;
	e->est = 0;
	e->chains = e->whole_frames = e->samples = 0;
	e->gen++;
	return h->size;
}

void chainenc__release(struct chainenc *e)
{
	free(e->frames);
	free(e->heads);
	free(e->cells);
	free(e->ids);
	free(e->stamp);
	free(e->local);
	free(e->out);
	memset(e, 0, sizeof(*e));
}

/*
 * The samples and periods of the trie's cells under an "[elided]" node, at
 * any depth (resolve --vmlinux puts a leaf's inline frames below it).
 * Parents precede their children: one pass in id order.
 */
void datafile__elided_sums(const struct profile *p, uint64_t *samples, uint64_t *period)
{
	unsigned char *under = xcalloc(p->nr_nodes ? p->nr_nodes : 1, 1);
	size_t i;

	for (i = 1; i < p->nr_nodes; i++) {
		uint32_t up = p->nodes[i].parent;

		under[i] = up && (under[up] || profile__frame_elided(p, p->nodes[up].frame));
	}
	*samples = *period = 0;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->node < p->nr_nodes && under[c->node]) {
			*samples += c->samples;
			*period += c->period;
		}
	}
	free(under);
}

unsigned char *datafile__elided_frames(const struct profile *p)
{
	unsigned char *bits = xcalloc(p->nr_frames / 8 + 1, 1);
	size_t i;

	for (i = 0; i < p->nr_frames; i++)
		if (profile__frame_elided(p, (uint32_t)i))
			bits[i / 8] |= (unsigned char)(1u << (i % 8));
	return bits;
}
