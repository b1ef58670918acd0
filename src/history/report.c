/*
 * report: the kernel test robot's mail for each change point of a
 * history's score (history.h), in its layout (lkp-format.md): the
 * headline with the score's change and the commit, the testcase, the
 * machine and the parameters, then the diff engine's own document of
 * the commits before against those after (diffengine.h: the robot's
 * table of the significant rows and the call chains that carry it).
 * A user sends it as it is.
 */
#include <math.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/history.h"
#include "mmprof/keykind.h"
#include "mmprof/profile.h"

static void mail(struct outbuf *b, const struct history_series_scan *sc, const struct history_point *pt)
{
	const struct history_series *hs = sc->hs;
	const struct history_change *ch = &pt->score->cp[pt->cp];
	const char *key = pt->score->key->name, *cmdline = NULL;
	double change = pt->score_row ? pt->score_row->change : ch->change;
	int good = keykind__goodness(key);
	if (pt->r && pt->r->s[1].nr_runs && pt->r->s[1].profiles && pt->r->s[1].profiles[0])
		cmdline = profile__meta(pt->r->s[1].profiles[0], "cmdline");
	outbuf__puts(b, "Greeting,\n\nFYI, we noticed a ");
	outbuf__printf(b, "%+.1f%% %s of ", change,
		       good && (change > 0) == (good > 0) ? "improvement" : "regression");
	outbuf__text_str(b, key);
	outbuf__puts(b, " due to commit:\n\n\ncommit: ");
	outbuf__text_str(b, hs->commits[ch->at].commit);
	outbuf__puts(b, "\n\nin testcase: ");
	outbuf__text_str(b, hs->benchmark);
	outbuf__puts(b, "\non test machine: ");
	outbuf__text_str(b, hs->machine);
	if (cmdline) {
		outbuf__puts(b, "\nwith following parameters:\n\n\tcmdline: ");
		outbuf__text_str(b, cmdline);
	}
	outbuf__printf(b, "\n\nThe score's change point (mmprof history): %.6g -> %.6g, %+.1f%s +- %.1f, "
		       "commit %zu of %zu;\n", ch->before, ch->after, ch->change, pt->score->absolute ? " points" : "%",
		       ch->se, ch->at + 1, hs->nr_commits);
	outbuf__puts(b, "compared below: ");
	history_point__sides(b, hs, pt, outbuf__text_str, " (base) against ");
	outbuf__puts(b, ".\n\nDetails are as below:\n"
		     "-------------------------------------------------------------------------------------------------->\n\n");
	if (!pt->r)
		outbuf__puts(b, "(the diff of the two sides could not be made: said on stderr)\n");
	else
		diff_report__write(b, pt->r, DIFF_FORMAT_LKP);
	outbuf__puts(b, "\n\n\nThanks,\nmmprof history\n");
}

void history__report(struct outbuf *b, const struct history_series_scan *sc, size_t n)
{
	size_t i, k, nr = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < sc[i].nr_points; k++) {
			if (nr++)
				outbuf__puts(b, "\n========================================"
					     "========================================\n\n");
			mail(b, &sc[i], &sc[i].points[k]);
		}
}
