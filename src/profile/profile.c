/*
 * profile: the in-memory model of one recording; see include/mmprof/profile.h.
 *
 * Interning goes through hashidx indexes whose keys live in the tables
 * themselves, so a frame, a trie edge or a count cell is stored once;
 * strings go to the pool, a strintern (strintern.h).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/jsonw.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"

struct profile *profile__new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));
	struct strintern_opts so = {
		.reserve_zero = true,	/* string id 0 is NULL */
		.max_nr = PROFILE_MAX_ROWS,
		.max_bytes = PROFILE_MAX_STR_TOTAL,
	};

	strintern__init(&p->strs, &so);
	hashidx__init(&p->frame_idx);
	hashidx__init(&p->node_idx);
	hashidx__init(&p->count_idx);
	/* node 0 is reserved */
	XGROW(p->nodes, p->alloc_nodes, 0);
	memset(&p->nodes[0], 0, sizeof(p->nodes[0]));
	p->nr_nodes = 1;
	return p;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	chainsrc__release(p->whole);
	strintern__release(&p->strs);
	free(p->frames);
	free(p->nodes);
	free(p->counts);
	free(p->events);
	free(p->runs);
	free(p->counters);
	free(p->intervals);
	free(p->metrics);
	free(p->meta);
	free(p->frame_files);
	hashidx__release(&p->frame_idx);
	hashidx__release(&p->node_idx);
	free(p->node_heads);
	free(p->node_next);
	hashidx__release(&p->count_idx);
	free(p);
}

/* s[0..len), which holds no NUL, interned: cut past PROFILE_MAX_STR. */
static uint32_t intern_cut(struct profile *p, const char *s, size_t len)
{
	bool cut = len > PROFILE_MAX_STR;
	uint32_t id;
	int r;

	if (cut) {
		/* a demangled template, a workload's line: cut, never split a character */
		len = PROFILE_MAX_STR;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	r = strintern__add(&p->strs, s, len, &id);
	if (r == -ENOMEM)
		xalloc__die(len + 1);	/* the profile's tables are all xalloc'd */
	if (r < 0) {
		p->repairs[PROFILE_REPAIR_STRING_DROPPED]++;
		return 0;
	}
	p->repairs[PROFILE_REPAIR_STRING] += cut && r == 1;	/* each string once, not each use */
	return id;
}

uint32_t profile__intern_len(struct profile *p, const char *s, size_t len)
{
	const char *nul;

	if (!s)
		return 0;
	/* the model's strings are C strings: bytes after a NUL are not part of one */
	if ((nul = memchr(s, '\0', len)))
		len = (size_t)(nul - s);
	return intern_cut(p, s, len);
}

uint32_t profile__intern(struct profile *p, const char *s)
{
	return s ? intern_cut(p, s, strlen(s)) : 0;
}

uint32_t profile__str_id(const struct profile *p, const char *s)
{
	uint32_t id;

	if (!s)
		return 0;
	id = strintern__find(&p->strs, s, strlen(s));
	return id == STRINTERN_NONE ? 0 : id;
}

void profile__set_meta(struct profile *p, const char *key, const char *value)
{
	uint32_t k = profile__intern(p, key);
	uint32_t v = profile__intern(p, value);
	size_t i;

	for (i = 0; k && i < p->nr_meta; i++) {
		if (p->meta[i].key == k) {
			p->meta[i].value = v;
			return;
		}
	}
	/* a new key: the file's format_version must still fit beside it */
	if (!k || p->nr_meta + 1 >= PROFILE_MAX_META) {
		p->repairs[PROFILE_REPAIR_META]++;
		return;
	}
	XGROW(p->meta, p->alloc_meta, p->nr_meta);
	p->meta[p->nr_meta].key = k;
	p->meta[p->nr_meta].value = v;
	p->nr_meta++;
}

void profile__del_meta(struct profile *p, const char *key)
{
	uint32_t k = profile__str_id(p, key);
	size_t i;

	for (i = 0; k && i < p->nr_meta; i++)
		if (p->meta[i].key == k) {
			memmove(&p->meta[i], &p->meta[i + 1],
				(p->nr_meta - i - 1) * sizeof(*p->meta));
			p->nr_meta--;
			return;
		}
}

const char *profile__meta(const struct profile *p, const char *key)
{
	uint32_t k = profile__str_id(p, key);
	size_t i;

	if (!k)
		return NULL;
	for (i = 0; i < p->nr_meta; i++)
		if (p->meta[i].key == k)
			return profile__str(p, p->meta[i].value);
	return NULL;
}

uint32_t profile__add_event(struct profile *p, const struct event_desc *ev)
{
	XGROW(p->events, p->alloc_events, p->nr_events);
	p->events[p->nr_events] = *ev;
	return (uint32_t)p->nr_events++;
}

static void cap_count(struct profile *p, uint64_t *v)
{
	if (*v > INT64_MAX) {
		*v = INT64_MAX;
		p->repairs[PROFILE_REPAIR_RUN]++;
	}
}

uint32_t profile__add_run(struct profile *p, const struct run *r)
{
	struct run *to;

	XGROW(p->runs, p->alloc_runs, p->nr_runs);
	to = &p->runs[p->nr_runs];
	*to = *r;
	cap_count(p, &to->samples);
	cap_count(p, &to->lost);
	cap_count(p, &to->throttled);
	return (uint32_t)p->nr_runs++;
}

static uint64_t frame_hash(const struct frame *f)
{
	uint64_t h = hash__u64(f->addr);

	h = hash__combine(h, f->sym_off);
	h = hash__combine(h, ((uint64_t)f->sym << 32) | f->dso);
	return hash__combine(h, (uint64_t)f->kernel | (uint64_t)(f->inlined ? 2 : 0));
}

static bool frame_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct frame *a = &((const struct profile *)ctx)->frames[row];
	const struct frame *b = key;

	return a->addr == b->addr && a->sym == b->sym && a->dso == b->dso &&
	       a->kernel == b->kernel && a->sym_off == b->sym_off &&
	       !a->inlined == !b->inlined && a->raw == b->raw;
}

