/*
 * test-store: the results store's pure parts and its SQLite backend.
 *   - SHA-256 against FIPS 180-4's examples, fed whole and in pieces;
 *   - a URL's password masked, in its user part and as a parameter;
 *   - key ids: a fixed value (the schema's promise), never negative;
 *   - a push read back with the sqlite3 API and decoded by hand: each
 *     key's bitmap of runs and values equal the metrics the profile was
 *     given (the naive model), a key absent from some runs, a name that is
 *     not UTF-8 stored escaped under the id of its bytes;
 *   - idempotence, commits by name and prefix, several machines, the file
 *     back byte for byte, a damaged one refused;
 *   - a newer schema refused, a .data file given as the store refused and
 *     left byte for byte as it was (it was once turned to WAL mode);
 *   - STORE:COMMIT arguments, fetched into files that go on release.
 * The PostgreSQL backend is tested against a real server in t331.
 */
#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmprof/datafile.h"
#include "mmprof/profile.h"
#include "mmprof/sha256.h"
#include "mmprof/store.h"
#include "mmprof/xalloc.h"
#include "tap.h"

static char dir[] = "/tmp/test-store.XXXXXX";

static void hex_of(const void *p, size_t n, char out[65])
{
	unsigned char d[SHA256_LEN];

	sha256__digest(p, n, d);
	sha256__hex(d, out);
}

static void test_sha256(void)
{
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65], *million = xmalloc(1000000);
	unsigned char a[SHA256_LEN], b[SHA256_LEN];
	struct sha256 c;
	size_t at, step;

	hex_of("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 of nothing");
	hex_of("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 of abc");
	hex_of(two_blocks, strlen(two_blocks), hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "sha256 of FIPS's 448-bit message (padding into a second block)");
	memset(million, 'a', 1000000);
	hex_of(million, 1000000, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "sha256 of a million a");
	/* in pieces of every size from 1 to 130 bytes: as one call */
	for (step = 1; step <= 130; step++) {
		sha256__init(&c);
		for (at = 0; at < 100000; at += step)
			sha256__update(&c, million + at, at + step <= 100000 ? step : 100000 - at);
		sha256__final(&c, a);
		sha256__digest(million, 100000, b);
		if (memcmp(a, b, sizeof(a)))
			break;
	}
	is_int(step, 131, "sha256 fed in pieces of 1..130 bytes equals one call");
	free(million);
}

static void test_mask(void)
{
	char buf[256];

	store__mask_url("postgresql://ci:s3cret@db.example:5432/results?sslmode=require", buf, sizeof(buf));
	is_str(buf, "postgresql://ci:***@db.example:5432/results?sslmode=require", "password in the user part masked");
	store__mask_url("postgresql://ci:p@ss@db/results", buf, sizeof(buf));
	is_str(buf, "postgresql://ci:***@db/results", "a password with an @ in it masked whole");
	store__mask_url("postgresql:///results?host=/run/pg&password=s3cret&user=ci", buf, sizeof(buf));
	is_str(buf, "postgresql:///results?host=/run/pg&password=***&user=ci", "password= parameter masked");
	store__mask_url("postgres://ci@db/results?password=s3cret", buf, sizeof(buf));
	is_str(buf, "postgres://ci@db/results?password=***", "password= as the last parameter masked");
	store__mask_url("postgresql://ci@db/results?xpassword=keep", buf, sizeof(buf));
	is_str(buf, "postgresql://ci@db/results?xpassword=keep", "a parameter that only ends in password= stays");
	ok(store__is_url("postgresql://x") && store__is_url("postgres://") && !store__is_url("results.db") &&
	   !store__is_url("postgresql:/x"), "URLs are told from paths");
}

static void test_key_id(void)
{
	is_int(store__key_id("perf-profile.children.cpu-clock.do_page_fault"), 3807482790512142746LL,
	       "a key's id is the first 63 bits of its name's SHA-256 (the schema's promise)");
	ok(store__key_id("") >= 0 && store__key_id("\xff\xff") >= 0, "key ids are never negative");
}

/* A profile of three runs with metrics only: bench.ops in each, bench.rare in run 1, a bad name in run 2. */
static const double ops[3] = { 1000.5, 1010.25, -3.5e-300 };

