/* src/report/pass/outfile.c: where a report goes: report -o FILE written beside
 * FILE under a temporary name and renamed over it only when complete (the
 * temporary file removed on failure and on SIGINT/SIGTERM/SIGHUP/SIGPIPE),
 * and the first failed write's errno kept, whatever the format.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/report/pass/pass.h"

struct fr_outfile {
	FILE *f;                /* what the formats write to */
	int fd;                 /* under f (the cookie below), -1 for stdout */
	int err;                /* -errno of the first failed write, flush or close */
	bool temp;              /* f is the temporary file, renamed over final at commit */
	char final[PATH_MAX];
	char tmp[PATH_MAX];
};

/* One report at a time has a temporary file: the signal handler removes it. */
static char sig_tmp[PATH_MAX];
static const int sig_list[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NR_SIGS (sizeof(sig_list) / sizeof(sig_list[0]))
static struct sigaction sig_old[NR_SIGS];
static bool sig_set[NR_SIGS];

static void on_signal(int sig)
{
	if (sig_tmp[0])
		unlink(sig_tmp);
	signal(sig, SIG_DFL);
	raise(sig);             /* delivered once the handler returns: the default action */
}

static void block_sigs(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_SIGS; i++)
		sigaddset(&set, sig_list[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Our handler for each signal not ignored (a background job's SIGINT, nohup's
 * SIGHUP stay ignored). */
static void arm(const char *tmp)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	snprintf(sig_tmp, sizeof(sig_tmp), "%s", tmp);
	for (size_t i = 0; i < NR_SIGS; i++) {
		sig_set[i] = !sigaction(sig_list[i], NULL, &sig_old[i]) &&
			     sig_old[i].sa_handler != SIG_IGN &&
			     !sigaction(sig_list[i], &sa, NULL);
	}
}

static void disarm(void)
{
	for (size_t i = 0; i < NR_SIGS; i++)
		if (sig_set[i])
			sigaction(sig_list[i], &sig_old[i], NULL);
	sig_tmp[0] = '\0';
}

static ssize_t of_write(void *cookie, const char *buf, size_t size)
{
	struct fr_outfile *of = cookie;
	size_t done = 0;

	while (!of->err && done < size) {
		ssize_t n = write(of->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			of->err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	if (of->err) {
		/* what was written, not -1: glibc (2.36) takes a cookie's -1 as a
		 * count, and its fwrite then reads past the caller's buffer; a
		 * short count sets the stream's error flag all the same */
		errno = -of->err;
		return (ssize_t)done;
	}
	return (ssize_t)size;
}

static int of_close(void *cookie)
{
	struct fr_outfile *of = cookie;
	int fd = of->fd;

	of->fd = -1;
	if (close(fd) && errno != EINTR && !of->err)
		of->err = -errno;
	return of->err ? -1 : 0;
}

/* A temporary name beside final, created O_EXCL with the mode fopen would
 * give a new file (0666 less the umask), or final's own mode and owner (as
 * far as we may give it) when it exists. */
static int create_temp(struct fr_outfile *of, const struct stat *st)
{
	const char *slash = strrchr(of->final, '/');
	int dir_len = slash ? (int)(slash - of->final + 1) : 0;
	const char *base = slash ? slash + 1 : of->final;
	unsigned long seed = (unsigned long)getpid() ^ (unsigned long)time(NULL);

	for (int tries = 0; tries < 100; tries++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if ((size_t)snprintf(of->tmp, sizeof(of->tmp), "%.*s.%.200s.%06lx.tmp", dir_len,
				     of->final, base, (seed >> 20) & 0xffffff) >= sizeof(of->tmp))
			return -ENAMETOOLONG;
		of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (of->fd >= 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (of->fd < 0)
		return -EEXIST;
	if (st) {   /* root writing a user's file: it stays the user's */
		int ignored = fchown(of->fd, st->st_uid, st->st_gid);

		(void)ignored;
	}
	if (st && fchmod(of->fd, st->st_mode & 07777)) {
		int err = -errno;

		close(of->fd);
		unlink(of->tmp);
		of->fd = -1;
		return err;
	}
	return 0;
}

/* Written in place, as fopen(path, "w") would: what is not a regular file (a
 * device, a FIFO, a dangling symlink) and our own stdout or stderr (-o
 * /dev/stdout), or an existing file in a directory we may not write. */
static bool in_place(const char *path, const struct stat *st, bool exists)
{
	struct stat ls, fs;

	if (!exists)
		return !lstat(path, &ls) && S_ISLNK(ls.st_mode);
	if (!S_ISREG(st->st_mode))
		return true;
	for (int fd = 1; fd <= 2; fd++)
		if (!fstat(fd, &fs) && fs.st_dev == st->st_dev && fs.st_ino == st->st_ino)
			return true;
	return false;
}

static int open_file(struct fr_outfile *of, const char *path)
{
	struct stat st;
	bool exists = !stat(path, &st);
	sigset_t old;
	int err;

	/* an existing file is replaced where it is (a symlink to it stays) */
	if (!(exists && S_ISREG(st.st_mode) && realpath(path, of->final)) &&
	    (size_t)snprintf(of->final, sizeof(of->final), "%s", path) >= sizeof(of->final))
		return -ENAMETOOLONG;
	if (!in_place(path, &st, exists)) {
		block_sigs(&old);
		err = create_temp(of, exists ? &st : NULL);
		if (!err) {
			of->temp = true;
			arm(of->tmp);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!err || !exists || (err != -EACCES && err != -EPERM))
			return err;
		/* else a writable file in a directory we may not write: in place */
	}
	of->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	return of->fd < 0 ? -errno : 0;
}

int fr_outfile__open(const char *path, struct fr_outfile **out)
{
	cookie_io_functions_t io = { .write = of_write, .close = of_close };
	struct fr_outfile *of = calloc(1, sizeof(*of));
	int err;

	*out = NULL;
	if (!of)
		return -ENOMEM;
	of->fd = -1;
	if (!path) {
		of->f = stdout;
		*out = of;
		return 0;
	}
	err = open_file(of, path);
	if (!err && !(of->f = fopencookie(of, "w", io)))
		err = -ENOMEM;
	if (err) {
		if (of->fd >= 0)
			close(of->fd);
		fr_outfile__abort(of);
		return err;
	}
	setvbuf(of->f, NULL, _IOFBF, 1u << 16);
	*out = of;
	return 0;
}

FILE *fr_outfile__stream(const struct fr_outfile *of)
{
	return of->f;
}

int fr_outfile__err(const struct fr_outfile *of)
{
	if (of->err)
		return of->err;
	return of->f && ferror(of->f) ? -EIO : 0;
}

int fr_outfile__commit(struct fr_outfile *of)
{
	sigset_t old;
	int err;

	if (of->f == stdout) {
		err = fflush(stdout) || ferror(stdout) ? -EIO : 0;
		free(of);
		return err;
	}
	fflush(of->f);
	/* the data reaches the disk before the name does (a crash leaves the
	 * old file or the new one, not an empty one) */
	if (!of->err && of->temp && fsync(of->fd) && errno != EINVAL)
		of->err = -errno;
	if (fclose(of->f) && !of->err)
		of->err = -EIO;
	of->f = NULL;
	if (of->err || !of->temp) {
		err = of->err;
		fr_outfile__abort(of);
		return err;
	}
	block_sigs(&old);
	err = rename(of->tmp, of->final) ? -errno : 0;
	if (err)
		unlink(of->tmp);
	disarm();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(of);
	return err;
}

void fr_outfile__abort(struct fr_outfile *of)
{
	sigset_t old;

	if (!of)
		return;
	if (of->f && of->f != stdout)
		fclose(of->f);
	else if (of->f == stdout)
		fflush(stdout);
	if (of->temp) {
		block_sigs(&old);
		unlink(of->tmp);
		disarm();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	free(of);
}
