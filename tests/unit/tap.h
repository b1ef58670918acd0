/*
 * tap.h: a minimal TAP producer for unit tests run under prove.
 *
 * ok(cond, fmt, ...) prints "ok N - ..." or "not ok N - ..." with the
 * location; is_int/is_str/is_dbl say what was expected.  done_testing()
 * prints the plan and returns the exit status (non-zero on any failure).
 *
 * skip_tests(n, fmt, ...) stands for n assertions that cannot run on this
 * machine: "ok N # SKIP reason" each, which prove counts as skipped, not
 * passed.  Only for what a machine may truly lack and the test cannot
 * provide (a hardware PMU, a filesystem feature, root): never for a tool
 * make check installs or a step of the test that failed (those are
 * failures), so that the machines CI runs on skip nothing.  Never ok(1, ...)
 * in place of a skip.
 */
#ifndef MMPROF_TAP_H
#define MMPROF_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline void skip_tests(int n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void skip_tests(int n, const char *fmt, ...)
{
	va_list ap;

	while (n-- > 0) {
		printf("ok %d # SKIP ", ++tap_n);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

#define is_int(got, want, name) do {						\
	long long g_ = (long long)(got), w_ = (long long)(want);		\
	if (!ok(g_ == w_, "%s", name))						\
		printf("#   got %lld, want %lld\n", g_, w_);			\
} while (0)

#define is_str(got, want, name) do {						\
	const char *g_ = (got), *w_ = (want);					\
	if (!ok(g_ && w_ ? !strcmp(g_, w_) : g_ == w_, "%s", name))		\
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define is_dbl(got, want, tol, name) do {					\
	double g_ = (got), w_ = (want);						\
	if (!ok(fabs(g_ - w_) <= (tol), "%s", name))				\
		printf("#   got %.6g, want %.6g (tolerance %g)\n", g_, w_, (double)(tol)); \
} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
