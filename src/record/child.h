/* src/record/child.h: the recorded command: forked with the recorder's
 * signal mask restored, held before exec until recording has started.
 */
#ifndef FR_CHILD_H
#define FR_CHILD_H

#include <signal.h>
#include <sys/types.h>

struct fr_child {
	pid_t pid;
	int go_fd;      /* write end: releases the child */
	int err_fd;     /* read end: errno of a failed exec, EOF on success */
};

/* Fork cmd (argv style, looked up in PATH); the child waits for release.
 * 0 or -errno. */
int fr_child__spawn(char **cmd, const sigset_t *old, struct fr_child *c);
/* Let the child exec: 0, or -errno of a failed exec (the child has exited). */
int fr_child__release(struct fr_child *c);

#endif
