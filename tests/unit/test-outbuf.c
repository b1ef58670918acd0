/*
 * test-outbuf: the shared output buffer (outbuf.h) and UTF-8 decoder
 * (utf8.h) that the diff, flame and export writers are built on.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mmprof/escape.h"
#include "mmprof/outbuf.h"
#include "mmprof/outfile.h"
#include "mmprof/utf8.h"
#include "tap.h"

/* A put for json__escape: append to a NUL-terminated buffer of 64 bytes. */
static void put_buf(void *ctx, const char *p, size_t n)
{
	char *buf = ctx;
	size_t len = strlen(buf);

	if (len + n < 64) {
		memcpy(buf + len, p, n);
		buf[len + n] = '\0';
	}
}

static void test_outbuf(void)
{
	struct outbuf b = { 0 };
	char big[5000];
	size_t i;

	outbuf__add(&b, "", 0);
	ok(b.s && b.len == 0 && b.s[0] == '\0', "an empty add leaves an empty, terminated string");
	outbuf__puts(&b, "ab");
	outbuf__add(&b, "cdef", 2);
	outbuf__printf(&b, "%d-%s", 42, "x");
	is_str(b.s, "abcd42-x", "puts, add of a prefix and printf append in order");
	is_int((long long)b.len, 8, "len counts the bytes");

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (i = 0; i < 20; i++)
		outbuf__printf(&b, "%s", big);
	is_int((long long)b.len, 8 + 20 * (long long)(sizeof(big) - 1), "printf grows past many reallocations");
	ok(b.s[b.len] == '\0' && b.s[b.len - 1] == 'z' && b.alloc > b.len, "still terminated after growth");
	outbuf__release(&b);
	ok(!b.s && !b.len && !b.alloc, "release zeroes the struct");
	outbuf__release(&b);
	ok(1, "release twice is harmless");

	outbuf__json_str(&b, "a\"b\\c\n\r\t\x01\x7f\xc3\xa9\xe2\x86\x92");
	is_str(b.s, "\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u007f\xc3\xa9\xe2\x86\x92\"",
	       "json_str: quote, backslash, C0 and DEL escaped, UTF-8 copied");
	outbuf__release(&b);
	outbuf__json_str(&b, "x\xff\xe2\x86y\xc0\xaf");
	is_str(b.s, "\"x\\ufffd\\ufffd\\ufffdy\\ufffd\\ufffd\"",
	       "json_str: each byte outside well-formed UTF-8 becomes U+FFFD");
	outbuf__release(&b);
	{
		char buf[64] = "";

		json__escape("k\"\x01\xff", put_buf, buf);
		is_str(buf, "\"k\\\"\\u0001\\ufffd\"", "json__escape through any put escapes as outbuf__json_str");
	}
}

/* A stream sink hands its text on in chunks; what was written is counted either way. */
static void test_stream_sink(void)
{
	struct outbuf b;
	FILE *f = tmpfile(), *full = fopen("/dev/full", "w");
	size_t i;
	long size;

	outbuf__init_file(&b, f, true);
	ok(b.color && !b.len && !outbuf__written(&b), "a new stream sink: colour as asked, nothing written");
	for (i = 0; i < 20000; i++)
		outbuf__printf(&b, "line %05zu\n", i);
	ok(b.len < 70 * 1024, "a stream sink holds at most about a chunk (%zu bytes)", b.len);
	is_int((long long)outbuf__written(&b), 20000 * 11, "written counts what was handed on and what is held");
	is_int(outbuf__flush(&b), 0, "flush into a file");
	ok(b.len == 0 && b.s[0] == '\0', "flushed: nothing held, still terminated");
	fflush(f);
	size = ftell(f);
	is_int(size, 20000 * 11, "every byte reached the file, once");
	outbuf__release(&b);
	fclose(f);

	if (full) {
		setvbuf(full, NULL, _IONBF, 0);
		outbuf__init_file(&b, full, false);
		outbuf__puts(&b, "x");
		is_int(outbuf__flush(&b), -EIO, "a failed write is -EIO");
		outbuf__release(&b);
		fclose(full);
	}

	b = (struct outbuf){ 0 };
	outbuf__putc(&b, 'a');
	is_int(outbuf__flush(&b), 0, "flush of a memory buffer: nothing to do");
	is_str(b.s, "a", "a memory buffer keeps its text");
	outbuf__release(&b);
}

