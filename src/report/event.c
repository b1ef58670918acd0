/*
 * event: a profile's event found by the name a user types, perf's
 * ("cycles:pp"), the robot's ("cycles-pp", keys.h) or the one asked of
 * record.  Apart from symview so that the symbol trie needs nothing of
 * the keys built on it.
 */
#include <string.h>

#include "mmprof/keys.h"
#include "mmprof/report.h"

int report__find_event(const struct profile *p, const char *name)
{
	char buf[256];
	size_t i;

	for (i = 0; i < p->nr_events; i++) {
		const char *ev = profile__str(p, p->events[i].name);
		const char *asked = profile__str(p, p->events[i].asked);

		if (!ev)
			continue;
		keys__event_name(ev, buf, sizeof(buf));
		if (!strcmp(ev, name) || !strcmp(buf, name) || (asked && !strcmp(asked, name)))
			return (int)i;
	}
	return -1;
}
