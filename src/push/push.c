/* src/push/push.c: one HTTP POST per call through a reused libcurl handle
 * (headers, gzip by zlib, timeouts, no redirects), what the answer means
 * (2xx, retry, refused), Retry-After and backoff, and the headers file.
 */
#include "config.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/grow.h"
#include "src/push/push.h"

#define HEADER_MAX 8192                /* one "Name: value" line */
#define NAME_MAX_LEN 128
#define HEADERS_FILE_MAX (64 * 1024)
#define RETRY_AFTER_MAX_S 86400u       /* a day: any longer is capped */
#define RESPONSE_BODY_MAX (1u << 20)   /* read and dropped; more stops the transfer */
#define DEFAULT_TIMEOUT_MS 10000u
#define CONNECT_TIMEOUT_MS 5000u

struct fr_pusher {
	CURL *curl;
	struct curl_slist *hdrs;
	bool gzip;
	/* the answer being read: the callbacks fill it */
	char reason[96];
	char retry_after[64];
	size_t body_seen;
	bool body_capped;
	char errbuf[CURL_ERROR_SIZE];
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static bool is_tchar(unsigned char c)
{
	/* ASCII only, whatever the locale */
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

int fr_push__check_header(const char *line)
{
	size_t n = 0, len;
	const unsigned char *v;

	if (!line)
		return -EINVAL;
	len = strnlen(line, HEADER_MAX + 1);
	if (len > HEADER_MAX)
		return -EINVAL;
	while (n < len && is_tchar((unsigned char)line[n]))
		n++;
	if (n == 0 || n > NAME_MAX_LEN || line[n] != ':')
		return -EINVAL;
	v = (const unsigned char *)line + n + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	/* an empty value would make curl drop the header it names */
	if (!*v)
		return -EINVAL;
	for (; *v; v++)
		if ((*v < 0x20 && *v != '\t') || *v == 0x7f)
			return -EINVAL;
	return 0;
}

unsigned fr_push__backoff_ms(unsigned attempt, unsigned retry_after_ms, unsigned max_ms)
{
	unsigned long long v;

	if (retry_after_ms)
		return retry_after_ms < max_ms ? retry_after_ms : max_ms;
	if (attempt < 1)
		attempt = 1;
	if (attempt - 1 >= 32)
		return max_ms;
	v = 1000ull << (attempt - 1);
	return v < max_ms ? (unsigned)v : max_ms;
}

unsigned fr_push__parse_retry_after(const char *value, long long now)
{
	unsigned long long sec;
	long long t;
	char *end;

	if (!value || strnlen(value, 128) == 128)
		return 0;
	value += strspn(value, " \t");
	if (isdigit((unsigned char)*value)) {
		errno = 0;
		sec = strtoull(value, &end, 10);
		if (end[strspn(end, " \t")])
			return 0;
		if (errno == ERANGE || sec > RETRY_AFTER_MAX_S)
			sec = RETRY_AFTER_MAX_S;
		return (unsigned)sec * 1000u;
	}
	/* IMF-fixdate, RFC 850 or asctime: curl_getdate reads all three */
	t = *value ? (long long)curl_getdate(value, NULL) : -1;
	if (t < 0 || t <= now)
		return 0;
	return t - now > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S * 1000u : (unsigned)(t - now) * 1000u;
}

/* A copy of len bytes from the server, one printable ASCII line. */
static void copy_clean(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = 0;

	while (len && (src[len - 1] == '\r' || src[len - 1] == '\n' ||
		       src[len - 1] == ' ' || src[len - 1] == '\t'))
		len--;
	for (size_t i = 0; i < len && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[n++] = c < 0x20 ? ' ' : c >= 0x7f ? '?' : (char)c;
	}
	dst[n] = '\0';
}

static size_t on_header(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct fr_pusher *p = arg;
	size_t len = size * nmemb;
	static const char ra[] = "retry-after:";

	if (len >= 5 && !memcmp(buf, "HTTP/", 5)) {
		/* a status line: "HTTP/1.1 503 Service Unavailable" (a new answer) */
		size_t i = 5;

		p->reason[0] = p->retry_after[0] = '\0';
		while (i < len && buf[i] != ' ')
			i++;
		while (i < len && buf[i] == ' ')
			i++;
		while (i < len && isdigit((unsigned char)buf[i]))
			i++;
		while (i < len && buf[i] == ' ')
			i++;
		copy_clean(p->reason, sizeof(p->reason), buf + i, len - i);
	} else if (len > sizeof(ra) - 1 && !strncasecmp(buf, ra, sizeof(ra) - 1)) {
		size_t i = sizeof(ra) - 1;

		while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		/* one too long to be a number or a date is none */
		if (len - i < sizeof(p->retry_after))
			copy_clean(p->retry_after, sizeof(p->retry_after), buf + i, len - i);
		else
			p->retry_after[0] = '\0';
	}
	return len;
}

static size_t on_body(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct fr_pusher *p = arg;
	size_t len = size * nmemb;

	(void)buf;
	if (len > RESPONSE_BODY_MAX - p->body_seen) {
		p->body_capped = true;
		return 0;
	}
	p->body_seen += len;
	return len;
}

void fr_pusher__delete(struct fr_pusher *p)
{
	if (!p)
		return;
	if (p->curl)
		curl_easy_cleanup(p->curl);
	curl_slist_free_all(p->hdrs);
	free(p);
}

static int url_ok(const char *url)
{
	CURLU *u;
	CURLUcode uc;

	if (!url || strnlen(url, HEADER_MAX + 1) > HEADER_MAX ||
	    (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)))
		return -EINVAL;
	u = curl_url();
	if (!u)
		return -ENOMEM;
	uc = curl_url_set(u, CURLUPART_URL, url, 0);
	curl_url_cleanup(u);
	return uc == CURLUE_OK ? 0 : uc == CURLUE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
}

int fr_pusher__new(const struct fr_push_opts *o, struct fr_pusher **out)
{
	char ct[HEADER_MAX + 16];
	/* no "Expect: 100-continue" and its wait */
	const char *ours[] = { ct, "Expect:", o && o->gzip ? "Content-Encoding: gzip" : NULL };
	const size_t nr_ours = sizeof(ours) / sizeof(ours[0]);
	unsigned timeout;
	struct fr_pusher *p;
	CURLcode c = CURLE_OK;
	int err;

	if (!o || !out || (o->nr_headers && !o->headers))
		return -EINVAL;
	*out = NULL;
	err = url_ok(o->url);
	if (err)
		return err;
	for (size_t i = 0; i < o->nr_headers; i++)
		if (fr_push__check_header(o->headers[i]))
			return -EINVAL;
	snprintf(ct, sizeof(ct), "Content-Type: %s",
		 o->content_type ? o->content_type : "application/x-protobuf");
	if (fr_push__check_header(ct))
		return -EINVAL;
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->curl = curl_easy_init())) {
		fr_pusher__delete(p);
		return -ENOMEM;
	}
	p->gzip = o->gzip;
	for (size_t i = 0; i < nr_ours + o->nr_headers; i++) {
		const char *h = i < nr_ours ? ours[i] : o->headers[i - nr_ours];
		struct curl_slist *l = h ? curl_slist_append(p->hdrs, h) : p->hdrs;

		if (!l) {
			fr_pusher__delete(p);
			return -ENOMEM;
		}
		p->hdrs = l;
	}
	timeout = o->timeout_ms ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
