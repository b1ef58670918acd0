/*
 * mmsample: /proc/vmstat and /proc/meminfo sampled once a second during a
 * run and reduced as the robot reduces its monitors' samples; contract in
 * include/mmprof/mmstate.h.
 *
 * A sample is one read of each file (~260 short lines).  Each field keeps
 * its first and last value, the sum and how many samples had it, found by
 * a hash of its name: nothing grows with the length of the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/mmstate.h"
#include "mmprof/xalloc.h"

#define VMSTAT_PATH	"/proc/vmstat"
#define MEMINFO_PATH	"/proc/meminfo"

static void file_release(struct mmstate_file *m)
{
	strintern__release(&m->names);
	free(m->f);
	memset(m, 0, sizeof(*m));
}

static void file_add(struct mmstate_file *m, const char *name, uint64_t v)
{
	size_t len = strlen(name);
	uint32_t row = strintern__find(&m->names, name, len);
	struct mmstate_field *f;

	if (row == STRINTERN_NONE) {
		if (m->samples)
			return;	/* not in the first sample: left out */
		row = strintern__xid(&m->names, name, len);
		XGROW(m->f, m->alloc, row);
		f = &m->f[row];
		memset(f, 0, sizeof(*f));
		f->name = strintern__str(&m->names, row);
		f->first = v;
		m->nr++;
	} else {
		f = &m->f[row];
		if (f->nr != m->samples)
			return;	/* already seen in this sample (a repeated name) */
	}
	f->last = v;
	f->sum += (double)v;
	f->nr++;
	f->nonzero |= v != 0;
}

/* "name value" lines; the first of a repeated name counts, as the robot's monitor keeps it. */
static int read_vmstat(struct mmstate *s)
{
	FILE *f = fopen(s->vmstat_path ? s->vmstat_path : VMSTAT_PATH, "re");
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		uint64_t v;

		if (sscanf(line, "%127s %" SCNu64, name, &v) == 2)
			file_add(&s->vm, name, v);
	}
	fclose(f);
	s->vm.samples++;
	return 0;
}

/* "MemTotal:       2014812 kB" -> MemTotal 2014812, and the used-memory pair after MemFree. */
static int read_meminfo(struct mmstate *s)
{
	FILE *f = fopen(s->meminfo_path ? s->meminfo_path : MEMINFO_PATH, "re");
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *end, name[128], unit[16] = "";
		unsigned long long v;

		if (!colon || colon == line || colon - line >= (long)sizeof(name))
			continue;
		errno = 0;
		v = strtoull(colon + 1, &end, 10);
		if (errno || end == colon + 1)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - line), line);
		file_add(&s->mi, name, v);
		if (!strcmp(name, "MemTotal") && !s->mem_total)
			s->mem_total = v;
		if (strcmp(name, "MemFree") || v > s->mem_total)
			continue;
		/* the robot's meminfo parser: used = the first MemTotal - MemFree */
		if (s->mem_total - v > s->max_used)
			s->max_used = s->mem_total - v;
		file_add(&s->mi, "Memused", s->mem_total - v);
		if (!s->used_unit[0]) {
			sscanf(end, "%15s", unit);
			snprintf(s->used_unit, sizeof(s->used_unit), "%s", unit);
		}
		snprintf(name, sizeof(name), "max_used_%s", s->used_unit);
		file_add(&s->mi, name, s->max_used);
	}
	fclose(f);
	s->mi.samples++;
	return 0;
}

/* One sample of both files; a file that fails once is not stored. */
static int sample(struct mmstate *s)
{
	int err = 0, err2 = 0;

	if (!s->vm.failed && (err = read_vmstat(s)))
		s->vm.failed = true;
	if (!s->mi.failed && (err2 = read_meminfo(s)))
		s->mi.failed = true;
	return err ? err : err2;
}

int mmstate__begin(struct mmstate *s, int64_t now)
{
	const char *vm = s->vmstat_path, *mi = s->meminfo_path;

	mmstate__release(s);
	s->vmstat_path = vm;
	s->meminfo_path = mi;
	s->begun = true;
	s->next_ns = now + MMSTATE_PERIOD_NS;
	return sample(s);
}

int64_t mmstate__next(const struct mmstate *s)
{
	return s->begun ? s->next_ns : INT64_MAX;
}

void mmstate__tick(struct mmstate *s, int64_t now)
{
	if (!s->begun || now < s->next_ns)
		return;
	sample(s);
	while (s->next_ns <= now)
		s->next_ns += MMSTATE_PERIOD_NS;
}

static void add(struct profile *p, uint32_t run, const char *family, const char *name, double v)
{
	char key[192];

	snprintf(key, sizeof(key), "%s.%s", family, name);
	profile__add_metric(p, run, key, v);
}

/*
 * A level of memory the processes hold (mmstate__held_by_processes), as
 * "<family>.rise.<field>": the mean of the samples taken while the
 * workload ran less the level read outside it (the mean of the samples at
 * its release and after its end), when there were samples while it ran.
 */
static void add_rise(struct profile *p, uint32_t run, const char *family,
		     const struct mmstate_field *f)
{
	char fam[64];
	double during, outside;

	if (f->nr < 3 || !mmstate__held_by_processes(f->name))
		return;
	during = (f->sum - (double)f->first - (double)f->last) / (f->nr - 2);
	outside = ((double)f->first + (double)f->last) / 2;
	if (during == outside)
		return;	/* dump-stat drops a 0 */
	snprintf(fam, sizeof(fam), "%s.rise", family);
	add(p, run, fam, f->name, during - outside);
}

int mmstate__end(struct mmstate *s, struct profile *p, uint32_t run)
{
	size_t i;
	int err;

	if (!s->begun)
		return 0;
	err = sample(s);
	for (i = 0; i < s->vm.nr && !s->vm.failed; i++) {
		const struct mmstate_field *f = &s->vm.f[i];
		/* signed: numa_* can be reset under us, never hide that */
		double change = (double)f->last - (double)f->first;

		if (f->nr != s->vm.samples || !f->nonzero)
			continue;
		if (!mmstate__is_level(f->name)) {
			add(p, run, "proc-vmstat", f->name, change);
			continue;
		}
		add(p, run, "proc-vmstat", f->name, f->sum / f->nr);
		add_rise(p, run, "proc-vmstat", f);
		if (mmstate__counts_events(f->name))
			add(p, run, "proc-vmstat.delta", f->name, change);
	}
	for (i = 0; i < s->mi.nr && !s->mi.failed; i++) {
		const struct mmstate_field *f = &s->mi.f[i];

		if (f->nr == s->mi.samples && f->nonzero) {
			add(p, run, "meminfo", f->name, f->sum / f->nr);
			add_rise(p, run, "meminfo", f);
		}
	}
	return err;
}

void mmstate__release(struct mmstate *s)
{
	file_release(&s->vm);
	file_release(&s->mi);
	s->mem_total = s->max_used = 0;
	s->used_unit[0] = '\0';
	s->begun = false;
	s->next_ns = 0;
}
