/*
 * --call-graph lbr without an LBR: this machine has no hardware PMU, so the
 * records a PMU with LBR would write are built here, word for word as the
 * kernel's perf_output_sample lays them out (IP TID TIME CPU PERIOD
 * CALLCHAIN BRANCH_STACK, as mmprof asks), and checked twice: the chain
 * sample__lbr_chain makes of them (perf's resolve_lbr_callchain_sample,
 * callee order), and what a sampler set up for lbr makes of them once
 * replayed and resolved against this binary's own functions.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "mmprof/sample.h"
#include "mmprof/sampler.h"
#include "mmprof/symbols.h"
#include "perf-records.h"
#include "tap.h"

#define K1 0xffffffff81100010ULL	/* kernel frames */
#define K2 0xffffffff81200020ULL
#define UIP 0x401010ULL			/* the user IP */
#define JUNK1 0x7fff00001234ULL		/* what a frame-pointer walk finds without frame pointers */
#define JUNK2 0x12ULL
#define CS1 0x402020ULL			/* call sites, innermost first */
#define CS2 0x403030ULL
#define FN0 0x401000ULL			/* entry of the running function */
#define FN1 0x402000ULL

#define LBR_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)

struct br {
	uint64_t from, to;
};

/* A sample as the kernel writes it for sample_type LBR_TYPE. */
static size_t put_sample(uint64_t *buf, uint64_t ip, uint32_t pid, uint64_t time, uint16_t misc,
			 const uint64_t *chain, uint64_t nr, const struct br *br, uint64_t nbr)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t pt[2] = { pid, pid }, cpu[2] = { 1, 0 };
	uint64_t *p = buf + 1, i;

	*p++ = ip;
	memcpy(p++, pt, 8);
	*p++ = time;
	memcpy(p++, cpu, 8);
	*p++ = 1000;			/* period */
	*p++ = nr;
	if (nr)
		memcpy(p, chain, nr * 8);
	p += nr;
	*p++ = nbr;			/* no hw_idx: mmprof does not ask for it */
	for (i = 0; i < nbr; i++) {
		*p++ = br[i].from;
		*p++ = br[i].to;
		*p++ = 0;		/* flags: NO_FLAGS and NO_CYCLES leave them 0 */
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = misc;
	h->size = (uint16_t)((char *)p - (char *)buf);
	return h->size / 8;
}

