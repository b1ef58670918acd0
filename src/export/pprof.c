/*
 * pprof: a profile as github.com/google/pprof's profile.proto, gzipped.
 *
 * Field numbers are those of perftools.profiles.Profile (proto3):
 *   Profile  1 sample_type  2 sample  3 mapping  4 location  5 function
 *            6 string_table  9 time_nanos  10 duration_nanos
 *            11 period_type  12 period  13 comment  14 default_sample_type
 *   ValueType 1 type 2 unit;  Sample 1 location_id 2 value 3 label
 *   Label 1 key 2 str;  Mapping 1 id 2 memory_start 3 memory_limit
 *            5 filename 7 has_functions;  Location 1 id 2 mapping_id
 *            3 address 4 line;  Line 1 function_id;  Function 1 id 2 name
 *            3 system_name
 *
 * Mapping order: pprof takes mapping[0] as the main binary (`go tool pprof`
 * prints "File: <its name>", and symbolizers start there), so the
 * recorded command's executable goes first (matched by path, then by
 * basename, against the command after " -- " in meta cmdline); without
 * one (-a, -p, or a command that was never sampled) the DSO with the most
 * samples at the sampled address (for -a usually the kernel).  Otherwise
 * mappings keep the order in which samples first reach them.
 *
 * Sample values sum over runs (or take one run): pprof has no notion of
 * repeated runs, and a sum keeps every total a reader computes equal to
 * the .data file's.  Unresolved frames become Locations without a Line,
 * which is how pprof marks "not symbolized" (it shows the address).
 *
 * A profile whose trie holds some chains only in part (chainsrc.h) has
 * the trie's samples that are not under an "[elided]" node, then one
 * Sample per (whole chain, comm, pid) of p->whole, its locations those of
 * its frames (wholestack.h): the same Locations as the trie's frames, as
 * a frame is one Location.  The whole chains are walked three times (to
 * count, to number their locations, to write), never held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mmprof/export.h"
#include "mmprof/hashidx.h"
#include "mmprof/wholestack.h"
#include "mmprof/xalloc.h"

/* A set of u64 keys giving dense ids 0, 1, ... in order of insertion. */
struct keyset {
	uint64_t *keys;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool keyset_eq(const void *ctx, uint32_t row, const void *key)
{
	return ((const struct keyset *)ctx)->keys[row] == *(const uint64_t *)key;
}

/* Id of k, added when new (*added tells which). */
static uint32_t keyset__id(struct keyset *s, uint64_t k, bool *added)
{
	uint64_t h = hash__u64(k);
	uint32_t row = hashidx__find(&s->idx, h, keyset_eq, s, &k);

	*added = row == HASHIDX_NONE;
	if (row == HASHIDX_NONE) {
		XGROW(s->keys, s->alloc, s->nr);
		row = (uint32_t)s->nr;
		s->keys[s->nr++] = k;
		hashidx__insert(&s->idx, h, row);
	}
	return row;
}

static void keyset__release(struct keyset *s)
{
	free(s->keys);
	hashidx__release(&s->idx);
}

struct pp {
	const struct profile *p;
	/* string table: profile string id -> pprof index (0 = not yet) */
	int64_t *str_map;
	const char **strs;	/* pprof index -> text (borrowed) */
	size_t nr_strs, alloc_strs;

	struct pbuf out, msg, sub;
};

/* The message built in m becomes field of into; m is emptied for the next one. */
static void pp_nest(struct pbuf *into, uint32_t field, struct pbuf *m)
{
	pbuf__bytes(into, field, m->b, m->len);
	m->len = 0;
}

static int64_t pp_str(struct pp *pp, const char *s)
{
	uint32_t id = profile__str_id(pp->p, s);
	size_t i;

	if (!s || !*s)
		return 0;
	if (id) {
		if (!pp->str_map[id]) {
			XGROW(pp->strs, pp->alloc_strs, pp->nr_strs);
			pp->str_map[id] = (int64_t)pp->nr_strs;
			pp->strs[pp->nr_strs++] = profile__str(pp->p, id);
		}
		return pp->str_map[id];
	}
	/* our own few words ("samples", "count", "comm"), met before the
	 * table grows: a linear search over it stays short */
	for (i = 1; i < pp->nr_strs; i++)
		if (!strcmp(pp->strs[i], s))
			return (int64_t)i;
	XGROW(pp->strs, pp->alloc_strs, pp->nr_strs);
	pp->strs[pp->nr_strs] = s;
	return (int64_t)pp->nr_strs++;
}

static int64_t pp_id(struct pp *pp, uint32_t str_id)
{
	return str_id ? pp_str(pp, profile__str(pp->p, str_id)) : 0;
}

const char *export__period_unit(const char *event)
{
	/* offcpu (record --sched): its period is nanoseconds off CPU */
	if (event && (!strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10) ||
		      !strcmp(event, "offcpu")))
		return "nanoseconds";
	return "count";
}

