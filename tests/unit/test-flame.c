/*
 * test-flame: flame trees and their SVG on synthetic profiles with known
 * shares: widths proportional to the shares, icicle (callee-rooted)
 * merging, comm and DSO filters, min-width merging of 2000 tiny stacks,
 * XML escaping of hostile names, and the differential graph's colours on
 * a pair with known changes (grew, shrank, unchanged, vanished), with
 * several runs (tested) and with one run a side (threshold).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chains.h"
#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/symview.h"
#include "tap.h"

struct fr {
	const char *sym, *dso;
	int kernel;
};

static uint32_t frame_of(struct profile *p, const struct fr *f)
{
	struct frame x = { .addr = (uint64_t)profile__intern(p, f->sym) * 16, .sym = profile__intern(p, f->sym),
			   .dso = profile__intern(p, f->dso), .kernel = (uint8_t)f->kernel };

	return profile__frame(p, &x);
}

/* Add a stack given root first as names ("main;hot;k:kfunc"): k: marks kernel frames. */
static void add_stack(struct profile *p, uint32_t run, const char *comm, const char *stack,
		      uint64_t samples, uint64_t period)
{
	uint32_t node = PROFILE_ROOT;
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", stack);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		struct fr f = { tok, "/usr/bin/app", 0 };

		if (!strncmp(tok, "k:", 2))
			f = (struct fr){ tok + 2, "[kernel.kallsyms]", 1 };
		else if (!strncmp(tok, "c:", 2))
			f = (struct fr){ tok + 2, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0 };
		node = profile__node(p, node, frame_of(p, &f));
	}
	profile__add_count(p, run, 0, profile__intern(p, comm), 0, node, samples, period);
}

static struct profile *new_profile(size_t runs)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .asked = profile__intern(p, "cpu-clock"),
				 .freq = 1, .sample = 1000 };
	struct run r = { .wall_ns = 1000000000 };
	size_t i;

	profile__add_event(p, &ev);
	for (i = 0; i < runs; i++)
		profile__add_run(p, &r);
	return p;
}

static const struct flame_node *find(const struct flame *f, uint32_t parent, const char *name)
{
	uint32_t c;

	for (c = f->nodes[parent].first_child; c != FLAME_NONE; c = f->nodes[c].next_sibling)
		if (!strcmp(f->nodes[c].name, name))
			return &f->nodes[c];
	return NULL;
}

/* Does s hold at, then needle before the first end after at? */
static bool within(const char *s, const char *at, const char *needle, const char *end)
{
	const char *a = strstr(s, at), *n = a ? strstr(a, needle) : NULL, *e = a ? strstr(a + strlen(at), end) : NULL;

	return n && (!e || n < e);
}

/* Width in px of the box whose title starts with "name\n", or -1. */
static double svg_width(const char *svg, const char *name)
{
	char pat[256];
	const char *s, *w;

	snprintf(pat, sizeof(pat), "<title>%s\n", name);
	s = strstr(svg, pat);
	if (!s)
		return -1;
	w = strstr(s, " width=\"");
	return w ? atof(w + 8) : -1;
}

/* The class attribute of the <g> holding name's box, copied to buf. */
static const char *svg_class(const char *svg, const char *name, char *buf, size_t size)
{
	char pat[256];
	const char *s, *g, *c;

	snprintf(pat, sizeof(pat), "<title>%s\n", name);
	s = strstr(svg, pat);
	buf[0] = '\0';
	if (!s)
		return buf;
	for (g = s; g > svg && strncmp(g, "<g class=\"", 10); g--)
		;
	c = g + 10;
	snprintf(buf, size, "%.*s", (int)strcspn(c, "\""), c);
	return buf;
}

