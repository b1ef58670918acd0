/*
 * datafile-seed.h: what a seed of tests/fuzz/corpus/datafile/ means, for the
 * two programs that read them: the fuzzer (fuzz-datafile.c) and the suite's
 * hostile-file check (seed-to-data.c, run by t831).  Raw bytes are the file
 * itself; an input starting with "SQL:" is SQL run on a copy of a small
 * valid file with every record type (the current format), "SQL1:",
 * "SQL2:" and "SQL3:" the same on a format-1, 2 and 3 file, "SQL5:" on a
 * format-5 file (its trie elided after the root frame, the whole chains
 * in chain_blocks: chainarr.h) (format 3 packs
 * frames, nodes and cells in zlib blocks, format 4 frame_files too; format
 * 2's rows are what most row-level edits need, format 3's frame_files table
 * what edits of that table need).  Static functions only: each includer is one program
 * and builds its bases once.
 */
#ifndef MMPROF_TESTS_DATAFILE_SEED_H
#define MMPROF_TESTS_DATAFILE_SEED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"
#include "chainarr.h"

struct seed_base {
	void *bytes[5];		/* the current format's base, format 1's, 2's, 3's, 5's */
	size_t size[5];
};

static void seed__read_base(struct seed_base *b, int i, const char *tmp)
{
	FILE *in = fopen(tmp, "rb");

	if (!in)
		abort();
	b->bytes[i] = malloc(1 << 20);
	if (!b->bytes[i])
		abort();
	b->size[i] = fread(b->bytes[i], 1, 1 << 20, in);
	fclose(in);
	unlink(tmp);
}

/* A small valid profile with every record type, saved in every format
 * through the scratch file tmp: the bases of SQL inputs. */
static void seed__make_base(struct seed_base *b, const char *tmp)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .freq = 1 };
	struct run r = { .exit_code = -1, .samples = 3 };
	struct counter c = { .name = profile__intern(p, "page-faults"), .value = 1ull << 63 };
	struct counter_interval ci = { .name = c.name, .t_ns = 1000, .value = 5 };
	struct frame f = { .addr = 0xffffffff81000000ull, .sym = profile__intern(p, "clear_page"),
			   .dso = profile__intern(p, "[kernel.kallsyms]"), .kernel = 1 };
	uint32_t st[3];
	struct errmsg e;

	profile__set_meta(p, "hostname", "h");
	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	profile__add_counter(p, &c);
	profile__add_interval(p, &ci);
	profile__add_metric(p, 0, "x.ops", 1.5);
	st[0] = profile__frame(p, &f);
	f.addr = 0x401000;
	f.kernel = 0;
	f.sym = profile__intern(p, "main");
	st[2] = profile__frame(p, &f);
	f.sym = 0;
	st[1] = profile__frame(p, &f);
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 0, profile__stack(p, st, 3), 3, 3000);
	profile__add_count(p, 0, 0, 0, 0, profile__stack(p, st + 1, 2), 1, 1000);
	/* the unnamed user frame's place in its file, for mmprof resolve */
	profile__add_frame_file(p, st[1], 0x1000, "f4728d496dc701784b7e635feb4d853d4ec06f29");
	profile__add_frame_file(p, st[2], 0x2000, NULL);
	if (datafile__save(p, tmp, &e))
		abort();
	seed__read_base(b, 0, tmp);
	if (datafile__save_version(p, tmp, 1, &e))
		abort();
	seed__read_base(b, 1, tmp);
	if (datafile__save_version(p, tmp, 2, &e))
		abort();
	seed__read_base(b, 2, tmp);
	if (datafile__save_version(p, tmp, 3, &e))
		abort();
	seed__read_base(b, 3, tmp);
	/* format 5: two whole chains under main -> [elided] -> their leaves */
	{
		struct chainarr *a = chainarr__new();
		uint32_t c0[3] = { st[2], st[1], st[0] }, c1[3] = { st[2], st[1], st[1] };
		struct chain_cell x0 = { .comm = profile__str_id(p, "w"), .pid = 7, .samples = 2,
					 .period = 2000 };
		struct chain_cell x1 = { .samples = 1, .period = 1000 };

		chainarr__add(a, c0, 3, &x0, 1);
		chainarr__add(a, c1, 3, &x1, 1);
		chainarr__into_trie(p, a, 1);
		p->whole = &a->src;
		if (datafile__save(p, tmp, &e))
			abort();
		seed__read_base(b, 4, tmp);
	}
	profile__free(p);
}

/* The SQL edits one file: no other files (ATTACH, VACUUM INTO), no
 * extension loading, and bounded time (an endless recursive CTE is the
 * input's fault, not the reader's). */
static int seed__auth(void *ctx, int action, const char *a, const char *b, const char *c,
		      const char *d)
{
	(void)ctx; (void)a; (void)b; (void)c; (void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

static int seed__progress(void *ctx)
{
	return ++*(int *)ctx > 10000;
}

static void seed__write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size))
		abort();
	fclose(f);
}

/* Write the file that seed data[0..size) stands for at path. */
static void seed__write(const struct seed_base *b, const uint8_t *data, size_t size,
			const char *path)
{
	if ((size >= 4 && !memcmp(data, "SQL:", 4)) ||
	    (size >= 5 && (!memcmp(data, "SQL1:", 5) || !memcmp(data, "SQL2:", 5) ||
			   !memcmp(data, "SQL3:", 5) || !memcmp(data, "SQL5:", 5)))) {
		int which = data[3] >= '1' && data[3] <= '3' ? data[3] - '0' : data[3] == '5' ? 4 : 0;
		size_t skip = which ? 5 : 4;
		char *sql = malloc(size - skip + 1);
		sqlite3 *db = NULL;

		if (!sql)
			abort();
		memcpy(sql, data + skip, size - skip);
		sql[size - skip] = 0;
		seed__write_file(path, b->bytes[which], b->size[which]);
		if (!strcasestr(sql, "vacuum") && sqlite3_open(path, &db) == SQLITE_OK) {
			int steps = 0;

			sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 8 << 20);
			sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
			sqlite3_set_authorizer(db, seed__auth, NULL);
			sqlite3_progress_handler(db, 1000, seed__progress, &steps);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
		sqlite3_close(db);
		free(sql);
	} else {
		seed__write_file(path, data, size);
	}
}

#endif
