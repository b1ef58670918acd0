/*
 * symbols: the context that follows address spaces through a recording
 * and resolves addresses at its end; see include/mmprof/symbols.h.
 *
 * This file holds the context's life, its tasks (by pid or tid: comm, and
 * for processes their maps) and the address-space events that change
 * them, and resolution (user, kernel, inline chains, the unwinder's view
 * of a map).  The DSOs the maps point to, and the files behind them, are
 * dso.c's; struct symbols is in context.h.  DSOs load lazily on the first
 * address that needs them: most mapped files of a system-wide run are
 * never sampled.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"
#include "context.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define ANON_DSO "//anon"

/*
 * Where perf keeps its build-id cache (tools/perf/util/config.c: the
 * environment's PERF_BUILDID_DIR, else $HOME/.debug; perf's buildid.dir
 * setting of ~/.perfconfig is not read); "" when there is none or its
 * path is too long.
 */
static void buildid_dir(char *buf, size_t size)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	int n = 0;

	if (env && env[0])
		n = snprintf(buf, size, "%s", env);
	else if (home && home[0])
		n = snprintf(buf, size, "%s/.debug", home);
	if (n <= 0 || (size_t)n >= size)
		buf[0] = '\0';
}

struct symbols *symbols__new(void)
{
	struct symbols *s = xcalloc(1, sizeof(*s));

	elf_version(EV_CURRENT);
	s->kernel_dso = strintern__xptr(&s->pool, KERNEL_DSO, strlen(KERNEL_DSO));
	s->debug_dir = "/usr/lib/debug";
	buildid_dir(s->buildid_dir, sizeof(s->buildid_dir));
	s->mountinfo = "/proc/self/mountinfo";
	s->mntns = mntns__of("self");
	s->vdso_fd = -1;
	s->vmlinux.dwarf_fd = -1;
	{
		/* a quarter of the fd limit: the events' fds need the rest */
		struct rlimit rl;

		s->max_fds = 256;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
			s->max_fds = rl.rlim_cur / 4;
		if (s->max_fds > 4096)
			s->max_fds = 4096;
	}
	return s;
}

void symbols__free(struct symbols *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_tasks; i++)
		free(s->tasks[i].maps);
	free(s->tasks);
	hashidx__release(&s->task_idx);
	for (i = 0; i < s->nr_dsos; i++) {
		free(s->dsos[i].name);
		free(s->dsos[i].fdpath);
		if (s->dsos[i].fd >= 0)
			close(s->dsos[i].fd);
		elffile__release(s->dsos[i].own);
		free(s->dsos[i].own);
	}
	free(s->dsos);
	hashidx__release(&s->dso_idx);
	for (i = 0; i < s->nr_nsfiles; i++) {
		free(s->nsfiles[i].name);
		if (s->nsfiles[i].fd >= 0)
			close(s->nsfiles[i].fd);
	}
	free(s->nsfiles);
	hashidx__release(&s->nsfile_idx);
	for (i = 0; i < s->nr_files; i++) {
		elffile__release(s->files[i]);
		free(s->files[i]);
	}
	free(s->files);
	hashidx__release(&s->file_idx);
	elffile__release(s->vdso);
	free(s->vdso);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	symtab__release(&s->kernel);
	free(s->ktext);
	free(s->modules);
	elffile__release(&s->vmlinux);
	free(s->vmlinux_path);
	strintern__release(&s->pool);
	strarena__release(&s->names);
	free(s);
}

int symbols__load_kallsyms(struct symbols *s, const char *path, struct errmsg *e)
{
	symtab__release(&s->kernel);
	s->kallsyms_path = strintern__xptr(&s->pool, path, strlen(path));
	return kallsyms__read(&s->kernel, path, &s->names, &s->pool, s->kernel_dso, e);
}

int symbols__load_kernel(struct symbols *s, struct errmsg *e)
{
	return symbols__load_kallsyms(s, "/proc/kallsyms", e);
}

/* Tasks */

static bool task_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symbols *s = ctx;

	return s->tasks[row].id == *(const pid_t *)key;
}