uint32_t profile__frame(struct profile *p, const struct frame *f)
{
	return profile__frame_within(p, f, SIZE_MAX);
}

uint32_t profile__frame_within(struct profile *p, const struct frame *f, size_t max)
{
	uint64_t h = frame_hash(f);
	uint32_t id = hashidx__find(&p->frame_idx, h, frame_eq, p, f);

	if (id != HASHIDX_NONE)
		return id;
	if (p->nr_frames >= max) {
		struct frame unknown = { .kernel = f->kernel };

		p->repairs[PROFILE_REPAIR_FRAME]++;
		return profile__frame(p, &unknown);
	}
	XGROW(p->frames, p->alloc_frames, p->nr_frames);
	id = (uint32_t)p->nr_frames++;
	p->frames[id] = *f;
	p->frames[id].kernel = f->kernel ? 1 : 0;
	p->frames[id].inlined = f->inlined ? 1 : 0;
	hashidx__insert(&p->frame_idx, h, id);
	return id;
}

void profile__add_frame_file(struct profile *p, uint32_t frame, uint64_t vaddr,
			     const char *build_id)
{
	struct frame_file *ff;

	if (p->nr_frame_files && p->frame_files[p->nr_frame_files - 1].frame == frame)
		return;
	XGROW(p->frame_files, p->alloc_frame_files, p->nr_frame_files);
	ff = &p->frame_files[p->nr_frame_files++];
	ff->frame = frame;
	ff->vaddr = vaddr;
	snprintf(ff->build_id, sizeof(ff->build_id), "%s",
		 build_id && strlen(build_id) <= PROFILE_BUILD_ID_MAX ? build_id : "");
}

void profile__frames_changed(struct profile *p)
{
	size_t i;

	hashidx__release(&p->frame_idx);
	hashidx__init(&p->frame_idx);
	for (i = 0; i < p->nr_frames; i++)
		hashidx__insert(&p->frame_idx, frame_hash(&p->frames[i]), (uint32_t)i);
}

static uint64_t node_hash(uint32_t parent, uint32_t frame)
{
	return hash__u64(((uint64_t)parent << 32) | frame);
}

void profile__append_node(struct profile *p, uint32_t parent, uint32_t frame)
{
	XGROW(p->nodes, p->alloc_nodes, p->nr_nodes);
	p->nodes[p->nr_nodes] = (struct stack_node){ .parent = parent, .frame = frame,
		.depth = p->nodes[parent].depth + 1 };
	p->nr_nodes++;
}

