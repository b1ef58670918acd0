/*
 * sampler-int: the sampler's body, shared by its files and nowhere
 * else (the public interface is include/mmprof/sampler.h).
 *
 *   sampler.c          construction, options, the notes
 *   sampler-comm.c     comm, tid and address-space tracking; what /proc says of existing processes
 *   sampler-open.c     opening the events, and why an open failed
 *   sampler-stream.c   the event stream: samples, side-band records in time order, the end of a run
 *   sampler-queue.c    the reading thread's queue to the worker that runs the stream
 *   sampler-resolve.c  end of run: addresses to frames, counts into the profile
 *
 * Invariants: evs[] is settled by the first successful open (chosen);
 * side-band records and samples wait in sb until no earlier one can
 * still come (see the comment in struct sampler), so each sample is
 * aggregated with the comm and maps of its time; comm ids are local
 * (1-based, 0 unknown) and become profile strings only in
 * sampler__end_run.
 *
 * sampler-stream.c calls sampler-resolve.c, not back: the stream spills
 * chains into the resolver's trie when its budget fills (sampler__spill),
 * and its end of a run (sampler__end_run) flushes the side band, then
 * hands the aggregate to the resolver (sampler__resolve_run).
 *
 * sampler-queue.c splits a live run between the reading thread and a
 * worker that runs the stream; every other entry point runs on the
 * caller's thread with the worker stopped or idle.
 */
#ifndef MMPROF_SAMPLER_INT_H
#define MMPROF_SAMPLER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "mmprof/chainsort.h"
#include "mmprof/chainspill.h"
#include "mmprof/evspec.h"
#include "mmprof/hashidx.h"
#include "mmprof/strintern.h"
#include "mmprof/perfsession.h"
#include "mmprof/sampler.h"
#include "mmprof/stackagg.h"
#include "mmprof/unwind.h"

#define DEFAULT_FREQ		4000	/* perf record's default -F */
#define DEFAULT_MMAP_PAGES	256	/* 1 MiB per CPU with 4 KiB pages */
#define DWARF_MMAP_PAGES	1024	/* --call-graph dwarf: samples of ~8 KiB each */
/* -a without -m: a second of samples a CPU, up to this much (8 MiB) ... */
#define SYSWIDE_MMAP_PAGES_MAX	2048
/* ... and at most this much for all CPUs together */
#define SYSWIDE_MMAP_BYTES_MAX	(128UL << 20)
#define COMM_LEN		16	/* TASK_COMM_LEN */
/* branch_sample_type bits that only save work: dropped if the kernel refuses them */
#define LBR_OPTIONAL		(PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES)

struct sampler_event {
	struct evspec spec;	/* attr template: type, config, modifiers */
	char asked[128];	/* as the user wrote it ("cycles" for the default) */
	struct perf_evsel *evsel;	/* this run's, NULL when closed */
};

struct id_map {
	uint64_t id;
	uint32_t event;
};

/*
 * Comm of a thread as of the records applied so far (samples are applied
 * in time order with them, so it is the comm at the sample's time); for a
 * process's leader also its address space: the key its samples are
 * aggregated under.
 */
struct tid_comm {
	int32_t tid;
	uint32_t comm;		/* local comm id, 0 unknown */
	uint32_t space;		/* 0: the pid itself, else a SPACE_FIRST-based key */
	bool sampled;		/* a sample was aggregated under the current space */
};

/*
 * An address space a pid had during the run: aggregate entries carry its
 * key in place of the pid, so that samples taken before an exec (or
 * before a pid was reused) resolve through the maps of their own time,
 * kept in the symbols context under symkey (symbols__keep_maps).  A key
 * below SPACE_FIRST with no row is a pid in its one and current space.
 */
#define SPACE_FIRST	0x40000000u	/* above PID_MAX_LIMIT (2^22), below INT32_MAX */
struct space {
	uint32_t key;
	int32_t pid;		/* the process, for the profile */
	int32_t symkey;		/* its maps in the symbols context: pid while current */
};

