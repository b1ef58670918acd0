/*
 * test-diff-audit: the problems an audit of `mmprof diff` found (issue 4),
 * each pinned by a test that failed before its fix:
 *   - a row that is 0 on both sides printed "-100.0%" (the robot's 1e-100
 *     zero base in the numerator too);
 *   - tracepoint histogram buckets named by addresses (which ASLR moves
 *     every run) were tested, and as ~100 new/gone keys per diff they
 *     swamped the tracepoint family's FDR: a real 0 -> 3600 order-9 row
 *     came out "same";
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/diff.h"
#include "mmprof/xalloc.h"

/* Growing per-run key lists for synthetic sides. */
struct run_keys {
	struct key_value *items;
	size_t nr, alloc;
};

static void rk_add(struct run_keys *r, const char *key, double v)
{
	XGROW(r->items, r->alloc, r->nr);
	r->items[r->nr].key = xstrdup(key);
	r->items[r->nr].value = v;
	r->nr++;
}

static void rk_release(struct run_keys *r, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < r[i].nr; j++)
			free(r[i].items[j].key);
		free(r[i].items);
		memset(&r[i], 0, sizeof(r[i]));
	}
}

static int compute(struct diff *d, struct run_keys *runs, size_t nb, size_t nn,
		   const struct diff_opts *o)
{
	struct diff_run dr[16] = { 0 };
	size_t i;

	for (i = 0; i < nb + nn; i++) {
		dr[i].items = runs[i].items;
		dr[i].nr = runs[i].nr;
	}
	return diff__compute(d, dr, nb, dr + nb, nn, o);
}

/*
 * The audit's case: 3 runs a side of --mm tracepoints; page_fault_user by
 * 2 MiB region, 16 regions a run at addresses of their own (ASLR), plus
 * the histogram's "other"; kmem:mm_page_alloc by order, order 9 from
 * nothing to ~3600 a run.
 */
static void test_address_buckets(void)
{
	static const double order9[6] = { 0, 0, 0, 3200, 3856, 3920 };
	struct run_keys r[6] = { { 0 } };
	const struct diff_row *x, **rows;
	struct outbuf b = { 0 };
	struct diff d;
	char key[128];
	size_t i, n, listed = 0;
	int k;

	for (i = 0; i < 6; i++) {
		for (k = 0; k < 16; k++) {
			snprintf(key, sizeof(key), "tracepoint.exceptions:page_fault_user.address.0x%llx",
				 0x7f0000000000ULL + ((unsigned long long)(i * 16 + k) << 21) * 977);
			rk_add(&r[i], key, 400 - 20 * k);
		}
		rk_add(&r[i], "tracepoint.exceptions:page_fault_user.address.other", 90 + (double)i);
		rk_add(&r[i], "tracepoint.exceptions:page_fault_user.count", 6000 + 10 * (double)i);
		rk_add(&r[i], "tracepoint.kmem:mm_page_alloc.order.0", 50000 + 100 * (double)(i % 3));
		if (order9[i] > 0)
			rk_add(&r[i], "tracepoint.kmem:mm_page_alloc.order.9", order9[i]);
	}
	ok(diff__address_key("tracepoint.exceptions:page_fault_user.address.0x7f3a00000000") &&
	   !diff__address_key("tracepoint.kmem:mm_page_alloc.order.9") &&
	   !diff__address_key("tracepoint.exceptions:page_fault_user.address.other") &&
	   !diff__address_key("tracepoint.x:y.address.0x") &&
	   !diff__address_key("wl.address.0x10"), "diff__address_key: tpstats' region buckets only");
	is_int(compute(&d, r, 3, 3, NULL), 0, "address buckets: computed");
	x = diff__find(&d, "tracepoint.kmem:mm_page_alloc.order.9");
	ok(x && x->verdict == DIFF_UP && x->q < 0.05, "order 9, 0 -> 3659 a run, p~0.004: up (q=%.2g)",
	   x ? x->q : NAN);
	is_int((int)d.nr_address, 6 * 16 + 1, "every address bucket and the histogram's other are flagged");
	x = diff__find(&d, "tracepoint.exceptions:page_fault_user.address.other");
	ok(x && (x->flags & DIFF_ADDRESS) && !(x->flags & DIFF_TESTED) && isnan(x->q) &&
	   !strcmp(diff_row__verdict_name(x), "address"), "the address histogram's other: not tested");
	x = diff__find(&d, "tracepoint.exceptions:page_fault_user.count");
	ok(x && !(x->flags & DIFF_ADDRESS) && (x->flags & DIFF_TESTED), "the event's count is compared");
	rows = diff__select(&d, DIFF_SELECT_DEFAULT, &n);
	for (i = 0; i < n; i++)
		listed += !!(rows[i]->flags & DIFF_ADDRESS);
	is_int((int)listed, 0, "no address bucket among the default rows");
	free(rows);
	rows = diff__select(&d, DIFF_SELECT_ALL, &n);
	diff__format(&b, &d, rows, n, DIFF_FORMAT_LKP, true);
	ok(b.s && strstr(b.s, "address.other  [address]\n"), "--all: labelled, not tested");
	free(rows);
	outbuf__release(&b);
	diff__release(&d);
	rk_release(r, 6);
}

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
	test_address_buckets();
	return done_testing();
}
