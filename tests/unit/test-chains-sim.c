/*
 * test-chains-sim: what `mmprof diff -g` (chains.h) finds on the
 * synthetic recordings of diff-sim.h, beside what the table (diff.h)
 * finds on the same runs.
 *
 *   test-chains-sim               TAP: false flags on A/A pairs, power on
 *                                 shifted A/B pairs, and the paths whose
 *                                 verdict contradicts the table's
 *   test-chains-sim --table [--trials N]   the same cases as a markdown
 *                                 table (Documentation/statistics.md)
 *
 * Each trial draws the runs of diff-sim.h once and gives them to both:
 * the table as each run's keys, -g as one profile a side whose trie is the
 * simulated tree (node counts as samples, 250 us of cpu-clock each).  A
 * path is flagged when its q is under alpha and its change reaches the
 * effect floor (0.1 points), as the flame graph colours it; a table row
 * when its verdict is up or down.  A contradiction: a function reached
 * from one node only (its children row and that node's path are the same
 * share of the same samples) flagged by one and not the other, or the
 * path "same" (tested, not flagged, and no detectable change above the
 * floor) where the table flags the row.  Every trial has a fixed seed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chains.h"
#include "mmprof/profile.h"
#include "tap.h"
#include "diff-sim.h"

#define TREE_SEED 21
#define TREE_NODES 600
#define TREE_FNS 300
#define TREE_ZIPF 1.1
#define MIN_POINTS 0.1
#define ALPHA 0.05

/*
 * A path's detectable change came with the share model of -g; before it
 * no path had one (every unflagged tested path was "same").  The harness
 * builds against chains.h before and after, to measure both.
 */
#ifdef CHAIN_ROW_MDE
#define path_mde(r) chain_row__mde(r)
#else
#define path_mde(r) ((void)(r), NAN)
#endif

/* The tree as a profile's trie: node i of the tree is node node[i] of p. */
static struct profile *tree_profile(const struct sim_tree *t, uint32_t *node)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .asked = profile__intern(p, "cpu-clock"),
				 .freq = 1, .sample = 4000 };
	int i;

	profile__add_event(p, &ev);
	for (i = 0; i < t->nr; i++) {
		const char *sym = t->fname[t->nodes[i].fn];
		struct frame f = { .addr = (uint64_t)(t->nodes[i].fn + 1) * 16, .sym = profile__intern(p, sym),
				   .dso = profile__intern(p, "/usr/bin/sim") };

		node[i] = profile__node(p, t->nodes[i].parent < 0 ? PROFILE_ROOT : node[t->nodes[i].parent],
					profile__frame(p, &f));
	}
	return p;
}

static void profile_add_run(struct profile *p, const struct sim_tree *t, const uint32_t *node,
			    const long *count)
{
	struct run r = { .wall_ns = 1000000000 };
	uint32_t run = profile__add_run(p, &r);
	int i;

	for (i = 0; i < t->nr; i++)
		if (count[i] > 0)
			profile__add_count(p, run, 0, profile__intern(p, "sim"), 1, node[i], (uint64_t)count[i],
					   (uint64_t)count[i] * 250000);
}

struct chains_result {
	int trials;
	int aa_flag;		/* trials flagging a path not on a moved leaf's way (A/A: any) */
	int table_aa_flag;	/* the same for the table's perf-profile rows */
	int found;		/* trials flagging sim_work_loop -> moved leaf up */
	int table_found;	/* trials where the table's children row of it is up */
	long single;		/* (trial, single-node function) pairs compared */
	long contra_flag;	/* of which flagged by exactly one of the two */
	long contra_same;	/* of which the table flagged and the path is "same" */
	long paths_tested;	/* tested paths, over all trials */
	long paths_same;	/* tested, unflagged paths with no detectable change: "same" */
	long paths_nomde;	/* tested paths without a detectable change */
	double mde_ratio;	/* summed over mde_n trials: the target path's detectable change over its row's */
	int mde_n;
};

