/*
 * test-vmlinux: the pieces of kernel inline chains that need no sampling.
 *
 * - symbols__note_build_id() on hand-built note buffers: the GNU build-id
 *   after notes of other owners with padded names and descriptors (as in
 *   /sys/kernel/notes: Xen and Linux notes), truncation, small buffers;
 *   and on the running kernel's /sys/kernel/notes, against a witness
 *   that finds the same bytes by searching for the "GNU" owner.
 * - symbols__use_vmlinux(): a fake kernel built here with cc and ld, its
 *   _text at 0xffffffff81000000, and a kallsyms file whose _text is
 *   0xffffffff9a200000 (a KASLR slide); the inline chain at a running
 *   address must be what addr2line -i -f prints at address - slide.  Then
 *   the slide from _stext alone, a wrong build-id, a non-ELF file, a
 *   missing file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "tap.h"

#define FAKE_ID "0123456789abcdef0123456789abcdef01234567"

static size_t put_note(unsigned char *buf, size_t pos, uint32_t type, const char *name,
		       size_t namesz, const unsigned char *desc, uint32_t descsz)
{
	uint32_t h[3] = { (uint32_t)namesz, descsz, type };

	memcpy(buf + pos, h, sizeof(h));
	pos += sizeof(h);
	memset(buf + pos, 0, (namesz + 3) / 4 * 4);
	memcpy(buf + pos, name, namesz);
	pos += (namesz + 3) / 4 * 4;
	memset(buf + pos, 0, (descsz + 3) / 4 * 4);
	memcpy(buf + pos, desc, descsz);
	return pos + (descsz + 3) / 4 * 4;
}

static void test_notes(void)
{
	static const unsigned char id[20] = { 0x48, 0xdc, 0x54, 0x0c, 0x8b, 0x76, 0x39, 0x38,
					      0x04, 0xca, 0x80, 0x88, 0xdb, 0xfa, 0x7d, 0x42,
					      0x91, 0x1a, 0x94, 0x44 };
	static const unsigned char xen[5] = { 1, 2, 3, 4, 5 };
	unsigned char buf[256];
	char hex[41], small[10];
	size_t len = 0, id_end;

	len = put_note(buf, len, 6, "Linux", 6, xen, 5);	/* padded name and desc */
	len = put_note(buf, len, 1, "GNU", 4, xen, 4);		/* GNU, not a build-id */
	len = put_note(buf, len, 3, "GNU", 4, id, 20);
	id_end = len;
	len = put_note(buf, len, 18, "Xen", 4, xen, 5);
	is_int(symbols__note_build_id(buf, len, hex, sizeof(hex)), 0, "build-id after other notes");
	is_str(hex, "48dc540c8b76393804ca8088dbfa7d42911a9444", "its hex");
	is_int(symbols__note_build_id(buf, id_end - 1, hex, sizeof(hex)), -EINVAL,
	       "a note cut in its descriptor is refused");
	is_int(symbols__note_build_id(buf, 36, hex, sizeof(hex)), -ENOENT,
	       "no build-id note: -ENOENT");
	is_int(symbols__note_build_id(buf, len, small, sizeof(small)), -ENOSPC,
	       "too small for the hex: -ENOSPC");
	is_int(symbols__note_build_id(buf, 0, hex, sizeof(hex)), -ENOENT, "empty buffer");
	buf[0] = 0xff;	/* a namesz past the end */
	buf[1] = 0xff;
	is_int(symbols__note_build_id(buf, len, hex, sizeof(hex)), -EINVAL,
	       "a name size past the end is refused");
}

/* The running kernel's build-id found by a plain search for "GNU\0". */
static void test_running(void)
{
	unsigned char buf[8192];
	char got[64], want[41] = "";
	ssize_t n;
	size_t i;
	int fd = open("/sys/kernel/notes", O_RDONLY);

	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	for (i = 12; n > 0 && i + 24 <= (size_t)n; i += 4) {
		uint32_t h[3];
		size_t k;

		memcpy(h, buf + i - 12, sizeof(h));
		if (h[0] != 4 || h[1] != 20 || h[2] != 3 || memcmp(buf + i, "GNU", 4))
			continue;
		for (k = 0; k < 20; k++)
			snprintf(want + 2 * k, 3, "%02x", buf[i + 4 + k]);
		break;
	}
	ok(want[0], "witness found the running kernel's build-id in /sys/kernel/notes");
	is_int(symbols__read_build_id_notes("/sys/kernel/notes", got, sizeof(got)), 0,
	       "read /sys/kernel/notes");
	is_str(got, want, "the same build-id");
	is_int(symbols__read_build_id_notes("/nonexistent/notes", got, sizeof(got)), -ENOENT,
	       "missing notes file");
}

static int sh(const char *cmd, char *out, size_t size)
{
	FILE *fp = popen(cmd, "r");
	size_t got = 0;

	if (!fp)
		return -1;
	if (out) {
		got = fread(out, 1, size - 1, fp);
		out[got] = '\0';
	} else {
		char sink[256];

		while (fread(sink, 1, sizeof(sink), fp) > 0)
			;
	}
	return pclose(fp);
}

static int write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

