/*
 * test-wholestack: the writers of whole stacks (report --folded, export
 * -f json and pprof) on a profile whose trie holds some chains only in
 * part (chainsrc.h) write what they write of the same chains held whole.
 *
 * One set of random chains (several runs, events, comms and pids; 16
 * functions at two addresses each, unresolved frames in two DSOs, an
 * inline frame, a kernel frame; depths 1 to 40, prefixes shared) makes
 * two profiles: (a) every chain whole in the trie; (b) about half of them
 * cut as profile__take_chains cuts them, `deepest kept node -> [elided]
 * -> sampled frame` with their cells there, and p->whole an array-backed
 * chainsrc of those chains.  Folded lines must be the same text under
 * every filter and weight; export JSON the same header, frames and
 * (stack, cell) rows; pprof the same samples (locations' addresses and
 * functions, values, labels) and locations after decoding.  The same
 * again for (c), the chains as record leaves them (the first ones whole,
 * the rest through profile__take_chains into half the nodes: its own
 * [elided] nodes and p->whole), and for (d), (c) saved and loaded (format
 * 5's chain_blocks, a file-backed p->whole).  Then the
 * budget (REPORT_MAX_FOLDED_FRAMES, EXPORT_MAX_FRAMES) counted over the
 * whole chains, refused before any byte, and a source's error or a frame
 * that is not the profile's passed up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/datafile.h"
#include "mmprof/export.h"
#include "mmprof/report.h"
#include "pbdecode.h"
#include "tap.h"

#define NR_CHAINS 500
#define MAX_DEPTH 40
#define MAX_CELLS 6
#define NR_RUNS 3
#define NR_EVENTS 2

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

struct tchain {
	uint32_t frames[MAX_DEPTH];
	uint32_t nr;
	struct chain_cell cells[MAX_CELLS];
	uint32_t nr_cells;
	int elided;		/* (b): cut after its first kept frames */
	uint32_t kept;
};

