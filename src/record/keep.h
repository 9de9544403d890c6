/* src/record/keep.h: record --keep's window in user memory: per-CPU rings of
 * whole compressed RECORDS chunks (as the file holds them), the oldest
 * dropped beyond a duration or a total size, with what each dropped chunk
 * held (records, losses) counted. Needs no kernel: tests/keep/ drives it.
 */
#ifndef FR_KEEP_H
#define FR_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fr_keep;

/* One kept chunk: its bytes and what the reader saw in it. */
struct fr_keep_chunk {
	const void *data;          /* chunk header + zstd frame */
	size_t len;
	uint64_t first_ns, last_ns; /* oldest and newest record time (0: none) */
	uint64_t nr_records;
	uint64_t lost;             /* counts of the PERF_RECORD_LOST records it holds */
};

/* Per CPU: what is held, what was dropped. */
struct fr_keep_cpu {
	uint64_t chunks, bytes, records, lost;                 /* held now */
	uint64_t evicted_chunks, evicted_records, evicted_lost; /* dropped so far */
	uint64_t evicted_by_size;  /* of those chunks, dropped because SIZE was full */
	uint64_t oldest_ns;        /* first_ns of the oldest chunk held (0: none) */
};

/* ncpu rings sharing one budget: chunks whose newest record is older than
 * the newest record of any CPU minus duration_ns go (0: no time limit), and
 * the oldest chunks (by newest record, across CPUs) go while more than
 * max_bytes are held. The chunk just added always stays. */
int fr_keep__new(size_t ncpu, uint64_t duration_ns, uint64_t max_bytes, struct fr_keep **out);
void fr_keep__delete(struct fr_keep *k);
/* Copy a chunk into CPU ci's ring (thread-safe; one writer per CPU), then
 * evict. -ENOMEM: not kept (the caller counts it lost). */
int fr_keep__add(struct fr_keep *k, size_t ci, const struct fr_keep_chunk *c);
void fr_keep__cpu(struct fr_keep *k, size_t ci, struct fr_keep_cpu *out);
/* Every CPU's time floor: the oldest time all CPUs that dropped chunks still
 * hold; 0 if no CPU dropped any (the window reaches back to the start). */
uint64_t fr_keep__floor(struct fr_keep *k);
/* Total bytes held. */
uint64_t fr_keep__bytes(struct fr_keep *k);

/* A snapshot's view: the chunks held now, per CPU oldest first. While a view
 * is held, chunks evicted meanwhile are freed only when it is released
 * (adding never waits for a snapshot's write). */
struct fr_keep_view;
int fr_keep__view(struct fr_keep *k, struct fr_keep_view **out);
size_t fr_keep_view__nr(const struct fr_keep_view *v, size_t ci);
const struct fr_keep_chunk *fr_keep_view__chunk(const struct fr_keep_view *v, size_t ci, size_t i);
void fr_keep_view__release(struct fr_keep *k, struct fr_keep_view *v);

#endif
