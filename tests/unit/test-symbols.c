/*
 * test-symbols: address -> (symbol, DSO) against independent witnesses.
 *
 * The witnesses are the system's own: /proc/kallsyms read line by line
 * here, nm on the same ELF file, readelf for build-ids, the running
 * process's /proc/PID/maps read by a second, simpler parser, and a naive
 * "newest covering mapping wins" model for the map bookkeeping.  Programs
 * are compiled at test time as PIE, non-PIE and stripped-with-.dynsym, so
 * the offset arithmetic is checked on every layout the linker produces.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "tap.h"

__attribute__((noinline, used)) int symtest_victim(int x);
__attribute__((noinline, used)) int symtest_victim(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 7 + 3;
}

/* Run argv; stdout into out (NUL-terminated) when out is not NULL. */
static int run(char *const argv[], char *out, size_t size)
{
	int pfd[2], status;
	size_t got = 0;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char sink[4096];
		char *dst = out && got + 1 < size ? out + got : sink;
		size_t room = out && got + 1 < size ? size - 1 - got : sizeof(sink);
		ssize_t n = read(pfd[0], dst, room);

		if (n <= 0)
			break;
		if (dst != sink)
			got += (size_t)n;
	}
	if (out)
		out[got] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The value nm gives for a defined text symbol of file, or 0. */
static uint64_t nm_value(const char *file, const char *sym, bool dynamic)
{
	static char out[4 << 20];
	char *argv[] = { "nm", dynamic ? "-D" : "--defined-only", (char *)file, NULL };
	char *line, *save;

	if (run(argv, out, sizeof(out)))
		return 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char type, name[256];

		/* nm -D spells versions: "getsid@@GLIBC_2.2.5". */
		if (sscanf(line, "%llx %c %255[^@ ]", &v, &type, name) == 3 && !strcmp(name, sym) &&
		    (type == 'T' || type == 't' || type == 'W' || type == 'i'))
			return v;
	}
	return 0;
}

/* Address of name in /proc/kallsyms (first match), 0 if absent. */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	char line[512], n[256], t;
	unsigned long long a;
	uint64_t found = 0;

	while (fp && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &a, &t, n) == 3 && !strcmp(n, name) &&
		    (t == 't' || t == 'T')) {
			found = a;
			break;
		}
	}
	if (fp)
		fclose(fp);
	return found;
}

static void test_kernel_real(void)
{
	static const char *const names[] = { "do_syscall_64", "handle_mm_fault", "exc_page_fault" };
	struct symbols *s = symbols__new();
	struct errmsg e = { "" };
	struct symbol_info si;
	char line[512], n[256], mod[256], t;
	unsigned long long a;
	bool found_mod = false;
	FILE *fp;
	size_t i;
	int err;

	err = symbols__load_kernel(s, &e);
	is_int(err, 0, "kallsyms loads");
	if (err)
		printf("#   %s\n", e.msg);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t addr = kallsyms_addr(names[i]);

		ok(addr, "%s is in /proc/kallsyms", names[i]);
		symbols__resolve(s, 0, addr + 5, true, &si);
		is_str(si.sym, names[i], "kernel address resolves to its function");
		is_int(si.sym_off, 5, "offset into the kernel function");
		is_str(si.dso, "[kernel.kallsyms]", "core kernel DSO");
	}

	/* A module (or pseudo-module: ftrace trampolines, bpf) symbol. */
	fp = fopen("/proc/kallsyms", "r");
	while (fp && !found_mod && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s %255s", &a, &t, n, mod) == 4 && mod[0] == '[' &&
		    (t == 't' || t == 'T'))
			found_mod = true;
	}
	if (fp)
		fclose(fp);
	ok(found_mod, "kallsyms lists a module or pseudo-module text symbol");
	if (found_mod) {
		symbols__resolve(s, 0, a, true, &si);
		is_str(si.dso, mod, "module symbol gets the module as DSO");
		ok(si.sym && si.sym_off == 0, "module symbol resolves at offset 0 (%s)",
		   si.sym ? si.sym : "null");
	}

	symbols__resolve(s, 0, 0x1000, true, &si);
	ok(!si.sym, "kernel address below every symbol stays unresolved");
	is_str(si.dso, "[kernel.kallsyms]", "... but keeps the kernel DSO");
	symbols__free(s);
}

static const char synthetic_kallsyms[] =
	"ffffffffc0001080 t mod_fn2\t[mymod]\n"
	"ffffffff81000100 t helper_a\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000100 T helper_alias\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000200 T __strong_fn\n"
	"ffffffffc0001000 t mod_fn1\t[mymod]\n"
	"ffffffff81000400 T last_core\n"
	"ffffffff81000180 T global_first\n"
	"ffffffff81000180 t local_second\n"
	"ffffffffc0010000 T other_fn\t[othermod]\n";

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/mmprof-kallsyms.XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

static void check_k(struct symbols *s, uint64_t addr, const char *sym, uint64_t off,
		    const char *dso)
{
	struct symbol_info si;

	symbols__resolve(s, 0, addr, true, &si);
	if (!ok((sym ? si.sym && !strcmp(si.sym, sym) && si.sym_off == off : !si.sym) &&
		si.dso && !strcmp(si.dso, dso), "%#" PRIx64 " -> %s+%#" PRIx64 " %s",
		addr, sym ? sym : "(none)", off, dso))
		printf("#   got %s+%#" PRIx64 " %s\n", si.sym ? si.sym : "(none)", si.sym_off,
		       si.dso ? si.dso : "(null)");
}

static void test_kernel_synthetic(void)
{
	struct symbols *s = symbols__new();
	struct errmsg e = { "" };
	char *path = write_tmp(synthetic_kallsyms);
	char *zeros;
	int err;

	err = symbols__load_kallsyms(s, path, &e);
	is_int(err, 0, "synthetic kallsyms loads");
	/* Aliases: the last one listed, as perf report shows kernel aliases. */
	check_k(s, 0xffffffff81000150, "helper_alias", 0x50, "[kernel.kallsyms]");
	check_k(s, 0xffffffff81000190, "local_second", 0x10, "[kernel.kallsyms]");
	check_k(s, 0xffffffff81000250, "__strong_fn", 0x50, "[kernel.kallsyms]");
	check_k(s, 0xffffffff81000300, "__strong_fn", 0x100, "[kernel.kallsyms]");
	check_k(s, 0xffffffff81001fff, "last_core", 0x1bff, "[kernel.kallsyms]");
	check_k(s, 0xffffffff81002000, NULL, 0, "[kernel.kallsyms]");
	check_k(s, 0xffffffffc0001010, "mod_fn1", 0x10, "[mymod]");
	check_k(s, 0xffffffffc0002fff, "mod_fn2", 0x1f7f, "[mymod]");
	check_k(s, 0xffffffffc0003000, NULL, 0, "[kernel.kallsyms]");
	check_k(s, 0xffffffffc0010fff, "other_fn", 0xfff, "[othermod]");
	check_k(s, 0xffffffffc0011000, NULL, 0, "[kernel.kallsyms]");
	unlink(path);
	free(path);

	zeros = write_tmp("0000000000000000 T _stext\n0000000000000000 t foo\n"
			  "0000000000000000 t bar\t[mod]\n");
	err = symbols__load_kallsyms(s, zeros, &e);
	is_int(err, -EACCES, "all-zero addresses give -EACCES");
	/*
	 * The setting to change: kptr_restrict, or with kptr_restrict 0
	 * perf_event_paranoid (kallsyms_show_value() needs both).
	 */
	{
		FILE *kp = fopen("/proc/sys/kernel/kptr_restrict", "r");
		int kr = -1;

		if (kp) {
			if (fscanf(kp, "%d", &kr) != 1)
				kr = -1;
			fclose(kp);
		}
		ok(strstr(e.msg, kr == 0 ? "kernel.perf_event_paranoid" : "kernel.kptr_restrict") != NULL,
		   "message names the setting that hides addresses: %s", e.msg);
	}
	check_k(s, 0xffffffff81000150, NULL, 0, "[kernel.kallsyms]");
	unlink(zeros);
	free(zeros);

	err = symbols__load_kallsyms(s, "/nonexistent/kallsyms", &e);
	is_int(err, -ENOENT, "missing kallsyms gives -ENOENT");
	symbols__free(s);
}

