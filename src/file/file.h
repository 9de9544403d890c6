/* src/file/file.h: the file format subsystem.
 *
 * Owns: the flightrec file (doc/format.md): a header, then independently
 * decodable zstd chunks (meta, events, per-CPU record streams, stats, typed
 * blobs, end): the writer (write.c: whole files and O_APPEND appenders) and
 * the reader (read.c: checks every chunk before trusting it, merges the
 * streams by time). This is the piece fuzzers and other tools link:
 * src/file/libfrfile.a with ring/libring.a and src/libfrutil.a.
 *
 * May include: ring/record.h (record sizes and times), src/util.h, libzstd.
 * Never: src/record/, src/proc/, src/report/, symbolize/ (blob payloads are
 * opaque bytes here; their owners parse them). Returns 0 or -errno, never
 * prints, never exits.
 */
#ifndef FR_FILE_H
#define FR_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define FR_FILE_MAGIC "FLIGHTRC"       /* 8 bytes, no NUL in the file */
#define FR_FILE_VERSION 4
#define FR_CHUNK_MAGIC 0x4b434652u     /* "FRCK" little-endian */
#define FR_CHUNK_RAW_MAX (1u << 20)    /* a records chunk holds at most 1 MiB of records */
#define FR_CHUNK_COMP_MAX (FR_CHUNK_RAW_MAX + (1u << 16))

enum fr_chunk_type {
	FR_CHUNK_META = 1,     /* "key=value\n" text */
	FR_CHUNK_EVENT = 2,    /* one event description */
	FR_CHUNK_RECORDS = 3,  /* records of one stream, oldest first */
	FR_CHUNK_CPUSTAT = 4,  /* per-CPU time range and loss counters */
	FR_CHUNK_END = 5,      /* the file is complete */
	FR_CHUNK_BLOB = 6,     /* a typed payload (kind: enum fr_blob_kind); readers skip unknown kinds, and say so */
};

enum fr_blob_kind {
	FR_BLOB_KSYMS = 1,     /* kernel symbols the samples need (symbolize/kallsyms.h) */
	FR_BLOB_PROCS = 2,     /* the retained process/mapping table (src/proc/proctable.h) */
	FR_BLOB_TRIGGER = 3,   /* what triggered the snapshot, window bounds ("key=value\n") */
	FR_BLOB_VDSO = 4,      /* the vdso ELF image of the recording machine ([vdso] symbols) */
	FR_BLOB_PERFMAP = 5,   /* JIT code names from perf maps (src/proc/perfmap.h) */
	FR_BLOB_KINDS,         /* one past the last kind this reader knows */
	/* a reader skips kinds it does not know and says so once, not as
	 * damage: a newer writer may add kinds (doc/format.md §4 BLOB) */
};

enum fr_stream_kind {
	FR_STREAM_SAMPLES = 0,   /* the sample ring of one CPU */
	FR_STREAM_SIDEBAND = 1,  /* the sideband ring of one CPU (or FR_CPU_NONE: synthesized) */
};
#define FR_CPU_NONE 0xffffffffu
#define FR_CPU_MAX 4096u               /* RECORDS streams: cpu < FR_CPU_MAX or FR_CPU_NONE */
#define FR_EVENT_INDEX_MAX 65536u      /* event indexes are < this and unique in a file */

#define FR_EVENT_SIDEBAND 0x1u /* the event is the sideband (dummy) event */

struct fr_file_event {
	uint32_t index;
	uint32_t flags;                /* FR_EVENT_* */
	struct perf_event_attr attr;
	const char *name;              /* "syscalls:sys_enter_read", "cpu-clock" */
	const char *format;            /* tracepoint format text or NULL */
	size_t format_len;
	const uint64_t *ids;           /* kernel ids (PERF_EVENT_IOC_ID) of its fds */
	uint32_t nr_ids;
};

#define FR_CPU_FULL 0x1u     /* the ring had wrapped: older records were overwritten */
#define FR_CPU_CORRUPT 0x2u  /* the ring walk stopped at a malformed record */

struct fr_cpu_stat {
	uint32_t cpu;
	uint32_t flags;            /* FR_CPU_* */
	uint64_t first_time;       /* oldest and newest sample time, 0 if none */
	uint64_t last_time;
	uint64_t nr_samples;       /* records in the sample stream */
	uint64_t nr_sideband;      /* records in the sideband stream */
	uint64_t lost_records;     /* sum of PERF_RECORD_LOST counts seen */
	uint64_t lost_samples;     /* PERF_FORMAT_LOST counter of the sample events */
	uint64_t raced_bytes;      /* bytes overwritten during the copy, discarded */
};

/* ---- writer ---- */
struct fr_writer;

/* Create path (O_CREAT|O_EXCL, mode 0600) and write the file header. */
int fr_writer__open(const char *path, int zstd_level, struct fr_writer **out);
/* Same on an fd open for writing (a pipe, a tty, /dev/full in tests): writes
 * the header at the fd's current offset. On success the writer owns fd and
 * closes it; on failure the caller still owns it. abort cannot unlink.
 * Both mark the file as being written: an OFD write lock (F_OFD_SETLK) on
 * the whole file, held by the open file description (dups and appenders on
 * them included) until the last fd of it is closed, by close or by the
 * writer's death (fr_reader__being_written; doc/format.md §7). */
