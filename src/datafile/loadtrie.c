/*
 * datafile loadtrie: the stack trie and its counts, the last tables of
 * step 3 (load.c's opening comment): nodes whose parents precede them
 * (so the trie has no cycle), count cells of known runs, events and
 * nodes, their sums bounded, and a hostile file's repeated trie edges or
 * count cells merged as the model would (a file save wrote has none, and
 * proving that costs a sort, not a hash); then the views' walks over the
 * trie bounded.  Formats 1-2 as rows, 3-4 as blocks (schema.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "loadget.h"
#include "loader.h"
#include "schema.h"

/*
 * Are the trie's edges (parent, frame) all different?  A file written by
 * save always has them so, and proving it by hashing half a million edges
 * cost a tenth of a report.  Group the children by parent (counting sort;
 * nodes[] is in id order, so every group comes out in id order), then
 * compare frames within each group: pairwise when small, sorted when a
 * hostile file gives one parent many children.
 */
static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool edges_distinct(const struct profile *p)
{
	size_t n = p->nr_nodes, i, j, k;
	uint32_t *start = xcalloc(n + 1, sizeof(*start));
	uint32_t *frames = xmalloc(n * sizeof(*frames));
	bool ok = true;

	for (i = 1; i < n; i++)
		start[p->nodes[i].parent + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 1; i < n; i++)
		frames[start[p->nodes[i].parent]++] = p->nodes[i].frame;
	/* start[x] is now the end of x's children, the start of x + 1's */
	for (i = 0, j = 0; ok && i < n; i++) {
		size_t end = start[i], len = end - j;

		if (len > 32) {
			qsort(frames + j, len, sizeof(*frames), u32_cmp);
			for (k = j + 1; ok && k < end; k++)
				ok = frames[k - 1] != frames[k];
		} else {
			for (k = j; ok && k < end; k++) {
				size_t m;

				for (m = k + 1; ok && m < end; m++)
					ok = frames[k] != frames[m];
			}
		}
		j = end;
	}
	free(frames);
	free(start);
	return ok;
}

/*
 * A hostile file repeats an edge (or two of its frames collapsed into one):
 * intern the nodes again, as profile__node does, and map the file's ids.
 * Until now p's node ids were the file's, since load appends from the root.
 */
static void merge_nodes(struct loader *l)
{
	struct profile *p = l->p;
	struct stack_node *file = p->nodes;
	size_t n = p->nr_nodes, i;

	p->nodes = NULL;
	p->nr_nodes = p->alloc_nodes = 0;
	hashidx__release(&p->node_idx);
	XGROW(p->nodes, p->alloc_nodes, 0);
	p->nodes[0] = file[0];
	p->nr_nodes = 1;
	for (i = 1; i < n; i++)
		l->nodemap[i] = profile__node(p, l->nodemap[file[i].parent], file[i].frame);
	free(file);
}

