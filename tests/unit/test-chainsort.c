/*
 * chainsort against a naive model: random chains (prefixes and extensions
 * of one another, a few longer than a block, each added many times with
 * cells that repeat across runs) sorted and merged in memory by qsort,
 * then through the external sort at budgets from the default (one run) to
 * a byte (a run per chain: 20,000 runs, merged 64 at a time in three
 * passes, CHAINSORT_FANIN): the walk must yield the model's chains in the
 * model's order, each once, with its lcp, ordinal and merged cells, twice
 * alike; the counts of the source match; the unnamed file leaves nothing in
 * its folder; a folder that is not there is -errno.  A run that cannot be
 * written (a file size limit) leaves the chains added before to be written
 * by finish, counted once.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mmprof/chainsort.h"
#include "tap.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct add {
	uint32_t *frames, nr;
	struct chain_cell cell;
};

static int cmp_chain(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i;

	for (i = 0; i < na && i < nb; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return na == nb ? 0 : na < nb ? -1 : 1;
}

static int cmp_cell(const struct chain_cell *a, const struct chain_cell *b)
{
	uint32_t ka[4] = { a->run, a->event, a->comm, a->pid };
	uint32_t kb[4] = { b->run, b->event, b->comm, b->pid };

	return cmp_chain(ka, 4, kb, 4);
}

static int cmp_add(const void *x, const void *y)
{
	const struct add *a = x, *b = y;
	int d = cmp_chain(a->frames, a->nr, b->frames, b->nr);

	return d ? d : cmp_cell(&a->cell, &b->cell);
}

/* The model's stream: one entry per distinct chain, its cells merged. */
struct ref {
	const uint32_t *frames;
	uint32_t nr, lcp;
	struct chain_cell *cells;
	uint32_t nr_cells;
};

static void sat(uint64_t *to, uint64_t v)
{
	*to = *to > UINT64_MAX - v ? UINT64_MAX : *to + v;
}

static struct ref *model(struct add *adds, size_t n, size_t *nr_ref)
{
	struct add *s = malloc(n * sizeof(*s));
	struct ref *r = calloc(n, sizeof(*r));
	size_t i, k = 0;

	memcpy(s, adds, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_add);
	for (i = 0; i < n; i++) {
		struct ref *cur = k ? &r[k - 1] : NULL;

		if (!cur || cmp_chain(cur->frames, cur->nr, s[i].frames, s[i].nr)) {
			uint32_t l = 0;

			if (cur)
				while (l < cur->nr && l < s[i].nr && cur->frames[l] == s[i].frames[l])
					l++;
			cur = &r[k++];
			cur->frames = s[i].frames;
			cur->nr = s[i].nr;
			cur->lcp = l;
		}
		if (cur->nr_cells && !cmp_cell(&cur->cells[cur->nr_cells - 1], &s[i].cell)) {
			sat(&cur->cells[cur->nr_cells - 1].samples, s[i].cell.samples);
			sat(&cur->cells[cur->nr_cells - 1].period, s[i].cell.period);
		} else {
			cur->cells = realloc(cur->cells, (cur->nr_cells + 1) * sizeof(*cur->cells));
			cur->cells[cur->nr_cells++] = s[i].cell;
		}
	}
	free(s);
	*nr_ref = k;
	return r;
}

struct walk {
	const struct ref *ref;
	size_t nr_ref, seen, bad_frames, bad_lcp, bad_cells, bad_ordinal;
	size_t stop_at;		/* 0: never */
};

static int check(void *ctx, const struct chain_rec *c)
{
	struct walk *w = ctx;
	const struct ref *r;

	if (w->stop_at && w->seen == w->stop_at)
		return 42;
	if (w->seen >= w->nr_ref) {
		w->bad_frames++;
		return 0;
	}
	r = &w->ref[w->seen];
	w->bad_ordinal += c->ordinal != w->seen;
	w->seen++;
	w->bad_frames += c->nr != r->nr || memcmp(c->frames, r->frames, c->nr * sizeof(uint32_t));
	w->bad_lcp += c->lcp != r->lcp;
	w->bad_cells += c->nr_cells != r->nr_cells ||
			memcmp(c->cells, r->cells, c->nr_cells * sizeof(*c->cells));
	return 0;
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* The sorter's unnamed file in dir, from /proc/self/fd: -1 when none. */
static int tmp_fd(const char *dir)
{
	char path[64], target[4096];
	int fd;
	ssize_t n;

	for (fd = 3; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strncmp(target, dir, strlen(dir)) && strstr(target, "(deleted)"))
			return fd;
	}
	return -1;
}

