/*
 * test-perfsession: the counters and readings of perfsession.h against the
 * real perf_event_open, software events only (cpu-clock, task-clock: every
 * machine has them, a VM without a PMU too).
 *
 * What record's counting.c and sampler-open.c ask of it: a session on this
 * process's thread on any CPU (counting's per-thread target) whose
 * task-clock grows while we burn CPU, summed with its enabled and running
 * times; an event the kernel refuses comes back as -errno with nothing
 * left in the session; two events per CPU with read_format ID and LOST
 * give one distinct id per descriptor before the mmap, and after it (which
 * hides ID from libperf) their counts and the kernel's lost count still
 * read, which they would not if the bit were not put back (the kernel
 * writes the id, libperf's buffer would be too short).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "mmprof/perfsession.h"
#include "tap.h"

static void burn_ms(long ms)
{
	struct timespec t0, t;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void sw_attr(struct perf_event_attr *a, uint64_t config, uint64_t read_format)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
	a->read_format = read_format;
	a->exclude_kernel = 1;	/* allowed at kernel.perf_event_paranoid 2 too */
	a->exclude_hv = 1;
}

struct ids {
	uint64_t id[4096];
	size_t nr;
};

static void add_id(void *ctx, uint64_t id)
{
	struct ids *k = ctx;

	if (k->nr < sizeof(k->id) / sizeof(k->id[0]))
		k->id[k->nr] = id;
	k->nr++;
}

static void test_counter(void)
{
	struct perfsession ps = { 0 };
	struct perf_event_attr a;
	struct perf_evsel *evsel = NULL, *bad = (void *)1;
	struct perfsession_counts c1, c2;
	struct errmsg e = { "" };
	pid_t self = getpid();
	int err;

	err = perfsession__open_threads(&ps, &self, 0, &e);
	ok(err == -EINVAL && strstr(e.msg, "no thread") && !perfsession__is_open(&ps),
	   "no thread is -EINVAL, nothing open (%d: %s)", err, e.msg);

	err = perfsession__open_threads(&ps, &self, 1, &e);
	ok(!err && perfsession__is_open(&ps), "a session on this thread, any CPU (%d)", err);

	sw_attr(&a, PERF_COUNT_SW_TASK_CLOCK, 0);
	a.type = 0x7fffff;	/* no such PMU */
	err = perfsession__open_event(&ps, &a, &bad);
	ok(err < 0 && bad == NULL, "an event the kernel refuses is -errno, *evsel NULL (%d)", err);

	sw_attr(&a, PERF_COUNT_SW_TASK_CLOCK,
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	err = perfsession__open_event(&ps, &a, &evsel);
	ok(!err && evsel, "task-clock opens on this thread (%d)", err);
	if (err) {
		perfsession__close(&ps);
		return;
	}
	err = perfsession__read_counts(&ps, evsel, &c1);
	burn_ms(30);
	err |= perfsession__read_counts(&ps, evsel, &c2);
	ok(!err, "the counter reads (%d)", err);
	ok(c2.val >= c1.val + 20 * 1000000ull, "task-clock grew by the 30 ms burnt: %llu -> %llu ns",
	   (unsigned long long)c1.val, (unsigned long long)c2.val);
	ok(c2.ena >= c2.run && c2.run > 0 && c2.lost == 0,
	   "with its times enabled %llu >= running %llu > 0, no lost count asked",
	   (unsigned long long)c2.ena, (unsigned long long)c2.run);
	perfsession__close(&ps);
	ok(!perfsession__is_open(&ps) && !ps.id_hidden && !ps.nr_id_hidden, "closed");
}

static void test_ids_and_lost(void)
{
	struct perfsession ps = { 0 };
	struct perf_event_attr a;
	struct perf_evsel *ev[2] = { NULL, NULL };
	struct perfsession_counts c;
	struct ids k = { .nr = 0 };
	struct errmsg e = { "" };
	uint64_t lost = 1;
	pid_t self = getpid();
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i, j, dup = 0;
	int err, n;

	err = perfsession__open(&ps, NULL, &self, 1, &e);
	ok(!err, "a session on every CPU for this process (%d %s)", err, e.msg);
	for (n = 0; n < 2 && !err; n++) {
		sw_attr(&a, n ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK,
			PERF_FORMAT_ID | PERF_FORMAT_LOST);
		a.sample_period = 1000000;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_IDENTIFIER;
		err = perfsession__open_event(&ps, &a, &ev[n]);
		if (err == -EINVAL) {
			/* kernels before 6.0 give no lost count */
			a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
			err = perfsession__open_event(&ps, &a, &ev[n]);
		}
	}
	ok(!err, "two events with read_format ID open on every CPU (%d)", err);
	if (err) {
		perfsession__close(&ps);
		return;
	}
	for (n = 0; n < 2; n++)
		err |= perfsession__read_ids(ev[n], add_id, &k);
	for (i = 0; i < k.nr && i < 4096; i++)
		for (j = i + 1; j < k.nr && j < 4096; j++)
			dup += k.id[i] == k.id[j];
	ok(!err && (long)k.nr == 2 * ncpu && !dup, "one id a descriptor: %zu for 2 events x %ld CPUs, "
	   "%zu the same", k.nr, ncpu, dup);
	err = perfsession__mmap(&ps, 4);
	ok(!err && ps.nr_id_hidden == 2, "mapped, with ID hidden from libperf for both (%d, %zu)",
	   err, ps.nr_id_hidden);
	perfsession__enable(&ps);
	burn_ms(20);
	perfsession__disable(&ps);
	err = perfsession__read_counts(&ps, ev[0], &c);
	ok(!err && c.val > 0, "after the mmap cpu-clock still reads: the ID bit is back while "
	   "reading (%d, %llu ns)", err, (unsigned long long)c.val);
	err = perfsession__lost(&ps, &lost);
	ok(!err && lost == 0, "and the kernel's lost count reads: none lost (%d, %llu)", err,
	   (unsigned long long)lost);
	ok(perfsession__read_ids(ev[0], add_id, &k) == -EINVAL,
	   "ids are read before the mmap (after it ID is hidden: -EINVAL)");
	perfsession__close(&ps);
	err = perfsession__lost(&ps, &lost);
	ok(!err && lost == 0, "a closed session has lost nothing (%d)", err);
}

int main(void)
{
	test_counter();
	test_ids_and_lost();
	return done_testing();
}
