/*
 * text: perf's text on standard input or in a file, told apart by its
 * first line that decides (perfstat__sniff): `perf stat -x, -I` records
 * go to perfstat, anything else to perfscript.  Undecided lines (perf's
 * comments, blanks, the robot's echoed command line, metric lines) are
 * held until a line decides, then replayed, so each parser sees the whole
 * text; at most SNIFF_LINES are held (a text of nothing but comments is
 * given to perfscript, which says why it is none).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/import.h"
#include "mmprof/strlist.h"
#include "mmprof/xalloc.h"

#define SNIFF_LINES 10000

struct text {
	int kind;		/* 0 undecided, 1 perf stat, -1 perf script */
	struct perfscript script;
	struct perfstat stat;
	struct strlist held;
};

static int feed(struct text *t, const char *line, size_t len, struct errmsg *e)
{
	return t->kind > 0 ? perfstat__line(&t->stat, line, len, e)
			   : perfscript__line(&t->script, line, len, e);
}

static int decide(struct text *t, int kind, struct profile *p, struct errmsg *e)
{
	size_t i;
	int err = 0;

	t->kind = kind;
	if (kind > 0)
		perfstat__init(&t->stat, p);
	else
		perfscript__init(&t->script, p);
	profile__set_meta(p, "source", kind > 0 ? "perf stat" : "perf script");
	for (i = 0; i < t->held.nr && !err; i++)
		err = feed(t, t->held.items[i], strlen(t->held.items[i]), e);
	strlist__release(&t->held);
	return err;
}

int import__text(struct profile *p, FILE *f, struct errmsg *e)
{
	struct text t;
	char *line = NULL;
	size_t alloc = 0;
	ssize_t len;
	int err = 0;

	memset(&t, 0, sizeof(t));
	while (!err && (len = getline(&line, &alloc, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			len--;
		if (!t.kind) {
			int kind = memchr(line, '\0', (size_t)len) ? -1 : perfstat__sniff(line, (size_t)len);

			if (!kind && t.held.nr < SNIFF_LINES) {
				line[len] = '\0';
				strlist__add(&t.held, line);
				continue;
			}
			err = decide(&t, kind ? kind : -1, p, e);
			if (err)
				break;
		}
		err = feed(&t, line, (size_t)len, e);
	}
	if (!err && ferror(f))
		err = errmsg__set(e, -EIO, "cannot read: %s", strerror(errno));
	if (!err && !t.kind)
		err = decide(&t, -1, p, e);
	if (!err)
		err = t.kind > 0 ? perfstat__finish(&t.stat, e) : perfscript__finish(&t.script, e);
	free(line);
	strlist__release(&t.held);
	if (t.kind > 0)
		perfstat__release(&t.stat);
	else if (t.kind < 0)
		perfscript__release(&t.script);
	return err;
}

bool import__is_perf_stat(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t alloc = 0, n = 0;
	ssize_t len;
	int kind = 0;

	if (!f)
		return false;
	while (!kind && n++ < SNIFF_LINES && (len = getline(&line, &alloc, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			len--;
		kind = memchr(line, '\0', (size_t)len) ? -1 : perfstat__sniff(line, (size_t)len);
	}
	free(line);
	fclose(f);
	return kind > 0;
}
