/*
 * keykind: the key grammar's one owner (include/mmprof/keykind.h).  The
 * table of families first, then the inner grammars of perf-profile and
 * cost keys, then the questions asked of a key as a whole.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/keykind.h"
#include "mmprof/mmstate.h"

#define MON KEYFAM_MONITOR

/* One row per family; the robot's monitors as lkp-tests names them. */
static const struct keyfamily families[] = {
	{ "perf-profile", MON },
	{ "perf-stat", MON | KEYFAM_COUNTER | KEYFAM_PERF_METRIC },
	{ "perf-sched", MON | KEYFAM_RECORDER },
	{ "perf-c2c", MON },
	{ "proc-vmstat", MON | KEYFAM_RECORDER | KEYFAM_SYSTEM | KEYFAM_PERF_METRIC },
	{ "meminfo", MON | KEYFAM_RECORDER | KEYFAM_SYSTEM },
	{ "vmstat", MON },
	{ "mpstat", MON },
	{ "iostat", MON },
	{ "cpuidle", MON },
	{ "sched_debug", MON },
	{ "slabinfo", MON },
	{ "softirqs", MON },
	{ "interrupts", MON },
	{ "turbostat", MON },
	{ "numa-vmstat", MON },
	{ "numa-meminfo", MON },
	{ "numa-numastat", MON },
	{ "pagetypeinfo", MON },
	{ "buddyinfo", MON },
	{ "lock_stat", MON },
	{ "uptime", MON },
	{ "boot-time", MON },
	{ "diskstats", MON },
	{ "tracepoint", MON | KEYFAM_RECORDER },
	{ "latency_stats", MON },
	{ "kmsg", MON },
	{ "dmesg", MON },
	{ "cost", KEYFAM_DERIVED },
};

static bool prefixed(const char *key, const char *prefix)
{
	return !strncmp(key, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

const struct keyfamily *keykind__family(const char *key)
{
	size_t len = strcspn(key, "."), i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strlen(families[i].name) == len && !strncmp(key, families[i].name, len))
			return &families[i];
	return NULL;
}

bool keykind__is(const char *key, unsigned flags)
{
	const struct keyfamily *f = keykind__family(key);

	return f && (f->flags & flags);
}

bool keykind__under(const char *key, unsigned flags)
{
	return key[strcspn(key, ".")] == '.' && keykind__is(key, flags);
}

size_t keykind__sort_family_len(const char *key)
{
	return strcspn(key, ".");
}

size_t keykind__noise_family_len(const char *key)
{
	size_t n = strcspn(key, ".");
	enum keykind_cost c = keykind__cost(key);

	if (c == KEYCOST_NONE || c == KEYCOST_TOTAL || c == KEYCOST_WORK)
		return n;
	n += 1 + strcspn(key + n + 1, ".");
	return key[n] ? n + 1 + strcspn(key + n + 1, ".") : n;
}

/* ---- perf-profile ---- */

static const char PP[] = "perf-profile.";
#define PP_LEN (sizeof(PP) - 1)

enum keykind_profile keykind__profile(const char *key)
{
	const char *k = key + PP_LEN;

	if (strncmp(key, PP, PP_LEN))
		return KEYPROF_NONE;
	return prefixed(k, "children.") ? KEYPROF_CHILDREN : prefixed(k, "self.") ? KEYPROF_SELF :
	       prefixed(k, "calltrace.") ? KEYPROF_CALLTRACE : KEYPROF_OTHER;
}

size_t keykind__profile_group_len(const char *key)
{
	if (!strncmp(key, PP, PP_LEN))
		return PP_LEN + strcspn(key + PP_LEN, ".");
	return strlen(key);
}

const char *keykind__profile_event(const char *key, size_t *len)
{
	const char *e;

	if (strncmp(key, PP, PP_LEN) || !(e = strchr(key + PP_LEN, '.')))
		return NULL;
	e++;
	*len = strcspn(e, ".");
	return e;
}

const char *keykind__profile_symbol(const char *key)
{
	size_t len;
	const char *e = keykind__profile_event(key, &len);

	return e && e[len] == '.' ? e + len + 1 : NULL;
}

/* Length of ".cold", ".cold.N", ".llvm.N", ".lto_priv.N" at s, else 0. */
static size_t clone_suffix(const char *s)
{
	static const char *const tags[] = { ".cold", ".llvm.", ".lto_priv." };
	size_t i, n, d;

	/* most dots start a frame name: reject on the first letter */
	if (s[1] != 'c' && s[1] != 'l')
		return 0;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		n = strlen(tags[i]);
		if (strncmp(s, tags[i], n))
			continue;
		if (i == 0) {
			/* .cold must end the name: followed by '.', or the end */
			if (s[n] && s[n] != '.')
				continue;
			if (s[n] == '.' && isdigit((unsigned char)s[n + 1])) {
				for (d = n + 1; isdigit((unsigned char)s[d]); d++)
					;
				if (!s[d] || s[d] == '.')
					return d;
			}
			return n;
		}
		for (d = n; isdigit((unsigned char)s[d]); d++)
			;
		if (d > n && (!s[d] || s[d] == '.'))
			return d;
	}
	return 0;
}

