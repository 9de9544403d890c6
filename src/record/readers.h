/* src/record/readers.h: the per-CPU reader threads of the forward and --keep
 * sources: each drains one CPU's overwrite ring as it fills, sleeps until it
 * passes the watermark, and appends the records to its source's sink (the file, or
 * the --keep window) with its own zstd context. No lock between CPUs.
 */
#ifndef FR_FORWARD_H
#define FR_FORWARD_H

#include <stddef.h>
#include <stdint.h>

#include "ring/evlist.h"
#include "src/file/file.h"

struct fr_forward;

/* A record a fr_record_fn writes in place of the one read: at most this. */
#define FR_RECORD_SCRATCH (64u << 10)

/* Called by the reader threads for every record of CPU index ci (must be
 * thread-safe): sets *time (0 if none), for the per-CPU time range (the
 * session also notes the record's kernel addresses there); may point *h at
 * a record it wrote in scratch (FR_RECORD_SCRATCH bytes, the CPU's own),
 * which is appended in the read one's place (the offcpu event's batches,
 * packed); returns 1 when the record is left out of the sample stream (the
 * recorder's own, or a sideband record the session took), else 0. */
typedef int (*fr_record_fn)(void *ctx, size_t ci, const struct perf_event_header **h,
			    uint64_t *time, void *scratch);

/* Where the readers' records go, as their source decides: CPU index ci's
 * writer of RECORDS chunks with its own zstd context (an appender of the
 * file, or a sink into the --keep window), and each record appended to it
 * noted (may be NULL): its time (0: none) and a LOST record's count. */
struct fr_reader_sink {
	int (*writer)(void *ctx, size_t ci, struct fr_writer **w);
	void (*noted)(void *ctx, size_t ci, uint64_t time, uint64_t lost);
	void *ctx;
};

/* Start one thread per CPU of el, each appending to its sink's writer. A
 * thread writes its chunk in progress at least every flush_ms, so a killed
 * recorder loses at most that much. */
struct fr_forward_opts {
	int flush_ms;               /* a chunk in progress is written at least this often */
	const int *reader_cpus;     /* pin reader i to reader_cpus[i % n]; NULL: see own */
	size_t nr_reader_cpus;
	struct fr_reader_sink sink;
	bool unpinned;              /* --reader-cpus any: neither pinned nor raised */
	bool own;                   /* --reader-cpus own: each pinned to its ring's CPU */
};

/* Threads for the CPUs of el that have rings (fr_evlist__cpu_opened). */
int fr_forward__start(struct fr_evlist *el, const struct fr_forward_opts *o,
		      fr_record_fn record_fn, void *ctx, struct fr_forward **out);
/* CPU index ci got its rings since the start (a CPU that came online): its
 * writer (the sink's) and thread, as start's. 0 if it has one already;
 * -EINVAL: no rings; -EBUSY: an earlier start of it failed. Call from the
 * thread that calls sync, read and stop. */
int fr_forward__add_cpu(struct fr_forward *f, size_t ci);
/* Stop the threads after a last drain; fill st[ncpu] (a CPU without a thread
 * left as it was) (samples, lost, time
 * range; cpu ids) and drops[ncpu] (records of chunks a write refused); return the chunks they wrote in *chunks and the first
 * error (-errno) any thread met. Frees f. */
int fr_forward__stop(struct fr_forward *f, struct fr_cpu_stat *st, uint64_t *drops,
		      uint64_t *chunks);
/* --keep, before a snapshot: read what is still in every ring and hand the
 * chunks in progress to the window now (the threads wait meanwhile); drops:
 * per CPU, records the window refused (no memory) so far, or NULL. */
int fr_forward__sync(struct fr_forward *f, uint64_t *drops);
/* Read what is in every ring now (the threads wait meanwhile), writing
 * nothing out: every record the kernel wrote before the call has been
 * through record_fn when it returns. */
int fr_forward__read(struct fr_forward *f);

#endif
