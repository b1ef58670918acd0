/*
 * costfmt: the cost attribution in diff's outputs (cost.h): the
 * benchmark's change first (each event's total per unit of work, the
 * workload's own rate), then per time event the functions that account
 * for it, an elsewhere row and the total, which add up, and the call
 * chains carrying the listed functions' change.  Verdicts are the cost
 * diff's rows' (the statistics of every diff row); names from profiled
 * programs go through the text rule, JSON's and markdown's escaping.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/diff.h"
#include "mmprof/escape.h"
#include "mmprof/utf8.h"
#include "mmprof/xalloc.h"


/* A cost in its unit, scaled for a time ("1.29 ms"), signed when sign. */
static void cost_value(char *buf, size_t size, double v, const struct cost_attr *a, bool sign)
{
	double x = fabs(v), div = 1;
	const char *unit = "ns";

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	if (!a->time) {
		snprintf(buf, size, sign ? "%+.4g events" : "%.4g events", v);
		return;
	}
	if (x >= 1e9) {
		div = 1e9;
		unit = "s";
	} else if (x >= 1e6) {
		div = 1e6;
		unit = "ms";
	} else if (x >= 1e3) {
		div = 1e3;
		unit = "\xc2\xb5s";
	}
	snprintf(buf, size, sign ? "%+.3g %s" : "%.3g %s", v / div, unit);
}

static const char *event_word(const struct cost_attr *a)
{
	if (!strcmp(a->event, PROFILE_OFFCPU_EVENT))
		return "off-CPU";
	return a->time ? "CPU" : a->event;
}

/* The verdict of cost key kind.event[.fn] in dc, "-" when it has no row. */
static const char *verdict(const struct diff *dc, const char *kind, const char *event, const char *fn)
{
	char key[1280];
	const struct diff_row *r;

	if (!dc)
		return "-";
	cost__key(kind, event, fn, key, sizeof(key));
	r = diff__find(dc, key);
	return r ? diff_row__verdict_name(r) : "-";
}

/*
 * The workload's own throughput row of d: the work key when it is a rate,
 * else its "_per_sec" sibling ("thp-zap.ops" -> "thp-zap.ops_per_sec"), else
 * the work key itself.  NULL when per second of run, or d has no such row.
 */
static const struct diff_row *throughput(const struct cost_sides *c, const struct diff *d)
{
	char key[300];
	const struct diff_row *r;

	if (!d || c->work.kind == COST_WORK_SECONDS)
		return NULL;
	if (c->work.kind == COST_WORK_COUNT) {
		snprintf(key, sizeof(key), "%s_per_sec", c->work.key);
		if ((r = diff__find(d, key)))
			return r;
	}
	return diff__find(d, c->work.key);
}

static void text_event_line(struct outbuf *b, const struct cost_attr *a, const struct diff *dc)
{
	char base[48], cur[48], delta[48];

	cost_value(base, sizeof(base), a->base, a, false);
	cost_value(cur, sizeof(cur), a->cur, a, false);
	cost_value(delta, sizeof(delta), a->delta, a, true);
	outbuf__puts(b, "  ");
	outbuf__text_str(b, event_word(a));	/* an event's name is the file's */
	outbuf__puts(b, " (");
	outbuf__text_str(b, a->event);
	outbuf__printf(b, "): base %s, new %s: %s", base, cur, delta);
	if (isfinite(a->rel))
		outbuf__printf(b, " (%+.1f %%", a->rel);
	else
		outbuf__printf(b, " (");
	outbuf__printf(b, "%s%s)\n", isfinite(a->rel) ? ", " : "", verdict(dc, "total", a->event, NULL));
}

/* The %*s width that right-aligns s in w columns: "µs" is 3 bytes, 2 columns. */
static int cols(const char *s, int w)
{
	return w + (int)(strlen(s) - utf8__chars(s));
}

/*
 * The table's self share row of a function whose cost per op (dc's self
 * row) answers apart from it, else NULL: one flagged and the other not,
 * or both flagged opposite ways.  *total: the event's total per op's row
 * in dc (cost per op = share x total: what parts them), or NULL.
 */
static const struct diff_row *share_apart(const struct diff *d, const struct diff *dc, const char *event,
					  const char *fn, const struct diff_row **total)
{
	char key[1280];
	const struct diff_row *s, *c;

	*total = NULL;
	if (!d || !dc)
		return NULL;
	snprintf(key, sizeof(key), "perf-profile.self.%s.%s", event, fn);
	s = diff__find(d, key);
	cost__key("self", event, fn, key, sizeof(key));
	c = diff__find(dc, key);
	if (!s || !c || !(s->flags & DIFF_TESTED) || (diff_row__changed(s) == diff_row__changed(c) &&
	    (!diff_row__changed(s) || (c->delta > 0) == (s->delta > 0))))
		return NULL;
	cost__key("total", event, NULL, key, sizeof(key));
	*total = diff__find(dc, key);
	return s;
}

