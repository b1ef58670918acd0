/*
 * cmd-diff: `mmprof diff [options] BASE NEW` or `B1 B2 ... -- N1 N2 ...`.
 *
 * Loads the files, turns every run into its flat keys (keys.h), compares
 * the two pooled sides (diff.h), prints the robot's table (or JSON, CSV,
 * markdown), the changed call chains on request, and evaluates CI gates.
 * Exit: 0, 1 when a gate tripped, 2 on any error.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chains.h"
#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/diff.h"
#include "mmprof/flame.h"
#include "mmprof/gate.h"
#include "mmprof/keys.h"
#include "mmprof/options.h"
#include "mmprof/report.h"
#include "mmprof/term.h"
#include "mmprof/xalloc.h"

struct diff_cmd {
	const char *format;
	int all, robot, callchains, fail_on_any, force, limit, allow_unmatched, allow_failed;
	struct strlist fail_on;
	struct strlist drop_run;	/* "base:N" / "new:N" */
	struct strlist ambient;		/* globs of keys that are the machine's state */
	int no_ambient;
	const char *gate_file;
	const char *html;
	int color;		/* -1: on a terminal, unless NO_COLOR */
	struct diff_opts o;
};

static const char *const usage[] = {
	"mmprof diff [options] BASE.data NEW.data",
	"mmprof diff [options] BASE1.data BASE2.data ... -- NEW1.data NEW2.data ...",
	NULL,
};

struct side {
	const char *name;		/* "base" / "new" */
	char **paths;
	size_t nr;
	struct profile **profiles;
	struct keycache **caches;	/* one per file: the key strings the runs borrow */
	struct diff_run *runs;		/* one per run, all files pooled; ids are the cache's */
	size_t nr_runs;
	size_t *orig;			/* per run: its index among the side's runs before --drop-run */
	size_t nr_dropped;
	struct file_samples *samples;	/* one per file: what runs[].samples point into */
};

/* A file's samples per (run, event), with the events as keys spell them. */
struct file_samples {
	struct diff_samples *cell;	/* nr_runs * nr_events, run-major */
	char **event;			/* nr_events, owned */
	size_t nr_events;
};

static void file_samples__release(struct file_samples *fs)
{
	size_t i;

	for (i = 0; i < fs->nr_events; i++)
		free(fs->event[i]);
	free(fs->event);
	free(fs->cell);
	memset(fs, 0, sizeof(*fs));
}

/*
 * The samples behind each event's perf-profile keys, per run of p (the
 * diff's floor for sampling noise, diff.h), into fs; runs[r] points at them.
 */
static void file_samples__count(struct file_samples *fs, const struct profile *p,
				struct diff_run *runs)
{
	size_t ne = p->nr_events, i;

	memset(fs, 0, sizeof(*fs));
	if (!ne)
		return;
	fs->nr_events = ne;
	fs->event = xcalloc(ne, sizeof(*fs->event));
	fs->cell = xcalloc(p->nr_runs * ne, sizeof(*fs->cell));
	for (i = 0; i < ne; i++) {
		const char *name = profile__str(p, p->events[i].name);
		char buf[256];

		keys__event_name(name ? name : "unknown", buf, sizeof(buf));
		fs->event[i] = xstrdup(buf);
	}
	for (i = 0; i < p->nr_runs * ne; i++)
		fs->cell[i].event = fs->event[i % ne];
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->run < p->nr_runs && c->event < ne)
			fs->cell[(size_t)c->run * ne + c->event].n += (double)c->samples;
	}
	for (i = 0; i < p->nr_runs; i++) {
		runs[i].samples = fs->cell + i * ne;
		runs[i].nr_samples = ne;
	}
}

static void side__release(struct side *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		profile__free(s->profiles ? s->profiles[i] : NULL);
	for (i = 0; i < s->nr_runs; i++) {
		free((void *)s->runs[i].items);
		free((void *)s->runs[i].ids);
	}
	for (i = 0; s->caches && i < s->nr; i++)
		keycache__free(s->caches[i]);
	for (i = 0; s->samples && i < s->nr; i++)
		file_samples__release(&s->samples[i]);
	free(s->samples);
	free(s->orig);
	free(s->caches);
	free(s->profiles);
	free(s->runs);
}

/*
 * The files of both sides are loaded, and their runs turned into keys, two
 * at a time: each file's work is independent (its own SQLite connection,
 * profile, symbol trie and key cache) and is nearly all of a diff's time.
 * Errors are then reported in command-line order, as a one-at-a-time load
 * would have found them.
 */
struct load_job {
	const char *path;
	struct profile *p;
	struct keycache *cache;		/* the key strings its runs borrow */
	struct diff_run *runs;		/* one per run of p */
	struct file_samples samples;	/* runs[].samples point into it */
	struct errmsg e;
	int err;
};

