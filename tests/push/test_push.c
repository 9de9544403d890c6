/* tests/push/test_push.c: the OTLP/HTTP push (src/push/push.c): header
 * lines and the headers file, Retry-After and backoff, and real POSTs to a
 * loopback HTTP server run in a thread here: 2xx, 503 with Retry-After, 400,
 * gzip, a refused connection, a server that never answers, hostile answers.
 */
#include "config.h"

#include "tests/cunit.h"
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "src/push/push.h"

/* --- header lines, Retry-After, backoff --- */

static void test_check_header(void)
{
	char big[9000];

	CU_ASSERT_EQUAL(fr_push__check_header("Authorization: Bearer abc.def"), 0);
	CU_ASSERT_EQUAL(fr_push__check_header("X-A:b"), 0);
	CU_ASSERT_EQUAL(fr_push__check_header("a!#$%&'*+-.^_`|~9: v"), 0);
	CU_ASSERT_EQUAL(fr_push__check_header("X: a \t b"), 0);
	CU_ASSERT_EQUAL(fr_push__check_header("X: caf\xc3\xa9"), 0);
	CU_ASSERT_EQUAL(fr_push__check_header(""), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header(NULL), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header(": v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X : v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header(" X: v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("Bad Name: v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X(y): v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X\"y: v"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X\xc3\xa9: v"), -EINVAL);
	/* injection: a second header or a body smuggled in */
	CU_ASSERT_EQUAL(fr_push__check_header("X: a\r\nEvil: 1"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X: a\nEvil: 1"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X: a\r"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X: a\r\n\r\nbody"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X: \x01"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X: \x7f"), -EINVAL);
	/* an empty value (curl would drop the header it names) */
	CU_ASSERT_EQUAL(fr_push__check_header("X:"), -EINVAL);
	CU_ASSERT_EQUAL(fr_push__check_header("X:  \t"), -EINVAL);
	/* lengths: a name of 128 is fine, 129 is not; the line at most 8192 */
	memset(big, 'n', 129);
	strcpy(big + 129, ": v");
	CU_ASSERT_EQUAL(fr_push__check_header(big), -EINVAL);
	strcpy(big + 128, ": v");
	CU_ASSERT_EQUAL(fr_push__check_header(big), 0);
	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "X: ", 3);
	big[8192] = '\0';
	CU_ASSERT_EQUAL(fr_push__check_header(big), 0);
	big[8192] = 'v';
	big[8193] = '\0';
	CU_ASSERT_EQUAL(fr_push__check_header(big), -EINVAL);
}

static void test_retry_after(void)
{
	const long long now = 1700000000;  /* Tue, 14 Nov 2023 22:13:20 GMT */

	CU_ASSERT_EQUAL(fr_push__parse_retry_after("120", now), 120000);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after(" 5 ", now), 5000);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("0", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("-1", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("+1", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("abc", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("12abc", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("1.5", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after(NULL, now), 0);
	/* huge: capped at a day, never wrapped */
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("99999999999999999999", now), 86400000);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("4294968", now), 86400000);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("86400", now), 86400000);
	/* HTTP dates, 30 s after now: IMF-fixdate, RFC 850, asctime */
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Tue, 14 Nov 2023 22:13:50 GMT", now), 30000);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Tuesday, 14-Nov-23 22:13:50 GMT", now), 30000);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Tue Nov 14 22:13:50 2023", now), 30000);
	/* past, now, far ahead */
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Tue, 14 Nov 2023 22:13:00 GMT", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Tue, 14 Nov 2023 22:13:20 GMT", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT", now), 0);
	CU_ASSERT_EQUAL(fr_push__parse_retry_after("Fri, 17 Nov 2023 22:13:20 GMT", now), 86400000);
}

static void test_backoff(void)
{
	static const unsigned want[] = { 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000 };

	for (unsigned a = 1; a <= 10; a++)
		CU_ASSERT_EQUAL(fr_push__backoff_ms(a, 0, 60000), want[a - 1]);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(0, 0, 60000), 1000);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(33, 0, 60000), 60000);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(100, 0, UINT_MAX), UINT_MAX);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(UINT_MAX, 0, UINT_MAX), UINT_MAX);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(24, 0, UINT_MAX), UINT_MAX);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(23, 0, UINT_MAX), 1000u << 22);
	/* Retry-After wins, capped too */
	CU_ASSERT_EQUAL(fr_push__backoff_ms(1, 5000, 60000), 5000);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(9, 5000, 60000), 5000);
	CU_ASSERT_EQUAL(fr_push__backoff_ms(1, 120000, 60000), 60000);
}

