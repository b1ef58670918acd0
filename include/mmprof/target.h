/*
 * target: what `mmprof record` and `mmprof stat` watch, from their
 * command lines, checked in one place for both.
 *
 * What is watched is one of a forked command (`-- CMD`), running
 * processes (-p PID,...) or every CPU (-a, or -C LIST, which implies -a
 * as in perf).  A command may come with -p or -a, as perf's idioms
 * `perf record -a -g -- sleep 10` and `perf stat -a ... -- CMD`: the
 * processes or CPUs are watched for as long as the command runs, and the
 * command's status, wall time and rusage are the run's, as for a plain
 * command.  Without a command a -p run ends when the processes are gone,
 * a -a run when stopped or --duration ends.
 *
 * Library rules: 0 or -errno with e filled; nothing printed.
 */
#ifndef MMPROF_TARGET_H
#define MMPROF_TARGET_H

#include <stdbool.h>

#include "mmprof/errmsg.h"

enum target_mode { TARGET_FORK, TARGET_PID, TARGET_SYSTEM };

struct target_spec {
	enum target_mode mode;	/* what the events are opened on */
	bool command;		/* a command runs; the run lasts as long as it */
	char *cpu_list;		/* -C's list, each CPU once (target__merge_cpus); NULL: no -C */
};

/* Free what target__check put in t (NULL-safe; t stays usable). */
void target_spec__release(struct target_spec *t);

/*
 * The target of a command line: has_command (words after '--'), -p's
 * list (NULL: none), -a and -C's list (NULL: none).  -EINVAL with e
 * filled when nothing or both -p and -a are given, or -C with -p, or
 * -C's list is no list; -ENODEV when it names a CPU not online here.
 * `verb` is what the command does in its message ("record", "count").
 * out->cpu_list is then -C's list to open the events on: release out.
 */
int target__check(bool has_command, const char *pid_list, bool system_wide,
		  const char *cpu_list, const char *verb, struct target_spec *out,
		  struct errmsg *e);

/*
 * -C's list ("0-3,8") against this machine's online and present CPUs as
 * sysfs lists them (NULL: not known; then the syntax only): 0, -EINVAL
 * for no list, -ENODEV naming the first CPU that does not exist ("CPU 99
 * does not exist (this machine has CPUs 0-1)") or is offline.
 */
int target__check_cpus(const char *cpu_list, const char *online, const char *present,
		       struct errmsg *e);

/*
 * A list target__check_cpus accepted, with each CPU once, as perf's
 * cpu map holds it: the list itself when no CPU repeats, else its CPUs
 * as sorted ranges ("0-1" for "0-1,1", "0-3,8" for "8,0-3,2").  libperf
 * (and so perf 6.1's own -C) refuses a CPU named twice; a list made by a
 * script (a node's CPUs, then one more) easily names one twice.  NULL
 * for no list; the caller frees.
 */
char *target__merge_cpus(const char *cpu_list);

/* "fork", "pid" or "system": the file's meta record_mode. */
const char *target__mode_name(enum target_mode mode);

#endif
