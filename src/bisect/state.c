/*
 * state: a bisection between processes (bisect.h).  A kernel step is
 * build, install, reboot, record: no process lives across it, so `next`
 * and `judge` read and write this file.  It is text, a keyword and its
 * value a line, ending with the SHA-256 of everything above it:
 *
 *	mmprof-bisect-state 1
 *	good /abs/good.data         (as many as given; a STORE:COMMIT too)
 *	bad /abs/bad.data
 *	key perf-profile.children.*.__split_huge_pmd     (none: the score)
 *	score GLOB                  (optional)
 *	alpha 0.05 / beta 0.05 / confidence 0.95 / budget 10
 *	commit SHA                  (oldest first; the last is the bad end)
 *	step INDEX VERDICT LLR RUNS (each judgement, in order)
 *	data INDEX PATH             (each file judged)
 *	pending INDEX RUNS          (the commit next named, runs so far)
 *	pfile PATH                  (its files so far)
 *	sha256 HEX
 *
 * The posterior is not stored: it is the steps' product, recomputed on
 * load, so that it never drifts from the record of what was judged.  A
 * file of another kind or version, or whose checksum fails (a torn copy,
 * an edit), is refused: a bisection that read it would answer wrongly.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/bisect.h"
#include "mmprof/outbuf.h"
#include "mmprof/outfile.h"
#include "mmprof/sha256.h"
#include "mmprof/xalloc.h"

#define STATE_MAGIC "mmprof-bisect-state 1"
/* A state longer than this is no state of ours (15,000 commits take 700 KB). */
#define STATE_MAX (64u << 20)

void bisect_state__init(struct bisect_state *s)
{
	s->pending = -1;
	s->data = xcalloc(s->commits.nr + 1, sizeof(*s->data));
}

void bisect_state__release(struct bisect_state *s)
{
	size_t i;

	strlist__release(&s->good);
	strlist__release(&s->bad);
	strlist__release(&s->keys);
	free(s->score);
	if (s->data)
		for (i = 0; i < s->commits.nr; i++)
			free(s->data[i]);
	free(s->data);
	strlist__release(&s->commits);
	free(s->steps);
	strlist__release(&s->pending_files);
	memset(s, 0, sizeof(*s));
}

void bisect_state__add_data(struct bisect_state *s, size_t i, const char *path)
{
	size_t old;

	if (i >= s->commits.nr)
		return;
	old = s->data[i] ? strlen(s->data[i]) : 0;
	s->data[i] = xrealloc(s->data[i], old + strlen(path) + 2);
	if (old)
		s->data[i][old++] = '\n';
	memcpy(s->data[i] + old, path, strlen(path) + 1);
}

static void add_step(struct bisect_state *s, size_t commit, enum bisect_verdict v, double llr,
		     size_t runs)
{
	xgrow((void **)&s->steps, &s->alloc_steps, s->nr_steps + 1, sizeof(*s->steps));
	s->steps[s->nr_steps++] = (struct bisect_step){ commit, v, llr, runs };
}

void bisect_state__posterior(const struct bisect_state *s, struct bisect_posterior *q)
{
	struct bisect_sprt t;
	size_t i;

	bisect_sprt__init(&t, s->alpha, s->beta);
	bisect_posterior__init(q, s->commits.nr);
	for (i = 0; i < s->nr_steps; i++) {
		if (s->steps[i].verdict == BISECT_SKIP)
			q->skipped[s->steps[i].commit] = true;
		else
			bisect_posterior__update(q, &t, s->steps[i].commit, s->steps[i].llr);
	}
}

size_t bisect_state__runs(const struct bisect_state *s)
{
	size_t i, runs = s->pending_runs;

	for (i = 0; i < s->nr_steps; i++)
		runs += s->steps[i].runs;
	return runs;
}

bool bisect_state__done(const struct bisect_state *s)
{
	struct bisect_posterior q;
	size_t a, b;
	bool done;

	bisect_state__posterior(s, &q);
	done = bisect_posterior__best(&q, &a, &b) >= s->confidence || bisect_posterior__next(&q) < 0;
	bisect_posterior__release(&q);
	return done;
}

bool bisect_state__next(struct bisect_state *s, size_t *commit, size_t *runs)
{
	struct bisect_posterior q;
	long j;

	if (s->pending >= 0) {
		*commit = (size_t)s->pending;
		*runs = s->pending_more ? s->pending_more : BISECT_FIRST_RUNS;
		return true;
	}
	if (bisect_state__done(s))
		return false;
	bisect_state__posterior(s, &q);
	j = bisect_posterior__next(&q);
	bisect_posterior__release(&q);
	if (j < 0)
		return false;
	s->pending = j;
	s->pending_runs = 0;
	s->pending_more = BISECT_FIRST_RUNS;
	*commit = (size_t)j;
	*runs = BISECT_FIRST_RUNS;
	return true;
}

