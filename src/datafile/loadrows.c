/*
 * datafile loadrows: step 3 of datafile__load (see load.c's opening
 * comment for the order of defences): every table read in id order, each
 * value through a typed, bounded getter (loadget.h), ids dense,
 * references in range, file ids mapped to the model's interned ones.
 * Here the driver (loader__read_tables) and the flat tables: strings,
 * meta, events, runs, counters, intervals, metrics, frames and their
 * files; the trie and its counts are loadtrie.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "loadget.h"
#include "loader.h"
#include "schema.h"

static int load_strings(struct loader *l)
{
	const char *s;
	size_t len;
	int err, r;

	if ((err = prepare(l, "strings", "SELECT id, s FROM strings ORDER BY id")))
		return err;
	XGROW(l->strmap, l->alloc_strmap, 0);
	l->strmap[0] = 0;
	l->nr_strs = 1;
	while ((r = next_row(l, 1)) > 0) {
		if ((err = get_text(l, 1, false, &s, &len)))
			return err;
		XGROW(l->strmap, l->alloc_strmap, l->nr_strs);
		l->strmap[l->nr_strs++] = profile__intern_len(l->p, s, len);
	}
	return r;
}

static int load_meta(struct loader *l)
{
	const char *k, *v;
	size_t klen, vlen;
	int err, r, seen_version = 0;

	if ((err = prepare(l, "meta", "SELECT seq, key, value FROM meta ORDER BY seq")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		if (l->nr_rows > DATAFILE_MAX_META)
			return bad_row(l, "more than %u meta keys", DATAFILE_MAX_META);
		if ((err = get_text(l, 1, false, &k, &klen)) ||
		    (err = get_text(l, 2, true, &v, &vlen)))
			return err;
		if (!strcmp(k, DATAFILE_META_FORMAT)) {
			char want[16];

			snprintf(want, sizeof(want), "%d", l->version);
			if (!v || strcmp(v, want))
				return bad_row(l, "format_version '%.20s' disagrees with user_version %d",
					       v ? v : "(null)", l->version);
			seen_version++;
			continue;
		}
		profile__set_meta(l->p, k, v);
	}
	if (r < 0)
		return r;
	if (seen_version != 1)
		return errmsg__set(l->e, -EPROTO,
				   "cannot load '%s': inconsistent data file: meta has %d format_version rows, not 1",
				   l->path, seen_version);
	return 0;
}

static int load_events(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "events",
			   "SELECT id, name, asked, type, config, freq, sample FROM events ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct event_desc ev;

		if (l->nr_rows > DATAFILE_MAX_EVENTS)
			return bad_row(l, "more than %u sampling events", DATAFILE_MAX_EVENTS);
		if ((err = get_str(l, 1, &ev.name)) || (err = get_str(l, 2, &ev.asked)) ||
		    (err = get_u32(l, 3, &ev.type)) || (err = get_u64(l, 4, &ev.config)) ||
		    (err = get_bool(l, 5, &ev.freq)) || (err = get_u64(l, 6, &ev.sample)))
			return err;
		profile__add_event(l->p, &ev);
		l->nr_events++;
	}
	return r;
}

static int load_runs(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "runs",
			   "SELECT id, start_ns, wall_ns, exit_code, term_signal, utime_us, stime_us,"
			   " maxrss_kb, minflt, majflt, nvcsw, nivcsw, samples, lost, throttled"
			   " FROM runs ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct run ru;

		if (l->nr_rows > DATAFILE_MAX_RUNS)
			return bad_row(l, "more than %u runs", DATAFILE_MAX_RUNS);
		if ((err = get_i64(l, 1, &ru.start_ns)) || (err = get_i64(l, 2, &ru.wall_ns)) ||
		    (err = get_i32(l, 3, &ru.exit_code)) || (err = get_i32(l, 4, &ru.term_signal)) ||
		    (err = get_i64(l, 5, &ru.utime_us)) || (err = get_i64(l, 6, &ru.stime_us)) ||
		    (err = get_i64(l, 7, &ru.maxrss_kb)) || (err = get_i64(l, 8, &ru.minflt)) ||
		    (err = get_i64(l, 9, &ru.majflt)) || (err = get_i64(l, 10, &ru.nvcsw)) ||
		    (err = get_i64(l, 11, &ru.nivcsw)) || (err = get_count(l, 12, &ru.samples)) ||
		    (err = get_count(l, 13, &ru.lost)) || (err = get_count(l, 14, &ru.throttled)))
			return err;
		profile__add_run(l->p, &ru);
		l->nr_runs++;
	}
	return r;
}

static int load_counters(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "counters",
			   "SELECT id, run, name, supported, value, enabled, running"
			   " FROM counters ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct counter c;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &c.run)) ||
		    (err = get_str(l, 2, &c.name)) || (err = get_bool(l, 3, &c.supported)) ||
		    (err = get_u64(l, 4, &c.value)) || (err = get_u64(l, 5, &c.enabled)) ||
		    (err = get_u64(l, 6, &c.running)))
			return err;
		profile__add_counter(l->p, &c);
	}
	return r;
}

static int load_intervals(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "intervals",
			   "SELECT id, run, name, t_ns, value, enabled, running"
			   " FROM intervals ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct counter_interval ci;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &ci.run)) ||
		    (err = get_str(l, 2, &ci.name)) || (err = get_u64(l, 3, &ci.t_ns)) ||
		    (err = get_u64(l, 4, &ci.value)) || (err = get_u64(l, 5, &ci.enabled)) ||
		    (err = get_u64(l, 6, &ci.running)))
			return err;
		profile__add_interval(l->p, &ci);
	}
	return r;
}

static int load_metrics(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "metrics", "SELECT id, run, key, value FROM metrics ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		uint32_t run, key;
		double v;
		int t;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &run)) || (err = get_str(l, 2, &key)))
			return err;
		t = sqlite3_column_type(l->st, 3);
		if (t == SQLITE_NULL)
			v = NAN;	/* SQLite stores NaN as NULL */
		else if (t == SQLITE_FLOAT || t == SQLITE_INTEGER)
			v = sqlite3_column_double(l->st, 3);
		else
			return bad_row(l, "value is %s, not a number", type_name(t));
		profile__add_metric(l->p, run, profile__str(l->p, key), v);
	}
	return r;
}

