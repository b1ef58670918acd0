/*
 * diff: rows from two sides of runs, verdicts, the robot's filter and
 * order.  See include/mmprof/diff.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

static const char PP[] = "perf-profile.";

bool diff__absolute_key(const char *key)
{
	size_t len = strlen(key);

	return !strncmp(key, "perf-profile", 12) || (len && key[len - 1] == '%');
}

static const char TP[] = "tracepoint.";

bool diff__address_key(const char *key)
{
	const char *last = strrchr(key, '.');
	size_t i;

	/* tpstats spells a 2 MiB region "0x<hex>" and no other bucket so */
	if (strncmp(key, TP, sizeof(TP) - 1) || !last || strncmp(last + 1, "0x", 2) || !last[3])
		return false;
	for (i = 3; last[i]; i++)
		if (!isxdigit((unsigned char)last[i]))
			return false;
	return true;
}

/*
 * Flag the address buckets, and the ".other" row of each histogram that
 * has them: what fell outside the 16 buckets kept is as much a matter of
 * where ASLR put things as the buckets are.
 */
static void mark_addresses(struct diff *d)
{
	char **hist = NULL;	/* "tracepoint.<ev>.<field>." prefixes with address buckets */
	size_t nr = 0, alloc = 0, i, j;

	for (i = 0; i < d->nr; i++) {
		const char *key = d->rows[i].key;
		size_t len;

		if (!diff__address_key(key))
			continue;
		d->rows[i].flags |= DIFF_ADDRESS;
		d->nr_address++;
		len = (size_t)(strrchr(key, '.') - key) + 1;
		for (j = 0; j < nr && (strlen(hist[j]) != len || strncmp(hist[j], key, len)); j++)
			;
		if (j == nr) {
			XGROW(hist, alloc, nr);
			hist[nr++] = xstrndup(key, len);
		}
	}
	for (i = 0; nr && i < d->nr; i++) {
		const char *key = d->rows[i].key;

		if (strncmp(key, TP, sizeof(TP) - 1) || (d->rows[i].flags & DIFF_ADDRESS))
			continue;
		for (j = 0; j < nr; j++) {
			size_t len = strlen(hist[j]);

			if (!strncmp(key, hist[j], len) && !strcmp(key + len, "other")) {
				d->rows[i].flags |= DIFF_ADDRESS;
				d->nr_address++;
				break;
			}
		}
	}
	for (j = 0; j < nr; j++)
		free(hist[j]);
	free(hist);
}

/*
 * The event component of a perf-profile.<kind>.<event>.<...> key (*len
 * bytes, not terminated), or NULL for any other key.
 */
static const char *pp_event(const char *key, size_t *len)
{
	const char *e;

	if (strncmp(key, PP, sizeof(PP) - 1) || !(e = strchr(key + sizeof(PP) - 1, '.')))
		return NULL;
	e++;
	*len = strcspn(e, ".");
	return e;
}

/*
 * What is measured or not as a whole, written to buf: a key's first
 * component, except that each event is its own unit: perf-profile.*.<event>
 * for the children, self and calltrace keys of an event (shares of an
 * event one side did not record, or took no sample of, are 0/0) and
 * tracepoint.<event> (a side recorded with --mm, the other without).
 */
static void measured_unit(const char *key, char *buf, size_t size)
{
	size_t n = strcspn(key, "."), len = 0;
	const char *ev;

	if (!strncmp(key, PP, sizeof(PP) - 1)) {
		ev = pp_event(key, &len);
		snprintf(buf, size, "%s*.%.*s", PP, (int)len, ev ? ev : "");
		return;
	}
	if (!strncmp(key, "tracepoint.", 11))
		n += key[n] ? 1 + strcspn(key + n + 1, ".") : 0;
	snprintf(buf, size, "%.*s", (int)n, key);
}

/*
 * Families with keys on one side only: every row of such a family is
 * flagged DIFF_ONE_SIDE and the family listed in d->one_side[side].
 * present: per row, the runs of base and of new that had the key.
 */
