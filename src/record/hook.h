/* src/record/hook.h: --exec-on-snapshot: a command run after each snapshot
 * file is written, never waited for by the main loop (reaped on SIGCHLD).
 */
#ifndef FR_HOOK_H
#define FR_HOOK_H

#include <stdbool.h>
#include <sys/types.h>

struct fr_hooks;

/* cmd: a /bin/sh -c command line. NULL on ENOMEM. */
struct fr_hooks *fr_hooks__new(const char *cmd);
/* Kills nothing: hooks still running are left to finish on their own. */
void fr_hooks__delete(struct fr_hooks *h);
/* Start /bin/sh -c CMD flightrec PATH (PATH also in $FLIGHTREC_FILE) with
 * default signal dispositions and an empty signal mask. A failure to start
 * is said (one line); returns 0 or -errno. */
int fr_hooks__run(struct fr_hooks *h, const char *path);
/* pid was reaped with status wst: true when it was one of our hooks (a
 * failure is said, one line); false when it is someone else's child. */
bool fr_hooks__reaped(struct fr_hooks *h, pid_t pid, int wst);
/* At the end: reap hooks as they exit, for at most timeout_ms. */
void fr_hooks__wait(struct fr_hooks *h, int timeout_ms);

#endif
