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
#include "mmprof/xalloc.h"

#define CALLTRACE_FRAMES 5

void keyvals__add(struct keyvals *kv, const char *key, double value)
{
	XGROW(kv->items, kv->alloc, kv->nr);
	kv->items[kv->nr].key = xstrdup(key);
	kv->items[kv->nr].value = value;
	kv->nr++;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct key_value *)a)->key, ((const struct key_value *)b)->key);
}

void keyvals__sort(struct keyvals *kv)
{
	if (kv->nr)
		qsort(kv->items, kv->nr, sizeof(*kv->items), kv_cmp);
}

void keyvals__release(struct keyvals *kv)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		free(kv->items[i].key);
	free(kv->items);
	memset(kv, 0, sizeof(*kv));
}

void keys__event_name(const char *event, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	for (; *event && n + 1 < size; event++) {
		if (*event == '\'' || *event == '"')
			continue;
		buf[n++] = *event == ':' ? '-' : *event;
	}
	buf[n] = '\0';
}

/* Length of a ".isra.N" / ".constprop.N" / ".part.N" at s, or 0. */
static size_t suffix_len(const char *s)
{
	static const char *const names[] = { ".isra.", ".constprop.", ".part." };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t l = strlen(names[i]), d = 0;

		if (strncmp(s, names[i], l))
			continue;
		while (s[l + d] >= '0' && s[l + d] <= '9')
			d++;
		if (d)
			return l + d;
	}
	return 0;
}

void keys__strip_suffixes(const char *sym, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	while (*sym && n + 1 < size) {
		size_t skip = *sym == '.' ? suffix_len(sym) : 0;

		if (skip) {
			sym += skip;
			continue;
		}
		buf[n++] = *sym++;
	}
	buf[n] = '\0';
}

/*
 * keymap: key string -> summed value, so that colliding keys (stripped
 * suffixes, one symbol in several DSOs) add up before they are emitted.
 */