static void value_type(struct pp *pp, uint32_t field, const char *type, const char *unit)
{
	pbuf__uint(&pp->sub, 1, (uint64_t)pp_str(pp, type));
	pbuf__uint(&pp->sub, 2, (uint64_t)pp_str(pp, unit));
	pp_nest(&pp->out, field, &pp->sub);
}

/* sample_type names: "samples" and the event name, prefixed when several events */
static void sample_types(struct pp *pp, char (*names)[2][160])
{
	const struct profile *p = pp->p;
	size_t i;

	for (i = 0; i < p->nr_events; i++) {
		const char *ev = profile__str(p, p->events[i].name);
		char unnamed[32];

		if (!ev) {
			snprintf(unnamed, sizeof(unnamed), "event%zu", i);
			ev = unnamed;
		}
		if (p->nr_events == 1)
			snprintf(names[i][0], sizeof(names[i][0]), "samples");
		else
			snprintf(names[i][0], sizeof(names[i][0]), "%s-samples", ev);
		snprintf(names[i][1], sizeof(names[i][1]), "%s", ev);
		value_type(pp, 1, names[i][0], "count");
		value_type(pp, 1, names[i][1], export__period_unit(ev));
	}
}

struct dso_range {
	uint64_t lo, hi;
	bool all_named;
};

