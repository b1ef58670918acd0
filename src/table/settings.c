/*
 * settings: the recorded settings (file meta: THP, hugetlb, sysctls, the
 * kernel command line, CPU model and count, governor) that differ
 * between a diff's sides, printed first in every format: a diff of two
 * machines or configurations must say so before any number does.  A
 * side's value is its files' value when they agree, else every distinct
 * value joined by " | "; "-" when no file of the side recorded it (an
 * older recording or an import).  A few dozen meta keys a file: linear
 * scans.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/xalloc.h"

#include "table-int.h"

bool diff__setting_key(const char *name)
{
	static const char *const prefixes[] = { "thp_", "hugetlb_", "sysctl." };
	static const char *const names[] = {
		"kernel_cmdline", "cpu_model", "nr_cpus_online", "cpu_governor", "numa_nodes",
		"machine", "perf_event_paranoid", "kptr_restrict",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* A side's value of name into buf: its files' one value, their values joined, or "-". */
static void side_value(const struct profile *const *p, size_t nr, const char *name, char *buf,
		       size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < nr; i++) {
		const char *v = profile__meta(p[i], name);
		size_t j;

		if (!v)
			continue;
		for (j = 0; j < i && !(profile__meta(p[j], name) && !strcmp(profile__meta(p[j], name), v)); j++)
			;
		if (j < i)
			continue;	/* an earlier file said the same */
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " | " : "", v);
	}
	if (!buf[0])
		snprintf(buf, size, "-");
}

/* Is name already among the n settings of *out? */
static bool listed(const struct diff_setting *s, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return true;
	return false;
}

size_t diff__settings_differ(const struct diff_settings_side *sides, size_t nr_sides,
			     struct diff_setting **out)
{
	struct diff_setting *s = NULL, cur;
	size_t n = 0, alloc = 0, k, f, m, i;

	for (k = 0; k < nr_sides; k++)
		for (f = 0; f < sides[k].nr; f++) {
			const struct profile *p = sides[k].profiles[f];

			for (m = 0; m < p->nr_meta; m++) {
				const char *name = profile__str(p, p->meta[m].key);
				bool differs = false;

				if (!name || !diff__setting_key(name) || listed(s, n, name))
					continue;
				cur.name = xstrdup(name);
				cur.value = xcalloc(nr_sides, sizeof(*cur.value));
				for (i = 0; i < nr_sides; i++) {
					side_value(sides[i].profiles, sides[i].nr, name, cur.value[i],
						   sizeof(cur.value[i]));
					differs |= i && strcmp(cur.value[i], cur.value[0]);
				}
				if (!differs) {
					free(cur.name);
					free(cur.value);
					continue;
				}
				XGROW(s, alloc, n);
				s[n++] = cur;
			}
		}
	*out = s;
	return n;
}

void diff__settings_release(struct diff_setting *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(s[i].name);
		free(s[i].value);
	}
	free(s);
}

void diff__settings_json(struct jsonw *w, const struct diff_setting *s, size_t n,
			 const char *const *names, size_t nr_sides)
{
	size_t i, k;

	jsonw__array(w, "settings_differ", JSONW_INLINE);
	for (i = 0; i < n; i++) {
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "setting", s[i].name);
		for (k = 0; k < nr_sides; k++)
			jsonw__str(w, names[k], s[i].value[k]);
		jsonw__end(w);
	}
	jsonw__end(w);
}

void diff__settings_format(struct outbuf *b, const struct diff_setting *s, size_t n,
			   const char *const *names, size_t nr_sides, enum diff_format f)
{
	size_t i, k;

	if (!n)
		return;
	switch (f) {
	case DIFF_FORMAT_CSV:
		/* comment lines before the table (pandas: comment='#') */
		for (i = 0; i < n; i++) {
			outbuf__puts(b, "# setting differs,");
			diff__csv_str(b, s[i].name);
			for (k = 0; k < nr_sides; k++) {
				outbuf__printf(b, ",%s,", names[k]);
				diff__csv_str(b, s[i].value[k]);
			}
			outbuf__putc(b, '\n');
		}
		return;
	case DIFF_FORMAT_MARKDOWN:
		outbuf__puts(b, "**Settings that differ** (recorded with the files):");
		for (i = 0; i < n; i++) {
			outbuf__printf(b, "%s `", i ? ";" : "");
			outbuf__md_code(b, s[i].name);
			outbuf__puts(b, "`");
			for (k = 0; k < nr_sides; k++) {
				outbuf__printf(b, "%s %s `", k ? "," : "", names[k]);
				outbuf__md_code(b, s[i].value[k]);
				outbuf__puts(b, "`");
			}
		}
		outbuf__puts(b, "\n\n");
		return;
	default:
		outbuf__printf(b, "SETTINGS DIFFER (recorded with the files; each side's value):\n");
		for (i = 0; i < n; i++) {
			outbuf__puts(b, "  ");
			outbuf__text_str(b, s[i].name);
			outbuf__puts(b, ":");
			for (k = 0; k < nr_sides; k++) {
				outbuf__printf(b, "%s %s ", k ? "," : "", names[k]);
				outbuf__text_str(b, s[i].value[k]);
			}
			outbuf__putc(b, '\n');
		}
		outbuf__putc(b, '\n');
	}
}