/* --- the headers file --- */

static char dir[64];

static const char *put_file(const char *name, const char *text, size_t len, mode_t mode)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(text, 1, len, f) == len);
	fclose(f);
	CU_ASSERT_FATAL(chmod(path, mode) == 0);
	return path;
}

static void free_lines(char **lines, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(lines[i]);
	free(lines);
}

static void test_read_headers(void)
{
	static const char good[] = "# the collector's keys\n\nAuthorization: Bearer abc\r\n  \r\n"
				   "  # indented comment\nX-Scope-OrgID: tenant-1   \n#x\nDD-API-KEY:k";
	static const char bad[] = "A: b\n\n# c\nBad Header: x\nC: d\n";
	static const char crlf_inject[] = "A: b\nB: c\rEvil: 1\n";
	static const char nul[] = "A: b\nB: c\0d\n";
	char **lines = (char **)1, path2[160], *big;
	size_t nr = 99, bad_line = 99;
	const char *path;

	snprintf(dir, sizeof(dir), "/tmp/fr-push-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	path = put_file("h", good, sizeof(good) - 1, 0600);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), 0);
	CU_ASSERT_EQUAL(bad_line, 0);
	CU_ASSERT_EQUAL_FATAL(nr, 3);
	CU_ASSERT_STRING_EQUAL(lines[0], "Authorization: Bearer abc");
	CU_ASSERT_STRING_EQUAL(lines[1], "X-Scope-OrgID: tenant-1");
	CU_ASSERT_STRING_EQUAL(lines[2], "DD-API-KEY:k");
	free_lines(lines, nr);
	/* group or others may read or write it: refused */
	CU_ASSERT_FATAL(chmod(path, 0644) == 0);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), -EPERM);
	CU_ASSERT_PTR_NULL(lines);
	CU_ASSERT_EQUAL(nr, 0);
	CU_ASSERT_FATAL(chmod(path, 0602) == 0);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), -EPERM);
	CU_ASSERT_FATAL(chmod(path, 0400) == 0);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), 0);
	free_lines(lines, nr);
	/* a symlink to it: refused (O_NOFOLLOW), a directory: not a regular file */
	snprintf(path2, sizeof(path2), "%s/link", dir);
	CU_ASSERT_FATAL(symlink(path, path2) == 0);
	CU_ASSERT_EQUAL(fr_push__read_headers(path2, &lines, &nr, &bad_line), -ELOOP);
	CU_ASSERT_EQUAL(fr_push__read_headers(dir, &lines, &nr, &bad_line), -EPERM);
	snprintf(path2, sizeof(path2), "%s/fifo", dir);
	CU_ASSERT_FATAL(mkfifo(path2, 0600) == 0);
	CU_ASSERT_EQUAL(fr_push__read_headers(path2, &lines, &nr, &bad_line), -EPERM);
	snprintf(path2, sizeof(path2), "%s/none", dir);
	CU_ASSERT_EQUAL(fr_push__read_headers(path2, &lines, &nr, &bad_line), -ENOENT);
	/* bad lines: -EINVAL and which one (1-based, blank and comments counted) */
	path = put_file("bad", bad, sizeof(bad) - 1, 0600);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), -EINVAL);
	CU_ASSERT_EQUAL(bad_line, 4);
	CU_ASSERT_PTR_NULL(lines);
	CU_ASSERT_EQUAL(nr, 0);
	path = put_file("inject", crlf_inject, sizeof(crlf_inject) - 1, 0600);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), -EINVAL);
	CU_ASSERT_EQUAL(bad_line, 2);
	path = put_file("nul", nul, sizeof(nul) - 1, 0600);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, NULL), -EINVAL);
	/* empty: no lines */
	path = put_file("empty", "", 0, 0600);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), 0);
	CU_ASSERT_EQUAL(nr, 0);
	free_lines(lines, nr);
	/* over 64 KiB */
	big = malloc(70000);
	CU_ASSERT_FATAL(big != NULL);
	memset(big, '#', 70000);
	path = put_file("big", big, 70000, 0600);
	CU_ASSERT_EQUAL(fr_push__read_headers(path, &lines, &nr, &bad_line), -EFBIG);
	free(big);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CU_ASSERT(system(cmd) == 0);
	}
}

/* --- a loopback HTTP server: one connection, one request --- */

