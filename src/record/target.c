/*
 * target: the watched target of a record or stat command line; see
 * include/mmprof/target.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/sysinfo.h"
#include "mmprof/target.h"
#include "mmprof/xalloc.h"

#define CPU_MAX (1u << 20)	/* far above any machine's CPU numbers */

/*
 * The next range of a CPU list ("0-3,8") at *s: 1 with it, 0 at the end,
 * -1 when *s is no list.
 */
static int next_range(const char **s, unsigned *lo, unsigned *hi)
{
	const char *p = *s;
	char *end;
	unsigned long a, b;

	if (!*p || *p == '\n')
		return 0;
	if (*p < '0' || *p > '9')
		return -1;
	a = b = strtoul(p, &end, 10);
	if (*end == '-') {
		p = end + 1;
		if (*p < '0' || *p > '9')
			return -1;
		b = strtoul(p, &end, 10);
	}
	if (b < a || b >= CPU_MAX)
		return -1;
	if (*end == ',' && end[1] && end[1] != '\n')
		end++;
	else if (*end && *end != '\n')
		return -1;
	*s = end;
	*lo = (unsigned)a;
	*hi = (unsigned)b;
	return 1;
}

static bool in_list(const char *list, unsigned cpu)
{
	unsigned lo, hi;

	while (list && next_range(&list, &lo, &hi) > 0)
		if (cpu >= lo && cpu <= hi)
			return true;
	return false;
}

int target__check_cpus(const char *cpu_list, const char *online, const char *present,
		       struct errmsg *e)
{
	const char *s = cpu_list;
	unsigned lo, hi, cpu;
	int r;

	while ((r = next_range(&s, &lo, &hi)) > 0)
		for (cpu = lo; online && cpu <= hi; cpu++) {
			if (in_list(online, cpu))
				continue;
			if (present && in_list(present, cpu))
				return errmsg__set(e, -ENODEV, "CPU %u is offline (CPUs %s are online)",
						   cpu, online);
			return errmsg__set(e, -ENODEV, "CPU %u does not exist (this machine has CPUs %s)",
					   cpu, present ? present : online);
		}
	if (r < 0 || s == cpu_list)
		return errmsg__set(e, -EINVAL, "invalid CPU list '%s' for -C; expected CPU numbers "
				   "and ranges such as 0-3,8", cpu_list);
	return 0;
}

struct cpu_range {
	unsigned lo, hi;
};

static int cmp_range(const void *a, const void *b)
{
	const struct cpu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

char *target__merge_cpus(const char *cpu_list)
{
	const char *s = cpu_list;
	struct cpu_range *r;
	size_t n = 0, i, len = 0, size;
	unsigned lo, hi;
	bool repeats = false;
	char *out;

	if (!cpu_list)
		return NULL;
	/* a range takes 2 characters at least ("0,"): this many at most */
	r = xmalloc((strlen(cpu_list) / 2 + 1) * sizeof(*r));
	while (next_range(&s, &lo, &hi) > 0)
		r[n++] = (struct cpu_range){ lo, hi };
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1; i < n && !repeats; i++)
		repeats = r[i].lo <= r[i - 1].hi;
	if (!repeats) {
		free(r);
		return xstrdup(cpu_list);
	}
	/* "1048575-1048575," per range at most: CPU numbers stay below CPU_MAX */
	size = n * 16 + 1;
	out = xmalloc(size);
	for (i = 0; i < n; i++) {
		lo = r[i].lo;
		hi = r[i].hi;
		/* overlapping or next to each other: one range */
		while (i + 1 < n && r[i + 1].lo <= hi + 1) {
			i++;
			if (r[i].hi > hi)
				hi = r[i].hi;
		}
		if (lo == hi)
			len += (size_t)snprintf(out + len, size - len, "%s%u", len ? "," : "", lo);
		else
			len += (size_t)snprintf(out + len, size - len, "%s%u-%u", len ? "," : "", lo, hi);
	}
	free(r);
	return out;
}

void target_spec__release(struct target_spec *t)
{
	if (!t)
		return;
	free(t->cpu_list);
	t->cpu_list = NULL;
}

/* -C's list against the CPUs this machine has online. */
static int check_cpus(const char *cpu_list, struct errmsg *e)
{
	char online[4096], present[4096];
	/* a list longer than the buffer (thousands of CPUs, every other one
	 * offline) was cut: not known then */
	bool have_online = sysinfo__read_line("/sys/devices/system/cpu/online", online,
					      sizeof(online)) && strlen(online) + 1 < sizeof(online);
	bool have_present = sysinfo__read_line("/sys/devices/system/cpu/present", present,
					       sizeof(present)) && strlen(present) + 1 < sizeof(present);

	/* unreadable sysfs: the syntax only, the open says the rest */
	return target__check_cpus(cpu_list, have_online ? online : NULL,
				  have_present ? present : NULL, e);
}

int target__check(bool has_command, const char *pid_list, bool system_wide,
		  const char *cpu_list, const char *verb, struct target_spec *out,
		  struct errmsg *e)
{
	/* perf: -C alone is system-wide on those CPUs */
	bool all = system_wide || cpu_list;

	if (pid_list && all)
		return errmsg__set(e, -EINVAL, "give only one of -p and -a (or -C)%s",
				   has_command ? "; the command after '--' may come with either" : "");
	if (!has_command && !pid_list && !all)
		return errmsg__set(e, -EINVAL, "nothing to %s: give a command after '--', -p PID "
				   "or -a", verb);
	if (cpu_list) {
		int err = check_cpus(cpu_list, e);

		if (err)
			return err;
	}
	out->command = has_command;
	out->mode = all ? TARGET_SYSTEM : pid_list ? TARGET_PID : TARGET_FORK;
	out->cpu_list = target__merge_cpus(cpu_list);
	return 0;
}

const char *target__mode_name(enum target_mode mode)
{
	static const char *const names[] = { "fork", "pid", "system" };

	return names[mode];
}

