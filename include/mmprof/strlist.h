/*
 * strlist: a growing list of owned strings, what an OPT_LIST option
 * (options.h) collects and what recording takes for its -e, --field and
 * counter selections.  A leaf: the recording headers name it without
 * knowing anything of option parsing.
 *
 * Zero-initialise ({ 0 }) before use; strlist__add copies s; release frees
 * every string and zeroes the list.  Allocation failure exits (xalloc.h).
 * Workload: a handful of items per command line.
 */
#ifndef MMPROF_STRLIST_H
#define MMPROF_STRLIST_H

#include <stddef.h>

struct strlist {
	char **items;
	size_t nr, alloc;
};
void strlist__add(struct strlist *l, const char *s);
void strlist__release(struct strlist *l);

#endif