/* Does frames have this nullable column (files written before it do not)? */
static bool frames_have(struct loader *l, const char *column)
{
	sqlite3_stmt *st = NULL;
	bool yes;

	if (sqlite3_prepare_v2(l->db, "SELECT 1 FROM pragma_table_info('frames') "
				      "WHERE name = ?1", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, column, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

static int load_frames(struct loader *l)
{
	char sql[160];
	int err, r;

	snprintf(sql, sizeof(sql), "SELECT id, addr, sym_off, sym, dso, kernel, %s, %s "
		 "FROM frames ORDER BY id", frames_have(l, "inlined") ? "inlined" : "NULL",
		 frames_have(l, "raw") ? "raw" : "NULL");
	if ((err = prepare(l, "frames", sql)))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct frame f = { 0 };

		if ((err = get_u64(l, 1, &f.addr)) || (err = get_u64(l, 2, &f.sym_off)) ||
		    (err = get_str(l, 3, &f.sym)) || (err = get_str(l, 4, &f.dso)) ||
		    (err = get_bool(l, 5, &f.kernel)) ||
		    (sqlite3_column_type(l->st, 6) != SQLITE_NULL && (err = get_bool(l, 6, &f.inlined))) ||
		    (err = get_str(l, 7, &f.raw)))
			return err;
		XGROW(l->framemap, l->alloc_framemap, l->nr_frames);
		l->framemap[l->nr_frames++] = profile__frame(l->p, &f);
	}
	return r;
}

/*
 * A frame of the file as the profile's: the same frame's id when the file
 * repeats one (an edit, or two kernel frames that mmprof strip made one),
 * but in format 5 its own id still, since the chains (chain_blocks) are
 * ordered by the file's ids and merging two frames would break the order.
 */
static uint32_t load_frame(struct loader *l, const struct frame *f, bool *repeats)
{
	struct profile *p = l->p;
	size_t before = p->nr_frames;
	uint32_t id = profile__frame(p, f);

	if (l->version < 5 || id == before)
		return id;
	XGROW(p->frames, p->alloc_frames, p->nr_frames);
	p->frames[p->nr_frames] = p->frames[id];
	*repeats = true;
	return (uint32_t)p->nr_frames++;
}

/* Formats 3 to 5: frames in blocks (schema.h). */
static int load_frame_blocks(struct loader *l)
{
	bool last_seen = false, bw = l->version >= 4, repeats = false;
	int err, r;

	if ((err = prepare(l, "frame_blocks", "SELECT id, size, data FROM frame_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const unsigned char *b;
		size_t n, j;

		if ((err = get_block(l, 1, DATAFILE_FRAME_SIZE, DATAFILE_FRAMES_PER_BLOCK, &b, &n)) ||
		    (err = check_full(l, &last_seen, n, DATAFILE_FRAMES_PER_BLOCK)))
			return err;
		for (j = 0; j < n; j++) {
			struct frame f = { .addr = block_field(bw, b, n, j, 0, 8),
					   .sym_off = block_field(bw, b, n, j, 8, 8) };
			unsigned flags = b[n * 28 + j];

			if ((err = block_str(l, (uint32_t)block_field(bw, b, n, j, 16, 4), "sym", j, &f.sym)) ||
			    (err = block_str(l, (uint32_t)block_field(bw, b, n, j, 20, 4), "dso", j, &f.dso)) ||
			    (err = block_str(l, (uint32_t)block_field(bw, b, n, j, 24, 4), "raw", j, &f.raw)))
				return err;
			if (flags & ~(DATAFILE_FRAME_KERNEL | DATAFILE_FRAME_INLINED))
				return bad_row(l, "record %zu: flags %#x are not kernel (1) and inlined (2)",
					       j, flags);
			f.kernel = !!(flags & DATAFILE_FRAME_KERNEL);
			f.inlined = !!(flags & DATAFILE_FRAME_INLINED);
			if (l->nr_frames >= DATAFILE_MAX_ROWS)
				return bad_row(l, "more than %u frames", DATAFILE_MAX_ROWS);
			XGROW(l->framemap, l->alloc_framemap, l->nr_frames);
			l->framemap[l->nr_frames++] = load_frame(l, &f, &repeats);
		}
	}
	/* format 5: the repeated frames kept apart join the frames' index */
	if (repeats)
		profile__frames_changed(l->p);
	return r;
}

/* A build-id as frame_files holds it: lower-case hex, at most PROFILE_BUILD_ID_MAX digits. */
static bool is_build_id(const char *s, size_t len)
{
	return len <= PROFILE_BUILD_ID_MAX && strspn(s, "0123456789abcdef") == len;
}

/*
 * The optional frame_files (load.c checked its columns when present):
 * where unresolved user frames lie in their files, for mmprof resolve.
 * A build-id is hex of at most PROFILE_BUILD_ID_MAX digits.
 */
static int load_frame_files(struct loader *l)
{
	int err, r;

	if (!l->has_frame_files)
		return 0;
	if ((err = prepare(l, "frame_files",
			   "SELECT id, frame, vaddr, build_id FROM frame_files ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const char *bid;
		uint32_t frame;
		uint64_t vaddr;
		size_t len;

		if ((err = get_ref(l, 1, l->nr_frames, "frames", &frame)) ||
		    (err = get_u64(l, 2, &vaddr)) || (err = get_text(l, 3, true, &bid, &len)))
			return err;
		if (bid && !is_build_id(bid, len))
			return bad_row(l, "build_id is not a build-id (hex, at most %d digits)",
				       PROFILE_BUILD_ID_MAX);
		profile__add_frame_file(l->p, l->framemap[frame], vaddr, bid);
	}
	return r;
}

/*
 * Format 4: frame_files in blocks (schema.h), a record per frame in frame
 * order, each frame the one before plus a step of at least 1.
 */
static int load_frame_file_blocks(struct loader *l)
{
	bool last_seen = false;
	int64_t prev = -1;
	int err, r;

	if ((err = prepare(l, "frame_file_blocks",
			   "SELECT id, size, data FROM frame_file_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const unsigned char *b;
		size_t n, j;

		if ((err = get_block(l, 1, DATAFILE_FFILE_SIZE, DATAFILE_FFILES_PER_BLOCK, &b, &n)) ||
		    (err = check_full(l, &last_seen, n, DATAFILE_FFILES_PER_BLOCK)))
			return err;
		for (j = 0; j < n; j++) {
			uint32_t step = (uint32_t)by_byte(b, n, j, 0, 4), bid = 0;
			uint64_t vaddr = by_byte(b, n, j, 4, 8);
			int64_t frame = prev + step;
			const char *s;

			if (!step || frame >= (int64_t)l->nr_frames)
				return bad_row(l, "record %zu: frame %lld does not exist after frame %lld (%zu frames; one record per frame, in order)",
					       j, (long long)frame, (long long)prev, l->nr_frames);
			if ((err = block_str(l, (uint32_t)by_byte(b, n, j, 12, 4), "build_id", j, &bid)))
				return err;
			s = profile__str(l->p, bid);
			if (s && !is_build_id(s, strlen(s)))
				return bad_row(l, "record %zu: build_id is not a build-id (hex, at most %d digits)",
					       j, PROFILE_BUILD_ID_MAX);
			profile__add_frame_file(l->p, l->framemap[frame], vaddr, s);
			prev = frame;
		}
	}
	return r;
}

/*
 * Formats 3 and 4: what the blocks say they unpack to, before anything is
 * read (a stated size is checked again as its block is unpacked).
 */
static int check_unpacked(struct loader *l)
{
	double total;
	int err, rc;

	if (l->version < 3)
		return 0;
	if ((err = prepare(l, "the blocks",
			   l->version < 4 ?
			   "SELECT (SELECT total(max(size, 0)) FROM frame_blocks) + "
			   "(SELECT total(max(size, 0)) FROM node_blocks) + "
			   "(SELECT total(max(size, 0)) FROM stack_counts)" :
			   "SELECT (SELECT total(max(size, 0)) FROM frame_blocks) + "
			   "(SELECT total(max(size, 0)) FROM node_blocks) + "
			   "(SELECT total(max(size, 0)) FROM frame_file_blocks) + "
			   "(SELECT total(max(size, 0)) FROM stack_counts)")))
		return err;
	if ((rc = sqlite3_step(l->st)) != SQLITE_ROW)
		return loader__sql_fail(l, rc);
	total = sqlite3_column_double(l->st, 0);
	if (total > DATAFILE_MAX_UNPACKED)
		return errmsg__set(l->e, -EFBIG, "cannot load '%s': its blocks unpack to %.0f MiB, "
				   "more than the %u MiB a reader allows (data-format.md, blocks)",
				   l->path, total / (1 << 20), DATAFILE_MAX_UNPACKED >> 20);
	return 0;
}

int loader__read_tables(struct loader *l)
{
	int err;

	if ((err = check_unpacked(l)) || (err = load_strings(l)) || (err = load_meta(l)) || (err = load_events(l)) ||
	    (err = load_runs(l)) || (err = load_counters(l)) || (err = load_intervals(l)) ||
	    (err = load_metrics(l)) ||
	    (err = l->version < 3 ? load_frames(l) : load_frame_blocks(l)) ||
	    (err = l->version < 4 ? load_frame_files(l) : load_frame_file_blocks(l)) ||
	    (err = loader__load_nodes(l)) ||
	    (err = loader__load_counts(l)) || (err = loader__check_walk(l)) ||
	    (err = loader__load_chains(l)))
		return err;
	return 0;
}
