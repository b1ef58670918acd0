/*
 * test-report-tracepoints: the `report --tracepoints` view on synthetic
 * tracepoint metrics.  A latency histogram (mmap_lock acquire latency,
 * "<=N" microsecond buckets) is listed in bucket order, not by count, and
 * its shares are of its own stated total (the timed acquisitions), not of
 * the event's hits (trylocks have no start event and no latency); exact
 * values (page order) stay most frequent first, "other" included in their
 * total.  Every field's shares add up to 100 %.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/report.h"
#include "mmprof/trace.h"

#define LAT "tracepoint.mmap_lock:mmap_lock_acquire_returned."
#define ORD "tracepoint.kmem:mm_page_alloc."

static char *report(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct outbuf out;
	int err;

	if (!f)
		return NULL;
	outbuf__init_file(&out, f, false);
	err = tpstats__report(p, &out);
	outbuf__flush(&out);
	outbuf__release(&out);
	if (err) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* the share printed on the line that starts with "  <label> " */
static double share(const char *out, const char *label)
{
	char pat[128];
	const char *l;
	double count, pct;

	snprintf(pat, sizeof(pat), "\n  %s ", label);
	l = strstr(out, pat);
	if (!l || sscanf(l + strlen(pat), "%lf %lf%%", &count, &pct) != 2)
		return -1;
	return pct;
}

static long pos(const char *out, const char *s)
{
	const char *l = strstr(out, s);

	return l ? l - out : -1;
}

int main(void)
{
	struct profile *p = profile__new();
	struct run r = { .wall_ns = 1000000000 };
	char *out;
	double sum;

	profile__add_run(p, &r);
	/* 100 acquisitions, 75 of them timed (25 trylocks) */
	profile__add_metric(p, 0, LAT "count", 100);
	profile__add_metric(p, 0, LAT "latency_us.<=1024", 20);
	profile__add_metric(p, 0, LAT "latency_us.<=2", 40);
	profile__add_metric(p, 0, LAT "latency_us.<=1", 10);
	profile__add_metric(p, 0, LAT "latency_us.<=4", 5);
	profile__add_metric(p, 0, ORD "count", 50);
	profile__add_metric(p, 0, ORD "order.9", 15);
	profile__add_metric(p, 0, ORD "order.0", 30);
	profile__add_metric(p, 0, ORD "order.other", 5);

	out = report(p);
	ok(out != NULL, "tpstats__report writes");
	if (!out)
		out = strdup("");
	for (const char *l = out; *l; ) {	/* the view, as TAP comments */
		size_t n = strcspn(l, "\n");

		printf("# %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}

	ok(pos(out, "latency_us=<=1 ") < pos(out, "latency_us=<=2 ") &&
	   pos(out, "latency_us=<=2 ") < pos(out, "latency_us=<=4 ") &&
	   pos(out, "latency_us=<=4 ") < pos(out, "latency_us=<=1024 ") &&
	   pos(out, "latency_us=<=1 ") > 0, "latency buckets in bucket order (1, 2, 4, 1024 us)");
	ok(strstr(out, "  latency_us: % of its 75 values (of 100 hits)\n") != NULL,
	   "the latency total is stated: 75 timed of 100 hits");
	is_dbl(share(out, "latency_us=<=2"), 53.33, 0.005, "<=2: 40 of the 75 timed, not of 100 hits");
	sum = share(out, "latency_us=<=1") + share(out, "latency_us=<=2") +
	      share(out, "latency_us=<=4") + share(out, "latency_us=<=1024");
	is_dbl(sum, 100, 0.02, "the latency shares add up to 100 %");

	ok(pos(out, "order=0 ") < pos(out, "order=9 ") && pos(out, "order=9 ") < pos(out, "order=other ") &&
	   pos(out, "order=0 ") > 0, "exact values: most frequent first, other last");
	ok(strstr(out, "  order: % of its 50 values\n") != NULL, "order: its total (= the hits) stated");
	is_dbl(share(out, "order=0") + share(out, "order=9") + share(out, "order=other"), 100, 0.02,
	       "order shares add up to 100 %");

	free(out);
	profile__free(p);
	return done_testing();
}
