/*
 * diff: rows from two sides of runs, verdicts, the robot's filter and
 * order.  See include/mmprof/diff.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/keys.h"
#include "mmprof/mmstate.h"
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

/* ---- the test (see "Verdicts" in diff.h) ---- */

enum scale {
	SCALE_SHARE,		/* perf-profile with samples known: counts out of a total */
	SCALE_RAW,		/* the key's own unit (absolute keys, negative values) */
	SCALE_LOG,		/* log(x + eps): relative keys, noise as a fraction of the level */
};

/* A family: keys whose noise is estimated together and whose FDR is controlled together. */
struct fam {
	char *name;
	enum scale scale;
	bool children;		/* perf-profile.children.<event>: judges disturbed runs */
	double *inv_n;		/* SHARE: per run (base then new) 1 / samples */
	double total[2];	/* SHARE: samples of each side */
	/*
	 * SHARE: between-run spread phi * shape: SHAPE_SQUARE, phi a squared
	 * coefficient of variation (a run is a few % slower everywhere), or
	 * SHAPE_COUNT, phi * p (100 - p), as if each run held 1 / phi more
	 * samples' worth of noise (small functions jitter more, relatively).
	 */
	double phi;
	enum { SHAPE_SQUARE, SHAPE_COUNT } shape;
	struct stat_prior prior;
	bool have_prior;
	size_t m, rejected;	/* rows tested, rows with q < alpha */
};

/* Per row, what the test sees (diff__compute's scratch). */
struct trow {
	uint32_t fam;
	bool tested;
	double delta;		/* new - base on the test scale */
	double s2;		/* RAW/LOG: pooled variance; SHARE: the dispersion (after phi) */
	double level;		/* SHARE: pooled share in points */
	double c;		/* SHARE: 1e4 p (1 - p) at the pooled share: a run's sampling variance is c / n */
	double vfloor;		/* LOG of counts: the Poisson floor of a run's variance */
	double post;		/* the moderated variance (or dispersion) */
	double eb, en;		/* each side's variance of its mean before the dispersion (RAW/LOG: 1/n) */
	double known;		/* SHARE: the sampling part of eb + en */
	double df;
	double z;		/* t* + t_0.8 at the row's BH threshold */
};

struct tctx {
	struct diff *d;
	struct fam *fam;
	size_t nr_fam, alloc_fam, last;
	struct trow *t;
	double *buf;		/* n values */
};

static uint32_t tctx__family(struct tctx *x, const char *name, enum scale scale, bool children,
			     const double *nsamp)
{
	size_t n = x->d->nb + x->d->nn, i;
	struct fam *f;

	if (x->last < x->nr_fam && !strcmp(x->fam[x->last].name, name))
		return (uint32_t)x->last;
	for (i = 0; i < x->nr_fam; i++)
		if (!strcmp(x->fam[i].name, name))
			return (uint32_t)(x->last = i);
	XGROW(x->fam, x->alloc_fam, x->nr_fam);
	f = &x->fam[x->nr_fam];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->scale = scale;
	f->children = children;
	if (scale == SCALE_SHARE) {
		f->inv_n = xmalloc(n * sizeof(*f->inv_n));
		for (i = 0; i < n; i++) {
			f->inv_n[i] = 1 / (nsamp[i] >= 1 ? nsamp[i] : 1);
			f->total[i >= x->d->nb] += nsamp[i] >= 1 ? nsamp[i] : 1;
		}
	}
	return (uint32_t)(x->last = x->nr_fam++);
}

/* The values the test sees (a calltrace key's absent runs at the cut), base then new. */
static const double *test_values(const struct diff_row *r, size_t n, double *buf)
{
	if (!censored(r))
		return r->v;
	at_cut(r->v, n, buf);
	return buf;
}

/* Pooled within-side variance of v (nb then nn values) with nb + nn - 2 df. */
static double pooled_var(const double *v, size_t nb, size_t nn, double *mb, double *mn)
{
	double sb = 0, sn = 0, ss = 0;
	size_t i;

	for (i = 0; i < nb; i++)
		sb += v[i];
	for (i = 0; i < nn; i++)
		sn += v[nb + i];
	*mb = sb / (double)nb;
	*mn = sn / (double)nn;
	for (i = 0; i < nb; i++)
		ss += (v[i] - *mb) * (v[i] - *mb);
	for (i = 0; i < nn; i++)
		ss += (v[nb + i] - *mn) * (v[nb + i] - *mn);
	return ss / (double)(nb + nn - 2);
}

