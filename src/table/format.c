/*
 * format: diff rows as text — the robot's table (byte for byte, from
 * lkp-tests lib/compare.rb show_perf_header/show_perf_change), JSON, CSV,
 * and a markdown table for CI summaries.  Everything is written into an
 * outbuf; only the command prints.  Keys hold the profiled programs'
 * symbol names: every text format writes them through the text rule
 * (escape.h), then its own quoting (CSV's quotes, markdown's code spans).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/jsonw.h"
#include "mmprof/keykind.h"
#include "mmprof/rubyfmt.h"
#include "mmprof/skid.h"
#include "mmprof/term.h"
#include "mmprof/xalloc.h"

#include "table-int.h"

int diff_format__parse(const char *name, enum diff_format *f)
{
	if (!strcmp(name, "lkp"))
		*f = DIFF_FORMAT_LKP;
	else if (!strcmp(name, "json"))
		*f = DIFF_FORMAT_JSON;
	else if (!strcmp(name, "csv"))
		*f = DIFF_FORMAT_CSV;
	else if (!strcmp(name, "markdown") || !strcmp(name, "md"))
		*f = DIFF_FORMAT_MARKDOWN;
	else
		return -EINVAL;
	return 0;
}

/* ---- the robot's layout ---- */

enum { ABS_WIDTH = 10, REL_WIDTH = 10, ERR_WIDTH = 6 };

void diff__lkp_header(struct outbuf *b, size_t columns)
{
	size_t i;

	/* lib/compare.rb show_perf_header(columns), trailing blanks included */
	outbuf__printf(b, "         %%stddev");
	for (i = 0; i < columns; i++)
		outbuf__printf(b, "     %%change         %%stddev");
	outbuf__printf(b, "\n             \\  ");
	for (i = 0; i < columns; i++)
		outbuf__printf(b, "        |                \\  ");
	outbuf__printf(b, "\n");
}

void diff__lkp_ambient_title(struct outbuf *b)
{
	outbuf__printf(b, "\nthe machines differed (%s; no verdict, gated only by a gate naming the "
			  "family; --no-ambient makes them verdicts):\n", DIFF_AMBIENT_WHY);
}

/* One side's value and stddev columns, as the robot prints them, into val and err. */
static void lkp_value(char val[48], char err[16], double avg, double sd)
{
	double rel;

	/* Ruby's format rounds ties its own way (rubyfmt.h) */
	if (fabs(avg) < 1000)
		rubyfmt__format(val, 48, false, ABS_WIDTH, 2, 'f', avg);
	else if (fabs(avg) > 100000000)
		rubyfmt__format(val, 48, false, ABS_WIDTH, 4, 'g', avg);
	else
		/* Ruby's %d of a Float truncates toward zero */
		snprintf(val, 48, "%*lld", ABS_WIDTH, (long long)avg);
	rel = avg != 0 ? 100 * sd / avg : sd;
	if (rel > 2)
		snprintf(err, 16, " \xc2\xb1%*d%%", ERR_WIDTH - 3, (int)rel);
	else
		snprintf(err, 16, "%*s", ERR_WIDTH, "");
}

/* s with the colour of style around its text (not its leading blanks) when on. */
static void lkp_tinted_cell(struct outbuf *b, const char *s, enum term_style style, bool on)
{
	size_t lead = strspn(s, " ");

	outbuf__printf(b, "%.*s%s%s%s", (int)lead, s, term__sgr(style, on), s + lead,
		       term__sgr(TERM_RESET, on));
}