static void test_single(void)
{
	struct profile *p = new_profile(2);
	struct flame_opts o = { .event = -1, .run = -1 };
	struct flame_render_opts ro = { .width = 1020 };	/* graph 1000 px wide */
	struct flame_render_stats st;
	struct outbuf b = { 0 };
	struct flame f;
	const struct flame_node *mainn, *hot, *cold, *k;
	struct errmsg e;
	const char *comms[] = { "other" }, *dsos[] = { "libc.so.6" };

	/* run 0 and run 1 sum: main 1000 = hot 700 (100 of it in the kernel) + cold 200 + libc 100 */
	add_stack(p, 0, "app", "main;hot", 300, 300000);
	add_stack(p, 1, "app", "main;hot", 300, 300000);
	add_stack(p, 0, "app", "main;hot;k:kfunc_a", 100, 100000);
	add_stack(p, 1, "app", "main;cold", 200, 200000);
	add_stack(p, 0, "other", "main;c:memcpy", 100, 100000);

	ok(flame__build(&f, p, &o, &e) == 0, "build a single graph");
	is_dbl(f.total, 1000000, 1e-6, "total is the summed period of all runs and comms");
	mainn = find(&f, 0, "main");
	ok(mainn != NULL, "main is a child of the root");
	hot = mainn ? find(&f, (uint32_t)(mainn - f.nodes), "hot") : NULL;
	cold = mainn ? find(&f, (uint32_t)(mainn - f.nodes), "cold") : NULL;
	ok(hot && cold, "hot and cold under main");
	is_dbl(hot ? hot->value : 0, 700000, 1e-6, "hot is inclusive of its kernel callee");
	is_dbl(hot ? hot->samples : 0, 700, 1e-6, "hot: samples kept for the tooltip");
	k = hot ? find(&f, (uint32_t)(hot - f.nodes), "kfunc_a") : NULL;
	ok(k && k->kernel, "kernel frame flagged");

	flame__svg(&b, &f, &ro, &st);
	is_dbl(svg_width(b.s, "hot"), 700, 0.05, "hot is 70 % of the width");
	is_dbl(svg_width(b.s, "cold"), 200, 0.05, "cold is 20 %");
	is_dbl(svg_width(b.s, "memcpy"), 100, 0.05, "memcpy is 10 %");
	is_dbl(svg_width(b.s, "main"), 1000, 0.05, "main is all of it");
	{
		char cls[64];

		ok(strstr(svg_class(b.s, "kfunc_a", cls, sizeof(cls)), "f k") != NULL, "kernel frame has class k (%s)", cls);
		ok(strstr(svg_class(b.s, "hot", cls, sizeof(cls)), "f u") != NULL, "user frame has class u (%s)", cls);
	}
	ok(strstr(b.s, "<?xml version=\"1.0\"") == b.s, "standalone SVG starts with the XML prolog");
	ok(strstr(b.s, "<![CDATA[") && strstr(b.s, "]]></script>"), "script embedded in CDATA");
	ok(!strstr(flame__script(), "]]>") && !strstr(flame__script(), "</script"), "script safe for CDATA and HTML");
	is_int(st.drawn, 6, "all + main + hot + kfunc_a + cold + memcpy drawn");
	outbuf__release(&b);
	flame__release(&f);

	/* samples instead of period: same shares here, but the unit changes */
	o.samples = true;
	ok(flame__build(&f, p, &o, &e) == 0 && f.total == 1000, "--samples: total 1000 samples");
	flame__release(&f);
	o.samples = false;

	/* one run */
	o.run = 1;
	ok(flame__build(&f, p, &o, &e) == 0 && f.total == 500000, "run 2 only: 500000");
	flame__release(&f);
	o.run = 5;
	ok(flame__build(&f, p, &o, &e) == -EINVAL, "a missing run is an error");
	flame__release(&f);
	o.run = -1;

	/* comm filter */
	o.comms = comms;
	o.nr_comms = 1;
	ok(flame__build(&f, p, &o, &e) == 0 && f.total == 100000, "--comm other: only its 100 samples");
	flame__release(&f);
	comms[0] = "nosuch";
	ok(flame__build(&f, p, &o, &e) == -ENOENT, "--comm matching nothing: -ENOENT (%s)", e.msg);
	flame__release(&f);
	o.nr_comms = 0;

	/* DSO filter: stacks with a frame in libc */
	o.dsos = dsos;
	o.nr_dsos = 1;
	ok(flame__build(&f, p, &o, &e) == 0 && f.total == 100000, "--dso libc.so.6 (basename): the memcpy stack");
	flame__release(&f);
	dsos[0] = "[kernel.kallsyms]";
	ok(flame__build(&f, p, &o, &e) == 0 && f.total == 100000, "--dso [kernel.kallsyms]: the kfunc_a stack");
	flame__release(&f);
	o.nr_dsos = 0;

	/* icicle: callee-rooted, merged by sampled function */
	o.icicle = true;
	ok(flame__build(&f, p, &o, &e) == 0, "icicle build");
	hot = find(&f, 0, "hot");
	k = find(&f, 0, "kfunc_a");
	ok(hot && hot->value == 600000, "icicle: hot as a sampled function, self only (600000)");
	ok(k && k->value == 100000, "icicle: kfunc_a at the root");
	ok(k && find(&f, (uint32_t)(k - f.nodes), "hot") != NULL, "icicle: kfunc_a's child is its caller hot");
	ok(find(&f, 0, "main") == NULL, "icicle: main never sampled itself, not at the root");
	flame__svg(&b, &f, &ro, &st);
	{
		/* icicle: the root row is at the top, deeper rows further down */
		const char *r = strstr(b.s, "<title>all\n"), *y = r ? strstr(r, " y=\"") : NULL;
		const char *r2 = strstr(b.s, "<title>kfunc_a\n"), *y2 = r2 ? strstr(r2, " y=\"") : NULL;

		ok(y && y2 && atof(y + 4) < atof(y2 + 4), "icicle: the root is drawn above its children");
	}
	outbuf__release(&b);
	flame__release(&f);
	profile__free(p);
}

static void test_min_width_and_escaping(void)
{
	struct profile *p = new_profile(1);
	struct flame_opts o = { .event = -1, .run = -1 };
	struct flame_render_opts ro = { 0 };
	struct flame_render_stats st;
	struct outbuf b = { 0 };
	struct flame f;
	struct errmsg e;
	char name[64];
	int i;

	add_stack(p, 0, "app", "main;big", 8000, 8000);
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "main;tiny_%04d;leaf", i);
		add_stack(p, 0, "app", name, 1, 1);	/* 0.01 % each, 20 % together */
	}
	add_stack(p, 0, "app", "main;a<b>&\"'\xff\x01z", 50, 50);
	ok(flame__build(&f, p, &o, &e) == 0, "build 2002 stacks");
	flame__svg(&b, &f, &ro, &st);
	ok(st.merged == 1, "the 2000 tiny frames are one merged box (%zu)", st.merged);
	ok(st.drawn < 10, "few boxes drawn (%zu)", st.drawn);
	ok(strstr(b.s, "[2000 small frames]") != NULL, "merged box says how many");
	ok(strstr(b.s, "a&lt;b&gt;&amp;&quot;&#39;??z") != NULL, "name escaped; invalid UTF-8 and control bytes become ?");
	outbuf__release(&b);
	ro.min_width_pct = -1;
	flame__svg(&b, &f, &ro, &st);
	ok(st.drawn == 3 + 4000 + 1 && st.merged == 0, "min width off: every frame drawn (%zu)", st.drawn);
	outbuf__release(&b);
	flame__release(&f);
	profile__free(p);
}

/*
 * Per run, % of the total: grow 10 -> 30, shrink 40 -> 20, same 20 -> 20,
 * gone 10 -> 0, rest fills up to 100.  Small noise per run keeps the
 * variances non-zero.
 */
static struct profile *diff_side(bool isnew, size_t runs, int seed)
{
	struct profile *p = new_profile(runs);
	size_t r;

	for (r = 0; r < runs; r++) {
		int jit = (int)((r * 7 + (size_t)seed) % 5) - 2;	/* -2..2 per mille */
		int grow = isnew ? 300 : 100, shrink = isnew ? 200 : 400, same = 200 + jit, gone = isnew ? 0 : 100;
		int newfn = isnew ? 50 : 0;
		int rest = 1000 - grow - shrink - same - gone - newfn;

		add_stack(p, (uint32_t)r, "app", "main;grow_fn", (uint64_t)(grow + jit), (uint64_t)(grow + jit) * 1000);
		add_stack(p, (uint32_t)r, "app", "main;shrink_fn;k:ksub", (uint64_t)shrink, (uint64_t)shrink * 1000);
		add_stack(p, (uint32_t)r, "app", "main;same_fn", (uint64_t)same, (uint64_t)same * 1000);
		if (gone)
			add_stack(p, (uint32_t)r, "app", "main;gone_fn", (uint64_t)gone, (uint64_t)gone * 1000);
		if (newfn)
			add_stack(p, (uint32_t)r, "app", "main;new_fn", (uint64_t)newfn, (uint64_t)newfn * 1000);
		add_stack(p, (uint32_t)r, "app", "main;rest_fn", (uint64_t)(rest - jit), (uint64_t)(rest - jit) * 1000);
	}
	return p;
}

