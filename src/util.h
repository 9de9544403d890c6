/* src/util.h: the small pieces every part of src/ shares and that depend on
 * nothing above base/: exit codes, messages, strict parsing of the numbers
 * users type (every number with an end pointer and a range check; sizes with
 * K/M/G suffixes), little-endian fields, saturated sums; fr_grow comes from base/grow.h.
 */
#ifndef FR_UTIL_H
#define FR_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

/* Exit codes of every command (doc/exit-codes.md, --help); subsystems that
 * run a whole command's work (the record loop, the report) return them too. */
enum {
	FR_EXIT_OK = 0,       /* done */
	FR_EXIT_PARTIAL = 1,  /* done, but something was lost or cut short (said on stderr) */
	FR_EXIT_ERROR = 2,    /* a runtime failure: I/O, no recorder, corrupt file */
	FR_EXIT_DENIED = 3,   /* the kernel or machine refuses: permission, no PMU */
	FR_EXIT_USAGE = 64,   /* bad option, number or event name */
};

/* Messages for the user. Code outside the front doors never prints: it hands
 * "<what>: <why>" errors and status lines to the sink the front door installs
 * (src/cli.c); without one they are dropped (tests, fuzzers, other tools). */
typedef void (*fr_msg_fn)(bool info, const char *what, const char *fmt, va_list ap);
void fr_msg__set_sink(fr_msg_fn fn);
void fr_err(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* s with every control byte (< 0x20, 0x7f: newline and tab too) as \xNN, so
 * a name from a file or the command line stays on its line and cannot drive
 * the terminal: messages (src/cli.c) and the lines of a report that quote a
 * name (its "#" header) both write names through it. */
void fr_text__put_escaped(FILE *f, const char *s);

/* Decimal unsigned integer in [min, max]. -EINVAL: not a number or trailing
 * junk; -ERANGE: out of range. */
int fr_parse__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A byte size: digits with an optional K, M or G (binary) and optional B/iB:
 * "4096", "4K", "4M", "1GiB". */
int fr_parse__size(const char *s, uint64_t *out);
/* -m: a page count ("256") or a size ("4M"), as data pages of page_size;
 * must come out a power of two in [1, max_pages]. */
int fr_parse__pages(const char *s, size_t page_size, size_t max_pages, size_t *out);
/* The same, but any count or size: rounded up to whole pages, then to a power
 * of two (as perf's -m does); -ERANGE when that exceeds max_pages. */
int fr_parse__pages_up(const char *s, size_t page_size, size_t max_pages, size_t *out);
/* A duration: a decimal number with a unit ns, us, ms, s, m or h (no unit:
 * seconds): "10s", "500ms", "1.5m". In [0, 7 days]; -EINVAL, -ERANGE. */
int fr_parse__duration(const char *s, uint64_t *ns);
/* A rate limit "N/DURATION": at most N (1..1000000) per DURATION (> 0). */
int fr_parse__rate(const char *s, uint64_t *n, uint64_t *period_ns);

/* The whole regular file at path into *buf (malloc'd, NUL after its *len
 * bytes): 0, -EFBIG past max bytes, -EINVAL not a regular file, -errno. */
int fr_file__slurp(const char *path, size_t max, char **buf, size_t *len);
/* A comma separated list of pids: "12,34". Allocates *out. */
int fr_parse__pids(const char *s, int **out, size_t *nr);

/* Little-endian fields of the file format and its blobs. */
static inline void fr_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void fr_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline uint32_t fr_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t fr_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* a + b, saturated at UINT64_MAX: how counts read from a file are summed
 * (a crafted file's counts must not wrap to a small total). */
static inline uint64_t fr_u64__sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif
