/*
 * cmd-flamegraph: `mmprof flamegraph [options] FILE` draws an interactive
 * SVG flame graph; `mmprof flamegraph [options] BASE NEW` the differential
 * flame graph of two recordings (flame.h).  Exit: 0, or 2 on any error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cmd.h"
#include "mmprof/cost.h"
#include "mmprof/datafile.h"
#include "mmprof/diffengine.h"
#include "mmprof/flame.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/report.h"
#include "mmprof/xalloc.h"

struct flamegraph_cmd {
	const char *output, *title, *event, *min_width, *width_side, *per;
	int samples, icicle, run, image_width, per_op, paired;
	struct strlist comms, dsos, pid_args;
	uint32_t *pids;
	size_t nr_pids;
	double alpha, min_points, novar_points;
};

static const char *const usage[] = {
	"mmprof flamegraph [options] FILE.data",
	"mmprof flamegraph [options] BASE.data NEW.data   (differential)",
	NULL,
};

/*
 * "0.1" (percent of the total) or "2px" (pixels of the image width) ->
 * percent.  A limit of the whole width or more would merge every frame
 * into the root and draw only "all": refused, as a too-small --image-width is.
 */
static int parse_min_width(const char *s, double image_width, double *pct)
{
	double graph = image_width - 20;	/* the frames' width: 10 px padding a side */
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0)) {
		error("bad --min-width '%s'; use a percentage (0.1) or pixels (2px)", s);
		return -1;
	}
	if (!strcmp(end, "px")) {
		if (v >= graph) {
			error("--min-width %s is the whole graph (%.0f px) or more; "
					"use pixels below %.0fpx", s, graph, graph);
			return -1;
		}
		v = 100 * v / graph;
	} else if (*end && strcmp(end, "%")) {
		error("bad --min-width '%s'; use a percentage (0.1) or pixels (2px)", s);
		return -1;
	} else if (v >= 100) {
		error("--min-width %s is 100%% of the total or more; "
				"use a percentage below 100 (default 0.1)", s);
		return -1;
	}
	*pct = v > 0 ? v : -1;	/* 0 draws everything */
	return 0;
}

/* --pid values: the process ids of the recording (which need not run now). */
static int parse_pid_list(struct flamegraph_cmd *c)
{
	size_t i;

	c->pids = xcalloc(c->pid_args.nr + 1, sizeof(*c->pids));
	for (i = 0; i < c->pid_args.nr; i++) {
		const char *s = c->pid_args.items[i];
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || *end || v < 0 || v > INT32_MAX) {
			error("invalid --pid '%s'; expected a process id", s);
			return -1;
		}
		c->pids[c->nr_pids++] = (uint32_t)v;
	}
	return 0;
}

/* Widths are shares of the samples kept: say so when some were lost. */
static void warn_lost(const struct profile *p, const char *path)
{
	char w[512];

	if (report__lost_warning(p, w, sizeof(w)))
		warning("'%s': %s", path, w);
}

