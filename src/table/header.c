/*
 * header: what `mmprof diff` prints above its rows — the lkp table's
 * header (the sides' files, events, sampling, runs, durations, kernel and
 * host, warnings, disturbed and dropped runs, what was not compared, the
 * robot's column heads) and the JSON output's per-side members.  Written
 * into an outbuf (colour as the sink says); only the command prints.
 * Event names, host, kernel and file names are the files' text: through
 * the text rule (escape.h), in JSON through its escaper.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/diffside.h"
#include "mmprof/xalloc.h"

static void diff_side__sampling(const struct diff_side *s, char *buf, size_t size)
{
	const struct profile *p = s->profiles[0];

	if (!p->nr_events) {
		snprintf(buf, size, "-");
		return;
	}
	/* perf script text (mmprof import -) does not say how it was sampled */
	if (!p->events[0].sample) {
		snprintf(buf, size, "unknown");
		return;
	}
	snprintf(buf, size, p->events[0].freq ? "%llu Hz" : "period %llu",
		 (unsigned long long)p->events[0].sample);
}

static void diff_side__durations(const struct diff_side *s, char *buf, size_t size)
{
	double sum, lo, hi;
	size_t n = profile__run_walls((const struct profile *const *)s->profiles, s->nr, &sum, &lo, &hi);

	if (n == 1)
		snprintf(buf, size, "%.2f s", sum);
	else
		snprintf(buf, size, "%.2f s mean (%.2f..%.2f)", sum / (double)n, lo, hi);
}

/* Distinct values of a meta key over a side's files. */
static void diff_side__meta(const struct diff_side *s, const char *key, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < s->nr; i++) {
		const char *v = profile__meta(s->profiles[i], key);

		if (!v)
			v = "?";
		if (len && strstr(buf, v))
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? ", " : "", v);
		if (len >= size)
			return;
	}
}

/* A side's lost samples over its runs ("120 (1.4%)"); false when none were lost. */
static bool diff_side__lost_text(const struct diff_side *s, char *buf, size_t size)
{
	uint64_t kept, lost = diff_side__lost(s, &kept);

	if (!lost) {
		snprintf(buf, size, "0");
		return false;
	}
	snprintf(buf, size, "%llu (%.2g%%)", (unsigned long long)lost,
		 100.0 * (double)lost / (double)(lost + kept));
	return true;
}

/*
 * The header's lines on disturbed and dropped runs.  d[k] compares s[0]
 * with s[k + 1]: the base's disturbed runs come from the first diff (each
 * diff fits its families with the base's runs, and names them alike).
 */
static void header_runs(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
			const struct diff *d)
{
	size_t i, j, k;
	char name[512];

	for (k = 0; k + 1 < nr_sides; k++)
		for (i = 0; i < d[k].nr_disturbed; i++) {
			const struct diff_disturbed *x = &d[k].disturbed[i];
			const struct diff_side *xs = x->side ? &s[k + 1] : &s[0];

			if (!x->side && k)
				continue;
			diff_side__run_name(xs, xs->orig[x->run], name, sizeof(name));
			outbuf__printf(b, "disturbed: %s run %zu (", xs->name, xs->orig[x->run]);
			outbuf__text_str(b, name);
			outbuf__printf(b, ") stands out %.1fx the typical run over %zu keys; "
					  "--drop-run %s:%zu leaves it out\n", x->ratio, x->keys,
				       xs->name, xs->orig[x->run]);
		}
	for (i = 0; i < nr_sides; i++) {
		if (!s[i].nr_dropped)
			continue;
		outbuf__printf(b, "dropped (--drop-run): %s run%s", s[i].name, s[i].nr_dropped == 1 ? "" : "s");
		/* the runs not in orig[] */
		for (j = 0; j < s[i].nr_runs + s[i].nr_dropped; j++) {
			size_t r;

			for (r = 0; r < s[i].nr_runs && s[i].orig[r] != j; r++)
				;
			if (r == s[i].nr_runs) {
				diff_side__run_name(&s[i], j, name, sizeof(name));
				outbuf__printf(b, " %zu (", j);
				outbuf__text_str(b, name);
				outbuf__putc(b, ')');
			}
		}
		outbuf__printf(b, "\n");
	}
}

/* "what" and one column per side: "%-34s " each but the last, which ends the line. */
static void header_line(struct outbuf *b, const char *what, char (*col)[256], size_t nr)
{
	struct outbuf safe = { 0 };
	size_t i;

	outbuf__printf(b, "%-10s", what);
	for (i = 0; i < nr; i++) {
		outbuf__printf(b, i + 1 < nr ? " %-34s" : " %s", outbuf__text_safe(&safe, col[i]));
		outbuf__release(&safe);
	}
	outbuf__printf(b, "\n");
}

/*
 * A side's label for the robot's column heads: its first file's name
 * without directory and ".data", "+N" when N more files are pooled.
 */
