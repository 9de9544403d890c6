/* ring/ring.h: one perf ring buffer (forward or backward) and the protocol to read it.
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_RING_H
#define FR_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * The read protocol (what the kernel and this reader agree on)
 * ------------------------------------------------------------
 * The first page of a ring is struct perf_event_mmap_page; the data area of
 * 2^n pages follows it. The kernel publishes data_head after it has written a
 * record; the reader loads it with an acquire load (no read of the data may
 * be hoisted above it). A forward ring's reader stores data_tail with a
 * release store once it is done with the data (so the kernel cannot reuse the
 * space before the reads complete).
 *
 * Forward ring (mapped PROT_READ|PROT_WRITE, the sideband):
 *     fr_ring__read_init(r);                 acquire data_head
 *     while ((ev = fr_ring__read_event(r)))  records from data_tail to data_head, oldest first
 *             use(ev);                       valid until the next read_event
 *     fr_ring__read_done(r);                 release data_tail = where reading stopped
 *   A record whose body straddles the end of the buffer is copied into a
 *   64 KiB scratch buffer (header.size is a u16, so any record fits).
 *
 * Backward ring (write_backward=1, mapped PROT_READ only: the kernel overwrites):
 *   data_head counts down from 0; the newest record is at data_head & mask and
 *   older records follow it upward in memory ("rotated offset" 0 is the
 *   newest record). A snapshot streams it in bounded chunks straight from
 *   the mapped pages, with no copy of the whole ring:
 *     fr_ring__stream_prepare(r, chunk_max); once, on the copying thread
 *     fr_ring__stream_begin(r, chunk_max, &st);
 *       1. h1 = acquire data_head
 *       2. walk the headers from rotated offset 0 up to the bytes ever
 *          written (min(size, -h1)), noting a chunk bound every <= chunk_max
 *          bytes: size == 0 ends the written region (pages start zeroed); a
 *          header with size < 8, size not 8-aligned, or a type of 0 ends
 *          the walk (corruption, or the kernel overwriting it); a record
 *          that would reach past the written region is dropped
 *       3. h2 = acquire data_head; the kernel wrote d = h1 - h2 bytes
 *          meanwhile over the d oldest bytes of the h1 view; d >= size:
 *          nothing is trusted, walk again (three tries, then -EAGAIN)
 *     while (fr_ring__stream_next(r, &st, buf, &recs, &len, &nr) > 0)
 *             use(recs, len, nr);          whole records, oldest first
 *       each call takes the next chunk, OLDEST chunk first: copy its span,
 *       acquire data_head again, keep the records wholly inside the bytes
 *       still trusted (rotated offset + size <= size - (h1 - head)), drop
 *       the rest into st.raced, and hand the kept ones out oldest first
 *       (file order). Oldest first because the kernel overwrites the oldest
 *       end: what was copied before the kernel reached it is exact and stays
 *       in the stream; the trusted length only shrinks, and a header read
 *       during the walk counts only if the check of its chunk passes.
 *   Records are 8-byte aligned, so a header never straddles the end of the
 *   data area; a record body that does is copied in two pieces.
 *   A writer still inside perf_output (reserved, not yet published) is not
 *   visible in a later data_head, so each check must be exact by one of two
 *   means (ring/copy.h chooses per CPU):
 *   - pinned: begin and next run on the ring's own CPU. Writers run with
 *     preemption disabled, so user code on that CPU runs only when no writer
 *     of that CPU is mid-record: every write that began before a check has
 *     been published by then.
 *   - paused: PERF_EVENT_IOC_PAUSE_OUTPUT (fr_ring__pause), then a grace
 *     period (fr_ring__wait_writers: writers hold rcu_read_lock, so an RCU
 *     grace period outlasts every write that began before the pause), then
 *     the copy, then resume. The kernel counts records written meanwhile as
 *     lost. For CPUs the copier cannot run on; to keep the pause short the
 *     copier takes a clone (fr_ring__clone_new/_precopy unpaused,
 *     fr_ring__clone_copy paused) and streams the clone once the ring runs
 *     again.
 *   An unpinned, unpaused copy can hold torn records that pass every check:
 *   never take one.
 *
 * Backward ring read as it fills (a lapping read: --keep's readers, which
 * run neither pinned nor paused): fr_ring__read_init/_read_event/_read_done
 * as for a forward ring, records oldest first, but the kernel never waits
 * for the reader: a reader that falls behind loses the OLDEST of what it had
 * not read, never the newest.
 *   1. h1 = acquire data_head; n = since - h1 (since: h1 of the last read,
 *      0 at the start): the bytes written since the last read
 *   2. walk (step 2 above) at most the newest min(n, size - margin) bytes,
 *      where margin = min(4 x 64 KiB, size / 2) covers the records reserved
 *      but not yet published (one per nesting context: task, softirq, irq,
 *      NMI; at most 64 KiB each): data_head does not show them, and each
 *      overwrites bytes at the oldest end
 *   3. stream the walk oldest chunk first (step 3 above), each chunk's check
 *      trusting margin bytes less than data_head says: exact without a pin
 *   4. since = h1; the bytes of n not handed out (beyond the walk, or
 *      overwritten while copied) are lost: fr_ring__read_overwritten says
 *      how many, and how many records that is at the mean size of the
 *      records handed out so far (an estimate: the kernel counts none; a
 *      walk's own headers are not used, the oldest may be torn). Known
 *      after step 2 where records were handed out before, else after the
 *      read.
 */

