/*
 * savetrie: the profile's trie and counts into the database being saved
 * (save.c drives; see save-int.h): frames, frame files, nodes and count
 * cells, as rows (formats 1 and 2) or compressed blocks (3 and 4),
 * checked against the format's invariants row by row as they go.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/hashidx.h"
#include "mmprof/xalloc.h"
#include "save-int.h"
#include "schema.h"

static void put_be(unsigned char *b, uint64_t v, unsigned n)
{
	while (n--) {
		b[n] = (unsigned char)v;
		v >>= 8;
	}
}

/*
 * Format 3: a block's bytes as size (column col) and data (col + 1),
 * compressed as sqlar_compress() does: zlib when shorter, else as they
 * are, so that sqlar_uncompress(data, size) gives them back in the shell.
 */
void saver__bind_block(struct saver *s, int col, const unsigned char *raw, size_t len)
{
	uLongf zlen;

	if (s->zcap < compressBound(len)) {
		s->zcap = compressBound(len);
		s->zbuf = xrealloc(s->zbuf, s->zcap);
	}
	zlen = s->zcap;
	sqlite3_bind_int64(s->st, col, (int64_t)len);
	if (compress2(s->zbuf, &zlen, raw, len, Z_DEFAULT_COMPRESSION) == Z_OK && zlen < len)
		sqlite3_bind_blob(s->st, col + 1, s->zbuf, (int)zlen, SQLITE_STATIC);
	else
		sqlite3_bind_blob(s->st, col + 1, raw, (int)len, SQLITE_STATIC);
}

/*
 * A block of n records of width bytes from rec (record by record), laid
 * out field by field: fields[] are the widths of a record's fields, in
 * order (format 3's are the real fields, one of 20 bytes for its count
 * cells); NULL is a field per byte (format 4: byte by byte).
 */
static void lay_out(unsigned char *out, const unsigned char *rec, size_t n, size_t width,
		    const unsigned char *fields, size_t nr_fields)
{
	size_t f, j, w, off = 0, at = 0;

	for (f = 0; f < (fields ? nr_fields : width); f++, off += w) {
		w = fields ? fields[f] : 1;
		if (w == 1)
			for (j = 0; j < n; j++)
				out[at++] = rec[j * width + off];
		else
			for (j = 0; j < n; j++, at += w)
				memcpy(out + at, rec + j * width + off, w);
	}
}

static int check_frame(struct saver *s, size_t i)
{
	const struct frame *f = &s->p->frames[i];
	int err;

	if ((err = saver__check_str(s, "frames", i, f->sym)) ||
	    (err = saver__check_str(s, "frames", i, f->dso)) ||
	    (err = saver__check_str(s, "frames", i, f->raw)))
		return err;
	return 0;
}

/* Formats 3 and 4: blocks of DATAFILE_FRAMES_PER_BLOCK frames (lay_out). */
int saver__write_frame_blocks(struct saver *s)
{
	static const unsigned char fields[] = DATAFILE_FRAME_FIELDS;
	const struct profile *p = s->p;
	unsigned char *b = xmalloc(DATAFILE_FRAMES_PER_BLOCK * DATAFILE_FRAME_SIZE);
	unsigned char *rec = xmalloc(DATAFILE_FRAMES_PER_BLOCK * DATAFILE_FRAME_SIZE);
	size_t i, j, n, blk;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = saver__check_rows(s, "frames", p->nr_frames)) ||
	    (err = saver__prepare(s, "INSERT INTO frame_blocks VALUES(?,?,?)")))
		goto out;
	for (i = 0, blk = 0; i < p->nr_frames; i += n, blk++) {
		n = p->nr_frames - i < DATAFILE_FRAMES_PER_BLOCK ? p->nr_frames - i :
		    DATAFILE_FRAMES_PER_BLOCK;
		for (j = 0; j < n; j++) {
			const struct frame *f = &p->frames[i + j];
			unsigned char *r = rec + j * DATAFILE_FRAME_SIZE;

			if ((err = check_frame(s, i + j)))
				goto out;
			put_be(r, f->addr, 8);
			put_be(r + 8, f->sym_off, 8);
			put_be(r + 16, f->sym, 4);
			put_be(r + 20, f->dso, 4);
			put_be(r + 24, f->raw, 4);
			r[28] = (unsigned char)((f->kernel ? DATAFILE_FRAME_KERNEL : 0) |
						(f->inlined ? DATAFILE_FRAME_INLINED : 0));
		}
		if (s->version >= 4)
			lay_out(b, rec, n, DATAFILE_FRAME_SIZE, NULL, 0);
		else
			lay_out(b, rec, n, DATAFILE_FRAME_SIZE, fields, sizeof(fields));
		sqlite3_bind_int64(s->st, 1, (int64_t)blk);
		saver__bind_block(s, 2, b, n * DATAFILE_FRAME_SIZE);
		if ((err = saver__step(s)))
			goto out;
	}
