/*
 * columns: the table of one base and several compared columns, as the
 * robot prints one base commit against several (lkp-tests lib/compare.rb:
 * the base's mean and %stddev, then "%change %stddev" per compared
 * commit, each change against the base).  Each column is a diff of its
 * own (base against that column: its own verdicts, families, FDR and
 * detectable changes; see diff.h), and a row here is one key through all
 * of them (diff__select_columns).  lkp, CSV and markdown are written
 * here; JSON is one diff object per column (the command writes it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"

#include "table-int.h"

/* The key's row in the first column that has it (the base's numbers are the same in each). */
static const struct diff_row *first_row(const struct diff_row *const *cols, size_t nd)
{
	size_t k;

	for (k = 0; k < nd; k++)
		if (cols[k])
			return cols[k];
	return NULL;
}

/* Is column r coloured: chosen by the selection in that column (with verdicts: as diff__format). */
static bool column_tinted(const struct diff_row *r, enum diff_select sel)
{
	if (!r)
		return false;
	switch (sel) {
	case DIFF_SELECT_ALL:
		return diff_row__tinted(r, true, (r->flags & DIFF_AMBIENT) != 0);
	case DIFF_SELECT_ROBOT:
		return (r->flags & DIFF_ROBOT) != 0;
	case DIFF_SELECT_AMBIENT:
		return diff_row__changed(r);
	default:
		return diff_row__changed(r);
	}
}

/* What ends a row: nothing, every column's verdict with q and more (--all), or its name. */
enum mark { MARK_NONE, MARK_FULL, MARK_VERDICT };

static void lkp_rows(struct outbuf *b, const struct diff_row *const *rows, size_t n,
		     const char *const *names, size_t nd, enum diff_select sel, enum mark marked)
{
	struct diff_lkp_column col[DIFF_MAX_COLUMNS];
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct diff_row *const *cols = rows + i * nd;
		const struct diff_row *r0 = first_row(cols, nd);
		char mark[DIFF_MAX_COLUMNS * 160];
		size_t len = 0;

		mark[0] = '\0';
		for (k = 0; k < nd; k++) {
			const struct diff_row *r = cols[k];

			/* a key absent from the base and this column: 0 there */
			col[k] = (struct diff_lkp_column){ r ? r->cur.mean : 0, r ? r->cur.sd : 0,
							   column_tinted(r, sel) };
			if (marked && len < sizeof(mark)) {
				char one[160];

				if (r && marked == MARK_FULL)
					diff_row__mark(r, one, sizeof(one));
				else if (r)
					snprintf(one, sizeof(one), "%s", diff_row__verdict_name(r));
				else
					snprintf(one, sizeof(one), "-");
				len += (size_t)snprintf(mark + len, sizeof(mark) - len, "%s%s: %s",
							k ? "; " : "", names[k], one);
			}
		}
		diff__lkp_columns(b, r0->key, r0->base.mean, r0->base.sd, col, nd,
				  marked != MARK_NONE ? mark : NULL);
	}
}

/*
 * The machines' state that changed in some column, apart from the
 * verdicts (as the two-sided table's section after it): not the
 * workload's doing.
 */
static void lkp_ambient(struct outbuf *b, const struct diff *d, size_t nd, const char *const *names)
{
	size_t n;
	const struct diff_row **rows = diff__select_columns(d, nd, DIFF_SELECT_AMBIENT, &n);

	if (n) {
		diff__lkp_ambient_title(b);
		lkp_rows(b, rows, n, names, nd, DIFF_SELECT_AMBIENT, MARK_VERDICT);
	}
	free(rows);
}

static void csv_columns(struct outbuf *b, const struct diff_row *const *rows, size_t n,
			const char *const *names, size_t nd)
{
	size_t i, k;

	outbuf__printf(b, "column,key,base_mean,base_stddev,base_runs,new_mean,new_stddev,new_runs,"
			  "change,change_unit,p,q,verdict,robot,detectable,runs_needed,ambient\n");
	for (i = 0; i < n; i++)
		for (k = 0; k < nd; k++)
			if (rows[i * nd + k]) {
				outbuf__printf(b, "%s,", names[k]);
				diff_row__csv(b, rows[i * nd + k]);
			}
}

static void md_change(struct outbuf *b, const struct diff_row *r)
{
	if (r->absolute)
		outbuf__printf(b, "%+.2f", r->change);
	else if (diff_row__from_zero(r))
		outbuf__puts(b, "new");
	else if (fabs(r->change) < 100000)
		outbuf__printf(b, "%+.1f%%", r->change);
	else
		outbuf__printf(b, "%+.2g%%", r->change);
}

/* The machines' state that changed in some column, each key with every column's change. */
static void markdown_ambient(struct outbuf *b, const struct diff *d, size_t nd,
			     const char *const *names)
{
	size_t n, i, k;
	const struct diff_row **rows = diff__select_columns(d, nd, DIFF_SELECT_AMBIENT, &n);

	if (n)
		outbuf__printf(b, "\n**the machines differed** (%s):", DIFF_AMBIENT_WHY);
	for (i = 0; i < n; i++) {
		const struct diff_row *r0 = first_row(rows + i * nd, nd);

		outbuf__printf(b, "%s ", i ? ";" : "");
		diff__md_key(b, r0->key);
		for (k = 0; k < nd; k++) {
			const struct diff_row *r = rows[i * nd + k];

			outbuf__printf(b, "%s %s ", k ? "," : "", names[k]);
			if (r)
				md_change(b, r);
			else
				outbuf__printf(b, "-");
		}
	}
	if (n)
		outbuf__printf(b, "\n");
	free(rows);
}

