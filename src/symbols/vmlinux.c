/*
 * vmlinux: the kernel's DWARF, for inline chains of kernel frames.
 *
 * kallsyms stays the source of kernel symbol names; a vmlinux (the
 * uncompressed kernel image with debug info, or its separate debuginfo)
 * only adds the functions inlined at a kernel address.  A vmlinux is used
 * only when its build-id equals the running kernel's, which the kernel
 * exports as the raw note section /sys/kernel/notes: a stale image would
 * name the wrong inline functions with full confidence.  Addresses are
 * relocated by KASLR's slide, the difference between kallsyms' _text (or
 * _stext) and the vmlinux's symbol of the same name.
 *
 * Search order without an explicit path (perf's vmlinux_path plus the
 * build-id link): /usr/lib/debug/.build-id/xx/rest.debug, then the usual
 * per-release places; each candidate is opened only as far as its notes
 * and symbol table until one matches.  Workload: once per recording; the
 * DWARF itself is opened on the first kernel inline lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "internal.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/*
 * ELF notes are (namesz, descsz, type) as 32-bit words, then the name and
 * the descriptor, each padded to the note alignment (4, or 8 for some
 * GNU property notes).  Bounds are checked against len at every step: the
 * buffer may come from any file.
 */
static int note_build_id(const unsigned char *p, size_t len, size_t align, char *hex,
			 size_t size)
{
	size_t pos = 0;

	while (len - pos >= 12) {
		uint32_t nh[3];
		size_t name, desc, next, i, n;

		memcpy(nh, p + pos, sizeof(nh));
		name = pos + 12;
		if (nh[0] > len - name)
			return -EINVAL;
		desc = name + align_up(nh[0], align);
		if (desc > len || nh[1] > len - desc)
			return -EINVAL;
		next = desc + align_up(nh[1], align);
		if (nh[2] == NT_GNU_BUILD_ID && nh[0] == 4 && !memcmp(p + name, "GNU", 4) &&
		    nh[1] > 0) {
			n = nh[1];
			if (size < 2 * n + 1)
				return -ENOSPC;
			for (i = 0; i < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", p[desc + i]);
			return 0;
		}
		if (next <= pos || next > len)
			break;
		pos = next;
	}
	return -ENOENT;
}

int symbols__note_build_id(const void *notes, size_t len, char *hex, size_t size)
{
	if (size)
		hex[0] = '\0';
	return note_build_id(notes, len, 4, hex, size);
}

int symbols__read_build_id_notes(const char *path, char *hex, size_t size)
{
	unsigned char buf[8192];
	size_t got = 0;
	ssize_t n;
	int fd, err;

	if (size)
		hex[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a sysfs binary attribute: read until EOF, not by its st_size */
	while (got < sizeof(buf) && (n = read(fd, buf + got, sizeof(buf) - got)) > 0)
		got += (size_t)n;
	err = n < 0 ? -errno : 0;
	close(fd);
	return err ? err : symbols__note_build_id(buf, got, hex, size);
}

/* What a candidate vmlinux says before its DWARF is opened. */
struct vmlinux_head {
	char build_id[64];	/* "" when it has none */
	uint64_t text, stext;	/* 0 when the symbol is missing */
};

static void head_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct vmlinux_head *h)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, nr;

	if (!d || !sh->sh_entsize)
		return;
	nr = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < nr && (!h->text || !h->stext); i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_name)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || name[0] != '_')
			continue;
		if (!strcmp(name, "_text"))
			h->text = sym.st_value;
		else if (!strcmp(name, "_stext"))
			h->stext = sym.st_value;
	}
}

/* Build-id and _text/_stext of path: 0, -errno, -ENOEXEC when not ELF. */
static int read_head(const char *path, struct vmlinux_head *h)
{
	Elf_Scn *scn = NULL;
	struct stat st;
	Elf *elf;
	int fd, err = 0;

	memset(h, 0, sizeof(*h));
	/* O_NONBLOCK: --vmlinux of a FIFO without a writer waited for ever */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			head_symbols(elf, scn, &sh, h);
		} else if (sh.sh_type == SHT_NOTE && !h->build_id[0] &&
			   (d = elf_rawdata(scn, NULL)) && d->d_buf) {
			note_build_id(d->d_buf, d->d_size, sh.sh_addralign == 8 ? 8 : 4,
				      h->build_id, sizeof(h->build_id));
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

int vmlinux__check(const char *path, const char *want_build_id, const char *whose,
		   uint64_t ktext, uint64_t kstext, uint64_t *slide, struct errmsg *e)
{
	struct vmlinux_head h;
	int err = read_head(path, &h);

	if (err == -ENOEXEC)
		return errmsg__set(e, err, "not an ELF file");
	if (err)
		return errmsg__set(e, err, "cannot open: %s", strerror(-err));
	if (want_build_id && want_build_id[0] && strcmp(h.build_id, want_build_id))
		return errmsg__set(e, -ESTALE,
				   "build-id %s does not match the %s kernel's %s",
				   h.build_id[0] ? h.build_id : "(none)", whose, want_build_id);
	/* KASLR: the same symbol in both tells how far the kernel moved */
	if (ktext && h.text)
		*slide = ktext - h.text;
	else if (kstext && h.stext)
		*slide = kstext - h.stext;
	else if (!ktext && !kstext)
		return errmsg__set(e, -ENODATA,
				   "kallsyms gave no _text or _stext (addresses hidden?): cannot place it");
	else
		return errmsg__set(e, -ENODATA, "no _text or _stext symbol in it: cannot place it");
	return 0;
}

size_t vmlinux__candidates(const char *release, const char *build_id, char (*out)[PATH_MAX],
			   size_t max)
{
	size_t n = 0;

	if (build_id && strlen(build_id) > 2 && n < max)
		snprintf(out[n++], PATH_MAX, "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
			 build_id + 2);
	if (!release || !release[0])
		return n;
	if (n < max)
		snprintf(out[n++], PATH_MAX, "/usr/lib/debug/boot/vmlinux-%s", release);
	if (n < max)
		snprintf(out[n++], PATH_MAX, "/usr/lib/debug/lib/modules/%s/vmlinux", release);
	if (n < max)
		snprintf(out[n++], PATH_MAX, "/boot/vmlinux-%s", release);
	if (n < max)
		snprintf(out[n++], PATH_MAX, "/lib/modules/%s/build/vmlinux", release);
	if (n < max)
		snprintf(out[n++], PATH_MAX, "/usr/lib/debug/boot/vmlinux-%s.debug", release);
	return n;
}

/* The running release, from uname(2); "" when unknown. */
void vmlinux__release(char *buf, size_t size)
{
	struct utsname u;

	if (uname(&u))
		buf[0] = '\0';
	else
		snprintf(buf, size, "%s", u.release);
}
