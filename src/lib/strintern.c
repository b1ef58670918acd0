/* strintern: strings stored once; see include/mmprof/strintern.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/strintern.h"
#include "mmprof/xalloc.h"

#define CHUNK_FIRST (4 * 1024)
#define CHUNK_MAX (256 * 1024)

void strarena__release(struct strarena *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		free(a->chunks[i]);
	free(a->chunks);
	memset(a, 0, sizeof(*a));
}

/* Keep chunk c (of the arena from now on); -ENOMEM when the list cannot grow. */
static int arena_keep(struct strarena *a, char *c)
{
	if (a->nr == a->alloc) {
		size_t alloc = a->alloc ? a->alloc * 2 : 16;
		char **chunks = realloc(a->chunks, alloc * sizeof(*chunks));

		if (!chunks)
			return -ENOMEM;
		a->chunks = chunks;
		a->alloc = alloc;
	}
	a->chunks[a->nr++] = c;
	return 0;
}

char *strarena__dup(struct strarena *a, const char *s, size_t len)
{
	char *p;

	if (len >= SIZE_MAX / 2)
		return NULL;
	if (len + 1 > a->left) {
		size_t sz = a->next ? a->next : CHUNK_FIRST;
		char *c;

		/*
		 * A string of more than a quarter chunk (a C++ template's name
		 * can be) gets one of its own and the current chunk goes on:
		 * what a new chunk would strand of the old one stays small.
		 */
		if (len + 1 > CHUNK_MAX / 4) {
			if (!(c = malloc(len + 1)) || arena_keep(a, c)) {
				free(c);
				return NULL;
			}
			memcpy(c, s, len);
			c[len] = '\0';
			return c;
		}
		while (sz < len + 1)
			sz *= 2;
		if (!(c = malloc(sz)) || arena_keep(a, c)) {
			free(c);
			return NULL;
		}
		a->cur = c;
		a->left = sz;
		a->next = sz < CHUNK_MAX ? sz * 2 : CHUNK_MAX;
	}
	p = a->cur;
	memcpy(p, s, len);
	p[len] = '\0';
	a->cur += len + 1;
	a->left -= len + 1;
	return p;
}

const char *strarena__xdup(struct strarena *a, const char *s, size_t len)
{
	const char *p = strarena__dup(a, s, len);

	if (!p)
		xalloc__die(len + 1);
	return p;
}

/* Before the first add, a reserved 0 lives here: init allocates nothing. */
static char *const zero_s[1] = { NULL };
static const uint32_t zero_len[1] = { 0 };

void strintern__init(struct strintern *si, const struct strintern_opts *opts)
{
	memset(si, 0, sizeof(*si));
	if (opts)
		si->o = *opts;
	hashidx__init(&si->idx);
	if (si->o.reserve_zero) {
		si->s = (char **)zero_s;
		si->lens = (uint32_t *)zero_len;
		si->nr = 1;
	}
}

void strintern__release(struct strintern *si)
{
	struct strintern_opts o;

	if (!si)
		return;
	o = si->o;
	if (si->alloc) {
		free(si->s);
		free(si->lens);
	}
	hashidx__release(&si->idx);
	strarena__release(&si->arena);
	strintern__init(si, &o);
}

struct strkey {
	const char *s;
	size_t len;
};

static bool strkey_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct strintern *si = ctx;
	const struct strkey *k = key;

	return si->lens[row] == k->len && !memcmp(si->s[row], k->s, k->len);
}

static uint32_t scan(const struct strintern *si, const struct strkey *k)
{
	size_t i;

	for (i = si->o.reserve_zero; i < si->nr; i++)
		if (strkey_eq(si, (uint32_t)i, k))
			return (uint32_t)i;
	return STRINTERN_NONE;
}

static bool unindexed(const struct strintern *si)
{
	return si->idx.nr < si->nr - si->o.reserve_zero;
}

uint32_t strintern__find(const struct strintern *si, const char *s, size_t len)
{
	struct strkey k = { s, len };

	if (unindexed(si))
		return scan(si, &k);
	return hashidx__find(&si->idx, hash__bytes(s, len), strkey_eq, si, &k);
}

void strintern__drop_index(struct strintern *si)
{
	hashidx__release(&si->idx);
}

/* Index every id again, after strintern__drop_index. */
static int reindex(struct strintern *si)
{
	size_t i;
	int err;

	if ((err = hashidx__reserve(&si->idx, si->nr)))
		return err;
	for (i = si->o.reserve_zero; i < si->nr; i++)
		hashidx__insert(&si->idx, hash__bytes(si->s[i], si->lens[i]), (uint32_t)i);
	return 0;
}

/* Room for one more id in s[] and lens[]. */
static int grow_ids(struct strintern *si)
{
	size_t alloc = si->alloc ? si->alloc * 2 : 16;
	char **s;
	uint32_t *lens;

	if (si->nr < si->alloc)
		return 0;
	if (!si->alloc) {	/* from the static reserved 0, or nothing */
		s = malloc(alloc * sizeof(*s));
		lens = malloc(alloc * sizeof(*lens));
		if (!s || !lens) {
			free(s);
			free(lens);
			return -ENOMEM;
		}
		memcpy(s, si->s ? si->s : zero_s, si->nr * sizeof(*s));
		memcpy(lens, si->lens ? si->lens : zero_len, si->nr * sizeof(*lens));
	} else {
		if (!(s = realloc(si->s, alloc * sizeof(*s))))
			return -ENOMEM;
		si->s = s;	/* larger and still valid: alloc says what is safe */
		if (!(lens = realloc(si->lens, alloc * sizeof(*lens))))
			return -ENOMEM;
	}
	si->s = s;
	si->lens = lens;
	si->alloc = alloc;
	return 0;
}

int strintern__add(struct strintern *si, const char *s, size_t len, uint32_t *id)
{
	struct strkey k = { s, len };
	uint64_t h;
	char *copy;
	int err;

	*id = STRINTERN_NONE;
	if (unindexed(si) && (err = reindex(si)))
		return err;
	h = hash__bytes(s, len);
	*id = hashidx__find(&si->idx, h, strkey_eq, si, &k);
	if (*id != STRINTERN_NONE)
		return 0;
	if (si->nr >= (si->o.max_nr && si->o.max_nr < STRINTERN_NONE ? si->o.max_nr : STRINTERN_NONE - 1) ||
	    len > UINT32_MAX ||
	    (si->o.max_bytes && si->bytes + len > si->o.max_bytes))
		return -E2BIG;
	if ((err = grow_ids(si)) || (err = hashidx__reserve(&si->idx, si->idx.nr + 1)))
		return err;
	if (!(copy = strarena__dup(&si->arena, s, len)))
		return -ENOMEM;
	si->s[si->nr] = copy;
	si->lens[si->nr] = (uint32_t)len;
	si->bytes += len;
	*id = (uint32_t)si->nr++;
	hashidx__insert(&si->idx, h, *id);
	return 1;
}

uint32_t strintern__xid(struct strintern *si, const char *s, size_t len)
{
	uint32_t id;

	if (strintern__add(si, s, len, &id) == -ENOMEM)
		xalloc__die(len + 1);
	return id;
}

const char *strintern__xptr(struct strintern *si, const char *s, size_t len)
{
	uint32_t id = strintern__xid(si, s, len);

	return id == STRINTERN_NONE ? NULL : si->s[id];
}

void strintern__blank(struct strintern *si, uint32_t id)
{
	if (id >= si->nr || !si->s[id])
		return;
	si->s[id][0] = '\0';
	si->lens[id] = 0;
	/* its hash is still the old text's: no lookup finds it, as promised */
}
