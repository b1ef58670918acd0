/*
 * Unit tests of the .data file: a round-trip of every record type compared
 * field by field, the speed of a realistic save, atomic replacement under
 * failure (missing directory, invalid profile, a full disk, planted
 * symlinks, stale temporaries), and refusal of hostile or foreign files,
 * each with an error code and a one-line message and never a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zlib.h>

#include "mmprof/datafile.h"
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

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Save must be well under a second; sanitizers make everything ~4x slower. */
#ifdef __SANITIZE_ADDRESS__
#define SAVE_CPU_LIMIT 4.0
#else
#define SAVE_CPU_LIMIT 1.0
#endif

/* A profile with every record type and the awkward values of each. */
static struct profile *build_profile(void)
{
	struct profile *p = profile__new();
	struct frame f = { 0 };
	uint32_t fr[6], comm, n;
	struct event_desc ev = {
		.name = profile__intern(p, "cpu-clock"),
		.asked = profile__intern(p, "cycles"),
		.type = 1, .config = 0, .freq = 1, .sample = 4000,
	};
	struct run r = {
		.start_ns = 1700000000123456789LL, .wall_ns = 2500000000LL,
		.exit_code = 0, .term_signal = 0, .utime_us = 1234, .stime_us = 5678,
		.maxrss_kb = 40960, .minflt = 100000, .majflt = 3, .nvcsw = 12, .nivcsw = 7,
		.samples = 10000, .lost = 2, .throttled = 1,
	};
	struct counter c = {
		.run = 0, .name = profile__intern(p, "page-faults"), .supported = 1,
		.value = 0xfedcba9876543210ull, .enabled = 1000000, .running = 500000,
	};
	struct counter_interval ci = {
		.run = 1, .name = c.name, .t_ns = 1000000000ull,
		.value = UINT64_MAX, .enabled = 1ull << 63, .running = 42,
	};
	size_t i;

	profile__set_meta(p, "hostname", "lkp-skl-2sp7");
	profile__set_meta(p, "cmdline", "mmprof record -r 2 -- ./page_fault1 'a b'");
	profile__set_meta(p, "empty", "");
	profile__set_meta(p, "nothing", NULL);
	profile__set_meta(p, "unicode", "\xc3\xa9t\xc3\xa9");

	profile__add_event(p, &ev);
	ev.name = profile__intern(p, "r01c2");
	ev.asked = 0;
	ev.type = 4;
	ev.config = 0x8000000000000001ull;	/* above 2^63 */
	ev.freq = 0;
	ev.sample = UINT64_MAX;
	profile__add_event(p, &ev);

	profile__add_run(p, &r);
	r.start_ns = -5;			/* negative int64 survives */
	r.wall_ns = INT64_MIN;
	r.exit_code = -1;
	r.term_signal = 9;
	r.utime_us = INT64_MAX;
	r.samples = INT64_MAX;
	profile__add_run(p, &r);

	profile__add_counter(p, &c);
	c.run = 1;
	c.supported = 0;
	c.name = profile__intern(p, "cycles");
	c.value = 0;
	profile__add_counter(p, &c);
	profile__add_interval(p, &ci);
	ci.t_ns = 2000000000ull;
	ci.value = 17;
	profile__add_interval(p, &ci);

	profile__add_metric(p, 0, "page_fault1.ops_per_sec", 123456.789);
	profile__add_metric(p, 1, "page_fault1.ops_per_sec", -0.5);
	profile__add_metric(p, 1, "huge", 1e300);
	profile__add_metric(p, 1, "inf", INFINITY);

	f.addr = 0xffffffff81234567ull;
	f.sym_off = 0x17;
	f.sym = profile__intern(p, "clear_page_erms");
	f.dso = profile__intern(p, "[kernel.kallsyms]");
	f.kernel = 1;
	fr[0] = profile__frame(p, &f);
	f.addr = 0xffffffff81000010ull;
	f.sym = profile__intern(p, "asm_exc_page_fault");
	fr[1] = profile__frame(p, &f);
	f.addr = 0x401234;
	f.sym_off = 0;
	f.sym = profile__intern(p, "main");
	f.dso = profile__intern(p, "/usr/bin/page_fault1");
	f.kernel = 0;
	fr[2] = profile__frame(p, &f);
	f.addr = 0x7fff00000000ull;
	f.sym = 0;				/* unresolved */
	f.dso = 0;
	fr[3] = profile__frame(p, &f);

	comm = profile__intern(p, "page_fault1");
	{
		uint32_t st1[] = { fr[0], fr[1], fr[2] };	/* leaf first */
		uint32_t st2[] = { fr[3], fr[2] };

		n = profile__stack(p, st1, 3);
		profile__add_count(p, 0, 0, comm, 4242, n, 900, 900000);
		/* the same cell in another process: a cell of its own */
		profile__add_count(p, 0, 0, comm, 4243, n, 9, 9000);
		profile__add_count(p, 1, 0, comm, INT32_MAX, n, 800, 800000);
		/* near 2^63, yet the periods of all counts stay below it */
		profile__add_count(p, 1, 1, 0, 0, n, 1, (uint64_t)INT64_MAX - (1ull << 32));
		n = profile__stack(p, st2, 2);
		profile__add_count(p, 0, 0, comm, 0, n, 100, 100000);
		/* a sample without a callchain counts on the root */
		profile__add_count(p, 0, 0, comm, 0, PROFILE_ROOT, 5, 5000);
	}
	for (i = 0; i < 3; i++)
		profile__node(p, PROFILE_ROOT, fr[i]);
	return p;
}

