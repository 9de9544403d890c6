/* tests/helpers/frcraft.c: crafted files of the reading side's fault classes
 * (issue 32), every chunk with a valid checksum, for tests/e2e/crafted.sh.
 * Usage: frcraft CLASS FILE; classes: budget-meta, budget-event,
 * budget-cpustat, budget-procs, budget-perfmap, procs-order, cpu-id,
 * bad-body, two-events, lost-wrap, unknown-kind. Each file starts with one
 * sample event and one good sample (what can still be listed), then the
 * crafted chunks, then END.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "src/file/file.h"
#include "src/file/internal.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define MIB (1u << 20)
#define HOSTILE 400     /* 1 MiB chunks of one kind: ~400 MiB decoded, tens of KiB of file */

static FILE *out;
static uint64_t nr_chunks;
static uint8_t *buf;    /* MIB + 64: the payload being built */

static void chunk(uint16_t type, uint32_t stream, uint32_t kind, const void *p, size_t len)
{
	struct fr_disk_chunk ch = { FR_CHUNK_MAGIC, type, 0, stream, kind, 0, len };
	size_t cap = ZSTD_compressBound(len);
	uint8_t *z = malloc(cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	if (!z || !cc)
		exit(2);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	ch.comp_size = ZSTD_compress2(cc, z, cap, p, len);
	if (ZSTD_isError(ch.comp_size) || fwrite(&ch, sizeof(ch), 1, out) != 1 ||
	    fwrite(z, ch.comp_size, 1, out) != 1)
		exit(2);
	ZSTD_freeCCtx(cc);
	free(z);
	nr_chunks++;
}

/* A sample event without PERF_SAMPLE_IDENTIFIER. */
static void event(uint32_t index, const char *name)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_type = ST };
	size_t n = strlen(name), o = 0;

	fr_put32(buf, index);
	fr_put32(buf + 4, 0);
	fr_put32(buf + 8, sizeof(a));
	memcpy(buf + 12, &a, sizeof(a));
	o = 12 + sizeof(a);
	fr_put32(buf + o, (uint32_t)n);
	memcpy(buf + o + 4, name, n);
	o += 4 + n;
	fr_put32(buf + o, 0);       /* no format */
	fr_put32(buf + o + 4, 0);   /* no ids */
	chunk(FR_CHUNK_EVENT, 0, 0, buf, o + 8);
}

/* A RECORDS chunk of cpu 0: n samples (ip, pid/tid, time; size 32), the
 * last one short by short8 u64s, then LOST records of lost counts each. */
static void records(uint32_t n, uint32_t short8, uint32_t nlost, uint64_t lost)
{
	uint8_t *p = buf + FR_RECORDS_HDR_SIZE;

	for (uint32_t i = 0; i < n; i++, p += 32) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 32 };

		if (i == n - 1)
			h.size = (uint16_t)(32 - 8 * short8);
		memcpy(p, &h, 8);
		fr_put64(p + 8, 0x401000 + i);
		fr_put32(p + 16, 100);
		fr_put32(p + 20, 100);
		fr_put64(p + 24, 1000 + i);
		p -= 8 * (i == n - 1 ? short8 : 0);
	}
	for (uint32_t i = 0; i < nlost; i++, p += 24) {
		struct perf_event_header h = { PERF_RECORD_LOST, 0, 24 };

		memcpy(p, &h, 8);
		fr_put64(p + 8, 0);
		fr_put64(p + 16, lost);
	}
	fr_put32(buf, 0);
	fr_put32(buf + 4, FR_STREAM_SAMPLES);
	fr_put64(buf + 8, n + nlost);
	chunk(FR_CHUNK_RECORDS, 0, FR_STREAM_SAMPLES, buf, (size_t)(p - buf));
}

static void cpustat(uint32_t cpu)
{
	memset(buf, 0, FR_CPUSTAT_HDR_SIZE + FR_CPUSTAT_ENTRY_SIZE);
	fr_put32(buf, 1);
	fr_put32(buf + FR_CPUSTAT_HDR_SIZE, cpu);
	fr_put64(buf + FR_CPUSTAT_HDR_SIZE + 8, 1000);    /* first_time */
	fr_put64(buf + FR_CPUSTAT_HDR_SIZE + 16, 2000);   /* last_time */
	chunk(FR_CHUNK_CPUSTAT, 0, 0, buf, FR_CPUSTAT_HDR_SIZE + FR_CPUSTAT_ENTRY_SIZE);
}

/* A PROCS payload of one image of pid with n names newest first and m
 * mappings at falling addresses: every insert of the old parser at the front
 * (flat: every name the same at one time, a payload that compresses to
 * nothing). */
