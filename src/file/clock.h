/* src/file/clock.h: the CLOCK_REALTIME <-> event clock (CLOCK_MONOTONIC)
 * pairs a file holds: taking one, its meta text, and the wall-clock offset a
 * reader uses (from the pairs, else the older realtime_offset_ns meta).
 */
#ifndef FR_FILE_CLOCK_H
#define FR_FILE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fr_reader;

/* Meta keys of the pairs (doc/format.md, "Clock pairs"): taken when the
 * recorder started, and when this file's meta (a snapshot's) was written. */
#define FR_META_CLOCK_START    "clock_pair_start"
#define FR_META_CLOCK_SNAPSHOT "clock_pair_snapshot"
#define FR_CLOCK_PAIR_TEXT 64   /* room for the meta text of a pair */

struct fr_clock_pair {
	uint64_t mono_ns;       /* the event clock, CLOCK_MONOTONIC */
	uint64_t real_ns;       /* CLOCK_REALTIME, ns since the epoch */
	uint64_t bracket_ns;    /* the two monotonic reads around it were this far apart */
};

/* Read MONOTONIC, REALTIME, MONOTONIC a few times; keep the try with the
 * smallest bracket, mono_ns its middle: 0 or -errno. */
int fr_clock__pair(struct fr_clock_pair *p);
/* The meta value of p: "MONO_NS REAL_NS BRACKET_NS" in decimal. */
void fr_clock__format(const struct fr_clock_pair *p, char *buf, size_t len);
/* Parse that text: 0, or -EINVAL (not three decimal numbers in range). */
int fr_clock__parse(const char *s, struct fr_clock_pair *p);

/* The recorder's one call per pair: write p (NULL: a pair taken now) as
 * meta key of w (FR_META_CLOCK_START, FR_META_CLOCK_SNAPSHOT): 0 or -errno. */
struct fr_writer;
int fr_clock__put_meta(struct fr_writer *w, const char *key, const struct fr_clock_pair *p);

/* How a reader turns event times into wall-clock times. */
struct fr_clock_ref {
	int64_t real_minus_mono;   /* realtime = event time + this */
	const char *source;        /* the meta key it came from */
};
/* From the snapshot pair, else the start pair, else realtime_offset_ns:
 * 0, or -ENOENT when the file has none of them (valid). */
int fr_clock__of_file(const struct fr_reader *rd, struct fr_clock_ref *out);
/* Event time t as wall-clock ns since the epoch (clamped at 0). */
uint64_t fr_clock__to_real(const struct fr_clock_ref *c, uint64_t t);
/* Wall-clock ns as event time: false when it is before the event clock's 0. */
bool fr_clock__to_mono(const struct fr_clock_ref *c, uint64_t real_ns, uint64_t *t);

#endif
