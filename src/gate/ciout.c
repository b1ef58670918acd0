/*
 * ciout: JUnit XML and markdown summaries of a diff (ciout.h).  Both are
 * small: a testcase a gate, a few rows of the table.  Each writer evaluates
 * the gates once (gate__evaluate is a scan of the rows), so the outputs need
 * nothing from the command but what it parsed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mmprof/ciout.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"

/* The files of a side, space-separated, by the XML rule, into out. */
static void xml_paths(struct outbuf *out, const struct diff_side *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (i)
			outbuf__putc(out, ' ');
		outbuf__xml_str(out, s->paths[i]);
	}
}

/* One gate's testcase into out; 1 when it fails (the gate tripped), else 0. */
static size_t junit_gate(struct outbuf *out, const struct gate *g, const struct diff *d, bool any)
{
	struct outbuf text = { 0 };
	struct gate_trips t;
	char desc[512], *first;
	size_t j;

	gate__describe(g, desc, sizeof(desc));
	gate__evaluate(g, d, any, &t);
	outbuf__puts(out, "    <testcase classname=\"mmprof.gate\" name=\"");
	outbuf__xml_str(out, desc);
	outbuf__puts(out, "\" time=\"0\"");
	if (!t.nr && !t.absent) {
		outbuf__puts(out, "/>\n");
		gate_trips__release(&t);
		return 0;
	}
	for (j = 0; j < t.nr + t.absent; j++) {
		gate__trip_text(g, j < t.nr ? t.rows[j] : NULL, &text);
		outbuf__putc(&text, '\n');
	}
	/* the message attribute: the first row; the body: every one, a line each */
	outbuf__puts(out, ">\n      <failure type=\"gate\" message=\"");
	outbuf__printf(out, "gate tripped on %zu row%s: ", t.nr + t.absent, t.nr + t.absent == 1 ? "" : "s");
	first = strchr(text.s, '\n');
	*first = '\0';
	outbuf__xml_str(out, text.s);
	*first = '\n';
	outbuf__puts(out, "\">");
	outbuf__xml_str(out, text.s);
	outbuf__puts(out, "</failure>\n    </testcase>\n");
	outbuf__release(&text);
	gate_trips__release(&t);
	return 1;
}

/* A failing testcase per failed run of side s into out; how many. */
static size_t junit_runs(struct outbuf *out, const struct diff_side *s)
{
	size_t i, n = 0;
	uint32_t r;
	char what[64];

	for (i = 0; i < s->nr; i++)
		for (r = 0; r < s->profiles[i]->nr_runs; r++) {
			const struct run *run = &s->profiles[i]->runs[r];

			if (!profile__run_status(s->profiles[i], r, what, sizeof(what)))
				continue;
			outbuf__printf(out, "    <testcase classname=\"mmprof.run.%s\" name=\"", s->name);
			outbuf__xml_str(out, s->paths[i]);
			outbuf__printf(out, " run %" PRIu32 "\" time=\"%.3f\">\n", r,
				       run->wall_ns > 0 ? (double)run->wall_ns / 1e9 : 0.0);
			outbuf__printf(out, "      <failure type=\"workload\" message=\"the workload %s\">"
					    "the %s side's workload %s in run %" PRIu32 " of ",
				       what, s->name, what, r);
			outbuf__xml_str(out, s->paths[i]);
			outbuf__puts(out, ": its numbers measure the failure</failure>\n    </testcase>\n");
			n++;
		}
	return n;
}

