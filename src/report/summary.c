/*
 * summary: `mmprof report FILE` with no view option, the first screen a
 * person reads, as perf report's: what was recorded and how it went, then
 * where the time went.
 *
 *   # header: file, workload, runs and their status, events, samples,
 *     lost, the counters (up to 8), the workload's own metrics (up to 8)
 *   per event: the top REPORT_SUMMARY_CHILDREN functions by children
 *   (no graph), then the top REPORT_SUMMARY_SELF by self with their
 *   callers down to REPORT_SUMMARY_CHAIN_PCT % (the tree view's graph)
 *
 * Shares count every sample, unresolved ones as "[unknown]" (tree.c); the
 * LKP keys are `--keys`.  Names go through the text rule (escape.h).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/datafile.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/report.h"
#include "mmprof/skid.h"

/*
 * "all exited 0", or the runs that did not (the first four), or that the
 * runs had no status of their own (record -p, -a: nothing was forked; an
 * import).  A signal by its abbreviation where glibc knows it.
 */
static void runs_status(const struct profile *p, struct outbuf *out)
{
	const char *mode = profile__meta(p, "record_mode"), *stop = profile__meta(p, "interrupted");
	size_t r, bad = 0, runs = p->nr_runs;

	if (mode && strcmp(mode, "fork")) {
		outbuf__puts(out, "attached (");
		outbuf__text_str(out, mode);
		outbuf__puts(out, "): no exit status");
		if (stop) {
			outbuf__puts(out, "; interrupted by SIG");
			outbuf__text_str(out, stop);
		}
		return;
	}
	/*
	 * The last run of an interrupted recording ended by the signal record
	 * passed on: the user's stop, not a failure (record exits 0)
	 */
	if (stop && runs && p->runs[runs - 1].term_signal &&
	    sigabbrev_np(p->runs[runs - 1].term_signal) &&
	    !strcmp(sigabbrev_np(p->runs[runs - 1].term_signal), stop))
		runs--;
	for (r = 0; r < runs; r++)
		bad += p->runs[r].exit_code != 0 || p->runs[r].term_signal;
	if (!bad && runs < p->nr_runs) {
		outbuf__printf(out, "interrupted: run %zu stopped by SIG", runs);
		outbuf__text_str(out, stop);
		outbuf__printf(out, " (record was stopped%s)", runs ? ", the runs before it exited 0" : "");
		return;
	}
	if (!bad) {
		outbuf__printf(out, "%s exited 0", p->nr_runs == 1 ? "it" : "all");
		return;
	}
	outbuf__printf(out, "%zu of %zu failed:", bad, p->nr_runs);
	for (r = 0, bad = 0; r < p->nr_runs && bad < 4; r++) {
		const struct run *u = &p->runs[r];
		const char *sig = u->term_signal ? sigabbrev_np(u->term_signal) : NULL;

		if (u->term_signal && sig)
			outbuf__printf(out, "%s run %zu killed by SIG%s", bad ? "," : "", r, sig);
		else if (u->term_signal)
			outbuf__printf(out, "%s run %zu killed by signal %d", bad ? "," : "", r,
				       u->term_signal);
		else if (u->exit_code)
			outbuf__printf(out, "%s run %zu exited %d", bad ? "," : "", r, u->exit_code);
		else
			continue;
		bad++;
	}
}

#define SUMMARY_MAX_NAMES 8

/* id among the nr of ids, or nr: at most SUMMARY_MAX_NAMES compares */
static size_t name_slot(const uint32_t *ids, size_t nr, uint32_t id)
{
	size_t k;

	for (k = 0; k < nr && ids[k] != id; k++)
		;
	return k;
}

/*
 * The workload's metrics: the first SUMMARY_MAX_NAMES names (first-seen
 * order, the recorder's meminfo.* and proc-vmstat.* left out), each the
 * mean over the rows that have it.  One pass of n x SUMMARY_MAX_NAMES
 * compares, whatever a file holds.
 */
