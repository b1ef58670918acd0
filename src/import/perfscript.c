/*
 * perfscript: the text `perf script` prints, parsed a line at a time into
 * a profile (import.h).  The parser is a pure function of its input: no
 * I/O, no global state, every index checked, so that it can be fuzzed
 * (tests/fuzz/fuzz-perfscript.c).  It is strict about shape (a header
 * line it cannot read stops the import with the line's number, so that a
 * wrong file is refused rather than imported as nonsense) and lenient
 * about content (any symbol or DSO text is taken as is).  What event a
 * sample names, and the dummy event dropped at the end, are
 * perfevents.c's; what a token is (a time, a pid, a CPU, an address),
 * pstok.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/datafile.h"
#include "mmprof/import.h"
#include "mmprof/stackagg.h"
#include "mmprof/xalloc.h"
#include "perfscript-int.h"
#include "pstok.h"

#define MAX_TOKENS 64

void perfscript__init(struct perfscript *ps, struct profile *p)
{
	memset(ps, 0, sizeof(*ps));
	ps->p = p;
	if (!p->nr_runs) {
		struct run r = { .exit_code = -1 };

		profile__add_run(p, &r);
	}
	ps->run = 0;
	ps->dropped0 = p->repairs[PROFILE_REPAIR_COUNT];
	if (p->strs.o.max_bytes > STACKAGG_BUDGET)
		p->strs.o.max_bytes = STACKAGG_BUDGET;
}

/* A chain the trie cannot take keeps its leaf: record's rule, datafile.h. */
static uint32_t budget_stack(struct perfscript *ps, uint64_t samples)
{
	if (ps->nr_frames > 1 && !datafile__trie_takes(ps->p, ps->nr_frames, ps->p->nr_runs, 0)) {
		ps->nr_frames = 1;
		ps->stacks_cut += samples;
	}
	return profile__stack(ps->p, ps->frames, ps->nr_frames);
}

void perfscript__release(struct perfscript *ps)
{
	free(ps->frames);
	ps->frames = NULL;
	ps->nr_frames = ps->alloc_frames = 0;
	free(ps->deferred);
	ps->deferred = NULL;
	ps->nr_deferred = ps->alloc_deferred = 0;
}

static bool is_kernel_dso(const char *d, size_t len)
{
	static const char *const user_brackets[] = {
		"[vdso]", "[vsyscall]", "[unknown]", "[heap]", "[stack]", "[anon]", "[vvar]",
		"[uprobes]", "[jit]",
	};
	size_t i;

	if (len >= 2 && d[0] == '[' && d[len - 1] == ']') {
		for (i = 0; i < sizeof(user_brackets) / sizeof(user_brackets[0]); i++)
			if (len == strlen(user_brackets[i]) && !memcmp(d, user_brackets[i], len))
				return false;
		return true;	/* [kernel.kallsyms], [ext4], [bpf_prog], ... */
	}
	for (i = 0; i + 3 <= len; i++)	/* module paths: x.ko, x.ko.xz, x.ko.zst */
		if (!memcmp(d + i, ".ko", 3) && (i + 3 == len || d[i + 3] == '.'))
			return true;
	return false;
}

/*
 * "ffffffff81234567 func+0x12 ([kernel.kallsyms])" (leading blanks
 * skipped) into a frame id.  The DSO is the last balanced "(...)" at the
 * end (a DSO may itself hold parentheses: "/tmp/x (deleted)"); the offset
 * is a trailing "+0x<hex>" of the symbol.  false if not a frame.
 */
