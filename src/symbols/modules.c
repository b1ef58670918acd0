/*
 * modules: where each loaded kernel module lies, from /proc/modules
 * ("NAME SIZE REFS DEPS STATE ADDRESS [TAINT]"), as perf's
 * machine__create_modules() reads it to give each module a map.
 *
 * kallsyms names a module's functions; the module's range adds the DSO of
 * an address in the module that no symbol covers (past its last
 * function's page, in code kallsyms does not list), "[name]" as perf
 * report shows it, where it would otherwise count for [kernel.kallsyms].
 * Names stay kallsyms': a range never names a function.  Read once per
 * recording, after kallsyms; tens to a few hundred lines.  A kernel
 * without modules (CONFIG_MODULES off) has no /proc/modules: -ENOENT,
 * and nothing changes.  Addresses shown as 0 (kptr_restrict) are skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"
#include "context.h"

#define MAX_MODULES	65536

static int krange_cmp(const void *a, const void *b)
{
	const struct krange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int symbols__load_modules(struct symbols *s, const char *path, struct errmsg *e)
{
	char *line = NULL;
	size_t cap = 0, i, n;
	FILE *fp;
	int err = 0;

	fp = fopen(path, "re");
	if (!fp)
		return errmsg__set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	free(s->modules);
	s->modules = NULL;
	s->nr_modules = s->alloc_modules = 0;
	while (getline(&line, &cap, fp) > 0 && s->nr_modules < MAX_MODULES) {
		char name[64], dso[68];
		unsigned long long size, addr;
		struct krange *m;

		/* name size refs deps state address */
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 ||
		    !addr || !size || addr + size < addr)
			continue;
		snprintf(dso, sizeof(dso), "[%s]", name);
		XGROW(s->modules, s->alloc_modules, s->nr_modules);
		m = &s->modules[s->nr_modules++];
		m->start = m->sym_start = addr;
		m->end = addr + size;
		m->name = strintern__xptr(&s->pool, dso, strlen(dso));
	}
	if (ferror(fp))
		err = errmsg__set(e, -EIO, "cannot read '%s': %s", path, strerror(errno));
	free(line);
	fclose(fp);
	qsort(s->modules, s->nr_modules, sizeof(*s->modules), krange_cmp);
	/* overlapping lines (a hostile copy): each range ends where the next begins */
	for (i = 0, n = s->nr_modules; i + 1 < n; i++)
		if (s->modules[i].end > s->modules[i + 1].start)
			s->modules[i].end = s->modules[i + 1].start;
	return err;
}

const struct krange *modules__find(const struct symbols *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_modules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->modules[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < s->modules[lo - 1].end ? &s->modules[lo - 1] : NULL;
}
