/*
 * keys: one run of a profile reduced to the kernel test robot's keys; see
 * include/mmprof/keys.h and /work/shared/reference/lkp-format.md.
 *
 * perf-profile keys are what the robot gets from
 *   perf report --children --sort=dso,symbol -g folded,0.5,callee -U
 * and its parser (programs/perf-profile/parse in lkp-tests):
 *   children  every (DSO, symbol) entry's inclusive share, once per sample
 *             even under recursion (perf's he_cache), then summed by
 *             stripped name across DSOs;
 *   self      the sampled symbol's share;
 *   calltrace the folded lines printed under *every* children entry X:
 *             one per distinct callee-ordered chain from X (its innermost
 *             occurrence) to the outermost caller, dropped by perf when
 *             under 0.5 % of the total (integer period threshold, as perf's
 *             u64 min_callchain_hits), then cut to 5 frames and summed.
 *             f1 is therefore any symbol of the stack, not only the leaf:
 *             that is why calltrace values track children values in the
 *             robot's mails.
 * Percentages are of the event's total period over samples whose IP is
 * resolved (-U drops the others entirely).  The robot sums perf's
 * two-decimal prints; we sum exact values (differences <= 0.005 a line).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/keys.h"
#include "mmprof/strintern.h"
#include "mmprof/xalloc.h"
#include "keys-int.h"

#define CALLTRACE_FRAMES 5

/* "perf-profile.<family>.<ev>.<stripped sym>" into buf. */
static void profile_key(char *buf, size_t size, const char *family, const char *ev,
			const char *sym)
{
	char stripped[1024];

	keys__key_symbol(sym, stripped, sizeof(stripped));
	snprintf(buf, size, "perf-profile.%s.%s.%s", family, ev, stripped);
}

/*
 * keycache: every key string of one symview, numbered once.  A key's text
 * depends only on the symview (entry, symnode, event), never on the run,
 * so it is formatted and hashed once per file instead of once per run;
 * runs then add values into dense arrays indexed by key id.  (family,
 * event, entry or symnode) -> key id is a memo filled as keys are met
 * (most calltrace nodes never pass the 0.5 % floor): arrays per event
 * over the trie cost 256 events x nodes, 205 MB for a file of 2 MB.
 */
#define KEY_NONE UINT32_MAX
#define KEY_DROP (UINT32_MAX - 1)	/* robot mode: the robot has no such key */

enum { MEMO_CHILDREN, MEMO_SELF, MEMO_CALLTRACE, MEMO_CHAIN };

struct keymemo {
	uint64_t *what;		/* [row] family << 62 | event << 32 | entry or symnode */
	uint32_t *id;		/* [row] its key id, or KEY_DROP */
	size_t nr, alloc;
	struct hashidx idx;
};

/*
 * The symnodes a run and event's cells reach (their leaves and every
 * ancestor), when they are few: a walk of every symnode for every run
 * and event with a count made a 2.1 MB file of 200 runs x 256 events x
 * 200,000 nodes, one cell each, take 66 s in report --keys.  seen[] is
 * stamped with gen; nodes and entries list what this walk touched.
 */
struct keywalk {
	uint32_t *seen, *entry_seen, gen;
	uint32_t *nodes, *entries;
	size_t nr_nodes, nr_entries, alloc_nodes, alloc_entries;
};

