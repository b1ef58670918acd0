/*
 * page-fault: a page-fault storm in the style of will-it-scale's
 * page_fault1: each thread maps 128 MiB of anonymous memory, writes one
 * byte to every 4 KiB page (one minor fault each), unmaps, repeats.
 *
 * The kernel time goes to exc_page_fault -> handle_mm_fault ->
 * do_anonymous_page (page allocation, zeroing, LRU and rmap), and to
 * munmap's zap and TLB flush; with several threads the faults contend on
 * the mm's locks and counters, which is what will-it-scale.per_thread_ops
 * regressions measure.  One op is one page faulted, as in will-it-scale.
 * --thp on turns the storm into 2 MiB huge-page faults (64 per map).
 */
#include <pthread.h>

#include "common.h"

struct pf_thread {
	pthread_t tid;
	const struct wl_run *r;
	uint64_t size;
	uint64_t ops;
} __attribute__((aligned(64)));

WL_NAMED static uint64_t pf_touch_pages(char *p, size_t len)
{
	uint64_t n = 0;

	for (size_t off = 0; off < len; off += WL_PAGE, n++)
		*(volatile char *)(p + off) = 0;
	return n;
}

WL_NAMED static char *pf_map(const struct wl_run *r, size_t len)
{
	char *p = wl_mmap_anon(len);

	if (p == MAP_FAILED)
		wl_die(r, "cannot mmap %zu bytes: %s", len, strerror(errno));
	return p;
}

WL_NAMED static void pf_unmap(char *p, size_t len)
{
	wl_munmap(p, len);
}

static void *pf_worker(void *arg)
{
	struct pf_thread *t = arg;
	uint64_t iters = 0;

	while (!wl_done(t->r, iters)) {
		char *p = pf_map(t->r, t->size);

		wl_thp_advise(t->r, p, t->size);
		t->ops += pf_touch_pages(p, t->size);
		pf_unmap(p, t->size);
		iters++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "page-fault" };
	uint64_t threads = 1, size = 128UL << 20, ops = 0;
	const struct wl_opt own[] = {
		{ "threads", 't', WL_U64, &threads, "N", "threads faulting in parallel (default 1)" },
		{ "size", 0, WL_SIZE, &size, "BYTES", "bytes mapped and touched per iteration (default 128M)" },
		{ 0 }
	};
	struct pf_thread *t;
	double elapsed;
	int err;

	wl_parse(&r, "Map anonymous memory, write every page (one page fault each), unmap;\n"
		 "repeat in each thread (will-it-scale page_fault1).", own, argc, argv);
	if (threads > 1024)
		wl_die(&r, "--threads %" PRIu64 " is too many (at most 1024)", threads);
	size = (size + WL_PAGE - 1) & ~(WL_PAGE - 1);
	wl_thp_setup(&r);
	/* aligned_alloc: calloc would not honour the cache-line alignment of the type */
	t = aligned_alloc(64, threads * sizeof(*t));
	if (!t)
		wl_die(&r, "out of memory");
	memset(t, 0, threads * sizeof(*t));
	r.start = wl_now();
	for (uint64_t i = 0; i < threads; i++) {
		t[i] = (struct pf_thread){ .r = &r, .size = size };
		if ((err = pthread_create(&t[i].tid, NULL, pf_worker, &t[i])))
			wl_die(&r, "cannot create thread %" PRIu64 ": %s", i, strerror(err));
	}
	for (uint64_t i = 0; i < threads; i++) {
		pthread_join(t[i].tid, NULL);
		ops += t[i].ops;
	}
	elapsed = wl_now() - r.start;
	free(t);
	wl_metric_u64(&r, "ops", ops);
	wl_metric_dbl(&r, "ops_per_sec", ops / elapsed);
	wl_metric_dbl(&r, "per_thread_ops", ops / elapsed / threads);
	return wl_finish(&r);
}
