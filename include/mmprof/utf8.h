/*
 * utf8: decoding one UTF-8 sequence, for the writers that must emit valid
 * text (JSON export, SVG/XML) from symbol names that may come from foreign
 * files with any bytes in them.  Pure function, no state.
 */
#ifndef MMPROF_UTF8_H
#define MMPROF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length (1..4) of the well-formed UTF-8 sequence at s, its code point in
 * *cp; 0 (and *cp = 0) if s does not start one: a bad lead or continuation
 * byte, an overlong form, a surrogate or a code point above U+10FFFF.  An
 * ASCII byte, NUL included, is a sequence of 1; reading stops at a NUL.
 */
size_t utf8__len(const unsigned char *s, uint32_t *cp);

#endif
