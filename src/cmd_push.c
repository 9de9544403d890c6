/* src/cmd_push.c: `flightrec push URL FILE|DIR...`: each file as an OTLP
 * request (the report's otlp output) POSTed to an OTLP/HTTP endpoint
 * (src/push/push.c) with retries; and the pusher that `record --push` forks:
 * it delivers the snapshots marked FILE.push, oldest first, with backoff,
 * in a process of its own that never holds the recorder up.
 */
#include "config.h"

#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/cli.h"
#include "src/push/push.h"
#include "src/report/report.h"
#include "src/util.h"

#define MAX_BACKOFF_MS 60000u
#define MAX_BODY (512u << 20)      /* a request larger than this is not sent */

enum { OPT_GZIP = 0x100, OPT_HEADER_FILE, OPT_TIMEOUT, OPT_RETRIES, OPT_ORIGINAL };

/* The headers of cfg (--header, then --header-file's) into o; *owned: the
 * file's lines, for the caller to free (free_lines). 0 or an exit code (said). */
static int headers(const struct fr_push_cfg *c, struct fr_push_opts *o, const char **all,
		   char ***owned, size_t *nr_owned)
{
	size_t n = 0, bad = 0;
	int err;

	*owned = NULL;
	*nr_owned = 0;
	for (size_t i = 0; i < c->nr_headers; i++)
		all[n++] = c->headers[i];
	if (c->header_file) {
		err = fr_push__read_headers(c->header_file, owned, nr_owned, &bad);
		if (err == -EPERM) {
			fr_err(c->header_file, "not a regular file readable by its owner only "
			       "(chmod 600): its secrets are not read");
			return FR_EXIT_ERROR;
		}
		if (err == -EINVAL) {
			fr_err(c->header_file, "line %zu: not a header line ('Name: value')", bad);
			return FR_EXIT_USAGE;
		}
		if (err) {
			fr_err(c->header_file, "%s", strerror(-err));
			return FR_EXIT_ERROR;
		}
		for (size_t i = 0; i < *nr_owned && n < FR_PUSH_MAX_HEADERS * 2; i++)
			all[n++] = (*owned)[i];
	}
	*o = (struct fr_push_opts){ .url = c->url, .headers = all, .nr_headers = n,
				    .gzip = c->gzip, .timeout_ms = c->timeout_s * 1000u };
	return 0;
}