static struct task *task_find(const struct symbols *s, pid_t id)
{
	uint32_t row = hashidx__find(&s->task_idx, hash__u64((uint64_t)id), task_eq, s, &id);

	return row == HASHIDX_NONE ? NULL : &s->tasks[row];
}

/* The task's entry, created if new.  Invalidates other task pointers. */
static struct task *task_get(struct symbols *s, pid_t id)
{
	struct task *t = task_find(s, id);

	if (t)
		return t;
	XGROW(s->tasks, s->alloc_tasks, s->nr_tasks);
	t = &s->tasks[s->nr_tasks];
	memset(t, 0, sizeof(*t));
	t->id = id;
	hashidx__insert(&s->task_idx, hash__u64((uint64_t)id), (uint32_t)s->nr_tasks);
	s->nr_tasks++;
	return t;
}

/* Index of the first map that ends after addr. */
static size_t maps_lower(const struct task *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert a map; what it covers of older maps is cut away, as mmap does. */
static void maps_insert(struct task *t, const struct map *m)
{
	size_t lo = maps_lower(t, m->start), hi = lo, nnew = 0, i;
	struct map add[3];

	while (hi < t->nr && t->maps[hi].start < m->end)
		hi++;
	if (lo < hi && t->maps[lo].start < m->start) {
		add[nnew] = t->maps[lo];
		add[nnew++].end = m->start;
	}
	add[nnew++] = *m;
	if (lo < hi && t->maps[hi - 1].end > m->end) {
		add[nnew] = t->maps[hi - 1];
		add[nnew].pgoff += m->end - add[nnew].start;
		add[nnew++].start = m->end;
	}
	if (nnew > hi - lo)
		XGROW(t->maps, t->alloc, t->nr + nnew - (hi - lo) - 1);
	memmove(&t->maps[lo + nnew], &t->maps[hi], (t->nr - hi) * sizeof(*t->maps));
	for (i = 0; i < nnew; i++)
		t->maps[lo + i] = add[i];
	t->nr = t->nr - (hi - lo) + nnew;
}

static const struct map *maps_find(const struct task *t, uint64_t addr)
{
	size_t i = maps_lower(t, addr);

	return i < t->nr && t->maps[i].start <= addr ? &t->maps[i] : NULL;
}

/* Address-space events */

void symbols__comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	const char *c = strintern__xptr(&s->pool, comm, strlen(comm));
	struct task *t;

	task_get(s, tid)->comm = c;
	if (!exec)
		return;
	/* After exec the caller is the only thread and the leader: tid == pid. */
	t = task_get(s, pid);
	t->comm = c;
	t->nr = 0;
	t->known = true;
	t->exited = false;
	t->mntns_tried = false;	/* unshare + exec: a new namespace */
}

void symbols__fork(struct symbols *s, pid_t pid, pid_t ppid)
{
	struct task *child, *parent;
	struct map *own = NULL;
	size_t nr_own = 0, i;

	if (pid == ppid)
		return;		/* a new thread shares its process's maps */
	child = task_get(s, pid);
	if (child->known && !child->exited) {
		/*
		 * The child spoke first (events from another CPU delivered
		 * early): its own maps are newer than what it inherits.
		 */
		own = child->maps;
		nr_own = child->nr;
	} else {
		free(child->maps);
		child->comm = NULL;
	}
	child->maps = NULL;
	child->nr = child->alloc = 0;
	child->mntns_tried = false;
	child->known = true;
	child->exited = false;
	parent = task_find(s, ppid);
	child = task_find(s, pid);
	if (parent) {
		if (parent->nr) {
			child->maps = xmalloc(parent->nr * sizeof(*child->maps));
			memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
			child->nr = child->alloc = parent->nr;
		}
		if (!child->comm)
			child->comm = parent->comm;
	}
	for (i = 0; i < nr_own; i++)
		maps_insert(child, &own[i]);
	free(own);
}

void symbols__exit(struct symbols *s, pid_t pid, pid_t tid)
{
	struct task *t = task_find(s, pid);

	if (t && pid == tid)
		t->exited = true;
}