/*
 * The nodes' index is chained, not a hashidx: 4 bytes of chain and 4 to
 * 8 of bucket heads a node, where a hashidx slot of 12 bytes at a load
 * under 1/2 cost 24 to 48, and twice that while it grew.  Record's worst
 * case builds its trie to the budget of stackagg.h, hundreds of
 * thousands of nodes at once, and the index was most of its memory.  The
 * heads double when the chains average one node; they are refilled from
 * the nodes themselves, so the old ones go first.
 */
static void node_idx_link(struct profile *p, uint32_t id)
{
	uint32_t b = (uint32_t)(node_hash(p->nodes[id].parent, p->nodes[id].frame) & p->node_mask);

	p->node_next[id] = p->node_heads[b];
	p->node_heads[b] = id;
}

static void node_idx_add(struct profile *p, uint32_t id)
{
	XGROW(p->node_next, p->alloc_node_next, id);
	p->nr_node_idx = id;
	if (p->node_heads && p->nr_node_idx <= p->node_mask + 1) {
		node_idx_link(p, id);
		return;
	}
	{
		size_t cap = p->node_heads ? (p->node_mask + 1) * 2 : 1024;
		uint32_t i;

		free(p->node_heads);
		p->node_heads = xcalloc(cap, sizeof(*p->node_heads));
		p->node_mask = cap - 1;
		for (i = 1; i <= id; i++)
			node_idx_link(p, i);
	}
}

/* profile__child, inlined into profile__node: record's resolution calls it a frame at a time */
static inline uint32_t node_find(struct profile *p, uint32_t parent, uint32_t frame)
{
	uint32_t id;

	/* nodes replaced under the index (a loader): start it again */
	if (p->nr_node_idx >= p->nr_nodes) {
		free(p->node_heads);
		p->node_heads = NULL;
		p->nr_node_idx = 0;
	}
	/* the index covers nodes 1..nr_node_idx: catch up on appended ones */
	while (p->nr_node_idx + 1 < p->nr_nodes)
		node_idx_add(p, (uint32_t)p->nr_node_idx + 1);
	if (p->node_heads)
		for (id = p->node_heads[node_hash(parent, frame) & p->node_mask]; id;
		     id = p->node_next[id])
			if (p->nodes[id].parent == parent && p->nodes[id].frame == frame)
				return id;
	return PROFILE_ROOT;
}

uint32_t profile__child(struct profile *p, uint32_t parent, uint32_t frame)
{
	return node_find(p, parent, frame);
}

uint32_t profile__node(struct profile *p, uint32_t parent, uint32_t frame)
{
	uint32_t id = node_find(p, parent, frame);

	if (id != PROFILE_ROOT)
		return id;
	if (p->nodes[parent].depth >= PROFILE_MAX_DEPTH || p->nr_nodes >= PROFILE_MAX_ROWS) {
		p->repairs[PROFILE_REPAIR_STACK]++;
		return parent;
	}
	XGROW(p->nodes, p->alloc_nodes, p->nr_nodes);
	id = (uint32_t)p->nr_nodes++;
	p->nodes[id] = (struct stack_node){ .parent = parent, .frame = frame,
		.depth = p->nodes[parent].depth + 1 };
	node_idx_add(p, id);
	return id;
}

uint32_t profile__stack(struct profile *p, const uint32_t *frames, size_t n)
{
	uint32_t node = PROFILE_ROOT;

	if (n > PROFILE_MAX_DEPTH) {
		n = PROFILE_MAX_DEPTH;	/* the innermost frames, as the kernel keeps */
		p->repairs[PROFILE_REPAIR_STACK]++;
	}
	while (n--)
		node = profile__node(p, node, frames[n]);
	return node;
}

