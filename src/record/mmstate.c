/*
 * mmstate: which /proc/vmstat fields count events, and the THP, hugetlb
 * and NUMA settings; see include/mmprof/mmstate.h.  The per-second
 * sampling is mmsample.c.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/mmstate.h"
#include "mmprof/sysinfo.h"

/*
 * The robot differences a proc-vmstat field (last - first sample) when its
 * name starts with one of these (lkp-tests etc/event-counter-prefixes, the
 * proc-vmstat.* lines; lib/matrix.rb event_counter?) and averages every
 * other field.
 */
static const char *const robot_counter_prefixes[] = {
	"allocstall", "compact_", "htlb_buddy_alloc_", "kswapd_", "nr_dirtied",
	"nr_promoted", "nr_promote_fail", "nr_promote_isolate_fail", "nr_promote_ratelimit",
	"nr_vmscan_immediate_reclaim", "nr_written", "numa_", "pageoutrun", "pg", "pswp",
	"slabs_scanned", "thp_", "unevictable_pgs_", "zone_reclaim_failed",
};

/*
 * nr_* fields that count events rather than hold a level: they only ever
 * grow, so their change over the run is what means something.
 */
static const char *const nr_counters[] = {
	"nr_dirtied", "nr_written", "nr_throttled_written",
	"nr_foll_pin_acquired", "nr_foll_pin_released",
	"nr_vmscan_write", "nr_vmscan_immediate_reclaim",
	"nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_all", "nr_tlb_local_flush_one",
};

bool mmstate__is_level(const char *field)
{
	size_t i;

	for (i = 0; i < sizeof(robot_counter_prefixes) / sizeof(robot_counter_prefixes[0]); i++)
		if (!strncmp(field, robot_counter_prefixes[i], strlen(robot_counter_prefixes[i])))
			return false;
	return true;
}

bool mmstate__counts_events(const char *field)
{
	size_t i;

	if (!mmstate__is_level(field) || !strcmp(field, "workingset_nodes"))
		return false;	/* the robot's counters; a count of shadow nodes */
	if (strncmp(field, "nr_", 3))
		return true;
	for (i = 0; i < sizeof(nr_counters) / sizeof(nr_counters[0]); i++)
		if (!strcmp(field, nr_counters[i]))
			return true;
	return false;
}

bool mmstate__held_by_processes(const char *field)
{
	static const char *const held[] = { "anon", "huge" };
	static const char *const settings[] = { "Hugepagesize", "HugePages_Total", "Hugetlb" };
	size_t i;

	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(field, settings[i]))
			return false;
	for (i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (strcasestr(field, held[i]))
			return true;
	return false;
}

/* First line of root/rel, trimmed; false if unreadable or empty. */
static bool read_setting(const char *root, const char *rel, char *buf, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return sysinfo__read_line(path, buf, size);
}

unsigned mmstate__count_list(const char *list)
{
	unsigned n = 0;
	const char *s = list;

	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return 0;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return 0;
		}
		n += (unsigned)(b - a + 1);
		if (*end == ',')
			end++;
		else if (*end && *end != '\n')
			return 0;
		s = end;
	}
	return n;
}

void mmstate__add_settings(struct profile *p, const char *sys_root)
{
	static const struct {
		const char *key, *rel;
	} thp[] = {
		{ "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled" },
		{ "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag" },
		{ "thp_khugepaged_defrag", "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag" },
		{ "thp_use_zero_page", "/sys/kernel/mm/transparent_hugepage/use_zero_page" },
		{ "thp_shmem_enabled", "/sys/kernel/mm/transparent_hugepage/shmem_enabled" },
	};
	const char *root = sys_root ? sys_root : "";
	char line[256], word[64], dir[512];
	struct dirent *d;
	DIR *dh;
	size_t i;

	for (i = 0; i < sizeof(thp) / sizeof(thp[0]); i++)
		if (read_setting(root, thp[i].rel, line, sizeof(line)) &&
		    !sysinfo__selected(line, word, sizeof(word)))
			profile__set_meta(p, thp[i].key, word);

	/* hugepages-2048kB/nr_hugepages -> hugetlb_2048kB_nr_hugepages */
	snprintf(dir, sizeof(dir), "%s/sys/kernel/mm/hugepages", root);
	dh = opendir(dir);
	if (dh) {
		while ((d = readdir(dh))) {
			char rel[512], key[128];

			if (strncmp(d->d_name, "hugepages-", 10))
				continue;
			snprintf(rel, sizeof(rel), "/sys/kernel/mm/hugepages/%s/nr_hugepages",
				 d->d_name);
			if (!read_setting(root, rel, line, sizeof(line)))
				continue;
			snprintf(key, sizeof(key), "hugetlb_%s_nr_hugepages", d->d_name + 10);
			profile__set_meta(p, key, line);
		}
		closedir(dh);
	}

	if (read_setting(root, "/sys/devices/system/node/online", line, sizeof(line))) {
		unsigned n = mmstate__count_list(line);

		if (n) {
			snprintf(word, sizeof(word), "%u", n);
			profile__set_meta(p, "numa_nodes", word);
		}
	}
}