/* Formats 3 and 4: nodes in blocks, each node's id - parent and its frame. */
static int read_node_blocks(struct loader *l)
{
	bool last_seen = false, bw = l->version >= 4;
	int err, r;

	if ((err = prepare(l, "node_blocks", "SELECT id, size, data FROM node_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const unsigned char *b;
		size_t n, j;

		if ((err = get_block(l, 1, DATAFILE_NODE_SIZE, DATAFILE_NODES_PER_BLOCK, &b, &n)) ||
		    (err = check_full(l, &last_seen, n, DATAFILE_NODES_PER_BLOCK)))
			return err;
		for (j = 0; j < n; j++) {
			/* format 4: the delta whole (DATAFILE_NODE_FIELDS_V4), the frame byte by byte */
			uint32_t delta = be32(b + j * 4);
			uint32_t frame = (uint32_t)block_field(bw, b, n, j, 4, 4);
			size_t id = l->nr_nodes, parent = id - delta;

			/* 0 < delta <= id: the parent precedes the node, no cycle */
			if (!delta || delta > id)
				return bad_row(l, "node %zu: parent %lld does not precede it", id,
					       (long long)id - delta);
			if (frame >= l->nr_frames)
				return bad_row(l, "node %zu: frame %u does not exist (%zu frames)", id,
					       frame, l->nr_frames);
			if (l->p->nodes[parent].depth >= DATAFILE_MAX_DEPTH)
				return bad_row(l, "node %zu: the stack is deeper than %u frames", id,
					       DATAFILE_MAX_DEPTH);
			if (id >= DATAFILE_MAX_ROWS)
				return bad_row(l, "more than %u nodes", DATAFILE_MAX_ROWS);
			profile__append_node(l->p, (uint32_t)parent, l->framemap[frame]);
			l->nr_nodes++;
		}
	}
	return r;
}

/* Formats 1 and 2: a row per node. */
static int read_node_rows(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "nodes", "SELECT id, parent, frame FROM nodes ORDER BY id")))
		return err;
	while ((r = next_row(l, 1)) > 0) {
		uint32_t parent, frame;

		/* parent < id: checked against the nodes read so far, which
		 * also rules out any cycle in the trie */
		if ((err = get_ref(l, 1, l->nr_nodes, "nodes before it", &parent)) ||
		    (err = get_ref(l, 2, l->nr_frames, "frames", &frame)))
			return err;
		if (l->p->nodes[parent].depth >= DATAFILE_MAX_DEPTH)
			return bad_row(l, "the stack is deeper than %u frames", DATAFILE_MAX_DEPTH);
		profile__append_node(l->p, parent, l->framemap[frame]);
		l->nr_nodes++;
	}
	return r;
}

int loader__load_nodes(struct loader *l)
{
	size_t i;
	int err;

	/* a fresh profile holds only the root, so file id == profile id here */
	if (l->p->nr_nodes != 1)
		return -EINVAL;
	l->nr_nodes = 1;
	if ((err = l->version < 3 ? read_node_rows(l) : read_node_blocks(l)))
		return err;
	XGROW(l->nodemap, l->alloc_nodemap, l->nr_nodes - 1);
	for (i = 0; i < l->nr_nodes; i++)
		l->nodemap[i] = (uint32_t)i;
	if (!edges_distinct(l->p))
		merge_nodes(l);
	return 0;
}

struct cell {
	uint32_t run, event, comm, pid;	/* a count's key but its node */
};