static bool all_integers(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != floor(v[i]) || fabs(v[i]) > 9e15)
			return false;
	return true;
}

/* 0 for perf-profile.children keys, 1 for .self, 2 for the others (calltrace). */
static int kind_rank(const char *key)
{
	const char *k = key + sizeof(PP) - 1;

	return !strncmp(k, "children.", 9) ? 0 : !strncmp(k, "self.", 5) ? 1 : 2;
}

/*
 * The family of a tested row and what its test needs.  perf-profile rows
 * with known samples are shares (SCALE_SHARE); other absolute rows and
 * rows with negative values stay in their unit; the rest are compared on
 * log(x + eps), eps 0.5 for counts (every value an integer) and a
 * thousandth of the largest value otherwise, so that a key absent from
 * one side is a large but finite change.
 */
static void tctx__prep(struct tctx *x, struct diff_row *r, const double *nsamp)
{
	struct diff *d = x->d;
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i;
	struct trow *t = &x->t[r - d->rows];
	const double *v = test_values(r, n, x->buf);
	char name[256];
	const char *amb = (r->flags & DIFF_AMBIENT) ? "/ambient" : "";
	double mb, mn;
	bool neg = false;

	t->tested = true;
	t->eb = 1 / (double)nb;
	t->en = 1 / (double)nn;
	if (!strncmp(r->key, PP, sizeof(PP) - 1) && nsamp) {
		double sc = 0, sn = 0;
		size_t len, glen;
		const char *ev = pp_event(r->key, &len);

		glen = (size_t)(ev - r->key) - 1;
		snprintf(name, sizeof(name), "%.*s.%.*s", (int)glen, r->key, (int)len, ev);
		t->fam = tctx__family(x, name, SCALE_SHARE,
				      !strncmp(r->key + sizeof(PP) - 1, "children.", 9), nsamp);
		for (i = 0; i < n; i++) {
			double ni = 1 / x->fam[t->fam].inv_n[i];

			sc += v[i] * ni;
			sn += ni;
		}
		t->level = sn > 0 ? sc / sn : 0;
		if (t->level > 100)
			t->level = 100;
		t->c = t->level * (100 - t->level);
		pooled_var(v, nb, nn, &mb, &mn);
		t->delta = mn - mb;
		return;
	}
	for (i = 0; i < n; i++)
		neg |= v[i] < 0;
	if (r->absolute || neg) {
		snprintf(name, sizeof(name), "%.*s%s/raw", (int)strcspn(r->key, "."), r->key, amb);
		t->fam = tctx__family(x, name, SCALE_RAW, false, NULL);
		t->s2 = pooled_var(v, nb, nn, &mb, &mn);
		t->delta = mn - mb;
		return;
	}
	{
		double eps, mx = 0, sum = 0;
		bool counts = all_integers(v, n);

		for (i = 0; i < n; i++) {
			mx = fmax(mx, v[i]);
			sum += v[i];
		}
		eps = counts ? 0.5 : 1e-3 * mx;
		for (i = 0; i < n; i++)
			x->buf[i] = log(v[i] + eps);
		t->s2 = pooled_var(x->buf, nb, nn, &mb, &mn);
		t->delta = mn - mb;
		/*
		 * A monitor's count takes in whatever else ran on the machine:
		 * at least Poisson noise, var log(X + 0.5) about 1 / (mean + 0.5).
		 * The workload's own counts are its own, as exact as it says.
		 */
		t->vfloor = counts && monitor_family(r->key) ? 1 / (sum / (double)n + 0.5) : 0;
		snprintf(name, sizeof(name), "%.*s%s/log", (int)strcspn(r->key, "."), r->key, amb);
		t->fam = tctx__family(x, name, SCALE_LOG, false, NULL);
	}
}

/*
 * The scale of a share's between-run spread, in points^2: the share's
 * p (100 - p) / 100 squared, which is p^2 for the small shares and
 * (100 - p)^2 near 100 %, where what varies is the rest.
 */
static double share_spread(const struct fam *f, const struct trow *t)
{
	double l = t->level * (100 - t->level) / 100;

	return f->shape == SHAPE_SQUARE ? l * l : t->c;
}

/*
 * A SHARE row under the model: each run's variance is e_i = c / n_i (its
 * sampling) + phi * spread (between runs), so each side's mean is
 * weighted by 1 / e_i (a long run says more than a short one, but never
 * more than the spread between runs allows).  Returns the dispersion
 * (weighted squared residuals per df: 1 when the model holds); the
 * weighted difference, each side's variance of its mean and their
 * sampling part go to *fit when not NULL.
 */