struct keycache {
	const struct symview *v;	/* only keycache__run reads it */
	size_t nr_events;
	struct strintern keys;	/* the key strings, by key id */
	/*
	 * [id] the raw spellings of a perf-profile key's symbol part, '\n'-
	 * separated, when a frame behind it was spelled otherwise (hot.isra.0
	 * for ...hot); NULL when every one was spelled as the key, which is
	 * nearly always.  The array itself exists only once some key needs
	 * it (then alloc_spell == keys.alloc): a file without clones pays nothing.
	 */
	char **spell;
	size_t alloc_spell;
	struct keymemo memo;	/* (family, event, entry or symnode) -> key id */
	bool *chain_drop;	/* [symnode] chain_dropped, built at first need */
	char (*ev)[256];	/* [event] the robot's spelling */
	/* the run being built: values by key id, present when stamp == gen */
	double *val;
	uint32_t *stamp;
	size_t alloc_val;
	uint32_t gen;
	uint32_t *order;	/* key ids in first-add order */
	double *out_vals;
	size_t nr_order, alloc_order, alloc_out;
	/* while runs are being built: the profile's counts grouped by run and
	 * event (profile__group_counts) and the weight buffers, dropped after
	 * the last run so that a kept cache holds only its names */
	uint32_t *by_slot;
	size_t *slot_start;
	double *w, *children_w, *self_w;	/* w: leaf, subtree, then inner weights */
	struct keywalk walk;	/* a run and event of few cells: their paths only */
	uint32_t *dso_rep;	/* robot mode: [entry] the entry perf merges it into */
	struct chainkeys *whole;	/* the profile's whole chains' rows (p->whole) */
	struct statrows rows;	/* for the perf-stat and workload keys */
	bool robot;		/* keycache__set_robot: the robot's own arithmetic */
	int err;		/* the first error of a walk of the whole chains */
};

static void keycache__drop_work(struct keycache *c)
{
	free(c->walk.seen);
	free(c->walk.entry_seen);
	free(c->walk.nodes);
	free(c->walk.entries);
	memset(&c->walk, 0, sizeof(c->walk));
	free(c->by_slot);
	free(c->slot_start);
	free(c->w);
	free(c->children_w);
	free(c->self_w);
	free(c->dso_rep);
	c->dso_rep = NULL;
	chainkeys__free(c->whole);
	c->whole = NULL;
	c->by_slot = NULL;
	c->slot_start = NULL;
	c->w = c->children_w = c->self_w = NULL;
}

/*
 * The first run of a batch: group the counts by run and event once, so
 * that each run reads its own counts rather than scanning them all (10
 * runs x 1 M counts in a large file), and allocate the weight buffers
 * once for all runs.
 */
static void keycache__start_work(struct keycache *c)
{
	const struct symview *v = c->v;

	/*
	 * Counts stored grouped by run and event, as mmprof writes them, are
	 * read in place (by_slot NULL): the index's 4 bytes a count went at
	 * the peak of a diff's load, both files' runs being keyed at once (4
	 * MB each on the bench pair: Documentation/performance.md).
	 */
	c->slot_start = profile__group_counts(v->p, &c->by_slot);
	c->w = xmalloc((v->nr_nodes + 1) * sizeof(*c->w));
	c->children_w = xmalloc((v->nr_entries + 1) * sizeof(*c->children_w));
	c->self_w = xmalloc((v->nr_entries + 1) * sizeof(*c->self_w));
	if (c->robot)
		c->dso_rep = symview__dso_reps(v);
	/* the one walk of the whole chains for every run of the batch */
	c->whole = chainkeys__new(v, c->robot);
	if (!c->err)
		c->err = chainkeys__error(c->whole);
}

/* symview__weights (period) of one run and event, over their counts only. */
static double keycache__weights(const struct keycache *c, uint32_t run, uint32_t event, double *w)
{
	size_t s = (size_t)run * c->v->p->nr_events + event;

	if (!c->by_slot)
		return symview__weights_span(c->v, c->slot_start[s], c->slot_start[s + 1] - c->slot_start[s],
					     true, w);
	return symview__weights_of(c->v, c->by_slot + c->slot_start[s],
				   c->slot_start[s + 1] - c->slot_start[s], true, w);
}

static void keycache__grow_spell(struct keycache *c)
{
	c->spell = xrealloc(c->spell, c->keys.alloc * sizeof(*c->spell));
	memset(c->spell + c->alloc_spell, 0, (c->keys.alloc - c->alloc_spell) * sizeof(*c->spell));
	c->alloc_spell = c->keys.alloc;
}

static uint32_t keycache__intern(struct keycache *c, const char *key)
{
	uint32_t id = strintern__xid(&c->keys, key, strlen(key));

	if (c->spell && c->alloc_spell < c->keys.alloc)
		keycache__grow_spell(c);
	return id;
}

