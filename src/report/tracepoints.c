/*
 * tracepoints: the `report --tracepoints` view of the tracepoint.* run
 * metrics that record stores (include/mmprof/trace.h): counts per event,
 * then each field's values with their share.  A field's shares are of its
 * own total (the sum of its values' counts, "other" included), stated on
 * a line of its own, not of the event's hits: an event can have fewer
 * values than hits (mmap_lock acquire latency exists only for acquisitions
 * with a start_locking before them; trylocks have none).  Exact values are
 * listed most frequent first; bucketed values ("<=N", latency) in bucket
 * order, as a histogram reads.  Reads a few hundred keys: clarity over speed.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/report.h"
#include "mmprof/trace.h"

struct row {
	const char *key;	/* "tracepoint.<ev>.<field>.<value>" */
	const char *fv;		/* "<field>.<value>" inside key (fields only) */
	size_t flen;		/* length of <field> */
	double mean;
};

static int by_mean(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->mean != y->mean)
		return x->mean > y->mean ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* group a field's values together, fields in name order */
static int by_field(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	size_t n = x->flen < y->flen ? x->flen : y->flen;
	int c = strncmp(x->fv, y->fv, n);

	if (c)
		return c;
	if (x->flen != y->flen)
		return x->flen < y->flen ? -1 : 1;
	return by_mean(a, b);
}

/* "<=N" -> N; "other" (the rest) after every bucket */
static double bucket_bound(const struct row *r)
{
	const char *v = r->fv + r->flen + 1;

	return strncmp(v, "<=", 2) ? HUGE_VAL : strtod(v + 2, NULL);
}

static int by_bucket(const void *a, const void *b)
{
	double x = bucket_bound(a), y = bucket_bound(b);

	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

static bool is_bucketed(const struct row *r, size_t n)
{
	size_t i;
	bool any = false;

	for (i = 0; i < n; i++) {
		const char *v = r[i].fv + r[i].flen + 1;

		if (!strncmp(v, "<=", 2))
			any = true;
		else if (strcmp(v, "other"))
			return false;
	}
	return any;
}

/*
 * The first n bytes of s through the text rule (escape.h): event names,
 * fields and values (a comm, a file name) are the traced programs' text.
 * Valid until the next call with the same scratch.
 */
static const char *safe_n(struct outbuf scratch[2], const char *s, size_t n)
{
	scratch[0].len = 0;
	outbuf__add(&scratch[0], s, n);
	return outbuf__text_safe(&scratch[1], scratch[0].s);
}

/* One field's rows: the stated total, then each value's count and share of it. */
static void print_field(struct outbuf *out, struct row *r, size_t n, double hits)
{
	struct outbuf scratch[2] = { { 0 }, { 0 } };
	double total = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += r[i].mean;
	qsort(r, n, sizeof(*r), is_bucketed(r, n) ? by_bucket : by_mean);
	if (total > hits + 0.5 || total < hits - 0.5)
		outbuf__printf(out, "  %s: %% of its %.0f values (of %.0f hits)\n",
			safe_n(scratch, r->fv, r->flen), total, hits);
	else
		outbuf__printf(out, "  %s: %% of its %.0f values\n", safe_n(scratch, r->fv, r->flen),
			total);
	for (i = 0; i < n; i++) {
		char label[256];

		snprintf(label, sizeof(label), "%.*s=%s", (int)r[i].flen, r[i].fv,
			 r[i].fv + r[i].flen + 1);
		outbuf__printf(out, "  %-46s %14.0f %6.2f%%\n", safe_n(scratch, label, strlen(label)),
			r[i].mean, total > 0 ? 100.0 * r[i].mean / total : 0.0);
	}
	outbuf__release(&scratch[0]);
	outbuf__release(&scratch[1]);
}

int tpstats__report(const struct profile *p, struct outbuf *out)
{
	struct outbuf scratch[2] = { { 0 }, { 0 } };
	struct keytab kt;
	struct row *rows;
	size_t k, i, nr = 0, nev = 0;
	int err = keytab__build(&kt, p);

	if (err)
		return err;
	keytab__sort(&kt);
	rows = calloc(kt.nr ? kt.nr : 1, sizeof(*rows));
	if (!rows) {
		keytab__release(&kt);
		return -ENOMEM;
	}
	for (k = 0; k < kt.nr; k++)
		if (keykind__tracepoint(kt.keys[k]))
			rows[nr++] = (struct row){ .key = kt.keys[k], .mean = keytab__mean(&kt, k) };
	if (!nr)
		outbuf__printf(out, "# no tracepoint statistics: record with -e SYS:NAME or --mm\n");
	else
		outbuf__printf(out, "# tracepoint hits per run (mean of %zu run%s)\n", kt.nr_runs,
			kt.nr_runs == 1 ? "" : "s");
	for (i = 0; i < nr; i++) {
		const char *ev = rows[i].key + 11;
		size_t evlen, j, g, nf = 0;
		const char *suffix = strrchr(ev, '.');
		struct row *fields;
		double total = rows[i].mean;

		if (!suffix || strcmp(suffix, ".count"))
			continue;
		evlen = (size_t)(suffix - ev);
		outbuf__printf(out, "%s%-48s %14.0f\n", nev++ ? "\n" : "", safe_n(scratch, ev, evlen),
			total);
		fields = calloc(nr, sizeof(*fields));
		if (!fields)
			break;
		for (j = 0; j < nr; j++) {
			const char *o = rows[j].key + 11;
			const char *fv = o + evlen + 1, *dot;

			if (j == i || strncmp(o, ev, evlen) || o[evlen] != '.')
				continue;
			dot = strchr(fv, '.');
			if (!dot)
				continue;
			fields[nf] = rows[j];
			fields[nf].fv = fv;
			fields[nf++].flen = (size_t)(dot - fv);
		}
		qsort(fields, nf, sizeof(*fields), by_field);
		for (j = 0; j < nf; j = g) {
			for (g = j; g < nf && fields[g].flen == fields[j].flen &&
				    !strncmp(fields[g].fv, fields[j].fv, fields[j].flen); g++)
				;
			print_field(out, fields + j, g - j, total);
		}
		free(fields);
	}
	free(rows);
	keytab__release(&kt);
	outbuf__release(&scratch[0]);
	outbuf__release(&scratch[1]);
	return 0;
}
