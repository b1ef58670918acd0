/* gate: CI conditions on a diff; see include/mmprof/gate.h. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/gate.h"
#include "mmprof/xalloc.h"

static const char *const op_names[] = { ">", ">=", "<", "<=" };

static int fail(struct errmsg *e, const char *expr, const char *at, const char *what)
{
	return errmsg__set(e, -EINVAL, "gate '%s': column %d: %s", expr, (int)(at - expr) + 1, what);
}

int gate__parse(const char *expr, struct gate *g, struct errmsg *e)
{
	const char *s = expr, *glob, *num;
	size_t glen;
	char *end;

	memset(g, 0, sizeof(*g));
	while (isspace((unsigned char)*s))
		s++;
	glob = s;
	while (*s && !isspace((unsigned char)*s) && *s != '<' && *s != '>')
		s++;
	glen = (size_t)(s - glob);
	if (!glen)
		return fail(e, expr, s, "expected a key or glob");
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '>' || *s == '<') {
		bool lt = *s == '<';

		s++;
		if (*s == '=') {
			g->op = lt ? GATE_LE : GATE_GE;
			s++;
		} else {
			g->op = lt ? GATE_LT : GATE_GT;
		}
	} else {
		return fail(e, expr, s, "expected one of > >= < <=");
	}
	while (isspace((unsigned char)*s))
		s++;
	num = s;
	/* strtod would also take "inf", "nan" and hex: accept plain decimals only */
	if (*s == '+' || *s == '-')
		s++;
	if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
		return fail(e, expr, s, "expected a number");
	g->value = strtod(num, &end);
	if (end == num || !isfinite(g->value))
		return fail(e, expr, num, "expected a finite number");
	for (; s < end; s++)
		if (!isdigit((unsigned char)*s) && !strchr("+-.eE", *s))
			return fail(e, expr, s, "expected a decimal number");
	if (*s == '%') {
		g->relative = true;
		s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return fail(e, expr, s, "unexpected text after the number");
	g->glob = xstrndup(glob, glen);
	return 0;
}

void gate__release(struct gate *g)
{
	free(g->glob);
	g->glob = NULL;
}

bool gate__matches(const struct gate *g, const char *key)
{
	return fnmatch(g->glob, key, 0) == 0;
}

bool gate__trips(const struct gate *g, double delta, double rel)
{
	double v = g->relative ? rel : delta;

	if (isnan(v))
		return false;
	switch (g->op) {
	case GATE_GT:
		return v > g->value;
	case GATE_GE:
		return v >= g->value;
	case GATE_LT:
		return v < g->value;
	case GATE_LE:
		return v <= g->value;
	}
	return false;
}

void gate__describe(const struct gate *g, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s %+g%s", g->glob, op_names[g->op], g->value,
		 g->relative ? "%" : "");
}
