/*
 * verdictgate: what the test does with its rows' q values and detectable
 * changes once verdict.c has them (tctx__test calls it, one way): self
 * and calltrace rows gated on their function's children row.  Moved out
 * of verdict.c (981 lines) with power.c, seams that need nothing of the
 * test's own helpers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/hashidx.h"
#include "mmprof/keykind.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

/* 0 for perf-profile.children keys, 1 for .self, 2 for the others (calltrace). */
static int kind_rank(const char *key)
{
	enum keykind_profile k = keykind__profile(key);

	return k == KEYPROF_CHILDREN ? 0 : k == KEYPROF_SELF ? 1 : 2;
}

struct span {
	const char *s;
	size_t len;
};

static bool row_span_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct diff *d = ctx;
	const struct span *k = key;

	return strlen(d->rows[row].key) == k->len && !memcmp(d->rows[row].key, k->s, k->len);
}

/*
 * Self and calltrace rows stand on their function's children row: a
 * function's self share, or a chain ending in it, cannot move without its
 * children share moving too (but for a change elsewhere below it that
 * cancels it out exactly).  So the children rows are the family that the
 * false discovery rate is spent on, and a self or calltrace row is
 * significant only where the children row of its function (a chain's
 * leaf: the shortest prefix of its frames that is a function) is: its q
 * becomes the larger of the two.  An A/A pair then flags a profile row
 * only when it flags a children row, at most alpha of the time, instead
 * of nearly three times that over three families.
 */
void tctx__gate_on_children(struct tctx *x)
{
	struct diff *d = x->d;
	struct hashidx idx;
	char *buf = NULL;
	size_t i, alloc = 0;

	hashidx__init(&idx);
	for (i = 0; i < d->nr; i++)
		if (x->t[i].tested && x->fam[x->t[i].fam].scale == SCALE_SHARE &&
		    kind_rank(d->rows[i].key) == 0)
			hashidx__insert(&idx, hash__bytes(d->rows[i].key, strlen(d->rows[i].key)),
					(uint32_t)i);
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		const char *sym = keykind__profile_symbol(r->key), *ev, *dot;
		size_t len, need;
		uint32_t ch = HASHIDX_NONE;

		if (!x->t[i].tested || x->fam[x->t[i].fam].scale != SCALE_SHARE ||
		    kind_rank(r->key) == 0 || !sym)
			continue;
		ev = keykind__profile_event(r->key, &len);
		need = sizeof("perf-profile.children.") + len + strlen(sym) + 2;
		if (need > alloc) {
			alloc = 2 * need;
			buf = xrealloc(buf, alloc);
		}
		/*
		 * self: the same function.  calltrace: every function of the
		 * chain (each the shortest run of its frames that is one), the
		 * least q among their children rows: a chain can vanish while its
		 * leaf keeps its share through other callers (37 points of
		 * pvm_irq_enable under tlb_finish_mmu to 0, the function itself
		 * "can't tell"), but not while no function on it moves.
		 */
		{
			const char *from = sym;
			double best = INFINITY;
			uint32_t gate = HASHIDX_NONE;

			do {
				dot = kind_rank(r->key) == 1 ? from + strlen(from) : strchr(from, '.');
				for (;;) {
					struct span k;

					k.len = (size_t)snprintf(buf, alloc, "perf-profile.children.%.*s.%.*s", (int)len,
								 ev, (int)(dot ? (size_t)(dot - from) : strlen(from)),
								 from);
					k.s = buf;
					ch = hashidx__find(&idx, hash__bytes(buf, k.len), row_span_eq, d, &k);
					if (ch != HASHIDX_NONE || !dot || !*dot)
						break;
					dot = strchr(dot + 1, '.');
				}
				if (ch != HASHIDX_NONE) {
					if (d->rows[ch].q < best)
						gate = ch;
					best = fmin(best, d->rows[ch].q);
					from = dot && *dot ? dot + 1 : NULL;
				} else {
					/* a frame without a tested row: on to the next one */
					from = strchr(from, '.');
					from = from ? from + 1 : NULL;
				}
			} while (from && kind_rank(r->key) == 2);
			/*
			 * Evidence that needs no gate: a p under alpha / 10 over
			 * the rows of its BH family (Bonferroni) stands on its own;
			 * under the complete null that adds alpha / 10 to the
			 * chance of any flag.  A chain at 5 points or more in every
			 * run of one side and none in the other was held back by a
			 * noisy function on it (stress-ng --mmap-file's read path).
			 */
			if (r->p * (double)x->fam[x->fam[x->t[i].fam].bh].bh_m <= d->o.alpha / 10)
				continue;
			if (isfinite(best) && best > r->q)
				x->t[i].gate = gate;
			r->q = fmax(r->q, isfinite(best) ? best : 1);
		}
	}
	free(buf);
	hashidx__release(&idx);
}
