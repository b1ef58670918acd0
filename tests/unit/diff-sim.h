/*
 * diff-sim: synthetic recordings with known changes, for measuring what
 * `mmprof diff` finds (test-diff-sim).  Documentation/statistics.md,
 * "Simulation and power", says what the model is and where its numbers
 * come from (tests/bench/diff-spread on real recordings).
 *
 * A recording is a calling-context tree: nodes are (function, caller)
 * pairs below _start -> __libc_start_main -> main, a few hundred
 * functions, some reached from several callers (no recursion), with
 * Zipf-like self weights.  Fixed in every tree, for the changes to move:
 *
 *   main -> sim_work_loop -> sim_leaf_a    11 %  }  a fixed amount of work
 *                         -> sim_leaf_b    11 %  }  shared by two leaves
 *                         -> sim_leaf_x     0 %     (appears on the new side)
 *
 * A run draws a per-node factor exp(s*z - s^2/2), s the between-run
 * spread at the node's share (sim__spread; on a disturbed run, probability
 * disturb_p, disturb_mult times as much for every node) and one factor
 * per subtree under main (subtree_sigma), renormalises,
 * and samples its n_r = N * exp(0.05 z) samples multinomially.  From the
 * counts it makes the keys as src/keys/keys.c does: self and children
 * shares of every function with at least one sample (no 0.05 floor: keys
 * carries small values so that diff sees them), calltrace keys of every
 * node holding at least floor(0.5 % of n_r) samples (KEYS_CALLTRACE_CUT),
 * cut to 5 frames leaf first and summed, and a few non-profile keys with
 * the noise measured on real runs.  A side is a diff_run array exactly as
 * diff_sides__load (src/table/side.c) builds it: items, and samples =
 * {"cpu-clock", n_r}.
 *
 * Deterministic: every trial seeds its own xoshiro256** from the case and
 * the trial number.
 */
#ifndef MMPROF_TEST_DIFF_SIM_H
#define MMPROF_TEST_DIFF_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

/* ---- PRNG: xoshiro256** seeded by splitmix64 ---- */

struct sim_rng {
	uint64_t s[4];
};

static inline uint64_t sim__splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void sim_rng__seed(struct sim_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = sim__splitmix(&seed);
}

static inline uint64_t sim_rng__next(struct sim_rng *r)
{
	uint64_t *s = r->s, res = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = s[3] << 45 | s[3] >> 19;
	return res;
}

