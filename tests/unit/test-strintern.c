/*
 * test-strintern: lib/strintern against a naive model, a list of strings
 * searched linearly.
 *
 * The interner is the profile's string pool (its ids are the data file's),
 * so an id out of order or a string found twice is a different file.  The
 * model keeps every string added, as bytes and length; each round draws
 * strings from a space about twice what gets added (finds hit and miss in
 * about equal parts), of random lengths (0 to past a quarter chunk, so
 * that long strings take chunks of their own) and random bytes, NUL and
 * 0xff included.  Every add and find is compared with the model; after
 * every growth of the index, every string must keep its id, bytes and
 * pointer.  Then the bounds (-E2BIG, the table unchanged), the reserved 0,
 * dropping the index and finding again, blanking, the arena alone, and
 * half a million short strings, and running out of memory (-ENOMEM from a real failed malloc under an
 * address-space limit; skipped under ASan, which needs the space).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "mmprof/strintern.h"
#include "tap.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* String number k of the draw space: its bytes depend on k alone. */
static size_t make(uint64_t k, char *buf, size_t size)
{
	uint64_t s = k * 0x9e3779b97f4a7c15ULL + 1;
	size_t len, i;

	switch (k % 8) {
	case 0:
		len = 0 + k % 3;	/* "", short: many share a prefix */
		break;
	case 1:
		len = 70000 + k % 5;	/* past a quarter chunk: a chunk of its own */
		break;
	default:
		len = 1 + rng_next(&s) % 200;
	}
	if (len > size)
		len = size;
	for (i = 0; i < len; i++)
		buf[i] = (char)(k % 8 == 2 ? (i % 3 ? 'a' : '\0') : rng_next(&s) & 0xff);
	return len;
}

struct model {
	char **s;
	size_t *len;
	size_t nr;
};

static uint32_t model__find(const struct model *m, const char *s, size_t len, uint32_t base)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (m->len[i] == len && !memcmp(m->s[i], s, len))
			return (uint32_t)(i + base);
	return STRINTERN_NONE;
}

static void test_model(bool reserve_zero, unsigned ops, uint64_t seed)
{
	const char *name = reserve_zero ? "reserved 0" : "from 0";
	struct strintern_opts o = { .reserve_zero = reserve_zero };
	uint32_t base = reserve_zero;
	struct model m = { 0 };
	struct strintern si;
	char *buf = malloc(80000);
	const char **ptr = calloc(ops + 1, sizeof(*ptr));
	unsigned long wrong = 0, finds = 0, hits = 0, adds = 0, growths = 0, lost = 0;
	unsigned long bad_copy = 0, nul = 0;
	uint64_t s = seed, bytes = 0;
	size_t cap = 0;
	unsigned i;

	m.s = calloc(ops, sizeof(*m.s));
	m.len = calloc(ops, sizeof(*m.len));
	strintern__init(&si, &o);
	ok(si.nr == base, "%s: an empty table holds only what is reserved", name);
	for (i = 0; i < ops; i++) {
		uint64_t k = rng_next(&s) % ops;
		size_t len = make(k, buf, 80000);
		uint32_t want = model__find(&m, buf, len, base), got, id;
		int r;

		got = strintern__find(&si, buf, len);
		finds++;
		hits += want != STRINTERN_NONE;
		nul += memchr(buf, '\0', len) != NULL;
		if (got != want && wrong++ == 0)
			printf("#   %s: op %u: find %" PRIu32 ", want %" PRIu32 "\n", name, i, got, want);
		if (want != STRINTERN_NONE && rng_next(&s) % 2)
			continue;
		r = strintern__add(&si, buf, len, &id);
		if (want != STRINTERN_NONE) {
			if ((r != 0 || id != want) && wrong++ == 0)
				printf("#   %s: op %u: add of a known string: %d, id %" PRIu32 "\n", name, i, r, id);
			continue;
		}
		if ((r != 1 || id != m.nr + base) && wrong++ == 0)
			printf("#   %s: op %u: add of a new string: %d, id %" PRIu32 " want %zu\n",
			       name, i, r, id, m.nr + base);
		m.s[m.nr] = malloc(len + 1);
		memcpy(m.s[m.nr], buf, len);
		m.len[m.nr] = len;
		ptr[m.nr] = strintern__str(&si, id);
		bytes += len;
		m.nr++;
		adds++;
		if (si.idx.mask + 1 != cap) {
			size_t j;

			growths++;
			cap = si.idx.mask + 1;
			for (j = 0; j < m.nr; j++) {
				uint32_t jd = (uint32_t)(j + base);

				lost += strintern__find(&si, m.s[j], m.len[j]) != jd ||
					strintern__str(&si, jd) != ptr[j];
				bad_copy += strintern__len(&si, jd) != m.len[j] ||
					    memcmp(strintern__str(&si, jd), m.s[j], m.len[j]) ||
					    strintern__str(&si, jd)[m.len[j]] != '\0';
			}
		}
	}
	ok(wrong == 0, "%s: %lu finds (%lu hits) and %lu adds agree with the linear model (%lu differ)",
	   name, finds, hits, adds, wrong);
	ok(m.nr > ops / 8 && hits > ops / 4 && finds - hits > ops / 8 && nul > ops / 16,
	   "%s: %zu strings added, %lu with a NUL inside; finds both hit and missed", name, m.nr, nul);
	ok(growths >= 5 && lost == 0 && bad_copy == 0,
	   "%s: every string kept its id, pointer and bytes (NUL-ended) over %lu growths (%lu lost, %lu bad)",
	   name, growths, lost, bad_copy);
	ok(si.nr == m.nr + base && si.bytes == bytes, "%s: nr and bytes are the model's", name);
	if (reserve_zero)
		ok(strintern__str(&si, 0) == NULL && strintern__len(&si, 0) == 0,
		   "%s: id 0 is no string", name);

	/* dropped index: a find searches, an add indexes again; ids unchanged */
	strintern__drop_index(&si);
	lost = 0;
	for (i = 0; i < m.nr; i += 7)
		lost += strintern__find(&si, m.s[i], m.len[i]) != i + base;
	{
		uint32_t id;
		int r = strintern__add(&si, m.s[m.nr - 1], m.len[m.nr - 1], &id);

		ok(lost == 0 && r == 0 && id == m.nr - 1 + base,
		   "%s: without its index every string is still found, and an add finds the old id", name);
	}
	for (i = 0; i < m.nr; i++)
		free(m.s[i]);
	free(m.s);
	free(m.len);
	free(ptr);
	free(buf);
	strintern__release(&si);
	ok(si.nr == base && si.bytes == 0 && si.o.reserve_zero == reserve_zero,
	   "%s: release empties the table and keeps its options", name);
	strintern__release(&si);
}

