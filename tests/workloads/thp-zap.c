/*
 * thp-zap: THP-backed anonymous regions partially zapped with
 * madvise(MADV_DONTNEED), the zap_pmd_range -> __split_huge_pmd path.
 *
 * This is the hot spot of the stress-ng.pthread -84.3% report (commit
 * 1111d46b5c "mm: align larger anonymous mappings on THP boundaries"): an
 * 8 MiB thread stack became THP-aligned, its top was faulted as one huge
 * page, and glibc's MADV_DONTNEED of the unused stack at thread exit had
 * to split the PMD under the page-table lock.
 *
 * One iteration maps --size bytes on a huge-page boundary, touches every
 * 4 KiB page (one huge fault per 2 MiB chunk with --thp on, 512 small
 * faults with --thp off; --touch 16K touches only the top pages of each
 * chunk as a thread's stack does, where a huge page costs more), zaps --zap bytes at the start of each chunk
 * (a partial range: the kernel must split a huge PMD first) and unmaps.
 * One op is one chunk.  The /proc/vmstat deltas thp_fault_alloc and
 * thp_split_pmd are printed so a run proves which path it took (they are
 * system-wide; anon_huge_kb is this process's own evidence).
 */
#include "common.h"

struct zap_opts {
	uint64_t size;
	uint64_t zap;
	uint64_t touch;
};

/* Writes the last `touch` bytes of every chunk, top down like a stack grows. */
WL_NAMED static void thp_zap_touch(char *p, size_t len, size_t chunk, size_t touch)
{
	for (size_t c = 0; c < len; c += chunk)
		for (size_t off = chunk; off > chunk - touch; off -= WL_PAGE)
			*(volatile char *)(p + c + off - WL_PAGE) = 1;
}

WL_NAMED static void thp_zap_partial(const struct wl_run *r, char *p, size_t len,
				     size_t chunk, size_t zap)
{
	int err;

	for (size_t off = 0; off < len; off += chunk)
		if ((err = wl_madvise(p + off, zap, MADV_DONTNEED)))
			wl_die(r, "cannot madvise(MADV_DONTNEED): %s", strerror(-err));
}

WL_NAMED static void thp_zap_unmap(char *p, size_t len)
{
	wl_munmap(p, len);
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "thp-zap" };
	struct zap_opts zo = { .size = 32UL << 20, .zap = WL_PAGE, .touch = 0 };
	const struct wl_opt own[] = {
		{ "size", 0, WL_SIZE, &zo.size, "BYTES",
		  "region mapped per iteration, a multiple of the huge page size (default 32M)" },
		{ "zap", 0, WL_SIZE, &zo.zap, "BYTES",
		  "bytes zapped at the start of each huge-page chunk (default 4K)" },
		{ "touch", 0, WL_SIZE, &zo.touch, "BYTES",
		  "bytes written at the top of each chunk (default all of it; 16K acts like a thread stack)" },
		{ 0 }
	};
	uint64_t hpage = wl_hpage_size(), ops = 0, iters = 0, anon_huge_kb = 0;
	uint64_t fault0, split0, fault1, split1;
	double elapsed;

	wl_parse(&r, "Map huge-page aligned anonymous regions, touch them, zap part of each\n"
		 "huge page with MADV_DONTNEED (splitting its PMD), unmap; repeat.", own,
		 argc, argv);
	if (zo.size % hpage)
		wl_die(&r, "--size %" PRIu64 " is not a multiple of the huge page size %" PRIu64,
		       zo.size, hpage);
	if (zo.zap % WL_PAGE || zo.zap >= hpage)
		wl_die(&r, "--zap %" PRIu64 " must be a multiple of 4K and smaller than %" PRIu64,
		       zo.zap, hpage);
	if (!zo.touch)
		zo.touch = hpage;
	if (zo.touch % WL_PAGE || zo.touch > hpage)
		wl_die(&r, "--touch %" PRIu64 " must be a multiple of 4K and at most %" PRIu64,
		       zo.touch, hpage);
	wl_thp_setup(&r);

	fault0 = wl_vmstat("thp_fault_alloc");
	split0 = wl_vmstat("thp_split_pmd");
	r.start = wl_now();
	while (!wl_done(&r, iters)) {
		char *p = wl_map_aligned(&r, zo.size, hpage);

		wl_thp_advise(&r, p, zo.size);
		thp_zap_touch(p, zo.size, hpage, zo.touch);
		if (!iters)	/* once: what this process really got, not the system's */
			anon_huge_kb = wl_smaps_kb("AnonHugePages");
		thp_zap_partial(&r, p, zo.size, hpage, zo.zap);
		thp_zap_unmap(p, zo.size);
		ops += zo.size / hpage;
		iters++;
	}
	elapsed = wl_now() - r.start;
	fault1 = wl_vmstat("thp_fault_alloc");
	split1 = wl_vmstat("thp_split_pmd");

	if (r.thp == WL_THP_ON && !anon_huge_kb)
		wl_warn(&r, "--thp on but no huge page was mapped (THP '%s', fragmented memory?)",
			wl_thp_system((char[32]){ 0 }, 32));
	wl_metric_u64(&r, "ops", ops);
	wl_metric_dbl(&r, "ops_per_sec", ops / elapsed);
	wl_metric_u64(&r, "anon_huge_kb", anon_huge_kb);
	if (fault0 != UINT64_MAX && fault1 != UINT64_MAX)
		wl_metric_u64(&r, "thp_fault_alloc", fault1 - fault0);
	if (split0 != UINT64_MAX && split1 != UINT64_MAX)
		wl_metric_u64(&r, "thp_split_pmd", split1 - split0);
	return wl_finish(&r);
}