static void workload_metrics(const struct profile *p, struct outbuf *out)
{
	uint32_t ids[SUMMARY_MAX_NAMES];
	double sum[SUMMARY_MAX_NAMES] = { 0 };
	size_t n[SUMMARY_MAX_NAMES] = { 0 }, nr = 0, i, k;

	for (i = 0; i < p->nr_metrics; i++) {
		const char *key = profile__str(p, p->metrics[i].key);

		if (!key)
			continue;
		k = name_slot(ids, nr, p->metrics[i].key);
		if (k == nr) {
			/* the memory state the recorder adds for every run is not the workload's */
			if (nr == SUMMARY_MAX_NAMES || keykind__under(key, KEYFAM_SYSTEM))
				continue;
			ids[nr++] = p->metrics[i].key;
		}
		sum[k] += p->metrics[i].value;
		n[k]++;
	}
	for (k = 0; k < nr; k++) {
		outbuf__puts(out, k ? ", " : "# metrics: ");
		outbuf__text_str(out, profile__str(p, ids[k]));
		outbuf__printf(out, " %.6g", sum[k] / (double)n[k]);
	}
	if (nr)
		outbuf__printf(out, "%s\n", p->nr_runs > 1 ? " (mean over runs)" : "");
}

/* the counters the machine could count, the same way; clocks in msec as perf stat */
static void counters(const struct profile *p, struct outbuf *out)
{
	uint32_t ids[SUMMARY_MAX_NAMES];
	double sum[SUMMARY_MAX_NAMES] = { 0 };
	size_t n[SUMMARY_MAX_NAMES] = { 0 }, nr = 0, i, k;

	for (i = 0; i < p->nr_counters; i++) {
		const struct counter *c = &p->counters[i];

		if (!profile__str(p, c->name) || !c->supported)
			continue;
		k = name_slot(ids, nr, c->name);
		if (k == nr) {
			if (nr == SUMMARY_MAX_NAMES)
				continue;
			ids[nr++] = c->name;
		}
		sum[k] += counter__scaled(c);
		n[k]++;
	}
	for (k = 0; k < nr; k++) {
		const char *name = profile__str(p, ids[k]);
		size_t len = strcspn(name, ":");	/* "task-clock:u" is a clock too */

		outbuf__puts(out, k ? ", " : "# counters: ");
		outbuf__text_str(out, name);
		if (len > 6 && !strncmp(name + len - 6, "-clock", 6))
			outbuf__printf(out, " %.2f msec", sum[k] / (double)n[k] / 1e6);
		else
			outbuf__printf(out, " %.0f", sum[k] / (double)n[k]);
	}
	if (nr)
		outbuf__printf(out, "%s\n", p->nr_runs > 1 ? " (mean over runs)" : "");
}

/*
 * What record kept from the file that the samples alone would not say:
 * chains whole only in the chain source (the call graphs' "[elided]"),
 * chains lost or cut to their leaf, values the format cannot hold, rows
 * left out at save (meta chains_elided, chains_lost, stacks_cut_to_leaf,
 * repaired.*, save.dropped_rows).
 */
