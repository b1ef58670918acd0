/*
 * benchout: benchmark output lines into metrics of one run; see
 * include/mmprof/benchout.h.  The readers follow lkp-tests'
 * programs/stress-ng/parse and programs/will-it-scale/parse case by
 * case; each comment names the Ruby it stands for.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmprof/benchout.h"
#include "mmprof/workload.h"

#define MAX_TOKENS	64
#define KEY_MAX		512

struct tokens {
	const char *s[MAX_TOKENS];
	size_t len[MAX_TOKENS];
	size_t nr;
	bool too_many;
};

/* Ruby's String#split with no argument: runs of whitespace, none leading. */
static void split_blanks(const char *line, size_t len, struct tokens *t)
{
	size_t i = 0;

	t->nr = 0;
	t->too_many = false;
	while (i < len) {
		size_t start;

		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !isspace((unsigned char)line[i]))
			i++;
		if (t->nr == MAX_TOKENS) {
			t->too_many = true;
			return;
		}
		t->s[t->nr] = line + start;
		t->len[t->nr++] = i - start;
	}
}

static bool tok_is(const struct tokens *t, size_t i, const char *s)
{
	return strlen(s) == t->len[i] && !memcmp(t->s[i], s, t->len[i]);
}

/* A number spelled whole (strtod of all of it), finite. */
static bool number(const char *s, size_t len, double *v)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtod(buf, &end);
	return !errno && *end == '\0' && isfinite(*v);
}

static const char *find(const char *line, size_t len, const char *s)
{
	return memmem(line, len, s, strlen(s));
}

/* Store key (checked) unless the run has had its share of table keys. */
static void store(struct benchout *b, const char *key, double v)
{
	if (b->nr_keys >= BENCHOUT_MAX_KEYS || !workload__key_ok(key, strlen(key)))
		return;
	b->nr_keys++;
	profile__add_metric(b->p, b->run, key, v);
}

/* "prefix.a[.b]": false when it does not fit */
static bool key_of(char *key, const char *prefix, const char *a, size_t alen,
		   const char *b, size_t blen, const char *suffix)
{
	int n = snprintf(key, KEY_MAX, "%s.%.*s%s%.*s%s", prefix, (int)alen, a,
			 blen ? "." : "", (int)blen, b ? b : "", suffix);

	return n > 0 && n < KEY_MAX;
}

/*
 * LKP::Stats.normalize (lib/tests/stats.rb) of the tokens from `first` on
 * joined by '_': runs of blanks , " _ [ ] ( ) : become one '_', none at
 * either end, and runs of four or more dots one dot.
 */
static size_t normalize_unit(const struct tokens *t, size_t first, char *out, size_t size)
{
	static const char squash[] = ",\"_[]():";
	size_t n = 0, i, k;
	bool sep = false;

	for (i = first; i < t->nr; i++) {
		for (k = 0; k <= t->len[i]; k++) {
			/* the joining '_' after every token but the last */
			char c = k < t->len[i] ? t->s[i][k] : '_';

			if (k == t->len[i] && i + 1 == t->nr)
				break;
			if (isspace((unsigned char)c) || strchr(squash, c)) {
				sep = true;
				continue;
			}
			if (sep && n) {
				if (n + 1 >= size)
					return 0;
				out[n++] = '_';
			}
			sep = false;
			if (n + 1 >= size)
				return 0;
			out[n++] = c;
		}
	}
	out[n] = '\0';
	/* gsub(/\.{4,}/, '.') */
	for (i = 0, k = 0; i < n;) {
		size_t run = 0;

		while (i + run < n && out[i + run] == '.')
			run++;
		if (run >= 4) {
			out[k++] = '.';
			i += run;
		} else if (run) {
			memmove(out + k, out + i, run);
			k += run;
			i += run;
		} else {
			out[k++] = out[i++];
		}
	}
	out[k] = '\0';
	return k;
}

/* The words of stress-ng's per-stressor summary lines: /\((average|geometr?ic mean|harmonic mean|total)/ */
static const char *const summary_words[] = {
	"(average", "(geometric mean", "(geometic mean", "(harmonic mean", "(total",
};