/* Is s one of the lines of the '\n'-separated list? */
static bool spell_has(const char *list, const char *s, size_t len)
{
	while (list) {
		const char *nl = strchr(list, '\n');
		size_t l = nl ? (size_t)(nl - list) : strlen(list);

		if (l == len && !memcmp(list, s, len))
			return true;
		list = nl ? nl + 1 : NULL;
	}
	return false;
}

static void spell_add(char **list, const char *s)
{
	size_t len = strlen(s), old;

	if (spell_has(*list, s, len))
		return;
	old = *list ? strlen(*list) : 0;
	*list = xrealloc(*list, old + !!old + len + 1);
	if (old)
		(*list)[old++] = '\n';
	memcpy(*list + old, s, len + 1);
}

/*
 * keycache__intern for a perf-profile key whose symbol part starts at
 * key + sym and was spelled raw in the frames: remember raw when it is
 * not the key's own text.  fresh: the key was not interned before, so
 * no frame spelled as the key has been seen yet.
 */
static uint32_t keycache__intern_spelled(struct keycache *c, const char *key, size_t sym,
					 const char *raw)
{
	size_t nr = c->keys.nr;
	uint32_t id = keycache__intern(c, key);
	bool fresh = c->keys.nr > nr, plain = !strcmp(raw, key + sym);

	if (plain && (!c->spell || !c->spell[id]))
		return id;
	if (!c->spell)
		keycache__grow_spell(c);
	if (!fresh && !c->spell[id])
		spell_add(&c->spell[id], key + sym);	/* seen before: as the key */
	spell_add(&c->spell[id], raw);
	return id;
}

/* Add value to key id in the run being built (colliding keys add up). */
static void keycache__add(struct keycache *c, uint32_t id, double value)
{
	if (id >= c->alloc_val) {
		size_t old = c->alloc_val;

		c->alloc_val = c->keys.alloc > id ? c->keys.alloc : (size_t)id + 1;
		c->val = xrealloc(c->val, c->alloc_val * sizeof(*c->val));
		c->stamp = xrealloc(c->stamp, c->alloc_val * sizeof(*c->stamp));
		memset(c->stamp + old, 0, (c->alloc_val - old) * sizeof(*c->stamp));
	}
	if (c->stamp[id] != c->gen) {
		c->stamp[id] = c->gen;
		c->val[id] = 0;
		XGROW(c->order, c->alloc_order, c->nr_order);
		c->order[c->nr_order++] = id;
	}
	c->val[id] += value;
}

static bool memo_eq(const void *ctx, uint32_t row, const void *key)
{
	return ((const struct keymemo *)ctx)->what[row] == *(const uint64_t *)key;
}

static uint64_t memo_what(int family, uint32_t event, uint32_t x)
{
	return (uint64_t)family << 62 | (uint64_t)event << 32 | x;
}

/* The key id memoised for what, or KEY_NONE. */
static uint32_t memo_get(const struct keymemo *m, uint64_t what)
{
	uint32_t row = hashidx__find(&m->idx, hash__u64(what), memo_eq, m, &what);

	return row == HASHIDX_NONE ? KEY_NONE : m->id[row];
}

static uint32_t memo_set(struct keymemo *m, uint64_t what, uint32_t id)
{
	size_t old = m->alloc;

	XGROW(m->what, m->alloc, m->nr);
	if (m->alloc != old)
		m->id = xrealloc(m->id, m->alloc * sizeof(*m->id));
	m->what[m->nr] = what;
	m->id[m->nr] = id;
	hashidx__insert(&m->idx, hash__u64(what), (uint32_t)m->nr);
	m->nr++;
	return id;
}

struct keycache *keycache__new(const struct symview *v)
{
	const struct profile *p = v->p;
	struct keycache *c = xcalloc(1, sizeof(*c));
	size_t e;

