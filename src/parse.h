/* src/parse.h: strict parsing of the numbers users type: every number with an
 * end pointer and a range check; sizes with K/M/G suffixes; pages or sizes for -m.
 */
#ifndef FR_PARSE_H
#define FR_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Decimal unsigned integer in [min, max]. -EINVAL: not a number or trailing
 * junk; -ERANGE: out of range. */
int fr_parse__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A byte size: digits with an optional K, M or G (binary) and optional B/iB:
 * "4096", "4K", "4M", "1GiB". */
int fr_parse__size(const char *s, uint64_t *out);
/* -m: a page count ("256") or a size ("4M"), as data pages of page_size;
 * must come out a power of two in [1, max_pages]. */
int fr_parse__pages(const char *s, size_t page_size, size_t max_pages, size_t *out);
/* A duration: a decimal number with a unit ns, us, ms, s, m or h (no unit:
 * seconds): "10s", "500ms", "1.5m". In [0, 7 days]; -EINVAL, -ERANGE. */
int fr_parse__duration(const char *s, uint64_t *ns);
/* A rate limit "N/DURATION": at most N (1..1000000) per DURATION (> 0). */
int fr_parse__rate(const char *s, uint64_t *n, uint64_t *period_ns);
/* A comma separated list of pids: "12,34". Allocates *out. */
int fr_parse__pids(const char *s, int **out, size_t *nr);

#endif
