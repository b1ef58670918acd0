/*
 * test-bisect: the sequential test (thresholds, a run's ratio, its clip,
 * the runs advice), the posterior (against a naive Bayes model that
 * multiplies every step's likelihood out per hypothesis), the state file
 * (round trip, a corrupt, foreign or absent file refused), the commits
 * to search read from a file, and a
 * simulated study of bisections of synthetic histories at realistic
 * spreads against a fixed 3-runs-a-step bisection (the figures of
 * Documentation/bisect.md; BISECT_STUDY=N runs N histories a cell and
 * prints the table).
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "mmprof/bisect.h"
#include "mmprof/sha256.h"

static void test_sprt(void)
{
	struct bisect_sprt t;
	struct bisect_model m = { 0 };
	double x[1];

	bisect_sprt__init(&t, 0.05, 0.05);
	is_dbl(t.upper, log(19), 1e-12, "upper threshold log((1-beta)/alpha)");
	is_dbl(t.lower, -log(19), 1e-12, "lower threshold log(beta/(1-alpha))");
	bisect_sprt__init(&t, 0, 0);
	is_dbl(t.upper, log(19), 1e-12, "zero rates mean the defaults");
	bisect_sprt__init(&t, 0.01, 0.1);
	is_dbl(t.upper, log(0.9 / 0.01), 1e-12, "asymmetric rates: upper");
	is_dbl(t.lower, log(0.1 / 0.99), 1e-12, "asymmetric rates: lower");
	bisect_sprt__init(&t, 0.05, 0.05);

	bisect_model__add(&m, "wl.ops_per_sec", 100, 80, 25, 1000000, 1000000);
	ok(bisect_key__llr(&m.keys[0], 100) < 0, "a run at the good mean leans good");
	ok(bisect_key__llr(&m.keys[0], 80) > 0, "a run at the bad mean leans bad");
	is_dbl(bisect_key__llr(&m.keys[0], 90), 0, 1e-6, "a run half way is no evidence");
	/* (x-100)^2 - (x-80)^2 over 2 var at x = 80: 400 / 50 = 8 */
	is_dbl(bisect_key__llr(&m.keys[0], 80), 8, 1e-3, "the normal ratio's value");
	x[0] = 80;
	is_dbl(bisect_model__run_llr(&m, &t, x), BISECT_RUN_CLIP * t.upper, 1e-12,
	       "a run is clipped to a share of the threshold");
	x[0] = 1e6;
	ok(bisect_model__run_llr(&m, &t, x) < t.upper, "no single run, however wild, decides alone");
	x[0] = -1e6;
	ok(bisect_model__run_llr(&m, &t, x) > t.lower, "nor the other way");
	is_int(bisect_sprt__decide(&t, 3.0), BISECT_BAD, "above upper: bad");
	is_int(bisect_sprt__decide(&t, -3.0), BISECT_GOOD, "below lower: good");
	is_int(bisect_sprt__decide(&t, 0.5), BISECT_MORE, "between: more runs");
	ok(bisect_model__more_runs(&m, &t, 1.77) == 1, "one clipped run short: one more");
	ok(bisect_model__more_runs(&m, &t, 0) == 2, "nothing yet, a wide separation: two");

	/* the means' own uncertainty: a side of 1 run doubles its variance */
	bisect_model__release(&m);
	bisect_model__add(&m, "k", 0, 10, 4, 1, 1000000000);
	is_dbl(bisect_key__llr(&m.keys[0], 0),
	       (-0.5 * log(4) - 100 / 8.0) - (-0.5 * log(8)), 1e-6, "good side of 1 run: variance 2 var");
	bisect_model__release(&m);
	ok(!m.keys && !m.nr, "release empties the model");
	bisect_model__release(&m);
}

/* The naive model: p_i proportional to the product over steps of f_s when i <= j_s. */
static void naive(size_t n, const size_t *j, const double *llr, size_t steps,
		  const struct bisect_sprt *t, double *p)
{
	double sum = 0;
	size_t i, s;

	for (i = 0; i < n; i++) {
		double lp = 0;

		for (s = 0; s < steps; s++)
			if (i <= j[s])
				lp += fmin(fmax(llr[s], 2 * t->lower), 2 * t->upper);
		p[i] = exp(lp);
		sum += p[i];
	}
	for (i = 0; i < n; i++)
		p[i] /= sum;
}

