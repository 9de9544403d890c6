/* src/file/write.c: the flightrec file writer (doc/format.md): the header, then
 * one zstd frame per chunk (meta, events, coded record streams, blobs, CPU
 * stats, END) through staging; appenders and sinks for other threads; the
 * writer's lock; short writes retried, the first I/O error kept and returned.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "base/grow.h"
#include "src/file/delta.h"
#include "src/file/file.h"
#include "src/file/internal.h"

struct fr_writer {
	int fd;
	int err;                /* first write/compress error: sticky */
	char *path;             /* unlinked by abort; NULL after fdopen */
	uint64_t bytes;         /* bytes written to fd */
	uint64_t kicked;        /* bytes when writeback was last started (sync_file_range) */
	uint64_t nr_chunks;     /* chunks written, for END */
	ZSTD_CCtx *cctx;
	uint8_t *out;           /* chunk header + compressed frame */
	size_t out_cap;
	uint8_t *raw;           /* RECORDS payload being filled */
	uint8_t *coded;         /* that payload, its records coded (delta.h) */
	size_t raw_len;
	uint64_t nr_records;
	bool in_records;
	uint32_t cpu;
	uint32_t kind;
	char *meta;             /* pending "key=value\n" lines */
	size_t meta_len, meta_cap;
	int level;              /* zstd level, for appenders of this file */
	bool appender;          /* records chunks only: no header, no END */
	bool shared;            /* one of several writers of an O_APPEND file */
	uint64_t dropped_records, dropped_chunks; /* appender: chunks a write refused */
	int drop_err;           /* -errno of the newest refused write, 0 once one succeeds */
	fr_chunk_sink_fn sink;  /* a sink appender: whole chunks go here, not to fd */
	void *sink_ctx;
	uint8_t *stage;         /* raw chunks gathered for one write (stage_flush) */
	size_t stage_len;
};

/* Writers of one O_APPEND file (forward mode) take this lock for each
 * chunk's write, never per record: a short write then cannot let another
 * thread's chunk in between, and a failed one is cut off again. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

#define KICK_BYTES (4u << 20)
#define STAGE_BYTES (1u << 20)

static int write_fd(struct fr_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		w->bytes += (uint64_t)n;
		p += n;
		len -= (size_t)n;
	}
	/* a snapshot file: start writing back what it has so far, so the
	 * fsync at its end waits for the last few MiB only */
	if (!w->shared && w->bytes - w->kicked >= KICK_BYTES) {
		sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		w->kicked = w->bytes;
	}
	return 0;
}

/* Raw chunks (a --keep window's, each a separate ~20 KiB allocation) are
 * copied into one buffer and written 1 MiB at a time: the kernel then reads
 * one warm buffer instead of thousands of pages it never touched, which on
 * the VMs we measure cost ~100 ms per 48 MiB the first time (doc/design-notes.md). */
static int stage_flush(struct fr_writer *w)
{
	size_t len = w->stage_len;

	w->stage_len = 0;
	return len ? write_fd(w, w->stage, len) : 0;
}

/* Everything but a staged raw chunk: what was staged goes first. */
static int write_all(struct fr_writer *w, const void *buf, size_t len)
{
	int err = stage_flush(w);

	return err ? err : write_fd(w, buf, len);
}

static int stage_chunk(struct fr_writer *w, const void *chunk, size_t len)
{
	int err = 0;

	if (!w->stage && len < STAGE_BYTES)
		w->stage = malloc(STAGE_BYTES);   /* without it, chunks go one by one */
	if (!w->stage || len >= STAGE_BYTES)
		return write_all(w, chunk, len);
	if (w->stage_len + len > STAGE_BYTES)
		err = stage_flush(w);
	if (!err) {
		memcpy(w->stage + w->stage_len, chunk, len);
		w->stage_len += len;
	}
	return err;
}

/* One whole chunk to the shared file: under the lock, and a write that fails
 * half way is cut off again, so readers never meet a torn chunk. */
static int write_shared(struct fr_writer *w, const void *buf, size_t len)
{
	uint64_t before = w->bytes;
	off_t end;
	int err;

	pthread_mutex_lock(&shared_lock);
	end = lseek(w->fd, 0, SEEK_END);
	err = write_all(w, buf, len);
	if (err && end >= 0 && ftruncate(w->fd, end) == 0)
		w->bytes = before;
	pthread_mutex_unlock(&shared_lock);
	return err;
}