static int single(struct flamegraph_cmd *c, const char *path, struct flame_render_opts *ro)
{
	struct flame_opts fo = { .event = 0, .samples = c->samples, .icicle = c->icicle, .run = c->run,
				 .comms = (const char *const *)c->comms.items, .nr_comms = c->comms.nr,
				 .dsos = (const char *const *)c->dsos.items, .nr_dsos = c->dsos.nr,
				 .pids = c->pids, .nr_pids = c->nr_pids };
	struct profile *p = NULL;
	struct flame f = { 0 };
	struct outbuf b = { 0 };
	struct flame_render_stats st;
	struct errmsg e;
	char sub[1024];
	int ret = EXIT_ERROR;

	if (datafile__load(path, &p, &e)) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	warn_lost(p, path);
	if (c->event) {
		fo.event = report__find_event(p, c->event);
		if (fo.event < 0) {
			error("'%s' has no event '%s'", path, c->event);
			goto out;
		}
	}
	if (flame__build(&f, p, &fo, &e)) {
		error("%s: %s", path, e.msg);
		goto out;
	}
	{
		uint64_t all, unnamed = report__unnamed(p, fo.event, &all);

		/* the one line on unresolved samples: a flame graph counts them */
		snprintf(sub, sizeof(sub), "%s \xc2\xb7 %s \xc2\xb7 %llu samples \xc2\xb7 width: %s%s%s \xc2\xb7 "
			 "unresolved %.2f%% of %llu, counted in as [unknown]",
			 path, p->nr_events ? profile__str(p, p->events[fo.event].name) : "?",
			 (unsigned long long)f.nodes[0].samples,
			 c->samples ? "samples" : "period", c->icicle ? " \xc2\xb7 icicle: callee-rooted (sampled functions at the top)" : "",
			 c->comms.nr || c->dsos.nr || c->nr_pids ? " \xc2\xb7 filtered" : "",
			 all ? 100.0 * (double)unnamed / (double)all : 0.0, (unsigned long long)all);
	}
	ro->subtitle = sub;
	if (!ro->title)
		ro->title = c->icicle ? "Icicle Graph" : "Flame Graph";
	flame__svg(&b, &f, ro, &st);
	if (flame__write_file(&b, c->output, &e)) {
		error("%s", e.msg);
		goto out;
	}
	ret = 0;
out:
	outbuf__release(&b);
	flame__release(&f);
	profile__free(p);
	return ret;
}

/*
 * --per-op: each run's factor over its work (cost.h's choice of the work
 * metric, or --per KEY) into scale[2] (the caller frees them), the unit
 * into unit and what the work is into work_desc.  0, or -1 with the line said.
 */
static int per_op_scale(const struct flamegraph_cmd *c, struct profile *const p[2], const char *const paths[2],
			const char *event, double *scale[2], char *unit, size_t usize, char *work_desc, size_t wsize)
{
	const struct profile *ps[2] = { p[0], p[1] };
	struct cost_profile *cp[2] = { NULL, NULL };
	struct cost_work w;
	struct errmsg e;
	double mult;
	size_t k;
	int ev;

	if (cost_work__choose(ps, (const char *const *)paths, 2, c->per, &w, &e)) {
		error("%s", e.msg);
		return -1;
	}
	if (w.kind == COST_WORK_SECONDS)
		note("%s", w.note);
	for (k = 0; k < 2; k++) {
		cp[k] = cost_profile__new(p[k], NULL, &w);
		cost_profile__drop_view(cp[k]);	/* totals and work only: no chain */
	}
	/* the unit from the base's mean total per unit of work */
	ev = report__find_event(p[0], event);
	flame__cost_unit(p[0], ev >= 0 ? (uint32_t)ev : 0, &w,
			 flame__cost_mean((const struct cost_profile *const *)cp, 1, event), &mult, unit, usize);
	for (k = 0; k < 2; k++)
		scale[k] = flame__work_scale((const struct cost_profile *const *)&cp[k], 1, mult, NULL);
	if (w.kind == COST_WORK_SECONDS)
		snprintf(work_desc, wsize, "no work count: per second of run");
	else
		snprintf(work_desc, wsize, "work: %s%s", w.key, w.kind == COST_WORK_RATE ? " \xc3\x97 wall time" : "");
	for (k = 0; k < 2; k++)
		cost_profile__free(cp[k]);
	return 0;
}

static int differential(struct flamegraph_cmd *c, const char *bpath, const char *npath,
			struct flame_render_opts *ro)
{
	const char *paths[2] = { bpath, npath };
	double *scale[2] = { NULL, NULL };
	const double *sc[2];
	char unit[64] = "", work_desc[320] = "";
	struct profile *p[2] = { NULL, NULL };
	struct flame_diff_opts fo = { .event = c->event, .alpha = c->alpha, .min_points = c->min_points,
				      .novar_points = c->novar_points, .paired = c->paired };
	struct flame f = { 0 };
	struct chain_fns fns = { 0 };
	struct outbuf b = { 0 };
	struct errmsg e;
	char sub[1024];
	int ret = EXIT_ERROR;
	size_t i;

