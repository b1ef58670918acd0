/*
 * profile__take_chains against a naive model: random chains (an
 * array-backed chainsrc) put whole into an unbounded profile, and through
 * take_chains into the same profile with little room.  Every node of
 * the model's trie of weight (every cell under it) at least the
 * threshold T, and every node p had, is in the bounded trie, the former
 * with the same inclusive samples per (run, event); every [elided] node
 * hangs under the root or a node of weight >= T; self per sampled frame
 * and the total are equal; the nodes stay within the room; p->whole
 * yields exactly the elided chains with their lcp; a prefix already in
 * p is used as it is; p's light nodes get no [elided] child;
 * rand-recurse's shape, where the rule before cut, cuts nothing; no room
 * falls back to the cut; a source's error mid-walk is returned, and src
 * released once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"
#include "tap.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- the array-backed chainsrc ---- */

struct achain {
	uint32_t *f;
	uint32_t nr, lcp;
	struct chain_cell *cells;
	uint32_t nr_cells;
};

struct asrc {
	struct chainsrc src;
	struct achain *c;
	size_t n;
	int walks, fail_walk;	/* fail_walk: the walk (1, 2, ...) that fails at fail_at */
	uint64_t fail_at;
	int *released;
};

static int asrc_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct asrc *a = (struct asrc *)src;
	size_t i;

	a->walks++;
	for (i = 0; i < a->n; i++) {
		struct chain_rec r = { .frames = a->c[i].f, .nr = a->c[i].nr, .lcp = a->c[i].lcp,
				       .cells = a->c[i].cells, .nr_cells = a->c[i].nr_cells,
				       .ordinal = i };
		int err;

		if (a->walks == a->fail_walk && i == a->fail_at)
			return -EIO;
		err = fn(ctx, &r);
		if (err)
			return err;
	}
	return 0;
}

static void chains_free(struct achain *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(c[i].f);
		free(c[i].cells);
	}
	free(c);
}

static void asrc_release(struct chainsrc *src)
{
	struct asrc *a = (struct asrc *)src;

	(*a->released)++;
	chains_free(a->c, a->n);
	free(a);
}

static int chain_cmp(const void *x, const void *y)
{
	const struct achain *a = x, *b = y;
	uint32_t i;

	for (i = 0; i < a->nr && i < b->nr; i++)
		if (a->f[i] != b->f[i])
			return a->f[i] < b->f[i] ? -1 : 1;
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static int cell_cmp(const void *x, const void *y)
{
	const struct chain_cell *a = x, *b = y;

	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static uint32_t lcp_of(const struct achain *a, const struct achain *b)
{
	uint32_t i = 0;

	while (i < a->nr && i < b->nr && a->f[i] == b->f[i])
		i++;
	return i;
}

/* Sort, merge duplicates (cells appended, then merged), compute lcp. */
static size_t chains_finish(struct achain *c, size_t n)
{
	size_t i, m = 0;

	qsort(c, n, sizeof(*c), chain_cmp);
	for (i = 0; i < n; i++) {
		if (m && !chain_cmp(&c[m - 1], &c[i])) {
			struct achain *d = &c[m - 1];

			d->cells = xrealloc(d->cells, (d->nr_cells + c[i].nr_cells) * sizeof(*d->cells));
			memcpy(d->cells + d->nr_cells, c[i].cells, c[i].nr_cells * sizeof(*d->cells));
			d->nr_cells += c[i].nr_cells;
			free(c[i].f);
			free(c[i].cells);
			continue;
		}
		c[m++] = c[i];
	}
	for (i = 0; i < m; i++) {
		struct achain *d = &c[i];
		uint32_t j, k = 0;

		qsort(d->cells, d->nr_cells, sizeof(*d->cells), cell_cmp);
		for (j = 0; j < d->nr_cells; j++) {
			if (k && !cell_cmp(&d->cells[k - 1], &d->cells[j])) {
				d->cells[k - 1].samples += d->cells[j].samples;
				d->cells[k - 1].period += d->cells[j].period;
			} else {
				d->cells[k++] = d->cells[j];
			}
		}
		d->nr_cells = k;
		d->lcp = i ? lcp_of(&c[i - 1], d) : 0;
	}
	return m;
}

static struct achain chain_of(const uint32_t *f, uint32_t nr, uint64_t samples)
{
	struct achain c = { .nr = nr, .nr_cells = 1 };

	c.f = xmalloc(nr * sizeof(*c.f));
	memcpy(c.f, f, nr * sizeof(*c.f));
	c.cells = xcalloc(1, sizeof(*c.cells));
	c.cells[0] = (struct chain_cell){ .samples = samples, .period = samples * 1000 };
	return c;
}

static struct achain *chains_copy(const struct achain *c, size_t n)
{
	struct achain *d = xcalloc(n ? n : 1, sizeof(*d));
	size_t i;

	for (i = 0; i < n; i++) {
		d[i] = c[i];
		d[i].f = xmalloc(c[i].nr * sizeof(*d[i].f));
		memcpy(d[i].f, c[i].f, c[i].nr * sizeof(*d[i].f));
		d[i].cells = xmalloc(c[i].nr_cells * sizeof(*d[i].cells));
		memcpy(d[i].cells, c[i].cells, c[i].nr_cells * sizeof(*d[i].cells));
	}
	return d;
}

static int nr_released;

static struct chainsrc *asrc_new(const struct achain *c, size_t n)
{
	struct asrc *a = xcalloc(1, sizeof(*a));
	size_t i, j;

	a->src.each = asrc_each;
	a->src.release = asrc_release;
	a->c = chains_copy(c, n);
	a->n = n;
	a->released = &nr_released;
	for (i = 0; i < n; i++) {
		a->src.nr_frames += c[i].nr;
		for (j = 0; j < c[i].nr_cells; j++)
			a->src.samples += c[i].cells[j].samples;
	}
	a->src.nr_chains = n;
	return &a->src;
}

/* ---- profiles ---- */

#define NFRAMES 24	/* the random chains' frames */
#define MAXFRAMES 160	/* the profiles' */

static struct profile *profile_base(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { 0 };
	struct run r = { 0 };
	uint32_t i;

	ev.name = profile__intern(p, "cpu-clock");
	profile__add_event(p, &ev);
	ev.name = profile__intern(p, "page-faults");
	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	profile__add_run(p, &r);
	for (i = 0; i < MAXFRAMES; i++) {
		struct frame f = { .addr = 0x1000 + i, .sym = profile__intern(p, "fn") };

		profile__frame(p, &f);
	}
	return p;
}

static uint32_t put_whole(struct profile *p, const struct achain *c)
{
	uint32_t node = PROFILE_ROOT, i;

	for (i = 0; i < c->nr; i++)
		node = profile__node(p, node, c->f[i]);
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *x = &c->cells[i];

		profile__add_count(p, x->run, x->event, x->comm, x->pid, node, x->samples, x->period);
	}
	return node;
}

static uint64_t chain_samples(const struct achain *c)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < c->nr_cells; i++)
		s += c->cells[i].samples;
	return s;
}