void diff__lkp_columns(struct outbuf *b, const char *key, double mean_b, double sd_b,
			const struct diff_lkp_column *col, size_t n, const char *marker)
{
	bool abs_change = keykind__absolute(key), base_number;
	/* the robot prints no key mmprof derives (the costs per op): no robot's spelling to keep */
	bool own = keykind__is(key, KEYFAM_DERIVED);
	char bv[48], be[16], nv[48], ne[16], chg[64];
	const char *left_err = be;
	size_t i;

	lkp_value(bv, be, mean_b, sd_b);
	outbuf__printf(b, "%s%s", bv, be);
	/* a base value that is not a number ("inf") has no colour */
	base_number = strchr("0123456789-+.", bv[strspn(bv, " ")]) != NULL;
	for (i = 0; i < n; i++) {
		double p, mean_n = col[i].mean;
		const char *nvt;
		int pad;
		bool tint, wide_err, on_chg, on_new, from_zero = own && diff__from_zero(abs_change, mean_b, mean_n);

		lkp_value(nv, ne, mean_n, col[i].sd);
		if (abs_change) {
			p = mean_n - mean_b;
		} else if (mean_b == 0 && mean_n == 0) {
			/* the robot's 1e-100 would make 0 -> 0 read -100 %: no change is no change */
			p = 0;
		} else {
			double base = mean_b == 0 ? 1e-100 : mean_b;

			p = 100.0 * (mean_n - base) / base;
		}
		/* "%+*.1f%% " as the robot prints it, the number apart for its colour */
		if (from_zero)
			snprintf(chg, sizeof(chg), "new");	/* where the number's '%' ends: its width below */
		else if (fabs(p) < 100000)
			rubyfmt__format(chg, sizeof(chg), true, 0, 1, 'f', p);
		else
			rubyfmt__format(chg, sizeof(chg), true, 0, 2, 'g', p);
		/*
		 * Where the colour goes, as mmprof's table has always placed
		 * it: on the change, except that a spread of 100 % or more
		 * left of it ("\xc2\xb1141%", one word) moves it onto a signed
		 * value and off the change.
		 */
		tint = col[i].tint && b->color && base_number;
		/* " \xc2\xb1NNN%", not " \xc2\xb1 NN%" or blank */
		wide_err = left_err[1] != ' ' && left_err[3] != ' ';
		nvt = nv + strspn(nv, " ");
		on_chg = tint && !wide_err;
		on_new = tint && wide_err && (*nvt == '+' || *nvt == '-') && strlen(nvt) >= 2;
		pad = REL_WIDTH + from_zero - (int)strlen(chg);
		outbuf__printf(b, "%*s", pad > 0 ? pad : 0, "");
		outbuf__printf(b, "%s%s%s%s%s", term__sgr(chg[0] == '+' || from_zero ? TERM_RED : TERM_BLUE, on_chg),
			       chg, abs_change || from_zero ? "" : "%", term__sgr(TERM_RESET, on_chg),
			       abs_change ? "  " : " ");
		lkp_tinted_cell(b, nv, *nvt == '+' ? TERM_RED : TERM_BLUE, on_new);
		outbuf__printf(b, "%s", ne);
		memcpy(be, ne, sizeof(be));	/* the next change's left neighbour */
	}
	outbuf__printf(b, "  ");
	outbuf__text_str(b, key);
	if (marker)
		outbuf__printf(b, "  [%s]", marker);
	outbuf__printf(b, "\n");
}

void diff__lkp_row(struct outbuf *b, const char *key, double mean_b, double sd_b,
		   double mean_n, double sd_n, const char *marker, bool tint)
{
	struct diff_lkp_column col = { mean_n, sd_n, tint };

	diff__lkp_columns(b, key, mean_b, sd_b, &col, 1, marker);
}

/*
 * Is r's change coloured (when the sink has colour)?  Every row the table
 * shows without its verdict was chosen as a change; with its verdict
 * (--all, the machines' state), those it calls the same or small, and
 * those with none (untested, address buckets, one-side families), stay
 * plain.  ambient_marked: the marker goes on with ", ambient".
 */
bool diff_row__tinted(const struct diff_row *r, bool marked, bool ambient_marked)
{
	if (!marked || r->verdict == DIFF_SMALL)
		return !marked;
	if (r->verdict != DIFF_SAME)
		return true;
	/* untested, address and one-side rows marked ", ambient" as well have always been coloured */
	return ambient_marked && strcmp(diff_row__verdict_name(r), "same");
}

/* ---- the method, in words (every format's header says the same) ---- */

/* " (3 of 5 base runs, 2 of 3 new: the others printed no score)" when some runs lack it */
static void score_runs(struct outbuf *b, const struct diff *d, const struct diff_score_runs *s)
{
	if (!s)
		return;
	outbuf__puts(b, " (");
	if (s->nb < d->nb)
		outbuf__printf(b, "%zu of %zu base runs%s", s->nb, d->nb, s->nn < d->nn ? ", " : "");
	if (s->nn < d->nn)
		outbuf__printf(b, "%zu of %zu new", s->nn, d->nn);
	outbuf__printf(b, ": %s printed no score, a failed workload)", s->nb + s->nn + 1 < d->nb + d->nn ?
						 "the others" : "the other");
}

