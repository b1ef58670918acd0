/*
 * keytab: the keys of every run of a profile in one table (rows = keys,
 * columns = runs), and how report prints a key's value.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"
#include "keys-int.h"

static size_t keytab__row(struct keytab *kt, const char *key)
{
	uint32_t row = strintern__xid(&kt->names, key, strlen(key));
	size_t old = kt->alloc;

	if (row < kt->nr)
		return row;
	/* new: rows are the names' ids until keytab__sort */
	XGROW(kt->keys, kt->alloc, kt->nr);
	if (kt->alloc != old) {	/* rows: as many as keys */
		kt->rows = xrealloc(kt->rows, kt->alloc * sizeof(*kt->rows));
		memset(kt->rows + old, 0, (kt->alloc - old) * sizeof(*kt->rows));
	}
	kt->keys[kt->nr] = strintern__str(&kt->names, row);
	return kt->nr++;
}

/* Add v to key row's value in run r; runs arrive in ascending order. */
static void keyrow__add(struct keyrow *row, uint32_t r, double v)
{
	if (row->nr && row->cells[row->nr - 1].run == r) {
		row->cells[row->nr - 1].val += v;
		return;
	}
	/*
	 * From one cell, not XGROW's 16: most keys of a file with many
	 * functions have a cell in one run or a few, and 16 cells a key were
	 * 256 bytes each (600,000 one-sample leaves: 940 MB for report --keys)
	 */
	if (row->nr == row->alloc) {
		row->alloc = row->alloc ? row->alloc * 2 : 1;
		row->cells = xrealloc(row->cells, row->alloc * sizeof(*row->cells));
	}
	row->cells[row->nr++] = (struct keycell){ r, 0 };
	row->cells[row->nr - 1].val += v;	/* 0 + v, as a dense row's cell adds it */
}

/* Is entry e the marker of an elided chain's node (profile.h's PROFILE_ELIDED)? */
static bool elided_entry(const struct symview *v, uint32_t e)
{
	return !strcmp(symview__entry_name(v, e), PROFILE_ELIDED) &&
	       !strcmp(symview__entry_dso(v, e), PROFILE_ELIDED) && !v->entries[e].kernel;
}

/*
 * The keys a file makes at least: each event's functions with a children
 * share over all its runs (each has that key in some run), counted up to
 * past max from one walk of the trie per event, before any key is made;
 * with the functions of the whole chains' rows (ck, NULL without p->whole)
 * that the trie's paths lack.
 */
static size_t least_keys(const struct symview *v, const struct chainkeys *ck, size_t max)
{
	double *w = xmalloc((v->nr_nodes + 1) * sizeof(*w));
	double *children = xmalloc((v->nr_entries + 1) * sizeof(*children));
	double *self = xmalloc((v->nr_entries + 1) * sizeof(*self));
	size_t e, i, r, n = 0;

	for (e = 0; e < v->p->nr_events && n <= max; e++) {
		if (symview__weights(v, SYMVIEW_ALL_RUNS, (uint32_t)e, true, w) <= 0)
			continue;
		symview__cumulate(v, w, NULL, NULL, children, self);
		for (i = 0; i < v->nr_entries; i++)	/* "[elided]" is no key (PROFILE_ELIDED) */
			n += children[i] > 0 && !elided_entry(v, (uint32_t)i);
		for (r = 0; ck && r < v->p->nr_runs; r++) {
			const struct chainkey_row *rows;
			size_t nr;

			chainkeys__slot(ck, r * v->p->nr_events + e, &rows, &nr);
			for (i = 0; i < nr; i++)
				if (rows[i].kind == CHAINKEY_CHILDREN && !(children[rows[i].id] > 0)) {
					children[rows[i].id] = 1;	/* counted once */
					n++;
				}
		}
	}
	free(w);
	free(children);
	free(self);
	return n;
}

static int build(struct keytab *kt, const struct profile *p, bool robot)
{
	struct symview v;
	struct keycache *c;
	uint32_t *row_of = NULL;	/* key id of the cache -> row, UINT32_MAX: none yet */
	size_t alloc_row_of = 0, r, i;
	int err;

	memset(kt, 0, sizeof(*kt));
	kt->nr_runs = p->nr_runs;
	symview__init(&v, p, false);
	c = keycache__new(&v);
	keycache__set_robot(c, robot);
	/* the whole chains' walk, made here for the check, serves every run after it */
	if (least_keys(&v, p->whole ? keycache__whole(c) : NULL, KEYS_MAX_KEYS) > KEYS_MAX_KEYS) {
		keycache__free(c);
		symview__release(&v);
		return -E2BIG;
	}
	for (r = 0; r < p->nr_runs; r++) {
		struct keyrun kr;

		keycache__run(c, (uint32_t)r, &kr);
		if (keycache__nr(c) > alloc_row_of) {
			size_t old = alloc_row_of;

			alloc_row_of = keycache__nr(c) * 2;
			row_of = xrealloc(row_of, alloc_row_of * sizeof(*row_of));
			memset(row_of + old, 0xff, (alloc_row_of - old) * sizeof(*row_of));
		}
		for (i = 0; i < kr.nr; i++) {
			uint32_t id = kr.ids[i];

			if (row_of[id] == UINT32_MAX)
				row_of[id] = (uint32_t)keytab__row(kt, keycache__name(c, id));
			keyrow__add(&kt->rows[row_of[id]], (uint32_t)r, kr.vals[i]);
		}
	}
	free(row_of);
	strintern__drop_index(&kt->names);	/* complete: read by row from now on */
	err = keycache__error(c);
	keycache__free(c);
	symview__release(&v);
	if (err)
		keytab__release(kt);
	return err;
}

