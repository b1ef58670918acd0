/*
 * cmd-resolve: `mmprof resolve [FILE] [-o OUT] [-n]`, the frames a .data
 * file saved unresolved named from what this machine holds now (issue 18
 * point 2), then the file written again atomically.
 *
 * A JVM profiled with record -p and -XX:+DumpPerfMapAtExit writes
 * /tmp/perf-PID.map when it exits, after the recording ended: the file
 * keeps the raw addresses and the map's name, so resolving later gives
 * what perf report gives at report time.  resolve.h does the work; this
 * file reads options, says per DSO what it named and why not, and saves
 * through datafile__save (a temporary, then a rename: never a half file).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outbuf.h"
#include "mmprof/outfile.h"
#include "mmprof/resolve.h"
#include "mmprof/symbols.h"

static const char *const resolve_usage[] = {
	"mmprof resolve [options] [FILE]  (default FILE: mmprof.data)",
	NULL,
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static const char *why(int err, bool perfmap)
{
	if (err == -ENOENT && perfmap)
		return "no such file (not written yet? a JVM's -XX:+DumpPerfMapAtExit writes it "
		       "when the JVM exits)";
	if (err == -ENODATA)
		return "the file has no build-id to tell it is the one recorded";
	if (err == -ESTALE)
		return "another build of the file is there now (its build-id differs)";
	if (err == -EPERM && perfmap)
		return "not a regular file owned by you or by the process";
	return strerror(-err);
}

/* One line per DSO: what it gave, or why it gave nothing. */
static void say_dsos(const char *file, const struct profile *p, const struct resolve_result *r)
{
	struct outbuf scratch = { 0 };	/* names from profiled programs: the text rule */
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct resolve_dso *d = &r->dsos[i];
		const char *dso = outbuf__text_safe(&scratch, profile__str(p, d->dso));

		if (d->err)
			inform("'%s': %s: %zu frame%s still unnamed: %s", file,
				dso, d->frames, d->frames == 1 ? "" : "s", why(d->err, d->perfmap));
		else
			inform("'%s': %s: named %zu of %zu frames (%llu of %llu "
				"samples)", file, dso, d->named, d->frames,
				(unsigned long long)d->named_samples, (unsigned long long)d->samples);
	}
	outbuf__release(&scratch);
}

/* What the vmlinux gave kernel frames. */
static void say_kernel(const char *file, const char *vmlinux, const struct resolve_kernel *k)
{
	fprintf(stderr, "mmprof: '%s': vmlinux %s (build-id %s, the recorded kernel's; slide %#"
		PRIx64 "): ", file, vmlinux, k->build_id, k->slide);
	if (k->unnamed)
		fprintf(stderr, "named %zu of %zu kernel frames without a name (%" PRIu64 " of %"
			PRIu64 " samples)", k->named, k->unnamed, k->named_samples,
			k->unnamed_samples);
	else
		fprintf(stderr, "every kernel frame had a name");
	if (k->had_chains)
		fprintf(stderr, "; inline chains there already (from record --vmlinux or an earlier resolve)");
	else
		fprintf(stderr, "; inline chains for %zu frames (%zu inline frames, %" PRIu64
			" samples at their IP)", k->chained, k->inline_frames, k->chained_samples);
	if (k->module_frames)
		fprintf(stderr, "; %zu frames in modules or other kernel text not looked up",
			k->module_frames);
	if (k->hidden_frames)
		fprintf(stderr, "; %zu kernel frames without an address (mmprof strip)",
			k->hidden_frames);
	fputc('\n', stderr);
}

int cmd_resolve(int argc, char **argv)
{
	const char *output = NULL, *vmlinux = NULL;
	int dry_run = 0;
	const struct option_desc opts[] = {
		OPT_STRING('o', "output", &output, "OUT",
			"write OUT (default: replace FILE, atomically)"),
		OPT_BOOL('n', "dry-run", &dry_run,
			"say what would be named, write nothing"),
		OPT_STRING(0, "vmlinux", &vmlinux, "PATH",
			"kernel image with symbols (and DWARF: inline chains) of the kernel recorded, "
			"checked by build-id"),
		OPT_END(),
	};
	char *pos[2] = { NULL, NULL };
	struct resolve_result r = { 0 };
	struct resolve_kernel k = { .slide = 0 };
	struct profile *p = NULL;
	struct symbols *syms = NULL;
	struct errmsg e = { "" };
	const char *file;
	int n, ret = EXIT_ERROR;
	bool kernel;

	n = options__parse_anywhere(argc, argv, opts, resolve_usage, pos, 1);
	if (n == -2)
		return 0;
	if (n < 0)
		return EXIT_ERROR;
	if (n > 1) {
		error("expected one FILE; see 'mmprof resolve --help'");
		return EXIT_ERROR;
	}
	file = n ? pos[0] : "mmprof.data";
	if (!output)
		output = file;
	/* before the work, as record: a name save would refuse (a symlink) is said now */
	if (outfile__check_target(output, &e)) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	if (datafile__load(file, &p, &e)) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	syms = symbols__new();
	if (vmlinux) {
		if (resolve__attach_vmlinux(p, syms, vmlinux, &k, &e)) {
			error("'%s': --vmlinux '%s': %s; nothing written", file,
				vmlinux, e.msg);
			goto out;
		}
		/* first: the user pass then counts what is still unnamed */
		resolve__kernel(p, syms, &k);
	}
	resolve__profile(p, syms, &r);
	say_dsos(file, p, &r);
	if (vmlinux)
		say_kernel(file, symbols__vmlinux(syms), &k);
	kernel = k.named || k.chained;
	if (vmlinux && !r.nr && !kernel) {
		inform("'%s': nothing named or added; nothing written", file);
		ret = 0;
		goto out;
	}
	if (!r.nr && !kernel) {
		inform("'%s': nothing to resolve again (%.1f%% of %llu samples have "
			"no name for the sampled address, none in a perf map or a file whose "
			"address record saved)", file,
			pct(r.unresolved, r.total), (unsigned long long)r.total);
		ret = 0;
		goto out;
	}
	if (dry_run) {
		inform("'%s': would name %.1f%% of %llu samples (%.1f%% have no "
			"name now); nothing written (--dry-run)", file,
			pct(r.named + k.named_samples, r.total),
			(unsigned long long)r.total, pct(r.unresolved + k.named_samples, r.total));
		ret = 0;
		goto out;
	}
	if (datafile__save(p, output, &e)) {
		error("%s", e.msg);
		goto out;
	}
	inform("wrote '%s': %.1f%% of %llu samples named now; %.1f%% still "
		"without a name for the sampled address", output,
		pct(r.named + k.named_samples, r.total),
		(unsigned long long)r.total, pct(r.unresolved - r.named, r.total));
	ret = 0;
out:
	resolve_result__release(&r);
	symbols__free(syms);
	profile__free(p);
	return ret;
}
