/*
 * rand-recurse: the worst case for a call-stack trie (issue 14, item 11).
 * Sixteen functions call each other in a pseudo-random order (xorshift,
 * fixed seed: the same run every time) to a depth of 8 to 127, then spin
 * at the leaf: almost every sample at 20 kHz has a stack no other sample
 * has, so an aggregate grows as the samples do.  make bench records it
 * with perf and with mmprof and compares memory and file sizes.
 *
 *   rand-recurse [-s SECONDS]     (default 3)
 *
 * Built with frame pointers by the Makefile's bench rule; prints
 * "rand-recurse.calls: N" at exit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t (*step_fn)(unsigned depth);

static uint64_t rng = 88172645463325252ull;
static volatile uint64_t sink;
static step_fn steps[16];

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static __attribute__((noinline, noclone)) uint64_t leaf(void)
{
	uint64_t x = 0;
	unsigned i;

	for (i = 0; i < 2000; i++)
		x += i * rng;
	return x;
}

/* Each adds after its call so that the call is not a tail call (one frame each). */
#define STEP(n) \
	static __attribute__((noinline, noclone)) uint64_t step##n(unsigned d) \
	{ \
		uint64_t r = d ? steps[next() & 15](d - 1) : leaf(); \
		sink += r; \
		return r + n; \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const step_fn all[16] = {
		step0, step1, step2, step3, step4, step5, step6, step7,
		step8, step9, step10, step11, step12, step13, step14, step15,
	};
	double secs = 3, end;
	uint64_t calls = 0;

	if (argc == 3 && !strcmp(argv[1], "-s"))
		secs = atof(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: rand-recurse [-s SECONDS]\n");
		return 2;
	}
	memcpy(steps, all, sizeof(steps));
	end = now() + secs;
	while (now() < end) {
		steps[next() & 15](8 + (unsigned)(next() % 120));
		calls++;
	}
	printf("rand-recurse.calls: %llu\n", (unsigned long long)calls);
	return 0;
}