void diff__describe_score(struct outbuf *b, const struct diff *d, const char *prefix)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		const struct diff_row *r = &d->rows[i];
		const struct diff_score_runs *s = diff__score_runs(d, r);
		double mb = s ? s->mb : r->base.mean, mn = s ? s->mn : r->cur.mean;
		char mark[128];

		if (!(r->flags & DIFF_SCORE) || (!(r->flags & DIFF_TESTED) && !(s && (!s->nb || !s->nn))))
			continue;
		outbuf__printf(b, "%sscore: ", prefix ? prefix : "");
		outbuf__text_str(b, r->key);
		if (!(r->flags & DIFF_TESTED)) {
			outbuf__printf(b, ": not compared: %s printed it (%zu of %zu base runs have it, %zu of "
					  "%zu new; the workload failed in the others: see its .fail keys)\n",
				       !s->nb && !s->nn ? "no run" : !s->nb ? "no base run" : "no new run",
				       s->nb, d->nb, s->nn, d->nn);
			continue;
		}
		diff_row__mark(r, mark, sizeof(mark));
		outbuf__printf(b, " %.6g -> %.6g", mb, mn);
		if (mb == 0)
			outbuf__puts(b, " (from 0)");
		else if (fabs(100 * (mn - mb) / mb) < 1e5)
			outbuf__printf(b, " (%+.1f%%)", 100 * (mn - mb) / mb);
		else
			outbuf__printf(b, " (%+.2g%%)", 100 * (mn - mb) / mb);
		score_runs(b, d, s);
		outbuf__printf(b, ": %s (the workload's score, tested first and on its own runs' spread, "
				  "at %.2g)\n", mark, d->o.alpha);
	}
}

void diff__describe(struct outbuf *b, const struct diff *d)
{
	size_t i, cant = 0;

	if (d->o.robot) {
		outbuf__printf(b, "rows: the kernel test robot's filter (at least 3 runs on a side%s, key in "
				  "the base, ranges that separate, not a small change); no significance test, no verdicts",
			       d->nb < 3 && d->nn < 3 ? ", which neither side has: no row can pass" : "");
		return;
	}
	if (d->novar) {
		outbuf__printf(b, "one run on a side: NO VARIANCE, nothing can be called significant; rows "
				  "past labelled thresholds (%.2g points for perf-profile/%% keys, %.2g%% "
				  "relative otherwise; perf-profile rows also past 3 standard errors of sampling "
				  "noise) are marked changed?",
			       d->o.novar_points, d->o.novar_pct);
		return;
	}
	for (i = 0; i < d->nr; i++)
		cant += d->rows[i].verdict == DIFF_CANT_TELL;
	outbuf__printf(b, "verdicts: moderated t per key (each run's sampling noise from its samples, the "
			  "spread between runs fitted over each family's keys), Benjamini-Hochberg q < %.2g "
			  "per family over %zu keys tested; effect floor %.2g points (perf-profile, %% keys) / "
			  "%.2g%% (others); %zu row%s can't tell (the change they could detect is above the "
			  "floor)",
		       d->o.alpha, d->nr_tested, d->o.min_points, d->o.min_pct, cant, cant == 1 ? "" : "s");
	if (d->pairs)
		outbuf__printf(b, "\npaired: %zu pairs recorded interleaved (run i of each side beside run i "
				  "of the other): each key tested on its within-pair differences, the "
				  "machine's drift between pairs cancelled", d->pairs);
	else if (d->unpaired[0]) {
		outbuf__printf(b, "\nunpaired: ");
		outbuf__text_str(b, d->unpaired);
		outbuf__printf(b, "; each side's runs tested as independent");
	}
	if (d->advice.family && d->advice.rows) {
		outbuf__printf(b, "\ndetectable (80%% power): %.2g points, the median over %zu ",
			       d->advice.mde, d->advice.rows);
		outbuf__text_str(b, d->advice.family);	/* it names the event */
		outbuf__printf(b, " rows at %zu+%zu runs; ", d->nb, d->nn);
		if (d->advice.mde <= d->o.min_points)
			outbuf__printf(b, "the effect floor (%.2g) is within reach", d->o.min_points);
		else if (d->advice.runs >= 1e6)
			outbuf__printf(b, "the effect floor (%.2g) needs over a million runs a side of "
					  "this length", d->o.min_points);
		else
			outbuf__printf(b, "the effect floor (%.2g) needs about %.0f runs a side of this length",
				       d->o.min_points, d->advice.runs);
	}
}

