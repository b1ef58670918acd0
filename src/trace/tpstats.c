/*
 * tpstats: tracepoint hit counts and field histograms per run; see
 * include/mmprof/trace.h.  One hook call per sampled tracepoint hit (a page
 * fault storm gives hundreds of thousands a second): a field read and an
 * open-addressing increment, no allocation once a value is known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#define TOP_VALUES	16
#define MAX_VALUES	4096	/* distinct values kept per field; the rest is "other" */
#define REGION		(2ULL << 20)	/* address buckets: 2 MiB, a PMD */
#define MAX_TASKS	4096	/* mmap_lock waits tracked at once */

enum bucket { B_EXACT, B_REGION, B_LOG2_US };

struct hist {
	char label[64];		/* "order", "address", "latency_us" */
	enum bucket bucket;
	struct trace_field f;
	uint64_t *vals, *counts;	/* open addressing, val UINT64_MAX = empty */
	size_t mask, nr;
	uint64_t other;
};

struct tp {
	char name[128];		/* "sys:name" */
	int id;			/* tracepoint id, < 0 when not a tracepoint */
	uint64_t count;
	struct hist *hists;
	size_t nr_hists;
	int lock_role;		/* 1 start_locking, 2 acquire_returned, 0 none */
};

struct tpstats {
	struct trace *trace;
	struct tp *tps;		/* by sampler event index */
	size_t nr_tps;
	/* mmap_lock: pending start per tid */
	struct { uint32_t tid; uint64_t time; } waits[MAX_TASKS];
	size_t nr_waits;
	struct hist lock_hist;
	int lock_tp;		/* index of acquire_returned, -1 */
};

static void hist_init(struct hist *h, const char *label, enum bucket b)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->label, sizeof(h->label), "%s", label);
	h->bucket = b;
}

static void hist_reset(struct hist *h)
{
	free(h->vals);
	free(h->counts);
	h->vals = h->counts = NULL;
	h->mask = h->nr = 0;
	h->other = 0;
}

static void hist_add(struct hist *h, uint64_t v)
{
	size_t i;

	if (v == UINT64_MAX)
		v--;	/* the empty marker: fold into its neighbour */
	if (!h->vals) {
		h->mask = 63;
		h->vals = xmalloc((h->mask + 1) * sizeof(*h->vals));
		h->counts = xcalloc(h->mask + 1, sizeof(*h->counts));
		memset(h->vals, 0xff, (h->mask + 1) * sizeof(*h->vals));
	}
	for (i = hash__u64(v) & h->mask; h->vals[i] != UINT64_MAX; i = (i + 1) & h->mask)
		if (h->vals[i] == v) {
			h->counts[i]++;
			return;
		}
	if (h->nr >= MAX_VALUES) {
		h->other++;
		return;
	}
	if ((h->nr + 1) * 2 > h->mask + 1) {
		uint64_t *ov = h->vals, *oc = h->counts;
		size_t oldcap = h->mask + 1, j;

		h->mask = oldcap * 2 - 1;
		h->vals = xmalloc((h->mask + 1) * sizeof(*h->vals));
		h->counts = xcalloc(h->mask + 1, sizeof(*h->counts));
		memset(h->vals, 0xff, (h->mask + 1) * sizeof(*h->vals));
		h->nr = 0;
		for (j = 0; j < oldcap; j++) {
			size_t k;

			if (ov[j] == UINT64_MAX)
				continue;
			for (k = hash__u64(ov[j]) & h->mask; h->vals[k] != UINT64_MAX;
			     k = (k + 1) & h->mask)
				;
			h->vals[k] = ov[j];
			h->counts[k] = oc[j];
			h->nr++;
		}
		free(ov);
		free(oc);
		hist_add(h, v);
		return;
	}
	h->vals[i] = v;
	h->counts[i] = 1;
	h->nr++;
}

static uint64_t bucket_of(enum bucket b, uint64_t v)
{
	uint64_t p = 1;

	switch (b) {
	case B_REGION:
		return v & ~(REGION - 1);
	case B_LOG2_US:
		while (p < v && p < (1ULL << 62))
			p <<= 1;
		return p;
	default:
		return v;
	}
}

/*
 * A histogram of `field` on tp, unless tp has one of that field already: a
 * --field repeated, or naming a field a default covers, must not count a
 * hit twice (the first, the default's bucketing, stays).  -ENOENT when
 * this kernel's event lacks the field (nothing added: counts only).
 */
static int tp_add_hist(struct tpstats *ts, struct tp *tp, const char *field, const char *label,
		       enum bucket b)
{
	struct hist *h;
	size_t k;