/* Parse buf back and build its lbr chain; compare with want (n entries). */
static int chain_is(const uint64_t *buf, const uint64_t *want, uint64_t n, const char *what)
{
	struct sample s;
	uint64_t out[64], got, i;
	int err = sample__parse(buf, LBR_TYPE, 0, &s);

	if (err) {
		ok(0, "%s: parse failed (%d)", what, err);
		return 1;
	}
	got = sample__lbr_chain(&s, out);
	if (got > sample__lbr_chain_max(&s)) {
		ok(0, "%s: %llu entries, more than the %llu promised", what,
		   (unsigned long long)got, (unsigned long long)sample__lbr_chain_max(&s));
		return 1;
	}
	for (i = 0; i < got && i < n && out[i] == want[i]; i++)
		;
	if (got != n || i != n) {
		ok(0, "%s", what);
		for (i = 0; i < got; i++)
			printf("#   got[%llu] = %#llx\n", (unsigned long long)i, (unsigned long long)out[i]);
		return 1;
	}
	ok(1, "%s", what);
	return 0;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_chains(void)
{
	static const struct br br[] = { { CS1, FN0 }, { CS2, FN1 } };
	uint64_t buf[64];

	{
		/* user mode: the kernel's chain is [USER, ip, junk of its fp walk] */
		const uint64_t chain[] = { PERF_CONTEXT_USER, UIP, JUNK1, JUNK2 };
		const uint64_t want[] = { PERF_CONTEXT_USER, UIP, CS1, CS2 };

		put_sample(buf, UIP, 10, 1, PERF_RECORD_MISC_USER, chain, N(chain), br, N(br));
		chain_is(buf, want, N(want), "user mode: the IP, then each branch's from; "
			 "the frame-pointer junk is gone");
	}
	{
		/* in a syscall: kernel frames, USER, the user IP from pt_regs, junk */
		const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K1, K2, PERF_CONTEXT_USER, UIP,
					   JUNK1 };
		const uint64_t want[] = { PERF_CONTEXT_KERNEL, K1, K2, PERF_CONTEXT_USER, UIP,
					  CS1, CS2 };

		put_sample(buf, K1, 10, 1, PERF_RECORD_MISC_KERNEL, chain, N(chain), br, N(br));
		chain_is(buf, want, N(want), "kernel mode: the kernel's part kept, its user part "
			 "replaced by the user IP and the branches");
	}
	{
		/* the kernel's user part is the marker alone: the leaf is branches[0].to */
		const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K1, PERF_CONTEXT_USER };
		const uint64_t want[] = { PERF_CONTEXT_KERNEL, K1, PERF_CONTEXT_USER, FN0, CS1,
					  CS2 };

		put_sample(buf, K1, 10, 1, PERF_RECORD_MISC_KERNEL, chain, N(chain), br, N(br));
		chain_is(buf, want, N(want), "kernel mode, no user IP from the kernel: "
			 "branches[0].to is the user leaf (perf's choice)");
	}
	{
		const uint64_t chain[] = { PERF_CONTEXT_USER, UIP, JUNK1 };
		const uint64_t want[] = { PERF_CONTEXT_USER, UIP };

		put_sample(buf, UIP, 10, 1, PERF_RECORD_MISC_USER, chain, N(chain), NULL, 0);
		chain_is(buf, want, N(want), "empty branch stack, user mode: the leaf alone");
	}
	{
		const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K1, K2, PERF_CONTEXT_USER, UIP,
					   JUNK1, JUNK2 };
		const uint64_t want[] = { PERF_CONTEXT_KERNEL, K1, K2, PERF_CONTEXT_USER, UIP };

		put_sample(buf, K1, 10, 1, PERF_RECORD_MISC_KERNEL, chain, N(chain), NULL, 0);
		chain_is(buf, want, N(want), "empty branch stack, kernel mode: kernel part "
			 "and the user IP");
	}
	{
		const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K1, PERF_CONTEXT_USER };
		const uint64_t want[] = { PERF_CONTEXT_KERNEL, K1 };

		put_sample(buf, K1, 10, 1, PERF_RECORD_MISC_KERNEL, chain, N(chain), NULL, 0);
		chain_is(buf, want, N(want), "no user IP and no branches: no lone USER marker");
	}
	{
		/* a kernel thread: LBR only speaks of user code, the chain stays */
		const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K1, K2 };

		put_sample(buf, K1, 2, 1, PERF_RECORD_MISC_KERNEL, chain, N(chain), br, N(br));
		chain_is(buf, chain, N(chain), "kernel thread: the kernel's chain unchanged");
	}
	{
		const uint64_t want[] = { PERF_CONTEXT_USER, UIP, CS1, CS2 };

		put_sample(buf, UIP, 10, 1, PERF_RECORD_MISC_USER, NULL, 0, br, N(br));
		chain_is(buf, want, N(want), "user mode, empty callchain: the IP and the branches");
	}
	{
		/* entries that are no user address (0, the marker range) are skipped */
		static const struct br odd[] = { { 0, FN0 }, { CS1, FN1 },
						 { PERF_CONTEXT_KERNEL, 0 }, { CS2, 0 } };
		const uint64_t chain[] = { PERF_CONTEXT_USER, UIP };
		const uint64_t want[] = { PERF_CONTEXT_USER, UIP, CS1, CS2 };

		put_sample(buf, UIP, 10, 1, PERF_RECORD_MISC_USER, chain, N(chain), odd, N(odd));
		chain_is(buf, want, N(want), "zero and marker-range froms are skipped");
	}
	{
		/* a truncated branch stack is refused, not read past */
		const uint64_t chain[] = { PERF_CONTEXT_USER, UIP };
		struct sample s;
		size_t n = put_sample(buf, UIP, 10, 1, PERF_RECORD_MISC_USER, chain, N(chain), br,
				      N(br));
		uint64_t *copy = malloc((n - 1) * 8);
		int wrong = 0;
		size_t cut;

		for (cut = n - 1; cut >= 8; cut--) {
			memcpy(copy, buf, cut * 8);
			((struct perf_event_header *)copy)->size = (uint16_t)(cut * 8);
			wrong += sample__parse(copy, LBR_TYPE, 0, &s) != -EINVAL;
		}
		free(copy);
		is_int(wrong, 0, "every truncation of an lbr sample is refused");
	}
}

/* ---- through a sampler, resolved against this binary -------------------- */

static volatile uint64_t sink;

__attribute__((noinline)) static void hot(void)
{
	int i;

	for (i = 0; i < 100; i++)
		sink = sink * 3 + 1;
}

__attribute__((noinline)) static void mid(void)
{
	hot();
	sink++;
}

__attribute__((noinline)) static void outer(void)
{
	mid();
	sink++;
}

__attribute__((noinline)) static void decoy(void)
{
	sink += 7;
}

/* Every executable mapping of this test's binary, as MMAP2 records. */
static size_t put_own_maps(uint64_t *buf, uint32_t pid)
{
	char line[512], exe[256] = "";
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = 0;

	exe[len > 0 ? len : 0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx", &a, &b, perms, &off) == 4 &&
		    perms[2] == 'x' && strstr(line, exe))
			n += put_mmap2(buf + n, pid, a, b - a, off, exe, 1);
	}
	if (f)
		fclose(f);
	return n;
}