static void mark_one_sided(struct diff *d, const uint32_t *present)
{
	struct fam {
		char *name;
		bool side[2];
	} *fam = NULL;
	size_t nr = 0, alloc = 0, i, j, last = SIZE_MAX;
	size_t *of = xmalloc((d->nr + 1) * sizeof(*of));
	char unit[256];

	for (i = 0; i < d->nr; i++) {
		measured_unit(d->rows[i].key, unit, sizeof(unit));
		/* rows of a family mostly come together: try the last one first */
		if (last != SIZE_MAX && !strcmp(fam[last].name, unit)) {
			j = last;
		} else {
			for (j = 0; j < nr && strcmp(fam[j].name, unit); j++)
				;
			if (j == nr) {
				XGROW(fam, alloc, nr);
				fam[nr++] = (struct fam){ xstrdup(unit), { false, false } };
			}
		}
		fam[j].side[0] |= present[2 * i] > 0;
		fam[j].side[1] |= present[2 * i + 1] > 0;
		of[i] = last = j;
	}
	for (j = 0; j < nr; j++) {
		int sd;

		if (fam[j].side[0] == fam[j].side[1])
			continue;
		sd = fam[j].side[0] ? 0 : 1;
		XGROW(d->one_side[sd], d->alloc_one_side[sd], d->nr_one_side[sd]);
		d->one_side[sd][d->nr_one_side[sd]++] = xstrdup(fam[j].name);
	}
	for (i = 0; i < d->nr; i++)
		if (fam[of[i]].side[0] != fam[of[i]].side[1])
			d->rows[i].flags |= DIFF_ONE_SIDE;
	for (j = 0; j < nr; j++)
		free(fam[j].name);
	free(of);
	free(fam);
}

/* Length of ".cold", ".cold.N", ".llvm.N", ".lto_priv.N" at s, else 0. */
static size_t clone_suffix(const char *s)
{
	static const char *const tags[] = { ".cold", ".llvm.", ".lto_priv." };
	size_t i, n, d;

	/* most dots start a frame name: reject on the first letter */
	if (s[1] != 'c' && s[1] != 'l')
		return 0;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		n = strlen(tags[i]);
		if (strncmp(s, tags[i], n))
			continue;
		if (i == 0) {
			/* .cold must end the name: followed by '.', or the end */
			if (s[n] && s[n] != '.')
				continue;
			if (s[n] == '.' && isdigit((unsigned char)s[n + 1])) {
				for (d = n + 1; isdigit((unsigned char)s[d]); d++)
					;
				if (!s[d] || s[d] == '.')
					return d;
			}
			return n;
		}
		for (d = n; isdigit((unsigned char)s[d]); d++)
			;
		if (d > n && (!s[d] || s[d] == '.'))
			return d;
	}
	return 0;
}

size_t diff__normalize_key(const char *key, char *buf, size_t size)
{
	size_t out = 0, i = 0, skip;
	bool pp = !strncmp(key, PP, sizeof(PP) - 1);

	while (key[i]) {
		if (pp && key[i] == '.' && (skip = clone_suffix(key + i))) {
			i += skip;
			continue;
		}
		if (out + 1 < size)
			buf[out] = key[i];
		out++;
		i++;
	}
	if (size)
		buf[out < size ? out : size - 1] = '\0';
	return out;
}

/* ---- building rows ---- */

struct builder {
	struct diff *d;
	struct hashidx idx;
	uint32_t *present;	/* per row: runs of base, runs of new that had it (2 per row) */
	uint32_t *stamp;	/* per row: 1 + the last run that touched it */
	size_t alloc_present, alloc_stamp, alloc_values;
	bool base_has_pp;
	/* per id space and side of the runs (diff_run.ids): id -> row, NONE when unseen */
	struct id_rows {
		const void *space;
		int side;
		uint32_t *row;
		size_t nr;
	} *spaces;
	size_t nr_spaces, alloc_spaces;
};

