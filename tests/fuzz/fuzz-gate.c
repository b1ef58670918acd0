/*
 * libFuzzer harness for diff gate expressions (issue 9): `--fail-on`
 * strings come from CI configuration written by anyone; gate__parse must
 * accept or refuse each without a crash or leak, and what it accepts must
 * be what its grammar promises (include/mmprof/gate.h):
 *   - a refusal carries a message with a column inside the expression;
 *   - an accepted gate has a non-empty glob without blanks or '<' '>',
 *     a finite value, and a description that parses back to the same gate
 *     (describe prints "%+g", so the value round-trips to 6 digits).
 *
 * Built and run by `make fuzz`; seeds in tests/fuzz/corpus/gate/.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gate g, back;
	struct errmsg e;
	char *expr, desc[8192];

	if (size > 4096)
		return 0;
	expr = malloc(size + 1);
	memcpy(expr, data, size);
	expr[size] = '\0';
	e.msg[0] = '\0';
	if (gate__parse(expr, &g, &e)) {
		/* "gate '<expr>': column N: ..."; the expression may itself
		 * contain "': column ", so read N where it must be, when the
		 * message (512 bytes) was not cut short */
		size_t len = strlen(expr);
		int col = 0;

		if (g.glob || !e.msg[0])
			abort();
		if (len < 400 && (sscanf(e.msg + 6 + len, "': column %d", &col) != 1 ||
				  col < 1 || (size_t)col > len + 1))
			abort();
		free(expr);
		return 0;
	}
	if (!g.glob || !g.glob[0] || strpbrk(g.glob, " \t\n\v\f\r<>") || !isfinite(g.value))
		abort();
	/* every key matches or not without trouble; the change never trips on NaN */
	(void)gate__matches(&g, "perf-profile.children.do_page_fault");
	if (gate__trips(&g, NAN, NAN))
		abort();
	gate__describe(&g, desc, sizeof(desc));
	if (gate__parse(desc, &back, &e) || strcmp(back.glob, g.glob) || back.op != g.op ||
	    back.relative != g.relative ||
	    fabs(back.value - g.value) > 1e-5 * fabs(g.value) + 1e-300)
		abort();
	gate__release(&back);
	gate__release(&g);
	free(expr);
	return 0;
}
