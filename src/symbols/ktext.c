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
	add[nnew++].name = strpool__intern(&s->pool, name, strlen(name));
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

/* One program's functions: kallsyms names them, the info gives their lengths. */
static void add_prog(struct symbols *s, int fd)
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
		const struct sym *y = symtab__find(&s->kernel, addrs[i]);

		/* a program kallsyms does not list (bpf_jit_kallsyms 0) stays unnamed */
		if (y && y->start == addrs[i] && ktext_add(s, addrs[i], lens[i], y->name))
			s->ktext_listed++;
	}
out:
	free(addrs);
	free(lens);
}

int symbols__load_bpf_progs(struct symbols *s)
{
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
		add_prog(s, fd);
		close(fd);
	}
	return err;
}

void symbols__ktext_counts(const struct symbols *s, uint64_t *registered,
			   uint64_t *unregistered, uint64_t *listed)
{
	*registered = s->ktext_registered;
	*unregistered = s->ktext_unregistered;
	*listed = s->ktext_listed;
}
