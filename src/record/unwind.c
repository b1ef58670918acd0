/*
 * unwind: libdw unwinding of sampled user stacks; see include/mmprof/unwind.h.
 *
 * libdwfl drives the walk: it asks for the initial registers
 * (set_initial_registers), for memory (memory_read), and hands each frame
 * to our callback, which records its PC and reports the module covering
 * it so the next step finds its CFI.  A Dwfl can be attached to a process
 * state once only, so the per-sample inputs (registers, stack copy) live
 * in the unwinder and the callbacks read them from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "mmprof/unwind.h"
#include "mmprof/xalloc.h"

#define NR_CACHE	64	/* Dwfl handles kept, one per pid (direct-mapped) */
#define NR_FILES	32	/* open files for reads outside the stack copy */

/* perf's x86_64 register numbers (asm/perf_regs.h) */
enum {
	PREG_AX, PREG_BX, PREG_CX, PREG_DX, PREG_SI, PREG_DI, PREG_BP, PREG_SP, PREG_IP,
	PREG_FLAGS, PREG_CS, PREG_SS, PREG_DS, PREG_ES, PREG_FS, PREG_GS,
	PREG_R8, PREG_R9, PREG_R10, PREG_R11, PREG_R12, PREG_R13, PREG_R14, PREG_R15,
};

/* DWARF register n (x86_64 psABI: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip) is perf's dwarf_to_perf[n]. */
static const unsigned char dwarf_to_perf[17] = {
	PREG_AX, PREG_DX, PREG_CX, PREG_BX, PREG_SI, PREG_DI, PREG_BP, PREG_SP,
	PREG_R8, PREG_R9, PREG_R10, PREG_R11, PREG_R12, PREG_R13, PREG_R14, PREG_R15,
	PREG_IP,
};

struct proc_dwfl {
	pid_t pid;
	Dwfl *dwfl;		/* NULL: slot empty */
	bool attached;
};

struct open_file {
	const char *path;	/* borrowed from symbols (lives as long as it) */
	int fd;
	uint64_t used;		/* LRU stamp */
};

struct unwinder {
	struct symbols *syms;
	Dwfl_Callbacks cbs;	/* dwfl_begin keeps a pointer to it */
	char *debuginfo_path;	/* NULL: the standard search */
	struct proc_dwfl cache[NR_CACHE];
	struct open_file files[NR_FILES];
	uint64_t clock;

	/* the sample being unwound */
	pid_t pid;
	const struct sample *smp;
	uint64_t sp;
	uint64_t *pcs;
	size_t nr, max;
	bool stale;		/* a reported module no longer matches the maps */
};

struct unwinder *unwinder__new(struct symbols *syms)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));
	size_t i;

	u->syms = syms;
	/*
	 * Stacks pass through the vdso (clock_gettime, gettimeofday); its
	 * CFI is in an image no file holds, so symbols keeps a copy in a
	 * memfd.  Without one, unwinds stop at the vdso as before.
	 */
	symbols__copy_vdso(syms);
	u->cbs.find_elf = dwfl_build_id_find_elf;
	u->cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cbs.debuginfo_path = &u->debuginfo_path;
	for (i = 0; i < NR_FILES; i++)
		u->files[i].fd = -1;
	return u;
}

void unwinder__free(struct unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < NR_CACHE; i++)
		if (u->cache[i].dwfl)
			dwfl_end(u->cache[i].dwfl);
	for (i = 0; i < NR_FILES; i++)
		if (u->files[i].fd >= 0)
			close(u->files[i].fd);
	free(u);
}

/* Value of perf register r in the sample, false when the mask left it out. */
static bool reg_value(const struct sample *smp, unsigned r, uint64_t *v)
{
	uint64_t below = UNWIND__REGS_MASK & ((1ULL << r) - 1);
	unsigned idx = (unsigned)__builtin_popcountll(below);

	if (!(UNWIND__REGS_MASK & (1ULL << r)) || idx >= smp->nr_regs_user)
		return false;
	*v = smp->regs_user[idx];
	return true;
}

/* The fd of a mapped file, opened on first use; the least recently used one makes room. */
static int file_fd(struct unwinder *u, const char *path)
{
	struct open_file *victim = &u->files[0];
	size_t i;

	u->clock++;
	for (i = 0; i < NR_FILES; i++) {
		if (u->files[i].path == path || (u->files[i].path && !strcmp(u->files[i].path, path))) {
			u->files[i].used = u->clock;
			return u->files[i].fd;
		}
		if (u->files[i].used < victim->used)
			victim = &u->files[i];
	}
	if (victim->fd >= 0)
		close(victim->fd);
	victim->path = path;
	victim->used = u->clock;
	victim->fd = open(path, O_RDONLY | O_CLOEXEC);
	return victim->fd;
}

