/*
 * gate: CI conditions on a diff, "GLOB OP NUMBER[%]".
 *
 *   perf-profile.children.*.__split_huge_pmd > +1.0   absolute: new - base > 1.0
 *   perf-stat.ps.page-faults < -5%                    relative: 100*(new-base)/base < -5
 *
 * GLOB is fnmatch(3) without flags ('*' crosses dots) against the
 * normalised key; OP one of > >= < <=; a number without '%' is an
 * absolute difference in the key's own unit (points for perf-profile and
 * *% keys).  Parsing is a pure function of the string (fuzzable): it
 * never prints, and on error says at which 1-based column it failed.
 */
#ifndef MMPROF_GATE_H
#define MMPROF_GATE_H

#include <stdbool.h>

#include "mmprof/errmsg.h"

enum gate_op { GATE_GT, GATE_GE, GATE_LT, GATE_LE };

struct gate {
	char *glob;		/* owned */
	enum gate_op op;
	double value;
	bool relative;		/* value was given with '%' */
};

/* Parse one expression into g (release with gate__release).  0 or -EINVAL + e. */
int gate__parse(const char *expr, struct gate *g, struct errmsg *e);
void gate__release(struct gate *g);

/* Does the key match, and does its change (delta or rel %) satisfy the condition? */
bool gate__matches(const struct gate *g, const char *key);
bool gate__trips(const struct gate *g, double delta, double rel);

/* "> +1.0" / "< -5%" for messages, into buf. */
void gate__describe(const struct gate *g, char *buf, size_t size);

#endif
