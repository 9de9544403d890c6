/* src/file/read.c: opening a flightrec file (doc/format.md): checks the header
 * and every chunk, indexes them (decoding meta, events, stats; checking blobs)
 * within the one proportion budget, and logs the damage skipped. Accessors:
 * access.c; the merge by time: merge.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "ring/record.h"
#include "src/util.h"
#include "src/file/file.h"
#include "src/file/internal.h"
#include "src/file/reader.h"

void fr_reader_note_damage(struct fr_reader *r, struct chunk_ref *ref, uint16_t type, uint32_t kind,
			uint32_t cpu, const char *why, const char *action)
{
	struct fr_damage *d;

	if (ref) {
		if (ref->damaged)
			return;
		ref->damaged = true;
	}
	r->damage.total++;
	if (r->damage.nr >= FR_DAMAGE_KEEP ||
	    fr_grow(&r->damage.v, &r->damage.cap, r->damage.nr + 1, sizeof(*d), 8))
		return;
	d = &r->damage.v[r->damage.nr++];
	d->chunk = ref ? ref->no : 0;
	d->offset = ref ? ref->off - FR_CHUNK_HDR_SIZE : 0;
	d->type = type;
	d->kind = kind;
	d->cpu = cpu;
	d->why = why;
	d->action = action;
}

/* The proportion budget (doc/format.md §6), the one place every chunk kind is
 * charged: a chunk whose decoded bytes would take the sum past the budget is
 * skipped as damage. false: refused. */
static bool charge(struct fr_reader *r, struct chunk_ref *ref, uint16_t type, uint32_t kind,
		   uint32_t cpu, uint64_t bytes)
{
	if (bytes > r->budget - r->decoded) {
		fr_reader_note_damage(r, ref, type, kind, cpu,
				      "decoded size out of proportion to the file size", "skipped");
		return false;
	}
	r->decoded += bytes;
	return true;
}

struct cursor {
	const uint8_t *p;
	size_t left;
};

static const uint8_t *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (!p || c->left < n) {
		c->p = NULL;  /* sticky: every later take fails */
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static uint32_t take32(struct cursor *c)
{
	const uint8_t *p = take(c, 4);

	return p ? fr_get32(p) : 0;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;  /* the file shrank */
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read one chunk's frame and decode it into dst (ref->raw bytes). The frame
 * must be exactly one zstd frame with a content checksum and content size. */
int fr_reader_decode_chunk(struct fr_reader *r, const struct chunk_ref *ref, void *dst)
{
	size_t got;
	int err;

	if (fr_grow(&r->cbuf, &r->cbuf_cap, ref->comp, 1, 65536))
		return -ENOMEM;
	err = pread_all(r->fd, r->cbuf, ref->comp, ref->off);
	r->why = "unreadable";
	if (err)
		return err;
	r->why = "not a zstd frame with a checksum";
	if (ref->comp < 5 || fr_get32(r->cbuf) != FR_ZSTD_FRAME_MAGIC ||
	    !(r->cbuf[4] & FR_ZSTD_FHD_CHECKSUM) || (r->cbuf[4] & FR_ZSTD_FHD_MUST_BE_0))
		return -EBADMSG;
	r->why = "frame size mismatch";
	if (ZSTD_findFrameCompressedSize(r->cbuf, ref->comp) != ref->comp ||
	    ZSTD_getFrameContentSize(r->cbuf, ref->comp) != ref->raw)
		return -EBADMSG;
	got = ZSTD_decompressDCtx(r->dctx, dst, ref->raw, r->cbuf, ref->comp);
	if (ZSTD_isError(got))
		r->why = ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong ?
			"checksum mismatch" : "does not decompress";
	else
		r->why = got == ref->raw ? NULL : "frame size mismatch";
	return !ZSTD_isError(got) && got == ref->raw ? 0 : -EBADMSG;
}

/* ---- meta, events, stats, END ---- */

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static int add_meta_line(struct fr_reader *r, size_t *cap, const char *line, size_t len)
{
	const char *eq = memchr(line, '=', len);
	struct meta_kv *kv;
	const char *k;

	if (!eq || eq == line)
		return -EBADMSG;
	for (k = line; k < eq; k++)
		if (!key_char(*k))
			return -EBADMSG;
	if (fr_grow(&r->meta, cap, r->nr_meta + 1, sizeof(*r->meta), 4))
		return -ENOMEM;
	kv = &r->meta[r->nr_meta];
	kv->key = strndup(line, (size_t)(eq - line));
	kv->value = strndup(eq + 1, len - (size_t)(eq - line) - 1);
	if (!kv->key || !kv->value) {
		free(kv->key);
		free(kv->value);
		return -ENOMEM;
	}
	r->nr_meta++;
	return 0;
}

static int parse_meta(struct fr_reader *r, size_t *cap, const char *text, size_t len)
{
	size_t old = r->nr_meta;
	const char *p = text, *end = text + len, *nl;
	int err = 0;

	if (memchr(text, '\0', len) || (len && text[len - 1] != '\n'))
		return -EBADMSG;
	for (; p < end && !err; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		err = add_meta_line(r, cap, p, (size_t)(nl - p));
	}
	while (err && r->nr_meta > old) {  /* a bad chunk adds nothing */
		r->nr_meta--;
		free(r->meta[r->nr_meta].key);
		free(r->meta[r->nr_meta].value);
	}
	return err;
}

static void event_free(struct fr_file_event *ev)
{
	free((void *)ev->name);
	free((void *)ev->format);
	free((void *)ev->ids);
}

static char *dup_bytes(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, p, len);
		s[len] = '\0';
	}
	return s;
}

