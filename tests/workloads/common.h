/*
 * common.h: what every bundled workload shares — option parsing, the run
 * clock, the per-process THP switch, /proc/vmstat deltas and the metric
 * lines.
 *
 * Contract of a workload (Documentation/workloads.md):
 *   - stdout carries only "<workload>.<metric>: <value>" lines, printed at
 *     exit; `mmprof record` turns each into a key.  Diagnostics go to stderr.
 *   - --seconds S bounds the run by time (default 3 s unless --iterations
 *     is given), --iterations N by work (per thread where there are
 *     threads); with both, whichever comes first.  No randomness.
 *   - --thp on|off|system changes THP for this process only (prctl +
 *     madvise), never the system setting, so "base" and "new" runs can be
 *     produced on one machine.
 *   - usage or setup errors: one line on stderr, exit status 2.
 *
 * Header-only on purpose: each workload is one .c file built on its own
 * (the Makefile compiles tests/workloads/<name>.c into one binary), so the
 * helpers are static inline and an unused one costs nothing.
 */
#ifndef MMPROF_WORKLOAD_COMMON_H
#define MMPROF_WORKLOAD_COMMON_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif

#define WL_PAGE 4096UL

/*
 * For the functions tests expect by name in a profile: not inlined, and
 * not cloned either — GCC's IPA-SRA/constprop clones are called
 * "f.isra.0", "f.constprop.0", which would not match "f".
 */
#define WL_NAMED __attribute__((noinline, noclone))

enum wl_thp { WL_THP_SYSTEM, WL_THP_ON, WL_THP_OFF };

/* One command-line option; `dst` points into the workload's own options. */
enum wl_kind { WL_DOUBLE, WL_U64, WL_SIZE, WL_THP, WL_FLAG };
struct wl_opt {
	const char *name;	/* long name without "--" */
	char short_name;	/* 0 when none */
	enum wl_kind kind;
	void *dst;
	const char *arg;	/* placeholder shown in --help, NULL for flags */
	const char *help;
};

/* What the parser and the run loop share; workload-specific knobs live in the workload. */
struct wl_run {
	const char *name;	/* program and metric prefix, e.g. "thp-zap" */
	double seconds;		/* 0: no time bound */
	uint64_t iterations;	/* 0: no work bound */
	enum wl_thp thp;
	double start;
};

/*
 * Raw system calls, inlined into the caller.  glibc's wrappers (madvise,
 * munmap, ...) are leaf functions without a frame, so a frame-pointer
 * unwinder starting in the kernel skips the function that called them:
 * the distinctive noinline functions of a workload would vanish from
 * every profile.  Issuing the syscall from the function itself keeps it
 * in the callchain.  Return: the result, or -errno.
 */
#if defined(__x86_64__)
static inline __attribute__((always_inline)) long wl_syscall6(long n, long a, long b, long c,
							      long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
static inline long wl_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret = syscall(n, a, b, c, d, e, f);

	return ret == -1 ? -errno : ret;
}
#endif

static inline __attribute__((always_inline)) int wl_madvise(void *p, size_t len, int advice)
{
	return (int)wl_syscall6(SYS_madvise, (long)p, (long)len, advice, 0, 0, 0);
}

static inline __attribute__((always_inline)) int wl_munmap(void *p, size_t len)
{
	return (int)wl_syscall6(SYS_munmap, (long)p, (long)len, 0, 0, 0, 0);
}

/* MAP_FAILED on error, with errno set, like mmap(2). */
static inline __attribute__((always_inline)) void *wl_mmap_anon(size_t len)
{
	long ret = wl_syscall6(SYS_mmap, 0, (long)len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return MAP_FAILED;
	}
	return (void *)ret;
}

