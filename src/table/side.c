/*
 * side: loading the two sides of a diff (diffside.h) with a pool of two
 * threads, pooling each side's runs, --drop-run, and what the header and
 * the checks ask of a side (its events, lost samples, failed runs).  A
 * diff loads from 2 to a few dozen files; each is one SQLite connection,
 * profile, symbol trie and key cache, independent of the others.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/datafile.h"
#include "mmprof/diffside.h"
#include "mmprof/parallel.h"
#include "mmprof/store.h"
#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

/* A file's samples per (run, event), with the events as keys spell them. */
struct diff_file_samples {
	struct diff_samples *cell;	/* nr_runs * nr_events, run-major */
	char **event;			/* nr_events, owned */
	size_t nr_events;
};

static void diff_file_samples__release(struct diff_file_samples *fs)
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
 * A key's share is of the samples with a name (v: the LKP view, perf's
 * -U), so those are its binomial denominator; every sample is counted
 * too, for the unnamed fraction the header gives.
 */
static void diff_file_samples__count(struct diff_file_samples *fs, const struct profile *p,
				     const struct symview *v, struct diff_run *runs)
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

		struct diff_samples *cell;

		if (c->run >= p->nr_runs || c->event >= ne)
			continue;
		cell = &fs->cell[(size_t)c->run * ne + c->event];
		cell->all += (double)c->samples;
		if (c->node < p->nr_nodes && symview__counts(v, c->node))
			cell->n += (double)c->samples;
	}
	for (i = 0; i < p->nr_runs; i++) {
		runs[i].samples = fs->cell + i * ne;
		runs[i].nr_samples = ne;
	}
}

bool diff_side__named(const struct diff_side *s, double *named, double *all)
{
	bool *keep = diff_side__kept(s);
	size_t i, j, r = 0;

	*named = *all = 0;
	for (i = 0; s->samples && i < s->nr; i++) {
		const struct diff_file_samples *fs = &s->samples[i];

		for (j = 0; j < s->profiles[i]->nr_runs; j++, r++) {
			/* a run --drop-run left out is not compared: nor is its unnamed part */
			if (!fs->nr_events || !keep[r])
				continue;
			*named += fs->cell[j * fs->nr_events].n;
			*all += fs->cell[j * fs->nr_events].all;
		}
	}
	free(keep);
	return *all > 0;
}

void diff_side__release_keys(struct diff_side *s)
{
	size_t i;

	for (i = 0; i < s->nr_runs; i++) {
		free((void *)s->runs[i].items);
		free((void *)s->runs[i].ids);
	}
	for (i = 0; s->caches && i < s->nr; i++)
		keycache__free(s->caches[i]);
	free(s->caches);
	free(s->runs);
	s->caches = NULL;
	s->runs = NULL;
	s->nr_runs = 0;
}

void diff_side__drop_views(struct diff_side *s)
{
	size_t i;

	for (i = 0; s->views && i < s->nr; i++) {
		symview__release(s->views[i]);
		free(s->views[i]);
	}
	free(s->views);
	s->views = NULL;
}

void diff_side__release(struct diff_side *s)
{
	size_t i;

	diff_side__drop_views(s);
	for (i = 0; i < s->nr; i++)
		profile__free(s->profiles ? s->profiles[i] : NULL);
	for (i = 0; i < s->nr_runs; i++) {
		free((void *)s->runs[i].items);
		free((void *)s->runs[i].ids);
	}
	for (i = 0; s->caches && i < s->nr; i++)
		keycache__free(s->caches[i]);
	for (i = 0; s->samples && i < s->nr; i++)
		diff_file_samples__release(&s->samples[i]);
	free(s->samples);
	free(s->orig);
	free(s->caches);
	free(s->profiles);
	free(s->runs);
	for (i = 0; s->own_paths && i < s->nr; i++)
		free(s->own_paths[i]);
	free(s->own_paths);
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
	struct symview *view;		/* the file's collapse (diff_side.views) */
	struct diff_run *runs;		/* one per run of p */
	struct diff_file_samples samples;	/* runs[].samples point into it */
	struct errmsg e;
	int err;
};

/*
 * One diff_run per run of j->p: the file's one collapse (every frame, an
 * unresolved one "[unknown]" per DSO), the keys' view derived from it (the
 * same arrays unless a frame is unresolved or inlined), and a key cache.
 */
