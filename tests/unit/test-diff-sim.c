/*
 * test-diff-sim: what `mmprof diff` finds on synthetic recordings with
 * known changes (diff-sim.h), measured against issue 21's targets.
 *
 *   test-diff-sim                 TAP: the generator's own checks, then the
 *                                 false-flag and power rates as diagnostics
 *   test-diff-sim --table [--trials N]   the power tables of
 *                                 Documentation/statistics.md (markdown)
 *   test-diff-sim --spread        the model's between-run spread, measured
 *                                 as tests/bench/diff-spread measures real
 *                                 recordings, to compare with them
 *
 * The rate assertions are issue 21's targets: A/A pairs flag a profile
 * row in at most 5 % of trials, a function appearing at 5 points with 3
 * runs of 200 samples a side is found in at least 95 %, a 1-point leaf
 * shift with 3 runs of 20 000 samples on a quiet machine
 * (sim_model_quiet) in at least 90 %.  Every trial has a fixed seed: the
 * rates are the same on every run and change only when diff's statistics
 * (or this model) do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "diff-sim.h"

#define TREE_SEED 21
#define TREE_NODES 600
#define TREE_FNS 300
#define TREE_ZIPF 1.1

/* A rate and its 95 % Wilson interval, as a diagnostic line. */
static void diag_rate(const char *what, int k, int n)
{
	double p = n ? (double)k / n : 0, z = 1.96, den = 1 + z * z / n;
	double mid = (p + z * z / (2.0 * n)) / den;
	double half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / den;

	printf("# %-58s %4d/%-4d = %5.1f %%  (95 %% CI %.1f-%.1f %%)\n", what, k, n, 100 * p,
	       100 * (mid - half), 100 * (mid + half));
}

/* ---- the generator's own checks (these assert always) ---- */

static double run_value(const struct sim_run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->items[i].key, key))
			return r->items[i].value;
	return 0;
}

static void test_tree(const struct sim_tree *t)
{
	static const struct sim_model none = { 0 };
	struct sim_work w;
	struct sim_run run;
	struct sim_rng r;
	double self = 0, cut, min_ct = 1e9;
	int i, recursive = 0, shared = 0, *uses;
	size_t k, nct = 0, bad = 0;

	uses = xcalloc((size_t)t->nr_fn, sizeof(*uses));
	for (i = 0; i < t->nr; i++) {
		if (t->nodes[i].parent >= 0 && sim_tree__on_path(t, t->nodes[i].parent, t->nodes[i].fn))
			recursive++;
		if (uses[t->nodes[i].fn]++ == 1)
			shared++;
	}
	free(uses);
	ok(t->nr_fn >= 250 && t->nr >= TREE_NODES, "tree: %d functions in %d calling contexts",
	   t->nr_fn, t->nr);
	is_int(recursive, 0, "tree: no function is its own caller");
	ok(shared >= 20, "tree: %d functions are reached from more than one caller", shared);

	sim_rng__seed(&r, 1);
	sim_work__init(&w, t);
	sim__run(t, &none, NULL, 20000, &r, &w, &run);
	is_int((long)run.samples.n, 20000, "run: no length jitter without a model: 20000 samples");
	cut = 100.0 * floor(run.samples.n * KEYS_CALLTRACE_CUT / 100) / run.samples.n;
	for (k = 0; k < run.nr; k++) {
		const char *key = run.items[k].key;

		if (!strncmp(key, "perf-profile.self.", 18))
			self += run.items[k].value;
		if (!strncmp(key, "perf-profile.calltrace.", 23)) {
			nct++;
			if (run.items[k].value < min_ct)
				min_ct = run.items[k].value;
		}
		if (!strncmp(key, "perf-profile.children.", 22)) {
			char sk[256];

			snprintf(sk, sizeof(sk), "perf-profile.self.%s", key + 22);
			if (run_value(&run, sk) > run.items[k].value + 1e-9)
				bad++;
		}
	}
	is_dbl(self, 100, 1e-6, "run: self shares add up to 100");
	is_dbl(run_value(&run, "perf-profile.children.cpu-clock._start"), 100, 1e-9,
	       "run: every sample is under _start");
	is_int(bad, 0, "run: no function's self share exceeds its children share");
	ok(nct >= 10 && min_ct >= cut - 1e-9, "run: %zu calltrace keys, none under the %.2f cut (min %.3f)",
	   nct, cut, min_ct);
	is_dbl(run_value(&run, "perf-profile.children.cpu-clock.sim_work_loop"), 22, 1.5,
	       "run: sim_work_loop holds its 22 %");
	is_dbl(run_value(&run, "perf-profile.self.cpu-clock.sim_leaf_x"), 0, 0,
	       "run: sim_leaf_x is absent on the base side");
	is_str(run.samples.event, "cpu-clock", "run: samples are cpu-clock's");
	free(run.items);
	sim_work__release(&w);
}

