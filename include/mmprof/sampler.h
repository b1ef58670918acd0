/*
 * sampler: callchain sampling through libperf, aggregated as it is read.
 *
 * One sampler serves a whole `record` (all runs).  Per run: open the
 * sampling events on the target, poll and drain the per-CPU ring buffers
 * while the workload runs, close, then hand the run's aggregate to the
 * profile.  Samples are never stored one by one: each is parsed, its
 * callchain hashed and counted against (event, pid, comm, raw stack), so
 * memory grows with distinct stacks, not with samples.  Side-band records
 * (COMM, MMAP2, FORK, EXIT) go to the symbols context; addresses are
 * resolved once per distinct (pid, address) in sampler__end_run.  While
 * a run reads, the caller's thread only copies the records out of the
 * ring buffers; a worker thread orders and aggregates them.
 * PERF_RECORD_LOST and THROTTLE are counted per run, never dropped silently.
 *
 * Event choice: with no -e, `cycles` with the most precise modifier the PMU
 * accepts; where there is no hardware PMU (ENOENT, EOPNOTSUPP, ENODEV,
 * ENXIO) it falls back to cpu-clock and says so in sampler__note().  An
 * event refused for the kernel to an unprivileged user (paranoid 2) is
 * opened for user space only, as perf does (sampler__user_note()).
 */
#ifndef MMPROF_SAMPLER_H
#define MMPROF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/runloop.h"	/* struct record_target */
#include "mmprof/sample.h"
#include "mmprof/strlist.h"

/*
 * At the end of a run, how long the sampler waits for a JIT that runs
 * with the option writing its perf map at exit and is quitting as the
 * recording stops (symbols__await_perfmaps): then its map is read whole.
 */
#define SAMPLER_PERFMAP_WAIT_MS	1000
#include "mmprof/symbols.h"

struct chaintake_stats;

struct sampler;

struct sampler_opts {
	const struct strlist *events;	/* -e specs; NULL or empty: the default */
	int freq;			/* -F Hz; 0 when a period is given */
	/*
	 * The kernel lowers kernel.perf_event_max_sample_rate by itself when
	 * its sampling interrupts take too long, and refuses a frequency above
	 * it.  Each open then samples at that maximum and says so in
	 * sampler__freq_note(), as perf record does; strict_freq (record
	 * --strict-freq) makes the open fail instead.
	 */
	bool strict_freq;
	uint64_t period;		/* -c; 0 when a frequency is given */
	int mmap_pages;			/* per-CPU ring buffer pages (power of 2); 0: default */
	bool no_callchain;		/* sample IPs only */
	/*
	 * How user stacks are walked (record --call-graph): FP is the
	 * kernel's frame-pointer walk; DWARF samples the user registers and
	 * stack_size bytes of stack (a multiple of 8, at most
	 * UNWIND__STACK_MAX) and unwinds them with libdw as the run goes
	 * (unwind.h); LBR samples the PMU's call stack of user calls
	 * (PERF_SAMPLE_BRANCH_STACK, call-stack mode) and builds the user part
	 * of each chain from it (sample__lbr_chain): a hardware event only;
	 * without one that has branch records the open fails with a message
	 * and the default event does not fall back to cpu-clock.
	 */
	enum call_graph { CALL_GRAPH_FP, CALL_GRAPH_DWARF, CALL_GRAPH_LBR } call_graph;
	uint32_t stack_size;
	/*
	 * Bytes for distinct call chains over the whole recording (stackagg.h);
	 * 0: STACKAGG_BUDGET.
	 */
	uint64_t stack_budget;
	/*
	 * Where the chains beyond the budget are spilled while a run lasts
	 * (chainspill.h: the output's folder); NULL: the current one.  runs:
	 * the runs the recording will make at most (0: one), which bounds
	 * the trie with the readers' walks (datafile__readers_take).
	 */
	const char *spill_dir;
	uint32_t runs;
	size_t max_nodes;	/* the trie's nodes at most; 0: DATAFILE_TRIE_NODES */
	size_t queue_bytes;	/* the reader's queue to the worker; 0: 8 MiB */
	/*
	 * sampler__replay through the worker and its queue too, as a live
	 * run (tests: the two paths give the same profile).
	 */
	bool replay_worker;
	/*
	 * Tracepoint events are sampled with PERF_SAMPLE_RAW; each such sample
	 * is also handed to raw_hook (event index as in sampler__add_events,
	 * the decoded sample valid only during the call).  NULL: none.
	 */
	void (*raw_hook)(void *ctx, uint32_t event, const struct sample *smp);
	void *raw_ctx;
};

struct sampler *sampler__new(const struct sampler_opts *o, struct symbols *syms,
			     struct errmsg *e);
void sampler__free(struct sampler *s);	/* NULL is fine */

/* Open events on the target (disabled unless enable_on_exec), mmap buffers. */
int sampler__open(struct sampler *s, const struct record_target *t, struct errmsg *e);
void sampler__enable(struct sampler *s);
void sampler__disable(struct sampler *s);

