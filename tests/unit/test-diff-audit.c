/*
 * test-diff-audit: the problems an audit of `mmprof diff` found (issue 4),
 * each pinned by a test that failed before its fix:
 *   - a row that is 0 on both sides printed "-100.0%" (the robot's 1e-100
 *     zero base in the numerator too);
 *   - tracepoint histogram buckets named by addresses (which ASLR moves
 *     every run) were tested, and as ~100 new/gone keys per diff they
 *     swamped the tracepoint family's FDR: a real 0 -> 3600 order-9 row
 *     came out "same";
 *   - a perf-profile row of one sample in every run against none (0.102 %
 *     x3 vs 0 x3 at -F 1000) was "new" with q=1e-4: Welch with zero
 *     variance on both sides calls any difference certain;
 *   - against a file that never measured a family (a perf.data import has
 *     no perf-stat, meminfo, proc-vmstat or time keys) every key of it
 *     read as gone, -100 %.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "run-keys.h"
#include "mmprof/diff.h"
#include "mmprof/xalloc.h"


/* samples: per run, the cpu-clock samples behind its perf-profile keys (NULL: unknown) */
static int compute_n(struct diff *d, struct run_keys *runs, size_t nb, size_t nn,
		     const struct diff_opts *o, const double *samples)
{
	struct diff_run dr[16] = { 0 };
	struct diff_samples ds[16];
	size_t i;

	for (i = 0; i < nb + nn; i++) {
		dr[i].items = runs[i].items;
		dr[i].nr = runs[i].nr;
		if (samples) {
			ds[i].event = "cpu-clock";
			ds[i].n = samples[i];
			dr[i].samples = &ds[i];
			dr[i].nr_samples = 1;
		}
	}
	return diff__compute(d, dr, nb, dr + nb, nn, o);
}

static int compute(struct diff *d, struct run_keys *runs, size_t nb, size_t nn,
		   const struct diff_opts *o)
{
	return compute_n(d, runs, nb, nn, o, NULL);
}

static uint64_t rng = 88172645463325252ULL;

static double urand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * The audit's rows: 3 runs a side of ~980 samples; handle_mm_fault has one
 * sample in every new run and none in the base, another function 0, 0, 0
 * against 2, 2, 2.  A real change (5 % -> 8 % of the samples, counts as
 * sampled) must still be found.
 */
static void test_few_samples(void)
{
	static const double n[6] = { 980, 975, 982, 979, 981, 977 };
	static const double split[6] = { 49, 50, 48, 78, 80, 79 };
	struct run_keys r[6] = { { 0 } };
	const struct diff_row *x;
	struct diff d;
	size_t i;

	for (i = 0; i < 6; i++) {
		if (i >= 3) {
			rk_add(&r[i], "perf-profile.self.cpu-clock.handle_mm_fault", 100.0 / n[i]);
			rk_add(&r[i], "perf-profile.children.cpu-clock.handle_mm_fault", 200.0 / n[i]);
		}
		rk_add(&r[i], "perf-profile.children.cpu-clock.__split_huge_pmd", 100 * split[i] / n[i]);
		rk_add(&r[i], "perf-profile.children.cpu-clock.main", 90);
	}
	is_int(compute_n(&d, r, 3, 3, NULL, n), 0, "few samples: computed");
	x = diff__find(&d, "perf-profile.self.cpu-clock.handle_mm_fault");
	ok(x && !diff_row__changed(x) && (x->flags & DIFF_TESTED) && x->p > 0.05,
	   "1 sample a run vs none: not significant (p=%.2g)", x ? x->p : NAN);
	x = diff__find(&d, "perf-profile.children.cpu-clock.handle_mm_fault");
	ok(x && !diff_row__changed(x), "2 samples a run vs none: not significant (p=%.2g)",
	   x ? x->p : NAN);
	x = diff__find(&d, "perf-profile.children.cpu-clock.__split_huge_pmd");
	ok(x && x->verdict == DIFF_UP, "5 %% -> 8 %% of ~980 samples: up (q=%.2g)", x ? x->q : NAN);
	diff__release(&d);
	/* without sample counts the test has only the runs to go by (as before) */
	compute(&d, r, 3, 3, NULL);
	x = diff__find(&d, "perf-profile.children.cpu-clock.__split_huge_pmd");
	ok(x && x->verdict == DIFF_UP, "no sample counts: the real change is still up");
	diff__release(&d);
	rk_release(r, 6);

	/* one run a side: the threshold must also exceed the sampling noise */
	rk_add(&r[0], "perf-profile.children.cpu-clock.a", 100 * 10 / 1000.0);
	rk_add(&r[1], "perf-profile.children.cpu-clock.a", 100 * 16 / 1000.0);
	rk_add(&r[0], "perf-profile.children.cpu-clock.b", 100 * 100 / 1000.0);
	rk_add(&r[1], "perf-profile.children.cpu-clock.b", 100 * 250 / 1000.0);
	compute_n(&d, r, 1, 1, NULL, (const double[]){ 1000, 1000 });
	x = diff__find(&d, "perf-profile.children.cpu-clock.a");
	ok(x && x->verdict == DIFF_SAME, "1 run: 10 -> 16 samples (+0.6 points) is sampling noise");
	x = diff__find(&d, "perf-profile.children.cpu-clock.b");
	ok(x && x->verdict == DIFF_CHANGED, "1 run: 100 -> 250 samples is changed?");
	diff__release(&d);
	rk_release(r, 2);
}

