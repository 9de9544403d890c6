/* src/file/access.c: the opened reader's accessors: blobs (found by kind,
 * decoded on demand), meta, events, CPU stats, what could not be used, and
 * the damage log described.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/file/file.h"
#include "src/file/internal.h"
#include "src/file/reader.h"
#include "src/util.h"

/* The first blob of kind at or after it (binary search). */
static size_t blob_lower(const struct fr_reader *r, uint32_t kind, uint64_t *steps)
{
	size_t lo = 0, hi = r->nr_blobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		(*steps)++;
		if (r->blobs[mid].kind < kind)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t fr_reader__nr_blobs(const struct fr_reader *r, uint32_t kind)
{
	uint64_t steps = 0;
	size_t a = blob_lower(r, kind, &steps);

	return (kind == UINT32_MAX ? r->nr_blobs : blob_lower(r, kind + 1, &steps)) - a;
}

static struct blob_ref *find_blob(struct fr_reader *r, uint32_t kind, size_t i)
{
	size_t k = blob_lower(r, kind, &r->steps);

	return k + i < r->nr_blobs && r->blobs[k + i].kind == kind ? &r->blobs[k + i] : NULL;
}

void fr_reader__blob_damaged(struct fr_reader *r, uint32_t kind, size_t i, const char *why)
{
	struct blob_ref *b = find_blob(r, kind, i);

	if (b)
		fr_reader_note_damage(r, &b->ref, FR_CHUNK_BLOB, kind, 0, why, "skipped");
}

int fr_reader__blob(struct fr_reader *r, uint32_t kind, size_t i, void **data, size_t *len)
{
	struct blob_ref *b = find_blob(r, kind, i);

	if (b) {
		uint8_t *buf;
		int err;

		buf = malloc(b->ref.raw + 1);
		if (!buf)
			return -ENOMEM;
		err = fr_reader_decode_chunk(r, &b->ref, buf);
		if (err) {  /* it was good at open: the file changed since */
			fr_reader_note_damage(r, &b->ref, FR_CHUNK_BLOB, kind, 0, r->why, "skipped");
			free(buf);
			return err;
		}
		buf[b->ref.raw] = '\0';
		*data = buf;
		*len = b->ref.raw;
		return 0;
	}
	return -ENOENT;
}

bool fr_reader__truncated(const struct fr_reader *r)
{
	return r->truncated;
}

size_t fr_reader__nr_damaged(const struct fr_reader *r)
{
	return r->damage.total;
}

const struct fr_damage *fr_reader__damage(const struct fr_reader *r, size_t i)
{
	return i < r->damage.nr ? &r->damage.v[i] : NULL;
}

uint64_t fr_reader__unusable(const struct fr_reader *r, struct fr_unusable *out)
{
	if (out)
		*out = r->unusable;
	return fr_u64__sat_add(fr_u64__sat_add(r->unusable.no_event, r->unusable.bad_body),
			       r->unusable.bad_cpu);
}

uint64_t fr_reader__unknown_blobs(const struct fr_reader *r, uint32_t *kind)
{
	if (kind)
		*kind = r->unknown_kind;
	return r->unknown_blobs;
}

uint64_t fr_reader__index_steps(const struct fr_reader *r)
{
	return r->steps;
}

static const char *type_name(uint16_t type)
{
	static const char *names[] = { "?", "META", "EVENT", "RECORDS", "CPUSTAT", "END", "BLOB" };

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

void fr_damage__describe(const struct fr_damage *d, char *buf, size_t len)
{
	static const char *blobs[] = { "?", "KSYMS", "PROCS", "TRIGGER", "VDSO", "PERFMAP" };
	char what[48];

	if (!d->type)
		snprintf(what, sizeof(what), "header");
	else if (d->type == FR_CHUNK_BLOB)
		snprintf(what, sizeof(what), "BLOB %s", d->kind < sizeof(blobs) / sizeof(blobs[0]) ? blobs[d->kind] : "unknown");
	else if (d->type == FR_CHUNK_RECORDS && d->cpu == FR_CPU_NONE)
		snprintf(what, sizeof(what), "RECORDS %s, synthesized",
			 d->kind == FR_STREAM_SIDEBAND ? "sideband" : "samples");
	else if (d->type == FR_CHUNK_RECORDS)
		snprintf(what, sizeof(what), "RECORDS %s, cpu %u",
			 d->kind == FR_STREAM_SIDEBAND ? "sideband" : "samples", d->cpu);
	else
		snprintf(what, sizeof(what), "%s", type_name(d->type));
	snprintf(buf, len, "chunk %llu (%s) at offset %llu: %s (%s)", (unsigned long long)d->chunk,
		 what, (unsigned long long)d->offset, d->why, d->action);
}

const char *fr_reader__meta(const struct fr_reader *r, const char *key)
{
	size_t i;

	for (i = r->nr_meta; i-- > 0;)  /* the last value wins */
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

size_t fr_reader__nr_events(const struct fr_reader *r)
{
	return r->nr_events;
}

const struct fr_file_event *fr_reader__event(const struct fr_reader *r, size_t i)
{
	return i < r->nr_events ? &r->events[i] : NULL;
}

size_t fr_reader__nr_cpu_stats(const struct fr_reader *r)
{
	return r->nr_stats;
}

const struct fr_cpu_stat *fr_reader__cpu_stat(const struct fr_reader *r, size_t i)
{
	return i < r->nr_stats ? &r->stats[i] : NULL;
}