size_t bisect_state__apply(struct bisect_state *s, const struct bisect_judgement *j,
			   char *const *files, size_t nr)
{
	size_t i, c = (size_t)s->pending;

	for (i = 0; i < nr; i++)
		strlist__add(&s->pending_files, files[i]);
	s->pending_runs = j->verdict == BISECT_SKIP ? s->pending_runs : j->runs;
	if (j->verdict == BISECT_MORE && s->pending_runs < (size_t)s->budget) {
		size_t left = (size_t)s->budget - s->pending_runs;

		s->pending_more = j->more < left ? j->more : left;
		return c;
	}
	add_step(s, c, j->verdict, j->verdict == BISECT_SKIP ? 0 : j->llr, s->pending_runs);
	for (i = 0; i < s->pending_files.nr; i++)
		bisect_state__add_data(s, c, s->pending_files.items[i]);
	strlist__release(&s->pending_files);
	s->pending = -1;
	s->pending_runs = s->pending_more = 0;
	return c;
}

static const char *const verdict_words[] = { "good", "bad", "undecided", "skip" };

static void put_list(struct outbuf *b, const char *kw, const struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		outbuf__printf(b, "%s %s\n", kw, l->items[i]);
}

static bool has_newline(const struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (strchr(l->items[i], '\n') || !*l->items[i])
			return true;
	return false;
}

int bisect_state__save(const struct bisect_state *s, const char *path, struct errmsg *e)
{
	struct outbuf b = { 0 };
	struct outfile f = { 0 };
	unsigned char d[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	size_t i;
	int err;

	if (has_newline(&s->good) || has_newline(&s->bad) || has_newline(&s->keys) ||
	    has_newline(&s->commits) || has_newline(&s->pending_files) ||
	    (s->score && strchr(s->score, '\n')))
		return errmsg__set(e, -EINVAL, "cannot keep a bisection whose files, keys or commits "
				   "hold a newline or are empty; rename them");
	outbuf__puts(&b, STATE_MAGIC "\n");
	put_list(&b, "good", &s->good);
	put_list(&b, "bad", &s->bad);
	put_list(&b, "key", &s->keys);
	if (s->score)
		outbuf__printf(&b, "score %s\n", s->score);
	outbuf__printf(&b, "alpha %.17g\nbeta %.17g\nconfidence %.17g\nbudget %d\n", s->alpha, s->beta,
		       s->confidence, s->budget);
	put_list(&b, "commit", &s->commits);
	for (i = 0; i < s->nr_steps; i++)
		outbuf__printf(&b, "step %zu %s %.17g %zu\n", s->steps[i].commit,
			       verdict_words[s->steps[i].verdict], s->steps[i].llr, s->steps[i].runs);
	for (i = 0; i < s->commits.nr; i++) {
		const char *p = s->data[i], *nl;

		for (; p && *p; p = *nl ? nl + 1 : nl) {
			nl = strchrnul(p, '\n');
			outbuf__printf(&b, "data %zu %.*s\n", i, (int)(nl - p), p);
		}
	}
	if (s->pending >= 0) {
		outbuf__printf(&b, "pending %ld %zu %zu\n", s->pending, s->pending_runs, s->pending_more);
		put_list(&b, "pfile", &s->pending_files);
	}
	sha256__digest(b.s, b.len, d);
	sha256__hex(d, hex);
	outbuf__printf(&b, "sha256 %s\n", hex);

	err = outfile__open(&f, path, e);
	if (err < 0)
		goto out;
	if (fwrite(b.s, 1, b.len, f.fp) != b.len || fflush(f.fp) || fsync(f.fd))
		err = errmsg__set(e, -errno ? -errno : -EIO, "cannot write '%s': %s", path,
				  strerror(errno ? errno : EIO));
	err = outfile__close(&f, err, e);
out:
	outbuf__release(&b);
	return err;
}

/* A line's number after kw and a blank: 0, or -1 when it does not read so. */
static int read_num(const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return errno || end == v || *end || !isfinite(*out) ? -1 : 0;
}

static int read_index(const char *v, const struct bisect_state *s, size_t *i, const char **rest)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v || (*end && *end != ' ') || n >= s->commits.nr)
		return -1;
	*i = (size_t)n;
	*rest = *end ? end + 1 : end;
	return 0;
}

