/*
 * pthread-churn: create and join threads with 8 MiB stacks, the
 * stress-ng.pthread case of the -84.3% report.
 *
 * Each round creates --batch threads, each runs a short body, returns and
 * is joined.  The kernel side is clone (copy_process), the stack's mmap
 * and first faults, the exit path (do_exit, futex wake of the joiner) and
 * the stack's release.
 *
 * Stacks: with --thp system (default) glibc allocates them exactly as for
 * any program (8 MiB, its stack cache, MADV_DONTNEED of the unused part
 * at exit).  A process cannot make glibc's own stacks THP-eligible on a
 * "madvise" system, so --thp on|off use stacks this program manages the
 * way glibc does — mmap 8 MiB, guard page at the bottom, the thread
 * zaps its unused stack with MADV_DONTNEED before exiting (glibc's
 * advise_stack_range), munmap after join — with MADV_HUGEPAGE or
 * MADV_NOHUGEPAGE on them.  The stacks are aligned on 2 MiB as commit
 * 1111d46b5c made them: with --thp on the top of each stack is one huge
 * page and the exit-time zap splits it (zap_pmd_range -> __split_huge_pmd),
 * the regression's hot spot.  One op is one thread created and joined.
 */
#include <pthread.h>

#include "common.h"

#define STACK_SIZE (8UL << 20)

struct churn_thread {
	pthread_t tid;
	char *stack;		/* NULL: glibc's own */
	uint64_t work;
};

/* Some stack use, as a real thread body would have; the result keeps it from being optimised out. */
WL_NAMED static uint64_t pthread_churn_body(uint64_t seed)
{
	volatile char buf[8192];
	uint64_t h = seed;

	for (size_t i = 0; i < sizeof(buf); i += 64)
		buf[i] = (char)i;
	for (size_t i = 0; i < sizeof(buf); i += 64)
		h = h * 31 + (unsigned char)buf[i];
	return h;
}

/* glibc's advise_stack_range: give back the stack below the live frames. */
WL_NAMED static void pthread_churn_release_stack(char *stack)
{
	char *sp = __builtin_frame_address(0);
	uintptr_t free_end = ((uintptr_t)sp - 4 * WL_PAGE) & ~(WL_PAGE - 1);
	char *lo = stack + WL_PAGE;	/* above the guard page */

	if ((uintptr_t)lo < free_end)
		wl_madvise(lo, free_end - (uintptr_t)lo, MADV_DONTNEED);
}

static void *pthread_churn_thread(void *arg)
{
	struct churn_thread *t = arg;

	t->work = pthread_churn_body((uintptr_t)arg);
	if (t->stack)
		pthread_churn_release_stack(t->stack);
	return NULL;
}

WL_NAMED static char *pthread_churn_map_stack(const struct wl_run *r)
{
	char *s = wl_map_aligned(r, STACK_SIZE, wl_hpage_size());

	wl_thp_advise(r, s, STACK_SIZE);
	if (mprotect(s, WL_PAGE, PROT_NONE))
		wl_die(r, "cannot protect the stack guard page: %s", strerror(errno));
	return s;
}

WL_NAMED static void pthread_churn_spawn(const struct wl_run *r, struct churn_thread *t,
					 uint64_t n)
{
	pthread_attr_t attr;
	int err;

	for (uint64_t i = 0; i < n; i++) {
		pthread_attr_init(&attr);
		if (r->thp == WL_THP_SYSTEM) {
			/* glibc's default, whatever `ulimit -s` says */
			pthread_attr_setstacksize(&attr, STACK_SIZE);
			t[i].stack = NULL;
		} else {
			t[i].stack = pthread_churn_map_stack(r);
			pthread_attr_setstack(&attr, t[i].stack, STACK_SIZE);
		}
		err = pthread_create(&t[i].tid, &attr, pthread_churn_thread, &t[i]);
		pthread_attr_destroy(&attr);
		if (err)
			wl_die(r, "cannot create a thread: %s", strerror(err));
	}
}

WL_NAMED static void pthread_churn_join(struct churn_thread *t, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		pthread_join(t[i].tid, NULL);
		if (t[i].stack)
			wl_munmap(t[i].stack, STACK_SIZE);
	}
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "pthread-churn" };
	uint64_t batch = 16, ops = 0, rounds = 0;
	const struct wl_opt own[] = {
		{ "batch", 'b', WL_U64, &batch, "N", "threads alive at once per round (default 16)" },
		{ 0 }
	};
	struct churn_thread *t;
	double elapsed;

	wl_parse(&r, "Create --batch threads with 8 MiB stacks, let them run a short body and\n"
		 "exit, join them; repeat (stress-ng pthread).  An iteration is one round.",
		 own, argc, argv);
	if (batch > 4096)
		wl_die(&r, "--batch %" PRIu64 " is too many (at most 4096)", batch);
	wl_thp_setup(&r);
	t = calloc(batch, sizeof(*t));
	if (!t)
		wl_die(&r, "out of memory");
	r.start = wl_now();
	while (!wl_done(&r, rounds)) {
		pthread_churn_spawn(&r, t, batch);
		pthread_churn_join(t, batch);
		ops += batch;
		rounds++;
	}
	elapsed = wl_now() - r.start;
	free(t);
	wl_metric_u64(&r, "ops", ops);
	wl_metric_dbl(&r, "ops_per_sec", ops / elapsed);
	return wl_finish(&r);
}
