/* tests/helpers/frtpmut.c: crafts damaged tracepoint data in a real file for
 * the end-to-end tests, every chunk re-framed (zstd checksum, sizes, record
 * coding) so that only the tracepoint layer sees the damage:
 *   frtpmut print IN EVENT               the event's format text to stdout
 *   frtpmut format IN OUT EVENT FILE     the event's format text replaced by FILE
 *   frtpmut raw IN OUT EVENT OFF HEX     bytes HEX (e.g. ff00) written at OFF of the
 *                                        RAW data of every sample of EVENT
 *   frtpmut rawsize IN OUT EVENT N       the RAW size of every sample of EVENT set
 *                                        to N (<= its size: the record keeps its size)
 * Exit 0, 1 when nothing matched, 2 on an error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "ring/record.h"
#include "src/file/delta.h"
#include "src/file/file.h"
#include "src/file/internal.h"

struct ev {
	char name[256];
	uint64_t sample_type, regs;
	uint64_t ids[64];
	uint32_t nr_ids;
};

static struct ev evs[64];
static size_t nr_evs;
static size_t matched;

static void die(const char *what)
{
	fprintf(stderr, "frtpmut: %s\n", what);
	exit(2);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		die(path);
	*len = 0;
	do {
		if (*len == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 1 << 16)))
			die("out of memory");
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* EVENT payload: keep its table entry; replace its format when asked. */
static size_t event(uint8_t *raw, size_t n, size_t cap, const char *name, const char *fmt,
		    size_t fmt_len)
{
	size_t o = 8, attr_size, name_len, fl, tail;
	struct perf_event_attr attr = { 0 };
	struct ev *e = &evs[nr_evs < 64 ? nr_evs++ : 63];

	attr_size = get32(raw + o);
	o += 4;
	memcpy(&attr, raw + o, attr_size < sizeof(attr) ? attr_size : sizeof(attr));
	o += attr_size;
	name_len = get32(raw + o);
	o += 4;
	snprintf(e->name, sizeof(e->name), "%.*s", (int)name_len, (const char *)raw + o);
	o += name_len;
	e->sample_type = attr.sample_type;
	e->regs = attr.sample_regs_user;
	fl = get32(raw + o);
	tail = n - (o + 4 + fl);
	e->nr_ids = get32(raw + o + 4 + fl);
	for (uint32_t i = 0; i < e->nr_ids && i < 64; i++)
		memcpy(&e->ids[i], raw + o + 8 + fl + 8 * i, 8);
	if (!fmt || strcmp(e->name, name))
		return n;
	if (o + 4 + fmt_len + tail > cap)
		die("format too long");
	memmove(raw + o + 4 + fmt_len, raw + o + 4 + fl, tail);
	memcpy(raw + o + 4, fmt, fmt_len);
	fl = fmt_len;
	memcpy(raw + o, &(uint32_t){ (uint32_t)fl }, 4);
	matched++;
	return o + 4 + fmt_len + tail;
}

static const struct ev *event_of(uint64_t id)
{
	for (size_t i = 0; i < nr_evs; i++)
		for (uint32_t k = 0; k < evs[i].nr_ids && k < 64; k++)
			if (evs[i].ids[k] == id)
				return &evs[i];
	return NULL;
}

/* The RAW data of every sample of name in records p..p+n: patch or resize. */
static void records(uint8_t *p, size_t n, const char *name, long off, const uint8_t *hex,
		    size_t hn, long newsize)
{
	for (size_t o = 0; o + 8 <= n;) {
		struct perf_event_header *h = (struct perf_event_header *)(p + o);
		const struct ev *e;
		struct fr_sample s;
		uint64_t id;

		if (h->size < 8 || o + h->size > n)
			die("bad record");
		memcpy(&id, p + o + 8, 8);
		if (h->type == PERF_RECORD_SAMPLE && (e = event_of(id)) && !strcmp(e->name, name) &&
		    !fr_record__parse_sample(h, e->sample_type, e->regs, &s) && s.raw) {
			uint8_t *r = (uint8_t *)s.raw;

			if (newsize >= 0 && (uint64_t)newsize <= s.raw_size) {
				memcpy(r - 4, &(uint32_t){ (uint32_t)newsize }, 4);
				matched++;
			} else if (off >= 0 && (size_t)off + hn <= s.raw_size) {
				memcpy(r + off, hex, hn);
				matched++;
			}
		}
		o += h->size;
	}
}