	c->v = v;
	c->nr_events = p->nr_events;
	strintern__init(&c->keys, NULL);
	hashidx__init(&c->memo.idx);
	c->ev = xcalloc(p->nr_events + 1, sizeof(*c->ev));
	for (e = 0; e < p->nr_events; e++) {
		const char *evname = profile__str(p, p->events[e].name);

		keys__event_name(evname ? evname : "unknown", c->ev[e], sizeof(c->ev[e]));
	}
	return c;
}

void keycache__set_robot(struct keycache *c, bool robot)
{
	const struct profile *p = c->v->p;
	const char *mode = profile__meta(p, "record_mode");
	size_t e;

	c->robot = robot;
	free(c->chain_drop);	/* which chains drop depends on the mode */
	c->chain_drop = NULL;
	free(c->dso_rep);	/* and which entries are one */
	c->dso_rep = robot && c->slot_start ? symview__dso_reps(c->v) : NULL;
	if (c->whole) {	/* which chains drop depends on the mode */
		chainkeys__free(c->whole);
		c->whole = chainkeys__new(c->v, robot);
		if (!c->err)
			c->err = chainkeys__error(c->whole);
	}
	/*
	 * An import keeps perf's spelling of its event as asked
	 * ("cpu-clock:ppp", stored as cpu-clock): the robot's keys are named
	 * after that spelling (perf report's "of event 'cpu-clock:ppp'").
	 */
	if (!robot || !mode || strcmp(mode, "import"))
		return;
	for (e = 0; e < p->nr_events; e++) {
		const char *asked = profile__str(p, p->events[e].asked);

		if (asked && *asked)
			keys__event_name(asked, c->ev[e], sizeof(c->ev[e]));
	}
}

void keycache__done(struct keycache *c)
{
	free(c->memo.what);
	free(c->memo.id);
	hashidx__release(&c->memo.idx);
	memset(&c->memo, 0, sizeof(c->memo));
	hashidx__init(&c->memo.idx);
	free(c->chain_drop);
	free(c->ev);
	free(c->val);
	free(c->stamp);
	free(c->order);
	free(c->out_vals);
	c->chain_drop = NULL;
	c->ev = NULL;
	c->val = c->out_vals = NULL;
	c->stamp = c->order = NULL;
	c->alloc_val = c->nr_order = c->alloc_order = c->alloc_out = 0;
	keycache__drop_work(c);
	statrows__release(&c->rows);
	strintern__drop_index(&c->keys);
	c->v = NULL;	/* keycache__done: the names only, no run again */
}

void keycache__free(struct keycache *c)
{
	size_t i;

	if (!c)
		return;
	keycache__done(c);
	for (i = 0; c->spell && i < c->keys.nr; i++)
		free(c->spell[i]);
	strintern__release(&c->keys);
	free(c->spell);
	free(c);
}

const struct chainkeys *keycache__whole(struct keycache *c)
{
	if (!c->v || !c->v->p->nr_runs)
		return NULL;
	if (!c->slot_start)
		keycache__start_work(c);
	return c->whole;
}

int keycache__error(const struct keycache *c)
{
	return c->err;
}

const char *keycache__name(const struct keycache *c, uint32_t id)
{
	return strintern__str(&c->keys, id);
}

size_t keycache__nr(const struct keycache *c)
{
	return c->keys.nr;
}

const char *const *keycache__spellings(const struct keycache *c)
{
	return (const char *const *)c->spell;
}

/*
 * Is the chain from node to the root no folded line of perf's (a frame of
 * it drops it)?  Once per node of the trie, parents first (a node's parent
 * precedes it): walking each chain to the root was O(depth^2), 13 s on
 * one chain 65,535 deep.
 */
static bool chain_dropped(struct keycache *c, uint32_t node)
{
	const struct symview *v = c->v;

	if (!c->chain_drop) {
		size_t i;

		c->chain_drop = xcalloc(v->nr_nodes + 1, sizeof(*c->chain_drop));
		for (i = 1; i < v->nr_nodes; i++)
			c->chain_drop[i] = c->chain_drop[v->nodes[i].parent] ||
					   keys__frame_drops_chain(symview__entry_name(v, v->nodes[i].entry),
							     c->robot);
	}
	return c->chain_drop[node];
}

