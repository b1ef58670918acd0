/*
 * chaintake: profile__take_chains on rand-recurse's shape (tests/bench/
 * rand-recurse.c: main, 8 to 127 calls of 16 functions in random order,
 * then the sampled frame, one of L addresses of the leaf), one sample a
 * chain, as record gives it: the trie filled in arrival order up
 * to 3/4 of its bound (a chain taken whole when its new nodes fit), every
 * other chain sorted and merged into a chainsrc, then take_chains with
 * the whole bound.
 *
 *   chaintake [--samples N] [--nodes M] [--leaves L] [--seed S]
 *
 * Defaults: 800,000 samples (776 K chains into the source: the worst case
 * recorded for 40 s), 2 Mi nodes (DATAFILE_TRIE_NODES), 300 leaf
 * addresses.  Prints the
 * source's size, T, what was elided and cut, the [elided] nodes, and the
 * call's CPU and wall seconds and the peak RSS it added (VmHWM reset
 * by /proc/self/clear_refs before it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"

enum { MAIN, STEP0, LEAF0 = STEP0 + 16, MAX_LEAVES = 4096 };

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* chains as frame ids, one arena */
static uint16_t *arena;
static size_t arena_len, arena_alloc;

struct ch {
	size_t off;
	uint32_t nr;
	uint64_t samples;
};

static int ch_cmp(const void *x, const void *y)
{
	const struct ch *a = x, *b = y;
	uint32_t n = a->nr < b->nr ? a->nr : b->nr;
	const uint16_t *x0 = arena + a->off, *y0 = arena + b->off;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (x0[i] != y0[i])
			return x0[i] < y0[i] ? -1 : 1;
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

struct bsrc {
	struct chainsrc src;
	struct ch *c;
	size_t n;
};

static int bsrc_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct bsrc *s = (struct bsrc *)src;
	uint32_t f[160];
	struct chain_cell cell = { 0 };
	size_t i;

	for (i = 0; i < s->n; i++) {
		const uint16_t *b = arena + s->c[i].off;
		struct chain_rec r = { .frames = f, .nr = s->c[i].nr, .cells = &cell, .nr_cells = 1,
				       .ordinal = i };
		uint32_t j;
		int err;

		if (i) {
			const uint16_t *a = arena + s->c[i - 1].off;

			while (r.lcp < s->c[i - 1].nr && r.lcp < r.nr && a[r.lcp] == b[r.lcp])
				r.lcp++;
		}
		for (j = 0; j < r.nr; j++)
			f[j] = b[j];
		cell.samples = s->c[i].samples;
		cell.period = cell.samples * 50000;
		err = fn(ctx, &r);
		if (err)
			return err;
	}
	return 0;
}

static void bsrc_release(struct chainsrc *src)
{
	struct bsrc *s = (struct bsrc *)src;

	free(s->c);
	free(s);
}

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* VmRSS or VmHWM of /proc/self/status, in KiB (-1: not there) */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

/* The peak RSS from here on: clear_refs 5 resets VmHWM to VmRSS. */
static long peak_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
	return status_kb("VmRSS");
}