/* Said where they answer apart (share_apart): the text's line and the HTML waterfall's bar (cost.h). */
bool cost__share_note(struct outbuf *b, const char *lead, const struct diff *d, const struct diff *dc,
		      const char *event, const char *fn)
{
	const struct diff_row *t, *s = share_apart(d, dc, event, fn, &t);

	if (!s)
		return false;
	outbuf__puts(b, lead);
	if (!diff_row__changed(s))	/* the cost flagged, its share not: each test's own answer, said */
		outbuf__printf(b, "(its share: %s)", diff_row__verdict_name(s));
	else
		outbuf__printf(b, "(its share %s, the total per op %s: cost = share x total)",
			       diff_row__verdict_name(s), t ? diff_row__verdict_name(t) : "-");
	return true;
}

/* shares: the total moved (its cost row changed), so that shares of its change mean something */
static void text_row(struct outbuf *b, const struct cost_attr *a, const struct cost_attr_row *r,
		     const char *verd, const char *label, bool shares)
{
	double dsub = r->children_cur - r->children_base;
	char delta[48], sub[48];

	cost_value(delta, sizeof(delta), r->delta, a, true);
	outbuf__printf(b, "    %*s", cols(delta, 12), delta);
	if (shares && isfinite(r->share))
		outbuf__printf(b, "  %7.1f %%", r->share);
	else
		outbuf__printf(b, "  %9s", "-");
	if (isfinite(r->points))
		outbuf__printf(b, "  %+8.2f pts", r->points);
	else
		outbuf__printf(b, "  %12s", "-");
	outbuf__printf(b, "  %-10s ", verd);
	if (label) {
		outbuf__puts(b, label);
	} else {
		outbuf__text_str(b, r->fn);
		/* a subtree of its own: callees whose change is not the function's */
		if (isfinite(dsub) && fabs(dsub - r->delta) > 0.01 * fmax(fabs(dsub), fabs(r->delta))) {
			cost_value(sub, sizeof(sub), dsub, a, true);
			outbuf__printf(b, "  (subtree %s)", sub);
		}
	}
	outbuf__putc(b, '\n');
}

static void text_attr(struct outbuf *b, const struct cost_attr *a, const struct diff *dc,
		      const struct diff *d, const char *per)
{
	char key[1280], label[64];
	const struct diff_row *tr;
	bool shares;
	size_t i;

	cost__key("total", a->event, NULL, key, sizeof(key));
	tr = dc ? diff__find(dc, key) : NULL;
	/* an A/A pair's total moves by noise: its "shares" would be -157 % and 166 % */
	shares = tr && diff_row__changed(tr);
	outbuf__puts(b, "  ");
	outbuf__text_str(b, event_word(a));
	outbuf__printf(b, " cost per %s by function (self; %s; points of the base cost; verdict):\n",
		       per, shares ? "share of the change" : "no share: the total did not change significantly");
	for (i = 0; i < a->nr; i++) {
		const struct cost_attr_row *r = &a->rows[i];

		if (!r->fn) {
			snprintf(label, sizeof(label), "(elsewhere: %zu function%s)", r->nr, r->nr == 1 ? "" : "s");
			text_row(b, a, r, "", label, shares);
		} else {
			text_row(b, a, r, verdict(dc, "self", a->event, r->fn), NULL, shares);
			/* text_row ended the line: the note goes on the function's own line */
			if (b->len && b->s[b->len - 1] == '\n' && d) {
				b->len--;
				cost__share_note(b, "  ", d, dc, a->event, r->fn);
				outbuf__putc(b, '\n');
			}
		}
	}
	{
		struct cost_attr_row t = { .delta = a->delta, .share = a->delta != 0 ? 100 : NAN,
					   .points = isfinite(a->rel) ? a->rel : NAN };

		text_row(b, a, &t, verdict(dc, "total", a->event, NULL), "total", shares);
	}
	if (!a->nr_chains)
		return;
	outbuf__printf(b, "  call chains carrying it (the function's self cost under its callers, root first):\n");
	for (i = 0; i < a->nr_chains; i++) {
		char delta[48], *s, *semi;

		cost_value(delta, sizeof(delta), a->chains[i].delta, a, true);
		outbuf__printf(b, "    %*s  ", cols(delta, 12), delta);
		s = xstrdup(a->chains[i].chain);
		for (semi = s; semi; ) {
			char *next = strchr(semi, ';');

			if (next)
				*next++ = '\0';
			outbuf__text_str(b, semi);
			if (next)
				outbuf__puts(b, " -> ");
			semi = next;
		}
		free(s);
		outbuf__putc(b, '\n');
	}
}