/* Inclusive samples per node and (run, event): [node * 4 + run * 2 + event]. */
static uint64_t *inclusive(const struct profile *p)
{
	uint64_t *in = xcalloc(p->nr_nodes * 4, sizeof(*in));
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		in[p->counts[i].node * 4 + p->counts[i].run * 2 + p->counts[i].event] +=
			p->counts[i].samples;
	for (i = p->nr_nodes; i-- > 1;) {
		uint32_t k;

		for (k = 0; k < 4; k++)
			in[p->nodes[i].parent * 4 + k] += in[i * 4 + k];
	}
	return in;
}

/* Self samples per frame and (run, event), [frame * 4 + run * 2 + event]. */
static uint64_t *self_by_frame(const struct profile *p)
{
	uint64_t *s = xcalloc(p->nr_frames * 4, sizeof(*s));
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		s[p->nodes[p->counts[i].node].frame * 4 + p->counts[i].run * 2 + p->counts[i].event] +=
			p->counts[i].samples;
	return s;
}

/* Distinct sampled frames of c with no child of p's root. */
static size_t cut_reserve(struct profile *p, const struct achain *c, size_t n)
{
	char seen[MAXFRAMES] = { 0 };
	size_t i, r = 0;

	for (i = 0; i < n; i++) {
		uint32_t f = c[i].f[c[i].nr - 1];

		if (!seen[f] && !profile__child(p, PROFILE_ROOT, f))
			r++;
		seen[f] = 1;
	}
	return r;
}

/* p->whole's walk, checked against src's chains. */
struct whole_check {
	const struct achain *c;
	size_t n, at;
	const struct achain *prev;
	uint64_t ordinal, samples, frames;
	int bad_order, bad_lcp, bad_ordinal;
	struct profile *p;
	uint32_t ef;
	int not_under_elided;
};

static int whole_cb(void *ctx, const struct chain_rec *r)
{
	struct whole_check *w = ctx;
	struct achain me = { .f = (uint32_t *)r->frames, .nr = r->nr };
	uint32_t i, node = PROFILE_ROOT, found = 0;

	while (w->at < w->n && chain_cmp(&w->c[w->at], &me))
		w->at++;
	if (w->at == w->n) {
		w->bad_order++;
		return 0;
	}
	if (r->lcp != (w->prev ? lcp_of(w->prev, &me) : 0))
		w->bad_lcp++;
	if (r->ordinal != w->ordinal++)
		w->bad_ordinal++;
	for (i = 0; i < r->nr_cells; i++)
		w->samples += r->cells[i].samples;
	w->frames += r->nr;
	/* its leaf under [elided] below a proper prefix, two frames short at least */
	for (i = 0; i + 2 <= r->nr && (i == 0 || node); i++) {
		uint32_t e = profile__child(w->p, node, w->ef);

		if (e && profile__child(w->p, e, r->frames[r->nr - 1]))
			found = 1;
		node = profile__child(w->p, node, r->frames[i]);
	}
	w->not_under_elided += !found;
	w->prev = &w->c[w->at++];
	return 0;
}

static uint32_t elided_frame_of(const struct profile *p)
{
	uint32_t f;

	for (f = 0; f < p->nr_frames; f++)
		if (profile__frame_elided(p, f))
			return f;
	return UINT32_MAX;
}

/* Samples of the cells whose node's parent is an [elided] node. */
static uint64_t under_elided(const struct profile *p, int *at_elided)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++) {
		const struct stack_node *n = &p->nodes[p->counts[i].node];

		if (profile__frame_elided(p, n->frame))
			(*at_elided)++;
		if (p->counts[i].node && profile__frame_elided(p, p->nodes[n->parent].frame))
			s += p->counts[i].samples;
	}
	return s;
}