/* One diff_run per run of j->p: one symbol trie and key cache per file. */
static void load_job__keys(struct load_job *j)
{
	struct symview v;
	uint32_t r;

	symview__init(&v, j->p, false);
	j->cache = keycache__new(&v);
	j->runs = xcalloc(j->p->nr_runs, sizeof(*j->runs));
	for (r = 0; r < j->p->nr_runs; r++) {
		struct key_value *items;
		uint32_t *ids;
		struct keyrun kr;
		size_t i;

		keycache__run(j->cache, r, &kr);
		items = xmalloc((kr.nr ? kr.nr : 1) * sizeof(*items));
		ids = xmalloc((kr.nr ? kr.nr : 1) * sizeof(*ids));
		memcpy(ids, kr.ids, kr.nr * sizeof(*ids));
		for (i = 0; i < kr.nr; i++) {
			/* borrowed from the cache, which lives as long as the side */
			items[i].key = (char *)keycache__name(j->cache, kr.ids[i]);
			items[i].value = kr.vals[i];
		}
		j->runs[r] = (struct diff_run){ .items = items, .nr = kr.nr, .ids = ids,
						.id_space = j->cache };
	}
	symview__release(&v);	/* the cache keeps the names the runs borrow */
	for (r = 0; r < j->p->nr_runs; r++) {
		j->runs[r].nr_ids = keycache__nr(j->cache);
		j->runs[r].spellings = keycache__spellings(j->cache);
	}
	file_samples__count(&j->samples, j->p, j->runs);
}

struct load_pool {
	struct load_job *jobs;
	size_t nr;
	_Atomic size_t next;
};

static void *load_pool__work(void *arg)
{
	struct load_pool *pool = arg;
	size_t i;

	while ((i = atomic_fetch_add(&pool->next, 1)) < pool->nr) {
		struct load_job *j = &pool->jobs[i];

		j->err = datafile__load(j->path, &j->p, &j->e);
		if (!j->err && j->p->nr_runs)
			load_job__keys(j);
	}
	return NULL;
}

static struct load_job *load_all(char **paths, size_t n)
{
	struct load_pool pool = { .jobs = xcalloc(n ? n : 1, sizeof(*pool.jobs)), .nr = n };
	pthread_t helper;
	bool helped;
	size_t i;

	for (i = 0; i < n; i++)
		pool.jobs[i].path = paths[i];
	atomic_init(&pool.next, 0);
	/* no helper thread (n < 2, or none to be had): this thread loads all */
	helped = n > 1 && pthread_create(&helper, NULL, load_pool__work, &pool) == 0;
	load_pool__work(&pool);
	if (helped)
		pthread_join(helper, NULL);
	return pool.jobs;
}

static void load_jobs__free(struct load_job *jobs, size_t n)
{
	size_t i;
	uint32_t r;

	for (i = 0; jobs && i < n; i++) {
		for (r = 0; jobs[i].runs && r < jobs[i].p->nr_runs; r++) {
			free((void *)jobs[i].runs[r].items);
			free((void *)jobs[i].runs[r].ids);
		}
		free(jobs[i].runs);
		keycache__free(jobs[i].cache);
		file_samples__release(&jobs[i].samples);
		profile__free(jobs[i].p);
	}
	free(jobs);
}

/* Take the side's loaded profiles, caches and runs from jobs (now the side's to free). */
static int side__load(struct side *s, struct load_job *jobs)
{
	size_t i, total = 0;

	s->profiles = xcalloc(s->nr, sizeof(*s->profiles));
	s->caches = xcalloc(s->nr, sizeof(*s->caches));
	s->samples = xcalloc(s->nr, sizeof(*s->samples));
	for (i = 0; i < s->nr; i++) {
		if (jobs[i].err) {
			fprintf(stderr, "mmprof: %s\n", jobs[i].e.msg);
			return jobs[i].err;
		}
		if (!jobs[i].p->nr_runs) {
			fprintf(stderr, "mmprof: '%s' holds no runs; record it again\n", s->paths[i]);
			return -EINVAL;
		}
		total += jobs[i].p->nr_runs;
	}
	s->runs = xcalloc(total, sizeof(*s->runs));
	s->orig = xcalloc(total, sizeof(*s->orig));
	for (i = 0; i < total; i++)
		s->orig[i] = i;
	for (i = 0; i < s->nr; i++) {
		memcpy(s->runs + s->nr_runs, jobs[i].runs, jobs[i].p->nr_runs * sizeof(*s->runs));
		s->nr_runs += jobs[i].p->nr_runs;
		free(jobs[i].runs);
		jobs[i].runs = NULL;
		s->caches[i] = jobs[i].cache;
		jobs[i].cache = NULL;
		s->samples[i] = jobs[i].samples;
		memset(&jobs[i].samples, 0, sizeof(jobs[i].samples));
		s->profiles[i] = jobs[i].p;
		jobs[i].p = NULL;
	}
	return 0;
}

/*
 * "cpu-clock" list of a side's opened events, comma-separated, sorted as
 * first seen.  sampling_only: without tracepoints and pseudo events
 * (offcpu), which sample every hit, so that a side recorded with --mm or
 * --sched still compares with one recorded without.
 */