	if (c->width_side && strcmp(c->width_side, "new")) {
		if (strcmp(c->width_side, "base")) {
			error("--width takes 'base' or 'new', not '%s'", c->width_side);
			return EXIT_ERROR;
		}
		fo.width_base = true;
	}
	for (i = 0; i < 2; i++)
		if (datafile__load(i ? npath : bpath, &p[i], &e)) {
			error("%s", e.msg);
			goto out;
		} else {
			warn_lost(p[i], i ? npath : bpath);
		}
	if (c->event) {
		/* accept the robot's spelling too, as a single graph does */
		int ev = report__find_event(p[1], c->event);

		if (ev >= 0)
			fo.event = profile__str(p[1], p[1]->events[ev].name);
	}
	if (c->per_op) {
		const char *event = fo.event ? fo.event : profile__str(p[1], p[1]->events[0].name);

		if (per_op_scale(c, p, paths, event ? event : "", scale, unit, sizeof(unit), work_desc,
				 sizeof(work_desc)))
			goto out;
		sc[0] = scale[0];
		sc[1] = scale[1];
		fo.scale = sc;
		fo.unit = unit;
	}
	if (!c->per_op && p[0]->nr_runs && p[1]->nr_runs) {
		/* a function reached by one path only: its frame takes the table's verdict (mmprof diff's) */
		char *names[2] = { (char *)bpath, (char *)npath };
		struct diff_opts so = { .alpha = c->alpha, .min_points = c->min_points, .pair = c->paired };
		const char *event = fo.event ? fo.event : profile__str(p[1], p[1]->events[0].name);

		if (event && diff_engine__functions(&fns, &p[0], 1, &p[1], 1, names, event, &so, &e) == 0)
			fo.fns = &fns;
	}
	if (flame__build_diff(&f, (const struct profile *const *)&p[0], 1, (const struct profile *const *)&p[1], 1,
			      &fo, &e)) {
		error("%s", e.msg);
		goto out;
	}
	if (c->per_op)
		snprintf(sub, sizeof(sub), "base %s (%zu run%s) \xe2\x86\x92 new %s (%zu run%s) \xc2\xb7 %s, %s (%s)",
			 bpath, p[0]->nr_runs, p[0]->nr_runs == 1 ? "" : "s", npath, p[1]->nr_runs,
			 p[1]->nr_runs == 1 ? "" : "s",
			 fo.event ? fo.event : profile__str(p[1], p[1]->events[0].name), unit, work_desc);
	else
		snprintf(sub, sizeof(sub), "base %s (%zu run%s) \xe2\x86\x92 new %s (%zu run%s) \xc2\xb7 %s, %% of each run's total period",
			 bpath, p[0]->nr_runs, p[0]->nr_runs == 1 ? "" : "s", npath, p[1]->nr_runs,
			 p[1]->nr_runs == 1 ? "" : "s",
			 fo.event ? fo.event : profile__str(p[1], p[1]->events[0].name));
	ro->subtitle = sub;
	flame__svg(&b, &f, ro, NULL);
	if (flame__write_file(&b, c->output, &e)) {
		error("%s", e.msg);
		goto out;
	}
	ret = 0;
out:
	outbuf__release(&b);
	flame__release(&f);
	chain_fns__release(&fns);
	profile__free(p[0]);
	profile__free(p[1]);
	free(scale[0]);
	free(scale[1]);
	return ret;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct flamegraph_cmd c = { .output = "flamegraph.svg", .image_width = 1200, .run = -1 };
	const struct option_desc opts[] = {
		OPT_GROUP("Output"),
		OPT_STRING('o', "output", &c.output, "FILE", "SVG file to write (default flamegraph.svg; - for stdout)"),
		OPT_STRING('t', "title", &c.title, "TEXT", "title of the picture"),
		OPT_INTEGER(0, "image-width", &c.image_width, "PX", "picture width in pixels (default 1200)"),
		OPT_STRING(0, "min-width", &c.min_width, "PCT", "merge frames narrower than PCT % of the total (default 0.1; Npx: pixels; 0: draw all)"),
		OPT_BOOL(0, "icicle", &c.icicle, "callee-rooted icicle: sampled functions on top, callers below"),
		OPT_GROUP("What to draw"),
		OPT_STRING('e', "event", &c.event, "EVENT", "sampling event (default: the first)"),
		OPT_BOOL(0, "samples", &c.samples, "widths by sample counts instead of period"),
		OPT_INTEGER(0, "run", &c.run, "N", "only run N (from 0, as report --run and export --run; default: all runs summed)"),
		OPT_LIST_F(0, "comm", &c.comms, "COMM", "only samples of these commands (repeatable, comma-separated)", OPT_SPLIT),
		OPT_LIST_F(0, "dso", &c.dsos, "DSO", "only stacks with a frame in these DSOs (path or basename)", OPT_SPLIT),
		OPT_LIST_F(0, "pid", &c.pid_args, "PID", "only samples of these processes (repeatable, comma-separated)", OPT_SPLIT),
		OPT_GROUP("Differential graph (BASE NEW)"),
		OPT_STRING(0, "width", &c.width_side, "SIDE", "frame widths from 'new' (default) or 'base'"),
		OPT_BOOL(0, "per-op", &c.per_op, "widths: cost per operation (each run's period over its work), both sides to one scale"),
		OPT_STRING(0, "per", &c.per, "KEY", "the work metric of --per-op (default: the workload's NAME.ops, or NAME.ops_per_sec times the wall time)"),
		OPT_DOUBLE_F(0, "alpha", &c.alpha, "Q", "false discovery rate (default 0.05)", OPT_FRACTION),
		OPT_DOUBLE_F(0, "min-points", &c.min_points, "P", "smallest coloured change, points (default 0.1)", OPT_POINTS),
		OPT_DOUBLE_F(0, "threshold-points", &c.novar_points, "P", "one run on a side: colour changes from P points (default 0.5)", OPT_POINTS),
		OPT_BOOL(0, "paired", &c.paired, "files of one record --interleave: test each frame on its pairs' differences"),
		OPT_END(),
	};
	struct flame_render_opts ro = { 0 };
	char *pos[3] = { NULL, NULL, NULL };
	int np, ret = EXIT_ERROR;
	double pct = 0;

