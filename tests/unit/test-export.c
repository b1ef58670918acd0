/*
 * test-export: the protobuf writer against known encodings (the examples
 * of the protobuf encoding guide), and the pprof writer's uncompressed
 * output on a small synthetic profile decoded field by field here: the
 * string table starts with "", each sample carries 2 values per event and
 * its leaf-first location ids, unresolved frames have no Line; mapping[0]
 * (pprof's main binary) is the recorded command's executable, else the
 * most sampled DSO, and locations keep pointing at their own DSO.
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/export.h"
#include "pbdecode.h"
#include "tap.h"

static void test_pbuf(void)
{
	struct pbuf pb = { 0 };

	pbuf__varint(&pb, 1);
	pbuf__varint(&pb, 150);
	pbuf__varint(&pb, UINT64_MAX);
	ok(pb.len == 1 + 2 + 10 && pb.b[0] == 1 && pb.b[1] == 0x96 && pb.b[2] == 0x01 &&
	   pb.b[12] == 0x01 && pb.b[11] == 0xff, "varints 1, 150, 2^64-1");
	pb.len = 0;
	pbuf__uint(&pb, 1, 150);
	ok(pb.len == 3 && pb.b[0] == 0x08 && pb.b[1] == 0x96 && pb.b[2] == 0x01, "field 1 = 150");
	pb.len = 0;
	pbuf__bytes(&pb, 2, "testing", 7);
	ok(pb.len == 9 && pb.b[0] == 0x12 && pb.b[1] == 7 && !memcmp(pb.b + 2, "testing", 7),
	   "field 2 = \"testing\"");
	pb.len = 0;
	pbuf__packed(&pb, 4, (const uint64_t[]){ 3, 270, 86942 }, 3);
	ok(pb.len == 8 && pb.b[0] == 0x22 && pb.b[1] == 6 && pb.b[2] == 3 && pb.b[3] == 0x8e &&
	   pb.b[4] == 0x02 && pb.b[5] == 0x9e && pb.b[6] == 0xa7 && pb.b[7] == 0x05,
	   "packed 3, 270, 86942");
	pbuf__release(&pb);
}

static void test_pprof(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .freq = 1, .sample = 4000, .type = 1 };
	struct run r = { .wall_ns = 1000 };
	struct frame fk = { .addr = 0xffffffff81000000ull, .kernel = 1 }, fu = { .addr = 0x1000 },
		     fx = { .addr = 0x2000 };
	uint32_t frames[3], node;
	struct pprof_opts o = { .run = -1, .no_gzip = true };
	struct errmsg e = { "" };
	char *buf = NULL;
	size_t len = 0, i = 0, nr_str = 0, nr_samples = 0, nr_locs = 0, nr_funcs = 0, nr_types = 0;
	uint64_t values[2] = { 0, 0 };
	int no_line_locs = 0, pid_labels = 0;
	struct field f;
	FILE *out;
	struct outbuf ob;

	ev.name = profile__intern(p, "cpu-clock");
	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	fk.sym = profile__intern(p, "clear_page");
	fk.dso = profile__intern(p, "[kernel.kallsyms]");
	fu.sym = profile__intern(p, "main");
	fu.dso = profile__intern(p, "/bin/w");
	fx.dso = fu.dso;	/* unresolved */
	frames[0] = profile__frame(p, &fk);
	frames[1] = profile__frame(p, &fx);
	frames[2] = profile__frame(p, &fu);
	node = profile__stack(p, frames, 3);
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 0, node, 3, 750000);
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 0, profile__stack(p, frames + 2, 1),
			   1, 250000);
	/* the same stack and comm in another process: a Sample of its own */
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 77, node, 1, 250000);

	out = open_memstream(&buf, &len);
	outbuf__init_file(&ob, out, false);
	is_int(export__pprof(p, &o, &ob, &e), 0, "pprof export");
	outbuf__release(&ob);
	fclose(out);
	while (next((const uint8_t *)buf, len, &i, &f)) {
		if (f.num == 6) {
			if (!nr_str++)
				is_int(f.v, 0, "string_table[0] is empty");
		} else if (f.num == 1) {
			nr_types++;
		} else if (f.num == 2) {
			size_t j = 0;
			struct field g;

			nr_samples++;
			while (next(f.data, f.v, &j, &g))
				if (g.num == 3) {	/* a Label: num (3) only on pid */
					size_t k = 0;
					struct field h;

					while (next(g.data, g.v, &k, &h))
						pid_labels += h.num == 3 && h.v == 77;
				} else if (g.num == 2) {	/* packed values */
					size_t k = 0;
					uint64_t v;

					rd_varint(g.data, g.v, &k, &v);
					values[0] += v;
					rd_varint(g.data, g.v, &k, &v);
					values[1] += v;
				}
		} else if (f.num == 4) {
			size_t j = 0;
			struct field g;
			int has_line = 0;

			nr_locs++;
			while (next(f.data, f.v, &j, &g))
				has_line |= g.num == 4;
			no_line_locs += !has_line;
		} else if (f.num == 5) {
			nr_funcs++;
		}
	}
	is_int(i, len, "the whole output decodes");
	is_int(nr_types, 2, "two sample types (samples, cpu-clock)");
	is_int(nr_samples, 3, "three samples: a stack in two processes is two");
	is_int(pid_labels, 1, "one sample has the numeric label pid 77");
	is_int(values[0], 5, "samples total");
	is_int(values[1], 1250000, "period total");
	is_int(nr_locs, 3, "three locations");
	is_int(no_line_locs, 1, "the unresolved one has no line");
	is_int(nr_funcs, 2, "two functions");
	ok(nr_str > 5, "a string table");
	free(buf);
	profile__free(p);
}

