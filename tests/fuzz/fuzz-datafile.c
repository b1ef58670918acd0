/*
 * libFuzzer harness for the .data reader (issue 9): any byte string, written
 * to a file, must be refused or loaded by datafile__load without a crash,
 * a sanitizer report, a leak or a hang.  A loaded profile is saved again
 * and reloaded, so the writer's invariant checks see hostile content too.
 *
 * Built and run by `make fuzz` (clang -fsanitize=fuzzer,address,undefined
 * against build-fuzz/libmmprof.a), FUZZ_SECONDS each; by hand:
 *
 *   make build-fuzz/fuzz-datafile
 *   build-fuzz/fuzz-datafile -max_total_time=60 -max_len=65536 \
 *         build-fuzz/corpus/datafile tests/fuzz/corpus/datafile
 *
 * Two kinds of input: raw bytes are the file itself (corruption, foreign
 * formats); an input starting with "SQL:" is SQL run on a copy of a valid
 * file built at start-up (hostile *content* in a well-formed database:
 * dangling ids, cycles, wrong types, huge values), which byte flips rarely
 * reach; "SQL1:" and "SQL2:" do the same on a format-1 file (a row per
 * count) and a format-2 file (a row per frame and per trie node; format
 * 3, the current one, packs them in zlib blocks).
 * What loads is also rendered (check-views.h: folded, tree and JSON, every
 * line ended and free of control bytes).  The seed rule is datafile-seed.h's,
 * shared with the suite's hostile-file check (t831 runs every reader on
 * every seed under a time and memory limit).
 * Seeds in tests/fuzz/corpus/datafile/: valid files of every format with
 * every record type (512-byte pages to keep them small) and SQL edits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check-views.h"
#include "datafile-seed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[96], again[96], base[96];
static struct seed_base bases;

static void remove_dir(void)
{
	unlink(path);
	unlink(again);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL;
	struct errmsg e;

	if (!path[0]) {
		/* a folder of its own: save lists the target's folder for stale
		 * temporaries at every call, and /tmp is shared and large */
		snprintf(dir, sizeof(dir), "/tmp/fuzz-datafile.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/in.data", dir);
		snprintf(again, sizeof(again), "%s/again.data", dir);
		snprintf(base, sizeof(base), "%s/base.data", dir);
		atexit(remove_dir);
		seed__make_base(&bases, base);
	}
	seed__write(&bases, data, size, path);
	if (datafile__load(path, &p, &e) == 0) {
		struct profile *q = NULL;

		if (!p)
			abort();
		check_views(p, count_samples(p));
		/* what loads must save (or be refused by save with a message)
		 * and what save writes must load again */
		if (datafile__save(p, again, &e) == 0) {
			if (datafile__load(again, &q, &e))
				abort();
			profile__free(q);
		}
		unlink(again);
	} else if (p || !e.msg[0]) {
		abort();	/* an error must come with a message and no profile */
	}
	profile__free(p);
	return 0;
}