/* The variance of leaf a's share over many runs against what the model says. */
static void test_noise(const struct sim_tree *t)
{
	static const struct sim_model none = { 0 };
	const struct sim_model lognormal = { .spread_cv1 = 0.1, .spread_slope = 0,
					     .spread_min = 0, .spread_max = 1 };
	const struct sim_model *models[2] = { &none, &lognormal };
	struct sim_work w;
	int m, i, nruns = 400;

	sim_work__init(&w, t);
	for (m = 0; m < 2; m++) {
		struct sim_rng r;
		double sum = 0, ss = 0, mean, var, want, n = 2000, p = 0.11;

		sim_rng__seed(&r, 7 + (uint64_t)m);
		for (i = 0; i < nruns; i++) {
			struct sim_run run;
			double v;

			sim__run(t, models[m], NULL, n, &r, &w, &run);
			v = run_value(&run, "perf-profile.self.cpu-clock.sim_leaf_a");
			sum += v;
			ss += v * v;
			free(run.items);
		}
		mean = sum / nruns;
		var = (ss - nruns * mean * mean) / (nruns - 1);
		/* binomial, plus (with the factor) about (0.1 p)^2 less what renormalising absorbs */
		want = 1e4 * p * (1 - p) / n + (m ? 1e4 * 0.01 * p * p * (1 - p) * (1 - p) : 0);
		ok(fabs(var / want - 1) < 0.25, "noise: leaf a's variance over %d runs of %.0f samples, %s: "
		   "%.3f, model %.3f", nruns, n, m ? "10 % lognormal factor" : "sampling only", var, want);
		is_dbl(mean, 11, 0.1, m ? "noise: the factor keeps the mean share" : "noise: mean share 11 %");
	}
	sim_work__release(&w);
}

/* ---- the rates ---- */

static void check_rate(const char *what, int k, int n, double bound, bool at_most)
{
	char name[256];
	bool pass = at_most ? k <= bound * n : k >= bound * n;

	diag_rate(what, k, n);
	snprintf(name, sizeof(name), "%s: %s %.0f %%", what, at_most ? "at most" : "at least", 100 * bound);
	ok(pass, "%s", name);
}