/* Copy the variable parts out of the payload (ev->name etc. are owned). */
static int event_copy(struct fr_file_event *ev, const uint8_t *name, size_t name_len,
		      const uint8_t *format, const uint8_t *ids)
{
	uint64_t *v = NULL;
	uint32_t i;

	ev->name = dup_bytes(name, name_len);
	ev->format = ev->format_len ? dup_bytes(format, ev->format_len) : NULL;
	if (ev->nr_ids) {
		v = malloc((size_t)ev->nr_ids * 8);
		for (i = 0; v && i < ev->nr_ids; i++)
			v[i] = fr_get64(ids + 8 * (size_t)i);
	}
	ev->ids = v;
	if (ev->name && (ev->format || !ev->format_len) && (v || !ev->nr_ids))
		return 0;
	event_free(ev);
	return -ENOMEM;
}

/* u32 index, u32 flags, u32 attr_size, attr, u32 name_len, name, u32
 * format_len, format, u32 nr_ids, u64 ids[]: packed, nothing after. */
static int parse_event(struct fr_file_event *ev, const uint8_t *buf, size_t len)
{
	struct cursor c = { buf, len };
	const uint8_t *attr, *name, *format, *ids;
	size_t attr_size, name_len;

	memset(ev, 0, sizeof(*ev));
	ev->index = take32(&c);
	ev->flags = take32(&c);
	attr_size = take32(&c);
	attr = take(&c, attr_size);
	name_len = take32(&c);
	name = take(&c, name_len);
	ev->format_len = take32(&c);
	format = take(&c, ev->format_len);
	ev->nr_ids = take32(&c);
	ids = take(&c, (size_t)ev->nr_ids * 8);
	if (!c.p || c.left)
		return -EBADMSG;
	memcpy(&ev->attr, attr, attr_size < sizeof(ev->attr) ? attr_size : sizeof(ev->attr));
	return event_copy(ev, name, name_len, format, ids);
}