int keytab__build(struct keytab *kt, const struct profile *p)
{
	return build(kt, p, false);
}

int keytab__too_many_keys(struct errmsg *e)
{
	return errmsg__set(e, -E2BIG, "its events' functions are more keys than a report takes "
			   "(at most 2^21; robustness.md); read one event at a time: report "
			   "--tree -e EVENT");
}

int keytab__build_robot(struct keytab *kt, const struct profile *p)
{
	return build(kt, p, true);
}

void keytab__release(struct keytab *kt)
{
	size_t i;

	for (i = 0; i < kt->nr; i++)
		free(kt->rows[i].cells);
	free(kt->keys);
	free(kt->rows);
	strintern__release(&kt->names);
	memset(kt, 0, sizeof(*kt));
}

double keytab__val(const struct keytab *kt, size_t k, size_t run)
{
	const struct keyrow *row = &kt->rows[k];
	size_t lo = 0, hi = row->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row->cells[mid].run < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < row->nr && row->cells[lo].run == run ? row->cells[lo].val : 0;
}

/*
 * stats__mean_sd's two passes over the dense row, walking the cells: the
 * absent runs add 0 to the sum and mean^2 to the squares in their place, so
 * every addition happens in the same order as over the dense row.  Time is
 * nr_runs per key (arithmetic only: the views that ask for a deviation print
 * every run's value anyway), memory the cells present.
 */
static void keyrow__summary(const struct keyrow *row, size_t n, struct stat_summary *s)
{
	double sum = 0, ss = 0, mean;
	size_t i, r;

	if (!n) {
		stats__mean_sd(NULL, 0, s);
		return;
	}
	for (i = 0; i < row->nr; i++)
		sum += row->cells[i].val;
	mean = sum / (double)n;
	for (r = 0, i = 0; r < n; r++) {
		double d = i < row->nr && row->cells[i].run == r ? row->cells[i++].val - mean : -mean;

		ss += d * d;
	}
	stats__from_ss(n, mean, ss, s);
}

/* The first pass alone: the cells present, what a keys view costs per key. */
double keytab__mean(const struct keytab *kt, size_t k)
{
	const struct keyrow *row = &kt->rows[k];
	double sum = 0;
	size_t i;

	if (!kt->nr_runs)
		return 0;
	for (i = 0; i < row->nr; i++)
		sum += row->cells[i].val;
	return sum / (double)kt->nr_runs;
}

double keytab__stddev(const struct keytab *kt, size_t k)
{
	struct stat_summary s;

	keyrow__summary(&kt->rows[k], kt->nr_runs, &s);
	return s.sd;
}

int keytab__check_values(const struct keytab *kt, size_t nr_keys, const char *view,
			 const char *todo, struct errmsg *e)
{
	if (!kt->nr_runs || nr_keys <= KEYS_MAX_VALUES / kt->nr_runs)
		return 0;
	return errmsg__set(e, -E2BIG, "%zu keys x %zu runs are more values than %s (keys x runs, "
			   "at most 2^24; robustness.md); %s", nr_keys, kt->nr_runs, view, todo);
}

static int family_cmp(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");
	int c = strncmp(a, b, la < lb ? la : lb);

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a + la, b + lb);
}

struct sort_row {
	const char *key;
	size_t old;
};

static int sort_row_cmp(const void *a, const void *b)
{
	return family_cmp(((const struct sort_row *)a)->key, ((const struct sort_row *)b)->key);
}

void keytab__sort(struct keytab *kt)
{
	struct sort_row *rows;
	struct keyrow *moved;
	size_t i;

	if (!kt->nr)
		return;
	rows = xmalloc(kt->nr * sizeof(*rows));
	for (i = 0; i < kt->nr; i++)
		rows[i] = (struct sort_row){ kt->keys[i], i };
	qsort(rows, kt->nr, sizeof(*rows), sort_row_cmp);
	moved = xmalloc(kt->alloc * sizeof(*moved));
	for (i = 0; i < kt->nr; i++) {
		kt->keys[i] = rows[i].key;
		moved[i] = kt->rows[rows[i].old];
	}
	free(kt->rows);
	kt->rows = moved;
	free(rows);
}

/*
 * The robot's parse tests the floor on the sums of perf's two-decimal
 * prints (`percent >= 0.05` on a value read from "0.05%"), so a share of
 * 0.0495 prints as 0.05 and is kept: the test is on the value as printed.
 */
bool keys__shown(const char *key, double value)
{
	char buf[64];

	if (keykind__profile(key) == KEYPROF_NONE)
		return true;
	snprintf(buf, sizeof(buf), "%.2f", value);
	return strtod(buf, NULL) >= 0.05;
}

void keys__format_value(const char *key, double value, char *buf, size_t size)
{
	double a = fabs(value);

	if (keykind__profile(key) != KEYPROF_NONE)
		snprintf(buf, size, "%.2f", value);
	else if (a >= 1000 || value == floor(value))
		snprintf(buf, size, "%.0f", value);
	else
		snprintf(buf, size, "%.4g", value);
}