/* Where the first " (average ..." etc. of line starts (with its blank if blank), or NULL. */
static const char *summary_at(const char *line, size_t len, bool blank)
{
	const char *best = NULL;
	size_t i;

	for (i = 0; i < sizeof(summary_words) / sizeof(summary_words[0]); i++) {
		const char *w = summary_words[i];
		size_t wl = strlen(w);
		const char *p = line, *end = line + len;

		while ((p = memmem(p, (size_t)(end - p), w, wl))) {
			if (!blank || (p > line && p[-1] == ' ')) {
				const char *at = blank ? p - 1 : p;

				if (!best || at < best)
					best = at;
				break;
			}
			p++;
		}
	}
	return best;
}

/* StressorStater#stat_miscellaneous_metrics */
static void sng_misc(struct benchout *b, const char *line, size_t len)
{
	char key[KEY_MAX], unit[KEY_MAX];
	struct tokens t;
	const char *cut;
	double v;

	/* line.sub(/ \((average|...).*\)$/, ''): the line must end with ')' */
	if (len && line[len - 1] == ')' && (cut = summary_at(line, len, true)))
		len = (size_t)(cut - line);
	split_blanks(line, len, &t);
	/* items[5..] nil (fewer than 5 items) fails the robot's parser: skip */
	if (t.too_many || t.nr < 6 || !normalize_unit(&t, 5, unit, sizeof(unit)))
		return;
	if (tok_is(&t, 4, "0") || tok_is(&t, 4, "0.00")) {
		if (key_of(key, "stress-ng", t.s[3], t.len[3], unit, strlen(unit), ".fail"))
			store(b, key, 1);
		return;
	}
	if (!number(t.s[4], t.len[4], &v))
		return;
	if (key_of(key, "stress-ng", t.s[3], t.len[3], unit, strlen(unit), ".pass"))
		store(b, key, 1);
	if (key_of(key, "stress-ng", t.s[3], t.len[3], unit, strlen(unit), ""))
		store(b, key, v);
}

/* StressorStater#stat_major_metrics: the 10 (brief) or 12 (--metrics) columns */
static void sng_major(struct benchout *b, const char *line, size_t len)
{
	char key[KEY_MAX];
	struct tokens t;
	double ops, rate;

	split_blanks(line, len, &t);
	if (t.too_many || (t.nr != 10 && t.nr != 12))
		return;
	if (tok_is(&t, 4, "0")) {
		if (key_of(key, "stress-ng", t.s[3], t.len[3], NULL, 0, ".fail"))
			store(b, key, 1);
		return;
	}
	if (!number(t.s[4], t.len[4], &ops) || !number(t.s[8], t.len[8], &rate))
		return;
	if (!key_of(key, "stress-ng", t.s[3], t.len[3], NULL, 0, ".pass") ||
	    !workload__key_ok(key, strlen(key)))
		return;
	store(b, key, 1);
	key_of(key, "stress-ng", t.s[3], t.len[3], NULL, 0, ".ops");
	store(b, key, ops);
	key_of(key, "stress-ng", t.s[3], t.len[3], NULL, 0, ".ops_per_sec");
	store(b, key, rate);
}

/* /\(secs\)\s+\(secs\)\s+\(secs\)/ */
static bool secs_header(const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	while ((p = memmem(p, (size_t)(end - p), "(secs)", 6))) {
		const char *q = p + 6;
		int i;

		for (i = 0; i < 2; i++) {
			const char *blank = q;

			while (q < end && isspace((unsigned char)*q))
				q++;
			if (q == blank || (size_t)(end - q) < 6 || memcmp(q, "(secs)", 6))
				break;
			q += 6;
		}
		if (i == 2)
			return true;
		p++;
	}
	return false;
}

/* programs/stress-ng/parse's main loop, for stress-ng's own lines */
static void stress_ng_line(struct benchout *b, const char *line, size_t len)
{
	const char *fail;

	if (b->sng_done || len < 11 || memcmp(line, "stress-ng: ", 11))
		return;
	if (find(line, len, "this stressor is not implemented on this system") ||
	    find(line, len, "No stress workers invoked")) {
		b->sng_done = true;
		return;
	}
	if (find(line, len, "all bogo-op counters are zero, data may be incorrect"))
		return;
	fail = find(line, len, "stress-ng: fail:");
	if (fail && find(fail, len - (size_t)(fail - line), "sigaction signal")) {
		store(b, "stress-ng.sigaction.fail", 1);
		b->sng_done = true;
		return;
	}
	if (find(line, len, "fail:") || find(line, len, "warn:"))
		return;
	if (secs_header(line, len)) {
		b->sng_table = true;
		return;
	}
	if (find(line, len, "run time:")) {
		b->sng_done = true;
		return;
	}
	if (!b->sng_table)
		return;
	{
		/* /stress-ng: (info|metrc):.*\((average|geometr?ic mean|harmonic mean|total)/ */
		const char *tag = find(line, len, "stress-ng: info:");
		const char *m = find(line, len, "stress-ng: metrc:");

		if (!tag || (m && m < tag))
			tag = m;
		if (tag && summary_at(tag, len - (size_t)(tag - line), false))
			sng_misc(b, line, len);
		else
			sng_major(b, line, len);
	}
}

