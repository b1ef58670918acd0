/*
 * evspec: perf's event spellings to perf_event_attr; see include/mmprof/evspec.h.
 *
 * Tables follow tools/perf/util/parse-events.c and evsel.c so that names
 * round-trip with `perf list` / `perf stat` output.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmprof/evspec.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },

	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
};

/* Hardware cache events: <cache>-<op>[-misses], as perf's evsel__hw_cache names them. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC",
	[PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};

/* Plural as perf prints "loads"; the singular form is used before "-misses". */
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][2] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "loads", "load" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "stores", "store" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetches", "prefetch" },
};

static int parse_cache(const char *s, struct evspec *ev)
{
	int c, op;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		size_t cl = strlen(cache_names[c]);

		if (strncasecmp(s, cache_names[c], cl) || s[cl] != '-')
			continue;
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			const char *rest = s + cl + 1;
			size_t ol = strlen(cache_ops[op][1]);
			int result;

			if (!strcasecmp(rest, cache_ops[op][0]))
				result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
			else if (!strncasecmp(rest, cache_ops[op][1], ol) &&
				 !strcasecmp(rest + ol, "-misses"))
				result = PERF_COUNT_HW_CACHE_RESULT_MISS;
			else
				continue;
			ev->attr.type = PERF_TYPE_HW_CACHE;
			ev->attr.config = (uint64_t)c | (uint64_t)op << 8 | (uint64_t)result << 16;
			snprintf(ev->name, sizeof(ev->name), "%s-%s%s", cache_names[c],
				 result == PERF_COUNT_HW_CACHE_RESULT_MISS ?
				 cache_ops[op][1] : cache_ops[op][0],
				 result == PERF_COUNT_HW_CACHE_RESULT_MISS ? "-misses" : "");
			return 0;
		}
	}
	return -ENOENT;
}

/* perf's raw config: 1 to 16 hex digits, no 0x, no sign (strtoull takes both) */
static int parse_hex(const char *s, uint64_t *v)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	if (!n || n > 16 || s[n])
		return -EINVAL;
	*v = strtoull(s, NULL, 16);
	return 0;
}

static int read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static bool has_events(const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

const char *evspec__tracefs(struct errmsg *e)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	size_t i;

	int denied = -1;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		errno = 0;
		if (has_events(dirs[i]))
			return dirs[i];
		if (errno == EACCES && denied < 0)
			denied = (int)i;
	}
	/* mounted but closed to this user (tracefs is 0700 root): mounting again cannot help */
	if (denied >= 0) {
		errmsg__set(e, -EACCES, "cannot read the tracepoints in %s: %s; run as root",
			    dirs[denied], strerror(EACCES));
		return NULL;
	}
	/* Nothing mounted: mount it where the kernel provides the mount point. */
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 && has_events(dirs[0]))
		return dirs[0];
	errmsg__set(e, -ENOENT, "cannot find tracefs and cannot mount it on %s: %s; "
		    "run `mount -t tracefs nodev %s` as root", dirs[0], strerror(errno), dirs[0]);
	return NULL;
}

static bool valid_tp_part(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static int parse_tracepoint(const char *sys, const char *name, struct evspec *ev,
			    struct errmsg *e)
{
	char path[512], buf[64];
	const char *dir;
	uint64_t id;
	char *end;
	int err;

	if (!valid_tp_part(sys) || !valid_tp_part(name))
		return errmsg__set(e, -EINVAL, "unknown event '%s:%s'; 'perf list' shows "
				   "the events this machine has", sys, name);
	dir = evspec__tracefs(e);
	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, name);
	err = read_file(path, buf, sizeof(buf));
	if (err == -ENOENT)
		return errmsg__set(e, -EINVAL, "unknown tracepoint '%s:%s' (no %s); "
				   "'perf list tracepoint' shows the events this machine has",
				   sys, name, path);
	if (err)
		return errmsg__set(e, err, "cannot read '%s': %s", path, strerror(-err));
	id = strtoull(buf, &end, 10);
	if (end == buf || *end)
		return errmsg__set(e, -EINVAL, "cannot read '%s': not a number", path);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->tracepoint = true;
	if ((size_t)snprintf(ev->name, sizeof(ev->name), "%.*s:%.*s", 63, sys, 63, name) >=
	    sizeof(ev->name) || strlen(sys) > 63 || strlen(name) > 63)
		return errmsg__set(e, -EINVAL, "tracepoint name '%s:%s' is too long", sys, name);
	return 0;
}

/*
 * Put value into the bits a PMU format string names ("config:0-7",
 * "config1:0-63", "config:0-7,21"), as perf's pmu_format_value does.
 */
