/*
 * import: profiles made by perf, turned into mmprof's model.
 *
 * Two sources: a perf.data file, which import__perf_data hands to
 * `perf script` (run as a child with an argv array, never a shell: the
 * file name is untrusted), and `perf script` text a user already has.
 * Either way the text goes through struct perfscript, a line-at-a-time
 * parser with no I/O of its own, so that it can be fuzzed:
 *
 *   header line   "comm  pid[/tid] [cpu] time: [period] event: [ip sym (dso)]"
 *                 (perf's default fields or -F comm,pid,tid,time,event,
 *                 period,ip,sym,symoff,dso; comm may contain spaces)
 *   frame line    "\t ffffffff81234567 func+0x12 ([kernel.kallsyms])",
 *                 innermost first; a blank line ends the sample
 *   A callchain frame at or above PERF_CONTEXT_MAX (0xfffffffffffff001)
 *   is one perf rejects: the chain is dropped, the sample kept at its IP
 *   (the first frame), as perf report does.
 *   Without callchains (perf record without -g) the ip follows the event
 *   on the header line, perf right-aligns the comm and prints no blank
 *   lines: a header is known by its fields (comm, pid, time, event), not
 *   by column 0, and its stack is the one frame of the ip.
 *   "# key : value" comment lines (perf script --header) fill the meta,
 *   and "# event : name = ..., type = N, config = N, ..." the events.
 *
 * perf's side-band event (dummy:HG, of perf record -a), which never
 * samples, is not stored: an event of no sample is no sampling event.
 * Events are stored under perf's names less the precise modifiers perf
 * chose itself ("cpu-clock:ppp" -> "cpu-clock": a software event, or no
 * -e on perf's command line), perf's spelling kept as the event's asked
 * name, so that an import compares with an mmprof recording.
 *
 * Each sample adds (samples 1, its period) to the (run 0, event, comm,
 * stack) count; a sample with no period counts period 1.  Frames are
 * kernel frames when the address is in the kernel half (>=
 * 0xffff800000000000) or the DSO is [kernel.kallsyms], another [name]
 * other than [vdso]/[vsyscall]/[unknown]..., or a .ko module.
 *
 * Bounds (untrusted input): lines over PERFSCRIPT_MAX_LINE bytes, stacks
 * over PERFSCRIPT_MAX_DEPTH frames, more than PERFSCRIPT_MAX_EVENTS
 * events, NUL bytes, and text that is not perf script output are refused
 * with -EPROTO and a message naming the line.  Memory grows with the
 * number of distinct frames and stacks, not with the number of samples.
 */
#ifndef MMPROF_IMPORT_H
#define MMPROF_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"

#define PERFSCRIPT_MAX_LINE	(1u << 16)
#define PERFSCRIPT_MAX_DEPTH	4096u
#define PERFSCRIPT_MAX_EVENTS	256u
#define PERFSCRIPT_COMM_LEN	16u	/* the kernel's TASK_COMM_LEN */

#define IMPORT_KERNEL_START	0xffff800000000000ull
/* perf's PERF_CONTEXT_MAX (-4095): no return address is at or above it */
#define PERFSCRIPT_CONTEXT_MAX	0xfffffffffffff001ull

struct perfscript {
	struct profile *p;	/* borrowed: where samples go */
	uint32_t run;
	uint64_t line_no;
	uint64_t samples;	/* samples parsed so far */
	uint64_t dropped0;	/* the profile's dropped counts (PROFILE_REPAIR_COUNT) before */
	uint64_t chain_samples;	/* of which with callchain lines (perf record -g) */
	/*
	 * record's rule for chains (datafile__trie_takes): past the trie's
	 * nodes a new chain keeps only its leaf (stacks_cut of them, meta
	 * stacks_cut_to_leaf), past its frames a new frame is [unknown]; the
	 * names' pool is 40 MiB (STACKAGG_BUDGET: the profile's strs.o.max_bytes;
	 * past it a name is not stored, repaired.string_dropped).  8 M
	 * distinct symbols of 380 MB of text took 1.17 GB to import and
	 * 5.9 GB to report.
	 */
	uint64_t stacks_cut;
	double first_time, last_time;	/* seconds, as perf prints them */

	/* the sample being read */
	int in_sample;
	uint32_t event, comm;
	uint32_t pid;		/* "pid/tid" -> pid; 0 for a lone number (perf's tid) */
	uint64_t period;
	int chained;		/* it has callchain lines */
	int rejected;		/* a frame at or above PERF_CONTEXT_MAX: keep the IP only */
	double time;		/* its time, -1 without one */
	uint32_t *frames;	/* leaf first */
	size_t nr_frames, alloc_frames;
	uint64_t ordinal;	/* sample headers read (samples and others) */

