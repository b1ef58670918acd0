/*
 * Private to src/import: what perfscript.c (the line parser) calls in
 * perfevents.c (the events the samples name).
 */
#ifndef MMPROF_IMPORT_PERFSCRIPT_INT_H
#define MMPROF_IMPORT_PERFSCRIPT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/import.h"
#include "mmprof/profile.h"

/*
 * The profile's event for perf's name (len bytes; type: the header's
 * perf_event_attr.type, UINT32_MAX when not known) into *id, added when
 * new.  0, or -EPROTO (more than PERFSCRIPT_MAX_EVENTS) with e naming
 * ps's line.
 */
int perfscript__event(struct perfscript *ps, const char *name, size_t len, uint32_t type, uint32_t *id,
		      struct errmsg *e);
/* Drop the side-band "dummy" events of no sample, the counts' events renumbered. */
void perfscript__drop_tracking(struct profile *p);

#endif