static int save_profile(const char *path, const char *host, const char *variant)
{
	struct profile *p = profile__new();
	struct errmsg e;
	uint32_t r;
	int err;

	profile__set_meta(p, "hostname", host);
	profile__set_meta(p, "workload", "bench");
	profile__set_meta(p, "variant", variant);
	for (r = 0; r < 3; r++) {
		struct run run = { .start_ns = 1700000000000000000LL + r, .wall_ns = 1000000000 };

		profile__add_run(p, &run);
		profile__add_metric(p, r, "bench.ops", ops[r]);
	}
	profile__add_metric(p, 1, "bench.rare", 42);
	profile__add_metric(p, 2, "bench.bad\xff", 7);
	err = datafile__save(p, path, &e);
	if (err)
		printf("# %s\n", e.msg);
	profile__free(p);
	return err;
}

/* The vals blob of key name in push id, decoded: *mask the runs present, vals[] their values. */
static int read_vals(sqlite3 *db, const char *name, long long id, unsigned *mask, double vals[8])
{
	sqlite3_stmt *st;
	int n = -1;

	sqlite3_prepare_v2(db, "SELECT vals FROM keyvals WHERE key_id = ?1 AND push_id = ?2", -1, &st, NULL);
	sqlite3_bind_int64(st, 1, store__key_id(name));
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *b = sqlite3_column_blob(st, 0);
		int len = sqlite3_column_bytes(st, 0), i, r;

		*mask = b[0];
		n = 0;
		for (r = 0, i = 1; r < 8; r++)
			if (*mask & (1u << r)) {
				uint64_t u = 0;
				int k;

				for (k = 0; k < 8 && i + k < len; k++)
					u |= (uint64_t)b[i + k] << (8 * k);
				memcpy(&vals[n++], &u, 8);
				i += 8;
			}
		if (i != len)
			n = -2;
	}
	sqlite3_finalize(st);
	return n;
}