/* The stack of count row i, leaf first, as "sym;sym;...". */
static void stack_str(const struct profile *p, uint32_t node, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	while (node && len < size) {
		const struct frame *f = &p->frames[p->nodes[node].frame];
		const char *sym = f->sym ? profile__str(p, f->sym) : "?";

		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ";" : "", sym);
		node = p->nodes[node].parent;
	}
}

static void test_sampler(struct symbols *syms)
{
	struct sampler_opts o = { .freq = 1000, .call_graph = CALL_GRAPH_LBR };
	struct errmsg e = { "" };
	struct sampler *s = sampler__new(&o, syms, &e);
	struct profile *p = profile__new();
	static uint64_t buf[4096];
	uint64_t ip = (uint64_t)(uintptr_t)hot + 4;
	/* call sites: a few bytes into each caller (inside it, whatever the code) */
	uint64_t cs_mid = (uint64_t)(uintptr_t)mid + 4, cs_outer = (uint64_t)(uintptr_t)outer + 4;
	uint64_t junk = (uint64_t)(uintptr_t)decoy + 2;
	const uint64_t uchain[] = { PERF_CONTEXT_USER, ip, junk, junk };
	const uint64_t kchain[] = { PERF_CONTEXT_KERNEL, K1, PERF_CONTEXT_USER, ip, junk };
	const struct br br[] = { { cs_mid, (uint64_t)(uintptr_t)hot },
				 { cs_outer, (uint64_t)(uintptr_t)mid } };
	char st[256];
	struct run r = { 0 };
	size_t n, i;
	int seen_user = 0, seen_kernel = 0, seen_decoy = 0, read;

	ok(s != NULL, "a sampler for --call-graph lbr is made (%s)", e.msg);
	if (!s)
		return;
	ok((sampler__sample_type(s) & LBR_TYPE) == LBR_TYPE &&
	   !(sampler__sample_type(s) & ~(uint64_t)LBR_TYPE),
	   "it samples IP TID TIME CPU PERIOD CALLCHAIN BRANCH_STACK (%#llx)",
	   (unsigned long long)sampler__sample_type(s));
	n = put_own_maps(buf, 4242);
	for (i = 0; i < 3; i++)
		n += put_sample(buf + n, ip, 4242, 10 + i, PERF_RECORD_MISC_USER, uchain,
				N(uchain), br, N(br));
	n += put_sample(buf + n, K1, 4242, 20, PERF_RECORD_MISC_KERNEL, kchain, N(kchain),
			br, N(br));
	read = sampler__replay(s, buf, n * 8);
	is_int(read, 4, "four lbr samples replayed");
	sampler__add_events(s, p);
	sampler__end_run(s, p, 0, &r);
	for (i = 0; i < p->nr_counts; i++) {
		stack_str(p, p->counts[i].node, st, sizeof(st));
		printf("# stack %s: %llu samples\n", st, (unsigned long long)p->counts[i].samples);
		if (!strcmp(st, "hot;mid;outer"))
			seen_user += (int)p->counts[i].samples;
		/* a kernel frame (however kallsyms names K1), then the user stack */
		if (strlen(st) > strlen(";hot;mid;outer") &&
		    !strcmp(st + strlen(st) - strlen(";hot;mid;outer"), ";hot;mid;outer") &&
		    p->frames[p->nodes[p->counts[i].node].frame].kernel)
			seen_kernel += (int)p->counts[i].samples;
		if (strstr(st, "decoy"))
			seen_decoy++;
	}
	is_int(seen_user, 3, "user-mode samples: hot;mid;outer from the branch stack");
	is_int(seen_kernel, 1, "the kernel-mode sample: a kernel frame, then hot;mid;outer");
	is_int(seen_decoy, 0, "the frame-pointer walk's junk (decoy) is in no stack");
	profile__free(p);
	sampler__free(s);
}

static void test_refusals(struct symbols *syms)
{
	struct strlist ev = { 0 };
	const char *sw[] = { "cpu-clock" };
	struct sampler_opts o = { .freq = 1000, .call_graph = CALL_GRAPH_LBR };
	struct errmsg e = { "" };
	struct sampler *s;

	ev.items = (char **)sw;
	ev.nr = 1;
	o.events = &ev;
	s = sampler__new(&o, syms, &e);
	ok(!s && strstr(e.msg, "cpu-clock") && strstr(e.msg, "no last branch records"),
	   "lbr on a software event is refused up front: %s", e.msg);
	sampler__free(s);
	/* --no-callchain: no branch stack asked for */
	o.events = NULL;
	o.no_callchain = true;
	s = sampler__new(&o, syms, &e);
	ok(s && !(sampler__sample_type(s) & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_CALLCHAIN)),
	   "lbr with --no-callchain samples IPs only");
	sampler__free(s);
}

int main(void)
{
	struct symbols *syms = symbols__new();

	test_chains();
	test_sampler(syms);
	test_refusals(syms);
	symbols__free(syms);
	/* keep the functions the sampler test resolves in the binary, called or not */
	if (sink == 12345) {
		outer();
		decoy();
	}
	return done_testing();
}