static int frames_cmp(const struct tchain *a, const struct tchain *b)
{
	uint32_t i, n = a->nr < b->nr ? a->nr : b->nr;

	for (i = 0; i < n; i++)
		if (a->frames[i] != b->frames[i])
			return a->frames[i] < b->frames[i] ? -1 : 1;
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static int chain_cmp(const void *a, const void *b)
{
	return frames_cmp(a, b);
}

/* An array-backed chainsrc: the chains in chainsrc.h's order. */
struct arrsrc {
	struct chainsrc src;
	const struct tchain **chains;
	size_t nr;
};

static int arr_each(struct chainsrc *s, chain_fn fn, void *ctx)
{
	struct arrsrc *a = (struct arrsrc *)s;
	size_t i;

	for (i = 0; i < a->nr; i++) {
		const struct tchain *c = a->chains[i], *prev = i ? a->chains[i - 1] : NULL;
		struct chain_rec r = { .frames = c->frames, .nr = c->nr, .cells = c->cells,
				       .nr_cells = c->nr_cells, .ordinal = i };
		int rc;

		while (prev && r.lcp < prev->nr && r.lcp < c->nr && prev->frames[r.lcp] == c->frames[r.lcp])
			r.lcp++;
		rc = fn(ctx, &r);
		if (rc)
			return rc;
	}
	return 0;
}

static void arr_release(struct chainsrc *s)
{
	struct arrsrc *a = (struct arrsrc *)s;

	free(a->chains);
	free(a);
}

/* The frames both profiles have, in the same order: ids are equal. */
struct frames {
	uint32_t f[40];
	size_t nr;
	uint32_t elided;
	uint32_t comm[3];
};

static uint32_t add_frame(struct profile *p, const char *sym, const char *dso, uint64_t addr,
			  int kernel, int inlined)
{
	struct frame f = { .addr = addr, .sym = sym ? profile__intern(p, sym) : 0,
			   .dso = profile__intern(p, dso), .kernel = (uint8_t)kernel,
			   .inlined = (uint8_t)inlined };

	return profile__frame(p, &f);
}

static struct profile *skeleton(struct frames *fr)
{
	struct profile *p = profile__new();
	static const char *const evs[NR_EVENTS] = { "cpu-clock", "page-faults" };
	size_t i;

	for (i = 0; i < NR_EVENTS; i++) {
		struct event_desc ev = { .name = profile__intern(p, evs[i]), .freq = 1, .sample = 4000 };

		profile__add_event(p, &ev);
	}
	for (i = 0; i < NR_RUNS; i++) {
		struct run r = { .wall_ns = 1000000 * (int64_t)(i + 1), .start_ns = 5 };

		profile__add_run(p, &r);
	}
	fr->nr = 0;
	for (i = 0; i < 16; i++) {
		char name[16];
		const char *dso = i < 12 ? "/bin/w" : "/lib/libx.so";
		uint64_t base = (i < 12 ? 0x401000 : 0x7f0000001000ull) + i * 0x100;

		snprintf(name, sizeof(name), "fn_%zu", i);
		fr->f[fr->nr++] = add_frame(p, name, dso, base, 0, 0);
		fr->f[fr->nr++] = add_frame(p, name, dso, base + 0x24, 0, 0);
	}
	fr->f[fr->nr++] = add_frame(p, NULL, "/bin/w", 0x409000, 0, 0);
	fr->f[fr->nr++] = add_frame(p, NULL, "/lib/libx.so", 0x7f0000009000ull, 0, 0);
	fr->f[fr->nr++] = add_frame(p, "inl_helper", "/bin/w", 0x401300, 0, 1);
	fr->f[fr->nr++] = add_frame(p, "clear_page", "[kernel.kallsyms]", 0xffffffff81001000ull, 1, 0);
	{
		struct frame e = { .addr = PROFILE_ELIDED_ADDR, .sym = profile__intern(p, PROFILE_ELIDED),
				   .dso = profile__intern(p, PROFILE_ELIDED) };

		fr->elided = profile__frame(p, &e);
	}
	fr->comm[0] = profile__intern(p, "w");
	fr->comm[1] = profile__intern(p, "kworker one");
	fr->comm[2] = profile__intern(p, "a;b");
	return p;
}

/* NR_CHAINS distinct random chains, sorted, half marked to be elided. */
static size_t make_chains(struct tchain *ch, const struct frames *fr)
{
	size_t i, j, n = 0;

	for (i = 0; i < NR_CHAINS; i++) {
		struct tchain *c = &ch[i];
		uint32_t k = 0;

		memset(c, 0, sizeof(*c));
		c->nr = 1 + (uint32_t)(rnd() % MAX_DEPTH);
		if (i && rnd() % 2) {	/* share a prefix with an earlier chain */
			const struct tchain *o = &ch[rnd() % i];

			k = (uint32_t)(rnd() % (o->nr + 1));
			if (k > c->nr)
				k = c->nr;
			memcpy(c->frames, o->frames, k * sizeof(*c->frames));
		}
		for (; k < c->nr; k++)
			c->frames[k] = fr->f[rnd() % fr->nr];
		c->nr_cells = 1 + (uint32_t)(rnd() % MAX_CELLS);
		for (j = 0; j < c->nr_cells; j++) {
			struct chain_cell *x = &c->cells[j];
			static const uint32_t pids[] = { 0, 100, 101 };

			x->run = (uint32_t)(rnd() % NR_RUNS);
			x->event = (uint32_t)(rnd() % NR_EVENTS);
			x->comm = fr->comm[rnd() % 3];
			x->pid = pids[rnd() % 3];
			x->samples = 1 + rnd() % 9;
			x->period = x->samples * 1000 + rnd() % 500;
		}
		qsort(c->cells, c->nr_cells, sizeof(*c->cells), chain_cell__qcmp);
		for (j = 1, k = 1; j < c->nr_cells; j++)	/* each cell once */
			if (chain_cell__cmp(&c->cells[j], &c->cells[k - 1]))
				c->cells[k++] = c->cells[j];
		c->nr_cells = k;
		c->elided = rnd() % 2;
		c->kept = (uint32_t)(rnd() % c->nr);	/* frames kept above [elided] */
	}
	qsort(ch, NR_CHAINS, sizeof(*ch), chain_cmp);
	for (i = 0; i < NR_CHAINS; i++)	/* each chain once */
		if (!n || frames_cmp(&ch[i], &ch[n - 1]))
			ch[n++] = ch[i];
	return n;
}

static void add_cells(struct profile *p, const struct tchain *c, uint32_t node)
{
	uint32_t j;

	for (j = 0; j < c->nr_cells; j++)
		profile__add_count(p, c->cells[j].run, c->cells[j].event, c->cells[j].comm,
				   c->cells[j].pid, node, c->cells[j].samples, c->cells[j].period);
}

/* (a) every chain whole; (b) the marked ones elided, p->whole theirs. */
static void build(const struct tchain *ch, size_t n, struct profile **a, struct profile **b)
{
	struct frames fa, fb;
	struct arrsrc *src = calloc(1, sizeof(*src));
	size_t i;
	uint32_t d;

	*a = skeleton(&fa);
	*b = skeleton(&fb);
	src->chains = calloc(n + 1, sizeof(*src->chains));
	for (i = 0; i < n; i++) {
		const struct tchain *c = &ch[i];
		uint32_t na = PROFILE_ROOT, nb = PROFILE_ROOT;

		for (d = 0; d < c->nr; d++)
			na = profile__node(*a, na, c->frames[d]);
		add_cells(*a, c, na);
		if (!c->elided) {
			for (d = 0; d < c->nr; d++)
				nb = profile__node(*b, nb, c->frames[d]);
			add_cells(*b, c, nb);
			continue;
		}
		for (d = 0; d < c->kept; d++)
			nb = profile__node(*b, nb, c->frames[d]);
		nb = profile__node(*b, nb, fb.elided);
		nb = profile__node(*b, nb, c->frames[c->nr - 1]);
		add_cells(*b, c, nb);
		src->chains[src->nr++] = c;
		src->src.nr_chains++;
		src->src.nr_frames += c->nr;
		for (d = 0; d < c->nr_cells; d++)
			src->src.samples += c->cells[d].samples;
	}
	src->src.each = arr_each;
	src->src.release = arr_release;
	(*b)->whole = &src->src;
}

static char *folded(const struct profile *p, const struct folded_opts *o, int *rc)
{
	struct outbuf b = { 0 };

	*rc = report__folded(p, o, &b);
	if (!b.s)
		outbuf__add(&b, "", 0);
	return b.s;
}

static void test_folded(const struct profile *a, const struct profile *b)
{
	static const int events[] = { -1, 0, 1 }, runs[] = { -1, 1 };
	size_t e, r, bits, differ = 0, combos = 0, lines = 0;
	int rca, rcb;

	for (e = 0; e < 3; e++)
		for (r = 0; r < 2; r++)
			for (bits = 0; bits < 8; bits++) {
				struct folded_opts o = { .event = events[e], .run = runs[r],
							 .comm = bits & 1, .period = bits & 2,
							 .one_pid = bits & 4, .pid = 100 };
				char *sa = folded(a, &o, &rca), *sb = folded(b, &o, &rcb);
				char *s;

				combos++;
				if (rca || rcb || strcmp(sa, sb)) {
					if (!differ++)
						printf("# event %d run %d comm %d period %d pid %d: rc %d %d\n%s---\n%s",
						       o.event, o.run, o.comm, o.period, o.one_pid, rca, rcb,
						       sa, sb);
				}
				for (s = sa; *s; s++)
					lines += *s == '\n';
				free(sa);
				free(sb);
			}
	ok(!differ, "folded: the same lines whole and elided, %zu of %zu filter and weight choices "
	   "differ (%zu lines)", differ, combos, lines);
}

/* "[elided]" is never a folded frame once p->whole gives the chains. */
static void test_no_marker(const struct profile *b)
{
	struct folded_opts o = { .event = -1, .run = -1 };
	int rc;
	char *s = folded(b, &o, &rc);

	ok(!rc && *s && !strstr(s, PROFILE_ELIDED), "folded of (b) names no " PROFILE_ELIDED " frame");
	free(s);
}

static char *render_json(const struct profile *p, int *rc)
{
	struct outbuf b = { 0 };
	struct errmsg e = { "" };

	*rc = export__json(p, &b, &e);
	if (!b.s)
		outbuf__add(&b, "", 0);
	return b.s;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * JSON's stacks and counts as "frames|run event comm pid samples period"
 * rows, sorted; *head: the text from "events" to "stacks" (events, runs,
 * frames).  The writer puts one stack and one count on a line.
 */
static char **json_rows(char *s, size_t *nr, char **head)
{
	char **stacks = NULL, **rows = NULL, *line, *save = NULL;
	size_t nr_stacks = 0, n = 0;
	int part = 0;

	/* from events on: meta may say what take_chains did (chains_elided) */
	*head = strstr(s, "\"events\"") && strstr(s, "\"stacks\"") ?
		strndup(strstr(s, "\"events\""), (size_t)(strstr(s, "\"stacks\"") - strstr(s, "\"events\""))) :
		strdup("");
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "\"stacks\"")) {
			part = 1;
			continue;
		}
		if (strstr(line, "\"counts\"")) {
			part = 2;
			continue;
		}
		if (part == 1 && strchr(line, '[')) {
			stacks = realloc(stacks, (nr_stacks + 1) * sizeof(*stacks));
			stacks[nr_stacks++] = line;
		} else if (part == 2 && strchr(line, '{')) {
			unsigned long long run, ev, pid, st, sm, pe;
			char comm[64] = "";
			char row[1024];
			const char *c = strstr(line, "\"comm\":");

			if (sscanf(strstr(line, "\"run\":"), "\"run\": %llu", &run) != 1 ||
			    sscanf(strstr(line, "\"event\":"), "\"event\": %llu", &ev) != 1 ||
			    sscanf(strstr(line, "\"pid\":"), "\"pid\": %llu", &pid) != 1 ||
			    sscanf(strstr(line, "\"stack\":"), "\"stack\": %llu", &st) != 1 ||
			    sscanf(strstr(line, "\"samples\":"), "\"samples\": %llu", &sm) != 1 ||
			    sscanf(strstr(line, "\"period\":"), "\"period\": %llu", &pe) != 1 ||
			    !c || st >= nr_stacks)
				continue;
			sscanf(c, "\"comm\": \"%63[^\"]", comm);
			snprintf(row, sizeof(row), "%.*s|%llu %llu %s %llu %llu %llu",
				 (int)strcspn(stacks[st], "]") + 1, stacks[st], run, ev, comm, pid, sm, pe);
			rows = realloc(rows, (n + 1) * sizeof(*rows));
			rows[n++] = strdup(row);
		}
	}
	qsort(rows, n, sizeof(*rows), str_cmp);
	free(stacks);
	*nr = n;
	return rows;
}

