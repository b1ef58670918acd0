/*
 * kallsyms: the kernel's own symbol table, /proc/kallsyms, as one sorted
 * symtab for the core kernel and every module.
 *
 * Read once per recording (~150k lines, tens of milliseconds).  Only text
 * symbols (t, T, w, W) are kept: samples and callchains point into code.
 * A line is "ADDR TYPE NAME" with "\t[MODULE]" appended for module symbols;
 * BPF programs and ftrace trampolines appear as pseudo-modules ("[bpf]",
 * "[__builtin__ftrace]") and are treated the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/errmsg.h"
#include "internal.h"

static int kptr_restrict(void)
{
	FILE *fp = fopen("/proc/sys/kernel/kptr_restrict", "re");
	int v = -1;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

static unsigned char kallsyms_bind(char type)
{
	/* perf's kallsyms2elf_binding(): only 'W' is weak. */
	if (type == 'W')
		return SYM_WEAK;
	return type >= 'A' && type <= 'Z' ? SYM_GLOBAL : SYM_LOCAL;
}

int kallsyms__read(struct symtab *t, const char *path, struct strarena *names,
		   struct strintern *pool, const char *kernel_dso, struct errmsg *e)
{
	size_t nr_lines = 0, nr_nonzero = 0, cap = 0;
	char *line = NULL;
	FILE *fp;
	int err = 0;

	fp = fopen(path, "re");
	if (!fp)
		return errmsg__set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	while (getline(&line, &cap, fp) > 0) {
		char *p = line, *end, *name, *mod;
		const char *dso = kernel_dso;
		unsigned long long addr;
		size_t nlen;
		char type;

		addr = strtoull(p, &end, 16);
		if (end == p || (*end != ' ' && *end != '\t'))
			continue;
		nr_lines++;
		if (addr)
			nr_nonzero++;
		p = end + strspn(end, " \t");
		type = *p;
		if (!type || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		p++;
		name = p + strspn(p, " \t");
		nlen = strcspn(name, " \t\r\n");
		if (!nlen)
			continue;
		mod = name + nlen;
		mod += strspn(mod, " \t");
		if (*mod == '[') {
			size_t mlen = strcspn(mod, "]\r\n");

			if (mod[mlen] == ']')
				dso = strintern__xptr(pool, mod, mlen + 1);
		}
		symtab__add(t, addr, 0, strarena__xdup(names, name, nlen), dso,
			    kallsyms_bind(type));
	}
	if (ferror(fp))
		err = errmsg__set(e, -EIO, "cannot read '%s': %s", path, strerror(errno));
	free(line);
	fclose(fp);
	if (err)
		goto fail;
	if (!nr_lines) {
		err = errmsg__set(e, -ENODATA, "cannot use '%s': no symbols in it", path);
		goto fail;
	}
	if (!nr_nonzero && kptr_restrict() == 0) {
		/* kallsyms_show_value(): with kptr_restrict 0 the addresses
		 * are shown to users only while perf_event_paranoid <= 1 */
		err = errmsg__set(e, -EACCES,
				  "cannot use '%s': kernel addresses are hidden (kernel.perf_event_paranoid > 1); "
				  "run as root or set 'sysctl kernel.perf_event_paranoid=1' to name kernel frames",
				  path);
		goto fail;
	}
	if (!nr_nonzero) {
		err = errmsg__set(e, -EACCES,
				  "cannot use '%s': kernel addresses are hidden (kernel.kptr_restrict=%d); "
				  "run as root or set 'sysctl kernel.kptr_restrict=0' to name kernel frames",
				  path, kptr_restrict());
		goto fail;
	}
	symtab__finish(t, true);
	return 0;
fail:
	symtab__release(t);
	return err;
}

void kallsyms__anchors(const char *path, struct kallsyms_anchors *a)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *fp;

	memset(a, 0, sizeof(*a));
	fp = fopen(path, "re");
	if (!fp)
		return;
	/* both sit at the start of kernel text, among the first lines */
	while ((!a->text || !a->stext) && getline(&line, &cap, fp) > 0) {
		char name[16];
		unsigned long long addr;
		char type;

		if (sscanf(line, "%llx %c %15s", &addr, &type, name) != 3 || (type != 'T' && type != 't'))
			continue;
		if (!strcmp(name, "_text"))
			a->text = addr;
		else if (!strcmp(name, "_stext"))
			a->stext = addr;
	}
	free(line);
	fclose(fp);
}
