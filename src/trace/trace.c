/*
 * trace: libtraceevent behind mmprof's names; see include/mmprof/trace.h.
 *
 * libtraceevent parses format files and knows the byte order; the field
 * reads here add what it does not do: a bounds check against the record,
 * since tep_read_number_field trusts its input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "mmprof/evspec.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#define FORMAT_MAX	(1 << 20)	/* a format file is a few KiB */

struct trace_ev {
	int id;
	char name[128];		/* "sys:name" */
};

struct trace {
	struct tep_handle *tep;
	struct trace_ev *evs;
	size_t nr_evs, alloc_evs;
};

struct trace *trace__new(void)
{
	struct trace *t = xcalloc(1, sizeof(*t));
	int one = 1;
	bool big = *(char *)&one == 0;

	t->tep = tep_alloc();
	if (!t->tep) {
		free(t);
		return NULL;
	}
	tep_set_long_size(t->tep, (int)sizeof(long));
	tep_set_page_size(t->tep, (int)sysconf(_SC_PAGESIZE));
	tep_set_file_bigendian(t->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	return t;
}

void trace__free(struct trace *t)
{
	if (!t)
		return;
	tep_free(t->tep);
	free(t->evs);
	free(t);
}

static const struct trace_ev *find_ev(const struct trace *t, int id)
{
	size_t i;

	for (i = 0; i < t->nr_evs; i++)
		if (t->evs[i].id == id)
			return &t->evs[i];
	return NULL;
}

const char *trace__event_name(struct trace *t, int id)
{
	const struct trace_ev *ev = find_ev(t, id);

	return ev ? ev->name : NULL;
}

/* The "ID: N" line of a format text, or -EINVAL. */
static int format_id(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 4 && n < 20 && !memcmp(p, "ID: ", 4)) {
			char buf[24];
			char *e;
			long v;

			memcpy(buf, p + 4, n - 4);
			buf[n - 4] = '\0';
			v = strtol(buf, &e, 10);
			if (e != buf && !*e && v > 0 && v <= 65535)
				return (int)v;	/* common_type is 16 bits */
			return -EINVAL;
		}
		p += n + 1;
	}
	return -EINVAL;
}

int trace__parse_format(struct trace *t, const char *sys, const char *text, size_t len,
			struct errmsg *e)
{
	struct tep_event *event = NULL;
	enum tep_errno rc;
	int id = format_id(text, len);
	char err[128];

	if (id < 0)
		return errmsg__set(e, -EINVAL, "tracepoint format of '%s' has no valid ID line", sys);
	if (find_ev(t, id))
		return id;
	rc = tep_parse_format(t->tep, &event, text, len, sys);
	if (rc || !event) {
		tep_strerror(t->tep, rc, err, sizeof(err));
		return errmsg__set(e, -EINVAL, "cannot parse a tracepoint format of '%s': %s",
				   sys, err);
	}
	if (event->id != id)
		return errmsg__set(e, -EINVAL, "tracepoint format of '%s:%s' disagrees on its id",
				   sys, event->name);
	XGROW(t->evs, t->alloc_evs, t->nr_evs);
	t->evs[t->nr_evs].id = id;
	snprintf(t->evs[t->nr_evs].name, sizeof(t->evs[t->nr_evs].name), "%s:%s", sys,
		 event->name);
	t->nr_evs++;
	return id;
}

static bool safe_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int trace__exists(const char *sys, const char *name)
{
	const char *dir = evspec__tracefs(NULL);
	char path[512];

	if (!dir || !safe_name(sys) || !safe_name(name))
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, name);
	return access(path, R_OK) == 0;
}

int trace__load(struct trace *t, const char *sys, const char *name, struct errmsg *e)
{
	const char *dir;
	char path[512];
	char *buf = NULL;
	size_t len = 0, alloc = 0;
	FILE *f;
	int ret;

	if (!safe_name(sys) || !safe_name(name))
		return errmsg__set(e, -EINVAL, "invalid tracepoint name '%s:%s'", sys, name);
	dir = evspec__tracefs(e);
	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, name);
	f = fopen(path, "re");
	if (!f)
		return errmsg__set(e, -errno, "no tracepoint '%s:%s' on this kernel (%s: %s)",
				   sys, name, path, strerror(errno));
	/* tracefs files report size 0: read to EOF */
	for (;;) {
		size_t n;

		if (alloc - len < 4096) {
			alloc = alloc ? alloc * 2 : 8192;
			buf = xrealloc(buf, alloc);
		}
		n = fread(buf + len, 1, alloc - len, f);
		len += n;
		if (!n || len > FORMAT_MAX)
			break;
	}
	fclose(f);
	if (len > FORMAT_MAX)
		ret = errmsg__set(e, -EFBIG, "tracepoint format '%s' is too large", path);
	else
		ret = trace__parse_format(t, sys, buf, len, e);
	free(buf);
	return ret;
}

int trace__record_id(const void *raw, uint32_t size)
{
	uint16_t type;

	if (!raw || size < sizeof(type))
		return -EINVAL;
	memcpy(&type, raw, sizeof(type));
	return type;
}

int trace__field(struct trace *t, int id, const char *name, struct trace_field *f)
{
	struct tep_event *ev = find_ev(t, id) ? tep_find_event(t->tep, id) : NULL;
	struct tep_format_field *tf = ev ? tep_find_any_field(ev, name) : NULL;

	memset(f, 0, sizeof(*f));
	if (!tf || tf->offset < 0 || tf->size <= 0)
		return -ENOENT;
	f->f = tf;
	f->offset = (uint32_t)tf->offset;
	f->size = (uint32_t)tf->size;
	f->is_signed = !!(tf->flags & TEP_FIELD_IS_SIGNED);
	f->is_array = !!(tf->flags & TEP_FIELD_IS_ARRAY);
	return 0;
}

int trace__read_u64(const struct trace *t, const struct trace_field *f, const void *raw,
		    uint32_t size, uint64_t *v)
{
	const char *p = raw;
	unsigned long long x;

	if (!f->f || f->is_array || (uint64_t)f->offset + f->size > size ||
	    !(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
		return -EINVAL;
	x = tep_read_number(t->tep, p + f->offset, (int)f->size);
	if (f->is_signed && f->size < 8) {
		unsigned shift = 64 - 8 * f->size;

		x = (unsigned long long)((long long)(x << shift) >> shift);
	}
	*v = x;
	return 0;
}

int trace__read_str(const struct trace_field *f, const void *raw, uint32_t size,
		    char *buf, size_t buflen)
{
	const char *p = raw;
	size_t n;

	if (!f->f || !buflen || (uint64_t)f->offset + f->size > size)
		return -EINVAL;
	p += f->offset;
	n = strnlen(p, f->size);
	if (n >= buflen)
		n = buflen - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}
