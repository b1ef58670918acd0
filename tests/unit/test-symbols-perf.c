/*
 * test-symbols-perf: our names against perf's on the same samples.
 *
 * perf records a workload (this binary re-executed to spin in its own
 * noinline functions, a C++ program built here with templates, overloads
 * and a lambda (demangled names), then sort and dd: a stripped coreutils
 * binary, libc with or without debuginfo, PLT stubs, the kernel's
 * read/write paths);
 * `perf script` prints every sample's IP with perf's symbol and the
 * COMM/FORK/MMAP2 records.  We replay those records into a symbols context
 * and resolve every sample IP: the name and offset must be perf's.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "tap.h"

__attribute__((noinline)) unsigned long spin_inner(unsigned long x);
__attribute__((noinline)) unsigned long spin_inner(unsigned long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2862933555777941757ULL + 3037000493ULL;
}

__attribute__((noinline)) unsigned long spin_outer(unsigned long n);
__attribute__((noinline)) unsigned long spin_outer(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = spin_inner(x);
	return x;
}

static int spin(void)
{
	struct timespec t0, t;
	unsigned long acc = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		acc += spin_outer(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 400000000L);
	return (int)(acc & 1);
}

/*
 * perf 6.1 calls a libc PLT slot for its own IFUNC (IRELATIVE) "@plt"; we
 * name the IFUNC ("memmove@plt").  Same stub, same offset: agreement.
 */
static bool plt_alias(const char *perf, const char *mine)
{
	const char *p = strstr(mine, "@plt+");

	return !strncmp(perf, "@plt+", 5) && p && !strcmp(p, perf);
}

/* Names perf demangles: a template's methods, overloads, a lambda. */
static const char cxx_src[] =
	"#include <cstdio>\n"
	"#include <string>\n"
	"namespace ns {\n"
	"template <typename T> struct Box {\n"
	"  __attribute__((noinline)) T spin(T x, long n) {\n"
	"    for (long i = 0; i < n; i++) { asm volatile(\"\" : \"+r\"(x)); x = x * 3 + 1; }\n"
	"    return x; }\n"
	"};\n"
	"__attribute__((noinline)) long work(long x, const std::string &s)\n"
	"{ Box<long> b; return b.spin(x + (long)s.size(), 60000000); }\n"
	"__attribute__((noinline)) long work(int x) { Box<unsigned> b; return b.spin((unsigned)x, 60000000); }\n"
	"}\n"
	"int main() {\n"
	"  std::string s(\"abc\");\n"
	"  auto f = [&](int k) __attribute__((noinline)) { return ns::work(k) + ns::work(k, s); };\n"
	"  printf(\"%ld\\n\", f(3));\n"
	"}\n";