static void test_diff(void)
{
	struct profile *b = diff_side(false, 4, 1), *n = diff_side(true, 4, 3);
	struct profile *b1 = diff_side(false, 1, 1), *n1 = diff_side(true, 1, 3);
	const struct profile *bs[] = { b }, *ns[] = { n }, *bs1[] = { b1 }, *ns1[] = { n1 };
	struct flame_diff_opts o = { 0 };
	struct flame_render_opts ro = { .width = 1020 };
	struct outbuf out = { 0 };
	const struct flame_node *m, *x;
	struct flame f;
	struct errmsg e;
	char cls[64];
	uint32_t mi;

	ok(flame__build_diff(&f, bs, 1, ns, 1, &o, &e) == 0, "build the differential graph (4 runs a side)");
	m = find(&f, 0, "main");
	mi = m ? (uint32_t)(m - f.nodes) : 0;
	x = find(&f, mi, "grow_fn");
	ok(x && x->state == FLAME_GREW, "grow_fn grew (q=%g)", x ? x->q : -1);
	is_dbl(x ? x->delta : 0, 20, 0.5, "grow_fn +20 points");
	x = find(&f, mi, "shrink_fn");
	ok(x && x->state == FLAME_SHRANK, "shrink_fn shrank");
	ok(x && find(&f, (uint32_t)(x - f.nodes), "ksub") && find(&f, (uint32_t)(x - f.nodes), "ksub")->state == FLAME_SHRANK,
	   "its kernel callee shrank too");
	x = find(&f, mi, "same_fn");
	ok(x && x->state == FLAME_SAME, "same_fn not significant");
	ok(x && isfinite(x->mde) && x->mde > 0 && x->mde < 5,
	   "same_fn has its detectable change, the table's share test's (%.3g points)", x ? x->mde : -1);
	x = find(&f, mi, "gone_fn");
	ok(x && x->absent && x->cur == 0 && x->base > 9, "gone_fn vanished, kept with its base share");
	ok(x && x->state == FLAME_SHRANK, "gone_fn shrank (significantly)");
	ok(m && m->state == FLAME_SAME && m->delta == 0, "main: 100 -> 100, not coloured");

	flame__svg(&out, &f, &ro, NULL);
	ok(strstr(svg_class(out.s, "grow_fn", cls, sizeof(cls)), "grew") != NULL, "SVG: grow_fn class grew (%s)", cls);
	ok(strstr(svg_class(out.s, "shrink_fn", cls, sizeof(cls)), "shrank") != NULL, "SVG: shrink_fn class shrank (%s)", cls);
	ok(strstr(svg_class(out.s, "same_fn", cls, sizeof(cls)), "same") != NULL, "SVG: same_fn class same (%s)", cls);
	ok(strstr(svg_class(out.s, "gone_fn", cls, sizeof(cls)), "absent") != NULL, "SVG: gone_fn drawn, class absent (%s)", cls);
	ok(strstr(out.s, "url(#mmflame-hatch-shrank)") != NULL, "the vanished frame is hatched");
	/* widths from new: grow_fn 30 of 110 layout units (100 new + 10 of gone_fn at its base width) */
	is_dbl(svg_width(out.s, "grow_fn"), 1000 * 30.0 / 110, 1.0, "grow_fn width from new");
	is_dbl(svg_width(out.s, "gone_fn"), 1000 * 10.0 / 110, 1.0, "gone_fn at its base width");
	ok(strstr(out.s, "base 10.") && strstr(out.s, "new 30."), "tooltips carry both values");
	ok(within(out.s, "<title>same_fn\n", "not significant; detectable ", "</title>"),
	   "same_fn's tooltip says the change it could have seen");
	outbuf__release(&out);
	flame__release(&f);
	{
		/* diff -g's text and JSON: each tested path's detectable change */
		struct chain_diff cd;

		ok(chains__compute(&cd, bs, 1, ns, 1, "cpu-clock", 0.5, 0.05, false, NULL) == 0, "chains of the 4-run pair");
		chains__format(&out, &cd, 20);
		ok(within(out.s, "main \xe2\x86\x92 grow_fn  +20.", ", q=", "\n") &&
		   within(out.s, "main \xe2\x86\x92 grow_fn  +20.", ", detectable ", "\n"),
		   "text: grow_fn's path with its q and detectable change");
		outbuf__release(&out);
		{
			struct jsonw w;

			jsonw__init(&w, &out);
			chains__json(&w, NULL, &cd, 20);
		}
		ok(within(out.s, "\"chain\": \"main \xe2\x86\x92 grow_fn\"", "\"detectable\": ", "}") &&
		   !within(out.s, "\"chain\": \"main \xe2\x86\x92 grow_fn\"", "\"detectable\": null", "}"),
		   "json: grow_fn's path has \"detectable\"");
		outbuf__release(&out);
		chains__release(&cd);
	}

	o.width_base = true;
	ok(flame__build_diff(&f, bs, 1, ns, 1, &o, &e) == 0, "--width base");
	m = find(&f, 0, "main");
	mi = m ? (uint32_t)(m - f.nodes) : 0;
	x = find(&f, mi, "new_fn");
	ok(x && x->absent && x->state == FLAME_GREW, "new_fn absent from base: hatched at its new width, grew");
	x = find(&f, mi, "grow_fn");
	ok(x && x->value > 9 && x->value < 11, "widths from base: grow_fn 10");
	flame__release(&f);
	o.width_base = false;

	/* one run a side: no test; coloured only past the threshold (0.5 points) */
	ok(flame__build_diff(&f, bs1, 1, ns1, 1, &o, &e) == 0 && f.novar, "one run a side");
	m = find(&f, 0, "main");
	mi = m ? (uint32_t)(m - f.nodes) : 0;
	x = find(&f, mi, "grow_fn");
	ok(x && x->state == FLAME_GREW && !isfinite(x->q), "1 run: grow_fn past the threshold, untested");
	x = find(&f, mi, "same_fn");
	ok(x && x->state == FLAME_SAME, "1 run: same_fn under the threshold");
	flame__release(&f);

	o.event = "page-faults";
	ok(flame__build_diff(&f, bs, 1, ns, 1, &o, &e) == -EINVAL, "an event neither side has: -EINVAL (%s)", e.msg);
	flame__release(&f);

	profile__free(b);
	profile__free(n);
	profile__free(b1);
	profile__free(n1);
}

/*
 * A side whose every function costs k units of period per operation:
 * main;half_a and main;half_b, k / 2 each, in files of 2 runs whose work
 * counts differ (100 and 150 ops, +-1 per run): shares stay 50/50 for any k.
 */
static struct profile *per_op_side(double k, int file, double *ops)
{
	struct profile *p = new_profile(2);
	uint32_t r;

	for (r = 0; r < 2; r++) {
		double n = (file ? 150 : 100) + (r ? 1 : -1);
		uint64_t half = (uint64_t)(n * k / 2);

		ops[r] = n;
		add_stack(p, r, "app", "main;half_a", half / 1000, half);
		add_stack(p, r, "app", "main;half_b", half / 1000, half + (r ? 500 : 0));
	}
	return p;
}

