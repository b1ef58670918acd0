/*
 * libFuzzer harness for diff gate expressions (issue 9): `--fail-on`
 * strings come from CI configuration written by anyone; gate__parse must
 * accept or refuse each without a crash or leak, and what it accepts must
 * be what its grammar promises (include/mmprof/gate.h):
 *   - a refusal carries a message with a column inside the expression;
 *   - an accepted gate has a non-empty glob and a finite value; a glob
 *     with blanks or '<' '>' came quoted (the expression's first non-blank,
 *     after the '=' of a key meant as written, is a quote the glob does
 *     not hold), and its description parses back
 *     to the same gate, quoted as needed (describe prints "%+g", so the
 *     value round-trips to 6 digits);
 *   - the family, domain and row rules (gate__names_family,
 *     gate__names_absent, gate__count) take any glob without trouble, and
 *     a gate that counts a row never also reads as absent.
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

static const char *const keys[] = {
	"perf-profile.children.cpu-clock.do_page_fault",
	"perf-profile.self.cpu-clock.void Hot.main(java.lang.String[])",
	"perf-profile.calltrace.cpu-clock.a.b.c",
	"tracepoint.kmem:mm_page_alloc.count",
	"perf-sched.wait_time.avg.ms.a.b",
	"perf-stat.ps.page-faults",
	"meminfo.Dirty",
	"x",
	"",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Printable ASCII only: what errmsg copies as it is. */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

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
		/* (errmsg writes control bytes and non-ASCII as \xNN: then the
		 * column is not at a fixed offset, only ASCII text is read so) */
		if (len < 400 && printable(expr) &&
		    (sscanf(e.msg + 6 + len, "': column %d", &col) != 1 || col < 1 ||
		     (size_t)col > len + 1))
			abort();
		free(expr);
		return 0;
	}
	if (!g.glob || !g.glob[0] || !isfinite(g.value))
		abort();
	if (strpbrk(g.glob, " \t\n\v\f\r<>")) {
		const char *s = expr + strspn(expr, " \t\n\v\f\r");

		if (*s == '=' && g.meant)	/* =GLOB: meant as written */
			s++;
		if ((*s != '\'' && *s != '"') || strchr(g.glob, *s))
			abort();
	}
	/* every key matches or not without trouble; the change never trips on NaN */
	{
		struct diff_row rows[sizeof(keys) / sizeof(keys[0])];
		struct diff d = { .rows = rows, .nr = sizeof(keys) / sizeof(keys[0]) };
		struct gate_matches m;
		size_t i;

		memset(rows, 0, sizeof(rows));
		for (i = 0; i < d.nr; i++) {
			rows[i].key = (char *)keys[i];
			rows[i].flags = i == 6 ? DIFF_AMBIENT : 0;
			(void)gate__matches(&g, keys[i]);
			(void)gate__names_family(&g, keys[i]);
			(void)gate__names_absent(&g, keys[i]);
		}
		gate__count(&g, &d, &m);
		if (m.absent && (m.rows || m.uncompared || m.ambient))
			abort();
	}
	if (gate__trips(&g, NAN, NAN))
		abort();
	gate__describe(&g, desc, sizeof(desc));
	if (gate__parse(desc, &back, &e) || strcmp(back.glob, g.glob) || back.op != g.op ||
	    back.relative != g.relative || back.meant != g.meant ||
	    fabs(back.value - g.value) > 1e-5 * fabs(g.value) + 1e-300)
		abort();
	gate__release(&back);
	gate__release(&g);
	free(expr);
	return 0;
}
