/* src/file/delta.c: the record coding of RECORDS chunks (doc/format.md §4
 * "Record coding"): headers XORed with the previous record's, the first
 * `words` body words as u64 differences from the last record of the same
 * header, the rest as written.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "src/file/delta.h"

#define SLOTS 64u

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* the predictor slot of a header: type, misc and size (all of it) */
static unsigned int slot_of(uint64_t hdr)
{
	return (unsigned int)((hdr * 0x9e3779b97f4a7c15ull) >> 58) & (SLOTS - 1);
}

static uint16_t hdr_size(uint64_t hdr)
{
	return (uint16_t)(hdr >> 48);
}

/* the end of a record's coded words: its body's first `words`, within size */
static size_t coded_end(uint64_t size, size_t words)
{
	return words < (size - 8) / 8 ? 8 + words * 8 : size;
}

int fr_delta__encode(const uint8_t *in, uint8_t *out, size_t len, size_t words)
{
	size_t last[SLOTS];
	uint64_t prev = 0;

	for (unsigned int i = 0; i < SLOTS; i++)
		last[i] = SIZE_MAX;
	for (size_t off = 0; off < len;) {
		uint64_t hdr, size;
		unsigned int k;
		size_t p;

		if (len - off < 8)
			return -EINVAL;
		hdr = get64(in + off);
		size = hdr_size(hdr);
		if (size < 8 || size % 8 || size > len - off)
			return -EINVAL;
		put64(out + off, hdr ^ prev);
		prev = hdr;
		k = slot_of(hdr);
		p = last[k];
		if (p != SIZE_MAX && get64(in + p) == hdr) {
			size_t end = coded_end(size, words);

			for (size_t w = 8; w < end; w += 8)
				put64(out + off + w, get64(in + off + w) - get64(in + p + w));
			memcpy(out + off + end, in + off + end, size - end);
		} else {
			memcpy(out + off + 8, in + off + 8, size - 8);
		}
		last[k] = off;
		off += size;
	}
	return 0;
}

int fr_delta__decode(uint8_t *buf, size_t len, size_t words, uint64_t *nr)
{
	size_t last[SLOTS];
	uint64_t prev = 0, n = 0;

	for (unsigned int i = 0; i < SLOTS; i++)
		last[i] = SIZE_MAX;
	for (size_t off = 0; off < len; n++) {
		uint64_t hdr, size;
		unsigned int k;
		size_t p;

		if (len - off < 8)
			return -EBADMSG;
		hdr = get64(buf + off) ^ prev;
		size = hdr_size(hdr);
		if (size < 8 || size % 8 || size > len - off)
			return -EBADMSG;
		put64(buf + off, hdr);
		prev = hdr;
		k = slot_of(hdr);
		p = last[k];
		if (p != SIZE_MAX && get64(buf + p) == hdr)
			for (size_t w = 8, end = coded_end(size, words); w < end; w += 8)
				put64(buf + off + w, get64(buf + off + w) + get64(buf + p + w));
		last[k] = off;
		off += size;
	}
	*nr = n;
	return 0;
}