static int zstd_errno(size_t code)
{
	return ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
}

/* Compress payload into one frame and write header + frame. Sets w->err. */
static int emit_chunk(struct fr_writer *w, uint16_t type, uint16_t flags, uint32_t stream,
		      uint32_t kind, const void *payload, size_t len)
{
	struct fr_disk_chunk ch = { .magic = FR_CHUNK_MAGIC, .type = type, .flags = flags };
	size_t comp;
	int err;

	if (w->err)
		return w->err;
	comp = ZSTD_compress2(w->cctx, w->out + FR_CHUNK_HDR_SIZE, w->out_cap - FR_CHUNK_HDR_SIZE,
			      payload, len);
	if (ZSTD_isError(comp)) {
		err = zstd_errno(comp);
		goto out;
	}
	ch.stream = stream;
	ch.kind = kind;
	ch.comp_size = comp;
	ch.raw_size = len;
	memcpy(w->out, &ch, sizeof(ch));
	if (w->sink)
		err = w->sink(w->sink_ctx, w->out, FR_CHUNK_HDR_SIZE + comp);
	else
		err = w->shared ? write_shared(w, w->out, FR_CHUNK_HDR_SIZE + comp)
				: write_all(w, w->out, FR_CHUNK_HDR_SIZE + comp);
	if (!err)
		w->nr_chunks++;
out:
	if (err && w->appender && err != -ENOMEM) {
		/* an appender drops the chunk and goes on: the next write may
		 * succeed (space freed); the loss is counted */
		w->dropped_chunks++;
		w->dropped_records += w->nr_records;
		w->drop_err = err;
		return 0;
	}
	if (err)
		w->err = err;
	else if (w->appender)
		w->drop_err = 0;
	return err;
}

static int flush_meta(struct fr_writer *w)
{
	int err;

	if (w->err || !w->meta_len)
		return w->err;
	err = emit_chunk(w, FR_CHUNK_META, 0, 0, 0, w->meta, w->meta_len);
	if (!err)
		w->meta_len = 0;
	return err;
}

/* Every chunk other than META is preceded by the pending meta, if any. */
static int emit_data_chunk(struct fr_writer *w, uint16_t type, uint32_t stream, uint32_t kind,
			   const void *payload, size_t len)
{
	int err = flush_meta(w);

	return err ? err : emit_chunk(w, type, 0, stream, kind, payload, len);
}

int fr_writer__meta_flush(struct fr_writer *w)
{
	int err = flush_meta(w);

	return err ? err : fr_writer__flush(w);
}

int fr_writer__blob(struct fr_writer *w, uint32_t kind, const void *data, size_t len)
{
	if (kind == 0)
		return -EINVAL;
	if (len > FR_CHUNK_RAW_MAX)
		return -E2BIG;
	return emit_data_chunk(w, FR_CHUNK_BLOB, 0, kind, data, len);
}

static int setup_cctx(ZSTD_CCtx *cctx, int level)
{
	ZSTD_bounds b = ZSTD_cParam_getBounds(ZSTD_c_compressionLevel);

	if (ZSTD_isError(b.error) || level < b.lowerBound || level > b.upperBound)
		return -EINVAL;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)))
		return -EINVAL;
	return 0;
}

static void writer_free(struct fr_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	free(w->out);
	free(w->raw);
	free(w->coded);
	free(w->meta);
	free(w->path);
	free(w->stage);
	free(w);
}

static int flush_records(struct fr_writer *w);

static int writer_new(int fd, int zstd_level, bool appender, struct fr_writer **out)
{
	struct fr_disk_header hdr = { .version = FR_FILE_VERSION, .header_size = FR_HEADER_SIZE };
	struct fr_writer *w;
	int err = -ENOMEM;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->cctx = ZSTD_createCCtx();
	w->out_cap = FR_CHUNK_HDR_SIZE + ZSTD_compressBound(FR_RECORDS_PAYLOAD_MAX);
	w->out = malloc(w->out_cap);
	w->raw = malloc(FR_RECORDS_PAYLOAD_MAX);
	if (!w->cctx || !w->out || !w->raw)
		goto out;
	err = setup_cctx(w->cctx, zstd_level);
	if (err)
		goto out;
	w->level = zstd_level;
	w->appender = appender;
	memcpy(hdr.magic, FR_FILE_MAGIC, sizeof(hdr.magic));
	if (!appender)
		err = write_all(w, &hdr, sizeof(hdr));
out:
	if (err)
		writer_free(w);
	else
		*out = w;
	return err;
}

