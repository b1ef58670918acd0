/*
 * sampler-resolve: at the end of a run, the aggregate into the profile; see
 * src/record/sampler-int.h.
 *
 * Each distinct (address space, address) is resolved once per profile
 * (frow_idx): a pid's, or the maps kept for samples taken before it
 * exec'd (sampler-comm.c),
 * with its inline chain once per real frame under --inline; comm ids
 * become profile strings once.  So the cost of a run's end grows with
 * distinct stacks and addresses, not with samples.
 *
 * The trie fills in arrival order to 3/4 of its bound; a chain past that
 * is resolved whole and sorted to a file beside the output (chainsort.h),
 * and after the last run the sorted chains are taken into the trie
 * within its whole bound (sampler__take_chains, chaintake.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler-int.h"
#include "mmprof/chaintake.h"
#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"

void sampler__add_events(struct sampler *s, struct profile *p)
{
	size_t i;

	s->first_event = (uint32_t)p->nr_events;
	for (i = 0; i < s->nr_evs; i++) {
		const struct evspec *sp = &s->evs[i].spec;
		struct event_desc d = {
			.name = profile__intern(p, sp->name),
			.asked = profile__intern(p, s->evs[i].asked),
			.type = sp->attr.type,
			.config = sp->attr.config,
		};

		if (sp->tracepoint || s->opts.period) {
			d.freq = 0;
			d.sample = s->opts.period ? s->opts.period : 1;
		} else {
			d.freq = 1;
			d.sample = (uint64_t)s->opts.freq;
		}
		profile__add_event(p, &d);
	}
}

static bool frow_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct frame_row *a = &((const struct sampler *)ctx)->frows[row];
	const struct frame_row *b = key;

	return a->addr == b->addr && a->pid == b->pid && a->kernel == b->kernel;
}

/* The profile frame of an address, resolved once per profile. */
static uint32_t frame_of(struct sampler *s, struct profile *p, uint32_t pid, uint64_t addr,
			 bool kernel)
{
	struct frame_row key = { .addr = addr, .pid = kernel ? 0 : (int32_t)pid,
				 .kernel = kernel };
	uint64_t h = hash__combine(hash__u64(addr), ((uint64_t)(uint32_t)key.pid << 1) | kernel);
	uint32_t row = hashidx__find(&s->frow_idx, h, frow_eq, s, &key);
	struct symbol_info si = { 0 };
	struct frame f = { 0 };

	if (row != HASHIDX_NONE)
		return s->frows[row].frame;
	symbols__resolve(s->syms, (pid_t)pid, addr, kernel, &si);
	f.addr = addr;
	f.kernel = kernel;
	f.sym = profile__intern(p, si.sym);
	f.dso = profile__intern(p, si.dso);
	f.raw = profile__intern(p, si.raw_sym);	/* 0 unless demangled */
	f.sym_off = si.sym ? si.sym_off : 0;
	key.frame = profile__frame_within(p, &f, DATAFILE_TRIE_FRAMES);
	/*
	 * a file without a name for it now (not [unknown] past the frames'
	 * bound): where it lies, for mmprof resolve later
	 */
	if (!kernel && !si.sym && si.dso_addr && p->frames[key.frame].addr)
		profile__add_frame_file(p, key.frame, si.dso_addr, si.build_id);
	XGROW(s->frows, s->alloc_frows, s->nr_frows);
	s->frows[s->nr_frows] = key;
	hashidx__insert(&s->frow_idx, h, (uint32_t)s->nr_frows++);
	return key.frame;
}

/*
 * --inline: append to s->frames (from n) the functions inlined at the
 * real frame's address, innermost first, as frames flagged inlined; the
 * caller appends the real frame after them.  A caller's address is a
 * return address, so its inline scope is looked up at addr - 1 (exact:
 * the sampled IP).  Computed once per real frame.
 */
