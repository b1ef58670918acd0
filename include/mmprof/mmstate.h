/*
 * mmstate: the memory-management state around one run, as the kernel test
 * robot shows it next to its profiles (lkp-format.md, "proc-vmstat and
 * friends").
 *
 * Per run, stored as metrics (so that report and diff see them as keys):
 *   proc-vmstat.<field>  /proc/vmstat read just before the workload is
 *                        released and just after it ends.  Event counters
 *                        (pgfault, thp_split_pmd, numa_hit, ...) give
 *                        after - before.  Levels (nr_free_pages,
 *                        nr_anon_pages, the dirty thresholds: see
 *                        mmstate__is_level) give the mean of the two
 *                        readings, because the robot's mails show those as
 *                        levels averaged over the run, not as changes.
 *   meminfo.<field>      /proc/meminfo read once right after the run, the
 *                        number as the file prints it (kB for most fields,
 *                        a page count for HugePages_*).
 * Both files are system-wide: every process on the machine contributes, as
 * in the robot's numbers.  A field that appears in only one reading is left
 * out.
 *
 * Once per file, stored as meta (the last run's reading wins):
 *   thp_enabled, thp_defrag, thp_khugepaged_defrag, thp_use_zero_page,
 *   thp_shmem_enabled    the bracketed choice (or the number) of
 *                        /sys/kernel/mm/transparent_hugepage/...
 *   hugetlb_<size>_nr_hugepages  each /sys/kernel/mm/hugepages/hugepages-<size>
 *   numa_nodes           the number of nodes in /sys/devices/system/node/online
 *
 * Cost: two reads of /proc/vmstat (~200 lines) and one of /proc/meminfo
 * per run.  Library rules: 0 or -errno, nothing printed.
 */
#ifndef MMPROF_MMSTATE_H
#define MMPROF_MMSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/profile.h"

struct mmstate_field {
	char *name;		/* owned */
	uint64_t value;
};

struct mmstate {
	const char *vmstat_path;	/* NULL: /proc/vmstat (tests give a file) */
	const char *meminfo_path;	/* NULL: /proc/meminfo */
	struct mmstate_field *before;	/* the reading of mmstate__begin */
	size_t nr_before, alloc_before;
	bool begun;
};

/* Read /proc/vmstat as the "before" reading.  0 or -errno. */
int mmstate__begin(struct mmstate *s);

/*
 * Read /proc/vmstat again and /proc/meminfo, and add the proc-vmstat.* and
 * meminfo.* metrics of run to p.  Without a successful mmstate__begin only
 * meminfo is stored.  0, or -errno if a file could not be read (what could
 * be read is stored).
 */
int mmstate__end(struct mmstate *s, struct profile *p, uint32_t run);

/* Free the readings (the paths are borrowed). */
void mmstate__release(struct mmstate *s);

/*
 * THP, hugetlb and NUMA settings as meta.  sys_root prefixes every path
 * ("" or NULL: the real /sys).  Unreadable settings are left out.
 */
void mmstate__add_settings(struct profile *p, const char *sys_root);

/* true for /proc/vmstat fields that are levels rather than event counters. */
bool mmstate__is_level(const char *field);

/* "0-3,5" -> 5; 0 for an empty or malformed list. */
unsigned mmstate__count_list(const char *list);

#endif
