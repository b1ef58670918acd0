/*
 * mmstate: /proc/vmstat and /proc/meminfo around a run, THP/hugetlb/NUMA
 * settings; see include/mmprof/mmstate.h.
 *
 * The "before" reading is kept as a small sorted array; the "after" reading
 * is matched against it by binary search, so a field the kernel adds or
 * drops between readings (it cannot, but a test file can) is simply left
 * out instead of misaligning the rest.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/mmstate.h"
#include "mmprof/sysinfo.h"
#include "mmprof/xalloc.h"

#define VMSTAT_PATH	"/proc/vmstat"
#define MEMINFO_PATH	"/proc/meminfo"

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

	if (!strcmp(field, "workingset_nodes"))
		return true;	/* a count of shadow nodes, not of events */
	if (strncmp(field, "nr_", 3))
		return false;
	for (i = 0; i < sizeof(nr_counters) / sizeof(nr_counters[0]); i++)
		if (!strcmp(field, nr_counters[i]))
			return false;
	return true;
}

static int field_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mmstate_field *)a)->name,
		      ((const struct mmstate_field *)b)->name);
}

static void fields_release(struct mmstate_field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

/* "name value" lines into a sorted array; 0 or -errno. */
static int read_vmstat(const char *path, struct mmstate_field **out, size_t *nr, size_t *alloc)
{
	FILE *f = fopen(path, "re");
	char line[256];

	*out = NULL;
	*nr = *alloc = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		uint64_t v;

		if (sscanf(line, "%127s %" SCNu64, name, &v) != 2)
			continue;
		XGROW(*out, *alloc, *nr);
		(*out)[*nr].name = xstrdup(name);
		(*out)[*nr].value = v;
		(*nr)++;
	}
	fclose(f);
	if (*nr)
		qsort(*out, *nr, sizeof(**out), field_cmp);
	return 0;
}

int mmstate__begin(struct mmstate *s)
{
	int err;

	fields_release(s->before, s->nr_before);
	s->begun = false;
	err = read_vmstat(s->vmstat_path ? s->vmstat_path : VMSTAT_PATH, &s->before,
			  &s->nr_before, &s->alloc_before);
	s->begun = !err;
	return err;
}

static int add_vmstat(struct mmstate *s, struct profile *p, uint32_t run)
{
	struct mmstate_field *after;
	size_t nr, alloc, i;
	int err;

	err = read_vmstat(s->vmstat_path ? s->vmstat_path : VMSTAT_PATH, &after, &nr, &alloc);
	if (err)
		return err;
	for (i = 0; i < nr; i++) {
		const struct mmstate_field *b = bsearch(&after[i], s->before, s->nr_before,
							sizeof(*s->before), field_cmp);
		char key[192];
		double v;

		if (!b)
			continue;
		if (mmstate__is_level(after[i].name))
			v = ((double)b->value + (double)after[i].value) / 2;
		else	/* signed: numa_* can be reset under us, never hide that */
			v = (double)after[i].value - (double)b->value;
		snprintf(key, sizeof(key), "proc-vmstat.%s", after[i].name);
		profile__add_metric(p, run, key, v);
	}
	fields_release(after, nr);
	return 0;
}

/* "MemTotal:       2014812 kB" -> meminfo.MemTotal = 2014812 */
static int add_meminfo(const char *path, struct profile *p, uint32_t run)
{
	FILE *f = fopen(path, "re");
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *end, key[192];
		unsigned long long v;

		if (!colon || colon == line)
			continue;
		errno = 0;
		v = strtoull(colon + 1, &end, 10);
		if (errno || end == colon + 1)
			continue;
		snprintf(key, sizeof(key), "meminfo.%.*s", (int)(colon - line), line);
		profile__add_metric(p, run, key, (double)v);
	}
	fclose(f);
	return 0;
}

int mmstate__end(struct mmstate *s, struct profile *p, uint32_t run)
{
	int err = 0, err2;

	if (s->begun)
		err = add_vmstat(s, p, run);
	err2 = add_meminfo(s->meminfo_path ? s->meminfo_path : MEMINFO_PATH, p, run);
	return err ? err : err2;
}

void mmstate__release(struct mmstate *s)
{
	fields_release(s->before, s->nr_before);
	s->before = NULL;
	s->nr_before = s->alloc_before = 0;
	s->begun = false;
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
