/*
 * inline: the chain of functions the compiler inlined at an address, from
 * DWARF with libdw, as `addr2line -i -f` prints it.
 *
 * dwarf_getscopes() on the CU gives the scopes containing the address but
 * stops at the first concrete function; the whole chain comes from
 * dwarf_getscopes_die() on that innermost scope, which walks the abstract
 * origins outwards (libperf-notes.md: plain dwarf_getscopes showed one
 * level only).  Each DW_TAG_inlined_subroutine is one inlined call; the
 * chain ends at the DW_TAG_subprogram that received them.  Names: the
 * linkage name demangled (C++: "ns::f", as the symbol table gives after
 * demangling), else DW_AT_name (C).  Workload: one query per distinct
 * sampled address with --inline; the Dwarf handle stays open per file.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/symbols.h"
#include "internal.h"

static Dwarf *open_dwarf(struct elffile *f, const char *path)
{
	if (f->dwarf_tried)
		return f->dwarf;
	f->dwarf_tried = true;
	f->dwarf_fd = open(f->symfile ? f->symfile : path, O_RDONLY | O_CLOEXEC);
	if (f->dwarf_fd < 0)
		return NULL;
	f->dwarf = dwarf_begin(f->dwarf_fd, DWARF_C_READ);
	if (!f->dwarf) {
		close(f->dwarf_fd);
		f->dwarf_fd = -1;
	}
	return f->dwarf;
}

void elffile__close_dwarf(struct elffile *f)
{
	if (f->dwarf)
		dwarf_end(f->dwarf);
	if (f->dwarf && f->dwarf_fd >= 0)
		close(f->dwarf_fd);
	f->dwarf = NULL;
	f->dwarf_fd = -1;
}

static const char *die_name(Dwarf_Die *die, struct strarena *arena)
{
	Dwarf_Attribute at;
	const char *name = NULL;
	char *dem;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	if (name && (dem = symbols__demangle(name))) {
		name = strarena__xdup(arena, dem, strlen(dem));
		free(dem);
		return name;
	}
	if (!name)
		name = dwarf_diename(die);
	return name ? strarena__xdup(arena, name, strlen(name)) : NULL;
}

size_t elffile__inline_chain(struct elffile *f, const char *path, uint64_t vaddr,
			     const char **names, size_t max, struct strarena *arena)
{
	Dwarf *dw = open_dwarf(f, path);
	Dwarf_Die cu, *scopes = NULL, inner;
	int nscopes, i;
	size_t n = 0;

	if (!dw || !max || !dwarf_addrdie(dw, vaddr, &cu))
		return 0;
	nscopes = dwarf_getscopes(&cu, vaddr, &scopes);
	for (i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			break;
	}
	if (i >= nscopes) {
		free(scopes);
		return 0;
	}
	inner = scopes[i];
	free(scopes);
	scopes = NULL;
	nscopes = dwarf_getscopes_die(&inner, &scopes);
	for (i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		name = die_name(&scopes[i], arena);
		names[n++] = name ? name : "??";
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return n;
}
