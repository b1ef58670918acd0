/*
 * A recording's trie grown all at once (profile__take_chains) against the
 * readers' limits (datafile__readers_take: events x nodes <= 2^24 and the
 * others): 256 events with counts over 65,793 nodes are more than a
 * reader walks.  Such a profile is not saved (-ERANGE) and
 * datafile__save_recording writes what a reader loads instead; a take
 * within datafile__readers_nodes' bound (what record gives it) is saved
 * whole and loads.  A chain source that fails (-EIO) in the take's second
 * walk leaves p part filled, and in the save's walk of p->whole: each is
 * still saved, as what p holds or without its whole chains, and loads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/datafile.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"
#include "tap.h"

#define NEV 256
#define NF 256	/* frames: chains [a, b], a and b below NF */

/* ---- an array-backed chainsrc: every [a, b], in order; each walk can fail ---- */

struct asrc {
	struct chainsrc src;
	int fail;		/* the error of walk fail_walk and after, at chain fail_at; 0: none */
	int walks, fail_walk;
	uint64_t fail_at;
};

static struct chain_cell cell_of(uint32_t a, uint32_t b)
{
	return (struct chain_cell){ .event = (a * NF + b) % NEV, .samples = 1 + (a * b) % 7,
				    .period = 1000 };
}

static int asrc_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct asrc *s = (struct asrc *)src;
	uint64_t i;
	int err;

	s->walks++;
	for (i = 0; i < (uint64_t)NF * NF; i++) {
		uint32_t f[2] = { (uint32_t)(i / NF), (uint32_t)(i % NF) };
		struct chain_cell c = cell_of(f[0], f[1]);
		struct chain_rec r = { .frames = f, .nr = 2, .lcp = i % NF ? 1 : 0,
				       .cells = &c, .nr_cells = 1, .ordinal = i };

		if (s->fail && s->walks >= s->fail_walk && i == s->fail_at)
			return s->fail;
		if ((err = fn(ctx, &r)))
			return err;
	}
	return 0;
}

static void asrc_release(struct chainsrc *src)
{
	free(src);
}

static struct chainsrc *asrc_new(int fail, int fail_walk, uint64_t fail_at)
{
	struct asrc *s = xcalloc(1, sizeof(*s));
	uint32_t a, b;

	s->src.each = asrc_each;
	s->src.release = asrc_release;
	s->src.nr_chains = (uint64_t)NF * NF;
	s->src.nr_frames = 2 * s->src.nr_chains;
	for (a = 0; a < NF; a++)
		for (b = 0; b < NF; b++)
			s->src.samples += cell_of(a, b).samples;
	s->fail = fail;
	s->fail_walk = fail_walk;
	s->fail_at = fail_at;
	return &s->src;
}

static struct profile *profile_base(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { 0 };
	struct run r = { 0 };
	char name[32];
	uint32_t i;

	for (i = 0; i < NEV; i++) {
		snprintf(name, sizeof(name), "ev%u", i);
		ev.name = profile__intern(p, name);
		profile__add_event(p, &ev);
	}
	profile__add_run(p, &r);
	for (i = 0; i < NF; i++) {
		struct frame f = { .addr = 0x1000 + i, .sym = profile__intern(p, "fn") };

		profile__frame(p, &f);
	}
	return p;
}

static uint64_t total_samples(const struct profile *p)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		n += p->counts[i].samples;
	return n;
}

static int loads(const char *path, struct profile **out)
{
	struct errmsg e = { "" };
	int err = datafile__load(path, out, &e);

	if (err)
		printf("#   %s\n", e.msg);
	return err;
}

