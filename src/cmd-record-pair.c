/*
 * cmd-record-pair: --interleave's two files' meta and --budget's stop:
 * the score's verdict on the pairs so far, through the diff engine's test
 * (diff__compute), as mmprof diff gives it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/message.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"

#include "cmd-record-int.h"

/*
 * --interleave: which side the file is, its partner, and that run i of
 * one was recorded next to run i of the other (pairs a b, b a, a b, ...)
 */
void recordcmd__interleave_meta(struct record *rec, const char *side)
{
	char buf[32];
	size_t pairs = rec->p->nr_runs < rec->other->p->nr_runs ? rec->p->nr_runs :
		       rec->other->p->nr_runs;

	profile__set_meta(rec->p, "interleave.side", side);
	profile__set_meta(rec->p, "interleave.with", rec->other->o->output);
	profile__set_meta(rec->p, "interleave.order", "abba");
	snprintf(buf, sizeof(buf), "%zu", pairs);
	profile__set_meta(rec->p, "interleave.pairs", buf);
}

/*
 * --budget's score: the first metric of the runs that --score's glob
 * matches, else the workload's rate of work as mmprof diff finds its score
 * (keykind__score: NAME.ops_per_sec, .throughput, ...).  NULL when no run
 * has one.
 */
static const char *score_key(const struct profile *p, const char *glob)
{
	size_t i;

	for (i = 0; i < p->nr_metrics; i++) {
		const char *key = profile__str(p, p->metrics[i].key);

		if (keykind__score_by(glob, key))
			return key;
	}
	return NULL;
}

/*
 * The score's verdict on the runs so far, as mmprof diff gives it: its
 * primary endpoint, tested on its own spread and apart from every other
 * key, so a diff of that one key says the same.  The verdict's name
 * ("up", "can't tell", ...), its change and detectable change (% of the
 * first side) in change and mde (NAN when untested; above: more than mde,
 * the end of the scale).
 */
static const char *score_verdict(const struct record *a, const struct record *b,
				 const char *key, const char *glob, double *change, double *mde, bool *above)
{
	const struct record *side[2] = { a, b };
	struct diff_run *runs[2];
	struct key_value *items[2];
	struct diff_opts opts = { .score = glob };	/* NULL: keykind__score, as key was chosen */
	struct diff d;
	const struct diff_row *row;
	const char *name = "-";
	size_t s, i, n[2];

	for (s = 0; s < 2; s++) {
		const struct profile *p = side[s]->p;

		n[s] = p->nr_runs;
		runs[s] = xcalloc(n[s] ? n[s] : 1, sizeof(*runs[s]));
		items[s] = xcalloc(n[s] ? n[s] : 1, sizeof(*items[s]));
		for (i = 0; i < p->nr_metrics; i++) {
			const struct metric *m = &p->metrics[i];

			if (m->run >= n[s] || strcmp(profile__str(p, m->key), key))
				continue;
			items[s][m->run].key = (char *)key;
			items[s][m->run].value = m->value;
			runs[s][m->run].items = &items[s][m->run];
			runs[s][m->run].nr = 1;
		}
	}
	*change = *mde = NAN;
	*above = false;
	if (!diff__compute(&d, runs[0], n[0], runs[1], n[1], &opts)) {
		row = diff__find(&d, key);
		if (row) {
			name = diff_row__verdict_name(row);
			*change = row->change;
			*mde = row->mde;
			*above = row->flags & DIFF_MDE_ABOVE;
		}
		diff__release(&d);
	}
	for (s = 0; s < 2; s++) {
		free(runs[s]);
		free(items[s]);
	}
	return name;
}

/*
 * --budget, after `pairs` pairs: true when the score's verdict is clear
 * (a change found, or "same": none above the effect floor) or the budget
 * is spent; says so, and the verdict, unless -q.
 */
bool recordcmd__budget_done(struct record *rec, uint32_t pairs)
{
	const struct record_opts *o = rec->o;
	const char *key = score_key(rec->p, o->score);
	const char *v;
	double change, mde;
	bool clear, above, spent = pairs >= (uint32_t)o->budget;
	char buf[64];

	if (!key) {
		warning("--budget: the runs have no %s%s; no more pairs",
			o->score ? "metric matching " : "score (a NAME.ops_per_sec, .throughput, "
			".per_process_ops or .per_thread_ops metric",
			o->score ? o->score : "; name one with --score)");
		profile__set_meta(rec->p, "interleave.stopped", "no score");
		profile__set_meta(rec->other->p, "interleave.stopped", "no score");
		return true;
	}
	v = score_verdict(rec, rec->other, key, o->score, &change, &mde, &above);
	clear = !strcmp(v, "up") || !strcmp(v, "down") || !strcmp(v, "same");
	if (!o->quiet || clear || spent) {
		recordcmd__progress_clear(rec);
		fprintf(stderr, "mmprof: %u pairs: %s %+.3g %% (%s", pairs, key, change, v);
		if (!isnan(mde))
			fprintf(stderr, ", detectable %s%.3g %%", above ? ">" : "", mde);
		fprintf(stderr, ")%s\n", clear ? ": clear, no more pairs" :
			spent ? ": the budget is spent" : "");
	}
	if (!clear && !spent)
		return false;
	snprintf(buf, sizeof(buf), "%s after %u pairs", clear ? "clear" : "budget spent", pairs);
	profile__set_meta(rec->p, "interleave.stopped", buf);
	profile__set_meta(rec->other->p, "interleave.stopped", buf);
	return true;
}