/* The id -> row array of a run's id space (nr_ids grows with later runs). */
static uint32_t *builder__space(struct builder *b, const struct diff_run *run, int side)
{
	struct id_rows *s = NULL;
	size_t i;

	/* by side too: an id's first sight on a side records its spellings there */
	for (i = 0; i < b->nr_spaces; i++)
		if (b->spaces[i].space == run->id_space && b->spaces[i].side == side)
			s = &b->spaces[i];
	if (!s) {
		XGROW(b->spaces, b->alloc_spaces, b->nr_spaces);
		s = &b->spaces[b->nr_spaces++];
		memset(s, 0, sizeof(*s));
		s->space = run->id_space;
		s->side = side;
	}
	if (run->nr_ids > s->nr) {
		s->row = xrealloc(s->row, run->nr_ids * sizeof(*s->row));
		memset(s->row + s->nr, 0xff, (run->nr_ids - s->nr) * sizeof(*s->row));
		s->nr = run->nr_ids;
	}
	return s->row;
}

const char *diff__key_symbol(const char *key)
{
	size_t len;
	const char *e = pp_event(key, &len);

	return e && e[len] == '.' ? e + len + 1 : NULL;
}

/*
 * Row row was seen spelled s (len bytes) on side.  Spelled as the key is
 * a flag bit; only another spelling makes a row its struct diff_spelling,
 * which then lists the key's own text too on the sides that had it.
 */
static void diff__add_spelling(struct diff *d, uint32_t row, int side, const char *s, size_t len)
{
	struct diff_row *r = &d->rows[row];
	const char *rsym = diff__key_symbol(r->key);
	bool plain = strlen(rsym) == len && !memcmp(rsym, s, len);
	struct diff_spelling *sp;
	size_t i;
	int sd;

	if (plain && !r->spelling) {
		r->flags |= DIFF_AS_KEY << side;
		return;
	}
	if (!r->spelling) {
		XGROW(d->spellings, d->alloc_spellings, d->nr_spellings);
		sp = &d->spellings[d->nr_spellings++];
		memset(sp, 0, sizeof(*sp));
		r->spelling = (uint32_t)d->nr_spellings;
		for (sd = 0; sd < 2; sd++)
			if (r->flags & (DIFF_AS_KEY << sd)) {
				XGROW(sp->name[sd], sp->alloc[sd], sp->nr[sd]);
				sp->name[sd][sp->nr[sd]++] = xstrdup(rsym);
			}
	}
	sp = &d->spellings[r->spelling - 1];
	for (i = 0; i < sp->nr[side]; i++)
		if (strlen(sp->name[side][i]) == len && !memcmp(sp->name[side][i], s, len))
			return;
	XGROW(sp->name[side], sp->alloc[side], sp->nr[side]);
	sp->name[side][sp->nr[side]++] = xstrndup(s, len);
}

/* A perf-profile key's spellings (list: its '\n'-separated raw names, or NULL) into row. */
static void builder__spell(struct builder *b, uint32_t row, int side, const char *key,
			   const char *list)
{
	const char *ksym = diff__key_symbol(key);

	if (!ksym || !diff__key_symbol(b->d->rows[row].key))
		return;
	if (!list) {
		/* .llvm.N and the like: the key itself is a spelling of the row */
		diff__add_spelling(b->d, row, side, ksym, strlen(ksym));
		return;
	}
	while (list) {
		const char *nl = strchr(list, '\n');
		size_t len = nl ? (size_t)(nl - list) : strlen(list);

		diff__add_spelling(b->d, row, side, list, len);
		list = nl ? nl + 1 : NULL;
	}
}

static bool row_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct diff *d = ctx;

	return !strcmp(d->rows[row].key, key);
}

static uint32_t builder__row(struct builder *b, const char *key)
{
	struct diff *d = b->d;
	size_t n = d->nb + d->nn;
	uint64_t h = hash__bytes(key, strlen(key));
	uint32_t row = hashidx__find(&b->idx, h, row_eq, d, key);

	if (row != HASHIDX_NONE)
		return row;
	row = (uint32_t)d->nr;
	XGROW(d->rows, d->alloc, d->nr);
	memset(&d->rows[row], 0, sizeof(d->rows[row]));
	d->rows[row].key = xstrdup(key);
	d->nr++;
	XGROW(b->present, b->alloc_present, 2 * (size_t)row + 1);
	b->present[2 * row] = b->present[2 * row + 1] = 0;
	XGROW(b->stamp, b->alloc_stamp, row);
	b->stamp[row] = 0;
	if ((size_t)(row + 1) * n > b->alloc_values) {
		size_t want = b->alloc_values ? 2 * b->alloc_values : 64 * n;

		while (want < (size_t)(row + 1) * n)
			want *= 2;
		d->values = xrealloc(d->values, want * sizeof(*d->values));
		b->alloc_values = want;
	}
	memset(d->values + (size_t)row * n, 0, n * sizeof(*d->values));
	hashidx__insert(&b->idx, h, row);
	return row;
}