static void test_json(const struct profile *a, const struct profile *b)
{
	int rca, rcb;
	char *sa = render_json(a, &rca), *sb = render_json(b, &rcb), *ha, *hb;
	size_t na, nb, i, differ = 0;
	char **ra, **rb;

	is_int(rca, 0, "json of (a)");
	is_int(rcb, 0, "json of (b)");
	ok(!strstr(sb, "\"stacks\"") || strstr(strstr(sb, "\"stacks\""), "\"counts\""),
	   "json of (b) has its counts after its stacks");
	ra = json_rows(sa, &na, &ha);
	rb = json_rows(sb, &nb, &hb);
	is_str(ha, hb, "json: the same events, runs and frames");
	for (i = 0; i < na && i < nb; i++)
		if (strcmp(ra[i], rb[i]) && !differ++)
			printf("# %s\n# %s\n", ra[i], rb[i]);
	ok(na == nb && na > 0 && !differ, "json: the same %zu (stack, cell) rows whole and elided "
	   "(%zu and %zu, %zu differ)", na, na, nb, differ);
	for (i = 0; i < na; i++)
		free(ra[i]);
	for (i = 0; i < nb; i++)
		free(rb[i]);
	free(ra);
	free(rb);
	free(ha);
	free(hb);
	free(sa);
	free(sb);
}

