/*
 * test-escape: the plain-text rule of escape.h (text__escape and its sink
 * spellings), checked against a naive model over every one- and two-byte
 * string, every three-byte code point (bidi controls) and a table of the
 * hostile names issue 14 found: no byte a terminal obeys or a line format
 * splits on survives, no character that reorders a line, ordinary names and
 * UTF-8 pass unchanged.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/errmsg.h"
#include "mmprof/escape.h"
#include "mmprof/outbuf.h"
#include "tap.h"

static void text(struct outbuf *b, const char *s, const char *swap)
{
	outbuf__release(b);
	outbuf__text_swap(b, s, swap);
	if (!b->s)
		outbuf__add(b, "", 0);
}

/*
 * The naive model for strings built of one- and two-byte pieces: printable
 * ASCII, or a two-byte UTF-8 sequence (lead C2..DF, one continuation) of a
 * code point past the C1 controls but U+061C (a bidi mark); anything else
 * is unsafe.
 */
static bool safe(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		if (*u >= 0x20 && *u < 0x7f) {
			u++;
		} else if (*u >= 0xc2 && *u <= 0xdf && u[1] >= 0x80 && u[1] <= 0xbf &&
			   (((unsigned)(*u & 0x1f) << 6) | (u[1] & 0x3f)) >= 0xa0 &&
			   (((unsigned)(*u & 0x1f) << 6) | (u[1] & 0x3f)) != 0x61c) {
			u += 2;
		} else {
			return false;
		}
	}
	return true;
}

static void test_table(void)
{
	static const struct {
		const char *in, *swap, *want, *what;
	} cases[] = {
		{ "main", NULL, "main", "an ordinary name is copied" },
		{ "", NULL, "", "the empty name stays empty" },
		{ "operator new(unsigned long)", NULL, "operator new(unsigned long)", "spaces are kept" },
		{ "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5", NULL, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5",
		  "well-formed UTF-8 is copied" },
		{ "a\\x1b", NULL, "a\\x1b", "a backslash is copied (the rule is not reversible)" },
		{ "\x1b]0;pwned\x07", NULL, "\\x1b]0;pwned\\x07", "OSC title: ESC and BEL escaped" },
		{ "\x1b[2J\x1b[H", NULL, "\\x1b[2J\\x1b[H", "clear screen" },
		{ "\x1b[?1049h", NULL, "\\x1b[?1049h", "alternate screen" },
		{ "a 99999999999\n", NULL, "a 99999999999\\x0a", "a newline (forged comm)" },
		{ "t\tr\r", NULL, "t\\x09r\\x0d", "tab and carriage return" },
		{ "d\x7f", NULL, "d\\x7f", "DEL" },
		{ "c\xc2\x9b" "2J", NULL, "c\\xc2\\x9b2J", "a C1 CSI as UTF-8: both bytes" },
		{ "\xc2\xa0x", NULL, "\xc2\xa0x", "U+00A0, past the C1 range, is copied" },
		{ "r\x9b" "2J", NULL, "r\\x9b2J", "a raw 8-bit CSI (invalid UTF-8)" },
		{ "\xff\xe2\x86y", NULL, "\\xff\\xe2\\x86y", "each byte of invalid UTF-8" },
		{ "a;b c\n", ";: _", "a:b_c\\x0a", "swap pairs replace the line format's separators" },
		{ "a;b c", ";:", "a:b c", "only the bytes named in swap" },
		{ "f\xe2\x80\xae" "atad", NULL, "f\\xe2\\x80\\xae" "atad", "U+202E RIGHT-TO-LEFT OVERRIDE: its three bytes" },
		{ "\xe2\x81\xa6x\xe2\x81\xa9", NULL, "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9",
		  "U+2066 LEFT-TO-RIGHT ISOLATE and U+2069 POP DIRECTIONAL ISOLATE" },
		{ "\xe2\x80\x8f\xd8\x9c", NULL, "\\xe2\\x80\\x8f\\xd8\\x9c", "U+200F RLM and U+061C ALM" },
		{ "\xe2\x80\xa9\xe2\x80\xaf", NULL, "\xe2\x80\xa9\xe2\x80\xaf",
		  "U+2029 and U+202F, beside the overrides, are copied" },
	};
	struct outbuf b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text(&b, cases[i].in, cases[i].swap);
		is_str(b.s, cases[i].want, cases[i].what);
		ok(text__needs_escape(cases[i].in, cases[i].swap) == !!strcmp(cases[i].in, cases[i].want),
		   "needs_escape agrees: %s", cases[i].what);
	}
	outbuf__release(&b);
}

/* Every string of one or two bytes: the output is safe, and copied when the input was. */
static void test_exhaustive(void)
{
	struct outbuf b = { 0 }, scratch = { 0 };
	unsigned bad_out = 0, changed_safe = 0, wrong_safe = 0;
	int c1, c2;

	for (c1 = 1; c1 < 256; c1++) {
		for (c2 = 0; c2 < 256; c2++) {
			char in[3] = { (char)c1, (char)c2, 0 };
			const char *s;

			text(&b, in, NULL);
			if (!safe(b.s) || strchr(b.s, '\n'))
				bad_out++;
			/* what the model calls safe is copied */
			if (safe(in) && strcmp(b.s, in))
				changed_safe++;
			s = outbuf__text_safe(&scratch, in);
			if (strcmp(s, b.s) || (!strcmp(b.s, in) && s != in))
				wrong_safe++;
		}
	}
	is_int(bad_out, 0, "no 1- or 2-byte string escapes with a control, C1 or invalid byte left");
	is_int(changed_safe, 0, "what the model calls safe is copied as is");
	is_int(wrong_safe, 0, "text_safe: the name itself when clean, else the same escaped text");
	outbuf__release(&b);
	outbuf__release(&scratch);
}