struct frame_row {
	uint64_t addr;
	int32_t pid;		/* 0 for kernel addresses: one entry per address */
	uint32_t kernel;
	uint32_t frame;		/* profile frame id */
};

/*
 * The records the reading thread copied for the worker (sampler-queue.c):
 * a byte ring of cap bytes.  head and tail (bytes written and taken, from
 * the run's start) are atomics, stop and exited under mu; wpos and rtail
 * are the reader's own (what it wrote, and the tail as it last saw it),
 * and so is held: MMAP2 records waiting for sym_lock.
 */
#define SAMPLER_QUEUE_BYTES	(8u << 20)
struct sampler;
struct recq {
	unsigned char *buf;
	size_t cap;
	_Atomic uint64_t head, tail;
	uint64_t wpos, rtail;
	pthread_mutex_t mu;
	pthread_cond_t more;	/* to the worker: records, a stop, a handoff served */
	pthread_cond_t done;	/* to the reader: records taken, a handoff asked, exited */
	_Atomic bool handoff, sleeping;
	bool stop, exited;
	bool running;		/* the worker's thread is up */
	bool tried;		/* this run asked for it (none to be had: no retry) */
	pthread_t thread;
	/* the symbols context and the comm tables: the worker's records vs the reader's */
	pthread_mutex_t sym_lock;
	/* set by sampler-stream.c: a record and a round's end to the stream, a handoff served */
	void (*take)(struct sampler *s, const union perf_event *ev);
	void (*round)(struct sampler *s);
	void (*serve)(struct sampler *s);
	unsigned char *held;
	size_t held_len, alloc_held;
};

struct sampler {
	struct sampler_opts opts;
	struct symbols *syms;
	struct sampler_event *evs;
	size_t nr_evs;
	bool is_default;	/* no -e: cycles with fallback */
	bool chosen;		/* events settled by a successful open */
	bool auto_pages;	/* no -m: the ring buffers' size is ours to choose */
	char note[256];
	char freq_note[256];	/* this open lowered -F; empty: it did not */
	char exec_note[768];	/* this run: an exec that ended sampling (sampler__exec_note) */
	char user_note[512];	/* fell back to user-only sampling (sampler__user_note) */
	uint64_t sample_type;

	/* this run */
	struct perfsession ps;
	bool system_wide, need_proc;	/* read /proc at enable (no exec records) */
	pid_t *pids;
	size_t nr_pids;
	bool proc_done;
	struct id_map *ids;
	size_t nr_ids, alloc_ids;
	uint64_t lost, throttled, bad;
	uint64_t kernel_lost;	/* the events' own lost counts at disable (PERF_FORMAT_LOST) */
	uint64_t chains_cut;	/* all runs: user chains cut at a junk frame */
	uint64_t chains_rejected;	/* all runs: chains holding a value >= PERF_CONTEXT_MAX, kept at their IP */
	uint64_t stacks_cut;	/* all runs: samples whose chain was cut to its leaf, over the budget */
	uint64_t chains_lost;	/* samples whose whole chains could not be read back (take_chains) */
	struct stackagg agg;
	/*
	 * --call-graph dwarf: samples carry a user stack copy, unwound when
	 * they leave the queue with the maps of their own time.  Every
	 * sample is counted when queued (in) and when aggregated (out).
	 */
	struct unwinder *unwinder;
	uint64_t deferred_in, deferred_out;
	uint64_t *scratch;
	size_t alloc_scratch;
	/*
	 * --call-graph lbr: the branch_sample_type asked for (NO_FLAGS and
	 * NO_CYCLES dropped if the kernel refuses them) and the chain each
	 * sample's branch stack is turned into (sample__lbr_chain).
	 */
	uint64_t branch_type;
	uint64_t *lbr;
	size_t alloc_lbr;