void profile__insert_frames(struct profile *p, const uint32_t *ins, size_t nr_ins,
			    const uint32_t *ids)
{
	struct stack_node *old = p->nodes;
	struct count *oldc = p->counts;
	size_t nold = p->nr_nodes, ncounts = p->nr_counts, i;
	uint32_t *map = xcalloc(nold ? nold : 1, sizeof(*map));

	p->nodes = NULL;
	p->alloc_nodes = 0;
	XGROW(p->nodes, p->alloc_nodes, 0);
	p->nodes[0] = old[0];
	p->nr_nodes = 1;
	hashidx__release(&p->node_idx);
	hashidx__init(&p->node_idx);
	for (i = 1; i < nold; i++) {
		uint32_t f = old[i].frame, n = profile__node(p, map[old[i].parent], f), k;

		if (f < nr_ins && ins[f])
			for (k = 1; k <= ids[ins[f] - 1]; k++)
				n = profile__node(p, n, ids[ins[f] - 1 + k]);
		map[i] = n;
	}
	p->counts = NULL;
	p->alloc_counts = p->nr_counts = 0;
	hashidx__release(&p->count_idx);
	hashidx__init(&p->count_idx);
	for (i = 0; i < ncounts; i++) {
		const struct count *c = &oldc[i];

		profile__add_count(p, c->run, c->event, c->comm, c->pid,
				   c->node < nold ? map[c->node] : c->node, c->samples, c->period);
	}
	free(map);
	free(oldc);
	free(old);
}

static bool count_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct count *a = &((const struct profile *)ctx)->counts[row];
	const struct count *b = key;

	return a->node == b->node && a->run == b->run && a->event == b->event &&
	       a->comm == b->comm && a->pid == b->pid;
}

static uint64_t count_hash(uint32_t run, uint32_t event, uint32_t comm, uint32_t pid,
			   uint32_t node)
{
	return hash__combine(hash__combine(hash__u64(((uint64_t)run << 32) | event),
					   ((uint64_t)comm << 32) | node), pid);
}

size_t profile__run_walls(const struct profile *const *ps, size_t nr, double *sum, double *lo,
			  double *hi)
{
	size_t i, j, n = 0;

	*sum = 0;
	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < nr; i++)
		for (j = 0; j < ps[i]->nr_runs; j++) {
			double w = (double)ps[i]->runs[j].wall_ns / 1e9;

			*sum += w;
			*lo = fmin(*lo, w);
			*hi = fmax(*hi, w);
			n++;
		}
	return n;
}

uint64_t profile__run_lost(const struct profile *const *ps, size_t nr, uint64_t *kept,
			   size_t *lossy)
{
	uint64_t lost = 0;
	size_t i, j;

	*kept = 0;
	if (lossy)
		*lossy = 0;
	for (i = 0; i < nr; i++)
		for (j = 0; j < ps[i]->nr_runs; j++) {
			lost += ps[i]->runs[j].lost;
			*kept += ps[i]->runs[j].samples;
			if (lossy)
				*lossy += ps[i]->runs[j].lost > 0;
		}
	return lost;
}

int count__cmp(const struct count *x, const struct count *y)
{
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

void profile__append_count(struct profile *p, const struct count *c)
{
	XGROW(p->counts, p->alloc_counts, p->nr_counts);
	p->counts[p->nr_counts++] = *c;
	p->sum_samples += c->samples;
	p->sum_period += c->period;
}

size_t *profile__group_counts(const struct profile *p, uint32_t **by_slot)
{
	size_t nr_slots = (size_t)p->nr_runs * p->nr_events, i, s, last = 0;
	size_t *start = xcalloc(nr_slots + 2, sizeof(*start));
	bool in_order = true;
	uint32_t *idx;

	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->run < p->nr_runs && c->event < p->nr_events) {
			s = (size_t)c->run * p->nr_events + c->event;
			start[s + 2]++;
			in_order &= s >= last;
			last = s;
		} else {
			in_order = false;
		}
	}
	for (s = 0; s < nr_slots; s++)
		start[s + 2] += start[s + 1];
	if (in_order) {	/* the index would be i itself: 4 bytes a count saved */
		memmove(start, start + 1, (nr_slots + 1) * sizeof(*start));
		*by_slot = NULL;
		return start;
	}
	idx = xmalloc((p->nr_counts + 1) * sizeof(*idx));
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->run < p->nr_runs && c->event < p->nr_events)
			idx[start[(size_t)c->run * p->nr_events + c->event + 1]++] = (uint32_t)i;
	}
	/* start[s] .. start[s + 1] is now slot s's part */
	*by_slot = idx;
	return start;
}

