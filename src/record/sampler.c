/*
 * sampler: callchain sampling through libperf; see include/mmprof/sampler.h
 * for the interface and src/record/sampler-int.h for how the files share
 * the work.
 *
 * Per run: sampler__open builds a fresh evlist (one evsel per event, all
 * sharing per-CPU ring buffers), the caller polls and drains, sampler__close
 * tears the evlist down and sampler__end_run turns the raw aggregate into
 * profile counts.  Event choice (the default's fallback) is made once, on
 * the first open, and reused by later runs.  This file: construction, the
 * sample type every open asks for, and the notes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler-int.h"
#include "mmprof/xalloc.h"

struct sampler *sampler__new(const struct sampler_opts *o, struct symbols *syms,
			     struct errmsg *e)
{
	struct sampler *s;
	uint64_t budget;
	size_t i;

	if (o->mmap_pages < 0 || (o->mmap_pages & (o->mmap_pages - 1))) {
		errmsg__set(e, -EINVAL, "ring buffer size of %d pages is not a power of 2",
			    o->mmap_pages);
		return NULL;
	}
	if (o->freq < 0) {
		errmsg__set(e, -EINVAL, "sampling frequency %d Hz is negative", o->freq);
		return NULL;
	}
	if (o->call_graph == CALL_GRAPH_DWARF &&
	    (!o->stack_size || o->stack_size % 8 || o->stack_size > UNWIND__STACK_MAX)) {
		errmsg__set(e, -EINVAL, "--call-graph dwarf: stack size %u is not a multiple of 8 "
			    "between 8 and %u", o->stack_size, UNWIND__STACK_MAX);
		return NULL;
	}
	if (o->call_graph == CALL_GRAPH_LBR && !o->no_callchain && o->events)
		for (i = 0; i < o->events->nr; i++) {
			struct evspec sp;

			/* software events and tracepoints never carry branch records */
			if (evspec__parse(o->events->items[i], &sp, NULL) == 0 &&
			    (sp.tracepoint || sp.attr.type == PERF_TYPE_SOFTWARE ||
			     sp.attr.type == PERF_TYPE_TRACEPOINT ||
			     sp.attr.type == PERF_TYPE_BREAKPOINT)) {
				errmsg__set(e, -EOPNOTSUPP, "--call-graph lbr: event '%s' has no "
					    "last branch records (only hardware events such as "
					    "cycles do); use --call-graph dwarf or fp",
					    o->events->items[i]);
				return NULL;
			}
		}
	s = xcalloc(1, sizeof(*s));
	s->opts = *o;
	s->opts.events = NULL;
	if (o->call_graph == CALL_GRAPH_DWARF && !o->no_callchain && !s->opts.mmap_pages)
		s->opts.mmap_pages = DWARF_MMAP_PAGES;
	if (!s->opts.freq && !s->opts.period)
		s->opts.freq = DEFAULT_FREQ;
	s->auto_pages = !s->opts.mmap_pages;
	if (!s->opts.mmap_pages)
		s->opts.mmap_pages = DEFAULT_MMAP_PAGES;
	s->syms = syms;
	strintern__init(&s->comms, &(struct strintern_opts){ .reserve_zero = true });
	hashidx__init(&s->tid_idx);
	hashidx__init(&s->space_idx);
	hashidx__init(&s->frow_idx);
	stackagg__init(&s->agg);
	/* the arena's share: sampler__bind gives it to the aggregate */
	budget = o->stack_budget ? o->stack_budget : STACKAGG_BUDGET;
	s->arena_words = (size_t)(budget / 8 * STACKAGG_ARENA_EIGHTHS / 8);
	s->max_nodes = o->max_nodes;	/* 0: datafile__trie_takes's own */
	chainspill__init(&s->spill);
	reorderq__init(&s->sb);
	sampler__queue_init(&s->q);

	if (o->events && o->events->nr) {
		s->nr_evs = o->events->nr;
		s->evs = xcalloc(s->nr_evs, sizeof(*s->evs));
		for (i = 0; i < s->nr_evs; i++) {
			const char *spec = o->events->items[i];

			if (evspec__parse(spec, &s->evs[i].spec, e)) {
				sampler__free(s);
				return NULL;
			}
			snprintf(s->evs[i].asked, sizeof(s->evs[i].asked), "%s", spec);
		}
	} else {
		s->is_default = true;
		s->nr_evs = 1;
		s->evs = xcalloc(1, sizeof(*s->evs));
		evspec__parse("cycles", &s->evs[0].spec, NULL);
		snprintf(s->evs[0].asked, sizeof(s->evs[0].asked), "cycles");
	}

	s->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (!o->no_callchain)
		s->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (!o->no_callchain && o->call_graph == CALL_GRAPH_DWARF) {
		s->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		s->unwinder = unwinder__new(syms);
	}
	if (!o->no_callchain && o->call_graph == CALL_GRAPH_LBR) {
		/*
		 * As perf: user calls only, as a call stack, without the cycle
		 * counts and flags nobody reads.  No HW_INDEX: mmprof does not
		 * stitch stacks deeper than the LBR (perf's --stitch-lbr).
		 */
		s->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		s->branch_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
				 PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES;
	}
	/* tracepoint fields (trace.h decodes them) ride in the raw data */
	for (i = 0; i < s->nr_evs; i++)
		if (s->evs[i].spec.tracepoint)
			s->sample_type |= PERF_SAMPLE_RAW;
	s->raw_on_read = o->raw_hook && (s->sample_type & PERF_SAMPLE_RAW);
	/* samples of several events share a buffer: the id says whose they are */
	if (s->nr_evs > 1)
		s->sample_type |= PERF_SAMPLE_IDENTIFIER;
	return s;
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	sampler__teardown(s);
	free(s->evs);
	free(s->pids);
	free(s->ids);
	free(s->scratch);
	free(s->lbr);
	unwinder__free(s->unwinder);
	strintern__release(&s->comms);
	free(s->tids);
	hashidx__release(&s->tid_idx);
	free(s->spaces);
	hashidx__release(&s->space_idx);
	free(s->frows);
	hashidx__release(&s->frow_idx);
	free(s->comm_str);
	free(s->inl_at);
	free(s->inl_ids);
	free(s->frames);
	reorderq__release(&s->sb);
	stackagg__release(&s->agg);
	chainspill__release(&s->spill);
	chainsort__free(s->whole);
	free(s->root_first);
	sampler__queue_release(&s->q);
	free(s);
}