/* The workload's executable, as written after " -- " in meta cmdline, into buf. */
static bool command_exe(const struct profile *p, char *buf, size_t size)
{
	const char *cmd = profile__meta(p, "cmdline"), *s;
	size_t n = 0;

	s = cmd ? strstr(cmd, " -- ") : NULL;
	if (!s || size < 2)
		return false;
	/* one word, unquoting sysinfo__quote_argv's '...' and '\'' */
	for (s += 4; *s && *s != ' ' && n + 1 < size; s++) {
		if (*s == '\'') {
			for (s++; *s && *s != '\''; s++)
				if (n + 1 < size)
					buf[n++] = *s;
			if (!*s)
				break;
			continue;
		}
		if (*s == '\\' && s[1])
			s++;
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return n > 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Index in dsos of the main binary: the command's executable by path, then
 * by basename; else the DSO sampled most often (leaf frames, every event).
 */
static size_t main_dso(const struct profile *p, const struct keyset *dsos,
		       const struct keyset *samples, const uint64_t *vals, size_t nv,
		       const uint64_t *whole_hits)
{
	char exe[4096];
	size_t i, j, best = 0, by_base = SIZE_MAX;
	uint64_t *hits;

	if (command_exe(p, exe, sizeof(exe))) {
		for (i = 0; i < dsos->nr; i++) {
			const char *d = profile__str(p, (uint32_t)dsos->keys[i]);

			if (!d)
				continue;
			if (!strcmp(d, exe))
				return i;
			if (by_base == SIZE_MAX && !strcmp(base_name(d), base_name(exe)))
				by_base = i;
		}
		if (by_base != SIZE_MAX)
			return by_base;
	}
	hits = xcalloc(dsos->nr + 1, sizeof(*hits));
	for (i = 0; i < samples->nr; i++) {
		const struct frame *fr = &p->frames[p->nodes[samples->keys[i] >> 32].frame];
		uint32_t d;

		if (!fr->dso)
			continue;
		d = hashidx__find(&dsos->idx, hash__u64(fr->dso), keyset_eq, dsos,
				  &(uint64_t){ fr->dso });
		for (j = 0; d != HASHIDX_NONE && j < nv; j += 2)
			hits[d] += vals[i * nv + j];
	}
	for (i = 0; whole_hits && i < dsos->nr; i++)
		hits[i] += whole_hits[i];
	for (i = 1; i < dsos->nr; i++)
		if (hits[i] > hits[best])
			best = i;
	free(hits);
	return best;
}

/* Mapping id (from 1) of dsos index d when index main_d is moved first. */
static uint64_t mapping_id(size_t d, size_t main_d)
{
	return d == main_d ? 1 : d < main_d ? d + 2 : d + 1;
}

static int write_gzip(const struct pbuf *pb, struct outbuf *out, struct errmsg *e)
{
	unsigned char chunk[1 << 16];
	z_stream zs;
	int zr;

	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip wrapper, as profile.proto asks */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return errmsg__set(e, -ENOMEM, "zlib: cannot start compression");
	zs.next_in = pb->b;
	zs.avail_in = 0;
	{
		size_t left = pb->len;
		int flush;

		do {
			unsigned int step = left > (1u << 30) ? 1u << 30 : (unsigned int)left;

			zs.next_in = pb->b + (pb->len - left);
			zs.avail_in = step;
			left -= step;
			flush = left ? Z_NO_FLUSH : Z_FINISH;
			do {
				zs.next_out = chunk;
				zs.avail_out = sizeof(chunk);
				zr = deflate(&zs, flush);
				if (zr == Z_STREAM_ERROR) {
					deflateEnd(&zs);
					return errmsg__set(e, -EIO, "zlib: compression failed");
				}
				outbuf__add(out, (const char *)chunk, sizeof(chunk) - zs.avail_out);
				if (outbuf__flush(out)) {
					deflateEnd(&zs);
					return errmsg__set(e, -EIO, "cannot write the profile");
				}
			} while (zs.avail_out == 0);
		} while (flush != Z_FINISH);
	}
	deflateEnd(&zs);
	return zr == Z_STREAM_END ? 0 : errmsg__set(e, -EIO, "zlib: compression did not finish");
}

/*
 * Profile.period of the first event (the one period_type names): a fixed
 * period as recorded; with a frequency, 1e9/freq ns for a clock event
 * (the kernel programs cpu-clock and task-clock so), otherwise the mean
 * period of its samples in the exported runs (the kernel adapts a counting
 * event's period to the frequency).  0 when nothing says (pprof: unset).
 */
static uint64_t sampling_period(const struct profile *p, int run)
{
	const struct event_desc *ev = &p->events[0];
	uint64_t samples = 0, period = 0;
	size_t i;

	if (!ev->freq)
		return ev->sample;
	if (ev->sample && !strcmp(export__period_unit(profile__str(p, ev->name)), "nanoseconds"))
		return (1000000000ull + ev->sample / 2) / ev->sample;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->event == 0 && (run < 0 || c->run == (uint32_t)run)) {
			samples += c->samples;
			period += c->period;
		}
	}
	return samples ? (period + samples / 2) / samples : 0;
}

/*
 * "symbols.hint [vdso]=stripped, ...: install its debuginfo": the
 * recorder's hint about a pseudo DSO (the kernel's [vdso], [vsyscall],
 * [kernel.kallsyms]) telling to install or rebuild something nobody can
 * install for it; pprof comments leave such hints out (the .data file
 * keeps them for report --unresolved).
 */
static bool pseudo_dso_debuginfo_hint(const char *key, const char *value)
{
	static const char prefix[] = "symbols.hint [";

	return key && value && !strncmp(key, prefix, sizeof(prefix) - 1) &&
	       key[strlen(key) - 1] == ']' &&
	       (strstr(value, "debuginfo") || strstr(value, "stripped"));
}

/*
 * A Sample holds a value per sample type, two per event, so the values
 * are stacks x events: a file of 200,000 events cost 1.72 GB here.  No
 * real recording comes near this many (a million stacks of two events is
 * 4 M values; the cap is 128 MiB of them).
 */
#define PPROF_MAX_VALUES (1u << 24)