/*
 * A/A at a low sample count: 200 diffs of 3 runs a side, each run 1000
 * samples drawn from one distribution over 60 functions, most of them rare
 * (0.05 .. 0.5 % of the samples: 0 to a few samples a run).  The share of
 * diffs flagging any row must stay near alpha; Welch without the sampling
 * floor flags a large share of them (equal counts like 1, 1, 1 vs 0, 0, 0).
 */
static void test_aa_sampled(void)
{
	enum { FUNCS = 60, RUNS = 6, SEEDS = 200, N = 1000 };
	double prob[FUNCS], cum[FUNCS], sum = 0, count[FUNCS], nsamp[RUNS];
	struct run_keys r[RUNS] = { { 0 } };
	int seed, f, i, k, flagged = 0, flagged_plain = 0;
	char key[64];

	for (f = 0; f < FUNCS; f++) {
		prob[f] = f < 4 ? 20 : 0.05 + 0.45 * (f % 10) / 9.0;
		sum += prob[f];
	}
	for (f = 0; f < FUNCS; f++)
		cum[f] = (f ? cum[f - 1] : 0) + prob[f] / sum;
	for (seed = 0; seed < SEEDS; seed++) {
		struct diff d;
		size_t j;
		bool any = false, any_plain = false;

		for (i = 0; i < RUNS; i++) {
			memset(count, 0, sizeof(count));
			for (k = 0; k < N; k++) {
				double u = urand();

				for (f = 0; f < FUNCS - 1 && u > cum[f]; f++)
					;
				count[f]++;
			}
			nsamp[i] = N;
			for (f = 0; f < FUNCS; f++)
				if (count[f]) {
					snprintf(key, sizeof(key), "perf-profile.self.cpu-clock.f%d", f);
					rk_add(&r[i], key, 100 * count[f] / N);
				}
		}
		compute_n(&d, r, 3, 3, NULL, nsamp);
		for (j = 0; j < d.nr; j++)
			any |= diff_row__changed(&d.rows[j]);
		diff__release(&d);
		compute(&d, r, 3, 3, NULL);
		for (j = 0; j < d.nr; j++)
			any_plain |= diff_row__changed(&d.rows[j]);
		diff__release(&d);
		flagged += any;
		flagged_plain += any_plain;
		rk_release(r, RUNS);
	}
	ok(flagged <= SEEDS / 10, "A/A at 1000 samples a run: %d of %d diffs flag a row (<= 10 %%)",
	   flagged, SEEDS);
	printf("# without sample counts (the test alone): %d of %d\n", flagged_plain, SEEDS);
}



/*
 * The audit's case: 3 runs a side of --mm tracepoints; page_fault_user by
 * 2 MiB region, 16 regions a run at addresses of their own (ASLR), plus
 * the histogram's "other"; kmem:mm_page_alloc by order, order 9 from
 * nothing to ~3600 a run.
 */
