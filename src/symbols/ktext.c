/*
 * ktext: kernel text that comes and goes while the kernel runs: BPF
 * programs (and their sub-programs), BPF trampolines and dispatchers,
 * ftrace trampolines, kprobe instruction pages.
 *
 * /proc/kallsyms lists each of these at one address, without a length,
 * and only while it exists: read at the start of a recording it knows
 * nothing of a program loaded later, and it cannot say where a program
 * ends (the next symbol may be a page or a megabyte away; kallsyms
 * ranges end at the next page boundary there, so an 80 KB program was
 * named over its first page only).  Two sources give the ranges whole:
 *
 *   - PERF_RECORD_KSYMBOL (attr.ksymbol), which the kernel sends for
 *     every such text registered or unregistered while the recording
 *     runs: address, length, kind (BPF, or OOL for ftrace and kprobes),
 *     and the kallsyms name ("bpf_prog_<tag>_<name>").  What perf uses.
 *   - For BPF programs loaded before the recording, the bpf syscall's
 *     program info (BPF_OBJ_GET_INFO_BY_FD: jited_ksyms and
 *     jited_func_lens), which perf reads at record start for the same
 *     reason; needs CAP_SYS_ADMIN, as walking program ids does.  Names
 *     come from kallsyms at those addresses, so both sources spell them
 *     alike (the kernel's bpf_get_prog_name).
 *
 * A range stays after it is unregistered: its samples are resolved when
 * the recording ends, after the program is gone.  Text registered later
 * over the same addresses replaces it (see Documentation/symbols.md for
 * what that means for a sample taken before).  The DSO of such a range
 * is its own name, as in perf report.  Workload: a handful to a few
 * thousand ranges per recording; each registration is a bisection and a
 * memmove.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"
#include "context.h"

#define MAX_PROGS	65536	/* programs walked at the start */
#define MAX_FUNCS	4096	/* functions of one program (BPF_MAX_SUBPROGS is 256) */

