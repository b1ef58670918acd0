/*
 * keyname: what a diff key is.  Its normalised identity (compiler clone
 * suffixes off, diff__normalize_key) and the spellings a row was seen
 * under; whether it is absolute, an address bucket, ambient or a
 * monitor's; the unit that is measured or not as a whole, for the rows
 * one side did not measure.  Pure string work on keys and rows, no
 * statistics.  See include/mmprof/diff.h and src/diff/diff-int.h.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/mmstate.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

bool diff__absolute_key(const char *key)
{
	size_t len = strlen(key);

	return !strncmp(key, "perf-profile", 12) || !strncmp(key, "cost.part.", 10) ||
	       (len && key[len - 1] == '%');
}

static const char TP[] = "tracepoint.";

bool diff__address_key(const char *key)
{
	const char *last = strrchr(key, '.');
	size_t i;

	/* tpstats spells a 2 MiB region "0x<hex>" and no other bucket so */
	if (strncmp(key, TP, sizeof(TP) - 1) || !last || strncmp(last + 1, "0x", 2) || !last[3])
		return false;
	for (i = 3; last[i]; i++)
		if (!isxdigit((unsigned char)last[i]))
			return false;
	return true;
}

/*
 * Flag the address buckets, and the ".other" row of each histogram that
 * has them: what fell outside the 16 buckets kept is as much a matter of
 * where ASLR put things as the buckets are.
 */
void diff__mark_addresses(struct diff *d)
{
	char **hist = NULL;	/* "tracepoint.<ev>.<field>." prefixes with address buckets */
	size_t nr = 0, alloc = 0, i, j;

	for (i = 0; i < d->nr; i++) {
		const char *key = d->rows[i].key;
		size_t len;

		if (!diff__address_key(key))
			continue;
		d->rows[i].flags |= DIFF_ADDRESS;
		d->nr_address++;
		len = (size_t)(strrchr(key, '.') - key) + 1;
		for (j = 0; j < nr && (strlen(hist[j]) != len || strncmp(hist[j], key, len)); j++)
			;
		if (j == nr) {
			XGROW(hist, alloc, nr);
			hist[nr++] = xstrndup(key, len);
		}
	}
	for (i = 0; nr && i < d->nr; i++) {
		const char *key = d->rows[i].key;

		if (strncmp(key, TP, sizeof(TP) - 1) || (d->rows[i].flags & DIFF_ADDRESS))
			continue;
		for (j = 0; j < nr; j++) {
			size_t len = strlen(hist[j]);

			if (!strncmp(key, hist[j], len) && !strcmp(key + len, "other")) {
				d->rows[i].flags |= DIFF_ADDRESS;
				d->nr_address++;
				break;
			}
		}
	}
	for (j = 0; j < nr; j++)
		free(hist[j]);
	free(hist);
}

/*
 * The event component of a perf-profile.<kind>.<event>.<...> key (*len
 * bytes, not terminated), or NULL for any other key.
 */
const char *diff__pp_event(const char *key, size_t *len)
{
	const char *e;

	if (strncmp(key, PP, sizeof(PP) - 1) || !(e = strchr(key + sizeof(PP) - 1, '.')))
		return NULL;
	e++;
	*len = strcspn(e, ".");
	return e;
}

/*
 * What is measured or not as a whole, written to buf: a key's first
 * component, except that each event is its own unit: perf-profile.*.<event>
 * for the children, self and calltrace keys of an event (shares of an
 * event one side did not record, or took no sample of, are 0/0) and
 * tracepoint.<event> (a side recorded with --mm, the other without).
 */
static void measured_unit(const char *key, char *buf, size_t size)
{
	size_t n = strcspn(key, "."), len = 0;
	const char *ev;

	if (!strncmp(key, PP, sizeof(PP) - 1)) {
		ev = diff__pp_event(key, &len);
		snprintf(buf, size, "%s*.%.*s", PP, (int)len, ev ? ev : "");
		return;
	}
	if (!strncmp(key, "tracepoint.", 11))
		n += key[n] ? 1 + strcspn(key + n + 1, ".") : 0;
	snprintf(buf, size, "%.*s", (int)n, key);
}