/* ---- the other formats ---- */

static void json_side(struct jsonw *w, const char *key, const struct stat_summary *s,
		      const double *v)
{
	size_t i;

	jsonw__object(w, key, JSONW_INLINE);
	jsonw__uint(w, "runs", s->n);
	jsonw__num(w, "mean", s->mean, 10);
	jsonw__num(w, "stddev", s->sd, 10);
	jsonw__num(w, "min", s->min, 10);
	jsonw__num(w, "median", s->median, 10);
	jsonw__num(w, "max", s->max, 10);
	jsonw__array(w, "values", JSONW_INLINE);
	for (i = 0; i < s->n; i++)
		jsonw__num(w, NULL, v[i], 10);
	jsonw__end(w);
	jsonw__end(w);
}

static void json_strings(struct jsonw *w, const char *key, const char *const *s, size_t n)
{
	size_t i;

	jsonw__array(w, key, JSONW_INLINE);
	for (i = 0; i < n; i++)
		jsonw__str(w, NULL, s[i]);
	jsonw__end(w);
}

/* "spellings": {"base": [...], "new": [...]} of a row spelled otherwise than its key. */
static void json_spellings(struct jsonw *w, const struct diff_spelling *sp)
{
	jsonw__object(w, "spellings", JSONW_INLINE);
	json_strings(w, "base", (const char *const *)sp->name[0], sp->nr[0]);
	json_strings(w, "new", (const char *const *)sp->name[1], sp->nr[1]);
	jsonw__end(w);
}

/* The fitted noise of each family, the runs advice and the disturbed runs. */
static void json_families(struct jsonw *w, const struct diff *d)
{
	const struct diff_row **amb;
	size_t i, n;

	jsonw__array(w, "families", JSONW_INLINE);
	for (i = 0; i < d->nr_families; i++) {
		const struct diff_family *f = &d->families[i];

		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "name", f->name);
		jsonw__num(w, "phi", f->phi, 10);
		if (isinf(f->d0))
			jsonw__str(w, "prior_df", "inf");
		else
			jsonw__num(w, "prior_df", f->d0, 10);
		jsonw__num(w, "prior_var", f->s0, 10);
		jsonw__uint(w, "tested", f->tested);
		jsonw__uint(w, "significant", f->rejected);
		jsonw__end(w);
	}
	jsonw__end(w);
	if (d->advice.family) {
		jsonw__object(w, "runs_advice", JSONW_INLINE);
		jsonw__str(w, "family", d->advice.family);
		jsonw__uint(w, "rows", d->advice.rows);
		jsonw__num(w, "median_detectable", d->advice.mde, 10);
		jsonw__num(w, "runs_for_effect_floor", d->advice.runs, 10);
		jsonw__end(w);
	} else {
		jsonw__null(w, "runs_advice");
	}
	jsonw__array(w, "disturbed_runs", JSONW_INLINE);
	for (i = 0; i < d->nr_disturbed; i++) {
		const struct diff_disturbed *x = &d->disturbed[i];

		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "side", x->side ? "new" : "base");
		jsonw__uint(w, "run", x->run);
		jsonw__num(w, "stands_out", x->ratio, 10);
		jsonw__uint(w, "keys", x->keys);
		jsonw__end(w);
	}
	jsonw__end(w);
	amb = diff__select(d, DIFF_SELECT_AMBIENT, &n);
	jsonw__array(w, "machines_differed", JSONW_INLINE);
	for (i = 0; i < n; i++)
		jsonw__str(w, NULL, amb[i]->key);
	jsonw__end(w);
	free(amb);
}

