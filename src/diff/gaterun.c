/*
 * gaterun: gates applied to a diff (gate.h) — the expressions of a gate
 * file, and which rows each gate trips on.  Parsing and matching one
 * gate are gate.c's; this is the CI run around them.  Nothing here
 * prints: the command says what tripped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/gate.h"
#include "mmprof/xalloc.h"

int gate__read_file(const char *path, struct strlist *out, struct errmsg *e)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	if (!f) {
		int err = errno;

		return errmsg__set(e, -err, "cannot open gate file '%s': %s", path, strerror(err));
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *end, *hash;

		while (*s == ' ' || *s == '\t')
			s++;
		/* '#' starts a comment, except inside a quoted key ('a#b' > 1) */
		end = *s == '\'' || *s == '"' ? strchr(s + 1, *s) : NULL;
		hash = strchr(end ? end : s, '#');
		if (hash)
			*hash = '\0';
		end = s + strlen(s);
		while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*s)
			strlist__add(out, s);
	}
	fclose(f);
	return 0;
}

void gate__evaluate(const struct gate *g, const struct diff *d, bool any, struct gate_trips *t)
{
	struct gate_matches m;
	bool applied = false;
	size_t j;

	memset(t, 0, sizeof(*t));
	for (j = 0; j < d->nr + (d->cost ? d->cost->nr : 0); j++) {
		const struct diff_row *r = j < d->nr ? &d->rows[j] : &d->cost->rows[j - d->nr];

		/* address buckets, one-sided keys, the machine's state unless named */
		if (!gate__applies(g, r))
			continue;
		applied = true;
		if (!any && !diff_row__changed(r))
			continue;
		if (!gate__trips(g, r->delta, r->rel))
			continue;
		if (!t->rows)
			t->rows = xcalloc(d->nr + (d->cost ? d->cost->nr : 0), sizeof(*t->rows));
		t->rows[t->nr++] = r;
	}
	if (applied || !any || !gate__trips(g, 0, 0))
		return;
	gate__count(g, d, &m);
	t->absent = m.absent;
}

void gate_trips__release(struct gate_trips *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

void gate__trip_text(const struct gate *g, const struct diff_row *r, struct outbuf *out)
{
	if (!r) {
		outbuf__printf(out, "%s is absent from both sides, 0 -> 0 (--fail-on-any)", g->glob);
		return;
	}
	outbuf__text_str(out, r->key);
	outbuf__printf(out, " %.4g -> %.4g (%+.4g%s, ", r->base.mean, r->cur.mean, r->delta,
		       r->absolute ? " points" : "");
	/* a rise from nothing has no percentage (the robot's 1e-100 base made it +1e+103 %) */
	if (r->base.mean != 0)
		outbuf__printf(out, "%+.3g%%, ", r->rel);
	/* a q that underflowed is no 0: the test says it is below what a double holds */
	if (r->q == 0)
		outbuf__puts(out, "q<1e-308");
	else
		outbuf__printf(out, "q=%.2g", r->q);
	outbuf__printf(out, ", %s)", diff_row__verdict_name(r));
}
