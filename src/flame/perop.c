/*
 * perop: what a flame graph per operation needs from the cost model
 * (cost.h): each run's factor over its work and a unit a reader takes in
 * at a glance.  See include/mmprof/flame.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/flame.h"
#include "mmprof/xalloc.h"

void flame__cost_unit(const struct profile *p, uint32_t event, const struct cost_work *w, double ref,
		      double *mult, char *unit, size_t size)
{
	static const struct {
		double from;
		double mult;
		const char *name;
	} scales[] = {
		{ 1e9, 1e-9, "s" }, { 1e6, 1e-6, "ms" }, { 1e3, 1e-3, "\xc2\xb5s" }, { 0, 1, "ns" },
	};
	const char *name = event < p->nr_events ? profile__str(p, p->events[event].name) : NULL;
	const char *per = w ? cost_work__per(w) : "op";
	bool time = false;
	size_t i;

	cost_event__unit(p, event, &time);
	*mult = 1;
	if (!time) {
		snprintf(unit, size, "%s per %s", name ? name : "events", per);
		return;
	}
	for (i = 0; i + 1 < sizeof(scales) / sizeof(scales[0]) && !(fabs(ref) >= scales[i].from); i++)
		;
	*mult = scales[i].mult;
	snprintf(unit, size, "%s %s per %s", scales[i].name,
		 name && !strcmp(name, PROFILE_OFFCPU_EVENT) ? "off-CPU" : "CPU", per);
}

double flame__cost_mean(const struct cost_profile *const *cp, size_t nr, const char *event)
{
	double sum = 0;
	size_t i, n = 0;
	uint32_t r, ev;

	for (i = 0; i < nr; i++) {
		const struct profile *p = cp[i]->p;

		for (ev = 0; ev < p->nr_events; ev++)
			if (profile__str(p, p->events[ev].name) && !strcmp(profile__str(p, p->events[ev].name), event))
				break;
		for (r = 0; ev < p->nr_events && r < p->nr_runs; r++) {
			const struct cost_slot *sl = cost_profile__slot(cp[i], r, ev);

			if (sl && isfinite(sl->total)) {
				sum += sl->total;
				n++;
			}
		}
	}
	return n ? sum / (double)n : 0;
}

double *flame__work_scale(const struct cost_profile *const *cp, size_t nr, double mult, const bool *keep)
{
	size_t i, n = 0, at = 0;
	uint32_t r;
	double *s;

	for (i = 0; i < nr; i++)
		n += cp[i]->p->nr_runs;
	s = xcalloc(n + 1, sizeof(*s));
	for (i = 0; i < nr; i++)
		for (r = 0; r < cp[i]->p->nr_runs; r++, at++) {
			double work = cp[i]->work[r];

			s[at] = (!keep || keep[at]) && work > 0 && isfinite(work) ? mult / work : NAN;
		}
	return s;
}
