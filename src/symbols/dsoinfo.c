/*
 * dsoinfo: what loading gave, DSO by DSO, for the reader (symbols__dso,
 * symbols__nr_dsos), the hint that names why a DSO's frames have no
 * names and what to do (symbols__hint), and the wait at record end for
 * the JIT processes whose perf maps are still to be written
 * (symbols__await_perfmaps).  Reads dso.c's table; opens and parses
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"
#include "context.h"

/* Whether pid runs still: /proc/PID/stat there, its state neither zombie nor dead. */
static bool proc_runs(int pid)
{
	char path[32], buf[512], *r;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "PID (comm) S ...": the comm may hold ')' and spaces; the last ')' ends it */
	r = strrchr(buf, ')');
	return r && r[1] == ' ' && r[2] && r[2] != 'Z' && r[2] != 'X' && r[2] != 'x';
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int symbols__await_perfmaps(struct symbols *s, unsigned int max_ms)
{
	int64_t start = mono_ms(), now = start;
	uint32_t *wait = NULL;
	size_t nr = 0, alloc = 0, i;

	for (i = 0; i < s->nr_dsos; i++) {
		struct dso *d = &s->dsos[i];
		int pid, n = 0;

		if (d->kind != DSO_PERFMAP || d->loaded || d->awaited || !d->jit_flag ||
		    !access(d->name, F_OK) || sscanf(d->name, "/tmp/perf-%d.map%n", &pid, &n) != 1 ||
		    !proc_runs(pid))
			continue;
		d->awaited = true;
		XGROW(wait, alloc, nr);
		wait[nr++] = (uint32_t)pid;
	}
	/* until each such process is gone (then its map is whole) or the time is up */
	while (nr && now - start < (int64_t)max_ms) {
		struct timespec tick = { 0, 20 * 1000 * 1000 };
		size_t k = 0;

		for (i = 0; i < nr; i++)
			if (proc_runs((int)wait[i]))
				wait[k++] = wait[i];
		nr = k;
		if (!nr)
			break;
		nanosleep(&tick, NULL);
		now = mono_ms();
	}
	free(wait);
	return (int)(now - start);
}

const char *symbols__hint(const struct dso_info *di, char *buf, size_t size)
{
	if (!di->loaded)
		return NULL;
	if (dso__is_perfmap(di->name) && di->err == -ENOENT && di->jit_flag)
		/* the user gave the flag: the map comes later (at exit for the JVM's) */
		snprintf(buf, size, "JIT code whose perf map was not written yet (%s writes %s, "
			 "the JVM's at exit): once it is there, name these frames with mmprof "
			 "resolve FILE", di->jit_flag, di->name);
	else if (dso__is_perfmap(di->name) && di->err == -ENOENT)
		snprintf(buf, size, "JIT code without a perf map: the JIT should write %s "
			 "(e.g. node --perf-basic-prof, java -XX:+DumpPerfMapAtExit), then mmprof "
			 "resolve FILE names these frames", di->name);
	else if (di->missed && (di->err == -ENOENT || di->err == -ESTALE))
		snprintf(buf, size, "process exited before mmprof read its mapping, and the path "
			 "now gives no such file (a chroot or container gone): its symbols are lost");
	else if (di->err == -ENOENT)
		snprintf(buf, size, "file gone at record end (removed, or in a container that exited)");
	else if (di->err == -ESTALE)
		snprintf(buf, size, "file deleted or replaced while it ran, before mmprof could "
			 "open it: its symbols are lost");
	else if (di->err == -ENOEXEC)
		snprintf(buf, size, "not an ELF file mmprof can place");
	else if (di->err == -EOPNOTSUPP)
		snprintf(buf, size, "no file behind this mapping (heap, stack or anonymous code)");
	else if (di->err)
		snprintf(buf, size, "cannot read it: %s", strerror(-di->err));
	else if (!di->nr_syms && di->build_id[0])
		snprintf(buf, size, "stripped, no symbols: install its debuginfo "
			 "(/usr/lib/debug/.build-id/%.2s/%s.debug), then mmprof resolve FILE",
			 di->build_id, di->build_id + 2);
	else if (!di->nr_syms)
		snprintf(buf, size, "stripped, no symbols and no build-id: rebuild with -g or keep "
			 "a .gnu_debuglink file");
	else if (!di->full_symtab && di->build_id[0] && di->name[0] != '[')
		/* not [vdso]: the kernel's vdso exports every function it has */
		snprintf(buf, size, "stripped, only exported symbols (.dynsym): install its debuginfo "
			 "(/usr/lib/debug/.build-id/%.2s/%s.debug), then mmprof resolve FILE",
			 di->build_id, di->build_id + 2);
	else
		return NULL;
	return buf;
}

size_t symbols__nr_dsos(const struct symbols *s)
{
	return s->nr_dsos;
}

void symbols__dso(const struct symbols *s, size_t i, struct dso_info *out)
{
	const struct dso *d = &s->dsos[i];

	out->name = d->name;
	out->build_id = d->file ? d->file->build_id : "";
	out->nr_syms = d->file ? d->file->tab.nr : 0;
	out->full_symtab = d->file && (d->file->has_symtab || d->file->absolute);
	out->symfile = d->file ? (d->file->symfile ? d->file->symfile : d->name) : NULL;
	out->loaded = d->loaded;
	out->err = d->err;
	out->missed = d->missed && !d->by_handle && d->fd < 0;
	out->perfmap = d->kind == DSO_PERFMAP;
	out->jit_flag = d->jit_flag;
}
