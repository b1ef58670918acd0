/*
 * utf8: decoding one UTF-8 sequence, for the writers that must emit valid
 * text (JSON export, SVG/XML) from symbol names that may come from foreign
 * files with any bytes in them.  Pure function, no state.
 */
#ifndef MMPROF_UTF8_H
#define MMPROF_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Length (1..4) of the well-formed UTF-8 sequence at s, its code point in
 * *cp; 0 (and *cp = 0) if s does not start one: a bad lead or continuation
 * byte, an overlong form, a surrogate or a code point above U+10FFFF.  An
 * ASCII byte, NUL included, is a sequence of 1; reading stops at a NUL.
 */
size_t utf8__len(const unsigned char *s, uint32_t *cp);

/*
 * Is cp one of Unicode's bidirectional formatting characters (U+061C,
 * U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)?  They reorder what a
 * terminal or an editor shows around them ("Trojan Source",
 * CVE-2021-42574): every writer escapes them in names.
 */
bool utf8__is_bidi_control(uint32_t cp);

/* Characters of s as a terminal counts them for a %*s width: its bytes that are no continuation byte. */
size_t utf8__chars(const char *s);

#endif
