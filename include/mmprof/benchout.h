/*
 * benchout: a workload's output lines (stdout and stderr, as workload.h
 * reads them) into metrics of one run, so that a recording knows the
 * benchmark's own results and in particular how much work each run did.
 * Every line is offered to four readers:
 *
 *   - "<name>.<metric>: <number>" (workload__parse_metric): stored as is,
 *     as the bundled workloads print their results;
 *   - stress-ng's --metrics / --metrics-brief table (on its stderr, tagged
 *     "metrc:" since stress-ng 0.15, "info:" before) into the robot's keys,
 *     as lkp-tests' programs/stress-ng/parse names them, under its
 *     program prefix: stress-ng.<stressor>.{pass,fail,ops,ops_per_sec}
 *     (bogo ops, and bogo ops/s of real time) and
 *     stress-ng.<stressor>.<unit>[.pass,.fail] for the per-stressor
 *     lines "(average ...)", "(geometric mean ...)", "(harmonic mean ...)",
 *     "(total ...)";
 *   - will-it-scale's runtest.py CSV ("tasks,processes,..." then one row
 *     per task count) into programs/will-it-scale/parse's keys:
 *     will-it-scale.<tasks>.<column> per row and, at the end of the run,
 *     will-it-scale.{scalability,per_process_ops,per_thread_ops,workload}
 *     (rates: operations per second, as runtest.py reports them);
 *   - the user's --ops-pattern (an extended regex whose first group is a
 *     number): the sum over the run's matching lines, stored at the end
 *     of the run under o->ops_key.
 *
 * Where the robot's parser reads one benchmark's whole output and a
 * workload's output here is anything, the readers are stricter on text
 * the robot never sees: stress-ng's reader reads only lines that start
 * with "stress-ng: ", will-it-scale's starts at runtest.py's header line
 * "tasks,..." (an earlier "Assertion ... failed" line still counts once
 * it has), and a key that is not a well-formed metric key (letters,
 * digits, _-.%/; workload__key_ok) is not stored.  On the robot's own
 * fixtures (lkp-tests spec/fixtures/stats/) and on stress-ng 0.15's
 * output the keys and values are the robot's: tests/unit/test-benchout.c.
 *
 * Bounds: lines arrive at most WORKLOAD_LINE_MAX bytes long (workload.c);
 * at most BENCHOUT_MAX_KEYS keys per run from the table readers.
 * Library rules: nothing printed; allocation failure exits.
 */
#ifndef MMPROF_BENCHOUT_H
#define MMPROF_BENCHOUT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/strlist.h"

#define BENCHOUT_MAX_KEYS	4096u

/* What the user adds: --ops-pattern and its key.  Zero-initialised: none. */
struct benchout_opts {
	bool has_ops;
	regex_t ops_re;		/* --ops-pattern (REG_EXTENDED, a group) when has_ops */
	regex_t ops_test;	/* the same, REG_NOSUB: does a line match at all */
	char ops_key[256];	/* the key its sum goes to ("fio.ops") */
};

/*
 * --ops-pattern PATTERN [--ops-name NAME]: compile PATTERN and name the
 * key NAME.ops (NAME NULL: the file name of command, the workload's
 * argv[0]).  0, or -EINVAL with one line in e: "--ops-pattern 'RE': why"
 * (a regex error, no group to take the number from, counted repetitions
 * past BENCHOUT_OPS_DUP, a back-reference), or a NAME that makes no metric key.
 */
int benchout_opts__set_ops(struct benchout_opts *o, const char *pattern, const char *name,
			   const char *command, struct errmsg *e);
void benchout_opts__release(struct benchout_opts *o);

struct benchout {
	const struct benchout_opts *o;	/* borrowed; NULL: no pattern */
	struct profile *p;		/* borrowed: where the metrics go */
	uint32_t run;
	size_t nr_keys;			/* stored by the table readers */

	bool sng_table, sng_done;	/* stress-ng: in its table; past its end */

	bool wis_on;			/* will-it-scale: its header seen */
	struct strlist wis_names;	/* its columns after "tasks" */
	struct strlist wis_asserts;	/* distinct "Assertion ... failed" keys */
	double wis_per_process, wis_per_thread, wis_workload, wis_scalability;
	size_t wis_rows, wis_scal_rows;

	double ops;			/* --ops-pattern: the sum so far */
	size_t ops_matches;
	double ops_cpu;			/* seconds of this thread's CPU in the matching */
	size_t ops_lines;		/* lines matched against so far */
	bool ops_over_budget;		/* past BENCHOUT_OPS_CPU: no more lines matched, no sum */
};

/*
 * glibc's regexec is not linear: '(x*x*x*x*x*x*y)' takes 16 ms on a line
 * of 1,022 x (1 M such lines: 4.5 hours), '(x{1,100}){1,100}y' 17 s on one
 * of 4,096.  A line is first tested without groups (REG_NOSUB: 0.1 ms
 * there), counted repetitions nest to at most BENCHOUT_OPS_DUP, no
 * back-reference ('(x*)(x*)\2\1\2y': one such line past 300 s), and a run
 * spends at most BENCHOUT_OPS_CPU seconds of CPU matching, plus
 * BENCHOUT_OPS_LINE_CPU a line (an ordinary pattern takes 2 to 3 us on a
 * line that matches); past it the rest is not matched and no NAME.ops is
 * stored (a partial sum is no work count).
 */
#define BENCHOUT_OPS_CPU	2.0
#define BENCHOUT_OPS_LINE_CPU	50e-6
#define BENCHOUT_OPS_DUP	256u

void benchout__init(struct benchout *b, const struct benchout_opts *o, struct profile *p,
		    uint32_t run);

/* A workload_line_fn: ctx is the struct benchout. */
void benchout__line(void *ctx, const char *line, size_t len);

/*
 * The run's output is over: store will-it-scale's summary keys and the
 * --ops-pattern sum.  Returns the number of lines the pattern matched.
 */
size_t benchout__end(struct benchout *b);

void benchout__release(struct benchout *b);

/*
 * The lines of a file (a benchmark's saved output) into b, each cut at
 * WORKLOAD_LINE_MAX bytes as the workload's own are (longer ones are not
 * read), then benchout__end.  0 or -errno with e.
 */
int benchout__file(struct benchout *b, const char *path, struct errmsg *e);

#endif
