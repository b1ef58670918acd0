/*
 * test-jsonw: the JSON writer's commas, nesting and layout (jsonw.h), each
 * case against the exact text the hand-written writers made: empty
 * containers, LINES inside INLINE inside LINES (report --json's runs and
 * tree), jsonw__break, keys and strings through json__escape, numbers as
 * %.*g with null for what is not finite.
 */
#include <math.h>
#include <string.h>

#include "mmprof/jsonw.h"
#include "tap.h"

static struct outbuf b;
static struct jsonw w;

static void start(void)
{
	outbuf__release(&b);
	jsonw__init(&w, &b);
}

static void is(const char *want, const char *what)
{
	const char *got = b.s ? b.s : "";

	if (!ok(!strcmp(got, want), "%s", what))
		fprintf(stderr, "# got:\n%s\n# want:\n%s\n", got, want);
}

int main(void)
{
	start();
	jsonw__object(&w, NULL, JSONW_LINES);
	jsonw__end(&w);
	jsonw__array(&w, NULL, JSONW_INLINE);
	jsonw__end(&w);
	is("{}[]", "an empty container of either style is {} or []");

	start();
	jsonw__object(&w, NULL, JSONW_LINES);
	jsonw__int(&w, "format", 1);
	jsonw__object(&w, "meta", JSONW_LINES);
	jsonw__end(&w);
	jsonw__array(&w, "runs", JSONW_LINES);
	jsonw__object(&w, NULL, JSONW_INLINE);
	jsonw__uint(&w, "index", 0);
	jsonw__int(&w, "wall_ns", -5);
	jsonw__break(&w, 2);
	jsonw__array(&w, "counters", JSONW_LINES);
	jsonw__object(&w, NULL, JSONW_INLINE);
	jsonw__bool(&w, "supported", false);
	jsonw__end(&w);
	jsonw__end(&w);
	jsonw__break(&w, 2);
	jsonw__object(&w, "metrics", JSONW_INLINE);
	jsonw__num(&w, "a.b", 0.5, 17);
	jsonw__num(&w, "c", 2.0 / 3.0, 6);
	jsonw__end(&w);
	jsonw__end(&w);
	jsonw__end(&w);
	jsonw__end(&w);
	is("{\n"
	   "  \"format\": 1,\n"
	   "  \"meta\": {},\n"
	   "  \"runs\": [\n"
	   "    {\"index\": 0, \"wall_ns\": -5,\n"
	   "      \"counters\": [\n"
	   "        {\"supported\": false}\n"
	   "      ],\n"
	   "      \"metrics\": {\"a.b\": 0.5, \"c\": 0.666667}}\n"
	   "  ]\n"
	   "}", "LINES members two spaces past the line their container opened on, INLINE after ', ', a break as a LINES member");

	start();
	jsonw__object(&w, NULL, JSONW_INLINE);
	jsonw__str(&w, "k\"\n", "a\\b\x01\xff");
	jsonw__str(&w, "null", NULL);
	jsonw__num(&w, "nan", NAN, 17);
	jsonw__num(&w, "inf", -INFINITY, 17);
	jsonw__uint(&w, "big", 18446744073709551615ULL);
	jsonw__end(&w);
	is("{\"k\\\"\\n\": \"a\\\\b\\u0001\\ufffd\", \"null\": \"\", \"nan\": null, \"inf\": null, "
	   "\"big\": 18446744073709551615}", "keys and strings escaped as json__escape, null for what is not finite");

	start();
	jsonw__array(&w, NULL, JSONW_LINES);
	jsonw__array(&w, NULL, JSONW_INLINE);
	jsonw__num(&w, NULL, 1, 17);
	jsonw__num(&w, NULL, 2, 17);
	jsonw__end(&w);
	jsonw__array(&w, NULL, JSONW_INLINE);
	jsonw__end(&w);
	jsonw__end(&w);
	jsonw__end(&w);	/* one too many: ignored */
	is("[\n  [1, 2],\n  []\n]", "arrays of arrays; an extra end writes nothing");

	/* diff -f json's layout: a list of columns, each a line one space in, rows from the margin */
	start();
	jsonw__from_margin(&w);
	jsonw__object(&w, NULL, JSONW_INLINE);
	jsonw__array(&w, "columns", JSONW_INLINE);
	jsonw__break(&w, 1);
	jsonw__object(&w, NULL, JSONW_INLINE);
	jsonw__fixed(&w, "share", 2.0 / 3.0, 4);
	jsonw__fixed(&w, "nan", NAN, 4);
	jsonw__array(&w, "rows", JSONW_LINES);
	jsonw__int(&w, NULL, 1);
	jsonw__end(&w);
	jsonw__array(&w, "events", JSONW_LINES_TIGHT);
	jsonw__int(&w, NULL, 2);
	jsonw__end(&w);
	jsonw__end(&w);
	jsonw__break(&w, 1);
	jsonw__object(&w, NULL, JSONW_INLINE);
	jsonw__end(&w);
	jsonw__end(&w);
	jsonw__newline(&w, 0);
	jsonw__int(&w, "after", 3);
	jsonw__newline(&w, 0);
	jsonw__end(&w);
	is("{\"columns\": [\n {\"share\": 0.6667, \"nan\": null, \"rows\": [\n  1\n], \"events\": [\n  2]},\n {}]\n"
	   ", \"after\": 3\n}",
	   "from the margin: a break before the first member too, lists two spaces from column 0, "
	   "a newline before the next member's comma; fixed decimals, null when not finite");
	outbuf__release(&b);
	return done_testing();
}
