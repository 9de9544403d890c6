/* tests/fuzz/fuzz_file.c: the file reader with every output behind it (dump,
 * report text, folded, perf-script, JSON, OTLP), and a structure-aware mutator that
 * mutates a chunk's decompressed payload and recompresses it with a valid
 * checksum, so the parsers behind the checksum are reached.
 */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "src/file/delta.h"
#include "src/file/file.h"
#include "src/file/internal.h"
#include "src/report/report.h"
#include "tests/fuzz/fuzz.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	fd = memfd_create("fuzz_file", 0);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static void report(const char *fmt, bool callchains)
{
	struct fr_report_opts o = { .dir = "." };

	o.hist.chain_limit = 0.5;
	o.hist.callchains = callchains;
	fr_hist__parse_keys("comm,dso,sym", &o.hist);
	o.sym.symfs = "/nonexistent-flightrec-fuzz";  /* no local file is opened, */
	o.sym.only_given_dirs = true;                 /* not even by build id */
	o.sym.no_srcline = true;
	o.sym.no_inline = true;     /* libdw DIE walks of local debug info: not what is fuzzed */
	o.format = fmt;
	o.crit_path = !strcmp(fmt, "critical-path");   /* of the thread that waited most */
	o.off_cpu = o.crit_path;
	fr_report__run(&o, path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	fr_dump__file(path, true);
#ifndef FR_FUZZ_READER_ONLY
#ifdef FR_LIBFUZZER
	/* one report per execution, chosen by the input's size (the mutator
	 * changes sizes all the time, so every output is reached; the same input
	 * always takes the same one): six reports per input cost 6x the
	 * executions. The replay in make check runs all six on every input. */
	switch (size % 6) {
	case 0: report("text", true); break;
	case 1: report("folded", false); break;
	case 2: report("perf-script", false); break;
	case 3: report("otlp", false); break;
	case 4: report("critical-path", false); break;
	default: report("json", false); break;
	}
#else
	report("text", true);
	report("folded", false);
	report("perf-script", false);
	report("json", false);
	report("otlp", false);
	report("critical-path", false);
#endif
#else
	(void)report;
#endif
	return 0;
}

#ifdef FR_LIBFUZZER
/* The chunks of data: offsets of their headers, up to 256. */
static size_t chunks(const uint8_t *data, size_t size, size_t *off, size_t max)
{
	size_t n = 0, o = FR_HEADER_SIZE;

	while (n < max && size >= o + FR_CHUNK_HDR_SIZE) {
		struct fr_disk_chunk ch;

		memcpy(&ch, data + o, sizeof(ch));
		if (ch.magic != FR_CHUNK_MAGIC || ch.comp_size > size - o - FR_CHUNK_HDR_SIZE)
			break;
		off[n++] = o;
		o += FR_CHUNK_HDR_SIZE + ch.comp_size;
	}
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static uint8_t raw[FR_RECORDS_PAYLOAD_MAX + 4096];
	static uint8_t comp[FR_CHUNK_COMP_MAX + 4096];
	static uint8_t coded_buf[FR_RECORDS_PAYLOAD_MAX + 4096];
	size_t off[256], n, o, rawn, compn, tail, words;
	uint64_t nr;
	bool coded;
	struct fr_disk_chunk ch;
	ZSTD_CCtx *cc;

	srand(seed);
	n = chunks(data, size, off, 256);
	if (!n || rand() % 4 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	o = off[(size_t)rand() % n];
	memcpy(&ch, data + o, sizeof(ch));
	rawn = ZSTD_decompress(raw, FR_RECORDS_PAYLOAD_MAX, data + o + FR_CHUNK_HDR_SIZE,
			       ch.comp_size);
	if (ZSTD_isError(rawn))
		return LLVMFuzzerMutate(data, size, max_size);
	/* a coded RECORDS chunk (version 2 and later, coded as the header's
	 * version says): mutate the records, not their coding, half of the time
	 * (a decoded chunk that no longer codes is left coded as mutated) */
	words = fr_delta__words(size >= FR_HEADER_SIZE ? fr_get32(data + 8) : FR_FILE_VERSION);
	coded = ch.type == FR_CHUNK_RECORDS && (ch.flags & FR_CHUNK_F_CODED) &&
		rawn >= FR_RECORDS_HDR_SIZE && rand() % 2 &&
		!fr_delta__decode(raw + FR_RECORDS_HDR_SIZE, rawn - FR_RECORDS_HDR_SIZE, words, &nr);
	rawn = LLVMFuzzerMutate(raw, rawn, rawn + 64 < sizeof(raw) ? rawn + 64 : rawn);
	if (coded && rawn >= FR_RECORDS_HDR_SIZE &&
	    !fr_delta__encode(raw + FR_RECORDS_HDR_SIZE, coded_buf + FR_RECORDS_HDR_SIZE,
			      rawn - FR_RECORDS_HDR_SIZE, words))
		memcpy(raw + FR_RECORDS_HDR_SIZE, coded_buf + FR_RECORDS_HDR_SIZE,
		       rawn - FR_RECORDS_HDR_SIZE);
	cc = ZSTD_createCCtx();
	if (!cc)
		return size;
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	compn = ZSTD_compress2(cc, comp, sizeof(comp), raw, rawn);
	ZSTD_freeCCtx(cc);
	tail = size - o - FR_CHUNK_HDR_SIZE - ch.comp_size;
	if (ZSTD_isError(compn) || o + FR_CHUNK_HDR_SIZE + compn + tail > max_size)
		return LLVMFuzzerMutate(data, size, max_size);
	memmove(data + o + FR_CHUNK_HDR_SIZE + compn, data + o + FR_CHUNK_HDR_SIZE + ch.comp_size,
		tail);
	memcpy(data + o + FR_CHUNK_HDR_SIZE, comp, compn);
	ch.comp_size = compn;
	ch.raw_size = rawn;
	memcpy(data + o, &ch, sizeof(ch));
	return o + FR_CHUNK_HDR_SIZE + compn + tail;
}
#endif