out:
	free(rec);
	free(b);
	return err;
}

int saver__write_frames(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = saver__check_rows(s, "frames", p->nr_frames)) ||
	    (err = saver__prepare(s, "INSERT INTO frames VALUES(?,?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];

		if ((err = check_frame(s, i)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		saver__bind_u64(s->st, 2, f->addr);
		saver__bind_u64(s->st, 3, f->sym_off);
		saver__bind_str(s->st, 4, f->sym);
		saver__bind_str(s->st, 5, f->dso);
		sqlite3_bind_int64(s->st, 6, f->kernel ? 1 : 0);
		if (f->inlined)
			sqlite3_bind_int64(s->st, 7, 1);
		else
			sqlite3_bind_null(s->st, 7);
		saver__bind_str(s->st, 8, f->raw);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

int saver__write_frame_files(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = true;
	if ((err = saver__check_rows(s, "frame_files", p->nr_frame_files)) ||
	    (err = saver__prepare(s, "INSERT INTO frame_files VALUES(?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_frame_files; i++) {
		const struct frame_file *ff = &p->frame_files[i];

		if (ff->frame >= p->nr_frames ||
		    (ff->build_id[0] && strspn(ff->build_id, "0123456789abcdef") != strlen(ff->build_id))) {
			if ((err = saver__bad(s, -EINVAL, "frame_files", i, ff->frame >= p->nr_frames ?
				       "frame %u does not exist" : "frame %u: the build-id is not hex",
				       ff->frame)) < 0)
				return err;
			continue;
		}
		if ((err = saver__check_text(s, "frame_files", i, strlen(ff->build_id)))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, ff->frame);
		saver__bind_u64(s->st, 3, ff->vaddr);
		if (ff->build_id[0])
			sqlite3_bind_text(s->st, 4, ff->build_id, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(s->st, 4);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int ffrec_cmp(const void *a, const void *b)
{
	const struct ffrec *x = a, *y = b;

	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/*
 * Format 4, before the strings are written: one frame_files record per
 * frame, the first the profile gives it (the one mmprof resolve reads;
 * record repeats a frame for every process that sampled it, with the same
 * address), sorted by frame; a build-id becomes the id of an equal string
 * of the pool, or of one appended after it.
 */
int saver__plan_frame_files(struct saver *s)
{
	const struct profile *p = s->p;
	unsigned char *seen = xcalloc(p->nr_frames ? p->nr_frames : 1, 1);
	size_t i;
	int err = 0;

	s->droppable = true;	/* nothing refers to frame_files */
	s->ff = xmalloc((p->nr_frame_files ? p->nr_frame_files : 1) * sizeof(*s->ff));
	for (i = 0; i < p->nr_frame_files; i++) {
		const struct frame_file *ff = &p->frame_files[i];
		uint32_t bid = 0;

		if (ff->frame >= p->nr_frames ||
		    (ff->build_id[0] && strspn(ff->build_id, "0123456789abcdef") != strlen(ff->build_id))) {
			/* salvage leaves the row out (saver__bad() is 1), else it is an error */
			if ((err = saver__bad(s, -EINVAL, "frame_files", i, ff->frame >= p->nr_frames ?
				       "frame %u does not exist" : "frame %u: the build-id is not hex",
				       ff->frame)) < 0)
				goto out;
			err = 0;
			continue;
		}
		if (seen[ff->frame])
			continue;
		seen[ff->frame] = 1;
		if (ff->build_id[0] && !(bid = profile__str_id(p, ff->build_id)))
			bid = (uint32_t)(p->strs.nr +
					 strintern__xid(&s->extra, ff->build_id, strlen(ff->build_id)));
		s->ff[s->nr_ff++] = (struct ffrec){ .frame = ff->frame, .bid = bid, .vaddr = ff->vaddr };
	}
	qsort(s->ff, s->nr_ff, sizeof(*s->ff), ffrec_cmp);
out:
	strintern__drop_index(&s->extra);	/* complete: written by id */
	free(seen);
	return err;
}

/* Format 4: blocks of DATAFILE_FFILES_PER_BLOCK records, field by field. */
int saver__write_frame_file_blocks(struct saver *s)
{
	unsigned char *b = xmalloc(DATAFILE_FFILES_PER_BLOCK * DATAFILE_FFILE_SIZE);
	unsigned char *rec = xmalloc(DATAFILE_FFILES_PER_BLOCK * DATAFILE_FFILE_SIZE);
	int64_t prev = -1;	/* the first record's step is its frame + 1 */
	size_t i, j, n, blk;
	int err;

	if ((err = saver__check_rows(s, "frame_files", s->nr_ff)) ||
	    (err = saver__prepare(s, "INSERT INTO frame_file_blocks VALUES(?,?,?)")))
		goto out;
	for (i = 0, blk = 0; i < s->nr_ff; i += n, blk++) {
		n = s->nr_ff - i < DATAFILE_FFILES_PER_BLOCK ? s->nr_ff - i :
		    DATAFILE_FFILES_PER_BLOCK;
		for (j = 0; j < n; j++) {
			const struct ffrec *r = &s->ff[i + j];
			unsigned char *at = rec + j * DATAFILE_FFILE_SIZE;

			put_be(at, (uint64_t)((int64_t)r->frame - prev), 4);
			put_be(at + 4, r->vaddr, 8);
			put_be(at + 12, r->bid, 4);
			prev = r->frame;
		}
		lay_out(b, rec, n, DATAFILE_FFILE_SIZE, NULL, 0);
		sqlite3_bind_int64(s->st, 1, (int64_t)blk);
		saver__bind_block(s, 2, b, n * DATAFILE_FFILE_SIZE);
		if ((err = saver__step(s)))
			goto out;
	}
out:
	free(rec);
	free(b);
	return err;
}

static int check_node(struct saver *s, size_t i)
{
	const struct stack_node *n = &s->p->nodes[i];

	if (n->parent >= i)
		return saver__bad(s, -EINVAL, "nodes", i, "parent %u does not precede the node", n->parent);
	if (n->depth > DATAFILE_MAX_DEPTH)
		return saver__bad(s, -ERANGE, "nodes", i, "depth %u exceeds the limit of %u",
			   n->depth, DATAFILE_MAX_DEPTH);
	if (n->frame >= s->p->nr_frames)
		return saver__bad(s, -EINVAL, "nodes", i, "frame %u does not exist", n->frame);
	return 0;
}

/*
 * Format 3: blocks of DATAFILE_NODES_PER_BLOCK nodes from node 1, each
 * node's id - parent (1 for most: a new stack's nodes are added caller
 * first, one after the other), then each node's frame.
 */
int saver__write_node_blocks(struct saver *s)
{
	static const unsigned char fields[] = DATAFILE_NODE_FIELDS;
	static const unsigned char fields_v4[] = DATAFILE_NODE_FIELDS_V4;
	const struct profile *p = s->p;
	unsigned char *b = xmalloc(DATAFILE_NODES_PER_BLOCK * DATAFILE_NODE_SIZE);
	unsigned char *rec = xmalloc(DATAFILE_NODES_PER_BLOCK * DATAFILE_NODE_SIZE);
	size_t i, j, n, blk;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = saver__check_rows(s, "nodes", p->nr_nodes)) ||
	    (err = saver__prepare(s, "INSERT INTO node_blocks VALUES(?,?,?)")))
		goto out;
	for (i = 1, blk = 0; i < p->nr_nodes; i += n, blk++) {
		n = p->nr_nodes - i < DATAFILE_NODES_PER_BLOCK ? p->nr_nodes - i :
		    DATAFILE_NODES_PER_BLOCK;
		for (j = 0; j < n; j++) {
			if ((err = check_node(s, i + j)))
				goto out;
			put_be(rec + j * 8, i + j - p->nodes[i + j].parent, 4);
			put_be(rec + j * 8 + 4, p->nodes[i + j].frame, 4);
		}
		if (s->version >= 4)
			lay_out(b, rec, n, DATAFILE_NODE_SIZE, fields_v4, sizeof(fields_v4));
		else
			lay_out(b, rec, n, DATAFILE_NODE_SIZE, fields, sizeof(fields));
		sqlite3_bind_int64(s->st, 1, (int64_t)blk);
		saver__bind_block(s, 2, b, n * DATAFILE_NODE_SIZE);
		if ((err = saver__step(s)))
			goto out;
	}
out:
	free(rec);
	free(b);
	return err;
}

int saver__write_nodes(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = saver__check_rows(s, "nodes", p->nr_nodes)) ||
	    (err = saver__prepare(s, "INSERT INTO nodes VALUES(?,?,?)")))
		return err;
	/* node 0, the root, is implicit */
	for (i = 1; i < p->nr_nodes; i++) {
		const struct stack_node *n = &p->nodes[i];

		if ((err = check_node(s, i)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, n->parent);
		sqlite3_bind_int64(s->st, 3, n->frame);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int check_cell(struct saver *s, size_t i)
{
	const struct profile *p = s->p;
	const struct count *c = &p->counts[i];
	int err;

	if ((err = saver__check_run(s, "counts", i, c->run)) ||
	    (err = saver__check_str(s, "counts", i, c->comm)) ||
	    (err = saver__check_count(s, "counts", i, c->samples)) ||
	    (err = saver__check_count(s, "counts", i, c->period)))
		return err;
	if (c->event >= p->nr_events)
		return saver__bad(s, -EINVAL, "counts", i, "event %u does not exist", c->event);
	if (c->node >= p->nr_nodes)
		return saver__bad(s, -EINVAL, "counts", i, "node %u does not exist", c->node);
	if (c->pid > INT32_MAX)
		return saver__bad(s, -EINVAL, "counts", i, "pid %u is out of range", c->pid);
	/* the reader's rule: all counts together below 2^63 (loadrows.c);
	 * each is below 2^63 and so is the sum so far: adding cannot wrap */
	if (s->sum_samples + c->samples > INT64_MAX || s->sum_period + c->period > INT64_MAX)
		return saver__bad(s, -ERANGE, "counts", i, "the %s of all counts add up to 2^63 or more",
			   s->sum_samples + c->samples > INT64_MAX ? "samples" : "periods");
	s->sum_samples += c->samples;
	s->sum_period += c->period;
	return 0;
}

/* Format 1: a row per count. */
int saver__write_count_rows(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i, row = 0;
	int err;

	if ((err = saver__check_rows(s, "counts", p->nr_counts)) ||
	    (err = saver__prepare(s, "INSERT INTO counts VALUES(?,?,?,?,?,?,?,?)")))
		return err;
	s->droppable = true;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if ((err = check_cell(s, i))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)row++);
		sqlite3_bind_int64(s->st, 2, c->run);
		sqlite3_bind_int64(s->st, 3, c->event);
		saver__bind_str(s->st, 4, c->comm);
		sqlite3_bind_int64(s->st, 5, c->pid);
		sqlite3_bind_int64(s->st, 6, c->node);
		sqlite3_bind_int64(s->st, 7, (int64_t)c->samples);
		sqlite3_bind_int64(s->st, 8, (int64_t)c->period);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

/* By (run, event, comm, pid), the key of a row; by node within it. */
static int count_order(const void *a, const void *b, void *counts)
{
	const struct count *c = counts;

	return count__cmp(&c[*(const uint32_t *)a], &c[*(const uint32_t *)b]);
}

static bool same_row(const struct count *x, const struct count *y)
{
	return x->run == y->run && x->event == y->event && x->comm == y->comm && x->pid == y->pid;
}

/*
 * Formats 2 to 4: the counts sorted by their row key and node, each key's
 * in blocks of at most DATAFILE_CELLS_WRITTEN cells (compressed from 3).  Sorting costs a
 * fraction of the save; readers then get the cells of a run together.
 */
int saver__write_count_cells(struct saver *s)
{
	const struct profile *p = s->p;
	uint32_t *order = xmalloc((p->nr_counts ? p->nr_counts : 1) * sizeof(*order));
	static const unsigned char fields[] = { DATAFILE_CELL_SIZE };
	unsigned char *cells = xmalloc(DATAFILE_CELLS_WRITTEN * DATAFILE_CELL_SIZE);
	unsigned char *b = xmalloc(DATAFILE_CELLS_WRITTEN * DATAFILE_CELL_SIZE);
	size_t i, j, n, nr = 0, row = 0;
	int err;

	s->droppable = true;
	if ((err = saver__check_rows(s, "counts", p->nr_counts)) ||
	    (err = saver__prepare(s, s->version == 2 ? "INSERT INTO stack_counts VALUES(?,?,?,?,?,?)" :
				"INSERT INTO stack_counts VALUES(?,?,?,?,?,?,?)")))
		goto out;
	for (i = 0; i < p->nr_counts; i++) {
		if ((err = check_cell(s, i)) < 0)
			goto out;
		if (!err)
			order[nr++] = (uint32_t)i;
	}
	err = 0;
	qsort_r(order, nr, sizeof(*order), count_order, p->counts);
	for (i = 0; i < nr; i = j, row++) {
		const struct count *c = &p->counts[order[i]];
		uint32_t prev = 0;	/* format 4: a node is the step from the cell before */

		for (j = i, n = 0; j < nr && n < DATAFILE_CELLS_WRITTEN &&
		     same_row(c, &p->counts[order[j]]); j++, n++) {
			const struct count *x = &p->counts[order[j]];
			unsigned char *r = cells + n * DATAFILE_CELL_SIZE;

			put_be(r, s->version >= 4 ? x->node - prev : x->node, 4);
			put_be(r + 4, x->samples, 8);
			put_be(r + 12, x->period, 8);
			prev = x->node;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)row);
		sqlite3_bind_int64(s->st, 2, c->run);
		sqlite3_bind_int64(s->st, 3, c->event);
		saver__bind_str(s->st, 4, c->comm);
		sqlite3_bind_int64(s->st, 5, c->pid);
		if (s->version == 2)
			sqlite3_bind_blob(s->st, 6, cells, (int)(n * DATAFILE_CELL_SIZE), SQLITE_STATIC);
		else {
			lay_out(b, cells, n, DATAFILE_CELL_SIZE, fields, sizeof(fields));
			saver__bind_block(s, 6, b, n * DATAFILE_CELL_SIZE);
		}
		if ((err = saver__step(s)))
			goto out;
	}
out:
	free(b);
	free(cells);
	free(order);
	return err;
}