/* Many short distinct strings: ids in order, each found again, the bytes counted. */
static void test_many(unsigned n)
{
	struct strintern si;
	unsigned long wrong = 0;
	uint64_t bytes = 0;
	char buf[32];
	unsigned i;

	strintern__init(&si, NULL);
	for (i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "s%u", i);

		wrong += strintern__xid(&si, buf, (size_t)len) != i;
		bytes += (uint64_t)len;
	}
	for (i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "s%u", i);

		wrong += strintern__find(&si, buf, (size_t)len) != i ||
			 strcmp(strintern__str(&si, i), buf) != 0;
	}
	ok(wrong == 0 && si.nr == n && si.bytes == bytes && si.idx.nr == n,
	   "many: %u strings, each its own id in order and found again (%lu wrong)", n, wrong);
	strintern__release(&si);
}

static void test_bounds(void)
{
	struct strintern_opts o = { .reserve_zero = true, .max_nr = 4, .max_bytes = 10 };
	struct strintern si;
	uint32_t id;
	int r;

	strintern__init(&si, &o);
	ok(strintern__add(&si, "abc", 3, &id) == 1 && id == 1, "bounds: the first string is 1");
	ok(strintern__add(&si, "defgh", 5, &id) == 1 && id == 2, "bounds: 8 bytes of 10");
	r = strintern__add(&si, "ijk", 3, &id);
	ok(r == -E2BIG && id == STRINTERN_NONE && si.nr == 3 && si.bytes == 8,
	   "bounds: 11 bytes of 10 is -E2BIG, the table unchanged (%d)", r);
	ok(strintern__find(&si, "ijk", 3) == STRINTERN_NONE, "bounds: the refused string is not found");
	ok(strintern__add(&si, "abc", 3, &id) == 0 && id == 1,
	   "bounds: a string already there is found when full");
	ok(strintern__add(&si, "ij", 2, &id) == 1 && id == 3, "bounds: exactly 10 bytes fit");
	ok(strintern__add(&si, "", 0, &id) == -E2BIG && si.nr == 4,
	   "bounds: a fifth id (0 counted) past max_nr 4 is -E2BIG, even for \"\"");
	ok(strintern__xid(&si, "zz", 2) == STRINTERN_NONE && strintern__xptr(&si, "zz", 2) == NULL,
	   "bounds: the x-forms say STRINTERN_NONE and NULL past a bound");
	strintern__release(&si);
}

