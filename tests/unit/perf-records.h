/*
 * Side-band records laid out as the kernel writes them, and this test
 * binary's own text mapping to place them at, for the unit tests that
 * replay records through a sampler (test-sampler, test-lbr).
 * The sampler opens its events with sample_id_all and TID|TIME|CPU in
 * sample_type, so every side-band record ends with those three.
 */
#ifndef MMPROF_TEST_PERF_RECORDS_H
#define MMPROF_TEST_PERF_RECORDS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

/* PERF_RECORD_MMAP2 of file at start (len bytes, file offset pgoff): its size in u64s. */
static inline size_t put_mmap2(uint64_t *buf, uint32_t pid, uint64_t start, uint64_t len,
			       uint64_t pgoff, const char *file, uint64_t time)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t pt[2] = { pid, pid };
	size_t flen = (strlen(file) + 8) / 8 * 8, n;

	memset(buf, 0, (10 + flen / 8 + 3) * 8);
	memcpy(buf + 1, pt, 8);
	buf[2] = start;
	buf[3] = len;
	buf[4] = pgoff;
	/* maj/min, ino, ino_generation, prot/flags stay 0 */
	memcpy(buf + 9, file, strlen(file));
	n = 9 + flen / 8;
	memcpy(buf + n, pt, 8);	/* sample_id_all: TID TIME CPU */
	buf[n + 1] = time;
	n += 3;
	h->type = PERF_RECORD_MMAP2;
	h->size = (uint16_t)(n * 8);
	return n;
}

/* The executable mapping of this test binary that holds ip; 0 when not found. */
static inline uint64_t own_text_map(uint64_t ip, uint64_t *end, uint64_t *pgoff, char *exe, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t len = readlink("/proc/self/exe", exe, size - 1);
	uint64_t start = 0;

	exe[len > 0 ? len : 0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx", &a, &b, perms, &off) == 4 &&
		    perms[2] == 'x' && strstr(line, exe) && ip >= a && ip < b) {
			start = a;
			*end = b;
			*pgoff = off;
		}
	}
	if (f)
		fclose(f);
	return start;
}

#endif