/* diff_opts.alias_from/to: key with its event token replaced (in tmp), or key itself. */
static const char *alias_key(const struct diff_opts *o, const char *key, char *tmp, size_t size)
{
	const char *ev;
	size_t len;

	if (!o->alias_from || !o->alias_to || !(ev = pp_event(key, &len)) || ev[len] != '.' ||
	    len != strlen(o->alias_from) || memcmp(ev, o->alias_from, len))
		return key;
	if (snprintf(tmp, size, "%.*s%s%s", (int)(ev - key), key, o->alias_to, ev + len) >=
	    (int)size)
		return key;
	return tmp;
}

static void builder__add_run(struct builder *b, const struct diff_run *run, size_t col, int side)
{
	struct diff *d = b->d;
	size_t n = d->nb + d->nn, i;
	char small[1024], *buf = small;
	size_t bufsize = sizeof(small);

	uint32_t *id_row = run->ids ? builder__space(b, run, side) : NULL;

	for (i = 0; i < run->nr; i++) {
		char atmp[1024];
		const char *key = side ? alias_key(&d->o, run->items[i].key, atmp, sizeof(atmp))
				       : run->items[i].key;
		double *v;
		uint32_t row = HASHIDX_NONE;

		if (id_row && run->ids[i] < run->nr_ids)
			row = id_row[run->ids[i]];
		if (row == HASHIDX_NONE) {
			size_t need = diff__normalize_key(key, buf, bufsize);

			if (need >= bufsize) {
				bufsize = need + 1;
				if (buf != small)
					free(buf);
				buf = xmalloc(bufsize);
				diff__normalize_key(key, buf, bufsize);
			}
			row = builder__row(b, buf);
			if (id_row && run->ids[i] < run->nr_ids) {
				id_row[run->ids[i]] = row;
				builder__spell(b, row, side, key,
					       run->spellings ? run->spellings[run->ids[i]] : NULL);
			} else {
				builder__spell(b, row, side, key, NULL);
			}
		}
		v = &d->values[(size_t)row * n + col];
		/* values alone cannot tell "absent" from "present with 0" */
		if (b->stamp[row] != col + 1) {
			b->stamp[row] = (uint32_t)(col + 1);
			b->present[2 * row + side]++;
		}
		if (!side && !strncmp(key, PP, sizeof(PP) - 1))
			b->base_has_pp = true;
		/* clones that normalise to one key add up, as the robot sums .isra */
		*v += run->items[i].value;
	}
	if (buf != small)
		free(buf);
}

static void fill_defaults(struct diff_opts *o)
{
	if (!(o->alpha > 0))
		o->alpha = 0.05;
	if (!(o->min_points > 0))
		o->min_points = 0.1;
	if (!(o->min_pct > 0))
		o->min_pct = 1.0;
	if (!(o->test_floor > 0))
		o->test_floor = 0.05;
	if (!(o->novar_points > 0))
		o->novar_points = 0.5;
	if (!(o->novar_pct > 0))
		o->novar_pct = 5.0;
}

/* The robot's monitors; any other first component is the workload's own. */
static bool monitor_family(const char *key)
{
	static const char *const mon[] = {
		"perf-profile", "perf-stat", "perf-sched", "perf-c2c", "proc-vmstat",
		"meminfo", "vmstat", "mpstat", "iostat", "cpuidle", "sched_debug",
		"slabinfo", "softirqs", "interrupts", "turbostat", "numa-vmstat",
		"numa-meminfo", "numa-numastat", "pagetypeinfo", "buddyinfo",
		"lock_stat", "uptime", "boot-time", "diskstats", "tracepoint",
		"latency_stats", "kmsg", "dmesg",
	};
	size_t len = strcspn(key, "."), i;

	for (i = 0; i < sizeof(mon) / sizeof(mon[0]); i++)
		if (strlen(mon[i]) == len && !strncmp(key, mon[i], len))
			return true;
	return false;
}

