/*
 * test-diffengine: the diff engine (diffengine.h) as a command other than
 * diff calls it: sides opened in memory (no file), one diff_engine__run,
 * the rows and verdicts read from the result, the documents written; its
 * messages come through say, none printed: the sampling events that differ
 * (an error, or --force's alert), a file that cannot be loaded, a side
 * whose workload failed in every run.
 */
#include <string.h>

#include "tap.h"
#include "mmprof/diffengine.h"
#include "mmprof/xalloc.h"

struct said {
	int nr[DIFF_SAY_NOTE + 1];
	char last[1024];
};

static void say(void *arg, enum diff_say kind, const char *line)
{
	struct said *s = arg;

	s->nr[kind]++;
	snprintf(s->last, sizeof(s->last), "%s", line);
}

static uint32_t frame(struct profile *p, const char *sym)
{
	struct frame f = { .addr = 0x10, .sym = profile__intern(p, sym),
			   .dso = profile__intern(p, "/bin/w") };

	return profile__frame(p, &f);
}

/*
 * nr runs of one event (cpu-clock, or page-faults), main -> hot and
 * main -> other, hot at about hot_pct % of each run's 2000 samples (a
 * few points of spread between runs); exit status exit_code in every run.
 */
static struct profile *runs(size_t nr, double hot_pct, const char *event, int exit_code)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, event), .type = 1 /* software */,
				 .config = strcmp(event, "cpu-clock") ? 2 : 0 };
	struct run r = { .wall_ns = 1000000000, .exit_code = exit_code };
	uint32_t comm = profile__intern(p, "w"), m = frame(p, "main");
	uint32_t hot = profile__node(p, profile__node(p, PROFILE_ROOT, m), frame(p, "hot"));
	uint32_t other = profile__node(p, profile__node(p, PROFILE_ROOT, m), frame(p, "other"));
	size_t i;

	profile__add_event(p, &ev);
	for (i = 0; i < nr; i++) {
		uint64_t h = (uint64_t)(20 * (hot_pct + (double)(i % 3) - 1));

		profile__add_run(p, &r);
		profile__add_count(p, (uint32_t)i, 0, comm, 1, hot, h, h * 1000);
		profile__add_count(p, (uint32_t)i, 0, comm, 1, other, 2000 - h, (2000 - h) * 1000);
		profile__add_metric(p, (uint32_t)i, "w.ops", 100);
	}
	return p;
}

/* Two sides of one file each, opened here: base and new. */
static void sides(struct diff_side s[2], char **paths, struct profile *a, struct profile *b)
{
	memset(s, 0, 2 * sizeof(*s));
	s[0] = (struct diff_side){ .name = "base", .paths = paths, .nr = 1 };
	s[1] = (struct diff_side){ .name = "new", .paths = paths + 1, .nr = 1 };
	s[0].profiles = xcalloc(1, sizeof(*s[0].profiles));
	s[1].profiles = xcalloc(1, sizeof(*s[1].profiles));
	s[0].profiles[0] = a;
	s[1].profiles[0] = b;
}

static void test_opened(void)
{
	char *paths[] = { "a.data", "b.data" };
	struct said said = { .last = "" };
	struct diff_engine_opts o = { .callchains = true, .say = say, .say_arg = &said };
	struct diff_side s[2];
	struct diff_result r;
	const struct diff_row *hot;
	struct outbuf out = { 0 };

	sides(s, paths, runs(4, 60, "cpu-clock", 0), runs(4, 20, "cpu-clock", 0));
	is_int(diff_engine__run(&o, s, 2, &r), 0, "opened sides: compared");
	is_int(said.nr[DIFF_SAY_ERROR] + said.nr[DIFF_SAY_FILE], 0, "opened sides: nothing said wrong");
	is_int(r.nd, 1, "one compared column");
	hot = diff__find(&r.d[0], "perf-profile.children.cpu-clock.hot");
	ok(hot && hot->verdict == DIFF_DOWN, "hot fell from 60 to 20 %%: DOWN (%s)",
	   hot ? diff_row__verdict_name(hot) : "no row");
	ok(r.n >= 1, "rows selected (%zu)", r.n);
	ok(r.d[0].cost != NULL, "costs per op compared (w.ops)");
	diff_report__write(&out, &r, DIFF_FORMAT_LKP);
	ok(out.s && strstr(out.s, "perf-profile.children.cpu-clock.hot"), "the table has the row");
	ok(out.s && strstr(out.s, "a.data"), "the header names the side by its path");
	ok(out.s && strstr(out.s, "main -> hot"), "-g: the call chain after the table");
	ok(r.rows_gone, "-g without keep_rows: the keys freed before the chains");
	outbuf__release(&out);
	diff_result__release(&r);
}

