/* chains: changed call paths, caller -> callee; see include/mmprof/chains.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chains.h"
#include "mmprof/hashidx.h"
#include "mmprof/keys.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

#define MAX_FRAMES 6

struct cbuild {
	struct chain_diff *cd;
	struct hashidx idx;
	size_t alloc_values;
};

static bool hash_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct chain_diff *cd = ctx;

	return cd->rows[row].hash == *(const uint64_t *)key;
}

static uint32_t cbuild__row(struct cbuild *b, uint64_t h, uint64_t parent,
			    const struct profile *p, uint32_t node)
{
	struct chain_diff *cd = b->cd;
	size_t n = cd->nb + cd->nn;
	uint32_t row = hashidx__find(&b->idx, h, hash_eq, cd, &h);

	if (row != HASHIDX_NONE)
		return row;
	row = (uint32_t)cd->nr;
	XGROW(cd->rows, cd->alloc, cd->nr);
	memset(&cd->rows[row], 0, sizeof(cd->rows[row]));
	cd->rows[row].hash = h;
	cd->rows[row].parent = parent;
	cd->rows[row].p = p;
	cd->rows[row].node = node;
	cd->nr++;
	if ((size_t)(row + 1) * n > b->alloc_values) {
		size_t want = b->alloc_values ? 2 * b->alloc_values : 256 * n;

		while (want < (size_t)(row + 1) * n)
			want *= 2;
		cd->values = xrealloc(cd->values, want * sizeof(*cd->values));
		b->alloc_values = want;
	}
	memset(cd->values + (size_t)row * n, 0, n * sizeof(*cd->values));
	hashidx__insert(&b->idx, h, row);
	return row;
}

/* The symbol a path is matched by: robot suffixes and clone suffixes removed. */
static uint64_t sym_hash(const struct profile *p, uint32_t frame)
{
	char a[512], k[600], out[600];
	size_t plen = strlen("perf-profile.x.");

	keys__strip_suffixes(profile__frame_sym(p, frame), a, sizeof(a));
	snprintf(k, sizeof(k), "perf-profile.x.%s", a);
	diff__normalize_key(k, out, sizeof(out));
	return hash__bytes(out + plen, strlen(out + plen));
}

static int add_profile(struct cbuild *b, const struct profile *p, const char *event, size_t *col)
{
	uint32_t ev = UINT32_MAX, r;
	uint64_t *h;
	uint32_t *rows;
	double *incl;
	size_t i, n = b->cd->nb + b->cd->nn;

	for (i = 0; i < p->nr_events; i++)
		if (profile__str(p, p->events[i].name) && !strcmp(profile__str(p, p->events[i].name), event))
			ev = (uint32_t)i;
	if (ev == UINT32_MAX) {
		*col += p->nr_runs;
		return 0;
	}
	h = xmalloc((p->nr_nodes + 1) * sizeof(*h));
	rows = xmalloc((p->nr_nodes + 1) * sizeof(*rows));
	incl = xmalloc((p->nr_nodes + 1) * sizeof(*incl));
	h[0] = 0x6d6d70726f66ULL;
	for (i = 1; i < p->nr_nodes; i++) {
		const struct stack_node *sn = &p->nodes[i];

		/* parents precede children (profile.h), so one forward pass */
		h[i] = hash__combine(h[sn->parent], sym_hash(p, sn->frame));
		rows[i] = cbuild__row(b, h[i], sn->parent ? h[sn->parent] : 0, p, (uint32_t)i);
	}
	for (r = 0; r < p->nr_runs; r++) {
		double total = 0;

		memset(incl, 0, p->nr_nodes * sizeof(*incl));
		for (i = 0; i < p->nr_counts; i++) {
			const struct count *c = &p->counts[i];

			if (c->run == r && c->event == ev && c->node < p->nr_nodes) {
				incl[c->node] += (double)c->period;
				total += (double)c->period;
			}
		}
		for (i = p->nr_nodes; i-- > 1;)
			incl[p->nodes[i].parent] += incl[i];
		if (total > 0)
			for (i = 1; i < p->nr_nodes; i++)
				/* sibling frames of one symbol (other addresses) are one path: add */
				b->cd->values[(size_t)rows[i] * n + *col + r] += 100 * incl[i] / total;
	}
	*col += p->nr_runs;
	free(h);
	free(rows);
	free(incl);
	return 1;
}

static void make_text(struct chain_diff *cd, struct chain_row *r, const struct hashidx *idx)
{
	const char *names[MAX_FRAMES + 1];
	struct chain_row *top = r;
	uint32_t node = r->node;
	size_t nf = 0, depth, i;
	struct outbuf b = { 0 };
	bool cut;

	/* the change starts at the highest ancestor with about the same change */
	for (;;) {
		uint32_t pr;

		if (!top->parent)
			break;
		pr = hashidx__find(idx, top->parent, hash_eq, cd, &top->parent);
		if (pr == HASHIDX_NONE || fabs(cd->rows[pr].delta) > 1.1 * fabs(r->delta) ||
		    cd->rows[pr].delta * r->delta <= 0)
			break;
		top = &cd->rows[pr];
	}
	depth = r->p->nodes[r->node].depth - top->p->nodes[top->node].depth + 1;
	if (top->parent)
		depth++;	/* one caller of context */
	cut = depth > MAX_FRAMES;
	if (cut)
		depth = MAX_FRAMES;
	while (nf < depth && node) {
		names[nf++] = profile__frame_sym(r->p, r->p->nodes[node].frame);
		node = r->p->nodes[node].parent;
	}
	if (cut)
		outbuf__printf(&b, "\xe2\x80\xa6 \xe2\x86\x92 ");
	for (i = nf; i-- > 0;)
		outbuf__printf(&b, "%s%s", names[i], i ? " \xe2\x86\x92 " : "");
	r->text = b.s;
}

