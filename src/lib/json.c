/*
 * json: one string escaper for every JSON writer (include/mmprof/json.h).
 * Plain runs are handed on in one call: names are long, escapes rare.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/json.h"
#include "mmprof/utf8.h"

void json__escape(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
	const unsigned char *u = (const unsigned char *)(s ? s : ""), *run = u;

	put(ctx, "\"", 1);
	while (*u) {
		const char *esc = NULL;
		char hex[8];
		uint32_t cp;
		size_t n = utf8__len(u, &cp);

		if (!n)
			esc = "\\ufffd";
		else if (*u == '"')
			esc = "\\\"";
		else if (*u == '\\')
			esc = "\\\\";
		else if (*u == '\n')
			esc = "\\n";
		else if (*u == '\r')
			esc = "\\r";
		else if (*u == '\t')
			esc = "\\t";
		else if (*u < 0x20 || *u == 0x7f) {
			snprintf(hex, sizeof(hex), "\\u%04x", *u);
			esc = hex;
		}
		if (!esc) {
			u += n;
			continue;
		}
		if (u > run)
			put(ctx, (const char *)run, (size_t)(u - run));
		put(ctx, esc, strlen(esc));
		run = ++u;	/* every escape replaces exactly one byte */
	}
	if (u > run)
		put(ctx, (const char *)run, (size_t)(u - run));
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

void json__fputs(FILE *out, const char *s)
{
	json__escape(s, put_file, out);
}
