/* src/control.c: the recorder's control socket (run_dir/NAME.sock), its pid
 * file, and the client side used by `flightrec snapshot`. Line protocol:
 * the client sends "snapshot [TRIGGER]\n", the recorder answers "ok PATH\n" or "error MSG\n".
 */
#include "config.h"
#include "src/record/control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct fr_control {
	int fd;
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char pidfile[4096];
};

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

	if (opt && *opt)
		return opt;
	env = getenv("FLIGHTREC_RUN_DIR");
	if (env && *env)
		return env;
	if (geteuid() == 0)
		return "/run/flightrec";
	env = getenv("XDG_RUNTIME_DIR");
	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s/flightrec", env);
		return buf;
	}
	snprintf(buf, sizeof(buf), "/tmp/flightrec-%u", (unsigned)geteuid());
	return buf;
}

static int sock_addr(const char *run_dir, const char *name, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s.sock", run_dir, name) >=
	    sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

static int mkdir_p(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static pid_t read_pidfile(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

int fr_control__listen(const char *run_dir, const char *name, struct fr_control **out,
		       pid_t *other)
{
	struct sockaddr_un sa;
	struct fr_control *c;
	char buf[32];
	int err, fd, pf;

	err = sock_addr(run_dir, name, &sa);
	if (err)
		return err;
	err = mkdir_p(run_dir);
	if (err)
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = -1;
	memcpy(c->sock, sa.sun_path, sizeof(c->sock));
	snprintf(c->pidfile, sizeof(c->pidfile), "%s/%s.pid", run_dir, name);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		goto out_err;
	}
	/* A live recorder answers connect(); a stale socket refuses. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		*other = read_pidfile(c->pidfile);
		close(fd);
		err = -EEXIST;
		goto out_err;
	}
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16)) {
		err = -errno;
		close(fd);
		goto out_err;
	}
	c->fd = fd;
	pf = open(c->pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pf >= 0) {
		int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

		if (write(pf, buf, (size_t)n) != n)
			err = -EIO;
		close(pf);
	}
	*out = c;
	return 0;
out_err:
	free(c);
	return err;
}

int fr_control__fd(const struct fr_control *c)
{
	return c->fd;
}

/* Read up to a newline within timeout_ms. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t got = 0;

	while (got + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		got += (size_t)n;
		buf[got] = '\0';
		if (memchr(buf, '\n', got)) {
			*strchr(buf, '\n') = '\0';
			return 0;
		}
	}
	return -EMSGSIZE;
}

int fr_control__accept(struct fr_control *c, char *req, size_t len)
{
	int cl = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC), err;

	if (cl < 0)
		return -errno;
	err = read_line(cl, req, len, 2000);
	if (err) {
		close(cl);
		return err;
	}
	return cl;
}

int fr_control__reply(int client, const char *line)
{
	size_t n = strlen(line);
	int err = 0;

	if (send(client, line, n, MSG_NOSIGNAL) != (ssize_t)n ||
	    send(client, "\n", 1, MSG_NOSIGNAL) != 1)
		err = -errno;
	close(client);
	return err;
}

void fr_control__close(struct fr_control *c)
{
	if (!c)
		return;
	if (c->fd >= 0) {
		close(c->fd);
		unlink(c->sock);
		unlink(c->pidfile);
	}
	free(c);
}

int fr_control__request(const char *run_dir, const char *name, const char *req, char *reply,
			size_t len, int timeout_ms)
{
	struct sockaddr_un sa;
	int fd, err;

	err = sock_addr(run_dir, name, &sa);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		goto out;
	}
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 || send(fd, "\n", 1, MSG_NOSIGNAL) < 0) {
		err = -errno;
		goto out;
	}
	err = read_line(fd, reply, len, timeout_ms);
out:
	close(fd);
	return err;
}
