/*
 * test-reorderq: the reorder queue (perfsession.h) against a naive model.
 *
 * The sampler now queues every sample with the side-band records, so the
 * queue merges sorted runs instead of sorting and moves what stays only
 * now and then: clever enough to need a reference.  Rounds of records are
 * made as the ring buffers give them: per CPU in time order, the CPUs'
 * runs end to end, times overlapping between CPUs, records of random
 * sizes, ties between CPUs.  After each round the queue is flushed at the
 * sampler's limit (the newest time of the round before) or at a random
 * one; every record must come out exactly once, in (time, arrival) order,
 * exactly when its time is at most the limit, its bytes intact.  The
 * model: every record pushed, in an array, sorted by (time, seq) with a
 * plain insertion, emitted by scanning.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <perf/event.h>

#include "tap.h"
#include "mmprof/perfsession.h"

struct rec {
	uint64_t time, seq;
	uint16_t size;
	int done;
};

struct check {
	struct rec *model;
	size_t nr, next_out;	/* next_out: records emitted so far */
	uint64_t limit;
	size_t bad_order, bad_bytes, bad_limit, out;
	uint64_t last_time, last_seq;
	int any;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A record's payload: its seq, then bytes derived from it. */
static void fill(unsigned char *buf, uint64_t seq, uint16_t size)
{
	struct perf_event_header *h = (void *)buf;
	size_t i;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = size;
	memcpy(buf + 8, &seq, 8);
	for (i = 16; i < size; i++)
		buf[i] = (unsigned char)(seq * 31 + i);
}

static void on_record(void *ctx, const union perf_event *ev)
{
	struct check *c = ctx;
	const unsigned char *b = (const void *)ev;
	unsigned char want[512];
	struct rec *r;
	uint64_t seq;

	memcpy(&seq, b + 8, 8);
	if (seq >= c->nr) {
		c->bad_bytes++;
		return;
	}
	r = &c->model[seq];
	fill(want, seq, r->size);
	if (ev->header.size != r->size || memcmp(b, want, r->size) || r->done)
		c->bad_bytes++;
	if (r->time > c->limit)
		c->bad_limit++;
	if (c->any && (r->time < c->last_time || (r->time == c->last_time && seq < c->last_seq)))
		c->bad_order++;
	r->done = 1;
	c->any = 1;
	c->last_time = r->time;
	c->last_seq = seq;
	c->out++;
}

int main(void)
{
	enum { ROUNDS = 400, CPUS = 4, MAX_PER_CPU = 60 };
	struct reorderq q;
	struct check c = { 0 };
	unsigned char buf[512];
	uint64_t clock = 1000, seen_max = 0, safe = 0;
	size_t round, cpu, i, alloc = 0, peak = 0, missed = 0, early = 0;

	reorderq__init(&q);
	for (round = 0; round < ROUNDS; round++) {
		uint64_t round_start = clock;

		for (cpu = 0; cpu < CPUS; cpu++) {
			uint64_t t = round_start + next_rand() % 50;
			size_t n = next_rand() % MAX_PER_CPU;

			for (i = 0; i < n; i++) {
				struct rec *r;

				t += next_rand() % 4;	/* ties within and across CPUs */
				if (c.nr == alloc) {
					alloc = alloc ? 2 * alloc : 1024;
					c.model = realloc(c.model, alloc * sizeof(*c.model));
				}
				r = &c.model[c.nr];
				r->time = t;
				r->seq = c.nr;
				r->size = (uint16_t)(16 + 8 * (next_rand() % 40));
				r->done = 0;
				fill(buf, r->seq, r->size);
				reorderq__push(&q, t, (const void *)buf);
				if (t > seen_max)
					seen_max = t;
				c.nr++;
			}
		}
		clock += 120;
		/* the sampler's rule, and now and then a random limit */
		c.limit = round % 7 == 3 ? round_start + next_rand() % 100 : safe;
		c.any = 0;
		if (safe)
			reorderq__flush(&q, c.limit, on_record, &c);
		safe = seen_max;
		if (q.len > peak)
			peak = q.len;
		/* what the model says must have come out by now */
		for (i = 0; i < c.nr; i++) {
			if (!c.model[i].done && safe && c.model[i].time <= c.limit)
				missed++;
		}
	}
	c.limit = UINT64_MAX;
	c.any = 0;
	reorderq__flush(&q, UINT64_MAX, on_record, &c);
	for (i = 0; i < c.nr; i++)
		early += !c.model[i].done;

	ok(c.nr > 10000, "%zu records in %d rounds of %d CPUs", c.nr, ROUNDS, CPUS);
	is_int(c.out, c.nr, "every record comes out exactly once");
	is_int(early, 0, "none is left after the last flush");
	is_int(c.bad_bytes, 0, "each with its own bytes, not handed twice");
	is_int(c.bad_order, 0, "each flush hands them in (time, arrival) order");
	is_int(c.bad_limit, 0, "none stamped after the flush's limit");
	is_int(missed, 0, "none stamped at or before the limit is kept back");
	is_int(reorderq__nr(&q), 0, "the queue is empty at the end");
	ok(peak < 3 * CPUS * MAX_PER_CPU * 336, "the queue holds about two rounds of bytes "
	   "(peak %zu)", peak);
	reorderq__release(&q);
	free(c.model);
	return done_testing();
}
