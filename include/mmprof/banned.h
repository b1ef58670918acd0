/*
 * banned: C library functions mmprof does not call, made compile errors.
 *
 * After git's banned.h.  Each is too easy to misuse, and even a correct
 * use costs a reviewer a proof that the buffer is big enough or that no
 * other thread shares the static state:
 *   - strcpy, strcat, strncpy, strncat, sprintf, vsprintf, gets: no bound,
 *     or one that truncates without a terminator or a way to tell.  Use
 *     snprintf (check its result where truncation matters), xstrdup,
 *     memcpy with an explicit length, or an outbuf.
 *   - strtok: hidden static state (diff loads sides on threads); strtok_r
 *     is allowed.
 *   - gmtime, localtime, ctime, asctime (static result) and ctime_r,
 *     asctime_r (no buffer size): use gmtime_r/localtime_r and strftime.
 *   - mktemp: a race between the name and the open; use mkstemp.
 * A call reads as `sorry_strcpy_is_a_banned_function` in the compiler's
 * error.
 *
 * The Makefile passes it to every compile of src/, tests/unit/ and
 * tests/fuzz/ with -include, so that no file can forget it.  It is then
 * the first header of every file, so it includes the headers that declare
 * the banned functions itself: their include guards keep a later
 * #include <string.h> from reading a prototype through the macros below.
 */
#ifndef MMPROF_BANNED_H
#define MMPROF_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef strtok
#define strtok(x, y) BANNED(strtok)

#undef sprintf
#undef vsprintf
#define sprintf(...) BANNED(sprintf)
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)

#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef ctime
#define ctime(t) BANNED(ctime)
#undef ctime_r
#define ctime_r(t, buf) BANNED(ctime_r)
#undef asctime
#define asctime(t) BANNED(asctime)
#undef asctime_r
#define asctime_r(t, buf) BANNED(asctime_r)

#undef mktemp
#define mktemp(x) BANNED(mktemp)

#endif /* MMPROF_BANNED_H */
