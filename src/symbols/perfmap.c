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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int perfmap__read(struct elffile *f, const char *path, struct arena *names)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while ((len = getline(&line, &cap, fp)) > 0) {
		unsigned long long start, size;
		char *p = line, *end;

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
		symtab__add(&f->tab, start, size, arena__strndup(names, p, strlen(p)), NULL,
			    SYM_GLOBAL);
	}
	free(line);
	fclose(fp);
	symtab__finish(&f->tab, false);
	f->absolute = true;
	return 0;
}