int main(int argc, char **argv)
{
	static uint8_t raw[FR_RECORDS_PAYLOAD_MAX + 65536], out[FR_CHUNK_COMP_MAX + 65536];
	static uint8_t coded[FR_RECORDS_PAYLOAD_MAX + 65536], hex[256];
	const char *mode = argc > 1 ? argv[1] : "", *name, *fmt = NULL;
	size_t len, fmt_len = 0, hn = 0, o = FR_HEADER_SIZE, wo = FR_HEADER_SIZE;
	long off = -1, newsize = -1;
	uint8_t *in, *res;
	size_t words;
	bool print = !strcmp(mode, "print");
	ZSTD_CCtx *cc = NULL;
	FILE *f;

	if (print ? argc != 4 : argc != (strcmp(mode, "raw") ? 6 : 7))
		die("usage: print IN EVENT | format IN OUT EVENT FILE | raw IN OUT EVENT OFF HEX | "
		    "rawsize IN OUT EVENT N");
	name = print ? argv[3] : argv[4];
	in = slurp(argv[2], &len);
	if (!strcmp(mode, "format"))
		fmt = (const char *)slurp(argv[5], &fmt_len);
	else if (!strcmp(mode, "rawsize"))
		newsize = strtol(argv[5], NULL, 10);
	else if (!strcmp(mode, "raw")) {
		off = strtol(argv[5], NULL, 10);
		for (const char *h = argv[6]; h[0] && h[1] && hn < sizeof(hex); h += 2)
			hex[hn++] = (uint8_t)strtoul((char[]){ h[0], h[1], 0 }, NULL, 16);
	} else if (!print)
		die("unknown mode");
	if (!(res = malloc(2 * len + (1 << 20))) || len < FR_HEADER_SIZE)
		die("bad input");
	memcpy(res, in, FR_HEADER_SIZE);
	words = fr_delta__words(get32(in + 8));   /* the file's version codes so many */
	while (o + FR_CHUNK_HDR_SIZE <= len) {
		struct fr_disk_chunk ch;
		size_t rn, cn;
		uint64_t nr;

		memcpy(&ch, in + o, sizeof(ch));
		if (ch.magic != FR_CHUNK_MAGIC || ch.comp_size > len - o - FR_CHUNK_HDR_SIZE)
			die("bad chunk");
		rn = ZSTD_decompress(raw, sizeof(raw), in + o + FR_CHUNK_HDR_SIZE, ch.comp_size);
		if (ZSTD_isError(rn))
			die("bad frame");
		if (ch.type == FR_CHUNK_EVENT) {
			rn = event(raw, rn, sizeof(raw), name, fmt, fmt_len);
			if (print && !strcmp(evs[nr_evs - 1].name, name)) {
				size_t q = 12 + get32(raw + 8);

				q += 4 + get32(raw + q);
				fwrite(raw + q + 4, 1, get32(raw + q), stdout);
				return 0;
			}
		} else if (ch.type == FR_CHUNK_RECORDS && rn >= FR_RECORDS_HDR_SIZE) {
			size_t body = rn - FR_RECORDS_HDR_SIZE;

			if ((ch.flags & FR_CHUNK_F_CODED) &&
			    fr_delta__decode(raw + FR_RECORDS_HDR_SIZE, body, words, &nr))
				die("bad coding");
			records(raw + FR_RECORDS_HDR_SIZE, body, name, off, hex, hn, newsize);
			if (ch.flags & FR_CHUNK_F_CODED) {
				if (fr_delta__encode(raw + FR_RECORDS_HDR_SIZE, coded, body, words))
					die("cannot code");
				memcpy(raw + FR_RECORDS_HDR_SIZE, coded, body);
			}
		}
		o += FR_CHUNK_HDR_SIZE + ch.comp_size;
		if (!cc && !(cc = ZSTD_createCCtx()))
			die("out of memory");
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		cn = ZSTD_compress2(cc, out, sizeof(out), raw, rn);
		if (ZSTD_isError(cn))
			die("cannot compress");
		ch.comp_size = cn;
		ch.raw_size = rn;
		memcpy(res + wo, &ch, sizeof(ch));
		memcpy(res + wo + FR_CHUNK_HDR_SIZE, out, cn);
		wo += FR_CHUNK_HDR_SIZE + cn;
	}
	if (print)
		return 1;
	f = fopen(argv[3], "wb");
	if (!f || fwrite(res, 1, wo, f) != wo || fclose(f))
		die(argv[3]);
	return matched ? 0 : 1;
}