size_t keykind__normalize(const char *key, char *buf, size_t size)
{
	size_t out = 0, i = 0, skip;
	bool pp = !strncmp(key, PP, PP_LEN);

	while (key[i]) {
		if (pp && key[i] == '.' && (skip = clone_suffix(key + i))) {
			i += skip;
			continue;
		}
		if (out + 1 < size)
			buf[out] = key[i];
		out++;
		i++;
	}
	if (size)
		buf[out < size ? out : size - 1] = '\0';
	return out;
}

/* ---- costs per op ---- */

enum keykind_cost keykind__cost(const char *key)
{
	const char *k = key + 5;

	if (strncmp(key, "cost.", 5))
		return KEYCOST_NONE;
	if (!strcmp(k, "work"))
		return KEYCOST_WORK;
	return prefixed(k, "total.") ? KEYCOST_TOTAL : prefixed(k, "self.") ? KEYCOST_SELF :
	       prefixed(k, "children.") ? KEYCOST_CHILDREN : prefixed(k, "part.") ? KEYCOST_PART :
	       KEYCOST_OTHER;
}

const char *keykind__cost_event(const char *key, size_t *len)
{
	const char *e;

	if (keykind__cost(key) == KEYCOST_NONE || !(e = strchr(key + 5, '.')))
		return NULL;
	e++;
	*len = strcspn(e, ".");
	return e;
}

/* ---- a key as a whole ---- */

bool keykind__absolute(const char *key)
{
	size_t len = strlen(key);

	/* "perf-profile" without its dot: a key of that family spelled without one too */
	return prefixed(key, "perf-profile") || keykind__cost(key) == KEYCOST_PART ||
	       (len && key[len - 1] == '%');
}

bool keykind__tracepoint(const char *key)
{
	return prefixed(key, "tracepoint.");
}

bool keykind__address(const char *key)
{
	const char *last = strrchr(key, '.');
	size_t i;

	/* tpstats spells a 2 MiB region "0x<hex>" and no other bucket so */
	if (!keykind__tracepoint(key) || !last || strncmp(last + 1, "0x", 2) || !last[3])
		return false;
	for (i = 3; last[i]; i++)
		if (!isxdigit((unsigned char)last[i]))
			return false;
	return true;
}

bool keykind__ambient(const char *key)
{
	/* the rise of what processes hold while the workload ran is its own (mmstate.h) */
	if (prefixed(key, "meminfo."))
		return !prefixed(key + 8, "rise.");
	/* proc-vmstat.delta.* count events over the run, as the counters do */
	return prefixed(key, "proc-vmstat.") && !prefixed(key + 12, "delta.") &&
	       !prefixed(key + 12, "rise.") && mmstate__is_level(key + 12);
}

bool keykind__score(const char *key)
{
	static const char *const rate[] = {
		".ops_per_sec", ".throughput", ".per_process_ops", ".per_thread_ops",
	};
	size_t len = strlen(key), i;

	if (keykind__is(key, KEYFAM_MONITOR | KEYFAM_DERIVED))
		return false;
	for (i = 0; i < sizeof(rate) / sizeof(rate[0]); i++) {
		size_t l = strlen(rate[i]);

		if (len > l && !strcmp(key + len - l, rate[i]))
			return true;
	}
	return false;
}