static void load_job__keys(struct load_job *j)
{
	struct symview_opts fine = DIFF_SIDE_VIEW, keys = { 0 };
	struct symview v;
	uint32_t r;

	j->view = xmalloc(sizeof(*j->view));
	symview__init_opts(j->view, j->p, &fine);
	symview__derive(&v, j->view, &keys);
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
	if (keycache__error(j->cache))
		j->err = errmsg__set(&j->e, keycache__error(j->cache), "cannot read the whole "
				     "chains of '%s': %s", j->path, strerror(-keycache__error(j->cache)));
	keycache__done(j->cache);	/* it keeps the names the runs borrow */
	for (r = 0; r < j->p->nr_runs; r++) {
		j->runs[r].nr_ids = keycache__nr(j->cache);
		j->runs[r].spellings = keycache__spellings(j->cache);
	}
	diff_file_samples__count(&j->samples, j->p, &v, j->runs);
	symview__release(&v);
}

static void load_job__run(void *ctx, size_t i)
{
	struct load_job *j = &((struct load_job *)ctx)[i];

	if (!j->p)	/* else opened by the caller (diff_sides__load) */
		j->err = datafile__load(j->path, &j->p, &j->e);
	if (!j->err && j->p->nr_runs)
		load_job__keys(j);
}

static struct load_job *load_all(char **paths, struct profile **opened, size_t n)
{
	struct load_job *jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	size_t i;

	for (i = 0; i < n; i++) {
		jobs[i].path = paths[i];
		jobs[i].p = opened[i];
	}
	parallel__each(n, load_job__run, jobs);
	return jobs;
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
		symview__release(jobs[i].view);
		free(jobs[i].view);
		diff_file_samples__release(&jobs[i].samples);
		profile__free(jobs[i].p);
	}
	free(jobs);
}

/* Take the side's loaded profiles, caches and runs from jobs (now the side's to free). */
static int diff_side__take(struct diff_side *s, struct load_job *jobs, struct errmsg *e)
{
	size_t i, total = 0;

	if (!s->profiles)
		s->profiles = xcalloc(s->nr, sizeof(*s->profiles));
	s->caches = xcalloc(s->nr, sizeof(*s->caches));
	s->views = xcalloc(s->nr, sizeof(*s->views));
	s->samples = xcalloc(s->nr, sizeof(*s->samples));
	for (i = 0; i < s->nr; i++) {
		if (jobs[i].err) {
			*e = jobs[i].e;
			return jobs[i].err;
		}
		if (!jobs[i].p->nr_runs)
			return errmsg__set(e, -EINVAL, "'%s' holds no runs; record it again", s->paths[i]);
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
		s->views[i] = jobs[i].view;
		jobs[i].view = NULL;
		s->samples[i] = jobs[i].samples;
		memset(&jobs[i].samples, 0, sizeof(jobs[i].samples));
		s->profiles[i] = jobs[i].p;
		jobs[i].p = NULL;
	}
	return 0;
}

/*
 * The side's STORE:COMMIT paths as the files of their pushes (store.h),
 * fetched into f[*nf..]: *load (NULL when the side has none) the files to
 * load, and the side's paths their names from now on (own_paths).
 */
static int diff_side__fetch(struct diff_side *s, char ***load, struct store_files **f, size_t *nf,
			    size_t *alloc_f, struct errmsg *e)
{
	char **names = NULL, **files = NULL;
	size_t i, j, n = 0, alloc = 0, split;
	int err = 0;

	*load = NULL;
	for (i = 0; i < s->nr && !store__is_ref(s->paths[i], &split); i++)
		;
	if (i == s->nr)
		return 0;
	for (i = 0; i < s->nr && !err; i++) {
		struct store_files *x;
		size_t nr = 1;
		char **src = &s->paths[i], **fsrc = &s->paths[i];

		if (store__is_ref(s->paths[i], &split)) {
			XGROW(*f, *alloc_f, *nf);
			x = &(*f)[*nf];
			err = store_files__fetch(x, s->paths[i], split, s->machine, s->benchmark, e);
			if (err < 0)
				break;
			(*nf)++;
			src = x->names, fsrc = x->paths, nr = x->nr;
		}
		for (j = 0; j < nr; j++) {
			XGROW(names, alloc, n);
			files = xrealloc(files, alloc * sizeof(*files));
			files[n] = fsrc[j];
			names[n++] = xstrdup(src[j]);
		}
	}
	if (err < 0) {
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
		free(files);
		return err;
	}
	s->paths = s->own_paths = names;
	s->nr = n;
	*load = files;
	return 0;
}