#define NBASE 300
#define NADD 20000

int main(void)
{
	static const size_t budgets[] = { 0, 1 << 16, 4096, 300, 1 };
	uint32_t *base[NBASE], base_nr[NBASE];
	struct add *adds = calloc(NADD, sizeof(*adds));
	struct ref *ref;
	size_t nr_ref, i, b;
	uint64_t frames = 0, samples = 0;
	char dir[] = "/tmp/test-chainsort.XXXXXX";
	struct chainsort *cs;
	int err;

	ok(mkdtemp(dir) != NULL, "a folder for the sort");
	/* chains from a few frame ids, so that prefixes are shared; some past a block */
	for (i = 0; i < NBASE; i++) {
		uint32_t j, nr = i % 97 == 5 ? 9000 + (uint32_t)(next() % 3000)
					     : 1 + (uint32_t)(next() % 40);

		base[i] = malloc(nr * sizeof(uint32_t));
		for (j = 0; j < nr; j++)
			base[i][j] = i < 20 || j < 3 ? (uint32_t)(next() % 4)
						      : (uint32_t)(next() % 8);
		base_nr[i] = nr;
	}
	for (i = 0; i < NADD; i++) {
		size_t k = next() % NBASE;
		struct add *a = &adds[i];

		/* a prefix of a base chain now and then: a chain and its extension both */
		a->frames = base[k];
		a->nr = next() % 5 ? base_nr[k] : 1 + (uint32_t)(next() % base_nr[k]);
		a->cell.run = (uint32_t)(next() % 2);
		a->cell.event = (uint32_t)(next() % 2);
		a->cell.comm = (uint32_t)(next() % 3);
		a->cell.pid = (uint32_t)(next() % 2);
		a->cell.samples = 1 + next() % 5;
		a->cell.period = i % 1000 == 7 ? UINT64_MAX - 5 : next() % 100000;
	}
	ref = model(adds, NADD, &nr_ref);
	for (i = 0; i < nr_ref; i++) {
		uint32_t c;

		frames += ref[i].nr;
		for (c = 0; c < ref[i].nr_cells; c++)
			sat(&samples, ref[i].cells[c].samples);
	}
	ok(nr_ref > 500 && nr_ref < NADD, "the model: %zu distinct chains of %d adds", nr_ref, NADD);

	for (b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		struct walk w1 = { .ref = ref, .nr_ref = nr_ref }, w2 = w1, w3 = w1;
		struct chainsrc *src;
		int adderr = 0;

		cs = chainsort__new(dir, budgets[b]);
		if (!ok(cs != NULL, "budget %zu: a sorter", budgets[b]))
			continue;
		for (i = 0; i < NADD && !adderr; i++)
			adderr = chainsort__add(cs, adds[i].frames, adds[i].nr, &adds[i].cell);
		is_int(adderr, 0, "every chain added");
		ok(entries(dir) == 0, "nothing with a name in the folder while it runs");
		src = chainsort__finish(cs, &err);
		if (!ok(src && !err, "budget %zu: finished (%d)", budgets[b], err))
			continue;
		ok(src->nr_chains == nr_ref && src->nr_frames == frames && src->samples == samples,
		   "its counts: %llu chains, %llu frames, %llu samples (model %zu, %llu, %llu)",
		   (unsigned long long)src->nr_chains, (unsigned long long)src->nr_frames,
		   (unsigned long long)src->samples, nr_ref, (unsigned long long)frames,
		   (unsigned long long)samples);
		is_int(chainsrc__each(src, check, &w1), 0, "the walk");
		ok(w1.seen == nr_ref && !w1.bad_frames && !w1.bad_ordinal,
		   "every chain once, in order (%zu of %zu, %zu wrong, %zu ordinals)",
		   w1.seen, nr_ref, w1.bad_frames, w1.bad_ordinal);
		ok(!w1.bad_lcp, "the lcps (%zu wrong)", w1.bad_lcp);
		ok(!w1.bad_cells, "the cells merged and summed, saturating (%zu wrong)", w1.bad_cells);
		is_int(chainsrc__each(src, check, &w2), 0, "a second walk");
		ok(w2.seen == nr_ref && !w2.bad_frames && !w2.bad_lcp && !w2.bad_cells &&
		   !w2.bad_ordinal, "the same as the first");
		w3.stop_at = 10;
		is_int(chainsrc__each(src, check, &w3), 42, "fn's non-zero return stops the walk");
		chainsrc__release(src);
		ok(entries(dir) == 0, "nothing left in the folder");
	}

	/* a corrupt block: an error of the walk, not a crash */
	cs = chainsort__new(dir, 4096);
	for (i = 0; i < NADD; i++)
		chainsort__add(cs, adds[i].frames, adds[i].nr, &adds[i].cell);
	{
		struct walk w = { .ref = ref, .nr_ref = nr_ref };
		struct chainsrc *src = chainsort__finish(cs, &err);
		int fd = tmp_fd(dir), werr;
		unsigned char junk[64];
		struct stat sb;

		memset(junk, 0x55, sizeof(junk));
		ok(fd >= 0 && !fstat(fd, &sb) && sb.st_size > 4096 &&
		   pwrite(fd, junk, sizeof(junk), sb.st_size - 80) == sizeof(junk),
		   "the file found and overwritten in its merged run");
		werr = chainsrc__each(src, check, &w);
		ok(werr == -EIO || werr == -EPROTO, "the walk: %d (-EIO or -EPROTO)", werr);
		chainsrc__release(src);
	}

	/* a run that fails midway (a file size limit): written again by finish, counted once */
	{
		struct rlimit was, lim;
		struct walk w;
		struct chainsrc *src;
		struct ref *part;
		size_t nr_part, k = 0;
		int adderr = 0, werr;

		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &was);
		lim = was;
		lim.rlim_cur = 2000;
		cs = chainsort__new(dir, 1 << 16);
		setrlimit(RLIMIT_FSIZE, &lim);
		for (k = 0; k < NADD && !adderr; k++)
			adderr = chainsort__add(cs, adds[k].frames, adds[k].nr, &adds[k].cell);
		setrlimit(RLIMIT_FSIZE, &was);
		k--;	/* adds[k] failed: not added */
		ok(adderr == -EFBIG && k > 0, "the file size limit: add %zu fails (%d)", k, adderr);
		part = model(adds, k, &nr_part);
		src = chainsort__finish(cs, &err);
		ok(src && !err, "finished once the limit is raised (%d)", err);
		if (src) {
			w = (struct walk){ .ref = part, .nr_ref = nr_part };
			ok(src->nr_chains == nr_part, "counted once: %llu chains (model %zu)",
			   (unsigned long long)src->nr_chains, nr_part);
			werr = chainsrc__each(src, check, &w);
			ok(!werr && w.seen == nr_part && !w.bad_frames && !w.bad_cells,
			   "the walk: %d, %zu of %zu chains, %zu wrong", werr, w.seen, nr_part,
			   w.bad_frames + w.bad_cells);
			chainsrc__release(src);
		}
		for (i = 0; i < nr_part; i++)
			free(part[i].cells);
		free(part);
	}

	/* an empty sort, and a chain of no frames */
	cs = chainsort__new(dir, 0);
	is_int(chainsort__add(cs, base[0], 0, &adds[0].cell), -EINVAL, "a chain of no frames");
	{
		struct walk w = { .ref = ref, .nr_ref = 0 };
		struct chainsrc *src = chainsort__finish(cs, &err);

		ok(src && !err && src->nr_chains == 0 && !chainsrc__each(src, check, &w) && !w.seen,
		   "nothing added: an empty source");
		chainsrc__release(src);
	}
	/* a sorter never finished */
	cs = chainsort__new(dir, 100);
	for (i = 0; i < 100; i++)
		chainsort__add(cs, adds[i].frames, adds[i].nr, &adds[i].cell);
	chainsort__free(cs);
	chainsort__free(NULL);
	ok(entries(dir) == 0, "a sorter freed unfinished leaves nothing");

	errno = 0;
	cs = chainsort__new("/nonexistent/folder", 0);
	ok(!cs && errno == ENOENT, "a folder that is not there: NULL, errno %d", errno);
	if (geteuid() != 0) {
		char ro[] = "/tmp/test-chainsort-ro.XXXXXX";

		mkdtemp(ro);
		chmod(ro, 0500);
		errno = 0;
		cs = chainsort__new(ro, 0);
		ok(!cs && errno == EACCES, "a folder not writable: NULL, errno %d", errno);
		rmdir(ro);
	}
	rmdir(dir);
	for (i = 0; i < nr_ref; i++)
		free(ref[i].cells);
	free(ref);
	for (i = 0; i < NBASE; i++)
		free(base[i]);
	free(adds);
	return done_testing();
}