static void test_rates(const struct sim_tree *t)
{
	const struct sim_model *m = &sim_model_measured;
	static const struct sim_case aa[] = {
		{ "aa", { 0, 0 }, 3, 3, 200, 200 },
		{ "aa", { 0, 0 }, 3, 3, 2000, 2000 },
		{ "aa", { 0, 0 }, 3, 3, 20000, 20000 },
		{ "aa", { 0, 0 }, 3, 3, 1300, 176 },
	};
	const struct sim_case appear = { "appear", { 0, 5 }, 3, 3, 200, 200 };
	const struct sim_case shift = { "shift", { 1, 0 }, 3, 3, 20000, 20000 };
	const struct sim_case thp = { "appear", { 0, 5 }, 3, 3, 1300, 176 };
	const struct sim_case huge = { "appear", { 0, 11 }, 5, 5, 2000, 2000 };
	struct sim_result res;
	char what[160];
	size_t i;

	for (i = 0; i < sizeof(aa) / sizeof(aa[0]); i++) {
		sim__trials(t, m, &aa[i], 200, &res);
		snprintf(what, sizeof(what), "A/A %dx%.0f vs %dx%.0f: perf-profile false flag", aa[i].nb,
			 aa[i].n_base, aa[i].nn, aa[i].n_new);
		check_rate(what, res.aa_flag, res.trials, 0.05, true);
		snprintf(what, sizeof(what), "A/A %dx%.0f vs %dx%.0f: other-key false flag", aa[i].nb,
			 aa[i].n_base, aa[i].nn, aa[i].n_new);
		diag_rate(what, res.other_flag, res.trials);
		snprintf(what, sizeof(what), "A/A %dx%.0f vs %dx%.0f: trials with a disturbed run",
			 aa[i].nb, aa[i].n_base, aa[i].nn, aa[i].n_new);
		diag_rate(what, res.disturbed, res.trials);
		if (SIM_NEW_API) {
			printf("#   can't tell: %ld of %ld non-significant perf-profile rows (%.1f %%); "
			       "sim_leaf_a's detectable change %.2f points\n", res.cant_tell_rows,
			       res.same_rows, res.same_rows ? 100.0 * res.cant_tell_rows / res.same_rows : 0,
			       res.mde_n ? res.mde_sum / res.mde_n : NAN);
			printf("#   disturbed run named in %d of %d trials with one, in %d of %d without\n",
			       res.named_disturbed, res.disturbed, res.named_clean,
			       res.trials - res.disturbed);
		}
	}

	sim__trials(t, m, &appear, 200, &res);
	check_rate("appear 0->5 points, 3x200 a side: found", res.found, res.trials, 0.95, false);
	diag_rate("appear 0->5 points, 3x200 a side: unmoved perf-profile flag", res.aa_flag, res.trials);

	/*
	 * At the measured spread a lone 1-point move of an 11 % leaf is about
	 * 2 standard errors at 3 x 20 000 (statistics.md): no test that
	 * controls the FDR over 600 keys finds it 90 % of the time.  The
	 * target is asserted on the quiet machine; the measured model's rate
	 * is printed.
	 */
	sim__trials(t, &sim_model_quiet, &shift, 100, &res);
	check_rate("leaf shift +1 point, 3x20000 a side, quiet machine: found", res.found, res.trials,
		   0.90, false);
	diag_rate("leaf shift +1 point, 3x20000, quiet: unmoved perf-profile flag", res.aa_flag,
		  res.trials);
	sim__trials(t, m, &shift, 100, &res);
	diag_rate("leaf shift +1 point, 3x20000 a side, measured spread: found", res.found, res.trials);
	diag_rate("leaf shift +1 point, 3x20000, measured: unmoved perf-profile flag", res.aa_flag,
		  res.trials);

	sim__trials(t, m, &thp, 200, &res);
	diag_rate("appear 0->5 points, base 3x1300, new 3x176 (THP): found", res.found, res.trials);

	/* the harness can see a change at all: this one any test finds */
	sim__trials(t, m, &huge, 50, &res);
	ok(res.found >= 45, "harness: appear 0->11 points with 5x2000 a side found in %d/%d trials",
	   res.found, res.trials);
}

/* ---- --table ---- */

static const double table_samples[] = { 200, 2000, 6400, 20000 };
static const int table_runs[] = { 2, 3, 5, 10 };
#define NS (sizeof(table_samples) / sizeof(table_samples[0]))
#define NR (sizeof(table_runs) / sizeof(table_runs[0]))

/* A power table's head: the runs column, then one column per sample count. */
static void table_head(void)
{
	size_t si;

	printf("| runs a side |");
	for (si = 0; si < NS; si++)
		printf(" %.0f samples |", table_samples[si]);
	printf("\n|---|");
	for (si = 0; si < NS; si++)
		printf("---|");
	printf("\n");
}