struct keymap {
	struct key_value *items;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool keymap_eq(const void *ctx, uint32_t row, const void *key)
{
	return !strcmp(((const struct keymap *)ctx)->items[row].key, key);
}

static void keymap__add(struct keymap *m, const char *key, double value)
{
	uint64_t h = hash__bytes(key, strlen(key));
	uint32_t row = hashidx__find(&m->idx, h, keymap_eq, m, key);

	if (row == HASHIDX_NONE) {
		XGROW(m->items, m->alloc, m->nr);
		row = (uint32_t)m->nr++;
		m->items[row].key = xstrdup(key);
		m->items[row].value = 0;
		hashidx__insert(&m->idx, h, row);
	}
	m->items[row].value += value;
}

/* "perf-profile.<family>.<ev>.<stripped sym>" into buf. */
static void profile_key(char *buf, size_t size, const char *family, const char *ev,
			const char *sym)
{
	char stripped[1024];

	keys__strip_suffixes(sym, stripped, sizeof(stripped));
	snprintf(buf, size, "perf-profile.%s.%s.%s", family, ev, stripped);
}

/*
 * keycache: every key string of one symview, numbered once.  A key's text
 * depends only on the symview (entry, symnode, event), never on the run,
 * so it is formatted and hashed once per file instead of once per run;
 * runs then add values into dense arrays indexed by key id.  Per event:
 * entry -> children and self key ids, symnode -> calltrace key id, filled
 * lazily (most calltrace nodes never pass the 0.5 % floor).
 */
#define KEY_NONE UINT32_MAX

struct keycache {
	const struct symview *v;	/* only keycache__run reads it */
	size_t nr_events;
	char **names;
	size_t nr, alloc;
	/*
	 * [id] the raw spellings of a perf-profile key's symbol part, '\n'-
	 * separated, when a frame behind it was spelled otherwise (hot.isra.0
	 * for ...hot); NULL when every one was spelled as the key, which is
	 * nearly always.  The array itself exists only once some key needs
	 * it (then alloc_spell == alloc): a file without clones pays nothing.
	 */
	char **spell;
	size_t alloc_spell;
	struct hashidx idx;
	uint32_t **children, **self, **calltrace;	/* [event][entry or symnode] */
	char (*ev)[256];	/* [event] the robot's spelling */
	/* the run being built: values by key id, present when stamp == gen */
	double *val;
	uint32_t *stamp;
	size_t alloc_val;
	uint32_t gen;
	uint32_t *order;	/* key ids in first-add order */
	double *out_vals;
	size_t nr_order, alloc_order, alloc_out;
	/* while runs are being built: the profile's counts grouped by run (in
	 * file order within a run) and the weight buffers, dropped after the
	 * last run so that a kept cache holds only its names */
	uint32_t *by_run;
	size_t *run_start;	/* [run] .. [run + 1]: a run's part of by_run */
	double *w, *sub, *inner, *children_w, *self_w;
};

static void keycache__drop_work(struct keycache *c)
{
	free(c->by_run);
	free(c->run_start);
	free(c->w);
	free(c->sub);
	free(c->inner);
	free(c->children_w);
	free(c->self_w);
	c->by_run = NULL;
	c->run_start = NULL;
	c->w = c->sub = c->inner = c->children_w = c->self_w = NULL;
}

/*
 * The first run of a batch: group the counts by run once (a stable
 * counting sort), so that each run reads its own counts rather than
 * scanning them all (10 runs x 1 M counts in a large file), and allocate
 * the weight buffers once for all runs.
 */
static void keycache__start_work(struct keycache *c)
{
	const struct symview *v = c->v;
	const struct profile *p = v->p;
	size_t i, r;

	c->run_start = xcalloc(p->nr_runs + 2, sizeof(*c->run_start));
	c->by_run = xmalloc((p->nr_counts + 1) * sizeof(*c->by_run));
	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].run < p->nr_runs)
			c->run_start[p->counts[i].run + 2]++;
	for (r = 0; r < p->nr_runs; r++)
		c->run_start[r + 2] += c->run_start[r + 1];
	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].run < p->nr_runs)
			c->by_run[c->run_start[p->counts[i].run + 1]++] = (uint32_t)i;
	c->w = xmalloc((v->nr_nodes + 1) * sizeof(*c->w));
	c->sub = xmalloc((v->nr_nodes + 1) * sizeof(*c->sub));
	c->inner = xmalloc((v->nr_nodes + 1) * sizeof(*c->inner));
	c->children_w = xmalloc((v->nr_entries + 1) * sizeof(*c->children_w));
	c->self_w = xmalloc((v->nr_entries + 1) * sizeof(*c->self_w));
}

/* symview__weights (period) of one run, over that run's counts only. */
static double keycache__weights(const struct keycache *c, uint32_t run, uint32_t event, double *w)
{
	const struct symview *v = c->v;
	const struct profile *p = v->p;
	double total = 0;
	size_t i;

	memset(w, 0, v->nr_nodes * sizeof(*w));
	for (i = c->run_start[run]; i < c->run_start[run + 1]; i++) {
		const struct count *ct = &p->counts[c->by_run[i]];
		double x;

		if (ct->event != event || ct->node >= p->nr_nodes || !v->node_keep[ct->node])
			continue;
		x = (double)ct->period;
		w[v->node_map[ct->node]] += x;
		total += x;
	}
	return total;
}

static bool keycache_eq(const void *ctx, uint32_t row, const void *key)
{
	return !strcmp(((const struct keycache *)ctx)->names[row], key);
}

static void keycache__grow_spell(struct keycache *c)
{
	c->spell = xrealloc(c->spell, c->alloc * sizeof(*c->spell));
	memset(c->spell + c->alloc_spell, 0, (c->alloc - c->alloc_spell) * sizeof(*c->spell));
	c->alloc_spell = c->alloc;
}

