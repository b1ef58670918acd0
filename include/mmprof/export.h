/*
 * export: a profile written in formats other tools read.
 *
 *   folded  report__folded (report.h) as is: `mmprof export --format
 *           folded` is the same text as `mmprof report --folded`.
 *   pprof   profile.proto of github.com/google/pprof, gzipped: what
 *           `go tool pprof`, Pyroscope, Parca and Grafana read.  The
 *           protobuf is written by hand (pbuf below, wire format only:
 *           varints and length-delimited fields) so no protobuf library
 *           is needed; gzip comes from zlib.
 *   json    Documentation/export-json.md: meta, events, runs, frames,
 *           stacks (root-first frame ids) and counts, enough to redraw a
 *           flame graph or rebuild the profile's samples and periods.
 *
 * Both writers are single passes over the profile's tables plus hash
 * lookups; nothing is per sample.  A profile with whole chains
 * (p->whole, chainsrc.h) has them written in place of the trie's stacks
 * under "[elided]" nodes (wholestack.h): a walk of them to count, then
 * the walks that write; a walk's error is said in e.  They return 0 or -errno (-EIO when the
 * stream failed) and never print anything but the export itself.
 */
#ifndef MMPROF_EXPORT_H
#define MMPROF_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmprof/errmsg.h"
#include "mmprof/outbuf.h"
#include "mmprof/profile.h"

/* A growable protobuf encoding buffer (wire format only). */
struct pbuf {
	uint8_t *b;
	size_t len, alloc;
};

#define PBUF_VARINT 0
#define PBUF_LEN 2

void pbuf__release(struct pbuf *pb);
void pbuf__varint(struct pbuf *pb, uint64_t v);
/* A varint field; int64 values are passed as their two's complement. */
void pbuf__uint(struct pbuf *pb, uint32_t field, uint64_t v);
/* A length-delimited field: bytes, a string or an embedded message. */
void pbuf__bytes(struct pbuf *pb, uint32_t field, const void *data, size_t n);
/* A packed repeated varint field (nothing when n is 0). */
void pbuf__packed(struct pbuf *pb, uint32_t field, const uint64_t *v, size_t n);

struct pprof_opts {
	int run;		/* run index, or -1: every run summed */
	bool no_gzip;		/* write the bare protobuf (for debugging) */
};

/*
 * Write p as a pprof Profile: one sample type pair per event
 * ("samples"/"count" and "<event>"/unit, where unit is "nanoseconds" for
 * cpu-clock and task-clock, else "count"), one Sample per (stack, comm)
 * with a "comm" label, Locations one per frame, Functions one per
 * (symbol, DSO), Mappings one per DSO, the meta as comments (less the
 * install-debuginfo hints of pseudo DSOs, [vdso]), Period the first
 * event's (fixed period; at a frequency 1e9/freq ns for a clock event,
 * else the mean period of its samples).
 */
int export__pprof(const struct profile *p, const struct pprof_opts *o, struct outbuf *out,
		  struct errmsg *e);

/* Unit of an event's period as pprof and the JSON export name it. */
const char *export__period_unit(const char *event);

/* Write p as export JSON (Documentation/export-json.md). */
int export__json(const struct profile *p, struct outbuf *out, struct errmsg *e);

/*
 * The frames the stacks of an export hold, each its node's depth (a whole
 * chain's: its frames), counted before any byte is written: every
 * stack is written whole (pprof's samples, export JSON's stacks), and one
 * chain of 65,535 frames with a count at each (a 1.2 MB file) is 2^31
 * frames: export -f json wrote 3.2 GB in 60 s.  At most 2^25 (about 130
 * MB of frame ids; robustness.md); past it -E2BIG, said in e, before any
 * byte is written.
 */
#define EXPORT_MAX_FRAMES ((uint64_t)1 << 25)
/* -E2BIG, said in e, when frames pass EXPORT_MAX_FRAMES; else 0. */
int export__check_frames(uint64_t frames, struct errmsg *e);

#define EXPORT_JSON_VERSION 1

#endif