static void test_vmlinux(const char *dir)
{
	char path[512], kall[512], kall2[512], cmd[2048], a2l[512], want[512], *save;
	const char *names[8];
	struct errmsg e = { "" };
	struct symbols *s;
	size_t n, i;

	snprintf(path, sizeof(path), "%s/fake.c", dir);
	write_file(path,
		   "static inline __attribute__((always_inline)) void kv_leaf(void)\n"
		   "{ __asm__ volatile(\".skip 31, 0x90\"); }\n"
		   "static inline __attribute__((always_inline)) void kv_mid(void) { kv_leaf(); }\n"
		   "void kv_victim(void);\nvoid kv_victim(void) { kv_mid(); }\n");
	snprintf(path, sizeof(path), "%s/fake.lds", dir);
	write_file(path, "SECTIONS {\n _text = 0xffffffff81000000;\n _stext = _text;\n"
		   " . = 0xffffffff81001000;\n .text : { *(.text .text.*) }\n"
		   " .note.gnu.build-id : { *(.note.gnu.build-id) }\n"
		   " /DISCARD/ : { *(.eh_frame) *(.note.GNU-stack) *(.comment) }\n}\n");
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cc -c -O2 -g -mcmodel=kernel -ffreestanding -fno-pic -fno-pie "
		 "-nostdlib -fcf-protection=none -fno-asynchronous-unwind-tables "
		 "-falign-functions=1 -o fake.o fake.c && "
		 "ld -T fake.lds --build-id=0x" FAKE_ID " -o vmlinux fake.o && "
		 "ld -T fake.lds --build-id=none -o vmlinux-noid fake.o", dir);
	ok(sh(cmd, NULL, 0) == 0, "fake vmlinux built with cc and ld");

	/* kallsyms as a KASLR'd kernel shows it: slide 0x19200000 */
	snprintf(kall, sizeof(kall), "%s/kallsyms", dir);
	write_file(kall, "ffffffff9a200000 T _stext\nffffffff9a200000 T _text\n"
		   "ffffffff9a201000 T kv_victim\nffffffff9a201020 T kv_after\n");
	snprintf(kall2, sizeof(kall2), "%s/kallsyms-stext", dir);
	write_file(kall2, "ffffffff9a200000 T _stext\n"
		   "ffffffff9a201000 T kv_victim\nffffffff9a201020 T kv_after\n");

	snprintf(cmd, sizeof(cmd), "addr2line -i -f -e %s/vmlinux 0xffffffff81001004", dir);
	sh(cmd, a2l, sizeof(a2l));
	want[0] = '\0';
	for (char *line = strtok_r(a2l, "\n", &save), k = 0; line; line = strtok_r(NULL, "\n", &save), k ^= 1)
		if (!k)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s ", line);
	is_str(want, "kv_leaf kv_mid kv_victim ", "addr2line -i -f on the fake at _text + 0x1004");

	s = symbols__new();
	is_int(symbols__load_kallsyms(s, kall, &e), 0, "fake kallsyms loaded");
	ok(!symbols__vmlinux(s), "no vmlinux attached yet");
	is_int(symbols__kernel_inline_chain(s, 0xffffffff9a201004, names, 8), 0,
	       "no chain without a vmlinux");
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	ok(symbols__use_vmlinux(s, path, FAKE_ID, &e) == 0, "fake vmlinux with its build-id: %s",
	   e.msg);
	ok(symbols__vmlinux(s) && strstr(symbols__vmlinux(s), "/vmlinux"), "attached");
	n = symbols__kernel_inline_chain(s, 0xffffffff9a201004, names, 8);
	a2l[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(a2l + strlen(a2l), sizeof(a2l) - strlen(a2l), "%s ", names[i]);
	is_str(a2l, want, "chain at the running address = addr2line at address - slide");
	is_int(symbols__kernel_inline_chain(s, 0xffffffff81001004, names, 8), 0,
	       "the unrelocated address is not in the DWARF's range (slide applied)");
	is_int(symbols__kernel_inline_chain(s, 0xffffffff9a201004, names, 2), 2,
	       "max bounds the chain");

	e.msg[0] = '\0';
	is_int(symbols__use_vmlinux(s, path, "00" FAKE_ID, &e), -ESTALE, "another build-id: -ESTALE");
	ok(strstr(e.msg, "build-id " FAKE_ID " does not match the running kernel's 00" FAKE_ID),
	   "message names both build-ids: %s", e.msg);
	ok(symbols__vmlinux(s), "a refused file leaves the attached one");
	snprintf(path, sizeof(path), "%s/vmlinux-noid", dir);
	is_int(symbols__use_vmlinux(s, path, FAKE_ID, &e), -ESTALE, "no build-id at all: -ESTALE");
	ok(strstr(e.msg, "build-id (none)"), "said so: %s", e.msg);
	is_int(symbols__use_vmlinux(s, path, NULL, &e), 0, "no build-id wanted: taken");
	is_int(symbols__use_vmlinux(s, kall, NULL, &e), -ENOEXEC, "kallsyms text is not ELF");
	snprintf(path, sizeof(path), "%s/none", dir);
	is_int(symbols__use_vmlinux(s, path, NULL, &e), -ENOENT, "missing file: -ENOENT");
	symbols__free(s);

	/* only _stext in kallsyms: the slide comes from it */
	s = symbols__new();
	is_int(symbols__load_kallsyms(s, kall2, &e), 0, "kallsyms with _stext only");
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	is_int(symbols__use_vmlinux(s, path, FAKE_ID, &e), 0, "attached by _stext");
	n = symbols__kernel_inline_chain(s, 0xffffffff9a201010, names, 8);
	ok(n == 3 && !strcmp(names[0], "kv_leaf") && !strcmp(names[2], "kv_victim"),
	   "chain through the _stext slide (%zu names)", n);
	symbols__free(s);

	/* no kallsyms at all: nothing to place the vmlinux by */
	s = symbols__new();
	is_int(symbols__use_vmlinux(s, path, FAKE_ID, &e), -ENODATA, "no kallsyms: -ENODATA");
	symbols__free(s);
}

int main(void)
{
	char dir[] = "/tmp/test-vmlinux.XXXXXX", cmd[128];

	test_notes();
	test_running();
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return done_testing();
	}
	test_vmlinux(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		ok(0, "cleanup of %s", dir);
	return done_testing();
}
