/*
 * work: how much work each run did, the denominator of every cost per
 * operation (cost.h).  The workload's own metrics are few (5-10 a run), so
 * the scans here are linear.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/keykind.h"
#include "mmprof/xalloc.h"

/* Record's own families (its metrics, the counters) and the costs are not the benchmark's work. */
static bool workload_metric(const char *k)
{
	return k && strchr(k, '.') && !keykind__under(k, KEYFAM_RECORDER | KEYFAM_COUNTER | KEYFAM_DERIVED);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static const char *last_component(const char *k)
{
	const char *dot = strrchr(k, '.');

	return dot ? dot + 1 : k;
}

/*
 * will-it-scale's robot keys (lkp-tests stats/will-it-scale, branch ops'
 * parsing) are operations per second: the total (workload) and its share
 * per task.
 */
static const char *const wis_rates[] = {
	"will-it-scale.workload", "will-it-scale.per_process_ops", "will-it-scale.per_thread_ops",
};

static bool wis_rate(const char *k)
{
	size_t i;

	for (i = 0; i < sizeof(wis_rates) / sizeof(wis_rates[0]); i++)
		if (!strcmp(k, wis_rates[i]))
			return true;
	return false;
}

static bool is_rate(const char *k)
{
	return ends_with(k, "_per_sec") || ends_with(k, "_per_second") || ends_with(k, "/s") ||
	       wis_rate(k);
}

static bool has_metric(const struct profile *p, const char *key)
{
	uint32_t id = profile__str_id(p, key);
	size_t i;

	for (i = 0; id && i < p->nr_metrics; i++)
		if (p->metrics[i].key == id)
			return true;
	return false;
}

/* The distinct workload metrics of ps[0] that every profile has and pick() accepts. */
static size_t candidates(const struct profile *const *ps, size_t nr, bool (*pick)(const char *),
			 char *list, size_t size, char *first, size_t first_size)
{
	const struct profile *p = ps[0];
	size_t i, j, n = 0, len = 0;
	char **seen = xcalloc(p->nr_metrics + 1, sizeof(*seen));

	list[0] = first[0] = '\0';
	for (i = 0; i < p->nr_metrics; i++) {
		const char *k = profile__str(p, p->metrics[i].key);
		bool dup = false, everywhere = true;

		if (!workload_metric(k) || !pick(k))
			continue;
		for (j = 0; j < n && !dup; j++)
			dup = !strcmp(seen[j], k);
		for (j = 1; j < nr && everywhere && !dup; j++)
			everywhere = has_metric(ps[j], k);
		if (dup || !everywhere)
			continue;
		seen[n++] = (char *)k;
		if (n == 1)
			snprintf(first, first_size, "%s", k);
		if (len < size)
			len += (size_t)snprintf(list + len, size - len, "%s%s", len ? ", " : "", k);
	}
	free(seen);
	return n;
}

static bool pick_count(const char *k)
{
	return !strcmp(last_component(k), "ops");
}

static bool pick_rate(const char *k)
{
	/* will-it-scale: its total, not the per-task shares of it */
	return ends_with(last_component(k), "ops_per_sec") || !strcmp(k, wis_rates[0]);
}

static bool pick_any(const char *k)
{
	(void)k;
	return true;
}

int cost_work__choose(const struct profile *const *ps, const char *const *names, size_t nr,
		      const char *per, struct cost_work *w, struct errmsg *e)
{
	char list[256], first[256];
	size_t i, n;

	memset(w, 0, sizeof(*w));
	w->kind = COST_WORK_SECONDS;
	if (per) {
		for (i = 0; i < nr; i++) {
			char pname[32];

			if (has_metric(ps[i], per))
				continue;
			snprintf(pname, sizeof(pname), "profile %zu", i);
			candidates(ps + i, 1, pick_any, list, sizeof(list), first, sizeof(first));
			return errmsg__set(e, -EINVAL, "--per '%s': no run of '%s' has that metric; its work metrics: %s",
					   per, names && names[i] ? names[i] : pname, *list ? list : "none");
		}
		w->kind = is_rate(per) ? COST_WORK_RATE : COST_WORK_COUNT;
		snprintf(w->key, sizeof(w->key), "%s", per);
		return 0;
	}
	if (!nr)
		return 0;
	n = candidates(ps, nr, pick_count, list, sizeof(list), first, sizeof(first));
	if (n == 1) {
		w->kind = COST_WORK_COUNT;
		snprintf(w->key, sizeof(w->key), "%s", first);
		return 0;
	}
	if (!n) {
		n = candidates(ps, nr, pick_rate, list, sizeof(list), first, sizeof(first));
		if (n == 1) {
			w->kind = COST_WORK_RATE;
			snprintf(w->key, sizeof(w->key), "%s", first);
			return 0;
		}
	}
	if (n) {
		snprintf(w->note, sizeof(w->note),
			 "%zu work counts (%s), not one operation: costs are per second of run; name one with --per KEY",
			 n, list);
		return 0;
	}
	/* files of different workloads: each has its count, none has the other's */
	for (i = 0, n = 0; i < nr && !n; i++) {
		n = candidates(ps + i, 1, pick_count, list, sizeof(list), first, sizeof(first));
		if (!n)
			n = candidates(ps + i, 1, pick_rate, list, sizeof(list), first, sizeof(first));
	}
	if (n)
		snprintf(w->note, sizeof(w->note),
			 "no work count that every file has (%s has %s): costs are per second of run; name one with --per KEY",
			 names && names[i - 1] ? names[i - 1] : "a file", first);
	else
		snprintf(w->note, sizeof(w->note),
			 "no work count in the workload's metrics (no <name>.ops or .ops_per_sec key): costs are per second of run; name one with --per KEY");
	return 0;
}

double cost_work__run(const struct cost_work *w, const struct profile *p, uint32_t run)
{
	const struct run *r = run < p->nr_runs ? &p->runs[run] : NULL;
	double wall, v = NAN;
	char what[64];
	uint32_t id;
	size_t i;

	if (!r || run__status(r, what, sizeof(what)))
		return NAN;
	wall = (double)r->wall_ns / 1e9;
	if (w->kind == COST_WORK_SECONDS)
		return wall > 0 ? wall : NAN;
	id = profile__str_id(p, w->key);
	for (i = 0; id && i < p->nr_metrics; i++)
		if (p->metrics[i].run == run && p->metrics[i].key == id)
			v = p->metrics[i].value;
	if (w->kind == COST_WORK_RATE)
		v = wall > 0 ? v * wall : NAN;
	return isfinite(v) && v > 0 ? v : NAN;
}

const char *cost_work__per(const struct cost_work *w)
{
	return w->kind == COST_WORK_SECONDS ? "s" : "op";
}