static int parse_line(struct bisect_state *s, char *line)
{
	char *v = strchr(line, ' ');
	const char *rest;
	double x;
	size_t i;

	if (!v || !v[1])
		return -1;
	*v++ = '\0';
	if (!strcmp(line, "good"))
		strlist__add(&s->good, v);
	else if (!strcmp(line, "bad"))
		strlist__add(&s->bad, v);
	else if (!strcmp(line, "key"))
		strlist__add(&s->keys, v);
	else if (!strcmp(line, "score") && !s->score)
		s->score = xstrdup(v);
	else if (!strcmp(line, "alpha"))
		return read_num(v, &s->alpha) || !(s->alpha > 0 && s->alpha < 0.5) ? -1 : 0;
	else if (!strcmp(line, "beta"))
		return read_num(v, &s->beta) || !(s->beta > 0 && s->beta < 0.5) ? -1 : 0;
	else if (!strcmp(line, "confidence"))
		return read_num(v, &s->confidence) || !(s->confidence > 0.5 && s->confidence < 1) ? -1 : 0;
	else if (!strcmp(line, "budget")) {
		if (read_num(v, &x) || x < 1 || x > 1000 || x != floor(x))
			return -1;
		s->budget = (int)x;
	} else if (!strcmp(line, "commit")) {
		if (s->nr_steps || s->data)
			return -1;
		strlist__add(&s->commits, v);
	} else if (!strcmp(line, "step") || !strcmp(line, "data") || !strcmp(line, "pending")) {
		if (!s->data)
			bisect_state__init(s);
		if (read_index(v, s, &i, &rest) < 0 || !*rest)
			return -1;
		if (!strcmp(line, "data")) {
			bisect_state__add_data(s, i, rest);
		} else if (!strcmp(line, "pending")) {
			unsigned long long runs, more;
			int used = 0;

			if (sscanf(rest, "%llu %llu%n", &runs, &more, &used) != 2 || rest[used] ||
			    more > 1000)
				return -1;
			s->pending = (long)i;
			s->pending_runs = (size_t)runs;
			s->pending_more = (size_t)more;
		} else {
			char word[16], num[64];
			unsigned long long runs;
			int k, used = 0;

			if (sscanf(rest, "%15s %63s %llu%n", word, num, &runs, &used) != 3 || rest[used] ||
			    read_num(num, &x))
				return -1;
			for (k = 0; k < 4 && strcmp(word, verdict_words[k]); k++)
				;
			if (k == 4)
				return -1;
			add_step(s, i, (enum bisect_verdict)k, x, (size_t)runs);
		}
	} else if (!strcmp(line, "pfile")) {
		if (!s->data || s->pending < 0)
			return -1;
		strlist__add(&s->pending_files, v);
	} else {
		return -1;
	}
	return 0;
}

int bisect_state__load(struct bisect_state *s, const char *path, struct errmsg *e)
{
	unsigned char d[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1], *buf = NULL, *line, *sum;
	size_t len = 0, lineno = 1;
	FILE *fp = fopen(path, "rb");
	int err = -EINVAL;

	if (!fp)
		return errmsg__set(e, -errno, errno == ENOENT ?
				   "no bisection in '%s': start one with 'mmprof bisect start'" :
				   "cannot open '%s': %s", path, strerror(errno));
	buf = xmalloc(STATE_MAX + 1);
	len = fread(buf, 1, STATE_MAX + 1, fp);
	fclose(fp);
	buf[len > STATE_MAX ? STATE_MAX : len] = '\0';
	s->pending = -1;
	if (len > STATE_MAX || strncmp(buf, STATE_MAGIC "\n", sizeof(STATE_MAGIC))) {
		errmsg__set(e, err, "'%s' is not an mmprof bisect state (of this version); "
			    "start again with 'mmprof bisect start', or name another with --state", path);
		goto out;
	}
	sum = strstr(buf, "\nsha256 ");
	if (sum && strlen(buf) == len) {
		sha256__digest(buf, (size_t)(sum + 1 - buf), d);
		sha256__hex(d, hex);
	}
	if (!sum || strlen(buf) != len || strncmp(sum + 8, hex, 2 * SHA256_LEN) ||
	    strcmp(sum + 8 + 2 * SHA256_LEN, "\n")) {
		errmsg__set(e, err, "'%s' is corrupt: its checksum does not match (a torn copy, or "
			    "an edit); start again with 'mmprof bisect start'", path);
		goto out;
	}
	sum[1] = '\0';
	line = buf + sizeof(STATE_MAGIC);
	while (*line) {
		char *nl = strchr(line, '\n');

		*nl = '\0';
		lineno++;
		if (parse_line(s, line) < 0)
			goto corrupt;
		line = nl + 1;
	}
	if (!s->good.nr || !s->bad.nr || s->commits.nr < 1 || !s->budget || !(s->alpha > 0) ||
	    !(s->beta > 0) || !(s->confidence > 0))
		goto corrupt;
	if (!s->data)
		bisect_state__init(s);
	err = 0;
	goto out;
corrupt:
	errmsg__set(e, err, "'%s' is corrupt: line %zu does not read as a bisection's; start "
		    "again with 'mmprof bisect start'", path, lineno);
out:
	free(buf);
	return err;
}