void profile__shrink(struct profile *p)
{
	XSHRINK(p->frames, p->alloc_frames, p->nr_frames);
	XSHRINK(p->nodes, p->alloc_nodes, p->nr_nodes);
	XSHRINK(p->counts, p->alloc_counts, p->nr_counts);
}

void profile__add_count(struct profile *p, uint32_t run, uint32_t event, uint32_t comm,
			uint32_t pid, uint32_t node, uint64_t samples, uint64_t period)
{
	struct count k = { .run = run, .event = event, .comm = comm, .pid = pid, .node = node };
	uint64_t h;
	uint32_t id;

	/* every sum a reader makes is part of the sum of all: below 2^63 */
	if (samples > INT64_MAX - p->sum_samples || period > INT64_MAX - p->sum_period) {
		p->repairs[PROFILE_REPAIR_COUNT]++;
		return;
	}
	if (pid > INT32_MAX) {
		k.pid = pid = 0;
		p->repairs[PROFILE_REPAIR_PID]++;
	}
	h = count_hash(run, event, comm, pid, node);

	/* the index covers the first count_idx.nr rows: catch up on appended ones */
	while (p->count_idx.nr < p->nr_counts) {
		const struct count *c = &p->counts[p->count_idx.nr];

		hashidx__insert(&p->count_idx, count_hash(c->run, c->event, c->comm, c->pid, c->node),
				(uint32_t)p->count_idx.nr);
	}
	id = hashidx__find(&p->count_idx, h, count_eq, p, &k);

	if (id == HASHIDX_NONE) {
		if (p->nr_counts >= PROFILE_MAX_ROWS) {
			p->repairs[PROFILE_REPAIR_COUNT_ROWS]++;
			return;
		}
		XGROW(p->counts, p->alloc_counts, p->nr_counts);
		id = (uint32_t)p->nr_counts++;
		p->counts[id] = k;
		hashidx__insert(&p->count_idx, h, id);
	}
	p->counts[id].samples += samples;
	p->counts[id].period += period;
	p->sum_samples += samples;
	p->sum_period += period;
}

uint64_t profile__repairs(struct profile *p, char *buf, size_t size)
{
	static const struct {
		const char *key, *what;
	} kinds[PROFILE_NR_REPAIRS] = {
		[PROFILE_REPAIR_PID] = { "pid", "counts of a pid past pid_t stored as pid 0" },
		[PROFILE_REPAIR_COUNT] = { "count_over_2^63",
					   "counts dropped that took the sum of all to 2^63" },
		[PROFILE_REPAIR_COUNT_ROWS] = { "count_rows", "counts dropped past the row limit" },
		[PROFILE_REPAIR_RUN] = { "run_count", "run totals capped below 2^63" },
		[PROFILE_REPAIR_STACK] = { "stack", "stacks cut to the depth or node limit" },
		[PROFILE_REPAIR_STRING] = { "string", "strings cut to 4 MiB" },
		[PROFILE_REPAIR_STRING_DROPPED] = { "string_dropped",
						    "strings dropped past the pool's total (1 GiB; import's 40 MiB)" },
		[PROFILE_REPAIR_META] = { "meta", "meta keys dropped" },
		[PROFILE_REPAIR_FRAME] = { "frame", "new frames past the file's frame budget named [unknown]" },
	};
	uint64_t total = 0;
	size_t i, len = 0;
	char key[64], v[32];

	if (size)
		buf[0] = '\0';
	for (i = 0; i < PROFILE_NR_REPAIRS; i++) {
		uint64_t n = p->repairs[i];

		if (!n)
			continue;
		total += n;
		snprintf(key, sizeof(key), "repaired.%s", kinds[i].key);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)n);
		profile__set_meta(p, key, v);
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s: %llu", len ? ", " : "",
						kinds[i].what, (unsigned long long)n);
	}
	return total;
}

void profile__add_counter(struct profile *p, const struct counter *c)
{
	XGROW(p->counters, p->alloc_counters, p->nr_counters);
	p->counters[p->nr_counters++] = *c;
}

void profile__add_interval(struct profile *p, const struct counter_interval *ci)
{
	XGROW(p->intervals, p->alloc_intervals, p->nr_intervals);
	p->intervals[p->nr_intervals++] = *ci;
}

