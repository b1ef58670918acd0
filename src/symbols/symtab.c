/*
 * symtab: sorted symbol tables; see src/symbols/internal.h.  Tables are
 * built once (kallsyms: ~150k entries, libc: ~3k) and then only searched,
 * so a sorted array beats any tree.  Their names live in the context's
 * strarena (strintern.h).
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/xalloc.h"
#include "internal.h"

void symtab__release(struct symtab *t)
{
	free(t->syms);
	memset(t, 0, sizeof(*t));
}

struct sym *symtab__add(struct symtab *t, uint64_t start, uint64_t size, const char *name,
			const char *dso, unsigned char bind)
{
	struct sym *y;

	XGROW(t->syms, t->alloc, t->nr);
	y = &t->syms[t->nr++];
	y->start = start;
	y->end = size && start + size > start ? start + size : start;
	y->name = name;
	y->dso = dso;
	y->raw = NULL;
	y->seq = (uint32_t)(t->nr - 1);
	y->bind = bind;
	return y;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Aliases stay in the order they were added: qsort is not stable. */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * perf's choose_best_symbol(): of two names for one address, the one a
 * reader expects.  Matching it keeps our names equal to perf report's.
 */
static bool better(const struct sym *a, const struct sym *b)
{
	bool asz = a->end > a->start, bsz = b->end > b->start;
	size_t ua, ub, la, lb;

	if (asz != bsz)
		return asz;
	if ((a->bind == SYM_WEAK) != (b->bind == SYM_WEAK))
		return b->bind == SYM_WEAK;
	if ((a->bind == SYM_GLOBAL) != (b->bind == SYM_GLOBAL))
		return a->bind == SYM_GLOBAL;
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	return strcmp(a->name, b->name) <= 0;
}

static uint64_t roundup_page(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

void symtab__finish(struct symtab *t, bool kallsyms)
{
	size_t i, n = 0;

	if (!t->nr)
		return;
	qsort(t->syms, t->nr, sizeof(*t->syms), sym_cmp);
	for (i = 0; i < t->nr; i++) {
		if (n && t->syms[n - 1].start == t->syms[i].start) {
			struct sym *kept = &t->syms[n - 1];
			uint64_t end = kept->end > t->syms[i].end ? kept->end : t->syms[i].end;

			if (kallsyms || better(&t->syms[i], kept))
				*kept = t->syms[i];
			kept->end = end;
			continue;
		}
		t->syms[n++] = t->syms[i];
	}
	t->nr = n;
	for (i = 0; i + 1 < n; i++) {
		struct sym *y = &t->syms[i], *next = &t->syms[i + 1];

		if (y->end != y->start)
			continue;
		if (kallsyms && y->dso != next->dso) {
			/* Last symbol of the kernel or of a module: do not fill the gap. */
			y->end = roundup_page(y->start + 4096);
			if (y->end > next->start)
				y->end = next->start;
		} else {
			y->end = next->start;
		}
	}
	if (t->syms[n - 1].end == t->syms[n - 1].start)
		t->syms[n - 1].end = roundup_page(t->syms[n - 1].start) + 4096;
}

const struct sym *symtab__find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	/* Last symbol starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return addr < t->syms[lo - 1].end ? &t->syms[lo - 1] : NULL;
}
