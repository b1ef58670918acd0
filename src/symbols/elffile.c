/*
 * elffile: the function symbols, PT_LOAD layout and build-id of one ELF
 * file, read with libelf; see src/symbols/internal.h.
 *
 * Symbols come from .symtab when the file has one, else from .dynsym (a
 * stripped binary or a distro library), as perf does.  Kept: FUNC and
 * IFUNC symbols, and NOTYPE labels inside executable sections (hand-written
 * assembly often has no types).  st_value is an ELF virtual address for
 * ET_EXEC and ET_DYN; relocatable objects (ET_REL) cannot be placed from a
 * mapping and are refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static void read_build_id(Elf *elf, const GElf_Phdr *ph, struct elffile *f)
{
	Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
					   ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	size_t pos = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d)
		return;
	while ((pos = gelf_getnote(d, pos, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *desc = (const unsigned char *)d->d_buf + desc_off;
		size_t i, n;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
			continue;
		n = nh.n_descsz < 20 ? nh.n_descsz : 20;
		for (i = 0; i < n; i++)
			snprintf(f->build_id + 2 * i, 3, "%02x", desc[i]);
		return;
	}
}

static int read_segments(Elf *elf, struct elffile *f)
{
	size_t i, phnum, alloc = 0;

	if (elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_NOTE && !f->build_id[0])
			read_build_id(elf, &ph, f);
		if (ph.p_type != PT_LOAD)
			continue;
		XGROW(f->loads, alloc, f->nr_loads);
		f->loads[f->nr_loads++] = (struct load_seg){
			.offset = ph.p_offset, .vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz, .memsz = ph.p_memsz,
		};
	}
	return f->nr_loads ? 0 : -ENOEXEC;
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dynsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB && sh->sh_entsize)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && sh->sh_entsize && !dyn) {
			dyn = scn;
			dynsh = *sh;
		}
	}
	if (dyn)
		*sh = dynsh;
	return dyn;
}

/* Which section indexes hold code, for untyped labels. */
static bool *exec_sections(Elf *elf, size_t *nr)
{
	Elf_Scn *scn = NULL;
	bool *exec;

	if (elf_getshdrnum(elf, nr))
		*nr = 0;
	exec = xcalloc(*nr ? *nr : 1, sizeof(*exec));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		size_t i = elf_ndxscn(scn);

		if (i < *nr && gelf_getshdr(scn, &sh))
			exec[i] = (sh.sh_flags & SHF_EXECINSTR) != 0;
	}
	return exec;
}

static void read_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elffile *f,
			 struct strarena *names)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n, nsec;
	bool *exec;

	if (!d)
		return;
	n = sh->sh_size / sh->sh_entsize;
	exec = exec_sections(elf, &nsec);
	for (i = 0; i < n; i++) {
		GElf_Sym y;
		const char *name, *dem, *raw;
		int type;
		unsigned char bind;

		if (!gelf_getsym(d, (int)i, &y) || !y.st_name || y.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(y.st_info);
		if (type == STT_NOTYPE) {
			if (y.st_shndx >= nsec || !exec[y.st_shndx])
				continue;
		} else if (type != STT_FUNC && type != STT_GNU_IFUNC) {
			continue;
		}
		name = elf_strptr(elf, sh->sh_link, y.st_name);
		/* ARM/AArch64 mapping symbols ($x, $d) name no function. */
		if (!name || !*name || name[0] == '$')
			continue;
		switch (GELF_ST_BIND(y.st_info)) {
		case STB_GLOBAL:
			bind = SYM_GLOBAL;
			break;
		case STB_WEAK:
			bind = SYM_WEAK;
			break;
		default:
			bind = SYM_LOCAL;
		}
		dem = symname__store(names, name, &raw);
		symtab__add(&f->tab, y.st_value, y.st_size, dem, NULL, bind)->raw = raw;
	}
	free(exec);
}

/*
 * An IRELATIVE slot (a library calling its own IFUNC, e.g. libc's memcpy)
 * has no symbol, only the resolver's address: name it after the IFUNC
 * there.  perf 6.1 prints a bare "@plt" for these, newer perf "*ABS*+0x..".
 */