uint64_t sampler__sample_type(const struct sampler *s)
{
	return s->sample_type;
}

const char *sampler__note(const struct sampler *s)
{
	return s->note[0] ? s->note : NULL;
}

const char *sampler__user_note(const struct sampler *s)
{
	return s->user_note[0] ? s->user_note : NULL;
}

const char *sampler__exec_note(const struct sampler *s)
{
	return s->exec_note[0] ? s->exec_note : NULL;
}

const char *sampler__freq_note(const struct sampler *s)
{
	return s->freq_note[0] ? s->freq_note : NULL;
}

int sampler__freq(const struct sampler *s)
{
	return s->opts.freq;
}

uint64_t sampler__stacks_cut(const struct sampler *s)
{
	return s->stacks_cut;
}

uint64_t sampler__chains_lost(const struct sampler *s)
{
	return s->chains_lost;
}

uint64_t sampler__spills(const struct sampler *s)
{
	return s->spills;
}

uint64_t sampler__queue_full(const struct sampler *s)
{
	return s->queue_full;
}

uint64_t sampler__reader_aggregated(const struct sampler *s)
{
	return s->reader_aggregated;
}

size_t sampler__sideband_held(const struct sampler *s)
{
	return reorderq__nr(&s->sb);
}

void sampler__progress(const struct sampler *s, uint64_t *samples, uint64_t *lost)
{
	if (samples)	/* as read: the worker's counts are its own while the run lasts */
		*samples = s->read_samples;
	if (lost)
		*lost = s->lost;
}