static void markdown_columns(struct outbuf *b, const struct diff *d,
			     const struct diff_row *const *rows, size_t n,
			     const char *const *names, size_t nd)
{
	size_t i, k;

	outbuf__printf(b, "| key | base |");
	for (k = 0; k < nd; k++)
		outbuf__printf(b, " %s | change | verdict |", names[k]);
	outbuf__printf(b, "\n|---|--:|");
	for (k = 0; k < nd; k++)
		outbuf__printf(b, "--:|--:|---|");
	outbuf__printf(b, "\n");
	for (i = 0; i < n; i++) {
		const struct diff_row *const *cols = rows + i * nd;
		const struct diff_row *r0 = first_row(cols, nd);

		outbuf__printf(b, "| ");
		diff__md_key(b, r0->key);
		outbuf__printf(b, " | ");
		diff__md_value(b, r0->base.mean, r0->base.sd);
		outbuf__printf(b, " |");
		for (k = 0; k < nd; k++) {
			const struct diff_row *r = cols[k];
			bool bold = r && diff_row__changed(r);

			if (!r) {
				outbuf__printf(b, " 0.00 | - | - |");
				continue;
			}
			outbuf__printf(b, " ");
			diff__md_value(b, r->cur.mean, r->cur.sd);
			outbuf__printf(b, " | ");
			md_change(b, r);
			outbuf__printf(b, " | %s%s%s |", bold ? "**" : "", diff_row__verdict_name(r),
				       bold ? "**" : "");
		}
		outbuf__printf(b, "\n");
	}
	if (!n)
		outbuf__printf(b, "| (no rows) | |%s\n", "");
	markdown_ambient(b, d, nd, names);
	for (k = 0; k < nd; k++) {
		char pre[64];

		snprintf(pre, sizeof(pre), "\n**%s** ", names[k]);
		diff__describe_score(b, &d[k], pre);
		outbuf__printf(b, "\n**%s** against base: %zu base run%s, %zu run%s; ", names[k], d[k].nb,
			       d[k].nb == 1 ? "" : "s", d[k].nn, d[k].nn == 1 ? "" : "s");
		diff__describe(b, &d[k]);
		outbuf__printf(b, "\n");
	}
}

void diff__format_columns(struct outbuf *b, const struct diff *d, size_t nd,
			  const char *const *names, const struct diff_row *const *rows, size_t n,
			  enum diff_format f, enum diff_select sel)
{
	switch (f) {
	case DIFF_FORMAT_CSV:
		csv_columns(b, rows, n, names, nd);
		return;
	case DIFF_FORMAT_MARKDOWN:
		markdown_columns(b, d, rows, n, names, nd);
		return;
	case DIFF_FORMAT_JSON:		/* one diff object per column: the command's */
		return;
	case DIFF_FORMAT_LKP:
	default:
		diff__lkp_header(b, nd);
		/*
		 * each column's verdict after the key, as the two-file table's
		 * tint marks one column: a change in one column says nothing
		 * of the next; the robot's own table (--robot) has none
		 */
		lkp_rows(b, rows, n, names, nd, sel,
			 sel == DIFF_SELECT_ALL ? MARK_FULL : sel == DIFF_SELECT_ROBOT ? MARK_NONE : MARK_VERDICT);
		if (sel == DIFF_SELECT_DEFAULT)
			lkp_ambient(b, d, nd, names);
		return;
	}
}

void diff__column_rows(const struct diff_row *const *rows, size_t n, size_t nd, size_t k,
		       const struct diff_row **out, size_t *nout)
{
	size_t i;

	*nout = 0;
	for (i = 0; i < n; i++)
		if (rows[i * nd + k])
			out[(*nout)++] = rows[i * nd + k];
}

/* s as a URL path: unreserved bytes and '/' as they are, every other %XX. */
static void url_path(struct outbuf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~/", c))
			outbuf__putc(b, (char)c);
		else
			outbuf__printf(b, "%%%02X", c);
	}
}

void diff__html_columns_index(struct outbuf *b, const char *base_label,
			      const char *const *names, const char *const *labels,
			      const char *const *files, size_t nd)
{
	size_t k;

	outbuf__puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		     "<title>mmprof diff: ");
	outbuf__xml_str(b, base_label);
	outbuf__printf(b, " against %zu columns</title>\n<style>\nbody { font-family: sans-serif; "
			  "margin: 0; display: flex; flex-direction: column; height: 100vh; }\n"
			  "nav { padding: 0.5em 1em; border-bottom: 1px solid #ccc; }\n"
			  "nav a { margin-right: 1.2em; }\niframe { flex: 1; border: 0; width: 100%%; }\n"
			  "</style>\n</head>\n<body>\n<nav>base ", nd);
	outbuf__xml_str(b, base_label);
	outbuf__puts(b, " against:");
	for (k = 0; k < nd; k++) {
		outbuf__puts(b, " <a target=\"column\" href=\"");
		url_path(b, files[k]);
		outbuf__puts(b, "\">");
		outbuf__xml_str(b, names[k]);
		outbuf__puts(b, " (");
		outbuf__xml_str(b, labels[k]);
		outbuf__puts(b, ")</a>");
	}
	outbuf__puts(b, "</nav>\n<iframe name=\"column\" src=\"");
	url_path(b, nd ? files[0] : "");
	outbuf__puts(b, "\"></iframe>\n</body>\n</html>\n");
}