static size_t push_inline(struct sampler *s, struct profile *p, uint32_t pid, uint64_t addr,
			  bool exact, bool kernel, uint32_t real, size_t n)
{
	const char *names[32];
	size_t k, nr, at;

	if (real >= s->alloc_inl_at) {
		size_t old = s->alloc_inl_at;

		XGROW(s->inl_at, s->alloc_inl_at, real);
		memset(s->inl_at + old, 0, (s->alloc_inl_at - old) * sizeof(*s->inl_at));
	}
	if (!s->inl_at[real]) {
		struct frame f = p->frames[real];

		addr = exact ? addr : addr - 1;
		nr = kernel ? symbols__kernel_inline_chain(s->syms, addr, names,
							   sizeof(names) / sizeof(names[0]))
			    : symbols__inline_chain(s->syms, (pid_t)pid, addr, names,
						    sizeof(names) / sizeof(names[0]));
		at = s->nr_inl_ids;
		XGROW(s->inl_ids, s->alloc_inl_ids, at + nr);
		s->inl_ids[at] = 0;
		/* the last name is the real function itself */
		for (k = 0; k + 1 < nr; k++) {
			f.sym = profile__intern(p, names[k]);
			f.sym_off = 0;
			f.inlined = 1;
			s->inl_ids[at + 1 + s->inl_ids[at]++] = profile__frame(p, &f);
		}
		s->nr_inl_ids = at + 1 + s->inl_ids[at];
		s->inl_at[real] = (uint32_t)at + 1;
	}
	at = s->inl_at[real] - 1;
	XGROW(s->frames, s->alloc_frames, n + s->inl_ids[at] + 1);
	for (k = 0; k < s->inl_ids[at]; k++)
		s->frames[n++] = s->inl_ids[at + 1 + k];
	return n;
}

/* Records read between two stackagg__discard calls (1 MB of 70-frame chains). */
#define DISCARD_EVERY 1600

static void reset_caches(struct sampler *s, struct profile *p)
{
	s->cache_p = p;
	s->nr_frows = 0;
	if (s->inl_at)
		memset(s->inl_at, 0, s->alloc_inl_at * sizeof(*s->inl_at));
	s->nr_inl_ids = 0;
	hashidx__release(&s->frow_idx);
	hashidx__init(&s->frow_idx);
	if (s->comm_str)
		memset(s->comm_str, 0, s->alloc_comm_str * sizeof(*s->comm_str));
}

/*
 * The trie's nodes filled in arrival order: 3/4 of its bound, the room
 * left for sampler__take_chains to place the chains past it (chainsort.h).
 */
static size_t fill_bound(const struct sampler *s)
{
	size_t max = s->max_nodes && s->max_nodes < DATAFILE_TRIE_NODES ? s->max_nodes
									 : DATAFILE_TRIE_NODES;

	return max / 4 * 3;
}

/*
 * Whether the chain of en goes whole to the chainsort: the trie cannot
 * take it within fill_bound, and the chainsort is there (made the first
 * time, in the output's folder, with the arena's budget).  *cut: it does
 * not, and the trie cannot take it within its whole bound either (no
 * chainsort file): it keeps its leaf.
 */
static bool goes_whole(struct sampler *s, struct profile *p, uint32_t nr, bool *cut)
{
	*cut = false;
	if (datafile__trie_takes(p, nr, s->opts.runs, fill_bound(s)))
		return false;
	if (!s->whole && !s->whole_err) {
		s->whole = chainsort__new(s->opts.spill_dir, s->arena_words * 8);
		if (!s->whole)
			s->whole_err = -errno;
	}
	if (s->whole && !s->whole_err)
		return true;
	*cut = !datafile__trie_takes(p, nr, s->opts.runs, s->max_nodes);
	return false;
}

/* The frames of a whole chain (s->frames[0..n), innermost first) to the chainsort: 0 or -errno. */
static int add_whole(struct sampler *s, size_t n, const struct chain_cell *cell)
{
	size_t k;

	if (n > PROFILE_MAX_DEPTH)	/* its innermost frames, as profile__stack keeps */
		n = PROFILE_MAX_DEPTH;
	XGROW(s->root_first, s->alloc_root_first, n);
	for (k = 0; k < n; k++)
		s->root_first[k] = s->frames[n - 1 - k];
	return chainsort__add(s->whole, s->root_first, (uint32_t)n, cell);
}

