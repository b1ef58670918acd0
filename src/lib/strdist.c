/*
 * strdist: Levenshtein distance with a bound (strdist.h).  One row of
 * the distance table is kept; a row whose least entry is past the bound
 * ends the walk, since no later row can come back under it.
 */
#include <string.h>

#include "mmprof/strdist.h"

bool strdist__within(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[STRDIST_MAX_LEN + 1];

	if (la > STRDIST_MAX_LEN || lb > STRDIST_MAX_LEN)
		return false;
	if ((la > lb ? la - lb : lb - la) > max)
		return false;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0], least;

		row[0] = i;
		least = row[0];
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
			if (best < least)
				least = best;
		}
		if (least > max)
			return false;
	}
	return row[lb] <= max;
}

size_t strdist__typo_max(const char *name)
{
	return strlen(name) < 6 ? 1 : 2;
}