/* perf_metric? in lkp-tests: exempt from the 5 % small-change rule. */
static bool robot_perf_metric(const char *key)
{
	return !strncmp(key, "perf-stat.", 10) || !strncmp(key, "perf-sched.", 11) ||
	       !strncmp(key, "perf-c2c.", 9) || !monitor_family(key);
}

/*
 * A calltrace key is perf's sum of chains over its 0.5 % cut, so a run
 * without the key had somewhere under the cut, not nothing.  The test and
 * the effect floor see such runs at the cut, the least favourable value:
 * a chain that merely crossed the cut is not called a change, and one
 * that is a change is still found.  The table keeps the robot's numbers.
 */
static bool censored(const struct diff_row *r)
{
	static const char ct[] = "perf-profile.calltrace.";

	return !strncmp(r->key, ct, sizeof(ct) - 1) && (r->base.min == 0 || r->cur.min == 0);
}

static void at_cut(const double *v, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = v[i] == 0 ? KEYS_CALLTRACE_CUT : v[i];
}

/*
 * The sampling variance of one run's value of a perf-profile row, in
 * points^2, averaged over a side's runs (the variance of the side's mean
 * is this over the runs): 1e4 p(1-p) mean(1/n_i) over the runs with
 * samples.  0 when no run of the side says how many samples it holds.
 */
static double sampling_var(double pct, const double *nsamp, size_t n)
{
	double p = pct / 100, inv = 0;
	size_t i, k = 0;

	if (!nsamp)
		return 0;
	for (i = 0; i < n; i++)
		if (nsamp[i] > 0) {
			inv += 1 / nsamp[i];
			k++;
		}
	if (!k || !(p > 0))
		return 0;
	if (p > 1)
		p = 1;
	return 1e4 * p * (1 - p) * inv / (double)k;
}

/* nsamp: per run (base then new), the samples behind the row's event, or NULL. */
static void classify(struct diff *d, struct diff_row *r, const uint32_t *present,
		     bool base_has_pp, double *scratch, double *cut, const double *nsamp)
{
	double vb = 0, vc = 0;	/* sampling variance floor of a run, each side */
	const struct diff_opts *o = &d->o;
	bool pp = !strncmp(r->key, PP, sizeof(PP) - 1);
	struct stat_summary tb, tc;	/* what the test sees */
	double ratio, tdelta;
	size_t nb = d->nb, nn = d->nn;

	stats__summary(r->v, nb, scratch, &r->base);
	stats__summary(r->v + nb, nn, scratch, &r->cur);
	tb = r->base;
	tc = r->cur;
	if (censored(r)) {
		at_cut(r->v, nb + nn, cut);
		stats__summary(cut, nb, scratch, &tb);
		stats__summary(cut + nb, nn, scratch, &tc);
	}
	tdelta = tc.mean - tb.mean;
	if (pp && nsamp) {
		/* the share under "no change": pooled over both sides */
		double pooled = (tb.mean * (double)nb + tc.mean * (double)nn) / (double)(nb + nn);

		vb = sampling_var(pooled, nsamp, nb);
		vc = sampling_var(pooled, nsamp + nb, nn);
		if (tb.var1 < vb)
			tb.var1 = vb;
		if (tc.var1 < vc)
			tc.var1 = vc;
	}
	r->absolute = diff__absolute_key(r->key);
	r->delta = r->cur.mean - r->base.mean;
	r->rel = 100.0 * r->delta / (r->base.mean == 0 ? 1e-100 : r->base.mean);
	r->change = r->absolute ? r->delta : r->rel;
	r->p = r->q = NAN;
	if (!present[0])
		r->flags |= DIFF_NEW;
	if (!present[1])
		r->flags |= DIFF_GONE;
	if (r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE))
		return;		/* not comparable: no verdict, not in any family's FDR */

	/* the robot: >= 3 runs on a side, in the base, ranges separate, not tiny */
	if ((nb >= 3 || nn >= 3) && (present[0] || (pp && base_has_pp)) &&
	    stats__robot_changed(r->v, nb, r->v + nb, nn, scratch, &ratio) &&
	    (pp || (ratio > 1.01 && (ratio > 1.05 || robot_perf_metric(r->key)))))
		r->flags |= DIFF_ROBOT;

	if (d->novar) {
		bool big = r->absolute ? fabs(tdelta) >= o->novar_points
				       : fabs(r->rel) >= o->novar_pct;

		if (pp && fmax(r->base.mean, r->cur.mean) < o->test_floor)
			big = false;
		/* nor a change that a few samples' luck explains */
		if (pp && fabs(tdelta) < 3 * sqrt(vb / (double)nb + vc / (double)nn))
			big = false;
		r->verdict = big ? DIFF_CHANGED : DIFF_SAME;
		return;
	}
	/* independent filtering: the pooled level, not the difference */
	if (pp ? fmax(r->base.mean, r->cur.mean) < o->test_floor
	       : r->base.max == 0 && r->cur.max == 0 && r->base.min == 0 && r->cur.min == 0)
		return;
	/* absolute keys: under the effect floor (at the cut) no verdict can come */
	if (r->absolute && fabs(tdelta) < o->min_points && censored(r))
		return;
	{
		struct welch w;

		if (!stats__welch(&tb, &tc, &w)) {
			r->p = w.p;
			r->flags |= DIFF_TESTED;
			d->nr_tested++;
		}
	}
}

