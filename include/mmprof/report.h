/*
 * report: the views `mmprof report` prints, built on a symbol-level view
 * of a profile's call-stack trie.
 *
 * The profile's trie has one node per distinct *address* path; reports
 * want one node per distinct *symbol* path.  struct symview collapses it:
 *
 *   entry     a distinct (DSO, symbol) pair, as perf's `--sort=dso,symbol`
 *             entries; with keep_unresolved, one extra entry "[unknown]"
 *             stands for every unresolved frame
 *   symnode   a node of the symbol trie: (parent symnode, entry), root
 *             first, parent < id (same invariant as the profile's trie)
 *
 * Without keep_unresolved (the LKP view, perf report -U) unresolved frames
 * are skipped inside stacks and a sample whose sampled IP is unresolved is
 * dropped altogether, from the total as well: that is what perf does with
 * -U (measured: `Event count` shrinks by the unresolved-leaf samples).
 *
 * Building is O(trie nodes) hash operations; everything per (run, event)
 * afterwards is a linear pass over symnodes, never per sample.  Workload:
 * up to a few hundred thousand trie nodes, a handful of events and runs.
 */
#ifndef MMPROF_REPORT_H
#define MMPROF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mmprof/hashidx.h"
#include "mmprof/keys.h"
#include "mmprof/profile.h"

#define SYMVIEW_NONE UINT32_MAX
#define SYMVIEW_ALL_RUNS UINT32_MAX

struct symview_entry {
	uint32_t dso, sym;	/* string ids of the profile; sym 0 = "[unknown]" */
	uint8_t kernel;
};

struct symnode {
	uint32_t parent;	/* < own id; root (0) is its own parent */
	uint32_t entry;		/* SYMVIEW_NONE for the root */
	uint32_t first_child, next_sibling;	/* SYMVIEW_NONE terminated */
	uint32_t same_anc;	/* nearest ancestor with the same entry, or NONE */
	uint32_t depth;
};

struct symview {
	const struct profile *p;
	bool keep_unresolved;
	bool keep_inline;	/* inline frames (record --inline) as entries */

	struct symview_entry *entries;
	size_t nr_entries, alloc_entries;

	struct symnode *nodes;
	size_t nr_nodes, alloc_nodes;

	uint32_t *node_map;	/* profile trie node -> symnode */
	uint8_t *node_keep;	/* profile trie node: its samples count (leaf resolved) */

	struct hashidx entry_idx, node_idx;	/* private */
};

void symview__init(struct symview *v, const struct profile *p, bool keep_unresolved);
/*
 * The same, choosing whether inline frames (frame.inlined) are entries of
 * their own (the tree shows the inline chain) or are folded into the real
 * function they were inlined into (symview__init: LKP keys, folded, so
 * that keys stay those of the real functions perf-profile names).
 */
void symview__init_inline(struct symview *v, const struct profile *p, bool keep_unresolved,
			  bool keep_inline);
void symview__release(struct symview *v);

/* Display name of an entry: the symbol, or "[unknown]". */
const char *symview__entry_name(const struct symview *v, uint32_t entry);
const char *symview__entry_dso(const struct symview *v, uint32_t entry);

/*
 * Leaf weights per symnode (array of v->nr_nodes, zeroed here) of one
 * event, one run (or SYMVIEW_ALL_RUNS), summed over comms; period or
 * sample counts.  Returns the total (the sum of w).
 */
double symview__weights(const struct symview *v, uint32_t run, uint32_t event,
			bool use_period, double *w);

/*
 * From leaf weights w: sub[q] = weight of q's subtree; inner[q] = weight of
 * samples whose innermost occurrence of q's entry is q (a callee-ordered
 * chain from q to the root, perf's folded line); children[e] (nr_entries)
 * = weight of samples with entry e anywhere (once per sample); self[e].
 * Any output may be NULL.
 */
void symview__cumulate(const struct symview *v, const double *w, double *sub,
		       double *inner, double *children, double *self);

/*
 * keys__run (keys.h) on a symview built once for the profile: the symbol
 * trie is the same for every run, so callers doing every run (keytab,
 * diff) build it once instead of once per run.
 */
void keys__run_view(const struct symview *v, uint32_t run, struct keyvals *out);

/*
 * keycache: the key strings of one symview, each formatted and interned
 * once (ids 0..keycache__nr()-1), so that callers doing every run of a
 * file (keytab, diff) pay for a key's text once per file, not once per
 * run.  keycache__run gives one run's keys as ids and values in exactly
 * the order and with the values keys__run_view gives; the arrays stay
 * valid until the next keycache__run or keycache__free.  Borrows v for
 * keycache__run only: once the last run is done v may be released, and
 * the names stay valid until keycache__free.  Memory: one id per symnode
 * and entry per event.
 */