static int cell_cmp(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Are the (run, event, comm, pid, node) cells all different?  A file written by
 * save always has them so; hashing a million cells to prove it cost a fifth
 * of a report.  Group the cells by node (counting sort, sequential), then
 * compare within each node's group, which holds runs x events x comms x
 * pids cells: pairwise when small, sorted when a hostile file makes it large.
 */
static bool counts_distinct(const struct profile *p)
{
	size_t n = p->nr_counts, i, j, k;
	uint32_t *start = xcalloc(p->nr_nodes + 1, sizeof(*start));
	struct cell *byn = xmalloc((n ? n : 1) * sizeof(*byn));
	bool ok = true;

	for (i = 0; i < n; i++)
		start[p->counts[i].node + 1]++;	/* nodes are < nr_nodes (mapped) */
	for (i = 0; i < p->nr_nodes; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++) {
		const struct count *c = &p->counts[i];

		byn[start[c->node]++] = (struct cell){ c->run, c->event, c->comm, c->pid };
	}
	/* start[x] is now the end of node x's group, the start of x + 1's */
	for (i = 0, j = 0; ok && j < n; i++) {
		size_t end = start[i], len = end - j;

		if (len > 32) {
			qsort(byn + j, len, sizeof(*byn), cell_cmp);
			for (k = j + 1; ok && k < end; k++)
				ok = cell_cmp(&byn[k - 1], &byn[k]) != 0;
		} else {
			for (k = j; ok && k < end; k++) {
				size_t m;

				for (m = k + 1; ok && m < end; m++)
					ok = cell_cmp(&byn[k], &byn[m]) != 0;
			}
		}
		j = end;
	}
	free(byn);
	free(start);
	return ok;
}

/* A hostile file repeats a cell: add them up, as profile__add_count does. */
static void merge_counts(struct profile *p)
{
	struct count *cells = p->counts;
	size_t n = p->nr_counts, i;

	p->counts = NULL;
	p->nr_counts = p->alloc_counts = 0;
	p->sum_samples = p->sum_period = 0;
	hashidx__release(&p->count_idx);
	for (i = 0; i < n; i++)
		profile__add_count(p, cells[i].run, cells[i].event, cells[i].comm, cells[i].pid,
				   cells[i].node, cells[i].samples, cells[i].period);
	free(cells);
}

/*
 * Every sum of counts a reader makes (an event's samples over runs, a
 * frame's children, a percentage's denominator) is a part of the sum of
 * all counts: refusing a file where that is 2^63 or more keeps each of
 * them exact in 64 bits, where a file of cells near 2^63 made
 * "9223372036854775812 samples" and four of 2^62 made "0 samples".  Each
 * count is below 2^63 and so is the sum so far: adding cannot wrap.
 */
static int add_to_sums(struct loader *l, uint64_t samples, uint64_t period, size_t cell)
{
	l->sum_samples += samples;
	l->sum_period += period;
	if (l->sum_samples > INT64_MAX || l->sum_period > INT64_MAX)
		return bad_row(l, "%s%.0zu%sthe %s of all counts add up to 2^63 or more",
			       cell == SIZE_MAX ? "" : "cell ", cell == SIZE_MAX ? 0 : cell,
			       cell == SIZE_MAX ? "" : ": ",
			       l->sum_samples > INT64_MAX ? "samples" : "periods");
	return 0;
}

/* Format 1: a row per count. */
static int load_count_rows(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "counts",
			   "SELECT id, run, event, comm, pid, node, samples, period FROM counts "
			   "ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		uint32_t run, event, comm, node;
		uint64_t samples, period;
		int64_t pid;

		/* pid: a pid_t that is a process, so 0 (the idle task, or not
		 * known) up to INT32_MAX; -1 (perf's "none") is not stored */
		if ((err = get_ref(l, 1, l->nr_runs, "runs", &run)) ||
		    (err = get_ref(l, 2, l->nr_events, "events", &event)) ||
		    (err = get_str(l, 3, &comm)) ||
		    (err = get_range(l, 4, 0, INT32_MAX, &pid)) ||
		    (err = get_ref(l, 5, l->nr_nodes, "nodes", &node)) ||
		    (err = get_count(l, 6, &samples)) || (err = get_count(l, 7, &period)) ||
		    (err = add_to_sums(l, samples, period, SIZE_MAX)))
			return err;
		profile__append_count(l->p, &(struct count){ .run = run, .event = event,
			.comm = comm, .pid = (uint32_t)pid, .node = l->nodemap[node],
			.samples = samples, .period = period });
	}
	return r;
}

/*
 * Format 2: rows of (run, event, comm, pid) with their cells in a blob
 * (schema.h).  The blob's length must be a whole number of cells, at most
 * DATAFILE_CELLS_PER_ROW; every cell is checked as a format-1 row is.
 */
