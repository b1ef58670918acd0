/*
 * test-rubyfmt: numbers as Ruby's format prints them (rubyfmt.h).
 *
 * Golden: tests/golden/rubyfmt/expected.txt is Ruby 3.1's own format of
 * every value of values.txt in the conversions the robot's table uses
 * (make-golden.rb); half of the values are ties C's printf rounds the
 * other way.  Every line must come out byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/rubyfmt.h"

#define GOLDEN "tests/golden/rubyfmt/"

static void test_golden(void)
{
	FILE *f = fopen(GOLDEN "expected.txt", "r");
	char line[256], spec[16], value[64], want[128], got[128], c_got[128];
	size_t n = 0, bad = 0, c_apart = 0;

	if (!ok(f != NULL, "golden file readable (run from the source root)"))
		return;
	while (fgets(line, sizeof(line), f)) {
		double v;
		bool plus;
		int prec;
		char conv;

		if (sscanf(line, "%15s %63s %127s", spec, value, want) != 3)
			continue;
		plus = spec[1] == '+';
		prec = atoi(spec + 2 + plus);
		conv = spec[strlen(spec) - 1];
		v = strtod(value, NULL);
		rubyfmt__format(got, sizeof(got), plus, 0, prec, conv, v);
		n++;
		if (strcmp(got, want)) {
			if (bad++ < 10)
				printf("# %s of %s: got '%s', Ruby '%s'\n", spec, value, got, want);
		}
		/* the same number through C's printf, to show the golden has ties */
		switch (conv) {
		case 'e':
			snprintf(c_got, sizeof(c_got), plus ? "%+.*e" : "%.*e", prec, v);
			break;
		case 'g':
			snprintf(c_got, sizeof(c_got), plus ? "%+.*g" : "%.*g", prec, v);
			break;
		default:
			snprintf(c_got, sizeof(c_got), plus ? "%+.*f" : "%.*f", prec, v);
			break;
		}
		c_apart += strcmp(c_got, want) != 0;
	}
	fclose(f);
	ok(n >= 1998, "golden: %zu lines read", n);
	ok(c_apart >= 200, "golden: C's printf differs from Ruby on %zu of them", c_apart);
	ok(bad == 0, "golden: every line as Ruby prints it (%zu differ)", bad);
}

static void test_cases(void)
{
	char b[64];

	rubyfmt__format(b, sizeof(b), false, 0, 2, 'f', 64.395);
	is_str(b, "64.40", "64.395 at %.2f: Ruby's 64.40, not C's 64.39");
	rubyfmt__format(b, sizeof(b), false, 0, 2, 'f', 1.005);
	is_str(b, "1.00", "1.005 at %.2f: an even digit stays");
	rubyfmt__format(b, sizeof(b), true, 0, 1, 'f', 0.3 - 0.15);
	is_str(b, "+0.2", "a change of 0.3 - 0.15 at %+.1f");
	rubyfmt__format(b, sizeof(b), false, 0, 4, 'g', 75.305);
	is_str(b, "75.30", "75.305 at %.4g keeps its zero as Ruby's does");
	rubyfmt__format(b, sizeof(b), false, 0, 2, 'g', 405);
	is_str(b, "4.0e+02", "405 at %.2g keeps its zero");
	rubyfmt__format(b, sizeof(b), false, 10, 2, 'f', -2.675);
	is_str(b, "     -2.68", "width and sign: -2.675 at %10.2f");
	rubyfmt__format(b, sizeof(b), true, 10, 1, 'f', 5);
	is_str(b, "      +5.0", "width with a plus");
	rubyfmt__format(b, sizeof(b), false, 0, 2, 'f', 0.0);
	is_str(b, "0.00", "zero");
	{
		char big[400], c[400];

		rubyfmt__format(big, sizeof(big), false, 0, 2, 'f', 1e300);
		snprintf(c, sizeof(c), "%.2f", 1e300);
		is_str(big, c, "1e300 at %.2f: past the fast digits, the exact value as C prints it");
	}
}

int main(void)
{
	test_golden();
	test_cases();
	return done_testing();
}