void ciout__junit(struct outbuf *out, const struct diff_side s[2], const struct diff *d,
		  const struct ci_gates *gates)
{
	struct outbuf body = { 0 };	/* the testcases, written first: the heads count them */
	size_t cases, failures = 0, runs, k;
	char host[256] = "localhost", stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	for (k = 0; k < gates->nr; k++)
		failures += junit_gate(&body, &gates->g[k], d, gates->any);
	runs = junit_runs(&body, &s[0]);
	runs += junit_runs(&body, &s[1]);
	cases = gates->nr + runs;
	failures += runs;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
	outbuf__puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	outbuf__printf(out, "<testsuites name=\"mmprof diff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		       cases, failures);
	outbuf__puts(out, "  <testsuite name=\"");
	xml_paths(out, &s[0]);
	outbuf__puts(out, " -&gt; ");
	xml_paths(out, &s[1]);
	outbuf__printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\" "
			    "timestamp=\"%s\" hostname=\"", cases, failures, stamp);
	outbuf__xml_str(out, host);
	outbuf__puts(out, "\">\n    <properties>\n");
	for (k = 0; k < 2; k++) {
		outbuf__printf(out, "      <property name=\"%s\" value=\"", s[k].name);
		xml_paths(out, &s[k]);
		outbuf__printf(out, "\"/>\n      <property name=\"%s.runs\" value=\"%zu\"/>\n", s[k].name,
			       s[k].nr_runs);
	}
	outbuf__printf(out, "      <property name=\"alpha\" value=\"%g\"/>\n    </properties>\n", d->o.alpha);
	if (body.len)
		outbuf__add(out, body.s, body.len);
	outbuf__release(&body);
	outbuf__puts(out, "  </testsuite>\n</testsuites>\n");
}

/* ---- the markdown summary ---- */

static void md_paths(struct outbuf *out, const struct diff_side *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		outbuf__puts(out, i ? ", `" : "`");
		outbuf__md_code(out, s->paths[i]);
		outbuf__putc(out, '`');
	}
}

static void md_row(struct outbuf *out, const struct diff_row *r)
{
	outbuf__puts(out, "| `");
	outbuf__md_code(out, r->key);
	outbuf__printf(out, "` | %.4g | %.4g | ", r->base.mean, r->cur.mean);
	/* a zero side has no ratio: say what happened (the lkp table keeps the robot's spelling) */
	if ((r->flags & (DIFF_NEW | DIFF_GONE)) || !r->base.mean || !r->cur.mean)
		outbuf__printf(out, "%s", !r->base.mean && r->cur.mean ? "new" :
					  r->base.mean && !r->cur.mean ? "gone" : "0 -> 0");
	else if (r->absolute)
		outbuf__printf(out, "%+.2f points", r->delta);
	else
		outbuf__printf(out, "%+.1f%%", r->rel);
	outbuf__printf(out, " | %s |\n", diff_row__verdict_name(r));
}

static const char md_head[] = "| key | base | new | change | verdict |\n|---|---:|---:|---:|---|\n";

size_t ciout__moved(const struct diff *d, const struct diff_row **top, size_t max)
{
	size_t i, j, n = 0, kept = 0;

	for (i = 0; i < d->nr; i++) {
		const struct diff_row *r = &d->rows[i];

		if (keykind__profile(r->key) != KEYPROF_CHILDREN ||
		    (r->verdict != DIFF_UP && r->verdict != DIFF_DOWN))
			continue;
		n++;
		/* insert by |delta| into the max kept, largest first; a tie keeps row order */
		for (j = kept; j > 0 && fabs(top[j - 1]->delta) < fabs(r->delta); j--)
			if (j < max)
				top[j] = top[j - 1];
		if (j < max) {
			top[j] = r;
			kept += kept < max;
		}
	}
	return n;
}

bool ciout__workload_metric(const struct diff_row *r)
{
	return keykind__workload_metric(r->key) && !(r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE));
}

#define MD_METRICS	8	/* the workload's metrics the summary shows */

/*
 * The workload's own metrics, its score (DIFF_SCORE) first, at most
 * MD_METRICS of them, then the children rows that moved most (ciout.h).
 */