bool keykind__score_by(const char *glob, const char *key)
{
	if (glob)
		return *glob && !fnmatch(glob, key, 0);
	return keykind__score(key);
}

bool keykind__workload_metric(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot && !keykind__is(key, KEYFAM_MONITOR | KEYFAM_DERIVED) && !prefixed(dot + 1, "time.");
}

bool keykind__perf_stat_rate(const char *key)
{
	const char *k = key + strlen("perf-stat.");

	if (!prefixed(key, "perf-stat."))
		return false;
	if (prefixed(k, "ps."))
		k += 3;
	else if (prefixed(k, "i."))
		k += 2;
	else
		return false;
	return !strchr(k, '.') && !strstr(k, "clock") && !strstr(k, "time");
}

bool keykind__elapsed_time(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot && !keykind__is(key, KEYFAM_MONITOR | KEYFAM_DERIVED) && !strcmp(dot + 1, "time.elapsed_time");
}

int keykind__goodness(const char *key)
{
	/* besides the scores (keykind__score): counts of work and other rates */
	static const char *const more[] = {
		".ops", "_per_sec", "_per_second", ".workload", "bogo_ops", ".score", "ops/s",
	};
	static const char *const less[] = { "latency", "_ns", "_us", "_ms", ".elapsed", "_time" };
	size_t i;

	if (keykind__cost(key) != KEYCOST_NONE)
		return -1;	/* CPU per operation */
	if (!keykind__workload_metric(key))
		return 0;
	if (keykind__score(key))
		return 1;
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (ends_with(key, more[i]))
			return 1;
	for (i = 0; i < sizeof(less) / sizeof(less[0]); i++)
		if (ends_with(key, less[i]))
			return -1;
	return 0;
}

void keykind__measured_unit(const char *key, char *buf, size_t size)
{
	size_t n = strcspn(key, "."), len = 0;
	const char *ev;

	if (keykind__profile(key) != KEYPROF_NONE) {
		ev = keykind__profile_event(key, &len);
		snprintf(buf, size, "%s*.%.*s", PP, (int)len, ev ? ev : "");
		return;
	}
	if (keykind__tracepoint(key))
		n += key[n] ? 1 + strcspn(key + n + 1, ".") : 0;
	snprintf(buf, size, "%.*s", (int)n, key);
}

/* Length of the key's first n components ("a.b" for n 2 of "a.b.c"), 0 when it has no more. */
static size_t components(const char *key, int n)
{
	const char *s = key;

	while (n--) {
		s = strchr(s, '.');
		if (!s)
			return 0;
		s++;
	}
	return (size_t)(s - key) - 1;
}

bool keykind__domain(const char *key, char *buf, size_t size, bool *whole)
{
	enum keykind_cost c = keykind__cost(key);
	size_t n = 0;

	*whole = false;
	if (keykind__profile(key) != KEYPROF_NONE || c == KEYCOST_SELF || c == KEYCOST_CHILDREN ||
	    c == KEYCOST_PART)
		n = components(key, 3);
	else if (keykind__tracepoint(key))
		n = components(key, 2);
	else if (prefixed(key, "perf-sched.")) {
		/* perf-sched[.offcpu].<family>.{avg,max}.ms.<stack>; the count is <family>.count.<stack> */
		int skip = prefixed(key, "perf-sched.offcpu.");

		n = components(key, (prefixed(key + 11 + 7 * skip, "wait_and_delay.count.") ? 3 : 4) +
				    skip);
	}
	else if (prefixed(key, "perf-stat.ps.")) {
		*whole = true;
		return (size_t)snprintf(buf, size, "perf-stat.scaled.%s%%", key + 13) < size;
	}
	if (!n || n + 2 > size)
		return false;
	memcpy(buf, key, n + 1);	/* the '.' after the domain included */
	buf[n + 1] = '\0';
	return true;
}
