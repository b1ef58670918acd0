/*
 * libFuzzer harness for the benchmark output readers (benchout.h, #16 1):
 * `mmprof record` reads whatever a workload prints on stdout and stderr,
 * and `mmprof import --workload-output` a saved output a user got from
 * elsewhere (a robot result folder's stress-ng file).  Any byte string,
 * cut into lines as workload.c cuts them (at most WORKLOAD_LINE_MAX bytes,
 * longer ones dropped), must be read without a crash, a sanitizer report,
 * a leak or a hang, and what it stores must be metrics of the run it was
 * given, under keys workload__key_ok accepts (will-it-scale's assertion
 * keys: their tr set), at most BENCHOUT_MAX_KEYS of the table readers'
 * plus the metric lines, every value finite (a sum of --ops-pattern's
 * matches past the double range is not stored).
 *
 * Built and run by `make fuzz`; by hand:
 *
 *   make build-fuzz/fuzz-benchout
 *   build-fuzz/fuzz-benchout -max_total_time=60 build-fuzz/corpus/benchout \
 *         tests/fuzz/corpus/benchout
 *
 * Seeds in tests/fuzz/corpus/benchout/: stress-ng 0.15's --metrics and
 * --metrics-brief output, lkp-tests' stress-ng miscellaneous metrics and
 * will-it-scale fixtures, the edge cases of tests/golden/benchout.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/benchout.h"
#include "mmprof/workload.h"

static bool assert_key(const char *k)
{
	size_t i;

	if (strncmp(k, "will-it-scale.", 14))
		return false;
	for (i = 14; k[i]; i++)
		if (!(k[i] >= 'a' && k[i] <= 'z') && !(k[i] >= 'A' && k[i] <= 'Z') &&
		    !(k[i] >= '0' && k[i] <= '9') && !strchr("<>!=_", k[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = profile__new();
	struct benchout_opts o;
	struct benchout b;
	struct errmsg e = { "" };
	const char *text = (const char *)data;
	size_t pos = 0, i, lines = 0;

	memset(&o, 0, sizeof(o));
	if (benchout_opts__set_ops(&o, "([0-9.e+-]+) ops", NULL, "/x/bench", &e))
		abort();
	benchout__init(&b, &o, p, 2);
	while (pos < size) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : size - pos;

		if (n <= WORKLOAD_LINE_MAX)
			benchout__line(&b, text + pos, n);
		lines++;
		pos += n + 1;
	}
	benchout__end(&b);
	benchout__release(&b);
	if (p->nr_metrics > BENCHOUT_MAX_KEYS + lines + 1)
		abort();
	for (i = 0; i < p->nr_metrics; i++) {
		const char *k = profile__str(p, p->metrics[i].key);

		if (p->metrics[i].run != 2 || !k || (!workload__key_ok(k, strlen(k)) && !assert_key(k)))
			abort();
		if (!isfinite(p->metrics[i].value))
			abort();
	}
	benchout_opts__release(&o);
	profile__free(p);
	return 0;
}
