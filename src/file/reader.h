/* src/file/reader.h: the reader's state, shared by read.c (header, chunk
 * index, damage), access.c (blobs, meta, events, stats) and merge.c (the
 * streams merged by time). Private to src/file/.
 */
#ifndef FR_FILE_READER_H
#define FR_FILE_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <zstd.h>

#include "ring/record.h"
#include "src/file/file.h"

struct chunk_ref {
	uint64_t off;           /* of the zstd frame */
	uint64_t comp, raw;
	uint64_t no;            /* chunk number in the file */
	bool damaged;           /* already recorded as damage */
	bool coded;             /* RECORDS: FR_CHUNK_F_CODED (version 2 and later) */
};

/* The proportion budget (doc/format.md §6, read.c charge()): the decoded
 * bytes a reader takes on for a file (every META, EVENT, CPUSTAT and BLOB
 * payload, and for RECORDS the largest chunk of each stream: what the merge
 * holds at once) sum to at most max(BUDGET_MIN, BUDGET_RATIO x file size). */
#define BUDGET_MIN (16u << 20)
#define BUDGET_RATIO 64u
#define NR_STREAM_SLOTS (2 * ((size_t)FR_CPU_MAX + 1))

struct stream {
	uint32_t cpu, kind;
	uint64_t max_raw;           /* of its chunks */
	struct chunk_ref *chunks;   /* file order */
	size_t nr_chunks, cap;
	/* merge state */
	size_t next;                /* next chunk to decode */
	uint8_t *buf;               /* the decoded chunk */
	size_t buf_cap, pos, end;   /* next record at buf + pos */
	uint64_t last_time;         /* merge key of records without time */
	uint64_t key;
	struct fr_rec rec;          /* the head record */
	struct fr_sample smp;       /* its fields, when it is a sample that parses */
};

struct meta_kv {
	char *key, *value;
};

struct blob_ref {
	uint32_t kind;
	struct chunk_ref ref;
};

struct damage_log {
	struct fr_damage *v;
	size_t nr, cap;
	uint64_t total;
};

struct fr_reader {
	struct blob_ref *blobs;
	size_t nr_blobs, cap_blobs;
	int fd;
	uint64_t size;
	uint32_t version;           /* the file header's: 1 to FR_FILE_VERSION */
	bool truncated;
	ZSTD_DCtx *dctx;
	uint8_t *cbuf;
	size_t cbuf_cap;
	struct meta_kv *meta;
	size_t nr_meta;
	struct fr_file_event *events;
	size_t nr_events;
	struct fr_cpu_stat *stats;
	size_t nr_stats;
	struct stream *streams;
	size_t nr_streams;
	const struct fr_file_event *sideband_ev, *sample_ev;  /* sample_ev: the only one */
	struct fr_idmap *ids;       /* kernel id -> index into events */
	int32_t *stream_slot;       /* NR_STREAM_SLOTS: index into streams + 1, 0 = none */
	uint8_t *index_seen;        /* FR_EVENT_INDEX_MAX / 8: event indexes taken */
	uint64_t decoded, budget;   /* charged against the proportion budget */
	struct fr_unusable unusable; /* records and entries that could not be used */
	uint64_t unknown_blobs;     /* BLOBs of kinds this reader does not know */
	uint32_t unknown_kind;      /* the first such kind */
	unsigned part, nparts;      /* fr_reader__set_cpu_part */
	struct damage_log damage;
	const char *why;            /* why the last decode_chunk failed */
	uint64_t steps;
};

/* read.c: record a damaged chunk once (what it was, why, what was done). */
void fr_reader_note_damage(struct fr_reader *r, struct chunk_ref *ref, uint16_t type,
			   uint32_t kind, uint32_t cpu, const char *why, const char *done);
/* read.c: decompress a chunk's frame into dst (ref->raw bytes), checked; on
 * failure r->why says why. */
int fr_reader_decode_chunk(struct fr_reader *r, const struct chunk_ref *ref, void *dst);

#endif