/*
 * One export's state, filled in the order of export__pprof: the samples
 * and their values, then the locations, functions and mappings the
 * samples reach, then the messages written into pp.out.
 */
struct pprof_build {
	struct pp pp;
	const struct pprof_opts *o;
	struct keyset samples;	/* (node, tag): one Sample each */
	struct keyset tags;	/* (comm, pid) */
	struct keyset funcs;	/* (sym, dso): Function id - 1 */
	struct keyset dsos;	/* dso string ids: Mapping before main_d's reordering */
	char (*names)[2][160];	/* per event: its two sample types */
	uint64_t *vals;		/* samples.nr x nv */
	size_t nv, alloc_vals;
	uint32_t *loc_of_frame, *func_of_frame;	/* profile frame -> Location, Function id (0: none) */
	size_t nr_locs;
	struct dso_range *ranges;	/* per dsos entry */
	size_t main_d;		/* the dsos entry written as mapping 1 */
	char **comments;	/* per meta row, owned until the string table is written */
	uint8_t *elided;	/* profile__elided_nodes: NULL without whole chains */
	uint64_t *whole_hits;	/* per dsos entry: the whole chains' samples at its addresses */
	size_t alloc_hits;
	/* one whole chain's Samples: its (comm, pid) tags and their values */
	uint64_t *chain_tags, *chain_vals;
	size_t alloc_chain;
	uint64_t whole_samples, whole_frames;
	int64_t comm_key, pid_key;	/* the labels' keys in the string table */
};

/*
 * Samples: one per (node, comm, pid), values[2 * event + {samples,
 * period}]; a (comm, pid) pair is a tag numbered in tags, so that a
 * sample key still fits 64 bits.
 */
static int pprof_build__samples(struct pprof_build *b, struct errmsg *e)
{
	const struct profile *p = b->pp.p;
	size_t i, nv = b->nv;

	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		bool added;
		uint32_t s;

		if ((b->o->run >= 0 && c->run != (uint32_t)b->o->run) || !c->node ||
		    c->node >= p->nr_nodes || c->event >= p->nr_events ||
		    (b->elided && b->elided[c->node]))
			continue;
		s = keyset__id(&b->tags, ((uint64_t)c->comm << 32) | c->pid, &added);
		s = keyset__id(&b->samples, ((uint64_t)c->node << 32) | s, &added);
		if (added && b->samples.nr > b->alloc_vals) {
			/* every sample holds a value for every event: refuse what
			 * would not fit in memory rather than try */
			if (b->samples.nr > PPROF_MAX_VALUES / nv)
				return errmsg__set(e, -E2BIG,
						   "%zu events and more than %zu distinct stacks make more than %u values: pprof keeps every event's values in every sample; export one run (--run N) or one event (-f folded -e EVENT)",
						   p->nr_events, b->samples.nr - 1, PPROF_MAX_VALUES);
			b->alloc_vals = b->alloc_vals ? 2 * b->alloc_vals : 64;
			if (b->alloc_vals > PPROF_MAX_VALUES / nv)
				b->alloc_vals = PPROF_MAX_VALUES / nv;
			b->vals = xrealloc(b->vals, b->alloc_vals * nv * sizeof(*b->vals));
		}
		if (added)
			memset(b->vals + (size_t)s * nv, 0, nv * sizeof(*b->vals));
		b->vals[(size_t)s * nv + 2 * c->event] += c->samples;
		b->vals[(size_t)s * nv + 2 * c->event + 1] += c->period;
	}
	return 0;
}

/* Frame f's Location (numbered on when new), its Function and Mapping. */
static void pprof_build__location(struct pprof_build *b, uint32_t f)
{
	const struct frame *fr = &b->pp.p->frames[f];
	struct dso_range *r;
	bool added;
	uint32_t d;

	if (b->loc_of_frame[f])
		return;
	b->loc_of_frame[f] = (uint32_t)++b->nr_locs;
	if (fr->sym)
		b->func_of_frame[f] = keyset__id(&b->funcs,
			((uint64_t)fr->sym << 32) | fr->dso, &added) + 1;
	if (!fr->dso)
		return;
	d = keyset__id(&b->dsos, fr->dso, &added);
	if (added) {
		b->ranges = xrealloc(b->ranges, b->dsos.nr * sizeof(*b->ranges));
		b->ranges[d] = (struct dso_range){ fr->addr, fr->addr, true };
	}
	r = &b->ranges[d];
	if (fr->addr < r->lo)
		r->lo = fr->addr;
	if (fr->addr > r->hi)
		r->hi = fr->addr;
	if (!fr->sym)
		r->all_named = false;
}