/*
 * Main binary: the decoded mappings in order, and for every location the
 * filename of its mapping next to its function's name, so that a
 * reordering that forgot the locations' mapping_id shows.
 */
struct decoded {
	const char *str[64];
	size_t nr_str;
	uint64_t map_id[8], map_file[8];
	size_t nr_maps;
	uint64_t loc_map[16], loc_func[16];
	size_t nr_locs;
	uint64_t func_id[16], func_name[16];
	size_t nr_funcs;
	char buf[64][64];
};

static void decode(const char *b, size_t len, struct decoded *d)
{
	size_t i = 0;
	struct field f;

	memset(d, 0, sizeof(*d));
	while (next((const uint8_t *)b, len, &i, &f)) {
		size_t j = 0;
		struct field g;

		if (f.num == 6 && d->nr_str < 64) {
			snprintf(d->buf[d->nr_str], sizeof(d->buf[0]), "%.*s", (int)f.v, (const char *)f.data);
			d->str[d->nr_str] = d->buf[d->nr_str];
			d->nr_str++;
		} else if (f.num == 3 && d->nr_maps < 8) {
			while (next(f.data, f.v, &j, &g))
				if (g.num == 1)
					d->map_id[d->nr_maps] = g.v;
				else if (g.num == 5)
					d->map_file[d->nr_maps] = g.v;
			d->nr_maps++;
		} else if (f.num == 4 && d->nr_locs < 16) {
			while (next(f.data, f.v, &j, &g))
				if (g.num == 2) {
					d->loc_map[d->nr_locs] = g.v;
				} else if (g.num == 4) {
					size_t k = 0;
					struct field h;

					while (next(g.data, g.v, &k, &h))
						if (h.num == 1)
							d->loc_func[d->nr_locs] = h.v;
				}
			d->nr_locs++;
		} else if (f.num == 5 && d->nr_funcs < 16) {
			while (next(f.data, f.v, &j, &g))
				if (g.num == 1)
					d->func_id[d->nr_funcs] = g.v;
				else if (g.num == 2)
					d->func_name[d->nr_funcs] = g.v;
			d->nr_funcs++;
		}
	}
}

static const char *str_of(const struct decoded *d, uint64_t i)
{
	return i < d->nr_str ? d->str[i] : "?";
}

static const char *map_file(const struct decoded *d, uint64_t id)
{
	size_t i;

	for (i = 0; i < d->nr_maps; i++)
		if (d->map_id[i] == id)
			return str_of(d, d->map_file[i]);
	return "?";
}

