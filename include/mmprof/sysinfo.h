/*
 * sysinfo: the metadata a recording carries about the machine and itself,
 * so that a .data file read elsewhere says where and how it was made.
 *
 * Meta keys written by `record` (all values are strings):
 *
 *   mmprof_version        "0.1.0"
 *   format_version        PROFILE_FORMAT_PLAIN (the save writes the file's own)
 *   cmdline               mmprof's argv, shell-quoted, joined by spaces
 *   kernel_release        uname -r
 *   hostname              uname -n
 *   machine               uname -m
 *   cpu_model             /proc/cpuinfo "model name" of the first CPU
 *   nr_cpus_online        sysconf(_SC_NPROCESSORS_ONLN)
 *   start_time            ISO 8601 UTC, "2024-05-01T12:00:00Z"
 *   record_mode           "fork", "pid" or "system"
 *   events_asked          the -e list as given, comma-joined, or "default"
 *   events_used           the sampling events really opened, comma-joined
 *   sample_freq | sample_period   -F Hz or -c period
 *   thp_enabled, thp_defrag       the bracketed choice of
 *                         /sys/kernel/mm/transparent_hugepage/{enabled,defrag}
 *   perf_event_paranoid, kptr_restrict   the sysctls, as read
 *
 * (plus record's own: target, duration, delay, interval_ms, nr_runs,
 * interrupted).  The environment is never stored: it holds secrets.
 * A value that cannot be read is left out rather than invented.
 */
#ifndef MMPROF_SYSINFO_H
#define MMPROF_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/profile.h"

/* Host and kernel settings: kernel, hostname, CPU, THP, sysctls, versions. */
void sysinfo__add_host(struct profile *p);

/* "cmdline": argv shell-quoted so that it can be pasted back into a shell. */
void sysinfo__add_cmdline(struct profile *p, int argc, char *const argv[]);

/* "start_time" from a CLOCK_REALTIME timestamp. */
void sysinfo__add_start_time(struct profile *p, int64_t realtime_ns);

/* argv shell-quoted and space-joined; the caller frees it. */
char *sysinfo__quote_argv(int argc, char *const argv[]);

/* ISO 8601 UTC of a CLOCK_REALTIME timestamp into buf; 0 or -EINVAL. */
int sysinfo__iso8601(int64_t realtime_ns, char *buf, size_t size);

/*
 * The selected word of a sysfs choice file ("always [madvise] never" ->
 * "madvise"); the whole trimmed text when there are no brackets.  0 or
 * -EINVAL (empty, or an unterminated bracket).
 */
int sysinfo__selected(const char *text, char *out, size_t size);

/*
 * The first line of a small file (sysfs, procfs) into buf, trailing
 * newline and blanks trimmed; false when it cannot be read or is empty.
 */
bool sysinfo__read_line(const char *path, char *buf, size_t size);

/*
 * The first of pids the caller may not open perf events on because it is
 * another user's, its owner's uid in *uid; 0 when there is none.  The
 * kernel checks ptrace_may_access (PTRACE_MODE_READ_REALCREDS) whatever
 * kernel.perf_event_paranoid says: the caller's real uid and gid must be
 * the process's real, effective and saved ones, or the caller has
 * CAP_SYS_PTRACE.  For error messages: a process gone reads as none.
 */
pid_t sysinfo__foreign_pid(const pid_t *pids, size_t nr, uid_t *uid);

#endif
