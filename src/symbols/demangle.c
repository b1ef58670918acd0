/*
 * demangle: C++ and Rust symbol names as a reader (and perf report) spells
 * them, through libiberty's cplus_demangle.
 *
 * Why libiberty: it is the demangler of binutils and GCC, kept in step with
 * both compilers' manglings, and it is what perf uses (through libbfd or
 * directly): the same input gives perf's output byte for byte.  It covers
 * the Itanium C++ ABI and Rust's legacy and v0 schemes ("_ZN..17h<hash>E",
 * "_R..."); __cxa_demangle would give C++ only and always prints parameter
 * lists, which perf leaves out.  Debian ships it as a static archive
 * (libiberty-dev), so the binary gains no runtime dependency.
 *
 * Options: none (DMGL_NO_OPTS), as perf report without -v: no parameter
 * lists ("ns::Box<int>::spin", not "ns::Box<int>::spin(int, int)"), Rust
 * without the hash suffix.  Names that are not mangled come back NULL.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"

struct dembuf {
	char *s;
	size_t len, alloc;
};

static void dembuf_put(const char *piece, size_t len, void *opaque)
{
	struct dembuf *b = opaque;

	if (b->len + len + 1 > b->alloc) {
		b->alloc = (b->len + len + 1) * 2;
		b->s = xrealloc(b->s, b->alloc);
	}
	memcpy(b->s + b->len, piece, len);
	b->len += len;
	b->s[b->len] = '\0';
}

char *symbols__demangle(const char *raw)
{
	struct dembuf b = { NULL, 0, 0 };

	/*
	 * Every mangling tried here starts with '_' ("_Z", "_R", "_GLOBAL_"):
	 * skip plain C names, nearly all of a symbol table.
	 */
	if (!raw || raw[0] != '_')
		return NULL;
	/*
	 * cplus_demangle()'s auto mode, minus the styles no ELF file of
	 * ours carries (Java, GNAT, D): Rust first, because legacy Rust
	 * names are valid C++ manglings too, then C++.  The callback forms
	 * are used because they live in objects that need only libc: the
	 * allocating wrappers pull libiberty's xmalloc, which would clash
	 * with ours at link time.
	 */
	if (!rust_demangle_callback(raw, DMGL_NO_OPTS, dembuf_put, &b) || !b.len) {
		b.len = 0;
		if (!cplus_demangle_v3_callback(raw, DMGL_NO_OPTS, dembuf_put, &b) || !b.len) {
			free(b.s);
			return NULL;
		}
	}
	if (!strcmp(b.s, raw)) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

const char *symname__store(struct strarena *names, const char *raw, const char **raw_out)
{
	char *dem = symbols__demangle(raw);
	const char *name;

	if (!dem) {
		*raw_out = NULL;
		return strarena__xdup(names, raw, strlen(raw));
	}
	name = strarena__xdup(names, dem, strlen(dem));
	free(dem);
	*raw_out = strarena__xdup(names, raw, strlen(raw));
	return name;
}