/* A decoded pprof: its samples and locations as sorted text rows. */
struct pprof_rows {
	char **samples, **locs;
	size_t nr_samples, nr_locs;
	char *first_mapping;
};

static void add_row(char ***rows, size_t *n, const char *s)
{
	*rows = realloc(*rows, (*n + 1) * sizeof(**rows));
	(*rows)[(*n)++] = strdup(s);
}

static void pprof_decode(const uint8_t *buf, size_t len, struct pprof_rows *out)
{
	const char **str = NULL;
	size_t nr_str = 0, i = 0, j, k, nr_locs = 0, nr_funcs = 0;
	uint64_t (*locs)[3] = NULL, (*funcs)[2] = NULL, first_map_file = 0;	/* id, addr, func; id, name */
	struct field f, g, h;
	int maps = 0;

	memset(out, 0, sizeof(*out));
	/* pass 1: strings, locations, functions, the first mapping */
	while (next(buf, len, &i, &f)) {
		if (f.num == 6) {
			str = realloc(str, (nr_str + 1) * sizeof(*str));
			str[nr_str++] = strndup((const char *)f.data, f.v);
		} else if (f.num == 4) {
			locs = realloc(locs, (nr_locs + 1) * sizeof(*locs));
			memset(locs[nr_locs], 0, sizeof(locs[0]));
			for (j = 0; next(f.data, f.v, &j, &g);)
				if (g.num == 1)
					locs[nr_locs][0] = g.v;
				else if (g.num == 3)
					locs[nr_locs][1] = g.v;
				else if (g.num == 4)
					for (k = 0; next(g.data, g.v, &k, &h);)
						if (h.num == 1)
							locs[nr_locs][2] = h.v;
			nr_locs++;
		} else if (f.num == 5) {
			funcs = realloc(funcs, (nr_funcs + 1) * sizeof(*funcs));
			for (j = 0; next(f.data, f.v, &j, &g);)
				if (g.num == 1)
					funcs[nr_funcs][0] = g.v;
				else if (g.num == 2)
					funcs[nr_funcs][1] = g.v;
			nr_funcs++;
		} else if (f.num == 3 && !maps++) {
			for (j = 0; next(f.data, f.v, &j, &g);)
				if (g.num == 5)
					first_map_file = g.v;
		}
	}
	out->first_mapping = strdup(first_map_file < nr_str ? str[first_map_file] : "?");
	/* a location as "addr/function" */
#define LOC_TEXT(buf, id) do {								\
		const char *fn_ = "-";							\
		size_t l_, u_;								\
		(buf)[0] = '\0';							\
		for (l_ = 0; l_ < nr_locs; l_++)					\
			if (locs[l_][0] == (id))					\
				break;							\
		if (l_ == nr_locs) {							\
			snprintf(buf, sizeof(buf), "?");				\
			break;								\
		}								\
		for (u_ = 0; u_ < nr_funcs; u_++)					\
			if (funcs[u_][0] == locs[l_][2] && funcs[u_][1] < nr_str)	\
				fn_ = str[funcs[u_][1]];				\
		snprintf(buf, sizeof(buf), "%llx/%s", (unsigned long long)locs[l_][1], fn_); \
	} while (0)
	for (j = 0; j < nr_locs; j++) {
		char t[128];

		LOC_TEXT(t, locs[j][0]);
		add_row(&out->locs, &out->nr_locs, t);
	}
	/* pass 2: the samples */
	for (i = 0; next(buf, len, &i, &f);) {
		char row[8192] = "", t[128];
		size_t used = 0;

		if (f.num != 2)
			continue;
		for (j = 0; next(f.data, f.v, &j, &g);) {
			uint64_t v;

			if (g.num == 1 || g.num == 2) {
				for (k = 0; k < g.v;) {
					rd_varint(g.data, g.v, &k, &v);
					if (g.num == 1)
						LOC_TEXT(t, v);
					else
						snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
					used += (size_t)snprintf(row + used, sizeof(row) - used, "%s%s",
								 t, g.num == 1 ? ";" : ",");
					if (used >= sizeof(row))
						used = sizeof(row) - 1;
				}
				used += (size_t)snprintf(row + used, sizeof(row) - used, "|");
			} else if (g.num == 3) {
				uint64_t key = 0, sv = 0, num = 0;

				for (k = 0; next(g.data, g.v, &k, &h);)
					if (h.num == 1)
						key = h.v;
					else if (h.num == 2)
						sv = h.v;
					else if (h.num == 3)
						num = h.v;
				used += (size_t)snprintf(row + used, sizeof(row) - used, "%s=%s/%llu|",
							 key < nr_str ? str[key] : "?",
							 sv < nr_str ? str[sv] : "?", (unsigned long long)num);
			}
			if (used >= sizeof(row))
				used = sizeof(row) - 1;
		}
		add_row(&out->samples, &out->nr_samples, row);
	}