/*
 * wmemset is an IFUNC: our GOT holds the implementation the resolver chose
 * (__wmemset_avx2_unaligned or so), a local symbol that only libc's full
 * .symtab names.  With libc6-dbg installed it must resolve through the
 * build-id debuginfo; without, the address is in no .dynsym symbol.
 */
static void test_libc_debuginfo(struct symbols *s, const struct dso_info *di)
{
	char dbg[128];
	struct symbol_info si;
	bool have;

	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", di->build_id,
		 di->build_id + 2);
	have = access(dbg, R_OK) == 0;
	symbols__resolve(s, getpid(), (uintptr_t)&wmemset, false, &si);
	if (have) {
		is_str(di->symfile, dbg, "libc symbols from build-id debuginfo");
		ok(si.sym && strstr(si.sym, "wmemset") && strcmp(si.sym, "wmemset"),
		   "IFUNC implementation named by debuginfo: %s", si.sym ? si.sym : "null");
	} else {
		is_str(di->symfile, di->name, "libc symbols from libc itself (no debuginfo)");
		ok(!si.sym || !strcmp(si.sym, "wmemset"), "IFUNC implementation without debuginfo");
	}
}

static void self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
}

static void test_self(void)
{
	struct symbols *s = symbols__new();
	struct symbol_info si;
	char exe[PATH_MAX];
	uintptr_t fn = (uintptr_t)&symtest_victim;
	uint64_t nmv;
	const char *comm;

	self_exe(exe, sizeof(exe));
	is_int(symbols__add_proc(s, getpid()), 0, "add_proc(self)");
	ok(symbols__known(s, getpid()), "self is known after add_proc");
	ok(!symbols__known(s, 999999999), "an unseen pid is not known");
	comm = symbols__comm_of(s, getpid(), getpid());
	ok(comm && !strncmp(comm, "test-symbols", 12), "comm read from /proc (%s)",
	   comm ? comm : "null");

	symbols__resolve(s, getpid(), fn + 3, false, &si);
	is_str(si.sym, "symtest_victim", "own noinline function (PIE executable)");
	is_int(si.sym_off, 3, "offset into own function");
	is_str(si.dso, exe, "DSO is the executable's path");
	nmv = nm_value(exe, "symtest_victim", false);
	ok(nmv, "nm knows symtest_victim");
	is_int(si.dso_addr, nmv + 3, "dso_addr agrees with nm");

	/* libc through .dynsym: aliases resolved the way perf picks them. */
	symbols__resolve(s, getpid(), (uintptr_t)&getsid + 1, false, &si);
	is_str(si.sym, "getsid", "libc getsid");
	ok(si.dso && strstr(si.dso, "libc.so"), "libc DSO (%s)", si.dso ? si.dso : "null");
	if (si.dso)
		is_int(si.dso_addr, nm_value(si.dso, "getsid", true) + 1, "libc dso_addr agrees with nm -D");
	symbols__resolve(s, getpid(), (uintptr_t)&getpid, false, &si);
	is_str(si.sym, "__getpid", "getpid: global __getpid preferred over weak getpid");
	symbols__resolve(s, getpid(), (uintptr_t)&div + 2, false, &si);
	is_str(si.sym, "div", "libc div");
	is_int(si.sym_off, 2, "offset into libc function");

	/* The vdso, checked against the image read here with libelf. */
	{
		uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
		size_t size = eh ? eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize : 0;
		void *copy = size ? malloc(size) : NULL;
		uint64_t want = 0;
		Elf *elf;
		Elf_Scn *scn = NULL;

		if (copy)
			memcpy(copy, (const void *)base, size);
		elf_version(EV_CURRENT);
		elf = copy ? elf_memory(copy, size) : NULL;
		while (elf && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t i;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym y;
				const char *nm;

				if (gelf_getsym(d, (int)i, &y) &&
				    (nm = elf_strptr(elf, sh.sh_link, y.st_name)) &&
				    !strcmp(nm, "__vdso_clock_gettime"))
					want = y.st_value;
			}
		}
		if (elf)
			elf_end(elf);
		free(copy);
		ok(want, "vdso has __vdso_clock_gettime");
		symbols__resolve(s, getpid(), base + want + 2, false, &si);
		is_str(si.sym, "__vdso_clock_gettime", "vdso function");
		is_str(si.dso, "[vdso]", "vdso DSO");
	}

	/* An unmapped user address. */
	symbols__resolve(s, getpid(), 16, false, &si);
	ok(!si.sym && !si.dso, "unmapped user address: no symbol, no DSO");
	symbols__resolve(s, 424242, fn, false, &si);
	ok(!si.sym && !si.dso, "unknown pid: no symbol, no DSO");

	/* Build-id of libc as readelf shows it. */
	{
		size_t i, nr = symbols__nr_dsos(s);
		struct dso_info di;
		bool seen = false;

		for (i = 0; i < nr; i++) {
			char out[8192], *bid;
			char *argv[] = { "readelf", "-n", NULL, NULL };

			symbols__dso(s, i, &di);
			if (!strstr(di.name, "libc.so"))
				continue;
			seen = true;
			ok(di.loaded && !di.err && di.nr_syms > 1000, "libc loaded: %zu symbols",
			   di.nr_syms);
			argv[2] = (char *)di.name;
			run(argv, out, sizeof(out));
			bid = strstr(out, "Build ID: ");
			ok(bid && strlen(di.build_id) == 40 && !strncmp(bid + 10, di.build_id, 40),
			   "libc build-id %s matches readelf", di.build_id);
			test_libc_debuginfo(s, &di);
		}
		ok(seen, "libc among the DSOs");
	}

	/*
	 * Speed: record resolves ~100k distinct addresses at its end.  This
	 * thread's CPU time: a loaded make check took 5.6 s of wall time.
	 */
	{
		struct timespec t0, t1;
		uintptr_t lo = (uintptr_t)&getsid & ~(uintptr_t)0xfffff;
		size_t i, hits = 0;
		double secs;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		for (i = 0; i < 200000; i++) {
			symbols__resolve(s, getpid(), lo + (i * 2654435761u) % 0x100000, false, &si);
			hits += si.sym != NULL;
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		ok(secs < 2.0 && hits > 1000, "200k libc resolutions in %.3f s of CPU (%zu named)", secs,
		   hits);
	}
	symbols__free(s);
}

