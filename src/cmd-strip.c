/*
 * cmd-strip: `mmprof strip FILE [-o OUT]`, a .data file made fit to share
 * outside the machine it was recorded on (issue 9).
 *
 * What goes and what stays: src/profile/strip.c (profile__strip).  The
 * command keeps the workload's name, which report's <name>.time.* keys
 * take from the cmdline that goes, as meta "workload".
 *
 * The result is written through datafile__save: atomically, so stripping a
 * file in place (no -o) never leaves it half-stripped.
 */
#include <stdio.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/keys.h"
#include "mmprof/message.h"
#include "mmprof/options.h"

static const char *const strip_usage[] = {
	"mmprof strip [options] FILE [-o OUT]",
	NULL,
};

int cmd_strip(int argc, char **argv)
{
	const char *output = NULL;
	const struct option_desc opts[] = {
		OPT_STRING('o', "output", &output, "OUT",
			"write OUT (default: replace FILE, atomically)"),
		OPT_END(),
	};
	char *pos[2] = { NULL, NULL };
	struct profile *p = NULL;
	struct errmsg e = { "" };
	struct profile_stripped st;
	int n;

	n = options__parse_anywhere(argc, argv, opts, strip_usage, pos, 1);
	if (n == -2)
		return 0;
	if (n < 0)
		return EXIT_ERROR;
	if (n != 1) {
		error("expected one FILE; see 'mmprof strip --help'");
		return EXIT_ERROR;
	}
	if (!output)
		output = pos[0];
	if (datafile__load(pos[0], &p, &e)) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	/* <name>.time.* is named from cmdline, which goes: keep the name */
	if (!profile__meta(p, "workload") && profile__meta(p, "cmdline")) {
		char name[256];

		keys__workload_name(p, name, sizeof(name));
		profile__set_meta(p, "workload", name);
	}
	profile__strip(p, &st);
	if (datafile__save(p, output, &e)) {
		error("%s", e.msg);
		profile__free(p);
		return EXIT_ERROR;
	}
	inform("wrote '%s': %zu kernel address%s and %zu host identity key%s removed",
		output, st.addrs, st.addrs == 1 ? "" : "es", st.keys, st.keys == 1 ? "" : "s");
	profile__free(p);
	return 0;
}
