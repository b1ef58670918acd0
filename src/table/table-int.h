/*
 * table-int.h: what the files of src/table/ that write a diff's rows
 * share, and nothing outside them sees: format.c writes the rows as
 * text (lkp, CSV, markdown, JSON) and columns.c the table of several
 * compared columns with format.c's pieces; header.c the header over
 * them, settings.c the recorded settings that differ, side.c loads the
 * sides (diffside.h).  The rows and their verdicts come from the diff
 * module below (mmprof/diff.h).
 */
#ifndef MMPROF_TABLE_INT_H
#define MMPROF_TABLE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/diff.h"
#include "mmprof/outbuf.h"

/* Why ambient rows are apart, as the outputs' titles over them say it. */
#define DIFF_AMBIENT_WHY "system-wide memory levels, which the rest of the machine moves as much " \
	"as the workload; what the workload held is its .rise. keys"
/* The title line of the lkp table's ambient rows ("the machines differed"), a blank line first. */
void diff__lkp_ambient_title(struct outbuf *b);

/* Is r's change coloured (when the sink has colour)?  See format.c. */
bool diff_row__tinted(const struct diff_row *r, bool marked, bool ambient_marked);
/* --all's marker of a row: "up q=0.0012, detectable 0.31" and the like, into mark. */
void diff_row__mark(const struct diff_row *r, char *mark, size_t size);
/* One CSV line of r (key to ambient), its newline included. */
void diff_row__csv(struct outbuf *b, const struct diff_row *r);
/* A markdown cell's value ("1.23 \xc2\xb14%"); a key as a code span: diff__md_key, diff.h. */
void diff__md_value(struct outbuf *b, double mean, double sd);


#endif
