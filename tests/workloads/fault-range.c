/*
 * fault-range: maps a buffer, touches every page once (one minor fault
 * each, in fr_touch), and prints the buffer's address range on stderr as
 * "fault-range: buffer 0xSTART-0xEND", so a test can check that decoded
 * fault addresses (exceptions:page_fault_user) fall inside it.
 * --size SIZE (default 8M); --hold S keeps the touched buffer mapped S
 * seconds before unmapping it (a level such as AnonHugePages, with
 * --thp on, then stays up while a sampler looks).  Output: fault-range.pages.
 */
#include "common.h"

WL_NAMED static uint64_t fr_touch(char *p, size_t len)
{
	uint64_t n = 0;

	for (size_t off = 0; off < len; off += WL_PAGE, n++)
		*(volatile char *)(p + off) = 1;
	return n;
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "fault-range" };
	uint64_t size = 8ULL << 20, pages;
	double hold = 0;
	const struct wl_opt own[] = {
		{ "size", 0, WL_SIZE, &size, "SIZE", "buffer size (default 8M)" },
		{ "hold", 0, WL_DOUBLE, &hold, "S", "keep the touched buffer S seconds (default 0)" },
		{ 0 },
	};
	char *p;

	wl_parse(&r, "Touch every page of one buffer once; print its range on stderr.", own,
		 argc, argv);
	p = wl_mmap_anon(size);
	if (p == MAP_FAILED)
		wl_die(&r, "cannot mmap %llu bytes: %s", (unsigned long long)size, strerror(errno));
	wl_thp_advise(&r, p, size);
	fprintf(stderr, "%s: buffer 0x%lx-0x%lx\n", r.name, (unsigned long)p,
		(unsigned long)(p + size));
	pages = fr_touch(p, size);
	if (hold > 0) {
		struct timespec ts = { (time_t)hold, (long)((hold - (double)(time_t)hold) * 1e9) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	wl_munmap(p, size);
	printf("%s.pages: %llu\n", r.name, (unsigned long long)pages);
	return 0;
}