/* The mark of a file being written (doc/format.md §7): an OFD write lock on
 * the whole file, held by the open file description, so by every dup of it
 * (the appenders'), and gone with it however the writer ends. Best effort: a
 * file that cannot be locked (a pipe, a filesystem without locks) reads as
 * not being written, i.e. truncated until its END is there. */
static void mark_writing(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	(void)fcntl(fd, F_OFD_SETLK, &fl);
}

int fr_writer__fdopen(int fd, int zstd_level, struct fr_writer **out)
{
	int err = writer_new(fd, zstd_level, false, out);

	if (err)
		return err;
	mark_writing(fd);
	/* an O_APPEND fd may have other writers (appenders on dups) */
	if (fcntl(fd, F_GETFL) & O_APPEND)
		(*out)->shared = true;
	return 0;
}

int fr_writer__appender(int fd, int zstd_level, struct fr_writer **out)
{
	int err = writer_new(fd, zstd_level, true, out);

	if (!err)
		(*out)->shared = true;
	return err;
}

int fr_writer__sink(fr_chunk_sink_fn fn, void *ctx, int zstd_level, struct fr_writer **out)
{
	int err = writer_new(-1, zstd_level, true, out);

	if (!err) {
		(*out)->sink = fn;
		(*out)->sink_ctx = ctx;
	}
	return err;
}

int fr_writer__raw_chunk(struct fr_writer *w, const void *chunk, size_t len)
{
	struct fr_disk_chunk ch;
	int err;

	if (w->err)
		return w->err;
	if (w->in_records || len < FR_CHUNK_HDR_SIZE)
		return -EINVAL;
	memcpy(&ch, chunk, sizeof(ch));
	if (ch.magic != FR_CHUNK_MAGIC || ch.type != FR_CHUNK_RECORDS ||
	    (ch.flags & ~FR_CHUNK_F_CODED) || ch.comp_size != len - FR_CHUNK_HDR_SIZE)
		return -EINVAL;
	err = flush_meta(w);
	if (!err)
		err = w->shared ? write_shared(w, chunk, len) : stage_chunk(w, chunk, len);
	if (err)
		w->err = err;
	else
		w->nr_chunks++;
	return err;
}

int fr_writer__appender_of(struct fr_writer *w, struct fr_writer **out)
{
	int fd, err;

	*out = NULL;
	if (!w->err)
		w->err = stage_flush(w);   /* the appender writes after what is staged */
	if (w->err)
		return w->err;
	fd = fcntl(w->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = fr_writer__appender(fd, w->level, out);
	if (err)
		close(fd);
	return err;
}

int fr_writer__dropped(const struct fr_writer *w, uint64_t *records, uint64_t *chunks)
{
	if (records)
		*records = w->dropped_records;
	if (chunks)
		*chunks = w->dropped_chunks;
	return w->drop_err;
}

int fr_writer__flush(struct fr_writer *w)
{
	int err;

	if (w->in_records)
		return flush_records(w);
	if (w->err)
		return w->err;
	err = stage_flush(w);
	if (err)
		w->err = err;
	return err;
}

uint64_t fr_writer__chunks(const struct fr_writer *w)
{
	return w->nr_chunks;
}

void fr_writer__add_chunks(struct fr_writer *w, uint64_t n)
{
	w->nr_chunks += n;
}

int fr_writer__open(const char *path, int zstd_level, struct fr_writer **out)
{
	char *copy = strdup(path);
	int fd = -1, err;

	*out = NULL;
	if (!copy)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = fr_writer__fdopen(fd, zstd_level, out);
	if (!err)
		(*out)->path = copy;
out:
	if (err) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(copy);
	}
	return err;
}

