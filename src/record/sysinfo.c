/*
 * sysinfo: machine and recording metadata; see include/mmprof/sysinfo.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "mmprof/sysinfo.h"
#include "mmprof/xalloc.h"

bool sysinfo__read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t len;

	if (!f)
		return false;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return len > 0;
}

/* "Uid:\tR\tE\tS\tF" or "Gid:..." of a /proc status, and CapEff */
static bool proc_ids(pid_t pid, unsigned long ids[2][3], unsigned long long *capeff)
{
	char path[32], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4) &&
		    sscanf(line + 4, "%lu %lu %lu", &ids[0][0], &ids[0][1], &ids[0][2]) == 3)
			found |= 1;
		else if (!strncmp(line, "Gid:", 4) &&
			 sscanf(line + 4, "%lu %lu %lu", &ids[1][0], &ids[1][1], &ids[1][2]) == 3)
			found |= 2;
		else if (capeff && !strncmp(line, "CapEff:", 7))
			*capeff = strtoull(line + 7, NULL, 16);
	}
	fclose(f);
	return found == 3;
}

pid_t sysinfo__foreign_pid(const pid_t *pids, size_t nr, uid_t *uid)
{
	unsigned long ids[2][3], self[2][3];
	unsigned long long caps = 0;
	size_t i, k;

	if (!proc_ids(getpid(), self, &caps) || (caps & (1ULL << 19)))	/* CAP_SYS_PTRACE */
		return 0;
	for (i = 0; i < nr; i++) {
		if (!proc_ids(pids[i], ids, NULL))
			continue;
		for (k = 0; k < 3; k++)
			if (ids[0][k] != self[0][0] || ids[1][k] != self[1][0]) {
				*uid = (uid_t)ids[0][1];
				return pids[i];
			}
	}
	return 0;
}

int sysinfo__selected(const char *text, char *out, size_t size)
{
	const char *open = strchr(text, '['), *close;
	size_t len;

	if (open) {
		close = strchr(open, ']');
		if (!close)
			return -EINVAL;
		text = open + 1;
		len = (size_t)(close - text);
	} else {
		while (*text == ' ' || *text == '\t')
			text++;
		len = strcspn(text, "\n");
		while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
			len--;
	}
	if (!len || !size)
		return -EINVAL;
	if (len >= size)
		len = size - 1;
	memcpy(out, text, len);
	out[len] = '\0';
	return 0;
}

static void add_sysfs_choice(struct profile *p, const char *key, const char *path)
{
	char line[256], word[64];

	if (sysinfo__read_line(path, line, sizeof(line)) && !sysinfo__selected(line, word, sizeof(word)))
		profile__set_meta(p, key, word);
}

static void add_file_line(struct profile *p, const char *key, const char *path)
{
	char line[4096];	/* /proc/cmdline's length (COMMAND_LINE_SIZE: 2048 on x86) */

	if (sysinfo__read_line(path, line, sizeof(line)))
		profile__set_meta(p, key, line);
}

static void add_cpu_model(struct profile *p)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon;
		size_t len;

		if (strncmp(line, "model name", 10) || !(colon = strchr(line, ':')))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		len = strcspn(colon, "\n");
		colon[len] = '\0';
		if (*colon)
			profile__set_meta(p, "cpu_model", colon);
		break;
	}
	fclose(f);
}

/*
 * The memory-management sysctls a kernel performance comparison turns on,
 * as meta "sysctl.<name>" (diff prints those that differ between sides).
 */
static void add_sysctls(struct profile *p)
{
	static const char *const names[] = {
		"vm.swappiness", "vm.overcommit_memory", "vm.zone_reclaim_mode",
		"vm.min_free_kbytes", "vm.dirty_ratio", "vm.dirty_background_ratio",
		"vm.compaction_proactiveness", "vm.max_map_count", "kernel.numa_balancing",
	};
	char path[128], key[64], *c;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "/proc/sys/%s", names[i]);
		for (c = path + 10; (c = strchr(c, '.')); )
			*c = '/';
		snprintf(key, sizeof(key), "sysctl.%s", names[i]);
		add_file_line(p, key, path);
	}
}

void sysinfo__add_host(struct profile *p)
{
	struct utsname u;
	char buf[64];
	long n;

	profile__set_meta(p, "mmprof_version", MMPROF_VERSION);
	snprintf(buf, sizeof(buf), "%d", PROFILE_FORMAT_PLAIN);
	profile__set_meta(p, "format_version", buf);
	if (!uname(&u)) {
		profile__set_meta(p, "kernel_release", u.release);
		profile__set_meta(p, "hostname", u.nodename);
		profile__set_meta(p, "machine", u.machine);
	}
	add_cpu_model(p);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > 0) {
		snprintf(buf, sizeof(buf), "%ld", n);
		profile__set_meta(p, "nr_cpus_online", buf);
	}
	add_sysfs_choice(p, "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	add_sysfs_choice(p, "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	add_file_line(p, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid");
	add_file_line(p, "kptr_restrict", "/proc/sys/kernel/kptr_restrict");
	add_file_line(p, "kernel_cmdline", "/proc/cmdline");
	add_file_line(p, "cpu_governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	add_sysctls(p);
}

/* Characters that never need quoting in a POSIX shell word. */
static bool plain_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-+./:=,@%", *s))
			return false;
	return true;
}

char *sysinfo__quote_argv(int argc, char *const argv[])
{
	size_t len = 1, n = 0;
	char *out;
	int i;

	/* worst case: every character becomes '\'' (4) plus quotes and a space */
	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	out = xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (i)
			out[n++] = ' ';
		if (plain_word(s)) {
			n += (size_t)snprintf(out + n, len - n, "%s", s);
			continue;
		}
		out[n++] = '\'';
		for (; *s; s++) {
			if (*s == '\'') {
				memcpy(out + n, "'\\''", 4);
				n += 4;
			} else {
				out[n++] = *s;
			}
		}
		out[n++] = '\'';
		out[n] = '\0';
	}
	out[n] = '\0';
	return out;
}

void sysinfo__add_cmdline(struct profile *p, int argc, char *const argv[])
{
	char *s = sysinfo__quote_argv(argc, argv);

	profile__set_meta(p, "cmdline", s);
	free(s);
}

int sysinfo__iso8601(int64_t realtime_ns, char *buf, size_t size)
{
	time_t t = (time_t)(realtime_ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -EINVAL;
	return 0;
}

void sysinfo__add_start_time(struct profile *p, int64_t realtime_ns)
{
	char buf[64];

	if (!sysinfo__iso8601(realtime_ns, buf, sizeof(buf)))
		profile__set_meta(p, "start_time", buf);
}