static void md_rows(struct outbuf *out, const struct diff_side s[2], const struct diff *d)
{
	const struct diff_row *moved[5];
	size_t i, n, w = 0, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < d->nr; i++) {
			const struct diff_row *r = &d->rows[i];

			bool score = r->flags & DIFF_SCORE;

			if (!ciout__workload_metric(r) || score != (pass == 0))
				continue;
			if (!w)
				outbuf__printf(out, "\n**The workload's metrics**\n\n%s", md_head);
			if (w++ < MD_METRICS)
				md_row(out, r);
		}
	if (!w)
		outbuf__puts(out, "\nNo metric of the workload's own (keys `NAME.metric`) is in the files.\n");
	else if (w > MD_METRICS)
		outbuf__printf(out, "\n%zu more in the full table.\n", w - MD_METRICS);
	n = ciout__moved(d, moved, 5);
	if (n)
		outbuf__printf(out, "\n**Functions that moved most** (children share of the samples, "
				    "significant changes past the effect floor)\n\n%s", md_head);
	else
		outbuf__puts(out, "\nNo perf-profile children row changed significantly.\n");
	for (i = 0; i < n && i < 5; i++)
		md_row(out, moved[i]);
	if (n > 5)
		outbuf__printf(out, "\n%zu more in the full table.\n", n - 5);
}

static size_t md_gates(struct outbuf *out, const struct diff *d, const struct ci_gates *gates)
{
	struct outbuf text = { 0 };
	size_t k, j, tripped = 0;

	if (!gates->nr)
		return 0;
	outbuf__puts(out, "\n**Gates**\n\n");
	for (k = 0; k < gates->nr; k++) {
		struct gate_trips t;
		char desc[512];

		gate__describe(&gates->g[k], desc, sizeof(desc));
		gate__evaluate(&gates->g[k], d, gates->any, &t);
		outbuf__printf(out, "- %s `", t.nr || t.absent ? "**tripped**" : "passed");
		outbuf__md_code(out, desc);
		outbuf__puts(out, "`\n");
		tripped += t.nr || t.absent;
		for (j = 0; j < t.nr + t.absent; j++) {
			outbuf__release(&text);
			gate__trip_text(&gates->g[k], j < t.nr ? t.rows[j] : NULL, &text);
			outbuf__puts(out, "  - `");
			outbuf__md_code(out, text.s);
			outbuf__puts(out, "`\n");
		}
		gate_trips__release(&t);
	}
	outbuf__release(&text);
	return tripped;
}

static void md_runs(struct outbuf *out, const struct diff_side s[2], const struct diff *d)
{
	size_t k;

	for (k = 0; k < 2; k++) {
		struct diff_side_failures f;

		diff_side__failures(&s[k], &f);
		if (f.failed)
			outbuf__printf(out, "\n**The %s side's workload failed** in %zu of %zu runs (%s): "
					    "its numbers measure the failure.\n", s[k].name, f.failed, f.total,
				       f.statuses);
	}
	for (k = 0; k < d->nr_disturbed; k++) {
		char where[512];

		diff_side__run_name(&s[d->disturbed[k].side], d->disturbed[k].run, where, sizeof(where));
		outbuf__puts(out, k ? ", `" : "\n**Disturbed runs** (far from their side across many keys): `");
		outbuf__md_code(out, where);
		outbuf__putc(out, '`');
	}
	if (d->nr_disturbed)
		outbuf__puts(out, "; `--drop-run SIDE:N` leaves one out.\n");
}

void ciout__summary(struct outbuf *out, const struct diff_side s[2], const struct diff *d,
		    const struct ci_gates *gates, const char *html)
{
	size_t tripped;
	struct outbuf body = { 0 };

	tripped = md_gates(&body, d, gates);
	outbuf__puts(out, "### mmprof diff: ");
	md_paths(out, &s[0]);
	outbuf__puts(out, " → ");
	md_paths(out, &s[1]);
	outbuf__printf(out, "\n\n%zu run%s against %zu", s[0].nr_runs, s[0].nr_runs == 1 ? "" : "s",
		       s[1].nr_runs);
	if (gates->nr)
		outbuf__printf(out, "; %s: %zu of %zu gate%s tripped", tripped ? "**FAILED**" : "passed",
			       tripped, gates->nr, gates->nr == 1 ? "" : "s");
	outbuf__puts(out, ".\n");
	md_runs(out, s, d);
	md_rows(out, s, d);
	if (body.len)
		outbuf__add(out, body.s, body.len);
	if (html) {
		outbuf__puts(out, "\nThe full table, run metadata and the differential flame graph: `");
		outbuf__md_code(out, html);
		outbuf__puts(out, "` (one self-contained HTML file).\n");
	}
	outbuf__release(&body);
}
