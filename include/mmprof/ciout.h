/*
 * ciout: a diff's results in the forms CI systems show natively (issue 15),
 * beside the table: a JUnit XML report (diff --junit FILE), read by GitLab's
 * artifacts:reports:junit, Jenkins and GitHub's test-report actions, and a
 * short markdown summary (diff --summary FILE) for $GITHUB_STEP_SUMMARY or
 * a merge-request comment.
 *
 * JUnit: one testsuite per compared column (today one: base against new),
 * holding one testcase per gate (classname "mmprof.gate", named by the
 * gate as it parses back; failing, type "gate", with every row it tripped
 * on, in the words of its stderr line, gate__trip_text) and one per failed
 * workload run (classname "mmprof.run.<side>", type "workload").  A diff
 * with no gate and no failed run is a suite of no testcase: nothing was
 * asked.  Summary: the files, the workload's own keys and their verdicts,
 * the perf-profile children rows that moved most, the gates' results,
 * failed and disturbed runs, and the HTML artifact's name.
 *
 * Both write into an outbuf; the command writes it to its file whole or
 * not at all (outfile.h).  Names are escaped for each language (escape.h).
 */
#ifndef MMPROF_CIOUT_H
#define MMPROF_CIOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/diff.h"
#include "mmprof/diffside.h"
#include "mmprof/gate.h"
#include "mmprof/outbuf.h"

struct ci_gates {
	const struct gate *g;	/* borrowed, nr of them */
	size_t nr;
	bool any;		/* --fail-on-any */
};

void ciout__junit(struct outbuf *out, const struct diff_side s[2], const struct diff *d,
		  const struct ci_gates *gates);

/*
 * The perf-profile children rows that moved (significant, past the effect
 * floor), by |change| largest first, a tie in row order: the first max of
 * them into top; returns how many there are.  What both the summary and
 * the HTML's first screen list.
 */
size_t ciout__moved(const struct diff *d, const struct diff_row **top, size_t max);

/*
 * Is r one of the workload's own metrics (keykind__workload_metric: any
 * key a benchmark's parser produced, stress-ng.vm.ops_per_sec as well as
 * thp-zap.ops, not its rusage NAME.time.*), compared on both sides?
 */
bool ciout__workload_metric(const struct diff_row *r);

/* html: the HTML report's path when one is written, else NULL */
void ciout__summary(struct outbuf *out, const struct diff_side s[2], const struct diff *d,
		    const struct ci_gates *gates, const char *html);

#endif