static uint32_t keycache__intern(struct keycache *c, const char *key)
{
	uint64_t h = hash__bytes(key, strlen(key));
	uint32_t id = hashidx__find(&c->idx, h, keycache_eq, c, key);

	if (id != HASHIDX_NONE)
		return id;
	XGROW(c->names, c->alloc, c->nr);
	id = (uint32_t)c->nr++;
	c->names[id] = xstrdup(key);
	hashidx__insert(&c->idx, h, id);
	if (c->spell && c->alloc_spell < c->alloc)
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
	size_t nr = c->nr;
	uint32_t id = keycache__intern(c, key);
	bool fresh = c->nr > nr, plain = !strcmp(raw, key + sym);

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

		c->alloc_val = c->alloc > id ? c->alloc : (size_t)id + 1;
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

static uint32_t *ids_none(size_t n)
{
	uint32_t *a = xmalloc((n ? n : 1) * sizeof(*a));

	memset(a, 0xff, (n ? n : 1) * sizeof(*a));
	return a;
}

struct keycache *keycache__new(const struct symview *v)
{
	const struct profile *p = v->p;
	struct keycache *c = xcalloc(1, sizeof(*c));
	size_t e;

	c->v = v;
	c->nr_events = p->nr_events;
	hashidx__init(&c->idx);
	c->children = xcalloc(p->nr_events + 1, sizeof(*c->children));
	c->self = xcalloc(p->nr_events + 1, sizeof(*c->self));
	c->calltrace = xcalloc(p->nr_events + 1, sizeof(*c->calltrace));
	c->ev = xcalloc(p->nr_events + 1, sizeof(*c->ev));
	for (e = 0; e < p->nr_events; e++) {
		const char *evname = profile__str(p, p->events[e].name);

		keys__event_name(evname ? evname : "unknown", c->ev[e], sizeof(c->ev[e]));
		c->children[e] = ids_none(v->nr_entries);
		c->self[e] = ids_none(v->nr_entries);
		c->calltrace[e] = ids_none(v->nr_nodes);
	}
	return c;
}

void keycache__free(struct keycache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_events; i++) {
		free(c->children[i]);
		free(c->self[i]);
		free(c->calltrace[i]);
	}
	for (i = 0; i < c->nr; i++) {
		free(c->names[i]);
		if (c->spell)
			free(c->spell[i]);
	}
	free(c->names);
	free(c->spell);
	free(c->children);
	free(c->self);
	free(c->calltrace);
	free(c->ev);
	free(c->val);
	free(c->stamp);
	free(c->order);
	free(c->out_vals);
	keycache__drop_work(c);
	hashidx__release(&c->idx);
	free(c);
}

const char *keycache__name(const struct keycache *c, uint32_t id)
{
	return id < c->nr ? c->names[id] : NULL;
}

size_t keycache__nr(const struct keycache *c)
{
	return c->nr;
}

const char *const *keycache__spellings(const struct keycache *c)
{
	return (const char *const *)c->spell;
}

static uint32_t entry_key(struct keycache *c, uint32_t **ids, const char *family,
			  uint32_t event, uint32_t entry)
{
	char key[4096];

	if (ids[event][entry] == KEY_NONE) {
		const char *raw = symview__entry_name(c->v, entry);
		size_t sym = (size_t)snprintf(key, sizeof(key), "perf-profile.%s.%s.", family,
					      c->ev[event]);

		profile_key(key, sizeof(key), family, c->ev[event], raw);
		ids[event][entry] = sym < sizeof(key) ?
			keycache__intern_spelled(c, key, sym, raw) : keycache__intern(c, key);
	}
	return ids[event][entry];
}

static uint32_t calltrace_key(struct keycache *c, uint32_t event, uint32_t node)
{
	const struct symview *v = c->v;
	char key[4096];
	uint32_t q = node;
	size_t n, k, sym;
	bool spelled = false;

	if (c->calltrace[event][node] != KEY_NONE)
		return c->calltrace[event][node];
	n = (size_t)snprintf(key, sizeof(key), "perf-profile.calltrace.%s", c->ev[event]);
	sym = n + 1;
	for (k = 0; k < CALLTRACE_FRAMES && q; k++, q = v->nodes[q].parent) {
		const char *name = symview__entry_name(v, v->nodes[q].entry);
		char stripped[1024];

		keys__strip_suffixes(name, stripped, sizeof(stripped));
		spelled |= strcmp(stripped, name) != 0;
		if (n < sizeof(key))
			n += (size_t)snprintf(key + n, sizeof(key) - n, ".%s", stripped);
	}
	if (spelled && n < sizeof(key)) {
		/* the same chain as its frames spell it: rare, so built only then */
		char raw[4096];
		size_t r = 0;

		for (k = 0, q = node; k < CALLTRACE_FRAMES && q; k++, q = v->nodes[q].parent)
			if (r < sizeof(raw))
				r += (size_t)snprintf(raw + r, sizeof(raw) - r, "%s%s", k ? "." : "",
						      symview__entry_name(v, v->nodes[q].entry));
		if (r < sizeof(raw))
			return c->calltrace[event][node] = keycache__intern_spelled(c, key, sym, raw);
	}
	return c->calltrace[event][node] = keycache__intern_spelled(c, key, sym, key + sym);
}

