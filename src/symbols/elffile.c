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
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			 struct arena *names)
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
		const char *name;
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
		symtab__add(&f->tab, y.st_value, y.st_size,
			    arena__strndup(names, name, strlen(name)), NULL, bind);
	}
	free(exec);
}

int elffile__parse(struct elffile *f, int fd, void *image, size_t size, struct arena *names)
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
	if (scn)
		read_symbols(elf, scn, &sh, f, names);
	symtab__finish(&f->tab, false);
out:
	elf_end(elf);
	return err;
}

void elffile__release(struct elffile *f)
{
	if (!f)
		return;
	free(f->loads);
	symtab__release(&f->tab);
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