static uint64_t rng_state = 88172645463325252ULL;
static double urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double nrand(void)
{
	double u = urand(), v = urand();

	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

static void test_posterior(void)
{
	struct bisect_sprt t;
	struct bisect_posterior q;
	size_t a, b, i, k, j[40];
	double llr[40], p[64], worst = 0;

	bisect_sprt__init(&t, 0.05, 0.05);
	bisect_posterior__init(&q, 32);
	is_dbl(q.p[5], 1.0 / 32, 1e-15, "uniform at start");
	is_int(bisect_posterior__next(&q), 15, "first test at the median: commit 16 of 32");
	bisect_posterior__update(&q, &t, 15, 100);
	is_dbl(q.p[0] / q.p[31], 361, 1e-9, "a verdict counts ((1-beta)/alpha)^2 at most, however strong its sum");
	ok(bisect_posterior__next(&q) < 15, "bad at 15: the next test is older");
	bisect_posterior__release(&q);

	/* against the naive model, over random steps */
	for (k = 0; k < 200; k++) {
		size_t n = 2 + (size_t)(urand() * 60), steps = (size_t)(urand() * 40);

		bisect_posterior__init(&q, n);
		for (i = 0; i < steps; i++) {
			j[i] = (size_t)(urand() * (n - 1));
			llr[i] = (urand() - 0.5) * 10;
			bisect_posterior__update(&q, &t, j[i], llr[i]);
		}
		naive(n, j, llr, steps, &t, p);
		for (i = 0; i < n; i++)
			worst = fmax(worst, fabs(p[i] - q.p[i]));
		bisect_posterior__release(&q);
	}
	ok(worst < 1e-9, "posterior equals the naive product over 200 random histories (worst %.2g)", worst);

	/* a noiseless search with one wrong verdict still ends at the right commit */
	for (k = 0; k < 32; k++) {
		size_t truth = k, step = 0, found;
		long nx;

		bisect_posterior__init(&q, 32);
		while ((nx = bisect_posterior__next(&q)) >= 0 && step < 40) {
			bool bad = (size_t)nx >= truth;

			if (step == 1)
				bad = !bad;	/* the flaky step */
			bisect_posterior__update(&q, &t, (size_t)nx, bad ? t.upper : t.lower);
			step++;
			if (bisect_posterior__best(&q, &a, &b) >= 0.95)
				break;
		}
		bisect_posterior__best(&q, &a, &b);
		found = a;
		bisect_posterior__release(&q);
		if (found != truth) {
			ok(0, "one wrong verdict misled the search to %zu (truth %zu)", found, truth);
			break;
		}
	}
	ok(k == 32, "one wrong verdict at the second step: all 32 positions still found");

	/* skipped commits: never proposed, and merged into the answer's span */
	bisect_posterior__init(&q, 8);
	q.skipped[3] = true;
	bisect_posterior__update(&q, &t, 2, t.lower);
	bisect_posterior__update(&q, &t, 4, t.upper);
	bisect_posterior__update(&q, &t, 2, t.lower);
	bisect_posterior__update(&q, &t, 4, t.upper);
	ok(bisect_posterior__next(&q) != 3, "a skipped commit is not proposed");
	ok(bisect_posterior__best(&q, &a, &b) > 0.9 && a == 3 && b == 4,
	   "good at 2, bad at 4, 3 skipped: the answer is 3..4");
	bisect_posterior__release(&q);
	bisect_posterior__init(&q, 1);
	is_int(bisect_posterior__next(&q), -1, "one commit: nothing to test");
	bisect_posterior__release(&q);
}

/* A state file holding text is refused, its message saying want. */
static void refused(const char *path, const char *text, const char *want, const char *what)
{
	struct bisect_state r = { 0 };
	struct errmsg e;
	FILE *fp = fopen(path, "w");

	fputs(text, fp);
	fclose(fp);
	is_int(bisect_state__load(&r, path, &e), -EINVAL, what);
	ok(strstr(e.msg, want) != NULL, "%s is refused as %s: %s", what, want, e.msg);
	bisect_state__release(&r);
}

static void test_state(void)
{
	char dir[] = "/tmp/test-bisect.XXXXXX", path[256], buf[8192];
	struct bisect_state s = { 0 }, r = { 0 };
	struct bisect_judgement j = { .verdict = BISECT_MORE, .llr = 1.5, .runs = 2, .more = 1 };
	struct errmsg e;
	size_t commit, runs, i;
	char *files[] = { "/x/a.data" };
	FILE *fp;
	size_t len;

	ok(mkdtemp(dir) != NULL, "a scratch folder");
	snprintf(path, sizeof(path), "%s/state", dir);
	is_int(bisect_state__load(&r, path, &e), -ENOENT, "no state: -ENOENT");
	ok(strstr(e.msg, "mmprof bisect start") != NULL, "and says how to start: %s", e.msg);
	bisect_state__release(&r);

	strlist__add(&s.good, "/g.data");
	strlist__add(&s.bad, "st.db:abc123");
	strlist__add(&s.keys, "perf-profile.children.*.hot");
	s.alpha = 0.05, s.beta = 0.1, s.confidence = 0.95, s.budget = 8;
	for (i = 0; i < 16; i++) {
		snprintf(buf, sizeof(buf), "%040zx", i);
		strlist__add(&s.commits, buf);
	}
	bisect_state__init(&s);
	ok(bisect_state__next(&s, &commit, &runs) && commit == 7 && runs == BISECT_FIRST_RUNS,
	   "next: the median, %d runs", BISECT_FIRST_RUNS);
	bisect_state__apply(&s, &j, files, 1);
	ok(s.pending == 7 && s.pending_runs == 2 && s.pending_more == 1, "undecided within budget: pending");
	is_int(bisect_state__save(&s, path, &e), 0, "save");
	is_int(bisect_state__load(&r, path, &e), 0, "load");
	ok(r.pending == 7 && r.pending_runs == 2 && r.pending_files.nr == 1 && r.budget == 8 &&
	   r.beta == 0.1 && r.commits.nr == 16 && r.keys.nr == 1 && !strcmp(r.bad.items[0], "st.db:abc123"),
	   "round trip of the pending commit and settings");
	j.verdict = BISECT_BAD, j.llr = 3.1, j.runs = 3;
	bisect_state__apply(&r, &j, files, 1);
	ok(r.pending == -1 && r.nr_steps == 1 && r.steps[0].verdict == BISECT_BAD && r.steps[0].runs == 3 &&
	   r.data[7] && !strcmp(r.data[7], "/x/a.data\n/x/a.data"), "a verdict becomes a step with its files");
	is_int(bisect_state__runs(&r), 3, "runs spent");
	is_int(bisect_state__save(&r, path, &e), 0, "save again");
	bisect_state__release(&r);
	is_int(bisect_state__load(&r, path, &e), 0, "load again");
	ok(r.nr_steps == 1 && r.steps[0].llr == 3.1 && r.data[7], "the step and data survive");
	bisect_state__release(&r);

	fp = fopen(path, "r+");
	len = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[len] = '\0';
	*strstr(buf, "step 7 bad") = 'S';
	rewind(fp);
	fwrite(buf, 1, len, fp);
	fclose(fp);
	is_int(bisect_state__load(&r, path, &e), -EINVAL, "an edited state is refused");
	ok(strstr(e.msg, "corrupt") != NULL, "as corrupt: %s", e.msg);
	bisect_state__release(&r);
	refused(path, "[core]\n\tbare = false\n", "not an mmprof bisect state", "a foreign file");
	refused(path, "mmprof-bisect-state 1\ngood /g", "corrupt", "a torn state");
	{
		const char *body = "mmprof-bisect-state 1\ngood /g\nbad /b\nfrob 1\n";
		unsigned char d[SHA256_LEN];
		char hex[2 * SHA256_LEN + 1], text[512];

		sha256__digest(body, strlen(body), d);
		sha256__hex(d, hex);
		snprintf(text, sizeof(text), "%ssha256 %s\n", body, hex);
		refused(path, text, "line 4 does not read", "an unknown line under a good checksum");
	}
	bisect_state__release(&s);
	unlink(path);
	rmdir(dir);
}

/*
 * One synthetic bisection: n commits after the good end, the first bad
 * at truth; a run's value is normal around 1 (good) or 1 - delta (bad)
 * with spread sigma; the sides of 5 runs each give the model, as
 * bisect__judge reads it.  A run of the commit at step 'disturb' is off
 * by 4 spreads towards the wrong side.  Returns the commit found; *runs.
 */
struct sim {
	size_t n, side_runs;
	double delta, sigma;
	long disturb;
};

static void sim_model(const struct sim *c, struct bisect_model *m)
{
	double g[16], b[16], mg = 0, mb = 0, ss = 0;
	size_t i, k = c->side_runs;

	for (i = 0; i < k; i++) {
		g[i] = 1 + c->sigma * nrand();
		b[i] = 1 - c->delta + c->sigma * nrand();
		mg += g[i] / k;
		mb += b[i] / k;
	}
	for (i = 0; i < k; i++)
		ss += (g[i] - mg) * (g[i] - mg) + (b[i] - mb) * (b[i] - mb);
	ss /= 2 * k - 2;
	if (ss < 1e-4 * mg * mg)
		ss = 1e-4 * mg * mg;	/* judge.c's floor: 1 % of the mean */
	bisect_model__add(m, "score", mg, mb, ss, k, k);
}

static double sim_run(const struct sim *c, size_t commit, size_t truth, bool disturbed)
{
	bool bad = commit >= truth;
	double x = (bad ? 1 - c->delta : 1) + c->sigma * nrand();

	return disturbed ? x + (bad ? 4 : -4) * c->sigma : x;
}

static size_t sim_adaptive(const struct sim *c, size_t truth, size_t *runs)
{
	struct bisect_model m = { 0 };
	struct bisect_sprt t;
	struct bisect_posterior q;
	size_t a, b, step = 0;
	long nx;

	bisect_sprt__init(&t, BISECT_ALPHA, BISECT_BETA);
	sim_model(c, &m);
	bisect_posterior__init(&q, c->n);
	*runs = 0;
	while (bisect_posterior__best(&q, &a, &b) < BISECT_CONFIDENCE &&
	       (nx = bisect_posterior__next(&q)) >= 0 && step < 60) {
		double llr = 0, x;
		size_t used = 0, batch = BISECT_FIRST_RUNS, i;

		for (;;) {
			for (i = 0; i < batch; i++) {
				x = sim_run(c, (size_t)nx, truth, (long)step == c->disturb && !used && !i);
				llr += bisect_model__run_llr(&m, &t, &x);
			}
			used += batch;
			if (bisect_sprt__decide(&t, llr) != BISECT_MORE || used >= BISECT_BUDGET)
				break;
			batch = bisect_model__more_runs(&m, &t, llr);
			if (batch > BISECT_BUDGET - used)
				batch = BISECT_BUDGET - used;
		}
		*runs += used;
		bisect_posterior__update(&q, &t, (size_t)nx, llr);
		step++;
	}
	bisect_posterior__best(&q, &a, &b);
	bisect_posterior__release(&q);
	bisect_model__release(&m);
	return a;
}

/* git bisect with 3 runs a step: the mean of 3 against the midpoint of the sides' means. */
static size_t sim_fixed(const struct sim *c, size_t truth, size_t per_step, size_t *runs)
{
	struct bisect_model m = { 0 };
	size_t lo = 0, hi = c->n - 1, step = 0, i;

	sim_model(c, &m);
	*runs = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		double mean = 0;

		for (i = 0; i < per_step; i++)
			mean += sim_run(c, mid, truth, (long)step == c->disturb && !i) / per_step;
		*runs += per_step;
		if (fabs(mean - m.keys[0].bad) < fabs(mean - m.keys[0].good))
			hi = mid;
		else
			lo = mid + 1;
		step++;
	}
	bisect_model__release(&m);
	return lo;
}

