/*
 * perfmap: the symbols a JIT publishes for its code in /tmp/perf-PID.map,
 * perf's convention (V8/node --perf-basic-prof, the JVM's perf-map-agent,
 * LuaJIT, .NET, Python 3.12's -X perf all write it).
 *
 * One line per function: "START SIZE NAME", START and SIZE hex with or
 * without 0x, NAME the rest of the line (spaces allowed, not demangled:
 * JITs write what they want shown).  Addresses are the process's own, so
 * the table is absolute.  A JIT may append for its whole life; the file is
 * read when the first sample needs it, at the end of the recording.  Two
 * lines for one start (code regenerated at one address) keep one name by
 * the rule ELF aliases follow, as perf does.
 *
 * The file is the profiled user's, read by whoever records (root for
 * record -a): it is opened without following a symlink (a link to
 * /dev/zero or to root's files) and without blocking (a FIFO), taken only
 * when it is a regular file owned by the process's uid or by the reader,
 * and read up to PERFMAP_MAX_BYTES: a JIT that writes forever, or a sparse
 * file, costs a bounded amount.  perf's dso__load (symbol.c) checks
 * /tmp/perf-* too, stricter: owner root or the reader ("not owned by
 * current user or root, ignoring it"), so root's perf never reads a
 * user's JIT map; the process's uid is what makes the file the JIT's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* node's maps reach tens of MiB in a long run; far beyond is not a JIT's */
#define PERFMAP_MAX_BYTES (256ULL << 20)
/* a name longer than this (a C++ template's) is cut, not dropped */
#define PERFMAP_MAX_LINE 8192

/*
 * Whether st, the perf map of the process in path's name, may be read:
 * its owner is the process's (owner, seen while it ran, else the uid of
 * /proc/PID while it lives) or the reader's own.
 */
static bool owner_trusted(const char *path, const struct stat *st, long owner)
{
	char proc[32];
	struct stat pst;
	int pid, n = 0;

	if (st->st_uid == geteuid())
		return true;
	if (owner >= 0)		/* not /proc/PID: the pid may be another's by now */
		return (long)st->st_uid == owner;
	if (sscanf(path, "/tmp/perf-%d.map%n", &pid, &n) < 1 || !n || path[n])
		return false;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	return !stat(proc, &pst) && pst.st_uid == st->st_uid;
}

int perfmap__read(struct elffile *f, const char *path, long owner, struct strarena *names)
{
	unsigned long long total = 0;
	char line[PERFMAP_MAX_LINE];
	struct stat st;
	FILE *fp;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !owner_trusted(path, &st, owner)) {
		close(fd);
		return -EPERM;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		close(fd);
		return -ENOMEM;
	}
	/* the bytes read are the file position: strlen() counts none of a
	 * line of NULs, and a sparse map is NULs of any length */
	while (total < PERFMAP_MAX_BYTES && fgets(line, sizeof(line), fp)) {
		unsigned long long start, size;
		size_t len = strlen(line);
		char *p = line, *end;
		off_t pos = ftello(fp);

		total = pos < 0 ? PERFMAP_MAX_BYTES : (unsigned long long)pos;
		if (len && line[len - 1] != '\n') {
			int c;

			/* a longer line keeps its first bytes as the name */
			while (total < PERFMAP_MAX_BYTES && (c = getc(fp)) != EOF && c != '\n')
				total++;
		}
		start = strtoull(p, &end, 16);
		if (end == p || (*end != ' ' && *end != '\t'))
			continue;
		p = end;
		size = strtoull(p, &end, 16);
		if (end == p || (*end != ' ' && *end != '\t') || !size)
			continue;
		p = end + strspn(end, " \t");
		p[strcspn(p, "\r\n")] = '\0';
		if (!*p)
			continue;
		symtab__add(&f->tab, start, size, strarena__xdup(names, p, strlen(p)), NULL,
			    SYM_GLOBAL);
	}
	fclose(fp);
	symtab__finish(&f->tab, false);
	f->absolute = true;
	return 0;
}