void symbols__mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *filename)
{
	symbols__mmap2(s, pid, start, len, pgoff, filename, NULL);
}

void symbols__mmap2(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *filename, const struct file_id *id)
{
	struct nsfile *nf;
	struct map m;
	struct task *t;

	if (pid < 0 || !len)
		return;		/* pid -1: kernel maps; kallsyms covers those */
	m.start = start;
	m.end = start + len < start ? UINT64_MAX : start + len;
	m.pgoff = pgoff;
	t = task_get(s, pid);
	if (!t->mntns_tried) {
		char spid[16];

		snprintf(spid, sizeof(spid), "%d", (int)pid);
		t->mntns = mntns__of(spid);
		t->mntns_tried = true;
	}
	if (!filename || !*filename || !strcmp(filename, ANON_DSO) ||
	    !strncmp(filename, "/dev/zero", 9) || !strncmp(filename, "/anon_hugepage", 14)) {
		/*
		 * Anonymous executable memory is JIT code: its symbols, if
		 * any, are in the perf map the JIT writes (perf's convention
		 * and DSO name), with absolute addresses.
		 */
		char perfmap[64];

		snprintf(perfmap, sizeof(perfmap), "/tmp/perf-%d.map", (int)pid);
		m.dso = symbols__get_dso(s, perfmap, pid, 0, NULL, NULL);
		m.pgoff = 0;
	} else if ((nf = symbols__find_nsfile(s, pid, filename, id)) && nf->dso != HASHIDX_NONE) {
		m.dso = nf->dso;
	} else if (nf) {
		m.dso = symbols__get_dso(s, filename, pid, nf->mntns, &nf->fd, id);
	} else {
		m.dso = symbols__get_dso(s, filename, pid,
					 t->mntns && s->mntns && t->mntns != s->mntns ? t->mntns : 0,
					 NULL, id);
	}
	t = task_find(s, pid);
	t->known = true;
	maps_insert(t, &m);
}

void symbols__keep_maps(struct symbols *s, pid_t pid, pid_t as)
{
	struct task *t = task_find(s, pid), *k;

	if (!t || !t->nr || pid == as)
		return;
	k = task_get(s, as);	/* moves the tasks: find pid again */
	t = task_find(s, pid);
	free(k->maps);
	k->maps = xmalloc(t->nr * sizeof(*k->maps));
	memcpy(k->maps, t->maps, t->nr * sizeof(*k->maps));
	k->nr = k->alloc = t->nr;
	k->comm = t->comm;
	k->mntns = t->mntns;
	k->mntns_tried = true;
	k->known = true;
	k->exited = true;	/* a FORK reusing the id starts afresh */
}

static void read_comm(struct symbols *s, const char *path, pid_t tid)
{
	char buf[64];
	FILE *fp = fopen(path, "re");

	if (!fp)
		return;
	if (fgets(buf, sizeof(buf), fp)) {
		buf[strcspn(buf, "\n")] = '\0';
		task_get(s, tid)->comm = strintern__xptr(&s->pool, buf, strlen(buf));
	}
	fclose(fp);
}

int symbols__add_proc(struct symbols *s, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	struct task *t;
	struct dirent *de;
	DIR *dir;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	t = task_get(s, pid);
	t->nr = 0;
	t->known = true;
	t->exited = false;
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long a, b, off, ino;
		unsigned int maj, mnr;
		struct file_id id;
		char perms[8];
		int n = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n",
			   &a, &b, perms, &off, &maj, &mnr, &ino, &n) < 7 || !n)
			continue;
		/* Only code is sampled; data maps would only slow the search. */
		if (strlen(perms) < 3 || perms[2] != 'x' || b <= a)
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = '\0';
		id.maj = maj;
		id.min = mnr;
		id.ino = ino;
		id.gen = 0;	/* /proc does not say */
		symbols__watch2(s, pid, a, b - a, name, &id);
		symbols__mmap2(s, pid, a, b - a, off, name, &id);
	}
	free(line);
	fclose(fp);

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	read_comm(s, path, pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, tid);
		read_comm(s, path, (pid_t)tid);
	}
	closedir(dir);
	return 0;
}