/*
 * Families with keys on one side only: every row of such a family is
 * flagged DIFF_ONE_SIDE and the family listed in d->one_side[side].
 * present: per row, the runs of base and of new that had the key.
 */
void diff__mark_one_sided(struct diff *d, const uint32_t *present)
{
	struct fam {
		char *name;
		bool side[2];
	} *fam = NULL;
	size_t nr = 0, alloc = 0, i, j, last = SIZE_MAX;
	size_t *of = xmalloc((d->nr + 1) * sizeof(*of));
	char unit[256];

	for (i = 0; i < d->nr; i++) {
		measured_unit(d->rows[i].key, unit, sizeof(unit));
		/* rows of a family mostly come together: try the last one first */
		if (last != SIZE_MAX && !strcmp(fam[last].name, unit)) {
			j = last;
		} else {
			for (j = 0; j < nr && strcmp(fam[j].name, unit); j++)
				;
			if (j == nr) {
				XGROW(fam, alloc, nr);
				fam[nr++] = (struct fam){ xstrdup(unit), { false, false } };
			}
		}
		fam[j].side[0] |= present[2 * i] > 0;
		fam[j].side[1] |= present[2 * i + 1] > 0;
		of[i] = last = j;
	}
	for (j = 0; j < nr; j++) {
		int sd;

		if (fam[j].side[0] == fam[j].side[1])
			continue;
		sd = fam[j].side[0] ? 0 : 1;
		XGROW(d->one_side[sd], d->alloc_one_side[sd], d->nr_one_side[sd]);
		d->one_side[sd][d->nr_one_side[sd]++] = xstrdup(fam[j].name);
	}
	for (i = 0; i < d->nr; i++)
		if (fam[of[i]].side[0] != fam[of[i]].side[1])
			d->rows[i].flags |= DIFF_ONE_SIDE;
	for (j = 0; j < nr; j++)
		free(fam[j].name);
	free(of);
	free(fam);
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

size_t diff__normalize_key(const char *key, char *buf, size_t size)
{
	size_t out = 0, i = 0, skip;
	bool pp = !strncmp(key, PP, sizeof(PP) - 1);

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

const char *diff__key_symbol(const char *key)
{
	size_t len;
	const char *e = diff__pp_event(key, &len);

	return e && e[len] == '.' ? e + len + 1 : NULL;
}

/*
 * Row row was seen spelled s (len bytes) on side.  Spelled as the key is
 * a flag bit; only another spelling makes a row its struct diff_spelling,
 * which then lists the key's own text too on the sides that had it.
 */
void diff__add_spelling(struct diff *d, uint32_t row, int side, const char *s, size_t len)
{
	struct diff_row *r = &d->rows[row];
	const char *rsym = diff__key_symbol(r->key);
	bool plain = strlen(rsym) == len && !memcmp(rsym, s, len);
	struct diff_spelling *sp;
	size_t i;
	int sd;

	if (plain && !r->spelling) {
		r->flags |= DIFF_AS_KEY << side;
		return;
	}
	if (!r->spelling) {
		XGROW(d->spellings, d->alloc_spellings, d->nr_spellings);
		sp = &d->spellings[d->nr_spellings++];
		memset(sp, 0, sizeof(*sp));
		r->spelling = (uint32_t)d->nr_spellings;
		for (sd = 0; sd < 2; sd++)
			if (r->flags & (DIFF_AS_KEY << sd)) {
				XGROW(sp->name[sd], sp->alloc[sd], sp->nr[sd]);
				sp->name[sd][sp->nr[sd]++] = xstrdup(rsym);
			}
	}
	sp = &d->spellings[r->spelling - 1];
	for (i = 0; i < sp->nr[side]; i++)
		if (strlen(sp->name[side][i]) == len && !memcmp(sp->name[side][i], s, len))
			return;
	XGROW(sp->name[side], sp->alloc[side], sp->nr[side]);
	sp->name[side][sp->nr[side]++] = xstrndup(s, len);
}

/* The robot's monitors; any other first component is the workload's own. */
bool diff__monitor_family(const char *key)
{
	static const char *const mon[] = {
		"perf-profile", "perf-stat", "perf-sched", "perf-c2c", "proc-vmstat",
		"meminfo", "vmstat", "mpstat", "iostat", "cpuidle", "sched_debug",
		"slabinfo", "softirqs", "interrupts", "turbostat", "numa-vmstat",
		"numa-meminfo", "numa-numastat", "pagetypeinfo", "buddyinfo",
		"lock_stat", "uptime", "boot-time", "diskstats", "tracepoint",
		"latency_stats", "kmsg", "dmesg",
	};
	size_t len = strcspn(key, "."), i;

	for (i = 0; i < sizeof(mon) / sizeof(mon[0]); i++)
		if (strlen(mon[i]) == len && !strncmp(key, mon[i], len))
			return true;
	return false;
}

bool diff__workload_metric_key(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot && !diff__monitor_family(key) && strncmp(key, "cost.", 5) &&
	       strncmp(dot + 1, "time.", 5);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

int diff__key_goodness(const char *key)
{
	/* besides the scores (diff__score_key): counts of work and other rates */
	static const char *const more[] = {
		".ops", "_per_sec", "_per_second", ".workload", "bogo_ops", ".score", "ops/s",
	};
	static const char *const less[] = { "latency", "_ns", "_us", "_ms", ".elapsed", "_time" };
	size_t i;

	if (!strncmp(key, "cost.", 5))
		return -1;	/* CPU per operation */
	if (!diff__workload_metric_key(key))
		return 0;
	if (diff__score_key(key))
		return 1;
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (ends_with(key, more[i]))
			return 1;
	for (i = 0; i < sizeof(less) / sizeof(less[0]); i++)
		if (ends_with(key, less[i]))
			return -1;
	return 0;
}

bool diff__is_ambient(const struct diff_opts *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->nr_ambient; i++)
		if (!fnmatch(o->ambient[i], key, 0))
			return true;
	return !o->no_ambient_defaults && diff__ambient_key(key);
}

bool diff__ambient_key(const char *key)
{
	/* the rise of what processes hold while the workload ran is its own (mmstate.h) */
	if (!strncmp(key, "meminfo.", 8))
		return strncmp(key + 8, "rise.", 5);
	/* proc-vmstat.delta.* count events over the run, as the counters do */
	return !strncmp(key, "proc-vmstat.", 12) && strncmp(key + 12, "delta.", 6) &&
	       strncmp(key + 12, "rise.", 5) && mmstate__is_level(key + 12);
}

bool diff__score_key(const char *key)
{
	static const char *const rate[] = {
		".ops_per_sec", ".throughput", ".per_process_ops", ".per_thread_ops",
	};
	size_t len = strlen(key), i;

	if (diff__monitor_family(key) || !strncmp(key, "cost.", 5))
		return false;
	for (i = 0; i < sizeof(rate) / sizeof(rate[0]); i++) {
		size_t l = strlen(rate[i]);

		if (len > l && !strcmp(key + len - l, rate[i]))
			return true;
	}
	return false;
}

bool diff__is_score(const struct diff_opts *o, const char *key)
{
	if (o->score)
		return *o->score && !fnmatch(o->score, key, 0);
	return diff__score_key(key);
}

const struct diff_spelling *diff__spelling(const struct diff *d, const struct diff_row *r)
{
	return r->spelling && r->spelling <= d->nr_spellings ? &d->spellings[r->spelling - 1] : NULL;
}

bool diff_spelling__renamed(const struct diff_spelling *s)
{
	size_t i, j;

	if (!s || !s->nr[0] || !s->nr[1] || s->nr[0] != s->nr[1])
		return s && s->nr[0] && s->nr[1];
	for (i = 0; i < s->nr[0]; i++) {
		for (j = 0; j < s->nr[1]; j++)
			if (!strcmp(s->name[0][i], s->name[1][j]))
				break;
		if (j == s->nr[1])
			return true;
	}
	return false;
}