static void json_row(struct jsonw *w, const struct diff *d, const struct diff_row *r)
{
	const struct diff_score_runs *sr = diff__score_runs(d, r);

	jsonw__object(w, NULL, JSONW_INLINE);
	jsonw__str(w, "key", r->key);
	json_side(w, "base", &r->base, r->v);
	json_side(w, "new", &r->cur, r->v + d->nb);
	jsonw__num(w, "change", diff_row__from_zero(r) ? NAN : r->change, 10);
	jsonw__str(w, "change_unit", r->absolute ? "points" : "%");
	jsonw__num(w, "delta", r->delta, 10);
	jsonw__num(w, "p", r->p, 10);
	jsonw__num(w, "q", r->q, 10);
	jsonw__num(w, "detectable", r->mde, 10);
	if (r->flags & DIFF_MDE_ABOVE)
		jsonw__bool(w, "detectable_above", true);
	if (r->flags & DIFF_SCORE)
		jsonw__bool(w, "score", true);
	if (sr) {
		jsonw__array(w, "score_runs", JSONW_INLINE);
		jsonw__uint(w, NULL, sr->nb);
		jsonw__uint(w, NULL, sr->nn);
		jsonw__end(w);
	}
	jsonw__num(w, "runs_needed", r->runs_needed, 10);
	jsonw__bool(w, "ambient", r->flags & DIFF_AMBIENT);
	jsonw__str(w, "verdict", diff_row__verdict_name(r));
	jsonw__bool(w, "new_key", r->flags & DIFF_NEW);
	jsonw__bool(w, "gone_key", r->flags & DIFF_GONE);
	jsonw__bool(w, "robot", r->flags & DIFF_ROBOT);
	if (diff__spelling(d, r))
		json_spellings(w, diff__spelling(d, r));
	jsonw__end(w);
}

void diff__json_open(struct jsonw *w, const char *key, const struct diff *d,
		     const struct diff_row *const *rows, size_t n)
{
	size_t i;

	jsonw__object(w, key, JSONW_INLINE);
	jsonw__object(w, "runs", JSONW_INLINE);
	jsonw__uint(w, "base", d->nb);
	jsonw__uint(w, "new", d->nn);
	jsonw__end(w);
	jsonw__str(w, "mode", d->novar ? "thresholds" : "moderated-bh");
	jsonw__num(w, "alpha", d->o.alpha, 10);
	jsonw__uint(w, "keys", d->nr);
	jsonw__uint(w, "tested", d->nr_tested);
	/* only for files that carry a pairing (record --interleave) */
	if (d->pairs)
		jsonw__uint(w, "pairs", d->pairs);
	else if (d->unpaired[0])
		jsonw__str(w, "unpaired", d->unpaired);
	if (d->nr_one_side[0] || d->nr_one_side[1]) {
		/* families that only one side measured: their rows have verdict "one-side" */
		jsonw__object(w, "one_side_families", JSONW_INLINE);
		json_strings(w, "base", (const char *const *)d->one_side[0], d->nr_one_side[0]);
		json_strings(w, "new", (const char *const *)d->one_side[1], d->nr_one_side[1]);
		jsonw__end(w);
	}
	json_families(w, d);
	jsonw__array(w, "rows", JSONW_LINES);
	for (i = 0; i < n; i++)
		json_row(w, d, rows[i]);
	jsonw__end(w);
}

/* s through the text rule (no newline is left to quote), quoted when it holds ',' or '"' */
void diff__csv_str(struct outbuf *b, const char *s)
{
	struct outbuf safe = { 0 };

	s = outbuf__text_safe(&safe, s);
	if (!strpbrk(s, ",\"")) {
		outbuf__printf(b, "%s", s);
		outbuf__release(&safe);
		return;
	}
	outbuf__printf(b, "\"");
	for (; *s; s++)
		outbuf__printf(b, *s == '"' ? "\"\"" : "%c", *s);
	outbuf__printf(b, "\"");
	outbuf__release(&safe);
}

static void csv_num(struct outbuf *b, double v)
{
	if (isfinite(v))
		outbuf__printf(b, "%.10g", v);
}