/* -EEXIST: an event with its index came before; -ERANGE: index too big. */
static int add_event(struct fr_reader *r, size_t *cap, const uint8_t *buf, size_t len)
{
	int err = fr_grow(&r->events, cap, r->nr_events + 1, sizeof(*r->events), 4);
	struct fr_file_event *ev = &r->events[r->nr_events];

	if (err)
		return err;
	if (!r->index_seen && !(r->index_seen = calloc(FR_EVENT_INDEX_MAX / 8, 1)))
		return -ENOMEM;
	err = parse_event(ev, buf, len);
	if (err)
		return err;
	if (ev->index >= FR_EVENT_INDEX_MAX ||
	    (r->index_seen[ev->index / 8] & (1u << (ev->index % 8)))) {
		err = ev->index >= FR_EVENT_INDEX_MAX ? -ERANGE : -EEXIST;
		event_free(ev);
		return err;
	}
	r->index_seen[ev->index / 8] |= (uint8_t)(1u << (ev->index % 8));
	r->nr_events++;
	return 0;
}

static int add_cpu_stats(struct fr_reader *r, size_t *cap, const uint8_t *buf, size_t len)
{
	uint32_t n, i;

	if (len < FR_CPUSTAT_HDR_SIZE)
		return -EBADMSG;
	n = fr_get32(buf);
	if (len != FR_CPUSTAT_HDR_SIZE + (size_t)n * FR_CPUSTAT_ENTRY_SIZE)
		return -EBADMSG;
	if (fr_grow(&r->stats, cap, r->nr_stats + n, sizeof(*r->stats), 4))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *p = buf + FR_CPUSTAT_HDR_SIZE + (size_t)i * FR_CPUSTAT_ENTRY_SIZE;
		struct fr_cpu_stat *st = &r->stats[r->nr_stats];

		if (fr_get32(p) >= FR_CPU_MAX) {   /* no stream can have it: not usable */
			r->unusable.bad_cpu++;
			continue;
		}
		r->nr_stats++;
		st->cpu = fr_get32(p);
		st->flags = fr_get32(p + 4);
		st->first_time = fr_get64(p + 8);
		st->last_time = fr_get64(p + 16);
		st->nr_samples = fr_get64(p + 24);
		st->nr_sideband = fr_get64(p + 32);
		st->lost_records = fr_get64(p + 40);
		st->lost_samples = fr_get64(p + 48);
		st->raced_bytes = fr_get64(p + 56);
	}
	return 0;
}

struct caps {
	size_t meta, events, stats, streams;
};

/* Decode and parse a non-RECORDS chunk. Returns 0 (or skipped: over the
 * budget), 1 for a valid END, -EBADMSG for a bad chunk, or another -errno. */
static int read_small_chunk(struct fr_reader *r, struct caps *caps, uint16_t type,
			    struct chunk_ref *ref, uint64_t nr_before)
{
	uint8_t *buf;
	int err;

	if (type != FR_CHUNK_END && !charge(r, ref, type, 0, 0, ref->raw))
		return 0;
	buf = malloc(ref->raw + 1);
	if (!buf)
		return -ENOMEM;
	err = fr_reader_decode_chunk(r, ref, buf);
	if (err)
		goto out;
	buf[ref->raw] = '\0';
	r->why = "malformed payload";
	if (type == FR_CHUNK_META)
		err = parse_meta(r, &caps->meta, (const char *)buf, ref->raw);
	else if (type == FR_CHUNK_EVENT)
		err = add_event(r, &caps->events, buf, ref->raw);
	else if (type == FR_CHUNK_CPUSTAT)
		err = add_cpu_stats(r, &caps->stats, buf, ref->raw);
	else
		err = ref->raw == FR_END_SIZE && fr_get64(buf) == nr_before ? 1 : -EBADMSG;
out:
	free(buf);
	return err;
}

/* ---- the chunk index ---- */

