/* src/push/push.h: delivering bytes to an OTLP/HTTP endpoint: one POST
 * (libcurl) with its headers, optional gzip and a timeout, and what an
 * answer means for the next attempt (429/503/Retry-After, backoff). Knows
 * nothing of flightrec files or of OTLP: the caller gives the body.
 *
 * May include: base/, src/util.h, libcurl, zlib. Never: src/report/,
 * src/record/. Returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_PUSH_H
#define FR_PUSH_H

#include <stdbool.h>
#include <stddef.h>

struct fr_push_opts {
	const char *url;                 /* http:// or https:// */
	const char *const *headers;      /* "Name: value" lines (fr_push__check_header) */
	size_t nr_headers;
	const char *content_type;        /* NULL: "application/x-protobuf" */
	bool gzip;                       /* body gzipped, Content-Encoding: gzip */
	unsigned timeout_ms;             /* the whole request; 0: 10000 */
};

/* What one POST came to. */
struct fr_push_result {
	long status;                     /* the HTTP status, 0: no answer */
	bool retry;                      /* worth trying again: no answer, a timeout, 408, 429, 5xx */
	unsigned retry_after_ms;         /* the answer's Retry-After (seconds or an HTTP date), 0: none */
	char why[256];                   /* one line: "HTTP 503 Service Unavailable", curl's error text */
};

struct fr_pusher;

/* A pusher for o (copied: o's strings may go after the call). -EINVAL for a
 * URL that is not http(s):// or a bad header, -ENOMEM. */
int fr_pusher__new(const struct fr_push_opts *o, struct fr_pusher **out);
void fr_pusher__delete(struct fr_pusher *p);
/* POST body (len bytes). 0: a 2xx answer. -EAGAIN: failed, worth a retry
 * (r says why and when). -EPROTO: refused for good (another 4xx, a 3xx).
 * -ENOMEM. r is always filled. */
int fr_pusher__post(struct fr_pusher *p, const void *body, size_t len, struct fr_push_result *r);

/* The wait before retry number attempt (1: the first retry): retry_after_ms
 * when the answer gave one, else 1 s doubled per attempt; at most max_ms. */
unsigned fr_push__backoff_ms(unsigned attempt, unsigned retry_after_ms, unsigned max_ms);
/* line is "Name: value": a token name (1 to 128 bytes), a non-empty value
 * without CR, LF, NUL or other control bytes but tab (an empty one would make
 * curl drop the header), 8192 bytes in all. 0 or -EINVAL. */
int fr_push__check_header(const char *line);
/* The header lines of a file ("Name: value" per line; blank lines and lines
 * starting with '#' skipped), which must be a regular file that neither
 * group nor others can read or write (-EPERM; a symlink: -ELOOP), of 64 KiB
 * at most (-EFBIG), each line checked (-EINVAL, *bad_line: its number, from
 * 1). *lines: malloc'd strings in a malloc'd array (NULL when none), freed
 * by the caller; nothing is left allocated on an error. */
int fr_push__read_headers(const char *path, char ***lines, size_t *nr, size_t *bad_line);
/* The value of a Retry-After header: delta-seconds or an HTTP date (now:
 * the current time, seconds since the epoch), in ms, at most a day; 0 when
 * unparsable or past. */
unsigned fr_push__parse_retry_after(const char *value, long long now);

#endif