static void test_address_buckets(void)
{
	static const double order9[6] = { 0, 0, 0, 3200, 3856, 3920 };
	struct run_keys r[6] = { { 0 } };
	const struct diff_row *x, **rows;
	struct outbuf b = { 0 };
	struct diff d;
	char key[128];
	size_t i, n, listed = 0;
	int k;

	for (i = 0; i < 6; i++) {
		for (k = 0; k < 16; k++) {
			snprintf(key, sizeof(key), "tracepoint.exceptions:page_fault_user.address.0x%llx",
				 0x7f0000000000ULL + ((unsigned long long)(i * 16 + k) << 21) * 977);
			rk_add(&r[i], key, 400 - 20 * k);
		}
		rk_add(&r[i], "tracepoint.exceptions:page_fault_user.address.other", 90 + (double)i);
		rk_add(&r[i], "tracepoint.exceptions:page_fault_user.count", 6000 + 10 * (double)i);
		rk_add(&r[i], "tracepoint.kmem:mm_page_alloc.order.0", 50000 + 100 * (double)(i % 3));
		if (order9[i] > 0)
			rk_add(&r[i], "tracepoint.kmem:mm_page_alloc.order.9", order9[i]);
	}
	ok(keykind__address("tracepoint.exceptions:page_fault_user.address.0x7f3a00000000") &&
	   !keykind__address("tracepoint.kmem:mm_page_alloc.order.9") &&
	   !keykind__address("tracepoint.exceptions:page_fault_user.address.other") &&
	   !keykind__address("tracepoint.x:y.address.0x") &&
	   !keykind__address("wl.address.0x10"), "keykind__address: tpstats' region buckets only");
	is_int(compute(&d, r, 3, 3, NULL), 0, "address buckets: computed");
	x = diff__find(&d, "tracepoint.kmem:mm_page_alloc.order.9");
	ok(x && x->verdict == DIFF_UP && x->q < 0.05, "order 9, 0 -> 3659 a run, p~0.004: up (q=%.2g)",
	   x ? x->q : NAN);
	is_int((int)d.nr_address, 6 * 16 + 1, "every address bucket and the histogram's other are flagged");
	x = diff__find(&d, "tracepoint.exceptions:page_fault_user.address.other");
	ok(x && (x->flags & DIFF_ADDRESS) && !(x->flags & DIFF_TESTED) && isnan(x->q) &&
	   !strcmp(diff_row__verdict_name(x), "address"), "the address histogram's other: not tested");
	x = diff__find(&d, "tracepoint.exceptions:page_fault_user.count");
	ok(x && !(x->flags & DIFF_ADDRESS) && (x->flags & DIFF_TESTED), "the event's count is compared");
	rows = diff__select(&d, DIFF_SELECT_DEFAULT, &n);
	for (i = 0; i < n; i++)
		listed += !!(rows[i]->flags & DIFF_ADDRESS);
	is_int((int)listed, 0, "no address bucket among the default rows");
	free(rows);
	rows = diff__select(&d, DIFF_SELECT_ALL, &n);
	diff__format(&b, &d, rows, n, DIFF_FORMAT_LKP, true);
	ok(b.s && strstr(b.s, "address.other  [address]\n"), "--all: labelled, not tested");
	free(rows);
	outbuf__release(&b);
	diff__release(&d);
	rk_release(r, 6);
}