/* Version 1 has no chunk flags; version 2 one, on RECORDS chunks. */
static bool chunk_header_ok(const struct fr_reader *r, const struct fr_disk_chunk *ch)
{
	uint16_t flags_ok = r->version >= 2 && ch->type == FR_CHUNK_RECORDS ? FR_CHUNK_F_CODED : 0;

	if (ch->magic != FR_CHUNK_MAGIC || (ch->flags & ~flags_ok) || ch->type < FR_CHUNK_META ||
	    ch->type > FR_CHUNK_BLOB || ch->comp_size > FR_CHUNK_COMP_MAX ||
	    ch->raw_size > fr_payload_max(ch->type))
		return false;
	if (ch->type == FR_CHUNK_RECORDS)
		return ch->kind <= FR_STREAM_SIDEBAND && ch->raw_size >= FR_RECORDS_HDR_SIZE &&
		       (ch->stream < FR_CPU_MAX || ch->stream == FR_CPU_NONE);
	if (ch->type == FR_CHUNK_BLOB)
		return ch->stream == 0 && ch->kind != 0;
	return ch->stream == 0 && ch->kind == 0;
}

/* cpu < FR_CPU_MAX or FR_CPU_NONE, kind 0 or 1 (chunk_header_ok): a slot each. */
static struct stream *find_stream(struct fr_reader *r, size_t *cap, uint32_t cpu, uint32_t kind)
{
	size_t slot = 2 * (cpu == FR_CPU_NONE ? 0 : (size_t)cpu + 1) + kind;
	struct stream *s;

	r->steps++;
	if (!r->stream_slot && !(r->stream_slot = calloc(NR_STREAM_SLOTS, sizeof(int32_t))))
		return NULL;
	if (r->stream_slot[slot])
		return &r->streams[r->stream_slot[slot] - 1];
	if (fr_grow(&r->streams, cap, r->nr_streams + 1, sizeof(*r->streams), 4))
		return NULL;
	r->stream_slot[slot] = (int32_t)r->nr_streams + 1;
	s = &r->streams[r->nr_streams++];
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->kind = kind;
	return s;
}

static int add_records_chunk(struct fr_reader *r, struct caps *caps,
			     const struct fr_disk_chunk *ch, const struct chunk_ref *ref)
{
	struct stream *s = find_stream(r, &caps->streams, ch->stream, ch->kind);
	struct chunk_ref bad = *ref;

	if (!s || fr_grow(&s->chunks, &s->cap, s->nr_chunks + 1, sizeof(*s->chunks), 4))
		return -ENOMEM;
	if (ref->raw > s->max_raw) {   /* the merge holds the largest chunk of a stream */
		if (!charge(r, &bad, FR_CHUNK_RECORDS, ch->kind, ch->stream, ref->raw - s->max_raw))
			return 0;
		s->max_raw = ref->raw;
	}
	s->chunks[s->nr_chunks++] = *ref;
	return 0;
}

/* Blobs are checked (decoded) at open: a bad one is damage, skipped; the
 * good ones are indexed, sorted by kind then file order at the end of open. */
static int add_blob(struct fr_reader *r, uint32_t kind, struct chunk_ref *ref)
{
	uint8_t *buf;
	int err;

	if (kind >= FR_BLOB_KINDS) {   /* a newer writer's: skipped, said once, not damage */
		if (!r->unknown_blobs++)
			r->unknown_kind = kind;
		return 0;
	}
	if (!charge(r, ref, FR_CHUNK_BLOB, kind, 0, ref->raw))
		return 0;
	buf = malloc(ref->raw + 1);
	if (!buf)
		return -ENOMEM;
	err = fr_reader_decode_chunk(r, ref, buf);
	free(buf);
	if (err == -EBADMSG) {
		fr_reader_note_damage(r, ref, FR_CHUNK_BLOB, kind, 0, r->why, "skipped");
		return 0;
	}
	if (err || fr_grow(&r->blobs, &r->cap_blobs, r->nr_blobs + 1, sizeof(*r->blobs), 4))
		return err ? err : -ENOMEM;
	r->blobs[r->nr_blobs].kind = kind;
	r->blobs[r->nr_blobs++].ref = *ref;
	return 0;
}

