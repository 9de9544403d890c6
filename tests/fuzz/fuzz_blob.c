/* tests/fuzz/fuzz_blob.c: one blob kind's payload (FR_FUZZ_BLOB_KIND, set by
 * the target that includes this file: fuzz_procs, fuzz_ksyms, fuzz_trigger,
 * fuzz_vdso; PERFMAP has fuzz_perfmap) in a well-formed file (one sample
 * event, samples of pid 100 at a user and a kernel address, the blob, END),
 * through dump and report -g: the parsers behind the checksum, as the
 * readers call them. PROCS (FR_FUZZ_PROCS) also straight into a model, with a lookup, and
 * its inserts' work checked linear (issue 32).
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "src/file/file.h"
#include "src/proc/proctable.h"
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
	fd = memfd_create("fuzz_blob", 0);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

/* ip, pid/tid, time, callchain of 2 */
static const struct perf_event_header *sample(uint8_t *b, uint64_t ip, uint64_t time)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 8 + 8 + 8 + 8 + 8 + 16 };
	uint32_t pid[2] = { 100, 100 };
	uint64_t nr = 2, ips[2] = { ip, 0x401234 };

	memcpy(b, &h, 8);
	memcpy(b + 8, &ip, 8);
	memcpy(b + 16, pid, 8);
	memcpy(b + 24, &time, 8);
	memcpy(b + 32, &nr, 8);
	memcpy(b + 40, ips, 16);
	return (const struct perf_event_header *)b;
}

static int write_file(const uint8_t *data, size_t size)
{
	struct fr_file_event ev = { .index = 0, .name = "cpu-clock" };
	struct fr_writer *w;
	uint8_t rec[64];
	int wfd = dup(fd), err;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CALLCHAIN;
	if (wfd < 0 || ftruncate(fd, 0) || lseek(wfd, 0, SEEK_SET))
		abort();
	if (fr_writer__fdopen(wfd, 1, &w)) {
		close(wfd);
		return -1;
	}
	err = fr_writer__event(w, &ev);
	if (!err)
		err = fr_writer__records_begin(w, 0, FR_STREAM_SAMPLES);
	if (!err)
		err = fr_writer__record(w, sample(rec, 0x401000, 1000));
	if (!err)
		err = fr_writer__record(w, sample(rec, 0xffffffff81000010ull, 2000));
	if (!err)
		err = fr_writer__records_end(w);
	if (!err)
		err = fr_writer__blob(w, FR_FUZZ_BLOB_KIND, data, size);
	return fr_writer__close(w) || err ? -1 : 0;
}

#ifdef FR_FUZZ_PROCS
static void procs(const uint8_t *data, size_t size)
{
	struct fr_proctable *pt = fr_proctable__new(NULL);

	if (pt && !fr_proctable__parse(pt, data, size)) {
		const struct fr_proc *p = fr_proctable__proc_at(pt, 100, 1000);

		if (p)
			(void)fr_proctable__proc_comm(pt, p, 1000);
		(void)fr_proctable__find(pt, 100, 1000, 0x401000);
		/* every entry of the payload costs O(1) inserts' work: a payload
		 * holds at most size / 24 entries */
		if (fr_proctable__steps(pt) > 4 * (uint64_t)size + 64)
			abort();
	}
	fr_proctable__delete(pt);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fr_report_opts o = { .dir = "." };

	if (size > FR_CHUNK_RAW_MAX)
		return 0;
#ifdef FR_FUZZ_PROCS
	procs(data, size);
#endif
	if (write_file(data, size))
		return 0;
	fr_dump__file(path, true);
	o.hist.chain_limit = 0.5;
	o.hist.callchains = true;
	fr_hist__parse_keys("comm,dso,sym", &o.hist);
	o.sym.symfs = "/nonexistent-flightrec-fuzz";  /* no local file is opened, */
	o.sym.only_given_dirs = true;                 /* not even by build id */
	o.sym.no_srcline = true;
	o.sym.no_inline = true;
	o.format = "text";
	fr_report__run(&o, path);
#ifdef FR_FUZZ_OTLP
	o.format = "otlp";   /* the trigger's keys as attributes */
	fr_report__run(&o, path);
#endif
	return 0;
}