static int apply_format(struct perf_event_attr *attr, const char *fmt, uint64_t value)
{
	__u64 *dst;
	const char *p;
	int vbit = 0;

	if (!strncmp(fmt, "config:", 7))
		dst = &attr->config, p = fmt + 7;
	else if (!strncmp(fmt, "config1:", 8))
		dst = &attr->config1, p = fmt + 8;
	else if (!strncmp(fmt, "config2:", 8))
		dst = &attr->config2, p = fmt + 8;
	else
		return -EINVAL;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo, b;

		if (end == p)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		if (lo < 0 || hi > 63 || lo > hi)
			return -EINVAL;
		for (b = lo; b <= hi; b++, vbit++)
			if (vbit < 64 && (value >> vbit & 1))
				*dst |= 1ULL << b;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

static int parse_pmu(const char *spec, size_t speclen, struct evspec *ev, struct errmsg *e)
{
	char pmu[64], terms[256], path[512], buf[128];
	const char *slash = memchr(spec, '/', speclen);
	char *term, *save = NULL;
	char *end;
	int err;

	if (!slash || spec[speclen - 1] != '/' || slash == spec + speclen - 1 ||
	    (size_t)(slash - spec) >= sizeof(pmu) || speclen - (slash - spec) - 2 >= sizeof(terms))
		return errmsg__set(e, -EINVAL, "cannot parse event '%.*s': want pmu/term=value,.../",
				   (int)speclen, spec);
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - spec), spec);
	snprintf(terms, sizeof(terms), "%.*s", (int)(speclen - (slash - spec) - 2), slash + 1);
	if (!valid_tp_part(pmu))
		return errmsg__set(e, -EINVAL, "unknown PMU '%s'", pmu);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (read_file(path, buf, sizeof(buf)))
		return errmsg__set(e, -EINVAL, "unknown PMU '%s' (no %s); 'perf list pmu' "
				   "shows the PMUs this machine has", pmu, path);
	ev->attr.type = (uint32_t)strtoul(buf, &end, 10);
	for (term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		uint64_t v = 1;

		if (eq) {
			*eq = '\0';
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end)
				return errmsg__set(e, -EINVAL, "bad value '%s' for term '%s' in '%.*s'",
						   eq + 1, term, (int)speclen, spec);
		}
		if (!strcmp(term, "config"))
			ev->attr.config = v;
		else if (!strcmp(term, "config1"))
			ev->attr.config1 = v;
		else if (!strcmp(term, "config2"))
			ev->attr.config2 = v;
		else {
			if (!valid_tp_part(term))
				return errmsg__set(e, -EINVAL, "bad term '%s' in '%.*s'",
						   term, (int)speclen, spec);
			snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s",
				 pmu, term);
			err = read_file(path, buf, sizeof(buf));
			if (err)
				return errmsg__set(e, -EINVAL, "PMU '%s' has no term '%s' (no %s)",
						   pmu, term, path);
			if (apply_format(&ev->attr, buf, v))
				return errmsg__set(e, -EINVAL, "cannot use format '%s' of %s", buf, path);
		}
	}
	snprintf(ev->name, sizeof(ev->name), "%.*s", (int)speclen, spec);
	return 0;
}

/* perf's modifiers: u/k/h select what is counted (the rest excluded), p raises precision. */
static int apply_modifiers(const char *mods, struct evspec *ev, const char *spec,
			   struct errmsg *e)
{
	bool u = false, k = false, h = false;
	int precise = 0;
	const char *m;
	size_t len;

	for (m = mods; *m; m++) {
		switch (*m) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'p': precise++; break;
		default:
			return errmsg__set(e, -EINVAL, "unknown modifier '%c' in event '%s' "
					   "(known: u, k, h, p, pp, ppp)", *m, spec);
		}
	}
	if (precise > 3)
		return errmsg__set(e, -EINVAL, "too many 'p' modifiers in event '%s' (at most ppp)",
				   spec);
	if (u || k || h) {
		ev->attr.exclude_user = !u;
		ev->attr.exclude_kernel = !k;
		ev->attr.exclude_hv = !h;
	}
	ev->attr.precise_ip = precise;
	len = strlen(ev->name);
	if (*mods)
		snprintf(ev->name + len, sizeof(ev->name) - len, ":%s", mods);
	return 0;
}

static int parse_base(const char *base, struct evspec *ev)
{
	size_t i;
	uint64_t v;

	for (i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++)
		if (!strcmp(base, named_events[i].name)) {
			ev->attr.type = named_events[i].type;
			ev->attr.config = named_events[i].config;
			snprintf(ev->name, sizeof(ev->name), "%s", base);
			return 0;
		}
	if (base[0] == 'r' && !parse_hex(base + 1, &v)) {
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = v;
		/* as typed, as perf names it: "r00c0" must not become "rc0" in messages */
		snprintf(ev->name, sizeof(ev->name), "%s", base);
		return 0;
	}
	return parse_cache(base, ev);
}

