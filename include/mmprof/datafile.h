/*
 * datafile: the .data file, an SQLite database holding one profile.
 *
 * The schema is specified in Documentation/data-format.md and versioned by
 * PROFILE_FORMAT_VERSION (stored in PRAGMA user_version and in the meta
 * table as "format_version"; PRAGMA application_id is DATAFILE_APP_ID).
 * Saving is atomic: the database is written to a temporary file
 * ".<name>.tmp.<pid>" in the target's directory (created O_EXCL|O_NOFOLLOW,
 * mode 0644 less umask), made durable, then renamed over the target; a
 * failed or interrupted save never leaves a half-written file under the
 * target name, and a temporary left by a killed save (its pid is gone) is
 * removed by the next save to the same target.
 *
 * Loading treats the file as untrusted: a foreign file, a newer format, a
 * truncated or inconsistent database (dangling ids, a stack trie whose
 * parents do not precede their children, wrong column types, negative
 * counts, absurd sizes) is refused with one line in e.  Save checks the
 * same rules on the profile first, so every file it writes loads.
 *
 * Loading reads aggregates only (stacks, counts, counters): a report never
 * replays samples.  Workload: 10^5..10^6 nodes and counts; save and load
 * are a single pass over each table with prepared statements.
 */
#ifndef MMPROF_DATAFILE_H
#define MMPROF_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"

#define DATAFILE_APP_ID		0x6d6d7066	/* 'mmpf', PRAGMA application_id */

/* Implementation limits, enforced on save and on load (the model keeps
 * within those it shares, profile.h). */
#define DATAFILE_MAX_ROWS	PROFILE_MAX_ROWS	/* rows in any one table */
#define DATAFILE_MAX_STR	PROFILE_MAX_STR		/* bytes in any one string */
#define DATAFILE_MAX_STR_TOTAL	PROFILE_MAX_STR_TOTAL	/* bytes in all strings together */
/* Sampling events: each is opened on every CPU (256 on 64 CPUs are 16,384
 * fds), and readers keep per-event arrays over the trie and per-event
 * values in every pprof sample: 200,000 rows of a 4 MB file cost 1.7 GB. */
#define DATAFILE_MAX_EVENTS	256u
/* Runs: record -r and stat -r stop at 10000.  Readers do per-run work over
 * the run's keys and a keys x runs table (report --json prints every
 * key's value in every run): 200,000 rows (9 MB) cost 1.41 GB. */
#define DATAFILE_MAX_RUNS	10000u
/* Meta keys: few by nature, and profile__set_meta is linear in them. */
#define DATAFILE_MAX_META	PROFILE_MAX_META
/* Frames in one stack (trie depth): far above any kernel callchain
 * (perf_event_max_stack), low enough that a consumer walking a stack
 * needs no more than a bounded buffer. */
#define DATAFILE_MAX_DEPTH	PROFILE_MAX_DEPTH
/*
 * Format 5's chain_blocks (the whole chains of a trie that holds some only
 * in part, chainsrc.h): a reader holds one block unpacked at a time, at
 * most DATAFILE_CHAIN_BLOCK_MAX bytes (the writer closes one at 64 KiB; a
 * single chain of 65536 frames and its cells may take more), and unpacks
 * every block on each walk of the chains, at most
 * DATAFILE_MAX_CHAIN_UNPACKED bytes in all (a few seconds a walk; the
 * worst case of performance.md, 40 s of 16 functions recursing at random,
 * is about 40 MB).  A recording past it keeps its trie and loses the
 * whole chains (datafile__salvage).
 */
#define DATAFILE_CHAIN_BLOCK_MAX	(1u << 20)
#define DATAFILE_MAX_CHAIN_UNPACKED	(1ull << 30)

/*
 * Write p to path atomically: format 4, or 5 when p has whole chains
 * (p->whole: walked once, written as chain_blocks).  0 or -errno with e
 * filled:
 *   -EINVAL   path exists and is not a regular file, or p breaks an
 *             invariant of the format (the message names the row)
 *   -ERANGE   a count >= 2^63, or a table, string or stack depth over the
 *             limits above, or a trie and counts past what a reader
 *             loads (datafile__readers_take)
 *   -ENOSPC   the disk filled (the target is left as it was)
 *   other     -errno of the failing system call
 */
int datafile__save(const struct profile *p, const char *path, struct errmsg *e);

/*
 * As datafile__save, in format version (1 .. PROFILE_FORMAT_VERSION), for
 * a reader that knows only an older one, and for the tests of the readers
 * of older versions.  -EINVAL for a version this writer does not know, or
 * below 5 for a profile with whole chains (format 5 without them: an
 * empty chain_blocks, read back as none).
 */
int datafile__save_version(const struct profile *p, const char *path, int version,
			   struct errmsg *e);

