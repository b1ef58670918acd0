/*
 * history-cpd: mmprof history's change points (history__trend: the noise
 * model and PELT) on series read from stdin, for the validation
 * (history-validate.py) and the scan's timing.
 *
 *   series NAME KEY COMMITS RUNS SAMPLES
 *   v v v ...            COMMITS x RUNS values, commit by commit
 *
 * SAMPLES: each run's samples (a share's sampling noise), 0 when not
 * known, -1 when they differ by run: a line of COMMITS x RUNS sample
 * counts then follows the values.  Prints "NAME i j ..." (the commits where a new level starts)
 * per series, and on stderr the CPU time the scans took.  An argument,
 * when given, is the penalty (history.md's table of false alarms by
 * penalty); else history's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mmprof/history.h"
#include "mmprof/xalloc.h"

int main(int argc, char **argv)
{
	struct history_scan_opts o = { .penalty = argc > 1 ? atof(argv[1]) : 0 };
	char name[256], key[512];
	size_t nc, r, i, k, total = 0;
	double samples, cpu = 0;

	while (scanf("%*s %255s %511s %zu %zu %lf", name, key, &nc, &r, &samples) == 5) {
		size_t *runs = xcalloc(nc + 1, sizeof(*runs));
		double *v = xcalloc(nc * r + 1, sizeof(*v)), *sm = xcalloc(nc * r + 1, sizeof(*sm));
		struct history_series *hs;
		struct history_trend t;
		struct timespec a, b;

		for (i = 0; i < nc; i++)
			runs[i] = r;
		for (i = 0; i < nc * r; i++) {
			if (scanf("%lf", &v[i]) != 1) {
				fprintf(stderr, "history-cpd: series %s: expected %zu values\n", name, nc * r);
				return 2;
			}
			sm[i] = samples;
		}
		for (i = 0; samples < 0 && i < nc * r; i++)
			if (scanf("%lf", &sm[i]) != 1) {
				fprintf(stderr, "history-cpd: series %s: expected %zu sample counts\n", name, nc * r);
				return 2;
			}
		hs = history_series__make(key, runs, nc, v, sm, false);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		history__trend(hs, &hs->keys[0], &o, &t);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		cpu += (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		printf("%s", name);
		for (k = 0; k < t.nr_cp; k++)
			printf(" %zu", t.cp[k].at);
		printf("\n");
		history_trend__release(&t);
		history_series__free(hs);
		free(runs);
		free(v);
		free(sm);
		total++;
	}
	fprintf(stderr, "history-cpd: %zu series scanned in %.3f s of CPU\n", total, cpu);
	return 0;
}