static uint32_t entry_key(struct keycache *c, int fam, uint32_t event, uint32_t entry)
{
	const char *family = fam == MEMO_CHILDREN ? "children" : "self";
	uint64_t what = memo_what(fam, event, entry);
	uint32_t id = memo_get(&c->memo, what);
	char key[4096];

	if (id == KEY_NONE) {
		const char *raw = symview__entry_name(c->v, entry);

		/*
		 * The robot's parse reads an entry's symbol as one \S+ field
		 * before perf's two "-" columns: a name with a blank matches
		 * no line and is lost.
		 */
		if (keys__frame_drops_chain(raw, c->robot))
			return memo_set(&c->memo, what, KEY_DROP);
		size_t sym = (size_t)snprintf(key, sizeof(key), "perf-profile.%s.%s.", family,
					      c->ev[event]);

		profile_key(key, sizeof(key), family, c->ev[event], raw);
		id = memo_set(&c->memo, what, sym < sizeof(key) ?
			      keycache__intern_spelled(c, key, sym, raw) : keycache__intern(c, key));
	}
	return id;
}

/*
 * The calltrace key of a chain's last entries, tail[0] its innermost, k
 * of them (at most CALLTRACE_FRAMES), memoised as what.
 */
static uint32_t calltrace_name(struct keycache *c, uint32_t event, const uint32_t *tail,
			       size_t nr, uint64_t what)
{
	const struct symview *v = c->v;
	char key[4096];
	size_t n, k, sym;
	bool spelled = false;

	n = (size_t)snprintf(key, sizeof(key), "perf-profile.calltrace.%s", c->ev[event]);
	sym = n + 1;
	for (k = 0; k < nr; k++) {
		const char *name = symview__entry_name(v, tail[k]);
		char stripped[1024];

		keys__key_symbol(name, stripped, sizeof(stripped));
		spelled |= strcmp(stripped, name) != 0;
		if (n < sizeof(key))
			n += (size_t)snprintf(key + n, sizeof(key) - n, ".%s", stripped);
	}
	if (spelled && n < sizeof(key)) {
		/* the same chain as its frames spell it: rare, so built only then */
		char raw[4096];
		size_t r = 0;

		for (k = 0; k < nr; k++)
			if (r < sizeof(raw))
				r += (size_t)snprintf(raw + r, sizeof(raw) - r, "%s%s", k ? "." : "",
						      symview__entry_name(v, tail[k]));
		if (r < sizeof(raw))
			return memo_set(&c->memo, what, keycache__intern_spelled(c, key, sym, raw));
	}
	return memo_set(&c->memo, what, keycache__intern_spelled(c, key, sym, key + sym));
}

static uint32_t calltrace_key(struct keycache *c, uint32_t event, uint32_t node)
{
	const struct symview *v = c->v;
	uint64_t what = memo_what(MEMO_CALLTRACE, event, node);
	uint32_t q = node, id = memo_get(&c->memo, what), tail[CALLTRACE_FRAMES];
	size_t k;

	if (id != KEY_NONE)
		return id;
	if (chain_dropped(c, node))
		return memo_set(&c->memo, what, KEY_DROP);
	for (k = 0; k < CALLTRACE_FRAMES && q; k++, q = v->nodes[q].parent)
		tail[k] = v->nodes[q].entry;
	return calltrace_name(c, event, tail, k, what);
}

/* The calltrace key of a whole chains' symbol path that the view has not (chainkeys). */
static uint32_t chain_path_key(struct keycache *c, uint32_t event, uint32_t path)
{
	uint64_t what = memo_what(MEMO_CHAIN, event, path);
	uint32_t id = memo_get(&c->memo, what);
	const uint32_t *tail;
	size_t nr;

	if (id != KEY_NONE)
		return id;
	nr = chainkeys__tail(c->whole, path, &tail);
	return calltrace_name(c, event, tail, nr < CALLTRACE_FRAMES ? nr : CALLTRACE_FRAMES, what);
}

