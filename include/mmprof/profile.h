/*
 * profile: the in-memory model of one recording (one .data file).
 *
 * `record` builds it, `datafile` saves and loads it, `report` and `diff`
 * read it.  Everything is interned once and referred to by 32-bit ids:
 *
 *   strings   pool of unique strings; id 0 is "no string" (NULL)
 *   frames    resolved code locations (symbol, DSO, kernel/user, raw address)
 *   nodes     a call-stack trie, root first: node 0 is the root sentinel,
 *             every other node has parent < its own id and one frame.  A
 *             stack is the node of its innermost frame (the sampled IP).
 *   counts    (run, event, comm, pid, node) -> samples and summed period
 *   events    the sampling events (as asked and as really opened)
 *   runs      one per workload execution (record -r N gives N runs)
 *   counters  per run: perf-stat style totals with enabled/running times
 *   intervals per run: counter deltas per interval (record -I)
 *   metrics   per run: named numbers (workload output "<name>.<m>: v",
 *             rusage-derived keys, later vmstat deltas)
 *   meta      ordered key/value strings (host, kernel, command line, ...)
 *
 * Tables are plain arrays, readable directly (`p->frames[i]`); mutate only
 * through the functions below, which keep the hash indexes in step.
 * Memory: allocation failure exits (xalloc.h).  Workload: hundreds of
 * thousands of nodes and counts, lookups far more common than inserts.
 */
#ifndef MMPROF_PROFILE_H
#define MMPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/hashidx.h"
#include "mmprof/strintern.h"

/* Version of the data model and of the .data schema (Documentation/data-format.md). */
#define PROFILE_FORMAT_VERSION 5
/*
 * The version of a profile without whole chains (p->whole NULL): format 5
 * is format 4 and its chain_blocks, and such a file is written as format
 * 4, as it always was (what a recording's meta says until the save).
 */
#define PROFILE_FORMAT_PLAIN 4

#define PROFILE_ROOT 0u		/* node id of the trie root */

/*
 * The file format's limits (datafile.h, where each is explained; save and
 * load enforce them).  The model keeps within them itself, so that what
 * record builds from any kernel data or workload output always saves:
 * a value that would break one is repaired or dropped where it enters,
 * and counted (profile__repairs).  A profile loaded from a valid file
 * never needs one.
 */
#define PROFILE_MAX_ROWS	(1u << 26)	/* rows in any one table */
#define PROFILE_MAX_STR		(4u << 20)	/* bytes in any one string */
#define PROFILE_MAX_STR_TOTAL	(1ull << 30)	/* bytes in all strings together */
#define PROFILE_MAX_META	4096u		/* meta keys, the file's format_version included */
#define PROFILE_MAX_DEPTH	65536u		/* frames in one stack */

/* What the model repaired or dropped to keep within those limits. */
enum profile_repair {
	PROFILE_REPAIR_PID,		/* a count's pid past pid_t: stored as 0 (not known) */
	PROFILE_REPAIR_COUNT,		/* a count taking the sum of all to 2^63: dropped */
	PROFILE_REPAIR_COUNT_ROWS,	/* a new count past PROFILE_MAX_ROWS: dropped */
	PROFILE_REPAIR_RUN,		/* a run's samples, lost or throttled >= 2^63: capped */
	PROFILE_REPAIR_STACK,		/* a stack deeper than PROFILE_MAX_DEPTH (or new nodes
					 * past PROFILE_MAX_ROWS): its outermost callers cut */
	PROFILE_REPAIR_STRING,		/* a string over PROFILE_MAX_STR: cut to it */
	PROFILE_REPAIR_STRING_DROPPED,	/* a new string past the pool's total: not stored */
	PROFILE_REPAIR_META,		/* a new meta key past PROFILE_MAX_META: dropped */
	PROFILE_REPAIR_FRAME,		/* a new frame past the trie's frames (datafile.h): [unknown] */
	PROFILE_NR_REPAIRS
};