static void perf_profile_keys(struct keycache *c, uint32_t run, uint32_t event)
{
	const struct symview *v = c->v;
	double *inner = c->inner, *children = c->children_w, *self = c->self_w;
	double total, min_hit;
	size_t i;

	total = keycache__weights(c, run, event, c->w);
	if (total <= 0)
		return;
	symview__cumulate(v, c->w, c->sub, inner, children, self);

	for (i = 0; i < v->nr_entries; i++) {
		if (children[i] > 0)
			keycache__add(c, entry_key(c, c->children, "children", event, (uint32_t)i),
				      100.0 * children[i] / total);
		if (self[i] > 0)
			keycache__add(c, entry_key(c, c->self, "self", event, (uint32_t)i),
				      100.0 * self[i] / total);
	}

	min_hit = floor(total * (KEYS_CALLTRACE_CUT / 100.0));
	for (i = 1; i < v->nr_nodes; i++) {
		/* perf: "node->hit && node->hit >= min_hit"; weights are integers */
		if (inner[i] < 1 || inner[i] < min_hit)
			continue;
		keycache__add(c, calltrace_key(c, event, (uint32_t)i), 100.0 * inner[i] / total);
	}
}

/*
 * perf-stat: counters of the run (scaled) and their intervals.  perf stat
 * prints clocks in msec, so the robot's cpu-clock/task-clock keys are msec.
 */
struct stat_set {
	const char **names;
	double *vals;
	size_t nr, alloc;
};

static double unit_scale(const char *name)
{
	return !strcmp(name, "cpu-clock") || !strcmp(name, "task-clock") ? 1e-6 : 1.0;
}

static void stat_set__add(struct stat_set *s, const char *name, double v)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->names[i], name)) {
			s->vals[i] += v;
			return;
		}
	}
	XGROW(s->names, s->alloc, s->nr);
	s->vals = xrealloc(s->vals, s->alloc * sizeof(*s->vals));
	s->names[s->nr] = name;
	s->vals[s->nr++] = v;
}

static double stat_set__get(const struct stat_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->names[i], name))
			return s->vals[i];
	return 0;
}

static void stat_set__release(struct stat_set *s)
{
	free(s->names);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}

static double cycles_of(const struct stat_set *s)
{
	double c = stat_set__get(s, "cpu-cycles");

	return c ? c : stat_set__get(s, "cycles");
}

/*
 * The robot's derived keys (calc_addon_keys): for every X-misses a miss
 * rate over Xs+misses, X-references or X-instructions (first that is
 * non-zero); cycles-between-cache-misses, MPKI, instructions-per-iTLB-miss,
 * ipc and cpi.  emit() receives each "<prefix><name>".
 */