/* A family one side did not measure at all is not compared, nor gated. */
static void test_one_side(void)
{
	struct run_keys r[6] = { { 0 } };
	const struct diff_row *x, **rows;
	struct outbuf b = { 0 };
	struct diff d;
	size_t i, n;

	for (i = 0; i < 6; i++) {
		rk_add(&r[i], "perf-profile.children.cpu-clock.main", 90 + (double)(i % 3));
		if (i < 3) {
			rk_add(&r[i], "perf-profile.children.cpu-clock.old_fn", 5 + 0.1 * (double)i);
			rk_add(&r[i], "perf-stat.ps.page-faults", 1e6 + 1e3 * (double)i);
			rk_add(&r[i], "thp-zap.time.elapsed_time", 1.0);
			rk_add(&r[i], "meminfo.AnonHugePages", 2048);
		} else {
			rk_add(&r[i], "tracepoint.kmem:mm_page_alloc.count", 100);
			rk_add(&r[i], "perf-profile.children.kmem-mm_page_alloc.__alloc_pages", 100);
			rk_add(&r[i], "perf-profile.self.cpu-clock.main", 40);
		}
	}
	compute(&d, r, 3, 3, NULL);
	x = diff__find(&d, "perf-profile.children.kmem-mm_page_alloc.__alloc_pages");
	ok(x && (x->flags & DIFF_ONE_SIDE), "an event sampled in new only: its perf-profile keys are one-side");
	x = diff__find(&d, "perf-profile.self.cpu-clock.main");
	ok(x && !(x->flags & DIFF_ONE_SIDE) && !strcmp(diff_row__verdict_name(x), "new"),
	   "a self key of an event both sides sampled: new, whatever the kind");
	x = diff__find(&d, "perf-stat.ps.page-faults");
	ok(x && (x->flags & DIFF_ONE_SIDE) && !diff_row__changed(x) && !(x->flags & DIFF_TESTED) &&
	   !strcmp(diff_row__verdict_name(x), "one-side"), "perf-stat only in base: one-side, not gone");
	x = diff__find(&d, "perf-profile.children.cpu-clock.old_fn");
	ok(x && !(x->flags & DIFF_ONE_SIDE) && x->verdict == DIFF_DOWN &&
	   !strcmp(diff_row__verdict_name(x), "gone"), "a key gone from a family both measured: gone");
	is_int((int)d.nr_one_side[0], 3, "three families measured in base only");
	ok(d.nr_one_side[0] == 3 && !strcmp(d.one_side[0][0], "perf-stat") &&
	   !strcmp(d.one_side[0][1], "thp-zap") && !strcmp(d.one_side[0][2], "meminfo"),
	   "named by their first key component");
	ok(d.nr_one_side[1] == 2 && !strcmp(d.one_side[1][0], "tracepoint.kmem:mm_page_alloc") &&
	   !strcmp(d.one_side[1][1], "perf-profile.*.kmem-mm_page_alloc"),
	   "and two in new only, each event its own family");
	rows = diff__select(&d, DIFF_SELECT_DEFAULT, &n);
	for (i = 0; i < n; i++)
		ok(!(rows[i]->flags & DIFF_ONE_SIDE), "default rows: %s is not one-side", rows[i]->key);
	free(rows);
	rows = diff__select(&d, DIFF_SELECT_ROBOT, &n);
	for (i = 0; i < n; i++)
		ok(!(rows[i]->flags & DIFF_ONE_SIDE), "robot rows: %s is not one-side", rows[i]->key);
	free(rows);
	diff__format(&b, &d, NULL, 0, DIFF_FORMAT_JSON, false);
	ok(b.s && strstr(b.s, "\"one_side_families\": {\"base\": [\"perf-stat\", \"thp-zap\", "
				 "\"meminfo\"], \"new\": [\"tracepoint.kmem:mm_page_alloc\", \"perf-profile.*.kmem-mm_page_alloc\"]}"),
	   "json: the families per side");
	outbuf__release(&b);
	diff__release(&d);
	rk_release(r, 6);
}

/* 0 -> 0 is no change, in the robot's table as anywhere else. */
static void test_zero_zero(void)
{
	struct outbuf b = { 0 };

	diff__lkp_row(&b, "proc-vmstat.thp_split_page", 0, 0, 0, 0, NULL, false);
	ok(b.s && !strstr(b.s, "-100.0%"), "0 -> 0: not -100 %%");
	is_str(b.s, "      0.00            +0.0%       0.00        proc-vmstat.thp_split_page\n",
	       "0 -> 0: printed as no change");
	b.len = 0;
	diff__lkp_row(&b, "proc-vmstat.thp_split_page", 4, 0, 0, 0, NULL, false);
	ok(b.s && strstr(b.s, "-100.0%"), "4 -> 0 is still -100 %%");
	outbuf__release(&b);
}

int main(void)
{
	test_zero_zero();
	test_address_buckets();
	test_few_samples();
	test_aa_sampled();
	test_one_side();
	return done_testing();
}