struct fr_ring;

/* A ring over memory laid out as perf lays it out: base is the control page,
 * data follows at base + data_offset (or page size when data_offset is 0).
 * data_size must be a power of two. The ring does not own base. */
struct fr_ring *fr_ring__new(void *base, size_t data_size, bool backward);
/* mmap fd's ring: 1 + data_pages pages; backward maps PROT_READ only. */
int fr_ring__mmap(int fd, size_t data_pages, bool backward, struct fr_ring **out);
void fr_ring__delete(struct fr_ring *ring);

size_t fr_ring__data_size(const struct fr_ring *ring);
struct perf_event_mmap_page *fr_ring__control(const struct fr_ring *ring);

/* Forward reading (and a backward ring's lapping reads, above); read_init
 * returns -EAGAIN when there is nothing to read. */
int fr_ring__read_init(struct fr_ring *ring);
/* The next record or NULL at the end. On corruption (size < 8, unaligned,
 * larger than the readable region) returns NULL, sets *err to -EBADMSG if err
 * is given, and read_done then skips everything up to head. */
const struct perf_event_header *fr_ring__read_event(struct fr_ring *ring, int *err);
void fr_ring__read_done(struct fr_ring *ring);
/* A backward ring's lapping reads: bytes overwritten before the reader got
 * them since the last call, and the records that is (estimated, see above);
 * returns 1 when there were any. 0 on a forward ring. */
int fr_ring__read_overwritten(struct fr_ring *ring, uint64_t *bytes, uint64_t *records);

/* A backward ring's stream (the protocol above). */
struct fr_ring_stream {
	uint64_t head;        /* data_head at begin: the newest record streamed */
	uint64_t raced;       /* bytes of records overwritten before they were copied (dropped) */
	size_t nr, len;       /* records and bytes handed out so far */
	bool full;            /* older data was overwritten (the ring had wrapped, or raced) */
	size_t margin;        /* bytes at the oldest end never trusted (lapping reads) */
	bool corrupt;         /* the walk stopped at a malformed header */
	/* iterator state (ring.c's) */
	size_t chunk_max;
	size_t wend;          /* rotated offset where the walk stopped */
	size_t bad_at;        /* offset of the malformed header the walk met, or SIZE_MAX */
	size_t nb, next;      /* chunk bounds (owned by the ring); next counts down */
	const uint32_t *bounds;
	bool begun, done;
};

/* Smallest chunk_max: the largest record (64 KiB) must fit twice. */
#define FR_RING_CHUNK_MIN (128u * 1024u)

/* Start streaming: walk the written region (see above). Returns 0, -EINVAL
 * (forward ring, chunk_max < FR_RING_CHUNK_MIN), -ENOMEM, -EAGAIN. */
int fr_ring__stream_begin(struct fr_ring *ring, size_t chunk_max, struct fr_ring_stream *st);
/* Allocate the stream's buffers for chunk_max (a chunk, its offsets, the
 * bounds) and touch them, so that the first stream pays no page faults
 * (call it on the thread that will stream). 0, -EINVAL as begin, -ENOMEM. */
int fr_ring__stream_prepare(struct fr_ring *ring, size_t chunk_max);
/* A paused ring's clone, copied as live migration copies memory:
 * fr_ring__clone_new allocates (and faults in) a private ring of ring's size
 * with its stream buffers; fr_ring__clone_precopy, unpaused, copies ring's
 * written region to the same offsets (the first call), then only what the
 * kernel wrote since the previous call; fr_ring__clone_copy, with ring
 * paused and its writers done (fr_ring__wait_writers), copies the rest and
 * the head: the clone is then exactly the paused ring, and the pause lasted
 * one small copy instead of the whole region (reading another CPU's ring
 * runs at ~160 MB/s on the 2-CPU VM: 14 ms for 2.3 MB). Once ring resumes,
 * the clone is streamed with fr_ring__stream_begin/next, or a stream begun
 * on ring goes on on the clone. fr_ring__delete frees it. */
int fr_ring__clone_new(const struct fr_ring *ring, size_t chunk_max, struct fr_ring **clone);
void fr_ring__clone_precopy(struct fr_ring *ring, struct fr_ring *clone);
void fr_ring__clone_copy(struct fr_ring *ring, struct fr_ring *clone);
/* Copy the next chunk (oldest first) into buf (chunk_max bytes): *recs points
 * into buf at *len bytes of *nr whole records, oldest first. Returns 1 with a
 * chunk (*nr may be 0 when the kernel overwrote all of it), 0 at the end,
 * -EINVAL before begin. */
int fr_ring__stream_next(struct fr_ring *ring, struct fr_ring_stream *st, uint8_t *buf,
			 const uint8_t **recs, size_t *len, size_t *nr);

/* PERF_EVENT_IOC_PAUSE_OUTPUT on fd, the ring's leader: the ring buffer is
 * shared by every event SET_OUTPUT into it, so one ioctl pauses them all.
 * Returns 0 or -errno. */
int fr_ring__pause(struct fr_ring *ring, int fd, bool pause);
/* Wait until every perf writer that began before now has finished (an RCU
 * grace period through membarrier(MEMBARRIER_CMD_GLOBAL); a 2 ms sleep where
 * the kernel refuses it). */
void fr_ring__wait_writers(void);

#endif