struct frame {
	uint64_t addr;		/* raw sampled address (user: process virtual) */
	uint64_t sym_off;	/* addr - symbol start; 0 when unresolved */
	uint32_t sym;		/* string id of the symbol name, 0 = unresolved */
	uint32_t dso;		/* string id: "[kernel.kallsyms]", "[ext4]", a path; 0 = unknown */
	uint32_t raw;		/* string id of the mangled ELF name when sym is its
				 * demangled form (C++, Rust); 0 otherwise */
	uint8_t kernel;		/* 1 for a kernel-space frame */
	uint8_t inlined;	/* 1: a function inlined at addr into the next
				 * (outer) frame, which has the same addr
				 * (record --inline); keys and folded skip it */
};

/*
 * Where an unresolved user frame lies in its file, so that its name can
 * be found later (mmprof resolve, from debuginfo installed since): the
 * address as the file's ELF headers speak it, and the file's build-id.
 */
#define PROFILE_BUILD_ID_MAX 64	/* hex digits */
struct frame_file {
	uint32_t frame;		/* frame id */
	uint64_t vaddr;		/* ELF virtual address in the frame's DSO */
	char build_id[PROFILE_BUILD_ID_MAX + 1];	/* lower-case hex, "" unknown */
};

struct stack_node {
	uint32_t parent;	/* < own id; the root's parent is itself (0) */
	uint32_t frame;		/* frame id (unused for the root) */
	uint32_t depth;		/* 1 for a child of the root */
};

/*
 * 36 bytes, 4-aligned: the padding of 8-byte alignment was a tenth of
 * memory for a file of a million cells.
 */
struct count {
	uint32_t run, event, comm;
	uint32_t pid;		/* process (tgid) sampled; 0: the idle task or not known */
	uint32_t node;
	uint64_t samples;
	uint64_t period;	/* sum of sample periods (ns for cpu-clock) */
} __attribute__((packed, aligned(4)));

/*
 * The event `record --sched` adds (not a perf event: type PERF_TYPE_MAX):
 * its period is the nanoseconds a thread spent off CPU (sched.h).
 */
#define PROFILE_OFFCPU_EVENT "offcpu"

/*
 * The outermost frame of a sample whose callchain perf rejects (a value
 * at or above PERF_CONTEXT_MAX that is no context marker): the sample is
 * kept at its IP, as perf keeps it, under this frame, so that the views
 * show where its chain went, and the keys count it as perf report does:
 * in its IP's children and self, in no calltrace (perf prints no folded
 * line for an empty chain), never a key of its own.  Address ~0, the
 * symbol and DSO this text.
 */
#define PROFILE_REJECTED_CHAIN "[callchain rejected]"
#define PROFILE_REJECTED_ADDR UINT64_MAX

/*
 * The node between a chain's heavy prefix and its sampled frame where the
 * trie holds the chain only in part (chainsrc.h: the whole chain is in the
 * profile's chain source).  Its frame: address PROFILE_ELIDED_ADDR, the
 * symbol and DSO this text, user side.  Never a key of its own; a view
 * of counts draws it as any frame, a reader of whole chains reads the
 * chain source in place of the cells under it.
 */
#define PROFILE_ELIDED "[elided]"
#define PROFILE_ELIDED_ADDR (UINT64_MAX - 1)

struct event_desc {
	uint32_t name;		/* string id: the event opened, perf's spelling ("cpu-clock") */
	uint32_t asked;		/* string id: as the user asked ("cycles") */
	uint32_t type;		/* perf_event_attr.type */
	uint64_t config;	/* perf_event_attr.config */
	uint8_t freq;		/* 1: sample is a frequency in Hz, 0: a period */
	uint64_t sample;
};

struct run {
	int64_t start_ns;	/* CLOCK_REALTIME at start */
	int64_t wall_ns;	/* duration of the run (or of the sampled window) */
	int32_t exit_code;	/* workload exit code, -1 if killed or not a fork */
	int32_t term_signal;	/* signal that killed it, 0 if none */
	int64_t utime_us, stime_us;
	int64_t maxrss_kb, minflt, majflt, nvcsw, nivcsw;
	uint64_t samples, lost, throttled;
};

struct counter {
	uint32_t run;
	uint32_t name;		/* string id, perf's name ("page-faults") */
	uint8_t supported;	/* 0: the machine cannot count it; value meaningless */
	uint64_t value;		/* raw value as read */
	uint64_t enabled, running;	/* ns; value scaled = value * enabled / running */
};

struct counter_interval {
	uint32_t run;
	uint32_t name;		/* string id */
	uint64_t t_ns;		/* end of the interval, since the start of the run */
	uint64_t value;		/* delta over the interval (raw) */
	uint64_t enabled, running;	/* deltas over the interval */
};