static void random_chains(struct achain **out, size_t *nout, size_t n, uint32_t alphabet,
			  uint32_t maxdepth)
{
	struct achain *c = xcalloc(n, sizeof(*c));
	uint32_t f[64];
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t nr = 1 + (uint32_t)(next() % maxdepth), j, k;

		/* skewed: low frames likelier, so that prefixes are shared and weights vary */
		for (j = 0; j < nr; j++)
			f[j] = (uint32_t)(next() % (1 + next() % alphabet));
		c[i].nr = nr;
		c[i].f = xmalloc(nr * sizeof(uint32_t));
		memcpy(c[i].f, f, nr * sizeof(uint32_t));
		c[i].nr_cells = 1 + (uint32_t)(next() % 3);
		c[i].cells = xcalloc(c[i].nr_cells, sizeof(*c[i].cells));
		for (k = 0; k < c[i].nr_cells; k++) {
			struct chain_cell *x = &c[i].cells[k];

			x->run = (uint32_t)(next() % 2);
			x->event = (uint32_t)(next() % 2);
			x->pid = (uint32_t)(next() % 3);
			x->samples = next() % 8 ? 1 + next() % 4 : 50 + next() % 5000;
			x->period = x->samples * 1000;
		}
	}
	*nout = chains_finish(c, n);
	*out = c;
}

