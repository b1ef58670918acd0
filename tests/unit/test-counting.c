/*
 * counting against the real perf_event_open: the perf-stat set on this
 * process while it faults pages in, intervals summing to totals, and
 * unsupported events kept as such (never as zero counts).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mmprof/counting.h"
#include "mmprof/profile.h"
#include "tap.h"

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Fault in `pages` fresh anonymous pages: page-faults must see each one. */
static void touch_pages(size_t pages)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), i;
	char *m = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return;
	madvise(m, pages * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		m[i * psz] = (char)i;
	munmap(m, pages * psz);
}

static const struct counter *find_counter(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr_counters; i++)
		if (!strcmp(profile__str(p, p->counters[i].name), name))
			return &p->counters[i];
	return NULL;
}

static uint64_t interval_sum(const struct profile *p, const char *name, size_t *n)
{
	uint64_t sum = 0;
	size_t i;

	*n = 0;
	for (i = 0; i < p->nr_intervals; i++)
		if (!strcmp(profile__str(p, p->intervals[i].name), name)) {
			sum += p->intervals[i].value;
			(*n)++;
		}
	return sum;
}

static void test_self(void)
{
	pid_t self = getpid();
	struct counting_target t = { .pids = &self, .nr_pids = 1 };
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	struct counting *c = counting__open(&t, &e);
	const struct counter *pf, *tc;
	size_t i, n, nsup, bad = 0;
	int64_t t0;

	ok(c != NULL, "counting opens on this process (%s)", e.msg);
	if (!c) {
		profile__free(p);
		return;
	}
	nsup = counting__nr_supported(c);
	ok(nsup >= 7, "at least the 7 software counters are supported");
	t0 = mono_ns();
	counting__start(c, t0);
	touch_pages(512);
	counting__interval(c, p, 0, t0 + 1000000);
	touch_pages(512);
	counting__interval(c, p, 0, t0 + 2000000);
	touch_pages(256);
	counting__finish(c, p, 0, t0 + 2500000, true);
	counting__close(c);

	is_int(p->nr_counters, counting_nr_events, "one total per event of the set");
	pf = find_counter(p, "page-faults");
	tc = find_counter(p, "task-clock");
	ok(pf && pf->supported && pf->value >= 1280, "page-faults counts the 1280 touched pages (%llu)",
	   pf ? (unsigned long long)pf->value : 0ULL);
	ok(tc && tc->supported && tc->value > 0 && tc->enabled > 0 && tc->running > 0,
	   "task-clock runs, with enabled and running times");
	ok(tc && tc->running == tc->enabled, "ungrouped task-clock is never multiplexed here");

	for (i = 0; i < p->nr_counters; i++) {
		const struct counter *ct = &p->counters[i];

		if (ct->supported ? ct->enabled == 0
				  : ct->value || ct->enabled || ct->running)
			bad++;
	}
	is_int(bad, 0, "supported counters ran; unsupported ones carry no numbers");

	is_int(interval_sum(p, "page-faults", &n), pf ? pf->value : 1, "intervals sum to the total");
	is_int(n, 3, "two readings plus the final partial interval");
	is_int(p->nr_intervals, 3 * nsup, "each reading has one interval per supported counter");
	for (i = 0, bad = 0; i < p->nr_intervals; i++)
		if (!profile__str(p, p->intervals[i].name) ||
		    (p->intervals[i].t_ns != 1000000 && p->intervals[i].t_ns != 2000000 &&
		     p->intervals[i].t_ns != 2500000))
			bad++;
	is_int(bad, 0, "interval timestamps are relative to the run start");
	profile__free(p);
}

static void test_names(void)
{
	static const char *const want[] = {
		"task-clock", "cpu-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults", "cpu-cycles",
		"instructions", "branch-instructions", "branch-misses",
		"cache-references", "cache-misses", "dTLB-loads", "dTLB-load-misses",
		"iTLB-loads", "iTLB-load-misses",
	};
	size_t i, j, missing = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		for (j = 0; j < counting_nr_events; j++)
			if (!strcmp(counting_events[j].name, want[i]))
				break;
		if (j == counting_nr_events) {
			printf("# missing %s\n", want[i]);
			missing++;
		}
	}
	is_int(missing, 0, "the set has every perf-stat event the robot reads");
}

