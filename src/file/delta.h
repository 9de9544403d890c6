/* src/file/delta.h: the record coding of version-2 RECORDS chunks
 * (doc/format.md §4, "Record coding"), shared by the writer and the reader.
 */
#ifndef FR_FILE_DELTA_H
#define FR_FILE_DELTA_H

#include <stddef.h>
#include <stdint.h>

/* Code len bytes of perf records (each size >= 8, a multiple of 8, the last
 * ending at len) from in into out (len bytes, not overlapping in).
 * Returns 0, or -EINVAL when the records are not so laid out. */
int fr_delta__encode(const uint8_t *in, uint8_t *out, size_t len);

/* Undo fr_delta__encode in place, checking each record's size before its
 * body is touched; *nr: the number of records. Returns 0 or -EBADMSG. */
int fr_delta__decode(uint8_t *buf, size_t len, uint64_t *nr);

#endif