void profile__add_metric(struct profile *p, uint32_t run, const char *key, double value)
{
	XGROW(p->metrics, p->alloc_metrics, p->nr_metrics);
	p->metrics[p->nr_metrics].run = run;
	p->metrics[p->nr_metrics].key = profile__intern(p, key);
	p->metrics[p->nr_metrics].value = value;
	p->nr_metrics++;
}

const char *profile__frame_sym(const struct profile *p, uint32_t frame)
{
	const char *s = frame < p->nr_frames ? profile__str(p, p->frames[frame].sym) : NULL;

	return s ? s : "[unknown]";
}

double counter__scaled(const struct counter *c)
{
	if (!c->running || c->running == c->enabled)
		return (double)c->value;
	return (double)c->value * ((double)c->enabled / (double)c->running);
}

void run__json_rusage(struct jsonw *w, const struct run *r)
{
	jsonw__int(w, "utime_us", r->utime_us);
	jsonw__int(w, "stime_us", r->stime_us);
	jsonw__int(w, "maxrss_kb", r->maxrss_kb);
	jsonw__int(w, "minflt", r->minflt);
	jsonw__int(w, "majflt", r->majflt);
	jsonw__int(w, "nvcsw", r->nvcsw);
	jsonw__int(w, "nivcsw", r->nivcsw);
}

bool run__status(const struct run *r, char *buf, size_t size)
{
	const char *sig;

	if (r->term_signal) {
		sig = sigabbrev_np(r->term_signal);
		snprintf(buf, size, "killed by SIG%s", sig ? sig : "?");
		return true;
	}
	/* -1 without a signal: attached (-p, -a) or imported, no status */
	if (r->exit_code < 0)
		snprintf(buf, size, "no status");
	else if (r->exit_code)
		snprintf(buf, size, "exit status %d", (int)r->exit_code);
	else
		snprintf(buf, size, "exit 0");
	return r->exit_code > 0;
}

bool profile__run_status(const struct profile *p, uint32_t r, char *buf, size_t size)
{
	const char *stop = profile__meta(p, "interrupted"), *sig;
	const struct run *run = &p->runs[r];

	if (stop && r + 1 == p->nr_runs && run->term_signal &&
	    (sig = sigabbrev_np(run->term_signal)) && !strcmp(sig, stop)) {
		snprintf(buf, size, "stopped by SIG%s (interrupted)", sig);
		return false;
	}
	return run__status(run, buf, size);
}

size_t profile__run_statuses(const struct profile *const *ps, size_t nr, char *buf, size_t size)
{
	/* a few distinct statuses at most in practice; the rest summed as "other" */
	enum { MAX_SEEN = 8 };
	char seen[MAX_SEEN][64], what[64];
	size_t count[MAX_SEEN] = { 0 }, nseen = 0, other = 0, failed = 0, i, k, len = 0;
	uint32_t r;

	for (i = 0; i < nr; i++)
		for (r = 0; r < ps[i]->nr_runs; r++) {
			failed += profile__run_status(ps[i], r, what, sizeof(what));
			for (k = 0; k < nseen && strcmp(seen[k], what); k++)
				;
			if (k == nseen && nseen < MAX_SEEN)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", what);
			if (k < nseen)
				count[k]++;
			else
				other++;
		}
	buf[0] = '\0';
	for (k = 0; k < nseen && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s in %zu%s", k ? ", " : "",
					seen[k], count[k], k == 0 ? (count[k] == 1 ? " run" : " runs") : "");
	if (other && len < size)
		snprintf(buf + len, size - len, ", other statuses in %zu", other);
	return failed;
}

uint8_t *profile__elided_nodes(const struct profile *p)
{
	uint8_t *elided;
	size_t i;

	if (!p->whole)
		return NULL;
	elided = xcalloc(p->nr_nodes + 1, 1);
	for (i = 1; i < p->nr_nodes; i++) {	/* parent < id */
		const struct stack_node *n = &p->nodes[i];

		elided[i] = (n->parent < i && elided[n->parent]) ||
			    (n->frame < p->nr_frames && profile__frame_elided(p, n->frame));
	}
	return elided;
}
