/*
 * search: the bisection's driver, between `mmprof bisect`'s options and
 * its printing.  The commits to search (git rev-list or a file), one
 * candidate recorded batch by batch until the sequential test decides or
 * the budget is spent (git bisect run's step), the state's pending commit
 * judged and the state moved on, the whole search (next, record, judge,
 * until done), and the texts the command prints: a judgement, the answer,
 * the commit to record next.
 *
 * The caller runs COMMAND (bisect_search_opts.run: its process, its
 * environment, the caller's stdout flushed before it) and prints what is
 * said; the search decides which commit, how many runs, into which file,
 * and when to stop.  A search spends seconds to minutes of COMMAND per
 * batch: nothing here is hot.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmprof/bisect.h"
#include "mmprof/infile.h"
#include "mmprof/outbuf.h"
#include "mmprof/store.h"
#include "mmprof/xalloc.h"

/* Say b's text (whole lines) and empty b. */
static void say_out(const struct bisect_search_opts *o, struct outbuf *b)
{
	if (b->len)
		o->say(o->arg, BISECT_SAY_OUT, b->s);
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void bisect__add_side(struct strlist *l, const char *arg)
{
	char *abs;
	size_t split;

	if (store__is_ref(arg, &split) || !(abs = realpath(arg, NULL))) {
		strlist__add(l, arg);
		return;
	}
	strlist__add(l, abs);
	free(abs);
}

/*
 * git rev-list --reverse --first-parent RANGE, run without a shell, its
 * output readable from the FILE returned (NULL: it could not start);
 * *pid to wait for.
 */
static FILE *rev_list(const char *range, pid_t *pid)
{
	int fd[2];

	if (pipe(fd) < 0)
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (!*pid) {
		close(fd[0]);
		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fd[1]);
		execlp("git", "git", "rev-list", "--reverse", "--first-parent", range, "--", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	return fdopen(fd[0], "r");
}

/* The commits a bisection takes at most (git's own history has 1.3 M, the kernel's 1.4 M). */
#define BISECT_MAX_COMMITS	4000000u

int bisect__read_commits(const char *range, const char *file, struct strlist *l, struct errmsg *e)
{
	char line[4096];
	FILE *fp;
	pid_t pid = 0;
	int status = 0, err;

	if (range && (!strstr(range, "..") || *range == '-'))
		return errmsg__set(e, -EINVAL, "--range '%s': expected A..B (good..bad)", range);
	/* a device never ends: --commits /dev/zero read for ever */
	if (file && (err = infile__check(file, "--commits file", e)))
		return err;
	fp = file ? fopen(file, "r") : rev_list(range, &pid);
	if (!fp)
		return errmsg__set(e, errno ? -errno : -EIO, "cannot %s '%s': %s", file ? "open" : "run git rev-list",
				   file ? file : range, strerror(errno));
	while (fgets(line, sizeof(line), fp) && l->nr <= BISECT_MAX_COMMITS) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line && *line != '#')
			strlist__add(l, line);
	}
	fclose(fp);
	if (l->nr > BISECT_MAX_COMMITS) {
		/* a pipe that never ends (--commits <(yes)) grew the list without bound */
		if (pid > 0)
			kill(pid, SIGTERM);
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return errmsg__set(e, -E2BIG, "%s holds more than %u commits; bisect a shorter range",
				   file ? file : range, BISECT_MAX_COMMITS);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (status)
		return errmsg__set(e, -EINVAL, "git rev-list '%s' failed; run it in the repository, "
				   "with A..B naming the good and the bad commit", range);
	if (l->nr < 2)
		return errmsg__set(e, -EINVAL, "%s holds %zu commit%s after the good one: nothing to "
				   "bisect (the last is the bad one)", file ? file : range, l->nr,
				   l->nr == 1 ? "" : "s");
	return 0;
}

size_t bisect__fixed_runs(size_t n, size_t runs)
{
	return runs * (size_t)ceil(log2((double)(n > 1 ? n : 2)));
}

int bisect__exit_of(enum bisect_verdict v)
{
	return v == BISECT_GOOD ? BISECT_EXIT_GOOD : v == BISECT_BAD ? BISECT_EXIT_BAD :
	       v == BISECT_SKIP ? BISECT_EXIT_SKIP : BISECT_EXIT_MORE;
}

void bisect_judgement__write(struct outbuf *b, const struct bisect_judgement *j, const char *commit)
{
	size_t i;

	outbuf__printf(b, "bisect:%s%s %s: %s\n", commit ? " " : "", commit ? commit : "",
		       bisect_verdict__name(j->verdict), j->why);
	for (i = 0; i < j->m.nr; i++)
		outbuf__printf(b, "  on %s: good %.4g, bad %.4g, a run's spread %.3g\n", j->m.keys[i].key,
			       j->m.keys[i].good, j->m.keys[i].bad, sqrt(j->m.keys[i].var));
	if (j->verdict == BISECT_MORE)
		outbuf__printf(b, "bisect: undecided (thresholds %+.2f and %+.2f): record %zu more run%s\n",
			       j->t.lower, j->t.upper, j->more, j->more == 1 ? "" : "s");
}

size_t bisect_state__write_answer(struct outbuf *b, const struct bisect_state *s)
{
	struct bisect_posterior q;
	size_t a, last, runs = bisect_state__runs(s), i, steps = 0;
	double p;

	bisect_state__posterior(s, &q);
	p = bisect_posterior__best(&q, &a, &last);
	for (i = 0; i < s->nr_steps; i++)
		steps += s->steps[i].verdict != BISECT_SKIP;
	if (a == last)
		outbuf__printf(b, "done %s %.4f\nbisect: first bad commit %s (probability %.3f)\n",
			       s->commits.items[a], p, s->commits.items[a], p);
	else
		outbuf__printf(b, "done %s %.4f\nbisect: the first bad commit is one of %s .. %s (probability "
			       "%.3f; the skipped commits between cannot be told apart)\n", s->commits.items[a],
			       p, s->commits.items[a], s->commits.items[last], p);
	outbuf__printf(b, "bisect: %zu runs in %zu judgements; a bisection of 3 runs a step spends %zu on "
		       "these %zu commits\n", runs, steps, bisect__fixed_runs(s->commits.nr, 3), s->commits.nr);
	if (p < s->confidence)
		outbuf__printf(b, "bisect: below the confidence %.2f: no commit is left to test apart from "
			       "skipped ones\n", s->confidence);
	bisect_posterior__release(&q);
	return a;
}

void bisect_state__write_next(struct outbuf *b, const struct bisect_state *s, size_t commit, size_t runs)
{
	struct bisect_posterior q;
	double cdf = 0;
	size_t i;

	bisect_state__posterior(s, &q);
	for (i = 0; i <= commit; i++)
		cdf += q.p[i];
	bisect_posterior__release(&q);
	outbuf__printf(b, "next %s %zu\nbisect: test %s (commit %zu of %zu, P(first bad at or before it) "
		       "%.2f): record %zu %sruns, then 'mmprof bisect judge FILE'\n", s->commits.items[commit],
		       runs, s->commits.items[commit], commit + 1, s->commits.nr, cdf, runs,
		       s->pending_runs ? "more " : "");
}

int bisect_state__judge(struct bisect_state *s, const char *path, char *const *files, size_t nr,
			enum bisect_verdict *v, const struct bisect_search_opts *o)
{
	struct bisect_judge_opts jo = { &s->good, &s->bad, &s->keys, s->score, s->alpha, s->beta };
	struct bisect_judgement j;
	struct strlist all = { 0 };
	struct outbuf b = { 0 };
	struct errmsg e;
	size_t i, commit;
	int err;

	if (s->pending < 0) {
		o->say(o->arg, BISECT_SAY_SUB, "no commit is pending: run 'mmprof bisect next' first");
		return -EINVAL;
	}
	for (i = 0; i < s->pending_files.nr; i++)
		strlist__add(&all, s->pending_files.items[i]);
	for (i = 0; i < nr; i++)
		bisect__add_side(&all, files[i]);
	err = bisect__judge(&jo, all.items, all.nr, &j, &e);
	if (err < 0) {
		o->say(o->arg, BISECT_SAY_ERROR, e.msg);
		goto out;
	}
	commit = (size_t)s->pending;
	bisect_judgement__write(&b, &j, s->commits.items[commit]);
	bisect_state__apply(s, &j, all.items + s->pending_files.nr, nr);
	if (j.verdict == BISECT_MORE && s->pending < 0)
		outbuf__printf(&b, "bisect: the budget of %d runs is spent: judged by the evidence so far (%+.2f)\n",
			       s->budget, j.llr);
	if (s->pending < 0)
		outbuf__printf(&b, "git bisect %s %s\n", j.verdict == BISECT_SKIP ? "skip" :
			       j.llr >= 0 ? "bad" : "good", s->commits.items[commit]);
	say_out(o, &b);
	err = bisect_state__save(s, path, &e);
	if (err < 0) {
		o->say(o->arg, BISECT_SAY_ERROR, e.msg);
		goto out;
	}
	*v = j.verdict;
out:
	outbuf__release(&b);
	bisect_judgement__release(&j);
	strlist__release(&all);
	return err;
}

int bisect__run_candidate(const struct bisect_judge_opts *jo, int budget, const struct bisect_search_opts *o)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], line[PATH_MAX + 64];
	struct strlist files = { 0 };
	struct bisect_judgement j = { 0 };
	struct outbuf b = { 0 };
	struct errmsg e;
	size_t runs = BISECT_FIRST_RUNS, used = 0, batch, i;
	int ret = BISECT_EXIT_ERROR, st;

	snprintf(dir, sizeof(dir), "%s/mmprof-bisect.XXXXXX", o->tmpdir);
	if (!mkdtemp(dir)) {
		snprintf(line, sizeof(line), "cannot make a folder in '%s': %s", o->tmpdir, strerror(errno));
		o->say(o->arg, BISECT_SAY_SUB, line);
		return BISECT_EXIT_ERROR;
	}
	for (batch = 1;; batch++) {
		snprintf(path, sizeof(path), "%s/batch-%zu.data", dir, batch);
		st = o->run(o->arg, path, runs, batch, NULL);
		if (st) {
			outbuf__printf(&b, "bisect: skip: COMMAND %s %d in batch %zu (a failed build or run)\n",
				       st < 0 ? "could not start:" : "exited", st, batch);
			ret = BISECT_EXIT_SKIP;
			break;
		}
		strlist__add(&files, path);
		bisect_judgement__release(&j);
		if (bisect__judge(jo, files.items, files.nr, &j, &e) < 0) {
			o->say(o->arg, BISECT_SAY_ERROR, e.msg);
			break;
		}
		used = j.runs;
		outbuf__printf(&b, "bisect: batch %zu: %zu run%s recorded, %zu in all: %s\n", batch, runs,
			       runs == 1 ? "" : "s", used, bisect_verdict__name(j.verdict));
		if (j.verdict != BISECT_MORE) {
			bisect_judgement__write(&b, &j, NULL);
			outbuf__printf(&b, "bisect: %s after %zu runs (%s)\n", bisect_verdict__name(j.verdict),
				       used, j.verdict == BISECT_SKIP ? "the runs failed" :
				       "the sequential test decided");
			ret = bisect__exit_of(j.verdict);
			break;
		}
		if (used >= (size_t)budget) {
			bisect_judgement__write(&b, &j, NULL);
			/* undecided: lean where the evidence leans, unless it leans nowhere */
			ret = fabs(j.llr) < 1 ? BISECT_EXIT_SKIP : j.llr > 0 ? BISECT_EXIT_BAD : BISECT_EXIT_GOOD;
			outbuf__printf(&b, "bisect: %s after %zu runs (the budget of %d is spent undecided; the "
				       "evidence, %+.2f, %s)\n", ret == BISECT_EXIT_SKIP ? "skip" : ret ? "bad" :
				       "good", used, budget, j.llr, ret == BISECT_EXIT_SKIP ? "leans nowhere" :
				       "leans so");
			break;
		}
		runs = j.more < (size_t)budget - used ? j.more : (size_t)budget - used;
		say_out(o, &b);
	}
	say_out(o, &b);
	for (i = 0; i < files.nr; i++)
		unlink(files.items[i]);
	rmdir(dir);
	strlist__release(&files);
	bisect_judgement__release(&j);
	outbuf__release(&b);
	return ret;
}