struct metric {
	uint32_t run;
	uint32_t key;		/* string id ("page_fault1.ops_per_sec") */
	double value;
};

struct meta_entry {
	uint32_t key, value;	/* string ids */
};

struct profile {
	/*
	 * string pool: strs.s[id] for 1 <= id < strs.nr (0 is reserved), in
	 * the order first interned: the data file's string ids.  Bounded by
	 * PROFILE_MAX_ROWS ids and strs.o.max_bytes (PROFILE_MAX_STR_TOTAL;
	 * an import sets less).
	 */
	struct strintern strs;

	struct frame *frames;
	size_t nr_frames, alloc_frames;

	struct stack_node *nodes;	/* nodes[0] is the root */
	size_t nr_nodes, alloc_nodes;

	struct count *counts;
	size_t nr_counts, alloc_counts;

	struct event_desc *events;
	size_t nr_events, alloc_events;

	struct run *runs;
	size_t nr_runs, alloc_runs;

	struct counter *counters;
	size_t nr_counters, alloc_counters;

	struct counter_interval *intervals;
	size_t nr_intervals, alloc_intervals;

	struct metric *metrics;
	size_t nr_metrics, alloc_metrics;

	struct meta_entry *meta;
	size_t nr_meta, alloc_meta;

	/* unresolved user frames' file addresses, at most one per frame */
	struct frame_file *frame_files;
	size_t nr_frame_files, alloc_frame_files;

	/*
	 * The whole chains of the cells under "[elided]" nodes (chainsrc.h),
	 * owned; NULL when the trie holds every chain whole.
	 */
	struct chainsrc *whole;

	/* private: hash indexes over the tables above */
	struct hashidx frame_idx, count_idx;
	/*
	 * The nodes' index: bucket heads by (parent, frame) hash, a chain
	 * through node_next (0 ends it: the root is nobody's child), over
	 * nodes 1..nr_node_idx.  node_idx is no longer used: a loader that
	 * replaces the nodes still empties it, and nr_node_idx >= nr_nodes
	 * tells the index that they were replaced.
	 */
	uint32_t *node_heads, *node_next;
	size_t node_mask, nr_node_idx, alloc_node_next;
	struct hashidx node_idx;
	/* private: the sums of all counts (below 2^63) */
	uint64_t sum_samples, sum_period;
	uint64_t repairs[PROFILE_NR_REPAIRS];	/* by enum profile_repair */
};

struct profile *profile__new(void);
void profile__free(struct profile *p);	/* NULL is fine */

/*
 * Strings: 0 for NULL; the returned pointer lives as long as p.  A string
 * ends at a NUL inside it (the bytes after it are not interned); one
 * over PROFILE_MAX_STR is cut to it (at a UTF-8 character's start); a new
 * one that would take the pool past strs.o.max_bytes (PROFILE_MAX_STR_TOTAL
 * unless an import set less) or PROFILE_MAX_ROWS strings gets 0.
 */
uint32_t profile__intern(struct profile *p, const char *s);
uint32_t profile__intern_len(struct profile *p, const char *s, size_t len);
/* Existing id of s, or 0 if s was never interned. */
uint32_t profile__str_id(const struct profile *p, const char *s);
static inline const char *profile__str(const struct profile *p, uint32_t id)
{
	return strintern__str(&p->strs, id);
}

/*
 * Meta: set replaces an existing key's value (order of first set kept); a
 * new key past PROFILE_MAX_META (less the file's format_version) is dropped.
 */
void profile__set_meta(struct profile *p, const char *key, const char *value);
const char *profile__meta(const struct profile *p, const char *key);
/* Remove key (when set); the other keys keep their order. */
void profile__del_meta(struct profile *p, const char *key);

uint32_t profile__add_event(struct profile *p, const struct event_desc *ev);
/* A run's samples, lost and throttled are capped below 2^63. */
uint32_t profile__add_run(struct profile *p, const struct run *r);

/* The id of an identical frame (addr, sym, dso, kernel, sym_off), added if new. */
uint32_t profile__frame(struct profile *p, const struct frame *f);
/*
 * The same, but a new frame is added only below max frames: else the
 * frame with no address, symbol or DSO (of f's side, kernel or user),
 * named [unknown] by readers, and counted in PROFILE_REPAIR_FRAME.
 */