struct srv {
	int lfd, port;
	const char *reply;       /* the whole answer; NULL: never answers */
	pthread_t th;
	/* what it received */
	char *head;              /* the request line and headers, NUL-terminated */
	unsigned char *body;
	size_t body_len;
	bool got;
};

static void *serve(void *arg)
{
	struct srv *s = arg;
	struct pollfd pfd = { .fd = s->lfd, .events = POLLIN };
	struct timeval tv = { .tv_sec = 10 };
	size_t cap = 4u << 20, len = 0, head_len = 0, clen = 0;
	char *buf = malloc(cap + 1), *end = NULL, *cl;
	int c;

	if (!buf || poll(&pfd, 1, 10000) != 1)
		goto out_buf;
	c = accept(s->lfd, NULL, NULL);
	if (c < 0)
		goto out_buf;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!end) {
		ssize_t n = read(c, buf + len, cap - len);

		if (n <= 0)
			goto out;
		len += (size_t)n;
		buf[len] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	head_len = (size_t)(end + 4 - buf);
	cl = strcasestr(buf, "\r\ncontent-length:");
	if (cl && cl < end)
		clen = strtoul(cl + 17, NULL, 10);
	while (len < head_len + clen && len < cap) {
		ssize_t n = read(c, buf + len, cap - len);

		if (n <= 0)
			goto out;
		len += (size_t)n;
	}
	s->head = strndup(buf, head_len);
	s->body_len = len - head_len;
	s->body = malloc(s->body_len + 1);
	if (s->body)
		memcpy(s->body, buf + head_len, s->body_len);
	s->got = true;
	if (s->reply) {
		send(c, s->reply, strlen(s->reply), MSG_NOSIGNAL);
	} else {
		/* never answer: wait for the client to give up */
		while (read(c, buf, cap) > 0)
			;
	}
out:
	close(c);
out_buf:
	free(buf);
	return NULL;
}

static int listen_loopback(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
	CU_ASSERT_FATAL(listen(fd, 4) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void srv_start(struct srv *s, const char *reply)
{
	memset(s, 0, sizeof(*s));
	s->reply = reply;
	s->lfd = listen_loopback(&s->port);
	CU_ASSERT_FATAL(pthread_create(&s->th, NULL, serve, s) == 0);
}

/* after its one connection; what it received stays until srv_free */
static void srv_stop(struct srv *s)
{
	pthread_join(s->th, NULL);
	close(s->lfd);
}

static void srv_free(struct srv *s)
{
	free(s->head);
	free(s->body);
	s->head = NULL;
	s->body = NULL;
}

/* head has the header line "name: value" (name in any case) */
static bool has_header(const char *head, const char *name, const char *value)
{
	char want[256];

	snprintf(want, sizeof(want), "\r\n%s: %s\r\n", name, value);
	return head && strcasestr(head, want) != NULL;
}

/* One POST of body to the server s with o's other settings. */
static int post_to(struct srv *s, struct fr_push_opts o, const void *body, size_t len,
		   struct fr_push_result *r)
{
	struct fr_pusher *p;
	char url[64];
	int err;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/traces", s->port);
	o.url = url;
	CU_ASSERT_FATAL(fr_pusher__new(&o, &p) == 0);
	err = fr_pusher__post(p, body, len, r);
	fr_pusher__delete(p);
	return err;
}

#define REPLY(status, extra) \
	"HTTP/1.1 " status "\r\n" extra "Content-Length: 5\r\nConnection: close\r\n\r\nhello"

static void test_post_ok(void)
{
	static const char *hdrs[] = { "X-Flightrec-Test: one two", "Authorization: Bearer t0k" };
	unsigned char body[70000];
	struct fr_push_result r;
	struct srv s;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (unsigned char)(i * 7 + (i >> 8));
	srv_start(&s, REPLY("200 OK", ""));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ .headers = hdrs, .nr_headers = 2 },
				body, sizeof(body), &r), 0);
	CU_ASSERT_EQUAL(r.status, 200);
	CU_ASSERT(!r.retry);
	CU_ASSERT_STRING_EQUAL(r.why, "HTTP 200 OK");
	srv_stop(&s);
	CU_ASSERT_FATAL(s.got);
	CU_ASSERT(!strncmp(s.head, "POST /v1/traces HTTP/1.1\r\n", 26));
	CU_ASSERT(has_header(s.head, "Content-Type", "application/x-protobuf"));
	CU_ASSERT(has_header(s.head, "X-Flightrec-Test", "one two"));
	CU_ASSERT(has_header(s.head, "Authorization", "Bearer t0k"));
	CU_ASSERT(has_header(s.head, "Content-Length", "70000"));
	CU_ASSERT(!strcasestr(s.head, "\r\nExpect:"));
	CU_ASSERT(!strcasestr(s.head, "\r\nContent-Encoding:"));
	CU_ASSERT_EQUAL_FATAL(s.body_len, sizeof(body));
	CU_ASSERT(!memcmp(s.body, body, sizeof(body)));
	srv_free(&s);

	/* another content type, an empty body */
	srv_start(&s, REPLY("204 No Content", ""));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ .content_type = "application/json" },
				NULL, 0, &r), 0);
	CU_ASSERT_EQUAL(r.status, 204);
	srv_stop(&s);
	CU_ASSERT(has_header(s.head, "Content-Type", "application/json"));
	CU_ASSERT_EQUAL(s.body_len, 0);
	srv_free(&s);

	/* an answer's body of 3 MiB: read up to its cap, dropped, the status stands */
	{
		static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 3145728\r\n\r\n";
		char *big = malloc(sizeof(head) + (3u << 20));

		CU_ASSERT_FATAL(big != NULL);
		memcpy(big, head, sizeof(head) - 1);
		memset(big + sizeof(head) - 1, 'a', 3u << 20);
		big[sizeof(head) - 1 + (3u << 20)] = '\0';
		srv_start(&s, big);
		CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ 0 }, "x", 1, &r), 0);
		CU_ASSERT_EQUAL(r.status, 200);
		srv_stop(&s);
		srv_free(&s);
		free(big);
	}
}

