/*
 * What loading a .data file costs SQLite, counted in its allocations
 * (deterministic, where time is not): a load reads the file's schema once
 * and checks it against the one save writes, which should cost less than
 * three readings of that schema, not many.  It cost 5 to 12: the check
 * for virtual tables (pragma table_list) worked out every view's columns,
 * a parse of each view's query, and the reference schema the columns were
 * compared with was built views and all, each parsed twice.  Under ASan
 * those parses were most of the datafile fuzzer's time (12-25 inputs a
 * second on the loaded CI machine).  Each format's file is measured.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"
#include "tap.h"

/* SQLite's allocator, counting its calls (this program's alone) */
static sqlite3_mem_methods sys_mem;
static uint64_t nr_allocs;

static void *count_malloc(int n)
{
	nr_allocs++;
	return sys_mem.xMalloc(n);
}

static void *count_realloc(void *p, int n)
{
	nr_allocs++;
	return sys_mem.xRealloc(p, n);
}

/* A small profile of every record type (as the fuzzer's base). */
static struct profile *small_profile(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .freq = 1 };
	struct run r = { .exit_code = 0, .samples = 4 };
	struct counter c = { .name = profile__intern(p, "page-faults"), .value = 7 };
	struct counter_interval ci = { .name = c.name, .t_ns = 1000, .value = 5 };
	struct frame f = { .addr = 0xffffffff81000000ull, .sym = profile__intern(p, "clear_page"),
			   .dso = profile__intern(p, "[kernel.kallsyms]"), .kernel = 1 };
	uint32_t st[3];

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
	profile__add_frame_file(p, st[1], 0x1000, NULL);
	return p;
}

/* SQLite's allocations to open path and read its schema, as any reader must. */
static uint64_t schema_read(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t before = nr_allocs;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) == SQLITE_OK)
		sqlite3_step(st);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return nr_allocs - before;
}

int main(void)
{
	sqlite3_mem_methods m;
	struct profile *p;
	char path[64];
	int v;

	/* before SQLite's first use: SQLITE_CONFIG_* is refused after it */
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sys_mem) != SQLITE_OK)
		return 2;
	m = sys_mem;
	m.xMalloc = count_malloc;
	m.xRealloc = count_realloc;
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
		return 2;
	snprintf(path, sizeof(path), "/tmp/test-datafile-cost.%d.data", (int)getpid());
	p = small_profile();
	for (v = 1; v <= PROFILE_FORMAT_VERSION; v++) {
		struct profile *q = NULL;
		struct errmsg e = { "" };
		uint64_t before, load, schema;

		if (!ok(datafile__save_version(p, path, v, &e) == 0, "format %d: saved %s", v, e.msg))
			continue;
		schema = schema_read(path);
		before = nr_allocs;
		ok(datafile__load(path, &q, &e) == 0 && q, "format %d: loads %s", v, e.msg);
		load = nr_allocs - before;
		/* the schema read, then its checks and the rows (1.2 to 1.9 times here) */
		ok(load < 3 * schema, "format %d: a load makes %llu SQLite allocations, "
		   "under three times the %llu of reading its schema", v, (unsigned long long)load,
		   (unsigned long long)schema);
		profile__free(q);
		unlink(path);
	}
	profile__free(p);
	return done_testing();
}
