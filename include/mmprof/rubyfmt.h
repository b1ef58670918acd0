/*
 * rubyfmt: a number rounded as Ruby's format rounds it, for the robot's
 * table (lkp-tests lib/compare.rb prints with Ruby's format; mmprof's LKP
 * layout must be byte for byte the same).
 *
 * Ruby's %f, %e and %g (its own copy of David Gay's dtoa, missing/dtoa.c,
 * modes 2 and 3) first try to produce the digits in double arithmetic,
 * with an error bound eps on the scaled remainder r left after the last
 * digit.  When r is past 0.5 by more than eps it rounds up, when short of
 * it by more than eps it truncates, as any correct rounding would; but
 * when r is within eps of 0.5, Ruby rounds the digits half to even
 * without asking the exact binary value (its "half" flag: an odd last
 * digit is bumped at once, an even one is kept even where the exact
 * value lies above the half).  C's printf rounds the exact value of the
 * double.  They differ where a decimal tie is not exact in binary:
 * 64.395 is 64.39499999999999602 as a double, so C prints "64.39" and
 * Ruby "64.40"; 2.675 gives "2.67" and "2.68"; 1.005 gives "1.00" in
 * both (0 is even).  An integer below 1e15 whose even digit is left on
 * the half is rounded exactly, as C does.  Where the fast path cannot
 * run (more than 14 digits, none at all, magnitudes past 1e255 or
 * denormals), Ruby rounds the exact value as C does.
 *
 One more difference follows from it: where an even last digit 0 is kept
 * on the half while the exact value lies above it, Ruby's digits keep
 * their trailing zeros and its %g prints them (75.305 at %.4g: Ruby
 * "75.30", C "75.3").
 *
 * rubyfmt__format(buf, size, plus, width, prec, conv, v) writes v as
 * Ruby's format("%<+ when plus><width>.<prec><conv>", v) does, conv 'f',
 * 'e' or 'g' (snprintf-like: returns the length needed): C's
 * printf of the decimal Ruby's rounding chose, as the nearest double (at
 * most 15 digits, so printing it gives those digits back), with '#' where
 * Ruby keeps the zeros.
 *
 * Checked against Ruby 3.1 on 10^6 values (ties of 1 to 4 decimals at
 * every magnitude the table prints, means of random runs, random doubles)
 * in every conversion the table uses; tests/unit/test-rubyfmt.c holds a
 * golden table computed by Ruby.  Pure function, no allocation.
 */
#ifndef MMPROF_RUBYFMT_H
#define MMPROF_RUBYFMT_H

#include <stdbool.h>
#include <stddef.h>

int rubyfmt__format(char *buf, size_t size, bool plus, int width, int prec, char conv, double v);

#endif