#define SET(opt, val) do { if (c == CURLE_OK) c = curl_easy_setopt(p->curl, opt, val); } while (0)
	SET(CURLOPT_URL, o->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
	SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_TIMEOUT_MS, (long)timeout);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout < CONNECT_TIMEOUT_MS ? timeout : CONNECT_TIMEOUT_MS));
	SET(CURLOPT_HTTPHEADER, p->hdrs);
	SET(CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	SET(CURLOPT_POST, 1L);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, p);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, p);
	SET(CURLOPT_ERRORBUFFER, p->errbuf);
#undef SET
	if (c != CURLE_OK) {
		fr_pusher__delete(p);
		return c == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
	}
	*out = p;
	return 0;
}

/* body gzipped into a malloc'd *out (zlib counts in uInt: 1 GiB at a time) */
static int gzip_body(const void *body, size_t len, unsigned char **out, size_t *out_len)
{
	const size_t chunk = 1u << 30;
	const unsigned char *in = body;
	size_t left = len, cap;
	unsigned char *buf;
	z_stream z = { 0 };
	int zr = Z_OK;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len);
	buf = malloc(cap);
	z.next_out = buf;
	while (buf && zr != Z_STREAM_END) {
		size_t room = cap - (size_t)(z.next_out - buf);

		if (!z.avail_in && left) {
			z.next_in = (unsigned char *)in;
			z.avail_in = (uInt)(left < chunk ? left : chunk);
			in += z.avail_in;
			left -= z.avail_in;
		}
		z.avail_out = (uInt)(room < chunk ? room : chunk);
		zr = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
		if ((zr != Z_OK && zr != Z_BUF_ERROR && zr != Z_STREAM_END) || !room) {
			free(buf);
			buf = NULL;
		}
	}
	*out_len = buf ? (size_t)(z.next_out - buf) : 0;
	*out = buf;
	deflateEnd(&z);
	return buf ? 0 : -ENOMEM;
}