static inline void wl_die(const struct wl_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static inline void wl_die(const struct wl_run *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", r->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static inline void wl_warn(const struct wl_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void wl_warn(const struct wl_run *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", r->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static inline const char *wl_thp_name(enum wl_thp t)
{
	return t == WL_THP_ON ? "on" : t == WL_THP_OFF ? "off" : "system";
}

/* "64M", "4k", "2097152": bytes, suffixes K/M/G (powers of 1024). */
static inline bool wl_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

static inline void wl_usage(const struct wl_run *r, const char *what,
			    const struct wl_opt *opts, FILE *f)
{
	fprintf(f, "usage: %s [options]\n\n%s\n\noptions:\n", r->name, what);
	for (const struct wl_opt *o = opts; o->name; o++) {
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
	fprintf(f, "  %-26s %s\n", "-h, --help", "show this help and exit");
	fprintf(f, "\nstdout: only '%s.<metric>: <value>' lines; exit 2 on error\n", r->name);
}

static inline void wl_set(struct wl_run *r, const struct wl_opt *o, const char *val)
{
	char *end;

	switch (o->kind) {
	case WL_DOUBLE: {
		double d;

		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end || !(d > 0) || d > 1e6)
			wl_die(r, "invalid value '%s' for --%s: expected a positive number",
			       val, o->name);
		*(double *)o->dst = d;
		break;
	}
	case WL_U64: {
		unsigned long long v;

		errno = 0;
		v = strtoull(val, &end, 10);
		if (errno || end == val || *end || *val == '-' || v == 0)
			wl_die(r, "invalid value '%s' for --%s: expected a positive integer",
			       val, o->name);
		*(uint64_t *)o->dst = v;
		break;
	}
	case WL_SIZE:
		if (!wl_parse_size(val, (uint64_t *)o->dst) || *(uint64_t *)o->dst == 0)
			wl_die(r, "invalid value '%s' for --%s: expected a size like 4K, 2M or 1G",
			       val, o->name);
		break;
	case WL_THP:
		if (!strcmp(val, "on"))
			*(enum wl_thp *)o->dst = WL_THP_ON;
		else if (!strcmp(val, "off"))
			*(enum wl_thp *)o->dst = WL_THP_OFF;
		else if (!strcmp(val, "system"))
			*(enum wl_thp *)o->dst = WL_THP_SYSTEM;
		else
			wl_die(r, "invalid value '%s' for --thp: expected on, off or system", val);
		break;
	case WL_FLAG:
		*(bool *)o->dst = true;
		break;
	}
}

/*
 * Parses argv against the workload's own options followed by the common
 * ones (--seconds, --iterations, --thp).  Accepts "--opt value",
 * "--opt=value" and "-x value".  --help prints to stdout and exits 0.
 */
static inline void wl_parse(struct wl_run *r, const char *what, const struct wl_opt *own,
			    int argc, char **argv)
{
	struct wl_opt all[32];
	size_t n = 0;
	bool seconds_given = false;
	double seconds = 3.0;

	for (const struct wl_opt *o = own; o && o->name && n < 28; o++)
		all[n++] = *o;
	all[n++] = (struct wl_opt){ "seconds", 's', WL_DOUBLE, &seconds, "S",
		"run for S seconds (default 3; none when only --iterations is given)" };
	all[n++] = (struct wl_opt){ "iterations", 'n', WL_U64, &r->iterations, "N",
		"stop after N iterations (per thread), for a fixed amount of work" };
	all[n++] = (struct wl_opt){ "thp", 0, WL_THP, &r->thp, "on|off|system",
		"transparent huge pages for this process only (default system)" };
	all[n] = (struct wl_opt){ 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct wl_opt *o = NULL;
		size_t len;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			wl_usage(r, what, all, stdout);
			exit(0);
		}
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const char *eq = strchr(a + 2, '=');

			len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			for (const struct wl_opt *p = all; p->name; p++)
				if (strlen(p->name) == len && !strncmp(p->name, a + 2, len))
					o = p;
			if (o && eq)
				val = eq + 1;
		} else if (a[0] == '-' && a[1] && !a[2]) {
			for (const struct wl_opt *p = all; p->name; p++)
				if (p->short_name == a[1])
					o = p;
		} else {
			wl_die(r, "unexpected argument '%s'; see --help", a);
		}
		if (!o)
			wl_die(r, "unknown option '%s'; see --help", a);
		if (o->kind == WL_FLAG) {
			if (val)
				wl_die(r, "option --%s takes no value", o->name);
			wl_set(r, o, "");
			continue;
		}
		if (!val) {
			if (i + 1 >= argc)
				wl_die(r, "option '%s' needs a value (%s)", a, o->arg);
			val = argv[++i];
		}
		if (o->dst == &seconds)
			seconds_given = true;
		wl_set(r, o, val);
	}
	r->seconds = (seconds_given || !r->iterations) ? seconds : 0;
}

