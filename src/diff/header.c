/*
 * header: what `mmprof diff` prints above its rows — the lkp table's
 * header (the sides' files, events, sampling, runs, durations, kernel and
 * host, warnings, disturbed and dropped runs, what was not compared, the
 * robot's column heads) and the JSON output's per-side members.  Written
 * into an outbuf (colour as the sink says); only the command prints.
 * Event names, host, kernel and file names are the files' text: through
 * the text rule (escape.h), in JSON through its escaper.
 */
#include <stdio.h>
#include <string.h>

#include "mmprof/diffside.h"

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

/* The header's lines on disturbed and dropped runs. */
static void header_runs(struct outbuf *b, const struct diff_side s[2], const struct diff *d)
{
	size_t i, j;
	char name[512];

	for (i = 0; i < d->nr_disturbed; i++) {
		const struct diff_disturbed *x = &d->disturbed[i];

		diff_side__run_name(&s[x->side], s[x->side].orig[x->run], name, sizeof(name));
		outbuf__printf(b, "disturbed: %s run %zu (", s[x->side].name, s[x->side].orig[x->run]);
		outbuf__text_str(b, name);
		outbuf__printf(b, ") stands out %.1fx the typical run over %zu keys; "
				  "--drop-run %s:%zu leaves it out\n", x->ratio, x->keys,
			       s[x->side].name, s[x->side].orig[x->run]);
	}
	for (i = 0; i < 2; i++) {
		if (!s[i].nr_dropped)
			continue;
		outbuf__printf(b, "dropped (--drop-run): %s run%s", s[i].name, s[i].nr_dropped == 1 ? "" : "s");
		/* the runs not in orig[] */
		for (j = 0; j < s[i].nr_runs + s[i].nr_dropped; j++) {
			size_t k;

			for (k = 0; k < s[i].nr_runs && s[i].orig[k] != j; k++)
				;
			if (k == s[i].nr_runs) {
				diff_side__run_name(&s[i], j, name, sizeof(name));
				outbuf__printf(b, " %zu (", j);
				outbuf__text_str(b, name);
				outbuf__putc(b, ')');
			}
		}
		outbuf__printf(b, "\n");
	}
}

static void header_line(struct outbuf *b, const char *what, const char *l, const char *r)
{
	struct outbuf sl = { 0 }, sr = { 0 };

	outbuf__printf(b, "%-10s %-34s %s\n", what, outbuf__text_safe(&sl, l), outbuf__text_safe(&sr, r));
	outbuf__release(&sl);
	outbuf__release(&sr);
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
 * change + value + stddev), cut to that width, and the ruler, trailing
 * blanks included.
 */
static void robot_column_heads(struct outbuf *b, const struct diff_side s[2])
{
	char l[256], r[256];

	struct outbuf sl = { 0 }, sr = { 0 };

	diff_side__label(&s[0], l, sizeof(l));
	diff_side__label(&s[1], r, sizeof(r));
	/* cut after escaping: a cut \xNN shows a backslash, never a raw byte */
	outbuf__printf(b, "%16.16s %27.27s \n", outbuf__text_safe(&sl, l), outbuf__text_safe(&sr, r));
	outbuf__release(&sl);
	outbuf__release(&sr);
	/*
	 * Plain, coloured or not: in the table red is a rise and blue a fall
	 * (format.c), so a blue rule over the new side read as a fall.
	 */
	outbuf__printf(b, "---------------- --------------------------- \n");
}