static void table(const struct sim_tree *t, int trials)
{
	static const struct sim_case kinds[] = {
		{ "aa", { 0, 0 }, 0, 0, 0, 0 },
		{ "shift", { 0.5, 0 }, 0, 0, 0, 0 },
		{ "shift", { 1, 0 }, 0, 0, 0, 0 },
		{ "shift", { 2, 0 }, 0, 0, 0, 0 },
		{ "shift", { 5, 0 }, 0, 0, 0, 0 },
		{ "appear", { 0, 5 }, 0, 0, 0, 0 },
	};
	struct sim_result res[NR][NS];
	size_t k, ri, si;
	time_t t0 = time(NULL);

	printf("Trials per cell: %d; model: lognormal sigma %.2f*p^%.1f clamped [%.2f, %.2f], "
	       "disturbed run p=%.2f at %gx sigma, run length CV %.2f; tree seed %d, %d contexts, "
	       "%d functions.\n\n", trials, sim_model_measured.spread_cv1,
	       sim_model_measured.spread_slope, sim_model_measured.spread_min,
	       sim_model_measured.spread_max, sim_model_measured.disturb_p,
	       sim_model_measured.disturb_mult, sim_model_measured.length_cv, TREE_SEED, t->nr,
	       t->nr_fn);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		bool aa = !strcmp(kinds[k].name, "aa");

		for (ri = 0; ri < NR; ri++)
			for (si = 0; si < NS; si++) {
				struct sim_case c = kinds[k];

				c.nb = c.nn = table_runs[ri];
				c.n_base = c.n_new = table_samples[si];
				sim__trials(t, &sim_model_measured, &c, trials, &res[ri][si]);
			}
		if (aa)
			printf("A/A: share of trials flagging at least one perf-profile row "
			       "(other keys in brackets)\n\n");
		else if (kinds[k].change.appear > 0)
			printf("Power, sim_leaf_x appearing 0 -> %g points (children row flagged up); "
			       "false flags of unmoved rows in brackets\n\n", kinds[k].change.appear);
		else
			printf("Power, leaf shift +%g points (11 -> %g, children row flagged up); "
			       "false flags of unmoved rows in brackets\n\n", kinds[k].change.shift,
			       11 + kinds[k].change.shift);
		table_head();
		for (ri = 0; ri < NR; ri++) {
			printf("| %d |", table_runs[ri]);
			for (si = 0; si < NS; si++) {
				const struct sim_result *r = &res[ri][si];
				double n = r->trials ? r->trials : 1;

				if (aa)
					printf(" %.1f %% (%.1f %%) |", 100 * r->aa_flag / n, 100 * r->other_flag / n);
				else
					printf(" %.0f %% (%.1f %%) |", 100 * r->found / n, 100 * r->aa_flag / n);
			}
			printf("\n");
		}
		printf("\n");
		if (aa && SIM_NEW_API) {
			printf("A/A: \"can't tell\" among the non-significant perf-profile rows; "
			       "sim_leaf_a's (11 %%) detectable change in points in brackets\n\n");
			table_head();
			for (ri = 0; ri < NR; ri++) {
				printf("| %d |", table_runs[ri]);
				for (si = 0; si < NS; si++) {
					const struct sim_result *r = &res[ri][si];

					printf(" %.0f %% (%.2f) |", r->same_rows ? 100.0 * r->cant_tell_rows / r->same_rows : 0,
					       r->mde_n ? r->mde_sum / r->mde_n : NAN);
				}
				printf("\n");
			}
			printf("\n");
		}
		fflush(stdout);
	}
	{
		/* the THP case: unequal run lengths */
		static const struct sim_case uneq[] = {
			{ "aa", { 0, 0 }, 3, 3, 1300, 176 },
			{ "appear", { 0, 5 }, 3, 3, 1300, 176 },
			{ "appear", { 0, 11 }, 3, 3, 1300, 176 },
		};
		printf("Unequal run lengths (base 3 runs of ~1300 samples, new 3 of ~176)\n\n"
		       "| case | rate |\n|---|---|\n");
		for (k = 0; k < sizeof(uneq) / sizeof(uneq[0]); k++) {
			struct sim_result r;

			sim__trials(t, &sim_model_measured, &uneq[k], trials, &r);
			if (!strcmp(uneq[k].name, "aa"))
				printf("| A/A, any perf-profile row flagged | %.1f %% |\n",
				       100.0 * r.aa_flag / r.trials);
			else
				printf("| appear 0 -> %g points, found | %.0f %% |\n", uneq[k].change.appear,
				       100.0 * r.found / r.trials);
		}
	}
	printf("\n(%ld s)\n", (long)(time(NULL) - t0));
}

