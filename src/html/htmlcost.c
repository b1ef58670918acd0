/*
 * htmlcost: the cost model's attribution and per-op graph made ready for
 * the HTML diff (struct html_cost_build, html.h): values scaled into one
 * unit a reader takes in, labels and verdicts per bar, the runs the
 * comparison keeps.  Nothing is computed here that cost.h has not: this
 * is the translation between the model and the pictures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

/* The index of the event of p that keys spell kev ("cpu-clock"), or -1. */
static int profile_event(const struct profile *p, const char *kev)
{
	char name[128];
	uint32_t i;

	for (i = 0; i < p->nr_events; i++) {
		const char *s = profile__str(p, p->events[i].name);

		if (!s)
			continue;
		keys__event_name(s, name, sizeof(name));
		if (!strcmp(name, kev))
			return (int)i;
	}
	return -1;
}

/* The event to attribute: the graph's when c compares it and it is a time, else c's first time event. */
static const char *attr_event(const struct cost_sides *c, const char *event)
{
	char kev[128];
	size_t i;

	if (!c->nr_events)
		return NULL;
	if (event) {
		keys__event_name(event, kev, sizeof(kev));
		for (i = 0; i < c->nr_events; i++)
			if (!strcmp(c->events[i], kev) && c->time[i])
				return c->events[i];
	}
	for (i = 0; i < c->nr_events; i++)
		if (c->time[i])
			return c->events[i];
	return c->events[0];
}

static enum diff_verdict cost_verdict(const struct diff *dc, const char *kind, const char *event, const char *fn)
{
	const struct diff_row *r;
	char key[1280];

	if (!dc)
		return DIFF_SAME;
	cost__key(kind, event, fn, key, sizeof(key));
	r = diff__find(dc, key);
	return r ? r->verdict : DIFF_SAME;
}

static const char *verdict_word(enum diff_verdict v)
{
	switch (v) {
	case DIFF_UP: return "up";
	case DIFF_DOWN: return "down";
	case DIFF_CHANGED: return "changed";
	case DIFF_CANT_TELL: return "can't tell";
	case DIFF_SMALL: return "small";
	default: return "not significant";
	}
}

/* The waterfall of the attribution a, values times mult; d: the table's diff, for the notes. */
static void waterfall_of(struct html_cost_build *hb, const struct diff *dc, const struct diff *d, double mult)
{
	const struct cost_attr *a = hb->attr;
	size_t i;

	hb->bars = xcalloc(a->nr + 1, sizeof(*hb->bars));
	hb->labels = xcalloc(a->nr + 1, sizeof(*hb->labels));
	hb->notes = xcalloc(a->nr + 1, sizeof(*hb->notes));
	for (i = 0; i < a->nr; i++) {
		const struct cost_attr_row *r = &a->rows[i];
		struct waterfall_bar *bar = &hb->bars[i];

		if (r->fn) {
			struct outbuf note = { 0 };

			bar->label = r->fn;
			bar->verdict = cost_verdict(dc, "self", a->event, r->fn);
			/* the bar's colour is the cost's verdict; where the share's answers apart, as the text says */
			if (cost__share_note(&note, "", d, dc, a->event, r->fn))
				bar->note = hb->notes[i] = xstrdup(note.s);
			outbuf__release(&note);
		} else {
			char buf[64];

			snprintf(buf, sizeof(buf), "elsewhere (%zu function%s)", r->nr, r->nr == 1 ? "" : "s");
			hb->labels[i] = xstrdup(buf);
			bar->label = hb->labels[i];
			bar->verdict = DIFF_SAME;
			bar->rest = true;
		}
		bar->base = r->base * mult;
		bar->cur = r->cur * mult;
		bar->delta = r->delta * mult;
	}
	hb->w = (struct waterfall){ hb->bars, a->nr, a->base * mult, a->cur * mult, hb->unit, NULL, NULL };
}

/* Run j of side cs's files (in order) is kept by the comparison: keep[j]. */
static bool *kept_runs(const struct cost_side *cs)
{
	size_t i, n = 0, *first = xcalloc(cs->nr_files + 1, sizeof(*first));
	bool *keep;

	for (i = 0; i < cs->nr_files; i++) {
		first[i] = n;
		n += cs->cp[i]->p->nr_runs;
	}
	keep = xcalloc(n + 1, sizeof(*keep));
	for (i = 0; i < cs->nr_runs; i++)
		keep[first[cs->file[i]] + cs->run[i]] = true;
	free(first);
	return keep;
}

