/* Unit tests of the in-memory profile model: interning, trie, counts. */
#include <stdlib.h>

#include "mmprof/profile.h"
#include "tap.h"

/* Reference model check: stacks added in random order map to the same
 * node whenever their frame sequences are equal, and parents precede. */
static void test_trie_against_model(void)
{
	struct profile *p = profile__new();
	uint32_t stacks[200][6], lens[200], nodes[200];
	int i, j, bad = 0;

	srand(1);
	for (i = 0; i < 200; i++) {
		lens[i] = 1 + rand() % 6;
		for (j = 0; j < (int)lens[i]; j++)
			stacks[i][j] = rand() % 4;
		nodes[i] = profile__stack(p, stacks[i], lens[i]);
	}
	for (i = 0; i < 200; i++)
		for (j = 0; j < 200; j++) {
			int same = lens[i] == lens[j] &&
				   !memcmp(stacks[i], stacks[j], lens[i] * sizeof(uint32_t));
			if (same != (nodes[i] == nodes[j]))
				bad++;
		}
	is_int(bad, 0, "trie nodes equal exactly when stacks are equal");
	bad = 0;
	for (i = 1; i < (int)p->nr_nodes; i++)
		if (p->nodes[i].parent >= (uint32_t)i ||
		    p->nodes[i].depth != p->nodes[p->nodes[i].parent].depth + 1)
			bad++;
	is_int(bad, 0, "every parent precedes its child and depth is parent's + 1");
	/* walk one stack back: innermost first */
	{
		uint32_t n = nodes[0];

		for (j = 0; j < (int)lens[0]; j++) {
			if (p->nodes[n].frame != stacks[0][j])
				bad++;
			n = p->nodes[n].parent;
		}
		is_int(bad, 0, "walking parents gives the stack innermost first");
		is_int(n, PROFILE_ROOT, "and ends at the root");
	}
	profile__free(p);
}

/*
 * profile__insert_frames against a model: each stack rewritten by hand
 * (below frame 1 comes 4; below frame 2 come 5 then 4, outermost first)
 * must be the stack its count's node walks back to, with its samples.
 */
static void test_insert_frames_against_model(void)
{
	struct profile *p = profile__new();
	uint32_t stacks[200][6], lens[200], want[200][18], wlen[200], fr[6];
	/* ins[f]: 1 + offset into ids of [n, frames outermost first] */
	uint32_t ins[6] = { 0 }, ids[] = { 1, 0, 2, 0, 0 };
	uint64_t total = 0, got_total = 0;
	int i, j, k, bad = 0, found;

	for (i = 0; i < 6; i++) {
		struct frame f = { .addr = 0x1000u + (uint64_t)i, .kernel = 1 };

		fr[i] = profile__frame(p, &f);
	}
	ids[1] = fr[4];
	ids[3] = fr[5];
	ids[4] = fr[4];
	ins[fr[1]] = 1;
	ins[fr[2]] = 3;
	srand(2);
	for (i = 0; i < 200; i++) {
		lens[i] = 1 + rand() % 6;
		for (j = 0; j < (int)lens[i]; j++)
			stacks[i][j] = fr[rand() % 4];
		profile__add_count(p, 0, 0, 0, 0, profile__stack(p, stacks[i], lens[i]),
				   (uint64_t)i + 1, 10);
		total += (uint64_t)i + 1;
		/* the model, leaf first: a frame's insertions innermost first, then it */
		wlen[i] = 0;
		for (j = 0; j < (int)lens[i]; j++) {
			uint32_t f = stacks[i][j];

			if (ins[f])
				for (k = (int)ids[ins[f] - 1]; k >= 1; k--)
					want[i][wlen[i]++] = ids[ins[f] - 1 + (uint32_t)k];
			want[i][wlen[i]++] = f;
		}
	}
	profile__insert_frames(p, ins, 6, ids);
	for (i = 1; i < (int)p->nr_nodes; i++)
		if (p->nodes[i].parent >= (uint32_t)i ||
		    p->nodes[i].depth != p->nodes[p->nodes[i].parent].depth + 1)
			bad++;
	is_int(bad, 0, "after insertion: parents precede children, depths follow");
	for (i = 0; i < (int)p->nr_counts; i++) {
		uint32_t path[18], n = 0, node = p->counts[i].node;
		uint64_t samples = 0;

		got_total += p->counts[i].samples;
		while (node != PROFILE_ROOT && n < 18) {
			path[n++] = p->nodes[node].frame;
			node = p->nodes[node].parent;
		}
		found = 0;
		for (j = 0; j < 200; j++)
			if (wlen[j] == n && !memcmp(want[j], path, n * sizeof(*path))) {
				samples += (uint64_t)j + 1;
				found = 1;
			}
		if (!found || samples != p->counts[i].samples)
			bad++;
	}
	is_int(bad, 0, "every count's stack is its model stack, with the model's samples");
	ok(got_total == total, "samples kept (%llu of %llu)", (unsigned long long)got_total,
	   (unsigned long long)total);
	profile__free(p);
}