	/* options may also follow the file names ("mmprof flamegraph x.data -o x.svg") */
	np = options__parse_anywhere(argc, argv, opts, usage, pos, 2);
	if (np < 0) {
		ret = np == -2 ? 0 : EXIT_ERROR;
		goto out;
	}
	if (c.image_width < 100 || c.image_width > 1000000) {
		error("--image-width must be 100..1000000 pixels");
		goto out;
	}
	if (c.min_width && parse_min_width(c.min_width, c.image_width, &pct))
		goto out;
	if (c.run < -1) {
		error("--run counts from 0 (the first run is 0)");
		goto out;
	}
	if (parse_pid_list(&c))
		goto out;
	ro.title = c.title;
	ro.width = c.image_width;
	ro.min_width_pct = pct;
	if (np == 1) {
		if (c.width_side || c.per_op || c.per) {
			error("--width, --per-op and --per need two files (BASE NEW)");
			goto out;
		}
		ret = single(&c, pos[0], &ro);
	} else if (np == 2) {
		if (c.icicle || c.run >= 0 || c.comms.nr || c.dsos.nr || c.nr_pids || c.samples) {
			error("--icicle, --run, --comm, --dso, --pid and --samples draw one file; "
					"a differential graph compares every run's share of the period");
			goto out;
		}
		c.per_op |= c.per != NULL;
		ret = differential(&c, pos[0], pos[1], &ro);
	} else {
		error("need FILE.data, or BASE.data NEW.data; see 'mmprof flamegraph --help'");
	}
out:
	strlist__release(&c.comms);
	strlist__release(&c.dsos);
	strlist__release(&c.pid_args);
	free(c.pids);
	return ret;
}