	for (k = 0; k < tp->nr_hists; k++)
		if (!strcmp(tp->hists[k].label, label))
			return 0;
	tp->hists = xrealloc(tp->hists, (tp->nr_hists + 1) * sizeof(*tp->hists));
	h = &tp->hists[tp->nr_hists];
	hist_init(h, label, b);
	if (trace__field(ts->trace, tp->id, field, &h->f))
		return -ENOENT;
	tp->nr_hists++;
	return 0;
}

static const struct {
	const char *event, *field, *label;
	enum bucket bucket;
} defaults[] = {
	{ "kmem:mm_page_alloc", "order", "order", B_EXACT },
	{ "kmem:mm_page_free", "order", "order", B_EXACT },
	{ "exceptions:page_fault_user", "address", "address", B_REGION },
	{ "exceptions:page_fault_kernel", "address", "address", B_REGION },
	{ "compaction:mm_compaction_end", "status", "status", B_EXACT },
	{ "migrate:mm_migrate_pages", "reason", "reason", B_EXACT },
};

/* "sys:name[:modifiers]" -> sys, name; false when not that shape. */
static bool split_tp(const char *spec, char *sys, size_t ss, char *name, size_t ns)
{
	const char *c = strchr(spec, ':'), *end;

	if (!c || c == spec || strchr(spec, '/'))
		return false;
	end = strchr(c + 1, ':');
	if (!end)
		end = c + 1 + strlen(c + 1);
	if (end == c + 1 || (size_t)(c - spec) >= ss || (size_t)(end - c - 1) >= ns)
		return false;
	snprintf(sys, ss, "%.*s", (int)(c - spec), spec);
	snprintf(name, ns, "%.*s", (int)(end - c - 1), c + 1);
	return true;
}

struct tpstats *tpstats__new(const struct strlist *events, const struct strlist *fields,
			     struct errmsg *e)
{
	struct tpstats *ts = xcalloc(1, sizeof(*ts));
	size_t i, k;

	ts->trace = trace__new();
	ts->lock_tp = -1;
	hist_init(&ts->lock_hist, "latency_us", B_LOG2_US);
	if (!ts->trace) {
		free(ts);
		errmsg__set(e, -ENOMEM, "cannot set up libtraceevent");
		return NULL;
	}
	ts->nr_tps = events ? events->nr : 0;
	ts->tps = xcalloc(ts->nr_tps ? ts->nr_tps : 1, sizeof(*ts->tps));
	for (i = 0; i < ts->nr_tps; i++) {
		struct tp *tp = &ts->tps[i];
		char sys[48], name[64];

		tp->id = -1;
		if (!split_tp(events->items[i], sys, sizeof(sys), name, sizeof(name)) ||
		    !trace__exists(sys, name))
			continue;	/* not a tracepoint: the sampler's business */
		tp->id = trace__load(ts->trace, sys, name, e);
		if (tp->id < 0) {
			tpstats__free(ts);
			return NULL;
		}
		snprintf(tp->name, sizeof(tp->name), "%s:%s", sys, name);
		for (k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++)
			if (!strcmp(defaults[k].event, tp->name))
				tp_add_hist(ts, tp, defaults[k].field, defaults[k].label,
					    defaults[k].bucket);
		if (!strcmp(tp->name, "mmap_lock:mmap_lock_start_locking"))
			tp->lock_role = 1;
		if (!strcmp(tp->name, "mmap_lock:mmap_lock_acquire_returned")) {
			tp->lock_role = 2;
			ts->lock_tp = (int)i;
		}
	}
	for (k = 0; fields && k < fields->nr; k++) {
		const char *slash = strchr(fields->items[k], '/');
		bool found = false;

		for (i = 0; slash && i < ts->nr_tps; i++) {
			struct tp *tp = &ts->tps[i];

			if (tp->id < 0 || strlen(tp->name) != (size_t)(slash - fields->items[k]) ||
			    strncmp(tp->name, fields->items[k], (size_t)(slash - fields->items[k])))
				continue;
			found = true;
			if (tp_add_hist(ts, tp, slash + 1, slash + 1, B_EXACT)) {
				errmsg__set(e, -ENOENT, "tracepoint '%s' has no field '%s'",
					    tp->name, slash + 1);
				tpstats__free(ts);
				return NULL;
			}
		}
		if (!found) {
			errmsg__set(e, -EINVAL, "--field '%s': expected SYS:NAME/FIELD of a "
				    "tracepoint given with -e", fields->items[k]);
			tpstats__free(ts);
			return NULL;
		}
	}
	return ts;
}