struct share_fit {
	double delta, vb, vn, known;
};

static double share_dispersion(const struct fam *f, const struct trow *t, const double *v,
			       size_t nb, size_t nn, double phi, struct share_fit *fit)
{
	double extra = phi * share_spread(f, t), sw[2] = { 0, 0 }, swy[2] = { 0, 0 };
	double sw2s[2] = { 0, 0 }, m[2], ss = 0;
	size_t i;

	for (i = 0; i < nb + nn; i++) {
		double e = t->c * f->inv_n[i] + extra, w = e > 0 ? 1 / e : 0;
		int sd = i >= nb;

		sw[sd] += w;
		swy[sd] += w * v[i];
		sw2s[sd] += w * w * t->c * f->inv_n[i];
	}
	for (i = 0; i < 2; i++)
		m[i] = sw[i] > 0 ? swy[i] / sw[i] : 0;
	for (i = 0; i < nb + nn; i++) {
		double e = t->c * f->inv_n[i] + extra, res = v[i] - m[i >= nb];

		ss += e > 0 ? res * res / e : 0;
	}
	if (fit) {
		fit->delta = m[1] - m[0];
		fit->vb = sw[0] > 0 ? 1 / sw[0] : 0;
		fit->vn = sw[1] > 0 ? 1 / sw[1] : 0;
		fit->known = (sw[0] > 0 ? sw2s[0] / (sw[0] * sw[0]) : 0) +
			     (sw[1] > 0 ? sw2s[1] / (sw[1] * sw[1]) : 0);
	}
	return ss / (double)(nb + nn - 2);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct phi_key {
	const struct diff_row *r;
	const struct trow *t;
};

static int cmp_phi_key(const void *a, const void *b)
{
	const struct phi_key *x = a, *y = b;

	return x->t->level < y->t->level ? 1 : x->t->level > y->t->level ? -1 : 0;
}

/* The mean dispersion of keys[0..use-1] at phi. */
static double phi_dispersion(struct tctx *x, const struct fam *f, const struct phi_key *keys,
			     size_t use, double phi)
{
	size_t nb = x->d->nb, nn = x->d->nn, i;
	double sum = 0;

	for (i = 0; i < use; i++)
		sum += share_dispersion(f, keys[i].t, test_values(keys[i].r, nb + nn, x->buf),
					nb, nn, phi, NULL);
	return sum / (double)use;
}

/*
 * The family's between-run spread phi (a run's variance is its sampling
 * variance + phi * share_spread): the phi at which the mean dispersion of
 * the upper half of its keys by level (where phi can show against the
 * sampling noise) is 1, as it is when the model holds (Pearson's estimator
 * of a common dispersion).  Residuals are within a side, so keys that
 * changed do not inflate it; a disturbed run does, which makes the tests
 * more careful until the run is named and dropped.  keys are left sorted
 * by level, highest first.
 */
static double family_phi(struct tctx *x, size_t fi, struct phi_key *keys, size_t nk)
{
	const struct fam *f = &x->fam[fi];
	double lo = 0, hi = 1e-4;
	size_t use, it;

	qsort(keys, nk, sizeof(*keys), cmp_phi_key);
	if (nk < 3)
		return 0;
	use = nk / 2 >= 3 ? nk / 2 : nk;
	if (phi_dispersion(x, f, keys, use, 0) <= 1)
		return 0;
	while (phi_dispersion(x, f, keys, use, hi) > 1 && hi < 1e6)
		hi *= 4;
	for (it = 0; it < 60; it++) {
		double mid = (lo + hi) / 2;

		if (phi_dispersion(x, f, keys, use, mid) > 1)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * Runs whose values disagree with their side across the keys of a
 * perf-profile.children family: per run, the root mean square over the
 * tested keys of its distance from its side's median in units of the
 * model's noise of that run; a run is named when that is at least
 * DIFF_DISTURBED times the typical run's (the median over all runs) and
 * past 3.  Sides of fewer than 3 runs have no median to stand out from.
 */
static void family_disturbed(struct tctx *x, size_t fi, struct phi_key *keys, size_t nk)
{
	struct diff *d = x->d;
	const struct fam *f = &x->fam[fi];
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i, k, j;
	double *score, *tmp, ref;

	if (nk < 10 || (nb < 3 && nn < 3))
		return;
	score = xcalloc(n, sizeof(*score));
	tmp = xmalloc((n + 1) * sizeof(*tmp));
	for (k = 0; k < nk; k++) {
		const struct trow *t = keys[k].t;
		const double *v = test_values(keys[k].r, n, x->buf);
		double med[2];

		memcpy(tmp, v, nb * sizeof(*v));
		med[0] = median_of(tmp, nb);
		memcpy(tmp, v + nb, nn * sizeof(*v));
		med[1] = median_of(tmp, nn);
		for (i = 0; i < n; i++) {
			double e = t->c * f->inv_n[i] + f->phi * share_spread(f, t);
			double dv = v[i] - med[i >= nb];

			score[i] += e > 0 ? dv * dv / e : 0;
		}
	}
	for (i = 0, j = 0; i < n; i++) {
		score[i] = sqrt(score[i] / (double)nk);
		if ((i < nb ? nb : nn) >= 3)
			tmp[j++] = score[i];
	}
	ref = median_of(tmp, j);
	for (i = 0; i < n; i++) {
		int side = i >= nb;
		size_t run = side ? i - nb : i;
		double ratio = ref > 0 ? score[i] / ref : INFINITY;

		if ((side ? nn : nb) < 3 || score[i] < 1.5 || ratio < DIFF_DISTURBED)
			continue;
		for (j = 0; j < d->nr_disturbed; j++)
			if (d->disturbed[j].side == side && d->disturbed[j].run == run)
				break;
		if (j == d->nr_disturbed) {
			XGROW(d->disturbed, d->alloc_disturbed, d->nr_disturbed);
			d->disturbed[d->nr_disturbed++] = (struct diff_disturbed){ side, run, ratio, nk };
		} else if (ratio > d->disturbed[j].ratio) {
			d->disturbed[j].ratio = ratio;
			d->disturbed[j].keys = nk;
		}
	}
	free(tmp);
	free(score);
}

/*
 * The degrees of freedom of a share's standard error.  Its square is the
 * sampling variance, known from the runs' sample counts, plus the
 * between-run rest, estimated on t->df degrees of freedom; by
 * Satterthwaite, df = V^2 / (rest^2 / t->df), infinite when the sampling
 * explains it all.
 */
static double share_df(const struct trow *t)
{
	double v = t->post * (t->eb + t->en), rest = v - t->known;

	if (!(rest > 1e-12 * v))
		return INFINITY;
	return fmin(v * v / (rest * rest / t->df), 1e8);
}

/*
 * The shape of the family's between-run spread and its phi: of the two,
 * the one under which the keys' dispersions agree best (the least excess
 * scatter of log dispersion in the prior's fit, i.e. the largest prior
 * df).  Measured recordings show either, by workload and load.
 */
static void share_shape(struct tctx *x, size_t fi, struct phi_key *keys, size_t nk, double *s2,
			const double *df, const double *cov)
{
	struct fam *f = &x->fam[fi];
	size_t nb = x->d->nb, nn = x->d->nn, k;
	double best = INFINITY, best_phi = 0;
	int shape, best_shape = SHAPE_SQUARE;

	for (shape = SHAPE_SQUARE; shape <= SHAPE_COUNT; shape++) {
		struct stat_prior pr;

		f->shape = shape;
		f->phi = family_phi(x, fi, keys, nk);
		for (k = 0; k < nk; k++)
			s2[k] = share_dispersion(f, keys[k].t, test_values(keys[k].r, nb + nn, x->buf),
						 nb, nn, f->phi, NULL);
		if (stats__fit_prior(s2, df, nk >= 20 ? cov : NULL, nk, &pr) == 0 && pr.excess < best) {
			best = pr.excess;
			best_shape = shape;
			best_phi = f->phi;
		}
	}
	f->shape = best_shape;
	f->phi = best_phi;
}

/* phi, the dispersions, the prior and the moderated variances of family fi. */
static void family_fit(struct tctx *x, size_t fi)
{
	struct diff *d = x->d;
	struct fam *f = &x->fam[fi];
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i, k, nk = 0;
	double dfree = (double)(n - 2);
	struct phi_key *keys = xmalloc((d->nr + 1) * sizeof(*keys));
	double *s2 = xmalloc((d->nr + 1) * sizeof(*s2)), *df = xmalloc((d->nr + 1) * sizeof(*df));
	double *cov = xmalloc((d->nr + 1) * sizeof(*cov));
	bool *out = xcalloc(d->nr + 1, sizeof(*out));

	for (i = 0; i < d->nr; i++)
		if (x->t[i].tested && x->t[i].fam == fi)
			keys[nk++] = (struct phi_key){ &d->rows[i], &x->t[i] };
	f->m = nk;
	for (k = 0; k < nk; k++) {
		df[k] = dfree;
		cov[k] = log(keys[k].t->level > 1e-3 ? keys[k].t->level : 1e-3);
	}
	if (f->scale == SCALE_SHARE)
		share_shape(x, fi, keys, nk, s2, df, cov);
	if (f->scale == SCALE_SHARE) {
		for (k = 0; k < nk; k++) {
			struct trow *t = (struct trow *)keys[k].t;
			struct share_fit sf;

			t->s2 = share_dispersion(f, t, test_values(keys[k].r, n, x->buf), nb, nn,
						 f->phi, &sf);
			t->delta = sf.delta;
			t->eb = sf.vb;
			t->en = sf.vn;
			t->known = sf.known;
		}
	}
	for (k = 0; k < nk; k++)
		s2[k] = keys[k].t->s2;
	/* limma-trend for shares, whose spread may follow their level */
	f->have_prior = stats__fit_prior(s2, df, f->scale == SCALE_SHARE && nk >= 20 ? cov : NULL,
					 nk, &f->prior) == 0;
	/*
	 * Robustly (in the spirit of limma's robust = TRUE): a key far noisier
	 * than the prior allows (upper tail < 0.01, e.g. timer interrupts that
	 * land where they will) would be shrunk to a noise it does not have.
	 * Such keys keep their own variance and df, and the prior is fitted
	 * again without them.
	 */
	if (f->have_prior) {
		size_t nout = 0;

		for (k = 0; k < nk; k++) {
			double s0 = stats__prior_var(&f->prior, cov[k]);

			out[k] = s2[k] > 0 && s0 > 0 &&
				 stats__f_upper(s2[k] / s0, dfree, f->prior.d0) < 0.01;
			if (out[k]) {
				s2[k] = 0;	/* out of the refit */
				nout++;
			}
		}
		if (nout)
			f->have_prior = stats__fit_prior(s2, df, f->scale == SCALE_SHARE && nk >= 20 ? cov : NULL,
							 nk, &f->prior) == 0;
	}
	for (k = 0; k < nk; k++) {
		struct trow *t = (struct trow *)keys[k].t;
		bool own = !f->have_prior || out[k];

		t->post = own ? t->s2 : stats__posterior_var(&f->prior, t->s2, dfree, cov[k]);
		t->df = dfree + (own ? 0 : f->prior.d0);
		/* never less noisy than the sampling, nor than Poisson counts */
		if (f->scale == SCALE_SHARE && t->post < 1)
			t->post = 1;
		if (t->post < t->vfloor)
			t->post = t->vfloor;
		if (f->scale == SCALE_SHARE)
			t->df = share_df(t);
	}
	if (f->scale == SCALE_SHARE && f->children)
		family_disturbed(x, fi, keys, nk / 2);	/* the upper half by level (sorted so by family_phi), where spread shows */
	free(out);
	free(cov);
	free(df);
	free(s2);
	free(keys);
}

/*
 * The delta the statistic uses: for shares, one sample's worth less (half
 * a sample a side, Yates' continuity correction).  A handful of samples
 * is a count, and the normal curve alone would make 0 against 6 samples
 * p = 0.014 where the exact binomial says 0.031.
 */
static double trow__stat_delta(const struct trow *t, const struct fam *f)
{
	double cc;

	if (f->scale != SCALE_SHARE || !(f->total[0] > 0) || !(f->total[1] > 0))
		return t->delta;
	cc = 50 * (1 / f->total[0] + 1 / f->total[1]);
	return fabs(t->delta) <= cc ? 0 : t->delta - copysign(cc, t->delta);
}

/* Standard error of a tested row's delta. */
static double trow__se(const struct trow *t, size_t nb, size_t nn)
{
	return sqrt(t->post * (t->eb + t->en));
}

/*
 * The row's detectable change (80 % power at its BH threshold) in the
 * row's change unit, and the runs a side that would bring it to the
 * effect floor at this run length.
 */
static void trow__power(const struct trow *t, const struct fam *fams, struct diff_row *r,
			const struct diff *d)
{
	const struct fam *f = &fams[t->fam];
	double m = (double)f->m, pstar = d->o.alpha * (double)(f->rejected + 1) / m;
	double se = trow__se(t, d->nb, d->nn), mde, per_run, target;

	if (pstar > d->o.alpha)
		pstar = d->o.alpha;
	mde = (stats__t_q2(pstar, t->df) + stats__t_q2(0.4, t->df)) * se;
	per_run = t->post * ((double)d->nb * t->eb + (double)d->nn * t->en);
	if (f->scale == SCALE_LOG) {
		r->mde = 100 * expm1(mde);
		target = log1p(d->o.min_pct / 100);
	} else if (r->absolute) {
		r->mde = mde;
		target = d->o.min_points;
	} else {
		/* a relative key kept in its unit (negative values): % of the base */
		double lvl = fabs(r->base.mean) > 0 ? fabs(r->base.mean) : fabs(r->cur.mean);

		r->mde = lvl > 0 ? 100 * mde / lvl : INFINITY;
		target = lvl * d->o.min_pct / 100;
	}
	{
		/* normal quantiles: the df of many runs */
		double z = stats__t_q2(pstar, INFINITY) + stats__t_q2(0.4, INFINITY);
		double k = target > 0 ? ceil(z * z * per_run / (target * target)) : INFINITY;

		r->runs_needed = k < 2 ? 2 : k > 1e6 ? 1e6 : k;
	}
}

static bool diff__is_ambient(const struct diff_opts *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->nr_ambient; i++)
		if (!fnmatch(o->ambient[i], key, 0))
			return true;
	return !o->no_ambient_defaults && diff__ambient_key(key);
}

bool diff__ambient_key(const char *key)
{
	if (!strncmp(key, "meminfo.", 8))
		return true;
	return !strncmp(key, "proc-vmstat.", 12) && mmstate__is_level(key + 12);
}

/* nsamp: per run (base then new), the samples behind the row's event, or NULL. */
static void classify(struct tctx *x, struct diff_row *r, const uint32_t *present,
		     bool base_has_pp, double *scratch, const double *nsamp)
{
	struct diff *d = x->d;
	const struct diff_opts *o = &d->o;
	bool pp = !strncmp(r->key, PP, sizeof(PP) - 1);
	double ratio, tdelta, vb = 0, vc = 0;
	size_t nb = d->nb, nn = d->nn;
	const double *tv;

	stats__summary(r->v, nb, scratch, &r->base);
	stats__summary(r->v + nb, nn, scratch, &r->cur);
	r->absolute = diff__absolute_key(r->key);
	r->delta = r->cur.mean - r->base.mean;
	r->rel = 100.0 * r->delta / (r->base.mean == 0 ? 1e-100 : r->base.mean);
	r->change = r->absolute ? r->delta : r->rel;
	r->p = r->q = r->mde = r->runs_needed = NAN;
	if (!present[0])
		r->flags |= DIFF_NEW;
	if (!present[1])
		r->flags |= DIFF_GONE;
	if (diff__is_ambient(o, r->key))
		r->flags |= DIFF_AMBIENT;
	if (r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE))
		return;		/* not comparable: no verdict, not in any family's FDR */

	/* the robot: >= 3 runs on a side, in the base, ranges separate, not tiny */
	if ((nb >= 3 || nn >= 3) && (present[0] || (pp && base_has_pp)) &&
	    stats__robot_changed(r->v, nb, r->v + nb, nn, scratch, &ratio) &&
	    (pp || (ratio > 1.01 && (ratio > 1.05 || robot_perf_metric(r->key)))))
		r->flags |= DIFF_ROBOT;

	tv = test_values(r, nb + nn, x->buf);
	{
		double sb = 0, sc = 0;
		size_t i;

		for (i = 0; i < nb; i++)
			sb += tv[i];
		for (i = 0; i < nn; i++)
			sc += tv[nb + i];
		tdelta = sc / (double)nn - sb / (double)nb;
	}
	if (d->novar) {
		bool big = r->absolute ? fabs(tdelta) >= o->novar_points
				       : fabs(r->rel) >= o->novar_pct;

		if (pp && nsamp) {
			/* the share under "no change": pooled over both sides */
			double pooled = (r->base.mean * (double)nb + r->cur.mean * (double)nn) /
					(double)(nb + nn);

			vb = sampling_var(pooled, nsamp, nb);
			vc = sampling_var(pooled, nsamp + nb, nn);
		}
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
	tctx__prep(x, r, nsamp);
}

/* The median of the rows' detectable changes and runs needed, of the first children family. */
static void runs_advice(struct tctx *x)
{
	struct diff *d = x->d;
	size_t fi, i, k;

	for (fi = 0; fi < x->nr_fam; fi++) {
		double *mde, *runs;

		if (!x->fam[fi].children || !x->fam[fi].m)
			continue;
		mde = xmalloc(x->fam[fi].m * sizeof(*mde));
		runs = xmalloc(x->fam[fi].m * sizeof(*runs));
		for (i = 0, k = 0; i < d->nr; i++)
			if (x->t[i].tested && x->t[i].fam == fi) {
				mde[k] = d->rows[i].mde;
				runs[k++] = d->rows[i].runs_needed;
			}
		d->advice.rows = k;
		d->advice.mde = median_of(mde, k);
		d->advice.runs = median_of(runs, k);
		d->advice.family = xstrdup(x->fam[fi].name);
		free(mde);
		free(runs);
		return;
	}
}

struct span {
	const char *s;
	size_t len;
};

static bool row_span_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct diff *d = ctx;
	const struct span *k = key;

	return strlen(d->rows[row].key) == k->len && !memcmp(d->rows[row].key, k->s, k->len);
}

/*
 * Self and calltrace rows stand on their function's children row: a
 * function's self share, or a chain ending in it, cannot move without its
 * children share moving too (but for a change elsewhere below it that
 * cancels it out exactly).  So the children rows are the family that the
 * false discovery rate is spent on, and a self or calltrace row is
 * significant only where the children row of its function (a chain's
 * leaf: the shortest prefix of its frames that is a function) is: its q
 * becomes the larger of the two.  An A/A pair then flags a profile row
 * only when it flags a children row, at most alpha of the time, instead
 * of nearly three times that over three families.
 */
static void gate_on_children(struct tctx *x)
{
	struct diff *d = x->d;
	struct hashidx idx;
	char *buf = NULL;
	size_t i, alloc = 0;

	hashidx__init(&idx);
	for (i = 0; i < d->nr; i++)
		if (x->t[i].tested && x->fam[x->t[i].fam].scale == SCALE_SHARE &&
		    kind_rank(d->rows[i].key) == 0)
			hashidx__insert(&idx, hash__bytes(d->rows[i].key, strlen(d->rows[i].key)),
					(uint32_t)i);
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		const char *sym = diff__key_symbol(r->key), *ev, *dot;
		size_t len, need;
		uint32_t ch = HASHIDX_NONE;

		if (!x->t[i].tested || x->fam[x->t[i].fam].scale != SCALE_SHARE ||
		    kind_rank(r->key) == 0 || !sym)
			continue;
		ev = pp_event(r->key, &len);
		need = sizeof(PP) + 9 + len + strlen(sym) + 2;
		if (need > alloc) {
			alloc = 2 * need;
			buf = xrealloc(buf, alloc);
		}
		/* self: the same function; calltrace: the shortest prefix that is one */
		dot = kind_rank(r->key) == 1 ? sym + strlen(sym) : strchr(sym, '.');
		for (;;) {
			struct span k;

			k.len = (size_t)snprintf(buf, alloc, "%schildren.%.*s.%.*s", PP, (int)len, ev,
						 (int)(dot ? (size_t)(dot - sym) : strlen(sym)), sym);
			k.s = buf;
			ch = hashidx__find(&idx, hash__bytes(buf, k.len), row_span_eq, d, &k);
			if (ch != HASHIDX_NONE || !dot || !*dot)
				break;
			dot = strchr(dot + 1, '.');
		}
		if (ch == HASHIDX_NONE)
			r->q = fmax(r->q, 1);
		else
			r->q = fmax(r->q, d->rows[ch].q);
	}
	free(buf);
	hashidx__release(&idx);
}