static void diff_side__label(const struct diff_side *s, char *buf, size_t size)
{
	const char *base = strrchr(s->paths[0], '/');
	size_t len;

	base = base ? base + 1 : s->paths[0];
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".data"))
		len -= 5;
	if (s->nr > 1)
		snprintf(buf, size, "%.*s+%zu", (int)len, base, s->nr - 1);
	else
		snprintf(buf, size, "%.*s", (int)len, base);
}

/*
 * lkp-tests lib/compare.rb show_group_header's last two lines: each
 * side's label right-aligned over its columns (16 = value + stddev, 27 =
 * change + value + stddev, once per compared side), cut to that width,
 * and the ruler, trailing blanks included.
 */
static void robot_column_heads(struct outbuf *b, const struct diff_side *s, size_t nr_sides)
{
	struct outbuf safe = { 0 };
	char label[256];
	size_t k;

	/* cut after escaping: a cut \xNN shows a backslash, never a raw byte */
	for (k = 0; k < nr_sides; k++) {
		diff_side__label(&s[k], label, sizeof(label));
		outbuf__printf(b, k ? "%27.27s " : "%16.16s ", outbuf__text_safe(&safe, label));
		outbuf__release(&safe);
	}
	/*
	 * Plain, coloured or not: in the table red is a rise and blue a fall
	 * (format.c), so a blue rule over a compared side read as a fall.
	 */
	outbuf__printf(b, "\n---------------- ");
	for (k = 1; k < nr_sides; k++)
		outbuf__printf(b, "--------------------------- ");
	outbuf__printf(b, "\n");
}

/* --force's warning of compared side k (d: its diff). */
static void forced_warning(struct outbuf *b, const struct diff_side *s, size_t nr_sides, size_t k,
			   const struct diff *d)
{
	outbuf__printf(b, "WARNING: the sides used different sampling events (--force): "
			  "perf-profile rows compare unlike things");
	if (nr_sides > 2)
		outbuf__printf(b, " (base and %s)", s[k].name);
	if (d->o.alias_from) {
		outbuf__printf(b, "; %s's ", s[k].name);
		outbuf__text_str(b, d->o.alias_from);
		outbuf__puts(b, " rows are read as ");
		outbuf__text_str(b, d->o.alias_to);
		outbuf__puts(b, "'s");
	}
	outbuf__printf(b, "\n");
}

/* What d (base against s[k]) left out: address buckets, families measured on one side only. */
static void header_not_compared(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
				size_t k, const struct diff *d)
{
	size_t i, j;

	if (d->nr_address && (k == 1 || d->nr_address != d[-1].nr_address))
		outbuf__printf(b, "not compared%s%s: %zu tracepoint key%s bucketed by address (ASLR moves "
				  "the buckets every run; --all lists them as [address])\n",
			       nr_sides > 2 ? " with " : "", nr_sides > 2 ? s[k].name : "",
			       d->nr_address, d->nr_address == 1 ? "" : "s");
	for (i = 0; i < 2; i++) {
		if (!d->nr_one_side[i])
			continue;
		outbuf__printf(b, "not compared: measured in %s only", i ? s[k].name : s[0].name);
		if (nr_sides > 2)
			outbuf__printf(b, " (base against %s)", s[k].name);
		outbuf__printf(b, " (absent there is not measured, not gone; --all lists them as "
				  "[one-side]):");
		for (j = 0; j < d->nr_one_side[i]; j++) {
			outbuf__printf(b, "%s ", j ? "," : "");
			outbuf__text_str(b, d->one_side[i][j]);
		}
		outbuf__printf(b, "\n");
	}
}

/*
 * What the perf-profile rows are shares of: the samples with a name, as
 * the robot's keys leave the others out (perf report -U).  Said when a
 * side has 1 % or more without a name, where the shares and report's
 * (of every sample) part; a stripped program's code is all unnamed, and
 * the shares are then of what is left.
 */
static void header_named(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
			 char (*col)[256])
{
	double named, all, worst = 0;
	size_t k;

	for (k = 0; k < nr_sides; k++) {
		if (!diff_side__named(&s[k], &named, &all)) {
			snprintf(col[k], sizeof(col[k]), "-");
			continue;
		}
		snprintf(col[k], sizeof(col[k]), "%.0f%% of %.0f samples", 100 * named / all, all);
		worst = fmax(worst, 1 - named / all);
	}
	if (!(worst >= 0.01))
		return;
	header_line(b, "named", col, nr_sides);
	outbuf__printf(b, "perf-profile rows are shares of the samples with a name, as the robot's keys "
			  "(perf report -U): up to %.0f%% of a side's samples have none and are left out "
			  "(report counts them; diff -g's call chains are shares of every sample)\n",
		       100 * worst);
}

