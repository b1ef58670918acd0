/*
 * sampler-comm: the name of every thread the sampler has seen, as it
 * changes over the run; see src/record/sampler-int.h.
 *
 * Comm strings are interned as local ids (hashidx over comms[]); each
 * thread keeps its comm and the one before with the time of the change,
 * so a sample read after an exec's COMM but taken before it still gets
 * the old name.  Threads of processes that existed before the open send
 * no COMM: their names come from /proc when sampling starts.  Lookups:
 * one per sample (hashidx over tids[]), inserts: one per new thread.
 */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler-int.h"
#include "mmprof/xalloc.h"

static bool comm_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct sampler *s = ctx;

	return !strcmp(s->comms[row], key);
}

uint32_t sampler__comm_intern(struct sampler *s, const char *name)
{
	char buf[COMM_LEN + 8];
	uint64_t h;
	uint32_t row;

	snprintf(buf, sizeof(buf), "%.*s", COMM_LEN, name);
	h = hash__bytes(buf, strlen(buf));
	row = hashidx__find(&s->comm_idx, h, comm_eq, s, buf);
	if (row != HASHIDX_NONE)
		return row;
	if (!s->nr_comms)
		s->nr_comms = 1;	/* id 0: unknown */
	XGROW(s->comms, s->alloc_comms, s->nr_comms);
	memcpy(s->comms[s->nr_comms], buf, sizeof(buf));
	hashidx__insert(&s->comm_idx, h, (uint32_t)s->nr_comms);
	return (uint32_t)s->nr_comms++;
}

static bool tid_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct sampler *s = ctx;

	return s->tids[row].tid == *(const int32_t *)key;
}

struct tid_comm *sampler__tid_comm(struct sampler *s, int32_t tid, bool create)
{
	uint64_t h = hash__u64((uint64_t)tid);
	struct tid_comm *t;
	uint32_t row;

	/* a record that says tid -1 names no thread */
	if (tid == -1)
		return NULL;
	row = hashidx__find(&s->tid_idx, h, tid_eq, s, &tid);
	if (row != HASHIDX_NONE)
		return &s->tids[row];
	if (!create)
		return NULL;
	XGROW(s->tids, s->alloc_tids, s->nr_tids);
	t = &s->tids[s->nr_tids];
	t->tid = tid;
	t->comm = t->prev = 0;
	t->since = 0;
	hashidx__insert(&s->tid_idx, h, (uint32_t)s->nr_tids++);
	return t;
}

void sampler__set_comm(struct sampler *s, int32_t tid, uint32_t comm, uint64_t time)
{
	struct tid_comm *t = sampler__tid_comm(s, tid, true);

	if (!t)
		return;
	t->prev = t->comm;	/* 0 when unknown before this change */
	t->comm = comm;
	t->since = time;
}

uint32_t sampler__comm_of(struct sampler *s, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct tid_comm *t = sampler__tid_comm(s, (int32_t)tid, false);
	char buf[32];

	if (!t)
		t = sampler__tid_comm(s, (int32_t)pid, false);
	if (t && t->comm && !(time && time < t->since))
		return t->comm;
	if (t && t->prev)
		return t->prev;
	/* perf's spelling for a thread whose name was not known then */
	snprintf(buf, sizeof(buf), ":%" PRIu32, tid);
	if (!t && (int32_t)tid != -1) {
		sampler__set_comm(s, (int32_t)tid, sampler__comm_intern(s, buf), 0);
		return sampler__tid_comm(s, (int32_t)tid, false)->comm;
	}
	return sampler__comm_intern(s, buf);
}

/* Comms of the threads of an existing process (no COMM records will come). */
static void read_proc_comms(struct sampler *s, pid_t pid)
{
	char path[320], comm[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		FILE *f;
		size_t n;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fread(comm, 1, sizeof(comm) - 1, f);
		fclose(f);
		comm[n] = '\0';
		if (n && comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		sampler__set_comm(s, atoi(d->d_name), sampler__comm_intern(s, comm), 0);
	}
	closedir(dir);
}

/*
 * Processes that exist already produce no COMM/MMAP records: read their
 * names and maps from /proc when sampling starts (as late as possible, so
 * a process that exec'd between open and enable is seen as it now is).
 */
void sampler__read_proc(struct sampler *s)
{
	size_t i;

	if (s->proc_done || !s->need_proc)
		return;
	s->proc_done = true;
	if (s->system_wide) {
		DIR *dir = opendir("/proc");
		struct dirent *d;

		if (!dir)
			return;
		while ((d = readdir(dir))) {
			pid_t pid;

			if (!isdigit((unsigned char)d->d_name[0]))
				continue;
			pid = atoi(d->d_name);
			symbols__add_proc(s->syms, pid);
			read_proc_comms(s, pid);
		}
		closedir(dir);
		return;
	}
	for (i = 0; i < s->nr_pids; i++) {
		symbols__add_proc(s->syms, s->pids[i]);
		read_proc_comms(s, s->pids[i]);
	}
}