uint32_t profile__frame_within(struct profile *p, const struct frame *f, size_t max);
/*
 * After frames[] were changed in place (mmprof resolve names frames saved
 * unresolved; ids, nodes and counts stay): rebuild the frames' index.
 */
void profile__frames_changed(struct profile *p);
/*
 * Record where unresolved user frame `frame` lies in its file (vaddr,
 * build_id: hex, NULL or "" unknown, longer than PROFILE_BUILD_ID_MAX:
 * stored as unknown).  A frame given twice in a row is kept once; other
 * repeats are harmless (the first entry that names it wins).
 */
void profile__add_frame_file(struct profile *p, uint32_t frame, uint64_t vaddr,
			     const char *build_id);

/*
 * The child of parent with this frame, added if new; parent itself when
 * the child would be deeper than PROFILE_MAX_DEPTH or past PROFILE_MAX_ROWS
 * nodes (the stack cut, counted).
 */
uint32_t profile__node(struct profile *p, uint32_t parent, uint32_t frame);

/*
 * The child of parent with this frame, or PROFILE_ROOT (0, nobody's child)
 * when p has none; adds nothing (p is not const: the index catches up).
 */
uint32_t profile__child(struct profile *p, uint32_t parent, uint32_t frame);

/*
 * Append the child of parent with this frame, which the caller knows is not
 * in p yet (a loader that checked its edges are distinct), without hashing
 * it: the index catches up at the next profile__node.  parent < nr_nodes.
 * A duplicate edge appended here is a bug.
 */
void profile__append_node(struct profile *p, uint32_t parent, uint32_t frame);

/*
 * Insert frames into every stack below each node of a given frame, toward
 * the leaf (mmprof resolve's kernel inline chains, where record puts
 * them: after the real frame, the function inlined deepest last).
 * ins[f] for f < nr_ins is 0 (nothing) or 1 + an offset o into ids, with
 * ids[o] the number n of frames and ids[o + 1 .. o + n] the frames,
 * outermost first.  Nodes are renumbered (parents still before
 * children), every count follows its node; frames and other tables stay.
 */
void profile__insert_frames(struct profile *p, const uint32_t *ins, size_t nr_ins,
			    const uint32_t *ids);

/*
 * The node of a whole stack given innermost first (as the kernel delivers
 * callchains): frames[0] is the sampled IP, frames[n-1] the outermost caller.
 * A stack deeper than PROFILE_MAX_DEPTH keeps its innermost frames, as the
 * kernel cuts a callchain at perf_event_max_stack.
 */
uint32_t profile__stack(struct profile *p, const uint32_t *frames_leaf_first, size_t n);

/*
 * Add samples and period to the (run, event, comm, pid, node) cell.  Views
 * that do not ask for the pid (report, keys, diff) sum over it, as they sum
 * over comms.  Within the format's rules: a pid past pid_t is stored as 0;
 * an add that would take the sum of all counts' samples or periods to 2^63
 * (a period read as a wrapped difference), or a new cell past
 * PROFILE_MAX_ROWS, is dropped.  Each is counted (profile__repairs).
 */
void profile__add_count(struct profile *p, uint32_t run, uint32_t event, uint32_t comm,
			uint32_t pid, uint32_t node, uint64_t samples, uint64_t period);

/*
 * Append a cell the caller knows is not in p yet (a loader that checked
 * its cells are distinct), without hashing it: the index catches up at
 * the next profile__add_count.  A duplicate appended here is a bug.
 */
void profile__append_count(struct profile *p, const struct count *c);

/*
 * Give back the slack of the frame, node and count arrays (up to half of
 * each, from their doubling growth) once a profile is complete: a loaded
 * file of a million cells holds 40 MB of counts, not 80.
 */
void profile__shrink(struct profile *p);

/*
 * The counts grouped by (run, event), a stable counting sort: slot
 * s = run * nr_events + event holds (*by_slot)[start[s] .. start[s + 1]),
 * indices into p->counts in count order, so that a pass over every run
 * reads each count once, not once per run (10 runs of a million counts).
 * A count of no run or event of p is in no slot; its node is not checked.
 * Returns start (nr_runs * nr_events + 1 entries); free it and *by_slot.
 * *by_slot is NULL when the counts are in slot order already, as every
 * file mmprof writes has them: slot s is then counts start[s] ..
 * start[s + 1] themselves (the index was 4 MB a file of a million counts,
 * at the peak of diff -g's chains).
 */
