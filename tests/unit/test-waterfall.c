/*
 * test-waterfall: the waterfall SVG (waterfall.h) read back as a test or
 * a browser would read it: the bars chain (each starts where the one above
 * ended) and add up from the base total to the new total in the numbers
 * the SVG carries; colours follow the verdicts; bar lengths are to scale;
 * hostile labels (markup, control bytes, invalid UTF-8, bidi controls,
 * 10 000 characters) come out escaped and fitted, never as markup; a
 * non-finite value draws no bar; a running total below 0 widens the axis;
 * a bar's note is the last line of its title.
 * MMPROF_WATERFALL_OUT=FILE writes the first picture into an HTML page
 * to look at.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/waterfall.h"
#include "tap.h"

/* The n-th (from 0) value of attribute attr="..." after the n-th match of the row class cls. */
static double attr_of(const char *svg, size_t nth, const char *attr)
{
	const char *s = svg;
	char pat[64];
	size_t i;

	for (i = 0; i <= nth; i++) {
		s = strstr(s, "<g class=\"wf ");
		if (!s)
			return NAN;
		s++;
	}
	snprintf(pat, sizeof(pat), " %s=\"", attr);
	s = strstr(s, pat);
	return s ? strtod(s + strlen(pat), NULL) : NAN;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* Every '<' opens or closes one of the elements the renderer writes: a label can add none. */
static bool only_own_markup(const char *svg)
{
	static const char *const tags[] = { "svg", "title", "desc", "defs", "pattern", "rect", "line",
					    "style", "text", "g" };
	const char *s;
	size_t i;

	for (s = strchr(svg, '<'); s; s = strchr(s + 1, '<')) {
		const char *t = s[1] == '/' ? s + 2 : s + 1;

		for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
			size_t n = strlen(tags[i]);

			if (!strncmp(t, tags[i], n) && (t[n] == ' ' || t[n] == '>' || t[n] == '/'))
				break;
		}
		if (i == sizeof(tags) / sizeof(tags[0]))
			return false;
	}
	return true;
}

/* Width of the rect of row nth (0: the base total). */
static double rect_width(const char *svg, size_t nth)
{
	const char *s = svg;
	size_t i;

	for (i = 0; i <= nth; i++) {
		s = strstr(s, "<g class=\"wf ");
		if (!s)
			return NAN;
		s++;
	}
	s = strstr(s, "<rect ");
	s = s ? strstr(s, " width=\"") : NULL;
	return s ? strtod(s + 8, NULL) : NAN;
}

static void test_adds_up(void)
{
	const struct waterfall_bar bars[] = {
		{ "__split_huge_pmd", 1.0, 3.5, 2.5, DIFF_UP, false, NULL },
		{ "clear_page_erms", 4.0, 5.0, 1.0, DIFF_UP, false, NULL },
		{ "do_anonymous_page", 2.0, 1.5, -0.5, DIFF_DOWN, false, NULL },
		{ "memset", 0.5, 0.6, 0.1, DIFF_SAME, false, NULL },
		{ "elsewhere", 2.5, 2.9, 0.4, DIFF_SAME, true, NULL },
	};
	struct waterfall w = { bars, 5, 10.0, 13.5, "\xc2\xb5s CPU per op", NULL, NULL };
	struct outbuf b = { 0 };
	double run, sum = 0, unit_px;
	bool chain = true;
	const char *out;
	size_t i;

	waterfall__svg(&b, &w, NULL);
	if ((out = getenv("MMPROF_WATERFALL_OUT"))) {
		FILE *f = fopen(out, "w");

		if (f) {
			fprintf(f, "<!DOCTYPE html><html><body>%s</body></html>\n", b.s);
			fclose(f);
		}
	}
	ok(!strncmp(b.s, "<svg ", 5) && strstr(b.s, "</svg>\n") == b.s + b.len - 7, "one <svg> element");
	ok(strstr(b.s, "class=\"mmwaterfall\"") && strstr(b.s, "data-bars=\"5\""), "class mmwaterfall, data-bars 5");
	ok(strstr(b.s, "role=\"img\" aria-labelledby=\"mmwaterfall-title mmwaterfall-desc\"") &&
	   strstr(b.s, "<title id=\"mmwaterfall-title\">") && strstr(b.s, "<desc id=\"mmwaterfall-desc\">"),
	   "accessible: role img, labelled by its title and desc");
	ok(count(b.s, "<g class=\"wf ") == 7, "7 rows: base, 5 bars, new (%zu)", count(b.s, "<g class=\"wf "));
	ok(attr_of(b.s, 0, "data-to") == 10.0 && attr_of(b.s, 6, "data-to") == 13.5,
	   "the first row is the base total, the last the new total");
	run = 10.0;
	for (i = 0; i < 5; i++) {
		double from = attr_of(b.s, i + 1, "data-from"), to = attr_of(b.s, i + 1, "data-to");
		double d = attr_of(b.s, i + 1, "data-delta");

		chain &= fabs(from - run) < 1e-12 && fabs(to - from - d) < 1e-12 && d == bars[i].delta;
		sum += d;
		run = to;
	}
	ok(chain, "each bar starts where the one above ended, and is as long as its delta");
	ok(fabs(10.0 + sum - 13.5) < 1e-12 && fabs(run - 13.5) < 1e-12,
	   "base + the bars = new (%.17g + %.17g)", 10.0, sum);
	ok(strstr(b.s, "<g class=\"wf up\"") && strstr(b.s, "<g class=\"wf down\"") &&
	   strstr(b.s, "<g class=\"wf same rest\""), "classes from the verdicts; the rest marked");
	ok(count(b.s, "fill=\"#cc0000\"") == 2 && count(b.s, "fill=\"#0040c0\"") == 1 &&
	   count(b.s, "fill=\"#a8a8a8\"") == 1 && count(b.s, "url(#mmwaterfall-hatch)") == 1,
	   "red up, blue down (the diff table's colours), grey same, hatched rest");
	/* to scale: the base total is 10 units, __split_huge_pmd 2.5 */
	unit_px = rect_width(b.s, 0) / 10.0;
	ok(unit_px > 20 && fabs(rect_width(b.s, 1) - 2.5 * unit_px) < 0.05 &&
	   fabs(rect_width(b.s, 3) - 0.5 * unit_px) < 0.05, "bar lengths to scale (%.2f px a unit)", unit_px);
	ok(strstr(b.s, "\">+2.5 (71%)</text>") && strstr(strstr(b.s, "\">+2.5 (71%)</text>") - 40, "<text class=\"v\""),
	   "a bar's value and its share of the change as text (no script needed)");
	ok(strstr(b.s, "<title>__split_huge_pmd\nbase 1 \xe2\x86\x92 new 3.5 \xc2\xb5s CPU per op: +2.5 "
		       "\xc2\xb5s CPU per op, 71% of the change\nup (significant)</title>") != NULL,
	   "a bar's title: its name, both sides, the change and its share, the verdict");
	ok(strstr(b.s, "base 10, new 13.5 \xc2\xb5s CPU per op (+3.5), in 5 bars") != NULL, "the desc summarises");
	ok(only_own_markup(b.s), "only the renderer's own elements");
	outbuf__release(&b);
}

