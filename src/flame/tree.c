/* flame trees: one profile, or two sides through chains.h; see include/mmprof/flame.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chains.h"
#include "mmprof/flame.h"
#include "mmprof/xalloc.h"

static const char unknown_name[] = "[unknown]";

struct fkey {
	uint32_t parent, sym, dso;
	uint8_t kernel;
};

static bool fkey_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct flame_node *n = &((const struct flame *)ctx)->nodes[row];
	const struct fkey *k = key;

	return n->parent == k->parent && n->sym == k->sym && n->dso == k->dso && n->kernel == k->kernel;
}

static uint32_t flame__add(struct flame *f, uint32_t parent)
{
	struct flame_node *n;

	XGROW(f->nodes, f->alloc, f->nr);
	n = &f->nodes[f->nr];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->depth = f->nr ? f->nodes[parent].depth + 1 : 0;
	n->first_child = n->next_sibling = FLAME_NONE;
	n->q = NAN;
	n->mde = NAN;
	return (uint32_t)f->nr++;
}

static void flame__init(struct flame *f)
{
	memset(f, 0, sizeof(*f));
	hashidx__init(&f->idx);
	flame__add(f, 0);
	f->nodes[0].name = "all";
}

/* The child of parent for profile frame fr, added if new. */
static uint32_t flame__child(struct flame *f, const struct profile *p, uint32_t parent, uint32_t fr)
{
	const struct frame *pf = &p->frames[fr];
	struct fkey k = { parent, pf->sym, pf->dso, pf->kernel };
	uint64_t h = hash__combine(hash__combine(hash__u64(parent), pf->sym),
				   ((uint64_t)pf->dso << 1) | pf->kernel);
	uint32_t id = hashidx__find(&f->idx, h, fkey_eq, f, &k);

	if (id != HASHIDX_NONE)
		return id;
	id = flame__add(f, parent);
	f->nodes[id].sym = pf->sym;
	f->nodes[id].dso = pf->dso;
	f->nodes[id].kernel = pf->kernel;
	f->nodes[id].name = pf->sym ? profile__str(p, pf->sym) : unknown_name;
	f->nodes[id].dso_name = profile__str(p, pf->dso);
	hashidx__insert(&f->idx, h, id);
	return id;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A DSO filter matches the whole name or its basename ("libc.so.6", "[kernel.kallsyms]"). */
static bool dso_match(const char *dso, const struct flame_opts *o)
{
	size_t i;

	if (!dso)
		return false;
	for (i = 0; i < o->nr_dsos; i++)
		if (!strcmp(dso, o->dsos[i]) || !strcmp(base_name(dso), o->dsos[i]))
			return true;
	return false;
}

/*
 * Child lists in id order; the renderer orders the children of the frames
 * it draws by name (sorting all 10^6 nodes of a big trie up front cost more
 * than everything else together, and most of them are never drawn).
 */
static void flame__link(struct flame *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		f->nodes[i].first_child = f->nodes[i].next_sibling = FLAME_NONE;
	for (i = f->nr; i-- > 1;) {
		struct flame_node *n = &f->nodes[i];

		n->next_sibling = f->nodes[n->parent].first_child;
		f->nodes[n->parent].first_child = (uint32_t)i;
	}
}

int flame__build(struct flame *f, const struct profile *p, const struct flame_opts *o,
		 struct errmsg *e)
{
	uint64_t *ws = NULL, *wp = NULL;	/* the loader keeps all counts below 2^63: no wrap */
	uint32_t *map = NULL, *comm_ok = NULL;
	uint8_t *has = NULL;
	int ev = o->event < 0 ? 0 : o->event, err = 0;
	size_t i, j;

	flame__init(f);
	f->icicle = o->icicle;
	f->unit = o->samples ? "samples" : "period";
	/* a counting recording (mmprof stat -o) has counters but no sampling event */
	if (!p->nr_events)
		return errmsg__set(e, -ENOENT, "the profile has no samples to draw (a counting "
				   "recording?); record samples with 'mmprof record'");
	if ((size_t)ev >= p->nr_events)
		return errmsg__set(e, -EINVAL, "the profile has no event %d (it has %zu)", ev + 1, p->nr_events);
	if (o->run >= 0 && (size_t)o->run >= p->nr_runs)
		return errmsg__set(e, -EINVAL, "the profile has no run %d (it has %zu, numbered from 0)", o->run, p->nr_runs);
	{
		/* clocks count nanoseconds, offcpu the nanoseconds off CPU (profile.h) */
		const char *name = profile__str(p, p->events[ev].name);

		f->period_name = "period";
		if (name && !strcmp(name, PROFILE_OFFCPU_EVENT)) {
			f->period_name = "off-CPU";
			f->period_ns = true;
		} else if (name && (!strncmp(name, "cpu-clock", 9) || !strncmp(name, "task-clock", 10))) {
			f->period_ns = true;
		}
	}

	/* comm filter: by string id, so an unknown comm simply matches nothing */
	comm_ok = xcalloc(o->nr_comms + 1, sizeof(*comm_ok));
	for (i = 0; i < o->nr_comms; i++)
		comm_ok[i] = profile__str_id(p, o->comms[i]);
	ws = xcalloc(p->nr_nodes + 1, sizeof(*ws));
	wp = xcalloc(p->nr_nodes + 1, sizeof(*wp));
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->event != (uint32_t)ev || (o->run >= 0 && c->run != (uint32_t)o->run) ||
		    c->node >= p->nr_nodes || c->node == PROFILE_ROOT)
			continue;
		if (o->nr_comms) {
			for (j = 0; j < o->nr_comms; j++)
				if (comm_ok[j] && comm_ok[j] == c->comm)
					break;
			if (j == o->nr_comms)
				continue;
		}
		if (o->nr_pids) {
			for (j = 0; j < o->nr_pids && o->pids[j] != c->pid; j++)
				;
			if (j == o->nr_pids)
				continue;
		}
		ws[c->node] += c->samples;
		wp[c->node] += c->period;
	}
	if (o->nr_dsos) {
		/* a stack stays when any frame on its path is in a chosen DSO */
		has = xcalloc(p->nr_nodes + 1, 1);
		for (i = 1; i < p->nr_nodes; i++)
			has[i] = has[p->nodes[i].parent] ||
				 dso_match(profile__str(p, p->frames[p->nodes[i].frame].dso), o);
		for (i = 1; i < p->nr_nodes; i++)
			if (!has[i])
				ws[i] = wp[i] = 0;
	}

	if (o->icicle) {
		/* callee-rooted: every stack inserted leaf first */
		for (i = 1; i < p->nr_nodes; i++) {
			uint32_t q, cur = 0;
			double w = (double)(o->samples ? ws[i] : wp[i]);

			if (ws[i] == 0 && wp[i] == 0)
				continue;
			f->nodes[0].value += w;
			f->nodes[0].samples += ws[i];
			f->nodes[0].period += wp[i];
			for (q = (uint32_t)i; q != PROFILE_ROOT; q = p->nodes[q].parent) {
				cur = flame__child(f, p, cur, p->nodes[q].frame);
				f->nodes[cur].value += w;
				f->nodes[cur].samples += ws[i];
				f->nodes[cur].period += wp[i];
			}
		}
	} else {
		/* inclusive weights, then one forward pass (parents precede children) */
		for (i = p->nr_nodes; i-- > 1;) {
			ws[p->nodes[i].parent] += ws[i];
			wp[p->nodes[i].parent] += wp[i];
		}
		map = xmalloc((p->nr_nodes + 1) * sizeof(*map));
		map[0] = 0;
		f->nodes[0].samples = ws[0];
		f->nodes[0].period = wp[0];
		f->nodes[0].value = (double)(o->samples ? ws[0] : wp[0]);
		for (i = 1; i < p->nr_nodes; i++) {
			uint32_t id;

			map[i] = FLAME_NONE;
			if ((ws[i] == 0 && wp[i] == 0) || map[p->nodes[i].parent] == FLAME_NONE)
				continue;
			id = flame__child(f, p, map[p->nodes[i].parent], p->nodes[i].frame);
			map[i] = id;
			/* sibling trie nodes of one symbol (other addresses) add up */
			f->nodes[id].samples += ws[i];
			f->nodes[id].period += wp[i];
			f->nodes[id].value += (double)(o->samples ? ws[i] : wp[i]);
		}
	}
	f->total = f->nodes[0].value;
	if (f->total <= 0)
		err = errmsg__set(e, -ENOENT, "no samples left to draw (event, run and filters)");
	else
		flame__link(f);
	free(ws);
	free(wp);
	free(map);
	free(has);
	free(comm_ok);
	return err;
}