static bool parse_frame(struct perfscript *ps, const char *s, size_t len, uint32_t *id)
{
	struct frame f = { 0 };
	size_t i = 0, a, end, sym_end;
	const char *dso = NULL;
	size_t dso_len = 0;

	while (i < len && pstok__blank(s[i]))
		i++;
	a = i;
	while (i < len && !pstok__blank(s[i]))
		i++;
	if (!pstok__hex(s + a, i - a, &f.addr))
		return false;
	while (i < len && pstok__blank(s[i]))
		i++;
	end = len;
	while (end > i && pstok__blank(s[end - 1]))
		end--;
	sym_end = end;
	if (end > i && s[end - 1] == ')') {
		size_t depth = 0, k = end;

		while (k > i) {
			k--;
			if (s[k] == ')')
				depth++;
			else if (s[k] == '(' && --depth == 0)
				break;
		}
		if (depth == 0 && s[k] == '(') {
			dso = s + k + 1;
			dso_len = end - k - 2;
			sym_end = k;
			while (sym_end > i && pstok__blank(s[sym_end - 1]))
				sym_end--;
		}
	}
	if (sym_end > i) {
		const char *sym = s + i;
		size_t sl = sym_end - i, k;

		/* a trailing "+0x<hex>" is the offset into the symbol */
		for (k = sl; k > 3; k--)
			if (sym[k - 1] == 'x' && sym[k - 2] == '0' && sym[k - 3] == '+')
				break;
		if (k > 3 && pstok__hex(sym + k, sl - k, &f.sym_off))
			sl = k - 3;
		if (sl && !(sl == 9 && !memcmp(sym, "[unknown]", 9)))
			f.sym = profile__intern_len(ps->p, sym, sl);
		else
			f.sym_off = 0;
	}
	if (dso && dso_len && !(dso_len == 9 && !memcmp(dso, "[unknown]", 9)))
		f.dso = profile__intern_len(ps->p, dso, dso_len);
	f.kernel = f.addr >= IMPORT_KERNEL_START || (dso && is_kernel_dso(dso, dso_len));
	/*
	 * At most DATAFILE_TRIE_FRAMES frames, as record: chains cut to their
	 * leaf still made a frame of every line, and 8 M distinct symbols
	 * wrote 236 MiB of frame blocks, which every reader refuses.  Past it
	 * a new frame is [unknown].
	 */
	*id = profile__frame_within(ps->p, &f, DATAFILE_TRIE_FRAMES);
	return true;
}

/* After the IP of a sample whose chain perf rejected: profile.h's marker. */
static void add_rejected_frame(struct perfscript *ps)
{
	struct frame f = { .addr = PROFILE_REJECTED_ADDR };

	f.sym = f.dso = profile__intern(ps->p, PROFILE_REJECTED_CHAIN);
	XGROW(ps->frames, ps->alloc_frames, ps->nr_frames);
	ps->frames[ps->nr_frames++] = profile__frame(ps->p, &f);
}

static void add_unknown_frame(struct perfscript *ps)
{
	struct frame f = { 0 };

	XGROW(ps->frames, ps->alloc_frames, 0);
	ps->frames[ps->nr_frames++] = profile__frame(ps->p, &f);
}

/* The second pass's sample: the next deferred one when it is that sample. */
static void refill_sample(struct perfscript *ps)
{
	const struct perfscript_deferred *d;

	if (ps->next_deferred >= ps->nr_deferred)
		return;
	d = &ps->deferred[ps->next_deferred];
	if (d->ordinal != ps->ordinal - 1)
		return;
	ps->next_deferred++;
	/* the same sample, or the passes went apart: then [unknown], as without the pass */
	if (d->time != ps->time || d->pid != ps->pid || !ps->nr_frames) {
		ps->nr_frames = 0;
		add_unknown_frame(ps);
	} else {
		ps->nr_frames = 1;
		add_rejected_frame(ps);
	}
	profile__add_count(ps->p, ps->run, d->event, d->comm, d->pid,
			   profile__stack(ps->p, ps->frames, ps->nr_frames), 1, d->period);
}

static int end_sample(struct perfscript *ps, struct errmsg *e)
{
	uint32_t node;

	if (ps->in_sample != 1) {
		ps->in_sample = 0;
		return 0;
	}
	ps->in_sample = 0;
	if (ps->refilling) {
		refill_sample(ps);
		ps->nr_frames = 0;
		return 0;
	}
	if (!ps->nr_frames && ps->defer_frameless) {
		struct perfscript_deferred *d;

		XGROW(ps->deferred, ps->alloc_deferred, ps->nr_deferred);
		d = &ps->deferred[ps->nr_deferred++];
		*d = (struct perfscript_deferred){ ps->ordinal - 1, ps->time, ps->event, ps->comm,
						   ps->pid, ps->period };
		ps->chain_samples++;
		ps->samples++;
		return 0;
	}
	if (!ps->nr_frames)	/* no callchain and no ip: one unknown frame */
		add_unknown_frame(ps);
	/* perf drops a chain it rejects and keeps the sample at its IP */
	if (ps->rejected) {
		ps->nr_frames = 1;
		add_rejected_frame(ps);
	}
	ps->chain_samples += ps->chained;
	node = budget_stack(ps, 1);
	profile__add_count(ps->p, ps->run, ps->event, ps->comm, ps->pid, node, 1, ps->period);
	ps->samples++;
	ps->nr_frames = 0;
	return 0;
}