static void side__events(const struct side *s, bool sampling_only, char *buf, size_t size)
{
	size_t i, j, len = 0;

	buf[0] = '\0';
	for (i = 0; i < s->nr; i++)
		for (j = 0; j < s->profiles[i]->nr_events; j++) {
			const struct event_desc *d = &s->profiles[i]->events[j];
			const char *ev = profile__str(s->profiles[i], d->name);
			size_t el;
			char *hit;

			if (!ev || (sampling_only && (d->type == PERF_TYPE_TRACEPOINT ||
						      d->type == PERF_TYPE_MAX)))
				continue;
			el = strlen(ev);
			hit = strstr(buf, ev);
			if (hit && (hit == buf || hit[-1] == ',') && (hit[el] == ',' || !hit[el]))
				continue;
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? "," : "", ev);
			if (len >= size)
				return;
		}
}

static void side__sampling(const struct side *s, char *buf, size_t size)
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

static void side__durations(const struct side *s, char *buf, size_t size)
{
	double sum, lo, hi;
	size_t n = profile__run_walls((const struct profile *const *)s->profiles, s->nr, &sum, &lo, &hi);

	if (n == 1)
		snprintf(buf, size, "%.2f s", sum);
	else
		snprintf(buf, size, "%.2f s mean (%.2f..%.2f)", sum / (double)n, lo, hi);
}

/* Distinct values of a meta key over a side's files. */
static void side__meta(const struct side *s, const char *key, char *buf, size_t size)
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
/* Samples lost (ring buffer full) over every run of the side; *kept: those taken. */
static uint64_t side__lost_count(const struct side *s, uint64_t *kept)
{
	return profile__run_lost((const struct profile *const *)s->profiles, s->nr, kept, NULL);
}

static bool side__lost(const struct side *s, char *buf, size_t size)
{
	uint64_t kept, lost = side__lost_count(s, &kept);

	if (!lost) {
		snprintf(buf, size, "0");
		return false;
	}
	snprintf(buf, size, "%llu (%.2g%%)", (unsigned long long)lost,
		 100.0 * (double)lost / (double)(lost + kept));
	return true;
}

/* "off.data run 1" for the side's run i (counted before --drop-run) into buf. */
static void side__run_name(const struct side *s, size_t i, char *buf, size_t size)
{
	size_t f;

	for (f = 0; f < s->nr && i >= s->profiles[f]->nr_runs; f++)
		i -= s->profiles[f]->nr_runs;
	snprintf(buf, size, "%s run %zu", f < s->nr ? s->paths[f] : "?", i);
}

/*
 * --drop-run SIDE:N: leave the side's run N (from 0, over its files in
 * order) out of the comparison.  0, or -EINVAL after one line on stderr.
 */
static int sides__drop(struct side *s, const struct strlist *drops)
{
	size_t i, j;

	for (i = 0; i < drops->nr; i++) {
		const char *arg = drops->items[i], *colon = strchr(arg, ':');
		int sd = colon && (size_t)(colon - arg) == 4 && !strncmp(arg, "base", 4) ? 0 :
			 colon && (size_t)(colon - arg) == 3 && !strncmp(arg, "new", 3) ? 1 : -1;
		char *end;
		unsigned long n;
		struct side *x;

		if (sd < 0 || !colon[1] || colon[1] == '-') {
			fprintf(stderr, "mmprof diff: --drop-run '%s': expected base:N or new:N\n", arg);
			return -EINVAL;
		}
		errno = 0;
		n = strtoul(colon + 1, &end, 10);
		x = &s[sd];
		if (errno || *end) {
			fprintf(stderr, "mmprof diff: --drop-run '%s': expected base:N or new:N\n", arg);
			return -EINVAL;
		}
		for (j = 0; j < x->nr_runs && x->orig[j] != n; j++)
			;
		if (j == x->nr_runs) {
			fprintf(stderr, "mmprof diff: --drop-run '%s': %s has runs 0 to %zu%s\n", arg, x->name,
				x->nr_runs + x->nr_dropped - 1, n < x->nr_runs + x->nr_dropped ? ", and that one is dropped already" : "");
			return -EINVAL;
		}
		if (x->nr_runs == 1) {
			fprintf(stderr, "mmprof diff: --drop-run '%s': it is the last run of %s\n", arg, x->name);
			return -EINVAL;
		}
		memmove(&x->runs[j], &x->runs[j + 1], (x->nr_runs - j - 1) * sizeof(*x->runs));
		memmove(&x->orig[j], &x->orig[j + 1], (x->nr_runs - j - 1) * sizeof(*x->orig));
		x->nr_runs--;
		x->nr_dropped++;
	}
	return 0;
}

/* The header's lines on disturbed and dropped runs. */
static void header_runs(struct outbuf *b, const struct side *s, const struct diff *d)
{
	size_t i, j;
	char name[512];

	for (i = 0; i < d->nr_disturbed; i++) {
		const struct diff_disturbed *x = &d->disturbed[i];

		side__run_name(&s[x->side], s[x->side].orig[x->run], name, sizeof(name));
		outbuf__printf(b, "disturbed: %s run %zu (%s) stands out %.1fx the typical run over %zu keys; "
				  "--drop-run %s:%zu leaves it out\n",
			       s[x->side].name, s[x->side].orig[x->run], name, x->ratio, x->keys,
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
				side__run_name(&s[i], j, name, sizeof(name));
				outbuf__printf(b, " %zu (%s)", j, name);
			}
		}
		outbuf__printf(b, "\n");
	}
}