/* One aggregate entry into p's trie and counts of run, or whole to the chainsort. */
static void resolve_entry(struct sampler *s, struct profile *p, uint32_t run,
			  const struct stackagg_entry *en, const uint64_t *chain)
{
	bool kernel = false, leaf = true, full, whole, cut = false;
	size_t n = 0, nleaf = 0;
	uint32_t j, node, comm, f, pid;
	int32_t space;

	/* the maps of the sample's time: its pid's, or those kept at an exec */
	sampler__space_of(s, en->pid, &pid, &space);

	/* the trie may not hold the chain (datafile.h's rule): whole to the chainsort, or its leaf */
	whole = goes_whole(s, p, en->nr, &full);
	XGROW(s->frames, s->alloc_frames, en->nr);
	for (j = 0; j < en->nr; j++) {
		if (full && !leaf) {
			while (j < en->nr && chain[j] >= PERF_CONTEXT_MAX)
				j++;
			cut = j < en->nr;
			break;
		}
		if (chain[j] == PROFILE_REJECTED_ADDR && j == en->nr - 1 && n) {
			struct frame rf = { .addr = PROFILE_REJECTED_ADDR };

			/* handle_sample's mark of a rejected chain: profile.h's marker */
			rf.sym = rf.dso = profile__intern(p, PROFILE_REJECTED_CHAIN);
			XGROW(s->frames, s->alloc_frames, n);
			s->frames[n++] = profile__frame(p, &rf);
			continue;
		}
		if (chain[j] >= PERF_CONTEXT_MAX) {
			kernel = chain[j] != PERF_CONTEXT_USER &&
				 chain[j] != PERF_CONTEXT_GUEST_USER;
			continue;
		}
		f = frame_of(s, p, (uint32_t)space, chain[j], kernel);
		/* kernel frames: whenever record attached a vmlinux */
		if ((kernel ? symbols__vmlinux(s->syms) != NULL : symbols__inline(s->syms)) &&
		    p->frames[f].sym)
			n = push_inline(s, p, (uint32_t)space, chain[j], leaf, kernel, f, n);
		XGROW(s->frames, s->alloc_frames, n);
		s->frames[n++] = f;
		if (leaf)
			nleaf = n;
		leaf = false;
	}
	if (!n)
		return;
	if (s->alloc_comm_str <= en->comm) {
		size_t old = s->alloc_comm_str;

		XGROW(s->comm_str, s->alloc_comm_str, en->comm);
		memset(s->comm_str + old, 0, (s->alloc_comm_str - old) * sizeof(*s->comm_str));
	}
	comm = s->comm_str[en->comm];
	if (!comm)
		comm = s->comm_str[en->comm] =
			profile__intern(p, en->comm ? strintern__str(&s->comms, en->comm) : "[unknown]");
	/* a pid past pid_t cannot come from the kernel: keep the file valid */
	pid = pid <= INT32_MAX ? pid : 0;
	if (whole) {
		struct chain_cell cell = {
			.run = run, .event = s->first_event + en->event, .comm = comm, .pid = pid,
			.samples = en->samples, .period = en->period,
		};
		int err = add_whole(s, n, &cell);

		if (!err)
			return;
		/* the file cannot be written (a full disk): as without one */
		s->whole_err = err;
		if (!datafile__trie_takes(p, en->nr, s->opts.runs, s->max_nodes)) {
			cut = n > nleaf;
			n = nleaf;
		}
	}
	if (cut) {
		s->stacks_cut += en->samples;
		s->agg.leaf_only = true;	/* new chains from now on: stackagg.h */
	}
	node = profile__stack(p, s->frames, n);
	profile__add_count(p, run, s->first_event + en->event, comm, pid, node, en->samples,
			   en->period);
}

/*
 * The aggregate's entries into p's trie and counts of run, then emptied:
 * at the end of a run, and when the arena is full and cannot be spilled
 * (sampler__spill).
 */
static void resolve_agg(struct sampler *s, struct profile *p, uint32_t run)
{
	size_t i;

	if (p != s->cache_p)
		reset_caches(s, p);
	stackagg__flush(&s->agg);
	for (i = 0; i < s->agg.nr_entries; i++) {
		const struct stackagg_entry *en = stackagg__entry(&s->agg, i);

		if (i % DISCARD_EVERY == 0 && i)
			stackagg__discard(&s->agg, i);
		resolve_entry(s, p, run, en, stackagg__chain(&s->agg, en));
	}
	stackagg__clear(&s->agg);
}

struct merge_ctx {
	struct sampler *s;
	struct profile *p;
	uint32_t run;
};

static int resolve_merged(void *ctx, const struct stackagg_entry *en, const uint64_t *chain)
{
	struct merge_ctx *m = ctx;

	resolve_entry(m->s, m->p, m->run, en, chain);
	return 0;
}

/*
 * The end of a run that spilled: the arena's rest as a last run (or into
 * the trie at once, when that cannot be written), then every spilled key
 * once, its counts summed over the runs.
 */
static int resolve_spilled(struct sampler *s, struct profile *p, uint32_t run)
{
	struct merge_ctx m = { .s = s, .p = p, .run = run };
	int err;

	if (p != s->cache_p)
		reset_caches(s, p);
	if (chainspill__write(&s->spill, &s->agg))
		resolve_agg(s, p, run);
	err = chainspill__merge(&s->spill, resolve_merged, &m);
	chainspill__reset(&s->spill);
	return err;
}

void sampler__bind(struct sampler *s, struct profile *p, uint32_t run)
{
	s->bound_p = p;
	s->bound_run = run;
	s->agg.max_words = s->arena_words;
}