void diff_sides__header_top(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
			const struct diff *d, const bool *forced)
{
	char (*col)[256] = xcalloc(nr_sides, sizeof(*col));
	bool any_lost = false;
	size_t i, k;

	outbuf__printf(b, "=========================================================================================\n");
	for (i = 0; i < nr_sides; i++) {
		const struct diff_side *x = &s[i];
		size_t j;

		outbuf__printf(b, "%s:", x->name);
		for (j = 0; j < x->nr; j++) {
			outbuf__putc(b, ' ');
			outbuf__text_str(b, x->paths[j]);
		}
		outbuf__printf(b, "\n");
	}
	outbuf__printf(b, "\n");
	for (k = 0; k < nr_sides; k++)
		snprintf(col[k], sizeof(col[k]), "%s", s[k].name);
	header_line(b, "", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		diff_side__events(&s[k], false, col[k], sizeof(col[k]));
	header_line(b, "events", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		diff_side__sampling(&s[k], col[k], sizeof(col[k]));
	header_line(b, "sampling", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		snprintf(col[k], sizeof(col[k]), "%zu", s[k].nr_runs);
	header_line(b, "runs", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		profile__run_statuses((const struct profile *const *)s[k].profiles, s[k].nr, col[k],
				      sizeof(col[k]));
	header_line(b, "status", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		diff_side__durations(&s[k], col[k], sizeof(col[k]));
	header_line(b, "duration", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		diff_side__meta(&s[k], "kernel_release", col[k], sizeof(col[k]));
	header_line(b, "kernel", col, nr_sides);
	for (k = 0; k < nr_sides; k++)
		diff_side__meta(&s[k], "hostname", col[k], sizeof(col[k]));
	header_line(b, "host", col, nr_sides);
	header_named(b, s, nr_sides, col);
	for (k = 0; k < nr_sides; k++)
		any_lost |= diff_side__lost_text(&s[k], col[k], sizeof(col[k]));
	if (any_lost) {
		header_line(b, "lost", col, nr_sides);
		outbuf__printf(b, "WARNING: samples were lost (the ring buffer overflowed): the profile "
				  "misses what ran while it was full; record again with a lower -F or a "
				  "larger -m\n");
	}
	free(col);
	for (k = 1; k < nr_sides; k++)
		if (forced[k - 1])
			forced_warning(b, s, nr_sides, k, &d[k - 1]);
	for (k = 1; k < nr_sides; k++) {
		char pre[64];

		snprintf(pre, sizeof(pre), "%s: ", s[k].name);
		diff__describe_score(b, &d[k - 1], nr_sides > 2 ? pre : NULL);
	}
	for (k = 1; k < nr_sides; k++) {
		if (nr_sides > 2)
			outbuf__printf(b, "%s%s against base: ", k > 1 ? "\n" : "", s[k].name);
		diff__describe(b, &d[k - 1]);
	}
	outbuf__printf(b, "\n");
	diff__skid_notes(b, d, nr_sides - 1);
	header_runs(b, s, nr_sides, d);
	for (k = 1; k < nr_sides; k++)
		header_not_compared(b, s, nr_sides, k, &d[k - 1]);
	outbuf__printf(b, "\n");
}

void diff_sides__column_heads(struct outbuf *b, const struct diff_side *s, size_t nr_sides)
{
	robot_column_heads(b, s, nr_sides);
}

void diff_sides__header(struct outbuf *b, const struct diff_side *s, size_t nr_sides,
			const struct diff *d, const bool *forced)
{
	diff_sides__header_top(b, s, nr_sides, d, forced);
	robot_column_heads(b, s, nr_sides);
}

/* "status": every run's, in file and run order (before --drop-run), and how many failed. */
static void json_statuses(struct jsonw *w, const struct diff_side *s)
{
	size_t i, failed = 0;
	uint32_t r;
	char what[64];

	jsonw__array(w, "status", JSONW_INLINE);
	for (i = 0; i < s->nr; i++)
		for (r = 0; r < s->profiles[i]->nr_runs; r++) {
			failed += profile__run_status(s->profiles[i], r, what, sizeof(what));
			jsonw__str(w, NULL, what);
		}
	jsonw__end(w);
	jsonw__uint(w, "runs_failed", failed);
}

void diff_side__json(struct jsonw *w, const char *key, const struct diff_side *s,
		     const char *events)
{
	uint64_t kept, lost = diff_side__lost(s, &kept);
	double named, all;

	jsonw__object(w, key, JSONW_INLINE);
	jsonw__uint(w, "files", s->nr);
	jsonw__uint(w, "runs", s->nr_runs);
	jsonw__str(w, "events", events);	/* the file's names: a quote in one must not end the string */
	jsonw__uint(w, "samples", kept);
	jsonw__uint(w, "lost", lost);
	/* the perf-profile shares' denominator: the first event's samples with a name */
	if (diff_side__named(s, &named, &all)) {
		jsonw__fixed(w, "named_samples", named, 0);
		jsonw__fixed(w, "unnamed_fraction", 1 - named / all, 4);
	}
	json_statuses(w, s);
	jsonw__end(w);
}