/* Tests, BH per family, verdicts and detectable changes of the rows classify prepared. */
static void tctx__test(struct tctx *x)
{
	struct diff *d = x->d;
	size_t nb = d->nb, nn = d->nn, fi, i, k;
	double *p = xmalloc((d->nr + 1) * sizeof(*p)), *q = xmalloc((d->nr + 1) * sizeof(*q));
	double *w = xmalloc((d->nr + 1) * sizeof(*w));
	size_t *idx = xmalloc((d->nr + 1) * sizeof(*idx));

	for (fi = 0; fi < x->nr_fam; fi++)
		family_fit(x, fi);
	for (i = 0; i < d->nr; i++) {
		struct trow *t = &x->t[i];
		struct diff_row *r = &d->rows[i];
		double se;

		if (!t->tested)
			continue;
		se = trow__se(t, nb, nn);
		r->p = se > 0 ? stats__t_p2(trow__stat_delta(t, &x->fam[t->fam]) / se, t->df)
			      : t->delta == 0 ? 1 : 0;
		r->flags |= DIFF_TESTED;
		d->nr_tested++;
	}
	for (fi = 0; fi < x->nr_fam; fi++) {
		struct fam *f = &x->fam[fi];
		double wsum = 0;

		for (i = 0, k = 0; i < d->nr; i++)
			if (x->t[i].tested && x->t[i].fam == fi) {
				idx[k] = i;
				w[k] = f->scale == SCALE_SHARE ? sqrt(fmin(x->t[i].level, 10)) : 1;
				wsum += w[k];
				p[k++] = d->rows[i].p;
			}
		/* weighted BH: p / w, the weights scaled to a mean of 1 (see Verdicts) */
		for (i = 0; i < k; i++)
			p[i] = fmin(1, p[i] * wsum / (double)k / w[i]);
		stats__bh(p, k, q);
		for (i = 0; i < k; i++)
			d->rows[idx[i]].q = q[i];
	}
	gate_on_children(x);
	for (i = 0; i < d->nr; i++)
		if (x->t[i].tested && d->rows[i].q < d->o.alpha)
			x->fam[x->t[i].fam].rejected++;
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		const struct trow *t = &x->t[i];
		bool big;

		if (!t->tested)
			continue;
		big = r->absolute ? fabs(r->delta) >= d->o.min_points : fabs(r->rel) >= d->o.min_pct;
		trow__power(t, x->fam, r, d);
		if (r->q < d->o.alpha)
			r->verdict = !big ? DIFF_SMALL : r->delta > 0 ? DIFF_UP : DIFF_DOWN;
		else if (r->mde > (r->absolute ? d->o.min_points : d->o.min_pct))
			r->verdict = DIFF_CANT_TELL;
	}
	runs_advice(x);
	d->families = xcalloc(x->nr_fam + 1, sizeof(*d->families));
	for (fi = 0; fi < x->nr_fam; fi++) {
		const struct fam *f = &x->fam[fi];

		d->families[fi] = (struct diff_family){ xstrdup(f->name), f->phi,
							 f->have_prior ? f->prior.d0 : 0,
							 f->have_prior ? f->prior.s0 : NAN, f->m, f->rejected };
	}
	d->nr_families = x->nr_fam;
	free(idx);
	free(w);
	free(q);
	free(p);
}