void diff_row__csv(struct outbuf *b, const struct diff_row *r)
{
	diff__csv_str(b, r->key);
	outbuf__printf(b, ",");
	csv_num(b, r->base.mean);
	outbuf__printf(b, ",");
	csv_num(b, r->base.sd);
	outbuf__printf(b, ",%zu,", r->base.n);
	csv_num(b, r->cur.mean);
	outbuf__printf(b, ",");
	csv_num(b, r->cur.sd);
	outbuf__printf(b, ",%zu,", r->cur.n);
	csv_num(b, diff_row__from_zero(r) ? NAN : r->change);
	outbuf__printf(b, ",%s,", r->absolute ? "points" : "%");
	csv_num(b, r->p);
	outbuf__printf(b, ",");
	csv_num(b, r->q);
	outbuf__printf(b, ",%s,%d,", diff_row__verdict_name(r), !!(r->flags & DIFF_ROBOT));
	csv_num(b, r->mde);
	outbuf__printf(b, ",");
	csv_num(b, r->runs_needed);
	outbuf__printf(b, ",%d\n", !!(r->flags & DIFF_AMBIENT));
}

void diff__csv_rows(struct outbuf *b, const struct diff_row *const *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		diff_row__csv(b, rows[i]);
}

static void format_csv(struct outbuf *b, const struct diff *d, const struct diff_row *const *rows,
		       size_t n)
{
	size_t i;

	outbuf__printf(b, "key,base_mean,base_stddev,base_runs,new_mean,new_stddev,new_runs,"
			  "change,change_unit,p,q,verdict,robot,detectable,runs_needed,ambient\n");
	for (i = 0; i < n; i++)
		diff_row__csv(b, rows[i]);
	(void)d;
}

/* "a, b" of one side's spellings into b. */
static void spelled_side(struct outbuf *b, const struct diff_spelling *sp, int side, bool md)
{
	size_t i;

	for (i = 0; i < sp->nr[side]; i++) {
		outbuf__printf(b, "%s%s", i ? ", " : "", md ? "`" : "");
		if (md)
			outbuf__md_code(b, sp->name[side][i]);
		else
			outbuf__text_str(b, sp->name[side][i]);
		outbuf__printf(b, "%s", md ? "`" : "");
	}
}

/*
 * After the table: the functions of the shown perf-profile.children and
 * .self rows that each build spelled its own way (hot.isra.0 -> hot.isra.1),
 * once each.  The table keeps the robot's keys; this says what they stand
 * for.  Calltrace rows are left out: their frames are children rows too.
 */
static void renamed_section(struct outbuf *b, const struct diff *d,
			    const struct diff_row *const *rows, size_t n, bool md)
{
	char **seen = NULL;
	size_t i, j, nr = 0, alloc = 0;

	for (i = 0; i < n; i++) {
		const struct diff_spelling *sp = diff__spelling(d, rows[i]);
		enum keykind_profile kind = keykind__profile(rows[i]->key);
		struct outbuf line = { 0 };

		if (!diff_spelling__renamed(sp) || (kind != KEYPROF_CHILDREN && kind != KEYPROF_SELF))
			continue;
		spelled_side(&line, sp, 0, md);
		outbuf__puts(&line, " \xe2\x86\x92 ");
		spelled_side(&line, sp, 1, md);
		/* children and self rows of one function give the same line */
		for (j = 0; j < nr && strcmp(seen[j], line.s); j++)
			;
		if (j < nr) {
			outbuf__release(&line);
			continue;
		}
		if (!nr)
			outbuf__printf(b, md ? "\n**renamed between builds** (base \xe2\x86\x92 new; "
					       "the rows above pair them):\n\n"
					     : "\nrenamed between builds (base \xe2\x86\x92 new; "
					       "the rows above pair them):\n");
		outbuf__printf(b, "%s%s\n", md ? "- " : "  ", line.s);
		XGROW(seen, alloc, nr);
		seen[nr++] = line.s;	/* owned now */
	}
	for (j = 0; j < nr; j++)
		free(seen[j]);
	free(seen);
}

void diff__md_value(struct outbuf *b, double mean, double sd)
{
	double rel = mean != 0 ? 100 * fabs(sd / mean) : 0;

	if (fabs(mean) < 1000)
		outbuf__printf(b, "%.2f", mean);
	else
		outbuf__printf(b, "%.4g", mean);
	if (rel > 2)
		outbuf__printf(b, " \xc2\xb1%d%%", (int)rel);
}

