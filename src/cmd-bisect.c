/*
 * cmd-bisect: `mmprof bisect start|next|judge|run`, the first bad commit
 * of a regression found with runs spent where the noise needs them
 * (bisect.h; Documentation/bisect.md says the method and its numbers).
 *
 *   judge --good G --bad B CAND...    one candidate, no state: the exit
 *                                     status is git bisect run's
 *   start --good G --bad B --range A..B | --commits FILE
 *   next                              the commit to record and its runs
 *   judge CAND...                     the pending commit's recordings
 *   run --good G --bad B -- COMMAND   one candidate recorded adaptively
 *                                     (under git bisect run)
 *   run -- COMMAND                    the whole search from the state
 *
 * The command holds the options, COMMAND's process and the printing;
 * the test, the posterior and the state file are the module's.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "mmprof/cmd.h"
#include "mmprof/diffengine.h"
#include "mmprof/infile.h"
#include "mmprof/options.h"
#include "mmprof/outbuf.h"
#include "mmprof/store.h"
#include "mmprof/xalloc.h"

struct bisect_cmd {
	struct strlist good, bad, keys;
	const char *score, *state, *commits, *range;
	double alpha, beta, confidence;
	int budget;
};

static const char *const usage[] = {
	"mmprof bisect judge --good G.data --bad B.data [--key GLOB] CANDIDATE.data...",
	"mmprof bisect start --good G --bad B (--range A..B | --commits FILE) [--state FILE]",
	"mmprof bisect next [--state FILE]",
	"mmprof bisect judge [--state FILE] CANDIDATE.data...",
	"mmprof bisect run --good G --bad B [--budget N] -- COMMAND...",
	"mmprof bisect run [--state FILE] -- COMMAND...",
	NULL,
};

#define DEFAULT_STATE ".mmprof-bisect"
#define MAX_POS 4096

static void say_error(const char *what, const char *msg)
{
	fprintf(stderr, "mmprof bisect%s%s: %s\n", *what ? " " : "", what, msg);
}

/* An absolute path for a file side (a state is read from other folders); STORE:COMMIT as it is. */
static void add_side(struct strlist *l, const char *arg)
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