static int blob_cmp(const void *a, const void *b)
{
	const struct blob_ref *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->ref.no < y->ref.no ? -1 : x->ref.no > y->ref.no;
}

/* Walk the chunk headers up to END or the first bad or incomplete chunk. */
static int scan_chunks(struct fr_reader *r)
{
	struct caps caps = { 0 };
	uint64_t off = FR_HEADER_SIZE, nr = 0;
	struct fr_disk_chunk ch;
	struct chunk_ref ref;
	int err = 0;

	r->truncated = true;
	r->budget = r->size <= BUDGET_MIN / BUDGET_RATIO ? BUDGET_MIN
		    : r->size < UINT64_MAX / BUDGET_RATIO ? r->size * BUDGET_RATIO : UINT64_MAX;
	while (r->size - off >= FR_CHUNK_HDR_SIZE) {
		err = pread_all(r->fd, &ch, sizeof(ch), off);
		if (err)
			break;
		ref = (struct chunk_ref){ off + FR_CHUNK_HDR_SIZE, ch.comp_size, ch.raw_size, nr,
					  false, (ch.flags & FR_CHUNK_F_CODED) != 0 };
		if (!chunk_header_ok(r, &ch)) {
			fr_reader_note_damage(r, &ref, 0, 0, 0, "bad chunk header",
				    "the rest of the file is unread");
			break;
		}
		if (ch.comp_size > r->size - off - FR_CHUNK_HDR_SIZE)
			break;  /* incomplete: the file was cut */
		if (ch.type == FR_CHUNK_RECORDS)
			err = add_records_chunk(r, &caps, &ch, &ref);
		else if (ch.type == FR_CHUNK_BLOB)
			err = add_blob(r, ch.kind, &ref);
		else
			err = read_small_chunk(r, &caps, ch.type, &ref, nr);
		if (err == -EEXIST || err == -ERANGE) {
			fr_reader_note_damage(r, &ref, ch.type, 0, 0, err == -EEXIST ? "duplicate event index"
					    : "event index out of range", "skipped");
			err = 0;
		}
		if (err == -EBADMSG)
			fr_reader_note_damage(r, &ref, ch.type, 0, 0, r->why ? r->why : "malformed payload",
				    "the rest of the file is unread");
		if (err) {
			r->truncated = err != 1;
			break;
		}
		nr++;
		off = ref.off + ref.comp;
	}
	if (r->nr_blobs)
		qsort(r->blobs, r->nr_blobs, sizeof(*r->blobs), blob_cmp);
	return err == -EBADMSG || err == 1 ? 0 : err;
}

/* An `event_ids` meta line, "INDEX:ID,ID...": ids of a non-sideband event
 * opened after its EVENT chunk was written (doc/format.md). A line that does
 * not parse, or names no such event, adds nothing. 0 or -ENOMEM. */
static int add_event_ids(struct fr_reader *r, const char *v)
{
	uint64_t ids[64];
	size_t n = 0, ev;
	char *end;
	unsigned long idx;

	errno = 0;
	idx = strtoul(v, &end, 10);
	if (errno || end == v || *end != ':' || idx >= FR_EVENT_INDEX_MAX || *v == '-')
		return 0;
	for (ev = 0; ev < r->nr_events; ev++)
		if (r->events[ev].index == idx && !(r->events[ev].flags & FR_EVENT_SIDEBAND))
			break;
	if (ev == r->nr_events)
		return 0;
	for (v = end + 1; n < sizeof(ids) / sizeof(ids[0]); v = end + 1) {
		unsigned long long id;

		errno = 0;
		id = strtoull(v, &end, 10);
		if (errno || end == v || *v == '-' || (*end && *end != ','))
			return 0;
		ids[n++] = id;
		if (!*end)
			return fr_idmap__add(r->ids, ids, n, ev) ? -ENOMEM : 0;
	}
	return 0;   /* more than a line of ours holds */
}