/* every location's mapping is the DSO its function was given */
static bool locations_consistent(const struct decoded *d)
{
	static const char *const owner[][2] = {
		{ "_dl_start", "/lib/ld.so" }, { "memset", "/lib/libc.so" }, { "main", "/bin/w" },
	};
	size_t i, j, k;

	for (i = 0; i < d->nr_locs; i++)
		for (j = 0; j < d->nr_funcs; j++) {
			if (d->func_id[j] != d->loc_func[i])
				continue;
			for (k = 0; k < 3; k++)
				if (!strcmp(str_of(d, d->func_name[j]), owner[k][0]) &&
				    strcmp(map_file(d, d->loc_map[i]), owner[k][1]))
					return false;
		}
	return d->nr_locs == 3;
}

static const char *first_mapping(const char *cmdline, struct decoded *d)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .freq = 1, .sample = 4000, .type = 1 };
	struct run r = { .wall_ns = 1000 };
	struct frame fl = { .addr = 0x7000 }, fc = { .addr = 0x8000 }, fm = { .addr = 0x1000 };
	uint32_t s1[2], s2[2];
	struct pprof_opts o = { .run = -1, .no_gzip = true };
	struct errmsg e = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	struct outbuf ob;
	int err;

	ev.name = profile__intern(p, "cpu-clock");
	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	if (cmdline)
		profile__set_meta(p, "cmdline", cmdline);
	fl.sym = profile__intern(p, "_dl_start");
	fl.dso = profile__intern(p, "/lib/ld.so");
	fc.sym = profile__intern(p, "memset");
	fc.dso = profile__intern(p, "/lib/libc.so");
	fm.sym = profile__intern(p, "main");
	fm.dso = profile__intern(p, "/bin/w");
	/* leaf first: the loader's stack is met first, libc is sampled most */
	s1[1] = profile__frame(p, &fm);
	s1[0] = profile__frame(p, &fl);
	s2[1] = s1[1];
	s2[0] = profile__frame(p, &fc);
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 1, profile__stack(p, s1, 2), 1, 250000);
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 1, profile__stack(p, s2, 2), 5, 1250000);
	out = open_memstream(&buf, &len);
	outbuf__init_file(&ob, out, false);
	err = export__pprof(p, &o, &ob, &e);
	outbuf__release(&ob);
	fclose(out);
	if (err)
		len = 0;
	decode(buf, len, d);
	free(buf);
	profile__free(p);
	return d->nr_maps ? str_of(d, d->map_file[0]) : "none";
}

static void test_pprof_main_mapping(void)
{
	struct decoded d;

	is_str(first_mapping("mmprof record -o x.data -- /bin/w --fast", &d), "/bin/w",
	       "mapping[0] is the recorded command's executable (by path)");
	is_int(d.map_id[0], 1, "and its id is 1");
	ok(locations_consistent(&d), "every location still points at its own DSO's mapping");
	is_str(first_mapping("mmprof record -- 'w' 3", &d), "/bin/w",
	       "by basename, the command quoted");
	is_str(first_mapping("mmprof record -a --duration 1", &d), "/lib/libc.so",
	       "no command (-a): the DSO with the most samples at the sampled address");
	ok(locations_consistent(&d), "and the locations follow the reordering");
	is_int(d.nr_maps == 3 && d.map_id[1] == 2 && d.map_id[2] == 3, 1, "mapping ids stay 1, 2, 3 in order");
	is_str(first_mapping(NULL, &d), "/lib/libc.so", "no cmdline at all: the same");
}

/*
 * Profile.period (field 12) and the comments (13): the period follows the
 * event (regression: "Period: 0" beside a PeriodType), and a pseudo DSO's
 * install-debuginfo hint ([vdso]) is not a comment.
 */
struct pp_tail {
	uint64_t period;
	int has_period;
	char comments[8][160];
	size_t nr_comments;
};