/* Is tree node i on the way to a leaf the change moves (or that leaf)? */
static bool on_moved_path(const struct sim_tree *t, int i)
{
	return i == t->leaf_a || i == t->leaf_b || i == t->leaf_x || i == t->nodes[t->leaf_a].parent;
}

static bool path_flagged(const struct chain_row *r)
{
	return isfinite(r->q) && r->q < ALPHA && fabs(chain_row__delta(r)) >= MIN_POINTS;
}

/* A tested path that the test could have seen a floor's change on and did not. */
static bool path_same(const struct chain_row *r)
{
	return isfinite(r->q) && !path_flagged(r) && !(path_mde(r) > MIN_POINTS);
}

static void trials(const struct sim_tree *t, const struct sim_model *m, const struct sim_case *c, int n,
		   struct chains_result *res)
{
	struct sim_work w;
	struct sim_run runs[64];
	struct diff_run dr[64];
	uint32_t *node = xmalloc((size_t)t->nr * sizeof(*node));
	int *inv = xmalloc(((size_t)t->nr + 2) * sizeof(*inv)), *nodes_of = xcalloc((size_t)t->nr_fn, sizeof(int));
	int tr, i, nr = c->nb + c->nn, target = c->change.appear > 0 ? t->leaf_x : t->leaf_a;
	bool aa = c->change.shift == 0 && c->change.appear == 0;
	char tkey[256];

	memset(res, 0, sizeof(*res));
	for (i = 0; i < t->nr; i++)
		nodes_of[t->nodes[i].fn]++;
	snprintf(tkey, sizeof(tkey), "perf-profile.children.cpu-clock.%s", t->fname[t->nodes[target].fn]);
	sim_work__init(&w, t);
	for (tr = 0; tr < n; tr++) {
		struct sim_rng r;
		struct profile *p[2];
		struct diff d;
		struct chain_diff cd;
		const struct diff_row *row;
		bool pflag = false, tflag = false;
		size_t k;

		sim_rng__seed(&r, sim__case_seed(c, tr));
		p[0] = tree_profile(t, node);
		p[1] = tree_profile(t, node);
		for (i = 0; i < t->nr; i++)
			inv[node[i]] = i;
		for (i = 0; i < nr; i++) {
			bool is_new = i >= c->nb;

			sim__run(t, m, is_new ? &c->change : NULL, is_new ? c->n_new : c->n_base, &r, &w, &runs[i]);
			profile_add_run(p[is_new], t, node, w.count);
			dr[i] = (struct diff_run){ .items = runs[i].items, .nr = runs[i].nr,
						   .samples = &runs[i].samples, .nr_samples = 1 };
		}
		if (diff__compute(&d, dr, (size_t)c->nb, dr + c->nb, (size_t)c->nn, NULL) ||
		    chains__compute(&cd, (const struct profile *const *)&p[0], 1, (const struct profile *const *)&p[1],
				    1, "cpu-clock", MIN_POINTS, ALPHA, false, NULL)) {
			fprintf(stderr, "test-chains-sim: diff or chains failed\n");
			exit(2);
		}
		for (k = 0; k < d.nr; k++) {
			const struct diff_row *x = &d.rows[k];

			if (!strncmp(x->key, "perf-profile.", 13) && diff_row__changed(x) &&
			    (aa || !sim__moved_key(x->key)) && !strstr(x->key, "sim_work_loop"))
				tflag = true;
		}
		for (k = 0; k < cd.nr; k++) {
			const struct chain_row *cr = &cd.rows[k];
			int ti = cr->file == 0 && cr->node < t->nr + 1u ? inv[cr->node] : -1;

			if (!isfinite(cr->q))
				continue;
			res->paths_tested++;
			res->paths_same += path_same(cr);
			res->paths_nomde += !isfinite(path_mde(cr));
			if (ti < 0)
				continue;
			if (path_flagged(cr) && (aa || !on_moved_path(t, ti)))
				pflag = true;
			if (ti == target && path_flagged(cr) && chain_row__delta(cr) > 0)
				res->found++;
			if (ti == target && (row = diff__find(&d, tkey)) && row->mde > 0 && isfinite(path_mde(cr))) {
				res->mde_ratio += path_mde(cr) / row->mde;
				res->mde_n++;
			}
			if (nodes_of[t->nodes[ti].fn] == 1 && ti > 2) {
				char key[256];
				bool tf;

				snprintf(key, sizeof(key), "perf-profile.children.cpu-clock.%s",
					 t->fname[t->nodes[ti].fn]);
				row = diff__find(&d, key);
				if (!row || !(row->flags & DIFF_TESTED))
					continue;
				tf = diff_row__changed(row);
				res->single++;
				res->contra_flag += tf != path_flagged(cr);
				res->contra_same += tf && path_same(cr);
			}
		}
		row = diff__find(&d, tkey);
		res->table_found += row && row->verdict == DIFF_UP;
		res->aa_flag += pflag;
		res->table_aa_flag += tflag;
		res->trials++;
		chains__release(&cd);
		diff__release(&d);
		profile__free(p[0]);
		profile__free(p[1]);
		for (i = 0; i < nr; i++)
			free(runs[i].items);
	}
	sim_work__release(&w);
	free(node);
	free(inv);
	free(nodes_of);
}