static void test_blank_and_ptr(void)
{
	struct strintern si;
	const char *a, *b;
	uint32_t id;

	strintern__init(&si, NULL);
	a = strintern__xptr(&si, "comm", 4);
	b = strintern__xptr(&si, "common", 4);
	ok(a && a == b && !strcmp(a, "comm"), "pointers: equal strings share one pointer");
	ok(strintern__xid(&si, "x", 1) == 1 && strintern__xid(&si, "comm", 4) == 0,
	   "pointers: without a reserved 0 the first string is 0");
	strintern__blank(&si, 0);
	ok(!strcmp(strintern__str(&si, 0), "") && strintern__len(&si, 0) == 0 &&
	   strintern__find(&si, "comm", 4) == STRINTERN_NONE && strintern__find(&si, "", 0) == STRINTERN_NONE,
	   "blank: the id stays, its text is \"\" and neither text finds it");
	ok(strintern__add(&si, "comm", 4, &id) == 1 && id == 2, "blank: the old text is a new id");
	strintern__release(&si);
}

static void test_arena(void)
{
	struct strarena a = { 0 };
	const char *p[2000];
	char buf[64];
	size_t i, bad = 0;

	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "name-%zu", i);
		p[i] = strarena__xdup(&a, buf, strlen(buf));
	}
	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "name-%zu", i);
		bad += strcmp(p[i], buf) != 0;
	}
	ok(bad == 0 && a.nr >= 3, "arena: 2,000 names in %zu chunks, each still itself", a.nr);
	ok(strarena__dup(&a, "x", SIZE_MAX / 2) == NULL, "arena: an impossible length is NULL, not an exit");
	strarena__release(&a);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifdef UNDER_ASAN
/*
 * ASan reserves the address space an RLIMIT_AS would take, so under it
 * the refused copy is ASan's own: past 128 MiB at once its malloc says
 * NULL, as libc's does when the space is gone (an ASAN_OPTIONS in the
 * environment still wins, key by key).
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=128";
}
#endif

/*
 * Make the copy of the next big - 1 byte string fail: the address space
 * in use now and 64 MiB more (under ASan its 128 MiB allocation limit,
 * above).  Returns NULL, the limit before kept in *old, or why not.
 */
static const char *limit_space(struct rlimit *old)
{
#ifdef UNDER_ASAN
	(void)old;
	return NULL;
#else
	struct rlimit lim;
	unsigned long pages = 0;
	FILE *f;

	if (getrlimit(RLIMIT_AS, old))
		return "no RLIMIT_AS";
	f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%lu", &pages) != 1) {
		if (f)
			fclose(f);
		return "no /proc/self/statm";
	}
	fclose(f);
	lim = *old;
	lim.rlim_cur = (rlim_t)pages * 4096 + (64u << 20);
	return setrlimit(RLIMIT_AS, &lim) ? "cannot set RLIMIT_AS" : NULL;
#endif
}

static void unlimit_space(const struct rlimit *old)
{
#ifdef UNDER_ASAN
	(void)old;
#else
	setrlimit(RLIMIT_AS, old);
#endif
}

static void test_enomem(void)
{
	const size_t big = 256u << 20;
	struct strintern si;
	struct rlimit old;
	char *src = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const char *why;
	uint32_t id;
	int r;

	strintern__init(&si, NULL);
	strintern__xid(&si, "before", 6);
	if (src == MAP_FAILED) {
		skip_tests(2, "out of memory: no mapping of %zu bytes to copy from", big);
		return;
	}
	why = limit_space(&old);
	if (why) {
		skip_tests(2, "out of memory: %s", why);
		return;
	}
	r = strintern__add(&si, src, big - 1, &id);
	unlimit_space(&old);
	ok(r == -ENOMEM && id == STRINTERN_NONE && si.nr == 1 && si.bytes == 6,
	   "out of memory: -ENOMEM, no exit, the table unchanged (%d)", r);
	ok(strintern__add(&si, "after", 5, &id) == 1 && id == 1 &&
	   !strcmp(strintern__str(&si, 0), "before"), "out of memory: the table goes on after it");
	munmap(src, big);
	strintern__release(&si);
}

int main(void)
{
	test_model(false, 6000, 0x1234567);
	test_model(true, 6000, 0xfeedbeef);
	test_model(true, 20000, 42);
	test_many(500000);
	test_bounds();
	test_blank_and_ptr();
	test_arena();
	test_enomem();
	return done_testing();
}
