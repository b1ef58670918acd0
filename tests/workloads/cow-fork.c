/*
 * cow-fork: copy-on-write after fork of a large region, the situation of
 * vm-scalability's anon-cow-seq tests (minus hugetlbfs).
 *
 * The parent maps and writes --size bytes once.  Each iteration forks;
 * the child writes one byte to every page, so each write takes a
 * write-protect fault that copies the page (do_wp_page -> wp_page_copy),
 * then exits; the parent reaps it.  fork itself copies the page tables
 * (copy_page_range) and exit tears them down (exit_mmap).  With --thp on
 * the region is huge-page backed: fork copies PMDs and the child's first
 * write splits each one (__split_huge_pmd) before copying 4 KiB pages.
 * One op is one fork; cow_pages_per_sec counts the copied pages.
 */
#include <signal.h>
#include <sys/wait.h>

#include "common.h"

WL_NAMED static void cow_fork_populate(char *p, size_t len)
{
	for (size_t off = 0; off < len; off += WL_PAGE)
		*(volatile char *)(p + off) = 1;
}

WL_NAMED static uint64_t cow_fork_child_write(char *p, size_t len)
{
	uint64_t n = 0;

	for (size_t off = 0; off < len; off += WL_PAGE, n++)
		*(volatile char *)(p + off) = 2;
	return n;
}

/* Returns how many pages the child wrote (it exits 0 only after writing them all). */
WL_NAMED static uint64_t cow_fork_once(const struct wl_run *r, char *p, size_t len)
{
	pid_t parent = getpid(), pid;
	int status;

	fflush(stdout);		/* nothing buffered may be printed twice */
	pid = fork();
	if (pid < 0)
		wl_die(r, "cannot fork: %s", strerror(errno));
	if (pid == 0) {
		/* A child outliving a killed parent would keep the memory pinned. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(3);
		cow_fork_child_write(p, len);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			wl_die(r, "cannot wait for child %d: %s", (int)pid, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wl_die(r, "child %d failed (status 0x%x)", (int)pid, status);
	return len / WL_PAGE;
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "cow-fork" };
	uint64_t size = 64UL << 20, ops = 0, pages = 0;
	const struct wl_opt own[] = {
		{ "size", 0, WL_SIZE, &size, "BYTES", "region written by parent and child (default 64M)" },
		{ 0 }
	};
	uint64_t hpage = wl_hpage_size();
	double elapsed;
	char *p;

	wl_parse(&r, "Write a large anonymous region, fork, let the child write every page\n"
		 "(copy-on-write faults) and exit; repeat.", own, argc, argv);
	size = (size + hpage - 1) & ~(hpage - 1);
	wl_thp_setup(&r);
	p = wl_map_aligned(&r, size, hpage);
	wl_thp_advise(&r, p, size);
	cow_fork_populate(p, size);

	r.start = wl_now();
	while (!wl_done(&r, ops)) {
		pages += cow_fork_once(&r, p, size);
		ops++;
	}
	elapsed = wl_now() - r.start;
	munmap(p, size);
	wl_metric_u64(&r, "ops", ops);
	wl_metric_dbl(&r, "ops_per_sec", ops / elapsed);
	wl_metric_dbl(&r, "cow_pages_per_sec", pages / elapsed);
	return wl_finish(&r);
}
