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
 * the test, the posterior, the state file and the search's loops
 * (bisect.h's search.c) are the module's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmprof/bisect.h"
#include "mmprof/cmd.h"
#include "mmprof/diffengine.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outbuf.h"
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

/* What the search's callbacks need: run's COMMAND. */
struct search_ctx {
	char **argv;
};

/* The search's texts: its progress on stdout, its failures as every error. */
static void say(void *arg, enum bisect_say kind, const char *text)
{
	(void)arg;
	if (kind == BISECT_SAY_OUT)
		fputs(text, stdout);
	else
		error("%s", text);
}

/* Say b's text on stdout and release it. */
static void print_out(struct outbuf *b)
{
	if (b->len)
		fputs(b->s, stdout);
	outbuf__release(b);
}

static int cmd_start(struct bisect_cmd *c)
{
	struct bisect_state s = { 0 };
	struct errmsg e;
	size_t i;
	int ret = EXIT_ERROR;

	if (!c->good.nr || !c->bad.nr || !c->range == !c->commits) {
		error("%s", !c->good.nr || !c->bad.nr ? "--good and --bad are required; "
			  "see 'mmprof bisect --help'" : "one of --range A..B or --commits FILE is required");
		return EXIT_ERROR;
	}
	for (i = 0; i < c->good.nr; i++)
		bisect__add_side(&s.good, c->good.items[i]);
	for (i = 0; i < c->bad.nr; i++)
		bisect__add_side(&s.bad, c->bad.items[i]);
	for (i = 0; i < c->keys.nr; i++)
		strlist__add(&s.keys, c->keys.items[i]);
	s.score = c->score ? xstrdup(c->score) : NULL;
	s.alpha = c->alpha;
	s.beta = c->beta;
	s.confidence = c->confidence;
	s.budget = c->budget;
	if (bisect__read_commits(c->range, c->commits, &s.commits, &e) < 0) {
		error("%s", e.msg);
		goto out;
	}
	bisect_state__init(&s);
	if (bisect_state__save(&s, c->state, &e) < 0) {
		error("%s", e.msg);
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

/*
 * The answer's diff says why it failed; its warnings not: a commit's
 * batches are recorded with different -r by design, which the diff warns
 * of as "different command lines".
 */
static void say_line(void *arg, enum diff_say kind, const char *line)
{
	(void)arg;
	if (kind == DIFF_SAY_ERROR || kind == DIFF_SAY_FILE)
		error("%s", line);
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

static void print_answer(const struct bisect_state *s)
{
	struct outbuf b = { 0 };
	size_t a = bisect_state__write_answer(&b, s);

	print_out(&b);
	answer_diff(s, a);
}

static int load_state(const struct bisect_cmd *c, struct bisect_state *s)
{
	struct errmsg e;

	if (bisect_state__load(s, c->state, &e) < 0) {
		error("%s", e.msg);
		return -1;
	}
	return 0;
}

static int cmd_next(struct bisect_cmd *c)
{
	struct bisect_state s = { 0 };
	struct outbuf b = { 0 };
	struct errmsg e;
	size_t commit, runs;
	int ret = EXIT_ERROR;

	if (load_state(c, &s) < 0)
		goto out;
	if (!bisect_state__next(&s, &commit, &runs)) {
		print_answer(&s);
		ret = 0;
		goto out;
	}
	if (bisect_state__save(&s, c->state, &e) < 0) {
		error("%s", e.msg);
		goto out;
	}
	bisect_state__write_next(&b, &s, commit, runs);
	print_out(&b);
	ret = 0;
out:
	bisect_state__release(&s);
	return ret;
}

static int cmd_judge(struct bisect_cmd *c, char **pos, int n)
{
	struct search_ctx x = { NULL };
	struct bisect_search_opts so = { .say = say, .arg = &x };
	struct bisect_judgement j;
	struct bisect_state s = { 0 };
	enum bisect_verdict v;
	struct errmsg e;
	int ret = BISECT_EXIT_ERROR;

	if (n < 1) {
		error("%s", "expected the candidate's .data file(s); see 'mmprof bisect --help'");
		return BISECT_EXIT_ERROR;
	}
	if (c->good.nr || c->bad.nr) {
		struct bisect_judge_opts o = { &c->good, &c->bad, &c->keys, c->score, c->alpha, c->beta };
		struct outbuf b = { 0 };

		if (!c->good.nr || !c->bad.nr) {
			error("%s", "--good and --bad go together (or neither, with a state)");
			return BISECT_EXIT_ERROR;
		}
		if (bisect__judge(&o, pos, (size_t)n, &j, &e) < 0) {
			error("%s", e.msg);
		} else {
			bisect_judgement__write(&b, &j, NULL);
			print_out(&b);
			ret = bisect__exit_of(j.verdict);
		}
		bisect_judgement__release(&j);
		return ret;
	}
	if (load_state(c, &s) < 0)
		goto out;
	if (bisect_state__judge(&s, c->state, pos, (size_t)n, &v, &so) < 0)
		goto out;
	ret = bisect__exit_of(v);
	if (s.pending < 0 && bisect_state__done(&s))
		print_answer(&s);
out:
	bisect_state__release(&s);
	return ret;
}

/*
 * Run COMMAND (arg: a search_ctx) once with the output path, runs and batch
 * in the environment; its exit status (a signal: 128 + it), or -1 when it
 * could not be started.
 */
static int run_command(void *arg, const char *output, size_t runs, size_t batch, const char *commit)
{
	char **argv = ((const struct search_ctx *)arg)->argv, num[32];
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
		error("cannot run '%s': %s", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* bisect run: one candidate (--good and --bad, under git bisect run) or the whole search from the state. */
static int cmd_run(struct bisect_cmd *c, char **argv)
{
	struct search_ctx x = { argv };
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct bisect_search_opts so = { .run = run_command, .say = say, .arg = &x, .tmpdir = tmp };
	struct bisect_state s = { 0 };
	int ret = BISECT_EXIT_ERROR;

	if (c->good.nr || c->bad.nr) {
		struct bisect_judge_opts o = { &c->good, &c->bad, &c->keys, c->score, c->alpha, c->beta };

		if (!c->good.nr || !c->bad.nr) {
			error("%s", "--good and --bad go together (or neither, with a state)");
			return BISECT_EXIT_ERROR;
		}
		return bisect__run_candidate(&o, c->budget, &so);
	}
	if (load_state(c, &s) == 0 && bisect_state__run(&s, c->state, &so) == 0) {
		print_answer(&s);
		ret = 0;
	}
	bisect_state__release(&s);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_cmd c = { .alpha = BISECT_ALPHA, .beta = BISECT_BETA,
				.confidence = BISECT_CONFIDENCE, .budget = BISECT_BUDGET };
	const struct option_desc opts[] = {
		OPT_GROUP("Sides and keys"),
		OPT_LIST(0, "good", &c.good, "FILE", "the good side: .data files or STORE:COMMIT (repeatable)"),
		OPT_LIST(0, "bad", &c.bad, "FILE", "the bad side: .data files or STORE:COMMIT (repeatable)"),
		OPT_LIST(0, "key", &c.keys, "GLOB", "judge on keys matching GLOB, as a gate writes it (default: the score)"),
		OPT_STRING(0, "score", &c.score, "GLOB", "the workload's score keys (default: diff's)"),
		OPT_GROUP("The test"),
		OPT_DOUBLE_F(0, "alpha", &c.alpha, "P", "error rate of calling a good commit bad (default 0.05)", OPT_FRACTION),
		OPT_DOUBLE_F(0, "beta", &c.beta, "P", "error rate of calling a bad commit good (default 0.05)", OPT_FRACTION),
		OPT_DOUBLE_F(0, "confidence", &c.confidence, "P", "stop when a commit is the first bad one with this probability (default 0.95)", OPT_FRACTION),
		OPT_INTEGER(0, "budget", &c.budget, "N", "runs of one commit at most (default 10)"),
		OPT_GROUP("The search"),
		OPT_STRING(0, "state", &c.state, "FILE", "the bisection's state (default ./" DEFAULT_STATE ")"),
		OPT_STRING(0, "range", &c.range, "A..B", "start: the commits of git rev-list --first-parent A..B"),
		OPT_STRING(0, "commits", &c.commits, "FILE", "start: the commits after the good one, oldest first, one a line"),
		OPT_END(),
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
		error("%s%s%s; expected start, next, judge or run (see 'mmprof bisect --help')",
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
		error("%s", c.budget < 1 || c.budget > 1000 ? "--budget: expected 1 to 1000 runs" :
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
			error("%s", n ? "unexpected arguments before '--'" :
				  "expected '-- COMMAND...' (it records MMPROF_BISECT_RUNS runs into $MMPROF_BISECT_OUTPUT)");
			goto out;
		}
		ret = cmd_run(&c, argv + dashdash + 1);
		goto out;
	}
	if (n) {
		error("%s", "takes no file arguments; see 'mmprof bisect --help'");
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
