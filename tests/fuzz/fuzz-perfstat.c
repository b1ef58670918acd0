/*
 * libFuzzer harness for the perf stat -x, -I text parser (import.h, #19 3):
 * `mmprof import` reads perf-stat logs a user got from elsewhere (years of
 * the robot's monitor files), so any byte string must be refused with a
 * message or parsed into a stat-only profile without a crash, a sanitizer
 * report, a leak or a hang.  A parsed profile must keep the model's
 * invariants: one run, every counter and interval named by a string of
 * the profile, no reading after the run's end; and its keys (the default
 * and the robot's arithmetic) must be computed with finite values.
 *
 * Built and run by `make fuzz`; by hand:
 *
 *   make build-fuzz/fuzz-perfstat
 *   build-fuzz/fuzz-perfstat -max_total_time=60 build-fuzz/corpus/perfstat \
 *         tests/fuzz/corpus/perfstat
 *
 * Seeds in tests/fuzz/corpus/perfstat/: a perf stat -a -I 1000 -x , log
 * with --log-fd 1 (the workload's metric lines among the readings, <not
 * supported>), the robot's echoed command line first, per-socket records,
 * <not counted> and a PMU-named event (cpu_atom/cpu-cycles/).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/errmsg.h"
#include "mmprof/import.h"
#include "mmprof/keys.h"

static void check_keys(const struct profile *p, bool robot)
{
	struct keytab kt;
	size_t k;

	if (robot ? keytab__build_robot(&kt, p) : keytab__build(&kt, p))
		abort();
	for (k = 0; k < kt.nr; k++)
		if (!isfinite(keytab__val(&kt, k, 0)))
			abort();
	keytab__release(&kt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = profile__new();
	struct perfstat ps;
	struct errmsg e = { "" };
	const char *text = (const char *)data;
	size_t pos = 0, i;
	int err = 0;

	perfstat__init(&ps, p);
	while (pos < size && !err) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : size - pos;

		err = perfstat__line(&ps, text + pos, n, &e);
		pos += n + (nl != NULL);
	}
	if (!err)
		err = perfstat__finish(&ps, &e);
	perfstat__release(&ps);
	if (!err) {
		if (p->nr_runs != 1)
			abort();
		for (i = 0; i < p->nr_counters; i++)
			if (!profile__str(p, p->counters[i].name))
				abort();
		for (i = 0; i < p->nr_intervals; i++)
			if (!profile__str(p, p->intervals[i].name) ||
			    (int64_t)p->intervals[i].t_ns > p->runs[0].wall_ns)
				abort();
		check_keys(p, false);
		check_keys(p, true);
	} else if (!e.msg[0]) {
		abort();	/* every refusal says why */
	}
	profile__free(p);
	return 0;
}