static void set_why(struct fr_push_result *r, const char *why)
{
	copy_clean(r->why, sizeof(r->why), why, strlen(why));
}

int fr_pusher__post(struct fr_pusher *p, const void *body, size_t len, struct fr_push_result *r)
{
	unsigned char *gz = NULL;
	const void *send = body ? body : "";
	size_t send_len = len;
	long status = 0;
	CURLcode c;
	int err;

	if (!r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if (!p || (!body && len)) {
		set_why(r, "invalid arguments");
		return -EINVAL;
	}
	if (p->gzip) {
		err = gzip_body(send, len, &gz, &send_len);
		if (err) {
			set_why(r, "gzip: out of memory");
			return err;
		}
		send = gz;
	}
	p->reason[0] = p->retry_after[0] = p->errbuf[0] = '\0';
	p->body_seen = 0;
	p->body_capped = false;
	c = curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)send_len);
	if (c == CURLE_OK)
		c = curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, send);
	if (c == CURLE_OK)
		c = curl_easy_perform(p->curl);
	/* a body past the cap stops the transfer, the status stands */
	if (c == CURLE_WRITE_ERROR && p->body_capped)
		c = CURLE_OK;
	if (c == CURLE_OK && curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK)
		status = 0;
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, NULL);
	free(gz);
	if (c != CURLE_OK || status <= 0) {
		r->retry = c != CURLE_OUT_OF_MEMORY;
		set_why(r, p->errbuf[0] ? p->errbuf :
			c != CURLE_OK ? curl_easy_strerror(c) : "no HTTP status in the answer");
		return c == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EAGAIN;
	}
	r->status = status;
	/* the reason is clean already (on_header) */
	snprintf(r->why, sizeof(r->why), "HTTP %ld%s%s", status, p->reason[0] ? " " : "", p->reason);
	if (status >= 200 && status < 300)
		return 0;
	if (status == 408 || status == 429 || (status >= 500 && status < 600)) {
		r->retry = true;
		r->retry_after_ms = fr_push__parse_retry_after(p->retry_after, (long long)time(NULL));
		return -EAGAIN;
	}
	return -EPROTO;
}

static void free_lines(char **lines, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(lines[i]);
	free(lines);
}

/* the lines of text (len bytes) into *lines */
static int split_lines(char *text, size_t len, char ***lines, size_t *nr, size_t *bad_line)
{
	char **arr = NULL;
	size_t cap = 0, n = 0, lineno = 0;
	char *s = text, *end = text + len;

	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *e = nl ? nl : end, *t = s;
		size_t l;

		lineno++;
		while (e > s && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		l = (size_t)(e - s);
		while (t < e && (*t == ' ' || *t == '\t'))
			t++;
		if (t < e && *t != '#') {
			if (memchr(s, '\0', l))
				goto bad;
			*e = '\0';
			if (fr_push__check_header(s))
				goto bad;
			if (fr_grow(&arr, &cap, n + 1, sizeof(*arr), 8) || !(arr[n] = strdup(s))) {
				free_lines(arr, n);
				return -ENOMEM;
			}
			n++;
		}
		s = nl ? nl + 1 : end;
	}
	*lines = arr;
	*nr = n;
	return 0;
bad:
	free_lines(arr, n);
	if (bad_line)
		*bad_line = lineno;
	return -EINVAL;
}

int fr_push__read_headers(const char *path, char ***lines, size_t *nr, size_t *bad_line)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int fd, err = 0;

	*lines = NULL;
	*nr = 0;
	if (bad_line)
		*bad_line = 0;
	/* O_NONBLOCK: a FIFO must not hang the open (it is refused below) */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode) || (st.st_mode & 077))
		err = -EPERM;
	else if (st.st_size > HEADERS_FILE_MAX)
		err = -EFBIG;
	else if (!(text = malloc(HEADERS_FILE_MAX + 1)))
		err = -ENOMEM;
	/* to the end: the file may have grown since fstat */
	while (!err) {
		ssize_t n = read(fd, text + len, HEADERS_FILE_MAX + 1 - len);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n == 0)
			break;
		else if (n > 0 && (len += (size_t)n) > HEADERS_FILE_MAX)
			err = -EFBIG;
	}
	close(fd);
	if (!err)
		err = split_lines(text, len, lines, nr, bad_line);
	free(text);
	return err;
}