/* chaintake.h's histogram: a bucket each below 4096, then 64 an octave. */
static uint32_t model_bucket(uint64_t w)
{
	uint32_t k = 0;

	if (w < 4096)
		return (uint32_t)w;
	while (w >> (k + 1))
		k++;
	return 4096 + (k - 12) * 64 + (uint32_t)((w >> (k - 6)) & 63);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t model_low(uint32_t b)
{
	if (b < 4096)
		return b;
	return (uint64_t)(64 + (b - 4096) % 64) << (12 + (b - 4096) / 64 - 6);
}

/*
 * chaintake.h's T, naively.  A node's weight W: p's own cells under it
 * plus src's chains through it (the model's inclusive samples, every
 * cell); heavy: W >= T, the root always.  At T, the new nodes of W >= T
 * are kept; a new node v of src's paths, light under a heavy parent,
 * where a chain ends is made (1); each heavy node K whose light children
 * of src's paths have chains that leave p's trie (a new child's below
 * it, p's through it) takes one [elided] and min(those chains, the
 * distinct sampled frames of src up to K's last chain).  T is the least
 * step of the histogram where the kept nodes and that bound fit room,
 * else one past the heaviest node of src's paths (*fit 0).
 */
static uint64_t model_threshold(struct profile *m, size_t n0, const uint64_t *W,
				const struct achain *c, size_t n, size_t room, int *fit)
{
	size_t nn = m->nr_nodes, i, k, nb = 0;
	uint64_t *chains = xcalloc(nn, sizeof(*chains)), *last = xcalloc(nn, sizeof(*last));
	uint64_t *out = xcalloc(nn, sizeof(*out)), *leaves = xcalloc(n + 1, sizeof(*leaves));
	uint64_t maxw = 0, t = 0;
	uint64_t *elided = xcalloc(nn, sizeof(*elided));
	char *ends = xcalloc(nn, 1), *seen = xcalloc(MAXFRAMES, 1);
	uint32_t *cand = xcalloc(nn + 1, sizeof(*cand)), top;

	*fit = 0;
	for (i = 0; i < n; i++) {
		uint32_t node = PROFILE_ROOT, j, path[MAXFRAMES];

		for (j = 0; j < c[i].nr; j++) {
			node = profile__child(m, node, c[i].f[j]);
			path[j] = node;
			chains[node]++;
			last[node] = i;
		}
		ends[node] = 1;
		if (node >= n0)
			for (j = 0; j < c[i].nr; j++)
				out[path[j]]++;
		leaves[i] = (i ? leaves[i - 1] : 0) + !seen[c[i].f[c[i].nr - 1]];
		seen[c[i].f[c[i].nr - 1]] = 1;
	}
	if (!n)
		goto out;
	cand[nb++] = 0;
	for (i = 1; i < nn; i++) {
		if (!chains[i])
			continue;
		cand[nb++] = model_bucket(W[i]) + 1;
		if (W[i] > maxw)
			maxw = W[i];
	}
	top = model_bucket(maxw) + 1;
	t = maxw + 1;
	qsort(cand, nb, sizeof(*cand), u32_cmp);
	for (k = 0; k < nb; k++) {
		uint64_t T = cand[k] < top ? model_low(cand[k]) : maxw + 1, kept = 0, bound = 0;

		if (k && cand[k] == cand[k - 1])
			continue;
		memset(elided, 0, nn * sizeof(*elided));
		for (i = 1; i < nn; i++) {
			uint32_t par = m->nodes[i].parent;
			uint64_t deep = i >= n0 ? chains[i] - ends[i] : out[i];

			if (!chains[i])
				continue;
			if (W[i] >= T) {
				kept += i >= n0;
				continue;
			}
			if (par && W[par] < T)
				continue;
			bound += i >= n0 ? ends[i] : 0;
			elided[par] += deep;
		}
		for (i = 0; i < nn; i++) {
			uint64_t l = leaves[i ? last[i] : n - 1];

			if (elided[i])
				bound += 1 + (elided[i] < l ? elided[i] : l);
		}
		if (kept + bound <= room) {
			*fit = 1;
			t = T;
			break;
		}
	}
out:
	free(chains);
	free(last);
	free(out);
	free(leaves);
	free(ends);
	free(seen);
	free(elided);
	free(cand);
	if (!n)
		*fit = 1;
	return t;
}

/* What take_check finds wrong, summed over its calls. */
struct tally {
	int trials, fails, nocut, elided_trials, cut_trials;
	int bad_exist, bad_incl, bad_self, bad_total, bad_nodes, bad_whole, bad_meta, bad_kept;
	int bad_det, bad_released, bad_threshold, bad_elided_parent;
};

/*
 * pre put whole into p, then src through take_chains with room nodes
 * beyond the cuts' reservation (twice, for determinism), against pre and
 * src all put whole into a model.  st: the first call's stats.
 */
static void take_check(struct tally *k, const struct achain *pre, size_t npre,
		       const struct achain *src, size_t nsrc, size_t room, int room_part,
		       struct chaintake_stats *st_out)
{
	struct profile *model = profile_base(), *b = profile_base(), *b2 = profile_base();
	struct chaintake_stats st, st2;
	uint64_t *w, *W = NULL, *im = NULL, *ib = NULL, *sm, *sb, total = 0;
	uint32_t *map, *bmap, ef;
	size_t n0, i, fcut, new_total, kept = 0;
	int rc, rc2, rel = nr_released, at_elided = 0, fit;

	k->trials++;
	for (i = 0; i < npre; i++) {
		put_whole(model, &pre[i]);
		put_whole(b, &pre[i]);
		put_whole(b2, &pre[i]);
	}
	n0 = b->nr_nodes;
	for (i = 0; i < nsrc; i++) {
		put_whole(model, &src[i]);
		total += chain_samples(&src[i]);
	}
	/* w: src's samples through each node of the model; W: every cell's */
	w = xcalloc(model->nr_nodes, sizeof(*w));
	for (i = 0; i < nsrc; i++) {
		uint32_t node = PROFILE_ROOT, j;
		uint64_t s = chain_samples(&src[i]);

		for (j = 0; j < src[i].nr; j++) {
			node = profile__child(model, node, src[i].f[j]);
			w[node] += s;
		}
	}
	im = inclusive(model);
	W = xcalloc(model->nr_nodes, sizeof(*W));
	for (i = 0; i < model->nr_nodes; i++)
		W[i] = im[i * 4] + im[i * 4 + 1] + im[i * 4 + 2] + im[i * 4 + 3];
	fcut = cut_reserve(b, src, nsrc);
	new_total = model->nr_nodes - n0;
	/*
	 * room_part 1: room a random number, the room a part of the new nodes
	 * (SIZE_MAX: all); 2: room is max_nodes; 0: the room past n0 and the
	 * cuts' reservation.
	 */
	if (room_part == 1)
		room = room == SIZE_MAX ? new_total + 5 : room % (new_total + 1);
	else if (room_part == 2)
		room = room > n0 + fcut ? room - n0 - fcut : 0;
	rc = profile__take_chains(b, asrc_new(src, nsrc), n0 + fcut + room, &st);
	rc2 = profile__take_chains(b2, asrc_new(src, nsrc), n0 + fcut + room, &st2);
	if (rc || rc2) {
		k->fails++;
		goto out;
	}
	if (st_out)
		*st_out = st;
	k->bad_released += nr_released != rel + 2 - !!b->whole - !!b2->whole;
	k->bad_det += b->nr_nodes != b2->nr_nodes || b->nr_counts != b2->nr_counts ||
		      memcmp(b->nodes, b2->nodes, b->nr_nodes * sizeof(*b->nodes)) ||
		      memcmp(b->counts, b2->counts, b->nr_counts * sizeof(*b->counts)) ||
		      memcmp(&st, &st2, sizeof(st));
	k->bad_nodes += b->nr_nodes > n0 + fcut + room || st.nodes_added != b->nr_nodes - n0 ||
			st.chains != nsrc;
	if (st.cut_samples)
		k->cut_trials++;
	else
		k->nocut++;
	/* the new nodes kept fit the room */
	for (i = n0; i < model->nr_nodes; i++)
		kept += w[i] >= st.threshold;
	k->bad_threshold += st.threshold != model_threshold(model, n0, W, src, nsrc, fcut + room, &fit);
	/* a chain is cut only when no threshold fits: then no new node is kept */
	k->bad_kept += kept > fcut + room || (room >= new_total && (st.threshold || st.elided_chains)) ||
		       (st.cut_samples && (kept || fit));
	/* the model's nodes: the map to b's, by path */
	map = xcalloc(model->nr_nodes, sizeof(*map));
	ib = inclusive(b);
	for (i = 1; i < model->nr_nodes; i++) {
		uint32_t par = map[model->nodes[i].parent];
		int kk;

		if (i >= n0 && W[i] < st.threshold)
			continue;
		map[i] = par || !model->nodes[i].parent ? profile__child(b, par, model->nodes[i].frame) : 0;
		if (!map[i]) {
			k->bad_exist++;
			continue;
		}
		if (st.cut_samples || W[i] < st.threshold)
			continue;
		for (kk = 0; kk < 4; kk++)
			if (im[i * 4 + kk] != ib[map[i] * 4 + kk])
				k->bad_incl++;
	}
	/* b's nodes: the map to the model's (UINT32_MAX: [elided], under it, a cut) */
	ef = elided_frame_of(b);
	bmap = xcalloc(b->nr_nodes, sizeof(*bmap));
	for (i = 1; i < b->nr_nodes; i++) {
		uint32_t par = b->nodes[i].parent, u;

		bmap[i] = UINT32_MAX;
		if (bmap[par] == UINT32_MAX || b->nodes[i].frame == ef)
			continue;
		u = profile__child(model, bmap[par], b->nodes[i].frame);
		if (u)
			bmap[i] = u;
	}
	for (i = 1; i < b->nr_nodes; i++) {
		uint32_t par = b->nodes[i].parent;

		if (b->nodes[i].frame != ef || !par)
			continue;
		k->bad_elided_parent += bmap[par] == UINT32_MAX || W[bmap[par]] < st.threshold;
	}
	free(bmap);
	sm = self_by_frame(model);
	sb = self_by_frame(b);
	for (i = 0; i < model->nr_frames * 4; i++)
		k->bad_self += sm[i] != sb[i];
	k->bad_total += model->sum_samples != b->sum_samples;
	/* p->whole: exactly the elided chains */
	if (st.elided_chains) {
		struct whole_check wc = { .c = src, .n = nsrc, .p = b, .ef = ef };
		uint64_t ue = under_elided(b, &at_elided);
		int r1, r2;

		k->elided_trials++;
		r1 = chainsrc__each(b->whole, whole_cb, &wc);
		k->bad_whole += r1 || wc.bad_order || wc.bad_lcp || wc.bad_ordinal || wc.not_under_elided ||
				wc.ordinal != st.elided_chains || wc.samples != st.elided_samples ||
				ue != st.elided_samples || at_elided || b->whole->nr_chains != wc.ordinal ||
				b->whole->samples != wc.samples || b->whole->nr_frames != wc.frames;
		/* a second walk yields the same */
		memset(&wc, 0, sizeof(wc));
		wc.c = src;
		wc.n = nsrc;
		wc.p = b;
		wc.ef = ef;
		r2 = chainsrc__each(b->whole, whole_cb, &wc);
		k->bad_whole += r2 || wc.ordinal != st.elided_chains || wc.bad_lcp;
		k->bad_meta += !profile__meta(b, "chains_elided") ||
			       strtoull(profile__meta(b, "chains_elided"), NULL, 10) != st.elided_samples ||
			       !profile__meta(b, "chains_elided_below") ||
			       strtoull(profile__meta(b, "chains_elided_below"), NULL, 10) != st.threshold;
	} else {
		k->bad_whole += b->whole != NULL || ef != UINT32_MAX;
		k->bad_meta += profile__meta(b, "chains_elided") != NULL;
	}
	k->bad_total += st.elided_samples > total || st.cut_samples > total;
	free(map);
	free(sm);
	free(sb);
out:
	free(w);
	free(W);
	free(im);
	free(ib);
	profile__free(model);
	profile__free(b);
	profile__free(b2);
}

static void tally_report(const struct tally *k, const char *what)
{
	ok(!k->fails, "%s: take_chains returns 0 (%d of %d failed)", what, k->fails, k->trials);
	ok(!k->bad_exist, "%s: every node of the unbounded trie of weight >= T, and every node p had, is in the bounded one (%d missing)",
	   what, k->bad_exist);
	ok(!k->bad_incl, "%s: with no chain cut, the inclusive samples per (run, event) of the nodes of weight >= T are the unbounded trie's (%d differ)",
	   what, k->bad_incl);
	ok(!k->bad_elided_parent, "%s: every [elided] node's parent is the root or of weight >= T (%d not)",
	   what, k->bad_elided_parent);
	ok(!k->bad_self, "%s: self samples per sampled frame and (run, event) are the unbounded trie's (%d differ)",
	   what, k->bad_self);
	ok(!k->bad_total, "%s: total samples equal, elided and cut within them (%d differ)", what,
	   k->bad_total);
	ok(!k->bad_nodes, "%s: nodes within max_nodes, nodes_added and chains as counted (%d not)", what,
	   k->bad_nodes);
	ok(!k->bad_threshold, "%s: T is a naive model's: the least step of the histogram where the kept nodes and the elision bound fit, else one past the heaviest node of src's paths (%d differ)",
	   what, k->bad_threshold);
	ok(!k->bad_kept, "%s: the new nodes of weight >= T fit the room; with room for all, T = 0 and nothing elided; a cut only where no threshold fits, and then none is kept (%d not)",
	   what, k->bad_kept);
	ok(!k->bad_whole, "%s: p->whole yields exactly the elided chains in order, lcp and ordinal over what it yields, twice, each under [elided] (%d not)",
	   what, k->bad_whole);
	ok(!k->bad_meta, "%s: meta chains_elided and chains_elided_below set exactly when a chain is elided (%d not)",
	   what, k->bad_meta);
	ok(!k->bad_det, "%s: the same profile and chains give the same trie, cells and stats (%d differ)",
	   what, k->bad_det);
	ok(!k->bad_released, "%s: src is released at once when nothing is elided, else kept in p->whole (%d not)",
	   what, k->bad_released);
}

static void test_random(void)
{
	struct tally k = { 0 };
	int trial;

	for (trial = 0; trial < 300; trial++) {
		struct achain *pre, *src;
		size_t npre, nsrc;

		random_chains(&pre, &npre, next() % 20, 8, 6);
		random_chains(&src, &nsrc, 1 + next() % 200, NFRAMES, 1 + (uint32_t)(next() % 14));
		/* room: a random part of the new nodes, or (a tenth) all of them */
		take_check(&k, pre, npre, src, nsrc, trial % 10 == 0 ? SIZE_MAX : (size_t)next(), 1,
			   NULL);
		chains_free(pre, npre);
		chains_free(src, nsrc);
	}
	ok(k.elided_trials > 50 && k.cut_trials > 5 && k.nocut > 100,
	   "the trials cover elision (%d), cuts (%d) and no cut (%d)", k.elided_trials, k.cut_trials,
	   k.nocut);
	tally_report(&k, "300 random profiles");
}

/*
 * rand-recurse's shape (tests/bench/chaintake.c): main, 8 to 127 calls of
 * 16 functions in random order, one of 100 sampled frames; one sample a
 * chain, the first into p in arrival order while their new nodes fit 3/4
 * of max_nodes, the rest the source.  The rule before (a chain hangs
 * under its deepest node in the trie, p's own nodes always counted as
 * heavy) gave each light node of p its own [elided] node and leaves:
 * here (9,770 chains into 20,000 nodes) it cut 2,395 samples (25 %);
 * bench/chaintake's full size (776 K chains into 2 Mi nodes) 26 %.
 */
static void test_rand_recurse(void)
{
	enum { STEP0 = 1, LEAF0 = STEP0 + 16, LEAVES = 100, SAMPLES = 10000, MAX_NODES = 20000 };
	struct achain *pre = xcalloc(SAMPLES, sizeof(*pre)), *src = xcalloc(SAMPLES, sizeof(*src));
	struct profile *scratch = profile_base();
	struct chaintake_stats st = { 0 };
	struct tally k = { 0 };
	size_t npre = 0, nsrc = 0, i;
	uint64_t total = 0;

	for (i = 0; i < SAMPLES; i++) {
		uint32_t f[MAXFRAMES], d = 8 + (uint32_t)(next() % 120), nr = d + 2, j, have = 0;
		uint32_t node = PROFILE_ROOT, u;

		f[0] = 0;
		for (j = 1; j <= d; j++)
			f[j] = STEP0 + (uint32_t)(next() & 15);
		f[nr - 1] = LEAF0 + (uint32_t)(next() % LEAVES);
		while (have < nr && (u = profile__child(scratch, node, f[have]))) {
			node = u;
			have++;
		}
		if (scratch->nr_nodes + (nr - have) <= MAX_NODES / 4 * 3) {
			pre[npre] = chain_of(f, nr, 1);
			put_whole(scratch, &pre[npre++]);
		} else {
			src[nsrc++] = chain_of(f, nr, 1);
		}
	}
	nsrc = chains_finish(src, nsrc);
	for (i = 0; i < nsrc; i++)
		total += chain_samples(&src[i]);
	take_check(&k, pre, npre, src, nsrc, MAX_NODES, 2, &st);
	ok(st.cut_samples == 0 && st.elided_samples == total && total > SAMPLES / 2,
	   "rand-recurse's shape, %zu chains into a trie of %u nodes filled to 3/4 by %zu: none cut, %llu of %llu samples elided, T %llu",
	   nsrc, (unsigned)MAX_NODES, npre, (unsigned long long)st.elided_samples,
	   (unsigned long long)total, (unsigned long long)st.threshold);
	tally_report(&k, "rand-recurse's shape");
	chains_free(pre, npre);
	chains_free(src, nsrc);
	profile__free(scratch);
}

/*
 * A light node of p holds its own cells but no [elided] child: the
 * chains through it that leave p's trie are elided from the heavy node
 * above, one [elided] node for both where the rule before needed one
 * under each light node (and, with the room here, cut).
 */
static void test_light_existing(void)
{
	enum { A = 1, B, C, D, K, L, M, X };
	uint32_t a[] = { A }, abc[] = { A, B, C }, akl[] = { A, K, L }, c1[] = { A, B, C, D, X },
		 c2[] = { A, K, L, M, X };
	struct achain pre[3], c[2];
	struct profile *p = profile_base();
	struct chaintake_stats st;
	uint32_t na, nc, nl, ef, el;
	uint64_t *in;
	size_t n0, i;
	int rc;

	pre[0] = chain_of(a, 1, 20);
	pre[1] = chain_of(abc, 3, 1);
	pre[2] = chain_of(akl, 3, 1);
	c[0] = chain_of(c1, 5, 1);
	c[1] = chain_of(c2, 5, 1);
	chains_finish(c, 2);
	for (i = 0; i < 3; i++)
		put_whole(p, &pre[i]);
	n0 = p->nr_nodes;
	na = profile__child(p, PROFILE_ROOT, A);
	nc = profile__child(p, profile__child(p, na, B), C);
	nl = profile__child(p, profile__child(p, na, K), L);
	/*
	 * Weights: A 24, B C K L 2, the new nodes 1; one sampled frame (X).
	 * T 0, 1: 4 new nodes; T 2: C's and L's [elided] and a leaf each, 4;
	 * T 3: B and K light under A: A's [elided] and its one leaf X, 2.
	 */
	rc = profile__take_chains(p, asrc_new(c, 2), n0 + 3, &st);
	ef = elided_frame_of(p);
	el = ef == UINT32_MAX ? 0 : profile__child(p, na, ef);
	ok(rc == 0 && st.threshold == 3 && st.elided_chains == 2 && !st.cut_samples,
	   "light nodes of p: T = 3 (%llu), both chains elided, none cut",
	   (unsigned long long)st.threshold);
	ok(el && profile__child(p, el, X) && p->nr_nodes == n0 + 2 && !profile__child(p, nc, ef) &&
		   !profile__child(p, nl, ef) && !profile__child(p, nc, D) && !profile__child(p, nl, M),
	   "A -> [elided] -> X, one for both; nothing under C or L (%zu nodes, %zu before)",
	   p->nr_nodes, n0);
	in = inclusive(p);
	ok(in[na * 4] == 24 && in[nc * 4] == 1 && in[nl * 4] == 1,
	   "A's inclusive samples are all of its chains' (%llu); C and L keep their own (%llu, %llu)",
	   (unsigned long long)in[na * 4], (unsigned long long)in[nc * 4],
	   (unsigned long long)in[nl * 4]);
	free(in);
	profile__free(p);
	for (i = 0; i < 3; i++) {
		free(pre[i].f);
		free(pre[i].cells);
	}
	for (i = 0; i < 2; i++) {
		free(c[i].f);
		free(c[i].cells);
	}
}

/*
 * A prefix in p is used as it is; where no threshold fits, the cuts'
 * nodes are held first and the elision takes the rest in stream order,
 * under the root (no node of src's paths heavy).
 */
static void test_prefix(void)
{
	enum { A = 1, B, C, D, E, G, H, W, X, Y, Z };
	uint32_t abc[] = { A, B, C }, e[] = { E }, g[] = { G }, cc[] = { C },
		 c1[] = { A, B, C, D, X, Y, E }, c2[] = { A, B, C, D, X, Y, G },
		 c3[] = { A, B, C, D, Z, W, H };
	struct achain pre[4], c[4];
	struct profile *p = profile_base();
	struct chaintake_stats st;
	uint32_t nb, nc, ef, el, le, i;
	size_t n0;
	int rc;

	pre[0] = chain_of(abc, 3, 1);
	pre[1] = chain_of(e, 1, 1);
	pre[2] = chain_of(g, 1, 1);
	pre[3] = chain_of(cc, 1, 1);
	c[0] = chain_of(abc, 3, 1);
	c[1] = chain_of(c1, 7, 4);
	c[2] = chain_of(c2, 7, 1);
	c[3] = chain_of(c3, 7, 1);
	chains_finish(c, 4);
	for (i = 0; i < 4; i++)
		put_whole(p, &pre[i]);
	n0 = p->nr_nodes;
	nb = profile__child(p, profile__child(p, PROFILE_ROOT, A), B);
	nc = profile__child(p, nb, C);
	/*
	 * Weights: A, B, C 8 (1 of p's, 7 of src's), D 6, X Y 5, E 4, the rest
	 * 1.  Kept and bound: every new node 8; T 2, 5: 7; T 6 (D alone): 5;
	 * T 7, none kept: C's [elided] and D's 3 chains, 4; T 9, none heavy
	 * but the root: its [elided] and A's 3 chains, 4.  With 3, none fits;
	 * H has no root child: 1 held, 2 for elision, under the root.
	 */
	rc = profile__take_chains(p, asrc_new(c, 4), n0 + 3, &st);
	ok(rc == 0, "a prefix in p: take_chains returns %d", rc);
	ef = elided_frame_of(p);
	el = ef == UINT32_MAX ? 0 : profile__child(p, PROFILE_ROOT, ef);
	le = el ? profile__child(p, el, E) : 0;
	ok(profile__child(p, PROFILE_ROOT, A) == 1 && nb < n0 && nc < n0 && p->nr_nodes == n0 + 3 &&
		   el && le && profile__child(p, PROFILE_ROOT, H),
	   "A B C are p's own nodes; root -> [elided] -> E and the cut H added (%zu nodes, %zu before)",
	   p->nr_nodes, n0);
	ok(st.threshold == 9 && !profile__child(p, nc, D) && !profile__child(p, nc, ef),
	   "no threshold fits: no new node kept, T = 9, one past the heaviest (A, B, C: 8): %llu",
	   (unsigned long long)st.threshold);
	ok(st.elided_chains == 1 && st.elided_samples == 4 && st.cut_samples == 2,
	   "A B C D X Y E elided (4 samples); A B C D X Y G and A B C D Z W H find no room: cut (2)");
	ok(p->nr_counts == 6 && p->counts[0].node == nc && p->counts[0].samples == 2,
	   "A B C, whole in p already, has its cell at p's own C (%zu cells)", p->nr_counts);
	{
		struct whole_check wc = { .c = c, .n = 4, .p = p, .ef = ef };
		int r = p->whole ? chainsrc__each(p->whole, whole_cb, &wc) : -1;

		ok(!r && wc.ordinal == 1 && !wc.bad_lcp && !wc.bad_order && wc.samples == 4 &&
			   p->whole->nr_chains == 1 && p->whole->nr_frames == 7,
		   "p->whole yields A B C D X Y E alone, ordinal 0, lcp 0");
	}
	profile__free(p);
	for (i = 0; i < 4; i++) {
		free(c[i].f);
		free(c[i].cells);
		free(pre[i].f);
		free(pre[i].cells);
	}
}

/* No room: today's cut, past max_nodes as record's was; with the reservation, within it. */
static void test_no_room(void)
{
	struct achain *src;
	size_t nsrc, i, n0, fcut, k;
	uint64_t total = 0;

	random_chains(&src, &nsrc, 100, NFRAMES, 10);
	for (i = 0; i < nsrc; i++)
		total += chain_samples(&src[i]);
	for (k = 0; k < 2; k++) {
		struct profile *p = profile_base();
		struct chaintake_stats st;
		int rc;

		n0 = p->nr_nodes;
		fcut = cut_reserve(p, src, nsrc);
		rc = profile__take_chains(p, asrc_new(src, nsrc), k ? n0 + fcut : 0, &st);
		ok(rc == 0 && st.cut_samples + st.elided_samples <= total && !p->whole &&
			   !st.elided_chains && !profile__meta(p, "chains_elided"),
		   "max_nodes %s: nothing elided, no p->whole (%llu of %llu samples cut)",
		   k ? "the cuts' reservation" : "0", (unsigned long long)st.cut_samples,
		   (unsigned long long)total);
		ok(p->nr_nodes == n0 + fcut && p->sum_samples == total,
		   "every chain kept at its leaf under the root (or whole, one frame long): %zu nodes, %zu + %zu",
		   p->nr_nodes, n0, fcut);
		profile__free(p);
	}
	chains_free(src, nsrc);
}

static void test_errors(void)
{
	struct achain *src;
	size_t nsrc;
	int walk;

	random_chains(&src, &nsrc, 60, NFRAMES, 8);
	for (walk = 1; walk <= 2; walk++) {
		struct profile *p = profile_base();
		struct chainsrc *s = asrc_new(src, nsrc);
		int rel = nr_released, rc;

		((struct asrc *)s)->fail_walk = walk;
		((struct asrc *)s)->fail_at = nsrc / 2;
		rc = profile__take_chains(p, s, p->nr_nodes + 10, NULL);
		ok(rc == -EIO && !p->whole && nr_released == rel + 1,
		   "a source error mid-way through walk %d is returned (%d), src released, no p->whole",
		   walk, rc);
		profile__free(p);
	}
	{
		struct profile *p = profile_base();
		struct achain *bad = chains_copy(src, nsrc);
		struct achain t = bad[1];
		int rc;

		bad[1] = bad[2];
		bad[2] = t;
		rc = profile__take_chains(p, asrc_new(bad, nsrc), p->nr_nodes + 10, NULL);
		ok(rc == -EPROTO && !p->whole, "chains out of order: -EPROTO (%d)", rc);
		profile__free(p);
		chains_free(bad, nsrc);
	}
	{
		struct profile *p = profile_base();
		struct achain *bad = chains_copy(src, nsrc);
		int rc;

		bad[nsrc - 1].f[bad[nsrc - 1].nr - 1] = 1000;
		rc = profile__take_chains(p, asrc_new(bad, nsrc), p->nr_nodes + 10, NULL);
		ok(rc == -EPROTO, "a frame p does not have: -EPROTO (%d)", rc);
		profile__free(p);
		chains_free(bad, nsrc);
	}
	{
		struct profile *p = profile_base();
		struct achain *bad = chains_copy(src, nsrc);
		uint32_t nr = bad[nsrc / 2].nr;
		int rc;

		bad[nsrc / 2].nr = 0;
		rc = profile__take_chains(p, asrc_new(bad, nsrc), p->nr_nodes + 10, NULL);
		ok(rc == -EPROTO && !p->whole, "a chain of no frame: -EPROTO (%d)", rc);
		bad[nsrc / 2].nr = nr;
		profile__free(p);
		chains_free(bad, nsrc);
	}
	{
		struct profile *p = profile_base();
		struct chainsrc *first = asrc_new(src, nsrc);
		int rel, rc;

		p->whole = first;
		rel = nr_released;
		rc = profile__take_chains(p, asrc_new(src, nsrc), p->nr_nodes + 3, NULL);
		ok(rc == -EEXIST && p->whole == first && nr_released == rel + 1,
		   "a profile with p->whole already: -EEXIST, the new src released (%d)", rc);
		profile__free(p);
	}
	chains_free(src, nsrc);
}

static void test_empty(void)
{
	struct profile *p = profile_base();
	struct chaintake_stats st;
	size_t n0 = p->nr_nodes, nf = p->nr_frames;
	int rel = nr_released, rc = profile__take_chains(p, asrc_new(NULL, 0), 100, &st);

	ok(rc == 0 && !p->whole && nr_released == rel + 1 && p->nr_nodes == n0 &&
		   p->nr_frames == nf && !st.chains && !st.threshold && !st.nodes_added,
	   "no chain: nothing added, src released (%d)", rc);
	profile__free(p);
}

int main(void)
{
	test_random();
	test_prefix();
	test_light_existing();
	test_rand_recurse();
	test_no_room();
	test_errors();
	test_empty();
	return done_testing();
}