static char *sql_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *s = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		s = xstrdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	return s;
}

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 20);

	*len = f ? fread(buf, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static void test_push(void)
{
	char a[256], b[256], c[256], db[256], *s;
	struct store_push p = { .commit = "abc123", .branch = "main" };
	struct store_pushed out;
	struct store *st;
	struct errmsg e;
	sqlite3 *q;
	unsigned mask = 0;
	double v[8];
	int64_t *ids = NULL;
	size_t nr = 0, len, flen;
	void *data, *file;

	snprintf(a, sizeof(a), "%s/a.data", dir);
	snprintf(b, sizeof(b), "%s/b.data", dir);
	snprintf(c, sizeof(c), "%s/c.data", dir);
	snprintf(db, sizeof(db), "%s/s.db", dir);
	ok(!save_profile(a, "m1", "a") && !save_profile(b, "m1", "b") && !save_profile(c, "m2", "c"),
	   "three files saved");
	st = store__open(db, &e);
	ok(st != NULL, "a new store is made");
	if (!st)
		return;
	is_int(store__push(st, a, &p, &out, &e), 0, "push a");
	ok(out.id == 1 && !out.existed && out.nr_runs == 3 && out.nr_keys >= 3, "push a is push 1 of 3 runs");
	is_str(out.machine, "m1", "machine from the file's host");
	is_str(out.benchmark, "bench", "benchmark from the workload");
	is_int(out.time, 1700000000, "time from the first run's start");
	is_int(store__push(st, a, &p, &out, &e), 0, "push a again");
	ok(out.existed && !out.id, "the same bytes are one push");

	sqlite3_open(db, &q);
	s = sql_text(q, "SELECT count(*) || ' ' || sum(nr_runs) FROM pushes");
	is_str(s, "1 3", "one push row, three runs");
	free(s);
	is_int(read_vals(q, "bench.ops", 1, &mask, v), 3, "bench.ops: three values");
	ok(mask == 7 && v[0] == ops[0] && v[1] == ops[1] && v[2] == ops[2], "bench.ops: every run, values exact");
	is_int(read_vals(q, "bench.rare", 1, &mask, v), 1, "bench.rare: one value");
	ok(mask == 2 && v[0] == 42, "bench.rare: run 1 only");
	is_int(read_vals(q, "bench.bad\xff", 1, &mask, v), 1, "a name that is not UTF-8: its row under its bytes' id");
	ok(mask == 4 && v[0] == 7, "its value in run 2");
	s = sql_text(q, "SELECT name FROM keys WHERE name LIKE 'bench.bad%'");
	is_str(s, "bench.bad\\xff", "its name stored as valid text, the bad byte as \\xff");
	free(s);
	s = sql_text(q, "SELECT count(*) FROM meta WHERE push_id = 1 AND key = 'variant' AND value = 'a'");
	is_str(s, "1", "the file's meta kept");
	free(s);

	/* commits: exact, prefix, several machines */
	p.commit = "abd999";
	ok(!store__push(st, b, &p, &out, &e) && out.id == 2, "push b, another commit");
	p.commit = "abc123";
	ok(!store__push(st, c, &p, &out, &e) && out.id == 3, "push c: commit abc123 on machine m2");
	is_int(store__find_commit(st, "abd", NULL, NULL, &ids, &nr, &e), 0, "a prefix naming one commit");
	ok(nr == 1 && ids[0] == 2, "finds its push");
	free(ids);
	is_int(store__find_commit(st, "ab", NULL, NULL, &ids, &nr, &e), -EINVAL, "a prefix of two commits");
	ok(strstr(e.msg, "give more of it") != NULL, "says to give more");
	is_int(store__find_commit(st, "abc123", NULL, NULL, &ids, &nr, &e), -EINVAL, "two machines, none chosen");
	ok(strstr(e.msg, "'m1', 'm2'") && strstr(e.msg, "--machine"), "names them and --machine");
	is_int(store__find_commit(st, "abc123", "m2", NULL, &ids, &nr, &e), 0, "machine m2 chosen");
	ok(nr == 1 && ids[0] == 3, "finds push 3");
	free(ids);
	is_int(store__find_commit(st, "zzz", NULL, NULL, &ids, &nr, &e), -ENOENT, "an unknown commit");

	/* the file back */
	file = slurp(a, &flen);
	is_int(store__fetch_data(st, 1, &data, &len, &e), 0, "fetch push 1's file");
	ok(len == flen && !memcmp(data, file, len), "byte for byte as pushed");
	free(data);
	free(file);
	sqlite3_exec(q, "UPDATE blobs SET data = x'789c030000000001' WHERE push_id = 2", NULL, NULL, NULL);
	is_int(store__fetch_data(st, 2, &data, &len, &e), -EPROTO, "a damaged file is refused");
	ok(strstr(e.msg, "damaged") != NULL, "says it is damaged");
	store__close(st);

	/* a newer schema */
	sqlite3_exec(q, "UPDATE schema_version SET version = 99", NULL, NULL, NULL);
	st = store__open(db, &e);
	ok(!st && strstr(e.msg, "schema version 99, newer than this mmprof's 1"), "a newer schema is refused");
	store__close(st);
	sqlite3_exec(q, "UPDATE schema_version SET version = 1", NULL, NULL, NULL);
	sqlite3_close(q);

	/* a .data file given as the store: refused, untouched */
	file = slurp(a, &flen);
	st = store__open(a, &e);
	ok(!st && strstr(e.msg, "not an mmprof store"), "a .data file is not a store");
	data = slurp(a, &len);
	ok(len == flen && !memcmp(data, file, len), "and it is left byte for byte as it was");
	free(data);
	free(file);
}

static void test_refs(void)
{
	char arg[512], db[256];
	struct store_files f;
	struct errmsg e;
	struct stat sb;
	size_t split = 0;
	int err;

	snprintf(db, sizeof(db), "%s/s.db", dir);
	snprintf(arg, sizeof(arg), "%s:abc123", db);
	ok(store__is_ref(arg, &split) && split == strlen(db), "STORE:COMMIT of an existing store");
	ok(!store__is_ref("/nonexistent/s.db:abc", &split), "no such store: a path as any other");
	ok(store__is_ref("postgresql://ci@db/results:abc", &split) && split == 26, "URL:COMMIT");
	ok(!store__is_ref(db, &split), "the store itself is no reference");
	err = store_files__fetch(&f, arg, strlen(db), "m1", NULL, &e);
	is_int(err, 0, "fetch abc123 of machine m1");
	ok(f.nr == 1 && strstr(f.names[0], "s.db:abc123") && !stat(f.paths[0], &sb), "one file, named by the argument");
	snprintf(arg, sizeof(arg), "%s", f.dir ? f.dir : "");
	store_files__release(&f);
	ok(stat(arg, &sb) && errno == ENOENT, "released: its folder is gone");
	snprintf(arg, sizeof(arg), "%s:abc123", db);
	err = store_files__fetch(&f, arg, strlen(db), NULL, NULL, &e);
	ok(err == -EINVAL && !f.nr && !f.dir, "two machines: an error, nothing left");
}

int main(void)
{
	char cmd[300];

	test_sha256();
	test_mask();
	test_key_id();
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return done_testing();
	}
	test_push();
	test_refs();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		ok(0, "remove %s", dir);
	return done_testing();
}