int diff_sides__load(struct diff_side *s, size_t nr_sides, struct errmsg *e)
{
	size_t n = 0, i, k, at = 0, nf = 0, alloc_f = 0;
	char **paths, ***load = xcalloc(nr_sides + 1, sizeof(*load));
	struct store_files *fetched = NULL;
	struct profile **opened;
	struct load_job *jobs;
	int err = 0;

	for (k = 0; k < nr_sides && !err; k++)
		err = diff_side__fetch(&s[k], &load[k], &fetched, &nf, &alloc_f, e);
	for (k = 0; k < nr_sides && !err; k++)
		n += s[k].nr;
	paths = xcalloc(n ? n : 1, sizeof(*paths));
	opened = xcalloc(n ? n : 1, sizeof(*opened));
	/* profiles the caller opened go to the jobs, and come back with the rest */
	for (k = 0; k < nr_sides && !err; k++)
		for (i = 0; i < s[k].nr; i++, at++) {
			paths[at] = load[k] ? load[k][i] : s[k].paths[i];
			if (s[k].profiles && !load[k]) {
				opened[at] = s[k].profiles[i];
				s[k].profiles[i] = NULL;
			}
		}
	jobs = load_all(paths, opened, n);
	free(opened);
	/* the store's files are in memory now, or failed: off the disk either way */
	for (i = 0; i < nf; i++)
		store_files__release(&fetched[i]);
	free(fetched);
	for (k = 0; k < nr_sides; k++)
		free(load[k]);
	free(load);
	for (k = 0, at = 0; k < nr_sides && !err; at += s[k].nr, k++)
		err = diff_side__take(&s[k], jobs + at, e);
	load_jobs__free(jobs, n);
	free(paths);
	return err;
}

/* The side named by arg's text before its colon (len bytes), or NULL. */
static struct diff_side *side_named(struct diff_side *s, size_t nr_sides, const char *arg,
				    size_t len)
{
	size_t k;

	for (k = 0; k < nr_sides; k++)
		if (strlen(s[k].name) == len && !strncmp(arg, s[k].name, len))
			return &s[k];
	return NULL;
}

int diff_sides__drop(struct diff_side *s, size_t nr_sides, const struct strlist *drops,
		     struct errmsg *e)
{
	/* two sides: base, new; more: base, new1, new2, ... */
	const char *expect = nr_sides == 2 ? "base:N or new:N" : "base:N or newK:N";
	size_t i, j;

	for (i = 0; i < drops->nr; i++) {
		const char *arg = drops->items[i], *colon = strchr(arg, ':');
		struct diff_side *x = colon ? side_named(s, nr_sides, arg, (size_t)(colon - arg)) : NULL;
		char *end;
		unsigned long n;

		if (!x || !colon[1] || colon[1] == '-')
			return errmsg__set(e, -EINVAL, "--drop-run '%s': expected %s", arg, expect);
		errno = 0;
		n = strtoul(colon + 1, &end, 10);
		if (errno || *end)
			return errmsg__set(e, -EINVAL, "--drop-run '%s': expected %s", arg, expect);
		for (j = 0; j < x->nr_runs && x->orig[j] != n; j++)
			;
		if (j == x->nr_runs)
			return errmsg__set(e, -EINVAL, "--drop-run '%s': %s has runs 0 to %zu%s", arg, x->name,
					   x->nr_runs + x->nr_dropped - 1,
					   n < x->nr_runs + x->nr_dropped ? ", and that one is dropped already" : "");
		if (x->nr_runs == 1)
			return errmsg__set(e, -EINVAL, "--drop-run '%s': it is the last run of %s", arg, x->name);
		/* the run's own arrays (its keys are the file's cache's, kept) */
		free((void *)x->runs[j].items);
		free((void *)x->runs[j].ids);
		memmove(&x->runs[j], &x->runs[j + 1], (x->nr_runs - j - 1) * sizeof(*x->runs));
		memmove(&x->orig[j], &x->orig[j + 1], (x->nr_runs - j - 1) * sizeof(*x->orig));
		x->nr_runs--;
		x->nr_dropped++;
	}
	return 0;
}