int main(void)
{
	char dir[] = "/tmp/test-chainlimit.XXXXXX", path[80];
	struct profile *p, *q = NULL;
	struct errmsg e = { "" }, warn = { "" };
	struct chaintake_stats st;
	uint64_t want;
	size_t bound;
	int err;

	ok(mkdtemp(dir) != NULL, "a folder for the files");
	snprintf(path, sizeof(path), "%s/p.mmprof", dir);
	{
		struct chainsrc *s = asrc_new(0, 0, 0);

		want = s->samples;
		chainsrc__release(s);
	}

	/* every chain whole in the trie: 256 events over 65,793 nodes */
	p = profile_base();
	err = profile__take_chains(p, asrc_new(0, 0, 0), 100000, &st);
	ok(!err && !p->whole && p->nr_nodes == 1 + NF + NF * NF,
	   "every chain whole in the trie (%d, %zu nodes)", err, p->nr_nodes);
	ok(!datafile__readers_take(p->nr_nodes, p->nr_frames, p->nr_counts, NEV, NEV),
	   "more than a reader walks (%zu x %d node visits)", p->nr_nodes, NEV);
	err = datafile__save(p, path, &e);
	ok(err == -ERANGE && strstr(e.msg, "more than a reader loads"),
	   "not saved: %d (%s)", err, e.msg);
	ok(access(path, F_OK) != 0, "no file written");
	err = datafile__save_recording(p, path, &warn, &e);
	ok(!err && strstr(warn.msg, "without"), "saved as a recording: %d (%s)", err,
	   err ? e.msg : warn.msg);
	ok(!err && !loads(path, &q), "and that file loads");
	profile__free(q);
	q = NULL;
	profile__free(p);
	unlink(path);

	/* the take within the readers' bound: saved whole, loads */
	p = profile_base();
	bound = datafile__readers_nodes(100000, p->nr_frames + 1, (size_t)NF * NF + p->nr_counts,
					NEV, NEV);
	ok(bound == (1u << 24) / NEV, "the readers' bound: %zu nodes", bound);
	ok(datafile__readers_nodes(100, p->nr_frames, 0, 1, 1) == 100,
	   "within max_nodes when the readers take more");
	err = profile__take_chains(p, asrc_new(0, 0, 0), bound, &st);
	ok(!err && p->nr_nodes <= bound && p->whole,
	   "taken within it (%d, %zu nodes, chains elided)", err, p->nr_nodes);
	ok(total_samples(p) == want, "every sample counted (%llu of %llu)",
	   (unsigned long long)total_samples(p), (unsigned long long)want);
	err = datafile__save_recording(p, path, &warn, &e);
	ok(!err && !warn.msg[0], "saved: %d (%s)", err, err ? e.msg : warn.msg);
	ok(!err && !loads(path, &q) && q->whole && total_samples(q) == want,
	   "loads, with its whole chains and every sample");
	profile__free(q);
	q = NULL;
	profile__free(p);
	unlink(path);

	/* the walk of p->whole fails as the file is written: saved without it */
	p = profile_base();
	err = profile__take_chains(p, asrc_new(-EIO, 3, 1000), bound, &st);
	ok(!err && p->whole, "taken (%d), the source failing from its third walk", err);
	err = datafile__save(p, path, &e);
	ok(err == -EIO && access(path, F_OK) != 0, "datafile__save: %d, nothing written (%s)",
	   err, e.msg);
	err = datafile__save_recording(p, path, &warn, &e);
	ok(!err && strstr(warn.msg, "without its whole chains"), "saved as a recording: %d (%s)",
	   err, err ? e.msg : warn.msg);
	ok(!err && !loads(path, &q) && !q->whole && total_samples(q) == want,
	   "loads: the trie, every sample under it");
	profile__free(q);
	q = NULL;
	profile__free(p);
	unlink(path);

	/* the take's second walk fails: p part filled, saved as it is */
	p = profile_base();
	err = profile__take_chains(p, asrc_new(-EIO, 2, 30000), bound, &st);
	ok(err == -EIO && !p->whole && total_samples(p) > 0 && total_samples(p) < want,
	   "the second walk fails: %d, %llu of %llu samples in p", err,
	   (unsigned long long)total_samples(p), (unsigned long long)want);
	err = datafile__save_recording(p, path, &warn, &e);
	ok(!err, "saved as a recording: %d (%s)", err, err ? e.msg : warn.msg);
	ok(!err && !loads(path, &q) && total_samples(q) == total_samples(p),
	   "loads, with what p held");
	profile__free(q);
	profile__free(p);
	unlink(path);

	ok(rmdir(dir) == 0, "nothing left in the folder");
	return done_testing();
}