static void test_post_retry(void)
{
	struct fr_push_result r;
	struct srv s;

	srv_start(&s, REPLY("503 Service Unavailable", "Retry-After: 2\r\n"));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ 0 }, "x", 1, &r), -EAGAIN);
	srv_stop(&s);
	srv_free(&s);
	CU_ASSERT_EQUAL(r.status, 503);
	CU_ASSERT(r.retry);
	CU_ASSERT_EQUAL(r.retry_after_ms, 2000);
	CU_ASSERT_STRING_EQUAL(r.why, "HTTP 503 Service Unavailable");

	/* 429 with a hostile reason and a header name in another case */
	srv_start(&s, REPLY("429 Too\x01Many\x7f\xff Requests", "rEtRy-aFtEr:   7  \r\n"));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ 0 }, "x", 1, &r), -EAGAIN);
	srv_stop(&s);
	srv_free(&s);
	CU_ASSERT_EQUAL(r.status, 429);
	CU_ASSERT(r.retry);
	CU_ASSERT_EQUAL(r.retry_after_ms, 7000);
	CU_ASSERT(!strpbrk(r.why, "\r\n\x01\x7f\xff"));
	CU_ASSERT(!strncmp(r.why, "HTTP 429 Too", 12));

	/* 408 without Retry-After, a Retry-After too long to hold */
	srv_start(&s, REPLY("408 Request Timeout",
			    "Retry-After: 00000000000000000000000000000000000000000000000000000000000000000000000003\r\n"));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ 0 }, "x", 1, &r), -EAGAIN);
	srv_stop(&s);
	srv_free(&s);
	CU_ASSERT_EQUAL(r.status, 408);
	CU_ASSERT(r.retry);
	CU_ASSERT_EQUAL(r.retry_after_ms, 0);
}

static void test_post_refused(void)
{
	struct fr_push_result r;
	struct srv s;

	srv_start(&s, REPLY("400 Bad Request", "Retry-After: 2\r\n"));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ 0 }, "x", 1, &r), -EPROTO);
	srv_stop(&s);
	srv_free(&s);
	CU_ASSERT_EQUAL(r.status, 400);
	CU_ASSERT(!r.retry);
	CU_ASSERT_EQUAL(r.retry_after_ms, 0);
	CU_ASSERT_STRING_EQUAL(r.why, "HTTP 400 Bad Request");

	/* a redirect is not followed, and refused */
	srv_start(&s, REPLY("301 Moved Permanently", "Location: http://127.0.0.1:1/\r\n"));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ 0 }, "x", 1, &r), -EPROTO);
	srv_stop(&s);
	srv_free(&s);
	CU_ASSERT_EQUAL(r.status, 301);
	CU_ASSERT(!r.retry);
}

