/*
 * keyname: a diff's rows by what their keys are (keykind.h answers that):
 * the address buckets and the families one side did not measure flagged,
 * the spellings a row was seen under, ambient and the score as the
 * options widen or narrow them.  No statistics.  See include/mmprof/diff.h
 * and src/diff/diff-int.h.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/keykind.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

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

		if (!keykind__address(key))
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

		if (!keykind__tracepoint(key) || (d->rows[i].flags & DIFF_ADDRESS))
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
		keykind__measured_unit(d->rows[i].key, unit, sizeof(unit));
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

/*
 * Row row was seen spelled s (len bytes) on side.  Spelled as the key is
 * a flag bit; only another spelling makes a row its struct diff_spelling,
 * which then lists the key's own text too on the sides that had it.
 */
void diff__add_spelling(struct diff *d, uint32_t row, int side, const char *s, size_t len)
{
	struct diff_row *r = &d->rows[row];
	const char *rsym = keykind__profile_symbol(r->key);
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

bool diff__is_ambient(const struct diff_opts *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->nr_ambient; i++)
		if (!fnmatch(o->ambient[i], key, 0))
			return true;
	return !o->no_ambient_defaults && keykind__ambient(key);
}

bool diff__is_score(const struct diff_opts *o, const char *key)
{
	return keykind__score_by(o->score, key);
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