void diff__md_key(struct outbuf *b, const char *s)
{
	/* backticks keep '_' and '*' literal; a '|' would end the cell */
	outbuf__printf(b, "`");
	outbuf__md_code(b, s);
	outbuf__printf(b, "`");
}

static void format_markdown(struct outbuf *b, const struct diff *d,
			    const struct diff_row *const *rows, size_t n)
{
	size_t i;

	outbuf__printf(b, "| verdict | key | base | new | change | q | detectable |\n");
	outbuf__printf(b, "|---|---|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < n; i++) {
		const struct diff_row *r = rows[i];
		const char *v = diff_row__verdict_name(r);

		outbuf__printf(b, "| %s%s%s | ", diff_row__changed(r) ? "**" : "", v,
			       diff_row__changed(r) ? "**" : "");
		diff__md_key(b, r->key);
		outbuf__printf(b, " | ");
		diff__md_value(b, r->base.mean, r->base.sd);
		outbuf__printf(b, " | ");
		diff__md_value(b, r->cur.mean, r->cur.sd);
		if (r->absolute)
			outbuf__printf(b, " | %+.2f | ", r->change);
		else if (diff_row__from_zero(r))
			outbuf__printf(b, " | new | ");
		else if (fabs(r->change) < 100000)
			outbuf__printf(b, " | %+.1f%% | ", r->change);
		else
			outbuf__printf(b, " | %+.2g%% | ", r->change);
		if (isfinite(r->q))
			outbuf__printf(b, "%.2g | ", r->q);
		else
			outbuf__printf(b, "- | ");
		if (isfinite(r->mde))
			outbuf__printf(b, "%s%.2g%s |\n", (r->flags & DIFF_MDE_ABOVE) ? ">" : "", r->mde,
				       r->absolute ? "" : "%");
		else
			outbuf__printf(b, "- |\n");
	}
	if (!n)
		outbuf__printf(b, "| - | (no rows) | | | | | |\n");
	outbuf__printf(b, "\n");
	diff__describe_score(b, d, NULL);
	outbuf__printf(b, "%zu base run%s, %zu new run%s; ", d->nb, d->nb == 1 ? "" : "s",
		       d->nn, d->nn == 1 ? "" : "s");
	diff__describe(b, d);
	outbuf__printf(b, "\n");
	if (d->nr_address)
		outbuf__printf(b, "\n%zu tracepoint key%s bucketed by address not compared "
				  "(ASLR moves the buckets every run)\n",
			       d->nr_address, d->nr_address == 1 ? "" : "s");
	for (i = 0; i < 2; i++) {
		size_t j;

		if (!d->nr_one_side[i])
			continue;
		outbuf__printf(b, "\nnot compared, measured in %s only:", i ? "new" : "base");
		for (j = 0; j < d->nr_one_side[i]; j++) {
			outbuf__printf(b, "%s ", j ? "," : "");
			diff__md_key(b, d->one_side[i][j]);
		}
		outbuf__printf(b, "\n");
	}
	renamed_section(b, d, rows, n, true);
}

/*
 * The ambient rows that changed, apart from the verdicts: the machines
 * were in another state (issue: page cache written back between the
 * batches), which is true but not the workload's doing.
 */
static void ambient_section(struct outbuf *b, const struct diff *d, enum diff_format f)
{
	size_t n, i;
	const struct diff_row **rows = diff__select(d, DIFF_SELECT_AMBIENT, &n);

	if (n && f == DIFF_FORMAT_LKP) {
		diff__lkp_ambient_title(b);
		for (i = 0; i < n; i++)
			diff__lkp_row(b, rows[i]->key, rows[i]->base.mean, rows[i]->base.sd,
				      rows[i]->cur.mean, rows[i]->cur.sd, diff_row__verdict_name(rows[i]),
				      diff_row__tinted(rows[i], true, false));
	} else if (n && f == DIFF_FORMAT_MARKDOWN) {
		outbuf__printf(b, "\n**the machines differed** (%s):", DIFF_AMBIENT_WHY);
		for (i = 0; i < n; i++) {
			outbuf__printf(b, "%s ", i ? "," : "");
			diff__md_key(b, rows[i]->key);
			if (rows[i]->absolute)
				outbuf__printf(b, " %+.2f", rows[i]->change);
			else if (diff_row__from_zero(rows[i]))
				outbuf__puts(b, " new");
			else
				outbuf__printf(b, " %+.1f%%", rows[i]->change);
		}
		outbuf__printf(b, "\n");
	}
	free(rows);
}

