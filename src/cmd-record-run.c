/*
 * cmd-record-run: one side of `mmprof record` (cmd-record.c parses and
 * checks the options and loops over the runs): its events expanded, its
 * symbols loaded, its session started, each run with its progress line and
 * notes, and the file saved with its summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mmprof/chaintake.h"
#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/evspec.h"
#include "mmprof/message.h"
#include "mmprof/mmstate.h"
#include "mmprof/outbuf.h"
#include "mmprof/outfile.h"
#include "mmprof/profile.h"
#include "mmprof/recsession.h"
#include "mmprof/sampler.h"
#include "mmprof/stopsig.h"
#include "mmprof/symbols.h"
#include "mmprof/sysinfo.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#include "cmd-record-int.h"

#define PROGRESS_NS		(250 * 1000000LL)

/* The event list being built by expand_events: names, and which came from a glob. */
struct event_set {
	struct strlist names, keys;	/* keys: the display names (event_key) */
	bool *from_glob;
	size_t alloc_glob;
	bool adding_glob;
};

/* The display name two specs would share in the profile (the spec itself if unparsable). */
static void event_key(const char *spec, char *key, size_t size)
{
	struct evspec ev;

	if (evspec__parse(spec, &ev, NULL) == 0)
		snprintf(key, size, "%s", ev.name);
	else
		snprintf(key, size, "%s", spec);
}

/*
 * Add spec unless its event is there already: a glob's match that repeats
 * an event is dropped (globs overlap by nature), but an event written twice
 * would be two events under one name in the file (its counts merged under
 * one key): refused.
 */
static int event_set__add(void *ctx, const char *spec)
{
	struct event_set *set = ctx;
	char key[128];
	size_t i;

	event_key(spec, key, sizeof(key));
	for (i = 0; i < set->names.nr; i++) {
		if (strcmp(key, set->keys.items[i]))
			continue;
		if (set->adding_glob || set->from_glob[i])
			return 0;
		error("event '%s' is given twice (-e %s and -e %s); "
			"give each event once", key, set->names.items[i], spec);
		return -EEXIST;
	}
	strlist__add(&set->names, spec);
	strlist__add(&set->keys, key);
	XGROW(set->from_glob, set->alloc_glob, set->names.nr - 1);
	set->from_glob[set->names.nr - 1] = set->adding_glob;
	return 0;
}

/*
 * -e after parsing: tracepoint globs (huge_memory:*) expanded against
 * tracefs, as perf expands them, and duplicate events refused.  0 or -1
 * (message printed).
 */
static int expand_events(struct strlist *events)
{
	struct event_set set = { { NULL, 0, 0 }, { NULL, 0, 0 }, NULL, 0, false };
	struct errmsg e = { "" };
	size_t i;
	int err = 0;

	for (i = 0; i < events->nr && !err; i++) {
		set.adding_glob = evspec__is_glob(events->items[i]);
		if (!set.adding_glob) {
			err = event_set__add(&set, events->items[i]);
			continue;
		}
		err = evspec__glob(events->items[i], event_set__add, &set, &e);
		if (err == -EEXIST)
			break;
		if (err < 0) {
			error("%s", e.msg);
			break;
		}
		err = 0;
	}
	free(set.from_glob);
	strlist__release(&set.keys);
	if (err) {
		strlist__release(&set.names);
		return -1;
	}
	strlist__release(events);
	*events = set.names;
	return 0;
}

/*
 * --mm: the memory-management tracepoints this kernel has (sampled every
 * hit, so their per-run counts are exact and their callchains kept).
 * Without -e the profile event is cpu-clock (an explicit event list has no
 * cycles fallback).  The preset's names that this kernel lacks (an older
 * kernel, a config without THP or compaction) go into missing, comma
 * separated, for one note and the file's meta.
 */