static void test_per_op(void)
{
	double ops[2][4], scale[2][4];
	struct profile *p[4] = { per_op_side(10000, 0, ops[0]), per_op_side(10000, 1, ops[0] + 2),
				 per_op_side(20000, 0, ops[1]), per_op_side(20000, 1, ops[1] + 2) };
	const struct profile *bs[] = { p[0], p[1] }, *ns[] = { p[2], p[3] };
	const double *sc[2] = { scale[0], scale[1] };
	struct flame_diff_opts o = { 0 };
	struct flame_render_opts ro = { .width = 1020 };
	struct outbuf out = { 0 };
	const struct flame_node *m, *x;
	double wn, wbase, rn, rb;
	struct flame f;
	struct errmsg e;
	size_t i, k;

	/* the runs of each side's two files in order; 1e-3: period ns -> µs */
	for (k = 0; k < 2; k++)
		for (i = 0; i < 4; i++)
			scale[k][i] = 1e-3 / ops[k][i];
	ok(flame__build_diff(&f, bs, 2, ns, 2, &o, &e) == 0, "shares: build (2 files of 2 runs a side)");
	m = find(&f, 0, "main");
	x = m ? find(&f, (uint32_t)(m - f.nodes), "half_a") : NULL;
	ok(x && fabs(x->delta) < 0.5 && x->state == FLAME_SAME, "shares: half_a flat (%+.3f points)", x ? x->delta : -1);
	flame__release(&f);

	o.scale = sc;
	o.unit = "\xc2\xb5s per op";
	ok(flame__build_diff(&f, bs, 2, ns, 2, &o, &e) == 0 && f.per_op, "per op: build");
	is_dbl(f.nodes[0].base, 10, 0.01, "per op: base total 10 \xc2\xb5s per op over 4 runs of 2 work counts");
	is_dbl(f.nodes[0].cur, 20, 0.01, "per op: new total 20");
	is_dbl(f.scale_total, 20, 0.01, "per op: the larger total is the full width");
	m = find(&f, 0, "main");
	x = m ? find(&f, (uint32_t)(m - f.nodes), "half_a") : NULL;
	ok(x && fabs(x->base - 5) < 0.01 && fabs(x->cur - 10) < 0.01, "per op: half_a 5 -> 10 (%.4g -> %.4g)",
	   x ? x->base : -1, x ? x->cur : -1);
	ok(x && x->state == FLAME_GREW, "per op: half_a grew (q=%g) while its share did not move", x ? x->q : -1);

	ro.side = FLAME_SIDE_NEW;
	flame__svg(&out, &f, &ro, NULL);
	wn = svg_width(out.s, "half_a");
	rn = svg_width(out.s, "all");
	ok(strstr(out.s, "width: new cost per op, base and new to one scale") != NULL, "per op: the legend says so");
	ok(strstr(out.s, "<title>half_a\nbase 5 \xe2\x86\x92 new 10 \xc2\xb5s per op (+5, +100%") != NULL,
	   "per op: the title gives both costs, the change and its %%");
	outbuf__release(&out);
	ro.side = FLAME_SIDE_BASE;
	flame__svg(&out, &f, &ro, NULL);
	wbase = svg_width(out.s, "half_a");
	rb = svg_width(out.s, "all");
	outbuf__release(&out);
	is_dbl(rn, 1000, 0.5, "per op, new side: the root is the whole width");
	is_dbl(rb, 500, 0.5, "per op, base side: half of it, to the same scale");
	ok(wbase > 0 && fabs(wn / wbase - 2) < 0.01, "per op: half_a twice as wide on the new side (%.1f vs %.1f px)",
	   wn, wbase);
	flame__release(&f);
	{
		/* a run of unknown work (NAN) is left out of its side; a side of none is refused */
		struct chain_diff cd;

		int err;

		scale[0][1] = NAN;
		err = chains__compute_scaled(&cd, bs, 2, ns, 2, "cpu-clock", INFINITY, 0.05, false, sc, NULL, NULL);
		ok(err == 0 && cd.nb == 3 &&
		   cd.nn == 4 && fabs(cd.total[0] - 10) < 0.01, "per op: a NAN run left out (%zu base runs, total %.4g)",
		   cd.nb, cd.total[0]);
		chains__release(&cd);
		for (i = 0; i < 4; i++)
			scale[1][i] = NAN;
		ok(chains__compute_scaled(&cd, bs, 2, ns, 2, "cpu-clock", INFINITY, 0.05, false, sc, NULL, NULL) == -EINVAL,
		   "per op: no run of known work on a side: -EINVAL");
		chains__release(&cd);
	}
	for (i = 0; i < 4; i++)
		profile__free(p[i]);
}