size_t perfscript__refill_begin(struct perfscript *ps)
{
	end_sample(ps, NULL);	/* the first pass's last sample (end_sample cannot fail) */
	ps->nr_frames = 0;
	ps->refilling = 1;
	ps->ordinal = 0;
	ps->line_no = 0;
	ps->comm_head_len = 0;	/* a head the first pass's end cut off */
	ps->next_deferred = 0;
	return ps->nr_deferred;
}

/* What no second pass placed: one [unknown] frame each, as without one. */
static void flush_deferred(struct perfscript *ps)
{
	for (; ps->next_deferred < ps->nr_deferred; ps->next_deferred++) {
		const struct perfscript_deferred *d = &ps->deferred[ps->next_deferred];

		ps->nr_frames = 0;
		add_unknown_frame(ps);
		profile__add_count(ps->p, ps->run, d->event, d->comm, d->pid,
				   profile__stack(ps->p, ps->frames, 1), 1, d->period);
	}
	ps->nr_frames = 0;
}

static int bad_header(struct perfscript *ps, struct errmsg *e, const char *why)
{
	return errmsg__set(e, -EPROTO, "line %llu: not perf script output: %s",
			   (unsigned long long)ps->line_no, why);
}

/*
 * Where the fields of a sample header are: t[0..k) the comm, t[k] the
 * pid when there is one, t[ti] the time (ti == n: none), t[idx] the
 * period or the event.  NULL, or why this is not a header.
 */
struct shape {
	size_t k, ti, idx;
};

static const char *header_shape(const struct pstok *t, size_t n, struct shape *sh)
{
	size_t i;

	for (sh->ti = 0; sh->ti < n && !pstok__is_time(&t[sh->ti]); sh->ti++)
		;
	if (sh->ti < n) {
		sh->k = sh->ti;
		if (sh->k > 0 && pstok__is_cpu(&t[sh->k - 1]))
			sh->k--;
		if (sh->k > 0 && pstok__is_pid(&t[sh->k - 1]))
			sh->k--;
		sh->idx = sh->ti + 1;
	} else {
		/* no time field: "comm pid [cpu] [period] event:" */
		for (sh->k = 1; sh->k < n && !pstok__is_pid(&t[sh->k]); sh->k++)
			;
		if (sh->k >= n)
			return "no pid or time field";
		sh->idx = sh->k + 1;
		if (sh->idx < n && pstok__is_cpu(&t[sh->idx]))
			sh->idx++;
	}
	i = sh->idx;
	if (i < n && pstok__digits(t[i].s, t[i].len))
		i++;
	if (i < n && t[i].len > 12 && !memcmp(t[i].s, "PERF_RECORD_", 12))
		return NULL;
	if (i >= n || t[i].len < 2 || t[i].s[t[i].len - 1] != ':')
		return "no 'event:' field after the time";
	return NULL;
}

/*
 * An indented line that is a sample header: without callchains perf
 * script right-aligns the comm ("%16s"), so a header may start with
 * blanks.  Only the full shape counts, comm, pid, time and event (with
 * time: 1), or comm, pid and event (0); anything else is -1 and is read
 * as a callchain frame.
 */
static int indented_header(const char *line, size_t len)
{
	struct pstok t[MAX_TOKENS];
	size_t n = pstok__split(line, len, t, MAX_TOKENS);
	struct shape sh;

	if (header_shape(t, n, &sh) || !sh.k || !pstok__is_pid(&t[sh.k]))
		return -1;
	return sh.ti < n;
}

/* Does the line start with a hex address, as a callchain frame does? */
static bool frame_shaped(const char *line, size_t len)
{
	struct pstok t[1];
	uint64_t v;

	return pstok__split(line, len, t, 1) == 1 && pstok__hex(t[0].s, t[0].len, &v);
}