/*
 * The study: per change (in spreads) and with or without a disturbed
 * run, the share of histories whose first bad commit the adaptive
 * bisection found and its runs, the same for git bisect at 3 runs a
 * step, and the fewest runs a step (3 to 12) at which git bisect finds
 * as many as the adaptive one, with its runs.
 */
static void study(size_t trials, bool print)
{
	static const double deltas[] = { 0.24, 0.36, 0.5 };
	static const long disturbs[] = { -1, 1 };
	size_t di, si;

	if (print)
		printf("# change/spread disturbed | adaptive: found %% runs | fixed 3: found %% runs | "
		       "fixed runs a step to find as many: K runs\n");
	for (si = 0; si < 2; si++)
		for (di = 0; di < 3; di++) {
			struct sim c = { .n = 32, .side_runs = 5, .delta = deltas[di], .sigma = 0.12,
					 .disturb = disturbs[si] };
			size_t k, K, ra, rf, okA = 0, okF = 0, sumA = 0, sumF = 0, okK = 0, sumK = 0;

			for (k = 0; k < trials; k++) {
				size_t truth = (size_t)(urand() * c.n);

				okA += sim_adaptive(&c, truth, &ra) == truth;
				sumA += ra;
				okF += sim_fixed(&c, truth, 3, &rf) == truth;
				sumF += rf;
			}
			for (K = 3; K <= 12; K++) {
				for (k = okK = sumK = 0; k < trials; k++) {
					size_t truth = (size_t)(urand() * c.n);

					okK += sim_fixed(&c, truth, K, &rf) == truth;
					sumK += rf;
				}
				if (okK >= okA)
					break;
			}
			if (print)
				printf("# %.1f %s | %.1f %.1f | %.1f %.1f | %s%zu %.1f\n", c.delta / c.sigma,
				       c.disturb >= 0 ? "yes" : "no", 100.0 * okA / trials,
				       (double)sumA / trials, 100.0 * okF / trials, (double)sumF / trials,
				       K > 12 ? ">" : "", K > 12 ? 12 : K, (double)sumK / trials);
			ok(okA >= okF, "spread 12 %%, change %.0f %%%s: adaptive finds %zu of %zu, fixed 3 "
			   "runs a step %zu", 100 * c.delta, si ? ", one run disturbed" : "", okA, trials, okF);
			ok(sumA < sumK, "and spends fewer runs (%.1f) than a fixed bisection that finds as "
			   "many (%s%zu runs a step, %.1f)", (double)sumA / trials, K > 12 ? ">" : "",
			   K > 12 ? 12 : K, (double)sumK / trials);
			if (di == 1 && si == 0)
				ok(sumA < sumF, "at 3 spreads: fewer runs (%.1f) than git bisect at 3 a step "
				   "(%.1f), finding %zu of %zu against %zu", (double)sumA / trials,
				   (double)sumF / trials, okA, trials, okF);
		}
}