/* Does the export take whole chain c's cell x (pprof_build__samples' filter)? */
static bool pprof_takes(const struct pprof_build *b, const struct chain_cell *x)
{
	return (b->o->run < 0 || x->run == (uint32_t)b->o->run) && x->event < b->pp.p->nr_events;
}

/*
 * A whole chain's Samples: its cells the export takes grouped by (comm,
 * pid), in the cells' order, into chain_tags and chain_vals (nv values
 * each); how many.
 */
static size_t pprof_build__chain_samples(struct pprof_build *b, const struct chain_rec *c)
{
	size_t n = 0, t, nv = b->nv;
	uint32_t i;

	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *x = &c->cells[i];
		uint64_t tag = ((uint64_t)x->comm << 32) | x->pid;

		if (!pprof_takes(b, x))
			continue;
		for (t = 0; t < n && b->chain_tags[t] != tag; t++)
			;
		if (t == n) {
			if (n + 1 > b->alloc_chain) {
				b->alloc_chain = 2 * (n + 1);
				b->chain_tags = xrealloc(b->chain_tags, b->alloc_chain * sizeof(*b->chain_tags));
				b->chain_vals = xrealloc(b->chain_vals,
							 b->alloc_chain * nv * sizeof(*b->chain_vals));
			}
			b->chain_tags[n++] = tag;
			memset(b->chain_vals + t * nv, 0, nv * sizeof(*b->chain_vals));
		}
		b->chain_vals[t * nv + 2 * x->event] += x->samples;
		b->chain_vals[t * nv + 2 * x->event + 1] += x->period;
	}
	return n;
}

/* Walk 1: the whole chains' Samples and frames counted, their frames checked. */
static int whole_count(void *ctx, const struct chain_rec *c)
{
	struct pprof_build *b = ctx;
	size_t n = pprof_build__chain_samples(b, c);
	int err = wholestack__check(b->pp.p, c);

	b->whole_samples += n;
	b->whole_frames += n * c->nr;
	return err;
}

/* Walk 2: the whole chains' Locations, and their samples per DSO sampled. */
static int whole_locations(void *ctx, const struct chain_rec *c)
{
	struct pprof_build *b = ctx;
	const struct frame *leaf = &b->pp.p->frames[c->frames[c->nr - 1]];
	size_t n = pprof_build__chain_samples(b, c), t, j;
	uint32_t i, d;

	if (!n)
		return 0;
	for (i = c->nr; i-- > 0;)	/* leaf first, as the trie's samples */
		pprof_build__location(b, c->frames[i]);
	if (!leaf->dso)
		return 0;
	d = hashidx__find(&b->dsos.idx, hash__u64(leaf->dso), keyset_eq, &b->dsos,
			  &(uint64_t){ leaf->dso });
	XGROW(b->whole_hits, b->alloc_hits, d);
	for (t = 0; t < n; t++)
		for (j = 0; j < b->nv; j += 2)
			b->whole_hits[d] += b->chain_vals[t * b->nv + j];
	return 0;
}

/* Locations only for frames some sample uses; Functions per (sym, dso); Mappings per DSO. */
static int pprof_build__locations(struct pprof_build *b, struct errmsg *e)
{
	const struct profile *p = b->pp.p;
	size_t i;
	int err;

	b->loc_of_frame = xcalloc(p->nr_frames + 1, sizeof(*b->loc_of_frame));
	b->func_of_frame = xcalloc(p->nr_frames + 1, sizeof(*b->func_of_frame));
	for (i = 0; i < b->samples.nr; i++) {
		uint32_t q;

		for (q = (uint32_t)(b->samples.keys[i] >> 32); q; q = p->nodes[q].parent)
			pprof_build__location(b, p->nodes[q].frame);
	}
	if (b->elided) {
		err = chainsrc__each(p->whole, whole_locations, b);
		if (err)
			return errmsg__set(e, err < 0 ? err : -EIO, "cannot read the profile's whole chains: %s",
					   strerror(err < 0 ? -err : EIO));
		if (b->dsos.nr)	/* every entry has its count */
			XGROW(b->whole_hits, b->alloc_hits, b->dsos.nr - 1);
	}
	/* the main binary first, as mapping 1; the others after it in order */
	if (b->dsos.nr)
		b->main_d = main_dso(p, &b->dsos, &b->samples, b->vals, b->nv, b->whole_hits);
	return 0;
}

