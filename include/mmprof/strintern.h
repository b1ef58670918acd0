/*
 * strintern: strings stored once, numbered in the order first seen.
 *
 * The one string table behind every table of names: the profile's string
 * pool (whose ids are the data file's string ids: the order of first sight
 * is part of the format), the symbols' comms and module names, the
 * sampler's comms, the keys' tables (keycache, keymap, keytab), a sched
 * run's keys, a history series' keys and commits, the monitors' field
 * names, the build-ids a save adds to the strings.  The owner keeps
 * whatever goes with a string (a value, a row) in its own array indexed by
 * the id.  Expected load: from a handful of comms to a profile's
 * hundreds of thousands of names; lookups outnumber inserts.
 *
 *   strarena   append-only storage of NUL-terminated strings in chunks
 *              (4 KiB doubling to 256 KiB, a long string alone): a pointer
 *              stays valid until release and nothing is freed one by one.
 *              Used alone where names need no de-duplication (the symbol
 *              tables' 150,000 kallsyms names).
 *   strintern  a strarena, s[id] and lens[id], and a hashidx over the ids
 *              (hash__bytes of the bytes): a lookup is one hash and, nearly
 *              always, one memcmp; inserts are amortised O(1).
 *
 * A string is len bytes, which may hold any byte, NUL included (it is then
 * one string, found again only by its whole length; a reader through the
 * pointer sees a C string cut at the NUL).  The stored copy always ends in
 * a NUL.  With .reserve_zero, id 0 is no string (s[0] == NULL, as the
 * profile's and the sampler's ids want) and the first string is 1.
 *
 * Bounds: a new string that would make more than max_nr ids (the reserved
 * 0 counted) or more than max_bytes bytes (without the NULs) is not added:
 * -E2BIG, so that a hostile file's names cannot grow a table past what its
 * owner allows.  strintern__add never exits: running out of memory is
 * -ENOMEM with the table unchanged.  The x-forms (strintern__xid,
 * strintern__xptr, strarena__xdup) are for owners whose tables are all
 * xalloc'd: they exit as xalloc does, and are meant for interners without
 * bounds.  Not thread-safe: an owner shared by threads locks around it (the
 * symbols' context is used under the sampler's sym_lock).
 */
#ifndef MMPROF_STRINTERN_H
#define MMPROF_STRINTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/hashidx.h"

#define STRINTERN_NONE HASHIDX_NONE

struct strarena {
	char **chunks;
	size_t nr, alloc;
	char *cur;		/* where the next string goes */
	size_t left;		/* bytes left at cur */
	size_t next;		/* the size of the next chunk */
};

/* Zero-initialised ({ 0 }) is an empty arena. */
void strarena__release(struct strarena *a);
/* A NUL-terminated copy of s[0..len) that lives until release, or NULL (ENOMEM). */
char *strarena__dup(struct strarena *a, const char *s, size_t len);
/* strarena__dup that exits when out of memory (xalloc.h). */
const char *strarena__xdup(struct strarena *a, const char *s, size_t len);

struct strintern_opts {
	bool reserve_zero;	/* id 0 is no string: the first string is 1 */
	size_t max_nr;		/* ids in all (0 counted); 0: up to STRINTERN_NONE - 1 */
	uint64_t max_bytes;	/* strings' bytes in all; 0: no bound */
};

struct strintern {
	char **s;		/* [id] the string (NULL for a reserved 0) */
	uint32_t *lens;		/* [id] its length */
	size_t nr, alloc;	/* ids handed out (a reserved 0 counted) */
	uint64_t bytes;		/* the strings' lengths summed */
	struct strintern_opts o;	/* o.max_* may be changed at any time: they bound later adds */
	struct hashidx idx;	/* private */
	struct strarena arena;	/* private */
};

/*
 * Allocates nothing (a reserved 0 is there from here on); opts NULL: all
 * defaults.  A zero-initialised ({ 0 }) strintern is one with the defaults.
 */
void strintern__init(struct strintern *si, const struct strintern_opts *opts);
/* Free the strings and the table; si is empty (with its opts) again.  NULL-safe. */
void strintern__release(struct strintern *si);
/*
 * Keep the strings and ids, free the index: for a table that is complete
 * and read by id from now on.  A later add builds the index again; a find
 * before that searches linearly.
 */
void strintern__drop_index(struct strintern *si);

/*
 * The id of s[0..len) in *id: 0 when it was there, 1 when added; -E2BIG
 * past a bound and -ENOMEM out of memory (*id = STRINTERN_NONE, si unchanged).
 */
int strintern__add(struct strintern *si, const char *s, size_t len, uint32_t *id);
/* The id of s[0..len), STRINTERN_NONE when it was never added. */
uint32_t strintern__find(const struct strintern *si, const char *s, size_t len);

/* strintern__add's id, exiting when out of memory; STRINTERN_NONE past a bound. */
uint32_t strintern__xid(struct strintern *si, const char *s, size_t len);
/* The stored copy of s[0..len): the same pointer for equal strings; as strintern__xid. */
const char *strintern__xptr(struct strintern *si, const char *s, size_t len);

/* Forget what id held: it becomes "" (found by no lookup), the id stays. */
void strintern__blank(struct strintern *si, uint32_t id);

static inline const char *strintern__str(const struct strintern *si, uint32_t id)
{
	return id < si->nr ? si->s[id] : NULL;
}

static inline size_t strintern__len(const struct strintern *si, uint32_t id)
{
	return id < si->nr ? si->lens[id] : 0;
}

#endif
