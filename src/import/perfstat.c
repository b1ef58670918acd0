/*
 * perfstat: the text of `perf stat -x, -I MS` (the kernel test robot's
 * perf-stat monitor: `perf stat -a --scale -I 1000 -x , -e ... --log-fd 1
 * -- CMD`), parsed a line at a time into a stat-only profile (import.h).
 * A pure function of its input, as perfscript is: no I/O, every field
 * checked, so that it can be fuzzed.
 *
 * A record line is "TIME,VALUE,UNIT,EVENT,RUNTIME,PCT[,METRIC,METRIC-UNIT]"
 * (perf's --field-separator output with -I): TIME seconds since the start,
 * VALUE the interval's count, scaled by --scale (the default), or
 * "<not counted>" / "<not supported>", UNIT "msec" for the clocks, RUNTIME
 * the ns the counter ran, PCT the share of the interval it ran.  Per-socket
 * and per-die output ("S0,12," after the time) is summed over sockets.
 * Other lines are the command line the robot's monitor echoes (kept as
 * meta perf_cmdline), perf's "# started on" comments, blanks, and with
 * --log-fd 1 the command's own output: its "name.metric: value" lines
 * become metrics of the run, as record stores them, the rest is skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/import.h"
#include "mmprof/workload.h"
#include "mmprof/xalloc.h"

#define MAX_FIELDS 16

void perfstat__init(struct perfstat *ps, struct profile *p)
{
	memset(ps, 0, sizeof(*ps));
	ps->p = p;
	if (!p->nr_runs) {
		struct run r = { .exit_code = -1 };

		profile__add_run(p, &r);
	}
}

void perfstat__release(struct perfstat *ps)
{
	free(ps->totals);
	ps->totals = NULL;
	ps->nr_totals = ps->alloc_totals = 0;
}

/* "  1.001598575," : a decimal time and a comma */
int perfstat__sniff(const char *line, size_t len)
{
	size_t i = 0, d = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#')
		return 0;
	if (memmem(line, len, "perf stat ", 10))
		return 0;	/* the command line the robot's monitor echoes */
	for (; i < len && isdigit((unsigned char)line[i]); i++)
		d++;
	if (d && i < len && line[i] == '.') {
		for (i++, d = 0; i < len && isdigit((unsigned char)line[i]); i++)
			d++;
		if (d && i < len && line[i] == ',')
			return 1;
	}
	{
		char key[256];
		double v;

		if (workload__parse_metric(line, len, key, sizeof(key), &v))
			return 0;
	}
	return -1;
}

/* Split at ',' into f[] (no quoting: perf quotes nothing). */
static size_t split(const char *s, size_t len, const char **f, size_t *fl, size_t max)
{
	size_t n = 0, start = 0, i;

	for (i = 0; i <= len && n < max; i++) {
		if (i == len || s[i] == ',') {
			f[n] = s + start;
			fl[n++] = i - start;
			start = i + 1;
		}
	}
	return n;
}

static bool field_is(const char *f, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(f, s, len);
}

/* A decimal in f[0..len) (no sign, no exponent); false when it is not one. */
static bool parse_num(const char *f, size_t len, double *v)
{
	char buf[64], *end;
	size_t i;

	while (len && (*f == ' ' || *f == '\t'))
		f++, len--;
	if (!len || len >= sizeof(buf))
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)f[i]) && f[i] != '.')
			return false;
	memcpy(buf, f, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	return *end == '\0' && isfinite(*v) && *v < 1.8e19;
}

static struct counter *total_of(struct perfstat *ps, uint32_t name)
{
	size_t i;

	for (i = 0; i < ps->nr_totals; i++)
		if (ps->totals[i].name == name)
			return &ps->totals[i];
	if (ps->nr_totals >= PERFSTAT_MAX_EVENTS)
		return NULL;
	XGROW(ps->totals, ps->alloc_totals, ps->nr_totals);
	ps->totals[ps->nr_totals] = (struct counter){ .run = 0, .name = name, .supported = 1 };
	return &ps->totals[ps->nr_totals++];
}

static int bad(struct perfstat *ps, struct errmsg *e, const char *why)
{
	return errmsg__set(e, -EPROTO, "line %llu: not perf stat -x, -I output: %s",
			   (unsigned long long)ps->line_no, why);
}