static void export_tail(const char *event, int freq, uint64_t sample, struct pp_tail *t)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .freq = (uint8_t)freq, .sample = sample, .type = 1 };
	struct run r = { .wall_ns = 1000 };
	struct frame fm = { .addr = 0x1000 };
	struct pprof_opts o = { .run = -1, .no_gzip = true };
	struct errmsg e = { "" };
	const char *strs[128];
	uint64_t cidx[8];
	size_t len = 0, i = 0, nr_str = 0, nc = 0;
	char *buf = NULL;
	struct field f;
	uint32_t node;
	FILE *out;
	struct outbuf ob;

	memset(t, 0, sizeof(*t));
	ev.name = profile__intern(p, event);
	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	fm.sym = profile__intern(p, "main");
	fm.dso = profile__intern(p, "/bin/w");
	node = profile__stack(p, (uint32_t[]){ profile__frame(p, &fm) }, 1);
	/* 4 samples of periods summing to 10: a mean of 2.5 */
	profile__add_count(p, 0, 0, profile__intern(p, "w"), 1, node, 4, 10);
	profile__set_meta(p, "symbols.hint [vdso]", "stripped, only exported symbols (.dynsym): "
			  "install its debuginfo (/usr/lib/debug/.build-id/e0/25.debug)");
	profile__set_meta(p, "symbols.hint /bin/w", "stripped, no symbols: install its debuginfo "
			  "(/usr/lib/debug/.build-id/13/5a.debug)");
	profile__set_meta(p, "symbols.hint [kernel.kallsyms]", "cannot read it: Permission denied");
	out = open_memstream(&buf, &len);
	outbuf__init_file(&ob, out, false);
	ok(export__pprof(p, &o, &ob, &e) == 0, "pprof export of %s %s", event, e.msg);
	outbuf__release(&ob);
	fclose(out);
	while (next((const uint8_t *)buf, len, &i, &f)) {
		if (f.num == 6 && nr_str < 128)	/* f.v bytes, not NUL-ended */
			strs[nr_str++] = strndup((const char *)f.data, f.v);
		if (f.num == 12) {
			t->period = f.v;
			t->has_period = 1;
		}
		if (f.num == 13 && nc < 8)
			cidx[nc++] = f.v;
	}
	for (i = 0; i < nc; i++)
		snprintf(t->comments[t->nr_comments++], sizeof(t->comments[0]), "%s",
			 cidx[i] < nr_str ? strs[cidx[i]] : "?");
	for (i = 0; i < nr_str; i++)
		free((char *)strs[i]);
	free(buf);
	profile__free(p);
}

static bool has_comment(const struct pp_tail *t, const char *prefix)
{
	size_t i;

	for (i = 0; i < t->nr_comments; i++)
		if (!strncmp(t->comments[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static void test_pprof_period_comments(void)
{
	struct pp_tail t;

	export_tail("cpu-clock", 1, 4000, &t);
	ok(t.has_period && t.period == 250000, "cpu-clock at 4000 Hz: period 250000 ns (%llu)",
	   (unsigned long long)t.period);
	ok(!has_comment(&t, "symbols.hint [vdso]="), "no install-debuginfo hint for [vdso]");
	ok(has_comment(&t, "symbols.hint /bin/w=stripped"), "a real DSO's hint stays");
	ok(has_comment(&t, "symbols.hint [kernel.kallsyms]=cannot read"),
	   "a pseudo DSO's hint that is not about debuginfo stays");
	export_tail("task-clock", 1, 997, &t);
	is_int(t.period, 1003009, "task-clock at 997 Hz: 1e9/997 rounded");
	export_tail("cpu-clock", 0, 100000, &t);
	is_int(t.period, 100000, "a period event: its period");
	export_tail("page-faults", 1, 1000, &t);
	is_int(t.period, 3, "a counting event at a frequency: the mean period of its samples");
	export_tail("page-faults", 0, 0, &t);
	ok(!t.has_period, "no period known: field left unset");
}

/* The unit of each event's period, as pprof and the JSON export name it. */
static void test_period_unit(void)
{
	is_str(export__period_unit("cpu-clock"), "nanoseconds", "cpu-clock: nanoseconds");
	is_str(export__period_unit("task-clock:u"), "nanoseconds", "task-clock:u: nanoseconds");
	is_str(export__period_unit("offcpu"), "nanoseconds", "offcpu (--sched): nanoseconds off CPU");
	is_str(export__period_unit("cycles"), "count", "cycles: a count");
	is_str(export__period_unit(NULL), "count", "no name: a count");
}

int main(void)
{
	test_period_unit();
	test_pbuf();
	test_pprof();
	test_pprof_main_mapping();
	test_pprof_period_comments();
	return done_testing();
}