#define CMP(field, what) do { if ((a->field) != (b->field)) { \
	printf("#   %s: %s differs at %zu\n", what, #field, i); bad++; } } while (0)

static int count_cmp(const void *a, const void *b)
{
	const struct count *x = a, *y = b;
	uint32_t kx[5] = { x->run, x->event, x->comm, x->pid, x->node };
	uint32_t ky[5] = { y->run, y->event, y->comm, y->pid, y->node };
	int i;

	for (i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* A copy of p's counts in key order, padding zeroed for memcmp. */
static struct count *sorted_counts(const struct profile *p)
{
	struct count *c = calloc(p->nr_counts + 1, sizeof(*c));
	size_t i;

	for (i = 0; i < p->nr_counts; i++) {
		c[i].run = p->counts[i].run;
		c[i].event = p->counts[i].event;
		c[i].comm = p->counts[i].comm;
		c[i].pid = p->counts[i].pid;
		c[i].node = p->counts[i].node;
		c[i].samples = p->counts[i].samples;
		c[i].period = p->counts[i].period;
	}
	qsort(c, p->nr_counts, sizeof(*c), count_cmp);
	return c;
}

/* Field-by-field equality, ids included (save+load is the identity). */
static int profiles_equal(const struct profile *a, const struct profile *b)
{
	int bad = 0;
	size_t i = 0;

#define SAME_NR(nr) do { if (a->nr != b->nr) { \
	printf("#   %s: %zu vs %zu\n", #nr, a->nr, b->nr); return 0; } } while (0)
	SAME_NR(strs.nr); SAME_NR(nr_frames); SAME_NR(nr_nodes); SAME_NR(nr_counts);
	SAME_NR(nr_events); SAME_NR(nr_runs); SAME_NR(nr_counters);
	SAME_NR(nr_intervals); SAME_NR(nr_metrics); SAME_NR(nr_meta);
	for (i = 1; i < a->strs.nr; i++)
		if (strcmp(a->strs.s[i], b->strs.s[i])) {
			printf("#   string %zu: '%s' vs '%s'\n", i, a->strs.s[i], b->strs.s[i]);
			bad++;
		}
	for (i = 0; i < a->nr_meta; i++) {
		CMP(meta[i].key, "meta");
		CMP(meta[i].value, "meta");
	}
	for (i = 0; i < a->nr_frames; i++) {
		CMP(frames[i].addr, "frame"); CMP(frames[i].sym_off, "frame");
		CMP(frames[i].sym, "frame"); CMP(frames[i].dso, "frame");
		CMP(frames[i].kernel, "frame"); CMP(frames[i].inlined, "frame");
		CMP(frames[i].raw, "frame");
	}
	for (i = 0; i < a->nr_nodes; i++) {
		CMP(nodes[i].parent, "node"); CMP(nodes[i].frame, "node");
		CMP(nodes[i].depth, "node");
	}
	{
		/* counts have no ids: format 2 stores them sorted by their key */
		struct count *x = sorted_counts(a), *y = sorted_counts(b);

		for (i = 0; i < a->nr_counts; i++)
			if (memcmp(&x[i], &y[i], sizeof(x[i]))) {
				printf("#   count %zu differs\n", i);
				bad++;
			}
		free(x);
		free(y);
	}
	for (i = 0; i < a->nr_events; i++) {
		CMP(events[i].name, "event"); CMP(events[i].asked, "event");
		CMP(events[i].type, "event"); CMP(events[i].config, "event");
		CMP(events[i].freq, "event"); CMP(events[i].sample, "event");
	}
	for (i = 0; i < a->nr_runs; i++) {
		CMP(runs[i].start_ns, "run"); CMP(runs[i].wall_ns, "run");
		CMP(runs[i].exit_code, "run"); CMP(runs[i].term_signal, "run");
		CMP(runs[i].utime_us, "run"); CMP(runs[i].stime_us, "run");
		CMP(runs[i].maxrss_kb, "run"); CMP(runs[i].minflt, "run");
		CMP(runs[i].majflt, "run"); CMP(runs[i].nvcsw, "run");
		CMP(runs[i].nivcsw, "run"); CMP(runs[i].samples, "run");
		CMP(runs[i].lost, "run"); CMP(runs[i].throttled, "run");
	}
	for (i = 0; i < a->nr_counters; i++) {
		CMP(counters[i].run, "counter"); CMP(counters[i].name, "counter");
		CMP(counters[i].supported, "counter"); CMP(counters[i].value, "counter");
		CMP(counters[i].enabled, "counter"); CMP(counters[i].running, "counter");
	}
	for (i = 0; i < a->nr_intervals; i++) {
		CMP(intervals[i].run, "interval"); CMP(intervals[i].name, "interval");
		CMP(intervals[i].t_ns, "interval"); CMP(intervals[i].value, "interval");
		CMP(intervals[i].enabled, "interval"); CMP(intervals[i].running, "interval");
	}
	for (i = 0; i < a->nr_metrics; i++) {
		CMP(metrics[i].run, "metric"); CMP(metrics[i].key, "metric");
		if (memcmp(&a->metrics[i].value, &b->metrics[i].value, sizeof(double)) &&
		    !(isnan(a->metrics[i].value) && isnan(b->metrics[i].value))) {
			printf("#   metric %zu: %g vs %g\n", i, a->metrics[i].value,
			       b->metrics[i].value);
			bad++;
		}
	}
	return bad == 0;
}

static int count_temps(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".tmp."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;
	int err = in < 0 || out < 0;

	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		err = write(out, buf, (size_t)n) != n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err ? -1 : 0;
}

static void write_bytes(const char *path, const void *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		printf("# cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
}

/*
 * The sqlite3 shell's sqlar_compress(x) and sqlar_uncompress(x, size),
 * which format 3's views use, for this client (as the spec tells any
 * client other than the shell to do).
 */
static void sqlar_compress_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const void *in = sqlite3_value_blob(argv[0]);
	uLong n = (uLong)sqlite3_value_bytes(argv[0]);
	uLongf zn = compressBound(n);
	void *out = malloc(zn);

	(void)argc;
	if (out && compress(out, &zn, in, n) == Z_OK && zn < n)
		sqlite3_result_blob(ctx, out, (int)zn, SQLITE_TRANSIENT);
	else
		sqlite3_result_value(ctx, argv[0]);
	free(out);
}

static void sqlar_uncompress_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const void *in = sqlite3_value_blob(argv[0]);
	uLong n = (uLong)sqlite3_value_bytes(argv[0]);
	uLongf size = (uLongf)sqlite3_value_int64(argv[1]);
	void *out;

	(void)argc;
	if (size == n || size > (64u << 20)) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	out = malloc(size ? size : 1);
	if (out && uncompress(out, &size, in, n) == Z_OK)
		sqlite3_result_blob(ctx, out, (int)size, SQLITE_TRANSIENT);
	free(out);
}

static void register_sqlar(sqlite3 *db)
{
	sqlite3_create_function(db, "sqlar_compress", 1, SQLITE_UTF8, NULL, sqlar_compress_fn,
				NULL, NULL);
	sqlite3_create_function(db, "sqlar_uncompress", 2, SQLITE_UTF8, NULL, sqlar_uncompress_fn,
				NULL, NULL);
}

/* Copy the good file and apply SQL to the copy: a hand-crafted hostile file. */
static const char *mutate(const char *good, const char *name, const char *sql)
{
	const char *path = path_in(name);
	sqlite3 *db = NULL;
	char *err = NULL;

	if (copy_file(good, path))
		printf("# cannot copy to %s\n", path);
	if (sqlite3_open(path, &db) == SQLITE_OK)
		register_sqlar(db);
	if (!db || sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		printf("# cannot mutate %s: %s\n", path, err ? err : sqlite3_errmsg(db));
	sqlite3_free(err);
	sqlite3_close(db);
	return path;
}

/* frame_files equal row by row, build-ids as text (format 4 stores them as strings). */
static int frame_files_equal(const struct profile *a, const struct profile *b)
{
	size_t i;

	if (a->nr_frame_files != b->nr_frame_files) {
		printf("#   nr_frame_files: %zu vs %zu\n", a->nr_frame_files, b->nr_frame_files);
		return 0;
	}
	for (i = 0; i < a->nr_frame_files; i++)
		if (a->frame_files[i].frame != b->frame_files[i].frame ||
		    a->frame_files[i].vaddr != b->frame_files[i].vaddr ||
		    strcmp(a->frame_files[i].build_id, b->frame_files[i].build_id)) {
			printf("#   frame_files row %zu: frame %u %#llx '%s' vs frame %u %#llx '%s'\n", i,
			       a->frame_files[i].frame, (unsigned long long)a->frame_files[i].vaddr,
			       a->frame_files[i].build_id, b->frame_files[i].frame,
			       (unsigned long long)b->frame_files[i].vaddr, b->frame_files[i].build_id);
			return 0;
		}
	return 1;
}

/* The file must be refused with err and a message containing want. */
static void refuses(const char *path, int err, const char *want, const char *what)
{
	struct profile *p = (struct profile *)&p;	/* must be reset to NULL */
	struct errmsg e = { "" };
	int rc = datafile__load(path, &p, &e);

	if (!ok(rc == err && p == NULL && strstr(e.msg, want) && strstr(e.msg, path),
		"refuses %s", what))
		printf("#   rc %d (want %d), message: %s\n", rc, err, e.msg);
	else
		printf("#   %s\n", e.msg);
	profile__free(rc ? NULL : p);
}

static void test_roundtrip(const char *good)
{
	struct profile *a = build_profile(), *b = NULL, *c = NULL;
	struct errmsg e = { "" };
	struct stat st;
	int rc;

	rc = datafile__save(a, good, &e);
	if (!ok(rc == 0, "save a profile with every record type"))
		printf("#   %s\n", e.msg);
	ok(stat(good, &st) == 0 && (st.st_mode & 0777) == 0600,
	   "mode 0600 with raw kernel addresses, under umask 022");
	rc = datafile__load(good, &b, &e);
	if (!ok(rc == 0 && b, "load it back"))
		printf("#   %s\n", e.msg);
	ok(b && profiles_equal(a, b), "every table equal field by field, ids included");
	ok(b && b->counters[0].value == 0xfedcba9876543210ull &&
	   b->intervals[0].value == UINT64_MAX && b->events[1].config == 0x8000000000000001ull,
	   "unsigned 64-bit values above 2^63 survive");
	ok(b && b->runs[1].start_ns == -5 && b->runs[1].wall_ns == INT64_MIN &&
	   b->runs[1].exit_code == -1, "negative int64 and int32 survive");
	is_str(b ? profile__meta(b, "nothing") : "x", NULL, "meta with a NULL value");
	is_str(b ? profile__meta(b, "empty") : NULL, "", "meta with an empty value");
	ok(b && !profile__meta(b, "format_version"), "the file's format_version stays in the file");

	/* load(save(load(x))) == load(x): a saved loaded profile is canonical */
	if (b && !datafile__save(b, path_in("again.data"), &e) &&
	    !datafile__load(path_in("again.data"), &c, &e))
		ok(profiles_equal(b, c), "save and load are idempotent");
	else
		ok(0, "save and load are idempotent: %s", e.msg);
	/* URI metacharacters in the name must not confuse SQLite */
	profile__free(c);
	c = NULL;
	rc = datafile__save(a, path_in("odd ?name#%41=1&x.data"), &e);
	if (!rc)
		rc = datafile__load(path_in("odd ?name#%41=1&x.data"), &c, &e);
	ok(rc == 0 && c && profiles_equal(a, c), "a file name with ? # %% & and a space: %s",
	   rc ? e.msg : "ok");
	unlink(path_in("odd ?name#%41=1&x.data"));
	profile__free(a);
	profile__free(b);
	profile__free(c);
	is_int(count_temps(), 0, "no temporary files left behind");
}

/*
 * Inline frames (record --inline) travel in the nullable frames.inlined
 * column; files written before that column existed still load, every
 * frame then a real one.
 */
static void test_inlined(const char *good)
{
	struct profile *a = build_profile(), *b = NULL;
	struct errmsg e = { "" };
	struct frame f = { 0 };
	uint32_t st[2], comm, n;
	const char *old;
	int rc;

	f.addr = 0x401234;
	f.sym = profile__intern(a, "main");
	f.dso = profile__intern(a, "/usr/bin/page_fault1");
	st[1] = profile__frame(a, &f);
	f.sym = profile__intern(a, "inl_helper");
	f.inlined = 1;
	st[0] = profile__frame(a, &f);
	f.addr = 0x401300;	/* a C++ function: demangled name, raw name kept */
	f.sym = profile__intern(a, "ns::Box<int>::spin");
	f.raw = profile__intern(a, "_ZN2ns3BoxIiE4spinEi");
	f.inlined = 0;
	profile__frame(a, &f);
	ok(st[0] != st[1] && a->frames[st[0]].inlined, "an inline frame is a frame of its own");
	comm = profile__intern(a, "page_fault1");
	n = profile__stack(a, st, 2);
	profile__add_count(a, 0, 0, comm, 0, n, 7, 7000);
	rc = datafile__save(a, path_in("inl.data"), &e);
	if (!rc)
		rc = datafile__load(path_in("inl.data"), &b, &e);
	ok(rc == 0 && b && profiles_equal(a, b), "inline flag and raw name round-trip: %s",
	   rc ? e.msg : "ok");
	profile__free(b);
	b = NULL;
	unlink(path_in("inl.data"));
	profile__free(a);

	/* format 2: the last whose frames are rows of a table */
	b = build_profile();
	if (datafile__save_version(b, path_in("inl2.data"), 2, &e))
		printf("# cannot save in format 2: %s\n", e.msg);
	profile__free(b);
	b = NULL;
	old = mutate(path_in("inl2.data"), "old-frames.data",
		     "DROP VIEW counts_v; DROP VIEW stacks; DROP VIEW nodes_v; DROP VIEW frames_v;"
		     "ALTER TABLE frames DROP COLUMN inlined; ALTER TABLE frames DROP COLUMN raw;");
	rc = datafile__load(old, &b, &e);
	ok(rc == 0 && b && b->nr_frames > 0, "a file without frames.inlined and .raw loads: %s",
	   rc ? e.msg : "ok");
	if (b) {
		size_t i, inl = 0;

		for (i = 0; i < b->nr_frames; i++)
			inl += b->frames[i].inlined;
		is_int(inl, 0, "... with no inline frames");
	}
	profile__free(b);
	unlink(old);
	unlink(path_in("inl2.data"));
	(void)good;
}

/*
 * frame_files (optional, within version 2): where unresolved user frames
 * lie in their files, for mmprof resolve.  It round-trips, a file without
 * it loads, and a hostile one is refused like any table.
 */
static void test_frame_files(const char *good)
{
	struct profile *a = build_profile(), *b = NULL;
	struct errmsg e = { "" };
	const char *path = path_in("ff.data"), *bad;
	uint32_t user = UINT32_MAX;
	size_t i;
	int rc;

	for (i = 0; i < a->nr_frames && user == UINT32_MAX; i++)
		if (!a->frames[i].kernel)
			user = (uint32_t)i;
	profile__add_frame_file(a, user, 0x8000000000001234ull,
				"f4728d496dc701784b7e635feb4d853d4ec06f29");
	profile__add_frame_file(a, user, 1, "again");	/* the same frame in a row: once */
	profile__add_frame_file(a, 0, 0x401000, NULL);
	is_int(a->nr_frame_files, 2, "a frame given twice in a row is kept once");
	rc = datafile__save_version(a, path, 3, &e);	/* format 4's: test_format4 */
	if (!rc)
		rc = datafile__load(path, &b, &e);
	ok(rc == 0 && b && b->nr_frame_files == 2 && b->frame_files[0].frame == user &&
	   b->frame_files[0].vaddr == 0x8000000000001234ull &&
	   !strcmp(b->frame_files[0].build_id, "f4728d496dc701784b7e635feb4d853d4ec06f29") &&
	   b->frame_files[1].frame == 0 && b->frame_files[1].vaddr == 0x401000 &&
	   !b->frame_files[1].build_id[0], "frame_files round-trip: %s", rc ? e.msg : "ok");
	ok(b && profiles_equal(a, b) && frame_files_equal(a, b),
	   "... and the rest of the file with them");
	profile__free(b);
	b = NULL;

	bad = mutate(path, "no-ff.data", "DROP TABLE frame_files");
	rc = datafile__load(bad, &b, &e);
	ok(rc == 0 && b && b->nr_frame_files == 0, "a file without frame_files (written before "
	   "it) loads: %s", rc ? e.msg : "ok");
	profile__free(b);
	b = NULL;
	unlink(bad);
	bad = mutate(path, "ff-hex.data", "UPDATE frame_files SET build_id = 'not hex' WHERE id = 0");
	refuses(bad, -EPROTO, "build_id is not a build-id", "a build-id that is not hex");
	unlink(bad);
	bad = mutate(path, "ff-frame.data", "UPDATE frame_files SET frame = 99999 WHERE id = 0");
	refuses(bad, -EPROTO, "frame_files", "a frame_files row of a frame that does not exist");
	unlink(bad);
	bad = mutate(path, "ff-view.data", "DROP TABLE frame_files; "
		     "CREATE VIEW frame_files AS SELECT 0 AS id, 0 AS frame, 0 AS vaddr, NULL AS build_id");
	refuses(bad, -EPROTO, "'frame_files' is not a table", "frame_files as a view");
	unlink(bad);
	bad = mutate(path, "ff-col.data", "ALTER TABLE frame_files ADD COLUMN x INTEGER");
	refuses(bad, -EPROTO, "extra column", "frame_files with an extra column");
	unlink(bad);
	unlink(path);
	profile__free(a);
}

/* The views of the spec work from plain SQL. */
static void test_views(const char *good)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char got[512] = "";

	sqlite3_open_v2(good, &db, SQLITE_OPEN_READONLY, NULL);
	register_sqlar(db);
	if (sqlite3_prepare_v2(db,
			       "SELECT s.stack || ' ' || c.samples FROM counts_v c"
			       " JOIN stacks s ON s.node = c.node"
			       " WHERE c.run = 0 AND c.comm = 'page_fault1' ORDER BY c.samples DESC LIMIT 1",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		snprintf(got, sizeof(got), "%s", (const char *)sqlite3_column_text(st, 0));
	is_str(got, "main;asm_exc_page_fault;clear_page_erms 900", "stacks view folds root first");
	sqlite3_finalize(st);
	got[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT addr || ' ' || symbol FROM frames_v WHERE id = 0",
			       -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		snprintf(got, sizeof(got), "%s", (const char *)sqlite3_column_text(st, 0));
	is_str(got, "0xffffffff81234567 clear_page_erms", "frames_v shows addresses as hex");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static struct profile *big_profile(size_t nodes)
{
	struct profile *p = profile__new();
	struct run r = { 0 };
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock") };
	uint32_t frames[5000], comm[4];
	char name[64];
	size_t i;

	profile__add_run(p, &r);
	profile__add_event(p, &ev);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "worker-%zu", i);
		comm[i] = profile__intern(p, name);
	}
	for (i = 0; i < 5000; i++) {
		struct frame f = { .addr = 0xffffffff81000000ull + i * 64, .kernel = i & 1 };

		snprintf(name, sizeof(name), "function_number_%zu_of_a_kernel", i);
		f.sym = profile__intern(p, name);
		f.dso = profile__intern(p, i & 1 ? "[kernel.kallsyms]" : "/usr/lib/libc.so.6");
		frames[i] = profile__frame(p, &f);
	}
	srand(7);
	while (p->nr_nodes < nodes) {
		uint32_t n = profile__node(p, (uint32_t)rand() % p->nr_nodes,
					   frames[rand() % 5000]);

		profile__add_count(p, 0, 0, comm[n & 3], 0, n, 1 + (uint64_t)(rand() % 100),
				   (uint64_t)rand() * 1000);
	}
	return p;
}

static void test_speed(void)
{
	struct profile *p = big_profile(100000), *q = NULL;
	struct errmsg e = { "" };
	double t0, t1, t2, c0, c1;
	int rc1, rc2;

	/* CPU time for the assertion: wall time under a parallel prove or a
	 * busy disk says little about our code */
	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	rc1 = datafile__save(p, path_in("big.data"), &e);
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	t1 = clock_s(CLOCK_MONOTONIC);
	rc2 = datafile__load(path_in("big.data"), &q, &e);
	t2 = clock_s(CLOCK_MONOTONIC);
	ok(rc1 == 0 && rc2 == 0, "save and load 100k nodes and %zu counts", p->nr_counts);
	printf("#   save %.3f s (%.3f s cpu), load %.3f s\n", t1 - t0, c1 - c0, t2 - t1);
	ok(c1 - c0 < SAVE_CPU_LIMIT, "save takes %.3f s of cpu (limit %.1f)", c1 - c0,
	   SAVE_CPU_LIMIT);
	ok(q && profiles_equal(p, q), "big profile equal after the round-trip");
	profile__free(p);
	profile__free(q);
	unlink(path_in("big.data"));
}

static void test_atomic(const char *good)
{
	struct profile *p = build_profile(), *q = NULL, *orig = NULL;
	struct errmsg e = { "" };
	const char *target = path_in("keep.data");
	struct stat st;
	char tmp[300], victim[300];
	int rc, fd;

	rc = datafile__save(p, path_in("gone/sub/x.data"), &e);
	ok(rc == -ENOENT && strstr(e.msg, "gone/sub/x.data"),
	   "save into a missing directory fails: %s", e.msg);

	datafile__save(p, target, &e);
	datafile__load(target, &orig, &e);
	/* a profile breaking an invariant fails after the temporary exists */
	p->counts[0].period = 1ull << 63;
	rc = datafile__save(p, target, &e);
	ok(rc == -ERANGE && strstr(e.msg, "counts row 0"), "a count >= 2^63 is refused: %s", e.msg);
	p->counts[0].period = 1ull << 32;
	rc = datafile__save(p, target, &e);
	ok(rc == -ERANGE && strstr(e.msg, "periods of all counts add up to 2^63"),
	   "counts whose periods add up to 2^63 are refused: %s", e.msg);
	p->counts[0].period = 900000;
	p->nodes[2].frame = 999;
	rc = datafile__save(p, target, &e);
	ok(rc == -EINVAL && strstr(e.msg, "frame 999"), "a dangling frame is refused: %s", e.msg);
	p->nodes[2].frame = 0;
	{
		struct profile *deep = profile__new();
		struct frame fr = { .addr = 1 };
		uint32_t f0 = profile__frame(deep, &fr);

		/* the model cuts a stack that deep (test-repair): a bug's node */
		deep->nodes[profile__node(deep, PROFILE_ROOT, f0)].depth = DATAFILE_MAX_DEPTH + 1;
		rc = datafile__save(deep, target, &e);
		ok(rc == -ERANGE && strstr(e.msg, "depth 65537"), "a too deep stack is refused: %s",
		   e.msg);
		profile__free(deep);
	}
	rc = datafile__load(target, &q, &e);
	ok(rc == 0 && orig && q && profiles_equal(orig, q), "the previous file is intact");
	profile__free(q);
	q = NULL;
	is_int(count_temps(), 0, "and no temporary is left behind");

	/* a symlink planted under the temporary's name is not followed */
	snprintf(victim, sizeof(victim), "%s", path_in("victim"));
	write_bytes(victim, "precious\n", 9);
	snprintf(tmp, sizeof(tmp), "%s/.keep.data.tmp.%d", dir, (int)getpid());
	if (symlink(victim, tmp))
		printf("# symlink: %s\n", strerror(errno));
	rc = datafile__save(p, target, &e);
	ok(rc == 0 && stat(victim, &st) == 0 && st.st_size == 9,
	   "a planted symlink at the temporary is not written through");
	ok(lstat(tmp, &st) && errno == ENOENT, "and is gone");

	/* a temporary left by a killed save (dead pid) is cleaned up */
	snprintf(tmp, sizeof(tmp), "%s/.keep.data.tmp.%d", dir, 4194304 + 7);
	write_bytes(tmp, "partial", 7);
	rc = datafile__save(p, target, &e);
	ok(rc == 0 && lstat(tmp, &st) && errno == ENOENT, "a stale temporary of a dead pid is removed");

	/* refuse to replace what is not a regular file */
	mkdir(path_in("adir"), 0755);
	rc = datafile__save(p, path_in("adir"), &e);
	ok(rc == -EINVAL && strstr(e.msg, "not a regular file"), "a directory target is refused: %s",
	   e.msg);
	if (symlink(victim, path_in("alink")))
		printf("# symlink: %s\n", strerror(errno));
	rc = datafile__save(p, path_in("alink"), &e);
	ok(rc == -EINVAL && stat(victim, &st) == 0 && st.st_size == 9,
	   "a symlink target is refused, its destination untouched");

	/* umask is honoured */
	{
		mode_t old = umask(077);

		rc = datafile__save(p, path_in("private.data"), &e);
		umask(old);
		ok(rc == 0 && stat(path_in("private.data"), &st) == 0 &&
		   (st.st_mode & 0777) == 0600, "mode 0644 less umask 077 is 0600");
	}
	/* without kernel addresses (stripped) others may read it */
	{
		struct profile *stripped = build_profile();
		size_t i;

		for (i = 0; i < stripped->nr_frames; i++)
			if (stripped->frames[i].kernel)
				stripped->frames[i].addr = 0;
		rc = datafile__save(stripped, path_in("shared.data"), &e);
		ok(rc == 0 && stat(path_in("shared.data"), &st) == 0 &&
		   (st.st_mode & 0777) == 0644, "mode 0644 without raw kernel addresses, under umask 022");
		profile__free(stripped);
	}

	/* a full disk: a tiny tmpfs holding a previous small file */
	fd = mkdir(path_in("small"), 0755);
	if (mount("tmpfs", path_in("small"), "tmpfs", 0, "size=256k") == 0) {
		struct profile *big = big_profile(20000), *small = NULL;
		const char *t = path_in("small/x.data");
		DIR *d;
		struct dirent *de;
		int left = 0;

		rc = datafile__save(p, t, &e);
		ok(rc == 0, "a small file fits on the small tmpfs");
		rc = datafile__save(big, t, &e);
		ok(rc == -ENOSPC && strstr(e.msg, "no space left"), "disk full: %s", e.msg);
		rc = datafile__load(t, &small, &e);
		ok(rc == 0 && small && profiles_equal(p, small), "the previous file survives a full disk");
		d = opendir(path_in("small"));
		while (d && (de = readdir(d)))
			left += de->d_name[0] != '.' || strstr(de->d_name, ".tmp.") != NULL;
		if (d)
			closedir(d);
		is_int(left, 1, "only the target is left on the full disk");
		profile__free(big);
		profile__free(small);
		umount2(path_in("small"), MNT_DETACH);
	} else {
		/* not root: the other tests still cover the cleanup path */
		skip_tests(5, "cannot mount a tmpfs for a full disk: %s", strerror(errno));
	}
	(void)fd;
	rmdir(path_in("small"));
	profile__free(p);
	profile__free(orig);
	(void)good;
}

/*
 * good: the current format; good2: format 2, whose frames and nodes are
 * rows; good1: format 1, whose counts are rows too.
 */
static void test_refusals(const char *good, const char *good2, const char *good1)
{
	char buf[8192];
	struct stat st;
	int fd;
	ssize_t n;

	refuses(path_in("no-such-file"), -ENOENT, "No such file", "a missing file");
	refuses(dir, -EINVAL, "not a regular file", "a directory");
	write_bytes(path_in("empty"), "", 0);
	refuses(path_in("empty"), -EINVAL, "not an mmprof data file (the file is empty)", "an empty file");
	write_bytes(path_in("text"), "cpu-clock: 1234\nhello\n", 22);
	refuses(path_in("text"), -EINVAL, "not an mmprof data file", "a text file");
	write_bytes(path_in("magic-only"), "SQLite format 3", 16);
	refuses(path_in("magic-only"), -EPROTO, "truncated", "a bare SQLite magic");

	/* cut the good file in half */
	stat(good, &st);
	fd = open(good, O_RDONLY);
	{
		char *half = malloc((size_t)st.st_size / 2);

		n = read(fd, half, (size_t)st.st_size / 2);
		write_bytes(path_in("half.data"), half, n > 0 ? (size_t)n : 0);
		free(half);
	}
	close(fd);
	refuses(path_in("half.data"), -EPROTO, "truncated", "a file cut in half");

	/* cut and with a header that no longer declares the size */
	{
		const char *p = mutate(good, "cut-nosize.data", "SELECT 1");
		int f = open(p, O_RDWR);
		unsigned char zero[4] = { 0 };

		if (f < 0 || pwrite(f, zero, 4, 28) != 4 || ftruncate(f, st.st_size / 2))
			printf("# cannot cut %s\n", p);
		if (f >= 0)
			close(f);
		refuses(p, -EPROTO, "corrupt", "a cut file whose header hides it");
	}

	{
		sqlite3 *db = NULL;

		unlink(path_in("foreign.db"));
		sqlite3_open(path_in("foreign.db"), &db);
		sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", NULL, NULL, NULL);
		sqlite3_close(db);
		refuses(path_in("foreign.db"), -EINVAL, "another application", "a foreign SQLite database");
	}
	refuses(mutate(good, "newer.data", "PRAGMA user_version=6"), -EPROTONOSUPPORT,
		"format 6 > supported 5; upgrade mmprof", "a newer format version");
	refuses(mutate(good, "v0.data", "PRAGMA user_version=0"), -EPROTONOSUPPORT,
		"format 0", "format version 0");
	refuses(mutate(good, "wal.data", "PRAGMA journal_mode=WAL"), -EPROTO, "WAL mode",
		"a database in WAL mode");
	refuses(mutate(good1, "nocounts.data", "DROP VIEW counts_v; DROP TABLE counts"), -EPROTO,
		"table 'counts' is missing", "a missing table");
	refuses(mutate(good2, "nocells.data", "DROP VIEW counts_v; DROP VIEW counts; DROP TABLE stack_counts"),
		-EPROTO, "table 'stack_counts' is missing", "a missing table (format 2)");
	refuses(mutate(good2, "v1-as-v2.data", "PRAGMA user_version=1; UPDATE meta SET value = '1' WHERE key = 'format_version'"),
		-EPROTO, "table 'counts' is missing", "a format-2 file labelled format 1");
	refuses(mutate(good2, "viewnodes.data",
		       "DROP VIEW stacks; DROP VIEW counts_v; DROP VIEW nodes_v; DROP TABLE nodes;"
		       "CREATE VIEW nodes AS SELECT 1 AS id, 0 AS parent, 0 AS frame"),
		-EPROTO, "table 'nodes' is missing", "a view posing as a table");
	refuses(mutate(good2, "nocol.data",
		       "DROP VIEW stacks; DROP VIEW counts_v; DROP VIEW nodes_v; DROP TABLE nodes;"
		       "CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER)"),
		-EPROTO, "table nodes lacks column 'frame'", "a table without a column");
	refuses(mutate(good2, "gencol.data",
		       "DROP VIEW stacks; DROP VIEW counts_v; DROP VIEW nodes_v; DROP TABLE nodes;"
		       "CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER NOT NULL,"
		       "  frame INTEGER GENERATED ALWAYS AS (0) VIRTUAL)"),
		-EPROTO, "column nodes.frame is generated", "a generated column");
	refuses(mutate(good2, "nopk.data",
		       "DROP VIEW stacks; DROP VIEW counts_v; DROP VIEW nodes_v; DROP TABLE nodes;"
		       "CREATE TABLE nodes(id INTEGER, parent INTEGER NOT NULL, frame INTEGER NOT NULL)"),
		-EPROTO, "column nodes.id is declared 'INTEGER', not 'INTEGER PRIMARY KEY'",
		"an id that is not the primary key");
	refuses(mutate(good2, "extracol.data", "ALTER TABLE nodes ADD COLUMN x INTEGER"),
		-EPROTO, "table nodes has an extra column 'x'", "an extra column");
	refuses(mutate(good, "vtab.data", "CREATE VIRTUAL TABLE notes USING fts5(a)"),
		-EPROTO, "'notes' is a virtual table", "a virtual table");
	/* the schema row's text as an editor of sqlite_master may leave it: still one */
	refuses(mutate(good, "vtab-comments.data",
		       "CREATE VIRTUAL TABLE notes USING fts5(a); PRAGMA writable_schema=ON;"
		       "UPDATE sqlite_master SET sql = 'create/**/ /* x */"
		       " -- y' || char(10) || char(9) || 'ViRtUaL TABLE notes USING fts5(a)'"
		       " WHERE name = 'notes'"),
		-EPROTO, "'notes' is a virtual table", "a virtual table with comments after its CREATE");
	{
		/* a table of other text but the same columns (another writer's
		 * spacing): compared column by column, and it loads */
		const char *path = mutate(good2, "respaced.data",
					  "DROP VIEW stacks; DROP VIEW counts_v; DROP VIEW nodes_v;"
					  "ALTER TABLE nodes RENAME TO n0;"
					  "CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER NOT NULL,"
					  " frame INTEGER NOT NULL REFERENCES frames(id));"
					  "INSERT INTO nodes SELECT * FROM n0; DROP TABLE n0");
		struct profile *p = NULL;
		struct errmsg e = { "" };

		ok(datafile__load(path, &p, &e) == 0 && p && p->nr_nodes > 1,
		   "a table of the same columns in other text loads %s", e.msg);
		profile__free(p);
	}
	refuses(mutate(good2, "dangling-frame.data", "UPDATE nodes SET frame = 9999 WHERE id = 2"),
		-EPROTO, "nodes row 2: frame 9999 does not exist", "a dangling frame id");
	refuses(mutate(good2, "parent-self.data", "UPDATE nodes SET parent = id WHERE id = 2"),
		-EPROTO, "nodes row 2: parent 2 does not exist", "a node that is its own parent");
	refuses(mutate(good2, "parent-later.data", "UPDATE nodes SET parent = 5 WHERE id = 1"),
		-EPROTO, "nodes row 1: parent 5", "a parent after its child (a cycle)");
	refuses(mutate(good2, "neg-parent.data", "UPDATE nodes SET parent = -1 WHERE id = 1"),
		-EPROTO, "parent -1", "a negative parent");
	refuses(mutate(good2, "deep.data",
		       "INSERT INTO nodes WITH RECURSIVE c(i) AS ("
		       "  SELECT (SELECT max(id) + 1 FROM nodes) UNION ALL"
		       "  SELECT i + 1 FROM c WHERE i < (SELECT max(id) FROM nodes) + 70000)"
		       " SELECT i, i - 1, 0 FROM c"),
		-EPROTO, "deeper than 65536 frames", "a stack deeper than the limit");
	refuses(mutate(good, "manymeta.data",
		       "INSERT INTO meta WITH RECURSIVE c(i) AS ("
		       "  SELECT (SELECT max(seq) + 1 FROM meta) UNION ALL"
		       "  SELECT i + 1 FROM c WHERE i < 5000)"
		       " SELECT i, 'k' || i, 'v' FROM c"),
		-EPROTO, "more than 4096 meta keys", "too many meta keys");
	refuses(mutate(good2, "sparse.data", "UPDATE frames SET id = 100 WHERE id = 3"),
		-EPROTO, "ids must be dense", "a gap in frame ids");
	refuses(mutate(good2, "type-addr.data", "UPDATE frames SET addr = 'zzz' WHERE id = 0"),
		-EPROTO, "frames row 0: addr is text, not an integer", "text in an integer column");
	refuses(mutate(good1, "type-real.data", "UPDATE counts SET samples = 1.5 WHERE id = 0"),
		-EPROTO, "samples is a real", "a real in an integer column");
	refuses(mutate(good, "type-blob.data", "UPDATE strings SET s = x'00ff' WHERE id = 1"),
		-EPROTO, "s is a blob, not text", "a blob in a text column");
	refuses(mutate(good, "null.data",
		       /* the declared columns without NOT NULL: the schema check
			* compares names, types and keys; the row check sees the NULL */
		       "CREATE TABLE r2(id INTEGER PRIMARY KEY, start_ns INTEGER, wall_ns INTEGER,"
		       "  exit_code INTEGER, term_signal INTEGER, utime_us INTEGER, stime_us INTEGER,"
		       "  maxrss_kb INTEGER, minflt INTEGER, majflt INTEGER, nvcsw INTEGER,"
		       "  nivcsw INTEGER, samples INTEGER, lost INTEGER, throttled INTEGER);"
		       "INSERT INTO r2 SELECT * FROM runs; DROP TABLE runs;"
		       "ALTER TABLE r2 RENAME TO runs; UPDATE runs SET wall_ns = NULL WHERE id = 1"),
		-EPROTO, "runs row 1: wall_ns is null", "a NULL in a required column");
	refuses(mutate(good, "huge.data",
		       "UPDATE strings SET s = replace(hex(zeroblob(2500000)), '0', 'x') WHERE id = 1"),
		-EPROTO, "strings holds a value over 4194304 bytes", "a 5 MB string");
	refuses(mutate(good, "nul.data", "UPDATE strings SET s = CAST(x'610062' AS TEXT) WHERE id = 1"),
		-EPROTO, "NUL byte", "a string with a NUL byte");
	refuses(mutate(good1, "neg-count.data", "UPDATE counts SET samples = -1 WHERE id = 1"),
		-EPROTO, "counts row 1: samples -1 is negative", "a negative count");
	refuses(mutate(good1, "neg-pid.data", "UPDATE counts SET pid = -1 WHERE id = 1"),
		-EPROTO, "counts row 1: pid -1 is out of range 0..2147483647", "a pid of -1");
	refuses(mutate(good1, "big-pid.data", "UPDATE counts SET pid = 2147483648 WHERE id = 0"),
		-EPROTO, "pid 2147483648 is out of range", "a pid beyond pid_t");
	refuses(mutate(good1, "text-pid.data", "UPDATE counts SET pid = 'x12' WHERE id = 0"),
		-EPROTO, "counts row 0: pid is text, not an integer", "a pid as text");
	refuses(mutate(good, "neg-lost.data", "UPDATE runs SET lost = -3 WHERE id = 0"),
		-EPROTO, "lost -3 is negative", "a negative lost count");
	refuses(mutate(good2, "bad-str.data", "UPDATE frames SET sym = 99999 WHERE id = 1"),
		-EPROTO, "frames row 1: sym 99999 does not exist", "a dangling string id");
	refuses(mutate(good, "zero-str.data", "UPDATE events SET name = 0 WHERE id = 0"),
		-EPROTO, "stored as NULL", "string id 0");
	refuses(mutate(good, "bad-run.data", "UPDATE counters SET run = 7 WHERE id = 0"),
		-EPROTO, "counters row 0: run 7 does not exist", "a dangling run index");
	refuses(mutate(good1, "bad-event.data", "UPDATE counts SET event = 2 WHERE id = 0"),
		-EPROTO, "counts row 0: event 2 does not exist", "a dangling event index");
	refuses(mutate(good1, "bad-node.data", "UPDATE counts SET node = 1000000 WHERE id = 0"),
		-EPROTO, "node 1000000 does not exist", "a dangling node in counts");
	refuses(mutate(good, "exit.data", "UPDATE runs SET exit_code = 4294967296 WHERE id = 0"),
		-EPROTO, "exit_code 4294967296 is out of range", "an exit code beyond int32");
	refuses(mutate(good2, "kernel.data", "UPDATE frames SET kernel = 2 WHERE id = 0"),
		-EPROTO, "kernel 2 is out of range", "a kernel flag of 2");
	refuses(mutate(good, "nover.data", "UPDATE meta SET key = 'other' WHERE key = 'format_version'"),
		-EPROTO, "meta has 0 format_version rows", "a missing format_version");
	refuses(mutate(good, "badver.data", "UPDATE meta SET value = '7' WHERE key = 'format_version'"),
		-EPROTO, "disagrees with user_version", "a format_version disagreeing with the header");
	refuses(mutate(good, "metric.data", "UPDATE metrics SET value = 'x' WHERE id = 0"),
		-EPROTO, "value is text, not a number", "a text metric");

	/* garbage inside the b-tree pages, header intact */
	{
		const char *p = mutate(good, "garbage.data", "SELECT 1");
		int f = open(p, O_RDWR);
		off_t off;

		for (off = 4096; f >= 0 && off + 512 <= st.st_size; off += 4096) {
			memset(buf, 0xa5, 512);
			if (pwrite(f, buf, 512, off) != 512)
				break;
		}
		if (f >= 0)
			close(f);
		refuses(p, -EPROTO, "corrupt", "garbage in every page");
	}
}

/* Duplicates in a hostile but consistent file collapse without harm. */
static void test_duplicates(const char *good1)
{
	struct profile *a = NULL, *b = NULL;
	struct errmsg e = { "" };
	const char *p = mutate(good1, "dups.data",
			       "INSERT INTO strings SELECT max(id) + 1, 'main' FROM strings;"
			       "INSERT INTO frames SELECT (SELECT max(id) + 1 FROM frames), addr, sym_off, sym, dso, kernel, inlined, raw"
			       "  FROM frames WHERE id = 2;"
			       "INSERT INTO nodes SELECT max(id) + 1, 0, (SELECT max(id) FROM frames)"
			       "  FROM nodes;"
			       "INSERT INTO counts SELECT max(id) + 1, 0, 0, NULL, 0,"
			       "  (SELECT max(id) FROM nodes), 3, 30 FROM counts;");
	int rc;

	datafile__load(good1, &a, &e);
	rc = datafile__load(p, &b, &e);
	if (!ok(rc == 0 && b, "a file with duplicate strings, frames and nodes loads"))
		printf("#   %s\n", e.msg);
	ok(a && b && b->strs.nr == a->strs.nr && b->nr_frames == a->nr_frames &&
	   b->nr_nodes == a->nr_nodes, "duplicates collapse onto the first ones");
	ok(b && b->nr_counts == a->nr_counts + 1 &&
	   b->counts[b->nr_counts - 1].node == 1 &&
	   b->counts[b->nr_counts - 1].samples == 3, "their counts land on the surviving node");
	profile__free(a);
	profile__free(b);
}

/*
 * The loaders append without hashing and merge only when a check finds a
 * repeat: a repeated count cell must load with its counts summed, a
 * repeated trie edge must collapse onto the first node, with its counts.
 */
static void test_repeats(const char *good1)
{
	struct profile *a = NULL, *b = NULL;
	struct errmsg e = { "" };
	const char *p = mutate(good1, "repeats.data",
			       "INSERT INTO counts SELECT (SELECT max(id) + 1 FROM counts), run, event,"
			       "  comm, pid, node, samples, period FROM counts WHERE id = 0;"
			       "INSERT INTO nodes SELECT (SELECT max(id) + 1 FROM nodes), parent, frame"
			       "  FROM nodes WHERE id = 1;"
			       "INSERT INTO counts SELECT (SELECT max(id) + 1 FROM counts), 0, 0, NULL, 0,"
			       "  (SELECT max(id) FROM nodes), 5, 50 FROM counts LIMIT 1;");
	const struct count *c0;
	uint64_t on1 = 0, on1_a = 0;
	size_t i;
	int rc;

	datafile__load(good1, &a, &e);
	rc = datafile__load(p, &b, &e);
	if (!ok(rc == 0 && a && b, "a file repeating a count cell and a trie edge loads"))
		printf("#   %s\n", e.msg);
	if (!a || !b) {
		profile__free(a);
		profile__free(b);
		return;
	}
	ok(b->nr_nodes == a->nr_nodes, "the repeated edge collapses onto the first node");
	c0 = &a->counts[0];
	for (i = 0; i < b->nr_counts; i++) {
		const struct count *c = &b->counts[i];

		if (c->run == c0->run && c->event == c0->event && c->comm == c0->comm &&
		    c->pid == c0->pid && c->node == c0->node)
			is_int((long long)c->samples, (long long)(2 * c0->samples),
			       "the repeated count cell loads with its samples summed");
		if (c->run == 0 && c->event == 0 && c->comm == 0 && c->pid == 0 && c->node == 1)
			on1 += c->samples;
	}
	for (i = 0; i < a->nr_counts; i++) {
		const struct count *c = &a->counts[i];

		if (c->run == 0 && c->event == 0 && c->comm == 0 && c->pid == 0 && c->node == 1)
			on1_a += c->samples;
	}
	is_int((long long)on1, (long long)(on1_a + 5),
	       "the repeated edge's count lands on the first node");
	is_int((long long)b->nr_counts, (long long)a->nr_counts + (on1_a ? 0 : 1),
	       "no cell appears twice");
	profile__free(a);
	profile__free(b);
}

/* The first row of sql's result as "a|b|c" lines, all rows joined. */
static void query(const char *path, const char *sql, char *out, size_t size)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0;
	int i;

	out[0] = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
		register_sqlar(db);
	if (!db || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		printf("# query %s: %s\n", sql, sqlite3_errmsg(db));
	while (st && sqlite3_step(st) == SQLITE_ROW && len < size)
		for (i = 0; i < sqlite3_column_count(st) && len < size; i++)
			len += (size_t)snprintf(out + len, size - len, "%s%c",
						sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "NULL",
						i + 1 < sqlite3_column_count(st) ? '|' : '\n');
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/*
 * Formats 1 and 2 stay readable and writable on request; the views give
 * back the older formats' rows (format 2's "counts" those of format 1's
 * table, format 3's "frames" and "nodes" those of format 2's), so SQL
 * written for any of them still works.
 */
static void test_formats(const char *good, const char *good2, const char *good1)
{
	static const char *const rows[] = {
		"SELECT run, event, comm, pid, node, samples, period FROM counts"
		" ORDER BY run, event, comm, pid, node",
		"SELECT count(*), sum(samples), sum(period) FROM counts_v",
		"SELECT id, parent, frame FROM nodes ORDER BY id",
		"SELECT id, addr, sym_off, sym, dso, kernel, inlined, raw FROM frames ORDER BY id",
		"SELECT * FROM nodes_v ORDER BY id",
		"SELECT * FROM frames_v ORDER BY id",
		"SELECT * FROM stacks ORDER BY node",
	};
	struct profile *a = build_profile(), *b = NULL, *c = NULL;
	struct errmsg e = { "" };
	static char v1[65536], v2[65536], v3[65536];
	size_t i;
	int rc;

	rc = datafile__save_version(a, good1, 1, &e);
	if (!ok(rc == 0, "save in format 1 on request"))
		printf("#   %s\n", e.msg);
	rc = datafile__save_version(a, good2, 2, &e);
	if (!ok(rc == 0, "save in format 2 on request"))
		printf("#   %s\n", e.msg);
	query(good1, "PRAGMA user_version", v1, sizeof(v1));
	query(good2, "PRAGMA user_version", v2, sizeof(v2));
	query(good, "PRAGMA user_version", v3, sizeof(v3));
	ok(!strcmp(v1, "1\n") && !strcmp(v2, "2\n") && !strcmp(v3, "4\n"),
	   "user_version 1 and 2 on request, 4 by default");
	rc = datafile__load(good1, &b, &e);
	if (!ok(rc == 0 && b && profiles_equal(a, b), "a format-1 file loads equal"))
		printf("#   %s\n", e.msg);
	profile__free(b);
	rc = datafile__load(good2, &b, &e);
	if (!ok(rc == 0 && b && profiles_equal(a, b), "a format-2 file loads equal"))
		printf("#   %s\n", e.msg);
	/* format 2 -> load -> save: format 4, same profile */
	rc = b ? datafile__save(b, path_in("upgraded.data"), &e) : -1;
	if (!rc)
		rc = datafile__load(path_in("upgraded.data"), &c, &e);
	ok(rc == 0 && c && profiles_equal(a, c), "loaded from format 2, saved as format 4, equal");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		query(good2, rows[i], v2, sizeof(v2));
		query(good, rows[i], v3, sizeof(v3));
		if (!ok(v2[0] && !strcmp(v2, v3), "format 4 and 2 agree: %s", rows[i]))
			printf("# format 2:\n%s# format 4:\n%s", v2, v3);
		if (i > 1)
			continue;
		query(good1, rows[i], v1, sizeof(v1));
		if (!ok(v1[0] && !strcmp(v1, v2), "format 2 and 1 agree: %s", rows[i]))
			printf("# format 1:\n%s# format 2:\n%s", v1, v2);
	}
	is_int(datafile__save_version(a, path_in("v6.data"), 6, &e), -EINVAL, "no format 6 to write");
	is_int(datafile__save_version(a, path_in("v0.data"), 0, &e), -EINVAL, "no format 0 to write");
	profile__free(a);
	profile__free(b);
	profile__free(c);
}

/*
 * Format 3's blocks are as hostile as any row: sizes, zlib streams, ids
 * packed in them, full blocks, and a stream that unpacks to far more
 * than the file holds (a zlib bomb).  A block stored unpacked (as the
 * writer does when zlib would not shrink it) loads as a packed one.
 */
static void test_blocks(const char *good)
{
	struct profile *a = NULL, *b = NULL;
	struct errmsg e = { "" };
	int rc;

	refuses(mutate(good, "blk-size.data", "UPDATE node_blocks SET size = size - 1 WHERE id = 0"),
		-EPROTO, "node_blocks row 0: size", "a node block whose size is not whole records");
	refuses(mutate(good, "blk-big.data", "UPDATE node_blocks SET size = 4104 WHERE id = 0"),
		-EPROTO, "node_blocks row 0: size 4104 is out of range", "a node block over 512 nodes");
	refuses(mutate(good, "blk-zlib.data", "UPDATE node_blocks SET data = x'789c0102', size = 8 WHERE id = 0"),
		-EPROTO, "data does not unpack to its size 8", "a block that is not zlib");
	refuses(mutate(good, "blk-long.data", "UPDATE node_blocks SET data = zeroblob(size + 1) WHERE id = 0"),
		-EPROTO, "more than its size", "a block longer than its size");
	refuses(mutate(good, "blk-text.data", "UPDATE frame_blocks SET data = 'abc' WHERE id = 0"),
		-EPROTO, "frame_blocks row 0: data is text, not a blob", "a block of text");
	refuses(mutate(good, "blk-self.data",
		       "UPDATE node_blocks SET size = 8, data = x'0000000000000000' WHERE id = 0"),
		-EPROTO, "node 1: parent 1 does not precede it", "a node that is its own parent");
	refuses(mutate(good, "blk-later.data",
		       "UPDATE node_blocks SET size = 8, data = x'0000000200000000' WHERE id = 0"),
		-EPROTO, "node 1: parent -1 does not precede it", "a parent before the root");
	refuses(mutate(good, "blk-frame.data",
		       "UPDATE node_blocks SET size = 8, data = x'0000000100ffffff' WHERE id = 0"),
		-EPROTO, "node 1: frame 16777215 does not exist", "a dangling frame in a block");
	refuses(mutate(good, "blk-notfull.data",
		       "INSERT INTO node_blocks VALUES(1, 8, x'0000000100000000')"),
		-EPROTO, "a block follows one that is not full", "a block after a short one");
	refuses(mutate(good, "blk-empty.data", "UPDATE node_blocks SET size = 0, data = x'' WHERE id = 0"),
		-EPROTO, "the block is empty", "an empty block");
	refuses(mutate(good, "blk-flags.data",
		       "UPDATE frame_blocks SET size = 29, data = CAST(zeroblob(28) || x'04' AS BLOB) WHERE id = 0"),
		-EPROTO, "record 0: flags 0x4", "frame flags beyond kernel and inlined");
	refuses(mutate(good, "blk-str.data",
		       "UPDATE frame_blocks SET size = 29,"
		       " data = CAST(zeroblob(16) || x'00ffffff' || zeroblob(9) AS BLOB) WHERE id = 0"),
		-EPROTO, "record 0: sym 16777215 does not exist", "a dangling string in a block");
	refuses(mutate(good, "blk-cells.data", "UPDATE stack_counts SET size = 19 WHERE id = 0"),
		-EPROTO, "stack_counts row 0: size 19 is not a whole number of 20-byte records",
		"a cut cell in a packed row");
	refuses(mutate(good, "blk-bomb.data",
		       "INSERT INTO stack_counts WITH RECURSIVE c(i) AS ("
		       "  SELECT (SELECT max(id) + 1 FROM stack_counts) UNION ALL"
		       "  SELECT i + 1 FROM c WHERE i < (SELECT max(id) FROM stack_counts) + 200)"
		       " SELECT i, 0, 0, NULL, 0, 81920, sqlar_compress(zeroblob(81920)) FROM c"),
		-EPROTO, "the blocks unpack to more than 64 times the file's size", "a zlib bomb");

	datafile__load(good, &a, &e);
	rc = datafile__load(mutate(good, "blk-raw.data",
				   "UPDATE node_blocks SET data = sqlar_uncompress(data, size);"
				   "UPDATE frame_blocks SET data = sqlar_uncompress(data, size);"
				   "UPDATE stack_counts SET cells = sqlar_uncompress(cells, size)"), &b, &e);
	ok(rc == 0 && a && b && profiles_equal(a, b), "blocks stored unpacked load equal: %s",
	   rc ? e.msg : "ok");
	profile__free(a);
	profile__free(b);
}

/* a's frame_files as format 4 keeps them: the first row of each frame, in frame order. */
static struct profile *first_per_frame(const struct profile *a)
{
	struct profile *w = profile__new();
	size_t f, i;

	for (f = 0; f < a->nr_frames; f++)
		for (i = 0; i < a->nr_frame_files; i++)
			if (a->frame_files[i].frame == f) {
				profile__add_frame_file(w, (uint32_t)f, a->frame_files[i].vaddr,
							a->frame_files[i].build_id);
				break;
			}
	return w;
}

/*
 * Format 4 (frame_files in blocks): every table round-trips, frame_files
 * as one record per frame in frame order (the row mmprof resolve reads)
 * over more than one block, build-ids in the pool or not; the view gives
 * format 3's rows back; the blocks are as hostile as any row; and files of
 * formats 1, 2 and 3 still open, equal.
 */
static void test_format4(void)
{
	static const char *const bids[] = {
		"", "f4728d496dc701784b7e635feb4d853d4ec06f29", "0123abcd", "ee",
	};
	struct profile *a = build_profile(), *b = NULL, *c = NULL, *w = NULL;
	struct errmsg e = { "" };
	static char r3[1 << 20], r4[1 << 20], v4[256], v3[256];
	uint32_t first = (uint32_t)a->nr_frames;
	size_t i, nr_strs;
	int rc, v;

	snprintf(v4, sizeof(v4), "%s", path_in("ff4.data"));	/* path_in's buffer is reused */
	snprintf(v3, sizeof(v3), "%s", path_in("ff3.data"));
	profile__intern(a, bids[1]);	/* one build-id is also a name of the pool */
	for (i = 0; i < 600; i++) {
		struct frame f = { .addr = 0x500000 + i * 16, .dso = profile__intern(a, "/usr/bin/w") };

		profile__frame(a, &f);
	}
	/* the second half first, then the first, then every frame again (other
	 * processes: dropped), and frame 0 (a kernel frame of build_profile) */
	for (i = 0; i < 900; i++) {
		uint32_t k = (uint32_t)((i + 300) % 600);

		profile__add_frame_file(a, first + k, 0x1000 + k * 16 + (i >= 600), bids[k % 4]);
	}
	profile__add_frame_file(a, 0, 0xffff000000000000ull, bids[3]);
	nr_strs = a->strs.nr;
	rc = datafile__save(a, v4, &e);
	if (!rc)
		rc = datafile__load(v4, &b, &e);
	if (!ok(rc == 0 && b, "format 4 with 601 frame_files rows over 3 blocks: saved, loaded"))
		printf("#   %s\n", e.msg);
	query(v4, "PRAGMA user_version", r4, sizeof(r4));
	is_str(r4, "4\n", "user_version 4");
	/* the build-ids not in the pool are strings of the file, after the pool's */
	ok(b && b->strs.nr == nr_strs + 2 && !strcmp(b->strs.s[nr_strs], bids[2]) &&
	   !strcmp(b->strs.s[nr_strs + 1], bids[3]), "two build-ids appended to the strings");
	profile__intern(a, bids[2]);
	profile__intern(a, bids[3]);
	ok(b && profiles_equal(a, b), "every other table equal field by field, ids included");
	w = first_per_frame(a);
	ok(b && frame_files_equal(w, b), "frame_files: the first row of each frame, in frame order");
	rc = b ? datafile__save(b, path_in("ff4b.data"), &e) : -1;
	if (!rc)
		rc = datafile__load(path_in("ff4b.data"), &c, &e);
	ok(rc == 0 && c && profiles_equal(b, c) && frame_files_equal(b, c),
	   "format 4 saved again from its load: equal");
	profile__free(c);
	c = NULL;

	/* the view: format 3's rows, less the repeats */
	rc = datafile__save_version(a, v3, 3, &e);
	query(v3, "SELECT frame, vaddr, build_id FROM frame_files f WHERE id ="
	      " (SELECT min(id) FROM frame_files g WHERE g.frame = f.frame) ORDER BY frame", r3, sizeof(r3));
	query(v4, "SELECT frame, vaddr, build_id FROM frame_files ORDER BY id", r4, sizeof(r4));
	ok(rc == 0 && r3[0] && !strcmp(r3, r4), "the view frame_files gives format 3's rows back");
	query(v4, "SELECT count(*), min(id), max(id) FROM frame_files", r4, sizeof(r4));
	is_str(r4, "601|0|600\n", "... with dense ids");

	/* formats 1 to 3 still open, equal */
	for (v = 1; v <= 3; v++) {
		char name[32];

		snprintf(name, sizeof(name), "ff%d-old.data", v);
		rc = datafile__save_version(a, path_in(name), v, &e);
		if (!rc)
			rc = datafile__load(path_in(name), &c, &e);
		ok(rc == 0 && c && profiles_equal(a, c) && frame_files_equal(a, c),
		   "a format-%d file opens equal: %s", v, rc ? e.msg : "ok");
		profile__free(c);
		c = NULL;
	}

	refuses(mutate(v4, "ff4-none.data", "DROP TABLE frame_file_blocks"),
		-EPROTO, "table 'frame_file_blocks' is missing", "format 4 without frame_file_blocks");
	refuses(mutate(v4, "ff4-repeat.data",
		       "UPDATE frame_file_blocks SET size = 16, data = zeroblob(16) WHERE id = 0"),
		-EPROTO, "frame_file_blocks row 0: record 0: frame -1 does not exist",
		"a frame_files record of step 0 (a frame twice)");
	refuses(mutate(v4, "ff4-frame.data",
		       "UPDATE frame_file_blocks SET size = 16, data = CAST(x'00ffffff' || zeroblob(12) AS BLOB) WHERE id = 0"),
		-EPROTO, "record 0: frame 16777214 does not exist", "a frame_files record of no frame");
	refuses(mutate(v4, "ff4-str.data",
		       "UPDATE frame_file_blocks SET size = 16,"
		       " data = CAST(x'00000001' || zeroblob(8) || x'00ffffff' AS BLOB) WHERE id = 0"),
		-EPROTO, "record 0: build_id 16777215 does not exist", "a dangling build-id string");
	refuses(mutate(v4, "ff4-hex.data",
		       "UPDATE frame_file_blocks SET size = 16,"
		       " data = CAST(x'00000001' || zeroblob(8) || x'00000001' AS BLOB) WHERE id = 0"),
		-EPROTO, "record 0: build_id is not a build-id", "a build-id string that is not hex");
	refuses(mutate(v4, "ff4-size.data", "UPDATE frame_file_blocks SET size = 4112 WHERE id = 0"),
		-EPROTO, "size 4112 is out of range", "a frame_files block over 256 records");
	rc = datafile__load(mutate(v4, "ff4-raw.data",
				   "UPDATE frame_file_blocks SET data = sqlar_uncompress(data, size)"), &c, &e);
	ok(rc == 0 && c && frame_files_equal(b, c), "frame_files blocks stored unpacked load equal: %s",
	   rc ? e.msg : "ok");
	profile__free(a);
	profile__free(b);
	profile__free(c);
	profile__free(w);
}

/* Format 2's cells are as hostile as any row. */
static void test_cells(const char *good)
{
	struct profile *a = NULL, *b = NULL;
	struct errmsg e = { "" };
	char key[256];
	unsigned run, event, pid;
	int comm;
	uint64_t ta = 0, tb = 0, t0 = 0;
	size_t i;
	int rc;

	refuses(mutate(good, "cells-text.data", "UPDATE stack_counts SET cells = 'abc' WHERE id = 0"),
		-EPROTO, "stack_counts row 0: cells is text, not a blob", "cells as text");
	refuses(mutate(good, "cells-19.data", "UPDATE stack_counts SET cells = substr(cells, 1, 19) WHERE id = 0"),
		-EPROTO, "cells holds 19 bytes, not a whole number of 20-byte cells", "a cut cell");
	refuses(mutate(good, "cells-many.data", "UPDATE stack_counts SET cells = zeroblob(4097 * 20) WHERE id = 0"),
		-EPROTO, "cells holds 81940 bytes", "too many cells in a row");
	refuses(mutate(good, "cells-node.data",
		       "UPDATE stack_counts SET cells = CAST(x'00ffffff' || substr(cells, 5) AS BLOB) WHERE id = 0"),
		-EPROTO, "stack_counts row 0: cell 0: node 16777215 does not exist", "a dangling node in a cell");
	refuses(mutate(good, "cells-big.data",
		       "UPDATE stack_counts SET cells = CAST(substr(cells, 1, 4) || x'8000000000000000'"
		       " || substr(cells, 13) AS BLOB) WHERE id = 0"),
		-EPROTO, "cell 0: a count of 2^63 or more", "a cell count of 2^63");
	refuses(mutate(good, "cells-run.data", "UPDATE stack_counts SET run = 9 WHERE id = 0"),
		-EPROTO, "stack_counts row 0: run 9 does not exist", "a dangling run");
	refuses(mutate(good, "cells-pid.data", "UPDATE stack_counts SET pid = -1 WHERE id = 0"),
		-EPROTO, "pid -1 is out of range", "a pid of -1 in a row of cells");
	refuses(mutate(good, "cells-sparse.data", "UPDATE stack_counts SET id = 50 WHERE id = 0"),
		-EPROTO, "ids must be dense", "a gap in row ids");

	rc = datafile__load(mutate(good, "cells-empty.data", "UPDATE stack_counts SET cells = x'' WHERE id = 0"),
			    &b, &e);
	ok(rc == 0 && b, "a row of no cells loads: %s", rc ? e.msg : "ok");
	profile__free(b);
	b = NULL;

	/* a repeated row: its cells add to the first's */
	query(good, "SELECT run, event, coalesce(comm, 0), pid FROM stack_counts WHERE id = 0", key, sizeof(key));
	if (sscanf(key, "%u|%u|%d|%u", &run, &event, &comm, &pid) != 4)
		printf("# no row 0: '%s'\n", key);
	datafile__load(good, &a, &e);
	rc = datafile__load(mutate(good, "cells-repeat.data",
				   "INSERT INTO stack_counts SELECT (SELECT max(id) + 1 FROM stack_counts),"
				   " run, event, comm, pid, cells FROM stack_counts WHERE id = 0"), &b, &e);
	if (!ok(rc == 0 && a && b, "a repeated row of cells loads"))
		printf("#   %s\n", e.msg);
	for (i = 0; a && i < a->nr_counts; i++) {
		const struct count *c = &a->counts[i];

		ta += c->samples;
		if (c->run == run && c->event == event && c->comm == (uint32_t)comm && c->pid == pid)
			t0 += c->samples;
	}
	for (i = 0; b && i < b->nr_counts; i++)
		tb += b->counts[i].samples;
	ok(a && b && b->nr_counts == a->nr_counts && t0 && tb == ta + t0,
	   "its counts add up on the same cells (%llu = %llu + %llu)",
	   (unsigned long long)tb, (unsigned long long)ta, (unsigned long long)t0);
	profile__free(a);
	profile__free(b);
}

static void cleanup(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char path[512];

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path))
			rmdir(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(void)
{
	static char good[256], good2[256], good1[256];

	snprintf(dir, sizeof(dir), "/tmp/mmprof-datafile.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	umask(022);
	snprintf(good, sizeof(good), "%s", path_in("good.data"));
	snprintf(good1, sizeof(good1), "%s", path_in("good1.data"));
	snprintf(good2, sizeof(good2), "%s", path_in("good2.data"));
	test_roundtrip(good);
	test_inlined(good);
	test_frame_files(good);
	test_views(good);
	test_speed();
	test_atomic(good);
	test_formats(good, good2, good1);
	test_views(good2);
	test_refusals(good, good2, good1);
	test_cells(good2);
	test_blocks(good);
	test_format4();
	test_duplicates(good1);
	test_repeats(good1);
	cleanup();
	return done_testing();
}