/*
 * Every code point of the three-byte UTF-8 range: escaped exactly when it is
 * a bidirectional formatting character (the naive list, written out).
 */
static void test_bidi(void)
{
	static const uint32_t bidi[] = { 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d,
					 0x202e, 0x2066, 0x2067, 0x2068, 0x2069 };
	struct outbuf b = { 0 };
	unsigned wrong = 0, escaped = 0;
	uint32_t cp;
	size_t k;

	for (cp = 0x800; cp <= 0xffff; cp++) {
		char in[4] = { (char)(0xe0 | cp >> 12), (char)(0x80 | ((cp >> 6) & 0x3f)),
			       (char)(0x80 | (cp & 0x3f)), 0 };
		bool want = false;

		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;	/* surrogates are invalid UTF-8: escaped as such */
		for (k = 0; k < sizeof(bidi) / sizeof(bidi[0]); k++)
			want |= bidi[k] == cp;
		text(&b, in, NULL);
		escaped += want;
		if (want != !!strcmp(b.s, in) || (want && strlen(b.s) != 12))
			wrong++;
	}
	/* JSON writes the code point; XML has no neutral spelling: '?' a byte */
	outbuf__release(&b);
	outbuf__json_str(&b, "a\xe2\x80\xae" "b\xd8\x9c");
	is_str(b.s, "\"a\\u202eb\\u061c\"", "JSON: a bidi control as its \\uXXXX");
	outbuf__release(&b);
	outbuf__xml_str(&b, "a\xe2\x81\xa6" "b");
	is_str(b.s, "a???b", "XML: a bidi control as '?' per byte");
	/* and the two-byte one, U+061C ARABIC LETTER MARK */
	text(&b, "\xd8\x9c", NULL);
	is_str(b.s, "\\xd8\\x9c", "U+061C, the two-byte bidi mark, is escaped");
	is_int(escaped, 11, "the three-byte bidi controls are the eleven of the list");
	is_int(wrong, 0, "every three-byte code point: escaped (all three bytes) iff a bidi control");
	outbuf__release(&b);
}

/* A put that counts its calls: an ordinary name costs one. */
static void count_put(void *ctx, const char *p, size_t n)
{
	(void)p;
	(void)n;
	++*(int *)ctx;
}

/* errmsg's one line: the text rule on its arguments, cut between characters. */
static void test_errmsg(void)
{
	struct errmsg e;
	char name[600];
	size_t len;

	errmsg__set(&e, -EPROTO, "cannot load '%s': bad row", "x\x1b]0;t\x07\ny");
	is_str(e.msg, "cannot load 'x\\x1b]0;t\\x07\\x0ay': bad row", "errmsg__set: a name's ESC and newline escaped");
	memset(name, '\x1b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	errmsg__set(&e, -EPROTO, "n %s", name);
	len = strlen(e.msg);
	ok(len < sizeof(e.msg) && (len - 2) % 4 == 0 && !strchr(e.msg, '\x1b'),
	   "a message past its buffer is cut between escapes (%zu bytes)", len);
	memset(name, 0, sizeof(name));
	for (len = 0; len + 2 < sizeof(name) - 1; len += 2)
		memcpy(name + len, "\xc3\xa9", 2);
	errmsg__set(&e, -EPROTO, "%s", name);
	ok(strlen(e.msg) % 2 == 0 && !text__needs_escape(e.msg, NULL), "and UTF-8 is cut between characters");
	errmsg__prefix(&e, -EPROTO, "in '%s'", "a\x1b");
	ok(!strncmp(e.msg, "in 'a\\x1b': ", 12), "errmsg__prefix escapes its head too");
}

/* shell__quote: the word a shell reads back is the string itself. */
static void test_shell(void)
{
	struct outbuf w[2] = { { 0 }, { 0 } };

	is_str(outbuf__shell_word(w, "/tmp/x-1.data"), "/tmp/x-1.data", "a plain path stays as it is");
	is_str(outbuf__shell_word(w, "my file.data"), "'my file.data'", "a space: single quotes");
	is_str(outbuf__shell_word(w, "it's"), "'it'\\''s'", "a quote inside: '\\''");
	is_str(outbuf__shell_word(w, "$HOME*"), "'$HOME*'", "no expansion, no glob");
	is_str(outbuf__shell_word(w, ""), "''", "the empty word");
	is_str(outbuf__shell_word(w, "a\x1b" "b"), "'a\\x1bb'", "then terminal-safe");
	outbuf__release(&w[0]);
	outbuf__release(&w[1]);
}

int main(void)
{
	int puts = 0;

	test_table();
	test_exhaustive();
	test_bidi();
	test_errmsg();
	test_shell();
	text__escape("zap_pmd_range.isra.0", NULL, count_put, &puts);
	is_int(puts, 1, "an ordinary name is handed on in one put");
	return done_testing();
}