/* Ruby's "1,2,,".split(','): fields, trailing empty ones dropped. */
static size_t split_commas(const char *line, size_t len, struct tokens *t)
{
	size_t i, start = 0;

	t->nr = 0;
	t->too_many = false;
	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ',')
			continue;
		if (t->nr == MAX_TOKENS) {
			t->too_many = true;
			return 0;
		}
		t->s[t->nr] = line + start;
		t->len[t->nr++] = i - start;
		start = i + 1;
	}
	while (t->nr && !t->len[t->nr - 1])
		t->nr--;
	return t->nr;
}

static bool all_of(const char *line, size_t len, const char *set)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr(set, line[i]) || !line[i])
			return false;
	return len > 0;
}

/* Ruby's String#to_i / to_f of a field: the leading number, 0 without one. */
static double ruby_num(const struct tokens *t, size_t i, bool integer)
{
	char buf[64];
	size_t n;

	if (i >= t->nr)
		return 0;
	n = t->len[i] < sizeof(buf) - 1 ? t->len[i] : sizeof(buf) - 1;
	memcpy(buf, t->s[i], n);
	buf[n] = '\0';
	return integer ? (double)strtoll(buf, NULL, 10) : strtod(buf, NULL);
}

/* programs/will-it-scale/parse's loop: the header, one row per task count, assertions */
static void will_it_scale_line(struct benchout *b, const char *line, size_t len)
{
	char key[KEY_MAX];
	struct tokens t;
	const char *a;

	if (len >= 6 && !memcmp(line, "tasks,", 6) && all_of(line, len, "abcdefghijklmnopqrstuvwxyz_,")) {
		size_t i;

		if (!split_commas(line, len, &t))
			return;
		strlist__release(&b->wis_names);
		for (i = 1; i < t.nr; i++) {
			char name[KEY_MAX];

			snprintf(name, sizeof(name), "%.*s", (int)t.len[i], t.s[i]);
			strlist__add(&b->wis_names, name);
		}
		b->wis_on = true;
		return;
	}
	if (b->wis_on && all_of(line, len, "0123456789.,")) {
		double tasks, processes, threads, linear;
		size_t i;

		if (!split_commas(line, len, &t) || tok_is(&t, 0, "0"))
			return;
		tasks = ruby_num(&t, 0, true);
		processes = ruby_num(&t, 1, true);
		threads = ruby_num(&t, 3, true);
		if ((processes == 0 && threads == 0) || tasks == 0)
			return;
		linear = ruby_num(&t, t.nr - 1, true);
		if (linear != 0 && !tok_is(&t, 0, "1")) {
			b->wis_scalability = ruby_num(&t, 1, false) / linear;
			b->wis_scal_rows++;
		}
		b->wis_per_process += processes / tasks;
		b->wis_per_thread += threads / tasks;
		b->wis_workload += processes + threads;
		b->wis_rows++;
		for (i = 0; i < b->wis_names.nr && i + 1 < t.nr; i++) {
			const char *name = b->wis_names.items[i];
			double v;

			if (number(t.s[i + 1], t.len[i + 1], &v) &&
			    key_of(key, "will-it-scale", t.s[0], t.len[0], name, strlen(name), ""))
				store(b, key, v);
		}
		return;
	}
	/* /(Assertion .* failed)/, then .sub(/.*: /, '').tr('^a-zA-Z0-9<>!=', '_').gsub(/__+/, '_') */
	if ((a = find(line, len, "Assertion "))) {
		const char *end = line + len, *f = NULL, *p, *from;
		size_t n = 0;

		for (p = a + 10; (p = memmem(p, (size_t)(end - p), " failed", 7)); p++)
			f = p;
		if (!f || b->wis_asserts.nr >= 16)
			return;
		end = f + 7;
		from = a;
		for (p = a; p + 1 < end; p++)
			if (p[0] == ':' && p[1] == ' ')
				from = p + 2;
		n = (size_t)snprintf(key, sizeof(key), "will-it-scale.");
		for (p = from; p < end && n + 1 < sizeof(key); p++) {
			char c = isalnum((unsigned char)*p) || strchr("<>!=", *p) ? *p : '_';

			if (c == '_' && key[n - 1] == '_')
				continue;
			key[n++] = c;
		}
		key[n] = '\0';
		for (n = 0; n < b->wis_asserts.nr; n++)
			if (!strcmp(b->wis_asserts.items[n], key))
				return;
		strlist__add(&b->wis_asserts, key);
	}
}

