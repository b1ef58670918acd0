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
#include "mmprof/infile.h"
#include "mmprof/xalloc.h"

/* A gate file is a few lines of text: past these it is the wrong file (/dev/zero, a log). */
#define GATE_FILE_MAX	(1u << 20)
#define GATE_LINE_MAX	4095

int gate__read_file(const char *path, struct strlist *out, struct errmsg *e)
{
	char line[GATE_LINE_MAX + 2];
	size_t total = 0, nr = 0;
	int err = infile__check(path, "gate file", e);
	FILE *f;

	if (err)
		return err;
	f = fopen(path, "re");
	if (!f) {
		err = errno;
		return errmsg__set(e, -err, "cannot open gate file '%s': %s", path, strerror(err));
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *s = line, *end, *hash;

		nr++;
		total += len;
		if (len < sizeof(line) - 1 && !feof(f) && line[len ? len - 1 : 0] != '\n')
			err = errmsg__set(e, -EINVAL, "gate file '%s': line %zu holds a NUL byte: not "
					  "a text file", path, nr);
		else if (len == sizeof(line) - 1 && line[len - 1] != '\n')
			err = errmsg__set(e, -EINVAL, "gate file '%s': line %zu is longer than %u bytes",
					  path, nr, GATE_LINE_MAX);
		else if (total > GATE_FILE_MAX)
			err = errmsg__set(e, -EFBIG, "gate file '%s' is larger than %u bytes: not a "
					  "gate file", path, GATE_FILE_MAX);
		if (err)
			break;
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
	if (!err && ferror(f))
		err = errmsg__set(e, -EIO, "cannot read gate file '%s': %s", path, strerror(EIO));
	fclose(f);
	return err;
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