struct keycache;
struct keyrun {
	const uint32_t *ids;
	const double *vals;
	size_t nr;
};
struct keycache *keycache__new(const struct symview *v);
void keycache__free(struct keycache *c);	/* NULL is fine */
void keycache__run(struct keycache *c, uint32_t run, struct keyrun *out);
const char *keycache__name(const struct keycache *c, uint32_t id);
size_t keycache__nr(const struct keycache *c);
/*
 * The original spellings behind the perf-profile keys (issue 3: keys are
 * a normalised identity, the raw names stay visible): [id] is NULL when
 * every frame behind key id was spelled as the key's symbol part (the
 * text after "perf-profile.<family>.<event>."), else those frames' raw
 * spellings, '\n'-separated, first seen first (the key's own text among
 * them when some frame was spelled so); a calltrace key's spelling is its
 * chain of raw names joined by '.'.  Indexed by id, keycache__nr() long,
 * or NULL when no key has a spelling of its own (the usual file); valid
 * until the next keycache__run or keycache__free.
 */
const char *const *keycache__spellings(const struct keycache *c);

/* The event's index by perf name or LKP name ("cycles:pp", "cycles-pp"); -1 if none. */
int report__find_event(const struct profile *p, const char *name);

/*
 * report --unresolved: the samples of event (-1: the first) whose address
 * has no name, and those whose caller has none (frame pointers missing),
 * per DSO with the likely cause; see src/report/unresolved.c.  0 or -EIO.
 */
int report__unresolved(const struct profile *p, int event, FILE *out);

/*
 * One line for the reader of any other view when names or stacks are
 * missing on a scale that changes the answer: a DSO holding at least
 * REPORT_WARN_UNRESOLVED_PCT % of the samples unresolved, or at least
 * REPORT_WARN_SHORT_PCT % of them in user stacks that stop short of main
 * (no frame pointers).  buf, or NULL when nothing is worth a warning.
 */
#define REPORT_WARN_UNRESOLVED_PCT 10.0
#define REPORT_WARN_SHORT_PCT 20.0
const char *report__unresolved_warning(const struct profile *p, int event, char *buf, size_t size);

/*
 * One line when the file's runs lost samples (runs.lost > 0): the count, its
 * share of all samples (kept + lost, as record prints it) and how many runs
 * lost some.  buf, or NULL when nothing was lost.
 */
const char *report__lost_warning(const struct profile *p, char *buf, size_t size);

/*
 * keytab: keys of every run side by side, for printing means (report) and
 * statistics (diff).  A key missing from a run is 0 in that run.
 */
struct keytab {
	char **keys;		/* owned */
	double *vals;		/* vals[k * nr_runs + r] */
	size_t nr, alloc, nr_runs;
	struct hashidx idx;	/* private */
};

int keytab__build(struct keytab *kt, const struct profile *p);
void keytab__release(struct keytab *kt);
double keytab__mean(const struct keytab *kt, size_t k);
double keytab__stddev(const struct keytab *kt, size_t k);	/* population (÷ n) */
/* Sort rows by family (text before the first '.') then key. */
void keytab__sort(struct keytab *kt);

/* The robot's floor: perf-profile keys under 0.05 are not shown. */
bool keys__shown(const char *key, double value);
/* Print a value with the precision its family deserves into buf. */
void keys__format_value(const char *key, double value, char *buf, size_t size);

/* Options of the tree view; zero means the default. */
struct tree_opts {
	int event;		/* event index */
	bool caller;		/* graph toward callees (perf -g caller) */
	double percent_limit;	/* entries and graph nodes under this are hidden */
	bool no_graph;		/* entries only */
};

int report__tree(const struct profile *p, const struct tree_opts *o, FILE *out);

struct folded_opts {
	int event;		/* event index, or -1: all events summed */
	bool period;		/* weigh by period instead of samples */
	bool comm;		/* first frame is the command name */
	int run;		/* run index, or -1: all runs */
	bool one_pid;		/* only the samples of process pid */
	uint32_t pid;
};

int report__folded(const struct profile *p, const struct folded_opts *o, FILE *out);

struct json_opts {
	bool tree;		/* include the call tree of each event */
	double percent_limit;
};

int report__json(const struct profile *p, const struct json_opts *o, FILE *out);

/* Write s as a JSON string literal (quotes included). */
void json__string(FILE *out, const char *s);

#endif
