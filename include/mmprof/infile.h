/*
 * infile: the one rule for a file an option names for reading (a gate
 * file, a workload's saved output, a perf stat log): a regular file or a
 * pipe (a FIFO, a shell's <(...)).  A device never ends (/dev/zero spun
 * diff --gate-file for ever, and one getline of it grows without bound)
 * and a folder reads as nothing.  Readers still bound what they read.
 */
#ifndef MMPROF_INFILE_H
#define MMPROF_INFILE_H

#include "mmprof/errmsg.h"

/*
 * 0 when path (what: "gate file", for the message) is a regular file or a
 * pipe; else -EINVAL and e ("gate file '/dev/zero' is not a regular file"),
 * or -errno and e when it cannot be found ("cannot open gate file 'x': ...").
 */
int infile__check(const char *path, const char *what, struct errmsg *e);

#endif