/* One Sample: its locations leaf first, its values, its (comm, pid) tag as labels. */
static void pprof_build__sample(struct pprof_build *b, const uint64_t *locs, size_t n,
				const uint64_t *vals, uint64_t tag)
{
	struct pp *pp = &b->pp;
	uint32_t comm = (uint32_t)(tag >> 32), pid = (uint32_t)tag;

	pbuf__packed(&pp->msg, 1, locs, n);
	pbuf__packed(&pp->msg, 2, vals, b->nv);
	if (comm) {
		pbuf__uint(&pp->sub, 1, (uint64_t)b->comm_key);
		pbuf__uint(&pp->sub, 2, (uint64_t)pp_id(pp, comm));
		pp_nest(&pp->msg, 3, &pp->sub);
	}
	if (pid) {	/* a numeric label: Label.num */
		pbuf__uint(&pp->sub, 1, (uint64_t)b->pid_key);
		pbuf__uint(&pp->sub, 3, pid);
		pp_nest(&pp->msg, 3, &pp->sub);
	}
	pp_nest(&pp->out, 2, &pp->msg);
}

struct whole_write {
	struct pprof_build *b;
	uint64_t *locs;
	size_t alloc;
};

/* Walk 3: each whole chain's Samples written. */
static int whole_samples(void *ctx, const struct chain_rec *c)
{
	struct whole_write *ww = ctx;
	struct pprof_build *b = ww->b;
	size_t n = pprof_build__chain_samples(b, c), t;
	uint32_t i;

	if (!n)
		return 0;
	XGROW(ww->locs, ww->alloc, c->nr);
	for (i = 0; i < c->nr; i++)
		ww->locs[i] = b->loc_of_frame[c->frames[c->nr - 1 - i]];	/* leaf first */
	for (t = 0; t < n; t++)
		pprof_build__sample(b, ww->locs, c->nr, b->chain_vals + t * b->nv, b->chain_tags[t]);
	return 0;
}

static int pprof_build__write_samples(struct pprof_build *b, struct errmsg *e)
{
	const struct profile *p = b->pp.p;
	struct pp *pp = &b->pp;
	uint64_t *locs = xmalloc((p->nr_nodes + 1) * sizeof(*locs));
	struct whole_write ww = { .b = b };
	size_t i;
	int err = 0;

	/* the label keys first in the string table, met or not */
	b->comm_key = pp_str(pp, "comm");
	b->pid_key = pp_str(pp, "pid");
	for (i = 0; i < b->samples.nr; i++) {
		uint64_t tag = b->tags.keys[(uint32_t)b->samples.keys[i]];
		uint32_t q;
		size_t n = 0;

		for (q = (uint32_t)(b->samples.keys[i] >> 32); q; q = p->nodes[q].parent)
			locs[n++] = b->loc_of_frame[p->nodes[q].frame];	/* leaf first */
		pprof_build__sample(b, locs, n, b->vals + i * b->nv, tag);
	}
	free(locs);
	if (b->elided) {
		err = chainsrc__each(p->whole, whole_samples, &ww);
		if (err)
			err = errmsg__set(e, err < 0 ? err : -EIO, "cannot read the profile's whole chains: %s",
					  strerror(err < 0 ? -err : EIO));
	}
	free(ww.locs);
	return err;
}