static void test_bad_target(void)
{
	pid_t none = 0x3ffffff0;	/* above pid_max: no such process */
	struct counting_target t = { .pids = &none, .nr_pids = 1 };
	struct errmsg e = { "" };
	struct counting *c = counting__open(&t, &e);

	ok(c == NULL && strstr(e.msg, "cannot count"), "a missing process is an error, not 'unsupported' (%s)",
	   e.msg);
	counting__close(c);
}

static void test_system_wide(void)
{
	struct counting_target t = { .system_wide = true, .cpu_list = "0" };
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	struct counting *c = counting__open(&t, &e);
	const struct counter *cc;

	ok(c != NULL, "per-CPU counting on CPU 0 opens (%s)", e.msg);
	if (c) {
		int64_t t0 = mono_ns();

		counting__start(c, t0);
		touch_pages(64);
		usleep(20000);
		counting__finish(c, p, 0, mono_ns(), false);
		counting__close(c);
	}
	cc = find_counter(p, "cpu-clock");
	ok(cc && cc->supported && cc->value >= 15000000,
	   "cpu-clock of CPU 0 covers the 20 ms sleep (%llu ns)",
	   cc ? (unsigned long long)cc->value : 0ULL);
	is_int(p->nr_intervals, 0, "no intervals when they are off");
	profile__free(p);
}

/* Descriptors this process holds now. */
static size_t nr_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/*
 * stat -e: only the events asked for are opened (descriptors prove it,
 * one per event on a single thread) and stored; an asked event the
 * machine lacks is stored as unsupported, never dropped.
 */
static void test_selected(void)
{
	pid_t self = getpid();
	int pf = counting__find("page-faults"), tc = counting__find("task-clock");
	int cyc = counting__find("cpu-cycles");
	struct counting_target t = { .pids = &self, .nr_pids = 1 };
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	struct counting *c;
	const struct counter *ct;
	size_t before, opened, n;
	int64_t t0;

	ok(pf >= 0 && tc >= 0 && cyc >= 0 && counting__find("no-such-event") == -1,
	   "counting__find knows the set's names, and only those");
	t.events = (UINT64_C(1) << pf) | (UINT64_C(1) << tc) | (UINT64_C(1) << cyc);
	before = nr_fds();
	c = counting__open(&t, &e);
	opened = nr_fds() - before;
	ok(c != NULL, "counting opens with an event mask (%s)", e.msg);
	if (!c) {
		profile__free(p);
		return;
	}
	ok(counting__nr_supported(c) == 2 || counting__nr_supported(c) == 3,
	   "two or three events opened, not the set (%zu)", counting__nr_supported(c));
	is_int(opened, counting__nr_supported(c), "one descriptor per opened event, no more");
	t0 = mono_ns();
	counting__start(c, t0);
	touch_pages(300);
	counting__interval(c, p, 0, t0 + 1000000);
	counting__finish(c, p, 0, t0 + 2000000, true);
	counting__close(c);
	is_int(p->nr_counters, 3, "one total per asked event, none for the others");
	ct = find_counter(p, "page-faults");
	ok(ct && ct->supported && ct->value >= 300, "page-faults counted (%llu)",
	   ct ? (unsigned long long)ct->value : 0ULL);
	ok(find_counter(p, "cpu-cycles") != NULL, "an asked event is stored even where unsupported");
	ok(!find_counter(p, "context-switches"), "an event not asked for is not stored");
	interval_sum(p, "context-switches", &n);
	is_int(n, 0, "nor its intervals");
	for (n = 0, before = 0; n < p->nr_counters; n++)
		before += p->counters[n].supported;
	is_int(p->nr_intervals, 2 * before, "two intervals per supported asked event, no others");
	profile__free(p);
}

int main(void)
{
	test_names();
	test_self();
	test_bad_target();
	test_system_wide();
	test_selected();
	return done_testing();
}
