/*
 * keyvals: the containers of a run's keys (keyvals, a list; keymap, sums
 * by key) and the spelling of a key's event and symbol parts, shared by
 * keys.c (perf-profile) and statkeys.c (perf-stat, the workload's keys);
 * see include/mmprof/keys.h and keys-int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/keys.h"
#include "mmprof/xalloc.h"
#include "keys-int.h"

void keyvals__add(struct keyvals *kv, const char *key, double value)
{
	XGROW(kv->items, kv->alloc, kv->nr);
	kv->items[kv->nr].key = xstrdup(key);
	kv->items[kv->nr].value = value;
	kv->nr++;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct key_value *)a)->key, ((const struct key_value *)b)->key);
}

void keyvals__sort(struct keyvals *kv)
{
	if (kv->nr)
		qsort(kv->items, kv->nr, sizeof(*kv->items), kv_cmp);
}

void keyvals__release(struct keyvals *kv)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		free(kv->items[i].key);
	free(kv->items);
	memset(kv, 0, sizeof(*kv));
}

void keys__event_name(const char *event, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	for (; *event && n + 1 < size; event++) {
		if (*event == '\'' || *event == '"')
			continue;
		buf[n++] = *event == ':' ? '-' : *event;
	}
	buf[n] = '\0';
}

/* Length of a ".isra.N" / ".constprop.N" / ".part.N" at s, or 0. */
static size_t suffix_len(const char *s)
{
	static const char *const names[] = { ".isra.", ".constprop.", ".part." };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t l = strlen(names[i]), d = 0;

		if (strncmp(s, names[i], l))
			continue;
		while (s[l + d] >= '0' && s[l + d] <= '9')
			d++;
		if (d)
			return l + d;
	}
	return 0;
}

void keys__strip_suffixes(const char *sym, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	while (*sym && n + 1 < size) {
		size_t skip = *sym == '.' ? suffix_len(sym) : 0;

		if (skip) {
			sym += skip;
			continue;
		}
		buf[n++] = *sym++;
	}
	buf[n] = '\0';
}

void keys__key_symbol(const char *sym, char *buf, size_t size)
{
	char *c;

	keys__strip_suffixes(sym, buf, size);
	/* the robot's key files are "key: value" lines that dump-stat refuses with whitespace */
	for (c = buf; *c; c++)
		if (*c == ' ' || *c == '\t')
			*c = '_';
}

void keymap__add(struct keymap *m, const char *key, double value)
{
	uint32_t id = strintern__xid(&m->keys, key, strlen(key));

	XGROW(m->vals, m->alloc_vals, id);	/* a new key's sum starts at 0 */
	m->vals[id] += value;
}

double keymap__get(const struct keymap *m, const char *key)
{
	uint32_t id = strintern__find(&m->keys, key, strlen(key));

	return id == STRINTERN_NONE ? 0 : m->vals[id];
}

void keymap__release(struct keymap *m)
{
	strintern__release(&m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