static void test_hostile(void)
{
	static char longname[10001];
	const struct waterfall_bar bars[] = {
		{ "</text></g></svg><script>alert(1)</script>", 1, 2, 1, DIFF_UP, false, NULL },
		{ "a\x1b[31m\x07\x01" "b", 1, 2, 1, DIFF_UP, false, NULL },
		{ "bad\xff\xfe utf8 \xc3", 1, 2, 1, DIFF_UP, false, NULL },
		{ "bidi\xe2\x80\xae" "evil", 1, 2, 1, DIFF_UP, false, NULL },
		{ longname, 1, 2, 1, DIFF_UP, false, NULL },
		{ "q\"u'o&te", 1, 2, 1, DIFF_UP, false, NULL },
		{ NULL, NAN, NAN, NAN, DIFF_SAME, true, NULL },
	};
	struct waterfall w = { bars, 7, 10, 16, "u<nit>&", "base\"><x", NULL };
	struct waterfall_render_opts o = { .id = "wf2", .title = "t<i>tle", .width = 640 };
	struct outbuf b = { 0 };
	const char *s;

	memset(longname, 'x', sizeof(longname) - 1);
	waterfall__svg(&b, &w, &o);
	ok(only_own_markup(b.s), "hostile labels, unit, names and title add no element");
	ok(!strstr(b.s, "<script") && strstr(b.s, "&lt;/text&gt;&lt;/g&gt;&lt;/svg&gt;&lt;script&gt;"),
	   "markup in a label is text");
	ok(!strchr(b.s, '\x1b') && !strchr(b.s, '\x07') && !strchr(b.s, '\x01') && !strstr(b.s, "\xff") &&
	   !strstr(b.s, "\xe2\x80\xae"), "control bytes, invalid UTF-8 and a bidi control are '?'");
	ok(strstr(b.s, "q&quot;u&#39;o&amp;te") || strstr(b.s, "q&quot;u&apos;o&amp;te"), "quotes and & escaped");
	for (s = strstr(b.s, "<text class=\"l\""); s && strncmp(strchr(s, '>') + 1, "xxxx", 4);
	     s = strstr(s + 1, "<text class=\"l\""))
		;
	ok(s && strstr(s, "..</text>") &&
	   strstr(s, "..</text>") - s < 120, "a 10 000-character label is cut to its column");
	ok(count(b.s, "x") > 10000, "its title keeps the whole name");
	ok(strstr(b.s, "data-delta=\"nan\"") && count(b.s, "<g class=\"wf same rest\" data-from=\"16\" data-to=\"16\"") == 1,
	   "a NAN bar: no length, the running total unchanged");
	ok(b.len < 40000, "bounded output (%zu bytes)", b.len);
	outbuf__release(&b);
}

static void test_below_zero(void)
{
	/* a change larger than the base total of one function can take the running total under 0 */
	const struct waterfall_bar bars[] = {
		{ "big_drop", 5, 0, -5, DIFF_DOWN, false, NULL },
		{ "up_again", 1, 4, 3, DIFF_UP, false, "(its share down, the total <per> op up)" },
	};
	struct waterfall w = { bars, 2, 2, 0, NULL, NULL, NULL };
	struct outbuf b = { 0 };

	waterfall__svg(&b, &w, NULL);
	ok(strstr(b.s, "up (significant)\n(its share down, the total &lt;per&gt; op up)</title>") &&
	   count(b.s, "(its share") == 1, "a bar's note: a line of its own title under the verdict, escaped");
	ok(attr_of(b.s, 1, "data-to") == -3 && attr_of(b.s, 2, "data-to") == 0, "the running total dips to -3");
	ok(strstr(b.s, ">-3</text>") || strstr(b.s, ">-4</text>"), "the axis reaches below 0");
	ok(only_own_markup(b.s), "well-formed with no unit");
	outbuf__release(&b);
}

int main(void)
{
	test_adds_up();
	test_hostile();
	test_below_zero();
	return done_testing();
}
