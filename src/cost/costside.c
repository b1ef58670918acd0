/*
 * costside: the costs per unit of work of a diff's sides (cost.h): one
 * cost_profile per file, the events every side has, the base's mean
 * totals, and each compared run's cost keys for diff__compute.  A side
 * pools its files' runs in file order and --drop-run leaves some out
 * (diffside.h's orig[]): the runs here are the compared ones, in order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/diffside.h"
#include "mmprof/parallel.h"
#include "mmprof/xalloc.h"

/* The file and run of a side's pooled run index i (counted before --drop-run). */
static void locate(const struct diff_side *s, size_t i, uint32_t *file, uint32_t *run)
{
	size_t f;

	for (f = 0; f < s->nr && i >= s->profiles[f]->nr_runs; f++)
		i -= s->profiles[f]->nr_runs;
	*file = (uint32_t)f;
	*run = (uint32_t)i;
}

static void cost_side__release(struct cost_side *cs)
{
	size_t i;

	for (i = 0; i < cs->nr_files; i++)
		cost_profile__free(cs->cp[i]);
	for (i = 0; i < cs->nr_runs; i++)
		cost_keys__release(&cs->keys[i]);
	free(cs->cp);
	free(cs->file);
	free(cs->run);
	free(cs->keys);
	free(cs->runs);
	free(cs->samp);
	memset(cs, 0, sizeof(*cs));
}

void cost_sides__release(struct cost_sides *c)
{
	size_t i;

	cost_sides__wait(c);
	for (i = 0; c->attr && i < (c->nr_sides - 1) * c->nr_events; i++)
		cost_attr__release(&c->attr[i]);
	free(c->attr);
	for (i = 0; i < c->nr_sides; i++)
		cost_side__release(&c->side[i]);
	for (i = 0; i < c->nr_events; i++)
		free(c->events[i]);
	free(c->side);
	free(c->events);
	free(c->time);
	free(c->unit);
	free(c->base_total);
	memset(c, 0, sizeof(*c));
}

/* Does every side have event ev (keys spelling) in some file? */
static bool everywhere(const struct cost_sides *c, const char *ev)
{
	size_t k, f;

	for (k = 0; k < c->nr_sides; k++) {
		bool found = false;

		for (f = 0; f < c->side[k].nr_files && !found; f++)
			found = cost_profile__event(c->side[k].cp[f], ev) >= 0;
		if (!found)
			return false;
	}
	return true;
}

static void add_event(struct cost_sides *c, const char *ev, bool time, const char *unit)
{
	size_t i;

	for (i = 0; i < c->nr_events; i++)
		if (!strcmp(c->events[i], ev))
			return;
	c->events = xrealloc(c->events, (c->nr_events + 1) * sizeof(*c->events));
	c->time = xrealloc(c->time, (c->nr_events + 1) * sizeof(*c->time));
	c->unit = xrealloc(c->unit, (c->nr_events + 1) * sizeof(*c->unit));
	c->events[c->nr_events] = xstrdup(ev);
	c->time[c->nr_events] = time;
	c->unit[c->nr_events] = unit;
	c->nr_events++;
}

/* The events of the base's files that every side has: time events first, offcpu after the clocks. */
static void choose_events(struct cost_sides *c)
{
	const struct cost_side *b = &c->side[0];
	int pass;
	size_t f, e;

	for (pass = 0; pass < 3; pass++)
		for (f = 0; f < b->nr_files; f++)
			for (e = 0; e < b->cp[f]->nr_events; e++) {
				const struct profile *p = b->cp[f]->p;
				const char *ev = b->cp[f]->event[e];
				bool time, offcpu = !strcmp(ev, PROFILE_OFFCPU_EVENT);
				const char *unit = cost_event__unit(p, (uint32_t)e, &time);

				if ((pass == 0 && (!time || offcpu)) || (pass == 1 && !offcpu) ||
				    (pass == 2 && time) || !everywhere(c, ev))
					continue;
				add_event(c, ev, time, unit);
			}
}