static int record(struct perfstat *ps, const char *line, size_t len, struct errmsg *e)
{
	const char *f[MAX_FIELDS], *ev;
	size_t fl[MAX_FIELDS], n = split(line, len, f, fl, MAX_FIELDS), k = 1, evl;
	struct counter_interval ci = { .run = 0 };
	struct counter *tot;
	double t, v = 0, runtime = 0, pct = 100;
	bool not_counted = false, not_supported = false, msec;

	if (!parse_num(f[0], fl[0], &t) || t > 1e9)
		return bad(ps, e, "a time that is no number of seconds");
	/* --per-socket, --per-die: "S0,12," or "S0-D0,12," */
	if (n > k + 1 && fl[k] > 1 && f[k][0] == 'S' && isdigit((unsigned char)f[k][1]))
		k += 2;
	if (n < k + 5)
		return bad(ps, e, "fewer than the 6 fields TIME,VALUE,UNIT,EVENT,RUNTIME,PCT");
	if (field_is(f[k], fl[k], "<not counted>"))
		not_counted = true;
	else if (field_is(f[k], fl[k], "<not supported>"))
		not_supported = true;
	else if (!parse_num(f[k], fl[k], &v))
		return bad(ps, e, "a value that is no number");
	msec = field_is(f[k + 1], fl[k + 1], "msec");
	ev = f[k + 2];
	evl = fl[k + 2];
	/* "cpu_atom/cpu-cycles/": the event inside the PMU's name, as the robot reads it */
	if (evl > 2 && ev[evl - 1] == '/' && memchr(ev, '/', evl - 1)) {
		const char *sl = memchr(ev, '/', evl - 1);

		evl = (size_t)(ev + evl - 1 - (sl + 1));
		ev = sl + 1;
	}
	if (!evl || memchr(ev, ' ', evl) || memchr(ev, '\t', evl))
		return bad(ps, e, "an empty event name, or one with a blank");
	if ((fl[k + 3] && !parse_num(f[k + 3], fl[k + 3], &runtime)) ||
	    (fl[k + 4] && !parse_num(f[k + 4], fl[k + 4], &pct)) || pct > 100)
		return bad(ps, e, "a run time or percentage that is no number");

	ci.name = profile__intern_len(ps->p, ev, evl);
	ci.t_ns = (uint64_t)llround(t * 1e9);
	/*
	 * --scale printed the value scaled to the whole interval; stored as
	 * counted (value * pct), enabled and running as perf had them, so
	 * that the keys' own scaling gives perf's value back and a
	 * multiplexed counter says so (perf-stat.scaled.*).
	 */
	if (msec)
		v *= 1e6;
	ci.running = (uint64_t)llround(runtime);
	ci.enabled = pct > 0 ? (uint64_t)llround(runtime * 100.0 / pct) : ci.running;
	ci.value = (uint64_t)llround(pct > 0 ? v * pct / 100.0 : v);
	if (not_counted) {
		ci.value = ci.running = 0;
		if (!ci.enabled)
			ci.enabled = 1;	/* enabled, never on the PMU: an unknown, not a 0 */
	}
	tot = total_of(ps, ci.name);
	if (!tot)
		return errmsg__set(e, -EPROTO, "line %llu: more than %u events",
				   (unsigned long long)ps->line_no, PERFSTAT_MAX_EVENTS);
	if (not_supported) {
		tot->supported = 0;
	} else {
		tot->value += ci.value;
		tot->enabled += ci.enabled;
		tot->running += ci.running;
		profile__add_interval(ps->p, &ci);
	}
	if (ci.t_ns > ps->last_ns)
		ps->last_ns = ci.t_ns;
	if (!ps->first_ns || ci.t_ns < ps->first_ns)
		ps->first_ns = ci.t_ns;
	ps->records++;
	return 0;
}

int perfstat__line(struct perfstat *ps, const char *line, size_t len, struct errmsg *e)
{
	char key[256];
	double v;
	int kind;

	ps->line_no++;
	if (len > PERFSCRIPT_MAX_LINE)
		return errmsg__set(e, -EPROTO, "line %llu: longer than %u bytes: not perf stat "
				   "output", (unsigned long long)ps->line_no, PERFSCRIPT_MAX_LINE);
	if (memchr(line, '\0', len))
		return errmsg__set(e, -EPROTO, "line %llu: a NUL byte: not perf stat output",
				   (unsigned long long)ps->line_no);
	kind = perfstat__sniff(line, len);
	if (kind == 1)
		return record(ps, line, len, e);
	if (memmem(line, len, "perf stat ", 10) && !profile__meta(ps->p, "perf_cmdline")) {
		const char *s = memmem(line, len, "perf stat ", 10);
		char *cmd = xstrndup(s, len - (size_t)(s - line));

		profile__set_meta(ps->p, "perf_cmdline", cmd);
		free(cmd);
		return 0;
	}
	/* the command's own output (--log-fd 1): its metric lines, as record keeps them */
	if (workload__parse_metric(line, len, key, sizeof(key), &v) &&
	    ps->nr_metrics < PERFSTAT_MAX_METRICS) {
		profile__add_metric(ps->p, 0, key, v);
		ps->nr_metrics++;
	}
	return 0;
}

int perfstat__finish(struct perfstat *ps, struct errmsg *e)
{
	struct run *r = &ps->p->runs[0];
	char buf[32];
	size_t i;

	if (!ps->records)
		return errmsg__set(e, -ENODATA, "no perf stat -x, -I records");
	for (i = 0; i < ps->nr_totals; i++)
		profile__add_counter(ps->p, &ps->totals[i]);
	/* the run lasted until the last reading (perf's last, partial interval) */
	r->wall_ns = (int64_t)ps->last_ns;
	profile__set_meta(ps->p, "stat_only", "1");
	/* the first reading is one interval after the start: -I to 10 ms */
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)(llround((double)ps->first_ns / 1e7) * 10));
	profile__set_meta(ps->p, "interval_ms", buf);
	return 0;
}