static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/mmprof-symperf.XXXXXX", data[PATH_MAX], script[PATH_MAX];
	char rnd[PATH_MAX], cmd[4 * PATH_MAX + 256], exe[PATH_MAX], line[8192];
	char cxx[PATH_MAX], cxxsrc[PATH_MAX];
	long same = 0, diff = 0, named = 0, spun = 0, demangled = 0;
	struct symbols *s;
	struct errmsg e;
	ssize_t n;
	FILE *fp;

	if (argc > 1 && !strcmp(argv[1], "spin"))
		return spin();
	/* perf is a test dependency (make check installs it), not a skip */
	if (run((char *[]){ "sh", "-c", "command -v perf > /dev/null", NULL })) {
		ok(0, "perf is installed (apt-get install linux-perf)");
		return done_testing();
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	ok(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(script, sizeof(script), "%s/script.txt", dir);
	snprintf(rnd, sizeof(rnd), "%s/rnd", dir);
	snprintf(cxxsrc, sizeof(cxxsrc), "%s/cxx.cc", dir);
	snprintf(cxx, sizeof(cxx), "%s/cxx", dir);
	fp = fopen(cxxsrc, "w");
	if (fp) {
		fputs(cxx_src, fp);
		fclose(fp);
	}
	is_int(run((char *[]){ "g++", "-O2", "-g", "-fno-omit-frame-pointer", "-o", cxx, cxxsrc,
			       NULL }), 0, "g++ builds the C++ program");
	snprintf(cmd, sizeof(cmd),
		 "%s spin; %s > /dev/null; "
		 "head -c 4000000 /dev/urandom | od -An -tx8 > %s; sort %s > /dev/null; "
		 "dd if=/dev/zero of=/dev/null bs=4k count=100000 2>/dev/null", exe, cxx, rnd, rnd);
	is_int(run((char *[]){ "perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o",
			       data, "--", "sh", "-c", cmd, NULL }), 0, "perf record");

	/* perf script writes the samples and the records they depend on, in order. */
	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s -G --show-mmap-events --show-task-events "
		 "-F pid,tid,ip,sym,symoff,dso > %s 2>/dev/null", data, script);
	is_int(run((char *[]){ "sh", "-c", cmd, NULL }), 0, "perf script");

	s = symbols__new();
	is_int(symbols__load_kernel(s, &e), 0, "kallsyms");
	fp = fopen(script, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		int pid, tid, cpid, ppid, at = 0;
		unsigned long long a, l, off;
		char sym[4096], mine[4096], *p;
		struct symbol_info si;

		line[strcspn(line, "\n")] = '\0';
		if ((p = strstr(line, "PERF_RECORD_COMM exec: "))) {
			char *c = p + 23, *colon = strrchr(c, ':');

			if (colon && sscanf(colon + 1, "%d/%d", &pid, &tid) == 2) {
				*colon = '\0';
				symbols__comm(s, pid, tid, c, true);
			}
		} else if ((p = strstr(line, "PERF_RECORD_FORK("))) {
			if (sscanf(p, "PERF_RECORD_FORK(%d:%*d):(%d:%*d)", &cpid, &ppid) == 2)
				symbols__fork(s, cpid, ppid);
		} else if ((p = strstr(line, "PERF_RECORD_MMAP2 "))) {
			char *name = strstr(p, "]: ");

			if (!name || !(name = strchr(name + 3, ' ')))
				continue;
			/* perf prints a zero offset as "@ 0", others as "@ 0x..". */
			if (sscanf(p, "PERF_RECORD_MMAP2 %d/%d: [0x%llx(0x%llx) @ %llx", &pid, &tid,
				   &a, &l, &off) == 5)
				symbols__mmap(s, pid, a, l, off, name + 1);
		} else if (!strstr(line, "PERF_RECORD") &&
			   sscanf(line, "%d/%d %llx %n", &pid, &tid, &a, &at) == 3 && at) {
			/* "SYM+OFF (DSO)": C++ names hold spaces, the DSO comes last. */
			char *dso = strrchr(line + at, '(');

			if (dso && dso > line + at && dso[-1] == ' ')
				dso[-1] = '\0';
			snprintf(sym, sizeof(sym), "%s", line + at);
			symbols__resolve(s, pid, a, a >= 0xffff800000000000ULL, &si);
			if (si.sym)
				snprintf(mine, sizeof(mine), "%s+0x%" PRIx64, si.sym, si.sym_off);
			else
				snprintf(mine, sizeof(mine), "[unknown]");
			if (strcmp(sym, "[unknown]"))
				named++;
			if (!strncmp(sym, "spin_", 5))
				spun++;
			if (strstr(sym, "::"))
				demangled++;
			if (!strcmp(mine, sym) || plt_alias(sym, mine)) {
				same++;
			} else if (++diff <= 10) {
				printf("#   %llx: perf %s, mmprof %s (%s)\n", a, sym, mine,
				       si.dso ? si.dso : "no dso");
			}
		}
	}
	if (fp)
		fclose(fp);
	ok(spun > 100, "perf saw the spin functions (%ld samples)", spun);
	ok(named > 1000, "perf named %ld samples", named);
	ok(demangled > 100, "perf demangled C++ names in %ld samples", demangled);
	/* Allow a few for kallsyms changing under us (BPF programs loading). */
	ok(diff * 1000 <= same + diff,
	   "same symbol and offset as perf: %ld of %ld samples", same, same + diff);
	symbols__free(s);
	unlink(data);
	unlink(script);
	unlink(rnd);
	unlink(cxx);
	unlink(cxxsrc);
	rmdir(dir);
	return done_testing();
}
