/* src/record/control.c: the recorder's control socket (run_dir/NAME.sock), its
 * pid and lock files, the non-blocking client table the main loop polls, the
 * request/reply line parsers, valid names and where the run directory is.
 * The client side is client.c, the run directory's checks rundir.c.
 */
#include "config.h"
#include "src/record/control.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "src/record/rundir.h"
#include "src/util.h"

int fr_control__valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return name[0] != '.';
}

const char *fr_control__run_dir(const char *opt)
{
	static char buf[4096];
	const char *env;
	struct stat sb;

	if (opt && *opt)
		return opt;
	env = getenv("FLIGHTREC_RUN_DIR");
	if (env && *env)
		return env;
	if (geteuid() == 0)
		return "/run/flightrec";
	env = getenv("XDG_RUNTIME_DIR");
	/* only our own: su/setpriv keep the caller's, which we cannot use */
	if (env && *env && !stat(env, &sb) && S_ISDIR(sb.st_mode) && sb.st_uid == geteuid()) {
		snprintf(buf, sizeof(buf), "%s/flightrec", env);
		return buf;
	}
	/* predictable, so fr_control__listen refuses it unless we own it, 0700 */
	snprintf(buf, sizeof(buf), "/tmp/flightrec-%u", (unsigned)geteuid());
	return buf;
}

struct client {
	int fd;                     /* -1: free slot */
	uint64_t deadline_ms;
	size_t got;
	char buf[FR_CONTROL_MAX_REQ];
};

struct fr_control {
	int fd;                     /* listening socket */
	int dirfd;                  /* the run directory, checked */
	int lockfd;                 /* NAME.lock, flock'ed for our life */
	uid_t euid;
	char sock[80], pidf[80], lock[80];   /* names inside dirfd */
	const char *refused_file, *refused_why;   /* listen: the file refused, and why */
	uint64_t refused, bad;
	struct client cl[FR_CONTROL_MAX_CLIENTS];
	int spare;                  /* /dev/null, given up to answer a client when descriptors run out */
	bool starved;               /* accept failed for want of descriptors: said once */
	uint64_t accept_after_ms;   /* the listening socket rests until then (no spare left) */
};

/* ---- the protocol: pure parsers (fuzzed by tests/fuzz/fuzz_control.c) ---- */

int fr_control__parse_request(const char *line, size_t len, struct fr_control_req *req,
			      const char **why)
{
	static const char verb[] = "snapshot", opt[] = " after=";
	const size_t nv = sizeof(verb) - 1, no = sizeof(opt) - 1;
	uint64_t v = 0;

	memset(req, 0, sizeof(*req));
	if (len < nv || memcmp(line, verb, nv) || (len > nv && line[nv] != ' ')) {
		*why = "unknown request";
		return -EINVAL;
	}
	if (len == nv) {
		req->verb = FR_REQ_SNAPSHOT;
		return 0;
	}
	if (len < nv + no || memcmp(line + nv, opt, no)) {
		*why = "unknown argument (expected after=NS)";
		return -EINVAL;
	}
	if (len == nv + no) {
		*why = "after=: no number";
		return -EINVAL;
	}
	for (size_t i = nv + no; i < len; i++) {
		unsigned d = (unsigned char)line[i] - '0';

		if (d > 9) {
			*why = "after=: expected plain decimal nanoseconds";
			return -EINVAL;
		}
		if (v > (FR_CONTROL_MAX_AFTER_NS - d) / 10) {
			*why = "after=: more than 1 hour";
			return -EINVAL;
		}
		v = v * 10 + d;
	}
	req->verb = FR_REQ_SNAPSHOT;
	req->after_ns = v;
	return 0;
}

int fr_control__parse_reply(const char *line, size_t len, int *ok, const char **text,
			    size_t *text_len, const char **why)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)line[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			*why = "control character in the reply";
			return -EINVAL;
		}
	}
	if (len > 3 && !memcmp(line, "ok ", 3)) {
		*ok = 1;
		*text = line + 3;
		*text_len = len - 3;
		return 0;
	}
	if (len > 6 && !memcmp(line, "error ", 6)) {
		*ok = 0;
		*text = line + 6;
		*text_len = len - 6;
		return 0;
	}
	*why = "neither 'ok PATH' nor 'error MSG'";
	return -EINVAL;
}

/* ---- the recorder side ---- */