/*
 * The samples behind a perf-profile row in every run (base then new) into
 * nsamp, or NULL when the row is not perf-profile or no run knows them.
 * Rows come event by event in practice: ev, ev_len and known cache the event
 * nsamp was last filled for.
 */
static const double *row_samples(const struct diff_opts *o, const char *key,
				 const struct diff_run *base, size_t nb,
				 const struct diff_run *cur, size_t nn, double *nsamp,
				 const char **ev, size_t *ev_len, bool *known)
{
	size_t len, i, j;
	const char *e = pp_event(key, &len);

	if (!e)
		return NULL;
	if (*ev && *ev_len == len && !memcmp(*ev, e, len))
		return *known ? nsamp : NULL;
	*ev = e;
	*ev_len = len;
	*known = false;
	for (i = 0; i < nb + nn; i++) {
		const struct diff_run *run = i < nb ? &base[i] : &cur[i - nb];
		const char *want = e;
		size_t wlen = len;

		/* --force's alias: the new side's samples are of its own event */
		if (i >= nb && o->alias_from && o->alias_to && strlen(o->alias_to) == len &&
		    !memcmp(o->alias_to, e, len)) {
			want = o->alias_from;
			wlen = strlen(want);
		}
		nsamp[i] = 0;
		for (j = 0; j < run->nr_samples; j++)
			if (strlen(run->samples[j].event) == wlen &&
			    !memcmp(run->samples[j].event, want, wlen)) {
				nsamp[i] = run->samples[j].n;
				*known |= nsamp[i] > 0;
				break;
			}
	}
	return *known ? nsamp : NULL;
}

/* The family a row's FDR is controlled in: "perf-profile.<group>" or the first component. */
static size_t fdr_family_len(const char *key)
{
	size_t len = strcspn(key, ".");

	if (!strncmp(key, PP, sizeof(PP) - 1))
		len = sizeof(PP) - 1 + strcspn(key + sizeof(PP) - 1, ".");
	return len;
}

static int cmp_row_family(const void *a, const void *b)
{
	const struct diff_row *x = *(const struct diff_row *const *)a;
	const struct diff_row *y = *(const struct diff_row *const *)b;
	size_t lx = fdr_family_len(x->key), ly = fdr_family_len(y->key);
	int c = strncmp(x->key, y->key, lx < ly ? lx : ly);

	return c ? c : lx < ly ? -1 : lx > ly;
}