/* Programs built at test time */

static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) int alpha(int x) { __asm__ volatile(\"\" : \"+r\"(x)); return x * 3 + 1; }\n"
	"__attribute__((noinline)) int beta(int x) { __asm__ volatile(\"\" : \"+r\"(x)); return alpha(x) ^ 7; }\n"
	"int main(void)\n"
	"{\n"
	"\tchar c = 0;\n"
	"\tprintf(\"%lx %lx\\n\", (unsigned long)&alpha, (unsigned long)&beta);\n"
	"\tfflush(stdout);\n"
	"\tif (read(0, &c, 1) < 0)\n"
	"\t\treturn 1;\n"
	"\treturn beta(c) & 1;\n"
	"}\n";

struct mapline {
	uint64_t start, len, pgoff;
	char name[PATH_MAX];
};

/* A second, deliberately plain reader of /proc/PID/maps. */
static size_t read_maps(pid_t pid, struct mapline *ml, size_t max)
{
	char path[64], line[PATH_MAX + 128];
	size_t n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "r");
	while (fp && n < max && fgets(line, sizeof(line), fp)) {
		unsigned long long a, b, off;
		char perms[8], dev[16], name[PATH_MAX] = "";
		unsigned long ino;

		if (sscanf(line, "%llx-%llx %7s %llx %15s %lu %4095s", &a, &b, perms, &off, dev,
			   &ino, name) < 6 || perms[2] != 'x')
			continue;
		ml[n].start = a;
		ml[n].len = b - a;
		ml[n].pgoff = off;
		snprintf(ml[n].name, sizeof(ml[n].name), "%s", name);
		n++;
	}
	if (fp)
		fclose(fp);
	return n;
}

struct built {
	const char *what;
	char path[PATH_MAX];
	bool dynsym_only;
};

/* Start prog, read its addresses and maps, let it finish. */
/*
 * Start argv, read the two addresses it prints, then (while it waits on
 * stdin) its maps, or, when s is given, let symbols__add_proc read them;
 * then let it finish.
 */
static int sample_argv(char *const argv[], uint64_t addr[2], struct mapline *ml, size_t *nml,
		       struct symbols *s, pid_t *pidp, struct symbols *watch)
{
	int in[2], out[2], status;
	char buf[128] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(in) || pipe(out))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	n = read(out[0], buf, sizeof(buf) - 1);
	if (n > 0)
		buf[n] = '\0';
	if (ml)
		*nml = read_maps(pid, ml, 64);
	for (size_t i = 0; watch && ml && i < *nml; i++)
		symbols__watch(watch, pid, ml[i].name);
	if (s)
		symbols__add_proc(s, pid);
	if (pidp)
		*pidp = pid;
	close(in[1]);
	close(out[0]);
	waitpid(pid, &status, 0);
	return sscanf(buf, "%" SCNx64 " %" SCNx64, &addr[0], &addr[1]) == 2 ? 0 : -1;
}

static int sample_prog(const char *prog, uint64_t addr[2], struct mapline *ml, size_t *nml)
{
	return sample_argv((char *[]){ (char *)prog, NULL }, addr, ml, nml, NULL, NULL, NULL);
}

/* PLT stubs against objdump's "<read@plt>:" labels. */
static void test_plt(struct symbols *s, pid_t pid, const struct built *b, uint64_t bias)
{
	static char out[1 << 16];
	char *argv[] = { "objdump", "-d", "-j", ".plt", (char *)b->path, NULL };
	int checked = 0, good = 0;
	char *line, *save;

	run(argv, out, sizeof(out));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char name[256];
		struct symbol_info si;

		size_t len;

		/* "<printf@plt-0x10>" is objdump's name for the PLT header. */
		if (sscanf(line, "%llx <%255[^>]>:", &v, name) != 2 || (len = strlen(name)) < 5 ||
		    strcmp(name + len - 4, "@plt"))
			continue;
		symbols__resolve(s, pid, bias + v + 2, false, &si);
		checked++;
		if (si.sym && !strcmp(si.sym, name) && si.sym_off == 2)
			good++;
		else
			printf("#   %s: got %s\n", name, si.sym ? si.sym : "(null)");
	}
	ok(checked >= 2 && good == checked, "%s: %d/%d PLT stubs named as objdump names them",
	   b->what, good, checked);
}

static void test_built(const char *dir, struct built *b, struct mapline *keep, size_t *nkeep,
		       uint64_t *keep_alpha)
{
	static struct mapline ml[64];
	struct symbols *s = symbols__new();
	struct symbol_info si;
	const pid_t fake = 31337;
	uint64_t addr[2];
	size_t i, nml = 0;
	int j;
	static const char *const fn[] = { "alpha", "beta" };

	(void)dir;
	if (!ok(!sample_prog(b->path, addr, ml, &nml) && nml, "%s: ran and mapped", b->what)) {
		symbols__free(s);
		return;
	}
	for (i = 0; i < nml; i++)
		symbols__mmap(s, fake, ml[i].start, ml[i].len, ml[i].pgoff, ml[i].name);
	for (j = 0; j < 2; j++) {
		uint64_t nmv = nm_value(b->path, fn[j], b->dynsym_only);

		symbols__resolve(s, fake, addr[j] + 1, false, &si);
		is_str(si.sym, fn[j], b->what);
		is_int(si.sym_off, 1, "offset");
		is_str(si.dso, b->path, "DSO is the program");
		ok(nmv && si.dso_addr == nmv + 1, "%s: vaddr %#" PRIx64 " = nm %#" PRIx64 " + 1",
		   b->what, si.dso_addr, nmv);
	}
	test_plt(s, fake, b, addr[0] - nm_value(b->path, "alpha", b->dynsym_only));
	if (keep) {
		memcpy(keep, ml, nml * sizeof(*ml));
		*nkeep = nml;
		*keep_alpha = addr[0];
	}
	symbols__free(s);
}

static bool build(const char *dir, const char *src, struct built *b, const char *const *flags,
		  bool strip)
{
	char *argv[16];
	int n = 0;

	argv[n++] = "cc";
	argv[n++] = "-O2";
	argv[n++] = "-g";
	while (*flags)
		argv[n++] = (char *)*flags++;
	argv[n++] = "-o";
	argv[n++] = b->path;
	argv[n++] = (char *)src;
	argv[n] = NULL;
	if (run(argv, NULL, 0))
		return false;
	if (strip) {
		char *sargv[] = { "strip", "--strip-all", b->path, NULL };

		if (run(sargv, NULL, 0))
			return false;
	}
	(void)dir;
	return true;
}