static int add_mm_events(struct strlist *events, char *missing, size_t size)
{
	static const char *const mm[] = {
		"kmem:mm_page_alloc", "kmem:mm_page_free", "exceptions:page_fault_user",
		"huge_memory:mm_collapse_huge_page", "huge_memory:mm_khugepaged_scan_pmd",
		"thp:set_migration_pmd", "thp:remove_migration_pmd",
		"compaction:mm_compaction_begin", "compaction:mm_compaction_end",
		"migrate:mm_migrate_pages", "vmscan:mm_vmscan_direct_reclaim_begin",
		"mmap_lock:mmap_lock_start_locking", "mmap_lock:mmap_lock_acquire_returned",
	};
	struct errmsg e = { "" };
	const char *dir = evspec__tracefs(&e);
	char path[512];
	size_t i, n = 0;

	missing[0] = '\0';
	/* an unreadable tracefs is not a kernel without these tracepoints */
	if (!dir) {
		error("--mm: %s", e.msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	if (access(path, R_OK | X_OK) < 0) {
		error("--mm: cannot read '%s': %s; run as root", path,
			strerror(errno));
		return -1;
	}
	if (!events->nr)
		strlist__add(events, "cpu-clock");
	for (i = 0; i < sizeof(mm) / sizeof(mm[0]); i++) {
		/* sized by the name: a fixed buffer once cut the longer ones off */
		const char *colon = strchr(mm[i], ':');
		char *sys = xstrndup(mm[i], (size_t)(colon - mm[i]));
		size_t k;
		bool dup = false;

		for (k = 0; k < events->nr; k++)
			dup |= !strcmp(events->items[k], mm[i]);
		if (trace__exists(sys, colon + 1)) {
			if (!dup)
				strlist__add(events, mm[i]);
		} else if (n < size) {
			n += (size_t)snprintf(missing + n, size - n, "%s%s", n ? "," : "", mm[i]);
		}
		free(sys);
	}
	return 0;
}

/* A -p recording without a sample: say why, and what would follow the work (even with -q). */
static void warn_no_samples(const struct record *rec)
{
	if (rec->target.mode != TARGET_PID || recsession__totals(rec->sess)->samples)
		return;
	if (rec->nr_unfollowed)
		warning("no samples: the attached process%s did not run on a CPU "
			"while attached, and %zu child process%s (pid %d%s) already ran when it began: "
			"the work is probably theirs; record -p %s --children attaches to them too "
			"(children started after the attach are followed anyway)",
			rec->nr_pids > 1 ? "es" : "", rec->nr_unfollowed,
			rec->nr_unfollowed > 1 ? "es" : "", (int)rec->unfollowed,
			rec->nr_unfollowed > 1 ? " among them" : "", rec->o->pid_list);
	else
		warning("no samples: the attached process%s did not run on a "
			"CPU while attached (asleep, or another process does its work)",
			rec->nr_pids > 1 ? "es" : "");
}

/*
 * Fail before a long run, not after it, when the file cannot be written:
 * its folder is not writable, or the name is taken by something that is
 * not a regular file (a symlink, a folder), which datafile__save refuses
 * to replace.  Save checks again (the name may change meanwhile).
 */
/* The folder of path into dir (size bytes): "." for a bare name. */
static void output_dir(const char *path, char *dir, size_t size)
{
	char *slash;

	snprintf(dir, size, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
}

static int check_output_dir(const char *path)
{
	char *dir = xstrdup(path);
	struct errmsg e;
	int ret = 0;

	if (outfile__check_target(path, &e) < 0) {
		error("%s", e.msg);
		free(dir);
		return -1;
	}
	output_dir(path, dir, strlen(dir) + 1);
	if (access(dir, W_OK | X_OK) < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		ret = -1;
	}
	free(dir);
	return ret;
}

void recordcmd__progress_clear(struct record *rec)
{
	if (rec->progress_shown) {
		fputs("\r\033[K", stderr);
		rec->progress_shown = false;
	}
}

/* runloop's on_progress: one line, rewritten in place */
static void progress_show(void *ctx, uint32_t run, int64_t elapsed_ns)
{
	struct record *rec = ctx;
	uint64_t samples = 0, lost = 0;

	recsession__progress(rec->sess, &samples, &lost);
	fprintf(stderr, "\r\033[Kmmprof: recording run %u/%d  %.1f s  %llu samples  %llu lost",
		run + 1, rec->o->repeat, (double)elapsed_ns / 1e9,
		(unsigned long long)samples, (unsigned long long)lost);
	rec->progress_shown = true;
}

/* runloop's on_output: the workload's output would be written over the progress line */
static void progress_clear_hook(void *ctx)
{
	recordcmd__progress_clear(ctx);
}

/* runloop's on_start: the sampler's notes, after the exec check (a missing binary gets one line) */
static void print_notes(void *ctx, uint32_t run, int64_t start_real_ns)
{
	struct record *rec = ctx;
	const struct sampler *s = recsession__sampler(rec->sess);
	bool first = run == 0 && !rec->second;

	if (first && !rec->o->quiet && sampler__note(s))
		inform("%s", sampler__note(s));
	/* user space only: that one warning covers the kernel's missing names too */
	if (first && sampler__user_note(s))
		warning("%s", sampler__user_note(s));
	else if (first && rec->kernel_warning[0])
		warning("%s; kernel frames stay unresolved",
			rec->kernel_warning);
	/* a warning, so even with -q: the file's frequency is not the one asked */
	if (sampler__freq_note(s))
		warning("%s", sampler__freq_note(s));
}

/*
 * One run, and its lines: the workload's status, or the error.  0, or
 * -errno after printing one line (the record then writes nothing).
 */
int recordcmd__run(struct record *rec, uint32_t run)
{
	struct runloop_result res;
	struct errmsg e = { "" };
	char what[64], of[PATH_MAX + 8] = "";
	int err = recsession__run(rec->sess, run, &res, &e);

	recordcmd__progress_clear(rec);
	/* --interleave: two files have a run of each number */
	if (rec->other)
		snprintf(of, sizeof(of), " of '%s'", rec->o->output);
	if (err) {
		error("%s", e.msg[0] ? e.msg : strerror(-err));
		return err;
	}
	if (res.run.term_signal)
		error("workload killed by SIG%s in run %u%s",
			sigabbrev_np(res.run.term_signal) ? sigabbrev_np(res.run.term_signal) : "?",
			run, of);
	else if (rec->target.command && res.run.exit_code)
		error("workload exited with status %d in run %u%s",
			res.run.exit_code, run, of);
	/* the summary's sample count would not say why the profile stops (even with -q) */
	if (sampler__exec_note(recsession__sampler(rec->sess)))
		warning("run %u%s: %s", run, of,
			sampler__exec_note(recsession__sampler(rec->sess)));
	/* no work count: say so, the cost per op of this run will be unknown */
	if (res.ops_over_budget)
		warning("run %u%s: --ops-pattern took more than %.0f s of CPU "
			"on the command's output (a pattern that backtracks?); the rest was not "
			"matched: no %s stored", run, of, BENCHOUT_OPS_CPU, rec->bench.ops_key);
	else if (rec->bench.has_ops && !res.ops_matches)
		warning("run %u%s: no output line matched --ops-pattern: "
			"no %s stored", run, of, rec->bench.ops_key);
	/* the run a stop signal cut short ended as the user asked: not a failure */
	if (run__status(&res.run, what, sizeof(what)) && !stopsig_count &&
	    !rec->nr_failed++)
		snprintf(rec->failed_status, sizeof(rec->failed_status), "run %u: %s", run,
			 what);
	return 0;
}

static void join_events(const struct strlist *asked, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < asked->nr && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", asked->items[i]);
}

static void add_record_meta(struct record *rec, int argc, char **argv)
{
	struct record_opts *o = rec->o;
	char buf[1024];
	char **full = xcalloc((size_t)argc + 2, sizeof(*full));
	int i;

	/* argv[0] is "record": store the command line as typed */
	full[0] = (char *)"mmprof";
	for (i = 0; i < argc; i++)
		full[i + 1] = argv[i];
	sysinfo__add_cmdline(rec->p, argc + 1, full);
	free(full);

	profile__set_meta(rec->p, "record_mode", target__mode_name(rec->target.mode));
	if (o->events.nr) {
		join_events(&o->events, buf, sizeof(buf));
		profile__set_meta(rec->p, "events_asked", buf);
	} else {
		profile__set_meta(rec->p, "events_asked", "default");
	}
	if (rec->period) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rec->period);
		profile__set_meta(rec->p, "sample_period", buf);
	} else {
		snprintf(buf, sizeof(buf), "%d", o->freq);
		profile__set_meta(rec->p, "sample_freq", buf);
	}
	snprintf(buf, sizeof(buf), "%d", o->interval_ms);
	profile__set_meta(rec->p, "interval_ms", buf);
	if (o->delay > 0) {
		snprintf(buf, sizeof(buf), "%g", o->delay);
		profile__set_meta(rec->p, "delay", buf);
	}
	if (o->duration > 0) {
		snprintf(buf, sizeof(buf), "%g", o->duration);
		profile__set_meta(rec->p, "duration", buf);
	}
	profile__set_meta(rec->p, "callchain", o->callchain ? "1" : "0");
	if (o->callchain && o->call_graph == CALL_GRAPH_DWARF) {
		char cg[32];

		snprintf(cg, sizeof(cg), "dwarf,%u", o->stack_size);
		profile__set_meta(rec->p, "call_graph", cg);
	}
	if (o->callchain && o->call_graph == CALL_GRAPH_LBR)
		profile__set_meta(rec->p, "call_graph", "lbr");
	if (rec->target.mode == TARGET_PID)
		profile__set_meta(rec->p, "target", o->pid_list);
	else if (rec->target.mode == TARGET_SYSTEM)
		profile__set_meta(rec->p, "target", o->cpu_list ? o->cpu_list : "all");
}

/*
 * Sampled JIT code whose perf map was not there at the end though its
 * process was started with the option that writes one (a JVM under -p
 * with -XX:+DumpPerfMapAtExit writes it when it exits, after us): say
 * how to name those frames later, even with -q.
 */
static void say_perfmaps_missing(const struct symbols *syms, const char *path)
{
	/* a path from a profiled program, and ours: through the text rule */
	struct outbuf scratch = { 0 }, word[2] = { { 0 }, { 0 } };
	size_t i, nr = symbols__nr_dsos(syms);
	int pid;

	for (i = 0; i < nr; i++) {
		struct dso_info di;

		symbols__dso(syms, i, &di);
		/*
		 * Only a JIT asked to write one: a map nobody asked for (a
		 * browser's JIT under -a) has report --unresolved's hint.
		 */
		if (!di.perfmap || !di.loaded || di.err != -ENOENT || !di.jit_flag)
			continue;
		if (di.jit_flag && !strcmp(di.jit_flag, "-XX:+DumpPerfMapAtExit") &&
		    sscanf(di.name, "/tmp/perf-%d.map", &pid) == 1)
			/* JDK 17+ writes the map on demand too */
			warning("JIT code unnamed: %s is not written yet "
				"(its JVM runs with -XX:+DumpPerfMapAtExit, which writes it when the "
				"JVM exits, and record waits %g s for one quitting as the recording "
				"ends; 'jcmd %d Compiler.perfmap' writes it now); once it is, name "
				"those frames with: mmprof resolve %s",
				outbuf__text_safe(&scratch, di.name), SAMPLER_PERFMAP_WAIT_MS / 1000.0,
				pid, outbuf__shell_word(word, path));
		else
			warning("JIT code unnamed: %s is not written yet "
				"(its process runs with %s, which writes it); once it is, name "
				"those frames with: mmprof resolve %s",
				outbuf__text_safe(&scratch, di.name), di.jit_flag,
				outbuf__shell_word(word, path));
		break;	/* one line: the others say the same */
	}
	outbuf__release(&scratch);
	outbuf__release(&word[0]);
	outbuf__release(&word[1]);
}

static void print_summary(struct record *rec, uint32_t nr_runs, bool interrupted)
{
	const struct recsession_totals *t = recsession__totals(rec->sess);
	const char *path = rec->o->output;
	struct stat sb;
	double size = 0, all;
	const char *unit = "B";

	if (!stat(path, &sb))
		size = (double)sb.st_size;
	if (size >= 1024 * 1024) {
		size /= 1024 * 1024;
		unit = "MiB";
	} else if (size >= 1024) {
		size /= 1024;
		unit = "KiB";
	}
	if (!rec->o->quiet || interrupted)
		inform("%s%u run%s, %llu samples, %llu lost, %llu throttled; "
			"wrote '%s' (%.*f %s)",
			interrupted ? "interrupted: " : "", nr_runs, nr_runs == 1 ? "" : "s",
			(unsigned long long)t->samples,
			(unsigned long long)t->lost,
			(unsigned long long)t->throttled,
			path, *unit == 'B' ? 0 : 1, size, unit);
	/* an empty file is not what --delay asked for: say why, even with -q */
	if (t->runs_before_delay == nr_runs)
		warning("the workload ended within --delay %g s%s: no "
			"sampling window, no samples; lower --delay", rec->o->delay,
			nr_runs > 1 ? " in every run" : "");
	else if (t->runs_before_delay)
		warning("the workload ended within --delay %g s in %u of %u "
			"runs: no samples from those runs; lower --delay", rec->o->delay,
			t->runs_before_delay, nr_runs);
	/* never silent about loss, even with -q */
	all = (double)(t->samples + t->lost);
	if (t->lost)
		warning("%llu samples lost (%.1f%%); try -m %d or a lower -F",
			(unsigned long long)t->lost, 100.0 * (double)t->lost / all,
			rec->o->mmap_pages ? rec->o->mmap_pages * 4 : 1024);
	if (t->throttled)
		warning("the kernel throttled sampling %llu times; "
			"lower -F or raise kernel.perf_event_max_sample_rate",
			(unsigned long long)t->throttled);
	if (t->stacks_cut)
		warning("%llu samples (%.1f%%) kept only their innermost frame: "
			"their call chains were new when the trie of distinct chains was full (%zu "
			"nodes, what record keeps and every reader takes; meta stacks_cut_to_leaf); "
			"record fewer seconds or a lower -F",
			(unsigned long long)t->stacks_cut,
			t->samples ? 100.0 * (double)t->stacks_cut / (double)t->samples : 0.0,
			rec->stack_nodes);
	say_perfmaps_missing(rec->syms, path);
}

/*
 * What mmprof resolve --vmlinux needs to take a vmlinux found later: the
 * running kernel's build-id (to refuse another kernel's) and where
 * kallsyms put _text (KASLR's slide, perf's ref_reloc_sym).  Neither when
 * unknown: resolve then says it cannot check or place one.
 */
static void store_kernel_identity(struct record *rec)
{
	struct kernel_ref ref;
	char buf[80];

	if (!symbols__read_build_id_notes("/sys/kernel/notes", buf, sizeof(buf)))
		profile__set_meta(rec->p, "kernel_build_id", buf);
	if (!symbols__kernel_ref(rec->syms, &ref)) {
		snprintf(buf, sizeof(buf), "%s %#" PRIx64, ref.name, ref.addr);
		profile__set_meta(rec->p, "kernel_ref_reloc_sym", buf);
	}
}

/*
 * The kernel's symbols, and with --vmlinux or --inline its DWARF for
 * inline chains.  -1 after printing when --vmlinux cannot be used at all.
 */
static int load_symbols(struct record *rec, struct errmsg *e)
{
	struct record_opts *o = rec->o;
	int err;

	rec->syms = symbols__new();
	symbols__set_inline(rec->syms, o->inline_frames);
	err = symbols__load_kernel(rec->syms, e);
	if (err && !o->quiet)
		snprintf(rec->kernel_warning, sizeof(rec->kernel_warning), "%s", e->msg);
	store_kernel_identity(rec);
	/* BPF programs already loaded, at full length (root; else kallsyms' first page) */
	if (!err) {
		struct errmsg none = { "" };

		symbols__load_bpf_progs(rec->syms);
		/* module ranges, for addresses past a module's symbols; none without modules */
		symbols__load_modules(rec->syms, "/proc/modules", &none);
	}
	if (!o->vmlinux && !o->inline_frames)
		return 0;
	/*
	 * Kernel inline chains: --vmlinux asks for them; --inline looks for
	 * the running kernel's vmlinux and is silent when none is installed
	 * (the common case).
	 */
	e->msg[0] = '\0';
	err = symbols__load_vmlinux(rec->syms, o->vmlinux, e);
	if (o->vmlinux && err && err != -ESTALE && err != -ENOEXEC && err != -ENODATA) {
		error("--vmlinux '%s': %s", o->vmlinux, e->msg);
		return -1;
	}
	if (o->vmlinux && err)
		warning("--vmlinux %s: %s; kernel inline frames off",
			o->vmlinux, e->msg);
	if (!err)
		profile__set_meta(rec->p, "symbols.vmlinux", symbols__vmlinux(rec->syms));
	return 0;
}

/* -e expanded, --mm's tracepoints added, --field checked.  -1 after printing. */
static int prepare_events(struct record *rec)
{
	struct record_opts *o = rec->o;
	char missing[1024];

	if (expand_events(&o->events) < 0)
		return -1;
	if (o->mm) {
		if (add_mm_events(&o->events, missing, sizeof(missing)) < 0)
			return -1;
		if (missing[0]) {
			/* not an error: the preset takes what this kernel has */
			if (!o->quiet)
				error("--mm: this kernel has no %s; recording "
					"the other memory-management tracepoints", missing);
			profile__set_meta(rec->p, "mm_events_missing", missing);
		}
	}
	if (!o->events.nr && o->fields.nr) {
		error("--field needs its tracepoint in -e");
		return -1;
	}
	/* before the workload runs, not at the save after it */
	if (o->events.nr + (o->sched ? 1 : 0) > DATAFILE_MAX_EVENTS) {
		error("%zu sampling events%s, more than a file holds (%u); "
			"ask for fewer (a narrower glob)", o->events.nr + (o->sched ? 1 : 0),
			o->sched ? " with --sched's" : "", DATAFILE_MAX_EVENTS);
		return -1;
	}
	return 0;
}

/* The recording session of the options (nothing opened yet).  -1 after printing. */
static int start_session(struct record *rec, struct errmsg *e)
{
	struct record_opts *o = rec->o;
	struct recsession_opts so;
	struct sampler_opts *sp = &so.sampling;
	struct runloop_opts *lo = &so.loop;

	memset(&so, 0, sizeof(so));
	sp->events = o->events.nr ? &o->events : NULL;
	sp->freq = rec->period ? 0 : o->freq;
	sp->period = rec->period;
	sp->strict_freq = o->strict_freq;
	sp->mmap_pages = o->mmap_pages;
	sp->no_callchain = !o->callchain;
	sp->call_graph = o->call_graph;
	sp->stack_size = o->stack_size;
	sp->stack_budget = rec->stack_budget;
	sp->max_nodes = rec->stack_nodes;
	output_dir(rec->o->output, rec->spill_dir, sizeof(rec->spill_dir));
	sp->spill_dir = rec->spill_dir;
	sp->runs = (uint32_t)(o->budget > o->repeat ? o->budget : o->repeat);
	so.fields = &o->fields;
	so.sched = o->sched;
	so.counting = !o->no_stat;

	lo->argv = rec->cmd_argv;
	lo->pids = rec->pids;
	lo->nr_pids = rec->nr_pids;
	lo->system_wide = rec->target.mode == TARGET_SYSTEM;
	lo->cpu_list = o->cpu_list;
	lo->delay = o->delay;
	lo->duration = o->duration;
	lo->interval_ms = o->interval_ms;
	lo->nr_stops = &stopsig_count;
	lo->stop_sig = &stopsig_last;
	lo->on_start = print_notes;
	if (rec->progress) {
		lo->on_progress = progress_show;
		lo->progress_ns = PROGRESS_NS;
		lo->on_output = progress_clear_hook;
	}
	lo->ctx = rec;
	lo->bench = &rec->bench;
	rec->sess = recsession__new(&so, rec->p, rec->syms, e);
	if (!rec->sess) {
		error("%s", e->msg);
		return -1;
	}
	return 0;
}

/* The file, the one it replaces kept as NAME.old only once it is written. */
static int save_keeping_old(struct record *rec, struct errmsg *e)
{
	struct outfile_old k;
	struct errmsg warn;
	int err = outfile__old_begin(&k, rec->o->output, e);

	if (err)
		return err;
	err = datafile__save_recording(rec->p, rec->o->output, &warn, e);
	if (warn.msg[0])
		warning("%s", warn.msg);
	if (outfile__old_end(&k, !err, err ? NULL : e) && !err)
		warning("%s", e->msg);	/* the new file is written */
	return err;
}

/*
 * Before anything runs: the file's folder is writable and NAME.old (as
 * perf.data.old) can be kept, so that no run is wasted on a name that
 * cannot be written.  -1 after printing.
 */
int recordcmd__check_output(const char *path, struct errmsg *e)
{
	if (check_output_dir(path) < 0)
		return -1;
	if (outfile__old_check(path, e) < 0) {
		error("%s", e->msg);
		return -1;
	}
	return 0;
}

/* The profile, its meta, the symbols and the session.  -1 after printing. */
int recordcmd__begin(struct record *rec, int argc, char **argv, bool events,
		     struct errmsg *e)
{
	rec->p = profile__new();
	sysinfo__add_host(rec->p);
	mmstate__add_settings(rec->p, NULL);
	add_record_meta(rec, argc, argv);
	if (load_symbols(rec, e) < 0 || (events && prepare_events(rec) < 0) ||
	    start_session(rec, e) < 0)
		return -1;
	return 0;
}

/*
 * Write the file, print its summary: 0, EXIT_WORKLOAD when the workload
 * failed in a run (the file is written), EXIT_ERROR when nothing was.
 */
int recordcmd__save(struct record *rec, bool interrupted, struct errmsg *e)
{
	struct chaintake_stats st;
	int err = rec->sess ? recsession__take_chains(rec->sess, &st, e) : 0;

	/* the chains that could not be read back are lost, not the recording */
	if (err)
		warning("%s", e->msg);
	err = save_keeping_old(rec, e);
	if (err) {
		error("%s", e->msg[0] ? e->msg : strerror(-err));
		return EXIT_ERROR;
	}
	print_summary(rec, (uint32_t)rec->p->nr_runs, interrupted);
	warn_no_samples(rec);
	if (!rec->nr_failed)
		return 0;
	error("the workload failed in %u of %zu run%s (%s%s%s); '%s' holds "
		"them: exit status %d", rec->nr_failed, rec->p->nr_runs,
		rec->p->nr_runs == 1 ? "" : "s", rec->nr_failed > 1 ? "first " : "",
		rec->failed_status,
		rec->p->nr_runs > 1 ? "; runs count from 0, as report and diff --drop-run name them" : "",
		rec->o->output, EXIT_WORKLOAD);
	return EXIT_WORKLOAD;
}