int diff__compute(struct diff *d, const struct diff_run *base, size_t nb,
		  const struct diff_run *cur, size_t nn, const struct diff_opts *o)
{
	struct builder b;
	size_t i, j, n = nb + nn;
	double *p, *q, *scratch, *cut, *nsamp;
	struct diff_row **order;
	const char *ev = NULL;
	size_t ev_len = 0;
	bool known = false;

	memset(d, 0, sizeof(*d));
	if (o)
		d->o = *o;
	fill_defaults(&d->o);
	if (!nb || !nn)
		return -EINVAL;
	d->nb = nb;
	d->nn = nn;
	d->novar = nb < 2 || nn < 2;
	memset(&b, 0, sizeof(b));
	b.d = d;
	hashidx__init(&b.idx);
	for (i = 0; i < n; i++)
		builder__add_run(&b, i < nb ? &base[i] : &cur[i - nb], i, i < nb ? 0 : 1);

	hashidx__release(&b.idx);
	for (i = 0; i < b.nr_spaces; i++)
		free(b.spaces[i].row);
	free(b.spaces);

	mark_addresses(d);
	mark_one_sided(d, b.present);
	scratch = xmalloc((n + 1) * sizeof(*scratch));
	cut = xmalloc((n + 1) * sizeof(*cut));
	nsamp = xmalloc((n + 1) * sizeof(*nsamp));
	for (i = 0; i < d->nr; i++) {
		d->rows[i].v = d->values + i * n;
		classify(d, &d->rows[i], &b.present[2 * i], b.base_has_pp, scratch, cut,
			 row_samples(&d->o, d->rows[i].key, base, nb, cur, nn, nsamp, &ev, &ev_len, &known));
	}
	free(nsamp);
	free(cut);
	free(scratch);
	free(b.present);
	free(b.stamp);

	/*
	 * BH within each family (perf-profile.children, .self, .calltrace, and
	 * every other first component): the FDR holds per family, and the
	 * headline children rows are not diluted by the many calltrace
	 * prefixes that repeat them.
	 */
	order = xmalloc((d->nr + 1) * sizeof(*order));
	for (i = 0; i < d->nr; i++)
		order[i] = &d->rows[i];
	qsort(order, d->nr, sizeof(*order), cmp_row_family);
	p = xmalloc((d->nr + 1) * sizeof(*p));
	q = xmalloc((d->nr + 1) * sizeof(*q));
	for (i = 0; i < d->nr; i = j) {
		size_t k;

		for (j = i; j < d->nr && !cmp_row_family(&order[i], &order[j]); j++)
			p[j - i] = order[j]->p;
		stats__bh(p, j - i, q);
		for (k = i; k < j; k++)
			order[k]->q = q[k - i];
	}
	free(order);
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];

		if (!(r->flags & DIFF_TESTED))
			continue;
		if (r->q < d->o.alpha) {
			bool big = r->absolute ? fabs(r->delta) >= d->o.min_points
					       : fabs(r->rel) >= d->o.min_pct;

			r->verdict = !big ? DIFF_SMALL : r->delta > 0 ? DIFF_UP : DIFF_DOWN;
		}
	}
	free(p);
	free(q);
	return 0;
}

void diff__release(struct diff *d)
{
	size_t i;

	size_t j;
	int sd;

	for (i = 0; i < d->nr; i++)
		free(d->rows[i].key);
	for (i = 0; i < d->nr_spellings; i++)
		for (sd = 0; sd < 2; sd++) {
			for (j = 0; j < d->spellings[i].nr[sd]; j++)
				free(d->spellings[i].name[sd][j]);
			free(d->spellings[i].name[sd]);
		}
	free(d->spellings);
	for (sd = 0; sd < 2; sd++) {
		for (j = 0; j < d->nr_one_side[sd]; j++)
			free(d->one_side[sd][j]);
		free(d->one_side[sd]);
	}
	free(d->rows);
	free(d->values);
	memset(d, 0, sizeof(*d));
}

const struct diff_spelling *diff__spelling(const struct diff *d, const struct diff_row *r)
{
	return r->spelling && r->spelling <= d->nr_spellings ? &d->spellings[r->spelling - 1] : NULL;
}