/*
 * Record's last line of defence, for a profile datafile__save refuses (a
 * bug upstream: the model keeps within the format's rules by itself): as
 * datafile__save, but a row that breaks a rule and that no other row
 * refers to (counts, counters, intervals, metrics, meta, frame_files) is
 * left out; when a table others refer to breaks one (strings, frames,
 * nodes, events, runs), the file is written without its stacks (no frames,
 * nodes or counts; runs, counters, metrics and meta kept) and every count
 * is left out; whole chains (p->whole) that break one, or whose walk
 * fails (-EIO, -EPROTO: a temporary file that cannot be read back), are
 * left out first, the trie written as format 4 (its "[elided]" nodes hold
 * every count).
 * *dropped: the rows left out, also in the file's meta as
 * DATAFILE_META_DROPPED; why: the first one (or why the stacks went).
 * Errors as datafile__save, when even that could not be written.
 */
#define DATAFILE_META_DROPPED "save.dropped_rows"
int datafile__salvage(const struct profile *p, const char *path, size_t *dropped,
		      struct errmsg *why, struct errmsg *e);

/*
 * How record and stat write what they built: the model's repairs noted
 * (profile__repairs: meta repaired.*), then datafile__save, and when that
 * refuses the profile or cannot walk its whole chains, datafile__salvage.  warn: one line to print as a
 * warning, empty when there is nothing to say.  Errors as datafile__save:
 * nothing could be written.
 */
int datafile__save_recording(struct profile *p, const char *path, struct errmsg *warn,
			     struct errmsg *e);

/*
 * Whether every reader takes a file of this many stack nodes, frames and
 * count cells, with counts in events events and pairs (run, event) pairs:
 * the loader's limits on unpacked blocks and on the views' walks
 * (data-format.md, limits), with an eighth of the blocks left for the
 * frames' files.  Record keeps its trie within it (sampler-resolve.c), so
 * that a file it writes is never one the readers refuse.
 */
bool datafile__readers_take(size_t nodes, size_t frames, size_t cells, size_t events,
			    size_t pairs);

/*
 * The one rule for the call chains record and import write (issue 30): a
 * trie of at most DATAFILE_TRIE_NODES nodes (2 Mi, 16 MiB of node blocks,
 * a quarter of what a reader unpacks: deep chains cost the tree views 130
 * to 200 bytes a node, 280 MB for report --tree at 2.1 M nodes) that every
 * reader takes.  Past it record keeps every chain whole in the profile's
 * chain source (chainsrc.h: the trie then holds the heavy part of the
 * call graph and "[elided]" nodes, profile__take_chains), and only where
 * that cannot be (no temporary file, no room even for the elision) a new
 * chain keeps its leaf (meta stacks_cut_to_leaf), as import's chains
 * still do; and at most DATAFILE_TRIE_FRAMES frames (512 Ki:
 * report --keys of one new symbol a frame costs about 1.2 KB a frame, 0.6
 * GB at the bound), past which a new frame is [unknown] (meta
 * repaired.frame).  Each frame of a trie is a node's, so the trie's nodes
 * past its bound are cut chains' leaves, as many as the frames at most.
 */
#define DATAFILE_TRIE_NODES	(2u << 20)
#define DATAFILE_TRIE_FRAMES	(512u << 10)

/*
 * The most stack nodes, max_nodes at most, for which datafile__readers_take
 * holds with these frames, cells, events and pairs (0 when none does):
 * the bound for a trie grown all at once (profile__take_chains).
 */
size_t datafile__readers_nodes(size_t max_nodes, size_t frames, size_t cells, size_t events,
			       size_t pairs);

/*
 * Whether p's trie takes a chain of nr more nodes (new frames counted as
 * many) when its runs are runs at most: within max_nodes (a test's smaller
 * trie; 0: DATAFILE_TRIE_NODES) and datafile__readers_take.
 */
bool datafile__trie_takes(const struct profile *p, size_t nr, size_t runs, size_t max_nodes);

/*
 * Read path into a new profile (*out, to be freed with profile__free; NULL
 * on error).  Ids of strings, frames, nodes, events and runs are those of
 * the file when the file is canonical (as written by save).  0 or:
 *   -ENOENT, -EACCES, ...   the file cannot be opened
 *   -EINVAL            not an mmprof data file (empty, text, another db)
 *   -EPROTONOSUPPORT   a format version this reader does not read
 *   -EPROTO            truncated, corrupt or inconsistent content
 * A format-5 file's chains become (*out)->whole: a source that holds the
 * blocks packed (at most the file's size) and unpacks one at a time on
 * each walk; every block is checked here, so a walk fails only as fn says.
 */
int datafile__load(const char *path, struct profile **out, struct errmsg *e);

#endif