static void derived_keys(const struct stat_set *s, const char *prefix, struct keymap *m,
			 double weight)
{
	double instructions = stat_set__get(s, "instructions");
	double cycles = cycles_of(s);
	char key[512];
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const char *name = s->names[i];
		size_t len = strlen(name);
		static const char *const denoms[] = { "s", "-references", "-instructions" };
		double misses = s->vals[i];
		size_t d;

		if (len <= 7 || strcmp(name + len - 7, "-misses"))
			continue;
		for (d = 0; d < 3; d++) {
			char other[256];
			double a;

			snprintf(other, sizeof(other), "%.*s%s", (int)(len - 7), name, denoms[d]);
			a = stat_set__get(s, other);
			if (!a)
				continue;
			snprintf(key, sizeof(key), "%s%.*s-miss-rate%%", prefix, (int)(len - 7), name);
			keymap__add(m, key, weight * 100.0 * misses / (d == 0 ? a + misses : a));
			break;
		}
		if (!misses)
			continue;
		if (!strcmp(name, "iTLB-load-misses") && instructions) {
			snprintf(key, sizeof(key), "%sinstructions-per-iTLB-miss", prefix);
			keymap__add(m, key, weight * instructions / misses);
		}
		if (!strcmp(name, "cache-misses")) {
			if (cycles) {
				snprintf(key, sizeof(key), "%scycles-between-cache-misses", prefix);
				keymap__add(m, key, weight * cycles / misses);
			}
			if (instructions) {
				snprintf(key, sizeof(key), "%sMPKI", prefix);
				keymap__add(m, key, weight * misses / instructions * 1000);
			}
		}
	}
	if (cycles && instructions) {
		snprintf(key, sizeof(key), "%sipc", prefix);
		keymap__add(m, key, weight * instructions / cycles);
		snprintf(key, sizeof(key), "%scpi", prefix);
		keymap__add(m, key, weight * cycles / instructions);
	}
}

static bool counter_usable(const struct counter *c)
{
	/* not supported, or enabled but never scheduled: no honest value */
	return c->supported && !(c->running == 0 && c->enabled > 0);
}

