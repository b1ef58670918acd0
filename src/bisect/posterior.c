/*
 * posterior: the probabilistic bisection over a line of commits
 * (bisect.h).  Each judgement multiplies the probability of the commits
 * it points to by its likelihood ratio, bounded by the test's thresholds:
 * a verdict reached at the test's error rates counts (1 - beta) / alpha
 * for the side it names and no more, so a wrong one is outvoted by the
 * next judgements near it instead of ending the search on the wrong
 * side, as a plain bisection's does.  Histories are short (a kernel
 * release's 15,000 commits at most): every operation is a linear pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/bisect.h"
#include "mmprof/xalloc.h"

void bisect_posterior__init(struct bisect_posterior *q, size_t n)
{
	size_t i;

	q->n = n;
	q->p = xcalloc(n ? n : 1, sizeof(*q->p));
	q->skipped = xcalloc(n ? n : 1, sizeof(*q->skipped));
	for (i = 0; i < n; i++)
		q->p[i] = 1.0 / n;
}

void bisect_posterior__release(struct bisect_posterior *q)
{
	free(q->p);
	free(q->skipped);
	memset(q, 0, sizeof(*q));
}

void bisect_posterior__update(struct bisect_posterior *q, const struct bisect_sprt *t, size_t j,
			      double llr)
{
	double f, sum = 0;
	size_t i;

	if (j >= q->n)
		return;
	if (llr > BISECT_POSTERIOR_CAP * t->upper)
		llr = BISECT_POSTERIOR_CAP * t->upper;
	if (llr < BISECT_POSTERIOR_CAP * t->lower)
		llr = BISECT_POSTERIOR_CAP * t->lower;
	f = exp(llr);
	for (i = 0; i < q->n; i++) {
		if (i <= j)
			q->p[i] *= f;
		sum += q->p[i];
	}
	for (i = 0; i < q->n; i++)
		q->p[i] /= sum;
}

long bisect_posterior__next(const struct bisect_posterior *q)
{
	double cdf = 0, best = INFINITY;
	long pick = -1;
	size_t i;

	for (i = 0; i + 1 < q->n; i++) {
		cdf += q->p[i];
		if (q->skipped[i])
			continue;
		/* strictly nearer: of two equally near, the older commit */
		if (fabs(cdf - 0.5) < best - 1e-12) {
			best = fabs(cdf - 0.5);
			pick = (long)i;
		}
	}
	return pick;
}

double bisect_posterior__best(const struct bisect_posterior *q, size_t *first, size_t *last)
{
	size_t i, a, b;
	double mass = 0;

	for (i = a = 0; i < q->n; i++)
		if (q->p[i] > q->p[a])
			a = i;
	b = a;
	/* commit i-1 untested: the first bad could be it as well as i */
	while (a > 0 && q->skipped[a - 1])
		a--;
	while (b + 1 < q->n && q->skipped[b])
		b++;
	for (i = a; i <= b; i++)
		mass += q->p[i];
	*first = a;
	*last = b;
	return mass;
}
