/*
 * seed-to-data SEED OUT: write the .data file that a seed of
 * tests/fuzz/corpus/datafile/ stands for (datafile-seed.h: the bytes
 * themselves, or SQL run on a small valid file), so that the suite's
 * hostile-file check (t831) can give every seed to every reader of the real
 * binary under a time and memory limit.  Built by `make check` with the
 * tree's compiler (no libFuzzer needed).  Exit 0, or 2 with a line on
 * stderr when SEED cannot be read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile-seed.h"

int main(int argc, char **argv)
{
	struct seed_base bases = { { NULL }, { 0 } };
	char base[4096];
	uint8_t *data;
	size_t size;
	FILE *in;

	if (argc != 3) {
		fprintf(stderr, "usage: seed-to-data SEED OUT\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in) {
		fprintf(stderr, "seed-to-data: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	data = malloc(1 << 20);
	if (!data)
		abort();
	size = fread(data, 1, 1 << 20, in);
	fclose(in);
	snprintf(base, sizeof(base), "%s.base", argv[2]);
	seed__make_base(&bases, base);
	seed__write(&bases, data, size, argv[2]);
	free(data);
	free(bases.bytes[0]);
	free(bases.bytes[1]);
	free(bases.bytes[2]);
	free(bases.bytes[3]);
	free(bases.bytes[4]);
	return 0;
}
