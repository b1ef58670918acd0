/*
 * strip: a profile made fit to share outside the machine it was recorded
 * on (issue 9; `mmprof strip`, profile__strip in profile.h).
 *
 * What goes (Documentation/robustness.md says why):
 *   - raw kernel addresses: frames.addr of kernel frames becomes 0, so the
 *     file does not reveal where KASLR put the kernel (what kptr_restrict
 *     hides from unprivileged users); a symbol's name and the offset into
 *     it (sym_off) stay, since they say nothing about the base.  A user
 *     frame's address in the kernel's half goes too (a frame-pointer walk
 *     through garbage finds kernel pointers on a user stack), and so does a
 *     tracepoint field's value that may be one (kmem:kmalloc's call_site
 *     is "tracepoint.kmem:kmalloc.call_site.-2124862549"): its count
 *     moves to the field's ".other";
 *   - the meta key kernel_ref_reloc_sym, kallsyms' _text address, which
 *     is the base itself (so resolve --vmlinux refuses a stripped file;
 *     kernel_build_id stays: it names the build, as kernel_release does);
 *   - host identity: the meta keys "hostname" and "cmdline" (the latter
 *     holds the paths and arguments typed, which may name users, home
 *     directories or tokens); the workload's name, which report's
 *     <name>.time.* keys take from cmdline, stays as meta "workload".
 * What stays: symbols, DSO paths, user-space addresses (per-process
 * layout of a process that has ended), kernel release, CPU model, counts:
 * everything report and diff compare.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"

/* The meta keys that identify the host or the person recording. */
static const char *const identity_keys[] = { "hostname", "cmdline" };

struct chain_marks {
	const struct profile *p;
	bool *used;
};

static int mark_chain_comms(void *ctx, const struct chain_rec *c)
{
	struct chain_marks *m = ctx;
	uint32_t i;

	for (i = 0; i < c->nr_cells; i++)
		if (c->cells[i].comm < m->p->strs.nr)
			m->used[c->cells[i].comm] = true;
	return 0;
}

/* Mark in used[] (nr_strs entries) every string id the tables refer to. */
static void strs_used(const struct profile *p, bool *used)
{
#define MARK(id) do { if ((id) < p->strs.nr) used[id] = true; } while (0)
	struct chain_marks m = { p, used };
	size_t i;

	/* the whole chains' comms are the trie's (chainsrc.h), but a blank one would be wrong:
	 * a walk's error is the save's to say, which walks them again */
	if (p->whole)
		chainsrc__each(p->whole, mark_chain_comms, &m);
	for (i = 0; i < p->nr_frames; i++) {
		MARK(p->frames[i].sym);
		MARK(p->frames[i].dso);
		MARK(p->frames[i].raw);
	}
	for (i = 0; i < p->nr_counts; i++)
		MARK(p->counts[i].comm);
	for (i = 0; i < p->nr_events; i++) {
		MARK(p->events[i].name);
		MARK(p->events[i].asked);
	}
	for (i = 0; i < p->nr_counters; i++)
		MARK(p->counters[i].name);
	for (i = 0; i < p->nr_intervals; i++)
		MARK(p->intervals[i].name);
	for (i = 0; i < p->nr_metrics; i++)
		MARK(p->metrics[i].key);
	for (i = 0; i < p->nr_meta; i++) {
		MARK(p->meta[i].key);
		MARK(p->meta[i].value);
	}
#undef MARK
}

/*
 * Blank the strings in gone[] that nothing refers to any more: save writes
 * every string of the pool, referenced or not.  The pool's index goes
 * stale: nothing interns before the save.
 */
static void blank_unused(struct profile *p, const bool *gone)
{
	bool *used = xcalloc(p->strs.nr ? p->strs.nr : 1, sizeof(*used));
	size_t i;

	strs_used(p, used);
	for (i = 1; i < p->strs.nr; i++)
		if (gone[i] && !used[i])
			strintern__blank(&p->strs, (uint32_t)i);
	free(used);
}

/* Drop the identity keys; their values join gone[] (blank_unused). */
static size_t strip_meta(struct profile *p, bool *gone_strs)
{
	size_t i, j, kept = 0, gone = 0;

	for (i = 0; i < p->nr_meta; i++) {
		const char *key = profile__str(p, p->meta[i].key);
		int drop = 0;

		for (j = 0; j < sizeof(identity_keys) / sizeof(identity_keys[0]); j++)
			drop |= key && !strcmp(key, identity_keys[j]);
		if (drop && p->meta[i].value < p->strs.nr)
			gone_strs[p->meta[i].value] = true;
		if (drop)
			gone++;
		else
			p->meta[kept++] = p->meta[i];
	}
	p->nr_meta = kept;
	return gone;
}

/*
 * _text's running address (meta kernel_ref_reloc_sym, for resolve
 * --vmlinux) is the base KASLR chose: drop the key, and its value from the
 * strings (gone[], blank_unused) since a meta value is a pooled string.
 * 1 when there was one.
 */
static size_t strip_kernel_ref(struct profile *p, bool *gone_strs)
{
	const char *v = profile__meta(p, "kernel_ref_reloc_sym");
	uint32_t id = profile__str_id(p, v);

	if (!v)
		return 0;
	if (id && id < p->strs.nr)
		gone_strs[id] = true;
	profile__del_meta(p, "kernel_ref_reloc_sym");
	return 1;
}

