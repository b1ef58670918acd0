/*
 * sha256: the SHA-256 digest (FIPS 180-4) of a byte string, for content
 * identity where a collision must not be found by chance or on purpose
 * (the results store's push identity and key ids, store.h).  Pure code,
 * no state beyond the context; about 200 MB/s, far below the cost of
 * reading the file it digests.
 */
#ifndef MMPROF_SHA256_H
#define MMPROF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

struct sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes fed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void sha256__init(struct sha256 *c);
void sha256__update(struct sha256 *c, const void *p, size_t n);
void sha256__final(struct sha256 *c, unsigned char out[SHA256_LEN]);
/* One call: the digest of p[0..n). */
void sha256__digest(const void *p, size_t n, unsigned char out[SHA256_LEN]);
/* The digest as 64 lower-case hex digits and a NUL. */
void sha256__hex(const unsigned char d[SHA256_LEN], char out[2 * SHA256_LEN + 1]);

#endif
