/*
 * trace: tracepoint formats and field decoding, through libtraceevent.
 *
 * A struct trace owns one tep handle and the tracepoints loaded into it,
 * each by its tracefs "format" file (tracefs is mounted when nothing is,
 * see evspec__tracefs) or by a format text given directly (tests, files
 * from elsewhere).  Decoding is done with field handles resolved once per
 * event (trace__field), so the per-record cost is a bounds check and a
 * load: sched tracepoints arrive at up to a million records a second.
 *
 * Raw data (PERF_SAMPLE_RAW, without its u32 size) is untrusted: every read
 * checks that the field lies inside the record; a short record gives
 * -EINVAL, never a read past its end.  Library code: returns 0/-errno and
 * fills struct errmsg, never prints.
 */
#ifndef MMPROF_TRACE_H
#define MMPROF_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/sample.h"
#include "mmprof/strlist.h"

struct trace;

/* A field of one loaded event; valid as long as its struct trace. */
struct trace_field {
	const void *f;		/* private: the library's field, NULL when absent */
	uint32_t offset, size;
	uint8_t is_signed, is_array;
};

struct trace *trace__new(void);
void trace__free(struct trace *t);	/* NULL is fine */

/*
 * Load sys:name from tracefs.  Returns the tracepoint id (> 0, what
 * perf_event_attr.config wants), -ENOENT with e filled when this kernel has
 * no such tracepoint, or another -errno.  Loading twice is harmless.
 */
int trace__load(struct trace *t, const char *sys, const char *name, struct errmsg *e);

/* Parse a format text (the contents of a tracefs "format" file); id as above. */
int trace__parse_format(struct trace *t, const char *sys, const char *text, size_t len,
			struct errmsg *e);

/* Does this kernel have sys:name?  (tracefs lookup only; nothing loaded) */
int trace__exists(const char *sys, const char *name);

/* The tracepoint id of a raw record (its common_type), or -EINVAL. */
int trace__record_id(const void *raw, uint32_t size);

/*
 * Resolve a field of the loaded event `id` (as trace__load returned).
 * -ENOENT when the event has no such field (f->f stays NULL).
 */
int trace__field(struct trace *t, int id, const char *name, struct trace_field *f);

/* Event name "sys:name" of a loaded id, or NULL. */
const char *trace__event_name(struct trace *t, int id);

/* Read a numeric field (sign-extended when signed); -EINVAL when outside raw. */
int trace__read_u64(const struct trace *t, const struct trace_field *f, const void *raw,
		    uint32_t size, uint64_t *v);

/* Copy a char-array field (comm) into buf, NUL-terminated; -EINVAL as above. */
int trace__read_str(const struct trace_field *f, const void *raw, uint32_t size,
		    char *buf, size_t buflen);

/*
 * tpstats: per-run statistics of sampled tracepoints (`-e sys:name`, --mm),
 * fed by the sampler's raw_hook, stored as run metrics (never raw events):
 *   tracepoint.<sys>:<name>.count              hits in the run
 *   tracepoint.<sys>:<name>.<field>.<value>    hits per field value, the 16
 *                                              most frequent, the rest in
 *                                              tracepoint.<...>.<field>.other
 * Fields with a default: kmem:mm_page_alloc and kmem:mm_page_free by order,
 * exceptions:page_fault_user/kernel by address in 2 MiB regions (value:
 * the region's start, hex), mmap_lock acquire latency (start_locking to
 * acquire_returned of the same task) in power-of-2 microsecond buckets
 * ("latency_us.<=N"), every bucket kept (at most 64), stored under
 * acquire_returned: only acquisitions with a start_locking before them are
 * timed (trylocks have none), so the buckets sum to fewer than its hits.
 * Extra fields: "sys:name/field" specs (exact values).  A field has one
 * histogram however often it is named: a repeated spec, or one naming a
 * field a default covers, adds nothing (the default's buckets stay), so
 * each hit counts once per field.
 */
struct tpstats;

/*
 * For the sampler's event specs (index i = sampler event i; specs that are
 * not tracepoints are ignored) and extra "sys:name/field" specs (NULL: none).
 */
struct tpstats *tpstats__new(const struct strlist *events, const struct strlist *fields,
			     struct errmsg *e);
void tpstats__free(struct tpstats *ts);	/* NULL is fine */
/* The sampler's raw_hook: ctx is the struct tpstats. */
void tpstats__hook(void *ctx, uint32_t event, const struct sample *smp);
/* Store the run's statistics as metrics of run `run` and start afresh. */
void tpstats__end_run(struct tpstats *ts, struct profile *p, uint32_t run);

#endif