static void header_line(struct outbuf *b, const char *what, const char *l, const char *r)
{
	outbuf__printf(b, "%-10s %-34s %s\n", what, l, r);
}

/*
 * A side's label for the robot's column heads: its first file's name
 * without directory and ".data", "+N" when N more files are pooled.
 */
static void side__label(const struct side *s, char *buf, size_t size)
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
static void robot_column_heads(struct outbuf *b, const struct side *s)
{
	char l[256], r[256];

	side__label(&s[0], l, sizeof(l));
	side__label(&s[1], r, sizeof(r));
	outbuf__printf(b, "%16.16s %27.27s \n", l, r);
	/* the new side's rule in blue when colouring, as the table has always shown it */
	outbuf__printf(b, "---------------- %s---------------------------%s \n",
		       term__sgr(TERM_BLUE, b->color), term__sgr(TERM_RESET, b->color));
}

static void header(struct outbuf *b, const struct side *s, const struct diff *d, bool forced,
		   bool robot)
{
	char l[256], r[256];
	size_t i;

	outbuf__printf(b, "=========================================================================================\n");
	for (i = 0; i < 2; i++) {
		const struct side *x = &s[i];
		size_t j;

		outbuf__printf(b, "%s:", x->name);
		for (j = 0; j < x->nr; j++)
			outbuf__printf(b, " %s", x->paths[j]);
		outbuf__printf(b, "\n");
	}
	outbuf__printf(b, "\n");
	header_line(b, "", "base", "new");
	side__events(&s[0], false, l, sizeof(l));
	side__events(&s[1], false, r, sizeof(r));
	header_line(b, "events", l, r);
	side__sampling(&s[0], l, sizeof(l));
	side__sampling(&s[1], r, sizeof(r));
	header_line(b, "sampling", l, r);
	snprintf(l, sizeof(l), "%zu", s[0].nr_runs);
	snprintf(r, sizeof(r), "%zu", s[1].nr_runs);
	header_line(b, "runs", l, r);
	side__durations(&s[0], l, sizeof(l));
	side__durations(&s[1], r, sizeof(r));
	header_line(b, "duration", l, r);
	side__meta(&s[0], "kernel_release", l, sizeof(l));
	side__meta(&s[1], "kernel_release", r, sizeof(r));
	header_line(b, "kernel", l, r);
	side__meta(&s[0], "hostname", l, sizeof(l));
	side__meta(&s[1], "hostname", r, sizeof(r));
	header_line(b, "host", l, r);
	if (side__lost(&s[0], l, sizeof(l)) | side__lost(&s[1], r, sizeof(r))) {
		header_line(b, "lost", l, r);
		outbuf__printf(b, "WARNING: samples were lost (the ring buffer overflowed): the profile "
				  "misses what ran while it was full; record again with a lower -F or a "
				  "larger -m\n");
	}
	if (forced && d->o.alias_from)
		outbuf__printf(b, "WARNING: the sides used different sampling events (--force): "
				  "perf-profile rows compare unlike things; new's %s rows are read as %s's\n",
			       d->o.alias_from, d->o.alias_to);
	else if (forced)
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
		for (j = 0; j < d->nr_one_side[i]; j++)
			outbuf__printf(b, "%s %s", j ? "," : "", d->one_side[i][j]);
		outbuf__printf(b, "\n");
	}
	outbuf__printf(b, "\n");
	robot_column_heads(b, s);
}

static int load_gate_file(const char *path, struct strlist *out)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int lineno = 0;

	if (!f) {
		int err = errno;

		fprintf(stderr, "mmprof: cannot open gate file '%s': %s\n", path, strerror(err));
		return -err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *end, *hash;

		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		/* '#' starts a comment, except inside a quoted key ('a#b' > 1) */
		end = *s == '\'' || *s == '"' ? strchr(s + 1, *s) : NULL;
		hash = strchr(end ? end : s, '#');
		if (hash)
			*hash = '\0';
		end = s + strlen(s);
		while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*s)
			strlist__add(out, s);
	}
	fclose(f);
	(void)lineno;
	return 0;
}

/*
 * Gates that match no compared key can never trip: a typo in a CI gate
 * would pass forever.  Each is one line on stderr; an error (returns the
 * number of them) unless allow, when they are notes (returns 0).  A gate
 * naming a key that is absent from both sides of a measured domain (a
 * function never sampled, gate.h) is not one of them: it compares 0 with
 * 0, and says so in a note.
 */