/* Index of the first range that ends after addr. */
static size_t ktext_lower(const struct symbols *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_ktext;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ktext[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct krange *ktext__find(const struct symbols *s, uint64_t addr)
{
	size_t i = ktext_lower(s, addr);

	return i < s->nr_ktext && s->ktext[i].start <= addr ? &s->ktext[i] : NULL;
}

/* Insert a range; what it covers of older ones is cut away (the maps' rule). */
static bool ktext_add(struct symbols *s, uint64_t addr, uint64_t len, const char *name)
{
	struct krange add[3], *k;
	size_t lo, hi, nnew = 0, i;
	uint64_t end = addr + len;

	if (!len || end < addr || !name[0])
		return false;
	lo = ktext_lower(s, addr);
	hi = lo;
	while (hi < s->nr_ktext && s->ktext[hi].start < end)
		hi++;
	k = s->ktext;
	if (lo < hi && k[lo].start < addr) {
		add[nnew] = k[lo];
		add[nnew++].end = addr;
	}
	add[nnew].start = add[nnew].sym_start = addr;
	add[nnew].end = end;
	add[nnew++].name = strintern__xptr(&s->pool, name, strlen(name));
	if (lo < hi && k[hi - 1].end > end) {
		add[nnew] = k[hi - 1];
		add[nnew++].start = end;
	}
	if (nnew > hi - lo)
		XGROW(s->ktext, s->alloc_ktext, s->nr_ktext + nnew - (hi - lo) - 1);
	k = s->ktext;
	memmove(&k[lo + nnew], &k[hi], (s->nr_ktext - hi) * sizeof(*k));
	for (i = 0; i < nnew; i++)
		k[lo + i] = add[i];
	s->nr_ktext = s->nr_ktext - (hi - lo) + nnew;
	return true;
}

void symbols__ksymbol(struct symbols *s, uint64_t addr, uint64_t len, bool unregister,
		      const char *name)
{
	if (unregister)
		s->ktext_unregistered++;
	else if (ktext_add(s, addr, len, name))
		s->ktext_registered++;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* A function of a program, its name still to find in kallsyms. */
struct bpf_func {
	uint64_t addr;
	uint32_t len;
};

struct bpf_funcs {
	struct bpf_func *v;
	size_t nr, alloc;
};

/* One program's functions not known yet (kallsyms names them; the info gives their lengths). */
static void add_prog(struct symbols *s, int fd, struct bpf_funcs *todo)
{
	struct bpf_prog_info info;
	union bpf_attr attr;
	uint64_t *addrs = NULL;
	uint32_t *lens = NULL, i, nr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		return;
	nr = info.nr_jited_ksyms;
	if (!nr || nr > MAX_FUNCS || info.nr_jited_func_lens != nr)
		return;
	addrs = xcalloc(nr, sizeof(*addrs));
	lens = xcalloc(nr, sizeof(*lens));
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = nr;
	info.jited_ksyms = (uint64_t)(uintptr_t)addrs;
	info.nr_jited_func_lens = nr;
	info.jited_func_lens = (uint64_t)(uintptr_t)lens;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) || info.nr_jited_ksyms < nr)
		goto out;
	for (i = 0; i < nr; i++) {
		const struct krange *k = ktext__find(s, addrs[i]);
		const struct sym *y;

		if (!lens[i] || (k && k->sym_start == addrs[i]))
			continue;	/* a KSYMBOL record (or an earlier walk) gave it */
		y = symtab__find(&s->kernel, addrs[i]);
		if (y && y->start == addrs[i]) {
			if (ktext_add(s, addrs[i], lens[i], y->name))
				s->ktext_listed++;
		} else {
			XGROW(todo->v, todo->alloc, todo->nr);
			todo->v[todo->nr].addr = addrs[i];
			todo->v[todo->nr++].len = lens[i];
		}
	}
out:
	free(addrs);
	free(lens);
}

static int func_cmp(const void *a, const void *b)
{
	const struct bpf_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Programs loaded since kallsyms was read, by a process the recording
 * does not follow (no KSYMBOL record reaches a per-task event from
 * there): their names from the "[bpf]" lines of a fresh read.  A
 * program kallsyms does not list (bpf_jit_kallsyms 0) stays unnamed.
 */
static void name_late(struct symbols *s, struct bpf_funcs *todo)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *fp;

	if (!todo->nr || !s->kallsyms_path || !(fp = fopen(s->kallsyms_path, "re")))
		return;
	qsort(todo->v, todo->nr, sizeof(*todo->v), func_cmp);
	while (getline(&line, &cap, fp) > 0) {
		struct bpf_func key, *f;
		char *end, *name;
		size_t nlen;

		if (!strstr(line, "\t[bpf]"))
			continue;
		key.addr = strtoull(line, &end, 16);
		if (end == line || !(f = bsearch(&key, todo->v, todo->nr, sizeof(*todo->v), func_cmp)))
			continue;
		name = end + strspn(end, " \t");
		name += *name ? 1 : 0;		/* the type letter */
		name += strspn(name, " \t");
		nlen = strcspn(name, " \t\r\n");
		if (!nlen)
			continue;
		name[nlen] = '\0';
		if (ktext_add(s, f->addr, f->len, name))
			s->ktext_listed++;
	}
	free(line);
	fclose(fp);
}

int symbols__load_bpf_progs(struct symbols *s)
{
	struct bpf_funcs todo = { NULL, 0, 0 };
	union bpf_attr attr;
	uint32_t id = 0, n;
	int err = 0;

	for (n = 0; n < MAX_PROGS; n++) {
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &attr)) {
			/* ENOENT: no more; EPERM: not CAP_SYS_ADMIN */
			err = errno == ENOENT ? 0 : -errno;
			break;
		}
		id = attr.next_id;
		memset(&attr, 0, sizeof(attr));
		attr.prog_id = id;
		fd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
		if (fd < 0)
			continue;	/* unloaded meanwhile */
		add_prog(s, fd, &todo);
		close(fd);
	}
	name_late(s, &todo);
	free(todo.v);
	return err;
}

void symbols__ktext_counts(const struct symbols *s, uint64_t *registered,
			   uint64_t *unregistered, uint64_t *listed)
{
	*registered = s->ktext_registered;
	*unregistered = s->ktext_unregistered;
	*listed = s->ktext_listed;
}
