/*
 * libFuzzer harness for the .data reader (issue 9): any byte string, written
 * to a file, must be refused or loaded by datafile__load without a crash,
 * a sanitizer report, a leak or a hang.  A loaded profile is saved again
 * and reloaded, so the writer's invariant checks see hostile content too.
 *
 * Not built by `make`: it needs clang's -fsanitize=fuzzer.  Build and run
 * from the top of the tree:
 *
 *   clang -g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude \
 *         -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz-datafile.c src/datafile/load.c src/datafile/save.c \
 *         src/datafile/schema.c src/profile/profile.c \
 *         src/lib/errmsg.c src/lib/hashidx.c src/lib/xalloc.c \
 *         -lsqlite3 -lm -o build/fuzz-datafile
 *   build/fuzz-datafile -max_total_time=60 -max_len=65536 \
 *         build/fuzz-corpus tests/fuzz/corpus/datafile
 *
 * The seed (tests/fuzz/corpus/datafile/) is a valid file with every record
 * type, vacuumed to 512-byte pages to keep inputs small.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/datafile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], again[80];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL;
	struct errmsg e;
	FILE *f;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz-datafile.%d.data", (int)getpid());
		snprintf(again, sizeof(again), "%s.again", path);
	}
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	if (datafile__load(path, &p, &e) == 0) {
		struct profile *q = NULL;

		if (!p)
			abort();
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