static size_t unmatched_gates(const struct diff *d, const struct gate *g, size_t ng, bool allow)
{
	size_t i, bad = 0;

	for (i = 0; i < ng; i++) {
		struct gate_matches m;
		char desc[512];

		gate__count(&g[i], d, &m);
		if (m.rows)
			continue;
		gate__describe(&g[i], desc, sizeof(desc));
		if (m.absent) {
			fprintf(stderr, "mmprof diff: note: gate '%s' matches no key: %s is absent from "
					"both sides, compared as 0 -> 0\n", desc, g[i].glob);
			continue;
		}
		bad++;
		if (m.ambient)
			fprintf(stderr, "mmprof diff: %sgate '%s' matches only keys of the machine's state "
					"(meminfo, proc-vmstat levels), which a gate counts only when its "
					"first component names their family ('meminfo.*', not '*.X')%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.uncompared)
			fprintf(stderr, "mmprof diff: %sgate '%s' matches only keys that are not compared "
					"(address buckets, or families one side did not measure): it can never "
					"trip%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
		else
			fprintf(stderr, "mmprof diff: %sgate '%s' matches no key of either side, and no "
					"family and event they measured: a typo? 'mmprof report FILE' lists "
					"the keys%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
	}
	return allow ? 0 : bad;
}

/*
 * Evaluate every gate; print each trip to stderr.  Returns the number
 * tripped.  A gate that matched no row but names an absent key compares
 * 0 -> 0: never a significant change, so only --fail-on-any can trip it.
 */
static int run_gates(const struct diff *d, const struct gate *g, size_t ng, bool any)
{
	size_t i, j;
	int tripped = 0;

	for (i = 0; i < ng; i++) {
		struct gate_matches m;
		char desc[512];
		bool applied = false;

		gate__describe(&g[i], desc, sizeof(desc));
		for (j = 0; j < d->nr; j++) {
			const struct diff_row *r = &d->rows[j];

			/* address buckets, one-sided keys, the machine's state unless named */
			if (!gate__applies(&g[i], r))
				continue;
			applied = true;
			if (!any && !diff_row__changed(r))
				continue;
			if (!gate__trips(&g[i], r->delta, r->rel))
				continue;
			tripped++;
			fprintf(stderr, "mmprof diff: gate '%s' tripped: %s %.4g -> %.4g (%+.4g%s, %+.3g%%, q=%.2g, %s)\n",
				desc, r->key, r->base.mean, r->cur.mean, r->delta,
				r->absolute ? " points" : "", r->rel, r->q, diff_row__verdict_name(r));
		}
		if (applied || !any || !gate__trips(&g[i], 0, 0))
			continue;
		gate__count(&g[i], d, &m);
		if (!m.absent)
			continue;
		tripped++;
		fprintf(stderr, "mmprof diff: gate '%s' tripped: %s is absent from both sides, 0 -> 0 "
				"(--fail-on-any)\n", desc, g[i].glob);
	}
	return tripped;
}

/* "exit status 3" / "killed by SIGKILL" for a run whose workload failed, or false. */
static bool run__failure(const struct run *r, char *buf, size_t size)
{
	if (r->term_signal) {
		const char *sig = sigabbrev_np(r->term_signal);

		snprintf(buf, size, "killed by SIG%s", sig ? sig : "?");
		return true;
	}
	/* -1 without a signal: attached (-p, -a) or imported, no status */
	if (r->exit_code > 0) {
		snprintf(buf, size, "exit status %d", (int)r->exit_code);
		return true;
	}
	return false;
}

/*
 * A side whose workload failed measured the failure, not the workload.
 * Failed in every run: with gates an error unless allow (a gate must not
 * pass on it silently), else a warning; in some runs: a warning naming
 * them.  One line a side.  Returns -EINVAL on the error.
 */
static int check_failed_runs(const struct side *sides, bool gated, bool allow)
{
	int ret = 0;
	size_t k;

	for (k = 0; k < 2; k++) {
		const struct side *s = &sides[k];
		char runs[1024] = "", statuses[256] = "", what[64];
		size_t failed = 0, total = 0, rl = 0, sl = 0, i;
		bool all, error;
		uint32_t r;

		for (i = 0; i < s->nr; i++)
			for (r = 0; r < s->profiles[i]->nr_runs; r++) {
				total++;
				if (!run__failure(&s->profiles[i]->runs[r], what, sizeof(what)))
					continue;
				if (failed++ < 8 && rl < sizeof(runs))
					rl += (size_t)snprintf(runs + rl, sizeof(runs) - rl, "%s%s run %u (%s)",
							       rl ? ", " : "", s->paths[i], r + 1, what);
				if (!strstr(statuses, what) && sl < sizeof(statuses))
					sl += (size_t)snprintf(statuses + sl, sizeof(statuses) - sl, "%s%s",
							       sl ? ", " : "", what);
			}
		if (!failed)
			continue;
		all = failed == total;
		error = all && gated && !allow;
		if (all)
			fprintf(stderr, "mmprof diff: %s%s: the workload failed in every run (%zu of %zu, %s): "
					"its numbers measure the failure%s\n",
				error ? "" : "warning: ", s->name, failed, total, statuses,
				error ? "; a gate cannot pass on it (--allow-failed compares anyway)" : "");
		else
			fprintf(stderr, "mmprof diff: warning: %s: the workload failed in %zu of %zu runs: %s%s\n",
				s->name, failed, total, runs, failed > 8 ? ", ..." : "");
		if (error)
			ret = -EINVAL;
	}
	return ret;
}

/* The HTML report (flame.h): the same rows, both headers, the differential flame graph. */
static int write_html(const char *path, const struct side *s, const struct diff *d,
		      const struct diff_row *const *rows, size_t n, const char *events)
{
	struct flame_diff_opts fo = { .alpha = d->o.alpha, .min_points = d->o.min_points,
				      .novar_points = d->o.novar_points };
	struct html_side hs[2];
	struct outbuf b = { 0 };
	struct flame f;
	struct errmsg e;
	char ev[128];
	bool have_graph;
	int err;
	size_t i;

	snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(events, ","), events);
	fo.event = ev;
	for (i = 0; i < 2; i++)
		hs[i] = (struct html_side){ s[i].name, s[i].paths, (const struct profile *const *)s[i].profiles,
					    s[i].nr, s[i].nr_runs };
	have_graph = flame__build_diff(&f, (const struct profile *const *)s[0].profiles, s[0].nr,
				       (const struct profile *const *)s[1].profiles, s[1].nr, &fo, &e) == 0;
	if (!have_graph)
		fprintf(stderr, "mmprof diff: note: no flame graph in the HTML report: %s\n", e.msg);
	flame__html_diff(&b, hs, d, rows, n, have_graph ? &f : NULL, ev);
	err = flame__write_file(&b, path, &e);
	if (err)
		fprintf(stderr, "mmprof: %s\n", e.msg);
	outbuf__release(&b);
	flame__release(&f);
	return err;
}

static int parse_args(int argc, char **argv, const struct option_desc *opts,
		      struct strlist *pos, int *dashdash)
{
	char **av = xcalloc((size_t)argc + 1, sizeof(*av));
	int ac, i = 1, idx;

	*dashdash = -1;
	/* options may come before, between or after the file names */
	while (i < argc) {
		ac = 0;
		av[ac++] = argv[0];
		while (i < argc)
			av[ac++] = argv[i++];
		av[ac] = NULL;
		idx = options__parse(ac, av, opts, usage);
		if (idx < 0) {
			free(av);
			return idx;
		}
		if (idx > 1 && !strcmp(av[idx - 1], "--") && *dashdash < 0 && pos->nr)
			*dashdash = (int)pos->nr;
		i = i - ac + idx;
		while (i < argc && (argv[i][0] != '-' || !argv[i][1] || !strcmp(argv[i], "--"))) {
			if (!strcmp(argv[i], "--")) {
				if (*dashdash >= 0) {
					fprintf(stderr, "mmprof diff: '--' given twice\n");
					free(av);
					return -1;
				}
				*dashdash = (int)pos->nr;
			} else {
				strlist__add(pos, argv[i]);
			}
			i++;
		}
	}
	free(av);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { .format = "lkp", .limit = 20, .color = -1 };
	const struct option_desc opts[] = {
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Output", 0, NULL },
		{ OPT_STRING, 'f', "format", &c.format, "FMT", "lkp (default), json, csv or markdown", 0, NULL },
		{ OPT_BOOL, 'a', "all", &c.all, NULL, "every key, with its verdict", 0, NULL },
		{ OPT_BOOL, 0, "robot", &c.robot, NULL, "rows the kernel test robot would show (no test)", 0, NULL },
		{ OPT_BOOL, 'g', "callchains", &c.callchains, NULL, "also show changed call chains, caller -> callee", 0, NULL },
		{ OPT_INT, 0, "limit", &c.limit, "N", "at most N call chains (default 20)", 0, NULL },
		{ OPT_STRING, 0, "html", &c.html, "FILE", "also write a one-file HTML report (table, run metadata, differential flame graph)", 0, NULL },
		{ OPT_BOOL, 0, "color", &c.color, NULL, "colour rises red, falls blue (default: on a terminal, unless NO_COLOR)", OPT_NEGATABLE, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Statistics", 0, NULL },
		{ OPT_DOUBLE, 'q', "alpha", &c.o.alpha, "Q", "false discovery rate (default 0.05)", 0, NULL },
		{ OPT_DOUBLE, 0, "min-points", &c.o.min_points, "P", "effect floor for perf-profile and % keys (default 0.1)", 0, NULL },
		{ OPT_DOUBLE, 0, "min-pct", &c.o.min_pct, "PCT", "effect floor for other keys, % (default 1)", 0, NULL },
		{ OPT_DOUBLE, 0, "threshold-points", &c.o.novar_points, "P", "one-run threshold, points (default 0.5)", 0, NULL },
		{ OPT_DOUBLE, 0, "threshold-pct", &c.o.novar_pct, "PCT", "one-run threshold, % (default 5)", 0, NULL },
		{ OPT_BOOL, 0, "force", &c.force, NULL, "compare sides recorded with different events", 0, NULL },
		{ OPT_LIST, 0, "drop-run", &c.drop_run, "SIDE:N", "leave run N (from 0) of base or new out, e.g. a disturbed run (repeatable)", 0, NULL },
		{ OPT_LIST, 0, "ambient", &c.ambient, "GLOB", "keys matching GLOB are the machine's state, not the workload's (repeatable)", 0, NULL },
		{ OPT_BOOL, 0, "no-ambient", &c.no_ambient, NULL, "no key is ambient but those of --ambient (default: meminfo.*, proc-vmstat levels)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "CI gates", 0, NULL },
		{ OPT_LIST, 0, "fail-on", &c.fail_on, "EXPR", "exit 1 when a change satisfies EXPR (repeatable)", 0, NULL },
		{ OPT_STRING, 0, "gate-file", &c.gate_file, "FILE", "gate expressions, one a line (# comments)", 0, NULL },
		{ OPT_BOOL, 0, "fail-on-any", &c.fail_on_any, NULL, "gates count every change, not only significant ones", 0, NULL },
		{ OPT_BOOL, 0, "allow-unmatched", &c.allow_unmatched, NULL, "a gate that matches no compared key is a note, not an error", 0, NULL },
		{ OPT_BOOL, 0, "allow-failed", &c.allow_failed, NULL, "gate a side whose workload failed in every run (a warning, not an error)", 0, NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL },
	};
	struct strlist pos = { 0 };
	struct side s[2] = { { .name = "base" }, { .name = "new" } };
	struct diff d = { 0 };
	struct diff_run *dr = NULL;
	struct load_job *jobs = NULL;
	struct gate *gates = NULL;
	struct outbuf out = { 0 };
	const struct diff_row **rows = NULL;
	enum diff_format fmt;
	char eb[512], en[512];
	size_t ng = 0, i, n;
	int dashdash, ret = EXIT_ERROR, tripped;
	bool forced = false;
	char alias_from[128], alias_to[128];

	if (parse_args(argc, argv, opts, &pos, &dashdash) < 0) {
		int help = 0;

		for (i = 1; i < (size_t)argc; i++)
			help |= !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
		strlist__release(&pos);
		strlist__release(&c.fail_on);
		strlist__release(&c.drop_run);
		strlist__release(&c.ambient);
		return help ? 0 : EXIT_ERROR;
	}
	if (!strcmp(c.format, "lkp"))
		fmt = DIFF_FORMAT_LKP;
	else if (!strcmp(c.format, "json"))
		fmt = DIFF_FORMAT_JSON;
	else if (!strcmp(c.format, "csv"))
		fmt = DIFF_FORMAT_CSV;
	else if (!strcmp(c.format, "markdown") || !strcmp(c.format, "md"))
		fmt = DIFF_FORMAT_MARKDOWN;
	else {
		fprintf(stderr, "mmprof diff: unknown format '%s'; use lkp, json, csv or markdown\n", c.format);
		goto out;
	}
	if (dashdash < 0) {
		if (pos.nr != 2) {
			fprintf(stderr, "mmprof diff: need BASE.data NEW.data, or BASE... -- NEW...; see 'mmprof diff --help'\n");
			goto out;
		}
		dashdash = 1;
	}
	if (dashdash == 0 || (size_t)dashdash == pos.nr) {
		fprintf(stderr, "mmprof diff: both sides of '--' need at least one file\n");
		goto out;
	}
	s[0].paths = pos.items;
	s[0].nr = (size_t)dashdash;
	s[1].paths = pos.items + dashdash;
	s[1].nr = pos.nr - (size_t)dashdash;

	if (c.gate_file && load_gate_file(c.gate_file, &c.fail_on) < 0)
		goto out;
	gates = xcalloc(c.fail_on.nr + 1, sizeof(*gates));
	for (ng = 0; ng < c.fail_on.nr; ng++) {
		struct errmsg e;

		if (gate__parse(c.fail_on.items[ng], &gates[ng], &e) < 0) {
			fprintf(stderr, "mmprof diff: %s\n", e.msg);
			goto out;
		}
	}

	jobs = load_all(pos.items, pos.nr);
	if (side__load(&s[0], jobs) < 0 || side__load(&s[1], jobs + s[0].nr) < 0 ||
	    sides__drop(s, &c.drop_run) < 0)
		goto out;
	if (check_failed_runs(s, ng > 0, c.allow_failed) < 0)
		goto out;
	side__events(&s[0], true, eb, sizeof(eb));
	side__events(&s[1], true, en, sizeof(en));
	if (strcmp(eb, en)) {
		if (!c.force) {
			fprintf(stderr, "mmprof diff: DIFFERENT SAMPLING EVENTS: base used '%s', new used '%s'; "
					"their perf-profile percentages are not comparable (--force compares anyway)\n",
				eb, en);
			goto out;
		}
		forced = true;
		fprintf(stderr, "mmprof diff: WARNING: different sampling events (base '%s', new '%s'), compared because of --force\n",
			eb, en);
	}

	dr = xcalloc(s[0].nr_runs + s[1].nr_runs, sizeof(*dr));
	for (i = 0; i < s[0].nr_runs + s[1].nr_runs; i++)
		dr[i] = i < s[0].nr_runs ? s[0].runs[i] : s[1].runs[i - s[0].nr_runs];
	c.o.robot = c.robot && !c.all;
	c.o.ambient = (const char *const *)c.ambient.items;
	c.o.nr_ambient = c.ambient.nr;
	c.o.no_ambient_defaults = c.no_ambient;
	/*
	 * --force with one sampling event a side: pair the perf-profile rows
	 * of the two events (the keys name their event), as a forced
	 * comparison asks; several events a side stay apart.
	 */
	if (forced && !strchr(eb, ',') && !strchr(en, ',') && *eb && *en) {
		keys__event_name(eb, alias_to, sizeof(alias_to));
		keys__event_name(en, alias_from, sizeof(alias_from));
		if (strcmp(alias_to, alias_from)) {
			c.o.alias_from = alias_from;
			c.o.alias_to = alias_to;
		}
	}
	if (diff__compute(&d, dr, s[0].nr_runs, dr + s[0].nr_runs, s[1].nr_runs, &c.o) < 0) {
		fprintf(stderr, "mmprof diff: nothing to compare\n");
		goto out;
	}
	if (unmatched_gates(&d, gates, ng, c.allow_unmatched))
		goto out;
	rows = diff__select(&d, c.all ? DIFF_SELECT_ALL : c.robot ? DIFF_SELECT_ROBOT : DIFF_SELECT_DEFAULT, &n);
	/* the robot's table colours its changes on a terminal; the other formats are for programs */
	out.color = fmt == DIFF_FORMAT_LKP &&
		    term__use_color(STDOUT_FILENO, c.color < 0 ? TERM_COLOR_AUTO :
				    c.color ? TERM_COLOR_ALWAYS : TERM_COLOR_NEVER);

	if (fmt == DIFF_FORMAT_JSON) {
		uint64_t kept[2], lost[2];

		lost[0] = side__lost_count(&s[0], &kept[0]);
		lost[1] = side__lost_count(&s[1], &kept[1]);
		outbuf__printf(&out, "{\"base\": {\"files\": %zu, \"runs\": %zu, \"events\": \"%s\", "
				     "\"samples\": %llu, \"lost\": %llu}, "
				     "\"new\": {\"files\": %zu, \"runs\": %zu, \"events\": \"%s\", "
				     "\"samples\": %llu, \"lost\": %llu}, \"diff\": ",
			       s[0].nr, s[0].nr_runs, eb, (unsigned long long)kept[0],
			       (unsigned long long)lost[0], s[1].nr, s[1].nr_runs, en,
			       (unsigned long long)kept[1], (unsigned long long)lost[1]);
	} else if (fmt == DIFF_FORMAT_LKP) {
		header(&out, s, &d, forced, c.robot && !c.all);
	}
	if (fmt == DIFF_FORMAT_JSON)
		diff__json_open(&out, &d, rows, n);
	else
		diff__format(&out, &d, rows, n, fmt, c.all);
	if (fmt == DIFF_FORMAT_LKP && !n)
		outbuf__printf(&out, "(no %s rows)\n", c.robot ? "robot-visible" : "significant");

	if (c.callchains && (fmt == DIFF_FORMAT_LKP || fmt == DIFF_FORMAT_JSON || fmt == DIFF_FORMAT_MARKDOWN)) {
		struct chain_diff cd;
		char ev[128];

		snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(eb, ","), eb);
		if (chains__compute(&cd, (const struct profile *const *)s[0].profiles, s[0].nr,
				    (const struct profile *const *)s[1].profiles, s[1].nr, ev,
				    d.o.min_points > 0.5 ? d.o.min_points : 0.5, d.o.alpha) == 0) {
			if (fmt == DIFF_FORMAT_JSON) {
				/* a member of the diff object, before it closes */
				outbuf__printf(&out, ", \"callchains\": ");
				chains__format(&out, &cd, (size_t)(c.limit > 0 ? c.limit : 20), true);
			} else {
				chains__format(&out, &cd, (size_t)(c.limit > 0 ? c.limit : 20), false);
			}
			chains__release(&cd);
		}
	}
	if (fmt == DIFF_FORMAT_JSON) {
		diff__json_close(&out);
		outbuf__printf(&out, "}\n");
	}
	if (out.len)
		fwrite(out.s, 1, out.len, stdout);
	if (c.html && write_html(c.html, s, &d, rows, n, eb) < 0)
		goto out;

	fflush(stdout);
	tripped = run_gates(&d, gates, ng, c.fail_on_any);
	ret = tripped ? EXIT_GATE : 0;
out:
	free(rows);
	outbuf__release(&out);
	diff__release(&d);
	free(dr);
	for (i = 0; i < ng; i++)
		gate__release(&gates[i]);
	free(gates);
	side__release(&s[0]);
	side__release(&s[1]);
	load_jobs__free(jobs, pos.nr);
	strlist__release(&pos);
	strlist__release(&c.fail_on);
	strlist__release(&c.drop_run);
	strlist__release(&c.ambient);
	return ret;
}
