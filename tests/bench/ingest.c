/*
 * ingest: samples per second through record's aggregation path (parse the
 * PERF_RECORD_SAMPLE, hash the callchain, intern, count), fed with
 * ring-buffer records through sampler__replay, on one core.
 *
 *   ingest [--samples N] [--stacks S] [--depth D]
 *
 * Records look like cpu-clock samples with -g: IP, TID, TIME, CPU, PERIOD
 * and a D-entry callchain (PERF_CONTEXT_KERNEL, kernel frames,
 * PERF_CONTEXT_USER, user frames) from 4 processes.  The first S records
 * visit every distinct stack once (so the aggregate really holds S keys),
 * the rest follow a skewed distribution (half the samples on 64 hot
 * stacks), as profiles do.  Records are generated in chunks of 8192 into a
 * buffer that is then replayed; only the replay is timed (thread CPU time
 * and wall), so generation cost is not counted.
 *
 * Prints one line: samples, CPU seconds, wall seconds, M samples/s (CPU),
 * and the growth of the peak RSS during ingest (the aggregate's memory).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>
#include <sys/resource.h>

#include "mmprof/sampler.h"
#include "mmprof/symbols.h"

#define CHUNK 8192

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static uint64_t rng_next(uint64_t *r)
{
	*r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
	return *r >> 33;
}

/* One sample record as cpu-clock -g lays it out; returns its size in words. */
static size_t put_sample(uint64_t *buf, uint64_t stack, uint64_t time, int depth)
{
	struct perf_event_header h;
	uint32_t pid = 1000 + (uint32_t)(stack % 4), pt[2] = { pid, pid };
	uint64_t *p = buf + 1;
	int k = depth * 2 / 3;	/* kernel part */

	*p++ = 0xffffffff81000000ULL + (stack * 2654435761u % 65536) * 16;	/* IP */
	memcpy(p++, pt, 8);
	*p++ = time;
	*p++ = stack & 1;	/* CPU, RES */
	*p++ = 250000;		/* PERIOD */
	*p++ = (uint64_t)depth;
	p[0] = PERF_CONTEXT_KERNEL;
	for (int j = 1; j < depth; j++) {
		/* frames shared with nearby stacks near the root, distinct near the leaf */
		uint64_t key = j < 6 ? stack : stack >> (2 * (j < 16 ? 16 - j : 0));

		if (j < k)
			p[j] = 0xffffffff81000000ULL + ((key * 40503u + (uint64_t)j * 977u) % 65536) * 16;
		else
			p[j] = 0x400000ULL + ((key * 2654435761u + (uint64_t)j) % 4096) * 16;
	}
	p[k] = PERF_CONTEXT_USER;
	p += depth;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_KERNEL;
	h.size = (uint16_t)((char *)p - (char *)buf);
	memcpy(buf, &h, sizeof(h));
	return h.size / 8;
}

int main(int argc, char **argv)
{
	double samples = 5e6, cpu = 0, wall = 0;
	long stacks = 2000, rss0;
	int depth = 30, i;
	struct sampler_opts o = { .freq = 4000 };
	struct symbols *syms;
	struct sampler *s;
	uint64_t *buf, rng = 42, done = 0, t = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			samples = atof(argv[++i]);
		else if (!strcmp(argv[i], "--stacks") && i + 1 < argc)
			stacks = atol(argv[++i]);
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			depth = atoi(argv[++i]);
		else
			break;
	}
	if (i < argc || stacks < 1 || depth < 4 || depth > 120) {
		fprintf(stderr, "usage: ingest [--samples N] [--stacks S] [--depth 4..120]\n");
		return 2;
	}
	syms = symbols__new();
	s = sampler__new(&o, syms, NULL);
	if (!s)
		return 2;
	buf = malloc((size_t)CHUNK * (size_t)(depth + 8) * 8);
	memset(buf, 0, (size_t)CHUNK * (size_t)(depth + 8) * 8);
	rss0 = maxrss_kb();
	while ((double)done < samples) {
		size_t n = 0;
		double c0, w0;
		int got;

		for (int r = 0; r < CHUNK; r++, t++) {
			uint64_t which;

			if (t < (uint64_t)stacks)
				which = t;
			else if (rng_next(&rng) & 1)
				which = rng_next(&rng) % 64;
			else
				which = rng_next(&rng) % (uint64_t)stacks;
			n += put_sample(buf + n, which, t, depth);
		}
		c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		w0 = clock_s(CLOCK_MONOTONIC);
		got = sampler__replay(s, buf, n * 8);
		cpu += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall += clock_s(CLOCK_MONOTONIC) - w0;
		if (got != CHUNK) {
			fprintf(stderr, "ingest: replay returned %d\n", got);
			return 2;
		}
		done += (uint64_t)got;
	}
	printf("ingest: samples %llu stacks %ld depth %d cpu_s %.3f wall_s %.3f "
	       "msps %.2f rss_growth_kb %ld\n", (unsigned long long)done, stacks, depth,
	       cpu, wall, (double)done / cpu / 1e6, maxrss_kb() - rss0);
	free(buf);
	sampler__free(s);
	symbols__free(syms);
	return 0;
}