/* The first compared run of unknown work, said in c->note: 1, or 0 when every run's is known. */
static int unknown_work(struct cost_sides *c, const struct diff_side *s)
{
	size_t k, i;

	for (k = 0; k < c->nr_sides; k++)
		for (i = 0; i < c->side[k].nr_runs; i++) {
			const struct cost_side *cs = &c->side[k];
			const struct profile *p = cs->cp[cs->file[i]]->p;
			char what[64], run[256];
			size_t orig = s[k].orig[i];

			if (isfinite(cs->cp[cs->file[i]]->work[cs->run[i]]))
				continue;
			diff_side__run_name(&s[k], orig, run, sizeof(run));
			if (run__status(&p->runs[cs->run[i]], what, sizeof(what)))
				snprintf(c->note, sizeof(c->note),
					 "costs per op not compared: %.32s run %zu (%s) failed (%s), its work is unknown; leave it out with --drop-run %.32s:%zu",
					 s[k].name, orig, run, what, s[k].name, orig);
			else
				snprintf(c->note, sizeof(c->note),
					 "costs per op not compared: %.32s run %zu (%s) has no positive %s; leave it out with --drop-run %.32s:%zu, or name another work count with --per",
					 s[k].name, orig, run, c->work.key[0] ? c->work.key : "wall time",
					 s[k].name, orig);
			return 1;
		}
	return 0;
}

/* cost_profiles__keep over every file of every side */
static void keep_functions(struct cost_sides *c)
{
	struct cost_profile **all;
	size_t k, i, n = 0;

	for (k = 0; k < c->nr_sides; k++)
		n += c->side[k].nr_files;
	all = xcalloc(n + 1, sizeof(*all));
	for (k = 0, n = 0; k < c->nr_sides; k++)
		for (i = 0; i < c->side[k].nr_files; i++)
			all[n++] = c->side[k].cp[i];
	cost_profiles__keep(all, n);
	free(all);
}

/*
 * Every column's attribution per event, while the tries are there; then
 * the tries go, in every file (no chain is taken after the build).
 */
static void attribute(struct cost_sides *c)
{
	size_t k, i;

	if (c->nr_events && c->nr_sides > 1) {
		c->attr = xcalloc((c->nr_sides - 1) * c->nr_events, sizeof(*c->attr));
		for (k = 1; k < c->nr_sides; k++)
			for (i = 0; i < c->nr_events; i++)
				cost_attr__compute(c, k, c->events[i], NULL,
						   &c->attr[(k - 1) * c->nr_events + i]);
	}
	for (k = 0; k < c->nr_sides; k++)
		for (i = 0; i < c->side[k].nr_files; i++)
			cost_profile__drop_view(c->side[k].cp[i]);
}

/*
 * The events compared, the base's mean totals and every compared run's
 * cost keys, once every run's work is known; c->note when no event is
 * common to the sides.
 */
static void compare_runs(struct cost_sides *c)
{
	size_t k, i;

	keep_functions(c);
	choose_events(c);
	if (!c->nr_events) {
		snprintf(c->note, sizeof(c->note),
			 "costs per op not compared: the sides have no sampling event in common");
		return;
	}
	c->base_total = xcalloc(c->nr_events, sizeof(*c->base_total));
	for (i = 0; i < c->nr_events; i++) {
		const struct cost_side *b = &c->side[0];
		double sum = 0;
		size_t r;

		for (r = 0; r < b->nr_runs; r++) {
			const struct cost_profile *cp = b->cp[b->file[r]];
			int ev = cost_profile__event(cp, c->events[i]);
			const struct cost_slot *sl = ev >= 0 ? cost_profile__slot(cp, b->run[r], (uint32_t)ev) : NULL;

			sum += sl && isfinite(sl->total) ? sl->total : 0;
		}
		c->base_total[i] = b->nr_runs ? sum / (double)b->nr_runs : 0;
	}
	for (k = 0; k < c->nr_sides; k++) {
		struct cost_side *cs = &c->side[k];

		cs->samp = xcalloc(cs->nr_runs * c->nr_events + 1, sizeof(*cs->samp));
		for (i = 0; i < cs->nr_runs; i++) {
			const struct cost_profile *cp = cs->cp[cs->file[i]];
			struct diff_samples *sa = cs->samp + i * c->nr_events;
			size_t e;

			cost_profile__keys(cp, cs->run[i], (const char *const *)c->events,
					   c->base_total, c->nr_events, &cs->keys[i]);
			for (e = 0; e < c->nr_events; e++) {
				int ev = cost_profile__event(cp, c->events[e]);
				const struct cost_slot *sl = ev >= 0 ? cost_profile__slot(cp, cs->run[i], (uint32_t)ev)
								     : NULL;

				sa[e] = (struct diff_samples){ c->events[e], sl ? sl->samples : 0, sl ? sl->samples : 0 };
			}
			/* a file's runs share its key ids: each key is hashed once per file */
			cs->runs[i] = (struct diff_run){ .items = cs->keys[i].items, .nr = cs->keys[i].nr,
							 .ids = cs->keys[i].ids, .id_space = cp,
							 .nr_ids = cp->nr_keys, .samples = sa,
							 .nr_samples = c->nr_events };
		}
	}
}