static int sample_header(struct perfscript *ps, const char *line, size_t len, struct errmsg *e)
{
	struct pstok t[MAX_TOKENS];
	size_t n = pstok__split(line, len, t, MAX_TOKENS), ti, k, idx;
	const struct pstok *ev;
	const char *why;
	struct shape sh;
	double tm = -1;
	int err;

	why = header_shape(t, n, &sh);
	if (why)
		return bad_header(ps, e, why);
	ti = sh.ti;
	k = sh.k;
	idx = sh.idx;
	if (ti < n)
		tm = pstok__time(&t[ti]);
	if (idx < n && pstok__digits(t[idx].s, t[idx].len)) {
		char buf[24];

		if (t[idx].len >= sizeof(buf))
			return bad_header(ps, e, "period out of range");
		memcpy(buf, t[idx].s, t[idx].len);
		buf[t[idx].len] = '\0';
		ps->period = strtoull(buf, NULL, 10);
		idx++;
	} else {
		ps->period = 1;
	}
	if (idx < n && t[idx].len > 12 && !memcmp(t[idx].s, "PERF_RECORD_", 12)) {
		ps->in_sample = 2;	/* --show-*-events lines: not samples */
		return 0;
	}
	ev = &t[idx];	/* header_shape checked it is "event:" */
	err = perfscript__event(ps, ev->s, ev->len - 1, UINT32_MAX, &ps->event, e);
	if (err)
		return err;
	ps->pid = k < n && pstok__is_pid(&t[k]) ? pstok__pid(&t[k]) : 0;
	ps->comm = k ? profile__intern_len(ps->p, t[0].s,
					   (size_t)(t[k - 1].s + t[k - 1].len - t[0].s)) : 0;
	ps->time = tm;
	ps->ordinal++;
	if (tm >= 0 && !ps->refilling) {
		if (!ps->samples || tm < ps->first_time)
			ps->first_time = tm;
		if (tm > ps->last_time)
			ps->last_time = tm;
	}
	ps->in_sample = 1;
	ps->chained = 0;
	ps->rejected = 0;
	ps->nr_frames = 0;
	/* without -g, the sampled ip follows the event on the same line */
	{
		const char *rest = ev->s + ev->len;
		uint32_t f;

		if (parse_frame(ps, rest, len - (size_t)(rest - line), &f)) {
			XGROW(ps->frames, ps->alloc_frames, ps->nr_frames);
			ps->frames[ps->nr_frames++] = f;
		}
	}
	return 0;
}

/* "# event : name = cpu-clock, , id = { 1, 2 }, type = 1, ..., freq = 1, ..." */
static int header_event(struct perfscript *ps, const char *s, size_t len, struct errmsg *e)
{
	struct event_desc ev = { .type = UINT32_MAX };
	size_t i = 0;
	uint32_t id;
	int err;

	while (i < len) {
		size_t start = i, depth = 0, eq, ks, ke, vs, ve, item_end;

		for (; i < len && (depth || s[i] != ','); i++) {
			if (s[i] == '{')
				depth++;
			else if (s[i] == '}' && depth)
				depth--;
		}
		item_end = i++;	/* and past the ',' */
		/* item s[start..item_end): "key = value" */
		for (eq = start; eq + 3 <= item_end && memcmp(s + eq, " = ", 3); eq++)
			;
		if (eq + 3 > item_end)
			continue;
		for (ks = start; ks < eq && pstok__blank(s[ks]); ks++)
			;
		ke = eq;
		vs = eq + 3;
		ve = item_end;
		while (ve > vs && pstok__blank(s[ve - 1]))
			ve--;
		if (ke - ks == 4 && !memcmp(s + ks, "name", 4)) {
			ev.name = profile__intern_len(ps->p, s + vs, ve - vs);
		} else if (ve - vs < 24) {
			char buf[24];
			uint64_t v;

			memcpy(buf, s + vs, ve - vs);
			buf[ve - vs] = '\0';
			v = strtoull(buf, NULL, 0);
			if (ke - ks == 4 && !memcmp(s + ks, "type", 4))
				ev.type = (uint32_t)v;
			else if (ke - ks == 6 && !memcmp(s + ks, "config", 6))
				ev.config = v;
			else if (ke - ks == 4 && !memcmp(s + ks, "freq", 4))
				ev.freq = v != 0;
			else if ((ke - ks == 13 && !memcmp(s + ks, "sample_period", 13)) ||
				 (ke - ks == 11 && !memcmp(s + ks, "sample_freq", 11)) ||
				 (ke - ks >= 9 && !memcmp(s + ks, "{ sample_", 9)))
				ev.sample = v;
		}
	}
	if (!ev.name)
		return 0;
	err = perfscript__event(ps, profile__str(ps->p, ev.name), strlen(profile__str(ps->p, ev.name)),
				ev.type, &id, e);
	if (err)
		return err;
	ev.name = ps->p->events[id].name;
	ev.asked = ps->p->events[id].asked;
	ps->p->events[id] = ev;
	return 0;
}

/* perf's header keys we keep, and their meta names (bounded: hostile input
 * cannot grow the meta without limit) */