bool *diff_side__kept(const struct diff_side *s)
{
	size_t total = 0, i;
	bool *keep;

	/* from the files and orig[], which diff_side__release_keys keeps (not nr_runs) */
	for (i = 0; i < s->nr; i++)
		total += s->profiles[i]->nr_runs;
	keep = xcalloc(total + 1, sizeof(*keep));
	for (i = 0; i + s->nr_dropped < total; i++)
		keep[s->orig[i]] = true;
	return keep;
}

void diff_side__events(const struct diff_side *s, bool sampling_only, char *buf, size_t size)
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

uint64_t diff_side__lost(const struct diff_side *s, uint64_t *kept)
{
	return profile__run_lost((const struct profile *const *)s->profiles, s->nr, kept, NULL);
}

void diff_side__run_name(const struct diff_side *s, size_t i, char *buf, size_t size)
{
	size_t f;

	for (f = 0; f < s->nr && i >= s->profiles[f]->nr_runs; f++)
		i -= s->profiles[f]->nr_runs;
	snprintf(buf, size, "%s run %zu", f < s->nr ? s->paths[f] : "?", i);
}

/*
 * cmdline without what differs between files of one workload: the
 * output's name (-o F, -oF, --output F, --output=F) before "--"; the
 * command after "--" verbatim.  Words are split at blanks: a quoted name
 * with a blank in it is compared as its pieces, which is as good.
 */
static char *cmdline_key(const char *cmdline)
{
	char *key = xmalloc(strlen(cmdline) + 1), *k = key;
	const char *s = cmdline;
	bool skip_next = false;

	while (*s) {
		size_t len = strcspn(s, " ");

		if (len == 2 && !strncmp(s, "--", 2)) {
			snprintf(k, strlen(s) + 1, "%s", s);	/* the command, as recorded */
			return key;
		}
		if (skip_next)
			skip_next = false;
		else if ((len == 2 && !strncmp(s, "-o", 2)) || (len == 8 && !strncmp(s, "--output", 8)))
			skip_next = true;
		else if (!(len > 2 && !strncmp(s, "-o", 2)) && strncmp(s, "--output=", 9)) {
			memcpy(k, s, len);
			k += len;
			*k++ = ' ';
		}
		s += len;
		s += strspn(s, " ");
	}
	*k = '\0';
	return key;
}

int diff_side__cmdlines_differ(const struct diff_side *s, size_t *a, size_t *b)
{
	const char *first = s->nr ? profile__meta(s->profiles[0], "cmdline") : NULL;
	char *k0, *ki;
	size_t i;
	int ret = 0;

	if (!first)
		return 0;
	k0 = cmdline_key(first);
	for (i = 1; i < s->nr && !ret; i++) {
		const char *c = profile__meta(s->profiles[i], "cmdline");

		if (!c)
			continue;
		ki = cmdline_key(c);
		if (strcmp(k0, ki)) {
			*a = 0;
			*b = i;
			ret = 1;
		}
		free(ki);
	}
	free(k0);
	return ret;
}

void diff_side__failures(const struct diff_side *s, struct diff_side_failures *f)
{
	size_t rl = 0, sl = 0, i;
	char what[64];
	uint32_t r;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < s->nr; i++)
		for (r = 0; r < s->profiles[i]->nr_runs; r++) {
			f->total++;
			if (!profile__run_status(s->profiles[i], r, what, sizeof(what)))
				continue;
			if (f->failed++ < 8 && rl < sizeof(f->runs))
				rl += (size_t)snprintf(f->runs + rl, sizeof(f->runs) - rl, "%s%s run %u (%s)",
						       rl ? ", " : "", s->paths[i], r, what);
			if (!strstr(f->statuses, what) && sl < sizeof(f->statuses))
				sl += (size_t)snprintf(f->statuses + sl, sizeof(f->statuses) - sl, "%s%s",
						       sl ? ", " : "", what);
		}
}