/*
 * The arena is full: its entries to the spill file, resolved at the end
 * of the run with the rest, so that the worker only sorts and compresses
 * them.  Where no spill file can be had (its folder is not
 * writable, the disk is full), they go into the trie now, as before the
 * spill.
 */
void sampler__spill(struct sampler *s)
{
	if (!s->spill_err && s->spill.fd < 0)
		s->spill_err = chainspill__open(&s->spill, s->opts.spill_dir);
	if (!s->spill_err && !(s->spill_err = chainspill__write(&s->spill, &s->agg))) {
		s->spills++;
		return;
	}
	/* the profile is the reading thread's while the run lasts */
	if (sampler__on_worker())
		sampler__ask_handoff(s);
	else
		sampler__resolve_bound(s);
}

void sampler__resolve_bound(struct sampler *s)
{
	/* the BPF programs loaded by now, as the end of the run loads them */
	symbols__load_bpf_progs(s->syms);
	resolve_agg(s, s->bound_p, s->bound_run);
}

int sampler__resolve_run(struct sampler *s, struct profile *p, uint32_t run, struct run *r)
{
	int err = 0;

	if (s->spill.nr_runs)
		err = resolve_spilled(s, p, run);
	else
		resolve_agg(s, p, run);
	if (r) {
		r->samples = s->agg.samples;
		r->lost = s->lost;
		r->throttled = s->throttled;
	}
	if (s->chains_cut) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, s->chains_cut);
		profile__set_meta(p, "user_chains_truncated", v);
	}
	if (s->chains_rejected) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, s->chains_rejected);
		profile__set_meta(p, "callchains_rejected", v);
	}
	if (s->window_ns) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, s->window_ns);
		profile__set_meta(p, "sample_window_ns", v);
	}
	s->stacks_cut += s->agg.cut;
	s->agg.cut = 0;
	if (s->stacks_cut) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, s->stacks_cut);
		profile__set_meta(p, "stacks_cut_to_leaf", v);
	}
	stackagg__reset(&s->agg);
	s->lost = s->throttled = s->bad = s->read_samples = 0;
	return err;
}

/*
 * The nodes the take may fill: the trie's bound, and within it what every
 * reader takes (datafile__readers_take, which goes_whole applied chain by
 * chain while the trie filled) with the counts the take can add, every
 * cell of src at most, and the "[elided]" frame.
 */
static size_t take_bound(const struct sampler *s, const struct profile *p,
			 const struct chainsrc *src)
{
	size_t max = s->max_nodes ? s->max_nodes : DATAFILE_TRIE_NODES;
	size_t runs = s->opts.runs > p->nr_runs ? s->opts.runs : p->nr_runs;
	uint64_t cells = chainsort__nr_cells(src) + p->nr_counts;

	if (!runs)
		runs = 1;
	if (cells > SIZE_MAX / 2)
		cells = SIZE_MAX / 2;
	return datafile__readers_nodes(max, p->nr_frames + 1, (size_t)cells, p->nr_events,
				       runs * p->nr_events);
}

static uint64_t counted_samples(const struct profile *p)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		n = n > UINT64_MAX - p->counts[i].samples ? UINT64_MAX : n + p->counts[i].samples;
	return n;
}

int sampler__take_chains(struct sampler *s, struct profile *p, struct chaintake_stats *st)
{
	struct chainsrc *src;
	uint64_t added, before, kept;
	int err;

	memset(st, 0, sizeof(*st));
	/* no run follows: the aggregate's arena back before the trie grows */
	stackagg__release(&s->agg);
	stackagg__init(&s->agg);
	if (!s->whole)
		return 0;
	added = chainsort__samples(s->whole);
	before = counted_samples(p);
	src = chainsort__finish(s->whole, &err);
	s->whole = NULL;
	if (src)
		err = profile__take_chains(p, src, take_bound(s, p, src), st);
	if (err) {
		/* p keeps its runs' counts and what the take put in; the rest is lost, and said */
		char v[32];

		kept = counted_samples(p) - before;
		s->chains_lost = added > kept ? added - kept : 0;
		snprintf(v, sizeof(v), "%" PRIu64, s->chains_lost);
		profile__set_meta(p, "chains_lost", v);
		return err;
	}
	/* no room even for a chain's elision: cut to its leaf, as before (chaintake.h) */
	if (st->cut_samples) {
		char v[32];

		s->stacks_cut += st->cut_samples;
		snprintf(v, sizeof(v), "%" PRIu64, s->stacks_cut);
		profile__set_meta(p, "stacks_cut_to_leaf", v);
	}
	return 0;
}