/*
 * Everything after the work: every file's cost_profile, one after another
 * (on start's helper, whose caller is busy meanwhile), the compared runs'
 * keys and the attributions.
 */
static void build_rest(void *arg)
{
	struct cost_sides *c = arg;
	const struct diff_side *s = c->from;
	size_t k, i;

	for (k = 0; k < c->nr_sides; k++)
		for (i = 0; i < s[k].nr; i++)
			c->side[k].cp[i] = cost_profile__new(s[k].profiles[i],
							     s[k].views ? s[k].views[i] : NULL, &c->work);
	if (!unknown_work(c, s))
		compare_runs(c);
	attribute(c);
	/* the costs' tries were the views': nothing reads them now */
	for (k = 0; c->drop_views && k < c->nr_sides; k++)
		diff_side__drop_views(&c->drop_views[k]);
}

/* The work and the sides' run bookkeeping: 0, or -EINVAL and e (cost_work__choose). */
static int cost_sides__init(struct cost_sides *c, const struct diff_side *s, size_t nr,
			    const char *per, struct errmsg *e)
{
	const struct profile **ps;
	const char **names;
	size_t k, i, n = 0, at = 0;
	int err;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < nr; k++)
		n += s[k].nr;
	ps = xcalloc(n + 1, sizeof(*ps));
	names = xcalloc(n + 1, sizeof(*names));
	for (k = 0; k < nr; k++)
		for (i = 0; i < s[k].nr; i++) {
			names[at] = s[k].paths[i];
			ps[at++] = s[k].profiles[i];
		}
	err = cost_work__choose(ps, names, n, per, &c->work, e);
	free(ps);
	free(names);
	if (err < 0)
		return err;
	snprintf(c->note, sizeof(c->note), "%s", c->work.note);

	c->from = s;
	c->side = xcalloc(nr + 1, sizeof(*c->side));
	c->nr_sides = nr;
	for (k = 0; k < nr; k++) {
		struct cost_side *cs = &c->side[k];

		cs->nr_files = s[k].nr;
		cs->cp = xcalloc(s[k].nr + 1, sizeof(*cs->cp));
		cs->nr_runs = s[k].nr_runs;
		cs->file = xcalloc(cs->nr_runs + 1, sizeof(*cs->file));
		cs->run = xcalloc(cs->nr_runs + 1, sizeof(*cs->run));
		cs->keys = xcalloc(cs->nr_runs + 1, sizeof(*cs->keys));
		cs->runs = xcalloc(cs->nr_runs + 1, sizeof(*cs->runs));
		for (i = 0; i < cs->nr_runs; i++)
			locate(&s[k], s[k].orig[i], &cs->file[i], &cs->run[i]);
	}
	return 0;
}

int cost_sides__start(struct cost_sides *c, const struct diff_side *s, size_t nr,
		      const char *per, struct diff_side *drop_views, struct errmsg *e)
{
	int err = cost_sides__init(c, s, nr, per, e);

	if (err < 0)
		return err;
	c->drop_views = drop_views;
	parallel__start(&c->builder, build_rest, c);
	return 0;
}

void cost_sides__wait(struct cost_sides *c)
{
	parallel__wait(&c->builder);
}

int cost_sides__build(struct cost_sides *c, const struct diff_side *s, size_t nr,
		      const char *per, struct errmsg *e)
{
	int err = cost_sides__start(c, s, nr, per, NULL, e);

	if (!err)
		cost_sides__wait(c);
	return err;
}

const struct cost_attr *cost_sides__attr(const struct cost_sides *c, size_t column, const char *event)
{
	size_t i;

	if (!c->attr || column == 0 || column >= c->nr_sides)
		return NULL;
	for (i = 0; i < c->nr_events; i++)
		if (!strcmp(c->events[i], event))
			return &c->attr[(column - 1) * c->nr_events + i];
	return NULL;
}

double cost_sides__mean(const struct cost_sides *c, size_t k, const char *key)
{
	const struct cost_side *cs = k < c->nr_sides ? &c->side[k] : NULL;
	double sum = 0;
	size_t i, j;

	if (!cs || !cs->nr_runs)
		return 0;
	for (i = 0; i < cs->nr_runs; i++)
		for (j = 0; j < cs->keys[i].nr; j++)
			if (!strcmp(cs->keys[i].items[j].key, key)) {
				sum += cs->keys[i].items[j].value;
				break;
			}
	return sum / (double)cs->nr_runs;
}
