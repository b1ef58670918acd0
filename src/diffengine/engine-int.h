/* diffengine's internals shared by its files (session.c, report.c, files.c). */
#ifndef MMPROF_DIFFENGINE_INT_H
#define MMPROF_DIFFENGINE_INT_H

#include "mmprof/diffengine.h"

/* One line to the caller's say (diff_engine_opts), formatted; nothing without one. */
void diff_result__say(const struct diff_result *r, enum diff_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