static const char *ifunc_at(Elf *elf, Elf_Data *dd, const GElf_Shdr *dsh, uint64_t addr)
{
	size_t i, n = dsh->sh_entsize ? dsh->sh_size / dsh->sh_entsize : 0;
	const char *best = NULL;

	for (i = 1; i < n; i++) {
		GElf_Sym y;
		const char *name;

		if (!gelf_getsym(dd, (int)i, &y) || y.st_value != addr ||
		    GELF_ST_TYPE(y.st_info) != STT_GNU_IFUNC ||
		    !(name = elf_strptr(elf, dsh->sh_link, y.st_name)))
			continue;
		/* Of the aliases, the public name: fewest leading underscores. */
		if (!best || strspn(name, "_") < strspn(best, "_"))
			best = name;
	}
	return best;
}

/*
 * Name the PLT stubs "fn@plt" as perf does, so that a sample in a stub is
 * not "[unknown]".  Stub i of .plt.sec (IBT builds) or of .plt after its
 * 16-byte header serves relocation i of .rela.plt (x86-64 layout).
 */
static void read_plt(Elf *elf, struct elffile *f, struct strarena *names)
{
	Elf_Scn *scn = NULL, *rela = NULL, *dynsym;
	GElf_Shdr sh, rsh = { 0 }, plt = { 0 }, pltsec = { 0 }, dsh;
	Elf_Data *rd, *dd;
	uint64_t base, entsize;
	size_t shstrndx, i, n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA && sh.sh_entsize) {
			rela = scn;
			rsh = sh;
		} else if (!strcmp(name, ".plt")) {
			plt = sh;
		} else if (!strcmp(name, ".plt.sec")) {
			pltsec = sh;
		}
	}
	if (!rela || (!plt.sh_size && !pltsec.sh_size))
		return;
	if (pltsec.sh_size) {
		base = pltsec.sh_addr;
		entsize = pltsec.sh_entsize ? pltsec.sh_entsize : 16;
	} else {
		base = plt.sh_addr + 16;
		entsize = plt.sh_entsize ? plt.sh_entsize : 16;
	}
	dynsym = elf_getscn(elf, rsh.sh_link);
	if (!dynsym || !gelf_getshdr(dynsym, &dsh) || !(dd = elf_getdata(dynsym, NULL)) ||
	    !(rd = elf_getdata(rela, NULL)))
		return;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n; i++) {
		char buf[512], *dem;
		const char *name = NULL;
		GElf_Rela r;
		GElf_Sym y;
		int len;

		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		if (GELF_R_SYM(r.r_info)) {
			if (gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &y))
				name = elf_strptr(elf, dsh.sh_link, y.st_name);
		} else {
			name = ifunc_at(elf, dd, &dsh, (uint64_t)r.r_addend);
		}
		/* perf demangles the target before appending "@plt". */
		if (name && *name && (dem = symbols__demangle(name))) {
			len = snprintf(buf, sizeof(buf), "%s@plt", dem);
			free(dem);
		} else if (name && *name)
			len = snprintf(buf, sizeof(buf), "%s@plt", name);
		else	/* newer perf's spelling for a slot it cannot name */
			len = snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64 "@plt",
				       (uint64_t)r.r_addend);
		if (len <= 0 || (size_t)len >= sizeof(buf))
			continue;
		symtab__add(&f->plt, base + i * entsize, entsize,
			    strarena__xdup(names, buf, (size_t)len), NULL, SYM_GLOBAL);
	}
}

static void add_all(struct symtab *to, const struct symtab *from)
{
	size_t i;

	for (i = 0; i < from->nr; i++) {
		const struct sym *y = &from->syms[i];

		symtab__add(to, y->start, y->end - y->start, y->name, NULL, y->bind)->raw = y->raw;
	}
}

/*
 * .gnu_debuglink: the debug file's name, NUL, padding to 4, its CRC-32
 * (objcopy --add-gnu-debuglink), for stripped files whose debuginfo was
 * split off without a build-id tree.
 */