static void test_html(void)
{
	struct profile *b = diff_side(false, 3, 1), *n = diff_side(true, 3, 3);
	const struct profile *bs[] = { b }, *ns[] = { n };
	char *bp[] = { "base<1>.data" }, *np[] = { "new.data" };
	struct html_side hs[2] = { { "base", bp, bs, 1, 3 }, { "new", np, ns, 1, 3 } };
	struct flame_diff_opts o = { 0 };
	struct diff_opts dopts = { 0 };
	struct diff d;
	struct keyvals kv[6];
	struct diff_run dr[6] = { 0 };
	const struct diff_row **rows;
	struct outbuf out = { 0 };
	struct flame f;
	struct errmsg e;
	size_t i, nr;

	profile__set_meta(b, "hostname", "host&a");
	memset(kv, 0, sizeof(kv));
	for (i = 0; i < 6; i++) {
		ok(keys__run(i < 3 ? b : n, (uint32_t)(i % 3), &kv[i]) == 0, "keys of run %zu", i);
		dr[i].items = kv[i].items;
		dr[i].nr = kv[i].nr;
	}
	ok(diff__compute(&d, dr, 3, dr + 3, 3, &dopts) == 0, "diff computed");
	rows = diff__select(&d, DIFF_SELECT_DEFAULT, &nr);
	ok(flame__build_diff(&f, bs, 1, ns, 1, &o, &e) == 0, "graph for the report");
	html__diff(&out, hs, &d, rows, nr, &f, "cpu-clock", NULL, NULL);
	ok(!strncmp(out.s, "<!DOCTYPE html>", 15), "HTML document");
	ok(strstr(out.s, "base&lt;1&gt;.data") && strstr(out.s, "host&amp;a"), "metadata escaped");
	ok(strstr(out.s, "perf-profile.children.cpu-clock.grow_fn") != NULL, "the grow_fn row is in the table");
	ok(strstr(out.s, "<svg ") && !strstr(out.s, "<?xml"), "SVG inline, no XML prolog");
	ok(!strstr(out.s, "http://") || !strstr(out.s, "src=\"http"), "nothing loaded from the network");
	ok(!strstr(out.s, "<link") && !strstr(out.s, " src="), "no external resources");
	ok(!strstr(out.s, "class=\"mmwaterfall\"") && !strstr(out.s, "id=\"fw-share\"") && !strstr(out.s, ".views"),
	   "no cost: no waterfall, no width switch, not its style");
	outbuf__release(&out);
	{
		/* with the cost per op: the waterfall on the first screen, the graph's width switch */
		static const double sc0[3] = { 1e-3, 1e-3, 1e-3 }, sc1[3] = { 5e-4, 5e-4, 5e-4 };
		const double *sc[2] = { sc0, sc1 };
		const struct waterfall_bar bars[] = {
			{ "grow_fn<i>", 100, 150, 50, DIFF_UP, false, NULL },
			{ "elsewhere", 900, 350, -550, DIFF_SAME, true, NULL },
		};
		struct waterfall w = { bars, 2, 1000, 500, "ns per op", NULL, NULL };
		struct flame fc;
		struct html_cost hc = { &w, "cpu-clock per op: -500 ns", "work: x.ops", "per op: ops <b>", &fc, "op" };
		const char *v, *c, *m, *g, *n1, *n2, *sh, *out_path = getenv("MMPROF_HTML_OUT");

		o.scale = sc;
		o.unit = "ns per op";
		ok(flame__build_diff(&fc, bs, 1, ns, 1, &o, &e) == 0, "graph per op for the report");
		html__diff(&out, hs, &d, rows, nr, &f, "cpu-clock", NULL, &hc);
		if (out_path) {
			FILE *fp = fopen(out_path, "w");

			if (fp) {
				fwrite(out.s, 1, out.len, fp);
				fclose(fp);
			}
		}
		v = strstr(out.s, "<div id=\"verdict\">");
		c = strstr(out.s, "<div id=\"cost\">\n<svg ");
		m = strstr(out.s, "Functions that moved most");
		g = strstr(out.s, "<div class=\"views\">");
		sh = strstr(out.s, "<div class=\"graph v-share\">\n<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"mmflame\"");
		n1 = strstr(out.s, "<div class=\"graph v-op-new\">\n<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"mmflame-op-new\"");
		n2 = strstr(out.s, "<div class=\"graph v-op-base\">\n<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"mmflame-op-base\"");
		ok(v && c && m && g && v < c && c < g && g < m,
		   "the waterfall in the verdict, then the graph, then the share movers");
		ok(strstr(out.s, "<title id=\"mmwaterfall-title\">cpu-clock per op: -500 ns</title>") &&
		   strstr(out.s, "grow_fn&lt;i&gt;") && strstr(out.s, "<p class=\"note\">per op: ops &lt;b&gt;</p>"),
		   "its title, an escaped label and the note");
		ok(g && sh && n1 && n2 && g < sh && sh < n1 && n1 < n2, "three graphs behind the switch: share, per op new, per op base");
		ok(strstr(out.s, "<input type=\"radio\" name=\"fw\" id=\"fw-share\" checked>") &&
		   strstr(out.s, ".views:has(#fw-op-new:checked) > .v-op-new") &&
		   strstr(out.s, ".views > .v-op-new, .views > .v-op-base { display: none; }"),
		   "the switch is CSS: the share graph checked, the others shown when theirs is");
		ok(strstr(out.s, "width: new cost per op, base and new to one scale") &&
		   strstr(out.s, "width: base cost per op, base and new to one scale"), "both sides of the graph per op");
		ok(strstr(out.s, "data-views") != NULL, "the switch's browser self-test is in");
		outbuf__release(&out);
		flame__release(&fc);
	}
	flame__release(&f);
	free(rows);
	diff__release(&d);
	for (i = 0; i < 6; i++)
		keyvals__release(&kv[i]);
	profile__free(b);
	profile__free(n);
}

/*
 * Two builds spelling one function differently (hot.isra.0 / hot.isra.1,
 * warm.llvm.1 / warm.llvm.2): one path each, both spellings shown in the
 * flame graph (title and label) and in diff --callchains; main, spelled
 * alike, shows one name.
 */
static void test_renamed(void)
{
	struct profile *b = new_profile(2), *n = new_profile(2);
	const struct profile *bs[] = { b }, *ns[] = { n };
	struct flame_diff_opts o = { 0 };
	struct flame_render_opts ro = { .width = 1200 };
	struct outbuf out = { 0 };
	const struct flame_node *m, *x;
	struct chain_diff cd;
	struct flame f;
	struct errmsg e;
	uint32_t r;

	for (r = 0; r < 2; r++) {
		add_stack(b, r, "app", "main;hot.isra.0", 600 + r, (600 + r) * 1000);
		add_stack(b, r, "app", "main;warm.llvm.1", 400 - r, (400 - r) * 1000);
		add_stack(n, r, "app", "main;hot.isra.1", 800 + r, (800 + r) * 1000);
		add_stack(n, r, "app", "main;warm.llvm.2", 200 - r, (200 - r) * 1000);
	}
	ok(flame__build_diff(&f, bs, 1, ns, 1, &o, &e) == 0, "renamed: build the differential graph");
	m = find(&f, 0, "main");
	x = m ? find(&f, (uint32_t)(m - f.nodes), "hot.isra.0") : NULL;
	ok(m && !m->name_new, "main: one spelling");
	ok(x && x->name_new && !strcmp(x->name_new, "hot.isra.1") && x->base > 59 && x->cur > 79,
	   "hot: one node, base spelling hot.isra.0, new hot.isra.1, both shares");
	ok(m && !find(&f, (uint32_t)(m - f.nodes), "hot.isra.1"), "no second node for hot.isra.1");
	flame__svg(&out, &f, &ro, NULL);
	ok(out.s && strstr(out.s, "<title>hot.isra.0 \xe2\x86\x92 hot.isra.1\nbase 60.") &&
	   strstr(out.s, ">hot.isra.0 \xe2\x86\x92 hot.isra.1</text>"), "SVG: title and label show both spellings");
	ok(out.s && strstr(out.s, "<title>main\n"), "SVG: main titled by its one spelling");
	outbuf__release(&out);
	flame__release(&f);

	ok(chains__compute(&cd, bs, 1, ns, 1, "cpu-clock", 0.5, 0.05, false, NULL) == 0, "renamed: chains computed");
	chains__format(&out, &cd, 20);
	ok(out.s && strstr(out.s, "  main \xe2\x86\x92 (hot.isra.0 \xe2\x86\x92 hot.isra.1)  +20.0") &&
	   strstr(out.s, "  main \xe2\x86\x92 (warm.llvm.1 \xe2\x86\x92 warm.llvm.2)  -20.0") &&
	   strstr(out.s, "; (a \xe2\x86\x92 b): a frame spelled a in base, b in new):\n"),
	   "chains: renamed frames in parentheses, with the legend");
	chains__release(&cd);
	outbuf__release(&out);

	ok(chains__compute(&cd, bs, 1, bs, 1, "cpu-clock", 0, 0.05, false, NULL) == 0, "a build against itself");
	for (r = 0; r < cd.nr; r++)
		if (chain_row__new_name(&cd, &cd.rows[r]))
			break;
	ok(r == cd.nr, "no frame has a second spelling");
	chains__release(&cd);
	profile__free(b);
	profile__free(n);
}