bool symbols__known(const struct symbols *s, pid_t pid)
{
	const struct task *t = task_find(s, pid);

	return t && t->known;
}

bool symbols__is_exec_mapped(const struct symbols *s, pid_t pid, uint64_t addr)
{
	const struct task *t = task_find(s, pid);

	/* only executable maps are kept (MMAP records, /proc filtered on 'x') */
	return !t || !t->known || maps_find(t, addr);
}

size_t symbols__exec_mapped_prefix(const struct symbols *s, pid_t pid, const uint64_t *addrs,
				   size_t n)
{
	const struct task *t = task_find(s, pid);
	size_t i;

	if (!t || !t->known)
		return n;
	for (i = 0; i < n && maps_find(t, addrs[i]); i++)
		;
	return i;
}

const char *symbols__comm_of(const struct symbols *s, pid_t pid, pid_t tid)
{
	const struct task *t = task_find(s, tid);

	if (t && t->comm)
		return t->comm;
	t = task_find(s, pid);
	return t ? t->comm : NULL;
}

/* Resolution */

int symbols__resolve_saved(struct symbols *s, const struct saved_frame *f,
			   struct symbol_info *out)
{
	uint32_t row = symbols__get_dso(s, f->dso, 0, 0, NULL, NULL);	/* may move dsos[] */
	struct dso *d = &s->dsos[row];
	uint64_t addr = f->addr;
	const struct sym *y;

	memset(out, 0, sizeof(*out));
	out->dso = d->name;
	if (d->kind == DSO_FILE) {
		if (!f->build_id)
			return -EOPNOTSUPP;
		if (!f->build_id[0])
			return -ENODATA;
		addr = f->vaddr;
	} else if (d->kind != DSO_PERFMAP) {
		return -EOPNOTSUPP;
	}
	if (!d->loaded)
		symbols__load_dso(s, d);
	if (!d->file)
		return d->err ? d->err : -ENOENT;
	if (d->kind == DSO_FILE && strcmp(d->file->build_id, f->build_id))
		return -ESTALE;
	out->dso_addr = addr;
	out->build_id = d->file->build_id;
	y = symtab__find(&d->file->tab, addr);
	if (y) {
		out->sym = y->name;
		out->raw_sym = y->raw;
		out->sym_off = addr - y->start;
	}
	return 0;
}

void symbols__resolve(struct symbols *s, pid_t pid, uint64_t addr, bool kernel,
		      struct symbol_info *out)
{
	const struct task *t;
	const struct map *m;
	const struct sym *y;
	struct dso *d;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (kernel) {
		/* a BPF program's whole length, where kallsyms has one address */
		const struct krange *k = ktext__find(s, addr);

		if (k) {
			out->sym = out->dso = k->name;
			out->sym_off = addr - k->sym_start;
			out->dso_addr = addr;
			return;
		}
		y = symtab__find(&s->kernel, addr);
		out->dso = y ? y->dso : s->kernel_dso;
		if (!y && (k = modules__find(s, addr)))
			out->dso = k->name;	/* in a module, outside its symbols: perf's DSO */
		out->dso_addr = addr;
		if (y) {
			out->sym = y->name;
			out->sym_off = addr - y->start;
		}
		return;
	}
	t = task_find(s, pid);
	m = t ? maps_find(t, addr) : NULL;
	if (!m)
		return;
	d = &s->dsos[m->dso];
	out->dso = d->name;
	if (!d->loaded)
		symbols__load_dso(s, d);
	if (!d->file)
		return;
	if (d->file->absolute)
		vaddr = addr;
	else if (!elffile__offset_to_vaddr(d->file, addr - m->start + m->pgoff, &vaddr))
		return;
	out->dso_addr = vaddr;
	out->build_id = d->file->build_id;
	y = symtab__find(&d->file->tab, vaddr);
	if (y) {
		out->sym = y->name;
		out->raw_sym = y->raw;
		out->sym_off = vaddr - y->start;
	}
}