void diff_row__mark(const struct diff_row *r, char *mark, size_t size)
{
	size_t len;

	if (isfinite(r->q))
		snprintf(mark, size, "%s q=%.2g", diff_row__verdict_name(r), r->q);
	else
		snprintf(mark, size, "%s", diff_row__verdict_name(r));
	/* what the row could have seen; for "can't tell", the runs that would see the floor */
	len = strlen(mark);
	if (isfinite(r->mde) && len < size)
		snprintf(mark + len, size - len, ", detectable %s%.2g%s",
			 (r->flags & DIFF_MDE_ABOVE) ? ">" : "", r->mde, r->absolute ? "" : "%");
	len = strlen(mark);
	if (r->verdict == DIFF_CANT_TELL && isfinite(r->runs_needed) && len < size)
		snprintf(mark + len, size - len, r->runs_needed >= 1e6 ?
			 ", over a million runs a side" : ", ~%.0f runs a side", r->runs_needed);
	len = strlen(mark);
	if ((r->flags & DIFF_AMBIENT) && len < size)
		snprintf(mark + len, size - len, ", ambient");
}

void diff__format(struct outbuf *b, const struct diff *d, const struct diff_row *const *rows,
		  size_t n, enum diff_format f, bool with_verdict)
{
	size_t i;

	switch (f) {
	case DIFF_FORMAT_JSON: {
		struct jsonw w;

		jsonw__init(&w, b);
		jsonw__from_margin(&w);
		diff__json_open(&w, NULL, d, rows, n);
		jsonw__end(&w);
		outbuf__putc(b, '\n');
		return;
	}
	case DIFF_FORMAT_CSV:
		format_csv(b, d, rows, n);
		return;
	case DIFF_FORMAT_MARKDOWN:
		format_markdown(b, d, rows, n);
		if (!with_verdict && !d->o.robot)
			ambient_section(b, d, f);
		return;
	case DIFF_FORMAT_LKP:
	default:
		break;
	}
	diff__lkp_header(b, 1);
	for (i = 0; i < n; i++) {
		const struct diff_row *r = rows[i];
		char mark[128];

		if (with_verdict)
			diff_row__mark(r, mark, sizeof(mark));
		/* the robot prints -1 as the stddev of a single run: never shown */
		diff__lkp_row(b, r->key, r->base.mean, r->base.sd, r->cur.mean, r->cur.sd,
			      with_verdict ? mark : NULL,
			      diff_row__tinted(r, with_verdict, (r->flags & DIFF_AMBIENT) != 0));
	}
	renamed_section(b, d, rows, n, false);
	if (!with_verdict && !d->o.robot)
		ambient_section(b, d, f);
}

void diff__skid_notes(struct outbuf *b, const struct diff *d, size_t nd)
{
	const char *done[8];
	size_t nr_done = 0, k, i, j;

	for (k = 0; k < nd; k++)
		for (i = 0; i < d[k].nr && nr_done < 8; i++) {
			const struct diff_row *r = &d[k].rows[i];
			const char *ev, *sym = keykind__profile_symbol(r->key);
			char event[128];
			size_t len;

			if (keykind__profile(r->key) != KEYPROF_SELF || !sym)
				continue;
			ev = keykind__profile_event(r->key, &len);
			snprintf(event, sizeof(event), "%.*s", (int)len, ev);
			if (!skid__timer_event(event) || !skid__irq_enable_site(sym) ||
			    (r->base.mean < SKID_NOTE_SHARE && r->cur.mean < SKID_NOTE_SHARE))
				continue;
			for (j = 0; j < nr_done && strcmp(done[j], r->key); j++)
				;
			if (j < nr_done)
				continue;
			done[nr_done++] = r->key;
			skid__note(b, "", event, sym,
				   r->base.mean > r->cur.mean ? r->base.mean : r->cur.mean, "diff -g");
		}
}