int chains__compute(struct chain_diff *cd, const struct profile *const *base, size_t nbp,
		    const struct profile *const *cur, size_t nnp, const char *event,
		    double min_points, double alpha)
{
	struct cbuild b;
	size_t i, col = 0, n, used = 0;
	double *p, *q, *scratch, *best;
	struct stat_summary sb, sn;

	memset(cd, 0, sizeof(*cd));
	for (i = 0; i < nbp; i++)
		cd->nb += base[i]->nr_runs;
	for (i = 0; i < nnp; i++)
		cd->nn += cur[i]->nr_runs;
	n = cd->nb + cd->nn;
	if (!cd->nb || !cd->nn)
		return -EINVAL;
	cd->novar = cd->nb < 2 || cd->nn < 2;
	cd->alpha = alpha;
	memset(&b, 0, sizeof(b));
	b.cd = cd;
	hashidx__init(&b.idx);
	for (i = 0; i < nbp + nnp; i++)
		used += add_profile(&b, i < nbp ? base[i] : cur[i - nbp], event, &col);
	if (!used) {
		hashidx__release(&b.idx);
		return -EINVAL;
	}
	scratch = xmalloc((n + 1) * sizeof(*scratch));
	p = xmalloc((cd->nr + 1) * sizeof(*p));
	q = xmalloc((cd->nr + 1) * sizeof(*q));
	best = xcalloc(cd->nr + 1, sizeof(*best));
	for (i = 0; i < cd->nr; i++) {
		struct chain_row *r = &cd->rows[i];
		struct welch w;

		r->v = cd->values + i * n;
		stats__summary(r->v, cd->nb, scratch, &sb);
		stats__summary(r->v + cd->nb, cd->nn, scratch, &sn);
		r->base = sb.mean;
		r->cur = sn.mean;
		r->delta = sn.mean - sb.mean;
		p[i] = NAN;
		if (!cd->novar && fmax(sb.mean, sn.mean) >= 0.05 && !stats__welch(&sb, &sn, &w))
			p[i] = w.p;
	}
	stats__bh(p, cd->nr, q);
	/* the biggest same-direction change among each path's children */
	for (i = 0; i < cd->nr; i++) {
		struct chain_row *r = &cd->rows[i];
		uint32_t pr;

		r->q = q[i];
		if (!r->parent)
			continue;
		pr = hashidx__find(&b.idx, r->parent, hash_eq, cd, &r->parent);
		if (pr != HASHIDX_NONE && r->delta * cd->rows[pr].delta > 0 &&
		    fabs(r->delta) > best[pr])
			best[pr] = fabs(r->delta);
	}
	for (i = 0; i < cd->nr; i++) {
		struct chain_row *r = &cd->rows[i];

		/* q is shown, not used to hide: BH over every path of a deep trie is harsh */
		r->shown = fabs(r->delta) >= min_points && best[i] < 0.9 * fabs(r->delta);
		if (r->shown)
			make_text(cd, r, &b.idx);
	}
	free(best);
	free(p);
	free(q);
	free(scratch);
	hashidx__release(&b.idx);
	return 0;
}

void chains__release(struct chain_diff *cd)
{
	size_t i;

	for (i = 0; i < cd->nr; i++)
		free(cd->rows[i].text);
	free(cd->rows);
	free(cd->values);
	memset(cd, 0, sizeof(*cd));
}

static int cmp_abs_delta(const void *a, const void *b)
{
	const struct chain_row *x = *(const struct chain_row *const *)a;
	const struct chain_row *y = *(const struct chain_row *const *)b;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	return strcmp(x->text, y->text);
}

void chains__format(struct outbuf *b, const struct chain_diff *cd, size_t limit, bool json)
{
	const struct chain_row **s = xmalloc((cd->nr + 1) * sizeof(*s));
	size_t i, m = 0;

	for (i = 0; i < cd->nr; i++)
		if (cd->rows[i].shown)
			s[m++] = &cd->rows[i];
	qsort(s, m, sizeof(*s), cmp_abs_delta);
	if (m > limit)
		m = limit;
	if (json)
		outbuf__printf(b, "[");
	else
		outbuf__printf(b, "\ncall chains whose share changed (caller \xe2\x86\x92 callee, points of the "
				  "event's total%s):\n", cd->novar ? "; one run on a side: no test" : "");
	for (i = 0; i < m; i++) {
		if (json) {
			outbuf__printf(b, "%s\n  {\"chain\": ", i ? "," : "");
			outbuf__json_str(b, s[i]->text);
			outbuf__printf(b, ", \"base\": %.4f, \"new\": %.4f, \"change\": %.4f, \"q\": ",
				       s[i]->base, s[i]->cur, s[i]->delta);
			if (isfinite(s[i]->q))
				outbuf__printf(b, "%.4g}", s[i]->q);
			else
				outbuf__printf(b, "null}");
		} else {
			outbuf__printf(b, "  %s  %+.1f  (%.2f \xe2\x86\x92 %.2f", s[i]->text, s[i]->delta,
				       s[i]->base, s[i]->cur);
			if (isfinite(s[i]->q))
				outbuf__printf(b, ", q=%.2g%s", s[i]->q, s[i]->q < cd->alpha ? "" : ", not significant");
			outbuf__printf(b, ")\n");
		}
	}
	if (json)
		outbuf__printf(b, "%s]", m ? "\n" : "");
	else if (!m)
		outbuf__printf(b, "  (none)\n");
	free(s);
}