/* The commits to search from a file: comments and blank lines skipped, fewer than 2 refused, A..B checked. */
static void test_commits(void)
{
	char path[] = "/tmp/test-bisect-commits.XXXXXX";
	struct strlist l = { 0 };
	struct errmsg e;
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");

	fputs("# oldest first\nc1\r\n\nc2\nc3\n", fp);
	fclose(fp);
	is_int(bisect__read_commits(NULL, path, &l, &e), 0, "commits: a file of three");
	ok(l.nr == 3 && !strcmp(l.items[0], "c1") && !strcmp(l.items[2], "c3"),
	   "commits: c1 (CRLF cut), c2, c3 in order, the comment and the blank line left out");
	strlist__release(&l);
	fp = fopen(path, "w");
	fputs("c1\n", fp);
	fclose(fp);
	is_int(bisect__read_commits(NULL, path, &l, &e), -EINVAL, "commits: one is nothing to bisect");
	ok(strstr(e.msg, "holds 1 commit after the good one") != NULL, "commits: says so: %s", e.msg);
	strlist__release(&l);
	unlink(path);
	is_int(bisect__read_commits(NULL, path, &l, &e), -ENOENT, "commits: a missing file");
	is_int(bisect__read_commits("HEAD", NULL, &l, &e), -EINVAL, "commits: a range without '..'");
	ok(strstr(e.msg, "expected A..B") != NULL, "commits: a range is A..B: %s", e.msg);
	is_int((int)bisect__fixed_runs(7, 3), 9, "a bisection of 7 commits at 3 runs a step: 9 runs");
	is_int((int)bisect__fixed_runs(1, 3), 3, "of 1 commit: one step");
	strlist__release(&l);
}

int main(void)
{
	const char *n = getenv("BISECT_STUDY");

	test_sprt();
	test_posterior();
	test_state();
	test_commits();
	study(n && atoi(n) > 0 ? (size_t)atoi(n) : 400, true);
	return done_testing();
}