int main(int argc, char **argv)
{
	size_t samples = 800000, leaves = 300, max_nodes = 2u << 20, bound, i, n = 0, alloc = 0, m, nelided = 0;
	struct profile *p = profile__new();
	struct event_desc ev = { 0 };
	struct run run = { 0 };
	struct bsrc *s = xcalloc(1, sizeof(*s));
	struct chaintake_stats st;
	uint64_t total = 0, elided_depth = 0;
	double c0, w0, cpu, wall;
	long rss0;
	uint32_t code;
	int rc;

	for (i = 1; i + 1 < (size_t)argc; i += 2) {
		if (!strcmp(argv[i], "--samples"))
			samples = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--nodes"))
			max_nodes = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--leaves"))
			leaves = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			rng = strtoull(argv[i + 1], NULL, 10) | 1;
		else
			break;
	}
	if (i != (size_t)argc || !leaves || leaves > MAX_LEAVES) {
		fprintf(stderr, "usage: chaintake [--samples N] [--nodes M] [--leaves L (1-%d)] [--seed S]\n",
			MAX_LEAVES);
		return 2;
	}
	bound = max_nodes / 4 * 3;
	ev.name = profile__intern(p, "cpu-clock");
	profile__add_event(p, &ev);
	profile__add_run(p, &run);
	for (code = 0; code < LEAF0 + leaves; code++) {
		char name[16];
		struct frame f = { .addr = 0x1000 + code };

		snprintf(name, sizeof(name), code == MAIN ? "main" : code < LEAF0 ? "step%u" : "leaf",
			 code - STEP0);
		f.sym = profile__intern(p, name);
		profile__frame(p, &f);
	}
	for (i = 0; i < samples; i++) {
		uint32_t d = 8 + (uint32_t)(next() % 120), j, nr = 1 + d + 1, have = 0, node = PROFILE_ROOT;
		uint16_t *b;

		XGROW(arena, arena_alloc, arena_len + nr);
		b = arena + arena_len;
		b[0] = MAIN;
		for (j = 1; j <= d; j++)
			b[j] = (uint16_t)(STEP0 + (next() & 15));
		b[nr - 1] = (uint16_t)(LEAF0 + next() % leaves);
		total++;
		/* p's trie first, in arrival order, while the chain's new nodes fit */
		while (have < nr) {
			uint32_t u = profile__child(p, node, b[have]);

			if (!u)
				break;
			node = u;
			have++;
		}
		if (p->nr_nodes + (nr - have) <= bound) {
			for (; have < nr; have++)
				node = profile__node(p, node, b[have]);
			profile__add_count(p, 0, 0, 0, 1, node, 1, 50000);
			continue;
		}
		XGROW(s->c, alloc, n);
		s->c[n++] = (struct ch){ .off = arena_len, .nr = nr, .samples = 1 };
		arena_len += nr;
	}
	qsort(s->c, n, sizeof(*s->c), ch_cmp);
	for (i = 0, m = 0; i < n; i++) {
		if (m && !ch_cmp(&s->c[m - 1], &s->c[i]))
			s->c[m - 1].samples += s->c[i].samples;
		else
			s->c[m++] = s->c[i];
	}
	s->n = m;
	s->src.each = bsrc_each;
	s->src.release = bsrc_release;
	s->src.nr_chains = m;
	for (i = 0; i < m; i++) {
		s->src.nr_frames += s->c[i].nr;
		s->src.samples += s->c[i].samples;
	}
	printf("samples %zu, p's trie %zu nodes (bound %zu of %zu), source %zu chains, %.1f M frames, %llu samples\n",
	       samples, p->nr_nodes, bound, max_nodes, m, s->src.nr_frames / 1e6,
	       (unsigned long long)s->src.samples);
	{
		uint64_t src_samples = s->src.samples;

		rss0 = peak_reset();
		c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		w0 = now(CLOCK_MONOTONIC);
		rc = profile__take_chains(p, &s->src, max_nodes, &st);
		cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall = now(CLOCK_MONOTONIC) - w0;
		if (rc) {
			fprintf(stderr, "chaintake: take_chains failed: %d\n", rc);
			return 1;
		}
		for (i = 1; i < p->nr_nodes; i++)
			if (profile__frame_elided(p, p->nodes[i].frame)) {
				nelided++;
				elided_depth += p->nodes[p->nodes[i].parent].depth;
			}
		printf("T %llu, %llu chains elided (%llu samples), %llu samples cut (%.1f %% of the source's), "
		       "%zu nodes added, %zu nodes, %zu [elided] nodes (parent's mean depth %.1f)\n",
		       (unsigned long long)st.threshold, (unsigned long long)st.elided_chains,
		       (unsigned long long)st.elided_samples, (unsigned long long)st.cut_samples,
		       src_samples ? 100.0 * st.cut_samples / src_samples : 0.0, st.nodes_added,
		       p->nr_nodes, nelided, nelided ? (double)elided_depth / nelided : 0.0);
		printf("take_chains: %.2f s CPU, %.2f s wall, peak RSS +%.1f MiB\n", cpu, wall,
		       (status_kb("VmHWM") - rss0) / 1024.0);
	}
	(void)total;
	profile__free(p);
	free(arena);
	return 0;
}