#define WHY_SYMLINK "is a symlink, not ours: refusing"

/* A file of the run directory refused: which, and why (-ELOOP or -EPERM). */
static int refuse(struct fr_control *c, const char *name, int err)
{
	c->refused_file = name;
	c->refused_why = err == -ELOOP ? WHY_SYMLINK
		 : name == c->sock ? "is not a socket, not ours: refusing"
				   : "is not a regular file of ours: refusing";
	return err;
}

/* flock NAME.lock; the file we locked must still be the one at the path (a
 * recorder that exits removes it). */
static int take_lock(struct fr_control *c, pid_t *other)
{
	for (int tries = 0; tries < 16; tries++) {
		struct stat st, at;
		int fd = openat(c->dirfd, c->lock,
				O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);

		if (fd < 0)
			return errno == ELOOP ? refuse(c, c->lock, -ELOOP) : -errno;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != c->euid) {
			close(fd);
			return refuse(c, c->lock, -EPERM);
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int err = errno;

			close(fd);
			if (err != EWOULDBLOCK)
				return -err;
			/* the holder writes its pid right after locking */
			for (int i = 0; i < 20 && !(*other = fr_rundir_read_pid(c->dirfd, c->pidf)); i++)
				usleep(10000);
			return -EEXIST;
		}
		if (!fstatat(c->dirfd, c->lock, &at, AT_SYMLINK_NOFOLLOW) &&
		    at.st_dev == st.st_dev && at.st_ino == st.st_ino) {
			c->lockfd = fd;
			return 0;
		}
		close(fd);
	}
	return -EAGAIN;
}

/* We hold the lock, so an existing pid file is stale: replace it, but only
 * a regular file of ours. */
