/* strlist: a list of owned strings; see include/mmprof/strlist.h. */
#include <stdlib.h>
#include <string.h>

#include "mmprof/strlist.h"
#include "mmprof/xalloc.h"

void strlist__add(struct strlist *l, const char *s)
{
	XGROW(l->items, l->alloc, l->nr);
	l->items[l->nr++] = xstrdup(s);
}

void strlist__release(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}