int fr_writer__fdopen(int fd, int zstd_level, struct fr_writer **out);
/* Accumulated; written as one META chunk before the first event/records chunk
 * or at close. Keys are [a-z0-9_.-]+, values contain no newline: -EINVAL. */
int fr_writer__meta(struct fr_writer *w, const char *key, const char *value);
/* The pending meta written now as a META chunk (not before the next other
 * chunk): an appender's too (a META chunk may come anywhere in a file). */
int fr_writer__meta_flush(struct fr_writer *w);
int fr_writer__event(struct fr_writer *w, const struct fr_file_event *ev);
/* Records of one stream, oldest first, in chunks of at most FR_CHUNK_RAW_MAX. */
int fr_writer__records_begin(struct fr_writer *w, uint32_t cpu, enum fr_stream_kind kind);
int fr_writer__record(struct fr_writer *w, const struct perf_event_header *h);
int fr_writer__records_end(struct fr_writer *w);
int fr_writer__cpu_stats(struct fr_writer *w, const struct fr_cpu_stat *st, size_t n);
/* Write END, fsync, close. On any error (ENOSPC, EIO, ...) returns -errno; the
 * caller decides whether to keep the partial file (it reads up to its last
 * complete chunk). Frees w in all cases. */
int fr_writer__close(struct fr_writer *w);
/* An appender writes only RECORDS chunks (no file header, no META, no END) to
 * fd, which it owns. For several writers of one file: open the file O_APPEND,
 * give each thread an appender on a dup of the fd; chunks of different
 * appenders never interleave (see fr_writer__dropped). The main
 * writer's END must count every chunk: fr_writer__add_chunks(main,
 * fr_writer__chunks(appender)) before fr_writer__close(main). */
int fr_writer__appender(int fd, int zstd_level, struct fr_writer **out);
/* An appender on a dup of w's fd, at w's zstd level: for threads that add
 * RECORDS chunks to w's file (each compressing its own) while w itself
 * writes nothing; the appender's chunks go at the end of the file, and w
 * goes on writing after them. Count them into w's END as above. */
int fr_writer__appender_of(struct fr_writer *w, struct fr_writer **out);
/* Writers of one O_APPEND file write each chunk under one process-wide lock
 * (never per record); a write that fails half way is cut off again. An
 * appender whose write fails (ENOSPC, EIO) drops that chunk and goes on, so
 * writing resumes once space is freed: how many records and chunks it dropped
 * so far, and -errno of the newest failure (0 once a later write succeeded). */
int fr_writer__dropped(const struct fr_writer *w, uint64_t *records, uint64_t *chunks);
/* A sink appender: like an appender, but each whole chunk (its 32-byte
 * header and zstd frame, as it would go to the file) is handed to fn instead
 * of written to an fd, e.g. to keep it in memory (record --keep). fn returns
 * 0 or -errno; a refusal other than -ENOMEM drops the chunk as a refused
 * write does (fr_writer__dropped). */
typedef int (*fr_chunk_sink_fn)(void *ctx, const void *chunk, size_t len);
int fr_writer__sink(fr_chunk_sink_fn fn, void *ctx, int zstd_level, struct fr_writer **out);
/* Write a whole RECORDS chunk a sink appender produced, as it is (no
 * recompression); counted for END. -EINVAL if it is not one. */
int fr_writer__raw_chunk(struct fr_writer *w, const void *chunk, size_t len);
/* Write the records chunk in progress now (so a crash loses at most what
 * came after); the stream stays open. */
int fr_writer__flush(struct fr_writer *w);
uint64_t fr_writer__chunks(const struct fr_writer *w);
void fr_writer__add_chunks(struct fr_writer *w, uint64_t n);
/* Close without END and unlink the file. */
void fr_writer__abort(struct fr_writer *w);
uint64_t fr_writer__bytes(const struct fr_writer *w);  /* bytes written so far */
/* A BLOB chunk of the given kind; len <= FR_CHUNK_RAW_MAX (-E2BIG). Several
 * blobs of one kind may be written; readers see them in file order. */
int fr_writer__blob(struct fr_writer *w, uint32_t kind, const void *data, size_t len);

/* ---- reader ---- */
struct fr_reader;

struct fr_sample;
struct fr_rec {
	uint32_t cpu;                  /* FR_CPU_NONE for synthesized sideband */
	enum fr_stream_kind kind;
	uint64_t time;                 /* 0 when the record has none */
	const struct perf_event_header *h;   /* valid during the callback */
	const struct fr_file_event *event;   /* the event the record belongs to */
	/* a sample's fields, parsed once by the reader by its event's
	 * sample_type (ring/record.h), valid during the callback; NULL: not a
	 * sample, or one that does not parse (counted: fr_reader__unusable) */
	const struct fr_sample *sample;
};