/* Wait for data up to timeout_ms: >0 data, 0 timeout, -EINTR on a signal. */
int sampler__poll(struct sampler *s, int timeout_ms);

/* Read and aggregate everything in the ring buffers now.  Returns samples read. */
int sampler__drain(struct sampler *s);

/*
 * Feed records laid out as in a ring buffer (each header.size long) through
 * the same path as sampler__drain, as if sampled with this sampler's events
 * (the sample_type of sampler__sample_type).  For replaying captured data
 * and for measuring ingest.  Returns the samples read, or -EINVAL at a
 * record whose size is malformed (records before it are kept).  Runs on
 * the caller's thread, or with replay_worker through the worker as a
 * live run does, returning once the worker took every record.
 */
int sampler__replay(struct sampler *s, const void *buf, size_t len);
uint64_t sampler__sample_type(const struct sampler *s);

/* Drain, close the run's events and unmap (the sampler stays reusable). */
void sampler__close(struct sampler *s);

/*
 * Once, after the first successful open: add the events really opened to
 * p (in order; event index i of counts is p->events[first + i]).
 */
void sampler__add_events(struct sampler *s, struct profile *p);

/*
 * Resolve and move this run's aggregate into p as counts of run `run`;
 * fills r->samples, r->lost, r->throttled.  Resets the aggregate.
 */
int sampler__end_run(struct sampler *s, struct profile *p, uint32_t run, struct run *r);

/* A note for the user (the cpu-clock fallback), or NULL. */
const char *sampler__note(const struct sampler *s);
/*
 * Why sampling of a process stopped during this run, or NULL: it executed
 * a set-user-ID, set-group-ID or file-capability program, at which the
 * kernel takes a process's perf events away.  Each open clears it.
 */
const char *sampler__exec_note(const struct sampler *s);
/*
 * Set when an event that includes the kernel was refused for want of
 * privilege (kernel.perf_event_paranoid 2, no CAP_PERFMON) and opened for
 * user space only instead, as perf does (its name then ends in :u), else
 * NULL.  Kept for the session's life: the first open settles the events.
 */
const char *sampler__user_note(const struct sampler *s);
/*
 * Set by sampler__open when it lowered -F to the kernel's maximum rate
 * (see strict_freq), else NULL; each open clears it.  The frequency used is
 * sampler__freq().
 */
const char *sampler__freq_note(const struct sampler *s);
int sampler__freq(const struct sampler *s);

/*
 * Side-band records read but not yet applied to the symbols context: they
 * wait only until every buffer has been read past their time, so this
 * stays about one drain round's worth however long the run (tests).
 */
size_t sampler__sideband_held(const struct sampler *s);

/*
 * Samples of every run so far whose call chain kept only its innermost
 * frame: the trie was full and no file for the chains past it could be
 * made or written (stackagg.h), or profile__take_chains found no room for
 * their "[elided]" nodes (chaintake.h).
 */
uint64_t sampler__stacks_cut(const struct sampler *s);

/*
 * After the last run: the chains the trie had no room for as the runs
 * went (past 3/4 of max_nodes, sorted whole to the output's folder:
 * chainsort.h) into p's trie within max_nodes (profile__take_chains,
 * chaintake.h: st its stats, zeroed when there were none).  0 or -errno
 * (the sorted chains could not be read back): p then keeps every run's
 * counts and whatever of the chains the take had put in (p->whole NULL),
 * and its meta chains_lost, as sampler__chains_lost, the samples of the
 * rest; p can be saved as it is.  No run may follow.
 */
int sampler__take_chains(struct sampler *s, struct profile *p, struct chaintake_stats *st);

/* Samples whose chains sampler__take_chains could not read back (meta chains_lost). */
uint64_t sampler__chains_lost(const struct sampler *s);

/* Times a full arena was spilled (chainspill.h), all runs so far. */
uint64_t sampler__spills(const struct sampler *s);

/*
 * A live recording reads on the caller's thread and aggregates on a
 * worker of the sampler's own (src/record/sampler-queue.c): the reading
 * thread only copies records into a queue of queue_bytes.  queue_full:
 * drains, all runs so far, that stopped because the queue was full (the
 * rest stayed in the ring buffers; what the kernel dropped is in lost).
 * reader_aggregated: samples, all runs so far, aggregated on a thread
 * other than the worker: every sample of a replay, those still queued
 * when a run ends (sampler__end_run), none while a recording reads.
 */
uint64_t sampler__queue_full(const struct sampler *s);
uint64_t sampler__reader_aggregated(const struct sampler *s);

/*
 * The profile and run this open's samples go to: when the aggregate's
 * arena fills during the run and cannot be spilled (chainspill.h: no
 * spill file could be had) they are stored there at once (stackagg.h).
 * Without it (sampler__replay) the arena has no size and grows.
 */
void sampler__bind(struct sampler *s, struct profile *p, uint32_t run);

/* Samples, lost records and throttle events so far in this run (progress line). */
void sampler__progress(const struct sampler *s, uint64_t *samples, uint64_t *lost);

#endif