static int interval_cmp(const void *a, const void *b)
{
	const struct counter_interval *x = *(const struct counter_interval *const *)a;
	const struct counter_interval *y = *(const struct counter_interval *const *)b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * perf-stat.i.*: each interval gives per-second rates and its own derived
 * ratios; a key's value is the mean over the intervals where it exists.
 * An interval's length is its own: t_ns minus the previous reading's t_ns.
 * The last reading of a run is taken when the run ends, between two ticks:
 * its interval is a fraction of -I (often a few ms) and its rates are
 * noise (a 10 ms tail of process exit gave 3x the mean page-fault rate),
 * yet an unweighted mean gives it the weight of a full second.  The robot's
 * parser never uses the last interval of perf stat -I, so perf-stat.i.*
 * leaves it out too, as long as another interval remains (a run shorter
 * than -I has only that one, and it covers the whole run).  The robot also
 * leaves it out of the sums behind ps.* and overall.* yet divides ps.* by
 * the whole run time, so its ps.* run a little low; mmprof's ps.* and
 * overall.* use the exact totals of the run.
 */
static void interval_keys(const struct profile *p, uint32_t run, const uint8_t *blocked,
			  struct keymap *m)
{
	const struct counter_interval **iv = NULL;
	struct keymap per_key = { 0 };	/* key -> number of intervals it appeared in */
	struct keymap sums = { 0 };
	size_t n = 0, alloc = 0, i, j;
	uint64_t prev_t = 0;

	for (i = 0; i < p->nr_intervals; i++) {
		const struct counter_interval *ci = &p->intervals[i];

		if (ci->run != run || ci->name >= p->nr_strs || blocked[ci->name] ||
		    !profile__str(p, ci->name))
			continue;
		XGROW(iv, alloc, n);
		iv[n++] = ci;
	}
	if (!n)
		goto out;
	qsort(iv, n, sizeof(*iv), interval_cmp);
	/* drop the last reading (the run's partial tail) unless it is the only one */
	if (iv[0]->t_ns != iv[n - 1]->t_ns) {
		uint64_t last = iv[n - 1]->t_ns;

		while (iv[n - 1]->t_ns == last)
			n--;
	}
	for (i = 0; i < n; i = j) {
		struct stat_set s = { 0 };
		struct keymap one = { 0 };
		double secs = (double)(iv[i]->t_ns - prev_t) / 1e9;
		size_t k;

		for (j = i; j < n && iv[j]->t_ns == iv[i]->t_ns; j++) {
			const struct counter_interval *ci = iv[j];
			const char *name = profile__str(p, ci->name);
			double v = (double)ci->value;

			/* multiplexed out for the whole interval: unknown, not 0 */
			if (!ci->running && ci->enabled)
				continue;
			if (ci->running && ci->running != ci->enabled)
				v *= (double)ci->enabled / (double)ci->running;
			stat_set__add(&s, name, v * unit_scale(name));
		}
		prev_t = iv[i]->t_ns;
		if (secs <= 0) {
			stat_set__release(&s);
			continue;
		}
		for (k = 0; k < s.nr; k++) {
			char key[512];

			snprintf(key, sizeof(key), "perf-stat.i.%s", s.names[k]);
			keymap__add(&one, key, s.vals[k] / secs);
		}
		derived_keys(&s, "perf-stat.i.", &one, 1.0);
		for (k = 0; k < one.nr; k++) {
			keymap__add(&sums, one.items[k].key, one.items[k].value);
			keymap__add(&per_key, one.items[k].key, 1.0);
		}
		for (k = 0; k < one.nr; k++)
			free(one.items[k].key);
		free(one.items);
		hashidx__release(&one.idx);
		stat_set__release(&s);
	}
	/* sums and per_key were filled in the same order */
	for (i = 0; i < sums.nr; i++)
		keymap__add(m, sums.items[i].key, sums.items[i].value / per_key.items[i].value);
out:
	for (i = 0; i < sums.nr; i++)
		free(sums.items[i].key);
	for (i = 0; i < per_key.nr; i++)
		free(per_key.items[i].key);
	free(sums.items);
	free(per_key.items);
	hashidx__release(&sums.idx);
	hashidx__release(&per_key.idx);
	free(iv);
}

static void perf_stat_keys(const struct profile *p, uint32_t run, struct keymap *m)
{
	uint8_t *blocked = xcalloc(p->nr_strs + 1, 1);	/* by name id: unsupported */
	double secs = (double)p->runs[run].wall_ns / 1e9;
	struct stat_set s = { 0 };
	char key[512];
	double instructions;
	size_t i;

	for (i = 0; i < p->nr_counters; i++) {
		const struct counter *c = &p->counters[i];
		const char *name = profile__str(p, c->name);

		if (c->run != run || !name)
			continue;
		if (!counter_usable(c)) {
			blocked[c->name] = 1;
			continue;
		}
		stat_set__add(&s, name, counter__scaled(c) * unit_scale(name));
		/*
		 * Multiplexed: the value is extrapolated from the share of the
		 * run the counter was on the PMU.  Say how much was estimated,
		 * 100 * (1 - running/enabled); absent means counted throughout,
		 * which is what diff's "missing is 0" reads it as.
		 */
		if (c->running < c->enabled) {
			snprintf(key, sizeof(key), "perf-stat.scaled.%s%%", name);
			keymap__add(m, key, 100.0 * (double)(c->enabled - c->running) /
					    (double)c->enabled);
		}
	}
	if (secs > 0) {
		for (i = 0; i < s.nr; i++) {
			snprintf(key, sizeof(key), "perf-stat.ps.%s", s.names[i]);
			keymap__add(m, key, s.vals[i] / secs);
		}
	}
	instructions = stat_set__get(&s, "instructions");
	if (instructions)
		keymap__add(m, "perf-stat.total.instructions", instructions);
	derived_keys(&s, "perf-stat.overall.", m, 1.0);
	interval_keys(p, run, blocked, m);
	stat_set__release(&s);
	free(blocked);
}

/* basename of the first word of s into buf */
static void first_word_base(const char *s, char *buf, size_t size)
{
	size_t len;
	const char *slash;

	while (*s == ' ' || *s == '\'')
		s++;
	len = strcspn(s, " '");
	slash = memrchr(s, '/', len);
	if (slash) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	snprintf(buf, size, "%.*s", (int)len, s);
}

void keys__workload_name(const struct profile *p, char *buf, size_t size)
{
	const char *s = profile__meta(p, "workload");
	const char *dd;
	size_t i;

	if (s && *s) {
		first_word_base(s, buf, size);
		return;
	}
	/* the benchmark's own metrics are "<name>.<metric>"; record's own
	 * families (--sched, tracepoint statistics, mm state) are not the benchmark */
	for (i = 0; i < p->nr_metrics; i++) {
		const char *k = profile__str(p, p->metrics[i].key);
		const char *dot = k ? strchr(k, '.') : NULL;

		if (p->metrics[i].run != p->metrics[0].run)
			break;
		if (!dot || dot == k || !strncmp(k, "perf-sched.", 11) ||
		    !strncmp(k, "tracepoint.", 11) || !strncmp(k, "proc-vmstat.", 12) ||
		    !strncmp(k, "meminfo.", 8))
			continue;
		snprintf(buf, size, "%.*s", (int)(dot - k), k);
		return;
	}
	s = profile__meta(p, "cmdline");
	if (!s)
		s = profile__meta(p, "command");
	if (s && *s) {
		dd = strstr(s, " -- ");
		first_word_base(dd ? dd + 4 : s, buf, size);
		if (*buf)
			return;
	}
	snprintf(buf, size, "workload");
}

static void workload_keys(const struct profile *p, uint32_t run, struct keymap *m)
{
	const struct run *r = &p->runs[run];
	double wall = (double)r->wall_ns / 1e9;
	char name[256], key[512];
	size_t i;
	struct {
		const char *field;
		double value;
	} t[] = {
		{ "user_time", (double)r->utime_us / 1e6 },
		{ "system_time", (double)r->stime_us / 1e6 },
		{ "percent_of_cpu_this_job_got",
		  wall > 0 ? 100.0 * (double)(r->utime_us + r->stime_us) / 1e6 / wall : 0 },
		{ "elapsed_time", wall },
		{ "maximum_resident_set_size", (double)r->maxrss_kb },
		{ "minor_page_faults", (double)r->minflt },
		{ "major_page_faults", (double)r->majflt },
		{ "voluntary_context_switches", (double)r->nvcsw },
		{ "involuntary_context_switches", (double)r->nivcsw },
	};

	for (i = 0; i < p->nr_metrics; i++) {
		const char *k = profile__str(p, p->metrics[i].key);
		static const char old_count[] = "perf-sched.wait_and_delay.count.";

		if (p->metrics[i].run != run || !k)
			continue;
		/*
		 * Files recorded before the robot's name was used say
		 * "wait_and_delay.count.<stack>"; the robot (and record now)
		 * says "wait_and_delay.count.ms.<stack>".  Renamed here so that
		 * diff pairs an old file's keys with a new one's.
		 */
		if (!strncmp(k, old_count, sizeof(old_count) - 1) &&
		    strncmp(k + sizeof(old_count) - 1, "ms.", 3)) {
			size_t len = strlen(k) + 4;
			char *renamed = xmalloc(len);

			snprintf(renamed, len, "%sms.%s", old_count, k + sizeof(old_count) - 1);
			keymap__add(m, renamed, p->metrics[i].value);
			free(renamed);
			continue;
		}
		keymap__add(m, k, p->metrics[i].value);
	}
	/* only a forked workload has rusage (attach and -a runs do not) */
	if (!(r->utime_us || r->stime_us || r->maxrss_kb))
		return;
	keys__workload_name(p, name, sizeof(name));
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(key, sizeof(key), "%s.time.%s", name, t[i].field);
		keymap__add(m, key, t[i].value);
	}
}

void keycache__run(struct keycache *c, uint32_t run, struct keyrun *out)
{
	struct keymap m = { 0 };	/* perf-stat and workload keys: a few per run */
	size_t e, i;

	if (!++c->gen) {	/* wrapped: forget every stamp */
		memset(c->stamp, 0, c->alloc_val * sizeof(*c->stamp));
		c->gen = 1;
	}
	c->nr_order = 0;
	if (run < c->v->p->nr_runs) {
		if (!c->by_run)
			keycache__start_work(c);
		for (e = 0; e < c->v->p->nr_events; e++)
			perf_profile_keys(c, run, (uint32_t)e);
		if (run + 1 == c->v->p->nr_runs)
			keycache__drop_work(c);	/* rebuilt if runs are asked again */
	}
	perf_stat_keys(c->v->p, run, &m);
	workload_keys(c->v->p, run, &m);
	/* after the perf-profile keys, in their order, as one map had them */
	for (i = 0; i < m.nr; i++) {
		keycache__add(c, keycache__intern(c, m.items[i].key), m.items[i].value);
		free(m.items[i].key);
	}
	free(m.items);
	hashidx__release(&m.idx);
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
		keyvals__add(out, c->names[kr.ids[i]], kr.vals[i]);
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
