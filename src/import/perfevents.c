/*
 * perfscript events: which event a perf script sample names, as the
 * profile keeps it: found by our name or perf's spelling, perf's own
 * precise modifiers dropped where they mean nothing (a software event,
 * an event perf chose itself) so that an import and a recording of one
 * event compare, added when new (at most PERFSCRIPT_MAX_EVENTS); and the
 * side-band "dummy" event that never samples dropped at the end.  Pure,
 * as the parser (perfscript.c) that calls it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/import.h"
#include "mmprof/xalloc.h"
#include "perfscript-int.h"

/* The event perf calls name: our name for it, or the spelling perf used (asked). */
static uint32_t find_event(const struct profile *p, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < p->nr_events; i++) {
		const char *n = profile__str(p, p->events[i].name);
		const char *a = profile__str(p, p->events[i].asked);

		if ((n && strlen(n) == len && !memcmp(n, name, len)) ||
		    (a && strlen(a) == len && !memcmp(a, name, len)))
			return (uint32_t)i;
	}
	return UINT32_MAX;
}

/* perf's software events by name: they have no precise levels */
static bool is_software_name(const char *s, size_t len)
{
	static const char *const names[] = {
		"cpu-clock", "task-clock", "page-faults", "faults", "minor-faults",
		"major-faults", "context-switches", "cs", "cpu-migrations", "migrations",
		"alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], s, len))
			return true;
	return false;
}

/*
 * Did perf choose the events itself?  True when the header's command line
 * is a `perf record` with no -e/--event before "--": perf then opened its
 * default, "cycles:P" (or cpu-clock:ppp where it fell back), with the
 * precise level it picked, not one the user asked for.  False when not
 * known (no header) or when an option might name an event.
 */
static bool perf_chose_events(const struct profile *p)
{
	const char *cmd = profile__meta(p, "perf_cmdline"), *s;
	size_t n = 0;

	if (!cmd)
		return false;
	for (s = cmd; *s; ) {
		size_t len;

		while (*s == ' ')
			s++;
		len = strcspn(s, " ");
		if (!len)
			break;
		n++;
		if (n == 2 && (len != 6 || memcmp(s, "record", 6)))
			return false;
		if (len == 2 && !memcmp(s, "--", 2))
			break;
		/* -e, -eNAME, clusters like -ge, --event[=...] */
		if (n > 2 && s[0] == '-' && ((s[1] != '-' && memchr(s + 1, 'e', len - 1)) ||
					     (len >= 7 && !memcmp(s, "--event", 7))))
			return false;
		s += len;
	}
	return n >= 2;
}

/*
 * The name to store for perf's event name `s` (type: perf_event_attr.type
 * from the header, UINT32_MAX when not known), written to buf.  perf adds
 * precise modifiers by itself ("cpu-clock:ppp" for its default on a
 * machine without a PMU, "cycles:P") and, since 6.1.1xx's point
 * releases, the H of its default exclude_guest ("cpu-clock:pppH"); kept,
 * they would make the import's event differ from an mmprof recording of
 * the same event.  H goes always (host only: exclude_guest, which mmprof
 * sets too); the p/P letters go when the event is a software one
 * (precise_ip means nothing there) or perf chose the event; the other
 * modifiers (u, k, G, ...) stay.
 */
static size_t plain_event_name(const struct perfscript *ps, const char *s, size_t len,
			       uint32_t type, char *buf, size_t size)
{
	const char *colon = len ? memrchr(s, ':', len) : NULL;
	size_t base, i, o, nprec = 0, nhost = 0;
	bool drop_prec;

	if (!colon || colon == s || len >= size || type == 2 /* tracepoint */)
		return 0;
	base = (size_t)(colon - s);
	if (base + 1 == len)
		return 0;
	for (i = base + 1; i < len; i++) {
		if (!strchr("ukhIGHpPSDWeb", s[i]) || !s[i])
			return 0;	/* not a modifier list */
		nprec += s[i] == 'p' || s[i] == 'P';
		nhost += s[i] == 'H';
	}
	drop_prec = nprec && (type == 1 /* software */ ||
			      (type == UINT32_MAX && is_software_name(s, base)) || perf_chose_events(ps->p));
	if (!drop_prec && !nhost)
		return 0;
	memcpy(buf, s, base);
	o = base;
	buf[o++] = ':';
	for (i = base + 1; i < len; i++)
		if (s[i] != 'H' && !(drop_prec && (s[i] == 'p' || s[i] == 'P')))
			buf[o++] = s[i];
	if (o == base + 1)
		o = base;	/* no modifier left: no colon */
	buf[o] = '\0';
	return o;
}

int perfscript__event(struct perfscript *ps, const char *name, size_t len, uint32_t type, uint32_t *id,
		      struct errmsg *e)
{
	struct event_desc ev = { .type = UINT32_MAX };
	char plain[256];
	size_t plen;

	*id = find_event(ps->p, name, len);
	if (*id != UINT32_MAX)
		return 0;
	plen = plain_event_name(ps, name, len, type, plain, sizeof(plain));
	if (plen) {
		*id = find_event(ps->p, plain, plen);
		/* a plain event perf itself named so stays apart (-e cpu-clock,cpu-clock:p) */
		if (*id != UINT32_MAX && !ps->p->events[*id].asked) {
			ps->p->events[*id].asked = profile__intern_len(ps->p, name, len);
			return 0;
		}
		if (*id != UINT32_MAX)
			plen = 0;
	}
	if (ps->p->nr_events >= PERFSCRIPT_MAX_EVENTS)
		return errmsg__set(e, -EPROTO, "line %llu: more than %u events",
				   (unsigned long long)ps->line_no, PERFSCRIPT_MAX_EVENTS);
	ev.name = plen ? profile__intern_len(ps->p, plain, plen)
		       : profile__intern_len(ps->p, name, len);
	if (plen)
		ev.asked = profile__intern_len(ps->p, name, len);
	*id = profile__add_event(ps->p, &ev);
	return 0;
}

/*
 * perf record -a (and other side-band needs) adds a "dummy:HG" event
 * that only carries mmap and comm records and never samples: it is no
 * sampling event, and kept it made every diff against a recording say
 * the events differ.  perf report skips it the same way (an unsampled
 * dummy evsel).  Only events of no sample, and only that one.
 */
void perfscript__drop_tracking(struct profile *p)
{
	uint32_t *map = xcalloc(p->nr_events ? p->nr_events : 1, sizeof(*map));
	bool *used = xcalloc(p->nr_events ? p->nr_events : 1, sizeof(*used));
	size_t i, n = 0;

	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].event < p->nr_events)
			used[p->counts[i].event] = true;
	for (i = 0; i < p->nr_events; i++) {
		const char *name = profile__str(p, p->events[i].name);
		bool dummy = (p->events[i].type == 1 && p->events[i].config == 9) ||
			     (name && (!strcmp(name, "dummy") || !strncmp(name, "dummy:", 6)));

		if (!used[i] && dummy)
			continue;
		map[i] = (uint32_t)n;
		p->events[n++] = p->events[i];
	}
	if (n != p->nr_events) {
		for (i = 0; i < p->nr_counts; i++)
			p->counts[i].event = map[p->counts[i].event];
		p->nr_events = n;
		/* the counts' index hashes the event: rebuilt on the next add */
		hashidx__release(&p->count_idx);
		hashidx__init(&p->count_idx);
	}
	free(used);
	free(map);
}