	/*
	 * Samples without one frame: perf script prints no frame for a
	 * sample whose callchain perf rejected (a user return address at or
	 * above PERF_CONTEXT_MAX, 0xffffffffffffffff from a frame-pointer
	 * walk through code built without them), while perf report keeps
	 * the sample at its IP.  With defer_frameless set they are noted
	 * here instead of counted as one [unknown] frame, for a second pass
	 * over `perf script -G` (the IP on the header line) that places each
	 * at its IP (perfscript__refill_begin); perfscript__finish counts
	 * what no pass placed as [unknown], as without it.
	 */
	int defer_frameless;
	struct perfscript_deferred {
		uint64_t ordinal;
		double time;
		uint32_t event, comm, pid;
		uint64_t period;
	} *deferred;
	size_t nr_deferred, alloc_deferred, next_deferred;
	int refilling;		/* the second pass: only deferred samples are counted */

	/*
	 * A comm holding a newline (PR_SET_NAME takes any byte but NUL)
	 * splits its header over lines: the lines before the one with the
	 * pid, at most TASK_COMM_LEN - 1 bytes with their newlines, wait here
	 * to be read as one header with it.
	 */
	char comm_head[2 * PERFSCRIPT_COMM_LEN];	/* with perf's left padding */
	size_t comm_head_len;
	uint64_t comm_head_line;	/* the first one's number, for errors */
};

/* Start parsing into p (run 0 is added to p if it has none). */
void perfscript__init(struct perfscript *ps, struct profile *p);
void perfscript__release(struct perfscript *ps);

/* One line without its newline.  0 or -EPROTO with e filled. */
int perfscript__line(struct perfscript *ps, const char *line, size_t len, struct errmsg *e);

/*
 * After the first pass, before the lines of `perf script -G` over the
 * same file: those lines only place the deferred samples (same ordinal,
 * time and pid) at their IP.  Returns the number deferred (0: no second
 * pass is needed).
 */
size_t perfscript__refill_begin(struct perfscript *ps);

/*
 * End of input: ends the last sample, sets the run's sample count and
 * duration.  -ENODATA when not a single sample was found.
 */
int perfscript__finish(struct perfscript *ps, struct errmsg *e);

/* A whole text in memory (the fuzzer's entry): init, lines, finish. */
int perfscript__parse(struct profile *p, const char *text, size_t len, struct errmsg *e);

/*
 * perfstat: `perf stat -x, -I MS` text (perfstat.c says what it reads)
 * into a stat-only profile: run 0 with a counter per event (the sum of
 * its intervals; not supported when perf said so), every reading as an
 * interval, the run's time the last reading's, meta stat_only, and the
 * command's "name.metric: value" lines (with --log-fd 1) as metrics.
 * Bounded as perfscript: lines over PERFSCRIPT_MAX_LINE, NUL bytes, more
 * than PERFSTAT_MAX_EVENTS events, a record line with a field that is not
 * what perf writes: -EPROTO with the line's number.
 */
#define PERFSTAT_MAX_EVENTS	1024u
#define PERFSTAT_MAX_METRICS	100000u

struct perfstat {
	struct profile *p;	/* borrowed */
	uint64_t line_no, records;
	uint64_t first_ns, last_ns;
	size_t nr_metrics;
	struct counter *totals;	/* per event, added at finish */
	size_t nr_totals, alloc_totals;
};

/*
 * What a line says about the text it is in: 1 a perf stat -x, -I record
 * ("1.001598575,..."), -1 a line neither format shares (perf script's),
 * 0 undecided (blank, '#', the echoed perf stat command, a metric line).
 */
int perfstat__sniff(const char *line, size_t len);
void perfstat__init(struct perfstat *ps, struct profile *p);
void perfstat__release(struct perfstat *ps);
int perfstat__line(struct perfstat *ps, const char *line, size_t len, struct errmsg *e);
/* End of input: the counters, the run's time.  -ENODATA without a record. */
int perfstat__finish(struct perfstat *ps, struct errmsg *e);

/*
 * Text from f, perf script's or perf stat -x, -I's, told apart by its
 * first line that decides (perfstat__sniff), into p; meta source is "perf
 * script" or "perf stat".  Errors as the parsers', and -EIO.
 */
int import__text(struct profile *p, FILE *f, struct errmsg *e);

/*
 * Is the file at path perf stat -x, -I text (its first deciding line a
 * record)?  false for anything else, a perf.data included, and for a
 * file that cannot be read (perf then says why).
 */
bool import__is_perf_stat(const char *path);

/*
 * Run `perf script` (perf = the perf binary, NULL for "perf" on PATH) on
 * path and parse its output into p, with the header (perf version,
 * hostname, os release, perf's command line, events) in meta and events.
 * Errors: -EINVAL when path is an SQLite file (an mmprof .data file, said
 * so, or another database), checked before perf runs;
 * -ENOENT with "perf is not installed" when perf cannot be run;
 * -EPROTO with perf's own first error line when perf fails (not a perf.data
 * file, missing file, ...); parser errors as perfscript__line.
 */
int import__perf_data(struct profile *p, const char *path, const char *perf,
		      struct errmsg *e);

#endif
