/*
 * sprt: the sequential test of one candidate commit (bisect.h).  A run's
 * evidence is a log-likelihood ratio of normal densities around the good
 * and the bad side's means; Wald's sequential probability ratio test
 * stops as soon as the sum crosses log((1 - beta) / alpha) (bad) or
 * log(beta / (1 - alpha)) (good), which on average needs far fewer runs
 * than a fixed-size test of the same error rates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/bisect.h"
#include "mmprof/xalloc.h"

void bisect_model__add(struct bisect_model *m, const char *key, double good, double bad,
		       double var, size_t ng, size_t nb)
{
	struct bisect_key *k;

	xgrow((void **)&m->keys, &m->alloc, m->nr + 1, sizeof(*m->keys));
	k = &m->keys[m->nr++];
	k->key = xstrdup(key);
	k->good = good;
	k->bad = bad;
	k->var = var > 0 ? var : 1e-300;
	k->ng = ng ? ng : 1;
	k->nb = nb ? nb : 1;
}

void bisect_model__release(struct bisect_model *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->keys[i].key);
	free(m->keys);
	memset(m, 0, sizeof(*m));
}

const char *bisect_verdict__name(enum bisect_verdict v)
{
	switch (v) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_SKIP:
		return "skip";
	default:
		return "undecided";
	}
}

void bisect_sprt__init(struct bisect_sprt *t, double alpha, double beta)
{
	t->alpha = alpha > 0 && alpha < 0.5 ? alpha : BISECT_ALPHA;
	t->beta = beta > 0 && beta < 0.5 ? beta : BISECT_BETA;
	t->upper = log((1 - t->beta) / t->alpha);
	t->lower = log(t->beta / (1 - t->alpha));
}

/* log N(x; mean, var) without the constant both hypotheses share. */
static double log_normal(double x, double mean, double var)
{
	return -0.5 * log(var) - (x - mean) * (x - mean) / (2 * var);
}

double bisect_key__llr(const struct bisect_key *k, double x)
{
	double vg = k->var * (1 + 1.0 / k->ng), vb = k->var * (1 + 1.0 / k->nb);

	return log_normal(x, k->bad, vb) - log_normal(x, k->good, vg);
}

double bisect_model__run_llr(const struct bisect_model *m, const struct bisect_sprt *t,
			     const double *x)
{
	double sum = 0, clip = BISECT_RUN_CLIP * t->upper;
	size_t i;

	if (!m->nr)
		return 0;
	for (i = 0; i < m->nr; i++)
		sum += bisect_key__llr(&m->keys[i], x[i]);
	sum /= m->nr;
	return sum > clip ? clip : sum < -clip ? -clip : sum;
}

enum bisect_verdict bisect_sprt__decide(const struct bisect_sprt *t, double llr)
{
	if (llr >= t->upper)
		return BISECT_BAD;
	if (llr <= t->lower)
		return BISECT_GOOD;
	return BISECT_MORE;
}

size_t bisect_model__more_runs(const struct bisect_model *m, const struct bisect_sprt *t,
			       double llr)
{
	double drift = 0, need, clip = BISECT_RUN_CLIP * t->upper;
	size_t i, runs;

	/*
	 * A run of the side the sum leans to adds, on average, half the
	 * squared separation in units of the run's spread (the normal
	 * model's Kullback-Leibler divergence), averaged as the runs are.
	 */
	for (i = 0; i < m->nr; i++) {
		const struct bisect_key *k = &m->keys[i];

		drift += (k->bad - k->good) * (k->bad - k->good) / (2 * k->var);
	}
	drift = m->nr ? drift / m->nr : 0;
	if (drift > clip)
		drift = clip;
	need = llr >= 0 ? t->upper - llr : llr - t->lower;
	if (!(drift > 0))
		return 3;
	runs = (size_t)ceil(need / drift);
	return runs < 1 ? 1 : runs > 3 ? 3 : runs;
}