static void pprof_build__write_mappings(struct pprof_build *b)
{
	struct pp *pp = &b->pp;
	size_t i, j, main_d = b->main_d;

	for (j = 0; j < b->dsos.nr; j++) {
		i = j == 0 ? main_d : (j <= main_d ? j - 1 : j);
		pbuf__uint(&pp->msg, 1, mapping_id(i, main_d));
		pbuf__uint(&pp->msg, 2, b->ranges[i].lo);
		pbuf__uint(&pp->msg, 3, b->ranges[i].hi + 1);
		pbuf__uint(&pp->msg, 5, (uint64_t)pp_id(pp, (uint32_t)b->dsos.keys[i]));
		if (b->ranges[i].all_named)
			pbuf__uint(&pp->msg, 7, 1);
		pp_nest(&pp->out, 3, &pp->msg);
	}
}

/* Locations in id order: walk frames, emit the ones given an id. */
static void pprof_build__write_locations(struct pprof_build *b)
{
	const struct profile *p = b->pp.p;
	struct pp *pp = &b->pp;
	uint32_t *by_loc = xcalloc(b->nr_locs + 1, sizeof(*by_loc));
	size_t i, j;

	for (j = 0; j < p->nr_frames; j++)
		if (b->loc_of_frame[j])
			by_loc[b->loc_of_frame[j]] = (uint32_t)j;
	for (i = 1; i <= b->nr_locs; i++) {
		const struct frame *fr = &p->frames[by_loc[i]];
		bool added;

		pbuf__uint(&pp->msg, 1, i);
		if (fr->dso)
			pbuf__uint(&pp->msg, 2, mapping_id(keyset__id(&b->dsos, fr->dso, &added), b->main_d));
		pbuf__uint(&pp->msg, 3, fr->addr);
		if (b->func_of_frame[by_loc[i]]) {
			pbuf__uint(&pp->sub, 1, b->func_of_frame[by_loc[i]]);
			pp_nest(&pp->msg, 4, &pp->sub);
		}
		pp_nest(&pp->out, 4, &pp->msg);
	}
	free(by_loc);
}

static void pprof_build__write_functions(struct pprof_build *b)
{
	struct pp *pp = &b->pp;
	size_t i;

	for (i = 0; i < b->funcs.nr; i++) {
		int64_t name = pp_id(pp, (uint32_t)(b->funcs.keys[i] >> 32));

		pbuf__uint(&pp->msg, 1, i + 1);
		pbuf__uint(&pp->msg, 2, (uint64_t)name);
		pbuf__uint(&pp->msg, 3, (uint64_t)name);
		pp_nest(&pp->out, 5, &pp->msg);
	}
}

/* The profile's own fields after its messages: times, period, comments, the string table. */
static void pprof_build__write_tail(struct pprof_build *b)
{
	const struct profile *p = b->pp.p;
	struct pp *pp = &b->pp;
	int run = b->o->run;
	uint64_t total_wall = 0;
	size_t i;

	for (i = 0; i < p->nr_runs; i++)
		if (run < 0 || i == (size_t)run)
			total_wall += p->runs[i].wall_ns > 0 ? (uint64_t)p->runs[i].wall_ns : 0;
	if (p->nr_runs)
		pbuf__uint(&pp->out, 9, (uint64_t)p->runs[run < 0 ? 0 : run].start_ns);
	pbuf__uint(&pp->out, 10, total_wall);
	value_type(pp, 11, b->names[0][1], export__period_unit(b->names[0][1]));
	if (sampling_period(p, run))
		pbuf__uint(&pp->out, 12, sampling_period(p, run));
	/* meta as comments "key=value"; the texts are owned until written */
	b->comments = xcalloc(p->nr_meta + 1, sizeof(*b->comments));
	for (i = 0; i < p->nr_meta; i++) {
		const char *k = profile__str(p, p->meta[i].key);
		const char *v = profile__str(p, p->meta[i].value);
		size_t len = strlen(k ? k : "") + strlen(v ? v : "") + 2;

		if (pseudo_dso_debuginfo_hint(k, v))
			continue;
		b->comments[i] = xmalloc(len);
		snprintf(b->comments[i], len, "%s=%s", k ? k : "", v ? v : "");
		XGROW(pp->strs, pp->alloc_strs, pp->nr_strs);
		pp->strs[pp->nr_strs] = b->comments[i];
		pbuf__uint(&pp->out, 13, pp->nr_strs++);
	}
	pbuf__uint(&pp->out, 14, (uint64_t)pp_str(pp, b->names[0][1]));

	for (i = 0; i < pp->nr_strs; i++)
		pbuf__bytes(&pp->out, 6, pp->strs[i], strlen(pp->strs[i]));
}