size_t *profile__group_counts(const struct profile *p, uint32_t **by_slot);

/*
 * Wall times, in seconds, of every run of the nr profiles ps: how many
 * runs, their sum, shortest and longest (0, +inf and 0 without a run).
 */
size_t profile__run_walls(const struct profile *const *ps, size_t nr, double *sum, double *lo,
			  double *hi);

/*
 * Samples lost (ring buffer full, runs.lost) over every run of the nr
 * profiles ps; *kept: the samples taken.  *lossy: how many runs lost some
 * (NULL: not wanted).
 */
uint64_t profile__run_lost(const struct profile *const *ps, size_t nr, uint64_t *kept,
			   size_t *lossy);

/*
 * A run's workload status into buf: "exit 0", "exit status 3", "killed by
 * SIGKILL", or "no status" (attached with -p or -a, or imported).  True
 * when the workload failed: a non-zero exit status or a signal.
 */
bool run__status(const struct run *r, char *buf, size_t size);

/*
 * A run's seven rusage fields as members of w's open object, in the
 * order report --json (inside "rusage") and export -f json (flat) write
 * them: utime_us, stime_us, maxrss_kb, minflt, majflt, nvcsw, nivcsw.
 */
struct jsonw;
void run__json_rusage(struct jsonw *w, const struct run *r);
/*
 * Run r of p as run__status says, but the last run of a recording the
 * user interrupted (meta interrupted), ended by the signal record passed
 * on: "stopped by SIGINT (interrupted)", not a failure (record exits 0).
 */
bool profile__run_status(const struct profile *p, uint32_t r, char *buf, size_t size);

/*
 * The statuses of every run of the nr profiles ps, each distinct one once
 * with its number of runs, as first seen: "exit 0 in 3 runs", "exit 0 in
 * 2 runs, killed by SIGKILL in 1".  Returns the runs that failed.
 */
size_t profile__run_statuses(const struct profile *const *ps, size_t nr, char *buf, size_t size);

/*
 * The repairs made so far (enum profile_repair): their total, each kind
 * that happened as a meta key "repaired.<kind>" = its number (so a report
 * can tell), and in buf one line for a warning ("stacks cut ...: 2, ...").
 * (A meta key that finds meta full is dropped, as any: the line still says.)
 */
uint64_t profile__repairs(struct profile *p, char *buf, size_t size);

/* Order of counts by (run, event, comm, pid), then node: <0, 0, >0. */
int count__cmp(const struct count *x, const struct count *y);

void profile__add_counter(struct profile *p, const struct counter *c);
void profile__add_interval(struct profile *p, const struct counter_interval *ci);
void profile__add_metric(struct profile *p, uint32_t run, const char *key, double value);

/* Whether frame f is the "[elided]" marker (PROFILE_ELIDED). */
static inline bool profile__frame_elided(const struct profile *p, uint32_t f)
{
	return p->frames[f].addr == PROFILE_ELIDED_ADDR && !p->frames[f].kernel;
}

/*
 * [node] 1 where node is an "[elided]" frame's or lies below one (its
 * cells are p->whole's chains, which a reader of whole chains reads in
 * their place), else 0 (nr_nodes + 1 of them); NULL when p->whole is
 * NULL.  One pass over the nodes, parents first; the caller frees it.
 */
uint8_t *profile__elided_nodes(const struct profile *p);

/* Symbol of a frame for display: the name, or "[unknown]". */
const char *profile__frame_sym(const struct profile *p, uint32_t frame);

/* Scaled counter value: value * enabled / running (value when running == enabled or 0). */
double counter__scaled(const struct counter *c);

/*
 * Make p fit to share outside its machine (strip.c says what goes: kernel
 * addresses, kallsyms' _text, a tracepoint value that may be one, the
 * host's identity in meta), in place; out: kernel addresses (and values)
 * and identity keys removed.  Strings nothing refers to any more are
 * blanked, so that save does not write them.
 */
struct profile_stripped {
	size_t addrs, keys;
};
void profile__strip(struct profile *p, struct profile_stripped *out);

#endif
