/*
 * test-mmstate: /proc/vmstat deltas and levels, /proc/meminfo snapshots
 * and the THP/hugetlb/NUMA settings, first on files with known contents
 * (every number hand-computed), then on the real /proc around a loop that
 * faults a known number of pages in.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "mmprof/mmstate.h"

static char tmpdir[] = "/tmp/test-mmstate.XXXXXX";

static void write_file(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", tmpdir, rel);
	/* mkdir -p of the parent */
	for (slash = strchr(path + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* value of metric key in run, or -12345 when absent */
static double metric(const struct profile *p, uint32_t run, const char *key)
{
	size_t i;

	for (i = 0; i < p->nr_metrics; i++)
		if (p->metrics[i].run == run &&
		    !strcmp(profile__str(p, p->metrics[i].key), key))
			return p->metrics[i].value;
	return -12345;
}

static void test_files(void)
{
	struct profile *p = profile__new();
	struct mmstate s;
	char vm[512], mi[512];
	const int64_t sec = MMSTATE_PERIOD_NS;

	snprintf(vm, sizeof(vm), "%s/vmstat", tmpdir);
	snprintf(mi, sizeof(mi), "%s/meminfo", tmpdir);
	memset(&s, 0, sizeof(s));
	s.vmstat_path = vm;
	s.meminfo_path = mi;

	write_file("/vmstat", "nr_free_pages 1000\npgfault 500\nthp_split_pmd 3\n"
			      "nr_dirtied 10\nnuma_hit 40\nonly_before 1\nworkingset_nodes 8\n"
			      "workingset_refault_file 100\nnr_anon_transparent_hugepages 0\n"
			      "oom_kill 0\nthp_file_alloc 0\nnr_free_pages 5\n");
	write_file("/meminfo", "MemTotal:        1000 kB\nMemFree:          600 kB\n"
			       "AnonHugePages:       0 kB\nHugePages_Total:       4\n"
			       "Zero:       0 kB\nbogus line\n");
	is_int(mmstate__begin(&s, 0), 0, "begin reads the files");
	is_int((int)(mmstate__next(&s) / sec), 1, "the next sample is due a second later");
	write_file("/vmstat", "thp_split_pmd 300\npgfault 900\nnr_free_pages 900\n"
			      "nr_dirtied 20\nnuma_hit 35\nworkingset_nodes 6\n"
			      "workingset_refault_file 150\nnr_anon_transparent_hugepages 6\n"
			      "oom_kill 0\nthp_file_alloc 0\nonly_before 1\n");
	write_file("/meminfo", "MemTotal:        1000 kB\nMemFree:          200 kB\n"
			       "AnonHugePages:    4096 kB\nHugePages_Total:       4\nZero: 0 kB\n");
	mmstate__tick(&s, sec / 2);	/* not due: no sample */
	mmstate__tick(&s, sec);
	is_int((int)(mmstate__next(&s) / sec), 2, "a sample moves the next one on");
	write_file("/vmstat", "thp_split_pmd 515\npgfault 1700\nnr_free_pages 600\n"
			      "nr_dirtied 25\nnuma_hit 30\nonly_after 7\nworkingset_nodes 4\n"
			      "workingset_refault_file 400\nnr_anon_transparent_hugepages 0\n"
			      "oom_kill 0\nthp_file_alloc 0\n");
	write_file("/meminfo", "MemTotal:        1000 kB\nMemFree:          500 kB\n"
			       "AnonHugePages:       0 kB\nHugePages_Total:       4\nZero: 0 kB\n");
	is_int(mmstate__end(&s, p, 0), 0, "end reads both files");
	is_dbl(metric(p, 0, "proc-vmstat.pgfault"), 1200, 0, "counter: last - first");
	is_dbl(metric(p, 0, "proc-vmstat.thp_split_pmd"), 512, 0, "thp_split_pmd: last - first");
	is_dbl(metric(p, 0, "proc-vmstat.nr_free_pages"), 2500.0 / 3, 1e-9,
	       "level: mean of the three samples (a repeated name: the first counts)");
	is_dbl(metric(p, 0, "proc-vmstat.nr_anon_transparent_hugepages"), 2, 0,
	       "a level seen only between start and end: its mean is not 0");
	is_dbl(metric(p, 0, "proc-vmstat.workingset_nodes"), 6, 0, "workingset_nodes is a level");
	is_dbl(metric(p, 0, "proc-vmstat.nr_dirtied"), 15, 0, "nr_dirtied counts events: delta");
	is_dbl(metric(p, 0, "proc-vmstat.numa_hit"), -10, 0, "a counter that went down stays visible");
	is_dbl(metric(p, 0, "proc-vmstat.workingset_refault_file"), 650.0 / 3, 1e-9,
	       "workingset_refault_file: the robot averages it");
	is_dbl(metric(p, 0, "proc-vmstat.delta.workingset_refault_file"), 300, 0,
	       "and mmprof's own reading is its change, as proc-vmstat.delta.*");
	ok(metric(p, 0, "proc-vmstat.delta.nr_free_pages") == -12345 &&
	   metric(p, 0, "proc-vmstat.delta.pgfault") == -12345, "no delta of a level or a counter");
	ok(metric(p, 0, "proc-vmstat.oom_kill") == -12345 &&
	   metric(p, 0, "proc-vmstat.thp_file_alloc") == -12345 &&
	   metric(p, 0, "proc-vmstat.delta.oom_kill") == -12345, "fields 0 in every sample: absent");
	ok(metric(p, 0, "proc-vmstat.only_before") == -12345 &&
	   metric(p, 0, "proc-vmstat.only_after") == -12345, "fields missing from a sample: absent");
	is_dbl(metric(p, 0, "meminfo.MemTotal"), 1000, 0, "meminfo in kB as printed");
	is_dbl(metric(p, 0, "meminfo.AnonHugePages"), 4096.0 / 3, 1e-9,
	       "meminfo: the mean of the samples");
	is_dbl(metric(p, 0, "meminfo.HugePages_Total"), 4, 0, "meminfo count without unit");
	is_dbl(metric(p, 0, "meminfo.Memused"), (400 + 800 + 500) / 3.0, 1e-9,
	       "Memused: mean of MemTotal - MemFree");
	is_dbl(metric(p, 0, "meminfo.max_used_kB"), (400 + 800 + 800) / 3.0, 1e-9,
	       "max_used_kB: mean of the running maximum");
	is_dbl(metric(p, 0, "meminfo.rise.AnonHugePages"), 4096, 0,
	       "rise: the level while the workload ran over the one read outside it (mean of release and end)");
	is_dbl(metric(p, 0, "proc-vmstat.rise.nr_anon_transparent_hugepages"), 6, 0,
	       "proc-vmstat's huge pages rise too");
	ok(metric(p, 0, "meminfo.rise.HugePages_Total") == -12345 &&
	   metric(p, 0, "meminfo.rise.MemFree") == -12345 &&
	   metric(p, 0, "proc-vmstat.rise.nr_free_pages") == -12345,
	   "no rise of the machine's levels (free memory, huge page pool size)");
	ok(metric(p, 0, "meminfo.Zero") == -12345, "a meminfo field 0 in every sample: absent");
	ok(metric(p, 0, "meminfo.bogus line") == -12345, "malformed line skipped");

	/* a second run reuses the struct; a missing file is an error, meminfo still stored */
	s.vmstat_path = "/nonexistent/vmstat";
	ok(mmstate__begin(&s, 0) < 0, "begin on a missing file fails");
	ok(mmstate__end(&s, p, 1) == 0 && metric(p, 1, "proc-vmstat.pgfault") == -12345 &&
	   metric(p, 1, "meminfo.MemTotal") == 1000,
	   "without vmstat: meminfo only, no error at the end");
	mmstate__release(&s);
	profile__free(p);
}

static void test_levels(void)
{
	ok(mmstate__is_level("nr_anon_transparent_hugepages"), "nr_anon_transparent_hugepages level");
	ok(mmstate__is_level("nr_dirty_threshold"), "nr_dirty_threshold level");
	ok(mmstate__is_level("nr_foll_pin_acquired") && mmstate__counts_events("nr_foll_pin_acquired"),
	   "nr_foll_pin_acquired: a robot level that counts events");
	ok(mmstate__is_level("workingset_refault_file") && mmstate__is_level("oom_kill") &&
	   mmstate__is_level("direct_map_level2_splits"), "workingset_*, oom_kill, direct_map_*: robot levels");
	ok(mmstate__counts_events("oom_kill") && mmstate__counts_events("direct_map_level2_splits") &&
	   !mmstate__counts_events("workingset_nodes") && !mmstate__counts_events("nr_free_pages"),
	   "counts_events: oom_kill, direct_map_*; not workingset_nodes, nr_free_pages");
	ok(!mmstate__is_level("thp_fault_alloc") && !mmstate__is_level("pgfault") &&
	   !mmstate__is_level("nr_dirtied") && !mmstate__is_level("allocstall_normal") &&
	   !mmstate__is_level("numa_hit"), "robot counters: thp_*, pg*, nr_dirtied, allocstall*, numa_*");
	ok(!mmstate__counts_events("pgfault"), "a robot counter is not a delta key");
	is_int(mmstate__count_list("0"), 1, "node list 0");
	is_int(mmstate__count_list("0-3,8\n"), 5, "node list 0-3,8");
	is_int(mmstate__count_list("0,2,4-5"), 4, "node list 0,2,4-5");
	is_int(mmstate__count_list("3-1"), 0, "reversed range rejected");
	is_int(mmstate__count_list("x"), 0, "garbage rejected");
}

static void test_settings(void)
{
	struct profile *p = profile__new();
	const char *v;

	write_file("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	write_file("/sys/kernel/mm/transparent_hugepage/defrag",
		   "always defer defer+madvise [madvise] never\n");
	write_file("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1\n");
	write_file("/sys/kernel/mm/transparent_hugepage/use_zero_page", "0\n");
	/* shmem_enabled missing: left out */
	write_file("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "16\n");
	write_file("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");
	write_file("/sys/devices/system/node/online", "0-1\n");
	mmstate__add_settings(p, tmpdir);
	v = profile__meta(p, "thp_enabled");
	is_str(v ? v : "(null)", "madvise", "thp_enabled: the bracketed choice");
	v = profile__meta(p, "thp_defrag");
	is_str(v ? v : "(null)", "madvise", "thp_defrag");
	v = profile__meta(p, "thp_khugepaged_defrag");
	is_str(v ? v : "(null)", "1", "khugepaged/defrag: a number");
	v = profile__meta(p, "thp_use_zero_page");
	is_str(v ? v : "(null)", "0", "use_zero_page");
	ok(!profile__meta(p, "thp_shmem_enabled"), "unreadable setting left out");
	v = profile__meta(p, "hugetlb_2048kB_nr_hugepages");
	is_str(v ? v : "(null)", "16", "hugetlb 2 MB pool");
	v = profile__meta(p, "hugetlb_1048576kB_nr_hugepages");
	is_str(v ? v : "(null)", "0", "hugetlb 1 GB pool");
	v = profile__meta(p, "numa_nodes");
	is_str(v ? v : "(null)", "2", "numa_nodes from 0-1");
	profile__free(p);

	/* the real machine: every file of the brief exists here */
	p = profile__new();
	mmstate__add_settings(p, NULL);
	ok(profile__meta(p, "thp_enabled") && profile__meta(p, "thp_shmem_enabled") &&
	   profile__meta(p, "thp_khugepaged_defrag") && profile__meta(p, "thp_use_zero_page"),
	   "real THP settings read");
	ok(profile__meta(p, "numa_nodes") && atoi(profile__meta(p, "numa_nodes")) >= 1,
	   "real numa_nodes >= 1");
	ok(profile__meta(p, "hugetlb_2048kB_nr_hugepages") != NULL, "real hugetlb 2048kB pool");
	profile__free(p);
}

/* Fault N fresh pages between the readings: pgfault grows by at least N. */
static void test_real(void)
{
	struct profile *p = profile__new();
	struct mmstate s;
	long pagesz = sysconf(_SC_PAGESIZE);
	size_t n = 2000, i;
	char *buf;

	memset(&s, 0, sizeof(s));
	is_int(mmstate__begin(&s, 0), 0, "real /proc/vmstat read");
	buf = mmap(NULL, n * (size_t)pagesz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(buf != MAP_FAILED, "mmap");
	if (buf != MAP_FAILED) {
		madvise(buf, n * (size_t)pagesz, MADV_NOHUGEPAGE);
		for (i = 0; i < n; i++)
			buf[i * (size_t)pagesz] = 1;
	}
	is_int(mmstate__end(&s, p, 0), 0, "real end");
	ok(metric(p, 0, "proc-vmstat.pgfault") >= (double)n,
	   "pgfault delta %.0f >= %zu pages touched (system-wide)",
	   metric(p, 0, "proc-vmstat.pgfault"), n);
	ok(metric(p, 0, "meminfo.MemTotal") > 0, "meminfo.MemTotal %.0f kB",
	   metric(p, 0, "meminfo.MemTotal"));
	ok(metric(p, 0, "proc-vmstat.nr_free_pages") > 0, "nr_free_pages level > 0");
	if (buf != MAP_FAILED)
		munmap(buf, n * (size_t)pagesz);
	mmstate__release(&s);
	mmstate__release(&s);	/* twice is fine */
	profile__free(p);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_files();
	test_levels();
	test_settings();
	test_real();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	return done_testing();
}