static void test_programs_and_maps(void)
{
	static const char *const nopie[] = { "-fno-pie", "-no-pie", NULL };
	static const char *const pie[] = { "-fpie", "-pie", NULL };
	static const char *const dyn[] = { "-fpie", "-pie", "-rdynamic", NULL };
	static struct mapline keep[64];
	char dir[] = "/tmp/mmprof-symtest.XXXXXX", src[PATH_MAX + 16];
	struct built b[3] = { { "non-PIE", "", false }, { "PIE", "", false },
			      { "stripped PIE (.dynsym)", "", true } };
	uint64_t alpha = 0;
	size_t nkeep = 0, i;
	FILE *fp;

	ok(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	fp = fopen(src, "w");
	fputs(prog_src, fp);
	fclose(fp);
	snprintf(b[0].path, sizeof(b[0].path), "%s/prog-nopie", dir);
	snprintf(b[1].path, sizeof(b[1].path), "%s/prog-pie", dir);
	snprintf(b[2].path, sizeof(b[2].path), "%s/prog-stripped", dir);
	ok(build(dir, src, &b[0], nopie, false), "cc -no-pie");
	ok(build(dir, src, &b[1], pie, false), "cc -pie");
	ok(build(dir, src, &b[2], dyn, true), "cc -pie -rdynamic && strip");
	for (i = 0; i < 3; i++)
		test_built(dir, &b[i], i == 1 ? keep : NULL, &nkeep, &alpha);

	/* fork / exec / exit semantics on the PIE's real layout. */
	{
		struct symbols *s = symbols__new();
		struct symbol_info si;

		for (i = 0; i < nkeep; i++)
			symbols__mmap(s, 5000, keep[i].start, keep[i].len, keep[i].pgoff, keep[i].name);
		symbols__comm(s, 5000, 5000, "prog-pie", false);
		symbols__resolve(s, 5000, alpha, false, &si);
		is_str(si.sym, "alpha", "parent resolves");
		symbols__fork(s, 5001, 5000);
		symbols__resolve(s, 5001, alpha, false, &si);
		is_str(si.sym, "alpha", "forked child inherits the maps");
		is_str(symbols__comm_of(s, 5001, 5001), "prog-pie", "child inherits the comm");
		symbols__fork(s, 5000, 5000);
		symbols__resolve(s, 5000, alpha, false, &si);
		is_str(si.sym, "alpha", "a new thread changes nothing");
		symbols__comm(s, 5001, 5001, "sh", true);
		symbols__resolve(s, 5001, alpha, false, &si);
		ok(!si.sym && !si.dso, "exec clears the child's maps");
		ok(symbols__known(s, 5001), "exec'd child is still known");
		is_str(symbols__comm_of(s, 5001, 5001), "sh", "exec sets the comm");
		symbols__comm(s, 5000, 5003, "worker", false);
		is_str(symbols__comm_of(s, 5000, 5003), "worker", "thread comm");
		is_str(symbols__comm_of(s, 5000, 5000), "prog-pie", "process comm unchanged by a thread");
		symbols__resolve(s, 5000, alpha, false, &si);
		is_str(si.sym, "alpha", "parent unaffected by the child's exec");

		/* A newer one-byte map splits the old one: head, new, tail. */
		symbols__mmap(s, 5000, alpha, 1, 0, "/nonexistent/overlay.so");
		symbols__resolve(s, 5000, alpha, false, &si);
		ok(!si.sym && si.dso && !strcmp(si.dso, "/nonexistent/overlay.so"),
		   "newer map wins; unopenable file keeps its DSO name, no symbol");
		symbols__resolve(s, 5000, alpha + 1, false, &si);
		is_str(si.sym, "alpha", "tail of the split map keeps its file offset");
		is_int(si.sym_off, 1, "tail offset");
		symbols__resolve(s, 5000, alpha - 1, false, &si);
		ok(si.dso && strstr(si.dso, "prog-pie"), "head of the split map keeps its DSO");

		symbols__mmap(s, 5000, alpha & ~0xfffULL, 4096, 0, "/tmp/gone.so (deleted)");
		symbols__resolve(s, 5000, alpha + 1, false, &si);
		ok(!si.sym && si.dso && !strcmp(si.dso, "/tmp/gone.so (deleted)"),
		   "deleted file: name kept, no symbol");
		symbols__mmap(s, 5000, alpha & ~0xfffULL, 4096, 0, "");
		symbols__resolve(s, 5000, alpha + 1, false, &si);
		is_str(si.dso, "/tmp/perf-5000.map", "anonymous executable memory: the JIT's perf map");

		/* Out-of-order delivery: the child's own map survives its FORK. */
		symbols__mmap(s, 5004, 0x10000, 0x1000, 0, "/nonexistent/early.so");
		symbols__fork(s, 5004, 5001);
		symbols__resolve(s, 5004, 0x10010, false, &si);
		is_str(si.dso, "/nonexistent/early.so", "child map seen before FORK is kept");
		/* Pid reuse after EXIT: the new process starts from its parent. */
		symbols__exit(s, 5004, 5004);
		symbols__fork(s, 5004, 5001);
		symbols__resolve(s, 5004, 0x10010, false, &si);
		ok(!si.dso, "reused pid after EXIT forgets the old maps");
		symbols__free(s);
	}
	for (i = 0; i < 3; i++)
		unlink(b[i].path);
	unlink(src);
	rmdir(dir);
}

/*
 * A JIT's perf map: a pid above pid_max, so no real process can own the
 * file name.  Absolute addresses, names verbatim (spaces kept), sizes
 * bounding each function, lines that are not "START SIZE NAME" ignored.
 */
static void test_perfmap(void)
{
	struct symbols *s = symbols__new();
	const pid_t pid = 4194304 + getpid();
	struct symbol_info si;
	char path[64];
	FILE *fp;
	size_t i, nr;
	bool listed = false;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	fp = fopen(path, "w");
	fputs("7f0000001000 40 jit_alpha\n"
	      "0x7f0000001100 0x80 LazyCompile:*run app.js:12\n"
	      "garbage line\n"
	      "7f0000002000 zz bad_size\n"
	      "7f0000003000 10 \n", fp);
	fclose(fp);
	symbols__mmap(s, pid, 0x7f0000000000ULL, 0x10000, 0, "//anon");
	symbols__resolve(s, pid, 0x7f0000001006ULL, false, &si);
	is_str(si.sym, "jit_alpha", "perf map function");
	is_int(si.sym_off, 6, "offset into the JIT function");
	is_str(si.dso, path, "DSO is the perf map, as perf names it");
	symbols__resolve(s, pid, 0x7f000000117fULL, false, &si);
	is_str(si.sym, "LazyCompile:*run app.js:12", "0x prefixes and spaces in names");
	symbols__resolve(s, pid, 0x7f0000001040ULL, false, &si);
	ok(!si.sym, "the size bounds the function (gap after jit_alpha)");
	symbols__resolve(s, pid, 0x7f0000002000ULL, false, &si);
	ok(!si.sym, "malformed lines are skipped");
	nr = symbols__nr_dsos(s);
	for (i = 0; i < nr; i++) {
		struct dso_info di;

		symbols__dso(s, i, &di);
		if (!strcmp(di.name, path))
			listed = di.loaded && !di.err && di.nr_syms == 2;
	}
	ok(listed, "perf map listed as a loaded DSO with its 2 functions");
	unlink(path);
	/* No map written: the DSO stays, the address unresolved (-ENOENT). */
	symbols__mmap(s, pid + 1, 0x7f0000000000ULL, 0x10000, 0, "//anon");
	symbols__resolve(s, pid + 1, 0x7f0000001006ULL, false, &si);
	ok(!si.sym && si.dso && strstr(si.dso, "/tmp/perf-"), "JIT without a map: DSO, no symbol");
	symbols__free(s);
}

/*
 * A stripped binary whose symbols were split off with objcopy and linked
 * back by .gnu_debuglink (no build-id, so only the link can find them),
 * in the directory's .debug/; a debug file with the wrong CRC is refused.
 */
static void test_debuglink(void)
{
	static struct mapline ml[64];
	char dir[] = "/tmp/mmprof-symlink.XXXXXX", src[PATH_MAX], bin[PATH_MAX + 16];
	char dbgdir[PATH_MAX + 16], dbg[2 * PATH_MAX];
	static char cmd[12 * PATH_MAX];
	struct symbols *s;
	struct symbol_info si;
	uint64_t addr[2];
	size_t nml = 0, i;
	FILE *fp;

	ok(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(dbgdir, sizeof(dbgdir), "%s/.debug", dir);
	snprintf(dbg, sizeof(dbg), "%s/prog.debug", dbgdir);
	fp = fopen(src, "w");
	fputs(prog_src, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -g -Wl,--build-id=none -o %s %s && mkdir %s && "
		 "objcopy --only-keep-debug %s %s && strip --strip-all %s && "
		 "cd %s && objcopy --add-gnu-debuglink=%s %s", bin, src, dbgdir, bin, dbg, bin,
		 dbgdir, dbg, bin);
	is_int(run((char *[]){ "sh", "-c", cmd, NULL }, NULL, 0), 0, "build, split, strip, link");
	ok(nm_value(bin, "alpha", false) == 0, "the binary itself has no alpha symbol");
	if (ok(!sample_prog(bin, addr, ml, &nml) && nml, "stripped program ran")) {
		s = symbols__new();
		for (i = 0; i < nml; i++)
			symbols__mmap(s, 4243, ml[i].start, ml[i].len, ml[i].pgoff, ml[i].name);
		symbols__resolve(s, 4243, addr[0] + 1, false, &si);
		is_str(si.sym, "alpha", "named through .gnu_debuglink");
		symbols__resolve(s, 4243, addr[1], false, &si);
		is_str(si.sym, "beta", "second function too");
		for (i = 0; i < symbols__nr_dsos(s); i++) {
			struct dso_info di;

			symbols__dso(s, i, &di);
			if (!strcmp(di.name, bin))
				is_str(di.symfile, dbg, "symfile is the linked debug file");
		}
		symbols__free(s);

		/* Same name, other contents: CRC mismatch, not used. */
		fp = fopen(dbg, "a");
		fputs("x", fp);
		fclose(fp);
		s = symbols__new();
		for (i = 0; i < nml; i++)
			symbols__mmap(s, 4243, ml[i].start, ml[i].len, ml[i].pgoff, ml[i].name);
		symbols__resolve(s, 4243, addr[0] + 1, false, &si);
		ok(!si.sym || strcmp(si.sym, "alpha"), "debug file with a wrong CRC is refused");
		symbols__free(s);
	}
	unlink(dbg);
	rmdir(dbgdir);
	unlink(bin);
	unlink(src);
	rmdir(dir);
}

/*
 * A process in its own mount namespace whose binary exists only there (a
 * tmpfs mounted over a directory that, on the host, holds another program
 * under the same name): resolved through /proc/PID/root, also after the
 * process has exited.
 */
static void test_mount_ns(void)
{
	char dir[] = "/tmp/mmprof-symns.XXXXXX", src[PATH_MAX], bin[PATH_MAX + 16];
	char hidden[PATH_MAX + 16];
	static char cmd[8 * PATH_MAX];
	static struct mapline ml[64];
	struct symbols *s = symbols__new(), *w = symbols__new();
	size_t nml = 0, i;
	struct symbol_info si;
	uint64_t addr[2];
	pid_t pid = 0;
	FILE *fp;

	ok(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(hidden, sizeof(hidden), "%s/ns", dir);
	fp = fopen(src, "w");
	fputs(prog_src, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "cc -O2 -o %s %s && mkdir %s && cp /bin/true %s/prog",
		 bin, src, hidden, hidden);
	is_int(run((char *[]){ "sh", "-c", cmd, NULL }, NULL, 0), 0, "build; host decoy");
	snprintf(cmd, sizeof(cmd), "mount -t tmpfs mmprof-ns %s && cp %s %s/prog && exec %s/prog",
		 hidden, bin, hidden, hidden);
	if (ok(!sample_argv((char *[]){ "unshare", "-m", "--propagation", "private", "sh", "-c",
					cmd, NULL }, addr, ml, &nml, s, &pid, w),
	       "program ran in its own mount namespace")) {
		/* As record does it: watch while alive, maps replayed after the exit. */
		for (i = 0; i < nml; i++)
			symbols__mmap(w, pid, ml[i].start, ml[i].len, ml[i].pgoff, ml[i].name);
		symbols__resolve(w, pid, addr[0] + 1, false, &si);
		is_str(si.sym, "alpha", "watched at the mmap, replayed after the exit");
		symbols__resolve(s, pid, addr[0] + 1, false, &si);
		is_str(si.sym, "alpha", "binary seen through /proc/PID/root");
		snprintf(cmd, sizeof(cmd), "%s/prog", hidden);
		is_str(si.dso, cmd, "DSO keeps the path as the process saw it");
		ok(access(cmd, X_OK) == 0, "... where the host has another program (the decoy)");
		symbols__resolve(s, pid, addr[1], false, &si);
		is_str(si.sym, "beta", "second function, resolved after the process exited");
	}
	symbols__free(s);
	symbols__free(w);
	snprintf(cmd, sizeof(cmd), "%s/prog", hidden);
	unlink(cmd);
	rmdir(hidden);
	unlink(bin);
	unlink(src);
	rmdir(dir);
}

/*
 * Inline chains of an -O2 program against addr2line -i -f, at every byte
 * of the function that received two levels of inlining (and of main).
 */
static const char inline_src[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"static volatile int sink;\n"
	"static inline __attribute__((always_inline)) int leaf(int x)\n"
	"{ for (int i = 0; i < x; i++) sink += i * x; return sink; }\n"
	"static inline __attribute__((always_inline)) int mid(int x) { return leaf(x + 1) * 3 + leaf(x); }\n"
	"__attribute__((noinline)) int outer(int x) { return mid(x) + sink; }\n"
	"int main(void)\n"
	"{\n"
	"\tchar c = 0;\n"
	"\tprintf(\"%lx %lx\\n\", (unsigned long)&outer, (unsigned long)&main);\n"
	"\tfflush(stdout);\n"
	"\tif (read(0, &c, 1) < 0)\n"
	"\t\treturn 1;\n"
	"\treturn outer(c) & 1;\n"
	"}\n";

static void test_inline(void)
{
	static struct mapline ml[64];
	static char out[1 << 20], cmd[1 << 16];
	char dir[] = "/tmp/mmprof-syminl.XXXXXX", src[PATH_MAX], bin[PATH_MAX];
	struct symbols *s = symbols__new();
	uint64_t addr[2], base, size = 0;
	size_t nml = 0, i;
	int checked = 0, same = 0, deep = 0, len;
	char *p, *line, *save = NULL;
	FILE *fp;

	ok(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	fp = fopen(src, "w");
	fputs(inline_src, fp);
	fclose(fp);
	is_int(run((char *[]){ "cc", "-O2", "-g", "-o", bin, src, NULL }, NULL, 0), 0, "cc -O2 -g");
	base = nm_value(bin, "outer", false);
	/* outer's size from nm -S */
	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"outer\" { print $2 }'", bin);
	if (!run((char *[]){ "sh", "-c", cmd, NULL }, out, sizeof(out)))
		size = strtoull(out, NULL, 16);
	if (!ok(base && size && size < 4096 && !sample_prog(bin, addr, ml, &nml) && nml,
		"program ran; outer is %" PRIu64 " bytes", size))
		goto out;
	for (i = 0; i < nml; i++)
		symbols__mmap(s, 4244, ml[i].start, ml[i].len, ml[i].pgoff, ml[i].name);
	len = snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e %s", bin);
	for (i = 0; i < size && len > 0 && (size_t)len + 32 < sizeof(cmd); i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, " %#" PRIx64, base + i);
	ok(!run((char *[]){ "sh", "-c", cmd, NULL }, out, sizeof(out)), "addr2line -i -f");
	/* Groups: "0x<addr>", then (function, file:line) pairs. */
	p = out;
	line = strtok_r(p, "\n", &save);
	while (line) {
		unsigned long long a = strtoull(line, NULL, 16);
		const char *want[16], *got[16];
		size_t nw = 0, ng, k;
		bool eq;

		while ((line = strtok_r(NULL, "\n", &save)) && strncmp(line, "0x", 2)) {
			if (nw < 16)
				want[nw++] = line;
			strtok_r(NULL, "\n", &save);	/* file:line */
		}
		ng = symbols__inline_chain(s, 4244, addr[0] + (a - base), got, 16);
		eq = ng == nw;
		for (k = 0; eq && k < ng; k++)
			eq = !strcmp(got[k], want[k]);
		checked++;
		same += eq;
		deep += eq && ng == 3;
		if (!eq && checked - same <= 3)
			printf("#   %#llx: addr2line %zu names (%s), mmprof %zu (%s)\n", a, nw,
			       nw ? want[0] : "-", ng, ng ? got[0] : "-");
	}
	ok(checked == (int)size && same == checked,
	   "inline chains equal addr2line -i at %d/%d addresses", same, checked);
	ok(deep > 0, "leaf inlined in mid inlined in outer: %d addresses with 3 levels", deep);
	{
		const char *got[4];

		ok(symbols__inline_chain(s, 4244, 16, got, 4) == 0, "unmapped address: no chain");
	}
out:
	symbols__free(s);
	unlink(bin);
	unlink(src);
	rmdir(dir);
}

/* The one-line causes report --unresolved prints. */
static void test_hints(void)
{
	char buf[512];
	struct dso_info di = { .name = "/usr/bin/x", .build_id = "4cb6176339e9f19e91c0243649454e602e8bf8cd",
			       .nr_syms = 0, .loaded = true, .err = 0 };

	ok(symbols__hint(&di, buf, sizeof(buf)) &&
	   strstr(buf, "/usr/lib/debug/.build-id/4c/b6176339e9f19e91c0243649454e602e8bf8cd.debug"),
	   "no symbols: the build-id debuginfo path (%s)", buf);
	di.nr_syms = 10;
	ok(symbols__hint(&di, buf, sizeof(buf)) && strstr(buf, ".dynsym"), "only .dynsym: %s", buf);
	di.name = "[vdso]";
	ok(!symbols__hint(&di, buf, sizeof(buf)), "[vdso] with only .dynsym: no hint (it exports all it has)");
	di.name = "/usr/bin/x";
	di.full_symtab = true;
	ok(!symbols__hint(&di, buf, sizeof(buf)), "a full symbol table: no hint");
	di.name = "/tmp/perf-42.map";
	di.err = -ENOENT;
	ok(symbols__hint(&di, buf, sizeof(buf)) && strstr(buf, "JIT") && strstr(buf, "/tmp/perf-42.map"),
	   "JIT without a map: %s", buf);
	di.name = "/usr/lib/y.so (deleted)";
	di.err = -ESTALE;
	ok(symbols__hint(&di, buf, sizeof(buf)) && strstr(buf, "deleted"), "deleted: %s", buf);
	di.loaded = false;
	ok(!symbols__hint(&di, buf, sizeof(buf)), "never sampled: no hint");
}

/*
 * Demangling.  C++ against c++filt -p (binutils' own tool, parameters left
 * out as perf report leaves them): nested names, templates, a lambda, a
 * constructor, an operator, std::.  Rust: c++filt always prints verbose
 * (legacy hash, v0 crate disambiguator) where perf, and we, do not, so the
 * expected spellings are written out, from the Rust mangling RFC's rules.
 */
static void test_demangle(void)
{
	static const char *const cxx[] = {
		"_ZN2ns4workEi",
		"_ZN2ns3BoxIjE4spinEjl",
		"_ZZ4mainENKUliE_clEi",
		"_ZNSt6vectorIiSaIiEE9push_backERKi",
		"_ZN3FooC2Ev",
		"_ZN3FoopLERKS_",
		"_GLOBAL__sub_I__ZN2ns4workEi",
	};
	static const char *const rust[][2] = {
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_ZN5alloc3vec12Vec$LT$T$GT$4push17h9d7b6c4bd9e5e0a1E", "alloc::vec::Vec<T>::push" },
		{ "_RNvCs15kBYyAo9fc_7mycrate3foo", "mycrate::foo" },
		{ "_RNvMs_NtCs15kBYyAo9fc_7mycrate3fooNtB4_3Bar3baz", "<mycrate::foo::Bar>::baz" },
	};
	size_t i;
	char *d;

	for (i = 0; i < sizeof(cxx) / sizeof(cxx[0]); i++) {
		char out[4096];
		char *argv[] = { "c++filt", "-p", (char *)cxx[i], NULL };

		d = symbols__demangle(cxx[i]);
		if (run(argv, out, sizeof(out))) {
			ok(0, "c++filt runs");
			free(d);
			continue;
		}
		out[strcspn(out, "\n")] = '\0';
		/* NULL: not mangled, the name stays as it is. */
		ok(!strcmp(d ? d : cxx[i], out), "%s -> %s (c++filt -p: %s)", cxx[i],
		   d ? d : "(unchanged)", out);
		free(d);
	}
	for (i = 0; i < sizeof(rust) / sizeof(rust[0]); i++) {
		d = symbols__demangle(rust[i][0]);
		is_str(d, rust[i][1], rust[i][0]);
		free(d);
	}
	ok(!symbols__demangle("main") && !symbols__demangle("_start") &&
	   !symbols__demangle("__libc_start_main") && !symbols__demangle("_Zgarbage") &&
	   !symbols__demangle("") && !symbols__demangle(NULL),
	   "plain C names and garbage are not demangled");
}

/* A C++ program's own symbols: demangled name, raw name kept beside it. */
static const char cxx_prog_src[] =
	"#include <cstdio>\n"
	"#include <unistd.h>\n"
	"namespace ns {\n"
	"__attribute__((noinline)) int alpha(int x) { asm volatile(\"\" : \"+r\"(x)); return x * 3 + 1; }\n"
	"template <typename T> struct Tpl { __attribute__((noinline)) static T beta(T x) {\n"
	"  asm volatile(\"\" : \"+r\"(x)); return alpha((int)x) ^ 7; } };\n"
	"}\n"
	"int main() {\n"
	"  char c = 0;\n"
	"  printf(\"%lx %lx\\n\", (unsigned long)&ns::alpha, (unsigned long)&ns::Tpl<long>::beta);\n"
	"  fflush(stdout);\n"
	"  if (read(0, &c, 1) < 0) return 1;\n"
	"  return ns::Tpl<long>::beta(c) & 1;\n"
	"}\n";

static void test_cxx_program(void)
{
	static struct mapline ml[64];
	static const char *const want[2] = { "ns::alpha", "ns::Tpl<long>::beta" };
	static const char *const raw[2] = { "_ZN2ns5alphaEi", "_ZN2ns3TplIlE4betaEl" };
	char dir[] = "/tmp/mmprof-symcxx.XXXXXX", src[PATH_MAX], bin[PATH_MAX];
	struct symbols *s = symbols__new();
	struct symbol_info si;
	uint64_t addr[2];
	size_t nml = 0, i;
	FILE *fp;
	int j;

	ok(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(src, sizeof(src), "%s/prog.cc", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	fp = fopen(src, "w");
	fputs(cxx_prog_src, fp);
	fclose(fp);
	is_int(run((char *[]){ "g++", "-O2", "-o", bin, src, NULL }, NULL, 0), 0, "g++ builds");
	if (ok(!sample_prog(bin, addr, ml, &nml) && nml, "C++ program ran and mapped")) {
		for (i = 0; i < nml; i++)
			symbols__mmap(s, 4242, ml[i].start, ml[i].len, ml[i].pgoff, ml[i].name);
		for (j = 0; j < 2; j++) {
			symbols__resolve(s, 4242, addr[j] + 1, false, &si);
			is_str(si.sym, want[j], "demangled C++ name");
			is_str(si.raw_sym, raw[j], "raw name kept");
			ok(nm_value(bin, raw[j], false) + 1 == si.dso_addr, "raw name is nm's");
		}
		symbols__resolve(s, 4242, (uint64_t)ml[0].start, false, &si);
		ok(!si.sym || !si.raw_sym || strcmp(si.sym, si.raw_sym),
		   "raw_sym only when it differs");
	}
	symbols__free(s);
	unlink(bin);
	unlink(src);
	rmdir(dir);
}

/*
 * The map bookkeeping against a naive model: every mmap kept in time
 * order, the newest one covering an address wins.
 */
static void test_maps_model(void)
{
	enum { OPS = 3000, SPACE = 1 << 16 };
	static struct { uint64_t start, end; int name; } hist[OPS];
	struct symbols *s = symbols__new();
	unsigned int seed = 12345;
	int i, bad = 0, checks = 0;

	for (i = 0; i < OPS; i++) {
		char name[32];
		uint64_t start = (uint64_t)(rand_r(&seed) % SPACE) & ~15ULL;
		uint64_t len = 16 + ((uint64_t)(rand_r(&seed) % (i % 7 ? 512 : 8192)) & ~15ULL);
		int k, q;

		hist[i].start = start;
		hist[i].end = start + len;
		hist[i].name = i % 50;
		snprintf(name, sizeof(name), "/nonexistent/m%d", i % 50);
		symbols__mmap(s, 77, start, len, 0, name);
		for (q = 0; q < 8; q++) {
			uint64_t a = (uint64_t)(rand_r(&seed) % (SPACE + 8192));
			struct symbol_info si;
			int want = -1;

			for (k = i; k >= 0; k--)
				if (hist[k].start <= a && a < hist[k].end) {
					want = hist[k].name;
					break;
				}
			symbols__resolve(s, 77, a, false, &si);
			snprintf(name, sizeof(name), "/nonexistent/m%d", want);
			checks++;
			if (want < 0 ? si.dso != NULL : !si.dso || strcmp(si.dso, name))
				bad++;
		}
	}
	ok(!bad, "maps agree with the naive model on %d lookups (%d differ)", checks, bad);
	symbols__free(s);
}

/*
 * Dynamic kernel text (KSYMBOL records): a program kallsyms lists at one
 * address is named over its whole length, stays named after it is
 * unregistered, and text registered later over its addresses replaces
 * it; outside every range kallsyms answers as before.  Then the ranges
 * against a naive model: the newest registration covering an address.
 */
static void test_ktext(void)
{
	enum { OPS = 2000, SPACE = 1 << 20 };
	static struct { uint64_t start, end; int name; } hist[OPS];
	struct symbols *s = symbols__new();
	struct errmsg e = { "" };
	char *path = write_tmp(synthetic_kallsyms);
	const uint64_t base = 0xffffffffa0000000ULL;
	uint64_t reg, unreg, listed;
	unsigned int seed = 777;
	int i, bad = 0, checks = 0;

	is_int(symbols__load_kallsyms(s, path, &e), 0, "synthetic kallsyms loads");
	symbols__ksymbol(s, 0xffffffffc0001000, 0x14000, false, "bpf_prog_0123456789abcdef_big");
	check_k(s, 0xffffffffc0001010, "bpf_prog_0123456789abcdef_big", 0x10,
		"bpf_prog_0123456789abcdef_big");
	check_k(s, 0xffffffffc0014fff, "bpf_prog_0123456789abcdef_big", 0x13fff,
		"bpf_prog_0123456789abcdef_big");
	check_k(s, 0xffffffffc0015000, NULL, 0, "[kernel.kallsyms]");
	check_k(s, 0xffffffff81000150, "helper_alias", 0x50, "[kernel.kallsyms]");
	symbols__ksymbol(s, 0xffffffffc0001000, 0x14000, true, "bpf_prog_0123456789abcdef_big");
	check_k(s, 0xffffffffc0002000, "bpf_prog_0123456789abcdef_big", 0x1000,
		"bpf_prog_0123456789abcdef_big");
	symbols__ksymbol(s, 0xffffffffc0004000, 0x800, false, "bpf_trampoline_6442");
	check_k(s, 0xffffffffc0004100, "bpf_trampoline_6442", 0x100, "bpf_trampoline_6442");
	check_k(s, 0xffffffffc0004800, "bpf_prog_0123456789abcdef_big", 0x3800,
		"bpf_prog_0123456789abcdef_big");
	symbols__ksymbol(s, 0xffffffffc0020000, 0, false, "empty");
	symbols__ksymbol(s, UINT64_MAX - 8, 64, false, "wraps");
	check_k(s, 0xffffffffc0020000, NULL, 0, "[kernel.kallsyms]");
	symbols__ktext_counts(s, &reg, &unreg, &listed);
	ok(reg == 2 && unreg == 1 && listed == 0,
	   "counts: 2 registered (empty and wrapping ranges refused), 1 unregistered, 0 listed "
	   "(%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")", reg, unreg, listed);
	unlink(path);
	free(path);
	symbols__free(s);

	s = symbols__new();
	for (i = 0; i < OPS; i++) {
		char name[32];
		uint64_t start = base + ((uint64_t)(rand_r(&seed) % SPACE) & ~15ULL);
		uint64_t len = 16 + ((uint64_t)(rand_r(&seed) % (i % 5 ? 2048 : 65536)) & ~15ULL);
		int k, q;

		hist[i].start = start;
		hist[i].end = start + len;
		hist[i].name = i % 40;
		snprintf(name, sizeof(name), "bpf_prog_%d", i % 40);
		symbols__ksymbol(s, start, len, false, name);
		if (i % 3 == 0)
			symbols__ksymbol(s, start, len, true, name);
		for (q = 0; q < 8; q++) {
			uint64_t a = base + (uint64_t)(rand_r(&seed) % (SPACE + 65536));
			struct symbol_info si;
			int want = -1;

			for (k = i; k >= 0; k--)
				if (hist[k].start <= a && a < hist[k].end) {
					want = hist[k].name;
					break;
				}
			symbols__resolve(s, 0, a, true, &si);
			snprintf(name, sizeof(name), "bpf_prog_%d", want);
			checks++;
			if (want < 0 ? si.sym != NULL
				     : !si.sym || strcmp(si.sym, name) || si.sym_off != a - hist[k].start)
				bad++;
		}
	}
	ok(!bad, "kernel text ranges agree with the naive model on %d lookups (%d differ)", checks,
	   bad);
	symbols__free(s);
}

/*
 * Kernel modules, from text laid out as a module kernel writes it (this
 * machine has CONFIG_MODULES off, so nothing here comes from a live
 * one): kallsyms lines with "\t[module]" (Debian 6.x, with the __pfx_
 * padding symbols of CALL_PADDING, data symbols, exported 'T' ones, and
 * pseudo-modules [bpf] and [__builtin__ftrace]), and /proc/modules lines
 * as kernel/module/procfs.c prints them ("NAME SIZE REFS DEPS STATE
 * 0xADDR [TAINT]").
 */
static const char module_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81e01000 T last_core_fn\n"
	"ffffffffc04dc000 t __pfx_crc16\t[crc16]\n"
	"ffffffffc04dc010 T crc16\t[crc16]\n"
	"ffffffffc04dc0a0 r crc16_table\t[crc16]\n"
	"ffffffffc0536000 t __pfx_ext4_es_is_delayed\t[ext4]\n"
	"ffffffffc0536010 t ext4_es_is_delayed\t[ext4]\n"
	"ffffffffc0536040 t __pfx_ext4_readdir\t[ext4]\n"
	"ffffffffc0536050 t ext4_readdir\t[ext4]\n"
	"ffffffffc05a2000 T ext4_last_fn\t[ext4]\n"
	"ffffffffc0610000 d ext4_fs_type\t[ext4]\n"
	"ffffffffc0640000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]\n"
	"ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n";

static const char proc_modules[] =
	"ext4 1032192 1 - Live 0xffffffffc0536000\n"
	"crc16 12288 1 ext4, Live 0xffffffffc04dc000 (E)\n"
	"hidden 4096 0 - Live 0x0000000000000000\n"
	"garbage line\n"
	"mbcache 16384 1 ext4, Loading 0xffffffffc04e1000\n";

static void test_modules(void)
{
	struct symbols *s = symbols__new();
	struct errmsg e = { "" };
	char *ks = write_tmp(module_kallsyms), *mods = write_tmp(proc_modules);
	char *hostile = write_tmp("a 65536 0 - Live 0xffffffffc1000000\n"
				  "b 4096 0 - Live 0xffffffffc1001000\n"
				  "c 18446744073709551615 0 - Live 0xffffffffc2000000\n");

	is_int(symbols__load_kallsyms(s, ks, &e), 0, "module kallsyms loads");
	/* before /proc/modules: kallsyms alone */
	check_k(s, 0xffffffffc0536055, "ext4_readdir", 0x5, "[ext4]");
	check_k(s, 0xffffffffc0536005, "__pfx_ext4_es_is_delayed", 0x5, "[ext4]");
	check_k(s, 0xffffffffc05a2fff, "ext4_last_fn", 0xfff, "[ext4]");
	check_k(s, 0xffffffffc05a3000, NULL, 0, "[kernel.kallsyms]");
	is_int(symbols__load_modules(s, "/nonexistent/modules", &e), -ENOENT,
	       "no /proc/modules (CONFIG_MODULES off): -ENOENT");
	check_k(s, 0xffffffffc05a3000, NULL, 0, "[kernel.kallsyms]");

	is_int(symbols__load_modules(s, mods, &e), 0, "/proc/modules text loads");
	/* names are kallsyms', whatever the ranges say */
	check_k(s, 0xffffffffc0536055, "ext4_readdir", 0x5, "[ext4]");
	check_k(s, 0xffffffffc04dc020, "crc16", 0x10, "[crc16]");
	/* past a module's last function but inside the module: its DSO, no name */
	check_k(s, 0xffffffffc05a3000, NULL, 0, "[ext4]");
	check_k(s, 0xffffffffc0631fff, NULL, 0, "[ext4]");
	check_k(s, 0xffffffffc0632000, NULL, 0, "[kernel.kallsyms]");
	/* a module listed without kallsyms symbols, still loading */
	check_k(s, 0xffffffffc04e1100, NULL, 0, "[mbcache]");
	check_k(s, 0xffffffffc04e5000, NULL, 0, "[kernel.kallsyms]");
	/* pseudo-modules are not in /proc/modules: kallsyms' rule */
	check_k(s, 0xffffffffc0640100, "bpf_prog_6deef7357e7b4530_sd_fw_egress", 0x100, "[bpf]");
	check_k(s, 0xffffffffc0201010, "ftrace_trampoline", 0x10, "[__builtin__ftrace]");
	check_k(s, 0xffffffff81e01010, "last_core_fn", 0x10, "[kernel.kallsyms]");

	/* overlapping and wrapping lines: bounded, never a crash */
	is_int(symbols__load_modules(s, hostile, &e), 0, "hostile /proc/modules text loads");
	check_k(s, 0xffffffffc1000800, NULL, 0, "[a]");
	check_k(s, 0xffffffffc1001800, NULL, 0, "[b]");
	check_k(s, 0xffffffffc2000000, NULL, 0, "[kernel.kallsyms]");
	check_k(s, 0xffffffffc05a3000, NULL, 0, "[kernel.kallsyms]");
	unlink(ks);
	unlink(mods);
	unlink(hostile);
	free(ks);
	free(mods);
	free(hostile);
	symbols__free(s);
}

int main(void)
{
	test_kernel_real();
	test_kernel_synthetic();
	test_self();
	test_programs_and_maps();
	test_maps_model();
	test_ktext();
	test_modules();
	test_demangle();
	test_cxx_program();
	test_perfmap();
	test_debuglink();
	test_mount_ns();
	test_inline();
	test_hints();
	return done_testing();
}
