/*
 * diff-spread: how much the perf-profile shares of real recordings vary
 * between runs beyond the sampling noise that the sample counts explain.
 *
 *   diff-spread [-e EVENT] FILE...     (EVENT default cpu-clock)
 *
 * For every file (one `mmprof record -r N` of one workload) and every
 * perf-profile.self and .children key of EVENT, the key's share p_r in each
 * run r (absent: 0) out of the run's n_r samples.  The between-run variance
 * s^2 (n-1 denominator) is compared with the binomial variance the counts
 * alone would give, b = mean_r p(1-p)/n_r:
 *   ratio    s^2 / b           (1: sampling noise explains everything)
 *   excess   (s^2 - b) / p^2   (the squared coefficient of variation of
 *                               the share beyond sampling: what the
 *                               simulation in test-diff-sim models as a
 *                               lognormal factor per run)
 * Keys are binned by mean share; per bin the tool prints the number of
 * keys, the median ratio and the mean excess CV^2 (a mean, not a median:
 * the per-key excess is unbiased but noisy and often negative).  Then per
 * run a disturbance score: the RMS over keys >= 1 % of the run's log
 * share against the mean of its siblings, to spot a run the machine
 * disturbed.  Other keys (time.*, perf-stat.*, workload metrics) get their
 * coefficient of variation.  Output is text for Documentation/statistics.md
 * ("Simulation and power"), not a stable format.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/datafile.h"
#include "mmprof/errmsg.h"
#include "mmprof/keys.h"
#include "mmprof/profile.h"
#include "mmprof/report.h"
#include "mmprof/xalloc.h"

#define MAX_RUNS 64
#define NR_BINS 9

static const double bin_lo[NR_BINS + 1] = { 0.05, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100.01 };

struct bin {
	size_t n;
	double excess_sum;	/* sum of excess CV^2 */
	double *ratio;		/* for the median */
	size_t nr_ratio, alloc_ratio;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bin__add(struct bin *b, double ratio, double excess)
{
	b->n++;
	b->excess_sum += excess;
	XGROW(b->ratio, b->alloc_ratio, b->nr_ratio);
	b->ratio[b->nr_ratio++] = ratio;
}

static int bin_of(double mean)
{
	int i;

	for (i = 0; i < NR_BINS; i++)
		if (mean >= bin_lo[i] && mean < bin_lo[i + 1])
			return i;
	return -1;
}

static void print_bins(const char *title, struct bin bins[2][NR_BINS])
{
	static const char *const fam[2] = { "self", "children" };
	int f, i;

	printf("%s\n  %-9s %-12s %6s %9s %13s %9s\n", title, "family", "share %", "keys",
	       "ratio", "excess CV^2", "excess CV");
	for (f = 0; f < 2; f++) {
		for (i = 0; i < NR_BINS; i++) {
			struct bin *b = &bins[f][i];
			double ex;
			char range[32];

			if (!b->n)
				continue;
			ex = b->excess_sum / (double)b->n;
			snprintf(range, sizeof(range), "%g-%g", bin_lo[i], i + 1 < NR_BINS ? bin_lo[i + 1] : 100);
			printf("  %-9s %-12s %6zu %9.2f %13.5f %9.3f\n", fam[f], range, b->n,
			       median(b->ratio, b->nr_ratio), ex, ex > 0 ? sqrt(ex) : 0.0);
		}
	}
}

/* One key's values over the runs (0 where absent). */
struct series {
	char *key;
	double v[MAX_RUNS];
};

static struct series *series__get(struct series **s, size_t *nr, size_t *alloc, const char *key)
{
	size_t i;

	for (i = 0; i < *nr; i++)	/* a few thousand keys a file: linear is fine */
		if (!strcmp((*s)[i].key, key))
			return &(*s)[i];
	XGROW(*s, *alloc, *nr);
	memset(&(*s)[*nr], 0, sizeof(**s));
	(*s)[*nr].key = xstrdup(key);
	return &(*s)[(*nr)++];
}