static void repairs(const struct profile *p, struct outbuf *out)
{
	const char *elided = profile__meta(p, "chains_elided");
	const char *below = profile__meta(p, "chains_elided_below");
	const char *chains_lost = profile__meta(p, "chains_lost");
	const char *cut = profile__meta(p, "stacks_cut_to_leaf");
	const char *dropped = profile__meta(p, DATAFILE_META_DROPPED);
	size_t i, n = 0;

	if (elided && strcmp(elided, "0")) {
		outbuf__puts(out, "# chains elided: ");
		outbuf__text_str(out, elided);
		outbuf__puts(out, " samples' call chains leave the call graphs at [elided], below the nodes of ");
		outbuf__text_str(out, below ? below : "?");
		outbuf__puts(out, " samples or more; the function lines, --keys, --folded and export read them whole\n");
	}
	if (chains_lost && strcmp(chains_lost, "0")) {
		outbuf__puts(out, "# chains lost: ");
		outbuf__text_str(out, chains_lost);
		outbuf__puts(out, " samples' call chains could not be read back when the recording ended (meta chains_lost)\n");
	}
	if (cut && strcmp(cut, "0")) {
		outbuf__puts(out, "# chains cut: ");
		outbuf__text_str(out, cut);
		outbuf__puts(out, " samples kept only their innermost frame (the budget for distinct chains was full)\n");
	}
	for (i = 0; i < p->nr_meta; i++) {
		const char *k = profile__str(p, p->meta[i].key), *v = profile__str(p, p->meta[i].value);

		if (!k || !v || strncmp(k, "repaired.", 9))
			continue;
		outbuf__puts(out, n++ ? ", " : "# kept within the file format (record repaired them): ");
		outbuf__text_str(out, k + 9);
		outbuf__puts(out, " ");
		outbuf__text_str(out, v);
	}
	if (n)
		outbuf__puts(out, " (mmprof-record(1), OUTPUT)\n");
	if (dropped && strcmp(dropped, "0")) {
		outbuf__puts(out, "# rows left out when the file was written: ");
		outbuf__text_str(out, dropped);
		outbuf__puts(out, " (meta save.dropped_rows)\n");
	}
}

static void header(const struct profile *p, const char *path, struct outbuf *out)
{
	const char *cmd = profile__meta(p, "cmdline");
	uint64_t kept = 0, lost = profile__run_lost(&p, 1, &kept, NULL);
	double wall = 0, lo, hi;
	size_t e;

	outbuf__puts(out, "# mmprof report of '");
	outbuf__text_str(out, path);
	outbuf__puts(out, "'");
	if (cmd) {
		outbuf__puts(out, ": ");
		outbuf__text_str(out, cmd);
	}
	outbuf__putc(out, '\n');
	profile__run_walls(&p, 1, &wall, &lo, &hi);
	outbuf__printf(out, "# %zu run%s, %.2f s%s; ", p->nr_runs, p->nr_runs == 1 ? "" : "s",
		       p->nr_runs ? wall / (double)p->nr_runs : 0.0,
		       p->nr_runs > 1 ? " each on average" : "");
	runs_status(p, out);
	outbuf__putc(out, '\n');
	outbuf__puts(out, "# events:");
	for (e = 0; e < p->nr_events; e++) {
		const char *n = profile__str(p, p->events[e].name);

		outbuf__puts(out, e ? ", " : " ");
		outbuf__text_str(out, n ? n : "?");
	}
	outbuf__printf(out, "%s; samples %llu, lost %llu (%.2f%%)\n", p->nr_events ? "" : " none",
		       (unsigned long long)kept, (unsigned long long)lost,
		       kept + lost ? 100.0 * (double)lost / (double)(kept + lost) : 0.0);
	repairs(p, out);
	counters(p, out);
	workload_metrics(p, out);
	if (!p->nr_events)
		outbuf__puts(out, "# no sampling event (a counting recording): report --keys for "
			     "its perf-stat keys\n");
}

/* Was the whole machine recorded (record -a, -C): many commands share the functions. */
static bool system_wide(const struct profile *p)
{
	const char *mode = profile__meta(p, "record_mode");

	return mode && !strcmp(mode, "system");
}

/*
 * The top entries by children with a Command column, as perf report's
 * default --sort comm,dso,sym lists a system-wide recording: which
 * program ran a function matters as much as the function.
 */