void diff_sides__header(struct outbuf *b, const struct diff_side s[2], const struct diff *d,
			bool forced)
{
	char l[256], r[256];
	size_t i;

	outbuf__printf(b, "=========================================================================================\n");
	for (i = 0; i < 2; i++) {
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
	header_line(b, "", "base", "new");
	diff_side__events(&s[0], false, l, sizeof(l));
	diff_side__events(&s[1], false, r, sizeof(r));
	header_line(b, "events", l, r);
	diff_side__sampling(&s[0], l, sizeof(l));
	diff_side__sampling(&s[1], r, sizeof(r));
	header_line(b, "sampling", l, r);
	snprintf(l, sizeof(l), "%zu", s[0].nr_runs);
	snprintf(r, sizeof(r), "%zu", s[1].nr_runs);
	header_line(b, "runs", l, r);
	profile__run_statuses((const struct profile *const *)s[0].profiles, s[0].nr, l, sizeof(l));
	profile__run_statuses((const struct profile *const *)s[1].profiles, s[1].nr, r, sizeof(r));
	header_line(b, "status", l, r);
	diff_side__durations(&s[0], l, sizeof(l));
	diff_side__durations(&s[1], r, sizeof(r));
	header_line(b, "duration", l, r);
	diff_side__meta(&s[0], "kernel_release", l, sizeof(l));
	diff_side__meta(&s[1], "kernel_release", r, sizeof(r));
	header_line(b, "kernel", l, r);
	diff_side__meta(&s[0], "hostname", l, sizeof(l));
	diff_side__meta(&s[1], "hostname", r, sizeof(r));
	header_line(b, "host", l, r);
	if (diff_side__lost_text(&s[0], l, sizeof(l)) | diff_side__lost_text(&s[1], r, sizeof(r))) {
		header_line(b, "lost", l, r);
		outbuf__printf(b, "WARNING: samples were lost (the ring buffer overflowed): the profile "
				  "misses what ran while it was full; record again with a lower -F or a "
				  "larger -m\n");
	}
	if (forced && d->o.alias_from) {
		outbuf__printf(b, "WARNING: the sides used different sampling events (--force): "
				  "perf-profile rows compare unlike things; new's ");
		outbuf__text_str(b, d->o.alias_from);
		outbuf__puts(b, " rows are read as ");
		outbuf__text_str(b, d->o.alias_to);
		outbuf__puts(b, "'s\n");
	} else if (forced)
		outbuf__printf(b, "WARNING: the sides used different sampling events (--force): "
				  "perf-profile rows compare unlike things\n");
	diff__describe(b, d);
	outbuf__printf(b, "\n");
	header_runs(b, s, d);
	if (d->nr_address)
		outbuf__printf(b, "not compared: %zu tracepoint key%s bucketed by address (ASLR moves the "
				  "buckets every run; --all lists them as [address])\n",
			       d->nr_address, d->nr_address == 1 ? "" : "s");
	for (i = 0; i < 2; i++) {
		size_t j;

		if (!d->nr_one_side[i])
			continue;
		outbuf__printf(b, "not compared: measured in %s only (absent there is not measured, not "
				  "gone; --all lists them as [one-side]):", s[i].name);
		for (j = 0; j < d->nr_one_side[i]; j++) {
			outbuf__printf(b, "%s ", j ? "," : "");
			outbuf__text_str(b, d->one_side[i][j]);
		}
		outbuf__printf(b, "\n");
	}
	outbuf__printf(b, "\n");
	robot_column_heads(b, s);
}

/* "status": every run's, in file and run order (before --drop-run), and how many failed. */
static void json_statuses(struct outbuf *b, const struct diff_side *s)
{
	size_t i, failed = 0;
	uint32_t r;
	char what[64];

	outbuf__puts(b, ", \"status\": [");
	for (i = 0; i < s->nr; i++)
		for (r = 0; r < s->profiles[i]->nr_runs; r++) {
			failed += run__status(&s->profiles[i]->runs[r], what, sizeof(what));
			outbuf__printf(b, "%s\"%s\"", i || r ? ", " : "", what);
		}
	outbuf__printf(b, "], \"runs_failed\": %zu", failed);
}

void diff_sides__json_head(struct outbuf *b, const struct diff_side s[2], const char *eb,
			   const char *en)
{
	uint64_t kept[2], lost[2];

	lost[0] = diff_side__lost(&s[0], &kept[0]);
	lost[1] = diff_side__lost(&s[1], &kept[1]);
	outbuf__printf(b, "{\"base\": {\"files\": %zu, \"runs\": %zu, \"events\": ", s[0].nr,
		       s[0].nr_runs);
	outbuf__json_str(b, eb);	/* the file's names: a quote in one must not end the string */
	outbuf__printf(b, ", \"samples\": %llu, \"lost\": %llu", (unsigned long long)kept[0],
		       (unsigned long long)lost[0]);
	json_statuses(b, &s[0]);
	outbuf__printf(b, "}, \"new\": {\"files\": %zu, \"runs\": %zu, \"events\": ", s[1].nr,
		       s[1].nr_runs);
	outbuf__json_str(b, en);
	outbuf__printf(b, ", \"samples\": %llu, \"lost\": %llu", (unsigned long long)kept[1],
		       (unsigned long long)lost[1]);
	json_statuses(b, &s[1]);
	outbuf__puts(b, "}, \"diff\": ");
}