#undef LOC_TEXT
	qsort(out->samples, out->nr_samples, sizeof(char *), str_cmp);
	qsort(out->locs, out->nr_locs, sizeof(char *), str_cmp);
	for (j = 0; j < nr_str; j++)
		free((char *)str[j]);
	free(str);
	free(locs);
	free(funcs);
}

static void pprof_rows__release(struct pprof_rows *r)
{
	size_t i;

	for (i = 0; i < r->nr_samples; i++)
		free(r->samples[i]);
	for (i = 0; i < r->nr_locs; i++)
		free(r->locs[i]);
	free(r->samples);
	free(r->locs);
	free(r->first_mapping);
}

static size_t rows_differ(char **a, size_t na, char **b, size_t nb)
{
	size_t i, d = na > nb ? na - nb : nb - na;

	for (i = 0; i < na && i < nb; i++)
		if (strcmp(a[i], b[i]) && !d++)
			printf("# %s\n# %s\n", a[i], b[i]);
	return d;
}

static void test_pprof(const struct profile *a, const struct profile *b, int run)
{
	struct pprof_opts o = { .run = run, .no_gzip = true };
	struct outbuf ba = { 0 }, bb = { 0 };
	struct errmsg e = { "" };
	struct pprof_rows ra, rb;
	int rca = export__pprof(a, &o, &ba, &e), rcb = export__pprof(b, &o, &bb, &e);

	ok(!rca && !rcb, "pprof --run %d of (a) and (b): %d %d", run, rca, rcb);
	pprof_decode((const uint8_t *)ba.s, ba.len, &ra);
	pprof_decode((const uint8_t *)bb.s, bb.len, &rb);
	ok(ra.nr_samples > 0 && !rows_differ(ra.samples, ra.nr_samples, rb.samples, rb.nr_samples),
	   "pprof --run %d: the same %zu samples (locations, values, labels) whole and elided (%zu)",
	   run, ra.nr_samples, rb.nr_samples);
	ok(!rows_differ(ra.locs, ra.nr_locs, rb.locs, rb.nr_locs),
	   "pprof --run %d: the same %zu locations (address, function) whole and elided (%zu)",
	   run, ra.nr_locs, rb.nr_locs);
	is_str(rb.first_mapping, ra.first_mapping, "pprof: the same main binary (mapping 1)");
	pprof_rows__release(&ra);
	pprof_rows__release(&rb);
	outbuf__release(&ba);
	outbuf__release(&bb);
}

