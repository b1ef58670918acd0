/*
 * rubyfmt: Ruby's rounding of %f/%e/%g (see include/mmprof/rubyfmt.h for
 * the rule).  The fast estimate is reproduced step for step, because its
 * error bound eps decides which values count as ties: the scaling by
 * powers of ten in the same order, the same count of inexact steps
 * (ieps) and the same first guess of the decimal exponent, which may be
 * one too high below 1 and is then mended with one step more.  Where
 * Ruby leaves the estimate for exact arithmetic, C's own rounding of the
 * exact value is already Ruby's, so the value is returned unchanged.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/rubyfmt.h"

/* the exact powers of ten a double holds */
static const double tens[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
/* 10^(16 * 2^i), the steps for the exponent's bits past the fourth */
static const double big_tens[] = { 1e16, 1e32, 1e64, 1e128 };

enum { MAX_FAST_DIGITS = 14, MAX_EXP10 = 255 };

/*
 * The first guess of floor(log10(a)): a first-order series in the
 * binary exponent and mantissa, rounded so that it is never too low.
 */
static int exp10_guess(double a, int *exact)
{
	int e, k;
	double m = frexp(a, &e), g;

	g = (2 * m - 1.5) * 0.289529654602168 + 0.1760912590558 + (e - 1) * 0.301029995663981;
	k = (int)g;
	if (g < 0 && g != k)
		k--;
	*exact = 0;
	if (k >= 0 && k <= 22) {
		if (a < tens[k])
			k--;
		*exact = 1;
	}
	return k;
}

/*
 * Does the exact value of a lie above the half after the digits, ilim
 * significant ones?  C rounds the exact value (an even last digit stays
 * on an exact half).
 */
static bool exact_above_half(double a, int ilim, long long digits)
{
	char buf[64], *p, *q;
	long long c = 0;

	snprintf(buf, sizeof(buf), "%.*e", ilim - 1, a);
	for (p = buf, q = strchr(buf, 'e'); p < q; p++)
		if (*p >= '0' && *p <= '9')
			c = c * 10 + (*p - '0');
	return c != digits;
}

/*
 * Ruby's rounding of a (> 0) to the digits of conv and prec: returns
 * false where Ruby rounds the exact value as C does, else the rounded
 * value in *out, and *keep_zeros when Ruby's digits keep their trailing
 * zeros (%g then prints them: "75.30" for 75.305 at %.4g, "4.0e+02" for
 * 405 at %.2g).
 */
static bool ruby_round(double a, char conv, int prec, double *out, bool *keep_zeros)
{
	double d, eps;
	int k, exact, ieps = 2, ilim, ilim1, i, j;
	long long digits = 0;
	char buf[64];

	k = exp10_guess(a, &exact);
	if (k > MAX_EXP10 || k < -MAX_EXP10)
		return false;
	if (conv == 'f') {
		ilim = prec + k + 1;
		ilim1 = ilim - 1;
	} else {
		ilim = ilim1 = conv == 'e' ? prec + 1 : prec ? prec : 1;
	}
	if (ilim <= 0 || ilim > MAX_FAST_DIGITS)
		return false;

	/* a scaled into [1, 10) the way Ruby scales it, counting the inexact steps */
	d = a;
	if (k > 0) {
		double ds = tens[k & 0xf];

		for (i = 0, j = k >> 4; j; j >>= 1, i++)
			if (j & 1) {
				ieps++;
				ds *= big_tens[i];
			}
		d /= ds;
	} else if (k < 0) {
		d *= tens[-k & 0xf];
		for (i = 0, j = -k >> 4; j; j >>= 1, i++)
			if (j & 1) {
				ieps++;
				d *= big_tens[i];
			}
	}
	if (!exact && d < 1) {
		/* the guess was one too high */
		if (ilim1 <= 0)
			return false;
		ilim = ilim1;
		k--;
		d *= 10;
		ieps++;
	}
	eps = ldexp(ieps * d + 7, -52) * tens[ilim - 1];

	*keep_zeros = false;
	for (i = 1;; i++, d *= 10) {
		int digit = (int)d;

		d -= digit;
		if (d == 0)
			ilim = i;
		digits = digits * 10 + digit;
		if (i < ilim)
			continue;
		if (d > 0.5 + eps) {
			digits++;
		} else if (!(d < 0.5 - eps)) {
			/*
			 * Within eps of the half: an odd digit is bumped at
			 * once.  An even one is left to exact arithmetic,
			 * which for an integer below 1e15 rounds the exact
			 * value as C does, and otherwise keeps the digit; in
			 * both, digits not bumped keep their trailing zeros
			 * when the exact value lies above the half.
			 */
			bool above = !(digit & 1) && exact_above_half(a, ilim, digits);

			if (digit & 1)
				digits++;
			else if (a == floor(a) && a < 1e15)
				*keep_zeros = !above, digits += above;
			else
				*keep_zeros = above;
		}
		break;
	}
	snprintf(buf, sizeof(buf), "%llde%d", digits, k - i + 1);
	*out = strtod(buf, NULL);
	return true;
}

/* v (finite or not) as C's %.*<conv>, with '#' when keep: the body before sign and width */
static void c_format(char *buf, size_t size, int prec, char conv, bool keep, double v)
{
	switch (conv) {
	case 'e':
		snprintf(buf, size, "%.*e", prec, v);
		break;
	case 'g':
		if (keep)
			snprintf(buf, size, "%#.*g", prec, v);
		else
			snprintf(buf, size, "%.*g", prec, v);
		break;
	default:
		snprintf(buf, size, "%.*f", prec, v);
		break;
	}
}

int rubyfmt__format(char *buf, size_t size, bool plus, int width, int prec, char conv, double v)
{
	char body[512];
	double r;
	bool keep = false;
	int len;

	if (isnormal(v) && prec >= 0 && ruby_round(fabs(v), conv, prec, &r, &keep))
		v = copysign(r, v);
	/*
	 * %#g keeps the zeros; it would add a point to a value printed as an
	 * integer of all its digits too, where the zeros are printed anyway
	 */
	if (keep && conv == 'g') {
		int p = prec ? prec : 1;

		keep = !(fabs(v) >= tens[p - 1] && fabs(v) < tens[p]);
	}
	c_format(body, sizeof(body), prec, conv, keep, v);
	len = (int)strlen(body) + (plus && body[0] != '-');
	return snprintf(buf, size, "%*s%s%s", width > len ? width - len : 0, "",
			plus && body[0] != '-' ? "+" : "", body);
}
