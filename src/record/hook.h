/* src/record/hook.h: what follows each snapshot file: --exec-on-snapshot, a
 * command never waited for by the main loop (reaped on SIGCHLD), and --push,
 * the file marked for the pusher process (src/cmd_push.c) and it woken.
 */
#ifndef FR_HOOK_H
#define FR_HOOK_H

#include <stdbool.h>
#include <sys/types.h>

struct fr_hooks;

/* cmd: a /bin/sh -c command line, or NULL; push_fd: the pusher's pipe (its
 * write end, non-blocking; -1: no --push), push_pid: its pid. NULL on ENOMEM. */
struct fr_hooks *fr_hooks__new(const char *cmd, int push_fd, pid_t push_pid);
/* Kills nothing: hooks still running are left to finish on their own; the
 * pusher's pipe is closed (it delivers what is marked, then ends). */
void fr_hooks__delete(struct fr_hooks *h);
/* Mark PATH for the pusher (PATH.push) and wake it; start /bin/sh -c CMD
 * flightrec PATH (PATH also in $FLIGHTREC_FILE) with default signal
 * dispositions and an empty signal mask. A failure is said (one line);
 * returns 0 or -errno. */
int fr_hooks__run(struct fr_hooks *h, const char *path);
/* pid was reaped with status wst: true when it was one of our hooks (a
 * failure is said, one line); false when it is someone else's child. */
bool fr_hooks__reaped(struct fr_hooks *h, pid_t pid, int wst);
/* At the end: reap hooks as they exit, for at most timeout_ms. */
void fr_hooks__wait(struct fr_hooks *h, int timeout_ms);

#endif