int flame__build_diff(struct flame *f, const struct profile *const *base, size_t nbp,
		      const struct profile *const *cur, size_t nnp, const struct flame_diff_opts *o,
		      struct errmsg *e)
{
	double alpha = o->alpha > 0 ? o->alpha : 0.05;
	double min_points = o->min_points > 0 ? o->min_points : 0.1;
	double novar_points = o->novar_points > 0 ? o->novar_points : 0.5;
	double ref;
	const char *event = o->event;
	struct chain_diff own;
	const struct chain_diff *cdp = &own;
	uint32_t *map;
	size_t i;
	int err = 0;

	flame__init(f);
	f->diff = true;
	f->width_base = o->width_base;
	f->per_op = o->scale != NULL;
	f->unit = f->per_op ? (o->unit ? o->unit : "") : "%";
	if (!event) {
		if (!nnp || !cur[0]->nr_events || !profile__str(cur[0], cur[0]->events[0].name))
			return errmsg__set(e, -EINVAL, "the new side has no sampling event");
		event = profile__str(cur[0], cur[0]->events[0].name);
	}
	if (o->chains && !o->scale && o->chains->alpha == alpha) {
		cdp = o->chains;	/* the caller's (diff -g's): the same rows, computed once */
	} else {
		/* min_points = inf: chains shows nothing, so it formats no text */
		err = chains__compute_scaled(&own, base, nbp, cur, nnp, event, INFINITY, alpha, o->paired,
					     o->scale, o->keep, o->views);
		if (!err && !o->scale)
			chains__take_functions(&own, o->fns);
	}
	if (err)
		return errmsg__set(e, err, o->scale ? "no samples of event '%s', or no run of a known work count, "
				   "on one side" : "no samples of event '%s' on one side", event);
	f->novar = cdp->novar;
	/* per op, the floors are points of the larger side's total, as shares' are of 100 */
	ref = f->per_op ? fmax(cdp->total[0], cdp->total[1]) : 100;
	min_points *= ref / 100;
	novar_points *= ref / 100;
	map = xmalloc((cdp->nr + 1) * sizeof(*map));
	/* rows come in trie order of some profile: a path's parent row precedes it */
	for (i = 0; i < cdp->nr; i++) {
		const struct chain_row *r = &cdp->rows[i];
		const struct profile *rp = chain_row__profile(cdp, r);
		const struct frame *fr = &rp->frames[rp->nodes[r->node].frame];
		uint32_t parent = 0, id;
		struct flame_node *n;

		map[i] = FLAME_NONE;
		if (r->parent_row != CHAIN_NO_PARENT) {
			if (map[r->parent_row] == FLAME_NONE)
				continue;
			parent = map[r->parent_row];
		}
		if (r->base <= 0 && r->cur <= 0)
			continue;
		id = flame__add(f, parent);
		map[i] = id;
		n = &f->nodes[id];
		n->name = profile__frame_sym(rp, rp->nodes[r->node].frame);
		n->name_new = chain_row__new_name(cdp, r);
		n->dso_name = profile__str(rp, fr->dso);
		n->kernel = fr->kernel;
		n->base = r->base;
		n->cur = r->cur;
		n->delta = chain_row__delta(r);
		n->q = r->q;
		n->mde = chain_row__mde(r);
		n->with_fn = r->with_fn;
		n->value = o->width_base ? r->base : r->cur;
		n->absent = n->value <= 0;
		if (cdp->novar ? fabs(n->delta) >= novar_points
			       : isfinite(r->q) && r->q < alpha && fabs(n->delta) >= min_points)
			n->state = n->delta > 0 ? FLAME_GREW : FLAME_SHRANK;
	}
	f->nodes[0].base = f->per_op ? cdp->total[0] : 100;
	f->nodes[0].cur = f->per_op ? cdp->total[1] : 100;
	f->nodes[0].delta = f->nodes[0].cur - f->nodes[0].base;
	f->nodes[0].value = o->width_base ? f->nodes[0].base : f->nodes[0].cur;
	f->total = f->nodes[0].value;
	f->scale_total = f->per_op ? ref : 0;
	flame__link(f);
	free(map);
	if (cdp == &own)
		chains__release(&own);
	return 0;
}

void flame__release(struct flame *f)
{
	free(f->nodes);
	hashidx__release(&f->idx);
	memset(f, 0, sizeof(*f));
}