/* The attribution of each time event (text: the others' totals only). */
static void text_all(struct outbuf *b, const struct cost_sides *c, size_t column,
		     const struct cost_attr *at, const struct diff *dc, const struct diff *d)
{
	const struct diff_row *tp = throughput(c, d);
	const char *per = cost_work__per(&c->work);
	size_t i;

	/* the key and the note hold a workload's metric names and file names: the text rule */
	if (c->work.kind == COST_WORK_SECONDS) {
		outbuf__puts(b, "cost per second of run (");
		outbuf__text_str(b, c->note);
		outbuf__puts(b, "):\n");
	} else {
		outbuf__puts(b, "cost per op (work: ");
		outbuf__text_str(b, c->work.key);
		outbuf__printf(b, "%s, %zu base run%s, %zu new):\n",
			       c->work.kind == COST_WORK_RATE ? " x wall time" : "",
			       c->side[0].nr_runs, c->side[0].nr_runs == 1 ? "" : "s", c->side[column].nr_runs);
	}
	for (i = 0; i < c->nr_events; i++)
		text_event_line(b, &at[i], dc);
	if (tp) {
		outbuf__printf(b, "  ");
		outbuf__text_str(b, tp->key);
		outbuf__printf(b, " %+.1f %% (%s)\n", tp->rel, diff_row__verdict_name(tp));
	}
	for (i = 0; i < c->nr_events; i++)
		if (at[i].time)
			text_attr(b, &at[i], dc, d, per);
}

static void json_row(struct jsonw *w, const struct cost_attr_row *r, const char *verd)
{
	jsonw__num(w, "base", r->base, 10);
	jsonw__num(w, "new", r->cur, 10);
	jsonw__num(w, "change", r->delta, 10);
	jsonw__num(w, "share_pct", r->share, 10);
	jsonw__num(w, "points", r->points, 10);
	if (verd)
		jsonw__str(w, "verdict", verd);
}

static void json_attr(struct jsonw *w, const struct cost_attr *a, const struct diff *dc,
		      const struct diff *d)
{
	size_t i;

	jsonw__object(w, NULL, JSONW_INLINE);
	jsonw__str(w, "event", a->event);
	jsonw__str(w, "unit", a->unit);
	jsonw__bool(w, "time", a->time);
	jsonw__num(w, "base", a->base, 10);
	jsonw__num(w, "new", a->cur, 10);
	jsonw__num(w, "change", a->delta, 10);
	jsonw__num(w, "change_pct", a->rel, 10);
	jsonw__str(w, "verdict", verdict(dc, "total", a->event, NULL));
	jsonw__array(w, "functions", JSONW_INLINE);
	for (i = 0; i < a->nr; i++) {
		const struct cost_attr_row *r = &a->rows[i];

		if (!r->fn)
			continue;
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "function", r->fn);
		json_row(w, r, verdict(dc, "self", a->event, r->fn));
		{
			/* as the text's note: the share's verdict where it answers apart */
			const struct diff_row *t, *s = share_apart(d, dc, a->event, r->fn, &t);

			if (s)
				jsonw__str(w, "share_verdict", diff_row__verdict_name(s));
		}
		jsonw__num(w, "children_base", r->children_base, 10);
		jsonw__num(w, "children_new", r->children_cur, 10);
		jsonw__end(w);
	}
	jsonw__end(w);
	if (a->nr && !a->rows[a->nr - 1].fn) {
		const struct cost_attr_row *r = &a->rows[a->nr - 1];

		jsonw__object(w, "elsewhere", JSONW_INLINE);
		jsonw__uint(w, "functions", r->nr);
		json_row(w, r, NULL);
		jsonw__end(w);
	} else {
		jsonw__null(w, "elsewhere");
	}
	jsonw__array(w, "chains", JSONW_INLINE);
	for (i = 0; i < a->nr_chains; i++) {
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "chain", a->chains[i].chain);
		jsonw__str(w, "function", a->chains[i].fn);
		jsonw__num(w, "base", a->chains[i].base, 10);
		jsonw__num(w, "new", a->chains[i].cur, 10);
		jsonw__num(w, "change", a->chains[i].delta, 10);
		jsonw__end(w);
	}
	jsonw__end(w);
	jsonw__end(w);
}

