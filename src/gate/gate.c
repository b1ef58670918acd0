/*
 * gate: CI conditions on a diff; see include/mmprof/gate.h.  A handful of
 * gates against up to 100 000 rows: matching is one fnmatch per (gate,
 * row); the domain search for a gate that matches nothing (a few fnmatch
 * calls per distinct domain) runs only for such gates.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/gate.h"
#include "mmprof/keykind.h"
#include "mmprof/strdist.h"
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
	if (*s == '=') {
		g->meant = true;
		s++;
		/* "==k" would be read back as the meant key "=k" or "k" alike */
		if (*s == '=')
			return fail(e, expr, s, "a key that starts with '=' is written quoted");
	}
	if (*s == '\'' || *s == '"') {
		const char *close = strchr(s + 1, *s);

		if (!close)
			return fail(e, expr, s, "unterminated quote");
		glob = s + 1;
		glen = (size_t)(close - glob);
		if (!glen)
			return fail(e, expr, s, "expected a key or glob inside the quotes");
		s = close + 1;
	} else {
		glob = s;
		while (*s && !isspace((unsigned char)*s) && *s != '<' && *s != '>')
			s++;
		glen = (size_t)(s - glob);
		if (!glen)
			return fail(e, expr, s, "expected a key or glob");
	}
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
	/* keys write a symbol's blanks '_' (keys__key_symbol): the symbol's spelling names its key */
	if (strpbrk(g->glob, " \t")) {
		g->key_glob = xstrdup(g->glob);
		for (end = g->key_glob; (end = strpbrk(end, " \t")); end++)
			*end = '_';
	}
	return 0;
}

void gate__release(struct gate *g)
{
	free(g->glob);
	free(g->key_glob);
	g->glob = g->key_glob = NULL;
}

bool gate__matches(const struct gate *g, const char *key)
{
	return fnmatch(g->glob, key, 0) == 0 || !strcmp(g->glob, key) ||
	       (g->key_glob && (fnmatch(g->key_glob, key, 0) == 0 || !strcmp(g->key_glob, key)));
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

bool gate__names_family(const struct gate *g, const char *key)
{
	size_t n = strcspn(g->glob, ".");

	return g->glob[n] == '.' && !memchr(g->glob, '*', n) && !memchr(g->glob, '?', n) &&
	       !memchr(g->glob, '[', n) && !memchr(g->glob, '\\', n) &&
	       strcspn(key, ".") == n && !strncmp(g->glob, key, n);
}

bool gate__applies(const struct gate *g, const struct diff_row *r)
{
	if (r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE))
		return false;
	if (!gate__matches(g, r->key))
		return false;
	return !((r->flags & DIFF_AMBIENT) || keykind__cost(r->key) != KEYCOST_NONE) || gate__names_family(g, r->key);
}

/*
 * Could the glob match prefix followed by some text?  A match of prefix+t
 * gives the token covering prefix's last character (a '*' may go on into
 * t) a place to cut the glob, so the glob's head up to some cut matches
 * prefix exactly.  Cuts inside a bracket or after a lone '\' leave a head
 * whose '[' or '\' is literal, which prefixes here (family and event
 * names) never hold.
 */
static bool glob_names_prefix(const char *glob, const char *prefix)
{
	size_t len = strlen(glob), k;
	char *head = xmalloc(len + 1);
	bool hit = false;

	for (k = 1; k <= len && !hit; k++) {
		memcpy(head, glob, k);
		head[k] = '\0';
		hit = fnmatch(head, prefix, 0) == 0;
	}
	free(head);
	return hit;
}

bool gate__names_absent(const struct gate *g, const char *present_key)
{
	char dom[1024];
	bool whole;

	if (!keykind__domain(present_key, dom, sizeof(dom), &whole))
		return false;
	return whole ? gate__matches(g, dom) : glob_names_prefix(g->glob, dom);
}

void gate__count(const struct gate *g, const struct diff *d, struct gate_matches *m)
{
	/* the domains already tried: rows of one domain mostly come together */
	char last[1024] = "";
	size_t i;

	size_t n = d->nr + (d->cost ? d->cost->nr : 0);

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++) {
		const struct diff_row *r = i < d->nr ? &d->rows[i] : &d->cost->rows[i - d->nr];

		if (!gate__matches(g, r->key))
			continue;
		if (r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE))
			m->uncompared++;
		else if ((r->flags & DIFF_AMBIENT) && !gate__names_family(g, r->key))
			m->ambient++;
		else if (keykind__cost(r->key) != KEYCOST_NONE && !gate__names_family(g, r->key))
			m->cost++;
		else
			m->rows++;
	}
	/* a gate that matches keys it does not count means those keys */
	if (m->rows || m->uncompared || m->ambient || m->cost)
		return;
	for (i = 0; i < n && !m->absent; i++) {
		const struct diff_row *r = i < d->nr ? &d->rows[i] : &d->cost->rows[i - d->nr];
		char dom[1024];
		bool whole;

		if ((r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE | DIFF_AMBIENT)) ||
		    !keykind__domain(r->key, dom, sizeof(dom), &whole) || !strcmp(dom, last))
			continue;
		snprintf(last, sizeof(last), "%s", dom);
		/* a whole key that exists as a row was matched above: it is absent */
		m->absent = whole ? gate__matches(g, dom) : glob_names_prefix(g->glob, dom);
	}
}

/* Must the glob be quoted to parse back? */
static bool needs_quotes(const char *glob)
{
	return *glob == '\'' || *glob == '"' || *glob == '=' || strpbrk(glob, "<>") ||
	       strpbrk(glob, " \t\n\v\f\r");
}

void gate__describe(const struct gate *g, char *buf, size_t size)
{
	const char *q = !needs_quotes(g->glob) ? "" : strchr(g->glob, '\'') ? "\"" : "'";

	snprintf(buf, size, "%s%s%s%s %s %+g%s", g->meant ? "=" : "", q, g->glob, q,
		 op_names[g->op], g->value, g->relative ? "%" : "");
}

const char *gate__near_key(const struct gate *g, const struct diff *d)
{
	size_t n = d->nr + (d->cost ? d->cost->nr : 0), i, max;

	if (g->meant || strpbrk(g->glob, "*?[\\"))
		return NULL;
	for (max = 1; max <= strdist__typo_max(g->glob); max++)
		for (i = 0; i < n; i++) {
			const struct diff_row *r = i < d->nr ? &d->rows[i] : &d->cost->rows[i - d->nr];

			if (!(r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE)) &&
			    strdist__within(g->key_glob ? g->key_glob : g->glob, r->key, max))
				return r->key;
		}
	return NULL;
}