size_t symbols__inline_chain(struct symbols *s, pid_t pid, uint64_t addr, const char **names,
			     size_t max)
{
	const struct task *t = task_find(s, pid);
	const struct map *m = t ? maps_find(t, addr) : NULL;
	struct dso *d;
	uint64_t vaddr;

	if (!m)
		return 0;
	d = &s->dsos[m->dso];
	if (!d->loaded)
		symbols__load_dso(s, d);
	/*
	 * DWARF is read by path: the fd kept on the mapped file, else the
	 * path of a file of our namespace; not the vdso.
	 */
	if (!d->file || d->file->absolute || (d->kind != DSO_FILE && !d->fdpath) ||
	    (d->mntns && !d->fdpath) ||
	    !elffile__offset_to_vaddr(d->file, addr - m->start + m->pgoff, &vaddr))
		return 0;
	return elffile__inline_chain(d->file, d->fdpath ? d->fdpath : d->name, vaddr, names, max,
				     &s->names);
}

/* Attach path when its build-id is want_build_id, placed by the anchors a. */
static int attach_vmlinux(struct symbols *s, const char *path, const char *want_build_id,
			  const char *whose, const struct kallsyms_anchors *a, struct errmsg *e)
{
	uint64_t slide = 0;
	int err;

	/* the search tries paths that mostly do not exist: no kallsyms scan for them */
	if (access(path, R_OK))
		return errmsg__set(e, -errno, "cannot open: %s", strerror(errno));
	err = vmlinux__check(path, want_build_id, whose, a->text, a->stext, &slide, e);
	if (err)
		return err;
	elffile__release(&s->vmlinux);
	memset(&s->vmlinux, 0, sizeof(s->vmlinux));
	s->vmlinux.dwarf_fd = -1;
	s->vmlinux_syms_tried = false;
	free(s->vmlinux_path);
	/* absolute: the path goes into the data file's meta */
	s->vmlinux_path = realpath(path, NULL);
	if (!s->vmlinux_path)
		s->vmlinux_path = xstrdup(path);
	s->vmlinux_slide = slide;
	return 0;
}

int symbols__use_vmlinux(struct symbols *s, const char *path, const char *want_build_id,
			 struct errmsg *e)
{
	struct kallsyms_anchors a = { 0, 0 };

	if (s->kallsyms_path && !access(path, R_OK))
		kallsyms__anchors(s->kallsyms_path, &a);
	return attach_vmlinux(s, path, want_build_id, "running", &a, e);
}

int symbols__kernel_ref(const struct symbols *s, struct kernel_ref *out)
{
	struct kallsyms_anchors a = { 0, 0 };

	memset(out, 0, sizeof(*out));
	if (s->kallsyms_path)
		kallsyms__anchors(s->kallsyms_path, &a);
	if (a.text) {
		snprintf(out->name, sizeof(out->name), "_text");
		out->addr = a.text;
	} else if (a.stext) {
		snprintf(out->name, sizeof(out->name), "_stext");
		out->addr = a.stext;
	} else {
		return -ENODATA;
	}
	return 0;
}

int symbols__use_vmlinux_at(struct symbols *s, const char *path, const char *want_build_id,
			    const struct kernel_ref *ref, struct errmsg *e)
{
	struct kallsyms_anchors a = { 0, 0 };

	if (!strcmp(ref->name, "_text"))
		a.text = ref->addr;
	else if (!strcmp(ref->name, "_stext"))
		a.stext = ref->addr;
	if (!a.text && !a.stext)
		return errmsg__set(e, -ENODATA, "no kernel text address to place it by");
	return attach_vmlinux(s, path, want_build_id, "recorded", &a, e);
}