static void test_said(void)
{
	char *paths[] = { "a.data", "b.data" }, *missing[] = { "/nonexistent/x.data", "b.data" };
	struct said said = { .last = "" };
	struct diff_engine_opts o = { .say = say, .say_arg = &said };
	struct diff_side s[2];
	struct diff_result r;
	struct outbuf out = { 0 };

	sides(s, paths, runs(3, 50, "cpu-clock", 0), runs(3, 50, "page-faults", 0));
	ok(diff_engine__run(&o, s, 2, &r) < 0, "different sampling events: not compared");
	is_int(said.nr[DIFF_SAY_ERROR], 1, "one error said");
	ok(strstr(said.last, "DIFFERENT SAMPLING EVENTS"), "naming the events: %s", said.last);
	diff_result__release(&r);

	memset(&said, 0, sizeof(said));
	o.force = true;
	sides(s, paths, runs(3, 50, "cpu-clock", 0), runs(3, 50, "page-faults", 0));
	is_int(diff_engine__run(&o, s, 2, &r), 0, "--force: compared");
	is_int(said.nr[DIFF_SAY_ALERT], 1, "--force: the alert said");
	ok(r.forced[0], "column 0 forced");
	ok(diff__find(&r.d[0], "perf-profile.children.cpu-clock.hot") &&
	   !diff__find(&r.d[0], "perf-profile.children.page-faults.hot"),
	   "--force: the new side's rows read as the base's event");
	diff_report__write(&out, &r, DIFF_FORMAT_JSON);
	ok(out.s && out.s[0] == '{' && out.s[out.len - 2] == '}', "JSON: one object");
	outbuf__release(&out);
	diff_result__release(&r);

	memset(&said, 0, sizeof(said));
	o.force = false;
	sides(s, paths, runs(3, 50, "cpu-clock", 0), runs(3, 50, "cpu-clock", 3));
	ok(diff_engine__run(&o, s, 2, &r) < 0, "failed in every run: not compared");
	ok(said.nr[DIFF_SAY_ERROR] == 1 && strstr(said.last, "new: the workload failed in every run"),
	   "said: %s", said.last);
	diff_result__release(&r);

	memset(&said, 0, sizeof(said));
	sides(s, paths, runs(3, 50, "cpu-clock", 0), NULL);
	ok(diff_engine__run(&o, s, 1, &r) < 0, "a base alone: not compared");
	ok(said.nr[DIFF_SAY_ERROR] == 1 && strstr(said.last, "1 sides: a base and 1 to"), "said: %s",
	   said.last);
	diff_result__release(&r);
	diff_side__release(&s[1]);	/* not given to the engine */

	memset(&said, 0, sizeof(said));
	sides(s, missing, NULL, runs(3, 50, "cpu-clock", 0));
	ok(diff_engine__run(&o, s, 2, &r) < 0, "a file that cannot be loaded: not compared");
	ok(said.nr[DIFF_SAY_FILE] == 1 && strstr(said.last, "/nonexistent/x.data"),
	   "said, naming it: %s", said.last);
	diff_result__release(&r);
}

int main(void)
{
	test_opened();
	test_said();
	return done_testing();
}