/* A callback returning non-zero stops the walk; that value is returned. */
typedef int (*fr_rec_cb)(void *ctx, const struct fr_rec *rec);

/* Open and index a file: checks the header (-EBADMSG: not a flightrec file,
 * -EPROTONOSUPPORT: newer version), reads meta, events and stats, and indexes
 * the record chunks. A file cut short or with a corrupt chunk opens; it is
 * marked truncated and reads up to its last good chunk. -ENODEV: path is
 * not a regular file (a FIFO, a device, a directory): it is not read, so a
 * FIFO without a writer cannot block. */
int fr_reader__open(const char *path, struct fr_reader **out);
void fr_reader__close(struct fr_reader *r);
bool fr_reader__truncated(const struct fr_reader *r);     /* no END, or a bad chunk */
/* A writer holds the file open now (its OFD write lock, see fr_writer__open):
 * a truncated file is still being written, not cut. A pid in the file cannot
 * say this: it may be another process's by now. */
bool fr_reader__being_written(const struct fr_reader *r);
const char *fr_reader__meta(const struct fr_reader *r, const char *key); /* NULL if absent */
size_t fr_reader__nr_events(const struct fr_reader *r);
const struct fr_file_event *fr_reader__event(const struct fr_reader *r, size_t i);
size_t fr_reader__nr_cpu_stats(const struct fr_reader *r);
const struct fr_cpu_stat *fr_reader__cpu_stat(const struct fr_reader *r, size_t i);
/* Blobs of a kind, in file order: how many, and the i-th decoded (malloc'd,
 * the caller frees *data; -EBADMSG if it fails its checks). */
size_t fr_reader__nr_blobs(const struct fr_reader *r, uint32_t kind);
int fr_reader__blob(struct fr_reader *r, uint32_t kind, size_t i, void **data, size_t *len);
/* Damage: every chunk the reader found bad and skipped (or at which it
 * stopped), in the order found: at open (headers, META, EVENT, CPUSTAT, END,
 * BLOB payloads), during fr_reader__for_each (RECORDS payloads), and blobs a
 * caller's parser rejected (fr_reader__blob_damaged). Kept: the first
 * FR_DAMAGE_KEEP; counted: all. */
#define FR_DAMAGE_KEEP 256
struct fr_damage {
	uint64_t chunk;            /* 0-based number of the chunk in the file */
	uint64_t offset;           /* of its chunk header */
	uint16_t type;             /* enum fr_chunk_type; 0: the header itself is bad */
	uint32_t kind;             /* BLOB: enum fr_blob_kind; RECORDS: enum fr_stream_kind */
	uint32_t cpu;              /* RECORDS: the stream's cpu */
	const char *why;           /* "checksum mismatch", "malformed payload", ... */
	const char *action;        /* "skipped", "the rest of the file is unread", ... */
};
size_t fr_reader__nr_damaged(const struct fr_reader *r);
const struct fr_damage *fr_reader__damage(const struct fr_reader *r, size_t i);
/* A caller's parser rejected the i-th blob of a kind: record it as damage. */
void fr_reader__blob_damaged(struct fr_reader *r, uint32_t kind, size_t i, const char *why);
/* "chunk 7 (BLOB KSYMS) at offset 1234: checksum mismatch (skipped)" */
void fr_damage__describe(const struct fr_damage *d, char *buf, size_t len);
/* What could not be used although its chunk was good (doc/format.md §6,
 * "Records that cannot be used"): samples whose event is unknown (no event of
 * the file owns them: several sample events and no identifier, say), samples
 * whose body does not parse by their event's sample_type, and CPU statistics
 * of a CPU id at or past FR_CPU_MAX. Counted at open (CPU statistics) and by
 * each fr_reader__for_each (records; a walk counts anew). */
struct fr_unusable {
	uint64_t no_event, bad_body, bad_cpu;
};
/* The counts; returns their (saturated) sum. */
uint64_t fr_reader__unusable(const struct fr_reader *r, struct fr_unusable *out);
/* BLOBs of kinds this reader does not know (a newer writer's, doc/format.md
 * §4 BLOB): skipped, not damage. How many; *kind: the first one's kind. */
uint64_t fr_reader__unknown_blobs(const struct fr_reader *r, uint32_t *kind);
/* Work done by the chunk index (steps of its lookups): tests check that opening
 * and walking the blobs of n chunks costs O(n log n), not O(n^2). */
uint64_t fr_reader__index_steps(const struct fr_reader *r);

/* Every record of every stream, merged by time (ties: sideband before samples,
 * then lower CPU first). Memory is bounded by one decoded chunk per stream.
 * Returns 0, the callback's non-zero value, or -errno (-EBADMSG on a chunk that
 * fails its checks: records before it were delivered). */
int fr_reader__for_each(struct fr_reader *r, fr_rec_cb cb, void *ctx);
/* Let fr_reader__for_each walk only the sample streams of CPUs c with
 * c % nparts == part (every sideband stream still): one of nparts readers of
 * a file working in parallel. nparts 0 or 1: every stream (the default). */
void fr_reader__set_cpu_part(struct fr_reader *r, unsigned part, unsigned nparts);

#endif