int evspec__parse(const char *spec, struct evspec *ev, struct errmsg *e)
{
	char base[128];
	const char *colon, *mods = "";
	size_t blen;
	int err;

	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	if (!spec || !*spec)
		return errmsg__set(e, -EINVAL, "empty event name");

	/* pmu/terms/[:mods] */
	if (strchr(spec, '/')) {
		const char *last = strrchr(spec, '/');

		if (last[1] == ':')
			mods = last + 2;
		else if (last[1])
			return errmsg__set(e, -EINVAL, "cannot parse event '%s'", spec);
		err = parse_pmu(spec, (size_t)(last - spec) + 1, ev, e);
		return err ? err : apply_modifiers(mods, ev, spec, e);
	}

	colon = strchr(spec, ':');
	blen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (blen >= sizeof(base))
		return errmsg__set(e, -EINVAL, "unknown event '%s'; 'perf list' shows the "
				   "events this machine has", spec);
	memcpy(base, spec, blen);
	base[blen] = '\0';
	if (colon)
		mods = colon + 1;

	if (!parse_base(base, ev))
		return apply_modifiers(mods, ev, spec, e);

	if (colon) {
		/* sys:name[:mods] */
		char name[128];
		const char *c2 = strchr(colon + 1, ':');
		size_t nlen = c2 ? (size_t)(c2 - colon - 1) : strlen(colon + 1);

		if (nlen >= sizeof(name))
			return errmsg__set(e, -EINVAL, "unknown event '%s'", spec);
		memcpy(name, colon + 1, nlen);
		name[nlen] = '\0';
		err = parse_tracepoint(base, name, ev, e);
		if (err)
			return err;
		return apply_modifiers(c2 ? c2 + 1 : "", ev, spec, e);
	}
	return errmsg__set(e, -EINVAL, "unknown event '%s'; 'perf list' shows the events "
			   "this machine has", spec);
}

static bool glob_chars(const char *s, size_t n)
{
	return memchr(s, '*', n) || memchr(s, '?', n) || memchr(s, '[', n);
}

bool evspec__is_glob(const char *spec)
{
	const char *colon, *c2;

	if (!spec || strchr(spec, '/'))
		return false;
	colon = strchr(spec, ':');
	if (!colon)
		return false;
	c2 = strchr(colon + 1, ':');
	return glob_chars(spec, (size_t)((c2 ? c2 : colon + strlen(colon)) - spec));
}

/* scandir filters: tracefs keeps files (enable, filter, header_page) beside the folders */
static int is_subdir(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

static void free_names(struct dirent **l, int n)
{
	while (n > 0)
		free(l[--n]);
	free(l);
}

int evspec__glob(const char *spec, int (*add)(void *ctx, const char *spec), void *ctx,
		 struct errmsg *e)
{
	char sys_pat[128], name_pat[128], path[512], out[320];
	const char *colon = strchr(spec, ':'), *c2, *mods, *dir;
	struct dirent **sys = NULL, **ev = NULL;
	int nsys, nev = 0, i, j, matched = 0, err = 0;
	size_t slen, nlen;

	if (!evspec__is_glob(spec))
		return errmsg__set(e, -EINVAL, "'%s' is not a tracepoint glob (sys:name with * or ?)", spec);
	c2 = strchr(colon + 1, ':');
	mods = c2 ? c2 : "";
	slen = (size_t)(colon - spec);
	nlen = c2 ? (size_t)(c2 - colon - 1) : strlen(colon + 1);
	if (!slen || !nlen || slen >= sizeof(sys_pat) || nlen >= sizeof(name_pat))
		return errmsg__set(e, -EINVAL, "cannot parse tracepoint glob '%s'; want sys:name "
				   "with * or ? (huge_memory:*)", spec);
	memcpy(sys_pat, spec, slen);
	sys_pat[slen] = '\0';
	memcpy(name_pat, colon + 1, nlen);
	name_pat[nlen] = '\0';
	dir = evspec__tracefs(e);
	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events", dir);
	nsys = scandir(path, &sys, is_subdir, alphasort);
	if (nsys < 0)
		return errmsg__set(e, -errno, "cannot list '%s': %s", path, strerror(errno));
	for (i = 0; i < nsys && !err; i++) {
		if (fnmatch(sys_pat, sys[i]->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, sys[i]->d_name);
		nev = scandir(path, &ev, is_subdir, alphasort);
		if (nev < 0)
			continue;	/* a file where a folder was expected: not a subsystem */
		for (j = 0; j < nev && !err; j++) {
			if (fnmatch(name_pat, ev[j]->d_name, 0))
				continue;
			if ((size_t)snprintf(out, sizeof(out), "%s:%s%s", sys[i]->d_name, ev[j]->d_name,
					     mods) >= sizeof(out))
				continue;
			matched++;
			err = add(ctx, out);
		}
		free_names(ev, nev);
	}
	free_names(sys, nsys);
	if (err)
		return err;
	if (!matched)
		return errmsg__set(e, -ENOENT, "no tracepoint matches '%s'; 'perf list tracepoint' "
				   "shows the events this machine has", spec);
	return matched;
}
