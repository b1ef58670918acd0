/*
 * pbdecode: a protobuf wire-format reader for the tests of the pprof
 * writer (test-export, test-wholestack): varints and length-delimited
 * fields, enough to walk profile.proto's messages field by field.
 */
#ifndef MMPROF_TEST_PBDECODE_H
#define MMPROF_TEST_PBDECODE_H

#include <stddef.h>
#include <stdint.h>

struct field {
	uint32_t num, wire;
	uint64_t v;		/* varint value or length */
	const uint8_t *data;
};

static size_t rd_varint(const uint8_t *b, size_t n, size_t *i, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*i < n && shift < 64) {
		uint8_t c = b[(*i)++];

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

/* next field of b[0..n) at *i; 0 at the end or on error */
static int next(const uint8_t *b, size_t n, size_t *i, struct field *f)
{
	uint64_t k;

	if (*i >= n || !rd_varint(b, n, i, &k))
		return 0;
	f->num = (uint32_t)(k >> 3);
	f->wire = (uint32_t)(k & 7);
	if (!rd_varint(b, n, i, &f->v))
		return 0;
	if (f->wire == 2) {
		if (f->v > n - *i)
			return 0;
		f->data = b + *i;
		*i += f->v;
	}
	return 1;
}

#endif