static void read_debuglink(Elf *elf, struct elffile *f)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;
		GElf_Shdr sh;
		size_t len, crc_off;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".gnu_debuglink") || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		len = strnlen(d->d_buf, d->d_size);
		crc_off = (len + 4) & ~(size_t)3;
		/* A name with a '/' would leave the directories we search. */
		if (!len || len >= sizeof(f->debuglink) || crc_off + 4 > d->d_size ||
		    memchr(d->d_buf, '/', len))
			return;
		memcpy(f->debuglink, d->d_buf, len);
		f->debuglink[len] = '\0';
		memcpy(&f->debuglink_crc, (const char *)d->d_buf + crc_off, 4);
		return;
	}
}

/*
 * The CRC-32 of .gnu_debuglink is zlib's (IEEE 802.3, reflected): zlib's
 * own, whose table is built at compile time.  The lazily built table this
 * replaced raced: a second thread (a diff loads two files at once) could
 * see its first entries filled and read the rest still 0.
 */
int elffile__crc32(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	if (n < 0)
		return -EIO;
	*crc = (uint32_t)c;
	return 0;
}

int elffile__parse(struct elffile *f, int fd, void *image, size_t size, struct strarena *names)
{
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int err = -ENOEXEC;

	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : elf_memory(image, size);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		goto out;
	err = read_segments(elf, f);
	if (err)
		goto out;
	scn = find_symtab(elf, &sh);
	if (scn) {
		f->has_symtab = sh.sh_type == SHT_SYMTAB;
		read_symbols(elf, scn, &sh, f, names);
	}
	read_plt(elf, f, names);
	read_debuglink(elf, f);
	add_all(&f->tab, &f->plt);
	symtab__finish(&f->tab, false);
out:
	elf_end(elf);
	return err;
}

int elffile__use_debuginfo(struct elffile *f, const char *path, struct strarena *names)
{
	struct elffile dbg = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int fd, err = -ENOEXEC;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);	/* never wait on a FIFO */
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		goto out_close;
	scn = find_symtab(elf, &sh);
	if (!scn || sh.sh_type != SHT_SYMTAB)
		goto out_end;
	read_symbols(elf, scn, &sh, &dbg, names);
	if (!dbg.tab.nr)
		goto out_end;
	add_all(&dbg.tab, &f->plt);
	symtab__finish(&dbg.tab, false);
	symtab__release(&f->tab);
	f->tab = dbg.tab;
	dbg.tab.syms = NULL;
	f->has_symtab = true;
	free(f->symfile);
	f->symfile = xstrdup(path);
	err = 0;
out_end:
	symtab__release(&dbg.tab);
	elf_end(elf);
out_close:
	close(fd);
	return err;
}

int elffile__use_same_build(struct elffile *f, const char *path, struct strarena *names)
{
	struct elffile c = { 0 };
	struct stat st;
	Elf *elf;
	int fd, err = -ESTALE;

	if (!f->build_id[0])
		return -ESTALE;
	/* a FIFO planted there would block an open without O_NONBLOCK */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !read_segments(elf, &c) && !strcmp(c.build_id, f->build_id))
		err = 0;
	free(c.loads);
	if (elf)
		elf_end(elf);
	close(fd);
	return err ? err : elffile__use_debuginfo(f, path, names);
}

void elffile__release(struct elffile *f)
{
	if (!f)
		return;
	elffile__close_dwarf(f);
	free(f->symfile);
	free(f->loads);
	symtab__release(&f->tab);
	symtab__release(&f->plt);
	memset(f, 0, sizeof(*f));
}

bool elffile__offset_to_vaddr(const struct elffile *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	/* File-backed bytes first; code is never in the zero-filled tail. */
	for (i = 0; i < f->nr_loads; i++) {
		const struct load_seg *l = &f->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	for (i = 0; i < f->nr_loads; i++) {
		const struct load_seg *l = &f->loads[i];

		if (off >= l->offset && off - l->offset < l->memsz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}