static double pct(long k, long n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

struct named_case {
	struct sim_case c;
	const struct sim_model *m;
	const char *model;
};

static const struct named_case cases[] = {
	{ { "A/A 3x200", { 0, 0 }, 3, 3, 200, 200 }, &sim_model_measured, "measured" },
	{ { "A/A 3x2000", { 0, 0 }, 3, 3, 2000, 2000 }, &sim_model_measured, "measured" },
	{ { "A/A 3x20000", { 0, 0 }, 3, 3, 20000, 20000 }, &sim_model_measured, "measured" },
	{ { "A/A 10x2000", { 0, 0 }, 10, 10, 2000, 2000 }, &sim_model_measured, "measured" },
	{ { "A/A 3x20000 quiet", { 0, 0 }, 3, 3, 20000, 20000 }, &sim_model_quiet, "quiet" },
	{ { "A/A base 3x1300, new 3x176", { 0, 0 }, 3, 3, 1300, 176 }, &sim_model_measured, "measured" },
	{ { "appear 0->5, 3x200", { 0, 5 }, 3, 3, 200, 200 }, &sim_model_measured, "measured" },
	{ { "appear 0->5, base 3x1300, new 3x176", { 0, 5 }, 3, 3, 1300, 176 }, &sim_model_measured, "measured" },
	{ { "shift +1, 3x20000 quiet", { 1, 0 }, 3, 3, 20000, 20000 }, &sim_model_quiet, "quiet" },
	{ { "shift +2, 5x6400", { 2, 0 }, 5, 5, 6400, 6400 }, &sim_model_measured, "measured" },
	{ { "shift +5, 3x2000", { 5, 0 }, 3, 3, 2000, 2000 }, &sim_model_measured, "measured" },
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

int main(int argc, char **argv)
{
	struct sim_tree t;
	struct chains_result res[NR_CASES];
	bool table = false;
	int n = 100, i;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--table"))
			table = true;
		else if (!strcmp(argv[i], "--trials") && i + 1 < argc)
			n = atoi(argv[++i]);
	}
	sim_tree__build(&t, TREE_SEED, TREE_NODES, TREE_FNS, TREE_ZIPF);
	for (k = 0; k < NR_CASES; k++)
		trials(&t, cases[k].m, &cases[k].c, n, &res[k]);
	if (table) {
		printf("| case (%d trials, %s) | -g: trials flagging an unmoved path | table: unmoved row | "
		       "-g: found | table: found | contradictions (flag / \"same\" where the table flags) | "
		       "tested paths \"same\" | without a detectable change |\n|---|---|---|---|---|---|---|---|\n",
		       n, "model as named");
		for (k = 0; k < NR_CASES; k++)
			printf("| %s (%s) | %.1f %% | %.1f %% | %.0f %% | %.0f %% | %.1f %% / %.1f %% of %ld | %.1f %% | %.1f %% |\n",
			       cases[k].c.name, cases[k].model, pct(res[k].aa_flag, res[k].trials),
			       pct(res[k].table_aa_flag, res[k].trials), pct(res[k].found, res[k].trials),
			       pct(res[k].table_found, res[k].trials), pct(res[k].contra_flag, res[k].single),
			       pct(res[k].contra_same, res[k].single), res[k].single,
			       pct(res[k].paths_same, res[k].paths_tested), pct(res[k].paths_nomde, res[k].paths_tested));
		sim_tree__release(&t);
		return 0;
	}
	{
		int aa = 0, aa_n = 0;
		long single = 0, contra = 0, same = 0, tested = 0, nomde = 0;

		for (k = 0; k < NR_CASES; k++) {
			const struct chains_result *x = &res[k];
			bool is_aa = cases[k].c.change.shift == 0 && cases[k].c.change.appear == 0;

			printf("# %s: -g flags %d/%d, table %d/%d; found -g %d table %d; contradictions %ld+%ld of %ld\n",
			       cases[k].c.name, x->aa_flag, x->trials, x->table_aa_flag, x->trials, x->found,
			       x->table_found, x->contra_flag, x->contra_same, x->single);
			if (is_aa) {
				ok(x->aa_flag <= 6 * x->trials / 100,
				   "%s: -g flags a path in %d of %d trials (FDR 5 %%; the table %d)", cases[k].c.name,
				   x->aa_flag, x->trials, x->table_aa_flag);
				aa += x->aa_flag;
				aa_n += x->trials;
			}
			single += x->single;
			contra += x->contra_flag;
			same += x->contra_same;
			tested += x->paths_tested;
			nomde += x->paths_nomde;
		}
		ok(aa * 100 <= 5 * aa_n, "A/A pairs: -g flags a path in %d of %d trials, at most the FDR", aa, aa_n);
		ok(res[6].found * 100 >= 95 * res[6].trials, "%s: -g finds the path in %d of %d trials (the table %d)",
		   cases[6].c.name, res[6].found, res[6].trials, res[6].table_found);
		ok(res[7].found * 100 >= 85 * res[7].trials, "%s: -g finds the path in %d of %d trials (the table %d)",
		   cases[7].c.name, res[7].found, res[7].trials, res[7].table_found);
		ok(res[8].found * 100 >= 80 * res[8].trials, "%s: -g finds the path in %d of %d trials (the table %d)",
		   cases[8].c.name, res[8].found, res[8].trials, res[8].table_found);
		ok(contra * 1000 <= 2 * single,
		   "a path and its function's children row (one node) disagree in %ld of %ld pairs (<= 0.2 %%)", contra,
		   single);
		ok(same == 0, "no path is \"same\" where the table flags its function's row (%ld of %ld)", same, single);
		ok(nomde == 0 && tested > 0, "every tested path has a detectable change (%ld of %ld without)", nomde, tested);
		ok(res[2].mde_n == res[2].trials && res[2].mde_ratio / res[2].mde_n > 0.8 &&
		   res[2].mde_ratio / res[2].mde_n < 1.25,
		   "%s: sim_leaf_a's path can see about the change its children row can (ratio %.2f over %d trials)",
		   cases[2].c.name, res[2].mde_n ? res[2].mde_ratio / res[2].mde_n : 0, res[2].mde_n);
	}
	sim_tree__release(&t);
	return done_testing();
}
