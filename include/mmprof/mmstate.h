/*
 * mmstate: the memory-management state during one run, as the kernel test
 * robot shows it next to its profiles (lkp-format.md, "proc-vmstat and
 * friends"; Documentation/lkp-compat.md says where each rule comes from).
 *
 * /proc/vmstat and /proc/meminfo are sampled when the workload is released
 * (mmstate__begin), once a second while it runs (mmstate__tick, the run
 * loop's hook) and when it ends (mmstate__end), as the robot's monitors
 * sample them every second over the job.  Per run, stored as metrics:
 *   proc-vmstat.<field>  event counters (the robot's list of counter
 *                        prefixes: pg*, thp_*, numa_*, compact_*, ...;
 *                        mmstate__is_level) give last - first sample;
 *                        every other field is a level: the mean of the
 *                        samples (the robot averages them, even the
 *                        ever-growing workingset_* and nr_tlb_* counts).
 *   proc-vmstat.delta.<field>  mmprof's own reading of the fields the
 *                        robot averages but that count events
 *                        (mmstate__counts_events): last - first.
 *   meminfo.<field>      the mean of the samples, the number as the file
 *                        prints it (kB for most fields, pages for
 *                        HugePages_*), plus meminfo.Memused (mean of
 *                        MemTotal - MemFree) and meminfo.max_used_kB (the
 *                        mean of its running maximum, as the robot has it).
 *   meminfo.rise.<field>, proc-vmstat.rise.<field>  for the levels of
 *                        memory processes hold (mmstate__held_by_processes:
 *                        AnonHugePages, AnonPages, nr_anon_transparent_
 *                        hugepages, HugePages_Free, ...) when a sample was
 *                        taken while the workload ran: the mean of those
 *                        samples less the level read outside the run (the
 *                        mean of the samples at its release and after its
 *                        end).  The levels are system-wide; the rise is
 *                        what the workload held (diff: its own keys, while
 *                        the levels are the machine's state).
 * A field that is 0 in every sample is left out (the robot's dump-stat
 * drops such keys); a field missing from a sample is left out.  Both files
 * are system-wide: every process on the machine contributes.
 *
 * Once per file, stored as meta (the last run's reading wins):
 *   thp_enabled, thp_defrag, thp_khugepaged_defrag, thp_use_zero_page,
 *   thp_shmem_enabled    the bracketed choice (or the number) of
 *                        /sys/kernel/mm/transparent_hugepage/...
 *   hugetlb_<size>_nr_hugepages  each /sys/kernel/mm/hugepages/hugepages-<size>
 *   numa_nodes           the number of nodes in /sys/devices/system/node/online
 *
 * Cost: one read of /proc/vmstat (~200 lines) and /proc/meminfo (~60) a
 * second; memory: one row per field.  Library rules: 0 or -errno, nothing
 * printed.
 */
#ifndef MMPROF_MMSTATE_H
#define MMPROF_MMSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/strintern.h"
#include "mmprof/profile.h"

#define MMSTATE_PERIOD_NS 1000000000LL	/* the robot's monitors' interval */

/* One field's samples. */
struct mmstate_field {
	const char *name;	/* in the file's names */
	uint64_t first, last;
	double sum;
	uint32_t nr;		/* samples it was in */
	bool nonzero;		/* some sample was not 0 */
};

/* The samples of one file. */
struct mmstate_file {
	struct mmstate_field *f;	/* [i]: the field names.s[i] */
	size_t nr, alloc;
	struct strintern names;
	uint32_t samples;
	bool failed;		/* some read failed: nothing stored */
};

struct mmstate {
	const char *vmstat_path;	/* NULL: /proc/vmstat (tests give a file) */
	const char *meminfo_path;	/* NULL: /proc/meminfo */
	struct mmstate_file vm, mi;
	uint64_t mem_total, max_used;	/* meminfo's first MemTotal, running max of used */
	char used_unit[16];
	int64_t next_ns;		/* next mmstate__tick sample, CLOCK_MONOTONIC */
	bool begun;
};

/*
 * The first sample (the paths set in *s are kept, the rest reset); now is
 * CLOCK_MONOTONIC, the next sample is due a second later.  0 or -errno.
 */
int mmstate__begin(struct mmstate *s, int64_t now);

/* The run loop's hook: a sample when one is due.  Cheap when not. */
void mmstate__tick(struct mmstate *s, int64_t now);

/* When the next sample is due (INT64_MAX before begin). */
int64_t mmstate__next(const struct mmstate *s);

/*
 * The last sample, then the proc-vmstat.* and meminfo.* metrics of run
 * added to p.  Without a successful mmstate__begin nothing is stored.  0,
 * or -errno if a file could not be read (what could be read is stored).
 */
int mmstate__end(struct mmstate *s, struct profile *p, uint32_t run);

/* Free the samples (the paths are borrowed); twice is fine. */
void mmstate__release(struct mmstate *s);

/*
 * THP, hugetlb and NUMA settings as meta.  sys_root prefixes every path
 * ("" or NULL: the real /sys).  Unreadable settings are left out.
 */
void mmstate__add_settings(struct profile *p, const char *sys_root);

/*
 * true for /proc/vmstat fields the robot averages (no counter prefix of
 * its list matches), false for those it differences.
 */
bool mmstate__is_level(const char *field);

/*
 * true for robot levels that count events all the same (workingset_*,
 * nr_tlb_*, oom_kill, direct_map_*, ...): mmprof adds their change as
 * proc-vmstat.delta.<field>.
 */
bool mmstate__counts_events(const char *field);

/*
 * true for a level (a /proc/meminfo field, or a /proc/vmstat one of
 * mmstate__is_level) of memory the processes hold: anonymous memory and
 * huge pages in use, every field whose name holds "anon" or "huge"
 * (case-insensitive), but the sizes and pool Hugepagesize,
 * HugePages_Total and Hugetlb.  Of these mmstate__end adds the rise while
 * the workload ran (below); free memory, the page cache, writeback and
 * kernel caches are the machine's alone.
 */
bool mmstate__held_by_processes(const char *field);

/* "0-3,5" -> 5; 0 for an empty or malformed list. */
unsigned mmstate__count_list(const char *list);

#endif