static void test_post_gzip(void)
{
	static const char *hdrs[] = { "X-A: b" };
	char body[20000], out[sizeof(body) + 16];
	struct fr_push_result r;
	z_stream z;
	struct srv s;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = "flightrec push gzip "[i % 20] + (char)(i % 3);
	srv_start(&s, REPLY("200 OK", ""));
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ .gzip = true, .headers = hdrs, .nr_headers = 1 },
				body, sizeof(body), &r), 0);
	srv_stop(&s);
	CU_ASSERT_FATAL(s.got);
	CU_ASSERT(has_header(s.head, "Content-Encoding", "gzip"));
	CU_ASSERT(has_header(s.head, "X-A", "b"));
	CU_ASSERT(s.body_len > 0 && s.body_len < sizeof(body));
	memset(&z, 0, sizeof(z));
	CU_ASSERT_FATAL(inflateInit2(&z, 15 + 16) == Z_OK);
	z.next_in = s.body;
	z.avail_in = (uInt)s.body_len;
	z.next_out = (unsigned char *)out;
	z.avail_out = sizeof(out);
	CU_ASSERT_EQUAL(inflate(&z, Z_FINISH), Z_STREAM_END);
	CU_ASSERT_EQUAL(z.total_out, sizeof(body));
	CU_ASSERT(!memcmp(out, body, sizeof(body)));
	inflateEnd(&z);
	srv_free(&s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_post_no_answer(void)
{
	struct fr_push_opts o = { 0 };
	struct fr_pusher *p;
	struct fr_push_result r;
	struct srv s;
	char url[64];
	int port, fd;
	double t0;

	/* a port bound, then closed: connection refused */
	fd = listen_loopback(&port);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	o.url = url;
	CU_ASSERT_FATAL(fr_pusher__new(&o, &p) == 0);
	CU_ASSERT_EQUAL(fr_pusher__post(p, "x", 1, &r), -EAGAIN);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT(r.retry);
	CU_ASSERT(r.why[0] != '\0');
	CU_ASSERT(!strpbrk(r.why, "\r\n"));
	/* the same pusher again: the same answer */
	CU_ASSERT_EQUAL(fr_pusher__post(p, "y", 1, &r), -EAGAIN);
	fr_pusher__delete(p);

	/* a server that reads the request and never answers */
	srv_start(&s, NULL);
	t0 = now_s();
	CU_ASSERT_EQUAL(post_to(&s, (struct fr_push_opts){ .timeout_ms = 300 }, "x", 1, &r), -EAGAIN);
	CU_ASSERT(now_s() - t0 < 8);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT(r.retry);
	CU_ASSERT(r.why[0] != '\0');
	srv_stop(&s);
	CU_ASSERT(s.got);
	srv_free(&s);
}

static void test_new(void)
{
	static const char *bad_hdr[] = { "X: a\r\nY: b" };
	static const char *good_hdr[] = { "X: a" };
	struct fr_push_opts o = { 0 };
	struct fr_pusher *p = (struct fr_pusher *)1;

	o.url = "ftp://x";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	CU_ASSERT_PTR_NULL(p);
	o.url = "file:///etc/passwd";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.url = "gopher://127.0.0.1/";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.url = "http://";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.url = "http://a b/";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.url = NULL;
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.url = "http://127.0.0.1:4318/v1/traces";
	o.headers = bad_hdr;
	o.nr_headers = 1;
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.headers = good_hdr;
	o.content_type = "text/plain\r\nX-Evil: 1";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), -EINVAL);
	o.content_type = NULL;
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), 0);
	fr_pusher__delete(p);
	o.url = "HTTPS://collector.example:4318/v1/traces";
	CU_ASSERT_EQUAL(fr_pusher__new(&o, &p), 0);
	fr_pusher__delete(p);
	fr_pusher__delete(NULL);
}

static const struct fr_test tests[] = {
	{ "header lines: tokens, values, injection, lengths", test_check_header },
	{ "Retry-After: seconds, dates, junk, caps", test_retry_after },
	{ "backoff: doubling, cap, Retry-After", test_backoff },
	{ "headers file: comments, CRLF, mode, symlink, bad line", test_read_headers },
	{ "pusher: URLs and headers refused", test_new },
	{ "POST: 2xx, body and headers received", test_post_ok },
	{ "POST: 503, 429, 408 are retried with Retry-After", test_post_retry },
	{ "POST: 400 and 301 are refused for good", test_post_refused },
	{ "POST: gzip", test_post_gzip },
	{ "POST: refused connection, no answer", test_post_no_answer },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "OTLP/HTTP push", NULL, NULL, tests };