/* (0, 1) */
static inline double sim_rng__uniform(struct sim_rng *r)
{
	return ((double)(sim_rng__next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double sim_rng__normal(struct sim_rng *r)
{
	double u = sim_rng__uniform(r), v = sim_rng__uniform(r);

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* ---- the model's parameters ---- */

struct sim_model {
	/*
	 * Between-run spread of a share p (%) beyond sampling: a lognormal
	 * factor whose sigma is spread_cv1 * p^spread_slope, clamped to
	 * [spread_min, spread_max] (sim__spread).  0 spread_cv1: none.
	 */
	double spread_cv1, spread_slope, spread_min, spread_max;
	/*
	 * A disturbed run (probability disturb_p): every node's sigma is
	 * disturb_mult times its usual one (at most disturb_max), so the run
	 * disagrees with its siblings across many keys at once.
	 */
	double disturb_p, disturb_mult, disturb_max;
	/*
	 * Whole subtrees move together too (a slower fault path, a colder
	 * cache): one more factor of sigma subtree_sigma per run for each
	 * subtree under main (sim_work_loop's included).
	 */
	double subtree_sigma;
	double length_cv;	/* run-length jitter: n_r = N exp(length_cv z) */
};

/*
 * Fitted to this machine's recordings (statistics.md): the mean excess
 * CV^2 over all runs, disturbed ones included, is about
 * (0.9 + 0.1 * 3^2) * sigma^2 = (0.134 p^-0.5)^2.
 */
static const struct sim_model sim_model_measured = {
	.spread_cv1 = 0.10, .spread_slope = -0.5, .spread_min = 0.01, .spread_max = 0.3,
	.disturb_p = 0.1, .disturb_mult = 3, .disturb_max = 0.6, .subtree_sigma = 0.04,
	.length_cv = 0.05,
};

/*
 * A quiet machine: a tenth of the measured spread, no subtree factor, no
 * disturbed runs.  Issue 21's quiet-machine runs found +1.2 points of an
 * 11 % leaf at 19 000 samples a run with Welch's t at q = 0.0099: with 3
 * runs a side that needs a within-side sd near 0.1 points, under the
 * binomial 0.22 (cpu-clock's timer samples more evenly than chance), so
 * the spread beyond sampling there was about none.  This model still
 * samples multinomially and keeps a 0.3 % CV at 11 % on top.
 */
static const struct sim_model sim_model_quiet = {
	.spread_cv1 = 0.01, .spread_slope = -0.5, .spread_min = 0, .spread_max = 0.3,
	.length_cv = 0.05,
};

static inline double sim__spread(const struct sim_model *m, double pct)
{
	double s;

	if (m->spread_cv1 <= 0 || pct <= 0)
		return 0;
	s = m->spread_cv1 * pow(pct, m->spread_slope);
	return s < m->spread_min ? m->spread_min : s > m->spread_max ? m->spread_max : s;
}

/* ---- the tree ---- */

#define SIM_FRAMES 5		/* calltrace keys: 5 frames, as keys.c */

struct sim_node {
	int fn, parent;		/* parent -1 for the root; parent < own index */
	double w;		/* base self share, % */
};

struct sim_tree {
	struct sim_node *nodes;
	int nr;
	char **fname;		/* [fn] */
	int nr_fn;
	int leaf_a, leaf_b, leaf_x;	/* node indices */
	int *top;		/* [node] its ancestor just under main, or -1 (main and above) */
	/* key ids: [fn] self and children, [node] calltrace (shared by equal chains) */
	int *self_id, *children_id, *ct_id;
	char **keys;		/* [id] */
	int nr_keys;
};

static inline bool sim_tree__on_path(const struct sim_tree *t, int node, int fn)
{
	for (; node >= 0; node = t->nodes[node].parent)
		if (t->nodes[node].fn == fn)
			return true;
	return false;
}

static inline int sim_tree__add(struct sim_tree *t, int parent, int fn, double w)
{
	t->nodes[t->nr] = (struct sim_node){ .fn = fn, .parent = parent, .w = w };
	return t->nr++;
}

static inline int sim_tree__fn(struct sim_tree *t, const char *name)
{
	t->fname[t->nr_fn] = xstrdup(name);
	return t->nr_fn++;
}

static inline int sim_tree__intern(struct sim_tree *t, const char *key)
{
	int i;

	for (i = 0; i < t->nr_keys; i++)	/* built once per program: linear is fine */
		if (!strcmp(t->keys[i], key))
			return i;
	t->keys = xrealloc(t->keys, (size_t)(t->nr_keys + 1) * sizeof(*t->keys));
	t->keys[t->nr_keys] = xstrdup(key);
	return t->nr_keys++;
}

/*
 * A tree of about nr_nodes nodes over about nr_fn functions.  The rest of
 * the profile (all but the three sim_leaf_* nodes) gets 100 - 22 %, by
 * Zipf weights 1/rank^zipf over a random order of the nodes, callers at a
 * third of a leaf's weight (callers have little self time).
 */
static inline void sim_tree__build(struct sim_tree *t, uint64_t seed, int nr_nodes, int nr_fn,
				   double zipf)
{
	struct sim_rng r;
	int i, base, loop, *rank, *kids;
	double sum = 0;
	char name[64];

	memset(t, 0, sizeof(*t));
	sim_rng__seed(&r, seed);
	t->nodes = xcalloc((size_t)nr_nodes + 8, sizeof(*t->nodes));
	t->fname = xcalloc((size_t)nr_fn + 8, sizeof(*t->fname));
	sim_tree__add(t, -1, sim_tree__fn(t, "_start"), 0);
	sim_tree__add(t, 0, sim_tree__fn(t, "__libc_start_main"), 0);
	sim_tree__add(t, 1, sim_tree__fn(t, "main"), 0);
	base = t->nr_fn;
	while (t->nr < nr_nodes) {
		/* callers: a random earlier node, favouring the recent (deeper chains) */
		int parent = 2 + (int)((double)(t->nr - 2) * pow(sim_rng__uniform(&r), 0.5));
		int fn = -1, tries;

		if (parent >= t->nr)
			parent = t->nr - 1;
		if (t->nr_fn < nr_fn && (sim_rng__uniform(&r) < 0.6 || t->nr_fn == base)) {
			snprintf(name, sizeof(name), "sim_fn%03d", t->nr_fn - base);
			fn = sim_tree__fn(t, name);
		} else {
			/* a shared callee (memset, a lock, a fault handler): not recursive */
			for (tries = 0; tries < 20 && fn < 0; tries++) {
				int f = base + (int)(sim_rng__uniform(&r) * (t->nr_fn - base));

				if (!sim_tree__on_path(t, parent, f))
					fn = f;
			}
			if (fn < 0)
				continue;
		}
		sim_tree__add(t, parent, fn, 0);
	}
	/* Zipf self weights over a random order of the nodes */
	rank = xmalloc((size_t)t->nr * sizeof(*rank));
	kids = xcalloc((size_t)t->nr, sizeof(*kids));
	for (i = 0; i < t->nr; i++)
		rank[i] = i;
	for (i = t->nr - 1; i > 0; i--) {
		int j = (int)(sim_rng__uniform(&r) * (i + 1)), x = rank[i];

		rank[i] = rank[j];
		rank[j] = x;
	}
	for (i = 1; i < t->nr; i++)
		kids[t->nodes[i].parent]++;
	for (i = 3; i < t->nr; i++) {
		t->nodes[i].w = pow(1.0 + rank[i], -zipf) * (kids[i] ? 1.0 / 3 : 1.0);
		sum += t->nodes[i].w;
	}
	for (i = 3; i < t->nr; i++)
		t->nodes[i].w *= 78.0 / sum;
	free(rank);
	free(kids);
	loop = sim_tree__add(t, 2, sim_tree__fn(t, "sim_work_loop"), 0);
	t->leaf_a = sim_tree__add(t, loop, sim_tree__fn(t, "sim_leaf_a"), 11);
	t->leaf_b = sim_tree__add(t, loop, sim_tree__fn(t, "sim_leaf_b"), 11);
	t->leaf_x = sim_tree__add(t, loop, sim_tree__fn(t, "sim_leaf_x"), 0);

	t->top = xmalloc((size_t)t->nr * sizeof(*t->top));
	for (i = 0; i < t->nr; i++)
		t->top[i] = i < 3 ? -1 : t->nodes[i].parent == 2 ? i : t->top[t->nodes[i].parent];

	/* key ids, once: the keys' text does not depend on the run */
	t->self_id = xmalloc((size_t)t->nr_fn * sizeof(*t->self_id));
	t->children_id = xmalloc((size_t)t->nr_fn * sizeof(*t->children_id));
	t->ct_id = xmalloc((size_t)t->nr * sizeof(*t->ct_id));
	for (i = 0; i < t->nr_fn; i++) {
		char key[256];

		snprintf(key, sizeof(key), "perf-profile.self.cpu-clock.%s", t->fname[i]);
		t->self_id[i] = sim_tree__intern(t, key);
		snprintf(key, sizeof(key), "perf-profile.children.cpu-clock.%s", t->fname[i]);
		t->children_id[i] = sim_tree__intern(t, key);
	}
	for (i = 0; i < t->nr; i++) {
		char key[1024];
		int n = snprintf(key, sizeof(key), "perf-profile.calltrace.cpu-clock"), k, q;

		for (k = 0, q = i; k < SIM_FRAMES && q >= 0; k++, q = t->nodes[q].parent)
			n += snprintf(key + n, sizeof(key) - (size_t)n, ".%s", t->fname[t->nodes[q].fn]);
		t->ct_id[i] = sim_tree__intern(t, key);
	}
}

static inline void sim_tree__release(struct sim_tree *t)
{
	int i;

	for (i = 0; i < t->nr_fn; i++)
		free(t->fname[i]);
	for (i = 0; i < t->nr_keys; i++)
		free(t->keys[i]);
	free(t->fname);
	free(t->keys);
	free(t->nodes);
	free(t->self_id);
	free(t->children_id);
	free(t->ct_id);
	free(t->top);
	memset(t, 0, sizeof(*t));
}

/* ---- what changes on the new side ---- */

struct sim_change {
	double shift;		/* points moved from leaf b to leaf a */
	double appear;		/* points of leaf x (0 on the base), taken from leaf b */
};

/* ---- one run ---- */

/* The non-profile keys every run carries (workload, time, perf-stat). */
#define SIM_NR_OTHER 8
static const char *const sim_other_keys[SIM_NR_OTHER] = {
	"sim.ops", "sim.ops_per_sec", "sim.time.elapsed_time", "sim.time.system_time",
	"perf-stat.ps.cpu-clock", "perf-stat.ps.task-clock", "perf-stat.ps.page-faults",
	"perf-stat.ps.context-switches",
};

struct sim_run {
	struct key_value *items;	/* keys borrowed from the tree */
	size_t nr;
	struct diff_samples samples;
	bool disturbed;
};

/* Scratch for drawing runs; sized for one tree. */
struct sim_work {
	double *p, *cum, *sub_f;	/* [node] */
	long *count, *sub;	/* [node] */
	double *val;		/* [key id] */
	int *stamp, gen;	/* [key id] */
	int *order, nr_order;
};

static inline void sim_work__init(struct sim_work *w, const struct sim_tree *t)
{
	w->p = xcalloc((size_t)t->nr, sizeof(*w->p));
	w->cum = xcalloc((size_t)t->nr, sizeof(*w->cum));
	w->sub_f = xcalloc((size_t)t->nr, sizeof(*w->sub_f));
	w->count = xcalloc((size_t)t->nr, sizeof(*w->count));
	w->sub = xcalloc((size_t)t->nr, sizeof(*w->sub));
	w->val = xcalloc((size_t)t->nr_keys, sizeof(*w->val));
	w->stamp = xcalloc((size_t)t->nr_keys, sizeof(*w->stamp));
	w->order = xcalloc((size_t)t->nr_keys, sizeof(*w->order));
	w->gen = 0;
}

static inline void sim_work__release(struct sim_work *w)
{
	free(w->p);
	free(w->cum);
	free(w->sub_f);
	free(w->count);
	free(w->sub);
	free(w->val);
	free(w->stamp);
	free(w->order);
}

static inline void sim_work__add(struct sim_work *w, int id, double v)
{
	if (w->stamp[id] != w->gen) {
		w->stamp[id] = w->gen;
		w->val[id] = 0;
		w->order[w->nr_order++] = id;
	}
	w->val[id] += v;
}

/* The node's share on a side, %. */
static inline double sim__share(const struct sim_tree *t, int i, const struct sim_change *c)
{
	double w = t->nodes[i].w;

	if (!c)
		return w;
	if (i == t->leaf_a)
		w += c->shift;
	else if (i == t->leaf_b)
		w -= c->shift + c->appear;
	else if (i == t->leaf_x)
		w += c->appear;
	return w > 0 ? w : 0;
}

/*
 * Draw one run of about n samples into out (items allocated here; free
 * them).  c NULL: the base side's shares.
 */
static inline void sim__run(const struct sim_tree *t, const struct sim_model *m,
			    const struct sim_change *c, double n, struct sim_rng *r,
			    struct sim_work *w, struct sim_run *out)
{
	double total = 0, x;
	long nr, s, cut;
	int i, k;

	out->disturbed = m->disturb_p > 0 && sim_rng__uniform(r) < m->disturb_p;
	for (i = 0; i < t->nr; i++)	/* the subtree factors, drawn at each subtree's top */
		if (t->top[i] == i)
			w->sub_f[i] = m->subtree_sigma > 0 ?
				exp(m->subtree_sigma * sim_rng__normal(r) - m->subtree_sigma * m->subtree_sigma / 2) : 1;
	for (i = 0; i < t->nr; i++) {
		double p = sim__share(t, i, c), sd = sim__spread(m, p);

		if (out->disturbed && sd * m->disturb_mult > sd)
			sd = sd * m->disturb_mult < m->disturb_max ? sd * m->disturb_mult : m->disturb_max;
		if (p > 0 && sd > 0)
			p *= exp(sd * sim_rng__normal(r) - sd * sd / 2);
		if (p > 0 && t->top[i] >= 0)
			p *= w->sub_f[t->top[i]];
		w->p[i] = p;
		total += p;
		w->cum[i] = total;
		w->count[i] = 0;
	}
	x = m->length_cv > 0 ? n * exp(m->length_cv * sim_rng__normal(r)) : n;
	nr = (long)(x + 0.5);
	if (nr < 1)
		nr = 1;
	for (s = 0; s < nr; s++) {
		double u = sim_rng__uniform(r) * total;
		int lo = 0, hi = t->nr - 1;

		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (w->cum[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		w->count[lo]++;
	}
	/* keys, as keys.c: subtree sums (parents come first), then shares */
	w->gen++;
	w->nr_order = 0;
	for (i = 0; i < t->nr; i++)
		w->sub[i] = w->count[i];
	for (i = t->nr - 1; i > 0; i--)
		w->sub[t->nodes[i].parent] += w->sub[i];
	cut = (long)floor((double)nr * (KEYS_CALLTRACE_CUT / 100.0));
	for (i = 0; i < t->nr; i++) {
		int fn = t->nodes[i].fn;

		if (w->sub[i] > 0)	/* no recursion: every occurrence is outermost */
			sim_work__add(w, t->children_id[fn], 100.0 * (double)w->sub[i] / (double)nr);
		if (w->count[i] > 0)
			sim_work__add(w, t->self_id[fn], 100.0 * (double)w->count[i] / (double)nr);
		if (w->sub[i] >= 1 && w->sub[i] >= cut)
			sim_work__add(w, t->ct_id[i], 100.0 * (double)w->sub[i] / (double)nr);
	}
	out->nr = (size_t)w->nr_order + SIM_NR_OTHER;
	out->items = xmalloc(out->nr * sizeof(*out->items));
	for (k = 0; k < w->nr_order; k++) {
		out->items[k].key = t->keys[w->order[k]];
		out->items[k].value = w->val[w->order[k]];
	}
	{
		/* measured CVs (statistics.md): ops 0.08, elapsed 0.01, cpu-clock 0.03, cs 0.3 */
		double slow = out->disturbed ? 0.7 : 1.0;
		double ops = floor(1e5 * slow * exp(0.08 * sim_rng__normal(r)));
		double el = 2.0 * exp(0.01 * sim_rng__normal(r));
		double clk = 950 * exp(0.03 * sim_rng__normal(r));
		double v[SIM_NR_OTHER] = {
			ops, floor(100 * ops / el) / 100, el, 1.85 * exp(0.035 * sim_rng__normal(r)),
			clk, clk * 1.0002, floor(ops * 1.001), floor(100 * exp(0.3 * sim_rng__normal(r))),
		};

		for (i = 0; i < SIM_NR_OTHER; i++) {
			out->items[w->nr_order + i].key = (char *)sim_other_keys[i];
			out->items[w->nr_order + i].value = v[i];
		}
	}
	out->samples = (struct diff_samples){ .event = "cpu-clock", .n = (double)nr };
}

/* ---- a trial: two sides, the real diff, what it flagged ---- */

struct sim_case {
	const char *name;
	struct sim_change change;
	int nb, nn;		/* runs a side */
	double n_base, n_new;	/* samples per run */
};

struct sim_result {
	int trials;
	int aa_flag;		/* trials flagging >= 1 perf-profile row not moved (A/A: any) */
	int other_flag;		/* trials flagging >= 1 non-profile row */
	int found;		/* trials where the moved leaf's children row went UP */
	long same_rows, cant_tell_rows;	/* non-significant perf-profile rows; of which can't tell */
	int disturbed;		/* trials with at least one disturbed run */
	/* with the detectable change and disturbed runs (SIM_NEW_API) */
	int named_disturbed;	/* trials with a disturbed run where diff named a run */
	int named_clean;	/* trials without one where diff named a run */
	double mde_sum;		/* the target row's detectable change, summed over mde_n */
	int mde_n;
};

/*
 * diff's verdict "can't tell", rows' detectable change (mde) and named
 * disturbed runs came with issue 21's statistics; DIFF_DISTURBED is the
 * macro that arrived with them, so the harness builds against diff.h
 * before and after.
 */
#ifdef DIFF_DISTURBED
#define SIM_NEW_API 1
#else
#define SIM_NEW_API 0
#endif

/* Is the key one of the rows the change moves (leaf a, b, x in any family)? */
static inline bool sim__moved_key(const char *key)
{
	return strstr(key, "sim_leaf_") != NULL;
}

static inline uint64_t sim__case_seed(const struct sim_case *c, int trial)
{
	uint64_t h = 1469598103934665603ull;
	const char *s;

	for (s = c->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h ^= (uint64_t)c->nb << 40 ^ (uint64_t)c->nn << 32 ^ (uint64_t)c->n_base << 8 ^
	     (uint64_t)c->n_new;
	return h ^ ((uint64_t)trial * 0x9e3779b97f4a7c15ull);
}

static inline bool sim__cant_tell(const struct diff_row *r)
{
#if SIM_NEW_API
	return r->verdict == DIFF_CANT_TELL;
#else
	(void)r;
	return false;
#endif
}

/* Run trials of case c, diff's default options. */
static inline void sim__trials(const struct sim_tree *t, const struct sim_model *m,
			       const struct sim_case *c, int trials, struct sim_result *res)
{
	struct sim_work w;
	struct sim_run runs[64];
	struct diff_run dr[64];
	char target[256];
	int tr, i, nr = c->nb + c->nn;
	bool aa = c->change.shift == 0 && c->change.appear == 0;

	memset(res, 0, sizeof(*res));
	if (nr > 64)
		return;
	snprintf(target, sizeof(target), "perf-profile.children.cpu-clock.%s",
		 c->change.appear > 0 ? "sim_leaf_x" : "sim_leaf_a");
	sim_work__init(&w, t);
	for (tr = 0; tr < trials; tr++) {
		struct sim_rng r;
		struct diff d;
		bool pp = false, other = false, dist = false;
		const struct diff_row *row;
		size_t k;

		sim_rng__seed(&r, sim__case_seed(c, tr));
		for (i = 0; i < nr; i++) {
			bool is_new = i >= c->nb;

			sim__run(t, m, is_new ? &c->change : NULL, is_new ? c->n_new : c->n_base, &r,
				 &w, &runs[i]);
			dist |= runs[i].disturbed;
			dr[i] = (struct diff_run){ .items = runs[i].items, .nr = runs[i].nr,
						   .samples = &runs[i].samples, .nr_samples = 1 };
		}
		if (diff__compute(&d, dr, (size_t)c->nb, dr + c->nb, (size_t)c->nn, NULL)) {
			fprintf(stderr, "diff-sim: diff__compute failed\n");
			exit(2);
		}
		for (k = 0; k < d.nr; k++) {
			const struct diff_row *x = &d.rows[k];
			bool profile = !strncmp(x->key, "perf-profile.", 13);

			bool moved = !aa && sim__moved_key(x->key);

			if (diff_row__changed(x)) {
				if (profile && !moved)
					pp = true;
				else if (!profile)
					other = true;
			} else if (profile && (x->flags & DIFF_TESTED) && !moved) {
				res->same_rows++;
				if (sim__cant_tell(x))
					res->cant_tell_rows++;
			}
		}
		row = diff__find(&d, target);
		if (row && row->verdict == DIFF_UP)
			res->found++;
#if SIM_NEW_API
		if (row && isfinite(row->mde)) {
			res->mde_sum += row->mde;
			res->mde_n++;
		}
		if (d.nr_disturbed)
			dist ? res->named_disturbed++ : res->named_clean++;
#endif
		res->aa_flag += pp;
		res->other_flag += other;
		res->disturbed += dist;
		res->trials++;
		diff__release(&d);
		for (i = 0; i < nr; i++)
			free(runs[i].items);
	}
	sim_work__release(&w);
}

#endif
