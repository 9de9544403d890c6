/* src/control.h: how `flightrec snapshot` finds and talks to a running
 * recorder: a unix socket and a pid file per recorder name in the run directory.
 */
#ifndef FR_CONTROL_H
#define FR_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

struct fr_control;

/* The run directory: opt, else $FLIGHTREC_RUN_DIR, else /run/flightrec for
 * root, else $XDG_RUNTIME_DIR/flightrec, else /tmp/flightrec-UID. */
const char *fr_control__run_dir(const char *opt);

/* Names are [A-Za-z0-9_.-]{1,64}. */
int fr_control__valid_name(const char *name);
/* Create run_dir (0700) and listen on run_dir/name.sock, write name.pid.
 * -EEXIST (and *other set) when a live recorder already has the name;
 * a stale socket is removed. */
int fr_control__listen(const char *run_dir, const char *name, struct fr_control **out,
		       pid_t *other);
int fr_control__fd(const struct fr_control *c);
/* Accept one client and read its one-line request (2 s timeout). Returns the
 * client fd (the caller replies with fr_control__reply) or -errno. */
int fr_control__accept(struct fr_control *c, char *req, size_t len);
int fr_control__reply(int client, const char *line);
/* Remove the socket and pid file. */
void fr_control__close(struct fr_control *c);

/* Client: send req, wait up to timeout_ms for the one-line reply.
 * -ENOENT/-ECONNREFUSED: no recorder with that name; -ETIMEDOUT. */
int fr_control__request(const char *run_dir, const char *name, const char *req, char *reply,
			size_t len, int timeout_ms);

#endif