static void top_by_comm(const struct profile *p, int event, struct outbuf *out)
{
	struct outbuf scratch = { 0 };
	size_t n, i, shown;
	int comm_w = 7, dso_w = 13;
	struct report_entry *r = report__comm_entries(p, event, 0.5, &n);

	shown = n < REPORT_SUMMARY_CHILDREN ? n : REPORT_SUMMARY_CHILDREN;
	for (i = 0; i < shown; i++) {
		int c = (int)strlen(outbuf__text_safe(&scratch, r[i].comm ? r[i].comm : "?"));
		int d = (int)strlen(outbuf__text_safe(&scratch, report__dso_short(r[i].dso ? r[i].dso : "[unknown]")));

		comm_w = c > comm_w ? c : comm_w;
		dso_w = d > dso_w ? d : dso_w;
	}
	outbuf__printf(out, "#\n# Top %d functions by children, per command (a system-wide recording: "
			    "perf report's --sort comm,dso,sym; report --tree for all)\n",
		       REPORT_SUMMARY_CHILDREN);
	outbuf__printf(out, "# Children      Self  %-*s  %-*s  Symbol\n#\n", comm_w, "Command", dso_w,
		       "Shared Object");
	for (i = 0; i < shown; i++) {
		outbuf__printf(out, "%9.2f%%%9.2f%%  %-*s", r[i].children, r[i].self, comm_w,
			       outbuf__text_safe(&scratch, r[i].comm ? r[i].comm : "?"));
		outbuf__printf(out, "  %-*s  [%c] ", dso_w,
			       outbuf__text_safe(&scratch, report__dso_short(r[i].dso ? r[i].dso : "[unknown]")),
			       r[i].kernel ? 'k' : '.');
		outbuf__text_str(out, r[i].sym);
		outbuf__putc(out, '\n');
	}
	outbuf__putc(out, '\n');
	outbuf__release(&scratch);
	free(r);
}

/*
 * The interrupt-enable skid named (skid.h) for each irq-enable site that
 * holds SKID_NOTE_SHARE % or more of event's self time, from the LKP
 * keys' perf-profile.self.<event>.<sym> means over the runs.
 */
static void skid_notes(const struct profile *p, const char *event, struct outbuf *out)
{
	struct keytab kt;
	char prefix[256];
	size_t k, len;

	if (keytab__build(&kt, p) < 0)
		return;
	/* the key's event: ':' written '-', as the robot writes it (keys.h) */
	len = (size_t)snprintf(prefix, sizeof(prefix), "perf-profile.self.%s.", event);
	for (k = 0; k < len; k++)
		if (prefix[k] == ':')
			prefix[k] = '-';
	for (k = 0; k < kt.nr; k++) {
		const char *sym = kt.keys[k] + len;
		double share;

		if (strncmp(kt.keys[k], prefix, len) || !skid__irq_enable_site(sym))
			continue;
		share = keytab__mean(&kt, k);
		if (share >= SKID_NOTE_SHARE)
			skid__note(out, "# ", event, sym, share, "report --tree");
	}
	keytab__release(&kt);
}

int report__summary(const struct profile *p, const char *path, struct outbuf *out)
{
	char line[256];
	size_t e;
	int err = 0;

	header(p, path, out);
	for (e = 0; e < p->nr_events && !err; e++) {
		struct tree_opts top = { .event = (int)e, .no_graph = true, .no_header = true,
					 .max_entries = REPORT_SUMMARY_CHILDREN, .percent_limit = 0.5 };
		struct tree_opts hot = { .event = (int)e, .self_order = true, .no_header = true,
					 .max_entries = REPORT_SUMMARY_SELF,
					 .percent_limit = REPORT_SUMMARY_CHAIN_PCT };
		const char *name = profile__str(p, p->events[e].name);
		uint64_t all;

		report__unnamed(p, (int)e, &all);
		outbuf__puts(out, "#\n# Event '");
		outbuf__text_str(out, name ? name : "?");
		outbuf__printf(out, "': %llu samples\n# %s\n", (unsigned long long)all,
			       report__unnamed_line(p, (int)e, true, line, sizeof(line)));
		if (!all)
			continue;
		if (system_wide(p)) {
			top_by_comm(p, (int)e, out);
		} else {
			outbuf__printf(out, "#\n# Top %d functions by children (report --tree for all, "
				       "--keys for the LKP keys)\n", REPORT_SUMMARY_CHILDREN);
			err = report__tree(p, &top, out);
		}
		if (err)
			break;
		outbuf__printf(out, "# Top %d by self, with their callers down to %.0f%%\n",
			       REPORT_SUMMARY_SELF, REPORT_SUMMARY_CHAIN_PCT);
		err = report__tree(p, &hot, out);
		if (!err && skid__timer_event(name))
			skid_notes(p, name, out);
	}
	return err;
}
