/*
 * test-diff-audit: the problems an audit of `mmprof diff` found (issue 4),
 * each pinned by a test that failed before its fix:
 *   - a row that is 0 on both sides printed "-100.0%" (the robot's 1e-100
 *     zero base in the numerator too);
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/diff.h"
#include "mmprof/xalloc.h"

/* 0 -> 0 is no change, in the robot's table as anywhere else. */
static void test_zero_zero(void)
{
	struct outbuf b = { 0 };

	diff__lkp_row(&b, "proc-vmstat.thp_split_page", 0, 0, 0, 0, NULL);
	ok(b.s && !strstr(b.s, "-100.0%"), "0 -> 0: not -100 %%");
	is_str(b.s, "      0.00            +0.0%       0.00        proc-vmstat.thp_split_page\n",
	       "0 -> 0: printed as no change");
	b.len = 0;
	diff__lkp_row(&b, "proc-vmstat.thp_split_page", 4, 0, 0, 0, NULL);
	ok(b.s && strstr(b.s, "-100.0%"), "4 -> 0 is still -100 %%");
	outbuf__release(&b);
}

int main(void)
{
	test_zero_zero();
	return done_testing();
}