	/*
	 * Side-band records (COMM, MMAP, FORK, EXIT) and samples, copied and
	 * applied in time order, as perf's ordered events are: the per-CPU
	 * buffers are read one after another, so an exec's COMM on one CPU
	 * can be read after the new image's MMAP2s from another (applying it
	 * late would wipe those maps), a child's COMM before the FORK that
	 * gave it its parent's name (applying that late named the child's
	 * samples after its parent: sort's as sh in a pipeline), and a
	 * sample before the COMM or exec that preceded it.  A record is held only until no earlier one can still
	 * come (perf's ordered-events rule): after each full drain round,
	 * those stamped no later than the newest time read by the end of the
	 * round before are applied, since they were written before this
	 * round began reading.  So the queue holds about one round of
	 * records, not the run's (fork-heavy loads made that grow with time).
	 */
	struct reorderq sb;
	uint64_t sb_last_time;
	uint64_t seen_max;	/* newest record time read */
	uint64_t sb_safe;	/* seen_max at the end of the last round, 0: none yet */
	/*
	 * The sampling window: this run's first and last sample time (0:
	 * none yet), and all runs' windows summed (meta sample_window_ns):
	 * samples per second of a run's own window compare recorders whose
	 * windows differ in length (make bench's heavy -a rows).
	 */
	uint64_t first_sample, last_sample;
	uint64_t window_ns;

	/* comm strings (local ids, 1-based) and per-thread comm */
	struct strintern comms;		/* cut to COMM_LEN, 0 reserved */
	struct tid_comm *tids;		/* rows of tid_idx, by tid */
	size_t nr_tids, alloc_tids;
	struct hashidx tid_idx;
	struct space *spaces;		/* rows of space_idx, by key */
	size_t nr_spaces, alloc_spaces;
	struct hashidx space_idx;
	uint32_t next_space;		/* SPACE_FIRST + keys and symkeys handed out */

	/* resolution caches, valid for one profile (across its runs) */
	struct profile *cache_p;
	struct frame_row *frows;
	size_t nr_frows, alloc_frows;
	struct hashidx frow_idx;
	uint32_t *comm_str;	/* local comm id -> profile string id */
	size_t alloc_comm_str;
	/* --inline: per real frame id, 1 + where its inline frames start in inl_ids */
	uint32_t *inl_at, *inl_ids;	/* inl_ids: count, then the frame ids */
	size_t alloc_inl_at, nr_inl_ids, alloc_inl_ids;
	uint32_t *frames;
	size_t alloc_frames;
	uint32_t first_event;

	/* the budget of distinct chains (stackagg.h) */
	size_t arena_words;	/* the aggregate's arena once bound */
	size_t max_nodes;	/* the recording's trie (0: DATAFILE_TRIE_NODES) */
	/*
	 * The chains the trie has no room for (past 3/4 of max_nodes), whole:
	 * sorted to the output's folder (chainsort.h), taken into the trie by
	 * sampler__take_chains after the last run.  NULL until the first;
	 * whole_err: its file could not be made or written (-errno), and
	 * past the trie's whole bound new chains keep their leaf, as before.
	 */
	struct chainsort *whole;
	int whole_err;
	uint32_t *root_first;	/* a chain for it */
	size_t alloc_root_first;
	struct chainspill spill;	/* a full arena's entries while the run lasts */
	int spill_err;		/* the spill file could not be opened or written: -errno */
	uint64_t spills;	/* all runs: arenas written to it */
	struct profile *bound_p;	/* this run's profile and run (sampler__bind), for a spill */
	uint32_t bound_run;

	/* the reading thread and the worker (sampler-queue.c) */
	struct recq q;
	bool raw_on_read;	/* the raw hook wants tracepoint samples as read */
	bool read_whole;	/* the last drain read every buffer to its head */
	uint64_t read_samples;	/* this run: sample records read */
	uint64_t queue_full;	/* all runs: drains cut short by a full queue */
	uint64_t reader_aggregated;	/* all runs: samples aggregated off the worker */
};

