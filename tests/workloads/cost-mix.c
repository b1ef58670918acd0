/*
 * cost-mix: a fixed mix of CPU work per operation, split between two
 * functions by loop counts, so that the cost per op of one function can be
 * raised by a known factor while its share of the profile does not move
 * (the regression perf-profile shares miss, issue 16).
 *
 * One op runs cost_mix_hot for --hot N rounds and cost_mix_other for
 * --other M rounds of the same arithmetic.  Doubling both doubles every
 * function's cost per op and halves the ops per second, while each share
 * stays where it was (N / (N + M) for hot): the attribution must name
 * cost_mix_hot with +100 % of its base cost per op, and the shares
 * (perf-profile.self.*.cost_mix_hot) stay within a point.
 */
#include "common.h"

/*
 * A round: a dependent chain the compiler cannot fold, the same cost in
 * both functions; k differs between them so that the linker's and GCC's
 * identical code folding cannot make them one function.
 */
static inline __attribute__((always_inline)) uint64_t cost_mix_round(uint64_t x, uint64_t k)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x + k;
}

WL_NAMED static uint64_t cost_mix_hot(uint64_t x, uint64_t rounds)
{
	for (uint64_t i = 0; i < rounds; i++) {
		x = cost_mix_round(x, 1);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

WL_NAMED static uint64_t cost_mix_other(uint64_t x, uint64_t rounds)
{
	for (uint64_t i = 0; i < rounds; i++) {
		x = cost_mix_round(x, 3);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static volatile uint64_t cost_mix_sink;

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "cost-mix" };
	uint64_t hot = 1000, other = 9000, ops = 0, x = 88172645463325252ULL;
	bool cpu_rate = false;
	const struct wl_opt own[] = {
		{ "hot", 0, WL_U64, &hot, "N", "rounds of cost_mix_hot per op (default 1000)" },
		{ "other", 0, WL_U64, &other, "M", "rounds of cost_mix_other per op (default 9000)" },
		{ "cpu-rate", 0, WL_FLAG, &cpu_rate, NULL,
		  "ops_per_sec over this process's CPU time, not wall time (a rate the rest of the machine does not move)" },
		{ 0 }
	};
	struct timespec cpu0, cpu1;
	double elapsed;

	wl_parse(&r, "Per op, N rounds of arithmetic in cost_mix_hot and M in cost_mix_other:\n"
		 "a known cost per op per function (Documentation/cost-per-op.md).", own, argc, argv);
	if (!hot || !other)
		wl_die(&r, "--hot and --other must be at least 1");
	r.start = wl_now();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
	while (!wl_done(&r, ops)) {
		x = cost_mix_hot(x, hot);
		x = cost_mix_other(x, other);
		ops++;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
	elapsed = cpu_rate ? (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9
			   : wl_now() - r.start;
	wl_metric_u64(&r, "ops", ops);
	wl_metric_dbl(&r, "ops_per_sec", ops / elapsed);
	cost_mix_sink = x;	/* the result is used: the loops are no dead code */
	return wl_finish(&r);
}