static size_t procs(uint32_t pid, uint64_t start, uint32_t n, uint32_t m, int flat)
{
	uint8_t *p = buf + 8;

	fr_put32(buf, 1);
	fr_put32(buf + 4, 1);
	memset(p, 0, 32);
	fr_put32(p, pid);
	fr_put64(p + 8, start);
	fr_put32(p + 24, n);
	fr_put32(p + 28, m);
	p += 32;
	for (uint32_t i = 0; i < n; i++, p += 24) {
		memset(p, 0, 24);
		fr_put64(p, start + 10 + (flat ? 0 : (uint64_t)(n - i) * 10));
		snprintf((char *)p + 8, 16, "t%u", flat ? 0 : n - i);
	}
	for (uint32_t i = 0; i < m; i++, p += 68) {
		memset(p, 0, 68);
		fr_put64(p, start + 1);
		fr_put64(p + 8, 0x10000000ull + (uint64_t)(m - i) * 0x1000);
		fr_put64(p + 16, 0x1000);
		fr_put32(p + 60, 4);
		memcpy(p + 64, "/lib", 4);
	}
	return (size_t)(p - buf);
}

static size_t perfmap(void)
{
	uint32_t n = (MIB - 24) / 21;
	uint8_t *p = buf + 24;

	fr_put32(buf, 1);
	fr_put32(buf + 4, 1);
	fr_put32(buf + 8, 100);
	fr_put32(buf + 12, n);
	fr_put64(buf + 16, 0);
	for (uint32_t i = 0; i < n; i++, p += 21) {
		fr_put64(p, 0x7000000);   /* overlapping: the later names it */
		fr_put64(p + 8, 16);
		fr_put32(p + 16, 1);
		p[20] = 'f';
	}
	return (size_t)(p - buf);
}

static void hostile(const char *what)
{
	size_t len = MIB - 64;

	for (int i = 0; i < HOSTILE; i++) {
		if (!strcmp(what, "meta")) {
			memset(buf, 'a', len);
			memcpy(buf, "k=", 2);
			buf[len - 1] = '\n';
			chunk(FR_CHUNK_META, 0, 0, buf, len);
		} else if (!strcmp(what, "event")) {   /* index i + 1, a long format */
			memset(buf, 'a', len);
			memset(buf, 0, 21);
			fr_put32(buf, (uint32_t)i + 1);
			fr_put32(buf + 12, 1);
			buf[16] = 'e';
			fr_put32(buf + 17, (uint32_t)len - 25);
			fr_put32(buf + len - 4, 0);
			chunk(FR_CHUNK_EVENT, 0, 0, buf, len);
		} else if (!strcmp(what, "cpustat")) {
			uint32_t n = (MIB - FR_CPUSTAT_HDR_SIZE) / FR_CPUSTAT_ENTRY_SIZE;

			memset(buf, 0, MIB);
			fr_put32(buf, n);
			chunk(FR_CHUNK_CPUSTAT, 0, 0, buf, FR_CPUSTAT_HDR_SIZE + (size_t)n * FR_CPUSTAT_ENTRY_SIZE);
		} else if (!strcmp(what, "procs")) {
			chunk(FR_CHUNK_BLOB, 0, FR_BLOB_PROCS, buf,
			      procs(1000 + (uint32_t)i, 0, (MIB - 40) / 24, 0, 1));
		} else {
			chunk(FR_CHUNK_BLOB, 0, FR_BLOB_PERFMAP, buf, perfmap());
		}
	}
}

int main(int argc, char **argv)
{
	const char *c = argc == 3 ? argv[1] : "";
	struct fr_disk_header h = { .version = FR_FILE_VERSION, .header_size = FR_HEADER_SIZE };

	buf = calloc(1, MIB + 64);
	if (argc != 3 || !buf || !(out = fopen(argv[2], "wx"))) {
		fprintf(stderr, "usage: frcraft CLASS FILE (a new file)\n");
		return 2;
	}
	memcpy(h.magic, FR_FILE_MAGIC, 8);
	fwrite(&h, sizeof(h), 1, out);
	event(0, "cpu-clock");
	if (!strcmp(c, "two-events"))
		event(1, "cpu-clock-2");   /* two sample events, no identifier: no sample is theirs */
	records(!strcmp(c, "two-events") ? 47 : 2, !strcmp(c, "bad-body") ? 1 : 0,
		!strcmp(c, "lost-wrap") ? 2 : 0, 1ull << 63);
	cpustat(0);
	if (!strcmp(c, "cpu-id"))
		cpustat(10000000);
	if (!strncmp(c, "budget-", 7))
		hostile(c + 7);
	if (!strcmp(c, "procs-order")) {   /* 8 payloads, each starting earlier */
		for (uint32_t k = 0; k < 8; k++)
			chunk(FR_CHUNK_BLOB, 0, FR_BLOB_PROCS, buf,
			      procs(100, (uint64_t)(8 - k) * 1000000000ull, 20000, 6000, 0));
	}
	if (!strcmp(c, "unknown-kind")) {
		memcpy(buf, "a newer writer's\n", 17);
		chunk(FR_CHUNK_BLOB, 0, 99, buf, 17);
	}
	fr_put64(buf, nr_chunks);
	chunk(FR_CHUNK_END, 0, 0, buf, FR_END_SIZE);
	free(buf);
	return fclose(out) ? 2 : 0;
}
