/*
 * mmap-contend: threads mapping and unmapping small regions in parallel,
 * contending on the process's mmap_lock (will-it-scale mmap1/mmap2, the
 * per_thread_ops report where mmap_lock's cache-line placement in
 * mm_struct cost 9 %).
 *
 * Every mmap and munmap takes mmap_lock for writing, so with several
 * threads the time goes to rwsem_down_write_slowpath, osq_lock and the
 * VMA tree (vms_*, mas_*).  --touch also writes each page, adding page
 * faults that take the lock (or the per-VMA lock) for reading.  One op is
 * one mmap + munmap pair; per_thread_ops is ops per second per thread.
 */
#include <pthread.h>

#include "common.h"

struct mc_thread {
	pthread_t tid;
	const struct wl_run *r;
	uint64_t size;
	bool touch;
	uint64_t ops;
} __attribute__((aligned(64)));

WL_NAMED static void mmap_contend_touch(char *p, size_t len)
{
	for (size_t off = 0; off < len; off += WL_PAGE)
		*(volatile char *)(p + off) = 1;
}

/* One op: the map and unmap are issued from here so this frame shows in profiles. */
WL_NAMED static void mmap_contend_once(struct mc_thread *t)
{
	char *p = wl_mmap_anon(t->size);

	if (p == MAP_FAILED)
		wl_die(t->r, "cannot mmap %" PRIu64 " bytes: %s", t->size, strerror(errno));
	wl_thp_advise(t->r, p, t->size);
	if (t->touch)
		mmap_contend_touch(p, t->size);
	wl_munmap(p, t->size);
}

static void *mmap_contend_worker(void *arg)
{
	struct mc_thread *t = arg;

	/* The clock is read every 64 ops only: an op is a few microseconds. */
	for (;;) {
		if (t->r->iterations && t->ops >= t->r->iterations)
			break;
		if (t->ops % 64 == 0 && wl_done(t->r, t->ops))
			break;
		mmap_contend_once(t);
		t->ops++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "mmap-contend" };
	uint64_t threads = 2, size = 64UL << 10, ops = 0;
	bool touch = false;
	const struct wl_opt own[] = {
		{ "threads", 't', WL_U64, &threads, "N", "threads mapping in parallel (default 2)" },
		{ "size", 0, WL_SIZE, &size, "BYTES", "bytes per mapping (default 64K)" },
		{ "touch", 0, WL_FLAG, &touch, NULL, "write every page of each mapping before unmapping" },
		{ 0 }
	};
	struct mc_thread *t;
	double elapsed;
	int err;

	wl_parse(&r, "Threads mmap and munmap small anonymous regions in parallel, contending\n"
		 "on the mmap lock (will-it-scale mmap1; mmap2 with --touch).", own, argc, argv);
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
		t[i] = (struct mc_thread){ .r = &r, .size = size, .touch = touch };
		if ((err = pthread_create(&t[i].tid, NULL, mmap_contend_worker, &t[i])))
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
