/*
 * sampler-comm: the name and address space of every thread the sampler
 * has seen, as they change over the run; see src/record/sampler-int.h.
 *
 * Comm strings are interned as local ids (a strintern, 0: unknown); each
 * thread keeps the comm of the records applied so far, which is the one
 * at the time of the sample being aggregated, since samples leave the
 * side-band queue in time order with the COMM and FORK records.  Threads
 * of processes that existed before the open send no COMM: their names
 * come from /proc when sampling starts.  Lookups: one per sample
 * (hashidx over tids[]), inserts: one per new thread.
 *
 * Address spaces: a process's samples are aggregated under its pid until
 * an exec (or a FORK that reuses the pid) replaces its maps; then, if it
 * was sampled, its maps are kept in the symbols context under a key of
 * their own and the pid's later samples get a new key (spaces[]), so a
 * wrapper's samples before it exec'd resolve through the wrapper's maps.
 * One row per exec that follows samples: a few per workload.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "sampler-int.h"
#include "mmprof/symbols.h"
#include "mmprof/outbuf.h"
#include "mmprof/xalloc.h"

uint32_t sampler__comm_intern(struct sampler *s, const char *name)
{
	/* a COMM record's name is NUL-padded to COMM_LEN; /proc's ends with it */
	return strintern__xid(&s->comms, name, strnlen(name, COMM_LEN));
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
	t->comm = 0;
	t->space = 0;
	t->sampled = false;
	hashidx__insert(&s->tid_idx, h, (uint32_t)s->nr_tids++);
	return t;
}

void sampler__set_comm(struct sampler *s, int32_t tid, uint32_t comm)
{
	struct tid_comm *t = sampler__tid_comm(s, tid, true);

	if (t)
		t->comm = comm;
}

uint32_t sampler__comm_of(struct sampler *s, uint32_t pid, uint32_t tid)
{
	struct tid_comm *t = sampler__tid_comm(s, (int32_t)tid, false);
	uint32_t comm;
	char buf[32];

	if (!t || !t->comm)
		t = sampler__tid_comm(s, (int32_t)pid, false);
	if (t && t->comm)
		return t->comm;
	/* perf's spelling for a thread whose name is not known, kept: formatted once */
	snprintf(buf, sizeof(buf), ":%" PRIu32, tid);
	comm = sampler__comm_intern(s, buf);
	sampler__set_comm(s, (int32_t)tid, comm);
	return comm;
}

static bool space_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct sampler *s = ctx;

	return s->spaces[row].key == *(const uint32_t *)key;
}

static struct space *space_find(const struct sampler *s, uint32_t key)
{
	uint32_t row = hashidx__find(&s->space_idx, hash__u64(key), space_eq, s, &key);

	return row == HASHIDX_NONE ? NULL : &s->spaces[row];
}

static void space_add(struct sampler *s, uint32_t key, uint32_t pid, int32_t symkey)
{
	XGROW(s->spaces, s->alloc_spaces, s->nr_spaces);
	s->spaces[s->nr_spaces] = (struct space){ .key = key, .pid = (int32_t)pid,
						  .symkey = symkey };
	hashidx__insert(&s->space_idx, hash__u64(key), (uint32_t)s->nr_spaces++);
}

uint32_t sampler__space_key(struct sampler *s, uint32_t pid)
{
	struct tid_comm *t;

	if (pid > INT32_MAX)
		return pid;	/* not a process (-1): end_run stores pid 0 */
	t = sampler__tid_comm(s, (int32_t)pid, true);
	t->sampled = true;
	return t->space ? t->space : pid;
}

void sampler__space_end(struct sampler *s, uint32_t pid)
{
	struct tid_comm *t = pid > INT32_MAX ? NULL : sampler__tid_comm(s, (int32_t)pid, false);
	struct space *sp;
	int32_t keep;

	if (!t || !t->sampled || s->next_space > INT32_MAX - SPACE_FIRST - 1)
		return;
	keep = (int32_t)(SPACE_FIRST + s->next_space++);
	symbols__keep_maps(s->syms, (pid_t)pid, keep);
	sp = t->space ? space_find(s, t->space) : NULL;
	if (sp)
		sp->symkey = keep;
	else
		space_add(s, t->space ? t->space : pid, pid, keep);
	t->space = SPACE_FIRST + s->next_space++;
	t->sampled = false;
	space_add(s, t->space, pid, (int32_t)pid);
}

void sampler__space_of(const struct sampler *s, uint32_t key, uint32_t *pid, int32_t *symkey)
{
	const struct space *sp = space_find(s, key);

	*pid = sp ? (uint32_t)sp->pid : key;
	*symkey = sp ? sp->symkey : (int32_t)key;
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
		sampler__set_comm(s, atoi(d->d_name), sampler__comm_intern(s, comm));
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

void sampler__check_exec(struct sampler *s, pid_t pid)
{
	char link[64], path[PATH_MAX], what[96];
	struct outbuf safe = { 0 };
	struct stat st;
	ssize_t n;

	if (s->exec_note[0])
		return;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0) {
		/* a user may not read the exe of a process that is no longer dumpable */
		if (errno == EACCES || errno == EPERM)
			snprintf(s->exec_note, sizeof(s->exec_note), "process %d executed a program "
				 "this user may not trace (/proc/%d/exe: %s): a set-user-ID, set-group-ID "
				 "or file-capability program?  The kernel stops perf events at such an "
				 "exec: nothing after it is sampled", (int)pid, (int)pid, strerror(errno));
		return;		/* gone already (ENOENT): nothing to say */
	}
	path[n] = '\0';
	if (stat(path, &st) < 0)
		return;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		snprintf(what, sizeof(what), "set-user-ID (owner uid %u)", (unsigned)st.st_uid);
	else if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
		snprintf(what, sizeof(what), "set-group-ID (group gid %u)", (unsigned)st.st_gid);
	else if (getxattr(path, "security.capability", NULL, 0) > 0 && geteuid() != 0)
		snprintf(what, sizeof(what), "given file capabilities");
	else
		return;
	/* the path is the workload's: the text rule */
	snprintf(s->exec_note, sizeof(s->exec_note), "process %d executed '%s', which is %s: the "
		 "kernel stops perf events on a process at such an exec, so nothing it ran after "
		 "that is sampled (the samples counted are from before it); record the program as "
		 "its owner, or a copy without the set-ID bits", (int)pid,
		 outbuf__text_safe(&safe, path), what);
	outbuf__release(&safe);
}