/* The commits of A..B (git rev-list) or of FILE, oldest first, into l. */
static int read_commits(const char *range, const char *file, struct strlist *l)
{
	char line[4096];
	struct errmsg e;
	FILE *fp;
	pid_t pid = 0;
	int status = 0;

	if (range && (!strstr(range, "..") || *range == '-')) {
		fprintf(stderr, "mmprof bisect: --range '%s': expected A..B (good..bad)\n", range);
		return -1;
	}
	/* a device never ends: --commits /dev/zero read for ever */
	if (file && infile__check(file, "--commits file", &e)) {
		fprintf(stderr, "mmprof bisect: %s\n", e.msg);
		return -1;
	}
	fp = file ? fopen(file, "r") : rev_list(range, &pid);
	if (!fp) {
		fprintf(stderr, "mmprof bisect: cannot %s '%s': %s\n", file ? "open" : "run git rev-list",
			file ? file : range, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp) && l->nr <= BISECT_MAX_COMMITS) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line && *line != '#')
			strlist__add(l, line);
	}
	fclose(fp);
	if (l->nr > BISECT_MAX_COMMITS) {
		/* a pipe that never ends (--commits <(yes)) grew the list without bound */
		fprintf(stderr, "mmprof bisect: %s holds more than %u commits; bisect a shorter "
			"range\n", file ? file : range, BISECT_MAX_COMMITS);
		if (pid > 0)
			kill(pid, SIGTERM);
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (status) {
		fprintf(stderr, "mmprof bisect: git rev-list '%s' failed; run it in the repository, "
			"with A..B naming the good and the bad commit\n", range);
		return -1;
	}
	if (l->nr < 2) {
		fprintf(stderr, "mmprof bisect: %s holds %zu commit%s after the good one: nothing to "
			"bisect (the last is the bad one)\n", file ? file : range, l->nr,
			l->nr == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

static int cmd_start(struct bisect_cmd *c)
{
	struct bisect_state s = { 0 };
	struct errmsg e;
	size_t i;
	int ret = EXIT_ERROR;

	if (!c->good.nr || !c->bad.nr || !c->range == !c->commits) {
		say_error("start", !c->good.nr || !c->bad.nr ? "--good and --bad are required; "
			  "see 'mmprof bisect --help'" : "one of --range A..B or --commits FILE is required");
		return EXIT_ERROR;
	}
	for (i = 0; i < c->good.nr; i++)
		add_side(&s.good, c->good.items[i]);
	for (i = 0; i < c->bad.nr; i++)
		add_side(&s.bad, c->bad.items[i]);
	for (i = 0; i < c->keys.nr; i++)
		strlist__add(&s.keys, c->keys.items[i]);
	s.score = c->score ? xstrdup(c->score) : NULL;
	s.alpha = c->alpha;
	s.beta = c->beta;
	s.confidence = c->confidence;
	s.budget = c->budget;
	if (read_commits(c->range, c->commits, &s.commits) < 0)
		goto out;
	bisect_state__init(&s);
	if (bisect_state__save(&s, c->state, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		goto out;
	}
	printf("bisect: %zu commits after the good one, the last the bad one; at most %.0f judgements "
	       "of a plain bisection.  Next: 'mmprof bisect next'\n", s.commits.nr,
	       ceil(log2((double)s.commits.nr)));
	ret = 0;
out:
	bisect_state__release(&s);
	return ret;
}

/* Runs a fixed-runs bisection of n candidates spends: runs a step, ceil(log2 n) steps. */
static size_t fixed_runs(size_t n, size_t runs)
{
	return runs * (size_t)ceil(log2((double)(n > 1 ? n : 2)));
}

/*
 * The answer's diff says why it failed; its warnings not: a commit's
 * batches are recorded with different -r by design, which the diff warns
 * of as "different command lines".
 */
static void say_line(void *arg, enum diff_say kind, const char *line)
{
	(void)arg;
	if (kind == DIFF_SAY_ERROR || kind == DIFF_SAY_FILE)
		fprintf(stderr, "mmprof bisect: %s\n", line);
}

/* The '\n'-separated paths of a commit's recordings into l, returned. */
static const struct strlist *split_lines(const char *paths, struct strlist *l)
{
	char *p = xstrdup(paths), *tok, *save;

	for (tok = strtok_r(p, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
		strlist__add(l, tok);
	free(p);
	return l;
}

/* The diff of the first bad commit (index a) against its parent, when both were recorded. */
static void answer_diff(const struct bisect_state *s, size_t a)
{
	struct strlist pf = { 0 }, bf = { 0 };
	const struct strlist *parent, *bad;
	struct diff_side sd[2];
	struct diff_engine_opts o = { .callchains = true, .limit = 10, .say = say_line };
	struct diff_result r;
	struct outbuf out = { 0 };

	if (a && s->data[a - 1])
		parent = split_lines(s->data[a - 1], &pf);
	else
		parent = a ? NULL : &s->good;
	if (s->data[a])
		bad = split_lines(s->data[a], &bf);
	else
		bad = a + 1 == s->commits.nr ? &s->bad : NULL;
	if (!parent || !bad) {
		printf("bisect: %s was not recorded; record it and compare with 'mmprof diff PARENT.data "
		       "BAD.data'\n", !parent ? "its parent" : "it");
		goto out;
	}
	sd[0] = (struct diff_side){ .name = "parent", .paths = parent->items, .nr = parent->nr };
	sd[1] = (struct diff_side){ .name = "first-bad", .paths = bad->items, .nr = bad->nr };
	o.stats.score = s->score;
	printf("\nbisect: the first bad commit against its parent (mmprof diff -g):\n");
	fflush(stdout);
	if (diff_engine__run(&o, sd, 2, &r) == 0) {
		outbuf__init_file(&out, stdout, false);
		diff_report__write(&out, &r, DIFF_FORMAT_LKP);
		outbuf__flush(&out);
		outbuf__release(&out);
	} else {
		printf("bisect: the diff failed; run 'mmprof diff' on the files above\n");
	}
	diff_result__release(&r);
out:
	strlist__release(&pf);
	strlist__release(&bf);
}

static void print_answer(const struct bisect_state *s, bool with_diff)
{
	struct bisect_posterior q;
	size_t a, b, runs = bisect_state__runs(s), i, steps = 0;
	double p;

	bisect_state__posterior(s, &q);
	p = bisect_posterior__best(&q, &a, &b);
	for (i = 0; i < s->nr_steps; i++)
		steps += s->steps[i].verdict != BISECT_SKIP;
	if (a == b)
		printf("done %s %.4f\nbisect: first bad commit %s (probability %.3f)\n", s->commits.items[a],
		       p, s->commits.items[a], p);
	else
		printf("done %s %.4f\nbisect: the first bad commit is one of %s .. %s (probability %.3f; "
		       "the skipped commits between cannot be told apart)\n", s->commits.items[a], p,
		       s->commits.items[a], s->commits.items[b], p);
	printf("bisect: %zu runs in %zu judgements; a bisection of 3 runs a step spends %zu on these "
	       "%zu commits\n", runs, steps, fixed_runs(s->commits.nr, 3), s->commits.nr);
	if (p < s->confidence)
		printf("bisect: below the confidence %.2f: no commit is left to test apart from skipped ones\n",
		       s->confidence);
	bisect_posterior__release(&q);
	if (with_diff)
		answer_diff(s, a);
}

static int load_state(const struct bisect_cmd *c, struct bisect_state *s)
{
	struct errmsg e;

	if (bisect_state__load(s, c->state, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int cmd_next(struct bisect_cmd *c)
{
	struct bisect_state s = { 0 };
	struct bisect_posterior q;
	struct errmsg e;
	size_t commit, runs, i;
	double cdf = 0;
	int ret = EXIT_ERROR;

	if (load_state(c, &s) < 0)
		goto out;
	if (!bisect_state__next(&s, &commit, &runs)) {
		print_answer(&s, true);
		ret = 0;
		goto out;
	}
	if (bisect_state__save(&s, c->state, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		goto out;
	}
	bisect_state__posterior(&s, &q);
	for (i = 0; i <= commit; i++)
		cdf += q.p[i];
	bisect_posterior__release(&q);
	printf("next %s %zu\nbisect: test %s (commit %zu of %zu, P(first bad at or before it) %.2f): "
	       "record %zu %sruns, then 'mmprof bisect judge FILE'\n", s.commits.items[commit], runs,
	       s.commits.items[commit], commit + 1, s.commits.nr, cdf, runs,
	       s.pending_runs ? "more " : "");
	ret = 0;
out:
	bisect_state__release(&s);
	return ret;
}

static int exit_of(enum bisect_verdict v)
{
	return v == BISECT_GOOD ? BISECT_EXIT_GOOD : v == BISECT_BAD ? BISECT_EXIT_BAD :
	       v == BISECT_SKIP ? BISECT_EXIT_SKIP : BISECT_EXIT_MORE;
}

static void print_judgement(const struct bisect_judgement *j, const char *commit)
{
	size_t i;

	printf("bisect:%s%s %s: %s\n", commit ? " " : "", commit ? commit : "",
	       bisect_verdict__name(j->verdict), j->why);
	for (i = 0; i < j->m.nr; i++)
		printf("  on %s: good %.4g, bad %.4g, a run's spread %.3g\n", j->m.keys[i].key,
		       j->m.keys[i].good, j->m.keys[i].bad, sqrt(j->m.keys[i].var));
	if (j->verdict == BISECT_MORE)
		printf("bisect: undecided (thresholds %+.2f and %+.2f): record %zu more run%s\n",
		       j->t.lower, j->t.upper, j->more, j->more == 1 ? "" : "s");
}

/* Judge files against the state's pending commit and move the state on. */
static int judge_state(struct bisect_cmd *c, struct bisect_state *s, char *const *files, size_t nr,
		       enum bisect_verdict *out)
{
	struct bisect_judge_opts o = { &s->good, &s->bad, &s->keys, s->score, s->alpha, s->beta };
	struct bisect_judgement j;
	struct strlist all = { 0 };
	struct errmsg e;
	size_t i, commit;
	int ret = -1;

	if (s->pending < 0) {
		say_error("judge", "no commit is pending: run 'mmprof bisect next' first");
		return -1;
	}
	for (i = 0; i < s->pending_files.nr; i++)
		strlist__add(&all, s->pending_files.items[i]);
	for (i = 0; i < nr; i++)
		add_side(&all, files[i]);
	if (bisect__judge(&o, all.items, all.nr, &j, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		goto out;
	}
	commit = (size_t)s->pending;
	print_judgement(&j, s->commits.items[commit]);
	bisect_state__apply(s, &j, all.items + s->pending_files.nr, nr);
	if (j.verdict == BISECT_MORE && s->pending < 0)
		printf("bisect: the budget of %d runs is spent: judged by the evidence so far (%+.2f)\n",
		       s->budget, j.llr);
	if (s->pending < 0)
		printf("git bisect %s %s\n", j.verdict == BISECT_SKIP ? "skip" :
		       j.llr >= 0 ? "bad" : "good", s->commits.items[commit]);
	if (bisect_state__save(s, c->state, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		goto out;
	}
	*out = j.verdict;
	ret = 0;
out:
	bisect_judgement__release(&j);
	strlist__release(&all);
	return ret;
}

static int cmd_judge(struct bisect_cmd *c, char **pos, int n)
{
	struct bisect_judgement j;
	struct bisect_state s = { 0 };
	enum bisect_verdict v;
	struct errmsg e;
	int ret = BISECT_EXIT_ERROR;

	if (n < 1) {
		say_error("judge", "expected the candidate's .data file(s); see 'mmprof bisect --help'");
		return BISECT_EXIT_ERROR;
	}
	if (c->good.nr || c->bad.nr) {
		struct bisect_judge_opts o = { &c->good, &c->bad, &c->keys, c->score, c->alpha, c->beta };

		if (!c->good.nr || !c->bad.nr) {
			say_error("judge", "--good and --bad go together (or neither, with a state)");
			return BISECT_EXIT_ERROR;
		}
		if (bisect__judge(&o, pos, (size_t)n, &j, &e) < 0) {
			fprintf(stderr, "mmprof: %s\n", e.msg);
		} else {
			print_judgement(&j, NULL);
			ret = exit_of(j.verdict);
		}
		bisect_judgement__release(&j);
		return ret;
	}
	if (load_state(c, &s) < 0)
		goto out;
	if (judge_state(c, &s, pos, (size_t)n, &v) < 0)
		goto out;
	ret = exit_of(v);
	if (s.pending < 0 && bisect_state__done(&s))
		print_answer(&s, true);
out:
	bisect_state__release(&s);
	return ret;
}

/*
 * Run COMMAND once with the output path, runs and batch in the
 * environment; its exit status (a signal: 128 + it), or -1 when it could
 * not be started.
 */
static int run_command(char **argv, const char *output, size_t runs, size_t batch,
		       const char *commit)
{
	char num[32];
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setenv("MMPROF_BISECT_OUTPUT", output, 1);
		snprintf(num, sizeof(num), "%zu", runs);
		setenv("MMPROF_BISECT_RUNS", num, 1);
		snprintf(num, sizeof(num), "%zu", batch);
		setenv("MMPROF_BISECT_BATCH", num, 1);
		if (commit)
			setenv("MMPROF_BISECT_COMMIT", commit, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "mmprof bisect run: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * One candidate, no state (git bisect run): batches of COMMAND until the
 * test decides or the budget is spent; the files in a private folder.
 */
static int run_one(struct bisect_cmd *c, char **argv)
{
	struct bisect_judge_opts o = { &c->good, &c->bad, &c->keys, c->score, c->alpha, c->beta };
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct strlist files = { 0 };
	struct bisect_judgement j = { 0 };
	struct errmsg e;
	size_t runs = BISECT_FIRST_RUNS, used = 0, batch, i;
	int ret = BISECT_EXIT_ERROR, st;

	snprintf(dir, sizeof(dir), "%s/mmprof-bisect.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mmprof bisect run: cannot make a folder in '%s': %s\n", tmp, strerror(errno));
		return BISECT_EXIT_ERROR;
	}
	for (batch = 1;; batch++) {
		snprintf(path, sizeof(path), "%s/batch-%zu.data", dir, batch);
		st = run_command(argv, path, runs, batch, NULL);
		if (st) {
			printf("bisect: skip: COMMAND %s %d in batch %zu (a failed build or run)\n",
			       st < 0 ? "could not start:" : "exited", st, batch);
			ret = BISECT_EXIT_SKIP;
			break;
		}
		strlist__add(&files, path);
		bisect_judgement__release(&j);
		if (bisect__judge(&o, files.items, files.nr, &j, &e) < 0) {
			fprintf(stderr, "mmprof: %s\n", e.msg);
			break;
		}
		used = j.runs;
		printf("bisect: batch %zu: %zu run%s recorded, %zu in all: %s\n", batch, runs,
		       runs == 1 ? "" : "s", used, bisect_verdict__name(j.verdict));
		if (j.verdict != BISECT_MORE) {
			print_judgement(&j, NULL);
			printf("bisect: %s after %zu runs (%s)\n", bisect_verdict__name(j.verdict), used,
			       j.verdict == BISECT_SKIP ? "the runs failed" : "the sequential test decided");
			ret = exit_of(j.verdict);
			break;
		}
		if (used >= (size_t)c->budget) {
			print_judgement(&j, NULL);
			/* undecided: lean where the evidence leans, unless it leans nowhere */
			ret = fabs(j.llr) < 1 ? BISECT_EXIT_SKIP : j.llr > 0 ? BISECT_EXIT_BAD : BISECT_EXIT_GOOD;
			printf("bisect: %s after %zu runs (the budget of %d is spent undecided; the evidence, "
			       "%+.2f, %s)\n", ret == BISECT_EXIT_SKIP ? "skip" : ret ? "bad" : "good", used,
			       c->budget, j.llr, ret == BISECT_EXIT_SKIP ? "leans nowhere" : "leans so");
			break;
		}
		runs = j.more < (size_t)c->budget - used ? j.more : (size_t)c->budget - used;
	}
	for (i = 0; i < files.nr; i++)
		unlink(files.items[i]);
	rmdir(dir);
	strlist__release(&files);
	bisect_judgement__release(&j);
	return ret;
}

/* The whole search from the state: next, COMMAND, judge, until done. */
static int run_state(struct bisect_cmd *c, char **argv)
{
	struct bisect_state s = { 0 };
	char path[PATH_MAX], *dir = NULL;
	size_t commit, runs, batch = 0, files = 0;
	enum bisect_verdict v;
	struct errmsg e;
	int ret = BISECT_EXIT_ERROR, st;

	if (load_state(c, &s) < 0)
		goto out;
	dir = xmalloc(strlen(c->state) + 4);
	snprintf(dir, strlen(c->state) + 4, "%s.d", c->state);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "mmprof bisect run: cannot make '%s': %s\n", dir, strerror(errno));
		goto out;
	}
	while (bisect_state__next(&s, &commit, &runs)) {
		char *one = path;

		if (bisect_state__save(&s, c->state, &e) < 0) {
			fprintf(stderr, "mmprof: %s\n", e.msg);
			goto out;
		}
		/* the batch counts within a commit's judgement; the file's number over the search */
		batch = s.pending_runs ? batch + 1 : 1;
		snprintf(path, sizeof(path), "%s/%s-%zu.data", dir, s.commits.items[commit], ++files);
		unlink(path);
		printf("bisect: recording %s: %zu run%s\n", s.commits.items[commit], runs,
		       runs == 1 ? "" : "s");
		st = run_command(argv, path, runs, batch, s.commits.items[commit]);
		if (st)
			printf("bisect: COMMAND %s %d: skip %s\n", st < 0 ? "could not start:" : "exited",
			       st, s.commits.items[commit]);
		if (judge_state(c, &s, &one, 1, &v) < 0)
			goto out;
	}
	print_answer(&s, true);
	ret = 0;
out:
	free(dir);
	bisect_state__release(&s);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_cmd c = { .alpha = BISECT_ALPHA, .beta = BISECT_BETA,
				.confidence = BISECT_CONFIDENCE, .budget = BISECT_BUDGET };
	const struct option_desc opts[] = {
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Sides and keys", 0, NULL },
		{ OPT_LIST, 0, "good", &c.good, "FILE", "the good side: .data files or STORE:COMMIT (repeatable)", 0, NULL },
		{ OPT_LIST, 0, "bad", &c.bad, "FILE", "the bad side: .data files or STORE:COMMIT (repeatable)", 0, NULL },
		{ OPT_LIST, 0, "key", &c.keys, "GLOB", "judge on keys matching GLOB, as a gate writes it (default: the score)", 0, NULL },
		{ OPT_STRING, 0, "score", &c.score, "GLOB", "the workload's score keys (default: diff's)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "The test", 0, NULL },
		{ OPT_DOUBLE, 0, "alpha", &c.alpha, "P", "error rate of calling a good commit bad (default 0.05)", OPT_FRACTION, NULL },
		{ OPT_DOUBLE, 0, "beta", &c.beta, "P", "error rate of calling a bad commit good (default 0.05)", OPT_FRACTION, NULL },
		{ OPT_DOUBLE, 0, "confidence", &c.confidence, "P", "stop when a commit is the first bad one with this probability (default 0.95)", OPT_FRACTION, NULL },
		{ OPT_INT, 0, "budget", &c.budget, "N", "runs of one commit at most (default 10)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "The search", 0, NULL },
		{ OPT_STRING, 0, "state", &c.state, "FILE", "the bisection's state (default ./" DEFAULT_STATE ")", 0, NULL },
		{ OPT_STRING, 0, "range", &c.range, "A..B", "start: the commits of git rev-list --first-parent A..B", 0, NULL },
		{ OPT_STRING, 0, "commits", &c.commits, "FILE", "start: the commits after the good one, oldest first, one a line", 0, NULL },
		{ OPT_END },
	};
	char **pos = xcalloc(MAX_POS + 2, sizeof(*pos));
	const char *sub = argc > 1 ? argv[1] : "";
	int n, ret = BISECT_EXIT_ERROR, dashdash = 0, i;
	char name[16];

	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		options__usage(opts, usage);
		ret = 0;
		goto out;
	}
	if (strcmp(sub, "start") && strcmp(sub, "next") && strcmp(sub, "judge") && strcmp(sub, "run")) {
		fprintf(stderr, "mmprof bisect: %s%s%s; expected start, next, judge or run (see 'mmprof bisect --help')\n",
			*sub ? "unknown subcommand '" : "expected a subcommand", sub, *sub ? "'" : "");
		goto out;
	}
	/* the parser's messages name "mmprof bisect next", not "mmprof next" */
	snprintf(name, sizeof(name), "bisect %s", sub);
	sub = name + 7;
	argv[1] = name;
	/* judge and run may be git bisect run's command: an error must stop it, not read "bad" */
	ret = !strcmp(sub, "judge") || !strcmp(sub, "run") ? BISECT_EXIT_ERROR : EXIT_ERROR;
	/* run's COMMAND is everything after "--", options of its own included */
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	n = options__parse_anywhere(dashdash ? dashdash - 1 : argc - 1, argv + 1, opts, usage, pos, MAX_POS);
	if (n < 0) {
		ret = n == -2 ? 0 : ret;
		goto out;
	}
	if (!c.state)
		c.state = getenv("MMPROF_BISECT_STATE") && *getenv("MMPROF_BISECT_STATE") ?
			  getenv("MMPROF_BISECT_STATE") : DEFAULT_STATE;
	if (c.budget < 1 || c.budget > 1000 || !(c.confidence > 0.5 && c.confidence < 1) || !(c.alpha < 0.5) ||
	    !(c.beta < 0.5) || !(c.alpha > 0) || !(c.beta > 0)) {
		say_error("", c.budget < 1 || c.budget > 1000 ? "--budget: expected 1 to 1000 runs" :
			  !(c.confidence > 0.5 && c.confidence < 1) ? "--confidence: expected above 0.5 and below 1" :
			  "--alpha and --beta: expected above 0 and below 0.5");
		goto out;
	}
	if (!strcmp(sub, "judge")) {
		ret = cmd_judge(&c, pos, n);
		goto out;
	}
	if (!strcmp(sub, "run")) {
		if (!dashdash || dashdash + 1 >= argc || n) {
			say_error("run", n ? "unexpected arguments before '--'" :
				  "expected '-- COMMAND...' (it records MMPROF_BISECT_RUNS runs into $MMPROF_BISECT_OUTPUT)");
			goto out;
		}
		if (c.good.nr || c.bad.nr) {
			if (!c.good.nr || !c.bad.nr) {
				say_error("run", "--good and --bad go together (or neither, with a state)");
				goto out;
			}
			ret = run_one(&c, argv + dashdash + 1);
		} else {
			ret = run_state(&c, argv + dashdash + 1);
		}
		goto out;
	}
	if (n) {
		say_error(sub, "takes no file arguments; see 'mmprof bisect --help'");
		goto out;
	}
	ret = !strcmp(sub, "start") ? cmd_start(&c) : cmd_next(&c);
out:
	strlist__release(&c.good);
	strlist__release(&c.bad);
	strlist__release(&c.keys);
	free(pos);
	return ret;
}
