/*
 * Unit tests of format 5's chain_blocks (data-format.md): a profile whose
 * trie holds chains only in part (PROFILE_ELIDED nodes, as a bounded
 * record makes them) and its whole chains (an array-backed chain source,
 * chainarr.h) saved and loaded back to the same chains and cells, walked
 * twice; a file-backed source saved again; a profile without chains
 * written as format 4, as before; the writer's refusals (order, frames,
 * sums) and its salvage; and every corrupt block refused with one line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmprof/chainsrc.h"
#include "mmprof/datafile.h"
#include "mmprof/resolve.h"
#include "../fuzz/chainarr.h"
#include "tap.h"

static char dir[64];

static char *path_in(const char *name)
{
	static char buf[8][256];
	static int i;
	char *b = buf[i++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* A chain as the walk gave it: frames, lcp, ordinal and cells (comm as text). */
struct seen {
	uint32_t *frames;
	size_t nr_frames, alloc_frames;
	char *text;		/* one line per chain and cell */
	size_t len, alloc;
	const struct profile *p;
	uint64_t chains;
};

static void seen_printf(struct seen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void seen_printf(struct seen *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	XGROW(s->text, s->alloc, s->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s->text + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

static int see(void *ctx, const struct chain_rec *c)
{
	struct seen *s = ctx;
	uint32_t i;

	XGROW(s->frames, s->alloc_frames, s->nr_frames + c->nr);
	memcpy(s->frames + s->nr_frames, c->frames, c->nr * sizeof(*c->frames));
	s->nr_frames += c->nr;
	seen_printf(s, "#%llu nr %u lcp %u\n", (unsigned long long)c->ordinal, c->nr, c->lcp);
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *x = &c->cells[i];
		const char *comm = profile__str(s->p, x->comm);

		seen_printf(s, " %u %u %s %u %llu %llu\n", x->run, x->event, comm ? comm : "-", x->pid,
			    (unsigned long long)x->samples, (unsigned long long)x->period);
	}
	s->chains++;
	return 0;
}

static void seen_free(struct seen *s)
{
	free(s->frames);
	free(s->text);
}

static int walk(struct profile *p, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
	return chainsrc__each(p->whole, see, s);
}

static int seen_same(const struct seen *a, const struct seen *b)
{
	return a->nr_frames == b->nr_frames && a->len == b->len &&
	       !memcmp(a->frames, b->frames, a->nr_frames * sizeof(*a->frames)) &&
	       !memcmp(a->text, b->text, a->len);
}

static unsigned rnd_state = 12345;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

struct gen_chain {
	uint32_t fr[48];
	uint32_t nr;
};

static int gen_cmp(const void *a, const void *b)
{
	const struct gen_chain *x = a, *y = b;
	uint32_t i;

	for (i = 0; i < x->nr && i < y->nr; i++)
		if (x->fr[i] != y->fr[i])
			return x->fr[i] < y->fr[i] ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/*
 * A profile of 2 runs and 2 events whose nr chains (random, 3 to 40
 * frames over 40 frames, the root one of 2) are elided after their first
 * frame; two of its strings are blanked before the comms (a stripped
 * file's: the loader then maps string ids) and frames 4 and 5 made the
 * same (mmprof strip's zeroed addresses: a format-5 loader keeps them).
 */
static struct profile *build(size_t nr, struct chainarr **out)
{
	struct profile *p = profile__new();
	struct chainarr *a = chainarr__new();
	struct gen_chain *g = xcalloc(nr, sizeof(*g));
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .freq = 1 };
	struct run r = { .exit_code = 0, .samples = 1 };
	uint32_t comm[3], blank1, blank2, fr[40];
	size_t i, k, n;
	char name[32];

	profile__add_event(p, &ev);
	ev.name = profile__intern(p, "page-faults");
	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	profile__add_run(p, &r);
	blank1 = profile__intern(p, "gone1");
	blank2 = profile__intern(p, "gone2");
	comm[0] = 0;	/* ascending: cells sorted by (run, event, comm, pid) */
	comm[1] = profile__intern(p, "w0");
	comm[2] = profile__intern(p, "w1");
	for (i = 0; i < 40; i++) {
		struct frame f = { .addr = 0x401000 + i * 16 };

		snprintf(name, sizeof(name), "f%zu", i);
		f.sym = profile__intern(p, name);
		fr[i] = profile__frame(p, &f);
	}
	strintern__blank(&p->strs, blank1);
	strintern__blank(&p->strs, blank2);
	for (i = 0; i < nr; i++) {
		g[i].nr = 3 + rnd(38);
		g[i].fr[0] = fr[rnd(2)];
		for (k = 1; k < g[i].nr; k++)
			g[i].fr[k] = fr[2 + rnd(38)];
	}
	qsort(g, nr, sizeof(*g), gen_cmp);
	for (i = n = 0; i < nr; i++) {
		struct chain_cell cells[3];
		uint32_t nc = 0, j;

		if (n && !gen_cmp(&g[n - 1], &g[i]))
			continue;
		g[n++] = g[i];
		for (j = 0; j < 12 && nc < 3; j++)
			if (rnd(3) == 0 || (j == 11 && !nc))
				cells[nc++] = (struct chain_cell){ .run = j / 6, .event = j / 3 % 2,
					.comm = comm[j % 3], .pid = 100 + j % 3,
					.samples = 1 + rnd(3), .period = 50000 + rnd(3000) };
		chainarr__add(a, g[n - 1].fr, g[n - 1].nr, cells, nc);
	}
	chainarr__into_trie(p, a, 1);
	/* a count that is not under "[elided]": the chain the trie holds whole */
	profile__add_count(p, 0, 0, comm[1], 1, profile__stack(p, fr, 2), 7, 700);
	/* frames 4 and 5 the same, as strip makes two kernel frames */
	p->frames[fr[5]] = p->frames[fr[4]];
	p->whole = &a->src;
	*out = a;
	free(g);
	return p;
}

static int user_version(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

static int sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

static void test_roundtrip(const char *good)
{
	struct chainarr *a;
	struct profile *p = build(3000, &a), *q = NULL, *q2 = NULL;
	struct seen want, got, again, third;
	struct errmsg e = { "" };
	int err;

	walk(p, &want);
	ok(want.chains > 2000, "the built source has %llu chains", (unsigned long long)want.chains);
	err = datafile__save(p, good, &e);
	ok(!err, "a profile with whole chains saves (%s)", e.msg);
	is_int(user_version(good), 5, "format 5 when there are chains");
	ok(sql_int(good, "SELECT count(*) FROM chain_blocks") > 1,
	   "the chains take more than one block (%d)", sql_int(good, "SELECT count(*) FROM chain_blocks"));
	ok(sql_int(good, "SELECT max(size) FROM chain_blocks") <= 70000,
	   "a block unpacks to about 64 KiB at most (%d)", sql_int(good, "SELECT max(size) FROM chain_blocks"));
	ok(sql_int(good, "SELECT count(*) FROM chain_blocks WHERE length(data) < size") ==
	   sql_int(good, "SELECT count(*) FROM chain_blocks"), "every block is zlib'd");
	err = datafile__load(good, &q, &e);
	ok(!err && q && q->whole, "it loads with its chains (%s)", e.msg);
	if (!q || !q->whole) {
		seen_free(&want);
		profile__free(p);
		return;
	}
	is_int(q->nr_frames, p->nr_frames, "the repeated frame is kept apart");
	ok(q->whole->nr_chains == p->whole->nr_chains && q->whole->nr_frames == p->whole->nr_frames &&
	   q->whole->samples == p->whole->samples, "chains, frames and samples as saved");
	err = walk(q, &got);
	ok(!err && seen_same(&want, &got), "the walk gives the same chains and cells (%llu chains)",
	   (unsigned long long)got.chains);
	err = walk(q, &again);
	ok(!err && seen_same(&want, &again), "and so does a second walk");
	/* strip and resolve save a loaded profile: its file-backed chains */
	err = datafile__save(q, path_in("again.data"), &e);
	ok(!err, "a loaded profile saves again (%s)", e.msg);
	err = datafile__load(path_in("again.data"), &q2, &e);
	ok(!err && q2 && q2->whole, "and loads (%s)", e.msg);
	if (q2 && q2->whole) {
		err = walk(q2, &third);
		ok(!err && seen_same(&want, &third), "with the same chains and cells");
		seen_free(&third);
	}
	/* mmprof strip: every address in the kernel's half goes, but the marker's */
	if (q2) {
		struct profile_stripped ps;
		struct profile *q3 = NULL;
		size_t i, marks = 0;

		profile__strip(q2, &ps);
		for (i = 0; i < q2->nr_frames; i++)
			marks += profile__frame_elided(q2, (uint32_t)i);
		is_int(marks, 1, "strip keeps the \"[elided]\" frame's mark");
		err = datafile__save(q2, path_in("stripped.data"), &e);
		ok(!err, "a stripped profile saves with its chains (%s)", e.msg);
		err = datafile__load(path_in("stripped.data"), &q3, &e);
		ok(!err && q3 && q3->whole, "and loads (%s)", e.msg);
		if (q3 && q3->whole) {
			err = walk(q3, &third);
			ok(!err && seen_same(&want, &third), "with the same chains and cells");
			seen_free(&third);
		}
		profile__free(q3);
	}
	seen_free(&want);
	seen_free(&got);
	seen_free(&again);
	profile__free(q2);
	profile__free(q);
	profile__free(p);
}

static void test_no_chains(void)
{
	struct chainarr *a;
	struct profile *p = build(50, &a), *q = NULL;
	struct chainsrc *whole = p->whole;
	struct errmsg e = { "" };
	FILE *f1, *f2;
	char b1[1 << 16], b2[1 << 16];
	size_t n1, n2;
	int same;

	is_int(datafile__save_version(p, path_in("v4.data"), 4, &e), -EINVAL,
	       "format 4 cannot hold the chains: refused");
	ok(access(path_in("v4.data"), F_OK), "and nothing written");
	p->whole = NULL;
	ok(!datafile__save(p, path_in("nowhole.data"), &e), "without chains it saves (%s)", e.msg);
	is_int(user_version(path_in("nowhole.data")), 4, "as format 4");
	is_int(sql_int(path_in("nowhole.data"), "SELECT count(*) FROM sqlite_master WHERE name = 'chain_blocks'"), 0,
	       "without the chain_blocks table");
	ok(!datafile__save_version(p, path_in("v4b.data"), 4, &e), "format 4 asked for (%s)", e.msg);
	f1 = fopen(path_in("nowhole.data"), "rb");
	f2 = fopen(path_in("v4b.data"), "rb");
	n1 = f1 ? fread(b1, 1, sizeof(b1), f1) : 0;
	n2 = f2 ? fread(b2, 1, sizeof(b2), f2) : 0;
	same = n1 && n1 == n2 && !memcmp(b1, b2, n1);
	ok(same, "byte for byte the format 4 asked for (%zu bytes)", n1);
	if (f1)
		fclose(f1);
	if (f2)
		fclose(f2);
	ok(!datafile__load(path_in("nowhole.data"), &q, &e) && q && !q->whole,
	   "and it loads without chains (%s)", e.msg);
	profile__free(q);
	q = NULL;
	ok(!datafile__save_version(p, path_in("v5.data"), 5, &e), "format 5 asked for, no chains");
	ok(!datafile__load(path_in("v5.data"), &q, &e) && q && !q->whole,
	   "loads without chains (%s)", e.msg);
	profile__free(q);
	p->whole = whole;
	profile__free(p);
}

static int count_frame(void *ctx, const struct chain_rec *c)
{
	uint64_t *n = ctx;
	uint32_t i;

	for (i = 0; i < c->nr; i++)
		n[1] += c->frames[i] == (uint32_t)n[0];
	return 0;
}

/*
 * resolve --vmlinux: the trie gets inline frames after a real frame
 * (profile__insert_frames), and so do the whole chains
 * (resolve__chains_inlined): still in order, the sums still the trie's.
 */
static void test_inlined(const char *good)
{
	struct profile *q = NULL, *q2 = NULL;
	struct errmsg e = { "" };
	struct seen want, got;
	uint64_t before[2], after[2];
	uint32_t *ins, ids[3];
	struct frame f = { .addr = 0x401000 + 7 * 16, .inlined = 1 };
	int err;

	uint64_t frames0;

	if (datafile__load(good, &q, &e) || !q->whole) {
		ok(0, "cannot load '%s': %s", good, e.msg);
		profile__free(q);
		return;
	}
	frames0 = q->whole->nr_frames;
	before[0] = 7;
	before[1] = 0;
	chainsrc__each(q->whole, count_frame, before);
	ins = xcalloc(q->nr_frames, sizeof(*ins));
	ids[0] = 2;
	f.sym = profile__intern(q, "inl_a");
	ids[1] = profile__frame(q, &f);
	f.sym = profile__intern(q, "inl_b");
	ids[2] = profile__frame(q, &f);
	ins[7] = 1;
	profile__insert_frames(q, ins, 41, ids);
	q->whole = resolve__chains_inlined(q->whole, ins, 41, ids);
	free(ins);
	ok(q->whole->nr_frames == frames0 + 2 * before[1], "the chains count their inline frames");
	walk(q, &want);
	after[0] = ids[2];
	after[1] = 0;
	chainsrc__each(q->whole, count_frame, after);
	ok(before[1] > 0 && after[1] == before[1], "each of the %llu frames 7 has its inline frames after it",
	   (unsigned long long)before[1]);
	err = datafile__save(q, path_in("inlined.data"), &e);
	ok(!err, "saved with the chains inlined: in order, sums the trie's (%s)", e.msg);
	err = datafile__load(path_in("inlined.data"), &q2, &e);
	ok(!err && q2 && q2->whole, "loads (%s)", e.msg);
	if (q2 && q2->whole) {
		err = walk(q2, &got);
		ok(!err && seen_same(&want, &got), "the same chains");
		seen_free(&got);
	}
	seen_free(&want);
	profile__free(q2);
	profile__free(q);
}

static uint64_t sum_samples(const struct profile *p)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		n += p->counts[i].samples;
	return n;
}

/* The source broken in one way: save refuses it, naming the chain, and writes nothing. */
static void test_writer_refuses(void)
{
	struct chainarr *a;
	struct profile *p = build(200, &a), *q = NULL;
	struct errmsg e = { "" }, why = { "" };
	size_t dropped = 0;
	uint32_t t;

	/* order: swap two chains' first frames */
	t = a->frames[a->chains[10].frame_off];
	a->frames[a->chains[10].frame_off] = a->frames[a->chains[150].frame_off];
	a->frames[a->chains[150].frame_off] = t;
	is_int(datafile__save(p, path_in("bad.data"), &e), -EINVAL, "chains out of order: refused");
	ok(strstr(e.msg, "chain_blocks") && strstr(e.msg, "not after") && !strchr(e.msg, '\n'),
	   "one line naming the chain: %s", e.msg);
	ok(access(path_in("bad.data"), F_OK), "nothing written");
	/* salvage: the trie, format 4, without the chains */
	ok(!datafile__salvage(p, path_in("salv.data"), &dropped, &why, &e),
	   "salvage writes the file (%s)", e.msg);
	ok(dropped == a->nr_chains && strstr(why.msg, "without its whole chains"),
	   "without its chains, and says so: %zu dropped, %s", dropped, why.msg);
	is_int(user_version(path_in("salv.data")), 4, "as format 4");
	ok(!datafile__load(path_in("salv.data"), &q, &e) && q && !q->whole &&
	   sum_samples(q) == sum_samples(p), "which loads with every sample (%s)", e.msg);
	profile__free(q);
	a->frames[a->chains[150].frame_off] = a->frames[a->chains[10].frame_off];
	a->frames[a->chains[10].frame_off] = t;

	/* an "[elided]" frame inside a chain */
	t = a->frames[a->chains[3].frame_off + 1];
	a->frames[a->chains[3].frame_off + 1] = chainarr__elided_frame(p);
	is_int(datafile__save(p, path_in("bad.data"), &e), -EINVAL, "a chain through \"[elided]\": refused");
	ok(strstr(e.msg, "[elided]") != NULL, "%s", e.msg);
	a->frames[a->chains[3].frame_off + 1] = t;

	/* a frame that does not exist */
	a->frames[a->chains[3].frame_off + 1] = (uint32_t)p->nr_frames;
	is_int(datafile__save(p, path_in("bad.data"), &e), -EINVAL, "a frame past the frames: refused");
	a->frames[a->chains[3].frame_off + 1] = t;

	/* the chains' samples not those under "[elided]" */
	a->cells[0].samples++;
	a->src.samples++;
	is_int(datafile__save(p, path_in("bad.data"), &e), -EINVAL, "the chains' samples not the trie's: refused");
	ok(strstr(e.msg, "under \"[elided]\"") != NULL, "%s", e.msg);
	a->cells[0].samples--;
	a->src.samples--;

	/* cells out of order */
	if (a->chains[0].nr_cells < 2) {
		skip_tests(1, "the first chain has one cell");
	} else {
		struct chain_cell c = a->cells[0];

		a->cells[0] = a->cells[1];
		a->cells[1] = c;
		is_int(datafile__save(p, path_in("bad.data"), &e), -EINVAL, "cells out of order: refused");
		a->cells[1] = a->cells[0];
		a->cells[0] = c;
	}

	/* the source's own error */
	a->fail_at = 20;
	ok(datafile__save(p, path_in("bad.data"), &e) == -EIO, "a source that fails: its error (%s)", e.msg);
	a->fail_at = 0;
	ok(access(path_in("bad.data"), F_OK), "and never a file");
	ok(!datafile__save(p, path_in("fine.data"), &e), "repaired, it saves (%s)", e.msg);
	profile__free(p);
}

static void put_varint(unsigned char **b, uint64_t v)
{
	while (v >= 0x80) {
		*(*b)++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*(*b)++ = (unsigned char)v;
}

/*
 * The file good with its chain_blocks replaced by sql, then bound to
 * blob (NULL: none); the load must refuse it with one line holding want.
 */
static void refused(const char *good, const char *name, const char *sql, const unsigned char *blob,
		    size_t len, const char *want)
{
	const char *bad = path_in("corrupt.data");
	char cmd[1024];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct profile *q = NULL;
	struct errmsg e = { "" };
	int err, rc;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", good, bad);
	if (system(cmd)) {
		ok(0, "%s: cannot copy", name);
		return;
	}
	rc = sqlite3_open(bad, &db);
	if (rc == SQLITE_OK && blob) {
		/* the block alone: the only row */
		rc = sqlite3_exec(db, "DELETE FROM chain_blocks WHERE id > 0", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_blob(st, 1, blob, (int)len, SQLITE_STATIC);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		}
		sqlite3_finalize(st);
	} else if (rc == SQLITE_OK) {
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	sqlite3_close(db);
	if (rc != SQLITE_OK) {
		ok(0, "%s: the edit failed", name);
		return;
	}
	err = datafile__load(bad, &q, &e);
	ok(err == -EPROTO && !q && strstr(e.msg, want) && !strchr(e.msg, '\n'),
	   "%s: refused (%d): %s", name, err, e.msg);
	profile__free(q);
}

static void test_corrupt(const char *good)
{
	unsigned char raw[256], *b;
	const char *one_row = "UPDATE chain_blocks SET chains = 2, frames = 6, cells = 2, samples = 2, "
			      "size = length(?1), data = ?1 WHERE id = 0";
	int nr_frames = sql_int(good, "SELECT sum(size) / 29 FROM frame_blocks");

	refused(good, "truncated zlib", "UPDATE chain_blocks SET data = substr(data, 1, length(data) / 2) WHERE id = 1",
		NULL, 0, "does not unpack");
	refused(good, "bad zlib", "UPDATE chain_blocks SET data = x'789c0102030405060708' WHERE id = 0",
		NULL, 0, "does not unpack");
	refused(good, "blob longer than size", "UPDATE chain_blocks SET size = length(data) - 1 WHERE id = 0",
		NULL, 0, "more than its size");
	refused(good, "blocks swapped (order broken)",
		"UPDATE chain_blocks SET id = -1 WHERE id = 0; UPDATE chain_blocks SET id = 0 WHERE id = 1; "
		"UPDATE chain_blocks SET id = 1 WHERE id = -1", NULL, 0, "not after the chain before");
	refused(good, "a block's row miscounts its chains", "UPDATE chain_blocks SET chains = chains + 1 WHERE id = 0",
		NULL, 0, "its row says");
	refused(good, "a block over the size limit", "UPDATE chain_blocks SET size = 2000000 WHERE id = 0",
		NULL, 0, "out of range");
	refused(good, "a block missing (the trie's samples)", "DELETE FROM chain_blocks WHERE id = (SELECT max(id) FROM chain_blocks)",
		NULL, 0, "under \"[elided]\"");
	refused(good, "ids not dense", "UPDATE chain_blocks SET id = 7 WHERE id = 1", NULL, 0, "dense");

	/* hand-made blocks, stored as they are (size == length) */
	b = raw;		/* a frame id past the file's frames */
	put_varint(&b, 2);
	put_varint(&b, 2);
	put_varint(&b, (uint64_t)nr_frames);
	refused(good, "a frame that does not exist", one_row, raw, (size_t)(b - raw), "does not exist");

	b = raw;		/* lcp longer than the chain before */
	put_varint(&b, 3);
	put_varint(&b, 2);
	put_varint(&b, 0);
	put_varint(&b, 0);	/* dictionary: frames 2, 3, 4 */
	put_varint(&b, 0);	/* chain 0: lcp 0, 3 frames: 2 3 4, one cell */
	put_varint(&b, 3);
	put_varint(&b, 0);
	put_varint(&b, 1);
	put_varint(&b, 2);
	put_varint(&b, 1);
	put_varint(&b, 0);
	put_varint(&b, 0);
	put_varint(&b, 0);
	put_varint(&b, 0);
	put_varint(&b, 1);
	put_varint(&b, 10);
	put_varint(&b, 5);	/* chain 1: lcp 5 of 3 */
	put_varint(&b, 1);
	put_varint(&b, 0);
	put_varint(&b, 1);
	put_varint(&b, 0);
	put_varint(&b, 0);
	put_varint(&b, 0);
	put_varint(&b, 0);
	put_varint(&b, 1);
	put_varint(&b, 10);
	refused(good, "lcp too long", one_row, raw, (size_t)(b - raw), "lcp");

	raw[16] = 2;		/* chain 1: lcp 2, its frame 2 < 4 */
	refused(good, "a chain before the one before it", one_row, raw, (size_t)(b - raw), "order broken");

	raw[16] = 3;		/* chain 1: lcp 3, extends chain 0: fine; its run 9 */
	raw[20] = 9;
	refused(good, "a run that does not exist", one_row, raw, (size_t)(b - raw), "run");

	raw[20] = 0;
	raw[24] = 0;		/* chain 1: 0 samples */
	refused(good, "a cell of 0 samples", one_row, raw, (size_t)(b - raw), "0 samples");

	raw[24] = 1;
	refused(good, "cut short", one_row, raw, (size_t)(b - raw) - 1, "cut short");
}

int main(void)
{
	static char good[256];

	snprintf(dir, sizeof(dir), "/tmp/mmprof-chainfile-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(good, sizeof(good), "%s", path_in("good.data"));
	test_roundtrip(good);
	test_no_chains();
	test_writer_refuses();
	test_inlined(good);
	test_corrupt(good);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			return 1;
	}
	return done_testing();
}