void cost__json(struct jsonw *w, const char *key, const struct cost_sides *c, size_t column,
		const struct diff *dc, const struct diff *d)
{
	static const char *const kinds[] = { "seconds", "count", "rate" };
	const struct cost_attr *at;
	const struct diff_row *tp;
	size_t i;

	jsonw__object(w, key, JSONW_INLINE);
	if (!c->nr_events || !c->attr || column == 0 || column >= c->nr_sides) {
		jsonw__str(w, "note", c->note);
		jsonw__array(w, "events", JSONW_INLINE);
		jsonw__end(w);
		jsonw__end(w);
		return;
	}
	at = &c->attr[(column - 1) * c->nr_events];
	tp = throughput(c, d);
	jsonw__object(w, "work", JSONW_INLINE);
	jsonw__str(w, "kind", kinds[c->work.kind]);
	if (c->work.kind == COST_WORK_SECONDS)
		jsonw__null(w, "key");
	else
		jsonw__str(w, "key", c->work.key);
	jsonw__str(w, "per", cost_work__per(&c->work));
	jsonw__end(w);
	jsonw__str(w, "note", c->note);
	if (tp) {
		jsonw__object(w, "throughput", JSONW_INLINE);
		jsonw__str(w, "key", tp->key);
		jsonw__num(w, "change_pct", tp->rel, 10);
		jsonw__str(w, "verdict", diff_row__verdict_name(tp));
		jsonw__end(w);
	} else {
		jsonw__null(w, "throughput");
	}
	jsonw__array(w, "events", JSONW_LINES_TIGHT);
	for (i = 0; i < c->nr_events; i++)
		json_attr(w, &at[i], dc, d);
	jsonw__end(w);
	jsonw__end(w);
}


static void md_cost(struct outbuf *b, const struct cost_attr *a, double v, bool sign)
{
	char buf[48];

	cost_value(buf, sizeof(buf), v, a, sign);
	outbuf__puts(b, buf);
}

static void md_all(struct outbuf *b, const struct cost_sides *c, const struct cost_attr *at,
		   const struct diff *dc, const struct diff *d)
{
	const struct diff_row *tp = throughput(c, d);
	const char *per = cost_work__per(&c->work);
	size_t i, j;

	if (c->work.kind == COST_WORK_SECONDS) {
		outbuf__puts(b, "\n**cost per second of run** (");
		outbuf__text_str(b, c->note);
		outbuf__puts(b, ")\n\n");
	} else {
		outbuf__puts(b, "\n**cost per op** (work: ");
		diff__md_key(b, c->work.key);
		outbuf__printf(b, "%s)\n\n", c->work.kind == COST_WORK_RATE ? " x wall time" : "");
	}
	for (i = 0; i < c->nr_events; i++) {
		const struct cost_attr *a = &at[i];

		outbuf__puts(b, "- ");
		outbuf__text_str(b, event_word(a));
		outbuf__puts(b, " (");
		diff__md_key(b, a->event);
		outbuf__puts(b, "): base ");
		md_cost(b, a, a->base, false);
		outbuf__puts(b, ", new ");
		md_cost(b, a, a->cur, false);
		outbuf__puts(b, ": ");
		md_cost(b, a, a->delta, true);
		if (isfinite(a->rel))
			outbuf__printf(b, " (%+.1f %%)", a->rel);
		outbuf__printf(b, ", %s\n", verdict(dc, "total", a->event, NULL));
	}
	if (tp) {
		outbuf__puts(b, "- ");
		diff__md_key(b, tp->key);
		outbuf__printf(b, " %+.1f %% (%s)\n", tp->rel, diff_row__verdict_name(tp));
	}
	for (i = 0; i < c->nr_events; i++) {
		const struct cost_attr *a = &at[i];

		char key[1280];
		const struct diff_row *tr;
		bool shares;

		if (!a->time)
			continue;
		cost__key("total", a->event, NULL, key, sizeof(key));
		tr = dc ? diff__find(dc, key) : NULL;
		shares = tr && diff_row__changed(tr);	/* as text_attr: no shares of noise */
		outbuf__puts(b, "\n| ");
		outbuf__text_str(b, event_word(a));
		outbuf__printf(b, " per %s | share of change | points | verdict | function |\n", per);
		outbuf__puts(b, "|--:|--:|--:|---|---|\n");
		for (j = 0; j < a->nr; j++) {
			const struct cost_attr_row *r = &a->rows[j];

			outbuf__puts(b, "| ");
			md_cost(b, a, r->delta, true);
			if (shares && isfinite(r->share))
				outbuf__printf(b, " | %.1f %% | ", r->share);
			else
				outbuf__puts(b, " | - | ");
			if (isfinite(r->points))
				outbuf__printf(b, "%+.2f | ", r->points);
			else
				outbuf__puts(b, "- | ");
			if (r->fn) {
				outbuf__printf(b, "%s | ", verdict(dc, "self", a->event, r->fn));
				diff__md_key(b, r->fn);
				cost__share_note(b, " ", d, dc, a->event, r->fn);	/* as the text's line */
				outbuf__puts(b, " |\n");
			} else {
				outbuf__printf(b, " | elsewhere (%zu functions) |\n", r->nr);
			}
		}
		outbuf__puts(b, "| ");
		md_cost(b, a, a->delta, true);
		outbuf__printf(b, " | %s | ", a->delta != 0 ? "100.0 %" : "-");
		if (isfinite(a->rel))
			outbuf__printf(b, "%+.2f | ", a->rel);
		else
			outbuf__puts(b, "- | ");
		outbuf__printf(b, "%s | **total** |\n", verdict(dc, "total", a->event, NULL));
	}
}

