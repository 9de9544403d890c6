/* src/file/delta.h: the record coding of RECORDS chunks (doc/format.md §4,
 * "Record coding"): every body word in version 2, the first
 * FR_DELTA_HEAD_WORDS in version 3; shared by the writer and the reader.
 */
#ifndef FR_FILE_DELTA_H
#define FR_FILE_DELTA_H

#include <stddef.h>
#include <stdint.h>

/* A version-3 record's coding covers the first this many words of its body
 * (the sample's fixed fields); the rest (a callchain, a raw payload) stays
 * as written, where zstd finds its repeats. */
#define FR_DELTA_HEAD_WORDS 4u

/* The body words a file version codes: all of them (version 2), or the
 * first FR_DELTA_HEAD_WORDS (version 3 and later). */
static inline size_t fr_delta__words(uint32_t version)
{
	return version >= 3 ? FR_DELTA_HEAD_WORDS : SIZE_MAX;
}

/* Code len bytes of perf records (each size >= 8, a multiple of 8, the last
 * ending at len) from in into out (len bytes, not overlapping in), each
 * record's first `words` body words (fr_delta__words). Returns 0, or -EINVAL
 * when the records are not so laid out. */
int fr_delta__encode(const uint8_t *in, uint8_t *out, size_t len, size_t words);

/* Undo fr_delta__encode of the same `words` in place, checking each record's
 * size before its body is touched; *nr: the number of records. Returns 0 or
 * -EBADMSG. */
int fr_delta__decode(uint8_t *buf, size_t len, size_t words, uint64_t *nr);

#endif
