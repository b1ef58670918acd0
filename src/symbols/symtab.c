/*
 * symtab: sorted symbol tables and the string storage behind them; see
 * src/symbols/internal.h.  Tables are built once (kallsyms: ~150k entries,
 * libc: ~3k) and then only searched, so a sorted array beats any tree.
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/xalloc.h"
#include "internal.h"

#define ARENA_CHUNK (256 * 1024)

void arena__release(struct arena *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		free(a->chunks[i]);
	free(a->chunks);
	memset(a, 0, sizeof(*a));
}

const char *arena__strndup(struct arena *a, const char *s, size_t len)
{
	char *p;

	if (len + 1 > a->left) {
		/* A name longer than a chunk (C++ templates can be) gets its own. */
		size_t sz = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;

		XGROW(a->chunks, a->alloc, a->nr);
		a->chunks[a->nr++] = a->cur = xmalloc(sz);
		a->left = sz;
	}
	p = a->cur;
	memcpy(p, s, len);
	p[len] = '\0';
	a->cur += len + 1;
	a->left -= len + 1;
	return p;
}

struct strkey {
	const char *s;
	size_t len;
};

static bool strpool_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct strpool *p = ctx;
	const struct strkey *k = key;

	return !strncmp(p->strs[row], k->s, k->len) && p->strs[row][k->len] == '\0';
}

void strpool__release(struct strpool *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->strs[i]);
	free(p->strs);
	hashidx__release(&p->idx);
	memset(p, 0, sizeof(*p));
}

const char *strpool__intern(struct strpool *p, const char *s, size_t len)
{
	struct strkey k = { s, len };
	uint64_t h = hash__bytes(s, len);
	uint32_t row = hashidx__find(&p->idx, h, strpool_eq, p, &k);

	if (row != HASHIDX_NONE)
		return p->strs[row];
	XGROW(p->strs, p->alloc, p->nr);
	p->strs[p->nr] = xstrndup(s, len);
	hashidx__insert(&p->idx, h, (uint32_t)p->nr);
	return p->strs[p->nr++];
}

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