/* run__status and profile__run_statuses: what record, stat and diff say about runs */
static void test_run_statuses(void)
{
	struct profile *a = profile__new(), *b = profile__new();
	const struct profile *both[2] = { a, b };
	struct run r = { .exit_code = 0 };
	char buf[256];

	ok(!run__status(&r, buf, sizeof(buf)) && !strcmp(buf, "exit 0"), "exit 0: not failed (%s)", buf);
	r.exit_code = 3;
	ok(run__status(&r, buf, sizeof(buf)) && !strcmp(buf, "exit status 3"), "exit 3: failed (%s)", buf);
	r = (struct run){ .exit_code = -1, .term_signal = 9 };
	ok(run__status(&r, buf, sizeof(buf)) && !strcmp(buf, "killed by SIGKILL"), "a signal: failed (%s)", buf);
	r = (struct run){ .exit_code = -1 };
	ok(!run__status(&r, buf, sizeof(buf)) && !strcmp(buf, "no status"),
	   "attached or imported: no status, not failed (%s)", buf);

	r = (struct run){ .exit_code = 0 };
	profile__add_run(a, &r);
	profile__add_run(a, &r);
	r = (struct run){ .exit_code = -1, .term_signal = 9 };
	profile__add_run(b, &r);
	r = (struct run){ .exit_code = 0 };
	profile__add_run(b, &r);
	is_int((int)profile__run_statuses(both, 2, buf, sizeof(buf)), 1, "one run of four failed");
	is_str(buf, "exit 0 in 3 runs, killed by SIGKILL in 1", "grouped as first seen, each once");
	is_int((int)profile__run_statuses(both, 1, buf, sizeof(buf)), 0, "one file of two: none failed");
	is_str(buf, "exit 0 in 2 runs", "plural");
	profile__run_statuses(both, 2, buf, 12);
	ok(strlen(buf) == 11, "a short buffer is cut, terminated ('%s')", buf);
	profile__free(a);
	profile__free(b);
}

int main(void)
{
	struct profile *p = profile__new();
	struct frame f = { .addr = 0x1000, .kernel = 1 };
	uint32_t a, b, fa, fb, n;

	a = profile__intern(p, "zap_pmd_range");
	b = profile__intern(p, "zap_pmd_range");
	ok(a && a == b, "interning returns one id per string");
	is_str(profile__str(p, a), "zap_pmd_range", "string read back");
	is_int(profile__intern(p, NULL), 0, "NULL interns to 0");
	is_int(profile__str_id(p, "nope"), 0, "unknown string has no id");
	ok(profile__str(p, 0) == NULL, "id 0 is NULL");

	f.sym = a;
	fa = profile__frame(p, &f);
	fb = profile__frame(p, &f);
	is_int(fa, fb, "identical frames intern once");
	f.addr = 0x2000;
	ok(profile__frame(p, &f) != fa, "another address is another frame");
	is_str(profile__frame_sym(p, fa), "zap_pmd_range", "frame symbol");
	f.sym = 0;
	is_str(profile__frame_sym(p, profile__frame(p, &f)), "[unknown]", "unresolved frame");

	n = profile__node(p, PROFILE_ROOT, fa);
	profile__add_count(p, 0, 0, a, 0, n, 1, 100);
	profile__add_count(p, 0, 0, a, 0, n, 2, 200);
	profile__add_count(p, 1, 0, a, 0, n, 1, 50);
	profile__add_count(p, 0, 0, a, 77, n, 4, 400);	/* another process: its own cell */
	profile__add_count(p, 0, 0, a, 77, n, 1, 100);
	is_int(p->nr_counts, 3, "counts aggregate per (run, event, comm, pid, node)");
	is_int(p->counts[2].pid, 77, "the pid is kept");
	is_int(p->counts[2].samples, 5, "a pid's cell sums its own samples");
	is_int(p->counts[0].samples, 3, "samples summed");
	is_int(p->counts[0].period, 300, "period summed");

	profile__set_meta(p, "hostname", "a");
	profile__set_meta(p, "kernel", "6.18");
	profile__set_meta(p, "hostname", "b");
	is_str(profile__meta(p, "hostname"), "b", "meta set replaces");
	is_int(p->nr_meta, 2, "meta keys kept once");
	ok(profile__meta(p, "missing") == NULL, "missing meta is NULL");

	{
		struct counter c = { .value = 100, .enabled = 200, .running = 100 };

		is_dbl(counter__scaled(&c), 200.0, 1e-9, "multiplexed counter scaled");
		c.running = 0;
		is_dbl(counter__scaled(&c), 100.0, 1e-9, "running 0 leaves the raw value");
	}
	profile__free(p);
	profile__free(NULL);
	ok(1, "profile__free(NULL) is fine");

	test_trie_against_model();
	test_run_statuses();
	test_insert_frames_against_model();
	return done_testing();
}