bool diff_spelling__renamed(const struct diff_spelling *s)
{
	size_t i, j;

	if (!s || !s->nr[0] || !s->nr[1] || s->nr[0] != s->nr[1])
		return s && s->nr[0] && s->nr[1];
	for (i = 0; i < s->nr[0]; i++) {
		for (j = 0; j < s->nr[1]; j++)
			if (!strcmp(s->name[0][i], s->name[1][j]))
				break;
		if (j == s->nr[1])
			return true;
	}
	return false;
}

const struct diff_row *diff__find(const struct diff *d, const char *key)
{
	size_t i;

	/* used by tests and gates on few keys: a scan is fine */
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->rows[i].key, key))
			return &d->rows[i];
	return NULL;
}

const char *diff_row__verdict_name(const struct diff_row *r)
{
	switch (r->verdict) {
	case DIFF_UP:
		return (r->flags & DIFF_NEW) ? "new" : "up";
	case DIFF_DOWN:
		return (r->flags & DIFF_GONE) ? "gone" : "down";
	case DIFF_SMALL:
		return "small";
	case DIFF_CHANGED:
		return (r->flags & DIFF_NEW) ? "new?" : (r->flags & DIFF_GONE) ? "gone?" : "changed?";
	case DIFF_SAME:
	default:
		if (r->flags & DIFF_ADDRESS)
			return "address";
		if (r->flags & DIFF_ONE_SIDE)
			return "one-side";
		return (r->flags & DIFF_TESTED) ? "same" : "-";
	}
}

/* ---- selection and the robot's order ---- */

struct ordered {
	const struct diff_row *r;
	size_t family_count;
	size_t sort_len;	/* compare this many bytes of the key first */
};

static int cmp_ordered(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	size_t lx = x->sort_len, ly = y->sort_len;
	int c;

	if (x->family_count != y->family_count)
		return x->family_count < y->family_count ? -1 : 1;
	/* the sort keys, as strings of their own lengths */
	c = strncmp(x->r->key, y->r->key, lx < ly ? lx : ly);
	if (c)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	if (x->r->change != y->r->change)
		return x->r->change < y->r->change ? -1 : 1;
	return strcmp(x->r->key, y->r->key);
}

static size_t family_len(const char *key)
{
	return strcspn(key, ".");
}

static int cmp_family(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	size_t lx = family_len(x->r->key), ly = family_len(y->r->key);
	int c = strncmp(x->r->key, y->r->key, lx < ly ? lx : ly);

	return c ? c : lx < ly ? -1 : lx > ly;
}

/* perf-profile rows sort by "perf-profile.<group>" then change; others by key. */
static size_t sort_len(const char *key)
{
	if (!strncmp(key, PP, sizeof(PP) - 1))
		return sizeof(PP) - 1 + strcspn(key + sizeof(PP) - 1, ".");
	return strlen(key);
}

const struct diff_row **diff__select(const struct diff *d, enum diff_select sel, size_t *n)
{
	struct ordered *o = xmalloc((d->nr + 1) * sizeof(*o));
	const struct diff_row **out;
	size_t i, m = 0, j;

	for (i = 0; i < d->nr; i++) {
		const struct diff_row *r = &d->rows[i];
		bool keep = sel == DIFF_SELECT_ALL ||
			    (sel == DIFF_SELECT_ROBOT && (r->flags & DIFF_ROBOT)) ||
			    (sel == DIFF_SELECT_DEFAULT && diff_row__changed(r));

		if (keep) {
			o[m].r = r;
			o[m].sort_len = sort_len(r->key);
			m++;
		}
	}
	/* families with fewer shown rows first; the workload's own first of all */
	qsort(o, m, sizeof(*o), cmp_family);
	for (i = 0; i < m; i = j) {
		size_t fl = family_len(o[i].r->key), k;

		for (j = i + 1; j < m; j++)
			if (family_len(o[j].r->key) != fl || strncmp(o[j].r->key, o[i].r->key, fl))
				break;
		for (k = i; k < j; k++)
			o[k].family_count = monitor_family(o[i].r->key) ? j - i : 0;
	}
	qsort(o, m, sizeof(*o), cmp_ordered);
	out = xmalloc((m + 1) * sizeof(*out));
	for (i = 0; i < m; i++)
		out[i] = o[i].r;
	free(o);
	*n = m;
	return out;
}