static double thread_cpu(void)
{
	struct timespec t;

	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) ? 0 : (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void ops_line(struct benchout *b, const char *line, size_t len)
{
	char buf[WORKLOAD_LINE_MAX + 1];
	regmatch_t m[2];
	double v, t0;
	bool hit;

	if (!b->o || !b->o->has_ops || b->ops_over_budget || len >= sizeof(buf))
		return;
	memcpy(buf, line, len);
	buf[len] = '\0';
	t0 = thread_cpu();
	/* the groups only of a line that matches: without them glibc's search is far cheaper */
	hit = !regexec(&b->o->ops_test, buf, 0, NULL, 0) &&
	      !regexec(&b->o->ops_re, buf, 2, m, 0) && m[1].rm_so >= 0;
	b->ops_cpu += thread_cpu() - t0;
	b->ops_lines++;
	if (b->ops_cpu > BENCHOUT_OPS_CPU + BENCHOUT_OPS_LINE_CPU * (double)b->ops_lines)
		b->ops_over_budget = true;
	if (!hit || !number(buf + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), &v))
		return;
	b->ops += v;
	b->ops_matches++;
}

void benchout__init(struct benchout *b, const struct benchout_opts *o, struct profile *p,
		    uint32_t run)
{
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->p = p;
	b->run = run;
}

void benchout__line(void *ctx, const char *line, size_t len)
{
	struct benchout *b = ctx;
	char key[256];
	double v;

	if (workload__parse_metric(line, len, key, sizeof(key), &v))
		profile__add_metric(b->p, b->run, key, v);
	stress_ng_line(b, line, len);
	will_it_scale_line(b, line, len);
	ops_line(b, line, len);
}

size_t benchout__end(struct benchout *b)
{
	size_t i;

	if (b->wis_on) {
		char num[64];

		/* printf "%f" and "%d" of the averages, as the robot prints them */
		if (b->wis_scal_rows) {
			snprintf(num, sizeof(num), "%f", b->wis_scalability);
			store(b, "will-it-scale.scalability", strtod(num, NULL));
		}
		if (b->wis_rows) {
			store(b, "will-it-scale.per_process_ops",
			      trunc(b->wis_per_process / (double)b->wis_rows));
			store(b, "will-it-scale.per_thread_ops",
			      trunc(b->wis_per_thread / (double)b->wis_rows));
		}
		if (b->wis_workload != 0)
			store(b, "will-it-scale.workload", trunc(b->wis_workload));
		/* their keys hold <>!= (tr's set), which workload__key_ok refuses */
		for (i = 0; i < b->wis_asserts.nr && b->nr_keys < BENCHOUT_MAX_KEYS; i++, b->nr_keys++)
			profile__add_metric(b->p, b->run, b->wis_asserts.items[i], 1);
	}
	/* a sum past the double range is no count, nor one of part of the output */
	if (b->ops_over_budget)
		return 0;
	if (b->ops_matches && isfinite(b->ops))
		profile__add_metric(b->p, b->run, b->o->ops_key, b->ops);
	return b->ops_matches;
}

void benchout__release(struct benchout *b)
{
	strlist__release(&b->wis_names);
	strlist__release(&b->wis_asserts);
}

/*
 * The largest product of {m,n} upper bounds along one nesting of pattern
 * (a counted repetition is expanded into that many copies of what it
 * repeats; nested, they multiply).  Brackets and escapes are atoms; *backref
 * says whether an escape outside a bracket is a back-reference (\1 to \9,
 * glibc's extension to POSIX ERE).
 */