static void csv_text(struct outbuf *b, const char *s)
{
	struct outbuf safe = { 0 };

	s = outbuf__text_safe(&safe, s);
	if (strpbrk(s, ",\"")) {
		outbuf__putc(b, '"');
		for (; *s; s++)
			outbuf__puts(b, *s == '"' ? "\"\"" : (char[2]){ *s, 0 });
		outbuf__putc(b, '"');
	} else {
		outbuf__puts(b, s);
	}
	outbuf__release(&safe);
}

static void csv_num(struct outbuf *b, double v)
{
	if (isfinite(v))
		outbuf__printf(b, "%.10g", v);
}

static void csv_row(struct outbuf *b, const struct cost_attr *a, const char *fn,
		    const struct cost_attr_row *r, const char *verd)
{
	csv_text(b, a->event);
	outbuf__putc(b, ',');
	csv_text(b, fn);
	outbuf__putc(b, ',');
	csv_num(b, r->base);
	outbuf__putc(b, ',');
	csv_num(b, r->cur);
	outbuf__putc(b, ',');
	csv_num(b, r->delta);
	outbuf__printf(b, ",%s,", a->unit);
	csv_num(b, r->share);
	outbuf__putc(b, ',');
	csv_num(b, r->points);
	outbuf__printf(b, ",%s\n", verd);
}

static void csv_all(struct outbuf *b, const struct cost_sides *c, const struct cost_attr *at,
		    const struct diff *dc)
{
	size_t i, j;

	outbuf__printf(b, "\nevent,function,base_per_%s,new_per_%s,change,unit,share_pct,points,verdict\n",
		       cost_work__per(&c->work), cost_work__per(&c->work));
	for (i = 0; i < c->nr_events; i++) {
		const struct cost_attr *a = &at[i];
		struct cost_attr_row t = { .base = a->base, .cur = a->cur, .delta = a->delta,
					   .share = a->delta != 0 ? 100 : NAN, .points = a->rel };

		for (j = 0; j < a->nr; j++)
			csv_row(b, a, a->rows[j].fn ? a->rows[j].fn : "[elsewhere]", &a->rows[j],
				a->rows[j].fn ? verdict(dc, "self", a->event, a->rows[j].fn) : "");
		csv_row(b, a, "[total]", &t, verdict(dc, "total", a->event, NULL));
	}
}

void cost__format(struct outbuf *b, const struct cost_sides *c, size_t column,
		  const struct diff *dc, const struct diff *d, enum diff_format f)
{
	const struct cost_attr *at;

	if (!c->nr_events || !c->attr || column == 0 || column >= c->nr_sides) {
		if ((f == DIFF_FORMAT_LKP || f == DIFF_FORMAT_MARKDOWN) && *c->note) {
			outbuf__puts(b, f == DIFF_FORMAT_MARKDOWN ? "\n" : "");
			outbuf__text_str(b, c->note);
			outbuf__putc(b, '\n');
		}
		return;
	}
	at = &c->attr[(column - 1) * c->nr_events];
	switch (f) {
	case DIFF_FORMAT_CSV:
		csv_all(b, c, at, dc);
		break;
	case DIFF_FORMAT_MARKDOWN:
		md_all(b, c, at, dc, d);
		break;
	case DIFF_FORMAT_LKP:
	default:
		text_all(b, c, column, at, dc, d);
		break;
	}
}