static void pprof_build__release(struct pprof_build *b)
{
	size_t i;

	free(b->names);
	free(b->vals);
	free(b->loc_of_frame);
	free(b->func_of_frame);
	free(b->ranges);
	for (i = 0; b->comments && i < b->pp.p->nr_meta; i++)
		free(b->comments[i]);
	free(b->comments);
	free(b->elided);
	free(b->whole_hits);
	free(b->chain_tags);
	free(b->chain_vals);
	free(b->pp.str_map);
	free(b->pp.strs);
	keyset__release(&b->samples);
	keyset__release(&b->tags);
	keyset__release(&b->funcs);
	keyset__release(&b->dsos);
	pbuf__release(&b->pp.out);
	pbuf__release(&b->pp.msg);
	pbuf__release(&b->pp.sub);
}

int export__pprof(const struct profile *p, const struct pprof_opts *o, struct outbuf *out,
		  struct errmsg *e)
{
	struct pprof_build b = { .pp = { .p = p }, .o = o, .nv = 2 * p->nr_events };
	int err;

	if (o->run >= (int)p->nr_runs)
		return errmsg__set(e, -EINVAL, "no run %d (the profile has %zu, numbered from 0)", o->run, p->nr_runs);
	if (!p->nr_events)
		return errmsg__set(e, -EINVAL, "the profile has no sampling event");
	b.pp.str_map = xcalloc(p->strs.nr + 1, sizeof(*b.pp.str_map));
	XGROW(b.pp.strs, b.pp.alloc_strs, 0);
	b.pp.strs[b.pp.nr_strs++] = "";	/* string_table[0] must be "" */
	b.names = xcalloc(p->nr_events, sizeof(*b.names));
	sample_types(&b.pp, b.names);
	hashidx__init(&b.samples.idx);
	hashidx__init(&b.tags.idx);
	hashidx__init(&b.funcs.idx);
	hashidx__init(&b.dsos.idx);

	b.elided = profile__elided_nodes(p);
	err = pprof_build__samples(&b, e);
	if (!err && b.elided) {
		err = chainsrc__each(p->whole, whole_count, &b);
		if (err)
			err = errmsg__set(e, err < 0 ? err : -EIO, "cannot read the profile's whole chains: %s",
					  strerror(err < 0 ? -err : EIO));
		else if (b.samples.nr + b.whole_samples > PPROF_MAX_VALUES / b.nv)
			err = errmsg__set(e, -E2BIG,
					  "%zu events and more than %llu distinct stacks make more than %u values: pprof keeps every event's values in every sample; export one run (--run N) or one event (-f folded -e EVENT)",
					  p->nr_events, (unsigned long long)(PPROF_MAX_VALUES / b.nv), PPROF_MAX_VALUES);
	}
	if (!err) {	/* each sample's stack written whole: counted first */
		uint64_t frames = b.whole_frames;
		size_t i;

		for (i = 0; i < b.samples.nr; i++)	/* a node's depth: the frames of its stack */
			frames += p->nodes[(uint32_t)(b.samples.keys[i] >> 32)].depth;
		err = export__check_frames(frames, e);
	}
	if (!err)
		err = pprof_build__locations(&b, e);
	if (!err)
		err = pprof_build__write_samples(&b, e);
	if (!err) {
		pprof_build__write_mappings(&b);
		pprof_build__write_locations(&b);
		pprof_build__write_functions(&b);
		pprof_build__write_tail(&b);
		if (o->no_gzip) {
			outbuf__add(out, (const char *)b.pp.out.b, b.pp.out.len);
			if (outbuf__flush(out))
				err = errmsg__set(e, -EIO, "cannot write the profile");
		} else {
			err = write_gzip(&b.pp.out, out, e);
		}
	}
	pprof_build__release(&b);
	return err;
}
