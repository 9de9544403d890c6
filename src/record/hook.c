/* src/record/hook.c: what follows each snapshot file: --exec-on-snapshot
 * (posix_spawn of /bin/sh -c CMD, tracked by pid so the loop's SIGCHLD
 * handling tells hooks from the recorded command) and --push (the file
 * marked FILE.push, the pusher woken by a byte on its pipe); failures are one
 * line and nothing more.
 */
#include "config.h"
#include "src/record/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "src/util.h"

extern char **environ;

struct hook {
	pid_t pid;
	char *path;
};

struct fr_hooks {
	char *cmd;               /* NULL: no --exec-on-snapshot */
	struct hook *run;        /* running hooks */
	size_t nr, cap;
	int push_fd;             /* the pusher's pipe, -1: none (or it is gone) */
	pid_t push_pid;
	bool push_said;          /* a failed mark or wake-up was said */
};

struct fr_hooks *fr_hooks__new(const char *cmd, int push_fd, pid_t push_pid)
{
	struct fr_hooks *h = calloc(1, sizeof(*h));

	if (h && cmd && !(h->cmd = strdup(cmd))) {
		free(h);
		return NULL;
	}
	if (h) {
		h->push_fd = push_pid > 0 ? push_fd : -1;
		h->push_pid = push_pid;
	}
	return h;
}

void fr_hooks__delete(struct fr_hooks *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nr; i++)
		free(h->run[i].path);
	free(h->run);
	free(h->cmd);
	if (h->push_fd >= 0)
		close(h->push_fd);   /* the pusher's end of input: it delivers what is left */
	free(h);
}

/* environ with FLIGHTREC_FILE=path instead of any inherited one */
static char **hook_env(const char *path, char **var)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env || asprintf(var, "FLIGHTREC_FILE=%s", path) < 0) {
		free(env);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "FLIGHTREC_FILE=", 15))
			env[k++] = environ[i];
	env[k] = *var;
	return env;
}

static int spawn(const char *cmd, const char *path, pid_t *pid)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, (char *)"flightrec",
			 (char *)path, NULL };
	posix_spawnattr_t at;
	sigset_t none, all;
	char *var = NULL, **env = hook_env(path, &var);
	int err;

	if (!env)
		return ENOMEM;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	err = posix_spawn(pid, "/bin/sh", NULL, &at, argv, env);
	posix_spawnattr_destroy(&at);
	free(var);
	free(env);
	return err;
}

/* --push: path marked path.push (the pusher's spool: it removes the mark
 * once delivered), the pusher woken. A full pipe is fine: it has a wake-up
 * pending and finds every mark. */
static void push(struct fr_hooks *h, const char *path)
{
	char mark[PATH_MAX];
	int fd = -1;

	if (snprintf(mark, sizeof(mark), "%s.push", path) < (int)sizeof(mark))
		fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && !h->push_said) {
		h->push_said = true;
		fr_err("--push", "cannot mark %s for the pusher: %s (it is not pushed)", path,
		       strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	if (write(h->push_fd, "", 1) < 0 && errno != EAGAIN && !h->push_said) {
		h->push_said = true;
		fr_err("--push", "waking the pusher: %s (%s stays marked for `flightrec push`)",
		       strerror(errno), path);
	}
}

int fr_hooks__run(struct fr_hooks *h, const char *path)
{
	struct hook hk;
	int err;

	if (h->push_fd >= 0)
		push(h, path);
	if (!h->cmd)
		return 0;
	hk = (struct hook){ .path = strdup(path) };
	err = hk.path ? fr_grow(&h->run, &h->cap, h->nr + 1, sizeof(*h->run), 4) : -ENOMEM;

	if (!err)
		err = -spawn(h->cmd, path, &hk.pid);
	if (err) {
		fr_err("--exec-on-snapshot", "cannot run for %s: %s", path, strerror(-err));
		free(hk.path);
		return err;
	}
	h->run[h->nr++] = hk;
	return 0;
}

bool fr_hooks__reaped(struct fr_hooks *h, pid_t pid, int wst)
{
	if (h && h->push_pid > 0 && pid == h->push_pid) {   /* it ends only with its pipe */
		fr_err("--push", "the pusher (pid %d) ended early (%s %d): new snapshots stay "
		       "marked FILE.push for `flightrec push`", (int)pid,
		       WIFSIGNALED(wst) ? "signal" : "exit status",
		       WIFSIGNALED(wst) ? WTERMSIG(wst) : WEXITSTATUS(wst));
		h->push_pid = 0;
		return true;
	}
	for (size_t i = 0; h && i < h->nr; i++) {
		if (h->run[i].pid != pid)
			continue;
		if (WIFSIGNALED(wst))
			fr_err("--exec-on-snapshot", "'%s' for %s: killed by signal %d", h->cmd,
			       h->run[i].path, WTERMSIG(wst));
		else if (WEXITSTATUS(wst))
			fr_err("--exec-on-snapshot", "'%s' for %s: exit status %d", h->cmd,
			       h->run[i].path, WEXITSTATUS(wst));
		free(h->run[i].path);
		h->run[i] = h->run[--h->nr];
		return true;
	}
	return false;
}

void fr_hooks__wait(struct fr_hooks *h, int timeout_ms)
{
	struct timespec tick = { 0, 10 * 1000000L };

	for (int t = 0; h && h->nr && t < timeout_ms; t += 10) {
		for (size_t i = h->nr; i-- > 0;) {
			int wst;
			pid_t p = waitpid(h->run[i].pid, &wst, WNOHANG);

			if (p == h->run[i].pid || (p < 0 && errno == ECHILD))
				fr_hooks__reaped(h, h->run[i].pid, p > 0 ? wst : 0);
		}
		if (h->nr)
			nanosleep(&tick, NULL);
	}
	if (h && h->nr)
		fr_info("--exec-on-snapshot: %zu hook(s) still running, left to finish", h->nr);
}
