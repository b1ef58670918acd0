/*
 * test-parallel: parallel.h's two shapes.  parallel__each runs every item
 * exactly once, whatever the count (0, 1, many); parallel__start and
 * parallel__wait run a job exactly once, its effects visible after the
 * wait, beside the caller's own work, and a zeroed job never started
 * waits at once.
 */
#include <stdatomic.h>
#include <string.h>

#include "tap.h"
#include "mmprof/parallel.h"

static void count_item(void *ctx, size_t i)
{
	atomic_fetch_add(&((_Atomic int *)ctx)[i], 1);
}

static void test_each(void)
{
	static _Atomic int seen[1000];
	size_t n[] = { 0, 1, 2, 1000 }, k, i;

	for (k = 0; k < sizeof(n) / sizeof(n[0]); k++) {
		int bad = 0;

		for (i = 0; i < 1000; i++)
			atomic_init(&seen[i], 0);
		parallel__each(n[k], count_item, seen);
		for (i = 0; i < 1000; i++)
			bad += atomic_load(&seen[i]) != (i < n[k] ? 1 : 0);
		ok(bad == 0, "parallel__each of %zu items: each once, no other (%d wrong)", n[k], bad);
	}
}

struct sum {
	const unsigned *v;
	size_t from, to;
	unsigned long long total;
	int calls;
};

static void sum_range(void *arg)
{
	struct sum *s = arg;
	size_t i;

	s->calls++;
	for (i = s->from; i < s->to; i++)
		s->total += s->v[i];
}

static void test_job(void)
{
	static unsigned v[1 << 20];
	struct sum a = { .v = v, .from = 0, .to = 1 << 19 }, b = { .v = v, .from = 1 << 19, .to = 1 << 20 };
	struct parallel_job j, never;
	size_t i;

	for (i = 0; i < 1 << 20; i++)
		v[i] = (unsigned)i;
	parallel__start(&j, sum_range, &a);
	sum_range(&b);		/* the caller's own half meanwhile */
	parallel__wait(&j);
	is_int(a.calls, 1, "the job ran once");
	ok(a.total + b.total == (unsigned long long)(1 << 20) * ((1 << 20) - 1) / 2,
	   "both halves summed: %llu", a.total + b.total);
	ok(!j.running, "waited: not running");
	parallel__wait(&j);
	is_int(a.calls, 1, "a second wait runs nothing");
	memset(&never, 0, sizeof(never));
	parallel__wait(&never);
	ok(!never.running, "a zeroed job never started: the wait returns");
}

int main(void)
{
	test_each();
	test_job();
	return done_testing();
}