void symbols__vmlinux_symbol(struct symbols *s, uint64_t addr, struct symbol_info *out)
{
	const struct sym *y;

	memset(out, 0, sizeof(*out));
	if (!s->vmlinux_path)
		return;
	if (!s->vmlinux_syms_tried) {
		int fd = open(s->vmlinux_path, O_RDONLY | O_CLOEXEC);

		s->vmlinux_syms_tried = true;
		/* its symbols only: the Dwarf handle is opened apart, on demand */
		if (fd >= 0) {
			elffile__parse(&s->vmlinux, fd, NULL, 0, &s->names);
			close(fd);
		}
	}
	out->dso = s->kernel_dso;
	y = symtab__find(&s->vmlinux.tab, addr - s->vmlinux_slide);
	if (!y)
		return;
	out->sym = y->name;
	out->sym_off = addr - s->vmlinux_slide - y->start;
}

int symbols__load_vmlinux(struct symbols *s, const char *path, struct errmsg *e)
{
	char running[64], release[128], cand[8][PATH_MAX];
	size_t i, nr;

	if (symbols__read_build_id_notes("/sys/kernel/notes", running, sizeof(running)))
		running[0] = '\0';
	if (path)
		return symbols__use_vmlinux(s, path, running, e);
	vmlinux__release(release, sizeof(release));
	nr = vmlinux__candidates(release, running, cand, sizeof(cand) / sizeof(cand[0]));
	for (i = 0; i < nr; i++) {
		struct errmsg skip = { "" };

		/* unknown running build-id: only files named for this release */
		if (!running[0] && strstr(cand[i], "/.build-id/"))
			continue;
		if (!symbols__use_vmlinux(s, cand[i], running, &skip))
			return 0;
	}
	return errmsg__set(e, -ENOENT, "no vmlinux with the running kernel's build-id %s",
			   running[0] ? running : "(unknown)");
}

const char *symbols__vmlinux(const struct symbols *s)
{
	return s->vmlinux_path;
}

uint64_t symbols__vmlinux_slide(const struct symbols *s)
{
	return s->vmlinux_path ? s->vmlinux_slide : 0;
}

size_t symbols__kernel_inline_chain(struct symbols *s, uint64_t addr, const char **names,
				    size_t max)
{
	if (!s->vmlinux_path)
		return 0;
	return elffile__inline_chain(&s->vmlinux, s->vmlinux_path, addr - s->vmlinux_slide, names,
				     max, &s->names);
}

void symbols__set_inline(struct symbols *s, bool on)
{
	s->inline_frames = on;
}

bool symbols__inline(const struct symbols *s)
{
	return s->inline_frames;
}

/* For the DWARF unwinder */

bool symbols__map_of(const struct symbols *s, pid_t pid, uint64_t addr, struct map_view *out)
{
	const struct task *t = task_find(s, pid);
	const struct map *m = t ? maps_find(t, addr) : NULL;
	const struct dso *d;

	memset(out, 0, sizeof(*out));
	if (!m)
		return false;
	d = &s->dsos[m->dso];
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	/*
	 * Paths the unwinder can open: the fd kept on the mapped file (a
	 * container's, or one that may be deleted or replaced by now; kept
	 * until symbols__free, so the path names one file all along), else
	 * the path of a file of our namespace not known to be stale; the
	 * vdso through our copy when the mapping has its size (a 32-bit
	 * process's vdso is another image).
	 */
	if ((d->kind == DSO_FILE || d->kind == DSO_DELETED) && d->fdpath)
		out->file = d->fdpath;
	else if (d->kind == DSO_FILE && !d->mntns && !d->stale)
		out->file = d->name;
	else if (d->kind == DSO_VDSO && s->vdso_fd >= 0 && !m->pgoff &&
		 m->end - m->start == s->vdso_size)
		out->file = s->vdso_path;
	return true;
}

bool symbols__load_bias(struct symbols *s, pid_t pid, uint64_t addr, uint64_t *bias)
{
	const struct task *t = task_find(s, pid);
	const struct map *m = t ? maps_find(t, addr) : NULL;
	struct dso *d;
	uint64_t vaddr;

	if (!m)
		return false;
	d = &s->dsos[m->dso];
	if (!d->loaded)
		symbols__load_dso(s, d);
	if (!d->file || d->file->absolute ||
	    !elffile__offset_to_vaddr(d->file, addr - m->start + m->pgoff, &vaddr))
		return false;
	*bias = addr - vaddr;
	return true;
}