void html_cost__build(struct html_cost_build *hb, const struct cost_sides *c, size_t column,
		      const struct diff *dc, const struct diff *d, const struct profile *const *bp, size_t nbp,
		      const struct profile *const *np, size_t nnp, const char *event,
		      const struct flame_diff_opts *fo)
{
	const char *aev = attr_event(c, event), *per = cost_work__per(&c->work);
	bool seconds = c->work.kind == COST_WORK_SECONDS;
	double mult = 1;
	size_t k;

	memset(hb, 0, sizeof(*hb));
	hb->hc.note = hb->note;
	if (!aev || column == 0 || column >= c->nr_sides || !nbp) {
		snprintf(hb->note, sizeof(hb->note), "No cost per operation: %s.", *c->note ? c->note :
			 "the sides have no event in common");
		return;
	}
	hb->attr = cost_sides__attr(c, column, aev);
	if (!hb->attr) {
		snprintf(hb->note, sizeof(hb->note), "No cost per operation of %s.", aev);
		return;
	}
	{
		int ev = profile_event(bp[0], aev);

		flame__cost_unit(bp[0], ev >= 0 ? (uint32_t)ev : 0, &c->work, hb->attr->base, &mult, hb->unit,
				 sizeof(hb->unit));
	}
	waterfall_of(hb, dc, d, mult);
	hb->hc.waterfall = &hb->w;
	hb->hc.title = hb->title;
	snprintf(hb->title, sizeof(hb->title), "%s (%s) per %s: %.3g \xe2\x86\x92 %.3g %s (%+.3g, %+.1f %%, %s)",
		 hb->attr->time ? (strcmp(aev, PROFILE_OFFCPU_EVENT) ? "CPU time" : "off-CPU time") : "cost",
		 aev, seconds ? "second of run" : per, hb->w.base_total, hb->w.cur_total, hb->unit,
		 hb->w.cur_total - hb->w.base_total, hb->attr->rel,
		 verdict_word(cost_verdict(dc, "total", aev, NULL)));
	/* the work on the picture's second line; below it only what needs saying */
	hb->hc.subtitle = hb->subtitle;
	if (seconds)
		snprintf(hb->subtitle, sizeof(hb->subtitle), "no work count: per second of run, %zu + %zu runs",
			 c->side[0].nr_runs, c->side[column].nr_runs);
	else
		snprintf(hb->subtitle, sizeof(hb->subtitle), "work: %s%s, %zu + %zu runs \xc2\xb7 bars: self cost "
			 "per %s by function, largest first", c->work.key,
			 c->work.kind == COST_WORK_RATE ? " \xc3\x97 wall time" : "", c->side[0].nr_runs,
			 c->side[column].nr_runs, per);
	if (seconds)
		snprintf(hb->note, sizeof(hb->note), "Costs are per second of run, not per operation: %s", c->note);
	else if (*c->note)
		snprintf(hb->note, sizeof(hb->note), "%s", c->note);
	else
		hb->hc.note = NULL;

	/* the graph per op: every run of the two sides' files, those left out NAN */
	if (!fo || !event || !nnp)
		return;
	{
		struct flame_diff_opts o = *fo;
		const double *sc[2];
		struct errmsg e;
		double fmult = 1;
		int ev = profile_event(bp[0], event);

		flame__cost_unit(bp[0], ev >= 0 ? (uint32_t)ev : 0, &c->work,
				 flame__cost_mean((const struct cost_profile *const *)c->side[0].cp, c->side[0].nr_files,
						  event), &fmult, hb->flame_unit, sizeof(hb->flame_unit));
		for (k = 0; k < 2; k++) {
			const struct cost_side *cs = &c->side[k ? column : 0];
			bool *keep = kept_runs(cs);

			hb->scale[k] = flame__work_scale((const struct cost_profile *const *)cs->cp, cs->nr_files,
							 fmult, keep);
			sc[k] = hb->scale[k];
			free(keep);
		}
		o.scale = sc;
		o.unit = hb->flame_unit;
		hb->have_flame = flame__build_diff(&hb->per_op, bp, nbp, np, nnp, &o, &e) == 0;
		if (hb->have_flame) {
			hb->hc.per_op = &hb->per_op;
			hb->hc.per = seconds ? "second of run" : "op";
		}
		else
			flame__release(&hb->per_op);
	}
}

void html_cost__release(struct html_cost_build *hb)
{
	size_t i;

	if (hb->attr)
		for (i = 0; i < hb->attr->nr; i++) {
			free(hb->labels[i]);
			free(hb->notes[i]);
		}
	free(hb->labels);
	free(hb->notes);
	free(hb->bars);
	if (hb->have_flame)
		flame__release(&hb->per_op);
	free(hb->scale[0]);
	free(hb->scale[1]);
	memset(hb, 0, sizeof(*hb));
}