void tpstats__free(struct tpstats *ts)
{
	size_t i, k;

	if (!ts)
		return;
	for (i = 0; i < ts->nr_tps; i++) {
		for (k = 0; k < ts->tps[i].nr_hists; k++)
			hist_reset(&ts->tps[i].hists[k]);
		free(ts->tps[i].hists);
	}
	hist_reset(&ts->lock_hist);
	free(ts->tps);
	trace__free(ts->trace);
	free(ts);
}

static void lock_event(struct tpstats *ts, int role, const struct sample *smp)
{
	size_t i;

	for (i = 0; i < ts->nr_waits && ts->waits[i].tid != smp->tid; i++)
		;
	if (role == 1) {
		if (i == ts->nr_waits) {
			if (ts->nr_waits == MAX_TASKS)
				return;
			ts->nr_waits++;
		}
		ts->waits[i].tid = smp->tid;
		ts->waits[i].time = smp->time;
		return;
	}
	if (i == ts->nr_waits)
		return;
	if (smp->time >= ts->waits[i].time)
		hist_add(&ts->lock_hist, bucket_of(B_LOG2_US, (smp->time - ts->waits[i].time) / 1000));
	ts->waits[i] = ts->waits[--ts->nr_waits];
}

void tpstats__hook(void *ctx, uint32_t event, const struct sample *smp)
{
	struct tpstats *ts = ctx;
	struct tp *tp;
	size_t k;

	if (event >= ts->nr_tps || ts->tps[event].id < 0)
		return;
	tp = &ts->tps[event];
	if (trace__record_id(smp->raw, smp->raw_size) != tp->id)
		return;
	tp->count++;
	for (k = 0; k < tp->nr_hists; k++) {
		uint64_t v;

		if (!trace__read_u64(ts->trace, &tp->hists[k].f, smp->raw, smp->raw_size, &v))
			hist_add(&tp->hists[k], bucket_of(tp->hists[k].bucket, v));
	}
	if (tp->lock_role)
		lock_event(ts, tp->lock_role, smp);
}

static void store_hist(struct profile *p, uint32_t run, const char *event, struct hist *h)
{
	char key[320];
	size_t i, j, best;
	uint64_t other = h->other;
	/* a latency histogram has at most 64 buckets: keep its shape whole */
	size_t top = h->bucket == B_LOG2_US ? SIZE_MAX : TOP_VALUES;

	/* the top most frequent, then the rest summed */
	for (j = 0; j < top; j++) {
		best = SIZE_MAX;
		for (i = 0; h->vals && i <= h->mask; i++)
			if (h->vals[i] != UINT64_MAX && h->counts[i] &&
			    (best == SIZE_MAX || h->counts[i] > h->counts[best] ||
			     (h->counts[i] == h->counts[best] && h->vals[i] < h->vals[best])))
				best = i;
		if (best == SIZE_MAX)
			break;
		if (h->bucket == B_REGION)
			snprintf(key, sizeof(key), "tracepoint.%s.%s.0x%" PRIx64, event, h->label,
				 h->vals[best]);
		else if (h->bucket == B_LOG2_US)
			snprintf(key, sizeof(key), "tracepoint.%s.%s.<=%" PRIu64, event, h->label,
				 h->vals[best]);
		else
			snprintf(key, sizeof(key), "tracepoint.%s.%s.%" PRId64, event, h->label,
				 (int64_t)h->vals[best]);
		profile__add_metric(p, run, key, (double)h->counts[best]);
		h->counts[best] = 0;
	}
	for (i = 0; h->vals && i <= h->mask; i++)
		if (h->vals[i] != UINT64_MAX)
			other += h->counts[i];
	if (other) {
		snprintf(key, sizeof(key), "tracepoint.%s.%s.other", event, h->label);
		profile__add_metric(p, run, key, (double)other);
	}
	hist_reset(h);
}

void tpstats__end_run(struct tpstats *ts, struct profile *p, uint32_t run)
{
	char key[320];
	size_t i, k;

	for (i = 0; i < ts->nr_tps; i++) {
		struct tp *tp = &ts->tps[i];

		if (tp->id < 0)
			continue;
		snprintf(key, sizeof(key), "tracepoint.%s.count", tp->name);
		profile__add_metric(p, run, key, (double)tp->count);
		for (k = 0; k < tp->nr_hists; k++)
			store_hist(p, run, tp->name, &tp->hists[k]);
		if ((int)i == ts->lock_tp)
			store_hist(p, run, tp->name, &ts->lock_hist);
		tp->count = 0;
	}
	ts->nr_waits = 0;
	hist_reset(&ts->lock_hist);
}