/*
 * A source of K chains D deep that differ in their last four frames
 * (four of 16 functions: K distinct folded lines), or that fails
 * (fail < 0: its error at once), or names a frame the profile lacks
 * (fail 1), or yields chains of no frame (fail 2).
 */
struct gensrc {
	struct chainsrc src;
	const struct frames *fr;
	uint32_t k, d;
	int fail;
	uint32_t *frames;
};

static int gen_each(struct chainsrc *s, chain_fn fn, void *ctx)
{
	struct gensrc *g = (struct gensrc *)s;
	struct chain_cell cell = { .comm = g->fr->comm[0], .samples = 1, .period = 1000 };
	uint32_t i, j;
	int rc;

	if (g->fail < 0)
		return g->fail;
	for (j = 0; j + 4 < g->d; j++)
		g->frames[j] = g->fr->f[2 * (j % 16)];
	for (i = 0; i < g->k; i++) {
		struct chain_rec r = { .frames = g->frames, .nr = g->d, .cells = &cell, .nr_cells = 1,
				       .ordinal = i, .lcp = i ? g->d - 4 : 0 };

		for (j = 0; j < 4; j++)
			g->frames[g->d - 4 + j] = g->fr->f[2 * ((i >> (4 * (3 - j))) & 15)];
		if (g->fail == 1)
			g->frames[g->d - 1] = 1000000;
		if (g->fail == 2)
			r.nr = 0;
		rc = fn(ctx, &r);
		if (rc)
			return rc;
	}
	return 0;
}