int diff__compute(struct diff *d, const struct diff_run *base, size_t nb,
		  const struct diff_run *cur, size_t nn, const struct diff_opts *o)
{
	struct builder b;
	struct tctx x;
	size_t i, n = nb + nn;
	double *scratch, *nsamp;
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
	memset(&x, 0, sizeof(x));
	x.d = d;
	x.t = xcalloc(d->nr + 1, sizeof(*x.t));
	x.buf = xmalloc((n + 1) * sizeof(*x.buf));
	scratch = xmalloc((n + 1) * sizeof(*scratch));
	nsamp = xmalloc((n + 1) * sizeof(*nsamp));
	for (i = 0; i < d->nr; i++) {
		d->rows[i].v = d->values + i * n;
		classify(&x, &d->rows[i], &b.present[2 * i], b.base_has_pp, scratch,
			 row_samples(&d->o, d->rows[i].key, base, nb, cur, nn, nsamp, &ev, &ev_len, &known));
	}
	free(nsamp);
	free(scratch);
	free(b.present);
	free(b.stamp);
	if (!d->novar)
		tctx__test(&x);
	for (i = 0; i < x.nr_fam; i++) {
		free(x.fam[i].name);
		free(x.fam[i].inv_n);
	}
	free(x.fam);
	free(x.t);
	free(x.buf);
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
	free(d->disturbed);
	free(d->advice.family);
	for (i = 0; i < d->nr_families; i++)
		free(d->families[i].name);
	free(d->families);
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
	case DIFF_CANT_TELL:
		return "can't tell";
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
			    (sel == DIFF_SELECT_DEFAULT && diff_row__changed(r) &&
			     !(r->flags & DIFF_AMBIENT)) ||
			    (sel == DIFF_SELECT_AMBIENT && diff_row__changed(r) &&
			     (r->flags & DIFF_AMBIENT));

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