static const struct { const char *perf, *meta; } header_keys[] = {
	{ "captured on", "perf_captured_on" },
	{ "hostname", "hostname" },
	{ "os release", "kernel_release" },
	{ "perf version", "perf_version" },
	{ "arch", "machine" },
	{ "nrcpus online", "nr_cpus_online" },
	{ "cpudesc", "cpu_model" },
	{ "cmdline", "perf_cmdline" },
	{ "sample duration", "perf_sample_duration" },
};

static int comment(struct perfscript *ps, const char *line, size_t len, struct errmsg *e)
{
	const char *colon;
	size_t ks = 1, ke, vs, ve = len, i;

	while (ks < len && pstok__blank(line[ks]))
		ks++;
	colon = memchr(line + ks, ':', len - ks);
	if (!colon)
		return 0;
	ke = (size_t)(colon - line);
	while (ke > ks && pstok__blank(line[ke - 1]))
		ke--;
	vs = (size_t)(colon - line) + 1;
	while (vs < len && pstok__blank(line[vs]))
		vs++;
	while (ve > vs && pstok__blank(line[ve - 1]))
		ve--;
	if (ke - ks == 5 && !memcmp(line + ks, "event", 5))
		return header_event(ps, line + vs, ve - vs, e);
	for (i = 0; i < sizeof(header_keys) / sizeof(header_keys[0]); i++) {
		if (strlen(header_keys[i].perf) == ke - ks &&
		    !memcmp(line + ks, header_keys[i].perf, ke - ks)) {
			char *v = xstrndup(line + vs, ve - vs);

			profile__set_meta(ps->p, header_keys[i].meta, v);
			free(v);
		}
	}
	return 0;
}

/* Why the line is no sample header, or NULL when it is one. */
static const char *not_header(const char *line, size_t len, struct shape *sh)
{
	struct pstok t[MAX_TOKENS];
	size_t n = pstok__split(line, len, t, MAX_TOKENS);
	const char *why = header_shape(t, n, sh);

	/* the comm's bytes, newlines and all, fit the kernel's comm */
	if (!why && sh->k && t[sh->k - 1].s + t[sh->k - 1].len - t[0].s >= PERFSCRIPT_COMM_LEN)
		why = "a comm longer than the kernel's";
	return why;
}

/*
 * Could the line be the head of a comm that holds a newline?  Without
 * callchains (and in -G's pass) perf pads the comm to 16 columns on the
 * left, so a head may start with spaces; frames start with a tab.
 */
static bool comm_head(const char *line, size_t len)
{
	struct shape sh;
	size_t i;

	for (i = 0; i < len && line[i] == ' '; i++)
		;
	return i < len && len - i < PERFSCRIPT_COMM_LEN && i < PERFSCRIPT_COMM_LEN &&
	       !pstok__blank(line[i]) && line[0] != '#' && not_header(line, len, &sh);
}

/*
 * The line after a comm's head: the head, a newline and the line are the
 * header, read as one line (the comm keeps its newline); or the head and
 * the line are a longer head; or the head is refused at its own line
 * number.  Returns 1 when the line was taken (*err set), 0 without a head.
 */
static int join_comm_head(struct perfscript *ps, const char *line, size_t len, struct errmsg *e,
			  int *err)
{
	char buf[2 * PERFSCRIPT_COMM_LEN + PERFSCRIPT_MAX_LINE];
	size_t n = ps->comm_head_len;
	uint64_t no = ps->line_no;
	struct shape sh;

	if (!n)
		return 0;
	ps->comm_head_len = 0;
	memcpy(buf, ps->comm_head, n);
	buf[n++] = '\n';
	memcpy(buf + n, line, len);
	*err = 0;
	if (comm_head(buf, n + len)) {
		memcpy(ps->comm_head, buf, n + len);	/* a comm of several newlines */
		ps->comm_head_len = n + len;
	} else if (!not_header(buf, n + len, &sh)) {
		*err = end_sample(ps, e);
		if (!*err)
			*err = sample_header(ps, buf, n + len, e);
	} else {
		ps->line_no = ps->comm_head_line;
		*err = bad_header(ps, e, not_header(ps->comm_head, n - 1, &sh));
		ps->line_no = no;
	}
	return 1;
}