static unsigned long long dup_product(const char *pattern, bool *backref)
{
	unsigned long long stack[64], worst = 1, atom = 1;
	size_t depth = 0;
	const char *s;

	for (s = pattern; *s; s++) {
		if (*s == '(') {
			if (depth == 64)
				return ~0ull;	/* regcomp refuses it anyway */
			stack[depth++] = worst;
			worst = 1;
			atom = 1;
		} else if (*s == ')' && depth) {
			atom = worst;	/* the group, as an atom of the one around it */
			worst = stack[--depth];
			if (atom > worst)
				worst = atom;
		} else if (*s == '{') {
			char *end;
			unsigned long long n = strtoull(s + 1, &end, 10);

			if (*end == ',' && end[1] != '}')
				n = strtoull(end + 1, &end, 10);
			/* past the bound is past it: no product to wrap */
			atom *= n > BENCHOUT_OPS_DUP ? BENCHOUT_OPS_DUP + 1 : n ? n : 1;
			if (atom > worst)
				worst = atom;
			if (worst > BENCHOUT_OPS_DUP)
				return worst;
			s = *end ? end : end - 1;
		} else {
			if (*s == '\\' && s[1]) {
				if (s[1] >= '1' && s[1] <= '9')
					*backref = true;
				s++;
			} else if (*s == '[') {	/* a bracket: ']' first is a member */
				s += s[1] == '^' ? 2 : 1;
				if (*s == ']')
					s++;
				while (*s && *s != ']')
					s++;
				if (!*s)
					break;
			}
			atom = 1;
		}
	}
	return worst;
}

int benchout_opts__set_ops(struct benchout_opts *o, const char *pattern, const char *name,
			   const char *command, struct errmsg *e)
{
	bool backref = false;
	char why[256];
	int rc, n;

	if (!name) {
		name = strrchr(command, '/');
		name = name ? name + 1 : command;
	}
	n = snprintf(o->ops_key, sizeof(o->ops_key), "%s.ops", name);
	if (n < 0 || (size_t)n >= sizeof(o->ops_key) || !workload__key_ok(o->ops_key, (size_t)n))
		return errmsg__set(e, -EINVAL, "'%s.ops' is no metric key (letters, digits, "
				   "_-.%%/); name it with --ops-name NAME", name);
	if (dup_product(pattern, &backref) > BENCHOUT_OPS_DUP)
		return errmsg__set(e, -EINVAL, "--ops-pattern '%s': counted repetitions ({m,n}) "
				   "nest to more than %u copies, which matching cannot afford; use "
				   "+ or * for long runs", pattern, BENCHOUT_OPS_DUP);
	/* one line's regexec cannot be stopped, and a back-reference makes it exponential */
	if (backref)
		return errmsg__set(e, -EINVAL, "--ops-pattern '%s': a back-reference (\\1 to "
				   "\\9) makes matching exponential in the line's length; spell "
				   "the text out", pattern);
	rc = regcomp(&o->ops_re, pattern, REG_EXTENDED);
	if (rc) {
		/* glibc frees what a failed regcomp built: no regfree */
		regerror(rc, &o->ops_re, why, sizeof(why));
		return errmsg__set(e, -EINVAL, "--ops-pattern '%s': %s", pattern, why);
	}
	if (o->ops_re.re_nsub < 1) {
		regfree(&o->ops_re);
		return errmsg__set(e, -EINVAL, "--ops-pattern '%s': no group: put the number "
				   "in parentheses, as in 'done ([0-9]+) ops'", pattern);
	}
	if ((rc = regcomp(&o->ops_test, pattern, REG_EXTENDED | REG_NOSUB))) {
		regerror(rc, &o->ops_test, why, sizeof(why));
		regfree(&o->ops_re);
		return errmsg__set(e, -EINVAL, "--ops-pattern '%s': %s", pattern, why);
	}
	o->has_ops = true;
	return 0;
}

void benchout_opts__release(struct benchout_opts *o)
{
	if (o->has_ops) {
		regfree(&o->ops_re);
		regfree(&o->ops_test);
	}
	o->has_ops = false;
}

int benchout__file(struct benchout *b, const char *path, struct errmsg *e)
{
	char line[WORKLOAD_LINE_MAX + 2];
	bool skipping = false;
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return errmsg__set(e, -errno, "cannot read '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool whole = len && line[len - 1] == '\n';

		/* a line longer than the buffer: not read, as record skips it */
		if (skipping || (!whole && len > WORKLOAD_LINE_MAX)) {
			skipping = !whole;
			continue;
		}
		if (whole)
			len--;
		benchout__line(b, line, len);
	}
	if (ferror(f))
		err = errmsg__set(e, -EIO, "cannot read '%s': %s", path, strerror(EIO));
	fclose(f);
	benchout__end(b);
	return err;
}