static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* True when the run is over after `done` iterations (of this thread). */
static inline bool wl_done(const struct wl_run *r, uint64_t done)
{
	if (r->iterations && done >= r->iterations)
		return true;
	return r->seconds > 0 && wl_now() - r->start >= r->seconds;
}

static inline const char *wl_thp_system(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128];
	const char *b, *e;

	snprintf(buf, len, "unknown");
	if (!f)
		return buf;
	if (fgets(line, sizeof(line), f) && (b = strchr(line, '[')) && (e = strchr(b, ']')))
		snprintf(buf, len, "%.*s", (int)(e - b - 1), b + 1);
	fclose(f);
	return buf;
}

static inline uint64_t wl_hpage_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 2UL << 20;
}

/*
 * The per-process half of --thp: prctl(PR_SET_THP_DISABLE) is inherited
 * from the parent (a profiler could have set it), so "on" clears it and
 * "off" sets it.  The per-region half is wl_thp_advise().
 */
static inline void wl_thp_setup(const struct wl_run *r)
{
	char sys[32];

	if (r->thp == WL_THP_SYSTEM)
		return;
	if (prctl(PR_SET_THP_DISABLE, r->thp == WL_THP_OFF ? 1 : 0, 0, 0, 0))
		wl_die(r, "cannot set PR_SET_THP_DISABLE: %s", strerror(errno));
	wl_thp_system(sys, sizeof(sys));
	if (r->thp == WL_THP_ON && !strcmp(sys, "never"))
		wl_warn(r, "--thp on has no effect: /sys/kernel/mm/transparent_hugepage/enabled"
			" is 'never'; set it to 'madvise' or 'always' to get huge pages");
}

static inline void wl_thp_advise(const struct wl_run *r, void *addr, size_t len)
{
	int advice;

	if (r->thp == WL_THP_SYSTEM)
		return;
	advice = r->thp == WL_THP_ON ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
	if (madvise(addr, len, advice))
		wl_die(r, "cannot madvise(%s) %zu bytes: %s",
		       advice == MADV_HUGEPAGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", len,
		       strerror(errno));
}

/* Anonymous private mapping of `len` bytes starting on an `align` boundary. */
static inline void *wl_map_aligned(const struct wl_run *r, size_t len, size_t align)
{
	size_t total = len + align;
	char *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t start;
	size_t head, tail;

	if (p == MAP_FAILED)
		wl_die(r, "cannot mmap %zu bytes: %s", total, strerror(errno));
	start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	head = start - (uintptr_t)p;
	tail = total - head - len;
	if (head)
		munmap(p, head);
	if (tail)
		munmap((char *)start + len, tail);
	return (void *)start;
}

/* One field of /proc/vmstat; UINT64_MAX when absent (old kernel, no THP). */
static inline uint64_t wl_vmstat(const char *field)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[64];
	unsigned long long v;
	uint64_t out = UINT64_MAX;

	if (!f)
		return out;
	while (fscanf(f, "%63s %llu", name, &v) == 2)
		if (!strcmp(name, field)) {
			out = v;
			break;
		}
	fclose(f);
	return out;
}

/* A field of /proc/self/smaps_rollup in kB (e.g. "AnonHugePages"), 0 if absent. */
static inline uint64_t wl_smaps_kb(const char *field)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	size_t len = strlen(field);
	unsigned long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			if (sscanf(line + len + 1, "%llu", &v) != 1)
				v = 0;
			break;
		}
	fclose(f);
	return v;
}

/* The only things a workload prints on stdout. */
static inline void wl_metric_u64(const struct wl_run *r, const char *metric, uint64_t v)
{
	printf("%s.%s: %" PRIu64 "\n", r->name, metric, v);
}

static inline void wl_metric_dbl(const struct wl_run *r, const char *metric, double v)
{
	printf("%s.%s: %.2f\n", r->name, metric, v);
}

/* A write error on stdout (full disk, closed pipe) must not look like success. */
static inline int wl_finish(const struct wl_run *r)
{
	if (fflush(stdout) || ferror(stdout))
		wl_die(r, "cannot write the metrics to stdout: %s", strerror(errno));
	return 0;
}

#endif /* MMPROF_WORKLOAD_COMMON_H */