/* User space is the lower half of the address space on 64-bit Linux. */
static bool kernel_half(uint64_t addr)
{
	return addr >> 63;
}

/* Zero kernel frames' addresses, and user frames' in the kernel's half,
 * but the "[elided]" marker's (PROFILE_ELIDED_ADDR: no address, a mark).
 * The profile's frame index is left stale: nothing looks frames up again
 * before the save.  Two frames may become the same (a static function's
 * name twice in the kernel): format 5's loader keeps them apart, since
 * the chains of p->whole are ordered by their ids. */
static size_t strip_kernel_addrs(struct profile *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_frames; i++)
		if (((p->frames[i].kernel && p->frames[i].addr) || kernel_half(p->frames[i].addr)) &&
		    !profile__frame_elided(p, (uint32_t)i)) {
			p->frames[i].addr = 0;
			n++;
		}
	return n;
}

/*
 * Could v, the value part of a tracepoint histogram's key, be a kernel
 * address?  tpstats spells exact values as signed decimals (an unsigned
 * long of 0xffffffff81592bab is "-2124862549") and address regions as
 * "0x<hex>".  The kernel's mappings all lie below its last 64 KiB, so a
 * negative decimal down to -65536 (an errno, a small signed field) is
 * data, not an address; "<=N" latency buckets and "other" are never one.
 */
static bool kernel_value(const char *v)
{
	char *end;

	errno = 0;
	if (!strncmp(v, "0x", 2)) {
		unsigned long long x = strtoull(v + 2, &end, 16);

		return end != v + 2 && !*end && (errno || kernel_half(x));
	}
	if (*v == '-') {
		long long x = strtoll(v, &end, 10);

		return end != v + 1 && !*end && x < -65536;
	}
	return false;
}

struct metric_ref {
	uint32_t run, key;
	size_t at;
};

static int metric_ref_cmp(const void *a, const void *b)
{
	const struct metric_ref *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Move the counts of tracepoint values that may be kernel addresses into
 * their field's "tracepoint.<event>.<field>.other" of the same run (one
 * metric per run and key, the first's place kept); their keys join
 * gone[].  A run's field total, and so report's shares, stay the same.
 * O(n log n) in the metrics: a hostile file may have many.
 */
static size_t strip_tracepoint_values(struct profile *p, bool **gone_strs)
{
	struct metric_ref *refs = NULL;
	size_t i, j, n = 0, nr_refs = 0, alloc_refs = 0, kept = 0, nr_strs = p->strs.nr;
	bool *other, *merged;

	for (i = 0; i < p->nr_metrics; i++) {
		const char *key = profile__str(p, p->metrics[i].key), *last;
		char *to;
		size_t len;

		if (!key || strncmp(key, "tracepoint.", 11) || !(last = strrchr(key, '.')) ||
		    !kernel_value(last + 1))
			continue;
		len = (size_t)(last - key) + 1;
		to = xmalloc(len + sizeof("other"));
		memcpy(to, key, len);
		memcpy(to + len, "other", sizeof("other"));
		(*gone_strs)[p->metrics[i].key] = true;
		p->metrics[i].key = profile__intern(p, to);
		free(to);
		n++;
	}
	if (!n)
		return 0;
	/* the pool grew: gone[] and the marks of the ".other" keys follow it */
	*gone_strs = xrealloc(*gone_strs, p->strs.nr * sizeof(**gone_strs));
	memset(*gone_strs + nr_strs, 0, (p->strs.nr - nr_strs) * sizeof(**gone_strs));
	other = xcalloc(p->strs.nr, sizeof(*other));
	merged = xcalloc(p->nr_metrics, sizeof(*merged));
	for (i = 0; i < p->nr_metrics; i++) {
		const char *key = profile__str(p, p->metrics[i].key);
		size_t kl = key ? strlen(key) : 0;

		if (key && !strncmp(key, "tracepoint.", 11) && kl > 6 && !strcmp(key + kl - 6, ".other"))
			other[p->metrics[i].key] = true;
	}
	for (i = 0; i < p->nr_metrics; i++)
		if (p->metrics[i].key < p->strs.nr && other[p->metrics[i].key]) {
			XGROW(refs, alloc_refs, nr_refs);
			refs[nr_refs++] = (struct metric_ref){ p->metrics[i].run, p->metrics[i].key, i };
		}
	qsort(refs, nr_refs, sizeof(*refs), metric_ref_cmp);
	for (i = 0; i < nr_refs; i = j) {
		for (j = i + 1; j < nr_refs && refs[j].run == refs[i].run && refs[j].key == refs[i].key; j++) {
			p->metrics[refs[i].at].value += p->metrics[refs[j].at].value;
			merged[refs[j].at] = true;
		}
	}
	for (i = 0; i < p->nr_metrics; i++)
		if (!merged[i])
			p->metrics[kept++] = p->metrics[i];
	p->nr_metrics = kept;
	free(refs);
	free(merged);
	free(other);
	return n;
}

void profile__strip(struct profile *p, struct profile_stripped *out)
{
	bool *gone = xcalloc(p->strs.nr ? p->strs.nr : 1, sizeof(*gone));
	size_t values;

	out->addrs = strip_kernel_addrs(p);
	out->addrs += strip_kernel_ref(p, gone);
	values = strip_tracepoint_values(p, &gone);	/* interns: before any blanking */
	out->keys = strip_meta(p, gone);
	blank_unused(p, gone);
	free(gone);
	out->addrs += values;
}
