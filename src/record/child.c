/* src/record/child.c: the recorded command: forked stopped on a pipe, so
 * its events are opened before it runs, then released to exec; a failed
 * exec's errno comes back on a second pipe.
 */
#include "config.h"
#include "src/record/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int fr_child__spawn(char **cmd, const sigset_t *old, struct fr_child *c)
{
	int go[2], ep[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		char b;
		int e;

		sigprocmask(SIG_SETMASK, old, NULL);
		signal(SIGPIPE, SIG_DFL);   /* the recorder ignores it */
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

int fr_child__release(struct fr_child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "x", 1) != 1)
		return -errno;
	close(c->go_fd);
	n = read(c->err_fd, &e, sizeof(e));
	close(c->err_fd);
	return n == (ssize_t)sizeof(e) ? -e : 0;
}