/* A word outside the stack copy: from the file mapped there (read-only code and data). */
static bool read_mapped(struct unwinder *u, uint64_t addr, Dwarf_Word *result)
{
	struct map_view mv;
	int fd;

	if (!symbols__map_of(u->syms, u->pid, addr, &mv) || !mv.file ||
	    addr + sizeof(*result) > mv.end)
		return false;
	fd = file_fd(u, mv.file);
	if (fd < 0)
		return false;
	return pread(fd, result, sizeof(*result), (off_t)(addr - mv.start + mv.pgoff)) ==
	       (ssize_t)sizeof(*result);
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	uint64_t size = u->smp->stack_dyn_size;

	(void)dwfl;
	if (addr + sizeof(*result) < addr)
		return false;
	if (addr >= u->sp && addr - u->sp <= size && size - (addr - u->sp) >= sizeof(*result)) {
		memcpy(result, (const char *)u->smp->stack_user + (addr - u->sp), sizeof(*result));
		return true;
	}
	return read_mapped(u, addr, result);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	/* one thread: the sampled one (its state is the sample's registers) */
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word regs[17];
	size_t i;

	for (i = 0; i < 17; i++) {
		uint64_t v = 0;

		reg_value(u->smp, dwarf_to_perf[i], &v);
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/*
 * Make sure the module covering pc is reported: the ELF file of the map
 * placed at its load bias (add_p_vaddr: libdwfl adds the vaddrs to it).
 * Map start - pgoff as the address of the first PT_LOAD (perf's
 * util/unwind-libdw.c, and this code until issue 20) is right only where
 * a segment's vaddr equals its file offset: lld puts each segment a page
 * above its offset, so its modules (every default Rust build, clang
 * -fuse-ld=lld) sat 0x1000 off, the CFI lookup missed and the walk ended
 * at the leaf.  The map's start -
 * pgoff stays the module's tag (userdata), to tell a map seen again from
 * another one at the address.  The file is the one symbols names (a
 * container's file and the vdso through /proc/self/fd).  False when pc
 * is in no map with a file (JIT code, unknown): the walk stops there.
 */
static bool report_module(struct unwinder *u, Dwfl *dwfl, uint64_t pc)
{
	struct map_view mv;
	Dwfl_Module *mod;
	const char *file = NULL;
	uint64_t bias;
	void **base;

	if (!symbols__map_of(u->syms, u->pid, pc, &mv))
		return false;
	/* a file its path does not give (a chroot's) may be found by loading it */
	if (!mv.file && (!symbols__load_bias(u->syms, u->pid, pc, &bias) ||
			 !symbols__map_of(u->syms, u->pid, pc, &mv) || !mv.file))
		return false;
	mod = dwfl_addrmodule(dwfl, pc);
	if (mod) {
		/*
		 * Reported for an earlier map at this address: still right
		 * when the same file sits at the same base; else (munmap and
		 * another mmap, an exec) the Dwfl is stale and is rebuilt.
		 */
		dwfl_module_info(mod, &base, NULL, NULL, NULL, NULL, &file, NULL);
		if (*base == (void *)(uintptr_t)(mv.start - mv.pgoff) && file &&
		    !strcmp(file, mv.file))
			return true;
		u->stale = true;
		return false;
	}
	if (!symbols__load_bias(u->syms, u->pid, pc, &bias))
		return false;
	mod = dwfl_report_elf(dwfl, mv.file, mv.file, -1, bias, true);
	if (!mod)
		return false;
	dwfl_module_info(mod, &base, NULL, NULL, NULL, NULL, NULL, NULL);
	*base = (void *)(uintptr_t)(mv.start - mv.pgoff);
	/* module lookups see new modules only after the report ends */
	dwfl_report_end(dwfl, NULL, NULL);
	return dwfl_addrmodule(dwfl, pc) == mod;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwfl *dwfl = dwfl_thread_dwfl(dwfl_frame_thread(state));
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* the raw PC: callers are resolved at pc - 1 later, as fp chains are */
	u->pcs[u->nr++] = pc;
	if (u->nr >= u->max)
		return DWARF_CB_ABORT;
	/* the step from this frame needs its module's CFI */
	if (!report_module(u, dwfl, activation ? pc : pc - 1))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

/*
 * The cached Dwfl of pid (a fresh one when fresh is set); NULL when libdw
 * fails.  Kept across new mmaps: modules are checked against the maps as
 * they are used (report_module), so only a stale one costs a rebuild, not
 * every dlopen of a starting process.
 */
static struct proc_dwfl *proc_get(struct unwinder *u, pid_t pid, bool fresh)
{
	struct proc_dwfl *c = &u->cache[(uint32_t)pid % NR_CACHE];

	if (c->dwfl && (c->pid != pid || fresh)) {
		dwfl_end(c->dwfl);
		c->dwfl = NULL;
	}
	if (!c->dwfl) {
		c->dwfl = dwfl_begin(&u->cbs);
		if (!c->dwfl)
			return NULL;
		c->pid = pid;
		c->attached = false;
	}
	return c;
}

size_t unwinder__unwind(struct unwinder *u, pid_t pid, const struct sample *smp,
			uint64_t *pcs, size_t max)
{
	struct proc_dwfl *c;
	uint64_t ip;
	int tries;

	if (!max || !smp->regs_user || !reg_value(smp, PREG_IP, &ip))
		return 0;
	pcs[0] = ip;
	u->nr = 0;
	if (max == 1 || !smp->stack_user || !reg_value(smp, PREG_SP, &u->sp))
		goto leaf;
	u->pid = pid;
	for (tries = 0; tries < 2; tries++) {
		u->stale = false;
		c = proc_get(u, pid, tries > 0);
		if (!c)
			goto leaf;
		if (!report_module(u, c->dwfl, ip)) {
			if (u->stale)
				continue;
			goto leaf;
		}
		if (!c->attached) {
			/* the architecture comes from the module just reported */
			if (!dwfl_attach_state(c->dwfl, NULL, pid, &thread_cbs, u))
				goto leaf;
			c->attached = true;
		}
		u->smp = smp;
		u->pcs = pcs;
		u->nr = 0;
		u->max = max;
		/* an error ends the walk; the frames so far stand (perf does the same) */
		dwfl_getthread_frames(c->dwfl, pid, frame_cb, u);
		u->smp = NULL;
		if (!u->stale)
			break;
	}
	if (!u->nr)
		goto leaf;
	return u->nr;
leaf:
	return 1;
}