/* ---- --spread: the model measured as diff-spread measures recordings ---- */

static void spread(const struct sim_tree *t)
{
	static const double lo[] = { 0.05, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100.01 };
	enum { NB = 9, RUNS = 6, FILES = 20 };
	double ex[2][NB] = { { 0 } };
	int cnt[2][NB] = { { 0 } };
	struct sim_work w;
	int f, fam, b;

	sim_work__init(&w, t);
	for (f = 0; f < FILES; f++) {
		struct sim_run runs[RUNS];
		struct sim_rng r;
		int i, id;

		sim_rng__seed(&r, 1000 + (uint64_t)f);
		for (i = 0; i < RUNS; i++)
			sim__run(t, &sim_model_measured, NULL, 8000, &r, &w, &runs[i]);
		for (fam = 0; fam < 2; fam++)
			for (id = 0; id < t->nr_fn; id++) {
				const char *key = t->keys[fam ? t->children_id[id] : t->self_id[id]];
				double v[RUNS], mean = 0, ss = 0, bin = 0;

				for (i = 0; i < RUNS; i++)
					mean += (v[i] = run_value(&runs[i], key)) / RUNS;
				for (b = 0; b < NB && !(mean >= lo[b] && mean < lo[b + 1]); b++)
					;
				if (b == NB)
					continue;
				for (i = 0; i < RUNS; i++) {
					ss += (v[i] - mean) * (v[i] - mean) / (RUNS - 1);
					bin += 1e4 * (mean / 100) * (1 - mean / 100) / runs[i].samples.n / RUNS;
				}
				ex[fam][b] += (ss - bin) / (mean * mean);
				cnt[fam][b]++;
			}
		for (i = 0; i < RUNS; i++)
			free(runs[i].items);
	}
	sim_work__release(&w);
	printf("model: %d recordings of %d runs x ~8000 samples\n  %-9s %-12s %6s %13s %9s\n", FILES,
	       RUNS, "family", "share %", "keys", "excess CV^2", "excess CV");
	for (fam = 0; fam < 2; fam++)
		for (b = 0; b < NB; b++) {
			char range[32];
			double e;

			if (!cnt[fam][b])
				continue;
			e = ex[fam][b] / cnt[fam][b];
			snprintf(range, sizeof(range), "%g-%g", lo[b], b + 1 < NB ? lo[b + 1] : 100);
			printf("  %-9s %-12s %6d %13.5f %9.3f\n", fam ? "children" : "self", range,
			       cnt[fam][b], e, e > 0 ? sqrt(e) : 0.0);
		}
}

int main(int argc, char **argv)
{
	struct sim_tree t;
	int trials = 200, i;
	bool want_table = false, want_spread = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--table"))
			want_table = true;
		else if (!strcmp(argv[i], "--spread"))
			want_spread = true;
		else if (!strcmp(argv[i], "--trials") && i + 1 < argc)
			trials = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: test-diff-sim [--table [--trials N] | --spread]\n");
			return 129;
		}
	}
	sim_tree__build(&t, TREE_SEED, TREE_NODES, TREE_FNS, TREE_ZIPF);
	if (want_table || want_spread) {
		if (want_spread)
			spread(&t);
		if (want_table)
			table(&t, trials > 0 ? trials : 200);
		sim_tree__release(&t);
		return 0;
	}
	test_tree(&t);
	test_noise(&t);
	test_rates(&t);
	sim_tree__release(&t);
	return done_testing();
}