static int one_file(const char *path, const char *event, struct bin all[2][NR_BINS])
{
	struct bin bins[2][NR_BINS];
	struct profile *p = NULL;
	struct errmsg e = { { 0 } };
	struct symview v;
	struct keycache *c;
	struct series *s = NULL;
	size_t nr = 0, alloc = 0, i, k;
	double n[MAX_RUNS] = { 0 };
	uint32_t r, nruns, ev = UINT32_MAX;
	char prefix[2][128];
	int f;

	if (datafile__load(path, &p, &e)) {
		fprintf(stderr, "diff-spread: %s\n", e.msg);
		return -1;
	}
	nruns = p->nr_runs < MAX_RUNS ? p->nr_runs : MAX_RUNS;
	for (i = 0; i < p->nr_events; i++) {
		char buf[256];

		keys__event_name(profile__str(p, p->events[i].name) ?: "", buf, sizeof(buf));
		if (!strcmp(buf, event))
			ev = (uint32_t)i;
	}
	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].event == ev && p->counts[i].run < nruns)
			n[p->counts[i].run] += (double)p->counts[i].samples;
	snprintf(prefix[0], sizeof(prefix[0]), "perf-profile.self.%s.", event);
	snprintf(prefix[1], sizeof(prefix[1]), "perf-profile.children.%s.", event);

	symview__init(&v, p, false);
	c = keycache__new(&v);
	for (r = 0; r < nruns; r++) {
		struct keyrun kr;

		keycache__run(c, r, &kr);
		for (i = 0; i < kr.nr; i++)
			series__get(&s, &nr, &alloc, keycache__name(c, kr.ids[i]))->v[r] = kr.vals[i];
	}
	symview__release(&v);

	printf("== %s: %u runs, %s samples per run:", path, nruns, event);
	for (r = 0; r < nruns; r++)
		printf(" %.0f", n[r]);
	printf("\n");
	memset(bins, 0, sizeof(bins));
	for (k = 0; k < nr; k++) {
		double mean = 0, ss = 0, b = 0, ratio, excess;
		int bi;

		for (f = 0; f < 2; f++)
			if (!strncmp(s[k].key, prefix[f], strlen(prefix[f])))
				break;
		if (f == 2)
			continue;
		for (r = 0; r < nruns; r++)
			mean += s[k].v[r];
		mean /= nruns;
		bi = bin_of(mean);
		if (bi < 0 || nruns < 2)
			continue;
		for (r = 0; r < nruns; r++) {
			double q = mean / 100;

			ss += (s[k].v[r] - mean) * (s[k].v[r] - mean);
			b += 1e4 * q * (1 - q) / (n[r] > 0 ? n[r] : 1);
		}
		ss /= nruns - 1;
		b /= nruns;
		ratio = ss / b;
		excess = (ss - b) / (mean * mean);
		bin__add(&bins[f][bi], ratio, excess);
		bin__add(&all[f][bi], ratio, excess);
	}
	print_bins("  between-run variance of shares against binomial sampling variance", bins);

	/* disturbance: RMS log(share / mean of the siblings) over self keys >= 1 % */
	printf("  run disturbance (RMS log ratio to siblings, self keys >= 1%%):");
	for (r = 0; r < nruns && nruns > 2; r++) {
		double sum = 0;
		size_t m = 0;

		for (k = 0; k < nr; k++) {
			double others = 0, mean = 0;
			uint32_t j;

			if (strncmp(s[k].key, prefix[0], strlen(prefix[0])))
				continue;
			for (j = 0; j < nruns; j++)
				mean += s[k].v[j] / nruns;
			if (mean < 1)
				continue;
			for (j = 0; j < nruns; j++)
				if (j != r)
					others += s[k].v[j] / (nruns - 1);
			if (s[k].v[r] <= 0 || others <= 0)
				continue;
			sum += log(s[k].v[r] / others) * log(s[k].v[r] / others);
			m++;
		}
		printf(" %.3f", m ? sqrt(sum / m) : 0.0);
	}
	printf("\n  other keys (mean > 0, varying): coefficient of variation\n");
	for (k = 0; k < nr; k++) {
		double mean = 0, ss = 0;

		if (!strncmp(s[k].key, "perf-profile.", 13))
			continue;
		for (r = 0; r < nruns; r++)
			mean += s[k].v[r] / nruns;
		for (r = 0; r < nruns; r++)
			ss += (s[k].v[r] - mean) * (s[k].v[r] - mean);
		if (mean <= 0 || ss <= 0 || nruns < 2)
			continue;
		if (strncmp(s[k].key, "perf-stat.ps.", 13) && !strstr(s[k].key, ".time.") &&
		    strncmp(s[k].key, "perf-stat.total.", 16) && !strstr(s[k].key, "ops"))
			continue;
		printf("    %-48s %14.6g  CV %.4f\n", s[k].key, mean, sqrt(ss / (nruns - 1)) / mean);
	}
	for (f = 0; f < 2; f++)
		for (i = 0; i < NR_BINS; i++)
			free(bins[f][i].ratio);
	for (k = 0; k < nr; k++)
		free(s[k].key);
	free(s);
	keycache__free(c);
	profile__free(p);
	return 0;
}

int main(int argc, char **argv)
{
	struct bin all[2][NR_BINS];
	const char *event = "cpu-clock";
	int i = 1, f, b, err = 0;

	if (argc > 2 && !strcmp(argv[1], "-e")) {
		event = argv[2];
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: diff-spread [-e EVENT] FILE...\n");
		return 129;
	}
	memset(all, 0, sizeof(all));
	for (; i < argc; i++)
		err |= one_file(argv[i], event, all);
	print_bins("== all files pooled", all);
	for (f = 0; f < 2; f++)
		for (b = 0; b < NR_BINS; b++)
			free(all[f][b].ratio);
	return err ? 1 : 0;
}