static int write_pidfile(struct fr_control *c)
{
	char buf[32];
	int fd = -1, n;

	for (int tries = 0; tries < 2 && fd < 0; tries++) {
		struct stat st;

		fd = openat(c->dirfd, c->pidf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd >= 0)
			break;
		if (errno != EEXIST)
			return -errno;
		if (fstatat(c->dirfd, c->pidf, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISLNK(st.st_mode))
			return refuse(c, c->pidf, -ELOOP);
		if (!S_ISREG(st.st_mode) || st.st_uid != c->euid)
			return refuse(c, c->pidf, -EPERM);
		if (unlinkat(c->dirfd, c->pidf, 0) && errno != ENOENT)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		unlinkat(c->dirfd, c->pidf, 0);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* Bind NAME.sock.new with mode 0600, listen, then rename it over NAME.sock:
 * the socket appears only when it accepts. */
static int bind_socket(struct fr_control *c, const char *run_dir, const char *name)
{
	struct sockaddr_un tmp;
	char tmpname[96];
	struct stat st;
	mode_t old;
	int fd, err;

	snprintf(tmpname, sizeof(tmpname), "%s.new", c->sock);
	err = fr_rundir_sock_addr(run_dir, name, ".sock.new", &tmp);
	if (err)
		return err;
	if (unlinkat(c->dirfd, tmpname, 0) && errno != ENOENT)
		return -errno;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	old = umask(0177);
	err = bind(fd, (struct sockaddr *)&tmp, sizeof(tmp)) ? -errno : 0;
	umask(old);
	if (err)
		goto out;
	/* the path must have led into our checked directory */
	if (fstatat(c->dirfd, tmpname, &st, AT_SYMLINK_NOFOLLOW) || !S_ISSOCK(st.st_mode) ||
	    st.st_uid != c->euid || (st.st_mode & 077)) {
		err = refuse(c, c->sock, -EPERM);
		goto out_unlink;
	}
	/* a stale socket of ours is replaced; a symlink or anything else is not */
	if (!fstatat(c->dirfd, c->sock, &st, AT_SYMLINK_NOFOLLOW) && !S_ISSOCK(st.st_mode)) {
		err = refuse(c, c->sock, S_ISLNK(st.st_mode) ? -ELOOP : -EPERM);
		goto out_unlink;
	}
	if (listen(fd, SOMAXCONN) || renameat(c->dirfd, tmpname, c->dirfd, c->sock)) {
		err = -errno;
		goto out_unlink;
	}
	c->fd = fd;
	return 0;
out_unlink:
	unlinkat(c->dirfd, tmpname, 0);
out:
	close(fd);
	return err;
}

int fr_control__listen(const char *run_dir, const char *name, struct fr_control **out,
		       struct fr_control_fail *fail)
{
	struct sockaddr_un sa;
	struct fr_control *c;
	const char *why = NULL;
	pid_t *other = &fail->other;
	int err, created;

	memset(fail, 0, sizeof(*fail));
	if (!fr_control__valid_name(name))
		return -EINVAL;
	err = fr_rundir_sock_addr(run_dir, name, ".sock.new", &sa);
	if (err)
		return err;
	created = fr_rundir_mkdir_p(run_dir);
	if (created < 0)
		return created;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = c->lockfd = -1;
	c->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	c->euid = geteuid();
	for (size_t i = 0; i < FR_CONTROL_MAX_CLIENTS; i++)
		c->cl[i].fd = -1;
	snprintf(c->sock, sizeof(c->sock), "%s.sock", name);
	snprintf(c->pidf, sizeof(c->pidf), "%s.pid", name);
	snprintf(c->lock, sizeof(c->lock), "%s.lock", name);
	c->dirfd = fr_rundir_open_checked(run_dir, true, created == 1, &why);
	if (c->dirfd < 0) {
		err = c->dirfd;
		if (why) {
			snprintf(fail->file, sizeof(fail->file), "%s", run_dir);
			fail->why = why;
		}
		if (c->spare >= 0)
			close(c->spare);
		free(c);
		return err;
	}
	err = take_lock(c, other);
	if (err)
		goto out_err;
	err = write_pidfile(c);
	if (err)
		goto out_unlock;
	err = bind_socket(c, run_dir, name);
	if (err) {
		unlinkat(c->dirfd, c->pidf, 0);
		goto out_unlock;
	}
	*out = c;
	return 0;
out_unlock:
	unlinkat(c->dirfd, c->lock, 0);
	close(c->lockfd);
out_err:
	if (c->refused_file) {
		snprintf(fail->file, sizeof(fail->file), "%s/%s", run_dir, c->refused_file);
		fail->why = c->refused_why;
	}
	close(c->dirfd);
	if (c->spare >= 0)
		close(c->spare);
	free(c);
	return err;
}

size_t fr_control__pollfds(const struct fr_control *c, struct pollfd *fds, size_t max)
{
	size_t n = 0;

	if (max == 0)
		return 0;
	/* the listening socket rests while descriptors are out (no spare) */
	fds[n++] = (struct pollfd){ .fd = c->fd,
				    .events = fr_rundir_now_ms() < c->accept_after_ms ? 0 : POLLIN };
	for (size_t i = 0; i < FR_CONTROL_MAX_CLIENTS && n < max; i++)
		if (c->cl[i].fd >= 0)
			fds[n++] = (struct pollfd){ .fd = c->cl[i].fd, .events = POLLIN };
	return n;
}

int fr_control__timeout_ms(const struct fr_control *c)
{
	uint64_t now = fr_rundir_now_ms(), next = UINT64_MAX;

	for (size_t i = 0; i < FR_CONTROL_MAX_CLIENTS; i++)
		if (c->cl[i].fd >= 0 && c->cl[i].deadline_ms < next)
			next = c->cl[i].deadline_ms;
	if (c->accept_after_ms > now && c->accept_after_ms < next)
		next = c->accept_after_ms;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

/* One line, without waiting: a client that does not read its answer loses it. */
static void send_line(int fd, const char *a, const char *b)
{
	struct iovec iov[3] = {
		{ .iov_base = (void *)a, .iov_len = strlen(a) },
		{ .iov_base = (void *)b, .iov_len = strlen(b) },
		{ .iov_base = (void *)"\n", .iov_len = 1 },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 3 };

	(void)sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void reject(struct fr_control *c, struct client *cl, const char *why)
{
	send_line(cl->fd, "error ", why);
	close(cl->fd);
	cl->fd = -1;
	c->bad++;
}

static void read_client(struct fr_control *c, struct client *cl, fr_control_cb cb, void *ctx)
{
	struct fr_control_req req;
	const char *why = NULL, *nl;
	ssize_t n = recv(cl->fd, cl->buf + cl->got, sizeof(cl->buf) - cl->got, MSG_DONTWAIT);
	int fd;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		close(cl->fd);
		cl->fd = -1;
		c->bad++;
		return;
	}
	if (n == 0) {
		reject(c, cl, "the request ends without a newline");
		return;
	}
	nl = memchr(cl->buf + cl->got, '\n', (size_t)n);
	cl->got += (size_t)n;
	if (!nl) {
		if (cl->got == sizeof(cl->buf))
			reject(c, cl, "request too long");
		return;
	}
	if (fr_control__parse_request(cl->buf, (size_t)(nl - cl->buf), &req, &why)) {
		reject(c, cl, why);
		return;
	}
	fd = cl->fd;
	cl->fd = -1;
	cb(ctx, fd, &req);
}

static bool peer_allowed(const struct fr_control *c, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || len != sizeof(cr))
		return false;
	return cr.uid == 0 || cr.uid == c->euid;
}

/* accept failed for want of descriptors: said once; the spare descriptor
 * is given up to take the client and tell it, so that neither it waits nor
 * the loop spins on a connection it cannot take; with no spare to give, the
 * listening socket rests a second. */
static void starved(struct fr_control *c, int err)
{
	int fd;

	if (!c->starved)
		fr_err("control", "accepting a snapshot client: %s: each is told so until descriptors "
		       "are free again", strerror(err));
	c->starved = true;
	if (c->spare < 0) {
		c->accept_after_ms = fr_rundir_now_ms() + 1000;
		c->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return;
	}
	close(c->spare);
	fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0) {
		send_line(fd, "error ", "the recorder is out of file descriptors");
		close(fd);
		c->refused++;
	}
	c->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (c->spare < 0)
		c->accept_after_ms = fr_rundir_now_ms() + 1000;
}

static void accept_clients(struct fr_control *c)
{
	/* bounded, so a flood of connections cannot hold the loop */
	for (int k = 0; k < FR_CONTROL_MAX_CLIENTS; k++) {
		int fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *cl = NULL;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			starved(c, errno);
			return;
		}
		if (fd < 0)
			return;
		if (c->starved) {
			fr_info("control: accepting snapshot clients again");
			c->starved = false;
		}
		if (!peer_allowed(c, fd)) {
			close(fd);
			c->refused++;
			continue;
		}
		for (size_t i = 0; i < FR_CONTROL_MAX_CLIENTS && !cl; i++)
			if (c->cl[i].fd < 0)
				cl = &c->cl[i];
		if (!cl) {
			send_line(fd, "error ", "too many clients");
			close(fd);
			c->refused++;
			continue;
		}
		cl->fd = fd;
		cl->got = 0;
		cl->deadline_ms = fr_rundir_now_ms() + FR_CONTROL_CLIENT_MS;
	}
}

void fr_control__service(struct fr_control *c, const struct pollfd *fds, size_t n,
			 fr_control_cb cb, void *ctx)
{
	uint64_t now;

	/* clients first: the fds they had at poll() time are still theirs */
	for (size_t i = 1; i < n; i++) {
		if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		for (size_t k = 0; k < FR_CONTROL_MAX_CLIENTS; k++)
			if (c->cl[k].fd >= 0 && c->cl[k].fd == fds[i].fd) {
				read_client(c, &c->cl[k], cb, ctx);
				break;
			}
	}
	if (n && (fds[0].revents & POLLIN))
		accept_clients(c);
	now = fr_rundir_now_ms();
	for (size_t k = 0; k < FR_CONTROL_MAX_CLIENTS; k++)
		if (c->cl[k].fd >= 0 && now >= c->cl[k].deadline_ms)
			reject(c, &c->cl[k], "no complete request within 2 s");
}

int fr_control__reply(int client, const char *line)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)line, .iov_len = strlen(line) },
		{ .iov_base = (void *)"\n", .iov_len = 1 },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	int err = 0;

	if (sendmsg(client, &m, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)(iov[0].iov_len + 1))
		err = errno ? -errno : -EIO;
	close(client);
	return err;
}

void fr_control__close(struct fr_control *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < FR_CONTROL_MAX_CLIENTS; i++)
		if (c->cl[i].fd >= 0)
			close(c->cl[i].fd);
	close(c->fd);
	if (c->spare >= 0)
		close(c->spare);
	unlinkat(c->dirfd, c->sock, 0);
	unlinkat(c->dirfd, c->pidf, 0);
	unlinkat(c->dirfd, c->lock, 0);    /* still locked: nobody took it meanwhile */
	close(c->lockfd);
	close(c->dirfd);
	free(c);
}