/* A child of parent for a frame of its own: sym NULL is unresolved. */
static uint32_t node_at(struct profile *p, uint32_t parent, const char *sym, const char *dso, uint64_t addr,
			bool inlined)
{
	struct frame x = { .addr = addr, .sym = sym ? profile__intern(p, sym) : 0, .dso = profile__intern(p, dso),
			   .inlined = inlined };

	return profile__node(p, parent, profile__frame(p, &x));
}

/* The path of node q as names, root first ("main;memcpy;"). */
static void name_path(const struct profile *p, uint32_t q, char *buf, size_t size)
{
	uint32_t up[16];
	size_t n = 0, len = 0;

	for (; q != PROFILE_ROOT && n < 16; q = p->nodes[q].parent)
		up[n++] = q;
	buf[0] = 0;
	while (n-- > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s;", profile__frame_sym(p, p->nodes[up[n]].frame));
}

/*
 * Do a (derived) and b (built) hold the same entries and symnodes
 * (same_anc too), the same choices and child lists, and map every node
 * of p alike?
 */
static bool same_view(const struct profile *p, const struct symview *a, const struct symview *b)
{
	uint32_t i;

	if (a->nr_nodes != b->nr_nodes || a->nr_entries != b->nr_entries ||
	    a->keep_unresolved != b->keep_unresolved || a->keep_inline != b->keep_inline ||
	    a->unknown_by_dso != b->unknown_by_dso || a->max_stack != b->max_stack ||
	    a->nr_cut != b->nr_cut ||
	    memcmp(a->nodes, b->nodes, a->nr_nodes * sizeof(*a->nodes)))
		return false;
	for (i = 0; i < a->nr_entries; i++)
		if (a->entries[i].dso != b->entries[i].dso || a->entries[i].sym != b->entries[i].sym ||
		    a->entries[i].kernel != b->entries[i].kernel)
			return false;
	/* a's lists where b has them; a borrowed a may have them unasked; the root has no sibling */
	if ((b->first_child && !a->first_child) || (a->first_child && !b->first_child && !a->borrowed))
		return false;
	if (a->first_child && b->first_child &&
	    (memcmp(a->first_child, b->first_child, a->nr_nodes * sizeof(uint32_t)) ||
	     memcmp(a->next_sibling + 1, b->next_sibling + 1, (a->nr_nodes - 1) * sizeof(uint32_t))))
		return false;
	for (i = 0; i < p->nr_nodes; i++)
		if (symview__symnode(a, i) != symview__symnode(b, i) ||
		    symview__counts(a, i) != symview__counts(b, i))
			return false;
	return true;
}

/* Choices number c: bit 0 keep_unresolved, 1 keep_inline, 2 unknown_by_dso, 3 children. */
static struct symview_opts opts_of(unsigned c, uint32_t max_stack)
{
	return (struct symview_opts){ .keep_unresolved = c & 1, .keep_inline = (c >> 1) & 1,
				      .unknown_by_dso = (c >> 2) & 1, .children = (c >> 3) & 1,
				      .max_stack = max_stack };
}

/*
 * A derived view equals one built apart, for each of the 256 pairs of
 * choices (from any view to any other, finer or not: derived, shared or
 * built, the same answer) on p; max_stack for from and for the views
 * with bit 2.  Returns how many pairs differ.
 */
static unsigned derive_all(const struct profile *p, uint32_t max_stack)
{
	unsigned f, t, bad = 0;

	for (f = 0; f < 16; f++) {
		struct symview_opts fo = opts_of(f, max_stack);
		struct symview from;

		symview__init_opts(&from, p, &fo);
		for (t = 0; t < 16; t++) {
			struct symview_opts to = opts_of(t, t & 4 ? max_stack : 0);
			struct symview d, apart;

			symview__derive(&d, &from, &to);
			symview__init_opts(&apart, p, &to);
			if (!same_view(p, &d, &apart)) {
				if (!bad)
					printf("# derived view differs: from choices %u to %u\n", f, t);
				bad++;
			}
			symview__release(&d);
			symview__release(&apart);
		}
		symview__release(&from);
	}
	return bad;
}

/*
 * A random profile of what makes symbol tries differ: one function at
 * several addresses, one name in two DSOs, unresolved frames in three
 * DSOs, inline frames and (mixed) one name both inlined and called.
 */
static struct profile *random_profile(unsigned *seed, bool mixed)
{
	static const char *const syms[] = { "main", "a", "b", "memcpy", NULL, NULL, "inl", "c" };
	static const char *const dsos[] = { "/usr/bin/app", "/usr/lib/libc.so.6", "/usr/lib/libfoo.so" };
	struct profile *p = new_profile(2);
	uint32_t nodes[256], comm = profile__intern(p, "app");
	size_t nr = 1, i, n = 8 + (size_t)(rand_r(seed) % 120);

	nodes[0] = PROFILE_ROOT;
	for (i = 0; i < n; i++) {
		uint32_t parent = nodes[rand_r(seed) % nr];
		unsigned s = (unsigned)rand_r(seed) % 8, d = (unsigned)rand_r(seed) % 3;
		bool inlined = s == 6 || (mixed && s == 7 && rand_r(seed) % 2);
		uint64_t addr = 0x1000 * (s + 1) + 0x100 * d + (uint64_t)(rand_r(seed) % 3) * 8 + (inlined ? 4 : 0);

		if (s == 3 && d == 2)
			d = 1;	/* memcpy of the kernel or of libc */
		nodes[nr++] = node_at(p, parent, syms[s], s == 3 && d == 0 ? "[kernel.kallsyms]" : dsos[d],
				      addr, inlined);
	}
	for (i = 0; i < 2 * n; i++)
		profile__add_count(p, (uint32_t)(rand_r(seed) % 2), 0, comm, 0, nodes[1 + rand_r(seed) % (nr - 1)],
				   1, 1 + (uint64_t)(rand_r(seed) % 1000));
	return p;
}

/* Every pair of choices on random profiles, mixed and not, whole and cut stacks. */
static void test_derive_random(void)
{
	unsigned seed = 28, k, bad = 0, mixed_bad = 0, cut_bad = 0;

	for (k = 0; k < 100; k++) {
		struct profile *p = random_profile(&seed, false);

		bad += derive_all(p, 0) != 0;
		profile__free(p);
		p = random_profile(&seed, true);
		mixed_bad += derive_all(p, 0) != 0;
		cut_bad += derive_all(p, 3) != 0;
		profile__free(p);
	}
	ok(!bad, "derive: 100 random profiles, every pair of 16 choices: as built apart (%u differ)", bad);
	ok(!mixed_bad, "derive: 100 with a function both inlined and called: as built apart (%u differ)", mixed_bad);
	ok(!cut_bad, "derive: the same with stacks cut to 3 frames: as built apart (%u differ)", cut_bad);
}

/*
 * One collapse per file per diff (diff_side.views): the keys' and the
 * costs' views derived from the finest one are those built apart, shared
 * where they are the same, and the chains' paths taken from it are the
 * rows of a collapse of their own (own), though it splits "[unknown]" by
 * DSO.  p has unresolved and inline frames.
 */
static void test_views(struct profile *p, const struct chain_diff *own)
{
	struct symview_opts fine_o = { .keep_unresolved = true, .keep_inline = true, .unknown_by_dso = true };
	struct symview_opts keys_o = { 0 }, cost_o = { .keep_unresolved = true, .unknown_by_dso = true };
	struct symview fine, d, apart, *views[] = { &fine };
	struct chain_views cv = { { views, views }, false };
	const struct profile *ps[] = { p };
	struct profile *plain = diff_side(false, 2, 1);
	struct chain_diff cd;
	uint32_t r;
	int err;

	symview__init_opts(&fine, p, &fine_o);
	ok(!symview__derive(&d, &fine, &keys_o), "views: the keys' view of a profile with unresolved frames is its own");
	symview__init_opts(&apart, p, &keys_o);
	ok(same_view(p, &d, &apart), "views: ... the same as built apart");
	symview__release(&d);
	symview__release(&apart);
	ok(!symview__derive(&d, &fine, &cost_o), "views: the costs' of a profile with an inline frame too");
	symview__init_opts(&apart, p, &cost_o);
	ok(same_view(p, &d, &apart), "views: ... the same as built apart");
	symview__release(&d);
	symview__release(&apart);
	ok(derive_all(p, 0) == 0, "views: every pair of choices (unresolved, inline, [unknown] by DSO, child lists)");
	ok(derive_all(p, 2) == 0, "views: ... and with stacks cut to 2 frames");

	err = chains__compute_scaled(&cd, ps, 1, ps, 1, "cpu-clock", 0, 0.05, false, NULL, NULL, &cv);
	ok(!err && cd.nr == own->nr, "views: chains from the collapse, %zu rows (%zu apart)", cd.nr, own->nr);
	for (r = 0; r < cd.nr && r < own->nr; r++)
		if (cd.rows[r].hash != own->rows[r].hash || cd.rows[r].node != own->rows[r].node ||
		    cd.rows[r].parent_row != own->rows[r].parent_row || cd.rows[r].base != own->rows[r].base ||
		    cd.rows[r].cur != own->rows[r].cur || cd.rows[r].q != own->rows[r].q)
			break;
	ok(r == own->nr && fine.nodes, "views: ... the same rows, in the same order; the view is kept");
	chains__release(&cd);
	cv.last = true;
	ok(chains__compute_scaled(&cd, ps, 1, ps, 1, "cpu-clock", 0, 0.05, false, NULL, NULL, &cv) == 0 &&
	   cd.nr == own->nr && !fine.nodes, "views: the last reader releases the view once read");
	chains__release(&cd);
	ok(chains__compute_scaled(&cd, ps, 1, ps, 1, "cpu-clock", 0, 0.05, false, NULL, NULL, &cv) == 0 &&
	   cd.nr == own->nr, "views: a released view: the file collapsed again");
	chains__release(&cd);
	symview__release(&fine);

	/* every frame a resolved symbol, none inlined: one collapse for all */
	symview__init_opts(&fine, plain, &fine_o);
	ok(symview__derive(&d, &fine, &keys_o) && d.nodes == fine.nodes, "views: shared where the keys' is the same");
	symview__init_opts(&apart, plain, &keys_o);
	ok(same_view(plain, &d, &apart), "views: ... as built apart");
	symview__release(&d);
	symview__release(&apart);
	ok(symview__derive(&d, &fine, &cost_o) && d.nodes == fine.nodes, "views: and the costs'");
	symview__release(&d);
	ok(fine.nodes != NULL, "views: a borrowing view's release leaves the collapse");
	symview__release(&fine);
	profile__free(plain);
}

/*
 * The chains' paths against a naive model: every node's path of names,
 * its share the sum of its nodes' subtrees.  The profile has what makes
 * the symbol trie differ from the address trie: one function at two
 * addresses, one name in two DSOs, unresolved frames in two DSOs, an
 * inline frame.
 */
static void test_chain_paths(void)
{
	struct profile *b = new_profile(2);
	const struct profile *bs[] = { b };
	uint32_t m1, m2, leaf[8], r, i, j;
	char names[16][512];
	double share[16], incl[32] = { 0 }, total = 0;
	size_t nn = 0, nl = 0;
	struct chain_diff cd;

	m1 = node_at(b, PROFILE_ROOT, "main", "/usr/bin/app", 0x100, false);
	m2 = node_at(b, PROFILE_ROOT, "main", "/usr/bin/app", 0x108, false);
	leaf[nl++] = node_at(b, m1, "memcpy", "[kernel.kallsyms]", 0xffff0010, false);
	leaf[nl++] = node_at(b, m2, "memcpy", "/usr/lib/libc.so.6", 0x7f0010, false);
	leaf[nl++] = node_at(b, m1, NULL, "/usr/lib/libc.so.6", 0x7f0100, false);
	leaf[nl++] = node_at(b, m2, NULL, "/usr/lib/libfoo.so", 0x7e0100, false);
	leaf[nl++] = node_at(b, leaf[3], "fill", "/usr/lib/libfoo.so", 0x7e0200, true);
	leaf[nl++] = node_at(b, leaf[4], "memcpy", "/usr/lib/libc.so.6", 0x7f0018, false);
	leaf[nl++] = m2;
	for (r = 0; r < 2; r++)
		for (i = 0; i < nl; i++)
			profile__add_count(b, r, 0, profile__intern(b, "app"), 0, leaf[i], 1, 1000 * (i + 1));
	for (i = 0; i < nl; i++) {
		for (j = leaf[i]; j != PROFILE_ROOT; j = b->nodes[j].parent)
			incl[j] += 1000 * (i + 1);
		total += 1000 * (i + 1);
	}
	for (j = 1; j < b->nr_nodes; j++) {
		char path[512];
		size_t k;

		name_path(b, j, path, sizeof(path));
		for (k = 0; k < nn && strcmp(names[k], path); k++)
			;
		if (k == nn) {
			snprintf(names[nn], sizeof(names[nn]), "%s", path);
			share[nn++] = 0;
		}
		share[k] += 100 * incl[j] / total;
	}
	ok(chains__compute(&cd, bs, 1, bs, 1, "cpu-clock", 0, 0.05, false, NULL) == 0, "paths: chains computed");
	ok(cd.nr == nn, "paths: one row per path of names (%zu rows, %zu paths)", cd.nr, nn);
	for (r = 0; r < cd.nr; r++) {
		const struct chain_row *row = &cd.rows[r];
		char path[512];
		size_t k;

		name_path(b, row->node, path, sizeof(path));
		for (k = 0; k < nn && strcmp(names[k], path); k++)
			;
		if (k == nn || fabs(row->base - share[k]) > 1e-9 || fabs(row->cur - share[k]) > 1e-9)
			break;
	}
	ok(r == cd.nr, "paths: each row's share is its path's in the naive model");
	test_views(b, &cd);
	chains__release(&cd);
	profile__free(b);
}

/*
 * One answer for a function whose change is split over several paths
 * (issue 32): split_fn, up in the table (a hand-made row, q 1e-6), is
 * reached under a and under b, each +0.5 points (3 -> 3.5 %, 1 000
 * samples a run: each path alone about 1.3 standard errors), and under
 * c, which lost 0.3.  Before, each path stood on its own test gated on
 * the row (the least q on it), so both frames that moved with the
 * function were grey while its row was flagged.  Now a path that moved
 * with a flagged function has the row's verdict and says so; the one
 * that moved against it keeps its own test.
 */
static struct profile *split_side(bool isnew, size_t runs)
{
	struct profile *p = new_profile(runs);
	size_t r;

	for (r = 0; r < runs; r++) {
		int jit = (int)(r % 3) - 1;
		int a = isnew ? 35 : 30, bb = isnew ? 35 : 30, c = isnew ? 27 : 30;

		add_stack(p, (uint32_t)r, "app", "main;a;split_fn", (uint64_t)(a + jit), (uint64_t)(a + jit) * 1000);
		add_stack(p, (uint32_t)r, "app", "main;b;split_fn", (uint64_t)(bb - jit), (uint64_t)(bb - jit) * 1000);
		add_stack(p, (uint32_t)r, "app", "main;c;split_fn", (uint64_t)c, (uint64_t)c * 1000);
		add_stack(p, (uint32_t)r, "app", "main;rest_fn", (uint64_t)(1000 - a - bb - c),
			  (uint64_t)(1000 - a - bb - c) * 1000);
	}
	return p;
}

static void test_split_function(void)
{
	struct profile *b = split_side(false, 4), *n = split_side(true, 4);
	const struct profile *bs[] = { b }, *ns[] = { n };
	struct chain_fn fn[] = {
		{ (char *)"split_fn", 1e-6, 0.4, 0.7, 1, 0 },
	};
	struct chain_fns fns = { fn, 1 };
	struct flame_diff_opts o = { .fns = &fns };
	struct flame_render_opts ro = { .width = 1020 };
	struct outbuf out = { 0 };
	const struct flame_node *m, *x;
	struct chain_diff cd;
	struct flame f;
	struct errmsg e;
	uint32_t mi;
	const char *path[] = { "a", "b" };
	size_t i;

	/* without the table's rows: each path its own test, neither significant */
	ok(flame__build_diff(&f, bs, 1, ns, 1, &(struct flame_diff_opts){ 0 }, &e) == 0, "split: build, no rows");
	m = find(&f, 0, "main");
	mi = m ? (uint32_t)(m - f.nodes) : 0;
	x = find(&f, mi, "a");
	x = x ? find(&f, (uint32_t)(x - f.nodes), "split_fn") : NULL;
	ok(x && x->state == FLAME_SAME && x->q >= 0.05, "split: a path alone is not significant (q=%.3g)", x ? x->q : -1);
	flame__release(&f);

	ok(flame__build_diff(&f, bs, 1, ns, 1, &o, &e) == 0, "split: build with split_fn's row");
	m = find(&f, 0, "main");
	mi = m ? (uint32_t)(m - f.nodes) : 0;
	for (i = 0; i < 2; i++) {
		x = find(&f, mi, path[i]);
		x = x ? find(&f, (uint32_t)(x - f.nodes), "split_fn") : NULL;
		ok(x && x->state == FLAME_GREW && x->q <= 1e-6 && x->with_fn > 0,
		   "split: split_fn under %s moved with its flagged row: grew (q=%.3g)", path[i], x ? x->q : -1);
	}
	x = find(&f, mi, "c");
	x = x ? find(&f, (uint32_t)(x - f.nodes), "split_fn") : NULL;
	ok(x && x->state != FLAME_GREW && x->with_fn < 0,
	   "split: split_fn under c moved against its row: its own test, not coloured with the row");
	flame__svg(&out, &f, &ro, NULL);
	ok(strstr(out.s, "a part of its function's change") && strstr(out.s, "against its function's change"),
	   "split: the tooltips say how each frame stands to its function's row");
	outbuf__release(&out);
	flame__release(&f);

	ok(chains__compute(&cd, bs, 1, ns, 1, "cpu-clock", 0.1, 0.05, false, NULL) == 0, "split: -g chains");
	chains__take_functions(&cd, &fns);
	chains__format(&out, &cd, 20);
	ok(within(out.s, "a \xe2\x86\x92 split_fn", "a part of split_fn's change in the table", "\n") &&
	   within(out.s, "b \xe2\x86\x92 split_fn", "a part of split_fn's change in the table", "\n") &&
	   !within(out.s, "a \xe2\x86\x92 split_fn", "not significant", "\n"),
	   "split: -g lists the paths that carry split_fn's change, with its verdict");
	outbuf__release(&out);
	chains__release(&cd);
	profile__free(b);
	profile__free(n);
}

int main(void)
{
	test_single();
	test_min_width_and_escaping();
	test_diff();
	test_renamed();
	test_chain_paths();
	test_derive_random();
	test_split_function();
	test_per_op();
	test_html();
	return done_testing();
}
