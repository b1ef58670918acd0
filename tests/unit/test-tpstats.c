/*
 * test-tpstats: tracepoint field histograms count each hit once per field.
 * The running kernel's kmem:mm_page_alloc and exceptions:page_fault_user
 * are loaded from tracefs (this machine has them; the test must not skip),
 * records are built at the kernel's own field offsets and fed to the hook
 * as the sampler would, and the stored metrics are checked against the
 * known numbers of hits: a --field given twice, or naming a field that a
 * default histogram already covers, must not count a hit twice.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/trace.h"
#include "tap.h"

#define ALLOC "kmem:mm_page_alloc"
#define FAULT "exceptions:page_fault_user"

/* A record of event `id` with a u64-or-narrower field set to v. */
static void make_raw(unsigned char *raw, size_t size, int id, const struct trace_field *f,
		     uint64_t v)
{
	uint16_t type = (uint16_t)id;

	memset(raw, 0, size);
	memcpy(raw, &type, sizeof(type));
	memcpy(raw + f->offset, &v, f->size < sizeof(v) ? f->size : sizeof(v));	/* little endian */
}

static double metric(const struct profile *p, const char *key)
{
	uint32_t id = profile__str_id(p, key);
	double sum = 0;
	size_t i;

	for (i = 0; id && i < p->nr_metrics; i++)
		if (p->metrics[i].key == id)
			sum += p->metrics[i].value;
	return sum;
}

/* Sum of the metrics whose key starts with prefix (a field's histogram). */
static double metric_prefix(const struct profile *p, const char *prefix)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < p->nr_metrics; i++)
		if (!strncmp(profile__str(p, p->metrics[i].key), prefix, strlen(prefix)))
			sum += p->metrics[i].value;
	return sum;
}

static void test_no_double_count(void)
{
	struct strlist events = { 0 }, fields = { 0 };
	struct trace *t = trace__new();
	struct trace_field order, address;
	struct errmsg e = { "" };
	struct tpstats *ts;
	struct profile *p = profile__new();
	struct run r = { .exit_code = 0 };
	unsigned char raw[256];
	struct sample smp;
	int alloc_id, fault_id, i;

	alloc_id = trace__load(t, "kmem", "mm_page_alloc", &e);
	fault_id = trace__load(t, "exceptions", "page_fault_user", &e);
	ok(alloc_id > 0 && fault_id > 0, "this kernel has %s and %s (%s)", ALLOC, FAULT, e.msg);
	is_int(trace__field(t, alloc_id, "order", &order), 0, "order field");
	is_int(trace__field(t, fault_id, "address", &address), 0, "address field");
	ok(order.offset + order.size <= sizeof(raw) && address.offset + address.size <= sizeof(raw),
	   "fields fit the test's record");

	strlist__add(&events, ALLOC);
	strlist__add(&events, FAULT);
	strlist__add(&fields, ALLOC "/order");	/* a default covers it */
	strlist__add(&fields, ALLOC "/order");	/* and again */
	strlist__add(&fields, FAULT "/address");	/* a default covers it */
	strlist__add(&fields, ALLOC "/gfp_flags");	/* a new field */
	ts = tpstats__new(&events, &fields, &e);
	ok(ts != NULL, "tpstats with repeated and default-covered --field specs (%s)", e.msg);
	if (!ts)
		goto out;

	profile__add_run(p, &r);
	memset(&smp, 0, sizeof(smp));
	smp.raw = raw;
	smp.raw_size = sizeof(raw);
	for (i = 0; i < 10; i++) {
		make_raw(raw, sizeof(raw), alloc_id, &order, i < 7 ? 0 : 9);
		tpstats__hook(ts, 0, &smp);
	}
	for (i = 0; i < 5; i++) {
		make_raw(raw, sizeof(raw), fault_id, &address, 0x7f0000200000ULL + (uint64_t)i * 4096);
		tpstats__hook(ts, 1, &smp);
	}
	tpstats__end_run(ts, p, 0);

	is_dbl(metric(p, "tracepoint." ALLOC ".count"), 10, 0, "10 page allocations counted");
	is_dbl(metric(p, "tracepoint." ALLOC ".order.0"), 7, 0, "order 0: 7, counted once");
	is_dbl(metric(p, "tracepoint." ALLOC ".order.9"), 3, 0, "order 9: 3, counted once");
	is_dbl(metric_prefix(p, "tracepoint." ALLOC ".order."), 10, 0,
	       "the order histogram sums to the hits");
	is_dbl(metric_prefix(p, "tracepoint." ALLOC ".gfp_flags."), 10, 0,
	       "a new --field still gets its histogram");
	is_dbl(metric(p, "tracepoint." FAULT ".count"), 5, 0, "5 faults counted");
	is_dbl(metric(p, "tracepoint." FAULT ".address.0x7f0000200000"), 5, 0,
	       "the faults' 2 MiB region: 5, the default's bucketing kept");
	is_dbl(metric_prefix(p, "tracepoint." FAULT ".address."), 5, 0,
	       "no raw-address duplicates beside the regions");
	tpstats__free(ts);

	strlist__release(&fields);
	strlist__add(&fields, ALLOC "/nope");
	ts = tpstats__new(&events, &fields, &e);
	ok(!ts && strstr(e.msg, "has no field 'nope'"), "an unknown field still fails: %s", e.msg);
	tpstats__free(ts);
out:
	strlist__release(&events);
	strlist__release(&fields);
	profile__free(p);
	trace__free(t);
}

int main(void)
{
	test_no_double_count();
	return done_testing();
}
