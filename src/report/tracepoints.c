/*
 * tracepoints: the `report --tracepoints` view of the tracepoint.* run
 * metrics that record stores (include/mmprof/trace.h): counts per event,
 * then each field's values, most frequent first, with their share.
 * Reads a few hundred keys: clarity over speed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/report.h"
#include "mmprof/trace.h"

struct row {
	const char *key;	/* "tracepoint.<ev>.<field>.<value>" */
	double mean;
};

static int by_mean(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->mean != y->mean)
		return x->mean > y->mean ? -1 : 1;
	return strcmp(x->key, y->key);
}

int tpstats__report(const struct profile *p, FILE *out)
{
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
		if (!strncmp(kt.keys[k], "tracepoint.", 11))
			rows[nr++] = (struct row){ kt.keys[k], keytab__mean(&kt, k) };
	if (!nr)
		fprintf(out, "# no tracepoint statistics: record with -e SYS:NAME or --mm\n");
	else
		fprintf(out, "# tracepoint hits per run (mean of %zu run%s)\n", kt.nr_runs,
			kt.nr_runs == 1 ? "" : "s");
	for (i = 0; i < nr; i++) {
		const char *ev = rows[i].key + 11;
		size_t evlen, j, nf = 0;
		const char *suffix = strrchr(ev, '.');
		struct row *fields;
		double total = rows[i].mean;

		if (!suffix || strcmp(suffix, ".count"))
			continue;
		evlen = (size_t)(suffix - ev);
		fprintf(out, "%s%-48.*s %14.0f\n", nev++ ? "\n" : "", (int)evlen, ev, total);
		fields = calloc(nr, sizeof(*fields));
		if (!fields)
			break;
		for (j = 0; j < nr; j++) {
			const char *o = rows[j].key + 11;

			if (j != i && !strncmp(o, ev, evlen) && o[evlen] == '.')
				fields[nf++] = rows[j];
		}
		qsort(fields, nf, sizeof(*fields), by_mean);
		for (j = 0; j < nf; j++) {
			const char *fv = fields[j].key + 11 + evlen + 1;	/* "<field>.<value>" */
			const char *dot = strchr(fv, '.');
			char label[256];

			if (!dot)
				continue;
			snprintf(label, sizeof(label), "%.*s=%s", (int)(dot - fv), fv, dot + 1);
			fprintf(out, "  %-46s %14.0f %6.2f%%\n", label, fields[j].mean,
				total > 0 ? 100.0 * fields[j].mean / total : 0.0);
		}
		free(fields);
	}
	free(rows);
	keytab__release(&kt);
	return 0;
}