/* How records find their event: see fr_reader__for_each. */
static int index_events(struct fr_reader *r)
{
	size_t i, nr_sample = 0;

	for (i = 0; i < r->nr_events; i++) {
		const struct fr_file_event *ev = &r->events[i];

		if ((ev->flags & FR_EVENT_SIDEBAND) && !r->sideband_ev)
			r->sideband_ev = ev;
		if (!(ev->flags & FR_EVENT_SIDEBAND)) {
			r->sample_ev = ev;
			nr_sample++;
		}
	}
	if (nr_sample != 1)
		r->sample_ev = NULL;
	r->ids = fr_idmap__new();
	if (!r->ids)
		return -ENOMEM;
	for (i = 0; i < r->nr_events; i++)
		if (fr_idmap__add(r->ids, r->events[i].ids, r->events[i].nr_ids, i))
			return -ENOMEM;
	for (i = 0; i < r->nr_meta; i++)
		if (!strcmp(r->meta[i].key, "event_ids") && add_event_ids(r, r->meta[i].value))
			return -ENOMEM;
	fr_idmap__sort(r->ids);
	return 0;
}

static int check_header(struct fr_reader *r)
{
	struct fr_disk_header h;
	struct stat st;

	if (fstat(r->fd, &st))
		return -errno;
	r->size = (uint64_t)st.st_size;
	if (r->size < sizeof(h) || pread_all(r->fd, &h, sizeof(h), 0))
		return -EBADMSG;
	if (memcmp(h.magic, FR_FILE_MAGIC, sizeof(h.magic)) || h.version == 0)
		return -EBADMSG;
	if (h.version > FR_FILE_VERSION || h.flags)
		return -EPROTONOSUPPORT;
	r->version = h.version;
	return h.header_size == FR_HEADER_SIZE ? 0 : -EBADMSG;
}

int fr_reader__open(const char *path, struct fr_reader **out)
{
	struct fr_reader *r = calloc(1, sizeof(*r));
	int err = -ENOMEM;
	struct stat st;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	/* only a regular file: a FIFO without a writer would block the open and
	 * the read forever, a device may act on open. Checked before the open
	 * and again on what was opened (O_NONBLOCK: nothing put there since
	 * can block it). */
	if (stat(path, &st)) {
		err = -errno;
		goto out;
	}
	err = -ENODEV;
	if (!S_ISREG(st.st_mode))
		goto out;
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0) {
		err = -errno;
		goto out;
	}
	if (fstat(r->fd, &st) || !S_ISREG(st.st_mode))
		goto out;
	err = -ENOMEM;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx)
		goto out;
	err = check_header(r);
	if (!err)
		err = scan_chunks(r);
	if (!err)
		err = index_events(r);
out:
	if (err)
		fr_reader__close(r);
	else
		*out = r;
	return err;
}

bool fr_reader__being_written(const struct fr_reader *r)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_RDLCK;        /* conflicts with the writer's F_WRLCK only */
	fl.l_whence = SEEK_SET;
	return !fcntl(r->fd, F_OFD_GETLK, &fl) && fl.l_type != F_UNLCK;
}

void fr_reader__close(struct fr_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_meta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	for (i = 0; i < r->nr_events; i++)
		event_free(&r->events[i]);
	for (i = 0; i < r->nr_streams; i++) {
		free(r->streams[i].chunks);
		free(r->streams[i].buf);
	}
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->cbuf);
	free(r->meta);
	free(r->events);
	free(r->stats);
	free(r->streams);
	fr_idmap__delete(r->ids);
	free(r->blobs);
	free(r->stream_slot);
	free(r->index_seen);
	free(r->damage.v);
	free(r);
}