int perfscript__line(struct perfscript *ps, const char *line, size_t len, struct errmsg *e)
{
	size_t i;
	uint32_t f;
	int hdr, joined;

	ps->line_no++;
	if (len > PERFSCRIPT_MAX_LINE)
		return errmsg__set(e, -EPROTO, "line %llu: longer than %u bytes: not perf script "
				   "output", (unsigned long long)ps->line_no, PERFSCRIPT_MAX_LINE);
	if (memchr(line, '\0', len))
		return errmsg__set(e, -EPROTO, "line %llu: a NUL byte: not perf script output",
				   (unsigned long long)ps->line_no);
	if (join_comm_head(ps, line, len, e, &joined))
		return joined;
	if (comm_head(line, len)) {
		memcpy(ps->comm_head, line, len);
		ps->comm_head_len = len;
		ps->comm_head_line = ps->line_no;
		return 0;
	}
	for (i = 0; i < len && pstok__blank(line[i]); i++)
		;
	if (i == len)
		return end_sample(ps, e);
	if (line[0] == '#') {
		int err = end_sample(ps, e);

		return err ? err : comment(ps, line, len, e);
	}
	/*
	 * A header at column 0, or indented (perf pads the comm with spaces
	 * when it prints no callchain) when its fields say so.  perf indents
	 * frames with a tab: a tab-indented line without a time field that
	 * could be a frame of the sample being read is read as one.
	 */
	/* -G (the second pass) prints headers only, some of them indented */
	hdr = pstok__blank(line[0]) && !ps->refilling ? indented_header(line, len) : 1;
	if (hdr == 0 && line[0] == '\t' && ps->in_sample == 1 && frame_shaped(line, len))
		hdr = -1;
	if (hdr >= 0) {
		int err = end_sample(ps, e);

		return err ? err : sample_header(ps, line, len, e);
	}
	if (!ps->in_sample)
		return errmsg__set(e, -EPROTO, "line %llu: not perf script output: an indented "
				   "line outside a sample", (unsigned long long)ps->line_no);
	if (ps->in_sample == 2)
		return 0;
	if (ps->nr_frames >= PERFSCRIPT_MAX_DEPTH)
		return errmsg__set(e, -EPROTO, "line %llu: a stack deeper than %u frames",
				   (unsigned long long)ps->line_no, PERFSCRIPT_MAX_DEPTH);
	if (!parse_frame(ps, line, len, &f))
		return errmsg__set(e, -EPROTO, "line %llu: not perf script output: expected a "
				   "frame '<hex address> <symbol> (<dso>)'",
				   (unsigned long long)ps->line_no);
	ps->chained = 1;
	/* PERF_CONTEXT_MAX and above: a context marker, or junk perf rejects */
	if (ps->p->frames[f].addr >= PERFSCRIPT_CONTEXT_MAX && ps->nr_frames)
		ps->rejected = 1;
	XGROW(ps->frames, ps->alloc_frames, ps->nr_frames);
	ps->frames[ps->nr_frames++] = f;
	return 0;
}

int perfscript__finish(struct perfscript *ps, struct errmsg *e)
{
	struct run *r;
	int err = end_sample(ps, e);
	struct shape sh;

	if (err)
		return err;
	if (ps->comm_head_len) {
		ps->line_no = ps->comm_head_line;
		return bad_header(ps, e, not_header(ps->comm_head, ps->comm_head_len, &sh));
	}
	flush_deferred(ps);
	if (!ps->samples)
		return errmsg__set(e, -ENODATA, "no samples in the perf script output");
	perfscript__drop_tracking(ps->p);
	r = &ps->p->runs[ps->run];
	/* a sample whose period took the sum to 2^63 was dropped, not counted */
	r->samples += ps->samples - (ps->p->repairs[PROFILE_REPAIR_COUNT] - ps->dropped0);
	/* as record says it: "0" when perf recorded no callchains (no -g) */
	profile__set_meta(ps->p, "callchain", ps->chain_samples ? "1" : "0");
	if (ps->stacks_cut) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, ps->stacks_cut);
		profile__set_meta(ps->p, "stacks_cut_to_leaf", v);
	}
	/* hostile timestamps can be huge or infinite: no wall time then */
	if (ps->last_time > ps->first_time && ps->last_time - ps->first_time < 9.2e9)
		r->wall_ns = (int64_t)((ps->last_time - ps->first_time) * 1e9 + 0.5);
	return 0;
}

int perfscript__parse(struct profile *p, const char *text, size_t len, struct errmsg *e)
{
	struct perfscript ps;
	size_t pos = 0;
	int err = 0;

	perfscript__init(&ps, p);
	while (pos < len && !err) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		err = perfscript__line(&ps, text + pos, n, e);
		pos += n + (nl != NULL);
	}
	if (!err)
		err = perfscript__finish(&ps, e);
	perfscript__release(&ps);
	return err;
}
