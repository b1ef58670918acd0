/*
 * test-report-inline: how `mmprof report --tree` shows inline frames
 * (record --inline): an entry, and a graph node, whose frames are all
 * inline frames reads "name (inlined)", as perf report shows them; a real
 * function and a function both inlined and called elsewhere are not
 * marked; folded stacks (which fold inline frames into their real
 * function) never carry the mark.  Profiles without inline frames are
 * covered by test-report's golden files, which must not change.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/report.h"

static uint32_t frame(struct profile *p, const char *sym, uint64_t addr, int inlined)
{
	struct frame f = { .addr = addr, .sym = profile__intern(p, sym),
			   .dso = profile__intern(p, "/usr/bin/inl"), .inlined = (uint8_t)inlined };

	return profile__frame(p, &f);
}

/* root first, UINT32_MAX terminated */
static uint32_t stack(struct profile *p, const uint32_t *f)
{
	uint32_t node = PROFILE_ROOT;

	for (; *f != UINT32_MAX; f++)
		node = profile__node(p, node, *f);
	return node;
}

/*
 * main -> outer, where leaf is inlined into mid inlined into outer (the
 * three at one address, innermost last from the root), and main -> helper
 * -> leaf_real; helper is also inlined into outer at another address.
 */
static struct profile *inline_profile(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .sample = 4000,
				 .freq = 1 };
	struct run r = { .wall_ns = 1000000000, .samples = 100 };
	uint32_t m = frame(p, "main", 0x1000, 0), o = frame(p, "outer", 0x1100, 0);
	uint32_t mid = frame(p, "mid", 0x1100, 1), leaf = frame(p, "leaf", 0x1100, 1);
	uint32_t o2 = frame(p, "outer", 0x1180, 0), hi = frame(p, "helper", 0x1180, 1);
	uint32_t h = frame(p, "helper", 0x1200, 0), lr = frame(p, "leaf_real", 0x1300, 0);
	uint32_t s1[] = { m, o, mid, leaf, UINT32_MAX };
	uint32_t s2[] = { m, o2, hi, UINT32_MAX };
	uint32_t s3[] = { m, h, lr, UINT32_MAX };
	uint32_t comm = profile__intern(p, "inl");

	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s1), 60, 60 * 250000);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s2), 25, 25 * 250000);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s3), 15, 15 * 250000);
	return p;
}

static char *render(const struct profile *p, const struct tree_opts *to,
		    const struct folded_opts *fo)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct outbuf out;

	outbuf__init_file(&out, f, false);
	if (to)
		report__tree(p, to, &out);
	else
		report__folded(p, fo, &out);
	outbuf__flush(&out);
	outbuf__release(&out);
	fclose(f);
	return buf;
}

/* Does some line of text end with the suffix? */
static bool line_ends(const char *text, const char *suffix)
{
	size_t sl = strlen(suffix);
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len >= sl && !memcmp(line + len - sl, suffix, sl))
			return true;
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

int main(void)
{
	struct profile *p = inline_profile();
	struct tree_opts callee = { .event = 0 };
	struct tree_opts caller = { .event = 0, .caller = true };
	struct folded_opts fo = { .event = 0, .run = -1 };
	char *s;

	s = render(p, &callee, NULL);
	ok(line_ends(s, "[.] leaf (inlined)"), "entry: leaf (inlined)");
	ok(line_ends(s, "[.] mid (inlined)"), "entry: mid (inlined)");
	ok(line_ends(s, "[.] outer"), "entry: outer, a real function, unmarked");
	ok(line_ends(s, "[.] helper"), "entry: helper, inlined once and called once, unmarked");
	ok(line_ends(s, "% mid (inlined)"), "callee graph: mid (inlined) under leaf");
	ok(!strstr(s, "outer (inlined)") && !strstr(s, "main (inlined)") &&
	   !strstr(s, "helper (inlined)") && !strstr(s, "leaf_real (inlined)"),
	   "no real function is marked");
	if (!ok(strstr(s, "- 60.00% leaf (inlined)\n") != NULL, "graph root line of leaf marked"))
		fprintf(stderr, "%s", s);
	free(s);

	s = render(p, &caller, NULL);
	ok(line_ends(s, "% leaf (inlined)") && line_ends(s, "% mid (inlined)"),
	   "caller graph: the inline chain below outer is marked");
	free(s);

	s = render(p, NULL, &fo);
	ok(!strstr(s, "(inlined)") && !strstr(s, "leaf ") && strstr(s, "main;outer 85\n"),
	   "folded: inline frames fold into outer, no mark (main;outer 85)");
	free(s);
	profile__free(p);
	return done_testing();
}
