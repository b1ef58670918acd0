/*
 * libFuzzer harness for event-spec parsing (issue 9): any string given to
 * `-e` must parse or be refused with a one-line message, never crash,
 * overflow the fixed name buffer or read outside the string.
 *
 * evspec__parse looks names up in sysfs and tracefs (PMU types and formats,
 * tracepoint ids), so the harness also checks that a hostile spec cannot
 * make it read outside those trees: names with '/', '.', or anything but
 * [A-Za-z0-9_-] must be refused before a path is built (a spec reaching
 * /sys/bus/event_source/devices/../../ would be a path traversal).
 *
 * Built and run by `make fuzz` (clang -fsanitize=fuzzer,address,undefined);
 * seeds in tests/fuzz/corpus/evspec/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/evspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evspec ev;
	struct errmsg e;
	char *spec;
	int err;

	if (size > 4096)
		return 0;
	spec = malloc(size + 1);
	memcpy(spec, data, size);
	spec[size] = '\0';
	e.msg[0] = '\0';
	err = evspec__parse(spec, &ev, &e);
	if (err) {
		/* a refusal says why, on one line (the message quotes the spec,
		 * so a newline typed into the spec is the only one allowed) */
		if (err > 0 || !e.msg[0] || (strchr(e.msg, '\n') && !strchr(spec, '\n')))
			abort();
	} else {
		/* an accepted spec has a name, a terminated one, and only perf's
		 * modifier semantics: precise_ip 0..3 */
		if (!ev.name[0] || memchr(ev.name, '\0', sizeof(ev.name)) == NULL ||
		    ev.attr.precise_ip > 3 || ev.attr.size != sizeof(ev.attr))
			abort();
		/* a tracepoint or PMU was found by a name without path syntax */
		if ((ev.tracepoint || strchr(spec, '/')) && strstr(spec, ".."))
			abort();
	}
	free(spec);
	return 0;
}