static int load_count_cells(struct loader *l, bool *ascending)
{
	struct count last = { 0 };	/* the previous cell, mapped */
	size_t nr_cells = 0;
	int err, r;

	if ((err = prepare(l, "stack_counts", l->version < 3 ?
			   "SELECT id, run, event, comm, pid, cells FROM stack_counts ORDER BY id" :
			   "SELECT id, run, event, comm, pid, size, cells FROM stack_counts ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		uint32_t run, event, comm, node;
		sqlite3_value *x;
		const unsigned char *b;
		int64_t pid;
		size_t n, i;
		int t;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &run)) ||
		    (err = get_ref(l, 2, l->nr_events, "events", &event)) ||
		    (err = get_str(l, 3, &comm)) ||
		    (err = get_range(l, 4, 0, INT32_MAX, &pid)))
			return err;
		if (l->version >= 3) {
			if ((err = get_block(l, 5, DATAFILE_CELL_SIZE, DATAFILE_CELLS_PER_ROW, &b, &n)))
				return err;
		} else {
			x = sqlite3_column_value(l->st, 5);
			if ((t = sqlite3_value_type(x)) != SQLITE_BLOB)
				return bad_row(l, "cells is %s, not a blob", type_name(t));
			n = (size_t)sqlite3_value_bytes(x);
			b = sqlite3_value_blob(x);
			if (n % DATAFILE_CELL_SIZE || n > DATAFILE_CELLS_PER_ROW * DATAFILE_CELL_SIZE ||
			    (n && !b))
				return bad_row(l, "cells holds %zu bytes, not a whole number of %u-byte cells up to %u",
					       n, DATAFILE_CELL_SIZE, DATAFILE_CELLS_PER_ROW);
			n /= DATAFILE_CELL_SIZE;
		}
		if ((nr_cells += n) > DATAFILE_MAX_ROWS)
			return bad_row(l, "more than %u counts", DATAFILE_MAX_ROWS);
		for (i = 0, node = 0; i < n; i++) {
			/* record by record; format 4: each node the step from the one before */
			const unsigned char *cell = b + i * DATAFILE_CELL_SIZE;
			uint32_t step = be32(cell);
			uint64_t samples = be64(cell + 4), period = be64(cell + 12);
			struct count c = { .run = run, .event = event, .comm = comm,
					   .pid = (uint32_t)pid, .samples = samples, .period = period };

			node = l->version >= 4 ? node + step : step;	/* modulo 2^32 */
			if (node >= l->nr_nodes)
				return bad_row(l, "cell %zu: node %u does not exist", i, node);
			if (samples > INT64_MAX || period > INT64_MAX)
				return bad_row(l, "cell %zu: a count of 2^63 or more", i);
			if ((err = add_to_sums(l, samples, period, i)))
				return err;
			c.node = l->nodemap[node];
			/* cells in strictly ascending order are distinct: no check needed */
			if (*ascending && nr_cells + i > n && count__cmp(&last, &c) >= 0)
				*ascending = false;
			last = c;
			profile__append_count(l->p, &c);
		}
	}
	return r;
}

int loader__load_counts(struct loader *l)
{
	bool ascending = l->version > 1;
	int err = l->version == 1 ? load_count_rows(l) : load_count_cells(l, &ascending);

	if (!err && !ascending && !counts_distinct(l->p))
		merge_counts(l->p);
	return err;
}

/*
 * The views' walks over the trie: one per (run, event) with counts, at
 * most DATAFILE_MAX_WALK nodes in all, and one per event with counts, at
 * most DATAFILE_MAX_EVENT_WALK (schema.h).
 */
int loader__check_walk(struct loader *l)
{
	const struct profile *p = l->p;
	size_t pairs, events;

	datafile_walked(p, &events, &pairs);
	if ((unsigned long long)pairs * p->nr_nodes > DATAFILE_MAX_WALK)
		return errmsg__set(l->e, -EFBIG, "cannot load '%s': %zu (run, event) pairs with "
				   "counts over %zu stack nodes are more than a reader walks (%llu "
				   "node visits, at most 2^31; data-format.md, limits)", l->path,
				   pairs, p->nr_nodes, (unsigned long long)pairs * p->nr_nodes);
	if ((unsigned long long)events * p->nr_nodes > DATAFILE_MAX_EVENT_WALK)
		return errmsg__set(l->e, -EFBIG, "cannot load '%s': %zu events with counts over %zu "
				   "stack nodes are more than a reader walks (%llu node visits, at "
				   "most 2^24; data-format.md, limits)", l->path, events,
				   p->nr_nodes, (unsigned long long)events * p->nr_nodes);
	return 0;
}
