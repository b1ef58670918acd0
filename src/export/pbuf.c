/*
 * pbuf: the protobuf wire format, just enough to write profile.proto.
 *
 * Fields are written in the order called; an embedded message is encoded
 * into its own pbuf first and appended with pbuf__bytes (its length must
 * be known before its bytes).  Proto3 readers take fields in any order.
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/export.h"
#include "mmprof/xalloc.h"

void pbuf__release(struct pbuf *pb)
{
	free(pb->b);
	memset(pb, 0, sizeof(*pb));
}

static void reserve(struct pbuf *pb, size_t n)
{
	if (pb->alloc - pb->len >= n)
		return;
	pb->alloc = pb->alloc * 2 > pb->len + n ? pb->alloc * 2 : pb->len + n + 64;
	pb->b = xrealloc(pb->b, pb->alloc);
}

void pbuf__varint(struct pbuf *pb, uint64_t v)
{
	reserve(pb, 10);
	while (v >= 0x80) {
		pb->b[pb->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	pb->b[pb->len++] = (uint8_t)v;
}

static void key(struct pbuf *pb, uint32_t field, unsigned int wire)
{
	pbuf__varint(pb, ((uint64_t)field << 3) | wire);
}

void pbuf__uint(struct pbuf *pb, uint32_t field, uint64_t v)
{
	key(pb, field, PBUF_VARINT);
	pbuf__varint(pb, v);
}

void pbuf__bytes(struct pbuf *pb, uint32_t field, const void *data, size_t n)
{
	key(pb, field, PBUF_LEN);
	pbuf__varint(pb, n);
	reserve(pb, n);
	if (n)
		memcpy(pb->b + pb->len, data, n);
	pb->len += n;
}

void pbuf__packed(struct pbuf *pb, uint32_t field, const uint64_t *v, size_t n)
{
	struct pbuf tmp = { 0 };
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		pbuf__varint(&tmp, v[i]);
	pbuf__bytes(pb, field, tmp.b, tmp.len);
	pbuf__release(&tmp);
}