int bisect_state__run(struct bisect_state *s, const char *path, const struct bisect_search_opts *o)
{
	char file[PATH_MAX], *dir = NULL, line[PATH_MAX + 64];
	size_t commit, runs, batch = 0, files = 0;
	enum bisect_verdict v;
	struct errmsg e;
	int err = 0, st;

	dir = xmalloc(strlen(path) + 4);
	snprintf(dir, strlen(path) + 4, "%s.d", path);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		snprintf(line, sizeof(line), "cannot make '%s': %s", dir, strerror(errno));
		o->say(o->arg, BISECT_SAY_SUB, line);
		goto out;
	}
	while (bisect_state__next(s, &commit, &runs)) {
		char *one = file;

		err = bisect_state__save(s, path, &e);
		if (err < 0) {
			o->say(o->arg, BISECT_SAY_ERROR, e.msg);
			goto out;
		}
		/* the batch counts within a commit's judgement; the file's number over the search */
		batch = s->pending_runs ? batch + 1 : 1;
		snprintf(file, sizeof(file), "%s/%s-%zu.data", dir, s->commits.items[commit], ++files);
		unlink(file);
		snprintf(line, sizeof(line), "bisect: recording %s: %zu run%s\n", s->commits.items[commit],
			 runs, runs == 1 ? "" : "s");
		o->say(o->arg, BISECT_SAY_OUT, line);
		st = o->run(o->arg, file, runs, batch, s->commits.items[commit]);
		if (st) {
			snprintf(line, sizeof(line), "bisect: COMMAND %s %d: skip %s\n",
				 st < 0 ? "could not start:" : "exited", st, s->commits.items[commit]);
			o->say(o->arg, BISECT_SAY_OUT, line);
		}
		err = bisect_state__judge(s, path, &one, 1, &v, o);
		if (err < 0)
			goto out;
	}
out:
	free(dir);
	return err;
}