static void test_utf8(void)
{
	static const struct {
		const char *s;
		size_t len;
		uint32_t cp;
		const char *what;
	} cases[] = {
		{ "A", 1, 'A', "ASCII" },
		{ "", 1, 0, "NUL is one byte" },
		{ "\xc3\xa9", 2, 0xe9, "two bytes (e acute)" },
		{ "\xe2\x86\x92", 3, 0x2192, "three bytes (arrow)" },
		{ "\xf0\x9f\x94\xa5", 4, 0x1f525, "four bytes" },
		{ "\xef\xbf\xbf", 3, 0xffff, "U+FFFF is well-formed (XML rejects it itself)" },
		{ "\x80", 0, 0, "a lone continuation byte" },
		{ "\xc3", 0, 0, "a truncated sequence (NUL next)" },
		{ "\xc3" "A", 0, 0, "a lead byte followed by ASCII" },
		{ "\xc0\xaf", 0, 0, "an overlong slash" },
		{ "\xe0\x80\xaf", 0, 0, "an overlong three-byte form" },
		{ "\xed\xa0\x80", 0, 0, "a surrogate" },
		{ "\xf4\x90\x80\x80", 0, 0, "above U+10FFFF" },
		{ "\xf8\x88\x80\x80\x80", 0, 0, "a five-byte lead" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t cp = 12345;
		size_t n = utf8__len((const unsigned char *)cases[i].s, &cp);

		ok(n == cases[i].len && cp == cases[i].cp, "utf8__len: %s (got %zu, U+%04X)", cases[i].what, n,
		   (unsigned int)cp);
	}
}

/* outbuf__xml_fit: a label fitted to a box, counted in characters, escaped either way. */
static void test_xml_fit(void)
{
	static const struct {
		const char *s;
		size_t max;
		const char *want, *what;
	} cases[] = {
		{ "zap_pmd_range", 13, "zap_pmd_range", "a name that fits is whole" },
		{ "zap_pmd_range", 8, "zap_pm..", "a longer one is cut to max - 2 and '..'" },
		{ "a<b>&c", 6, "a&lt;b&gt;&amp;c", "entities count as the one character they stand for" },
		{ "<<<<<<<<", 5, "&lt;&lt;&lt;..", "cut before escaping" },
		{ "\xc3\xa9" "t\xc3\xa9\xc3\xa9", 4, "\xc3\xa9" "t\xc3\xa9\xc3\xa9", "UTF-8 counted in characters" },
		{ "\xc3\xa9" "t\xc3\xa9\xc3\xa9", 3, "\xc3\xa9..", "and cut between characters" },
		{ "x\x1b[31my", 5, "x?[..", "a control byte is '?' (escape.h)" },
		{ NULL, 4, "", "NULL is empty" },
		{ "abc", 1, "..", "a box of one character holds only the dots" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outbuf b = { 0 };

		outbuf__xml_fit(&b, cases[i].s, cases[i].max);
		ok(b.len == strlen(cases[i].want) && !memcmp(b.s ? b.s : "", cases[i].want, b.len),
		   "xml_fit: %s (got '%s')", cases[i].what, b.s ? b.s : "");
		outbuf__release(&b);
	}
}

/*
 * A write that fails into an outfile (a full disk; here the file size
 * limit, which fails the same way with EFBIG).  A block larger than
 * stdio's buffer goes straight to the temporary's writer, which once
 * returned -1 for it: glibc took that as a size_t and copied on from past
 * the caller's data (a crash under ASan in issue 27's fresh-clone CI).
 * The data here ends at a page that cannot be read, so that a read past
 * it is a crash in any build.  Then the close: the errno, no file.
 */
static void test_outfile_failed_write(void)
{
	char dir[] = "/tmp/test-outbuf.XXXXXX", path[64];
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 3 * (size_t)page + 100;
	struct rlimit old, lim;
	struct outfile f = { 0 };
	struct errmsg e = { "" };
	char *map, *data;
	size_t n = 0;
	int opened, err = 0;

	map = mmap(NULL, 5 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + 4 * page, (size_t)page, PROT_NONE) ||
	    !mkdtemp(dir) || getrlimit(RLIMIT_FSIZE, &old)) {
		ok(0, "a guarded buffer, a folder and the file size limit");
		return;
	}
	data = map + 4 * page - len;	/* its last byte is the guard page's neighbour */
	memset(data, 'x', len);
	snprintf(path, sizeof(path), "%s/out", dir);
	/* the limit holds for every file, the TAP log too: nothing printed under it */
	fflush(stdout);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 0;
	setrlimit(RLIMIT_FSIZE, &lim);
	opened = outfile__open(&f, path, &e);
	if (!opened) {
		n = fwrite(data, 1, len, f.fp);
		err = outfile__close(&f, ferror(f.fp) ? -EIO : 0, &e);
	}
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	ok(!opened, "open an outfile (%s)", opened ? e.msg : "");
	if (!opened) {
		ok(n < len, "a failed write of a block over stdio's buffer: short (%zu of %zu), no crash",
		   n, len);
		is_int(err, -EFBIG, "the close says the write's errno");
		ok(strstr(e.msg, strerror(EFBIG)) != NULL, "and its message (%s)", e.msg);
		ok(access(path, F_OK) != 0, "no file at the path");
	}
	ok(rmdir(dir) == 0, "no temporary left (the folder is empty)");
	munmap(map, 5 * (size_t)page);
}

int main(void)
{
	test_outbuf();
	test_outfile_failed_write();
	test_xml_fit();
	test_stream_sink();
	test_utf8();
	return done_testing();
}