/*
 * A share as perf prints it and the robot's parse reads it back: "%.2f"
 * of perf's own expression (hpp__fmt: 100.0 * val / total; a folded
 * callchain line, callchain_node__fprintf_value: hits * 100.0 / total),
 * so that the robot's sums are reproduced to the last digit.
 */
static double printed_pct(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.2f", v);
	return strtod(buf, NULL);
}

static double entry_pct(const struct keycache *c, double w, double total)
{
	return c->robot ? printed_pct(100.0 * w / total) : 100.0 * w / total;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Mark entry e touched by this walk, its shares 0 until added to. */
static void walk_entry(struct keycache *c, uint32_t e)
{
	struct keywalk *k = &c->walk;

	if (k->entry_seen[e] == k->gen)
		return;
	k->entry_seen[e] = k->gen;
	c->children_w[e] = c->self_w[e] = 0;
	XGROW(k->entries, k->alloc_entries, k->nr_entries);
	k->entries[k->nr_entries++] = e;
}

/*
 * symview__weights_of and symview__cumulate over the n counts of a run
 * and event, visiting only the symnodes on their paths (k->nodes, in id
 * order) and their entries (k->entries, in id order): the same values
 * there as the whole walk, in time of those paths.  Returns the total.
 */
static double walk_cells(struct keycache *c, const uint32_t *counts, size_t first, size_t n)
{
	const struct symview *v = c->v;
	const struct profile *p = v->p;
	struct keywalk *k = &c->walk;
	double *w = c->w, total = 0;
	size_t i;

	if (!k->seen) {
		k->seen = xcalloc(v->nr_nodes + 1, sizeof(*k->seen));
		k->entry_seen = xcalloc(v->nr_entries + 1, sizeof(*k->entry_seen));
	}
	if (!++k->gen) {	/* wrapped: forget every stamp */
		memset(k->seen, 0, (v->nr_nodes + 1) * sizeof(*k->seen));
		memset(k->entry_seen, 0, (v->nr_entries + 1) * sizeof(*k->entry_seen));
		k->gen = 1;
	}
	k->nr_nodes = k->nr_entries = 0;
	for (i = 0; i < n; i++) {
		const struct count *cnt;
		size_t ci;
		uint32_t q, leaf;

		ci = counts ? counts[i] : first + i;
		if (ci >= p->nr_counts)
			continue;
		cnt = &p->counts[ci];
		if (cnt->node >= p->nr_nodes || !symview__counts(v, cnt->node))
			continue;
		if (chainkeys__skip(c->whole, cnt->node))
			continue;	/* an elided chain's cell: read whole from the stream */
		leaf = q = symview__symnode(v, cnt->node);
		/* up to the first node already on a path (the root is its own parent) */
		while (k->seen[q] != k->gen) {
			k->seen[q] = k->gen;
			w[q] = 0;
			XGROW(k->nodes, k->alloc_nodes, k->nr_nodes);
			k->nodes[k->nr_nodes++] = q;
			if (!q)
				break;
			walk_entry(c, v->nodes[q].entry);
			q = v->nodes[q].parent;
		}
		w[leaf] += (double)cnt->period;
		total += (double)cnt->period;
	}
	if (k->nr_nodes)	/* no count kept: no array either */
		qsort(k->nodes, k->nr_nodes, sizeof(*k->nodes), u32_cmp);
	/* self from the leaves' weights, then each weight its subtree's, children last */
	for (i = 0; i < k->nr_nodes; i++)
		if (k->nodes[i])
			c->self_w[v->nodes[k->nodes[i]].entry] += w[k->nodes[i]];
	for (i = k->nr_nodes; i-- > 0;)
		if (k->nodes[i])
			w[v->nodes[k->nodes[i]].parent] += w[k->nodes[i]];
	/*
	 * The inner weights in place, in increasing id order: a symnode's
	 * subtree weight is read before any node under it takes its part
	 * (their ids are above), as symview__cumulate's inner == sub.  The
	 * second array of nodes was 4.6 MB a file at a diff's peak.
	 */
	for (i = 0; i < k->nr_nodes; i++) {
		const struct symnode *sn = &v->nodes[k->nodes[i]];

		if (!k->nodes[i])
			continue;
		if (sn->same_anc == SYMVIEW_NONE)
			c->children_w[sn->entry] += w[k->nodes[i]];
		else
			w[sn->same_anc] -= w[k->nodes[i]];
	}
	return total;
}

/*
 * After walk_cells: the whole chains' rows of slot s (chainkeys) added to
 * its children, self and inner weights, the symnodes and entries they
 * touch added to the walk's lists.  Returns the chains' total.
 */
static double walk_whole(struct keycache *c, size_t s)
{
	struct keywalk *k = &c->walk;
	const struct chainkey_row *rows;
	size_t nr, i, old = k->nr_nodes;
	double total = chainkeys__slot(c->whole, s, &rows, &nr);

	for (i = 0; i < nr; i++) {
		uint32_t id = rows[i].id;

		switch (rows[i].kind) {
		case CHAINKEY_CHILDREN:
			walk_entry(c, id);
			c->children_w[id] += rows[i].w;
			break;
		case CHAINKEY_SELF:
			walk_entry(c, id);
			c->self_w[id] += rows[i].w;
			break;
		case CHAINKEY_INNER:
			if (k->seen[id] != k->gen) {
				k->seen[id] = k->gen;
				c->w[id] = 0;
				XGROW(k->nodes, k->alloc_nodes, k->nr_nodes);
				k->nodes[k->nr_nodes++] = id;
			}
			c->w[id] += rows[i].w;
			break;
		default:	/* CHAINKEY_PATH: keyed after the trie's lines */
			break;
		}
	}
	if (k->nr_nodes > old)
		qsort(k->nodes, k->nr_nodes, sizeof(*k->nodes), u32_cmp);
	return total;
}

/* The calltrace lines of slot s's whole chains on symbol paths the view has not. */
static void whole_paths(struct keycache *c, size_t s, uint32_t event, double min_hit, double total)
{
	const struct chainkey_row *rows;
	size_t nr, i;
	uint32_t id;

	chainkeys__slot(c->whole, s, &rows, &nr);
	for (i = 0; i < nr; i++) {
		double w = rows[i].w;

		if (rows[i].kind != CHAINKEY_PATH || w < 1 || w < min_hit)
			continue;
		id = chain_path_key(c, event, rows[i].id);
		if (id != KEY_DROP)
			keycache__add(c, id, c->robot ? printed_pct(w * 100.0 / total)
						      : 100.0 * w / total);
	}
}

static void perf_profile_keys(struct keycache *c, uint32_t run, uint32_t event)
{
	const struct symview *v = c->v;
	struct keywalk *k = &c->walk;
	double *inner = c->w, *children = c->children_w, *self = c->self_w;
	size_t s = (size_t)run * v->p->nr_events + event, i, j, ne, nn;
	size_t n = c->slot_start[s + 1] - c->slot_start[s];
	/* few cells for the trie: their paths only (walk_cells); whole chains: always */
	bool sparse = c->whole || n * 16 < v->nr_nodes;
	double total, min_hit;
	uint32_t id;

	if (sparse) {
		total = walk_cells(c, c->by_slot ? c->by_slot + c->slot_start[s] : NULL, c->slot_start[s], n);
		if (c->whole)
			total += walk_whole(c, s);
	} else {
		total = keycache__weights(c, run, event, c->w);
		if (total > 0)
			symview__cumulate(v, c->w, c->w, c->w, children, self);	/* in place */
	}
	if (total <= 0)
		return;
	ne = sparse ? k->nr_entries : v->nr_entries;
	for (j = 0; c->dso_rep && j < ne; j++) {
		uint32_t e = sparse ? k->entries[j] : (uint32_t)j, r = c->dso_rep[e];

		if (r != e) {	/* one entry to perf: its shares summed, then printed */
			if (sparse)
				walk_entry(c, r);
			children[r] += children[e];
			self[r] += self[e];
			children[e] = self[e] = 0;
		}
	}
	if (sparse && (ne = k->nr_entries))
		qsort(k->entries, ne, sizeof(*k->entries), u32_cmp);

	for (j = 0; j < ne; j++) {
		i = sparse ? k->entries[j] : j;
		if (children[i] > 0 &&
		    (id = entry_key(c, MEMO_CHILDREN, event, (uint32_t)i)) != KEY_DROP)
			keycache__add(c, id, entry_pct(c, children[i], total));
		if (self[i] > 0 &&
		    (id = entry_key(c, MEMO_SELF, event, (uint32_t)i)) != KEY_DROP)
			keycache__add(c, id, entry_pct(c, self[i], total));
	}

	min_hit = floor(total * (KEYS_CALLTRACE_CUT / 100.0));
	nn = sparse ? k->nr_nodes : v->nr_nodes;
	for (j = sparse ? 0 : 1; j < nn; j++) {
		i = sparse ? k->nodes[j] : j;
		/* perf: "node->hit && node->hit >= min_hit"; weights are integers */
		if (!i || inner[i] < 1 || inner[i] < min_hit)
			continue;
		id = calltrace_key(c, event, (uint32_t)i);
		if (id != KEY_DROP)
			keycache__add(c, id, c->robot ? printed_pct(inner[i] * 100.0 / total)
						      : 100.0 * inner[i] / total);
	}
	if (c->whole)
		whole_paths(c, s, event, min_hit, total);
}

void keycache__run(struct keycache *c, uint32_t run, struct keyrun *out)
{
	struct keymap m = { 0 };	/* perf-stat and workload keys: a few per run */
	size_t e, i;

	if (!c->v) {	/* keycache__done: no run is made again */
		*out = (struct keyrun){ NULL, NULL, 0 };
		return;
	}
	if (!++c->gen) {	/* wrapped: forget every stamp */
		memset(c->stamp, 0, c->alloc_val * sizeof(*c->stamp));
		c->gen = 1;
	}
	c->nr_order = 0;
	if (run < c->v->p->nr_runs) {
		if (!c->slot_start)
			keycache__start_work(c);
		for (e = 0; e < c->v->p->nr_events; e++)
			perf_profile_keys(c, run, (uint32_t)e);
		if (run + 1 == c->v->p->nr_runs)
			keycache__drop_work(c);	/* rebuilt if runs are asked again */
	}
	if (!c->rows.built)
		statrows__build(&c->rows, c->v->p);
	keys__perf_stat(c->v->p, &c->rows, run, c->robot, &m);
	keys__workload(c->v->p, &c->rows, run, &m);
	/* after the perf-profile keys, in their order, as one map had them */
	for (i = 0; i < keymap__nr(&m); i++)
		keycache__add(c, keycache__intern(c, keymap__key(&m, i)), m.vals[i]);
	keymap__release(&m);
	if (c->nr_order > c->alloc_out) {
		c->alloc_out = c->alloc_order;
		c->out_vals = xrealloc(c->out_vals, c->alloc_out * sizeof(*c->out_vals));
	}
	for (i = 0; i < c->nr_order; i++)
		c->out_vals[i] = c->val[c->order[i]];
	out->ids = c->order;
	out->vals = c->out_vals;
	out->nr = c->nr_order;
}

void keys__run_view(const struct symview *v, uint32_t run, struct keyvals *out)
{
	struct keycache *c = keycache__new(v);
	struct keyrun kr;
	size_t i;

	keycache__run(c, run, &kr);
	for (i = 0; i < kr.nr; i++)
		keyvals__add(out, strintern__str(&c->keys, kr.ids[i]), kr.vals[i]);
	keycache__free(c);
}

int keys__run(const struct profile *p, uint32_t run, struct keyvals *out)
{
	struct symview v;

	if (run >= p->nr_runs)
		return -EINVAL;
	symview__init(&v, p, false);
	keys__run_view(&v, run, out);
	symview__release(&v);
	return 0;
}
