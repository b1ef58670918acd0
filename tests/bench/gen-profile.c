/*
 * gen-profile: write a large synthetic .data file for the report and diff
 * benchmarks (make bench), through the same profile and datafile API that
 * record uses, so the file is what record would write for such a run.
 *
 *   gen-profile -o FILE [--runs R] [--stacks S] [--samples N] [--side K]
 *
 * Shape: S distinct call stacks per run, each a kernel page-fault-like
 * chain: one of 16 user "spines" of 6-12 frames (main -> ... -> touch),
 * then a kernel part drawn from a pool of 20 000 symbols: 4 shared entry
 * frames, a 4-ary tree of log4(S) levels (stacks share callers as real
 * ones do), and 0-3 private frames: 19-28 frames per stack for S = 100 000.
 * The same S stacks in every run and on every side (the structure depends
 * only on the stack's index); samples per stack follow a skewed
 * distribution summing to about N per run, varied per run and per side
 * (--side 1 moves weight towards the stacks whose index is a multiple of 7,
 * so diff has real changes to find).  Each run also gets the perf-stat
 * counters, a workload metric and rusage, as record stores them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/datafile.h"
#include "mmprof/errmsg.h"
#include "mmprof/profile.h"

#define POOL 20000
#define SPINES 16

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	long runs = 10, stacks = 100000, samples = 0, side = 0;
	struct profile *p;
	struct errmsg e = { "" };
	uint32_t *pool, spine_frames[SPINES][12], *leaf, comm;
	struct event_desc ev;
	double *weight, wsum = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atol(argv[++i]);
		else if (!strcmp(argv[i], "--stacks") && i + 1 < argc)
			stacks = atol(argv[++i]);
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			samples = atol(argv[++i]);
		else if (!strcmp(argv[i], "--side") && i + 1 < argc)
			side = atol(argv[++i]);
		else
			break;
	}
	if (!out || i < argc || runs < 1 || stacks < 1) {
		fprintf(stderr, "usage: gen-profile -o FILE [--runs R] [--stacks S] "
			"[--samples N] [--side K]\n");
		return 2;
	}
	if (samples < stacks)
		samples = stacks * 4;

	p = profile__new();
	memset(&ev, 0, sizeof(ev));
	ev.name = profile__intern(p, "cpu-clock");
	ev.asked = profile__intern(p, "cpu-clock");
	ev.type = 1;	/* PERF_TYPE_SOFTWARE */
	ev.freq = 1;
	ev.sample = 4000;
	profile__add_event(p, &ev);
	profile__set_meta(p, "hostname", "bench");
	profile__set_meta(p, "cmdline", "mmprof record -e cpu-clock -- page-fault (synthetic)");
	comm = profile__intern(p, "page-fault");

	pool = malloc(POOL * sizeof(*pool));
	for (i = 0; i < POOL; i++) {
		char name[64];
		struct frame f;

		memset(&f, 0, sizeof(f));
		snprintf(name, sizeof(name), "kernel_function_%d", i);
		f.addr = 0xffffffff81000000ULL + (uint64_t)i * 64;
		f.sym_off = 4;
		f.sym = profile__intern(p, name);
		f.dso = profile__intern(p, "[kernel.kallsyms]");
		f.kernel = 1;
		pool[i] = profile__frame(p, &f);
	}
	for (i = 0; i < SPINES; i++) {
		for (int j = 0; j < 12; j++) {
			char name[64];
			struct frame f;

			memset(&f, 0, sizeof(f));
			snprintf(name, sizeof(name), "user_%d_%d", i, j);
			f.addr = 0x401000 + (uint64_t)(i * 12 + j) * 32;
			f.sym_off = 8;
			f.sym = profile__intern(p, name);
			f.dso = profile__intern(p, "/usr/bin/page-fault");
			spine_frames[i][j] = profile__frame(p, &f);
		}
	}

	/* the S distinct stacks (outermost first down the trie) and their weights */
	leaf = malloc((size_t)stacks * sizeof(*leaf));
	weight = malloc((size_t)stacks * sizeof(*weight));
	for (long s = 0; s < stacks; s++) {
		uint64_t h = mix((uint64_t)s + 1);
		int spine = (int)(h % SPINES), ulen = 6 + (int)((h >> 8) % 7);
		uint64_t prefix = (uint64_t)s;
		int levels = 0, tail = (int)((h >> 16) % 4);
		uint32_t node = PROFILE_ROOT;

		for (long n = stacks - 1; n > 0; n /= 4)
			levels++;
		for (int j = 0; j < ulen; j++)
			node = profile__node(p, node, spine_frames[spine][j]);
		/* kernel frames: a shared entry path, then a 4-ary tree over the
		 * stack indices (stacks s and t share a level when s/4^k == t/4^k,
		 * as real stacks share callers), then a short private tail */
		for (int j = 0; j < 4; j++)
			node = profile__node(p, node, pool[j]);
		for (int j = levels - 1; j >= 0; j--) {
			prefix = (uint64_t)s >> (2 * j);
			node = profile__node(p, node, pool[4 + mix(prefix * 64 + (uint64_t)j) % (POOL - 4)]);
		}
		for (int j = 0; j < tail; j++)
			node = profile__node(p, node, pool[4 + mix(h + (uint64_t)j) % (POOL - 4)]);
		leaf[s] = node;
		/* Zipf-like: a few hot stacks, a long tail */
		weight[s] = 1.0 / (1.0 + (double)(mix(h) % (uint64_t)stacks));
		wsum += weight[s];
	}

	for (long r = 0; r < runs; r++) {
		struct run run;
		uint64_t total = 0, seed = mix((uint64_t)(r * 131 + side * 7 + 17));
		const char *names[] = { "task-clock", "cpu-clock", "context-switches",
					"cpu-migrations", "page-faults", "minor-faults",
					"major-faults" };

		for (long s = 0; s < stacks; s++) {
			double w = weight[s] / wsum * (double)samples;
			uint64_t noise = mix(seed ^ (uint64_t)s) % 1000;
			uint64_t n;

			/* +-10 % per run; side 1 doubles every seventh stack */
			w *= 0.9 + 0.2 * (double)noise / 1000.0;
			if (side && s % 7 == 0)
				w *= 2;
			n = (uint64_t)w + 1;
			total += n;
			profile__add_count(p, (uint32_t)r, 0, comm, 0, leaf[s], n, n * 250000);
		}
		memset(&run, 0, sizeof(run));
		run.start_ns = 1700000000LL * 1000000000LL + r * 10000000000LL;
		run.wall_ns = (int64_t)(total * 250000);
		run.utime_us = run.wall_ns / 10000;
		run.stime_us = run.wall_ns / 1250;
		run.maxrss_kb = 135000;
		run.minflt = (int64_t)total * 40;
		run.samples = total;
		profile__add_run(p, &run);
		for (size_t c = 0; c < sizeof(names) / sizeof(names[0]); c++) {
			struct counter ct;

			memset(&ct, 0, sizeof(ct));
			ct.run = (uint32_t)r;
			ct.name = profile__intern(p, names[c]);
			ct.supported = 1;
			ct.value = (uint64_t)(total * (c + 1) * (side ? 11 : 10));
			ct.enabled = ct.running = (uint64_t)run.wall_ns;
			profile__add_counter(p, &ct);
		}
		profile__add_metric(p, (uint32_t)r, "page-fault.ops_per_sec",
				    150000.0 * (side ? 0.9 : 1.0) * (0.98 + 0.04 * (double)(seed % 100) / 100));
	}

	if (datafile__save(p, out, &e)) {
		fprintf(stderr, "gen-profile: %s\n", e.msg);
		return 2;
	}
	fprintf(stderr, "gen-profile: %s: %ld runs, %ld stacks, %zu trie nodes, %zu counts\n",
		out, runs, stacks, p->nr_nodes, p->nr_counts);
	free(leaf);
	free(weight);
	free(pool);
	profile__free(p);
	return 0;
}