static void free_lines(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

int cmd_push__pusher(const struct fr_push_cfg *c, struct fr_pusher **out)
{
	const char *all[FR_PUSH_MAX_HEADERS * 2];
	struct fr_push_opts o;
	char **owned;
	size_t nr_owned;
	int r = headers(c, &o, all, &owned, &nr_owned), err;

	if (r)
		return r;
	err = fr_pusher__new(&o, out);   /* copies the headers */
	free_lines(owned, nr_owned);
	if (err == -EINVAL) {
		fr_err(c->url, "not an http:// or https:// URL, or a header is malformed");
		return FR_EXIT_USAGE;
	}
	if (err) {
		fr_err("push", "%s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	return 0;
}

/* The OTLP request of path (the report's otlp output, through a temporary
 * file) into *buf: an exit code of the report (said), or FR_EXIT_ERROR. */
static int to_otlp(const char *path, bool original, char **buf, size_t *len)
{
	const char *tmpdir = getenv("TMPDIR");
	struct fr_report_opts ro = { .format = "otlp", .quiet = true, .otlp_original = original };
	char tmp[PATH_MAX];
	int fd, r, err = 0;

	*buf = NULL;
	if (snprintf(tmp, sizeof(tmp), "%s/flightrec-push-XXXXXX",
		     tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp") >= (int)sizeof(tmp) ||
	    (fd = mkstemp(tmp)) < 0) {
		fr_err("push", "a temporary file: %s", strerror(errno));
		return FR_EXIT_ERROR;
	}
	close(fd);
	ro.output = tmp;
	ro.hist.chain_limit = 0.5;
	ro.sym.symdirs = ro.symdirs;
	ro.sym.cache_dir = fr_archive__default_dir((char[PATH_MAX]){ 0 }, PATH_MAX);
	r = fr_report__run(&ro, path);
	if (r <= FR_EXIT_PARTIAL && (err = fr_file__slurp(tmp, MAX_BODY, buf, len)))
		fr_err(path, "its OTLP request: %s", err == -EFBIG ? "larger than 512 MiB"
		       : strerror(-err));
	unlink(tmp);
	return r > FR_EXIT_PARTIAL ? r : err ? FR_EXIT_ERROR : r;
}

/* One POST of path's request: 0 delivered, -EAGAIN worth a retry, another
 * -errno not (said), with res filled. */
static int post(struct fr_pusher *p, const struct fr_push_cfg *c, const char *path,
		struct fr_push_result *res)
{
	char *buf;
	size_t len;
	int r = to_otlp(path, c->original, &buf, &len), err;

	memset(res, 0, sizeof(*res));
	if (r > FR_EXIT_PARTIAL) {
		free(buf);
		return -EINVAL;   /* the report said why */
	}
	err = fr_pusher__post(p, buf, len, res);
	free(buf);
	if (!err)
		fr_info("push: %s: delivered (%zu bytes, HTTP %ld)", path, len, res->status);
	else if (err != -EAGAIN)
		fr_err(path, "push to %s refused: %s: not retried", c->url, res->why);
	return err;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000u, (long)(ms % 1000u) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- flightrec push: each file once, retried as the answers allow ---- */
static int push_one(struct fr_pusher *p, const struct fr_push_cfg *c, const char *path)
{
	struct fr_push_result res;
	int err;

	for (unsigned attempt = 0;; attempt++) {
		if ((err = post(p, c, path, &res)) != -EAGAIN)
			return err ? FR_EXIT_ERROR : FR_EXIT_OK;
		if (attempt >= c->retries) {
			fr_err(path, "push to %s: %s (%u attempts): not delivered", c->url, res.why,
			       attempt + 1);
			return FR_EXIT_ERROR;
		}
		fr_info("push: %s: %s: retrying in %u ms", path, res.why,
			fr_push__backoff_ms(attempt + 1, res.retry_after_ms, MAX_BACKOFF_MS));
		sleep_ms(fr_push__backoff_ms(attempt + 1, res.retry_after_ms, MAX_BACKOFF_MS));
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.frec of dir, by name (a recorder's names sort by time). */
static int push_dir(struct fr_pusher *p, const struct fr_push_cfg *c, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[PATH_MAX];
	size_t n = 0, cap = 0, len;
	int worst = FR_EXIT_OK, r;

	if (!d) {
		fr_err(dir, "%s", strerror(errno));
		return FR_EXIT_ERROR;
	}
	while ((e = readdir(d)))
		if ((len = strlen(e->d_name)) > 5 && !strcmp(e->d_name + len - 5, ".frec") &&
		    (fr_grow(&names, &cap, n + 1, sizeof(*names), 16) || !(names[n++] = strdup(e->d_name)))) {
			worst = FR_EXIT_ERROR;
			break;
		}
	closedir(d);
	if (n)   /* (names is NULL when there are none) */
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n && worst != FR_EXIT_ERROR; i++)
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path) &&
		    (r = push_one(p, c, path)) > worst)
			worst = r;
	if (!n && worst == FR_EXIT_OK) {
		fr_err(dir, "no flightrec file (*.frec) here");
		worst = FR_EXIT_ERROR;
	}
	free_lines(names, n);
	return worst;
}

/* ---- record --push: the pusher process ---- */
struct mark {
	char *name;                /* FILE.push, in dir */
	struct timespec at;        /* when it was made: the snapshot's order */
};

static int by_time(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->at.tv_sec != y->at.tv_sec)
		return x->at.tv_sec < y->at.tv_sec ? -1 : 1;
	if (x->at.tv_nsec != y->at.tv_nsec)
		return x->at.tv_nsec < y->at.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void free_marks(struct mark *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

/* The marks in dir, oldest first; past the spool's bound the oldest are
 * unmarked (their files kept) and said. 0 or -errno. */
static int scan(const char *dir, unsigned spool, struct mark **out, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct mark *m = NULL;
	size_t n = 0, cap = 0, len, drop;
	struct stat st;
	int err = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && !err) {
		if ((len = strlen(e->d_name)) <= 10 || strcmp(e->d_name + len - 10, ".frec.push") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (fr_grow(&m, &cap, n + 1, sizeof(*m), 16) || !(m[n].name = strdup(e->d_name)))
			err = -ENOMEM;
		else
			m[n++].at = st.st_mtim;
	}
	closedir(d);
	if (err) {
		free_marks(m, n);
		return err;
	}
	if (n)   /* (m is NULL when there are none) */
		qsort(m, n, sizeof(*m), by_time);
	drop = n > spool ? n - spool : 0;
	for (size_t i = 0; i < drop; i++) {
		char p[PATH_MAX];

		fr_err("push", "the spool holds %u snapshots: %s/%.*s is not pushed (kept)", spool, dir,
		       (int)strlen(m[i].name) - 5, m[i].name);
		if (snprintf(p, sizeof(p), "%s/%s", dir, m[i].name) < (int)sizeof(p))
			unlink(p);
		free(m[i].name);
	}
	if (drop)
		memmove(m, m + drop, (n - drop) * sizeof(*m));
	*out = m;
	*nr = n - drop;
	return 0;
}

/* Deliver dir's marked snapshots as they come (a byte on rfd each; its end:
 * the recorder's): oldest first; a failure worth a retry is said once per
 * outage and retried with backoff (sooner when a snapshot comes); at the end
 * what is marked gets one more attempt each, and what is not delivered
 * stays marked for the next recorder or `flightrec push`. */
static int follow(struct fr_pusher *p, const struct fr_push_cfg *c, const char *dir, int rfd)
{
	uint64_t next = 0;          /* the next attempt (0: now), when work is pending */
	unsigned attempt = 0;
	bool eof = false, down = false, pending = true;   /* at the start: earlier marks */

	for (;;) {
		struct pollfd pfd = { rfd, POLLIN, 0 };
		struct fr_push_result res;
		struct mark *m = NULL;
		size_t n = 0;
		char path[PATH_MAX], mark[PATH_MAX], junk[256];
		uint64_t t = now_ms();
		int err;

		if (!eof && poll(&pfd, 1, !pending ? -1 : next > t ? (int)(next - t) : 0) > 0) {
			ssize_t r = read(rfd, junk, sizeof(junk));

			if (r == 0)
				eof = true;
			else if (r > 0)
				pending = true, next = 0;   /* a new snapshot: try now */
		}
		if (!eof && now_ms() < next)
			continue;
		if ((err = scan(dir, c->spool, &m, &n))) {
			fr_err(dir, "the pusher's spool: %s", strerror(-err));
			return FR_EXIT_ERROR;
		}
		if (!n) {
			free(m);
			if (eof)
				return FR_EXIT_OK;
			pending = false;
			continue;
		}
		snprintf(mark, sizeof(mark), "%s/%s", dir, m[0].name);
		snprintf(path, sizeof(path), "%.*s", (int)strlen(mark) - 5, mark);
		free_marks(m, n);
		if (access(path, F_OK)) {   /* removed (--max-files): nothing to push */
			unlink(mark);
			continue;
		}
		err = post(p, c, path, &res);
		if (err != -EAGAIN) {   /* delivered, or never will be: unmarked */
			unlink(mark);
			if (!err && down)
				fr_info("push: %s answers again: delivering what waited", c->url);
			down = down && err;
			attempt = 0;
			next = 0;
			continue;
		}
		if (!down)
			fr_err("push", "%s: %s: %s and what follows stay marked (.push) and are "
			       "retried", c->url, res.why, path);
		down = true;
		if (eof)   /* the recorder ended: the marks wait for the next one */
			return FR_EXIT_PARTIAL;
		next = now_ms() + fr_push__backoff_ms(++attempt, res.retry_after_ms, MAX_BACKOFF_MS);
	}
}

int cmd_push__spawn(const struct fr_push_cfg *c, const char *dir, int *wfd, int *pid)
{
	struct fr_pusher *p;
	int fds[2], r = cmd_push__pusher(c, &p);
	pid_t child;

	if (r)
		return r;
	if (pipe2(fds, O_CLOEXEC) || (child = fork()) < 0) {
		fr_err("--push", "starting the pusher: %s", strerror(errno));
		fr_pusher__delete(p);
		return FR_EXIT_ERROR;
	}
	if (!child) {
		/* Ctrl-C, a hangup or a stop's SIGTERM reach the whole group: the
		 * recorder's final snapshot still comes, then the pipe's end */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		close(fds[1]);
		if (nice(10) < 0)
			(void)0;   /* lower priority where allowed: recording goes first */
		r = follow(p, c, dir, fds[0]);
		fr_pusher__delete(p);
		_exit(r);
	}
	fr_pusher__delete(p);
	close(fds[0]);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	*wfd = fds[1];
	*pid = child;
	return 0;
}

/* ---- flightrec push: options ---- */
struct push_args {
	struct fr_push_cfg c;
	const char **files;
	size_t nr_files;
	int usage_err;
};

/* --header, -H, --header-file, --gzip, --timeout: what push and record
 * --push share (record's with a push- prefix). 0 or -1 (said). */
int cmd_push__option(struct fr_push_cfg *c, int key, const char *arg)
{
	uint64_t v;

	switch (key) {
	case FR_PUSH_OPT_HEADER:
		if (c->nr_headers >= FR_PUSH_MAX_HEADERS) {
			fr_err("--header", "at most %d", FR_PUSH_MAX_HEADERS);
			return -1;
		}
		if (fr_push__check_header(arg)) {
			fr_err("--header", "expected 'Name: value' (a token, a colon, a value "
			       "without line breaks), got '%s'", arg);
			return -1;
		}
		c->headers[c->nr_headers++] = arg;
		return 0;
	case FR_PUSH_OPT_HEADER_FILE: c->header_file = arg; return 0;
	case FR_PUSH_OPT_GZIP: c->gzip = true; return 0;
	case FR_PUSH_OPT_TIMEOUT:
		if (fr_parse__u64(arg, 1, 3600, &v)) {
			fr_err("--timeout", "expected seconds from 1 to 3600, got '%s'", arg);
			return -1;
		}
		c->timeout_s = (unsigned)v;
		return 0;
	}
	return -1;
}

static const struct argp_option push_options[] = {
	{ "header", 'H', "'NAME: VALUE'", 0, "an HTTP header of each request (repeatable): "
	  "X-Scope-OrgID for Pyroscope, Authorization, ... (on the command line others can "
	  "read it in ps: secrets go in --header-file)", 0 },
	{ "header-file", OPT_HEADER_FILE, "FILE", 0, "header lines from FILE ('Name: value' per "
	  "line, # comments), which must be readable by its owner only (mode 600)", 0 },
	{ "gzip", OPT_GZIP, NULL, 0, "send the body gzipped (Content-Encoding: gzip)", 0 },
	{ "timeout", OPT_TIMEOUT, "SECS", 0, "of each request, connection included (default 10)", 0 },
	{ "retries", OPT_RETRIES, "N", 0, "attempts after the first when the endpoint is down, "
	  "times out or answers 408, 429 or 5xx, waiting its Retry-After or 1, 2, 4... s "
	  "(at most 60) between them (default 5)", 0 },
	{ "original", OPT_ORIGINAL, NULL, 0, "the flightrec file itself in the request too "
	  "(original_payload, format \"flightrec\")", 0 },
	{ 0 }
};

static error_t push_parse(int key, char *arg, struct argp_state *st)
{
	struct push_args *a = st->input;
	uint64_t v;

	switch (key) {
	case 'H': key = FR_PUSH_OPT_HEADER; break;
	case OPT_HEADER_FILE: key = FR_PUSH_OPT_HEADER_FILE; break;
	case OPT_GZIP: key = FR_PUSH_OPT_GZIP; break;
	case OPT_TIMEOUT: key = FR_PUSH_OPT_TIMEOUT; break;
	case OPT_RETRIES:
		if (fr_parse__u64(arg, 0, 100, &v)) {
			fr_err("--retries", "expected a number from 0 to 100, got '%s'", arg);
			a->usage_err = 1;
		}
		a->c.retries = (unsigned)v;
		return 0;
	case OPT_ORIGINAL: a->c.original = true; return 0;
	case ARGP_KEY_ARG:
		if (!a->c.url)
			a->c.url = arg;
		else
			a->files[a->nr_files++] = arg;
		return 0;
	case ARGP_KEY_END:
		if (!a->nr_files && !a->usage_err) {
			fr_err("push", "expected a URL and at least one FILE or DIR (see --help)");
			a->usage_err = 1;
		}
		return 0;
	default: return ARGP_ERR_UNKNOWN;
	}
	if (cmd_push__option(&a->c, key, arg))
		a->usage_err = 1;
	return 0;
}

int cmd_push(int argc, char **argv)
{
	static const char doc[] =
		"Send flightrec files to an OpenTelemetry profiles endpoint: each as one OTLP "
		"ExportProfilesServiceRequest (what report --format=otlp writes), POSTed to URL "
		"(OTLP/HTTP, application/x-protobuf), retried while the endpoint is down or "
		"busy. A DIR sends its *.frec files oldest first. `record --push URL` does the "
		"same for each snapshot as it is written (see doc/otlp.md).\v"
		"Examples:\n"
		"  flightrec push http://collector:4318/v1development/profiles snap.frec\n"
		"  flightrec push -H 'X-Scope-OrgID: t1' http://pyroscope:4040/v1development/"
		"profiles /var/lib/flightrec\n"
		"  flightrec push --header-file /etc/flightrec/otlp-headers --gzip "
		"https://otlp.example.com/v1development/profiles a.frec b.frec\n\n"
		"Exit codes: 0 every file delivered; 2 a file not readable or not a flightrec "
		"file, or not delivered (refused, or still down after the retries); 64 usage.";
	struct argp a = { push_options, push_parse, "URL FILE|DIR...", doc, NULL, NULL, NULL };
	struct push_args args = { .c = { .timeout_s = 10, .retries = 5 } };
	struct fr_pusher *p = NULL;
	struct stat st;
	int r, worst = FR_EXIT_OK;

	if (!(args.files = calloc((size_t)argc + 1, sizeof(*args.files))))
		return FR_EXIT_ERROR;
	r = fr_parse_args(&a, argc, argv, "flightrec push", &args);
	if (r || args.usage_err) {
		r = r < 0 ? FR_EXIT_OK : r ? r : FR_EXIT_USAGE;
		goto out;
	}
	if ((r = cmd_push__pusher(&args.c, &p)))
		goto out;
	for (size_t i = 0; i < args.nr_files; i++) {
		const char *f = args.files[i];

		r = !stat(f, &st) && S_ISDIR(st.st_mode) ? push_dir(p, &args.c, f)
							  : push_one(p, &args.c, f);
		worst = r > worst ? r : worst;
	}
	r = worst;
out:
	fr_pusher__delete(p);
	free(args.files);
	return r;
}