static void gen_release(struct chainsrc *s)
{
	struct gensrc *g = (struct gensrc *)s;

	free(g->frames);
	free(g);
}

static struct profile *gen_profile(struct frames *fr, uint32_t k, uint32_t d, int fail)
{
	struct profile *p = skeleton(fr);
	struct gensrc *g = calloc(1, sizeof(*g));
	uint32_t node;

	/* a trie of one elided chain: root -> fn_0 -> [elided] -> fn_1 */
	node = profile__node(p, PROFILE_ROOT, fr->f[0]);
	node = profile__node(p, node, fr->elided);
	node = profile__node(p, node, fr->f[2]);
	profile__add_count(p, 0, 0, fr->comm[0], 0, node, 1, 1000);
	g->fr = fr;
	g->k = k;
	g->d = d;
	g->fail = fail;
	g->frames = calloc(d, sizeof(*g->frames));
	g->src.each = gen_each;
	g->src.release = gen_release;
	g->src.nr_chains = k;
	g->src.nr_frames = (uint64_t)k * d;
	g->src.samples = k;
	p->whole = &g->src;
	return p;
}

/* The budgets count the whole chains' frames, before any byte. */
static void test_budget(void)
{
	struct frames fr;
	/* 32,769 chains of 1,024 frames: 2^25 + 1,024 frames, each distinct */
	struct profile *p = gen_profile(&fr, (uint32_t)(REPORT_MAX_FOLDED_FRAMES / 1024) + 1, 1024, 0);
	struct folded_opts fo = { .event = -1, .run = -1 };
	struct pprof_opts po = { .run = -1, .no_gzip = true };
	struct outbuf b = { 0 };
	struct errmsg e = { "" };

	is_int(report__folded(p, &fo, &b), -E2BIG, "folded: whole chains past 2^25 frames refused");
	ok(!b.len, "folded: nothing written");
	is_int(export__json(p, &b, &e), -E2BIG, "json: whole chains past 2^25 frames refused");
	ok(!b.len && strstr(e.msg, "2^25"), "json: nothing written, said: %s", e.msg);
	e.msg[0] = '\0';
	is_int(export__pprof(p, &po, &b, &e), -E2BIG, "pprof: whole chains past 2^25 frames refused");
	ok(!b.len && strstr(e.msg, "2^25"), "pprof: nothing written, said: %s", e.msg);
	profile__free(p);

	/* half as many: folded and pprof take them */
	p = gen_profile(&fr, 4096, 1024, 0);
	fo.comm = true;
	is_int(report__folded(p, &fo, &b), 0, "folded: 4,096 whole chains of 1,024 frames taken");
	{
		size_t lines = 0, i;

		for (i = 0; i < b.len; i++)
			lines += b.s[i] == '\n';
		is_int(lines, 4096, "folded: one line per distinct chain");
	}
	outbuf__release(&b);
	profile__free(p);
}

static void test_errors(void)
{
	struct frames fr;
	struct folded_opts fo = { .event = -1, .run = -1 };
	struct pprof_opts po = { .run = -1, .no_gzip = true };
	struct outbuf b = { 0 };
	struct errmsg e = { "" };
	struct profile *p = gen_profile(&fr, 10, 8, -EIO);

	is_int(report__folded(p, &fo, &b), -EIO, "folded: the source's error passed up");
	is_int(export__json(p, &b, &e), -EIO, "json: the source's error passed up");
	ok(!b.len && strstr(e.msg, "whole chains"), "json: nothing written, said: %s", e.msg);
	is_int(export__pprof(p, &po, &b, &e), -EIO, "pprof: the source's error passed up");
	ok(!b.len, "pprof: nothing written");
	profile__free(p);

	p = gen_profile(&fr, 10, 8, 1);
	is_int(report__folded(p, &fo, &b), -EPROTO, "folded: a frame not of the profile refused");
	is_int(export__json(p, &b, &e), -EPROTO, "json: a frame not of the profile refused");
	is_int(export__pprof(p, &po, &b, &e), -EPROTO, "pprof: a frame not of the profile refused");
	ok(!b.len, "nothing written");
	profile__free(p);

	p = gen_profile(&fr, 10, 8, 2);
	is_int(report__folded(p, &fo, &b), -EPROTO, "folded: a chain of no frame refused");
	is_int(export__json(p, &b, &e), -EPROTO, "json: a chain of no frame refused");
	is_int(export__pprof(p, &po, &b, &e), -EPROTO, "pprof: a chain of no frame refused");
	ok(!b.len, "nothing written");
	profile__free(p);
}