/* sampler-comm.c: local comm ids and the comm of each thread over time */
uint32_t sampler__comm_intern(struct sampler *s, const char *name);
/* The thread's entry (create: add it); NULL for tid -1, or when absent and !create. */
struct tid_comm *sampler__tid_comm(struct sampler *s, int32_t tid, bool create);
/*
 * A COMM record of an exec by pid: when the new program is set-user-ID,
 * set-group-ID (to someone else) or has file capabilities, the kernel
 * took the process's perf events away at that exec (begin_new_exec:
 * perf_event_exit_task when the process is no longer dumpable), so
 * nothing after it is sampled: say so in exec_note, once a run.
 */
void sampler__check_exec(struct sampler *s, pid_t pid);
void sampler__set_comm(struct sampler *s, int32_t tid, uint32_t comm);
/* The comm tid has now (its process's, perf's ":tid" when unknown). */
uint32_t sampler__comm_of(struct sampler *s, uint32_t pid, uint32_t tid);
/* The key a sample of pid is aggregated under now (marks the space sampled). */
uint32_t sampler__space_key(struct sampler *s, uint32_t pid);
/*
 * pid's address space is about to be replaced (an exec, a FORK reusing
 * the pid): when samples were taken in it, keep its maps for them and
 * give pid a new key.
 */
void sampler__space_end(struct sampler *s, uint32_t pid);
/* The process and the symbols key of an aggregate entry's key. */
void sampler__space_of(const struct sampler *s, uint32_t key, uint32_t *pid, int32_t *symkey);
/* Names and maps of processes that existed before the open, once per run. */
void sampler__read_proc(struct sampler *s);

/* sampler-open.c: close this run's events (the sampler stays usable) */
void sampler__teardown(struct sampler *s);
/* sampler-open.c: the disabled events' own lost counts summed (0: none given) */
uint64_t sampler__kernel_lost(struct sampler *s);

/*
 * sampler-queue.c.  The reader: room for one more record (at most 64 KiB),
 * copy it, hand what was copied to the worker with a round's end mark or
 * without.  The worker's life: started at a run's first drain, stopped
 * (every record taken, then joined) when the run's events close.
 * worker_wait: until the worker took records, asked for a handoff or
 * exited; worker_sync: until it took every record.  A handoff (sampler__spill with no spill file): the worker asks
 * and waits, the reader resolves the arena into the bound profile
 * (sampler__resolve_bound) at its next drain.
 */
void sampler__queue_init(struct recq *q);
void sampler__queue_release(struct recq *q);
bool sampler__queue_room(struct sampler *s);
void sampler__queue_record(struct sampler *s, const union perf_event *ev);
void sampler__queue_publish(struct sampler *s, bool round_end);
void sampler__worker_start(struct sampler *s);
void sampler__worker_wait(struct sampler *s);
void sampler__worker_sync(struct sampler *s);	/* until every queued record is taken */
void sampler__worker_stop(struct sampler *s);
bool sampler__on_worker(void);
void sampler__ask_handoff(struct sampler *s);
void sampler__serve_handoff(struct sampler *s);

/*
 * The aggregate's arena is full (stackagg__full): spill its entries
 * (chainspill.h), or where that cannot be done turn them into the bound
 * profile's trie and counts now, and empty it.  Samples reach it in time
 * order, so the maps they are resolved with are those of their time, as
 * at the end of the run.
 */
void sampler__spill(struct sampler *s);
/* sampler-resolve.c: the arena's entries into the bound profile now */
void sampler__resolve_bound(struct sampler *s);
/*
 * sampler-resolve.c: a run's aggregate (spilled or not) into p's trie and
 * counts of run, its samples, lost and throttled into r (NULL: not
 * wanted), the chains cut as meta keys; the aggregate emptied.  After the
 * stream's last side-band record (sampler__end_run).
 */
int sampler__resolve_run(struct sampler *s, struct profile *p, uint32_t run, struct run *r);

#endif