static bool valid_key(const char *key)
{
	size_t i;

	for (i = 0; key[i]; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	return i > 0;
}

int fr_writer__meta(struct fr_writer *w, const char *key, const char *value)
{
	size_t klen, vlen, need;
	char *p;

	if (w->err)
		return w->err;
	if (!valid_key(key) || strchr(value, '\n'))
		return -EINVAL;
	klen = strlen(key);
	vlen = strlen(value);
	need = w->meta_len + klen + vlen + 2;
	if (need > FR_OTHER_PAYLOAD_MAX)
		return -E2BIG;
	if (fr_grow(&w->meta, &w->meta_cap, need, 1, 256))
		return -ENOMEM;
	p = w->meta + w->meta_len;
	memcpy(p, key, klen);
	p[klen] = '=';
	memcpy(p + klen + 1, value, vlen);
	p[klen + 1 + vlen] = '\n';
	w->meta_len = need;
	return 0;
}

static size_t event_payload_size(const struct fr_file_event *ev, size_t name_len)
{
	return 12 + sizeof(ev->attr) + 4 + name_len + 4 + (ev->format ? ev->format_len : 0) + 4 +
	       (size_t)ev->nr_ids * 8;
}

static void event_serialize(const struct fr_file_event *ev, size_t name_len, uint8_t *p)
{
	size_t format_len = ev->format ? ev->format_len : 0;
	uint32_t i;

	fr_put32(p, ev->index);
	fr_put32(p + 4, ev->flags);
	fr_put32(p + 8, sizeof(ev->attr));
	memcpy(p + 12, &ev->attr, sizeof(ev->attr));
	p += 12 + sizeof(ev->attr);
	fr_put32(p, (uint32_t)name_len);
	memcpy(p + 4, ev->name, name_len);
	p += 4 + name_len;
	fr_put32(p, (uint32_t)format_len);
	if (format_len)
		memcpy(p + 4, ev->format, format_len);
	p += 4 + format_len;
	fr_put32(p, ev->nr_ids);
	for (i = 0; i < ev->nr_ids; i++)
		fr_put64(p + 4 + 8 * (size_t)i, ev->ids[i]);
}

int fr_writer__event(struct fr_writer *w, const struct fr_file_event *ev)
{
	size_t name_len, size;
	uint8_t *buf;
	int err;

	if (w->err)
		return w->err;
	if (!ev->name || (ev->nr_ids && !ev->ids))
		return -EINVAL;
	name_len = strlen(ev->name);
	if (ev->nr_ids > FR_OTHER_PAYLOAD_MAX / 8 || name_len > FR_OTHER_PAYLOAD_MAX ||
	    (ev->format && ev->format_len > FR_OTHER_PAYLOAD_MAX))
		return -E2BIG;
	size = event_payload_size(ev, name_len);
	if (size > FR_OTHER_PAYLOAD_MAX)
		return -E2BIG;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	event_serialize(ev, name_len, buf);
	err = emit_data_chunk(w, FR_CHUNK_EVENT, 0, 0, buf, size);
	free(buf);
	return err;
}

static int flush_records(struct fr_writer *w)
{
	int err;

	if (w->err || !w->nr_records)
		return w->err;
	fr_put32(w->raw, w->cpu);
	fr_put32(w->raw + 4, w->kind);
	fr_put64(w->raw + 8, w->nr_records);
	/* the records coded (delta.h), so zstd sees the repetition */
	if (!w->coded && !(w->coded = malloc(FR_RECORDS_PAYLOAD_MAX)))
		err = -ENOMEM;
	else
		err = fr_delta__encode(w->raw + FR_RECORDS_HDR_SIZE, w->coded + FR_RECORDS_HDR_SIZE,
				       w->raw_len - FR_RECORDS_HDR_SIZE, fr_delta__words(FR_FILE_VERSION));
	if (!err) {
		memcpy(w->coded, w->raw, FR_RECORDS_HDR_SIZE);
		err = flush_meta(w);
	}
	if (!err)
		err = emit_chunk(w, FR_CHUNK_RECORDS, FR_CHUNK_F_CODED, w->cpu, w->kind, w->coded,
				 w->raw_len);
	else if (!w->err)
		w->err = err;
	w->raw_len = FR_RECORDS_HDR_SIZE;
	w->nr_records = 0;
	return err;
}

int fr_writer__records_begin(struct fr_writer *w, uint32_t cpu, enum fr_stream_kind kind)
{
	if (w->err)
		return w->err;
	if (w->in_records || (kind != FR_STREAM_SAMPLES && kind != FR_STREAM_SIDEBAND))
		return -EINVAL;
	w->in_records = true;
	w->cpu = cpu;
	w->kind = kind;
	w->raw_len = FR_RECORDS_HDR_SIZE;
	w->nr_records = 0;
	return 0;
}

int fr_writer__record(struct fr_writer *w, const struct perf_event_header *h)
{
	int err;

	if (w->err)
		return w->err;
	if (!w->in_records || h->size < sizeof(*h) || h->size % 8)
		return -EINVAL;
	if (w->raw_len + h->size > FR_RECORDS_PAYLOAD_MAX) {
		err = flush_records(w);
		if (err)
			return err;
	}
	memcpy(w->raw + w->raw_len, h, h->size);
	w->raw_len += h->size;
	w->nr_records++;
	return 0;
}

int fr_writer__records_end(struct fr_writer *w)
{
	int err;

	if (!w->in_records)
		return w->err ? w->err : -EINVAL;
	err = flush_records(w);
	w->in_records = false;
	return err;
}

static void cpu_stat_serialize(const struct fr_cpu_stat *st, uint8_t *p)
{
	fr_put32(p, st->cpu);
	fr_put32(p + 4, st->flags);
	fr_put64(p + 8, st->first_time);
	fr_put64(p + 16, st->last_time);
	fr_put64(p + 24, st->nr_samples);
	fr_put64(p + 32, st->nr_sideband);
	fr_put64(p + 40, st->lost_records);
	fr_put64(p + 48, st->lost_samples);
	fr_put64(p + 56, st->raced_bytes);
}

/* One CPUSTAT chunk per (FR_OTHER_PAYLOAD_MAX - 8) / 64 entries. */
int fr_writer__cpu_stats(struct fr_writer *w, const struct fr_cpu_stat *st, size_t n)
{
	const size_t per = (FR_OTHER_PAYLOAD_MAX - FR_CPUSTAT_HDR_SIZE) / FR_CPUSTAT_ENTRY_SIZE;
	size_t cnt = n < per ? n : per, i;
	uint8_t *buf;
	int err = 0;

	if (w->err || !n)
		return w->err;
	buf = malloc(FR_CPUSTAT_HDR_SIZE + cnt * FR_CPUSTAT_ENTRY_SIZE);
	if (!buf)
		return -ENOMEM;
	while (n && !err) {
		cnt = n < per ? n : per;
		fr_put32(buf, (uint32_t)cnt);
		fr_put32(buf + 4, 0);
		for (i = 0; i < cnt; i++)
			cpu_stat_serialize(&st[i], buf + FR_CPUSTAT_HDR_SIZE + i * FR_CPUSTAT_ENTRY_SIZE);
		err = emit_data_chunk(w, FR_CHUNK_CPUSTAT, 0, 0, buf,
				      FR_CPUSTAT_HDR_SIZE + cnt * FR_CPUSTAT_ENTRY_SIZE);
		st += cnt;
		n -= cnt;
	}
	free(buf);
	return err;
}

static int write_end(struct fr_writer *w)
{
	uint8_t end[FR_END_SIZE];
	int err = 0;

	if (w->in_records)
		err = fr_writer__records_end(w);
	if (!err)
		err = flush_meta(w);
	if (err)
		return err;
	fr_put64(end, w->nr_chunks);
	err = emit_chunk(w, FR_CHUNK_END, 0, 0, 0, end, sizeof(end));
	if (!err && fsync(w->fd) && errno != EINVAL && errno != EROFS)
		err = -errno;  /* EINVAL/EROFS: the fd cannot be synced (pipe, tty) */
	return err;
}

int fr_writer__close(struct fr_writer *w)
{
	int err;

	if (!w)
		return 0;
	if (w->appender)
		err = w->err ? w->err : (w->in_records ? fr_writer__records_end(w) : 0);
	else
		err = w->err ? w->err : write_end(w);
	if (w->fd >= 0 && close(w->fd) && !err && errno != EINTR)
		err = -errno;
	writer_free(w);
	return err;
}

void fr_writer__abort(struct fr_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->path)
		unlink(w->path);
	writer_free(w);
}

uint64_t fr_writer__bytes(const struct fr_writer *w)
{
	return w->bytes + w->stage_len;
}