/*
 * (c): the chains as record leaves them: the first ones in arrival order
 * whole in the trie, the rest taken by profile__take_chains into a small
 * trie (its own pruning, [elided] nodes and p->whole); (d): (c) saved and
 * loaded (format 5's chain_blocks, a file-backed p->whole).  Both write
 * what (a) writes.
 */
static void test_take(const struct tchain *ch, size_t n, const struct profile *a)
{
	struct frames fr;
	struct profile *c = skeleton(&fr), *d = NULL;
	struct arrsrc *src = calloc(1, sizeof(*src));
	struct chaintake_stats st = { 0 };
	char dir[] = "/tmp/test-wholestack.XXXXXX", path[64];
	struct errmsg e = { "" };
	size_t i, first = 0;
	uint32_t k;
	int rc;

	src->chains = calloc(n + 1, sizeof(*src->chains));
	for (i = 0; i < n; i++) {
		const struct tchain *x = &ch[i];

		if (i % 3 == 0 && c->nr_nodes < a->nr_nodes / 4) {	/* arrived while there was room */
			uint32_t node = PROFILE_ROOT;

			for (k = 0; k < x->nr; k++)
				node = profile__node(c, node, x->frames[k]);
			add_cells(c, x, node);
			first++;
			continue;
		}
		src->chains[src->nr++] = x;
		src->src.nr_chains++;
		src->src.nr_frames += x->nr;
		for (k = 0; k < x->nr_cells; k++)
			src->src.samples += x->cells[k].samples;
	}
	src->src.each = arr_each;
	src->src.release = arr_release;
	rc = profile__take_chains(c, &src->src, a->nr_nodes / 2, &st);
	ok(!rc && c->whole && st.elided_chains > 10 && !st.cut_samples,
	   "take_chains: %zu chains whole first, %llu taken into %zu nodes (of %zu), %llu elided "
	   "(T %llu), none cut: %d", first, (unsigned long long)st.chains, c->nr_nodes,
	   a->nr_nodes, (unsigned long long)st.elided_chains, (unsigned long long)st.threshold, rc);
	test_folded(a, c);
	test_json(a, c);
	test_pprof(a, c, -1);
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		profile__free(c);
		return;
	}
	snprintf(path, sizeof(path), "%s/c.data", dir);
	rc = datafile__save(c, path, &e);
	if (!rc)
		rc = datafile__load(path, &d, &e);
	ok(!rc && d && d->whole, "(c) saved and loaded with its whole chains (%s)", e.msg);
	if (!rc && d) {
		test_folded(a, d);
		test_json(a, d);
		test_pprof(a, d, 2);
	}
	unlink(path);
	rmdir(dir);
	profile__free(d);
	profile__free(c);
}

int main(void)
{
	struct tchain *ch = calloc(NR_CHAINS, sizeof(*ch));
	struct profile *a, *b;
	size_t n, i, elided = 0;

	{	/* the frames' ids, the same in both profiles */
		struct frames fr;
		struct profile *p = skeleton(&fr);

		n = make_chains(ch, &fr);
		profile__free(p);
	}
	for (i = 0; i < n; i++)
		elided += ch[i].elided;
	build(ch, n, &a, &b);
	ok(elided > n / 4 && b->nr_nodes < a->nr_nodes + 2 * elided,
	   "%zu distinct chains, %zu of them elided in (b): %zu and %zu trie nodes", n, elided,
	   a->nr_nodes, b->nr_nodes);
	test_folded(a, b);
	test_no_marker(b);
	test_json(a, b);
	test_pprof(a, b, -1);
	test_pprof(a, b, 2);
	test_take(ch, n, a);
	profile__free(a);
	profile__free(b);
	free(ch);
	test_budget();
	test_errors();
	return done_testing();
}
