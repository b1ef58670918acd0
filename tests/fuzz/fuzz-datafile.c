/*
 * libFuzzer harness for the .data reader (issue 9): any byte string, written
 * to a file, must be refused or loaded by datafile__load without a crash,
 * a sanitizer report, a leak or a hang.  A loaded profile is saved again
 * and reloaded, so the writer's invariant checks see hostile content too.
 *
 * Built and run by `make fuzz` (clang -fsanitize=fuzzer,address,undefined
 * against build-fuzz/libmmprof.a), FUZZ_SECONDS each; by hand:
 *
 *   make build-fuzz/fuzz-datafile
 *   build-fuzz/fuzz-datafile -max_total_time=60 -max_len=65536 \
 *         build-fuzz/corpus/datafile tests/fuzz/corpus/datafile
 *
 * Two kinds of input: raw bytes are the file itself (corruption, foreign
 * formats); an input starting with "SQL:" is SQL run on a copy of a valid
 * file built at start-up (hostile *content* in a well-formed database:
 * dangling ids, cycles, wrong types, huge values), which byte flips rarely
 * reach; "SQL1:" does the same on a format-1 file (a row per count).
 * Seeds in tests/fuzz/corpus/datafile/: valid files of both formats with
 * every record type (512-byte pages to keep them small) and SQL edits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], again[80], base[80];
static void *base_bytes[2];	/* the current format's base, format 1's */
static size_t base_size[2];

static void read_base(int i)
{
	FILE *in = fopen(base, "rb");

	if (!in)
		abort();
	base_bytes[i] = malloc(1 << 20);
	base_size[i] = fread(base_bytes[i], 1, 1 << 20, in);
	fclose(in);
	unlink(base);
}

/* A small valid profile with every record type: the base of SQL inputs. */
static void make_base(void)
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
	if (datafile__save(p, base, &e))
		abort();
	read_base(0);
	if (datafile__save_version(p, base, 1, &e))
		abort();
	read_base(1);
	profile__free(p);
}

/* The SQL edits one file: no other files (ATTACH, VACUUM INTO), no
 * extension loading, and bounded time (an endless recursive CTE is the
 * input's fault, not the reader's). */
static int auth(void *ctx, int action, const char *a, const char *b, const char *c,
		const char *d)
{
	(void)ctx; (void)a; (void)b; (void)c; (void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

static int progress(void *ctx)
{
	return ++*(int *)ctx > 10000;
}

static void write_file(const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size))
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL;
	struct errmsg e;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz-datafile.%d.data", (int)getpid());
		snprintf(again, sizeof(again), "%s.again", path);
		snprintf(base, sizeof(base), "%s.base", path);
		make_base();
	}
	if ((size >= 4 && !memcmp(data, "SQL:", 4)) || (size >= 5 && !memcmp(data, "SQL1:", 5))) {
		int v1 = data[3] == '1';
		size_t skip = v1 ? 5 : 4;
		char *sql = malloc(size - skip + 1);
		sqlite3 *db = NULL;

		memcpy(sql, data + skip, size - skip);
		sql[size - skip] = 0;
		write_file(base_bytes[v1], base_size[v1]);
		if (!strcasestr(sql, "vacuum") && sqlite3_open(path, &db) == SQLITE_OK) {
			int steps = 0;

			sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 8 << 20);
			sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
			sqlite3_set_authorizer(db, auth, NULL);
			sqlite3_progress_handler(db, 1000, progress, &steps);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
		sqlite3_close(db);
		free(sql);
	} else {
		write_file(data, size);
	}
	if (datafile__load(path, &p, &e) == 0) {
		struct profile *q = NULL;

		if (!p)
			abort();
		/* what loads must save (or be refused by save with a message)
		 * and what save writes must load again */
		if (datafile__save(p, again, &e) == 0) {
			if (datafile__load(again, &q, &e))
				abort();
			profile__free(q);
		}
		unlink(again);
	} else if (p || !e.msg[0]) {
		abort();	/* an error must come with a message and no profile */
	}
	profile__free(p);
	return 0;
}
